#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# FIB-Suppress (mpson-00 §4.2.1) through a fared leaf and a fared spine,
# chain of suppress-lib.sh: the leaf (a 4-octet AS) tags the RNIC's host
# route X with FIB-Suppress(AS_TRANS 23456, its router id) when passing it
# on; the spine ("fib-suppress honour") keeps X in its RIB and passes it
# on with the community, but would not program it (no next hop in its
# explanation), while the aggregate it would; the observer gets X with
# the community's bytes. A fared host behind the spine (h2, "fib-suppress
# honour") suppresses X too, but not once it asks for X by ORF ("orf
# add"), and again when it no longer does. Without "honour" the spine
# programs X again.
set -uo pipefail
L_AS=4200000001
EXTRA_FAREDS=h2
. "$(dirname "$0")/suppress-lib.sh"
EXTRA_NS=$PFX-h2

SPINE_EXTRA="interface eth-h2 bandwidth 100G
plane 3 {
	neighbor 10.210.4.2 {
		remote-as 65300
		interface eth-h2
		import all
		export all
	}
}"
chain_extra()
{
	ip netns add "$PFX-h2" || chain_fail "netns add h2"
	ip -n "$PFX-h2" link set lo up
	link "$NS_S" eth-h2 10.210.4.1/24 "$PFX-h2" eth-s 10.210.4.2/24
	cat >"$DIR/h2.conf" <<EOC
router-id 10.210.0.30
local-as 65300
hold-time 30
connect-retry 1
control-socket $DIR/h2.sock
state-file $DIR/h2.state
role host
fib-suppress honour
interface eth-s bandwidth 100G
policy all {
	permit 10.0.0.0/8 le 32
}
policy nothing {
	deny any
}
plane 1 {
	neighbor 10.210.4.1 {
		remote-as 65100
		interface eth-s
		import all
		export nothing
	}
}
EOC
	fared_start h2
}
h2_x() { ctl_at h2 routes json "$X" | jq -r ".[0]$1"; }
h2_x_is() { [ "$(h2_x "$1")" = "$2" ]; }

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
fare_expect_planes "the spine's $A" "$NS_S" "$A" 1
fare_expect_planes "the spine's $X" "$NS_S" "$X" ""
echo "ok: the spine keeps $X in BGP, not in fare.ko; $A is programmed"

# The leaf tags what it passes on, not its own RIB path from the RNIC.
[ "$(ctl_at l routes json "$X" | jq -r '.[0].fib_suppress // "none"')" = none ] ||
	chain_fail "the leaf's own path from the RNIC carries FIB-Suppress"

# The host: X in its RIB, suppressed; asked for by ORF, programmed.
wait_for 60 "h2 learns $X" h2_x_is ".paths | length" 1
[ "$(h2_x .suppressed)" = true ] || chain_fail "h2 does not suppress $X"
[ "$(h2_x '.nexthops | length')" = 0 ] || chain_fail "h2 would program $X"
fare_expect_planes "h2's $X (suppressed)" "$EXTRA_NS" "$X" ""
[ "$(ctl_at h2 orf add "$X")" = ok ] || chain_fail "orf add"
wait_for 30 "h2 to program $X it asks for" h2_x_is ".nexthops | length" 1
fare_expect_planes "h2's $X (asked for by ORF)" "$EXTRA_NS" "$X" 1
h2_x .fib_suppress | grep -q "asked for by ORF" ||
	chain_fail "h2 does not explain why it keeps $X"
[ "$(ctl_at h2 orf del "$X")" = ok ] || chain_fail "orf del"
wait_for 30 "h2 to suppress $X again" h2_x_is ".suppressed" true
[ "$(h2_x '.nexthops | length')" = 0 ] || chain_fail "h2 still programs $X"
fare_expect_planes "h2's $X (suppressed again)" "$EXTRA_NS" "$X" ""
echo "ok: a host suppresses $X unless it asks for it by ORF"

# Without "honour" the spine programs X.
sed -i '/fib-suppress honour/d' "$DIR/s.conf"
kill -HUP "${PIDS[fared-s]}"
spine_programs_x()
{
	[ "$(ctl_at s routes json "$X" | jq -r '.[0].nexthops | length')" = 1 ]
}
wait_for 30 "the spine to program $X again" spine_programs_x
fare_expect_planes "the spine's $X without honour" "$NS_S" "$X" 1
ctl_at s routes json "$X" | jq -r '.[0].fib_suppress' |
	grep -q "not honoured" || chain_fail "explanation without honour"
echo "ok: without \"fib-suppress honour\" the spine programs $X"

stop_all_clean
echo "ok: every fared under valgrind, no error, no leak"
