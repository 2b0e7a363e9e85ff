#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Flow mode over two planes at 3:1: 1000 flows (distinct source ports) of
# 4 datagrams each. Every flow must arrive on one plane only, and the
# number of flows per plane must follow the weights within the binomial
# bound: 3:1 gives the planes 192 and 64 of the 256 flow buckets, so a
# flow lands on plane 1 with p = 3/4 exactly; with n = 1000 the standard
# deviation is sqrt(n p (1 - p)) = 13.7 flows, and the test allows 4.5 of
# them (62 flows), which a correct hash exceeds with probability below 1e-5.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FLOWS=1000
PER_FLOW=4
COUNT=$((FLOWS * PER_FLOW))

load_fare
topo_planes 2
plane_add_all 2
"$FARECTL" -n host route add 198.51.100.0/24 mode flow src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1

log=$(mktemp)
sink_start "$log" --bind 198.51.100.1 --port 9000 --count $COUNT \
	--flows $FLOWS --burst 1 --timeout 120
ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
	--port 9000 --count $COUNT --flows $FLOWS --burst 1
rc=0
sink_wait "$log" || rc=$?
expect_eq "every datagram arrived once" $rc 0
expect_eq "flows seen" "$(sink_field "$log" flows 2)" $FLOWS
expect_eq "flows split over planes" "$(sink_field "$log" flows 4)" 0
# Each flow's datagrams all came on one plane, so packets / 4 = flows.
f1=$(($(sink_iface "$log" eth-leaf1) / PER_FLOW))
expect_near "flows on plane 1 (weight 3)" $f1 750 62
expect_eq "flows on both planes" $((f1 + $(sink_iface "$log" eth-leaf2) / PER_FLOW)) $FLOWS

lab_result
