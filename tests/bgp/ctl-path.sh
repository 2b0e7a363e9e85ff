#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fared replaces nothing at its control-socket path but a dead fared's
# socket (issue 26 §3; fared.8, CONTROL SOCKET):
#   - a regular file there: fared exits 1 saying so, the file keeps its
#     content and no state file was written
#   - a symbolic link there: the same, the link and its target intact
#   - a socket a running fared answers on: a second fared with the same
#     file exits 1; the first one's socket still answers and the state
#     file still holds the first one's pid
#   - a socket nobody answers on (its fared was killed with SIGKILL): a
#     new fared takes the path and its sessions come up
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf
setup_net
write_bird_conf
start_bird

fared_gone() { ! kill -0 "$FARED_PID" 2>/dev/null; }

# refused WHAT MESSAGE: fared, started now, exits 1 with MESSAGE logged.
refused()
{
	local rc=0

	start_fared
	wait_for 10 "$1: fared to exit" fared_gone
	wait "$FARED_PID" || rc=$?
	FARED_PID=
	[ $rc -eq 1 ] || fail "$1: fared exited $rc, expected 1"
	grep -q "$2" "$FARED_LOG" || fail "$1: no \"$2\" in fared's log"
	echo "ok: $1: fared exited 1: $(grep "$2" "$FARED_LOG" | tail -n 1)"
}

echo "an operator's notes" >"$CTL"
refused "a regular file at the path" "exists and is not a socket"
[ "$(cat "$CTL")" = "an operator's notes" ] || fail "the file was changed"
[ -e "$DIR/fared.state" ] && fail "the refused fared wrote its state file"
echo "ok: the file is intact, no state file"
rm "$CTL"

echo "a target" >"$DIR/target"
ln -s "$DIR/target" "$CTL"
refused "a symbolic link at the path" "exists and is not a socket"
[ -L "$CTL" ] && [ "$(cat "$DIR/target")" = "a target" ] ||
	fail "the link or its target was changed"
echo "ok: the link and its target are intact"
rm "$CTL"

start_fared
first=$FARED_PID
wait_for 20 "the first fared's session" fared_established $B4
: >"$FARED_LOG"
refused "a running fared's socket" "another fared answers there"
FARED_PID=$first
kill -0 "$first" || fail "the first fared is gone"
fared_established $B4 || fail "the first fared's socket does not answer"
[ "$(cat "$DIR/fared.state")" = "$first" ] ||
	fail "the state file holds \"$(cat "$DIR/fared.state")\", not $first"
echo "ok: the first fared still answers and its state file is intact"

kill -9 "$first"
wait "$first" 2>/dev/null
[ -S "$CTL" ] || fail "no stale socket left by SIGKILL"
start_fared
wait_for 30 "a new fared on the stale socket's path" fared_established $B4
echo "ok: a dead fared's socket is replaced"
