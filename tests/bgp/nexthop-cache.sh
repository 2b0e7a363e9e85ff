#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A transit fared's IPv6 next hops without an address dump per UPDATE
# (issue 26 §1 item 9): fared (a spine, under strace) passes 300 IPv6
# routes from the leaf BIRD (B6), each with a community of its own (so
# 300 UPDATEs, none shared), on to the far BIRD (FAR6). The far BIRD must
# get every one with fared's global and link-local next hops (RFC 2545),
# and fared must open few NETLINK_ROUTE sockets for it (getifaddrs() opens
# one per call: main's fared opened one per UPDATE).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

N=300
FAR6=fd00:201::5
FAR_AS=4200000005
FARED_WRAP="strace -f -qq -e trace=socket -o $DIR/strace.txt"
setup_net
ip -n "$NS_B" addr add $FAR6/64 dev veth0 nodad
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role spine
interface veth0 bandwidth 100G
policy all {
	permit fd00:202::/32 le 128
}
plane 1 {
	neighbor $B6 {
		remote-as $B_AS
		interface veth0
		family ipv6
		import all
		export all
	}
}
plane 2 {
	neighbor $FAR6 {
		remote-as $FAR_AS
		interface veth0
		family ipv6
		import all
		export all
	}
}
EOC
{
	cat <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static leaf {
	ipv6;
EOC
	for i in $(seq 1 $N); do
		printf '\troute fd00:202:%x::/48 blackhole { bgp_community.add((64512, %u)); };\n' \
			"$i" "$i"
	done
	cat <<EOC
}
protocol bgp leaf6 {
	local $B6 as $B_AS;
	neighbor $F6 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv6 { import none; export all; };
}
EOC
} >"$DIR/bird.conf"
cat >"$DIR/far.conf" <<EOC
router id 10.201.0.5;
log "$DIR/far.log" all;
protocol device { scan time 1; }
protocol bgp far6 {
	local $FAR6 as $FAR_AS;
	neighbor $F6 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv6 { import all; export none; };
}
EOC
FAR_SOCK=$DIR/far.ctl
start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
start_fared
wait_for 20 "fared Established with the leaf" fared_established $B6
wait_for 20 "fared Established with the far BIRD" fared_established $FAR6
far_count()
{
	birdc -s "$FAR_SOCK" show route count protocol far6 |
		sed -n 's/^\([0-9]*\) of .*/\1/p'
}
far_has_all() { [ "$(far_count)" = $N ]; }
wait_for 30 "the far BIRD gets all $N routes" far_has_all
birdc -s "$FAR_SOCK" show route all fd00:202:1::/48 | tee "$DIR/route.txt"
F_LL=$(ip -n "$NS_F" -6 addr show dev veth0 scope link |
	sed -n 's/.*inet6 \([^/]*\).*/\1/p')
grep -q "BGP.next_hop: $F6 $F_LL" "$DIR/route.txt" ||
	fail "fd00:202:1::/48 lacks fared's global and link-local next hops"
echo "ok: $N routes with next hops $F6 and $F_LL"
# Everything was sent (the far BIRD has it all): strace has written the
# socket() calls of it.
dumps=$(grep -c "socket(AF_NETLINK, [^,]*, NETLINK_ROUTE)" "$DIR/strace.txt")
echo "fared opened $dumps NETLINK_ROUTE sockets"
[ "$dumps" -le 10 ] ||
	fail "$dumps NETLINK_ROUTE sockets for $N IPv6 UPDATEs: a dump per UPDATE"
echo "ok: the link-local next hop is not looked up per UPDATE"
