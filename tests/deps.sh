#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Installs every Debian package fare needs to build, test and run its labs.
# Idempotent: when everything is already installed it changes nothing and
# touches no network.
set -euo pipefail

[ "$(id -u)" -eq 0 ] || { echo "deps: run as root (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

PACKAGES=(
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio dwarves
	pkg-config libmnl-dev valgrind clang-14 libclang-rt-14-dev
	linux-headers-amd64 linux-image-amd64 linux-source-6.12
	qemu-system-x86 busybox-static
	iproute2 jq gojq ethtool util-linux procps python3 xz-utils rsync strace
	python3-yaml python3-jsonschema
	dkms dh-dkms debhelper lintian libsystemd-dev systemd git debootstrap
	bird2 iputils-ping frr
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
	nftables sparse
)

# --kernel-build: only what tests/vm/build-test-kernel needs, so that
# tests/run-all can start that build (the longest step of a cold run)
# while the rest installs.
KERNEL_BUILD=(
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio
	xz-utils linux-source-6.12
)
kernel_only=0
case ${1-} in
'') ;;
--kernel-build) kernel_only=1 ;;
*) echo "usage: tests/deps.sh [--kernel-build]" >&2; exit 2 ;;
esac

installed()
{
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = \
	  "install ok installed" ]
}

# Debian ships 6.12 for bookworm as versioned packages only; take the
# newest whose image and headers are both in the archive.
newest_612()
{
	apt-cache search --names-only \
		'^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -V |
		while read -r rel; do
			apt-cache show "linux-image-$rel" >/dev/null 2>&1 &&
				echo "$rel"
		done | tail -n 1
}

missing=()
if [ $kernel_only -eq 1 ]; then
	for p in "${KERNEL_BUILD[@]}"; do
		installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -ne 0 ] || { echo "deps: kernel build packages present"; exit 0; }
	apt-get update -q
	echo "deps: installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}"
	exit 0
fi
for p in "${PACKAGES[@]}"; do
	installed "$p" || missing+=("$p")
done
have_612=$(dpkg-query -W -f='${Package}\n' 'linux-headers-6.12.*-amd64' \
	2>/dev/null | grep -v -e cloud -e rt || true)

if [ ${#missing[@]} -eq 0 ] && [ -n "$have_612" ] &&
   ls /boot/vmlinuz-6.12.*-amd64 >/dev/null 2>&1; then
	echo "deps: all packages present"
	exit 0
fi

apt-get update -q
rel=$(newest_612)
[ -n "$rel" ] || { echo "deps: no linux 6.12 package for bookworm" >&2; exit 1; }
missing+=("linux-headers-$rel" "linux-image-$rel")
echo "deps: installing ${missing[*]}"

# On CI's machine, whose kernel comes from its hypervisor and which has no
# boot loader, nothing reads the initramfs of the images installed here:
# tests/vm/run boots them with one of its own. Making them took 156 of
# this step's 277 s in a cold run (each image's postinst hook, then
# initramfs-tools' trigger, beside the debug kernel's build), so there
# update-initramfs is a no-op while apt installs and is put back after. A
# machine with a boot loader gets them as apt makes them, CI or not.
noop=$(dirname "$0")/tools/initramfs-noop
initramfs_diverted=0
restore_initramfs()
{
	[ $initramfs_diverted -eq 1 ] || return 0
	"$noop" off
	initramfs_diverted=0
}
if [ -n "${CI-}" ] && [ ! -e /boot/grub/grub.cfg ] && [ ! -e /boot/efi/EFI ] &&
   [ ! -e /boot/loader ] && [ ! -e /efi ]; then
	trap restore_initramfs EXIT
	"$noop" on
	initramfs_diverted=1
	echo "deps: CI, no boot loader: the images get no initramfs (tests/vm/run makes its own)"
fi
# No recommends: the kernels are only booted in QEMU guests, never here.
apt-get install -y -q --no-install-recommends "${missing[@]}"
restore_initramfs
