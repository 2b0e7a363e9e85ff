#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A route that sprays per packet keeps its TCP on one plane per flow
# (issue 24 §3; farectl(8) tcp-mode). Two planes 1:1, routes to the
# remote's loopbacks in packet mode with tcp-mode flow. What each plane
# carried is read from the leaves' interface counters (host to leaf: the
# remote's ACKs come back through leaf 1's other side, so the leaves'
# host-facing rx is the host's segments and datagrams only).
#  1. One TCP connection of 4 MB, IPv4 and then IPv6: one leaf gets all
#     of its segments, the other none.
#  2. 400 UDP datagrams to the same route: still sprayed, 200 each.
#  3. The route replaced without tcp-mode (today's packet mode): the
#     same TCP connection goes over both planes (the control: a lab that
#     sent all TCP over one plane by chance would fail here).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=400
BYTES=4000000

load_fare
topo_planes 2 v6
plane_add_all 2 v6
route4() {
	"$FARECTL" -n host route "$1" 198.51.100.0/24 mode packet "${@:2}" \
		src 192.0.2.7 nexthop plane 1 weight 1 nexthop plane 2 weight 1
}
route6() {
	"$FARECTL" -n host route "$1" 2001:db8:100::/48 mode packet "${@:2}" \
		src 2001:db8:7::7 nexthop plane 1 weight 1 nexthop plane 2 weight 1
}
route4 add tcp-mode flow
route6 add tcp-mode flow
expect_eq "route show: tcp_mode" \
	"$("$FARECTL" -j -n host route show 198.51.100.0/24 | jq -r '.[0].tcp_mode')" flow

leaf_rx() { ip -n leaf"$1" -s -j link show eth-host | jq '.[0].stats64.rx.packets'; }
listening() { ip netns exec remote ss -Hltn 'sport = :9001' | grep -q .; }

# tcp_send DST: one connection of BYTES bytes from the host's loopback
# (the route's source) to DST:9001, where the remote reads it all; sets
# G1 and G2 to what leaf 1 and 2 received meanwhile.
tcp_send()
{
	local l1 l2

	ip netns exec remote busybox nc -l -p 9001 >/dev/null &
	wait_until 10 listening || fail "$1: the remote does not listen"
	l1=$(leaf_rx 1) l2=$(leaf_rx 2)
	ip netns exec host timeout 60 bash -c \
		"head -c $BYTES /dev/zero >/dev/tcp/$1/9001" ||
		fail "$1: the TCP transfer failed"
	wait $! || fail "$1: the remote's reader failed"
	G1=$(($(leaf_rx 1) - l1)) G2=$(($(leaf_rx 2) - l2))
	echo "lab: $1: TCP segments by plane: $G1 $G2"
}

# ---- 1. TCP on one plane ----
for dst in 198.51.100.1 2001:db8:100::1; do
	tcp_send $dst
	is_int "$G1" && is_int "$G2" || fail "$dst: counters unreadable"
	hi=$((G1 > G2 ? G1 : G2)) lo=$((G1 > G2 ? G2 : G1))
	[ "$hi" -ge 20 ] || fail "$dst: too few segments counted ($hi)"
	# At most a stray IPv6 multicast listener report beside the flow.
	[ "$lo" -le 2 ] && pass "$dst: TCP on one plane ($hi and $lo)" ||
		fail "$dst: TCP went over both planes ($G1 and $G2)"
done

# ---- 2. UDP still sprayed ----
l1=$(leaf_rx 1) l2=$(leaf_rx 2)
ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
	--port 9000 --count $N --size 100 >/dev/null
udp_in() { [ $(($(leaf_rx 1) + $(leaf_rx 2) - l1 - l2)) -ge $N ]; }
wait_until 10 udp_in || true
expect_near "UDP on plane 1" $(($(leaf_rx 1) - l1)) $((N / 2)) 2
expect_near "UDP on plane 2" $(($(leaf_rx 2) - l2)) $((N / 2)) 2

# ---- 3. the control: without tcp-mode, TCP is sprayed ----
route4 replace
expect_eq "replaced: tcp_mode" \
	"$("$FARECTL" -j -n host route show 198.51.100.0/24 | jq -r '.[0].tcp_mode')" default
tcp_send 198.51.100.1
total=$((G1 + G2))
if [ "$total" -ge 20 ] && [ $((G1 * 5)) -ge "$total" ] &&
   [ $((G2 * 5)) -ge "$total" ]; then
	pass "without tcp-mode: TCP over both planes ($G1 and $G2)"
else
	fail "without tcp-mode: TCP was not sprayed ($G1 and $G2)"
fi

lab_result
