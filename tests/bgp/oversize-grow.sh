#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A route that grows past a neighbor's maximum message size is withdrawn
# there (RFC 8654 §4), not left at its old version. fared is a spine
# between two BIRDs: the leaf (B4, extended messages on) originates
# 10.202.1.0/24, fared passes it on to the far BIRD (R4, no extended
# messages). The leaf then prepends 1100 ASes: fared gets the route in
# an extended message but cannot pass it on in 4096 octets. The far
# BIRD must lose the route, with no session flapping.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

R_AS=4200000003
PFX=10.202.1.0/24
FAR_SOCK=$DIR/far.ctl

setup_net
cat >"$DIR/fared.conf" <<EOC
router-id 10.201.0.1
local-as $F_AS
hold-time 6
connect-retry 1
control-socket $CTL
state-file $DIR/fared.state
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
# leaf_conf [N]: the leaf's BIRD, its route exported with N ASes
# prepended (an AS_PATH that only an extended message carries).
leaf_conf()
{
	local prepend=""

	[ -z "${1:-}" ] ||
		prepend=$(for _ in $(seq "$1"); do printf 'bgp_path.prepend(65010); '; done)
	cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static leaf {
	ipv4;
	route $PFX blackhole;
}
protocol bgp leaf4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	enable extended messages on;
	ipv4 {
		import none;
		export filter { if source != RTS_STATIC then reject; $prepend accept; };
	};
}
EOC
}
leaf_conf
# A second BIRD for the far side: each binds its own address.
cat >"$DIR/far.conf" <<EOC
router id 10.201.0.3;
log "$DIR/far.log" all;
debug protocols { states, events, packets };
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

farc() { birdc -s "$FAR_SOCK" "$@"; }
far_has() { farc show route "$PFX" protocol far4 | grep -q "$PFX"; }
far_lacks() { ! far_has; }
far_since() { farc show protocols far4 | awk '$1 == "far4" { print $5 }'; }
# fared has the grown route: 1100 prepended ASes and the leaf's.
fared_has_grown()
{
	[ "$(ctl routes json "$PFX" | jq -r '.[0].paths[0].as_path' | wc -w)" -gt 1100 ]
}

start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
start_fared
wait_for 20 "fared Established with the leaf" fared_established $B4
wait_for 20 "fared Established with the far side" fared_established $R4
wait_for 10 "the far BIRD gets $PFX" far_has
since=$(far_since)

leaf_conf 1100
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "fared to get the grown route" fared_has_grown
wait_for 10 "the far BIRD to lose $PFX, now too large for it" far_lacks
grep -q "$PFX not advertised: its UPDATE would exceed the session's 4096-byte" \
	"$FARED_LOG" || fail "fared did not log the route it could not send"
[ "$(far_since)" = "$since" ] || fail "the far BIRD's session flapped"
fared_established $B4 || fail "the leaf's session dropped"
echo "ok: a route grown past 4096 octets is withdrawn at the far BIRD"

# Short again: passed on again.
leaf_conf
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "the far BIRD to get $PFX back" far_has
echo "ok: back within 4096 octets, it is passed on again"
