#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A peer that stops reading (RFC 9687): a raw peer with a tiny receive
# buffer reads nothing after Established while fared exports 4000 routes
# to it. With the test-only "test-send-hold-time 3" the send hold timer
# ends that session (NOTIFICATION 8/0); then, with the RFC's 8 minutes and
# "send-buffer-limit 65536", the bound on fared's queue ends it. fared's
# single loop never blocks: BIRD's session stays Established, unflapped,
# with its routes both ways, and fared keeps answering its control socket.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ROUTES=4000

conf()
{
	write_fared_conf "$1
$(for i in $(seq 0 $((ROUTES - 1))); do
	echo "originate 10.203.$((i / 250 + 1)).$((i % 250 + 1))/32"
done)" "	neighbor $R4 {
		remote-as 65003
		passive
		import in
		export out
	}"
}

conf "test-send-hold-time 3"
setup_net
# Small socket buffers on fared's side too, so that 4000 UPDATEs cannot
# all hide in the kernel.
ip netns exec "$NS_F" sysctl -qw net.ipv4.tcp_wmem="4096 16384 16384" ||
	fail "tcp_wmem"
BIRD_F4_EXTRA="passive on;"
write_bird_conf
start_bird
start_fared
wait_for 20 "fared Established with BIRD" fared_established $B4
wait_for 10 "BIRD Established" bird_established fared4
wait_for 20 "fared's $ROUTES routes in BIRD" \
	bird_has_route 10.203.16.250/32 fared4
note_second_session

hostile silent 4096 || fail "the silent peer's checks"
grep -q "neighbor $R4 (plane 1): sent NOTIFICATION 8/0" "$FARED_LOG" ||
	fail "no NOTIFICATION 8/0 (send hold timer) in fared's log"
fared_field $R4 last_error | grep -q "NOTIFICATION 8/0" ||
	fail "last error: $(fared_field $R4 last_error)"
second_session_intact 10.203.16.250/32
echo "ok: the send hold timer ended the session of a peer that reads nothing"

# The bound on the queue, with RFC 9687's own send hold time (8 min).
conf "send-buffer-limit 65536"
kill -HUP "$FARED_PID"
wait_for 10 "the reload" grep -q "reload: .*neighbors" "$FARED_LOG"
hostile silent 4096 || fail "the silent peer's checks (buffer bound)"
grep -q "neighbor $R4 (plane 1): session down: send buffer limit reached" \
	"$FARED_LOG" || fail "the send buffer limit did not end the session"
second_session_intact 10.203.16.250/32
echo "ok: the send buffer limit ended it the second time"
echo "ok: BIRD's session and routes untouched throughout"
