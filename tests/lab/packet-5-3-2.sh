#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-packet spray over three planes at 5:3:2, IPv4 and IPv6 (topo_planes
# in lib.sh). 5000 datagrams per family from one socket on one CPU: each
# plane must carry its share within the schedule's bound (exact here, 5000
# being whole periods of 10), counted by the receiver per ingress
# interface, and every datagram must arrive once.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COUNT=5000

load_fare
topo_planes 3 v6
plane_add_all 3 v6
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 5 nexthop plane 2 weight 3 nexthop plane 3 weight 2
"$FARECTL" -n host route add 2001:db8:100::/64 mode packet src 2001:db8:7::7 \
	nexthop plane 1 weight 5 nexthop plane 2 weight 3 nexthop plane 3 weight 2

for fam in 4 6; do
	if [ $fam = 4 ]; then
		src=192.0.2.7 dst=198.51.100.1
	else
		src=2001:db8:7::7 dst=2001:db8:100::1
	fi
	log=$(mktemp)
	sink_start "$log" --bind $dst --port 900$fam --count $COUNT --timeout 60
	ip netns exec host taskset -c 0 "$FARE_UDP" send --src $src \
		--dst $dst --port 900$fam --count $COUNT --interval-us 20
	rc=0
	sink_wait "$log" || rc=$?
	expect_eq "IPv$fam: every datagram arrived once" $rc 0
	expect_near "IPv$fam plane 1 (weight 5)" "$(sink_iface "$log" eth-leaf1)" 2500 1
	expect_near "IPv$fam plane 2 (weight 3)" "$(sink_iface "$log" eth-leaf2)" 1500 1
	expect_near "IPv$fam plane 3 (weight 2)" "$(sink_iface "$log" eth-leaf3)" 1000 1
done
"$FARECTL" -n host stats

lab_result
