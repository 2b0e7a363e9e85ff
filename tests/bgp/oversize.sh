#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A route that cannot be re-advertised: fared as a FARE spine (no fare.ko
# on the host) between a raw peer that negotiates extended messages
# (RFC 8654) and BIRD, which does not. The raw peer sends 100.64.0.1/32
# with an AS_PATH of 1100 4-octet ASes (an UPDATE past 4096 octets) and
# 100.64.0.2/32 with a short one. fared must log the first as not sent and
# pass the second on; BIRD's session must not flap and BIRD must hold the
# second route and not the first. A third route's AS_SET must reach BIRD
# whole (RFC 4271 §5.1.2), not cut to the path's §9.1.2.2 length.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

setup_net
raw_spine_conf
raw_spine_bird fared4 leaf "passive on;"
wait_for 10 "BIRD Established" bird_established fared4
wait_for 10 "BIRD's route in fared" fared_has_route 10.202.1.0/24
note_second_session
B4_NOTIFS=$(fared_field $B4 notifications_rx)
[[ $B4_NOTIFS =~ ^[0-9]+$ ]] || fail "notifications_rx: \"$B4_NOTIFS\""

hostile_bg oversize 1100
wait_for 20 "the raw peer Established" fared_established $R4
wait_for 10 "the long-path route in fared" fared_has_route 100.64.0.1/32
wait_for 10 "the short one passed on to BIRD" \
	bird_has_route 100.64.0.2/32 fared4
# The raw peer sends the AS_SET route after the other two; once BIRD has
# it, what fared made of the long one has reached BIRD too (one TCP
# stream; BIRD ends the session at once on a message past 4096 octets).
# BIRD's own "since" proves the absence of a flap: no fixed sleep.
wait_for 10 "100.64.0.3/32 passed on to BIRD" \
	bird_has_route 100.64.0.3/32 fared4
grep -q "100.64.0.1/32 not advertised: its UPDATE would exceed the session's 4096-byte" \
	"$FARED_LOG" || fail "fared did not log the route it could not send"
bird_has_route 100.64.0.1/32 fared4 && fail "BIRD got the oversized route"
[ "$(fared_field $B4 not_sent_too_large)" -ge 1 ] || fail "not counted"
fared_established $R4 || fail "the raw peer's session dropped"
second_session_intact 100.64.0.2/32
[ "$(fared_field $B4 notifications_rx)" = "$B4_NOTIFS" ] ||
	fail "BIRD complained"
echo "ok: an UPDATE past 4096 octets is logged, not sent, and no session drops"

# RFC 4271 §5.1.2: the AS_SET goes on whole behind fared's AS.
birdc_ show route for 100.64.0.3/32 all |
	grep -q "BGP.as_path: $F_AS 65003 {65005 65006}" ||
	fail "AS path at BIRD: $(birdc_ show route for 100.64.0.3/32 all |
		grep as_path)"
hostile_stop
echo "ok: an AS_SET is passed on whole"
