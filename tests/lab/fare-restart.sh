#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hitless restart of fared (RFC 4724 on the host, fared.8 "RESTART"): the
# multi-plane host of fare-host (topo_planes 3 v6) with an IPv4 and an IPv6
# eBGP session per plane to a BIRD leaf, graceful restart on both sides.
# Each leaf advertises the remote 198.51.100.1/32 and 2001:db8:100::1/128
# with a Path Bandwidth, and 198.51.100.2/32 and 2001:db8:100::2/128
# without. Host links 400G (50 GB/s):
#
#   step                       PB (GB/s) 1/2/3   weights of .1 and ::1
#   start                      50 50 25          1:2 2:2 3:1
#   a) SIGKILL, start          (unchanged)       1:2 2:2 3:1
#   b) SIGTERM; while fared    50 50 50, the     1:1 2:1 3:1, .2 and ::2
#      is down the leaves      .2 and ::2 routes gone from fare.ko
#      change; start           withdrawn
#
# Through a) and b) a steady stream of one datagram per millisecond per
# family (RESTART_COUNT each, 12,000 by default; in a TCG guest the sender
# manages fewer per second, so the stream lasts longer) flows from the host
# to the remote, sent on whether or not the host has a route
# (--keep-going): the receiver must count every datagram, none lost. fare.ko's own event
# stream (farectl monitor) shows what the restart changed: nothing in a),
# in b) one replace per remote and one delete per withdrawn prefix. After
# each restart a paced phase checks the split at the receiver (packet
# mode: exact within 1 per plane). Last, without graceful-restart, SIGTERM
# empties fare.ko as it always did.
#
# Nothing here is a timing assertion: the stream's pace only makes the
# restart fall inside it, and the scenario checks that it did (both
# senders still running when fared is stopped, and still when fared has
# reconciled: its replaces and sweeps of adopted routes come then).
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top). Route replaces and deletes under a stream,
# what a restart makes fare.ko do, are stress.sh's churn there.
#
# On the debug kernel by hand (FARE_DEBUG_KERNEL=1) every check stands as
# is; the streams carry 3,000 datagrams per family 4 ms apart instead of 12,000
# 1 ms apart: the same 12 s around each restart at a quarter of the
# packets, which is what KASAN makes expensive (RESTART_COUNT and
# RESTART_INTERVAL_US set them by hand).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/fare-restart.XXXXXX)
CTL=$LAB_DIR/fared.sock
FARED=${FARED:-$FARE_ROOT/userspace/fared/fared}
N=${RESTART_COUNT:-12000}
GAP=${RESTART_INTERVAL_US:-1000}
if debug_kernel; then
	N=${RESTART_COUNT:-3000}
	GAP=${RESTART_INTERVAL_US:-4000}
fi
D4=198.51.100.1
D6=2001:db8:100::1
GONE4=198.51.100.2/32
GONE6=2001:db8:100::2/128
# binary16 GB/s: 50 = 0x5240, 25 = 0x4e40.
PB50=21056
PB25=20032

# bird_conf I PB [gone]: leaf I's BIRD; "gone": without .2 and ::2.
bird_conf()
{
	local extra4="route $GONE4 blackhole;" extra6="route $GONE6 blackhole;"

	[ "${3:-}" != gone ] || extra4= extra6=
	cat >"$LAB_DIR/bird$1.conf" <<EOC
router id 10.$1.0.1;
log "$LAB_DIR/bird$1.log" { warning, error };
protocol device { }
protocol static far4 {
	ipv4;
	route $D4/32 blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$1.0.1, $2));
	};
	$extra4
}
protocol static far6 {
	ipv6;
	route $D6/128 blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$1.0.1, $2));
	};
	$extra6
}
template bgp host {
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	graceful restart on;
}
protocol bgp tohost4 from host {
	local 10.$1.0.1 as 6510$1;
	neighbor 10.$1.0.2 as 65007;
	ipv4 { import all; export where source = RTS_STATIC; };
}
protocol bgp tohost6 from host {
	local 2001:db8:$1::1 as 6510$1;
	neighbor 2001:db8:$1::2 as 65007;
	ipv6 { import all; export where source = RTS_STATIC; };
}
EOC
}

