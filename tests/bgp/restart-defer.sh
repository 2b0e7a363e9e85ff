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

PFX=$SPINE_PFX

setup_net
spine_conf "graceful-restart restart-time 60 stale-time 10" \
	"graceful restart on;"
spine_leaf_conf "{ bgp_ext_community.add((unknown 0x0f, 10.201.0.2, 21056)); }" \
	"graceful restart on;" "export where source = RTS_STATIC;"
# The far BIRD's packet trace from line $1 on.
far_log_since() { tail -n +"$1" "$DIR/far.log"; }
far_eor_since() { far_log_since "$1" | grep -q 'Got END-OF-RIB'; }

spine_start

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
