#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 100 session flaps (BIRD restarts the session) with fared under valgrind:
# every flap must come back Established with its routes, and fared must
# exit cleanly with no error and no leaked byte.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

FLAPS=${FBGP_FLAPS:-100}
fared_under_valgrind
# BIRD waits for fared to connect: when both sides connect at once, the
# connection that loses the race may end an Established session (RFC 4724
# §8 treats a new connection from a graceful restart peer as a restart),
# which would add flaps this test does not count.
BIRD_F4_EXTRA="passive on;"
write_fared_conf
bringup

for i in $(seq 1 "$FLAPS"); do
	birdc_ restart fared4 >/dev/null || fail "birdc restart"
	wait_for 20 "flap $i to be seen" \
		test "$(fared_field $B4 flaps)" -ge "$i"
	wait_for 30 "flap $i to come back" fared_established $B4
	wait_for 10 "flap $i routes" fared_has_route 10.202.1.0/24
done
[ "$(fared_field $B4 flaps)" = "$FLAPS" ] ||
	fail "flaps counted: $(fared_field $B4 flaps), want $FLAPS"
fared_established $B6 || fail "the IPv6 session suffered"
stop_fared_clean
echo "ok: $FLAPS flaps under valgrind, no error, no leak"
