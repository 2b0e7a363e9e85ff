#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ADD-PATH's paths per prefix are capped (issue 26 §1 item 9): one peer
# cannot make a prefix's path array, copied on each change, as long as it
# likes. fared is a spine, under valgrind, with "add-path receive" (the
# default max-paths, 64) toward the raw peer (R4), which sends 5,000 paths
# (path ids 1..5,000) for 100.64.0.1/32 and then 100.64.0.2/32. fared must
# keep 64 paths of the first, log the cap once, keep the session up (the
# raw peer sees no NOTIFICATION) and still take the second, which BIRD
# then gets.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

N=5000
CAP=64
fared_under_valgrind
setup_net
raw_spine_conf "add-path receive"
raw_spine_bird far4 none
hostile_bg addpaths $N
wait_for 20 "the raw peer Established" fared_established $R4
wait_for 60 "BIRD gets 100.64.0.2/32, sent after the paths" \
	bird_has_route 100.64.0.2/32 far4
paths=$(ctl routes json 100.64.0.1/32 | jq '.[0].paths | length')
echo "fared holds $paths paths of 100.64.0.1/32"
[ "$paths" = $CAP ] || fail "$paths paths kept of $N, not the cap $CAP"
bird_has_route 100.64.0.1/32 far4 || fail "BIRD lacks 100.64.0.1/32"
sleep 3
fared_established $R4 || fail "the raw peer's session dropped"
[ "$(grep -c "neighbor $R4 .*more than add-path max-paths" "$FARED_LOG")" = 1 ] ||
	fail "the cap was not logged exactly once"
echo "ok: $CAP of $N paths kept, logged once, session up"
hostile_stop
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
