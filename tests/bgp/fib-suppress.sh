#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# FIB-Suppress (mpson-00 §4.2.1) through a fared leaf and a fared spine,
# chain of suppress-lib.sh: the leaf (a 4-octet AS) tags the RNIC's host
# route X with FIB-Suppress(AS_TRANS 23456, its router id) when passing it
# on; the spine ("fib-suppress honour") keeps X in its RIB and passes it
# on with the community, but would not program it (no next hop in its
# explanation), while the aggregate it would; the observer gets X with
# the community's bytes. Without "honour" the spine programs X again.
set -uo pipefail
L_AS=4200000001
. "$(dirname "$0")/suppress-lib.sh"

leaf_conf "fib-suppress tag"
start_chain
wait_for 60 "the observer gets $X" obs_has "$X"
obs_route "$X"

# 0x00 0x0f | 0x5ba0 (23456) | 10.210.0.1: BIRD shows an unknown
# two-octet-AS community as (unknown 0xSUB, AS, LOCAL).
FS="(unknown 0xf, 23456, $(( (10 << 24) | (210 << 16) | 1 )))"
obs_route "$X" | grep -qF "$FS" ||
	chain_fail "the observer's $X lacks FIB-Suppress $FS"
echo "ok: $X reaches the observer tagged $FS (AS_TRANS for a 4-octet AS)"
obs_route "$A" | grep -q "unknown 0xf," &&
	chain_fail "the aggregate $A is tagged, only host routes are"
echo "ok: the aggregate $A is not tagged"

# The spine: in its RIB, re-advertised, not programmed.
J=$(ctl_at s routes json "$X")
echo "$J"
[ "$(echo "$J" | jq -r '.[0].paths | length')" = 1 ] ||
	chain_fail "the spine's RIB lacks $X"
[ "$(echo "$J" | jq -r '.[0].suppressed')" = true ] ||
	chain_fail "the spine does not suppress $X"
echo "$J" | jq -r '.[0].fib_suppress' |
	grep -qF "suppressed (FIB-Suppress 23456:$L_ID)" ||
	chain_fail "the spine does not explain the suppression"
[ "$(echo "$J" | jq -r '.[0].nexthops | length')" = 0 ] ||
	chain_fail "the spine would program $X"
[ "$(ctl_at s routes json "$A" | jq -r '.[0].nexthops | length')" = 1 ] ||
	chain_fail "the spine would not program the aggregate $A"
ctl_at s routes "$X" | grep -q "fare: suppressed (FIB-Suppress 23456:$L_ID)" ||
	chain_fail "the text explanation lacks the suppression"
echo "ok: the spine keeps $X in BGP, not in fare.ko; $A is programmed"

# The leaf tags what it passes on, not its own RIB path from the RNIC.
[ "$(ctl_at l routes json "$X" | jq -r '.[0].fib_suppress // "none"')" = none ] ||
	chain_fail "the leaf's own path from the RNIC carries FIB-Suppress"

# Without "honour" the spine programs X.
sed -i '/fib-suppress honour/d' "$DIR/s.conf"
kill -HUP "${PIDS[fared-s]}"
spine_programs_x()
{
	[ "$(ctl_at s routes json "$X" | jq -r '.[0].nexthops | length')" = 1 ]
}
wait_for 30 "the spine to program $X again" spine_programs_x
ctl_at s routes json "$X" | jq -r '.[0].fib_suppress' |
	grep -q "not honoured" || chain_fail "explanation without honour"
echo "ok: without \"fib-suppress honour\" the spine programs $X"

stop_all_clean
echo "ok: both fareds under valgrind, no error, no leak"
