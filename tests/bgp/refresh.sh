#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A ROUTE-REFRESH gets the whole Adj-RIB-Out again (RFC 2918 §4, RFC 7313
# §4), the routes fared passes on too. fared is a spine between two BIRDs:
# the leaf (B4) originates 10.202.1.0/24, fared passes it on to the far
# BIRD (R4), which then asks for a refresh ("birdc reload in"). The far
# BIRD speaks enhanced route refresh: what fared does not send between
# its BoRR and EoRR, BIRD deletes. It must receive the route again and
# still hold it afterwards.
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
cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static leaf {
	ipv4;
	route $PFX blackhole { bgp_ext_community.add((unknown 0x0f, 10.201.0.2, 21056)); };
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
# Import updates the far BIRD accepted from fared (show protocols all).
far_updates()
{
	farc show protocols all far4 |
		awk '$1 == "Import" && $2 == "updates:" { print $3 }'
}
far_updates_above() { [ "$(far_updates)" -gt "$1" ]; }
far_since() { farc show protocols far4 | awk '$1 == "far4" { print $5 }'; }

start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
start_fared
wait_for 20 "fared Established with the leaf" fared_established $B4
wait_for 20 "fared Established with the far side" fared_established $R4
wait_for 10 "the far side gets $PFX" far_has
farc show protocols all far4 | grep -qi 'enhanced refresh' ||
	fail "the far BIRD did not negotiate enhanced route refresh"
since=$(far_since)
n0=$(far_updates)
echo "far BIRD: $n0 import updates before the refresh"

farc reload in far4 >/dev/null || fail "birdc reload in"
# BIRD's own packet trace says when fared's refresh ended (EoRR): BIRD
# has then deleted whatever fared did not send again.
wait_for 10 "the far BIRD to get fared's End-of-RR" \
	grep -q 'Got END-OF-RR' "$DIR/far.log"
sleep 1
far_has || fail "the far BIRD lost $PFX in its route refresh"
far_updates_above "$n0" ||
	fail "the far BIRD was not sent $PFX again ($(far_updates) updates)"
[ "$(far_since)" = "$since" ] ||
	fail "the far BIRD's session flapped"
echo "ok: a route refresh re-sends the route passed on; the far BIRD keeps it"
