#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# max-prefix (RFC 4486) against a raw peer that floods 1M /32s while BIRD
# keeps its sessions: the peer gets Cease 6/1 with AFI, SAFI and the
# limit, its routes go, fared's RSS comes back near where it was, the
# neighbor is held Idle (a reconnection gets Cease 6/5) until "farectl bgp
# clear"; with "restart SECONDS" it is let back by itself (20 s: the
# checks in between must not outlast it on a loaded machine). BIRD's session
# never flaps and its route stays in fared, fared's in BIRD.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

FLOOD=${FBGP_FLOOD:-1000000}
LIMIT=10000

conf()
{
	write_fared_conf "policy raw {
	permit 100.64.0.0/10 le 32
}" "	neighbor $R4 {
		remote-as 65003
		passive
		max-prefix $LIMIT $1
		import raw
		export out
	}"
}

r4_is() { [ "$(fared_field $R4 "$1")" = "$2" ]; }

idle_after_flood()
{
	local rss0=$1 rss1

	hostile flood "$FLOOD" $LIMIT || fail "the flood's checks"
	wait_for 10 "fared to hold $R4 Idle" r4_is max_prefix.state idle
	[ "$(fared_state $R4)" = Idle ] || fail "state $(fared_state $R4)"
	[ "$(fared_field $R4 paths)" = 0 ] || fail "the flood's paths stayed"
	[ "$(ctl routes json 100.64.0.1/32 | jq length)" = 0 ] ||
		fail "a flooded route stayed in the RIB"
	fared_field $R4 last_error | grep -q "NOTIFICATION 6/1" ||
		fail "last error: $(fared_field $R4 last_error)"
	rss1=$(fared_rss_kib)
	echo "ok: RSS before the flood $rss0 KiB, after it $rss1 KiB" \
		"($(( (rss1 - rss0) / 1024 )) MiB more)"
	# 1M paths take 230 MiB (measured); the limit's 10k, gone, nothing.
	[ $((rss1 - rss0)) -lt $((4 * 1024)) ] ||
		fail "RSS grew by $((rss1 - rss0)) KiB"
	second_session_intact 10.203.0.0/24
}

conf ""
BIRD_F4_EXTRA="passive on;"
bringup
wait_for 10 "BIRD's route in fared" fared_has_route 10.202.1.0/24
wait_for 10 "fared's route in BIRD" bird_has_route 10.203.0.0/24 fared4
note_second_session
RSS0=$(fared_rss_kib)

idle_after_flood "$RSS0"
"$FARECTL" bgp -s "$CTL" neighbors
"$FARECTL" bgp -s "$CTL" clear $R4 | grep -q "cleared" ||
	fail "farectl bgp clear"
hostile_bg connect 20
wait_for 20 "$R4 Established after the clear" fared_established $R4
wait_for 10 "its 10 routes" r4_is paths 10
[ "$(fared_field $R4 max_prefix.state)" = ok ] || fail "state not ok"
echo "ok: held Idle until farectl bgp clear, then Established again"
hostile_stop

# restart SECONDS: let back by itself. A max-prefix change keeps the
# session; the reload ends no Idle here (there is none).
conf "restart 20"
kill -HUP "$FARED_PID"
wait_for 10 "the reload" grep -q "reload: .*neighbors" "$FARED_LOG"
[ "$(fared_field $R4 max_prefix.restart_s)" = 20 ] || fail "not reloaded"
idle_after_flood "$RSS0"
hostile_bg connect 40
wait_for 40 "$R4 Established after the restart time" fared_established $R4
echo "ok: let back after max-prefix restart 20"
hostile_stop

# warning-only: logs once, keeps the session and the routes.
conf "warning-only"
kill -HUP "$FARED_PID"
wait_for 10 "the second reload" r4_is max_prefix.warning_only true
hostile_bg flood 12000 0
wait_for 20 "all 12000 paths past the limit" r4_is paths 12000
[ "$(fared_field $R4 max_prefix.state)" = exceeded ] || fail "not exceeded"
wait "$HOSTILE_PID" || fail "the warning-only flood's checks"
[ "$(grep -c "past max-prefix $LIMIT (warning-only)" "$FARED_LOG")" = 1 ] ||
	fail "warning-only did not log exactly once"
echo "ok: warning-only: 12000 paths kept, logged once"
second_session_intact 10.203.0.0/24
echo "ok: BIRD's session and routes untouched throughout"
