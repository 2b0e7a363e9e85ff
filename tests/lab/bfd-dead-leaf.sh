#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A dead leaf with its links up (issue 24 §5, issue 26 §3): fared as the
# host (topo_planes 2) with "bfd interval 100" toward two BIRD leaves
# running BFD ("bfd on"; leaf 1 at 100 ms x 3, see below), fare.ko steering a
# paced UDP stream (1 datagram per 2 ms, packet mode 1:1) over both planes.
# Leaf 1 then dies with its links up: its BIRD frozen with SIGSTOP and
# its forwarding off (net.ipv4.ip_forward=0), so every datagram fare.ko
# still sends into plane 1 is dropped there and counted by leaf 1's own
# stack (Ip InAddrErrors: a destination it does not forward to); its BFD
# and BGP packets still arrive (their counters are apart), its carrier,
# ARP and neighbour entries never change, so nothing but BFD can tell.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top). A plane taken down under
# traffic is dead-leaf.sh's and link-down.sh's subject there, and plane
# state requests are genl-fuzz's.
#
#   1. Traffic into plane 1 stops: the last datagram leaf 1 counts comes
#      at most 1000 ms after the freeze (3 x 100 ms of Detection Time plus
#      a functional slack for a TCG guest; the measured time is printed).
#      On the debug kernel (debug_relax) leaf 1 runs 100 ms x 10 and the
#      bound is 4000 ms: 2,411 ms was seen there at x 3 beside another
#      guest at host load 4-7. Without BFD it would
#      flow into leaf 1 until the 30 s hold time ran out.
#      fare.ko's first event after the freeze is plane 1 administratively
#      down, and the only plane event: one request for the plane, before
#      the routes of the ended BGP session change.
#   2. With plane 1 out, a phase of 1000 datagrams (100 on the debug
#      kernel) all arrive, each once, every one over plane 2; leaf 1 sees
#      none of them.
#   3. Leaf 1 back (SIGCONT, forwarding on): BFD and BGP come up again and
#      a phase splits 1:1 over both planes again, exact within 1.
#
# fared detects the dead leaf 1 after Detect Mult x interval of leaf 1's
# BFD (RFC 5880 §6.8.4: the remote's multiplier): BIRD's 100 ms x 3.
# Leaf 2, the survivor, runs 100 ms x 10 and fared's sessions advertise a
# multiplier of 10, so that a TCG guest's stalls (hundreds of ms when the
# host's two CPUs run two guests) cannot fail plane 2 or make leaf 1's
# BIRD fail fared before the freeze; what is measured is the 300 ms.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COUNT=20000
PHASE=1000
debug_kernel && PHASE=100
BOUND_MS=1000
LEAF1_MULT=3
if debug_kernel; then
	debug_relax "leaf 1's BFD at 100 ms x 10, not x 3; traffic leaves plane 1 within 4000 ms, not 1000 ms" \
		"the debug kernel's detectors and a guest beside it slow the guest's timers: in CI of 1ac22f8 plane 1 was not up 60 s after the start, as stalls over 300 ms taking leaf 1's session down again and again would do"
	BOUND_MS=4000
	LEAF1_MULT=10
fi

LAB_DIR=$(mktemp -d /tmp/bfd-dead-leaf.XXXXXX)
CTL=$LAB_DIR/fared.sock
DST=198.51.100.1/32
PB50=21056

# bird_conf I MULT: leaf I's BIRD with BFD (100 ms x MULT) toward the
# host, advertising the remote and EXTRA more host routes beside it with
# a PB of 50 GB/s (both planes weigh the same).
EXTRA=50
bird_conf()
{
	local routes="" k

	for k in $(seq 1 $((EXTRA + 1))); do
		routes+="route 198.51.100.$k/32 blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$1.0.1, $PB50));
	};
