#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Flowlets that forget: two planes 1:1 in flowlet mode. Plane 2's device is
# down while 8 flows send ROUNDS rounds of bursts of large datagrams, all
# of which plane 1 carries; then it comes back and the same flows send
# ROUNDS rounds of small ones: new flowlets for about half a second (more
# in a slow guest). Those must split about 1:1, counted at the leaves'
# interfaces. A byte deficit counted over the group's whole life owes the
# returning plane everything plane 1 carried during the outage (14 times
# the bytes of the second phase), so plane 2 would take every one of those
# flowlets; fare.ko counts the deficit from the last change of the planes
# instead (Documentation/datapath.md). What the old deficit owes is bytes,
# not time, so a short outage of large datagrams shows what a 10 s one
# would.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FLOWS=8
BURST=5
GAP_US=25000
ROUNDS=20
TIMEOUT_US=5000
# The bursts are flowlets when the gap outlasts the timeout; a guest stall
# within a burst only cuts it into more flowlets, which changes no count.

load_fare
topo_planes 2
plane_add_all 2
"$FARECTL" -n host config set flowlet-timeout $TIMEOUT_US
"$FARECTL" -n host route add 198.51.100.0/24 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1

plane_up() { [ "$("$FARECTL" -n host -j plane show 2 | jq -r '.[0].up')" = "$1" ]; }
rx() { rx_packets "leaf$1" eth-host; }

# send_rounds PORT SIZE: ROUNDS rounds of bursts of SIZE-byte datagrams,
# every datagram counted by the remote's sink.
send_rounds()
{
	local log count=$((FLOWS * BURST * ROUNDS)) rc=0

	log=$(mktemp)
	sink_start "$log" --bind 198.51.100.1 --port "$1" --count $count \
		--flows $FLOWS --burst $BURST --timeout 120
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
		--dst 198.51.100.1 --port "$1" --count $count --size "$2" \
		--flows $FLOWS --burst $BURST --gap-us $GAP_US
	sink_wait "$log" >/dev/null || rc=$?
	rm -f "$log"
	expect_eq "port $1: every datagram arrived once" $rc 0
}

ip -n host link set eth-p2 down
wait_until 10 plane_up false || fail "plane 2 not reported down"
a1=$(rx 1) a2=$(rx 2)
send_rounds 9000 1400
expect_eq "outage: plane 1 carried everything" $(($(rx 1) - a1)) \
	$((FLOWS * BURST * ROUNDS))
expect_eq "outage: plane 2 carried nothing" $(($(rx 2) - a2)) 0

ip -n host link set eth-p2 up
neigh_pin host eth-p2 10.2.0.1 leaf2 eth-host
wait_until 10 plane_up true || fail "plane 2 not reported up again"
b1=$(rx 1) b2=$(rx 2)
start=$(date +%s%N)
send_rounds 9001 100
took=$((($(date +%s%N) - start) / 1000000))
n1=$(($(rx 1) - b1)) n2=$(($(rx 2) - b2))
count=$((FLOWS * BURST * ROUNDS))
log "after the return ($took ms): plane 1 got $n1, plane 2 got $n2 of $count"
expect_eq "after the return: both planes together" $((n1 + n2)) $count
# Equal flowlets alternate; a stall may cut one in two: a few bursts' slack.
expect_near "after the return: plane 2 (weight 1 of 2)" $n2 $((count / 2)) \
	$((3 * BURST))

lab_result
