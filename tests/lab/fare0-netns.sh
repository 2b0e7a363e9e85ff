#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 belongs to its namespace: its flowlet table, planes and routes are
# that namespace's, so the kernel refuses to move it to another one (once
# a move was accepted, and a ping through the moved fare0 in flowlet mode
# dereferenced the target namespace's missing flowlet table). After the
# refused move each namespace gets a fare0 of its own and a flowlet-mode
# ping through it is answered; the peer's counters, not fare's, say so.
set -eu
. "$(dirname "$0")/lib.sh"

load_fare
netns_add na
netns_add nb
netns_add np

# na and nb each reach np's 198.51.100.1 through a veth plane.
veth_link na eth-p 10.1.0.2/24 np eth-a 10.1.0.1/24
veth_link nb eth-p 10.2.0.2/24 np eth-b 10.2.0.1/24
ip -n np addr add 198.51.100.1/32 dev lo
for ns in na nb; do
	ip -n $ns addr add 192.0.2.7/32 dev lo
done
ip -n np route add 192.0.2.7/32 via 10.1.0.2 dev eth-a

"$FARECTL" -n na plane add 1 dev eth-p via 10.1.0.1
ip -n na link show fare0 >/dev/null

rc=0
out=$(ip -n na link set fare0 netns nb 2>&1) || rc=$?
if [ $rc -ne 0 ]; then
	pass "moving fare0 to another namespace refused: $out"
else
	fail "fare0 moved to another namespace"
fi
expect_eq "fare0 still in its namespace" \
	"$(ip -n na -j link show fare0 | jq -r '.[0].ifname')" fare0
expect_eq "no fare0 arrived in the other one" \
	"$(ip -n nb -j link show | jq '[.[] | select(.ifname == "fare0")] | length')" 0

# The other namespace: a plane (which makes its own fare0), a flowlet
# route, one ping.
"$FARECTL" -n nb plane add 1 dev eth-p via 10.2.0.1
"$FARECTL" -n nb route add 198.51.100.1/32 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1
ip -n np route replace 192.0.2.7/32 via 10.2.0.2 dev eth-b
before=$(ip -n np -j -s link show eth-b | jq '.[0].stats64.rx.packets')
if ip netns exec nb ping -c 3 -i 0.2 -W 2 -I 192.0.2.7 198.51.100.1 >/dev/null; then
	pass "ping through the second namespace's fare0 answered"
else
	fail "ping through the second namespace's fare0 not answered"
fi
after=$(ip -n np -j -s link show eth-b | jq '.[0].stats64.rx.packets')
expect_eq "echo requests the peer received over nb's plane" \
	$((after - before >= 3)) 1

# And the first namespace's fare0 still steers.
"$FARECTL" -n na route add 198.51.100.1/32 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1
ip -n np route replace 192.0.2.7/32 via 10.1.0.2 dev eth-a
if ip netns exec na ping -c 3 -i 0.2 -W 2 -I 192.0.2.7 198.51.100.1 >/dev/null; then
	pass "ping through the first namespace's fare0 answered"
else
	fail "ping through the first namespace's fare0 not answered"
fi

rc=0
ip -n nb link set fare0 netns na 2>/dev/null || rc=$?
expect_eq "moving the second fare0 refused too" $((rc != 0)) 1
lab_result
