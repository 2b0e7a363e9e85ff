#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# On a kernel without TCP-AO (Debian's 6.1 and 6.12 both leave it out), a
# fared.conf that asks for TCP-AO is refused, with FILE:LINE and the
# reason, never run unauthenticated:
#  - "fared -n" and a fared starting with it exit 1 with the message, and
#    nothing listens on port 179;
#  - a running fared (TCP-MD5, which these kernels have) keeps its
#    configuration when a SIGHUP brings in TCP-AO.
# tests/run-all runs it in the 6.1 and 6.12 guests; tests/bgp/run does not
# discover it (a host kernel may have TCP-AO).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

# A kernel without TCP-AO, asked directly (not through fared's own probe).
python3 - <<'EOP' || fail "this kernel has TCP-AO: run this scenario on one without"
import errno, socket, sys
s = socket.socket()
try:
	s.getsockopt(socket.IPPROTO_TCP, 40, 128)	# TCP_AO_INFO
	sys.exit(1)
except OSError as e:
	sys.exit(e.errno != errno.ENOPROTOOPT)
EOP
echo "ok: $(uname -r) lacks TCP-AO (getsockopt TCP_AO_INFO: ENOPROTOOPT)"

setup_net
write_fared_conf
chmod 0600 "$DIR/fared.conf"
sed -i "s/^\t\tremote-as $B_AS\$/&\n\t\tpassword md5-key/" "$DIR/fared.conf"
cp "$DIR/fared.conf" "$DIR/md5.conf"
sed -i "0,/password md5-key/s//tcp-ao send-id 1 recv-id 1 secret ao-key/" \
	"$DIR/fared.conf"
line=$(grep -n "tcp-ao send-id" "$DIR/fared.conf" | cut -d: -f1)
want="$DIR/fared.conf:$line: neighbor $B4: tcp-ao: this kernel lacks TCP-AO"

out=$(ip netns exec "$NS_F" "$FARED" -n -c "$DIR/fared.conf" 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "fared -n exited $rc: $out"
grep -qF "$want" <<<"$out" || fail "fared -n said: $out"
echo "ok: fared -n refuses it: $(grep -F "$want" <<<"$out")"

ip netns exec "$NS_F" timeout 20 "$FARED" -c "$DIR/fared.conf" >"$FARED_LOG" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "fared started with it exited $rc"
grep -qF "$want" "$FARED_LOG" || fail "fared's start: no \"$want\""
ip netns exec "$NS_F" ss -Hltn | grep -q ':179\b' && fail "something listens on 179"
echo "ok: fared refuses to start with it (exit 1), nothing listens"

cp "$DIR/fared.conf" "$DIR/ao.conf"
cp "$DIR/md5.conf" "$DIR/fared.conf"
start_fared
wait_for 10 "fared's control socket" test -S "$CTL"
cp "$DIR/ao.conf" "$DIR/fared.conf"
kill -HUP "$FARED_PID"
wait_for 10 "fared refuses the reload" grep -q "reload: .*keeping the running configuration" "$FARED_LOG"
grep -qF "$want" "$FARED_LOG" || fail "the reload: no \"$want\""
kill -0 "$FARED_PID" || fail "fared died on the reload"
[ "$(ctl neighbors json | jq length)" = 2 ] || fail "fared lost its neighbors"
echo "ok: a reload that brings in TCP-AO is refused; fared keeps running"
