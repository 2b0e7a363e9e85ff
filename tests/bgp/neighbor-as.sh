#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The neighbor-AS check (RFC 4271 §6.3, on by default as in OpenBGPD): an
# eBGP route whose AS_PATH does not begin with the neighbor's AS is
# treated as withdrawn (RFC 7606 §7.2), so that an empty AS_PATH cannot
# make a route look shorter than every other. fared is a spine between
# the raw peer (R4, AS 65003) and BIRD (B4). The raw peer sends
# 100.64.0.2/32 with AS_PATH 65003, then 100.64.0.3/32 with an empty one:
# BIRD must get the first from fared and never the second, and the raw
# peer's session stays up. With "enforce-neighbor-as no" (a reload: a new
# session) the second is passed on too.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

setup_net
raw_spine_conf
raw_spine_bird fared4 leaf
wait_for 10 "BIRD Established" bird_established fared4

hostile_bg speak v4 100.64.0.2/32 ibgp v4 100.64.0.3/32
wait_for 20 "the raw peer Established" fared_established $R4
wait_for 10 "100.64.0.2/32 passed on to BIRD" \
	bird_has_route 100.64.0.2/32 fared4
# The empty-path route came right behind it: give it time to get through.
r4_updates_at_least() { [ "$(fared_field $R4 updates_rx)" -ge "$1" ]; }
wait_for 10 "fared to receive the raw peer's second UPDATE" \
	r4_updates_at_least 2
sleep 2
bird_has_route 100.64.0.3/32 fared4 &&
	fail "BIRD got 100.64.0.3/32, whose AS_PATH is empty, from fared"
fared_established $R4 || fail "the raw peer's session dropped"
echo "ok: a route with an empty AS_PATH from an eBGP neighbor is not passed on"
hostile_stop

r4_down() { ! fared_established $R4; }
wait_for 10 "fared to see the raw peer go" r4_down
raw_spine_conf "enforce-neighbor-as no"
kill -HUP "$FARED_PID"
hostile_bg speak v4 100.64.0.2/32 ibgp v4 100.64.0.3/32
wait_for 20 "100.64.0.3/32 passed on to BIRD with enforce-neighbor-as no" \
	bird_has_route 100.64.0.3/32 fared4
hostile_stop
echo "ok: enforce-neighbor-as no lets it through"