"
	done
	leaf_bird_conf "$1" 30 "$routes"
	sed -i 's/^\tipv4 { import all; export where source = RTS_STATIC; };$/\tbfd on;\n&/' \
		"$LAB_DIR/bird$1.conf"
	cat >>"$LAB_DIR/bird$1.conf" <<EOC
protocol bfd {
	interface "eth-host" {
		min rx interval 100 ms;
		min tx interval 100 ms;
		idle tx interval 1000 ms;
		multiplier $2;
	};
}
EOC
	grep -q "bfd on;" "$LAB_DIR/bird$1.conf" ||
		{ echo "lab: FAIL: leaf $1's BIRD has no bfd on"; exit 1; }
}

# leaf_bfd_up I: leaf I's BIRD has its BFD session with the host Up.
leaf_bfd_up()
{
	leaf_birdc "$1" show bfd sessions |
		awk -v a="10.$1.0.2" '$1 == a && $3 == "Up" { f = 1 } END { exit !f }'
}

plane_field() { "$FARECTL" -n host -j plane show "$1" | jq -r ".[0].$2"; }
# plane_is PLANE FIELD VALUE: for wait_until, which runs it again.
plane_is() { [ "$(plane_field "$1" "$2")" = "$3" ]; }

load_fare
topo_planes 2
bird_conf 1 $LEAF1_MULT
bird_conf 2 10
for i in 1 2; do
	leaf_bird_start $i
done
FARED_HOST_NEIGHBOR="bfd interval 100 multiplier 10" fared_host_start 30 400G 2

if ! wait_until 60 host_weights_are "$DST" "1:1 2:1"; then
	cat "$LAB_DIR/fared.log"
fi
expect_eq "weights" "$(host_weights "$DST")" "1:1 2:1"
for i in 1 2; do
	wait_until 30 leaf_bfd_up $i || fail "leaf $i's BFD session is not Up"
	leaf_birdc $i show bfd sessions
done
expect_eq "plane 1 up in fare.ko" "$(plane_field 1 up)" true
routes_in_fare() { "$FARECTL" -n host -j route show | jq length; }
routes_are() { [ "$(routes_in_fare)" = "$1" ]; }
sampler_started() { grep -q sampling "$LAB_DIR/dropped"; }
wait_until 60 routes_are $((EXTRA + 1)) || true
expect_eq "routes in fare.ko" "$(routes_in_fare)" $((EXTRA + 1))
host_monitor_start plane route

sink_start "$LAB_DIR/sink" --bind 198.51.100.1 --port 9200 --count $COUNT \
	--timeout 600
ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
	--port 9200 --count $COUNT --interval-us 2000 --keep-going 1 &
sender=$!
LAB_PIDS+=("$sender")
wait_until 60 rx_above remote eth-leaf1 500 || fail "plane 1 carried nothing"
wait_until 60 rx_above remote eth-leaf2 500 || fail "plane 2 carried nothing"

# 1. Leaf 1 dies with its links up, once both planes carry the route.
wait_until 60 host_weights_are "$DST" "1:1 2:1" ||
	fail "not both planes before the freeze: $(host_weights "$DST")"
wait_until 30 leaf_bfd_up 1 || fail "leaf 1's BFD not Up before the freeze"
wait_until 30 leaf_bfd_up 2 || fail "leaf 2's BFD not Up before the freeze"
# Leaf 1's datagrams it could not forward, timestamped by a sampler in its
# namespace: "MS COUNT" whenever Ip InAddrErrors changes (every 10 ms,
# around the freeze only: a TCG guest has little CPU to spare). A C tool:
# Python's start-up took over 120 s here on the debug kernel beside the
# stream and BFD (CI, 872e866). Its errors go to the same file, so a
# sampler that died says why.
ip netns exec leaf1 "$SNMP_WATCH" Ip InAddrErrors 10 >"$LAB_DIR/dropped" 2>&1 &
sampler=$!
LAB_PIDS+=("$sampler")
wait_until 30 sampler_started || {
	cat "$LAB_DIR/dropped"
	fail "the sampler in leaf1 did not start in 30 s" \
		"($(kill -0 "$sampler" 2>/dev/null && echo running || echo exited))"
}

