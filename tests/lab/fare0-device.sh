#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 follows its planes: its MTU is the smallest plane MTU (after plane
# add and delete and a plane's MTU change), or a lower one an admin set,
# which plane events keep (they once reset it), it offers an offload only while
# every plane does, except segmentation and checksum offload, which it keeps
# so that it goes on taking GSO packets. In a namespace with IPv6 (a host,
# not forwarding) it gets no IPv6 address and sends nothing of its own: its
# "no fare route" counter stays at zero. The control at the end gives it a
# link-local address the way the kernel would by default, and then that
# counter moves (router solicitations), so the zero is not for want of
# trying.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

load_fare
netns_add fd v6
# A host, not a router: a link-local address would make it solicit routers.
ip netns exec fd sysctl -qw net.ipv6.conf.all.forwarding=0 \
	net.ipv6.conf.default.forwarding=0
ip -n fd link add eth-a type veth peer name peer-a
ip -n fd link add eth-b type veth peer name peer-b
for d in eth-a peer-a eth-b peer-b; do
	ip -n fd link set $d up
done
ip -n fd addr add 10.1.0.2/24 dev eth-a
ip -n fd addr add 10.2.0.2/24 dev eth-b

fc() { "$FARECTL" -n fd "$@"; }
mtu() { ip -n fd -j link show fare0 | jq '.[0].mtu'; }
feature()
{
	ip netns exec fd ethtool -k fare0 | awk -v f="$1:" '$1 == f { print $2 }'
}
noroute() { fc -j stats | jq '.drops.noroute_packets'; }
noroute_seen() { [ "$(noroute)" -gt 0 ]; }

ip -n fd link set eth-b mtu 1400
fc plane add 1 dev eth-a via 10.1.0.1 via 2001:db8:1::1
expect_eq "MTU of one 1500 plane" "$(mtu)" 1500
fc plane add 2 dev eth-b via 10.2.0.1 via 2001:db8:2::1
expect_eq "MTU with a 1400 plane added" "$(mtu)" 1400
ip -n fd link set eth-b mtu 1300
expect_eq "MTU after that plane's MTU fell to 1300" "$(mtu)" 1300
fc plane del 2
expect_eq "MTU after that plane went" "$(mtu)" 1500
fc plane add 2 dev eth-b via 10.2.0.1 via 2001:db8:2::1
ip -n fd link set eth-b mtu 9000
expect_eq "MTU once the small plane grew past the other" "$(mtu)" 1500

# An MTU an admin sets below the planes' is kept through plane events
# (once every plane event set it back to the planes' smallest), until the
# planes' smallest falls below it; setting the planes' own MTU makes fare0
# follow them again.
ip -n fd link set fare0 mtu 1400
ip -n fd link set eth-b mtu 8000
expect_eq "admin's lower MTU kept through a plane's MTU change" "$(mtu)" 1400
fc plane del 2
fc plane add 2 dev eth-b via 10.2.0.1 via 2001:db8:2::1
expect_eq "admin's lower MTU kept through plane delete and add" "$(mtu)" 1400
rc=0
ip -n fd link set fare0 mtu 1600 2>/dev/null || rc=$?
expect_eq "no MTU above the planes' smallest" "$((rc != 0)) $(mtu)" "1 1400"
ip -n fd link set eth-a mtu 1350
expect_eq "clamped once a plane's MTU falls below the admin's" "$(mtu)" 1350
ip -n fd link set eth-a mtu 1500
expect_eq "the admin's MTU again once that plane grew" "$(mtu)" 1400
ip -n fd link set fare0 mtu 1500
ip -n fd link set eth-a mtu 2000
expect_eq "fare0 follows the planes once set to their MTU" "$(mtu)" 2000
ip -n fd link set eth-a mtu 1500

expect_eq "fraglist while every plane has it" \
	"$(feature tx-scatter-gather-fraglist)" on
ip netns exec fd ethtool -K eth-b tx-scatter-gather-fraglist off tso off
expect_eq "fraglist once a plane lost it" \
	"$(feature tx-scatter-gather-fraglist)" off
expect_eq "TSO kept for GSO packets though a plane lost it" \
	"$(feature tcp-segmentation-offload)" on
expect_eq "checksum offload kept" "$(feature tx-checksumming)" on
fc plane del 2
expect_eq "fraglist back once that plane went" \
	"$(feature tx-scatter-gather-fraglist)" on

# Give any router solicitation, MLD report or DAD probe time to go out.
sleep 3
expect_eq "no IPv6 address on fare0" \
	"$(ip -n fd -j -6 addr show dev fare0 | jq '[.[].addr_info[]] | length')" 0
expect_eq "fare0 sent nothing of its own" "$(noroute)" 0

# Control: with a link-local address, as by default, fare0 does send
# (router solicitations), which counts as "no fare route".
ip -n fd link set fare0 addrgenmode random
ip -n fd link set fare0 down
ip -n fd link set fare0 up
if wait_until 20 noroute_seen; then
	pass "control: with a link-local address fare0 counts noroute packets"
else
	fail "control: fare0 sent nothing even with a link-local address"
fi

lab_result
