#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hold timer: BIRD frozen with SIGSTOP stops sending KEEPALIVEs; fared must
# send NOTIFICATION 4/0 (Hold Timer Expired) within its 6 s hold time,
# drop the session and its routes, then come back when BIRD thaws.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf
bringup
wait_for 10 "fared has 10.202.1.0/24" fared_has_route 10.202.1.0/24
kill -STOP "$BIRD_PID"
start=$SECONDS
wait_for 15 "fared's hold timer to expire" \
	grep -q "neighbor $B4 (plane 1): sent NOTIFICATION 4/0" "$FARED_LOG"
took=$((SECONDS - start))
[ "$(fared_state $B4)" != Established ] || fail "still Established"
fared_field $B4 last_error | grep -q "NOTIFICATION 4/0" ||
	fail "last error: $(fared_field $B4 last_error)"
fared_has_route 10.202.1.0/24 && fail "routes kept after a hold timer expiry"
echo "ok: hold timer expired after ~${took}s, NOTIFICATION 4/0, routes gone"
kill -CONT "$BIRD_PID"
wait_for 30 "the session to come back" fared_established $B4
wait_for 10 "the routes to come back" fared_has_route 10.202.1.0/24
echo "ok: session re-established after SIGCONT"
