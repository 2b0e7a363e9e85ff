#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Best-path selection among a plane's paths (RFC 4271 §9.1.2.2; issue 15
# §3), seen from a real receiver: fared as a spine, under valgrind, hears
# 100.64.1.0/24 on plane 1 from BIRD (B4, AS B_AS, router id 10.201.0.2)
# and from the raw peer (R4, AS 65003, router id 10.201.0.3), and passes
# the best path on to a second BIRD (FAR, plane 2), whose AS path names
# the winner:
#   both IGP, one AS long: MED is not compared (other neighboring ASes),
#     both eBGP, so the lower router id wins: BIRD;
#   BIRD's ORIGIN INCOMPLETE: the raw peer wins by ORIGIN;
#   BIRD's AS path prepended: the raw peer wins by AS path length;
#   back as it was: BIRD again.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
FAR4=10.201.0.5
FAR_AS=4200000005
PFX4=100.64.1.0/24
setup_net
ip -n "$NS_B" addr add $FAR4/24 dev veth0
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role spine
interface veth0 bandwidth 100G
policy all {
	permit 100.64.0.0/10 le 32
}
plane 1 {
	# The raw peer first: RIB order would favour it, the router id not.
	neighbor $R4 {
		remote-as 65003
		interface veth0
		passive
		import all
		export all
	}
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		import all
		export all
	}
}
plane 2 {
	neighbor $FAR4 {
		remote-as $FAR_AS
		interface veth0
		import all
		export all
	}
}
EOC
# bird_conf EXPORT: BIRD's route and its export filter.
bird_conf()
{
	cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static s4 {
	ipv4;
	route $PFX4 blackhole;
}
protocol bgp leaf4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export $1; };
}
EOC
}
cat >"$DIR/far.conf" <<EOC
router id 10.201.0.5;
log "$DIR/far.log" all;
protocol device { scan time 1; }
protocol bgp far4 {
	local $FAR4 as $FAR_AS;
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
far_path() { birdc -s "$FAR_SOCK" show route for $PFX4 protocol far4 all | grep -q "BGP.as_path: $1\$"; }

bird_conf "where source = RTS_STATIC"
start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
start_fared
wait_for 20 "fared Established with the far BIRD" fared_established $FAR4
wait_for 20 "fared Established with BIRD" fared_established $B4
hostile_bg speak v4 $PFX4
wait_for 20 "fared Established with the raw peer" fared_established $R4
two_paths() { [ "$(ctl routes json $PFX4 | jq '.[0].paths | length')" = 2 ]; }
wait_for 20 "two paths to $PFX4 at fared" two_paths
wait_for 10 "the far side to get BIRD's path (lower router id)" \
	far_path "$F_AS $B_AS"
echo "ok: equal through eBGP (MED not compared across ASes): the lower router id wins"

bird_conf "filter { bgp_origin = ORIGIN_INCOMPLETE; accept; }"
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "the far side to get the raw peer's path (ORIGIN)" \
	far_path "$F_AS 65003"
echo "ok: a lower ORIGIN wins over a lower router id"

bird_conf "filter { bgp_path.prepend($B_AS); accept; }"
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "the far side to get the raw peer's path (AS path length)" \
	far_path "$F_AS 65003"
[ "$(ctl routes json $PFX4 | jq -r '[.[0].paths[].fare.not_equal_cost_by] | sort | join(",")')" = ",AS path length" ] ||
	fail "fared does not explain BIRD's path as longer"
echo "ok: a shorter AS path wins"

bird_conf "where source = RTS_STATIC"
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "the far side to get BIRD's path again" far_path "$F_AS $B_AS"
echo "ok: equal again: BIRD's lower router id wins again"
hostile_stop
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
