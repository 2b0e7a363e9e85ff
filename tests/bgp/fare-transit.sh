#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fared as a FARE spine between two BIRD sessions, under valgrind, with
# no fare.ko on the host (weights are computed and explained, nothing is
# programmed): BIRD's "leaf" session (B4, AS B_AS) advertises
# 10.202.1.0/24 with a transitive PB of 50 GB/s; fared's link is 100G
# (12.5 GB/s), so it passes the route on to BIRD's other session (R4,
# AS 4200000003) with PB min(12.5, 50) = 12.5 GB/s (binary16 0x4a40 =
# 19008) under its own router id (fare-04 §4.1), not back to the leaf.
# A path without PB is passed on without one (the gate); a withdrawal is
# passed on.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
R_AS=4200000003
PFX=10.202.1.0/24

setup_net
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role spine
interface veth0 bandwidth 100G
policy all {
	permit 10.202.0.0/16 le 32
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		import all
		export all
	}
}
plane 2 {
	neighbor $R4 {
		remote-as $R_AS
		interface veth0
		import all
		export all
	}
}
EOC

# bird_conf [COMMUNITY]: the leaf's route, with that ext community if any.
bird_conf()
{
	cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static leaf {
	ipv4;
	route $PFX blackhole ${1:+{ bgp_ext_community.add($1); \}};
}
protocol bgp leaf4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export where source = RTS_STATIC; };
}
EOC
}

# The far side is a second BIRD: one BIRD keeps a second session to the
# same neighbor address Idle. Each binds its own address.
cat >"$DIR/far.conf" <<EOC
router id 10.201.0.3;
log "$DIR/far.log" all;
protocol device { scan time 1; }
protocol bgp far4 {
	local $R4 as $R_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export none; };
}
EOC
FAR_SOCK=$DIR/far.ctl

far_route() { birdc -s "$FAR_SOCK" show route "$PFX" protocol far4 all; }
far_has() { far_route | grep -q "$1"; }

bird_conf "(unknown 0x0f, 10.201.0.2, 21056)"
start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
start_fared
wait_for 20 "fared Established with the leaf" fared_established $B4
wait_for 20 "fared Established with the far side" fared_established $R4
wait_for 10 "the far side gets $PFX" far_has "$PFX"
far_route
far_has "(unknown 0x10f, 10.201.0.1, 19008)" ||
	fail "PB not min(link, PB) = 12.5 GB/s under fared's router id"
far_has "BGP.as_path: $F_AS $B_AS" || fail "AS path not fared's + the leaf's"
far_has "unknown 0x10f, 10.201.0.2" && fail "the leaf's PB went through"
[ "$(ctl routes json $PFX | jq -r '.[0].advertise_pb_bps')" = 100000000000 ] ||
	fail "fared does not explain the PB it passes on"
[ "$(ctl routes json $PFX | jq -r '.[0].paths[0].fare.weight')" = 1 ] ||
	fail "the single path's weight is not 1"
echo "ok: passed on with PB min(100G, 50 GB/s) = 12.5 GB/s, fared's AS first"
# Not back to the leaf, as the leaf's BIRD counts it: no route received
# from fared, as an update or (its own AS in the path) a withdrawal. The
# far side's copy came with the same export, so it would be here by now.
leaf_received()
{
	birdc_ show protocols all leaf4 |
		awk '$1 == "Import" && ($2 == "updates:" || $2 == "withdraws:") {
			n += $3; seen++ }
		     END { if (seen == 2) print n }'
}
[ "$(leaf_received)" = 0 ] ||
	fail "the leaf's BIRD received $(leaf_received) routes from fared"
echo "ok: not sent back to the leaf (its BIRD received nothing)"

# The leaf drops the PB: fared passes the route on without one (gate).
bird_conf
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "the far side's route to lose its PB" \
	sh -c "! birdc -s $FAR_SOCK show route $PFX protocol far4 all |
		grep -q 'unknown 0x10f'"
far_has "$PFX" || fail "the route went away instead"
[ "$(leaf_received)" = 0 ] ||
	fail "the leaf's BIRD received $(leaf_received) routes from fared"
[ "$(ctl routes json $PFX | jq -r '.[0].advertise')" = \
  "no PB: not every path carries one" ] || fail "explanation of the gate"
echo "ok: a path without PB is passed on without PB"

# The leaf withdraws: so does fared.
birdc_ disable leaf4 >/dev/null
wait_for 10 "the far side's route to go" sh -c "! birdc -s $FAR_SOCK \
	show route $PFX protocol far4 | grep -q $PFX"
echo "ok: a withdrawal is passed on"

stop_fared_clean
echo "ok: under valgrind, no error, no leak"
