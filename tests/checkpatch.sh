#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs the kernel's checkpatch.pl (from Debian's linux-source-6.12) over
# the kernel module and the uapi header. Fails on any error or warning.
set -euo pipefail

cache=${FARE_CACHE:-/var/cache/fare}/checkpatch
tarball=$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null) || {
	echo "checkpatch: linux-source-6.12 is not installed (make deps)" >&2
	exit 1
}
if [ ! -x "$cache/scripts/checkpatch.pl" ] ||
   [ "$tarball" -nt "$cache/scripts/checkpatch.pl" ]; then
	mkdir -p "$cache"
	# -m: the extraction time, not the archive's older one, so that the
	# test above finds it newer than the tarball and the next run skips
	# decompressing 150 MB (which, niced beside a kernel build, took
	# minutes).
	tar -C "$cache" --strip-components=1 -m -xf "$tarball" \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch
fi

cd "$(dirname "$0")/.."
# fare_shim.h is the userspace stand-in for kernel types, stdint by design.
files=$(git ls-files 'kmod/*.c' 'kmod/*.h' 'uapi/*.h' | grep -v fare_shim.h)
# --no-tree: an out-of-tree module; the rest is checkpatch's defaults.
"$cache/scripts/checkpatch.pl" --no-tree --strict --terse \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $files
