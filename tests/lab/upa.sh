#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Aggregates with unreachable host routes, mpson-00 §4.1, on a fared host
# (topo_planes 4). Every leaf advertises the aggregate 198.51.100.0/24 with
# a Path Bandwidth; a leaf that "lost" X = 198.51.100.1 also advertises
# X/32 with the UPA extended community (0x03/0x09, PROTOCOL.md §6.1).
# Host links 400G (50 GB/s); PB in GB/s 12/6/4/2 on planes 1-4:
#
#   phase  UPA for X from   X in fare.ko             of 120 (planes 1-4)
#   1      plane 1          2:6 3:4 4:2 (3:2:1 x12/6) 0 60 40 20
#   2      none             none (the /24: 6:3:2:1)  60 30 20 10
#   3      planes 1-4       none; kernel: unreachable  every send refused
#                                                     (EHOSTUNREACH), 0 at
#                                                     the remote
#   4      planes 1-3       4:12                     0 0 0 120
#   5      planes 1-4, then fared stops: no route of its own left in 249.
#   6      planes 1-4, fared killed (-9): X stays unreachable until
#          "farectl route flush" removes it.
#
# "farectl route pick 198.51.100.1 8" follows: 4:3:1 over planes 2-4 in
# phase 1, 4:2:1:1 in phase 2, refused in phase 3 (UPA), 8 on plane 4 in
# phase 4; X's plane route in table 248 (what a lookup bound to a plane
# finds) goes in phase 3 and is plane 4's in phase 4.
#
# Per-packet mode sends whole periods of the smooth weighted round robin,
# so each plane's count at the receiver is exact within 1. (120, not more:
# a paced send costs ~10 ms a datagram under TCG.)
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
# On the debug kernel (run by hand) every check stands as is; its time
# there is BGP convergence under KASAN, not traffic (120 datagrams a
# phase).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/fare-upa.XXXXXX)
CTL=$LAB_DIR/fared.sock
AGG=198.51.100.0/24
X=198.51.100.1/32
# binary16 GB/s: 12 = 0x4a00, 6 = 0x4600, 4 = 0x4400, 2 = 0x4000.
PB=(0 18944 17920 17408 16384)

# bird_conf I UPA: leaf I's BIRD; UPA 1: also X with the UPA community.
bird_conf()
{
	local upa=""

	[ "$2" = 0 ] || upa="route $X blackhole {
		bgp_ext_community.add((generic, 0x03090000, 0x0a0${1}0001));
	};"
	leaf_bird_conf $1 90 "route $AGG blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$1.0.1, ${PB[$1]}));
	};
	$upa"
}

# upa_from "1 0 0 0": which leaves advertise the UPA for X.
UPA=(- 1 0 0 0)
upa_from()
{
	local i=1 u

	for u in $1; do
		if [ "$u" != "${UPA[$i]}" ]; then
			bird_conf $i "$u"
			leaf_birdc $i configure >/dev/null
			UPA[$i]=$u
		fi
		i=$((i + 1))
	done
	log "UPA from \"$1\" at $(date +%T.%N)"
}

weights() { host_weights "$1"; }
weights_are() { host_weights_are "$1" "$2"; }

# The host's kernel route for X in fare's table: type and device.
kroute()
{
	ip -n host -j route show table 249 exact "$X" |
		jq -r '[.[] | "\(.type // "unicast") \(.dev // "-")"] |
		       if length > 0 then join(",") else "none" end'
}

kroute_is() { [ "$(kroute)" = "$1" ]; }

# X's plane route in table 248, which only lookups bound to a plane's
# device consult: the devices of its group's next hops (fare0 holds the
# planes' marks, no next hop: datapath.md, "Lookups bound to a plane").
kroute248()
{
	ip -n host -j route show table 248 exact "$X" |
		jq -r '[.[] | .dev // (.nexthops[]?.dev) // "-"] |
		       map(select(. != "fare0")) |
		       if length > 0 then join(",") else "none" end'
}

# pick N: "farectl route pick" toward X, [[plane, count]...].
pick()
{
	"$FARECTL" -n host -j route pick 198.51.100.1 "$1" |
		jq -c '[.planes[] | [.plane, .count]]'
}

# settle PHASE X-WEIGHTS KROUTE: waits for fared, then checks both.
settle()
{
	log "phase $1 at $(date +%T)"
	wait_until 30 weights_are "$X" "$2" || true
	wait_until 10 kroute_is "$3" || true
	log "phase $1 settled at $(date +%T.%N)"
	expect_eq "phase $1: X in fare.ko" "$(weights "$X")" "$2"
	expect_eq "phase $1: the aggregate in fare.ko" "$(weights "$AGG")" \
		"1:6 2:3 3:2 4:1"
	expect_eq "phase $1: X's kernel route in table 249" "$(kroute)" "$3"
}

