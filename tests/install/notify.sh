#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fared's systemd readiness protocol (Type=notify), as systemd would see it:
# a listener on the notification socket records every datagram fared sends.
# READY=1 must come once the configuration is loaded and fare.ko's planes
# exist (the listener reads fare.ko's planes when it arrives), RELOADING=1
# then READY=1 around a SIGHUP, STOPPING=1 on SIGTERM. A lab scenario: run
# in a guest by tests/lab/run, with FARED and FARECTL naming the programs.
set -eu
. "$(dirname "$0")/../lab/lib.sh"

LAB_DIR=$(mktemp -d /tmp/fare-notify.XXXXXX)
SOCK=$LAB_DIR/notify
LOG=$LAB_DIR/notify.log

load_fare
topo_planes 2

# One line per datagram; fare.ko's planes as farectl shows them when the
# first READY=1 arrives.
python3 - "$SOCK" "$LOG" "$FARECTL" "$LAB_DIR/planes-at-ready" <<'EOPY' &
import socket, subprocess, sys
sock, log, farectl, planes = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock)
ready = False
with open(log, "a") as f:
    while True:
        msg = s.recv(4096).decode()
        if "READY=1" in msg.split("\n") and not ready:
            ready = True
            with open(planes, "w") as p:
                subprocess.run([farectl, "-j", "-n", "host", "plane", "show"],
                               stdout=p, check=False)
        f.write(msg.replace("\n", " ") + "\n")
        f.flush()
EOPY
LAB_PIDS+=($!)
wait_until 10 test -S "$SOCK" || fail "the listener did not start"

NOTIFY_SOCKET=$SOCK fared_host_start 30 400G 2

saw() { grep -q -- "$1" "$LOG" 2>/dev/null; }
count() { grep -c -- "$1" "$LOG" 2>/dev/null || true; }

if wait_until 30 saw READY=1; then
	pass "fared sent READY=1"
	expect_eq "fare.ko's planes when READY=1 arrived" \
		"$(jq -r '[.[].id] | sort | join(" ")' "$LAB_DIR/planes-at-ready")" \
		"1 2"
else
	fail "no READY=1 from fared"
	cat "$LAB_DIR/fared.log"
fi

kill -HUP "$FARED_PID"
ready_twice() { [ "$(count READY=1)" -ge 2 ]; }
wait_until 30 ready_twice || true
expect_eq "notifications after SIGHUP" "$(tr '\n' ',' <"$LOG")" \
	"READY=1,RELOADING=1,READY=1,"

kill -TERM "$FARED_PID"
wait_until 30 saw STOPPING=1 || true
expect_eq "notifications after SIGTERM" "$(tail -n 1 "$LOG")" "STOPPING=1"
wait "$FARED_PID" || fail "fared exited with status $?"
expect_eq "farectl bgp after the stop" \
	"$("$FARECTL" bgp -s "$LAB_DIR/fared.sock" neighbors >/dev/null 2>&1 && echo answered || echo gone)" gone

lab_result
