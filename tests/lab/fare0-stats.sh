#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 as a netdev operators watch: `ip -s link show fare0` counts what
# fare0 sent and dropped, in the kernel's standard device counters, checked
# against the leaves' interface counters and the kernel's kfree_skb
# tracepoint, never against fare.ko's own report.
#  1. 400 datagrams over two planes 1:1: fare0's tx packets are what the
#     leaves received, its tx bytes theirs less one Ethernet header each.
#  2. Plane 1's qdisc drops everything (a tbf whose burst is smaller than
#     any packet): a packet counts as sent only once the plane took it, so
#     fare0's tx is plane 2's half and its tx_dropped plane 1's.
#  3. A destination routed to fare0 with no fare route, then every plane
#     down with no other route: each datagram is a tx drop, and the drop
#     reasons tell them apart (IP_OUTNOROUTES, then NO_TX_TARGET, or
#     DEV_READY on kernels before 6.11).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=400
M=50

load_fare
topo_planes 2
plane_add_all 2
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1

# snap: fare0's tx packets, bytes and drops (P B D) as `ip -s link` shows
# them, and the packets and bytes leaf 1 and 2 received (L1 M1 L2 M2).
snap()
{
	read -r P B D < <(ip -n host -s -j link show fare0 |
		jq -r '.[0].stats64.tx | "\(.packets) \(.bytes) \(.dropped)"')
	read -r L1 M1 < <(ip -n leaf1 -s -j link show eth-host |
		jq -r '.[0].stats64.rx | "\(.packets) \(.bytes)"')
	read -r L2 M2 < <(ip -n leaf2 -s -j link show eth-host |
		jq -r '.[0].stats64.rx | "\(.packets) \(.bytes)"')
	is_int "$P" && is_int "$D" && is_int "$L1" && is_int "$L2" ||
		fail "counters unreadable: '$P' '$D' '$L1' '$L2'"
}
leaves_got() { snap; [ $((L1 + L2 - l1 - l2)) -ge "$1" ]; }
send()
{
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst "$1" \
		--port 9000 --count "$2" --size 100 >/dev/null
}

# ---- 1. sent, against the leaves ----
snap
p=$P b=$B l1=$L1 l2=$L2 m1=$M1 m2=$M2
send 198.51.100.1 $N
# The leaves count what crossed the veth: wait until all of it has.
wait_until 10 leaves_got $N || true
got=$((L1 + L2 - l1 - l2))
expect_eq "leaves received" $got $N
expect_eq "fare0 tx packets = the leaves' rx" $((P - p)) $got
expect_eq "fare0 tx bytes = the leaves' rx less 14 a packet" $((B - b)) \
	$((M1 + M2 - m1 - m2 - 14 * got))
expect_eq "fare0 tx dropped" "$D" 0

# ---- 2. a plane that refuses the packet ----
ip netns exec host tc qdisc add dev eth-p1 root tbf rate 1mbit burst 100 \
	limit 10000
p=$P d=$D l1=$L1 l2=$L2
send 198.51.100.1 $N
wait_until 10 leaves_got $((N / 2)) || true
expect_eq "plane 1 refused: leaf 1 received" $((L1 - l1)) 0
got=$((L2 - l2))
expect_near "plane 2 took its half" $got $((N / 2)) 2
expect_eq "fare0 tx packets = leaf 2's rx" $((P - p)) $got
expect_eq "fare0 tx dropped = what plane 1 refused" $((D - d)) $((N - got))
ip netns exec host tc qdisc del dev eth-p1 root

# ---- 3. no fare route, no usable plane: drops and their reasons ----
tracing=/sys/kernel/tracing
[ -d $tracing/events ] || mount -t tracefs tracefs $tracing
echo 0 >$tracing/tracing_on
echo >$tracing/trace
echo 1 >$tracing/events/skb/kfree_skb/enable
echo 1 >$tracing/tracing_on
# reasons: the kernel's frees of the reasons fare0 may give, by reason,
# as "REASON COUNT " (6.1 prints no symbol for the location).
reasons()
{
	grep -o 'reason: [A-Z_0-9]*' $tracing/trace |
		grep -E ' (IP_OUTNOROUTES|NO_TX_TARGET|DEV_READY)$' |
		sort | uniq -c | awk '{ print $3, $1 }' | tr '\n' ' ' || true
}

ip -n host route add 203.0.113.0/24 dev fare0 src 192.0.2.7
snap
p=$P d=$D l1=$L1 l2=$L2
send 203.0.113.1 $M
snap
expect_eq "no fare route: tx dropped" $((D - d)) $M
expect_eq "no fare route: drop reasons" "$(reasons)" "IP_OUTNOROUTES $M "

ip -n host link set eth-p1 down
ip -n host link set eth-p2 down
d=$D
send 198.51.100.1 $M
snap
expect_eq "no usable plane: tx dropped" $((D - d)) $M
r=$(reasons)
if [ "$r" = "IP_OUTNOROUTES $M NO_TX_TARGET $M " ] ||
   [ "$r" = "DEV_READY $M IP_OUTNOROUTES $M " ]; then
	pass "no usable plane: a reason of its own: $r"
else
	fail "drop reasons: $r (expected IP_OUTNOROUTES $M and $M NO_TX_TARGET or DEV_READY)"
fi
echo 0 >$tracing/events/skb/kfree_skb/enable
expect_eq "nothing sent meanwhile: fare0 tx packets" $((P - p)) 0
expect_eq "nothing reached leaf 1" $((L1 - l1)) 0
expect_eq "nothing reached leaf 2" $((L2 - l2)) 0

lab_result