# send PHASE: 120 datagrams to X (paced: see above).
send() { send_phase 120 "$1"; }

remote_rx()
{
	local i n=0

	for i in 1 2 3 4; do
		n=$((n + $(rx_packets remote eth-leaf$i)))
	done
	echo $n
}

load_fare
topo_planes 4
for i in 1 2 3 4; do
	bird_conf $i "${UPA[$i]}"
	leaf_bird_start $i
done
fared_host_start 90 400G

# Phase 1: plane 1 lost X; 3:2:1 scaled to the aggregate's sum, 12.
wait_until 30 weights_are "$AGG" "1:6 2:3 3:2 4:1" || cat "$LAB_DIR/fared.log"
settle 1 "2:6 3:4 4:2" "unicast fare0"
"$FARECTL" bgp -s "$CTL" routes "$X"
expect_eq "phase 1: why, as fared explains it" \
	"$("$FARECTL" bgp -s "$CTL" routes "$X" | grep 'unreachable via')" \
	"  fare: unreachable via plane 1 (UPA): the covering aggregate's other planes 2:6 3:4 4:2"
send 1
split_is 1 0 60 40 20
# 8 over 6:4:2: 4, 2.67, 1.33; the one left to plane 3.
expect_eq "phase 1: route pick 8 toward X" "$(pick 8)" "[[2,4],[3,3],[4,1]]"

# Phase 2: the UPA withdrawn; X follows the aggregate.
upa_from "0 0 0 0"
settle 2 none none
send 2
split_is 2 60 30 20 10
# 8 over the aggregate's 6:3:2:1: 4, 2, 1.33, 0.67; the one left to plane 4.
expect_eq "phase 2: route pick 8 toward X" "$(pick 8)" \
	"[[1,4],[2,2],[3,1],[4,1]]"

# Phase 3: every plane lost X: the kernel refuses to send to it. (IPv4
# counts no OutNoRoutes for an unreachable route: that is ENETUNREACH only.)
upa_from "1 1 1 1"
settle 3 none "unreachable -"
expect_eq "phase 3: why, as fared explains it" \
	"$("$FARECTL" -j bgp -s "$CTL" routes "$X" | jq -c '.[0] | [.upa_planes, .unreachable]')" \
	'[[1,2,3,4],true]'
rx=$(remote_rx)
out=$(ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
	--dst 198.51.100.1 --port 9100 --count 120 --interval-us 20 \
	--keep-going 1)
expect_eq "phase 3: sends refused" "$out" "sent 120 in 1 flows (120 failed)"
out=$(ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
	--dst 198.51.100.1 --port 9100 --count 1 2>&1) || true
expect_eq "phase 3: why" "$out" "fare-udp: sendto #0: No route to host"
expect_eq "phase 3: packets at the remote" $(($(remote_rx) - rx)) 0
expect_eq "phase 3: X's plane route in table 248" "$(kroute248)" none
expect_refusal "phase 3: route pick toward X" "unreachable (UPA)" \
	"$FARECTL" -n host route pick 198.51.100.1 8

# Phase 4: plane 4 has X again; its route replaces the unreachable one.
upa_from "1 1 1 0"
settle 4 "4:12" "unicast fare0"
send 4
split_is 4 0 0 0 120
expect_eq "phase 4: route pick 8 toward X" "$(pick 8)" "[[4,8]]"
expect_eq "phase 4: X's plane route in table 248" "$(kroute248)" eth-p4
host_lookup_is "phase 4: a lookup bound to eth-p4" -4 198.51.100.1 eth-p4 \
	"via 10.4.0.1 dev eth-p4"

# Phase 5: unreachable again, then fared stops and takes it away.
upa_from "1 1 1 1"
settle 5 none "unreachable -"
kill "$FARED_PID"
rc=0
wait "$FARED_PID" || rc=$?
expect_eq "phase 5: fared's exit status" $rc 0
expect_eq "phase 5: X's kernel route after fared" "$(kroute)" none
expect_eq "phase 5: fare's table after fared" \
	"$(ip -n host route show table 249 | wc -l)" 0

# Phase 6: a fared killed outright cannot take its unreachable route away;
# "farectl route flush" (which fared also runs when it starts) does.
cat "$LAB_DIR/fared.log"
fared_host_start 90 400G
settle 6 none "unreachable -"
kill -9 "$FARED_PID"
wait "$FARED_PID" 2>/dev/null || true
expect_eq "phase 6: X's kernel route after kill -9" "$(kroute)" \
	"unreachable -"
ip netns exec host "$FARECTL" route flush
expect_eq "phase 6: X's kernel route after route flush" "$(kroute)" none
expect_eq "phase 6: fare's table after route flush" \
	"$(ip -n host route show table 249 | wc -l)" 0

cat "$LAB_DIR/fared.log"
lab_result
