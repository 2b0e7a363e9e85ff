#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Tier spill-over (UGAL-L, Documentation/datapath.md "Tier spill-over"):
# one route over plane 1 (tier 0, a path of 125000 bytes/s, 1 Mbit/s) and
# plane 2 (tier 1), flowlet mode, no BGP.
#
#  1. A light load (1000-byte datagrams every 20 ms, 50 kB/s) stays on
#     tier 0: nothing on plane 2, no spill.
#  2. The path's bandwidth drops to 50000 bytes/s (50 datagrams/s; not
#     lower: the virtual queue holds at most a second of the rate, and
#     must reach the threshold below) and many short flows send as fast
#     as the guest can (far above that):
#     the virtual queue of plane 1 fills, new flowlets spill to tier 1
#     (each one a fare_tier_spill tracepoint event), and
#     tier 0 keeps what the rule lets it take: the ~22 datagrams that fill
#     the queue to T / H0 = 65536 / 3 bytes, plus what drains while the
#     burst lasts, plus one open burst per flow. The low rate keeps that
#     upper bound far below the total even when an emulated guest sends
#     slowly; the check fails if the send took so long that the bound
#     reaches half the datagrams (it would prove nothing), except on the
#     debug kernel, where it is then relaxed (and says so).
#  3. Plane 1's device goes down: everything goes to tier 1 at once, and
#     the receiver gets every datagram (a datagram steered to the down
#     device would be lost on the host).
#  4. No bandwidth on the route but a tbf on plane 1's own device: its real
#     qdisc backlog makes new flowlets spill as well.
#  5. A bias of 4294967295 keeps everything on tier 0 (plane 2's leaf
#     gets nothing); flow and packet mode over the two tiers keep a light
#     load on tier 0 (counted at the leaves) and spill like flowlet mode
#     under the overload.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FLOWS=50
BURST=4
SIZE=1000

load_fare
topo_planes 2
plane_add_all 2
fc() { "$FARECTL" -n host "$@"; }
fc route add 198.51.100.0/24 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1 tier 0 bandwidth 125000 \
	nexthop plane 2 weight 1 tier 1
expect_eq "route shows the bandwidth" \
	"$(fc -j route show | jq -c '[.[0].nexthops[] | [.plane, .tier, .bandwidth]]')" \
	'[[1,0,125000],[2,1,0]]'
expect_eq "default spill settings" \
	"$(fc -j config show | jq -c '[.tier_hops, .spill_bias]')" \
	'[[3,4,6],65536]'

tier() { fc -j stats | jq ".tiers[$1].$2"; }
work=$(mktemp -d)

# send PHASE COUNT BURST ARGS...: COUNT datagrams of SIZE bytes in FLOWS
# flows, BURST back to back per flow in turn; the receiver may miss some
# (a tbf drops), so only its report is kept. SEND_MS: the sender's time.
send()
{
	local phase=$1 count=$2 burst=$3 start

	shift 3
	sink_start "$work/sink$phase" --bind 198.51.100.1 --port 9000 \
		--count "$count" --flows $FLOWS --burst "$burst" --timeout 60
	start=$(date +%s%N)
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
		--dst 198.51.100.1 --port 9000 --count "$count" --size $SIZE \
		--flows $FLOWS --burst "$burst" "$@"
	SEND_MS=$((($(date +%s%N) - start) / 1000000))
	sink_wait "$work/sink$phase" || true
}

# ---- 1. light load: tier 0 only ----
send 1 100 1 --interval-us 20000
expect_eq "light: plane 2 received nothing" "$(rx_packets leaf2 eth-host)" 0
expect_eq "light: plane 1 received all" "$(rx_packets leaf1 eth-host)" 100
expect_eq "light: tier 0 packets" "$(tier 0 packets)" 100
expect_eq "light: tier 1 packets" "$(tier 1 packets)" 0
expect_eq "light: no spill" "$(tier 1 spills)" 0

# ---- 2. overload: new flowlets spill to tier 1 ----
COUNT=2000
RATE=50000
fc route replace 198.51.100.0/24 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1 tier 0 bandwidth $RATE \
	nexthop plane 2 weight 1 tier 1
p1=$(rx_packets leaf1 eth-host)
p2=$(rx_packets leaf2 eth-host)
t0=$(tier 0 packets)
trace_on fare_tier_spill
send 2 $COUNT $BURST
elapsed_ms=$SEND_MS
d1=$(($(rx_packets leaf1 eth-host) - p1))
d2=$(($(rx_packets leaf2 eth-host) - p2))
spills=$(tier 1 spills)
traced=$(trace_events fare_tier_spill 'tier=1$')
echo 0 >$LAB_TRACING/events/enable
log "overload: $COUNT datagrams in $elapsed_ms ms: plane 1 $d1, plane 2 $d2, spills $spills"
expect_eq "overload: a fare_tier_spill event (tier=1) for every spill" \
	"$traced" "$spills"
expect_eq "overload: every datagram went to a plane" $((d1 + d2)) $COUNT
expect_eq "overload: tier counters match the planes" \
	"$(($(tier 0 packets) - t0)) $(tier 1 packets)" "$d1 $((d2))"
if [ "$spills" -gt 0 ] && [ "$d2" -gt 0 ]; then
	pass "overload: $spills flowlets spilled, tier 1 carried $d2"
else
	fail "overload: no spill (spills $spills, tier 1 $d2)"
