#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Route-table suppression (mpson-00 §4) with fare.ko forwarding at every
# fared node, two planes:
#
#   h1 (BIRD, the RNIC X = 10.1.0.5, lo) -- eth-l1 10.11.0.2/30 / .1 l1
#                                        -- eth-l2 10.12.0.2/30 / .1 l2
#   lI (fared leaf, AS 6500I, originates A = 10.1.0.0/24, "fib-suppress
#       tag", h1 is an "rnic" neighbor) -- eth-sI 10.2I.0.1/30 / .2 sI
#   sI (fared spine, AS 6510I, "fib-suppress honour")
#                                        -- eth-r 10.3I.0.1/30 / .2 r
#   r  (fared host, AS 65300, lo 192.0.2.9, packet mode, plane I via sI)
#
# Phase 1, FIB-Suppress (§4.2.1): the leaves pass X on tagged; each spine
# keeps X in its BGP RIB but not in fare.ko nor table 249, the aggregate in
# both; r (not honouring) has X on both planes, 1:1. 120 datagrams r -> X
# arrive 60 and 60 at h1, each spine carrying its 60 on A's route.
# Phase 2, leaf UPA (§4.1): the leaves are reloaded with "upa originate";
# X is held back, r follows A (60/60). h1's session to l1 goes down: l1
# announces a UPA route for X, r sends all 120 over plane 2 (X = A minus
# plane 1, weights renormalised to A's sum). h1 back: UPA withdrawn,
# 60/60 again.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
# On the debug kernel (run by hand) every check stands as is; its time
# there is BGP convergence through fared leaves and spines, not traffic
# (120 datagrams a phase).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FARED=${FARED:-$FARE_ROOT/userspace/fared/fared}
DIR=$(mktemp -d /tmp/fare-fib-suppress.XXXXXX)
X=10.1.0.5/32
A=10.1.0.0/24
declare -A FPID=()

# tx reads fare.ko's per-route counters, off by default in fared.
conf_head()
{
	fared_node_head "$@" 192.0.2.0/24
	echo "route-stats on"
}

# neighbor PLANE ADDR AS IFACE IMPORT EXPORT [EXTRA]
neighbor()
{
	cat <<EOC
interface $4 bandwidth 100G
plane $1 {
	neighbor $2 {
		remote-as $3
		interface $4
		import $5
		export $6
		${7:-}
	}
}
EOC
}

leaf_conf() # I EXTRA-GLOBAL
{
	conf_head l$1 10.0.0.$1 6500$1 leaf
	cat <<EOC
originate $A
fib-suppress tag
$2
policy hosts {
	permit $A le 32
}
EOC
	neighbor 1 10.1$1.0.2 65010 eth-h1 hosts all rnic
	neighbor 2 10.2$1.0.2 6510$1 eth-s$1 all all
}

spine_conf() # I
{
	conf_head s$1 10.0.1.$1 6510$1 spine
	echo "fib-suppress honour"
	neighbor 1 10.2$1.0.1 6500$1 eth-l$1 all all
	neighbor 2 10.3$1.0.2 65300 eth-r all all
}

remote_conf()
{
	conf_head r 192.0.2.9 65300 host
	cat <<EOC
originate 192.0.2.9/32
policy self {
	permit 192.0.2.9/32
}
EOC
	neighbor 1 10.31.0.1 65101 eth-s1 all self
	neighbor 2 10.32.0.1 65102 eth-s2 all self
}

start_fared()
{
	ip netns exec "$1" "$FARED" -c "$DIR/$1.conf" >>"$DIR/$1.log" 2>&1 &
	FPID[$1]=$!
	LAB_PIDS+=("$!")
}

weights() { node_weights "$@"; }
weights_are() { node_weights_are "$@"; }

# tx NODE PREFIX: packets fare.ko sent on PREFIX's next hops at NODE.
tx()
{
	"$FARECTL" -j -n "$1" route show | jq -r --arg d "$2" \
		'[.[] | select(.dst == $d) | .nexthops[].tx_packets] | add // 0'
}

# bgp NODE PREFIX JQ: from fared's explanation of PREFIX at NODE.
bgp() { "$FARECTL" -j bgp -s "$DIR/$1.sock" routes "$2" | jq -r "$3"; }

# t249 NODE PREFIX: NODE's kernel routes for exactly PREFIX in table 249.
t249() { ip -n "$1" route show table 249 exact "$2" | wc -l; }

# send PHASE: 120 datagrams r -> X, the receiver's report in $DIR/sinkPHASE.
send()
{
	local log=$DIR/sink$1 rc=0

	ip netns exec h1 "$FARE_UDP" sink --bind 10.1.0.5 --port 9300 \
		--count 120 --timeout 60 >"$log" &
	LAB_PIDS+=("$!")
	local pid=$!
	wait_until 10 grep -q listening "$log"
	ip netns exec r taskset -c 0 "$FARE_UDP" send --src 192.0.2.9 \
		--dst 10.1.0.5 --port 9300 --count 120 --interval-us 20
	wait "$pid" || rc=$?
	cat "$log"
	expect_eq "phase $1: every datagram arrived once" $rc 0
}

# split_is PHASE VIA-L1 VIA-L2
split_is()
{
	expect_near "phase $1: at h1 via l1" \
		"$(sink_iface "$DIR/sink$1" eth-l1)" "$2" $(($2 > 0))
	expect_near "phase $1: at h1 via l2" \
		"$(sink_iface "$DIR/sink$1" eth-l2)" "$3" $(($3 > 0))
}