bird1=$(cat "$LAB_DIR/bird1.pid")
mark_events
# Forwarding off first, then the freeze, in one process that says when
# it began: t0 comes before both, so what is measured from it is never
# too short.
t0=$(ip netns exec leaf1 sh -c 'date +%s%N &&
	echo 0 >/proc/sys/net/ipv4/ip_forward && kill -STOP "$1"' sh "$bird1")
t0=$((t0 / 1000000))
wait_until 20 plane_is 1 admin_down true ||
	fail "fare.ko never had plane 1 administratively down"
# The sampler has seen the last datagram once the plane is out; give it
# time to write it (it may wait for the CPU).
sleep 1
kill "$sampler"
read -r t_last dropped < <(tail -n 1 "$LAB_DIR/dropped")
first=$(awk -v t=$t0 '$1 < t { c = $2 } END { print c + 0 }' "$LAB_DIR/dropped")
stop_ms=$((t_last - t0))
log "leaf 1 dropped $((dropped - first)) datagrams, the last $stop_ms ms" \
	"after the freeze (Detection Time $((LEAF1_MULT * 100)) ms)"
[ $((dropped - first)) -gt 0 ] ||
	fail "leaf 1 dropped nothing: was it dead while the stream ran?"
if [ $stop_ms -le $BOUND_MS ]; then
	pass "traffic into plane 1 stopped $stop_ms ms after the freeze" \
		"(bound $BOUND_MS ms)"
else
	fail "traffic into plane 1 went on $stop_ms ms after the freeze" \
		"(bound $BOUND_MS ms)"
fi
expect_eq "plane 1 not up in fare.ko" "$(plane_field 1 up)" false
# One request for the plane, before the routes: fare.ko's events since
# the freeze begin with plane 1's, the only one, whatever the routes do.
host_monitor_sync "fare.ko's events after the freeze"
after=$(tail -n +$((EVENTS_AT + 1)) "$LAB_DIR/events" | grep -v '^config')
expect_eq "fare.ko's first event after the freeze" \
	"$(echo "$after" | head -1 | sed 's/ dev .*#/ #/')" "plane replace 1 # admin-down"
expect_eq "plane events after the freeze" \
	"$(echo "$after" | grep -c '^plane')" 1
log "then $(echo "$after" | grep -c '^route') route events (the BGP session's end)"
expect_eq "plane 2 up in fare.ko" "$(plane_field 2 up)" true
grep "bfd:\|plane 1 out\|BFD" "$LAB_DIR/fared.log" || true

# The stream has done its part.
kill "$sender" 2>/dev/null || true
sink_end "$LAB_DIR/sink" >/dev/null || true

# 2. With plane 1 out every datagram goes to plane 2: a phase of its own,
# each datagram counted once at the receiver, none on leaf 1's path.
lost0=$(snmp leaf1 Ip InAddrErrors)
send_phase $PHASE out
split_is out 0 $PHASE
expect_eq "leaf 1: no datagram while plane 1 was out" \
	$(($(snmp leaf1 Ip InAddrErrors) - lost0)) 0

# 3. Leaf 1 comes back: 1:1 again, exact within 1 (packet mode).
ip netns exec leaf1 sysctl -qw net.ipv4.ip_forward=1
kill -CONT "$bird1"
wait_until 60 leaf_bfd_up 1 || fail "leaf 1's BFD did not come back"
wait_until 30 plane_is 1 up true || fail "plane 1 not up again in fare.ko"
wait_until 60 host_weights_are "$DST" "1:1 2:1" ||
	fail "plane 1 not back in the route: $(host_weights "$DST")"
send_phase $PHASE back
split_is back $((PHASE / 2)) $((PHASE / 2))
grep "bfd:\|fare: plane" "$LAB_DIR/fared.log" || true
lab_result
