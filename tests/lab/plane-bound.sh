#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Plane-bound lookups: an application that names a plane's device
# (SO_BINDTODEVICE, "ip route get ... oif", ping -I, RDMA) reaches a fare
# route over that plane's gateway, IPv4 and IPv6.
#
#                 +-- eth-p1 10.1.0.2 ---- 10.1.0.1 [leaf1] ---+
#   [host]  fare0 |                                             [remote]
#   lo 192.0.2.7  +-- eth-p2 10.2.0.2 ---- 10.2.0.1 [leaf2] ---+ lo 198.51.100.1
#   2001:db8:7::7                                                2001:db8:100::1
#
# farectl installs 198.51.100.0/24 and 2001:db8:100::/48 with weights 3:1.
# Datagrams sent from the loopback address by sockets bound to eth-p1, then
# eth-p2, must arrive over that plane: counted on the remote's interface
# (the sink) and the plane's leaf. The kernel's own answer to "ip route get
# DST oif PLANE" must be via the plane's gateway with the loopback source.
# A plane that does not carry the route (left out of it, or down) must give
# the answer the kernel gave before fare had the route; a plane whose
# device comes back is taken again after plane sync, and a route survives
# all of its planes going down at once; deleting the route must leave no
# trace of it in tables 248 and 249.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-100}
DST4=198.51.100.1
DST6=2001:db8:100::1
LAB_DIR=$(mktemp -d)

load_fare
topo_planes 2 v6
plane_add_all 2 v6

# What a plane-bound lookup answers without a fare route: the reference
# for "behaves as without fare".
before4=$(host_lookup -4 $DST4 eth-p2)
before6=$(host_lookup -6 $DST6 eth-p2)
before4_p1=$(host_lookup -4 $DST4 eth-p1)
log "without fare: $before4 / $before6 / $before4_p1"

"$FARECTL" -n host route add 198.51.100.0/24 src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
"$FARECTL" -n host route add 2001:db8:100::/48 src 2001:db8:7::7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
ip -n host route show table 248
ip -n host -6 route show table 248
ip -n host rule show pref 32764

for i in 1 2; do
	host_lookup_is "IPv4 lookup bound to eth-p$i" -4 $DST4 eth-p$i \
		"via 10.$i.0.1 dev eth-p$i"
	host_lookup_is "IPv4 lookup bound to eth-p$i has the loopback source" -4 \
		$DST4 eth-p$i "src 192.0.2.7"
	host_lookup_is "IPv6 lookup bound to eth-p$i" -6 $DST6 eth-p$i \
		"via 2001:db8:$i::1 dev eth-p$i"
	host_lookup_is "IPv6 lookup bound to eth-p$i has the loopback source" -6 \
		$DST6 eth-p$i "src 2001:db8:7::7"
done

# bound_send FAMILY SRC DST PLANE: COUNT datagrams from sockets bound to
# eth-pPLANE; the remote's sink and both leaves count them.
bound_send()
{
	local fam=$1 src=$2 dst=$3 i=$4 o=$((3 - $4)) log b_i b_o got_i got_o
	local d_i d_o rc=0

	log=$LAB_DIR/sink-$fam-$i
	b_i=$(rx_packets leaf$i eth-host)
	b_o=$(rx_packets leaf$o eth-host)
	sink_start "$log" --bind "$dst" --port 9000 --count "$COUNT" \
		--timeout 10
	ip netns exec host "$FARE_UDP" send --src "$src" --dst "$dst" \
		--port 9000 --count "$COUNT" --interval-us 200 \
		--dev eth-p$i --keep-going 1 || true
	sink_wait "$log" || rc=$?
	got_i=$(sink_iface "$log" eth-leaf$i)
	got_o=$(sink_iface "$log" eth-leaf$o)
	d_i=$(($(rx_packets leaf$i eth-host) - b_i))
	d_o=$(($(rx_packets leaf$o eth-host) - b_o))
	expect_eq "$fam bound to eth-p$i: remote received on eth-leaf$i" \
		"$got_i" "$COUNT"
	expect_eq "$fam bound to eth-p$i: remote received on eth-leaf$o" \
		"$got_o" 0
	expect_eq "$fam bound to eth-p$i: every datagram once (sink exit)" \
		"$rc" 0
	if [ "$d_i" -ge "$COUNT" ] && [ "$d_o" -lt $((COUNT / 10)) ]; then
		pass "$fam bound to eth-p$i: leaf$i got $d_i, leaf$o $d_o"
	else
		fail "$fam bound to eth-p$i: leaf$i got $d_i, leaf$o $d_o (expected >= $COUNT and < $((COUNT / 10)))"
	fi
}

for i in 1 2; do
	bound_send IPv4 192.0.2.7 $DST4 $i
	bound_send IPv6 2001:db8:7::7 $DST6 $i
done