# fared_conf [nogr]: the host's fared.conf; "nogr": no graceful-restart.
fared_conf()
{
	local i

	{
		cat <<EOC
router-id 192.0.2.7
local-as 65007
hold-time 30
connect-retry 1
control-socket $CTL
state-file $LAB_DIR/fared.state
role host
mode packet
$([ "${1:-}" = nogr ] || echo "graceful-restart restart-time 120")
originate 192.0.2.7/32
originate 2001:db8:7::7/128
policy remote {
	permit 198.51.100.0/24 le 32
	permit 2001:db8:100::/48 le 128
}
policy self {
	permit 192.0.2.7/32
	permit 2001:db8:7::7/128
}
EOC
		for i in 1 2 3; do
			cat <<EOC
interface eth-p$i bandwidth 400G
plane $i {
	neighbor 10.$i.0.1 {
		remote-as 6510$i
		interface eth-p$i
		import remote
		export self
	}
	neighbor 2001:db8:$i::1 {
		remote-as 6510$i
		interface eth-p$i
		import remote
		export self
	}
}
EOC
		done
	} >"$LAB_DIR/fared.conf"
}

fared_start()
{
	ip netns exec host "$FARED" -c "$LAB_DIR/fared.conf" \
		>>"$LAB_DIR/fared.log" 2>&1 &
	FARED_PID=$!
	LAB_PIDS+=("$FARED_PID")
}

both_weights_are()
{
	host_weights_are "$D4/32" "$1" && host_weights_are "$D6/128" "$1"
}

# settled WEIGHTS: fare.ko has WEIGHTS for both remotes, and every session
# is Established with End-of-RIB received (fared's first tables are in).
settled()
{
	both_weights_are "$1" &&
		[ "$("$FARECTL" -j bgp -s "$CTL" neighbors 2>/dev/null |
		     jq '[.[] | select(.state == "Established")] | length')" = 6 ]
}

# stream_start TAG: a sink per family on the remote, then a sender per
# family on the host, N datagrams 1 ms apart, going on through failures.
stream_start()
{
	local f dst

	for f in 4 6; do
		dst=$D4
		[ $f = 4 ] || dst=$D6
		ip netns exec remote "$FARE_UDP" sink --bind "$dst" --port 920$f \
			--count "$N" --timeout 1800 >"$LAB_DIR/$1-sink$f" &
		eval "SINK$f=\$!"
		LAB_PIDS+=("$!")
		wait_until 10 grep -q listening "$LAB_DIR/$1-sink$f"
	done
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst "$D4" \
		--port 9204 --count "$N" --interval-us "$GAP" --keep-going 1 \
		>"$LAB_DIR/$1-send4" 2>&1 &
	SEND4=$!
	ip netns exec host "$FARE_UDP" send --src 2001:db8:7::7 --dst "$D6" \
		--port 9206 --count "$N" --interval-us "$GAP" --keep-going 1 \
		>"$LAB_DIR/$1-send6" 2>&1 &
	SEND6=$!
	LAB_PIDS+=("$SEND4" "$SEND6")
}

sink_done() { ! kill -0 "$1" 2>/dev/null; }

# stream_running TAG [WHEN]: both senders are still sending at WHEN (the
# restart), so that it falls inside the stream (else "none lost" proves
# nothing).
stream_running()
{
	local f pid when=${2:-the restart}

	for f in 4 6; do
		eval "pid=\$SEND$f"
		if kill -0 "$pid" 2>/dev/null; then
			pass "$1) IPv$f stream still running at $when"
		else
			fail "$1) IPv$f stream over before $when"
		fi
	done
}

# stream_check TAG: zero lost, counted by each family's receiver, which is
# told to report once its sender is done and 15 s have passed.
stream_check()
{
	local f rc pid

	for f in 4 6; do
		eval "pid=\$SEND$f"
		wait "$pid" || true
		log "$1 IPv$f sender: $(tail -n 1 "$LAB_DIR/$1-send$f")"
	done
	for f in 4 6; do
		rc=0
		eval "pid=\$SINK$f"
		# The stream is over: what has not come in 15 s is lost.
		if ! wait_until 15 sink_done "$pid"; then
			kill -TERM "$pid" 2>/dev/null || true
		fi
		wait "$pid" || rc=$?
		cat "$LAB_DIR/$1-sink$f"
		expect_eq "$1: IPv$f datagrams received" \
			"$(awk '$1 == "received" { print $2 }' "$LAB_DIR/$1-sink$f")" "$N"
		expect_eq "$1: IPv$f receiver saw every datagram once" $rc 0
	done
}

# split_phase TAG COUNT...: paced datagrams per family, the receiver's
# count per plane (per-packet mode: exact within 1).
split_phase()
{
	local tag=$1 total=0 c

	shift
	for c in "$@"; do
		total=$((total + c))
	done
	send_phase $total "$tag-v4" 192.0.2.7 $D4
	split_is "$tag-v4" "$@"
	send_phase $total "$tag-v6" 2001:db8:7::7 $D6
	split_is "$tag-v6" "$@"
}

has_route() { [ "$(host_weights "$1")" != none ]; }

