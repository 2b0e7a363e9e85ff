#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Shared next-hop groups: two remote hosts' routes on one named group, one
# "group set" moves the traffic of both; routes given the same next hops
# inline share one anonymous group; a route without its own counters still
# steers; a group in use cannot be deleted.
#
#                 +-- eth-p1 10.1.0.2 ---- 10.1.0.1 [leaf1] 10.11.0.1 --+
#   [host]  fare0 |                                                      [remote]
#   lo 192.0.2.7  +-- eth-p2 10.2.0.2 ---- 10.2.0.1 [leaf2] 10.12.0.1 --+ lo 198.51.100.1
#                                                                          198.51.100.2
#
# Each phase sends COUNT datagrams to each of the two remote addresses from
# one CPU in packet mode, so each route's split is exact (whole 4-packet
# periods of the group's schedule, shared by both routes on that CPU); the
# leaves' own interface counters are the judge.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-2000}

load_fare
for ns in host leaf1 leaf2 remote; do
	netns_add $ns
done
veth_link host eth-p1 10.1.0.2/30 leaf1 eth-host 10.1.0.1/30
veth_link host eth-p2 10.2.0.2/30 leaf2 eth-host 10.2.0.1/30
veth_link leaf1 eth-remote 10.11.0.1/30 remote eth-leaf1 10.11.0.2/30
veth_link leaf2 eth-remote 10.12.0.1/30 remote eth-leaf2 10.12.0.2/30
ip -n host addr add 192.0.2.7/32 dev lo
ip -n remote addr add 198.51.100.1/32 dev lo
ip -n remote addr add 198.51.100.2/32 dev lo
for leaf in leaf1 leaf2; do
	ip -n $leaf route add 198.51.100.0/30 via \
		"$( [ $leaf = leaf1 ] && echo 10.11.0.2 || echo 10.12.0.2 )"
	ip -n $leaf route add 192.0.2.7/32 via \
		"$( [ $leaf = leaf1 ] && echo 10.1.0.2 || echo 10.2.0.2 )"
done
ip -n remote route add 192.0.2.7/32 via 10.11.0.1
neigh_pin host eth-p1 10.1.0.1 leaf1 eth-host
neigh_pin host eth-p2 10.2.0.1 leaf2 eth-host
neigh_pin leaf1 eth-remote 10.11.0.2 remote eth-leaf1
neigh_pin leaf2 eth-remote 10.12.0.2 remote eth-leaf2

"$FARECTL" -n host plane add 1 dev eth-p1 via 10.1.0.1
"$FARECTL" -n host plane add 2 dev eth-p2 via 10.2.0.1
"$FARECTL" -n host group add 7 nexthop plane 1 weight 3 nexthop plane 2 weight 1
# Counters of its own (off by default): read below.
"$FARECTL" -n host route add 198.51.100.1/32 mode packet src 192.0.2.7 \
	stats on group 7
"$FARECTL" -n host route add 198.51.100.2/32 mode packet src 192.0.2.7 \
	stats off group 7
"$FARECTL" -n host group show
"$FARECTL" -n host route show

expect_eq "group 7 has both routes" \
	"$("$FARECTL" -n host -j group show 7 | jq '.[0].routes')" 2
expect_eq "a route shows its named group" \
	"$("$FARECTL" -n host -j route show 198.51.100.2/32 | jq '.[0].group')" 7
expect_eq "a route without counters says so" \
	"$("$FARECTL" -n host -j route show 198.51.100.2/32 | jq '.[0].stats')" false

# send_both: COUNT datagrams to each remote address, one CPU; P1 and P2
# are then the packets each leaf received from the host.
send_both()
{
	local b1 b2 dst sinklog sink rc

	b1=$(rx_packets leaf1 eth-host)
	b2=$(rx_packets leaf2 eth-host)
	for dst in 198.51.100.1 198.51.100.2; do
		sinklog=$(mktemp)
		ip netns exec remote "$FARE_UDP" sink --bind $dst --port 9000 \
			--count "$COUNT" --timeout 60 >"$sinklog" &
		sink=$!
		LAB_PIDS+=("$sink")
		wait_until 10 grep -q listening "$sinklog"
		ip netns exec host taskset -c 0 "$FARE_UDP" send \
			--src 192.0.2.7 --dst $dst --port 9000 \
			--count "$COUNT" --interval-us 50
		rc=0
		wait "$sink" || rc=$?
		expect_eq "remote got every datagram to $dst once" $rc 0
	done
	P1=$(($(rx_packets leaf1 eth-host) - b1))
	P2=$(($(rx_packets leaf2 eth-host) - b2))
}

send_both
expect_near "3:1, leaf1 (plane 1)" "$P1" $((2 * COUNT * 3 / 4)) 2
expect_near "3:1, leaf2 (plane 2)" "$P2" $((2 * COUNT / 4)) 2
tx=$("$FARECTL" -n host -j route show 198.51.100.1/32 |
	jq '.[0].nexthops[0].tx_packets')
expect_near "the route with counters counted its own plane-1 packets" \
	"$tx" $((COUNT * 3 / 4)) 1

# One operation for every route on the group.
"$FARECTL" -n host group set 7 nexthop plane 1 weight 1 nexthop plane 2 weight 3
send_both
expect_near "after group set 1:3, leaf1 (plane 1)" "$P1" $((2 * COUNT / 4)) 2
expect_near "after group set 1:3, leaf2 (plane 2)" "$P2" $((2 * COUNT * 3 / 4)) 2

expect_refusal "a group in use cannot be deleted" "group in use by routes" \
	"$FARECTL" -n host group del 7

# Inline next hops: the two routes share one anonymous group.
"$FARECTL" -n host route replace 198.51.100.1/32 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1
"$FARECTL" -n host route replace 198.51.100.2/32 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1
g1=$("$FARECTL" -n host -j route show 198.51.100.1/32 | jq '.[0].group')
g2=$("$FARECTL" -n host -j route show 198.51.100.2/32 | jq '.[0].group')
expect_eq "inline routes with the same next hops share a group" "$g1" "$g2"
expect_eq "that group is anonymous and has both" \
	"$("$FARECTL" -n host -j group show "$g1" | jq -c '.[0] | [.anonymous, .routes]')" \
	"[true,2]"
send_both
expect_near "1:1, leaf1 (plane 1)" "$P1" "$COUNT" 2
expect_near "1:1, leaf2 (plane 2)" "$P2" "$COUNT" 2

"$FARECTL" -n host group del 7
expect_eq "named group deleted once unused; the anonymous one stays" \
	"$("$FARECTL" -n host -j group show | jq -c '[.[].id]')" "[$g1]"
"$FARECTL" -n host route del 198.51.100.1/32
"$FARECTL" -n host route del 198.51.100.2/32
expect_eq "the anonymous group went with its last route" \
	"$("$FARECTL" -n host -j config show | jq '.groups')" 0

lab_result
