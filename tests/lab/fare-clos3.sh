#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare-04 §4.1 (3-stage CLOS, figure 1) scaled down to 2 spines and 4
# leaves, every node but one a fared with fare.ko forwarding:
#
#   spines s1 s2 (AS 65100, role spine); leaves l1 l2 l3 (AS 6500i, role
#   leaf); l4 is BIRD (AS 65004) and attaches no PB. Leaf i <-> spine j
#   over 10.j.i.0/30 (spine .1, leaf .2); fare plane at a node = one link.
#
#   link bandwidths   s1    s2
#             l1     100G  100G
#             l2     400G  100G
#             l3     400G  200G
#             l4     100G  100G
#
#   A 10.102.0.0/24 on l2; M 10.100.0.0/24 multi-homed on l1 and l2; N
#   10.104.0.0/24 on l4 (BIRD, no PB). Leaves originate with PB = max.
#
# Worked out from fare-04 §4.1 (GB/s; 100G = 12.5):
#   s1, A: min(50, max) = 50, passes on PB 50.   s2, A: 12.5, PB 12.5.
#   s1, M: l1 min(12.5, max) = 12.5, l2 50: weights 1:4, PB 62.5 on.
#   s2, M: 12.5 and 12.5: 1:1, PB 25 on.
#   s1, s2, N: one path without PB: ECMP, passed on without PB.
#   l3, A: via s1 min(50, 50) = 50, via s2 min(25, 12.5) = 12.5: 4:1.
#   l3, M ("multihomed 2": PB / 2): min(50, 31.25) : min(25, 12.5) = 5:2.
#   l3, N: no path carries PB: ECMP 1:1.
# Per-packet mode at every hop gives exact counts at the receivers:
#   A 5000: via s1 4000, s2 1000.
#   M 1400: l3 sends 1000 to s1 (-> l1 200, l2 800) and 400 to s2
#   (-> l1 200, l2 200).
#   N 1000: 500 and 500.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FARED=$FARE_ROOT/userspace/fared/fared
DIR=$(mktemp -d /tmp/fare-clos3.XXXXXX)
declare -A BW=([1,1]=100G [1,2]=100G [2,1]=400G [2,2]=100G [3,1]=400G
	       [3,2]=200G [4,1]=100G [4,2]=100G)

conf_head() { fared_node_head "$@"; }

spine_conf()
{
	local j=$1 i

	conf_head s$j 10.0.1.$j 65100 spine
	for i in 1 2 3 4; do
		cat <<EOC
interface l$i bandwidth ${BW[$i,$j]}
plane $i {
	neighbor 10.$j.$i.2 {
		remote-as 6500$i
		interface l$i
		import all
		export all
	}
}
EOC
	done
}

leaf_conf()
{
	local i=$1 j

	conf_head l$i 10.0.0.$i 6500$i leaf
	cat <<EOC
originate 10.0.0.$i/32
policy own {
	permit 10.0.0.$i/32
	permit 10.100.0.0/24
	permit 10.102.0.0/24
}
policy mh {
	permit 10.100.0.0/24
}
multihomed 2 policy mh
EOC
	[ $i -eq 3 ] || echo "originate 10.100.0.0/24"
	[ $i -ne 2 ] || echo "originate 10.102.0.0/24"
	for j in 1 2; do
		cat <<EOC
interface s$j bandwidth ${BW[$i,$j]}
plane $j {
	neighbor 10.$j.$i.1 {
		remote-as 65100
		interface s$j
		import all
		export own
	}
}
EOC
	done
}

start_fared()
{
	ip netns exec "$1" "$FARED" -c "$DIR/$1.conf" >"$DIR/$1.log" 2>&1 &
	LAB_PIDS+=("$!")
}

weights() { node_weights "$@"; }
weights_are() { node_weights_are "$@"; }

# route_field NODE PREFIX JQ: from fared's explanation of PREFIX.
route_field()
{
	"$FARECTL" -j bgp -s "$DIR/$1.sock" routes "$2" | jq -r ".[0] | $3"
}

load_fare
for n in s1 s2 l1 l2 l3 l4; do
	netns_add $n
done
ip -n l1 addr add 10.0.0.1/32 dev lo
ip -n l1 addr add 10.100.0.1/32 dev lo
ip -n l2 addr add 10.0.0.2/32 dev lo
ip -n l2 addr add 10.100.0.1/32 dev lo
ip -n l2 addr add 10.102.0.1/32 dev lo
ip -n l3 addr add 10.0.0.3/32 dev lo
ip -n l4 addr add 10.104.0.1/32 dev lo
for j in 1 2; do
	for i in 1 2 3 4; do
		veth_link s$j l$i 10.$j.$i.1/30 l$i s$j 10.$j.$i.2/30
	done
done

for j in 1 2; do
	spine_conf $j >"$DIR/s$j.conf"
done
for i in 1 2 3; do
	leaf_conf $i >"$DIR/l$i.conf"
done

