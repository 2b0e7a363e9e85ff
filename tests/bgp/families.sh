#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Who gets what (issue 15 §3): iBGP split horizon (RFC 4271 §9.2), an
# UPDATE of a family not negotiated ignored with the session kept (RFC
# 4760 §7), and a peer without the Multiprotocol capability speaking IPv4
# unicast both ways (RFC 4760 §8). fared is a spine, under valgrind:
#   B4   BIRD, iBGP (AS F_AS)
#   R4   the raw peer, iBGP: announces 100.64.0.1/32
#   R4B  the raw peer, eBGP AS 65004, no Multiprotocol capability:
#        announces 100.64.0.2/32 and, in MP_REACH_NLRI, fd00:202:9::/48
#   FAR  a second BIRD, eBGP, one IPv4 and one IPv6 session
# 100.64.0.1/32 (from iBGP) reaches FAR and R4B but not B4; 100.64.0.2/32
# (from eBGP) reaches B4 and FAR; fd00:202:9::/48 reaches nobody, and
# R4B's session stays up.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
R4B=10.201.0.4
FAR4=10.201.0.5
FAR6=fd00:201::5
FAR_AS=4200000005
setup_net
ip -n "$NS_B" addr add $R4B/24 dev veth0
ip -n "$NS_B" addr add $FAR4/24 dev veth0
ip -n "$NS_B" addr add $FAR6/64 dev veth0 nodad
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role spine
interface veth0 bandwidth 100G
originate fd00:203::/48
policy in {
	permit 100.64.0.0/10 le 32
	permit fd00:202::/32 le 128
}
policy out {
	permit 100.64.0.0/10 le 32
	permit fd00:202::/32 le 128
	permit fd00:203::/32 le 128
}
plane 1 {
	neighbor $R4 {
		remote-as $F_AS
		interface veth0
		passive
		import in
		export out
	}
	neighbor $B4 {
		remote-as $F_AS
		interface veth0
		import in
		export out
	}
}
plane 2 {
	neighbor $R4B {
		remote-as 65004
		interface veth0
		family ipv4 ipv6
		passive
		import in
		export out
	}
	neighbor $FAR4 {
		remote-as $FAR_AS
		interface veth0
		import in
		export out
	}
	neighbor $FAR6 {
		remote-as $FAR_AS
		interface veth0
		family ipv6
		import in
		export out
	}
}
EOC
cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol bgp ibgp4 {
	local $B4 as $F_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export none; };
}
EOC
cat >"$DIR/far.conf" <<EOC
router id 10.201.0.5;
log "$DIR/far.log" all;
protocol device { scan time 1; }
template bgp T {
	local as $FAR_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
}
protocol bgp far4 from T {
	source address $FAR4;
	neighbor $F4 as $F_AS;
	ipv4 { import all; export none; };
}
protocol bgp far6 from T {
	source address $FAR6;
	neighbor $F6 as $F_AS;
	ipv6 { import all; export none; };
}
EOC
FAR_SOCK=$DIR/far.ctl
start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
far_has() { birdc -s "$FAR_SOCK" show route for "$1" protocol "$2" | grep -q "$1"; }
start_fared
wait_for 20 "fared Established with BIRD (iBGP)" fared_established $B4
wait_for 20 "fared Established with the far IPv4 session" fared_established $FAR4
wait_for 20 "fared Established with the far IPv6 session" fared_established $FAR6
wait_for 10 "the far side gets fared's own fd00:203::/48" \
	far_has fd00:203::/48 far6

HOSTILE_AS=$F_AS hostile_bg speak ibgp v4 100.64.0.1/32
IBGP_PID=$HOSTILE_PID
HOSTILE_AS=65004 ip netns exec "$NS_B" python3 "$HOSTILE" $R4B $F4 \
	speak nomp v4 100.64.0.2/32 v6 fd00:202:9::/48 expect 100.64.0.1/32 \
	>"$DIR/nomp.log" 2>&1 &
NOMP_PID=$!
wait_for 20 "the far side gets 100.64.0.1/32 (from iBGP)" \
	far_has 100.64.0.1/32 far4
wait_for 20 "the far side gets 100.64.0.2/32 (from the peer without MP)" \
	far_has 100.64.0.2/32 far4
wait_for 20 "iBGP BIRD gets 100.64.0.2/32 (from eBGP)" \
	bird_has_route 100.64.0.2/32 ibgp4
echo "ok: a peer without the Multiprotocol capability: its IPv4 route taken"
# The peer without MP must also have had 100.64.0.1/32 and no NOTIFICATION.
wait_for 40 "the peer without MP to finish its checks" \
	grep -q "no NOTIFICATION, session up" "$DIR/nomp.log"
cat "$DIR/nomp.log"
grep -q FAIL "$DIR/nomp.log" && fail "the peer without MP: see above"
echo "ok: a peer without the Multiprotocol capability gets IPv4 unicast"
bird_has_route 100.64.0.1/32 ibgp4 &&
	fail "a route learned over iBGP was passed on to iBGP"
echo "ok: iBGP split horizon: a route learned over iBGP is not passed on to iBGP"
far_has fd00:202:9::/48 far6 &&
	fail "an IPv6 route from a session that did not negotiate IPv6 was taken"
grep -q "fared announced\|no NOTIFICATION" "$DIR/nomp.log" ||
	fail "the peer without MP saw nothing"
[ "$(fared_state $R4B)" = Established ] ||
	fail "the session that sent a family not negotiated went down"
grep -q "UPDATE for AFI 2 SAFI 1, not negotiated" "$FARED_LOG" ||
	fail "no log line for the family not negotiated"
echo "ok: an UPDATE of a family not negotiated is ignored, the session stays"
kill "$NOMP_PID" "$IBGP_PID" 2>/dev/null
wait "$NOMP_PID" "$IBGP_PID" 2>/dev/null
HOSTILE_PID=
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
