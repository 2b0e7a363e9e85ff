#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Commands name their fare device (farectl -d, FARE_A_IFNAME): a fare
# device made by "ip link add NAME type fare" takes the planes and routes
# of commands that name it, and steers by them (the peer's counters say
# so) without a fare0 appearing; a device that is not a fare device, or
# none at all, is refused with the kernel's reason and changes nothing.
# Before FARE_A_IFNAME the kernel refused every such command as an
# unknown attribute.
set -eu
. "$(dirname "$0")/lib.sh"

load_fare
netns_add nf
netns_add np

veth_link nf eth-p 10.1.0.2/24 np eth-a 10.1.0.1/24
ip -n np addr add 198.51.100.1/32 dev lo
ip -n nf addr add 192.0.2.7/32 dev lo
ip -n np route add 192.0.2.7/32 via 10.1.0.2 dev eth-a

ip -n nf link add fx type fare
ip -n nf link set fx up
"$FARECTL" -n nf -d fx plane add 1 dev eth-p via 10.1.0.1
"$FARECTL" -n nf --dev=fx route add 198.51.100.1/32 src 192.0.2.7 \
	nexthop plane 1 weight 1
expect_eq "no fare0 made beside fx" \
	"$(ip -n nf -j link show | jq '[.[] | select(.ifname == "fare0")] | length')" 0
expect_eq "the kernel's route to the prefix goes through fx" \
	"$(ip -n nf -j route show table 249 exact 198.51.100.1/32 |
		jq -r '.[0].dev')" fx

before=$(ip -n np -j -s link show eth-a | jq '.[0].stats64.rx.packets')
if ip netns exec nf ping -c 3 -i 0.2 -W 2 -I 192.0.2.7 198.51.100.1 >/dev/null; then
	pass "ping through fx answered"
else
	fail "ping through fx not answered"
fi
after=$(ip -n np -j -s link show eth-a | jq '.[0].stats64.rx.packets')
expect_eq "echo requests the peer received over fx's plane" \
	$((after - before >= 3)) 1
expect_eq "fx counted them sent" \
	$(($(ip -n nf -j -s link show fx | jq '.[0].stats64.tx.packets') >= 3)) 1

# Refusals: by name and by the kernel's reason; nothing changes.
expect_refusal "a device that is not a fare device" "not a fare device" \
	"$FARECTL" -n nf -d eth-p plane add 2 dev eth-p via 10.1.0.1
expect_refusal "a device that does not exist" "no such device" \
	"$FARECTL" -n nf -d nosuch plane show 1
# A dump's start gets an extack from 6.12 on; 6.1 gives the errno alone.
rc=0
out=$("$FARECTL" -n nf -d lo route show 2>&1) || rc=$?
if [ $rc -eq 1 ] && grep -qE "not a fare device|Invalid argument" <<<"$out"; then
	pass "a dump for another device refused too: $out"
else
	fail "a dump for another device: exit $rc, output: $out"
fi
expect_eq "the refused plane is not there" \
	"$("$FARECTL" -n nf -j plane show | jq '[.[] | select(.id == 2)] | length')" 0
expect_exit "a name too long for a device" 1 "longer than" \
	"$FARECTL" -n nf -d fare-0123456789abcdef plane show

# Without -d, fare0's table, which is not fx's; a dump makes no fare0.
expect_eq "fx's plane not shown without -d" \
	"$("$FARECTL" -n nf -j plane show | jq length)" 0
expect_eq "still no fare0 after a dump without -d" \
	"$(ip -n nf -j link show | jq '[.[] | select(.ifname == "fare0")] | length')" 0
lab_result
