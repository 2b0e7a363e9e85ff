#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A restarting transit fared defers its initial export and End-of-RIB
# until it has every neighbor's End-of-RIB (RFC 4724 §4.1): an End-of-RIB
# sent before lets a helper sweep the routes fared has yet to pass on
# again. fared is a spine between two BIRDs with graceful restart: the
# leaf (B4) originates 10.202.1.0/24, fared passes it on to the far BIRD
# (R4). fared is killed (SIGKILL) and the leaf kept away while fared comes
# back: the far BIRD's session is up again at once, and its packet trace
# must show no End-of-RIB from fared while the leaf's table is missing;
# once the selection deferral time (stale-time) is over it must get one,
# and the route again when the leaf is back. (Without fare.ko a transit fared keeps no
# forwarding state, so its OPEN clears the F bit and BIRD drops the
# stale routes at once: that the route survives is tests/lab's to show.)
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
graceful-restart restart-time 60 stale-time 10
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
	graceful restart on;
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
	graceful restart on;
	ipv4 { import all; export none; };
}
EOC

farc() { birdc -s "$FAR_SOCK" "$@"; }
far_has() { farc show route "$PFX" protocol far4 | grep -q "$PFX"; }
# The far BIRD's packet trace from line $1 on.
far_log_since() { tail -n +"$1" "$DIR/far.log"; }
far_eor_since() { far_log_since "$1" | grep -q 'Got END-OF-RIB'; }

start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
start_fared
wait_for 20 "fared Established with the leaf" fared_established $B4
wait_for 20 "fared Established with the far side" fared_established $R4
wait_for 10 "the far BIRD gets $PFX" far_has

kill -9 "$FARED_PID"
wait "$FARED_PID" 2>/dev/null
FARED_PID=
# The leaf stays away while fared comes back: its table comes late.
birdc_ disable leaf4 >/dev/null || fail "birdc disable leaf4"
far_gr()
{
	farc show protocols all far4 | grep -q "Neighbor graceful restart active"
}
wait_for 10 "the far BIRD to keep fared's routes (helper)" far_gr
mark=$(($(wc -l <"$DIR/far.log") + 1))
start_fared
wait_for 20 "fared Established with the far side again" fared_established $R4
wait_for 10 "the far BIRD to send fared its End-of-RIB" \
	sh -c "tail -n +$mark $DIR/far.log | grep -q 'Sending END-OF-RIB'"
sleep 2
far_eor_since "$mark" &&
	fail "fared sent the far BIRD End-of-RIB before the leaf's table was in"
echo "ok: no End-of-RIB to the far BIRD while a neighbor's table is missing"

# The leaf stays away: the selection deferral time (stale-time, 10 s)
# bounds the wait, and then the far BIRD gets fared's End-of-RIB.
wait_for 30 "the far BIRD to get fared's End-of-RIB once stale-time is over" \
	far_eor_since "$mark"
fared_established $B4 && fail "the leaf came back early: the check is void"
echo "ok: after the deferral time fared advertises without the leaf's table"

birdc_ enable leaf4 >/dev/null || fail "birdc enable leaf4"
wait_for 20 "fared Established with the leaf again" fared_established $B4
wait_for 20 "the far BIRD to get $PFX again from fared" far_has
echo "ok: the leaf's route, back, is passed on"
