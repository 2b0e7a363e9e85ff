#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare-04 §4.2 (5-stage CLOS, figure 2) scaled down: two PoDs of one leaf
# and two spines, two planes of two super-spines, every node a fared
# forwarding through fare.ko.
#
#   PoD-1: l1a (leaf, AS 65011), s1a s2a (spines, AS 65010)
#   plane 1: ss11 ss12 (super-spines, AS 65101, attach-non-transitive)
#   plane 2: ss21 ss22 (super-spines, AS 65102, no non-transitive PB)
#   PoD-2: s1b s2b (spines, AS 65020, super-spines "upstream"), l1b (leaf,
#   AS 65021)
#
#   links (bandwidth): l1a-s1a 400G, l1a-s2a 200G, s1a-ss11 400G,
#   s1a-ss12 100G, s2a-ss21 400G, s2a-ss22 400G, ss11-s1b 400G,
#   ss12-s1b 400G, ss21-s2b 400G, ss22-s2b 100G, s1b-l1b 400G,
#   s2b-l1b 400G.
#
# P = 10.201.0.0/24 on l1a, originated with PB = max. Worked out (GB/s):
#   s1a: min(50, max) = 50, PB 50 on.  s2a: min(25, max) = 25, PB 25 on.
#   ss11, ss12: transitive PB 50 unchanged; non-transitive PB = the link
#     toward s1a: ss11 50, ss12 12.5.  ss21, ss22: PB 25 unchanged only.
#   s1b (remote-PoD spine): every path has a non-transitive PB:
#     min(50, 50) : min(50, 12.5) = 4:1; passes PB 50 on, without the
#     non-transitive one.
#   s2b: no non-transitive PB: ECMP 1:1 (though its links differ).
#   l1b: via s1b min(50, 50), via s2b min(50, 25): 2:1.
# 3000 datagrams l1b -> P, per packet at every hop: 2000 reach l1a via
# s1a (s1b sends 1600 to ss11, 400 to ss12) and 1000 via s2a (s2b: 500,
# 500). The receiver counts per interface; the split at s1b and s2b is
# read from fare.ko's per-next-hop counters there.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FARED=$FARE_ROOT/userspace/fared/fared
DIR=$(mktemp -d /tmp/fare-clos5.XXXXXX)
P=10.201.0.0/24
NODES="l1a s1a s2a ss11 ss12 ss21 ss22 s1b s2b l1b"
declare -A AS=([l1a]=65011 [s1a]=65010 [s2a]=65010 [ss11]=65101
	       [ss12]=65101 [ss21]=65102 [ss22]=65102 [s1b]=65020
	       [s2b]=65020 [l1b]=65021)
declare -A ROLE=([l1a]=leaf [l1b]=leaf [s1a]=spine [s2a]=spine
		 [s1b]=spine [s2b]=spine [ss11]=super-spine
		 [ss12]=super-spine [ss21]=super-spine [ss22]=super-spine)
declare -A PLANES

# link K A B BW: 10.9.K.1 on A (device B), 10.9.K.2 on B (device A).
link()
{
	local k=$1 a=$2 b=$3 bw=$4

	veth_link "$a" "$b" 10.9.$k.1/30 "$b" "$a" 10.9.$k.2/30
	nb "$a" "$b" 10.9.$k.2 "$bw"
	nb "$b" "$a" 10.9.$k.1 "$bw"
}

# nb NODE PEER ADDR BW: the next plane of NODE is its link to PEER.
nb()
{
	local n=$1 peer=$2 plane=$((${PLANES[$1]:-0} + 1)) up=

	PLANES[$n]=$plane
	# A spine's super-spines are upstream (fare-04 §4.2 S1@PoD-8).
	[ "${ROLE[$n]}" != spine ] || [ "${ROLE[$peer]}" != super-spine ] ||
		up=upstream
	cat >>"$DIR/$n.conf" <<EOC
interface $peer bandwidth $4
plane $plane {
	neighbor $3 {
		remote-as ${AS[$peer]}
		interface $peer
		$up
		import all
		export all
	}
}
EOC
}

weights() { node_weights "$1" "$P"; }
weights_are() { node_weights_are "$1" "$P" "$2"; }

tx()
{
	"$FARECTL" -j -n "$1" route show | jq -r --arg d "$P" \
		".[] | select(.dst == \$d) | .nexthops[] |
		 select(.plane == $2) | .tx_packets"
}

route_field()
{
	"$FARECTL" -j bgp -s "$DIR/$1.sock" routes "$P" | jq -r ".[0] | $2"
}

load_fare
i=0
for n in $NODES; do
	i=$((i + 1))
	netns_add $n
	ip -n $n addr add 10.0.0.$i/32 dev lo
	cat >"$DIR/$n.conf" <<EOC
