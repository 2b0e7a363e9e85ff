#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 as a netdev operators watch: `ip -s link show fare0` counts what
# fare0 sent and dropped, in the kernel's standard device counters, checked
# against the leaves' interface counters and the kernel's kfree_skb
# tracepoint, never against fare.ko's own report.
#  1. 1000 datagrams over two planes 1:1: fare0's tx packets are what the
#     leaves received, its tx bytes theirs less one Ethernet header each.
#  2. Plane 1's device drops everything at tc egress: a packet counts as
#     sent only once the plane took it, so fare0's tx is plane 2's half and
#     its tx_dropped plane 1's.
#  3. A destination routed to fare0 with no fare route, then every plane
#     down with no other route: each datagram is a tx drop, and the drop
#     reasons tell them apart (IP_OUTNOROUTES, then NO_TX_TARGET, or
#     DEV_READY on kernels before 6.11).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=1000

load_fare
topo_planes 2
plane_add_all 2
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1

tx() { ip -n host -s -j link show fare0 | jq ".[0].stats64.tx.$1"; }
leaf() { ip -n "leaf$1" -s -j link show eth-host | jq ".[0].stats64.rx.$2"; }
send()
{
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst "$1" \
		--port 9000 --count "$2" --size 100 --interval-us 100 >/dev/null
}

# ---- 1. sent, against the leaves ----
p0=$(tx packets) b0=$(tx bytes)
l1=$(leaf 1 packets) l2=$(leaf 2 packets)
m1=$(leaf 1 bytes) m2=$(leaf 2 bytes)
send 198.51.100.1 $N
# The leaves count what crossed the veth: wait until all of it has.
wait_for 10 eval '[ $(($(leaf 1 packets) + $(leaf 2 packets) - l1 - l2)) -ge $N ]' || true
got=$(($(leaf 1 packets) + $(leaf 2 packets) - l1 - l2))
gotb=$(($(leaf 1 bytes) + $(leaf 2 bytes) - m1 - m2))
expect_eq "leaves received" $got $N
expect_eq "fare0 tx packets = the leaves' rx" $(($(tx packets) - p0)) $got
expect_eq "fare0 tx bytes = the leaves' rx less 14 a packet" \
	$(($(tx bytes) - b0)) $((gotb - 14 * got))
expect_eq "fare0 tx_dropped" "$(tx dropped)" 0

# ---- 2. a plane that refuses the packet ----
ip netns exec host tc qdisc add dev eth-p1 clsact
ip netns exec host tc filter add dev eth-p1 egress matchall action drop
p0=$(tx packets) d0=$(tx dropped)
l1=$(leaf 1 packets) l2=$(leaf 2 packets)
send 198.51.100.1 $N
wait_for 10 eval '[ $(($(leaf 2 packets) - l2)) -ge $((N / 2)) ]' || true
expect_eq "plane 1 refused: leaf 1 received" $(($(leaf 1 packets) - l1)) 0
got=$(($(leaf 2 packets) - l2))
expect_near "plane 2 took its half" $got $((N / 2)) 2
expect_eq "fare0 tx packets = leaf 2's rx" $(($(tx packets) - p0)) $got
expect_eq "fare0 tx_dropped = what plane 1 refused" \
	$(($(tx dropped) - d0)) $((N - got))
ip netns exec host tc qdisc del dev eth-p1 clsact

# ---- 3. no fare route, no usable plane: drops and their reasons ----
tracing=/sys/kernel/tracing
[ -d $tracing/events ] || mount -t tracefs tracefs $tracing
echo 0 >$tracing/tracing_on
echo >$tracing/trace
echo 1 >$tracing/events/skb/kfree_skb/enable
echo 1 >$tracing/tracing_on
# reasons: fare.ko's frees by reason, "REASON COUNT" lines.
reasons()
{
	grep -F '[fare]' $tracing/trace | grep -o 'reason: [A-Z_0-9]*' |
		sort | uniq -c | awk '{ print $3, $1 }' | tr '\n' ' '
}

ip -n host route add 203.0.113.0/24 dev fare0 src 192.0.2.7
p0=$(tx packets) d0=$(tx dropped)
l1=$(leaf 1 packets) l2=$(leaf 2 packets)
send 203.0.113.1 100
expect_eq "no fare route: tx_dropped" $(($(tx dropped) - d0)) 100
expect_eq "no fare route: drop reasons" "$(reasons)" "IP_OUTNOROUTES 100 "

ip -n host link set eth-p1 down
ip -n host link set eth-p2 down
d0=$(tx dropped)
send 198.51.100.1 100
expect_eq "no usable plane: tx_dropped" $(($(tx dropped) - d0)) 100
r=$(reasons)
if [ "$r" = "IP_OUTNOROUTES 100 NO_TX_TARGET 100 " ] ||
   [ "$r" = "DEV_READY 100 IP_OUTNOROUTES 100 " ]; then
	pass "no usable plane: a reason of its own: $r"
else
	fail "drop reasons: $r (expected IP_OUTNOROUTES 100 and 100 NO_TX_TARGET or DEV_READY)"
fi
echo 0 >$tracing/events/skb/kfree_skb/enable
expect_eq "nothing sent meanwhile: fare0 tx packets" $(($(tx packets) - p0)) 0
expect_eq "nothing reached leaf 1" $(($(leaf 1 packets) - l1)) 0
expect_eq "nothing reached leaf 2" $(($(leaf 2 packets) - l2)) 0

lab_result
