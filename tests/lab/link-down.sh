#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Local failover: two planes at 1:1 in packet mode while a paced stream
# flows. Plane 2's device goes down mid-stream: from then on no datagram
# may use plane 2 (its leaf's counter stays still) and plane 1 carries the
# rest, with no daemon involved. When the device comes back, plane 2
# carries traffic again. At most the one datagram in flight at the moment
# of the event may be lost.
set -eu
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

wait_for 30 rx_above leaf2 eth-host 300
ip -n host link set eth-p2 down
down_at=$(rx_packets leaf2 eth-host)
plane1_at=$(rx_packets leaf1 eth-host)
expect_eq "plane 2 reported down" \
	"$("$FARECTL" -n host -j plane show 2 | jq -r '.[0].up')" false
wait_for 60 rx_above leaf1 eth-host $((plane1_at + 500)) ||
	fail "plane 1 did not take the traffic"
expect_eq "nothing on plane 2 after it went down" \
	"$(rx_packets leaf2 eth-host)" "$down_at"

ip -n host link set eth-p2 up
neigh_pin host eth-p2 10.2.0.1 leaf2 eth-host
if kill -0 "$sender" 2>/dev/null; then
	if wait_for 30 rx_above leaf2 eth-host "$down_at"; then
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
