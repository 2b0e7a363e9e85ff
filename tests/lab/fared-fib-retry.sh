#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fared keeps fare.ko in step through refusals and reloads (issue 15 §3).
# The host of topo_planes 1 runs fared with fare.ko; its BIRD leaf
# advertises 198.51.100.1/32 .. 198.51.100.20/32. What fare.ko did is
# read from its own route table and event stream (farectl monitor).
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
#
#  1. fare.ko's route limit is 5 when fared starts: 5 routes go in, the
#     rest are refused; fared retries with backoff. The limit raised to
#     1000, fared resynchronises: all 20 routes in fare.ko, and none of
#     the first 5 was deleted on the way.
#  2. SIGHUP with an import policy that takes 198.51.100.0/28 only: the 5
#     routes past .15 are deleted, and no other route sees an event (the
#     old way flushed the neighbor's routes and asked for them again).
set -eu
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/fared-fib-retry.XXXXXX)
CTL=$LAB_DIR/fared.sock

routes() { "$FARECTL" -j -n host route show | jq length; }
routes_are() { [ "$(routes)" = "$1" ]; }
events() { grep '^route' "$LAB_DIR/events" || true; }

load_fare
topo_planes 1
bird_routes=""
for i in $(seq 1 20); do
	bird_routes="$bird_routes route 198.51.100.$i/32 blackhole;"
done
leaf_bird_conf 1 30 "$bird_routes"
leaf_bird_start 1
host_monitor_start route

# 1. Refusals, then the limit raised.
"$FARECTL" -n host config set route-limit 5 || fail "route-limit 5"
fared_host_start 30 400G 1
wait_until 60 grep -q "refused: resynchronising with fare.ko" \
	"$LAB_DIR/fared.log" || { cat "$LAB_DIR/fared.log"; fail "1: no refusal"; }
expect_eq "1: fare.ko's routes under route-limit 5" "$(routes)" 5
first5=$("$FARECTL" -j -n host route show | jq -r '.[].dst' | sort)
# A retry or two under the limit: each is refused again.
wait_until 30 bash -c "[ \$(grep -c 'refused: resynchronising' $LAB_DIR/fared.log) -ge 2 ]" ||
	fail "1: fared did not retry"
expect_eq "1: still 5 routes while the limit holds" "$(routes)" 5
"$FARECTL" -n host config set route-limit 1000
wait_until 90 routes_are 20 || cat "$LAB_DIR/fared.log"
expect_eq "1: fare.ko's routes after the limit was raised" "$(routes)" 20
# fared logs the resynchronisation after its last op is in: the routes
# can be seen in fare.ko before the line is written.
wait_until 30 grep -q "resynchronised with fare.ko" "$LAB_DIR/fared.log" ||
	grep fare: "$LAB_DIR/fared.log"
expect_eq "1: fared logged the resynchronisation" \
	"$(grep -c "resynchronised with fare.ko: 15 ops" "$LAB_DIR/fared.log")" 1
deleted=$(events | awk '$2 == "del" { print $3 }' | sort)
expect_empty "1: routes deleted on the way" "$deleted"
for d in $first5; do
	expect_eq "1: $d added once" \
		"$(events | awk -v d="$d" '$3 == d' | wc -l)" 1
done

# 2. A reload with a narrower import policy.
cp "$LAB_DIR/events" "$LAB_DIR/events.before"
sed -i 's|permit 198.51.100.0/24 le 32|permit 198.51.100.0/28 le 32|' \
	"$LAB_DIR/fared.conf"
grep -q "198.51.100.0/28" "$LAB_DIR/fared.conf" || fail "2: conf not changed"
kill -HUP "$FARED_PID"
wait_until 30 routes_are 15 || cat "$LAB_DIR/fared.log"
expect_eq "2: fare.ko's routes after the reload" "$(routes)" 15
# Every op of the reload is in the monitor once a route BIRD announces
# after it is: fared programs in order. So no fixed sleep before the
# absence of other events: 198.51.100.0/32, inside the new /28, is the
# marker, and what came before it is the reload's.
MARK=198.51.100.0/32
leaf_bird_conf 1 30 "$bird_routes route $MARK blackhole;"
leaf_birdc 1 configure >/dev/null || fail "2: birdc configure"
marker_seen()
{
	awk -v m="$MARK" '$1 == "route" && $3 == m { f = 1 } END { exit !f }' \
		"$LAB_DIR/events"
}
wait_until 60 marker_seen ||
	fail "2: fare.ko never got the marker $MARK"
new=$(tail -n +$(($(wc -l <"$LAB_DIR/events.before") + 1)) "$LAB_DIR/events" |
	awk -v m="$MARK" '$1 == "route" { if ($3 == m) exit; print $2, $3 }' |
	sort -t. -k4n)
expect_eq "2: fare.ko's route events of the reload" "$new" \
"del 198.51.100.16/32
del 198.51.100.17/32
del 198.51.100.18/32
del 198.51.100.19/32
del 198.51.100.20/32"
grep "fare:\|reload\|import" "$LAB_DIR/fared.log" || true
lab_result
