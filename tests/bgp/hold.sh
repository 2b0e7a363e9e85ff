#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hold timer: BIRD frozen with SIGSTOP stops sending KEEPALIVEs; fared must
# send NOTIFICATION 4/0 (Hold Timer Expired) when its 6 s hold time runs
# out, drop the session and its routes, then come back when BIRD thaws.
#
# When: BIRD sends a KEEPALIVE every 2 s at most (a third of the hold
# time, RFC 4271 §10 jitter only shortens it), so the last one reached
# fared 0-2 s before the freeze and the timer expires 4-6 s after it.
# Measured from the freeze to the NOTIFICATION in fared's log (polled
# every 0.2 s), it must fall in 3.9 s..6 s + 2 s x FARE_WAIT_SCALE:
# earlier means a timer shorter than negotiated, later one that did not
# run on time (8 s alone leaves 2 s for a loaded host; 12 s under CI,
# where TCG guests share both CPUs: tests/bgp/run's FARE_WAIT_SCALE).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf
bringup
wait_for 10 "fared has 10.202.1.0/24" fared_has_route 10.202.1.0/24
ms() { echo $(($(date +%s%N) / 1000000)); }
HOLD_MS_MIN=3900
HOLD_MS_MAX=$((6000 + 2000 * FARE_WAIT_SCALE))
kill -STOP "$BIRD_PID"
start=$(ms)
until grep -q "neighbor $B4 (plane 1): sent NOTIFICATION 4/0" "$FARED_LOG"; do
	[ $(($(ms) - start)) -le $((HOLD_MS_MAX + 7000)) ] || break
	sleep 0.2
done
took=$(($(ms) - start))
if [ $took -ge $HOLD_MS_MIN ] && [ $took -le $HOLD_MS_MAX ]; then
	echo "ok: hold timer expired $took ms after the freeze" \
		"($HOLD_MS_MIN..$HOLD_MS_MAX)"
else
	fail "hold timer: NOTIFICATION 4/0 seen $took ms after the freeze," \
		"expected $HOLD_MS_MIN..$HOLD_MS_MAX"
fi
[ "$(fared_state $B4)" != Established ] || fail "still Established"
fared_field $B4 last_error | grep -q "NOTIFICATION 4/0" ||
	fail "last error: $(fared_field $B4 last_error)"
fared_has_route 10.202.1.0/24 && fail "routes kept after a hold timer expiry"
echo "ok: NOTIFICATION 4/0, session down, routes gone"
kill -CONT "$BIRD_PID"
wait_for 30 "the session to come back" fared_established $B4
wait_for 10 "the routes to come back" fared_has_route 10.202.1.0/24
echo "ok: session re-established after SIGCONT"
