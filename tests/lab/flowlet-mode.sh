#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Flowlet mode over two planes at 3:1 with a 100 ms flowlet timeout: 7
# paced flows send bursts of 25 datagrams back to back, then pause 500 ms
# (timeouts this long keep a burst one flowlet even when the emulated guest
# stalls for a while; on the debug kernel 1 s and 3 s).
# Every burst (a flowlet) must arrive on one plane; every flow must change
# plane between bursts (a new flowlet re-picks); and since all flowlets are
# the same size, byte-deficit placement keeps each plane within one flowlet
# (25 datagrams) of its share. Seven flows, not eight: flowlets of equal
# size fall into a 4-long plane pattern at 3:1 (1 1 1 2), and a flow count
# that is a multiple of it would pin every flow to one plane. With 7 the
# flowlet of flow f in round r takes place 7r + f of the pattern, which
# moves by 3 (mod 4) each round: every flow visits both planes within 4
# rounds, so all 7 flows must show datagrams on both planes after 12.
# Flow mode (or flowlets that never re-pick) shows none. Then the same
# flows again while the flowlet table is resized under them (below).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FLOWS=7
BURST=25
ROUNDS=12
COUNT=$((FLOWS * BURST * ROUNDS))
TIMEOUT_US=100000
GAP_US=500000
if debug_kernel; then
	# Under KASAN a guest stall within a burst can outlast 100 ms and
	# cut the burst in two flowlets; every check stays, on a longer scale.
	TIMEOUT_US=1000000
	GAP_US=3000000
	debug_relax "flowlet timeout 1 s, gap 3 s (not 100 ms, 500 ms)" \
		"guest stalls under KASAN outlast 100 ms within a burst"
fi

load_fare
topo_planes 2
plane_add_all 2
"$FARECTL" -n host config set flowlet-timeout $TIMEOUT_US
"$FARECTL" -n host route add 198.51.100.0/24 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1

# send_bursts LOG PORT COUNT: the paced flows to PORT, COUNT datagrams in
# all, counted by a sink into LOG; sets rc to the sink's status.
send_bursts()
{
	sink_start "$1" --bind 198.51.100.1 --port "$2" --count "$3" \
		--flows $FLOWS --burst $BURST --timeout 120
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
		--dst 198.51.100.1 --port "$2" --count "$3" --flows $FLOWS \
		--burst $BURST --gap-us $GAP_US
	rc=0
	sink_wait "$1" || rc=$?
}

log=$(mktemp)
send_bursts "$log" 9000 $COUNT
expect_eq "every datagram arrived once" $rc 0
expect_eq "flowlets seen" "$(sink_field "$log" bursts 2)" $((FLOWS * ROUNDS))
expect_eq "flowlets split over planes" "$(sink_field "$log" bursts 4)" 0
split=$(sink_field "$log" flows 4)
if [ "$split" -eq $FLOWS ]; then
	pass "flows that changed plane between flowlets: $split of $FLOWS"
else
	fail "flows that changed plane between flowlets: $split of $FLOWS (expected all)"
fi
expect_near "plane 1 (weight 3)" "$(sink_iface "$log" eth-leaf1)" \
	$((COUNT * 3 / 4)) $BURST

# ---- the flowlet table resized under traffic ----
# The same flows for ROUNDS2 rounds while another process resizes the
# table (65536 and 16384 slots in turn) every 0.3 s. A resize starts every
# flowlet anew, which can cut only the burst being sent at that moment in
# two, so at most one burst per resize may show on both planes: a table
# that kept no decisions would split nearly every burst. Every datagram
# arrives, and since flowlets never exceed a burst, byte-deficit placement
# keeps plane 1 within a burst of its share of all traffic so far, so
# within two bursts of its share of this phase.
fc() { "$FARECTL" -n host "$@"; }
expect_eq "flowlet table size read back (JSON)" \
	"$(fc -j config show | jq .flowlet_slots)" 4096
expect_eq "and as text" \
	"$(fc config show | grep -o 'flowlet-slots [0-9]*')" "flowlet-slots 4096"
ROUNDS2=8
COUNT2=$((FLOWS * BURST * ROUNDS2))
resizes=$(mktemp)
stop=$(mktemp -u)
echo 0 >"$resizes"
(
	n=0
	while [ ! -e "$stop" ]; do
		sleep 0.3
		fc config set flowlet-slots $((n % 2 ? 16384 : 65536)) || exit 1
		n=$((n + 1))
		echo $n >"$resizes"
	done
) &
resizer=$!
LAB_PIDS+=("$resizer")
log2=$(mktemp)
send_bursts "$log2" 9001 $COUNT2
touch "$stop"
resizer_rc=0
wait "$resizer" || resizer_rc=$?
n=$(cat "$resizes")
rm -f "$resizes" "$stop"
expect_eq "the resizes succeeded" $resizer_rc 0
if [ "$n" -ge 3 ]; then
	pass "table resized $n times while the flows ran"
else
	fail "table resized only $n times while the flows ran"
fi
expect_eq "after resizes: every datagram arrived once" $rc 0
expect_eq "after resizes: flowlets seen" "$(sink_field "$log2" bursts 2)" \
	$((FLOWS * ROUNDS2))
cut=$(sink_field "$log2" bursts 4)
if is_int "$cut" && [ "$cut" -le "$n" ]; then
	pass "bursts split over planes: $cut, at most one per resize ($n)"
else
	fail "bursts split over planes: $cut (at most one per resize: $n)"
fi
expect_near "after resizes: plane 1 (weight 3)" \
	"$(sink_iface "$log2" eth-leaf1)" $((COUNT2 * 3 / 4)) $((2 * BURST))
expect_eq "last size read back" "$(fc -j config show | jq .flowlet_slots)" \
	$(((n - 1) % 2 ? 16384 : 65536))
rm -f "$log" "$log2"

lab_result
