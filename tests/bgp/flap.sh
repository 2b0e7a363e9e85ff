#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Session flaps (BIRD restarts the session) with fared under valgrind:
# every flap must come back Established with its routes, and fared must
# exit cleanly with no error and no leaked byte. 20 flaps by default (CI):
# each takes the same path through fared, and 20 already repeat every
# allocation of a session's life many times over for valgrind; the
# 1,000-flap soak is bench/run-flap-soak (FBGP_FLAPS=N sets the count).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

FLAPS=${FBGP_FLAPS:-20}
fared_under_valgrind
# BIRD waits for fared to connect: when both sides connect at once, the
# connection that loses the race may end an Established session (RFC 4724
# §8 treats a new connection from a graceful restart peer as a restart),
# which would add flaps this test does not count.
BIRD_F4_EXTRA="passive on;"
write_fared_conf
bringup

# Each flap is judged by BIRD: its session changed state (its "since"
# moved), is Established again, and holds fared's route anew (BIRD flushes
# what fared sent when it restarts the protocol, so only fared's export on
# the new session brings it back). BIRD's route in fared could be the
# stale copy graceful restart keeps, so it proves less.
bird_back_since()
{
	local now

	now=$(bird_since fared4)
	[ -n "$now" ] && ! same_since "$now" "$1" && bird_established fared4 &&
		bird_has_route 10.203.0.0/24 fared4
}
wait_for 10 "fared's route in BIRD" bird_has_route 10.203.0.0/24 fared4
for i in $(seq 1 "$FLAPS"); do
	since=$(bird_since fared4)
	[ -n "$since" ] || fail "BIRD shows no time for fared4"
	birdc_ restart fared4 >/dev/null || fail "birdc restart"
	wait_for 30 "flap $i: BIRD Established again with fared's route" \
		bird_back_since "$since"
	wait_for 30 "flap $i to come back in fared" fared_established $B4
	wait_for 10 "flap $i routes" fared_has_route 10.202.1.0/24
done
# fared's own count must agree with the FLAPS BIRD went through.
[ "$(fared_field $B4 flaps)" = "$FLAPS" ] ||
	fail "flaps counted by fared: $(fared_field $B4 flaps), want $FLAPS"
fared_established $B6 || fail "the IPv6 session suffered"
stop_fared_clean
echo "ok: $FLAPS flaps under valgrind, no error, no leak"
