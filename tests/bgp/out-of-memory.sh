#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Out of memory while recording a change (issue 26 defect 8): fared does
# not run on with a RIB that no longer says what its peers sent (before,
# it logged "UPDATE treated as withdraw" and went on without the routes).
# It leaves as for a restart and exits 75, for its unit to restart it:
# its graceful-restart peers keep its routes meanwhile, and the next fared
# gets everything again. The RIB's first allocation after start fails
# (FARED_FAULT_RIB_ALLOC=1, a test hook): the first UPDATE's attributes,
# which BIRD sends once both sessions are up (its static routes enabled
# only then).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

setup_net
write_fared_conf
write_bird_conf
# BIRD's routes come only once both sessions are up and BIRD has fared's:
# the first UPDATE with attributes then meets the failing allocation.
sed -i 's/^protocol static \(s4\|s4b\|s6\) {$/&\n\tdisabled;/' "$DIR/bird.conf"
[ "$(grep -c "^	disabled;" "$DIR/bird.conf")" = 3 ] ||
	fail "BIRD's static protocols are not all disabled"
start_bird
FARED_FAULT_RIB_ALLOC=1 start_fared
wait_for 20 "fared sees the IPv4 session Established" fared_established $B4
wait_for 20 "fared sees the IPv6 session Established" fared_established $B6
wait_for 10 "BIRD has fared's 10.203.0.0/24" bird_has_route 10.203.0.0/24 fared4
wait_for 10 "BIRD has fared's fd00:203::/48" bird_has_route fd00:203::/48 fared6
birdc_ enable s4 >/dev/null || fail "birdc enable s4"
exited() { ! kill -0 "$FARED_PID" 2>/dev/null; }
wait_for 30 "fared to exit after the failed allocation" exited
rc=0
wait "$FARED_PID" || rc=$?
FARED_PID=
[ "$rc" = 75 ] || fail "fared exited $rc, not 75"
grep -q "out of memory (an UPDATE's attributes): leaving for a restart" \
	"$FARED_LOG" || fail "no out-of-memory line in fared's log"
echo "ok: out of memory: fared left for a restart, exit status 75"
# BIRD keeps fared's routes (graceful restart), as for any restart.
for r in "10.203.0.0/24 fared4" "fd00:203::/48 fared6"; do
	# shellcheck disable=SC2086
	bird_has_route $r ||
		fail "BIRD dropped fared's ${r% *}: fared did not leave as for a restart"
done
echo "ok: BIRD keeps fared's routes meanwhile"
birdc_ enable s4b >/dev/null && birdc_ enable s6 >/dev/null ||
	fail "birdc enable s4b, s6"
start_fared
wait_for 30 "the next fared Established" fared_established $B4
wait_for 10 "the next fared has BIRD's 10.202.1.0/24" fared_has_route 10.202.1.0/24
wait_for 10 "the next fared has BIRD's 10.202.2.0/24" fared_has_route 10.202.2.0/24
echo "ok: the next fared has every route again"
