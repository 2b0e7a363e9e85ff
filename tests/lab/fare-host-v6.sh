#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare-host over IPv6 (topo_planes 3 v6): fared on the host keeps one
# IPv6 eBGP session per plane with a BIRD leaf; each leaf advertises the
# remote host 2001:db8:100::1/128 with a transitive Path Bandwidth, and
# fared programs fare.ko with IPv6 gateways only (the planes carry no
# IPv4). Host links 400G (50 GB/s):
#
#   phase  PB (GB/s) 1/2/3        weights   of 500/400
#   1      50 50 25               2:2:1     200 200 100
#   2      leaf3's BIRD killed    1:1       200 200 0
#
# Per-packet mode: each plane's count at the receiver is exact within 1.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/fare-host-v6.XXXXXX)
CTL=$LAB_DIR/fared.sock
DST=2001:db8:100::1/128
SRC=2001:db8:7::7
# binary16 GB/s: 50 = 0x5240, 25 = 0x4e40.
PB=(0 21056 21056 20032)

# bird_conf I: leaf I's BIRD, one IPv6 session to the host.
bird_conf()
{
	cat >"$LAB_DIR/bird$1.conf" <<EOC
router id 10.$1.0.1;
log "$LAB_DIR/bird$1.log" { warning, error };
protocol device { }
protocol static far {
	ipv6;
	route $DST blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$1.0.1, ${PB[$1]}));
	};
}
protocol bgp tohost {
	local 2001:db8:$1::1 as 6510$1;
	neighbor 2001:db8:$1::2 as 65007;
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv6 { import all; export where source = RTS_STATIC; };
}
EOC
}

weights() { host_weights "$DST"; }
weights_are() { host_weights_are "$DST" "$1"; }

# The host's planes as fare.ko has them: "id:gw4:gw6 ...".
planes()
{
	"$FARECTL" -j -n host plane show |
		jq -r '[.[] | "\(.id):\(.gw4 // "-"):\(.gw6 // "-")"] | join(" ")'
}

load_fare
topo_planes 3 v6
for i in 1 2 3; do
	bird_conf $i
	leaf_bird_start $i
done
FARED_HOST_V6=1 fared_host_start 30 400G 3

# Phase 1.
wait_until 30 weights_are "1:2 2:2 3:1" || cat "$LAB_DIR/fared.log"
expect_eq "phase 1: weights" "$(weights)" "1:2 2:2 3:1"
expect_eq "planes: IPv6 gateways only" "$(planes)" \
	"1:-:2001:db8:1::1 2:-:2001:db8:2::1 3:-:2001:db8:3::1"
expect_eq "the kernel route of $DST" \
	"$(ip -n host -6 -j route show table 249 exact "$DST" |
	   jq -r '.[0].dev')" fare0
# The host's loopback reaches every leaf over IPv6.
for i in 1 2 3; do
	wait_until 10 leaf_birdc $i show route $SRC/128 >/dev/null || true
	if leaf_birdc $i show route $SRC/128 | grep -F "$SRC/128" >/dev/null; then
		pass "leaf$i got $SRC/128"
	else
		fail "leaf$i did not get $SRC/128"
	fi
done
send_phase 500 1 $SRC 2001:db8:100::1
split_is 1 200 200 100

# Phase 2: leaf3's BIRD dies; plane 3 leaves the route.
kill -9 "$(cat "$LAB_DIR/bird3.pid")"
wait_until 20 weights_are "1:1 2:1" || true
expect_eq "phase 2: weights" "$(weights)" "1:1 2:1"
send_phase 400 2 $SRC 2001:db8:100::1
split_is 2 200 200 0

"$FARECTL" -n host route show
lab_result
