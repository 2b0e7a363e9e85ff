#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The multi-plane host of mpson-00 §3 driven by fared (topo_planes 4): one
# eBGP session per plane with a BIRD leaf, each leaf advertising the remote
# host 198.51.100.1/32 with a transitive Path Bandwidth (PB).
#
# Host links: planes 1-3 configured at 400G (50 GB/s); plane 4 "auto",
# the veth's ethtool speed, 10G (1.25 GB/s). Weight of plane p = min(link
# p, PB from p) (fare-04 §4.1, PROTOCOL.md §2.4), reduced by the gcd:
#
#   phase  PB (GB/s) 1/2/3/4   min (GB/s)            weights     of 10100/12100/8100
#   1      50 50 25 50         50 50 25 1.25         40:40:20:1  4000 4000 2000 100
#   2      50 50 50 50         50 50 50 1.25         40:40:40:1  4000 4000 4000 100
#   3      leaf2's BIRD killed 50 -  50 1.25         40:-:40:1   4000 0 4000 100
#
# Per-packet mode sends whole periods of the smooth weighted round robin,
# so each plane's count at the receiver is exact within 1.
#
# On the debug kernel (FARE_DEBUG_KERNEL=1) each phase sends 10 periods
# instead of 100 (1010/1210/810 datagrams): the same checks, exact within
# 1, on a tenth of the packets. Nothing is relaxed.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Periods of the weights per phase (their sum: 101 datagrams in phase 1).
R=100
debug_kernel && R=10

LAB_DIR=$(mktemp -d /tmp/fare-host.XXXXXX)
CTL=$LAB_DIR/fared.sock
DST=198.51.100.1/32
# binary16 GB/s: 50 = 0x5240, 25 = 0x4e40; 0x7bff is the maximum.
PB50=21056
PB25=20032

# bird_conf I PB16: leaf I's BIRD, advertising the remote with that PB.
bird_conf()
{
	leaf_bird_conf $1 30 "route $DST blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$1.0.1, $2));
	};"
}

weights() { host_weights "$DST"; }
weights_are() { host_weights_are "$DST" "$1"; }

path_field()
{
	"$FARECTL" -j bgp -s "$CTL" routes "$DST" | jq -r --arg n "$1" \
		".[0].paths[] | select(.neighbor == \$n) | .fare.$2"
}

load_fare
topo_planes 4
for i in 1 2 3 4; do
	pb=$PB50
	[ $i -ne 3 ] || pb=$PB25
	bird_conf $i $pb
	leaf_bird_start $i
done
# A lookup bound to plane 2 before fared has a route: the reference for
# "as without fare" once plane 2 leaves the route (phase 3).
without2=$(host_lookup -4 198.51.100.1 eth-p2)
fared_host_start 30 auto

# Phase 1.
if ! wait_until 30 weights_are "1:40 2:40 3:20 4:1"; then
	cat "$LAB_DIR/fared.log"
fi
expect_eq "phase 1: weights" "$(weights)" "1:40 2:40 3:20 4:1"
# fared asks fare.ko for no per-route counters unless configured to
# (route-stats): the route fare.ko holds says so.
expect_eq "fared's route has no per-route counters" \
	"$("$FARECTL" -j -n host route show "$DST" | jq '.[0].stats')" false
expect_eq "plane 4's link from ethtool (bit/s)" \
	"$(path_field 10.4.0.1 link_bps)" 10000000000
expect_eq "plane 4's PB (bit/s)" "$(path_field 10.4.0.1 pb_bps)" \
	400000000000
# The texts a user reads in "farectl bgp routes", written out here rather
# than taken from fared's answer for another path.
RULE="fare-04 §4.1 weight = min(link, PB)"
expect_eq "plane 4's rule" "$(path_field 10.4.0.1 rule)" "$RULE"
expect_eq "plane 1's rule" "$(path_field 10.1.0.1 rule)" "$RULE"
expect_eq "plane 3's weight explained" "$(path_field 10.3.0.1 explain)" \
	"plane 3: PB 25 GB/s (transitive), link 400 Gb/s: min 25 GB/s, weight 20: $RULE"
"$FARECTL" bgp -s "$CTL" routes "$DST"
# The host's loopback reaches every leaf with PB = maximum (fare §4.1).
for i in 1 2 3 4; do
	wait_until 10 leaf_birdc $i show route 192.0.2.7/32 all >/dev/null || true
	if leaf_birdc $i show route 192.0.2.7/32 all |
		grep -F "(unknown 0x10f, 192.0.2.7, 31743)" >/dev/null; then
		pass "leaf$i got 192.0.2.7/32 with PB 0x7bff"
	else
		fail "leaf$i did not get 192.0.2.7/32 with PB 0x7bff"
		leaf_birdc $i show route 192.0.2.7/32 all
	fi
done
send_phase $((101 * R)) 1
split_is 1 $((40 * R)) $((40 * R)) $((20 * R)) $R
# Plane-bound lookups to fared's route go via each plane's leaf, and so do
# datagrams from a socket bound to plane 3 (the remote counts them there).
for i in 1 2 3 4; do
	host_lookup_is "lookup bound to eth-p$i" -4 198.51.100.1 eth-p$i \
		"via 10.$i.0.1 dev eth-p$i"
done
sink_start "$LAB_DIR/sink-bound" --bind 198.51.100.1 --port 9101 \
	--count 50 --timeout 20
ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
	--port 9101 --count 50 --interval-us 200 --dev eth-p3
bound_rc=0
sink_wait "$LAB_DIR/sink-bound" || bound_rc=$?
expect_eq "bound to eth-p3: every datagram arrived once" $bound_rc 0
expect_eq "bound to eth-p3: arrived over plane 3" \
	"$(sink_iface "$LAB_DIR/sink-bound" eth-leaf3)" 50

# Phase 2: leaf3's transceiver is fixed, its PB back to 50 GB/s.
bird_conf 3 $PB50
leaf_birdc 3 configure >/dev/null
wait_until 20 weights_are "1:40 2:40 3:40 4:1" || true
expect_eq "phase 2: weights" "$(weights)" "1:40 2:40 3:40 4:1"
send_phase $((121 * R)) 2
split_is 2 $((40 * R)) $((40 * R)) $((40 * R)) $R

# Phase 3: leaf2's BIRD dies; plane 2 leaves the route.
kill -9 "$(cat "$LAB_DIR/bird2.pid")"
wait_until 20 weights_are "1:40 3:40 4:1" || true
expect_eq "phase 3: weights" "$(weights)" "1:40 3:40 4:1"
send_phase $((81 * R)) 3
split_is 3 $((40 * R)) 0 $((40 * R)) $R
expect_eq "lookup bound to eth-p2, which left the route: as without fare" \
	"$(host_lookup -4 198.51.100.1 eth-p2)" "$without2"
host_lookup_is "lookup bound to eth-p3 in phase 3" -4 198.51.100.1 eth-p3 \
	"via 10.3.0.1 dev eth-p3"

"$FARECTL" -n host route show
grep "fare:" "$LAB_DIR/fared.log" || true
lab_result