# The placement query: 8 connections over 3:1 land 6 and 2, each with the
# device and the source a socket bound to it gets (what the lookup said).
pick=$("$FARECTL" -n host -j route pick $DST4 8)
"$FARECTL" -n host route pick $DST4 8
expect_eq "route pick 8: counts per plane" \
	"$(jq -c '[.planes[] | [.plane, .dev, .count, .src]]' <<<"$pick")" \
	'[[1,"eth-p1",6,"192.0.2.7"],[2,"eth-p2",2,"192.0.2.7"]]'
expect_eq "route pick 8: placement" "$(jq -c .placement <<<"$pick")" \
	'[1,1,2,1,1,1,2,1]'
expect_eq "route pick 8 (IPv6): counts per plane" \
	"$("$FARECTL" -n host -j route pick $DST6 8 |
	   jq -c '[.planes[] | [.dev, .count, .src]]')" \
	'[["eth-p1",6,"2001:db8:7::7"],["eth-p2",2,"2001:db8:7::7"]]'

# Plane 2 leaves the routes (weight 0): as without fare there.
"$FARECTL" -n host route replace 198.51.100.0/24 src 192.0.2.7 \
	nexthop plane 1 weight 3
"$FARECTL" -n host route replace 2001:db8:100::/48 src 2001:db8:7::7 \
	nexthop plane 1 weight 3
host_lookup_is "IPv4 bound to eth-p1 after plane 2 left" -4 $DST4 eth-p1 \
	"via 10.1.0.1 dev eth-p1"
expect_eq "IPv4 bound to eth-p2, which does not carry the route" \
	"$(host_lookup -4 $DST4 eth-p2)" "$before4"
expect_eq "IPv6 bound to eth-p2, which does not carry the route" \
	"$(host_lookup -6 $DST6 eth-p2)" "$before6"

# Plane 2 back, then its device down and up: the kernel deletes the
# plane's next hop object with the device, and plane sync (what fared does
# by itself) makes it again and puts it back in the route's group.
"$FARECTL" -n host route replace 198.51.100.0/24 src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
"$FARECTL" -n host route replace 2001:db8:100::/48 src 2001:db8:7::7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
host_lookup_is "IPv4 bound to eth-p2 once it carries the route again" -4 \
	$DST4 eth-p2 "via 10.2.0.1 dev eth-p2"
ip -n host link set eth-p2 down
down4=$(host_lookup -4 $DST4 eth-p2)
if grep -q "via 10.2.0.1" <<<"$down4"; then
	fail "IPv4 bound to eth-p2 while it is down: $down4"
else
	pass "IPv4 bound to eth-p2 while it is down: $down4"
fi
host_lookup_is "IPv4 bound to eth-p1 while eth-p2 is down" -4 $DST4 eth-p1 \
	"via 10.1.0.1 dev eth-p1"
link_up host eth-p2
neigh_pin host eth-p2 10.2.0.1 leaf2 eth-host
expect_eq "IPv4 bound to eth-p2 up again, before plane sync: as without fare" \
	"$(host_lookup -4 $DST4 eth-p2)" "$before4"
"$FARECTL" -n host plane sync
host_lookup_is "IPv4 bound to eth-p2 once it is up again" -4 $DST4 eth-p2 \
	"via 10.2.0.1 dev eth-p2"
host_lookup_is "IPv6 bound to eth-p2 once it is up again" -6 $DST6 eth-p2 \
	"via 2001:db8:2::1 dev eth-p2"

# Every plane of the routes down at once, then up: the plane routes stay
# (their groups keep each plane's mark on fare0), and plane sync brings
# back both planes' next hops.
ip -n host link set eth-p1 down
ip -n host link set eth-p2 down
link_up host eth-p1
link_up host eth-p2
neigh_pin host eth-p1 10.1.0.1 leaf1 eth-host
neigh_pin host eth-p2 10.2.0.1 leaf2 eth-host
expect_eq "IPv4 plane route after both planes went down and up" \
	"$(ip -n host route show table 248 proto 249 | grep -c '^198.51.100.0/24')" 1
expect_eq "IPv6 plane route after both planes went down and up" \
	"$(ip -n host -6 route show table 248 proto 249 | grep -c '^2001:db8:100::/48')" 1
"$FARECTL" -n host plane sync
host_lookup_is "IPv4 bound to eth-p1 after both were down" -4 $DST4 eth-p1 \
	"via 10.1.0.1 dev eth-p1"
host_lookup_is "IPv6 bound to eth-p2 after both were down" -6 $DST6 eth-p2 \
	"via 2001:db8:2::1 dev eth-p2"

# The routes go with everything they brought into tables 248 and 249.
"$FARECTL" -n host route del 198.51.100.0/24
"$FARECTL" -n host route del 2001:db8:100::/48
for t in 248 249; do
	expect_empty "IPv4 table $t after route del" \
		"$(ip -n host route show table $t proto 249)"
	expect_empty "IPv6 table $t after route del" \
		"$(ip -n host -6 route show table $t proto 249)"
done
expect_eq "IPv4 bound to eth-p1 after route del" \
	"$(host_lookup -4 $DST4 eth-p1)" "$before4_p1"

lab_result