fi
# Tier 0 keeps a share: at least the datagrams that fill its queue to the
# threshold, at most that plus its rate over the whole send plus one open
# burst per flow.
max1=$((22 + RATE * elapsed_ms / 1000 / SIZE + 1 + FLOWS * BURST))
if [ "$max1" -ge $((COUNT / 2)) ] && debug_kernel; then
	debug_relax "overload: tier 0's upper bound" \
		"the send took $elapsed_ms ms, so the bound ($max1 of $COUNT) proves nothing; tier 0 took $d1"
	[ "$d1" -ge 20 ] || fail "overload: tier 0 took $d1, expected at least 20"
elif [ "$max1" -ge $((COUNT / 2)) ]; then
	fail "overload: the send took $elapsed_ms ms; a bound of $max1 of $COUNT proves nothing"
elif [ "$d1" -ge 20 ] && [ "$d1" -le "$max1" ]; then
	pass "overload: tier 0 took $d1 (20..$max1)"
else
	fail "overload: tier 0 took $d1, expected 20..$max1"
fi

# ---- 3. plane 1 down: tier 1 at once ----
ip -n host link set eth-p1 down
p2=$(rx_packets leaf2 eth-host)
send 3 200 1 --interval-us 1000
expect_eq "plane 1 down: the receiver got" \
	"$(awk '$1 == "received" { print $2 }' "$work/sink3")" 200
expect_eq "plane 1 down: the receiver got over plane 2" \
	"$(sink_iface "$work/sink3" eth-leaf2)" 200
expect_eq "plane 1 down: plane 2's leaf forwarded" \
	$(($(rx_packets leaf2 eth-host) - p2)) 200
expect_eq "plane 1 down: no noplane drop" \
	"$(fc -j stats | jq '.drops.noplane_packets')" 0

# ---- 4. real backlog: tbf on plane 1's device, no bandwidth ----
link_up host eth-p1
neigh_pin host eth-p1 10.1.0.1 leaf1 eth-host
tc -n host qdisc add dev eth-p1 root tbf rate 1mbit burst 5000 limit 200000
fc route replace 198.51.100.0/24 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1 tier 0 nexthop plane 2 weight 1 tier 1
s0=$(tier 1 spills)
p2=$(rx_packets leaf2 eth-host)
send 4 $COUNT $BURST
d2=$(($(rx_packets leaf2 eth-host) - p2))
backlog_spills=$(($(tier 1 spills) - s0))
if [ "$backlog_spills" -gt 0 ] && [ "$d2" -gt 0 ]; then
	pass "tbf backlog: $backlog_spills flowlets spilled, tier 1 carried $d2"
else
	fail "tbf backlog: no spill (spills $backlog_spills, tier 1 $d2)"
fi
tc -n host -s qdisc show dev eth-p1 | sed -n 1,3p

# ---- spill settings: a bias of U32_MAX keeps everything on tier 0 ----
# (150 datagrams: the tbf's 200000-byte limit holds them all)
fc config set spill-bias 4294967295 tier-hops 3,4
expect_eq "config set" \
	"$(fc -j config show | jq -c '[.tier_hops, .spill_bias]')" \
	'[[3,4],4294967295]'
if fc config set tier-hops 0 2>"$work/err"; then
	fail "tier-hops 0 accepted"
else
	pass "tier-hops 0 refused: $(cat "$work/err")"
fi
s0=$(tier 1 spills)
p2=$(rx_packets leaf2 eth-host)
send 5 150 $BURST
expect_eq "bias U32_MAX: plane 2's leaf received" \
	$(($(rx_packets leaf2 eth-host) - p2)) 0
expect_eq "bias U32_MAX: the receiver got over plane 1" \
	"$(sink_iface "$work/sink5" eth-leaf1)" 150
expect_eq "bias U32_MAX: no spill" $(($(tier 1 spills) - s0)) 0

# ---- flow and packet mode over the two tiers spill as well ----
tc -n host qdisc del dev eth-p1 root
fc config set spill-bias 65536 tier-hops 3,4,6
for mode in flow packet; do
	fc route replace 198.51.100.0/24 mode $mode src 192.0.2.7 \
		nexthop plane 1 weight 1 tier 0 bandwidth 125000 \
		nexthop plane 2 weight 1 tier 1
	# The light-load control: below tier 0's bandwidth nothing may reach
	# tier 1 (a route that ignored its tiers would spray half of it there).
	# The previous overload's virtual queue holds at most a second of the
	# rate: it is empty after one.
	sleep 1
	p1=$(rx_packets leaf1 eth-host)
	p2=$(rx_packets leaf2 eth-host)
	send "$mode-light" 100 1 --interval-us 20000
	expect_eq "$mode, light: plane 1's leaf received" \
		$(($(rx_packets leaf1 eth-host) - p1)) 100
	expect_eq "$mode, light: plane 2's leaf received" \
		$(($(rx_packets leaf2 eth-host) - p2)) 0
	s0=$(tier 1 spills)
	p1=$(rx_packets leaf1 eth-host)
	p2=$(rx_packets leaf2 eth-host)
	send $mode $COUNT $BURST
	d1=$(($(rx_packets leaf1 eth-host) - p1))
	d2=$(($(rx_packets leaf2 eth-host) - p2))
	sp=$(($(tier 1 spills) - s0))
	log "$mode: plane 1 $d1, plane 2 $d2, spills $sp in $SEND_MS ms"
	if [ "$sp" -gt 0 ] && [ "$d1" -ge 20 ] && [ "$d2" -gt 0 ]; then
		pass "$mode: $sp spills, tier 0 $d1, tier 1 $d2"
	else
		fail "$mode: spills $sp, tier 0 $d1, tier 1 $d2"
	fi
done

lab_result
