#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fallback to the kernel's normal route. The host has planes 1 and 2 (via
# leaf1 and leaf2) for the remote's prefix, and a normal route to the same
# prefix in table main via leaf3, which is no plane. With a plane up, every
# datagram goes by fare (leaf3 sees none). With both planes' links down,
# every datagram arrives on the receiver's leaf3 interface, none is lost and
# fare counts each as a fallback, per route and per namespace. With plane 1
# back, every datagram takes plane 1 again. IPv4 and IPv6.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COUNT=200

load_fare
topo_planes 3 v6
plane_add_all 2 v6
ip -n host route add 198.51.100.0/24 via 10.3.0.1 dev eth-p3
ip -n host -6 route add 2001:db8:100::/64 via 2001:db8:3::1 dev eth-p3
# Per-route counters are off by default: these routes' fallback counts
# are read below.
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	stats on nexthop plane 1 weight 1 nexthop plane 2 weight 1
"$FARECTL" -n host route add 2001:db8:100::/64 mode packet src 2001:db8:7::7 \
	stats on nexthop plane 1 weight 1 nexthop plane 2 weight 1

# phase FAMILY NAME: sends COUNT datagrams; sets got1 got2 got3 (datagrams
# the receiver got from leaf 1, 2, 3).
phase()
{
	local fam=$1 name=$2 src dst log rc=0

	if [ "$fam" = 4 ]; then
		src=192.0.2.7 dst=198.51.100.1
	else
		src=2001:db8:7::7 dst=2001:db8:100::1
	fi
	log=$(mktemp)
	sink_start "$log" --bind $dst --port 900$fam --count $COUNT --timeout 30
	ip netns exec host "$FARE_UDP" send --src $src --dst $dst \
		--port 900$fam --count $COUNT --interval-us 200
	sink_wait "$log" || rc=$?
	expect_eq "IPv$fam $name: every datagram arrived once" $rc 0
	got1=$(sink_iface "$log" eth-leaf1)
	got2=$(sink_iface "$log" eth-leaf2)
	got3=$(sink_iface "$log" eth-leaf3)
}

fallbacks() { "$FARECTL" -n host -j stats | jq '.drops.fallback_packets'; }
route_fallbacks()
{
	"$FARECTL" -n host -j route show "$1" | jq '.[0].fallback_packets'
}

for fam in 4 6; do
	if [ $fam = 4 ]; then
		prefix=198.51.100.0/24
	else
		prefix=2001:db8:100::/64
	fi

	phase $fam "planes up"
	expect_eq "IPv$fam planes up: by the planes" $((got1 + got2)) $COUNT
	expect_eq "IPv$fam planes up: nothing by the normal route" $got3 0

	before=$(fallbacks)
	ip -n host link set eth-p1 down
	ip -n host link set eth-p2 down
	phase $fam "planes down"
	expect_eq "IPv$fam planes down: all by the normal route" $got3 $COUNT
	expect_eq "IPv$fam planes down: fallback counter" \
		$(($(fallbacks) - before)) $COUNT
	expect_eq "IPv$fam planes down: the route's fallback counter" \
		"$(route_fallbacks $prefix)" $COUNT
	expect_eq "IPv$fam planes down: no drop for want of a plane" \
		"$("$FARECTL" -n host -j stats | jq '.drops.noplane_packets')" 0

	link_up host eth-p1
	ip -n host addr replace 2001:db8:1::2/64 dev eth-p1 nodad
	neigh_pin host eth-p1 10.1.0.1 leaf1 eth-host
	neigh_pin6 host eth-p1 2001:db8:1::1 leaf1 eth-host
	phase $fam "plane 1 back"
	expect_eq "IPv$fam plane 1 back: all by plane 1" $got1 $COUNT
	expect_eq "IPv$fam plane 1 back: nothing by the normal route" $got3 0

	link_up host eth-p2
	ip -n host addr replace 2001:db8:2::2/64 dev eth-p2 nodad
	neigh_pin host eth-p2 10.2.0.1 leaf2 eth-host
	neigh_pin6 host eth-p2 2001:db8:2::1 leaf2 eth-host
done

# A packet whose fallback would come back to fare0 is dropped, not looped.
ip -n host route del 198.51.100.0/24 via 10.3.0.1 dev eth-p3
ip -n host route add 198.51.100.0/24 dev fare0 table main
ip -n host link set eth-p1 down
ip -n host link set eth-p2 down
noplane=$("$FARECTL" -n host -j stats | jq '.drops.noplane_packets')
# The sender must run to its end and say it sent all 10 (a send refused
# on the way is counted in its report, not fatal): "|| true" hid a failure
# of its own (its socket, its bind, a missing binary), which then showed
# only as fare0 dropping fewer than 10.
rc=0
out=$(ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
	--dst 198.51.100.1 --port 9004 --count 10 --keep-going 1) || rc=$?
expect_eq "no normal route but fare0: the sender ran to its end" \
	"$rc: ${out%% in *}" "0: sent 10"
expect_eq "no normal route but fare0: dropped as noplane" \
	$(($("$FARECTL" -n host -j stats | jq '.drops.noplane_packets') - noplane)) 10

lab_result