cat >"$DIR/bird.conf" <<EOC
router id 10.0.0.4;
log "$DIR/bird.log" { warning, error };
protocol device { }
protocol static own {
	ipv4;
	route 10.104.0.0/24 blackhole;
}
template bgp spine {
	local as 65004;
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export where source = RTS_STATIC; };
}
protocol bgp s1 from spine { neighbor 10.1.4.1 as 65100; }
protocol bgp s2 from spine { neighbor 10.2.4.1 as 65100; }
EOC
lab_bird l4 "$DIR/bird.conf" "$DIR/bird.ctl" "$DIR/bird.pid"
for n in s1 s2 l1 l2 l3; do
	start_fared $n
done

A=10.102.0.0/24 M=10.100.0.0/24 N=10.104.0.0/24
check_weights()
{
	local node=$1 pfx=$2 want=$3

	wait_until 30 weights_are "$node" "$pfx" "$want" || true
	expect_eq "$node $pfx weights" "$(weights "$node" "$pfx")" "$want"
}
check_weights s1 $M "1:1 2:4"
check_weights s2 $M "1:1 2:1"
check_weights s1 $A "2:1"
check_weights s1 $N "4:1"
check_weights l3 $A "1:4 2:1"
check_weights l3 $M "1:5 2:2"
check_weights l3 $N "1:1 2:1"
if [ $LAB_FAILED -ne 0 ]; then
	for n in s1 s2 l1 l2 l3; do
		echo "--- $n"
		cat "$DIR/$n.log"
		"$FARECTL" bgp -s "$DIR/$n.sock" routes || true
	done
fi

# What the spines pass on, in bits/s (1 GB/s = 8e9).
expect_eq "s1 passes M on with PB 62.5 GB/s" \
	"$(route_field s1 $M .advertise_pb_bps)" 500000000000
expect_eq "s2 passes A on with PB 12.5 GB/s" \
	"$(route_field s2 $A .advertise_pb_bps)" 100000000000
expect_eq "s1 passes N on without PB" "$(route_field s1 $N .advertise)" \
	"no PB: not every path carries one"
expect_eq "l3 receives M's PB from s1 halved (bit/s)" \
	"$(route_field l3 $M '.paths[] | select(.neighbor == "10.1.3.1") | .fare.pb_bps')" \
	250000000000
expect_eq "l3 weighs N by ECMP" \
	"$(route_field l3 $N '.paths[0].fare.rule')" \
	"ECMP: not every path carries PB (fare-04 §4.1)"
"$FARECTL" bgp -s "$DIR/l3.sock" routes $M

# sink NODE LOG DST COUNT [TIMEOUT]: a receiver in NODE.
sink()
{
	ip netns exec "$1" "$FARE_UDP" sink --bind "$3" --port 9200 \
		--count "$4" --timeout "${5:-30}" >"$2" &
	LAB_PIDS+=("$!")
	eval "SINK_$1=$!"
	wait_until 10 grep -q listening "$2"
}

send()
{
	ip netns exec l3 taskset -c 0 "$FARE_UDP" send --src 10.0.0.3 \
		--dst "$1" --port 9200 --count "$2" --interval-us 20
}

reaped()
{
	local rc=0 pid

	pid=$(eval echo "\$SINK_$1")
	wait "$pid" || rc=$?
	cat "$2"
	expect_eq "$3: every datagram arrived once at $1" $rc 0
}

sink l2 "$DIR/a" 10.102.0.1 5000
send 10.102.0.1 5000
reaped l2 "$DIR/a" A
expect_near "A via s1" "$(sink_iface "$DIR/a" s1)" 4000 1
expect_near "A via s2" "$(sink_iface "$DIR/a" s2)" 1000 1

# Each of M's receivers gets part of one sequence, so neither reaches
# 1400: once the two kernels have taken 1400 datagrams between them (or
# 15 s passed), both receivers are stopped (what waits in their sockets
# still counts), and between them they must have had every one.
m_in() { echo $(($(snmp l1 Udp InDatagrams) + $(snmp l2 Udp InDatagrams))); }
m_all_in() { [ $(($(m_in) - M_IN0)) -ge 1400 ]; }
sink l1 "$DIR/m1" 10.100.0.1 1400 30
sink l2 "$DIR/m2" 10.100.0.1 1400 30
M_IN0=$(m_in)
send 10.100.0.1 1400
wait_until 15 m_all_in || true
kill -TERM "$SINK_l1" "$SINK_l2" 2>/dev/null || true
wait "$SINK_l1" "$SINK_l2" || true
cat "$DIR/m1" "$DIR/m2"
expect_eq "M received at l1" "$(sink_field "$DIR/m1" received 2)" 400
expect_eq "M received at l2" "$(sink_field "$DIR/m2" received 2)" 1000
expect_near "M via s1 to l1" "$(sink_iface "$DIR/m1" s1)" 200 1
expect_near "M via s2 to l1" "$(sink_iface "$DIR/m1" s2)" 200 1
expect_near "M via s1 to l2" "$(sink_iface "$DIR/m2" s1)" 800 1
expect_near "M via s2 to l2" "$(sink_iface "$DIR/m2" s2)" 200 1

sink l4 "$DIR/n" 10.104.0.1 1000
send 10.104.0.1 1000
reaped l4 "$DIR/n" N
expect_near "N via s1" "$(sink_iface "$DIR/n" s1)" 500 1
expect_near "N via s2" "$(sink_iface "$DIR/n" s2)" 500 1

lab_result