# reconciled N: fared has logged its Nth restart reconciliation (the
# point after which fare.ko must hold the new RIB's routes only).
reconciled()
{
	[ "$(grep -c 'fare: restart: .* adopted routes\?, .* swept' \
		"$LAB_DIR/fared.log")" -ge "$1" ]
}

load_fare
topo_planes 3 v6
for i in 1 2 3; do
	pb=$PB50
	[ $i -ne 3 ] || pb=$PB25
	bird_conf $i $pb
	leaf_bird_start $i
done
host_monitor_start route plane
fared_conf
fared_start
wait_until 20 grep -q '^plane' "$LAB_DIR/events" || fail "monitor saw no plane"

if ! wait_until 60 settled "1:2 2:2 3:1"; then
	cat "$LAB_DIR/fared.log"
fi
expect_eq "start: IPv4 weights" "$(host_weights $D4/32)" "1:2 2:2 3:1"
expect_eq "start: IPv6 weights" "$(host_weights $D6/128)" "1:2 2:2 3:1"
expect_eq "start: $GONE4 in fare.ko" "$(has_route $GONE4 && echo yes)" yes
expect_eq "start: $GONE6 in fare.ko" "$(has_route $GONE6 && echo yes)" yes
split_phase start 200 200 100

# a) A crash: SIGKILL in the middle of the stream, started again at once.
stream_start kill
mark_events
sleep 3
stream_running a
log "a) SIGKILL fared"
kill -KILL "$FARED_PID"
wait "$FARED_PID" 2>/dev/null || true
expect_eq "a) fare.ko kept $D4 after SIGKILL" "$(host_weights $D4/32)" \
	"1:2 2:2 3:1"
fared_start
# fared replaces and sweeps adopted routes at its reconciliation: the
# stream must still run then, or a loss there would go unseen.
wait_until 60 reconciled 1 || fail "a) fared never reconciled"
stream_running a "fared's reconciliation"
stream_check kill
wait_until 60 settled "1:2 2:2 3:1" || true

expect_eq "a) IPv4 weights" "$(host_weights $D4/32)" "1:2 2:2 3:1"
expect_eq "a) IPv6 weights" "$(host_weights $D6/128)" "1:2 2:2 3:1"
# The monitor still runs and has shown all fare.ko reported: nothing to
# report here means fare.ko saw no route change at all.
host_monitor_sync "a) fare.ko route events across the restart"
expect_empty "a) fare.ko route events across the restart" "$(events_since)"
split_phase kill 200 200 100

# b) A planned restart; what the leaves advertise changes meanwhile.
stream_start term
mark_events
sleep 3
stream_running b
log "b) SIGTERM fared"
kill -TERM "$FARED_PID"
wait "$FARED_PID" 2>/dev/null || true
expect_eq "b) fare.ko kept $D4 after SIGTERM" "$(host_weights $D4/32)" \
	"1:2 2:2 3:1"
expect_eq "b) fare.ko kept $GONE6 after SIGTERM" \
	"$(has_route $GONE6 && echo yes)" yes
for i in 1 2 3; do
	bird_conf $i $PB50 gone
	leaf_birdc $i configure >/dev/null
done
fared_start
wait_until 60 reconciled 2 || fail "b) fared never reconciled"
stream_running b "fared's reconciliation"
stream_check term
if ! wait_until 60 settled "1:1 2:1 3:1"; then
	cat "$LAB_DIR/fared.log"
fi
expect_eq "b) IPv4 weights" "$(host_weights $D4/32)" "1:1 2:1 3:1"
expect_eq "b) IPv6 weights" "$(host_weights $D6/128)" "1:1 2:1 3:1"
expect_eq "b) $GONE4 swept from fare.ko" "$(host_weights $GONE4)" none
expect_eq "b) $GONE6 swept from fare.ko" "$(host_weights $GONE6)" none
wait_until 10 events_are 4 || true
host_monitor_sync "b) fare.ko route events across the restart"
expect_eq "b) fare.ko route events across the restart" \
	"$(events_since | awk '{ print $1, $2, $3 }' | LC_ALL=C sort)" \
	"route del $GONE4
route del $GONE6
route replace $D4/32
route replace $D6/128"
split_phase term 200 200 200

# Without graceful-restart, SIGTERM takes every route away.
fared_conf nogr
kill -HUP "$FARED_PID"
wait_until 60 settled "1:1 2:1 3:1" || true
kill -TERM "$FARED_PID"
wait "$FARED_PID" 2>/dev/null || true
expect_eq "no graceful-restart: fare.ko routes after SIGTERM" \
	"$("$FARECTL" -j -n host route show | jq length)" 0

grep -e "fare:" -e "graceful" -e "restart" "$LAB_DIR/fared.log" || true
lab_result
