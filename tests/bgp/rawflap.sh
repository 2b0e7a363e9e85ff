#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Session flaps from a raw peer: FARE_FLAPS times (20 by default; 1000 by
# hand) it connects, reaches Established, sends 10 routes and resets the
# session with Cease 6/4. Meanwhile BIRD's session must neither flap nor
# lose a route, and at the end fared's RSS must be back near where it was
# and the raw peer's paths gone.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

FLAPS=${FARE_FLAPS:-20}

write_fared_conf "policy raw {
	permit 100.64.0.0/10 le 32
}" "	neighbor $R4 {
		remote-as 65003
		passive
		import raw
		export out
	}"
bringup
wait_for 10 "BIRD's route in fared" fared_has_route 10.202.1.0/24
wait_for 10 "fared's route in BIRD" bird_has_route 10.203.0.0/24 fared4
SINCE=$(bird_since fared4)
# A collision at start may have cost a flap already; none from now on.
B4_FLAPS=$(fared_field $B4 flaps)
RSS0=$(fared_rss_kib)

start=$SECONDS
hostile flaps "$FLAPS" || fail "the raw peer's flaps"
echo "flaps: $FLAPS in $((SECONDS - start)) s"
r4_flaps() { [ "$(fared_field $R4 flaps)" = "$FLAPS" ]; }
wait_for 10 "fared to count $FLAPS flaps" r4_flaps
[ "$(fared_field $R4 paths)" = 0 ] || fail "the raw peer's paths stayed"
RSS1=$(fared_rss_kib)
echo "ok: RSS before the flaps $RSS0 KiB, after them $RSS1 KiB"
[ $((RSS1 - RSS0)) -lt $((8 * 1024)) ] || fail "RSS grew by $((RSS1 - RSS0)) KiB"
bird_kept_session fared4 "$SINCE"
[ "$(fared_field $B4 flaps)" = "$B4_FLAPS" ] || fail "fared counts B4 flaps"
fared_has_route 10.202.1.0/24 || fail "BIRD's route left fared"
bird_has_route 10.203.0.0/24 fared4 || fail "fared's route left BIRD"
echo "ok: $FLAPS raw-peer flaps; BIRD's session and routes untouched"