router-id 10.0.0.$i
local-as ${AS[$n]}
# tx reads fare.ko's per-route counters, off by default in fared.
route-stats on
hold-time 30
connect-retry 1
control-socket $DIR/$n.sock
state-file $DIR/$n.state
role ${ROLE[$n]}
mode packet
originate 10.0.0.$i/32
policy all {
	permit 10.0.0.0/8 le 32
}
EOC
done
ip -n l1a addr add 10.201.0.1/32 dev lo
echo "originate $P" >>"$DIR/l1a.conf"
echo "path-bandwidth attach-non-transitive" >>"$DIR/ss11.conf"
echo "path-bandwidth attach-non-transitive" >>"$DIR/ss12.conf"
link 1 l1a s1a 400G
link 2 l1a s2a 200G
link 3 s1a ss11 400G
link 4 s1a ss12 100G
link 5 s2a ss21 400G
link 6 s2a ss22 400G
link 7 ss11 s1b 400G
link 8 ss12 s1b 400G
link 9 ss21 s2b 400G
link 10 ss22 s2b 100G
link 11 s1b l1b 400G
link 12 s2b l1b 400G
for n in $NODES; do
	ip netns exec $n "$FARED" -c "$DIR/$n.conf" >"$DIR/$n.log" 2>&1 &
	LAB_PIDS+=("$!")
done

check_weights()
{
	wait_until 40 weights_are "$1" "$2" || true
	expect_eq "$1 $P weights" "$(weights "$1")" "$2"
}
check_weights l1b "1:2 2:1"
check_weights s1b "1:4 2:1"
check_weights s2b "1:1 2:1"
check_weights s1a "1:1"
if [ $LAB_FAILED -ne 0 ]; then
	for n in $NODES; do
		echo "--- $n"
		tail -n 20 "$DIR/$n.log"
		"$FARECTL" bgp -s "$DIR/$n.sock" routes "$P" || true
	done
fi
expect_eq "ss11 attaches a non-transitive PB of 50 GB/s (bit/s)" \
	"$(route_field ss11 .advertise_nt_pb_bps)" 400000000000
expect_eq "ss12 attaches a non-transitive PB of 12.5 GB/s (bit/s)" \
	"$(route_field ss12 .advertise_nt_pb_bps)" 100000000000
expect_eq "ss11 passes the transitive PB on" "$(route_field ss11 .advertise)" \
	"transitive PB passed on unchanged (fare-04 §4.2)"
expect_eq "ss21 attaches none" "$(route_field ss21 .advertise_nt_pb_bps)" null
expect_eq "s1b applies the remote-PoD rules" "$(route_field s1b .role)" \
	remote-spine
expect_eq "s1b weighs by the non-transitive PB" \
	"$(route_field s1b '.paths[0].fare.rule')" \
	"fare-04 §4.2 weight = min(link, non-transitive PB)"
expect_eq "s1b passes PB 50 GB/s on (bit/s)" \
	"$(route_field s1b .advertise_pb_bps)" 400000000000
expect_eq "s2b falls back to ECMP" "$(route_field s2b '.paths[0].fare.rule')" \
	"ECMP: not every path carries a non-transitive PB (fare-04 §4.2)"
expect_eq "l1b gets no non-transitive PB" \
	"$(route_field l1b '[.paths[].ext_communities[] | select(startswith("41"))] | length')" 0
"$FARECTL" bgp -s "$DIR/s1b.sock" routes "$P"

sink_log=$DIR/sink
ip netns exec l1a "$FARE_UDP" sink --bind 10.201.0.1 --port 9300 \
	--count 3000 --timeout 30 >"$sink_log" &
sink_pid=$!
LAB_PIDS+=("$sink_pid")
wait_until 10 grep -q listening "$sink_log"
ip netns exec l1b taskset -c 0 "$FARE_UDP" send --src 10.0.0.10 \
	--dst 10.201.0.1 --port 9300 --count 3000 --interval-us 20
rc=0
wait "$sink_pid" || rc=$?
cat "$sink_log"
expect_eq "every datagram arrived once" $rc 0
expect_near "via s1a" "$(sink_iface "$sink_log" s1a)" 2000 1
expect_near "via s2a" "$(sink_iface "$sink_log" s2a)" 1000 1
expect_near "s1b to ss11" "$(tx s1b 1)" 1600 1
expect_near "s1b to ss12" "$(tx s1b 2)" 400 1
expect_near "s2b to ss21" "$(tx s2b 1)" 500 1
expect_near "s2b to ss22" "$(tx s2b 2)" 500 1
lab_result
