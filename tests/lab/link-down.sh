#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Local failover: two planes at 1:1 in packet mode while a paced stream
# flows. Plane 2's device goes down mid-stream: from then on fare.ko must
# not pick plane 2, with no daemon involved. A datagram steered to a down
# device is dropped on the host, so the proof is at the receiver: every
# datagram the sender's UDP layer sent while plane 2 was down reached the
# remote (counted with the sender stopped at both ends of the window, so
# none is in flight), at 1:1 half of them would be missing otherwise.
# When the device comes back, plane 2 carries traffic again. Over the
# whole stream at most the one datagram in flight at the moment of the
# event may be lost.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COUNT=6000

load_fare
topo_planes 2
plane_add_all 2
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1

log=$(mktemp)
sink_start "$log" --bind 198.51.100.1 --port 9000 --count $COUNT --timeout 120
ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
	--port 9000 --count $COUNT --interval-us 1000 &
sender=$!
LAB_PIDS+=("$sender")

wait_until 30 rx_above leaf2 eth-host 300
ip -n host link set eth-p2 down
down_at=$(rx_packets leaf2 eth-host)
expect_eq "plane 2 reported down" \
	"$("$FARECTL" -n host -j plane show 2 | jq -r '.[0].up')" false
# snapshot: stops the sender, lets what is in flight land, reads the
# sender's UDP OutDatagrams and the receiver's UDP InDatagrams.
snapshot()
{
	kill -STOP "$sender"
	sleep 0.5
	sent=$(snmp host Udp OutDatagrams)
	got=$(snmp remote Udp InDatagrams)
	kill -CONT "$sender"
}
snapshot
sent0=$sent got0=$got
plane1_at=$(rx_packets leaf1 eth-host)
wait_until 60 rx_above leaf1 eth-host $((plane1_at + 500)) ||
	fail "plane 1 did not take the traffic"
snapshot
log "while plane 2 was down: sent $((sent - sent0)), the remote got $((got - got0))"
expect_eq "receiver: every datagram sent while plane 2 was down arrived" \
	$((got - got0)) $((sent - sent0))
[ $((sent - sent0)) -ge 500 ] ||
	fail "only $((sent - sent0)) datagrams sent while plane 2 was down"

ip -n host link set eth-p2 up
neigh_pin host eth-p2 10.2.0.1 leaf2 eth-host
if kill -0 "$sender" 2>/dev/null; then
	if wait_until 30 rx_above leaf2 eth-host "$down_at"; then
		pass "plane 2 carries traffic again after it came back"
	else
		fail "plane 2 carried nothing after it came back"
	fi
else
	fail "the stream ended before plane 2 came back; raise COUNT"
fi
wait "$sender"
rc=0
sink_wait "$log" || rc=$?
received=$(awk '$1 == "received" { print $2 }' "$log")
expect_near "datagrams received" "$received" $COUNT 1

lab_result
