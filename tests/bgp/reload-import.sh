#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A reload that changes a neighbor's import policy re-evaluates without
# emptying first (issue 15 §3): fared as a spine, under valgrind, learns
# 10.202.1.0/24, 10.202.2.0/24 and 10.202.3.0/24 from BIRD (B4) with an
# import policy that takes the first two, and passes them on to a second
# BIRD (FAR). SIGHUP with a policy that takes the last two: FAR loses
# 10.202.1.0/24 and gains 10.202.3.0/24, and 10.202.2.0/24, which both
# policies accept, is never withdrawn: FAR counts exactly one withdrawal.
# (What fared passes on and what it programs into fare.ko come from the
# same change feed; fared used to flush the neighbor's routes and ask
# for them again, which withdrew 10.202.2.0/24 from both.)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
FAR4=10.201.0.5
FAR_AS=4200000005
setup_net
ip -n "$NS_B" addr add $FAR4/24 dev veth0
# fared_conf A B: the import policy takes 10.202.A.0/24 and 10.202.B.0/24.
fared_conf()
{
	cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role spine
interface veth0 bandwidth 100G
policy in {
	permit 10.202.$1.0/24
	permit 10.202.$2.0/24
}
policy out {
	permit 10.202.0.0/16 le 32
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		import in
		export out
	}
}
plane 2 {
	neighbor $FAR4 {
		remote-as $FAR_AS
		interface veth0
		import in
		export out
	}
}
EOC
}
fared_conf 1 2
cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static s4 {
	ipv4;
	route 10.202.1.0/24 blackhole;
	route 10.202.2.0/24 blackhole;
	route 10.202.3.0/24 blackhole;
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
far_has() { birdc -s "$FAR_SOCK" show route for "$1" protocol far4 | grep -q "$1"; }
# FAR's count of withdrawals received from fared.
far_withdraws()
{
	birdc -s "$FAR_SOCK" show protocols all far4 |
		awk '/Import withdraws:/ { print $3; exit }'
}

start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
start_fared
wait_for 20 "fared Established with BIRD" fared_established $B4
wait_for 20 "fared Established with the far BIRD" fared_established $FAR4
wait_for 10 "FAR gets 10.202.1.0/24" far_has 10.202.1.0/24
wait_for 10 "FAR gets 10.202.2.0/24" far_has 10.202.2.0/24
far_has 10.202.3.0/24 && fail "the import policy let 10.202.3.0/24 in"
[ "$(far_withdraws)" = 0 ] || fail "FAR counted withdrawals before the reload"
echo "ok: before the reload FAR has 10.202.1.0/24 and 10.202.2.0/24"

fared_conf 2 3
kill -HUP "$FARED_PID"
wait_for 10 "FAR gets 10.202.3.0/24" far_has 10.202.3.0/24
wait_for 10 "FAR loses 10.202.1.0/24" sh -c "! birdc -s $FAR_SOCK show route for 10.202.1.0/24 protocol far4 | grep -q 10.202.1.0/24"
# The refresh is over when the path kept is fresh again; then anything
# late has had its chance.
not_stale() { [ "$(ctl routes json 10.202.2.0/24 | jq -r '.[0].paths[0].stale')" = false ]; }
wait_for 30 "10.202.2.0/24 refreshed (not stale)" not_stale
sleep 1
far_has 10.202.2.0/24 || fail "10.202.2.0/24 went away"
birdc -s "$FAR_SOCK" show protocols all far4 | grep -A3 "Route change stats"
[ "$(far_withdraws)" = 1 ] ||
	fail "FAR counted $(far_withdraws) withdrawals, not 1 (10.202.1.0/24)"
echo "ok: a changed import policy: only the route it denies is withdrawn"
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