dump()
{
	local n

	for n in l1 l2 s1 s2 r; do
		echo "--- $n"
		tail -n 30 "$DIR/$n.log"
		"$FARECTL" bgp -s "$DIR/$n.sock" routes || true
		"$FARECTL" -n "$n" route show || true
	done
}

load_fare
for n in h1 l1 l2 s1 s2 r; do
	netns_add $n
done
ip -n h1 addr add 10.1.0.5/32 dev lo
ip -n r addr add 192.0.2.9/32 dev lo
for i in 1 2; do
	veth_link h1 eth-l$i 10.1$i.0.2/30 l$i eth-h1 10.1$i.0.1/30
	veth_link l$i eth-s$i 10.2$i.0.1/30 s$i eth-l$i 10.2$i.0.2/30
	veth_link s$i eth-r 10.3$i.0.1/30 r eth-s$i 10.3$i.0.2/30
	# The data path r -> sI -> lI -> h1, no ARP while counting.
	neigh_pin r eth-s$i 10.3$i.0.1 s$i eth-r
	neigh_pin s$i eth-l$i 10.2$i.0.1 l$i eth-s$i
	neigh_pin l$i eth-h1 10.1$i.0.2 h1 eth-l$i
	leaf_conf $i "" >"$DIR/l$i.conf"
	spine_conf $i >"$DIR/s$i.conf"
done
remote_conf >"$DIR/r.conf"

cat >"$DIR/h1.bird.conf" <<EOC
router id 10.1.0.5;
log "$DIR/h1.bird.log" { warning, error };
protocol device { }
protocol static own {
	ipv4;
	route $X blackhole;
}
template bgp leaf {
	local as 65010;
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export where source = RTS_STATIC; };
}
protocol bgp l1 from leaf { local 10.11.0.2; neighbor 10.11.0.1 as 65001; }
protocol bgp l2 from leaf { local 10.12.0.2; neighbor 10.12.0.1 as 65002; }
EOC
lab_bird h1 "$DIR/h1.bird.conf" "$DIR/h1.bird.ctl" "$DIR/h1.bird.pid"
for n in s1 s2 l1 l2 r; do
	start_fared $n
done

# ---- Phase 1: FIB-Suppress ----
wait_until 120 weights_are r $X "1:1 2:1" || dump
wait_until 30 weights_are r $A "1:1 2:1" || true
expect_eq "phase 1: r has X on both planes" "$(weights r $X)" "1:1 2:1"
expect_eq "phase 1: r has A on both planes" "$(weights r $A)" "1:1 2:1"
for i in 1 2; do
	expect_eq "phase 1: s$i's BGP RIB holds X" \
		"$(bgp s$i $X '.[0].paths | length')" 1
	expect_eq "phase 1: s$i's X carries FIB-Suppress(6500$i, 10.0.0.$i)" \
		"$(bgp s$i $X '.[0].fib_suppress')" \
		"suppressed (FIB-Suppress 6500$i:10.0.0.$i)"
	expect_eq "phase 1: X in s$i's fare.ko" "$(weights s$i $X)" none
	expect_eq "phase 1: A in s$i's fare.ko" "$(weights s$i $A)" "1:1"
	expect_eq "phase 1: X in s$i's table 249" "$(t249 s$i $X)" 0
	expect_eq "phase 1: A in s$i's table 249" "$(t249 s$i $A)" 1
	expect_eq "phase 1: X in l$i's fare.ko (from the RNIC)" \
		"$(weights l$i $X)" "1:1"
done
"$FARECTL" bgp -s "$DIR/s1.sock" routes $X
tx1=$(tx s1 $A) tx2=$(tx s2 $A)
send 1
split_is 1 60 60
expect_near "phase 1: s1 carried X's packets on A's route" \
	$(($(tx s1 $A) - tx1)) 60 1
expect_near "phase 1: s2 carried X's packets on A's route" \
	$(($(tx s2 $A) - tx2)) 60 1

# ---- Phase 2: the leaves hold X back and announce its loss ----
for i in 1 2; do
	leaf_conf $i "upa originate drop" >"$DIR/l$i.conf"
	kill -HUP "${FPID[l$i]}"
done
wait_until 60 weights_are r $X none || dump
expect_eq "phase 2a: X held back by the leaves: none at r" \
	"$(weights r $X)" none
expect_eq "phase 2a: s1's RIB has no X" "$(bgp s1 $X 'length')" 0
send 2a
split_is 2a 60 60

birdc -s "$DIR/h1.bird.ctl" disable l1 >/dev/null
wait_until 60 weights_are r $X "2:2" || dump
expect_eq "phase 2b: r's X without plane 1 (UPA from l1)" \
	"$(weights r $X)" "2:2"
expect_eq "phase 2b: l1 originates the UPA route" \
	"$(bgp l1 $X '.[0].originated_upa.aggregate')" $A
expect_eq "phase 2b: r's A unchanged" "$(weights r $A)" "1:1 2:1"
expect_eq "phase 2b: the UPA-only X in s1's fare.ko" "$(weights s1 $X)" none
send 2b
split_is 2b 0 120

birdc -s "$DIR/h1.bird.ctl" enable l1 >/dev/null
wait_until 60 weights_are r $X none || dump
expect_eq "phase 2c: UPA withdrawn: no X at r" "$(weights r $X)" none
send 2c
split_is 2c 60 60

[ $LAB_FAILED -eq 0 ] || dump
lab_result
