#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 as operators' tools see it (issue 24 §4): `ethtool -i fare0`
# names the driver and the loaded release, and fare's tracepoints
# (events/fare/ in tracefs, what perf and bpftrace attach to) report what
# the leaves and fare0's device counters saw.
#  1. ethtool -i: driver fare, version /sys/module/fare/version.
#  2. 200 datagrams over two planes 1:1 in packet mode: fare:fare_xmit
#     fires once per datagram, with the plane each leaf counted.
#  3. Flowlet mode: fare:fare_flowlet_new fires for a new flowlet, naming
#     a plane whose leaf received the datagrams.
#  4. Every plane down, no other route: fare:fare_noplane fires
#     "dropped" once per datagram fare0's tx_dropped counted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=200
M=20

load_fare
topo_planes 2
plane_add_all 2
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1

# ---- 1. ethtool ----
info=$(ip netns exec host ethtool -i fare0)
expect_eq "ethtool -i: driver" "$(awk '$1 == "driver:" { print $2 }' <<<"$info")" fare
expect_eq "ethtool -i: version" \
	"$(awk '$1 == "version:" { print $2 }' <<<"$info")" \
	"$(cat /sys/module/fare/version)"

trace_mount
[ -d $LAB_TRACING/events/fare ] || { fail "no events/fare in tracefs"; lab_result; }
leaf_rx() { ip -n leaf"$1" -s -j link show eth-host | jq '.[0].stats64.rx.packets'; }
send()
{
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
		--port 9000 --count "$1" --size 100 >/dev/null
}
leaves_got() { [ $(($(leaf_rx 1) + $(leaf_rx 2) - l1 - l2)) -ge "$1" ]; }

# ---- 2. fare_xmit per packet ----
trace_on fare_xmit
l1=$(leaf_rx 1) l2=$(leaf_rx 2)
send $N
wait_until 10 leaves_got $N || true
g1=$(($(leaf_rx 1) - l1)) g2=$(($(leaf_rx 2) - l2))
expect_eq "the leaves received" $((g1 + g2)) $N
expect_eq "fare_xmit events" "$(trace_events fare_xmit)" $N
expect_eq "fare_xmit on plane 1 = leaf 1's rx" \
	"$(trace_events fare_xmit 'daddr=::ffff:198.51.100.1 plane=1 ')" $g1
expect_eq "fare_xmit on plane 2 = leaf 2's rx" \
	"$(trace_events fare_xmit 'daddr=::ffff:198.51.100.1 plane=2 ')" $g2

# ---- 3. a new flowlet ----
"$FARECTL" -n host route replace 198.51.100.0/24 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1
trace_on fare_flowlet_new
l1=$(leaf_rx 1) l2=$(leaf_rx 2)
send $M
wait_until 10 leaves_got $M || true
n=$(trace_events fare_flowlet_new)
[ "$n" -ge 1 ] && [ "$n" -le $M ] &&
	pass "fare_flowlet_new events: $n for $M datagrams of one flow" ||
	fail "fare_flowlet_new events: $n (expected 1..$M)"
first=$(grep -m1 -o ' fare_flowlet_new: .* plane=[0-9]*' $LAB_TRACING/trace |
	sed 's/.*plane=//')
g1=$(($(leaf_rx 1) - l1)) g2=$(($(leaf_rx 2) - l2))
case $first in
1) got=$g1 ;;
2) got=$g2 ;;
*) got=0 ;;
esac
[ "$got" -ge 1 ] &&
	pass "the first flowlet's plane ($first) received datagrams ($got)" ||
	fail "the first flowlet named plane '$first', whose leaf got none ($g1 $g2)"

# ---- 4. no usable plane ----
ip -n host link set eth-p1 down
ip -n host link set eth-p2 down
trace_on fare_noplane
d=$(ip -n host -s -j link show fare0 | jq '.[0].stats64.tx.dropped')
send $M
dropped=$(($(ip -n host -s -j link show fare0 | jq '.[0].stats64.tx.dropped') - d))
expect_eq "fare0 tx dropped" $dropped $M
expect_eq "fare_noplane dropped = fare0's tx_dropped" \
	"$(trace_events fare_noplane 'daddr=::ffff:198.51.100.1 dropped')" $dropped
echo 0 >$LAB_TRACING/events/enable

lab_result
