#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The walking skeleton: one host, two planes, a 3:1 per-packet split.
#
#                 +-- eth-p1 10.1.0.2 ---- 10.1.0.1 [leaf1] 10.11.0.1 --+
#   [host]  fare0 |                                                      [remote]
#   lo 192.0.2.7  +-- eth-p2 10.2.0.2 ---- 10.2.0.1 [leaf2] 10.12.0.1 --+ lo 198.51.100.1
#
# One UDP socket bound to the host's loopback address sends 4000 datagrams
# to the remote host. fare.ko sprays them 3:1 over the planes. The leaves'
# own interface counters must read 3000 and 1000, each within the one-packet
# per-plane bound of the spray schedule (exact here: the sender is pinned to
# one CPU and 4000 is a whole number of 4-packet periods), and the remote
# must receive every datagram exactly once.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-4000}

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
for leaf in leaf1 leaf2; do
	ip -n $leaf route add 198.51.100.1/32 via \
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
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
"$FARECTL" -n host route show
ip -n host route show table 249 proto 249

base1=$(rx_packets leaf1 eth-host)
base2=$(rx_packets leaf2 eth-host)

sinklog=$(mktemp)
ip netns exec remote "$FARE_UDP" sink --bind 198.51.100.1 --port 9000 \
	--count "$COUNT" --timeout 60 >"$sinklog" &
sink=$!
LAB_PIDS+=("$sink")
wait_until 10 grep -q listening "$sinklog"

ip netns exec host taskset -c 0 "$FARE_UDP" send --src 192.0.2.7 \
	--dst 198.51.100.1 --port 9000 --count "$COUNT" --interval-us 50
sink_rc=0
wait "$sink" || sink_rc=$?
cat "$sinklog"

p1=$(($(rx_packets leaf1 eth-host) - base1))
p2=$(($(rx_packets leaf2 eth-host) - base2))
expect_near "leaf1 received (plane 1)" $p1 $((COUNT * 3 / 4)) 1
expect_near "leaf2 received (plane 2)" $p2 $((COUNT / 4)) 1
expect_eq "packets on both planes" $((p1 + p2)) "$COUNT"
expect_eq "remote received every datagram once (sink exit)" $sink_rc 0

"$FARECTL" -n host stats
tx1=$("$FARECTL" -n host -j plane show 1 | jq '.[0].tx_packets')
expect_eq "fare.ko plane 1 counter matches leaf1" "$tx1" "$p1"

lab_result
