#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Graceful restart (RFC 4724) both ways.
#  1. fared killed with SIGKILL while the peer side pings a prefix fared
#     originates: BIRD keeps the route (helper), the kernel keeps
#     forwarding, fared restarts with the R bit, re-advertises, sends
#     End-of-RIB; BIRD never deletes the route and no ping is lost.
#  2. BIRD restarts gracefully: fared keeps BIRD's routes stale (helper),
#     then sweeps the stale marks on BIRD's End-of-RIB.
#  3. fared restarted with SIGTERM (graceful-restart configured): no
#     NOTIFICATION, BIRD keeps the route, fared comes back restarting.
#  4. SIGINT: fared stops for good; BIRD drops the route.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf
bringup
kroute()
{
	ip -n "$NS_B" route show 10.203.0.0/24 | grep -q "via $F4"
}
wait_for 10 "BIRD installs 10.203.0.0/24" kroute
start_route_monitor "$NS_B" "$DIR/monitor.log"
ip netns exec "$NS_B" ping -n -i 0.1 -W 1 10.203.0.1 >"$DIR/ping.log" 2>&1 &
ping=$!
sleep 1

kill -9 "$FARED_PID"
wait "$FARED_PID" 2>/dev/null
FARED_PID=
gr_active()
{
	birdc_ show protocols all fared4 | grep -q "Neighbor graceful restart active"
}
wait_for 10 "BIRD to enter graceful restart (helper)" gr_active
bird_has_route 10.203.0.0/24 fared4 || fail "BIRD dropped the route at once"
sleep 2
kroute || fail "the kernel route went while fared was down"
start_fared
wait_for 20 "fared back" fared_established $B4
grep -q "restarting: graceful restart" "$FARED_LOG" ||
	fail "fared did not start as a restarting speaker"
wait_for 20 "BIRD to end graceful restart" bash -c "! birdc -s $BIRD_SOCK show protocols all fared4 | grep -q 'graceful restart active'"
[ "$(fared_field $B4 eor_sent)" = 1 ] || fail "no End-of-RIB sent after restart"
bird_has_route 10.203.0.0/24 fared4 || fail "route missing after the restart"
sleep 1
kill -INT "$ping"
wait "$ping" 2>/dev/null
stop_route_monitor
grep -E "^Deleted .*10\.203\.0\.0/24" "$DIR/monitor.log" &&
	fail "the kernel route flapped in BIRD's namespace"
stats=$(grep "packets transmitted" "$DIR/ping.log")
sent=$(echo "$stats" | awk '{print $1}')
recv=$(echo "$stats" | awk '{print $4}')
[ -n "$sent" ] && [ "$sent" -gt 20 ] || fail "ping: $stats"
[ "$sent" = "$recv" ] || fail "ping lost packets across the restart: $stats"
echo "ok: fared SIGKILLed and restarted: no route delete in BIRD's kernel" \
	"table, ping $recv/$sent"

# 2. BIRD restarts gracefully; fared helps.
wait_for 10 "fared has 10.202.1.0/24" fared_has_route 10.202.1.0/24
birdc_ graceful restart >/dev/null
wait "$BIRD_PID" 2>/dev/null
BIRD_PID=
stale()
{
	[ "$(ctl routes json 10.202.1.0/24 | jq -r '.[0].paths[0].stale')" = "$1" ]
}
wait_for 10 "fared to keep BIRD's routes stale" stale true
[ "$(fared_field $B4 stale_families)" = 1 ] || fail "stale families"
start_bird -R
wait_for 30 "BIRD back" fared_established $B4
wait_for 10 "stale marks swept on End-of-RIB" stale false
grep -q "neighbor $B4 (plane 1): .* stale routes\? swept (End-of-RIB)" \
	"$FARED_LOG" || fail "no sweep on End-of-RIB in fared's log"
[ "$(fared_field $B4 stale_families)" = 0 ] || fail "stale families left"
echo "ok: BIRD restarted gracefully: fared kept its routes stale, swept on EoR"

# 3. A planned restart (fared.8, RESTART): SIGTERM with graceful-restart.
#    BIRD 2.0 sends no RFC 8538 N bit, so fared closes the session without
#    a NOTIFICATION; BIRD keeps fared's route stale, the kernel route in
#    BIRD's namespace never goes, and fared comes back with the R bit
#    (its state file kept).
wait_for 20 "fared and BIRD Established" fared_established $B4
kroute || fail "no kernel route before the planned restart"
start_route_monitor "$NS_B" "$DIR/monitor3.log"
restarts=$(grep -c "restarting: graceful restart" "$FARED_LOG")
kill -TERM "$FARED_PID"
rc=0
wait "$FARED_PID" || rc=$?
FARED_PID=
[ $rc -eq 0 ] || fail "fared exited $rc on SIGTERM"
grep -q "session down: fared restarting: closed without NOTIFICATION" \
	"$FARED_LOG" || fail "fared did not leave the session gracefully"
[ -f "$DIR/fared.state" ] || fail "the state file went at a restart"
wait_for 10 "BIRD to enter graceful restart (helper)" gr_active
bird_has_route 10.203.0.0/24 fared4 || fail "BIRD dropped the route at once"
start_fared
wait_for 20 "fared back" fared_established $B4
[ "$(grep -c "restarting: graceful restart" "$FARED_LOG")" -gt "$restarts" ] ||
	fail "fared did not start as a restarting speaker after SIGTERM"
wait_for 20 "BIRD to end graceful restart" bash -c "! birdc -s $BIRD_SOCK show protocols all fared4 | grep -q 'graceful restart active'"
bird_has_route 10.203.0.0/24 fared4 || fail "route missing after the restart"
stop_route_monitor
grep -E "^Deleted .*10\.203\.0\.0/24" "$DIR/monitor3.log" &&
	fail "the kernel route flapped in BIRD's namespace"
echo "ok: SIGTERM with graceful-restart: BIRD kept fared's route, no delete"

# 4. SIGINT stops for good: a Cease, and BIRD withdraws the route.
kill -INT "$FARED_PID"
rc=0
wait "$FARED_PID" || rc=$?
FARED_PID=
[ $rc -eq 0 ] || fail "fared exited $rc on SIGINT"
[ ! -f "$DIR/fared.state" ] || fail "the state file stayed after SIGINT"
wait_for 10 "BIRD to drop fared's route" bash -c "! birdc -s $BIRD_SOCK show route for 10.203.0.0/24 protocol fared4 | grep -q 10.203.0.0/24"
echo "ok: SIGINT: Cease sent, BIRD dropped fared's route"
