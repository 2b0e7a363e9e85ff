#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A route that grows past a neighbor's maximum message size is withdrawn
# there (RFC 8654 §4), not left at its old version. fared is a spine
# between two BIRDs: the leaf (B4, extended messages on) originates
# 10.202.1.0/24, fared passes it on to the far BIRD (R4, no extended
# messages). The leaf then prepends 1100 ASes: fared gets the route in
# an extended message but cannot pass it on in 4096 octets. The far
# BIRD must lose the route, with no session flapping.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

PFX=$SPINE_PFX

setup_net
spine_conf
# leaf_conf [N]: the leaf's BIRD, its route exported with N ASes
# prepended (an AS_PATH that only an extended message carries).
leaf_conf()
{
	local prepend=""

	[ -z "${1:-}" ] ||
		prepend=$(for _ in $(seq "$1"); do printf 'bgp_path.prepend(65010); '; done)
	spine_leaf_conf "" "enable extended messages on;" \
		"export filter { if source != RTS_STATIC then reject; $prepend accept; };"
}
leaf_conf
# fared has the grown route: 1100 prepended ASes and the leaf's.
fared_has_grown()
{
	[ "$(ctl routes json "$PFX" | jq -r '.[0].paths[0].as_path' | wc -w)" -gt 1100 ]
}

spine_start
since=$(far_since)

leaf_conf 1100
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "fared to get the grown route" fared_has_grown
wait_for 10 "the far BIRD to lose $PFX, now too large for it" far_lacks
grep -q "$PFX not advertised: its UPDATE would exceed the session's 4096-byte" \
	"$FARED_LOG" || fail "fared did not log the route it could not send"
far_kept_session "$since"
fared_established $B4 || fail "the leaf's session dropped"
echo "ok: a route grown past 4096 octets is withdrawn at the far BIRD"

# Short again: passed on again.
leaf_conf
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 10 "the far BIRD to get $PFX back" far_has
echo "ok: back within 4096 octets, it is passed on again"
