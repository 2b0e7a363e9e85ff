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
set -eu
. "$(dirname "$0")/lib.sh"

FARED=$FARE_ROOT/userspace/fared/fared
DIR=$(mktemp -d /tmp/fare-host.XXXXXX)
CTL=$DIR/fared.sock
DST=198.51.100.1/32
# binary16 GB/s: 50 = 0x5240, 25 = 0x4e40; 0x7bff is the maximum.
PB50=21056
PB25=20032

# bird_conf I PB16: leaf I's BIRD, advertising the remote with that PB.
bird_conf()
{
	cat >"$DIR/bird$1.conf" <<EOC
router id 10.$1.0.1;
log "$DIR/bird$1.log" { warning, error };
protocol device { }
protocol static far {
	ipv4;
	route $DST blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$1.0.1, $2));
	};
}
protocol bgp tohost {
	local 10.$1.0.1 as 6510$1;
	neighbor 10.$1.0.2 as 65007;
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export where source = RTS_STATIC; };
}
EOC
}

birdc_() { birdc -s "$DIR/bird$1.ctl" "${@:2}"; }

fared_conf()
{
	local i

	cat <<EOC
router-id 192.0.2.7
local-as 65007
hold-time 30
connect-retry 1
control-socket $CTL
state-file $DIR/fared.state
role host
mode packet
interface eth-p1 bandwidth 400G
interface eth-p2 bandwidth 400G
interface eth-p3 bandwidth 400G
interface eth-p4 bandwidth auto
originate 192.0.2.7/32
policy remote {
	permit 198.51.100.0/24 le 32
}
policy self {
	permit 192.0.2.7/32
}
EOC
	for i in 1 2 3 4; do
		cat <<EOC
plane $i {
	neighbor 10.$i.0.1 {
		remote-as 6510$i
		interface eth-p$i
		import remote
		export self
	}
}
EOC
	done
}

# "plane:weight ..." of DST in fare.ko, or "none".
weights()
{
	"$FARECTL" -j -n host route show | jq -r --arg d "$DST" \
		'[.[] | select(.dst == $d) | .nexthops[] |
		  "\(.plane):\(.weight)"] | if length > 0 then join(" ")
		  else "none" end'
}

weights_are() { [ "$(weights)" = "$1" ]; }

# send N PHASE: N datagrams to the remote; the receiver's counts per plane.
send()
{
	local log=$DIR/sink$2

	sink_start "$log" --bind 198.51.100.1 --port 9100 --count "$1" \
		--timeout 60
	ip netns exec host taskset -c 0 "$FARE_UDP" send --src 192.0.2.7 \
		--dst 198.51.100.1 --port 9100 --count "$1" --interval-us 20
	rc=0
	sink_wait "$log" || rc=$?
	expect_eq "phase $2: every datagram arrived once" $rc 0
}

split_is()
{
	local phase=$1 i=1 want

	shift
	for want in "$@"; do
		expect_near "phase $phase: plane $i" \
			"$(sink_iface "$DIR/sink$phase" eth-leaf$i)" "$want" 1
		i=$((i + 1))
	done
}

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
	ip netns exec leaf$i bird -c "$DIR/bird$i.conf" -s "$DIR/bird$i.ctl" \
		-P "$DIR/bird$i.pid"
	LAB_PIDS+=("$(cat "$DIR/bird$i.pid")")
done
fared_conf >"$DIR/fared.conf"
ip netns exec host "$FARED" -c "$DIR/fared.conf" >"$DIR/fared.log" 2>&1 &
LAB_PIDS+=("$!")

# Phase 1.
if ! wait_for 30 weights_are "1:40 2:40 3:20 4:1"; then
	cat "$DIR/fared.log"
fi
expect_eq "phase 1: weights" "$(weights)" "1:40 2:40 3:20 4:1"
expect_eq "plane 4's link from ethtool (bit/s)" \
	"$(path_field 10.4.0.1 link_bps)" 10000000000
expect_eq "plane 4's PB (bit/s)" "$(path_field 10.4.0.1 pb_bps)" \
	400000000000
expect_eq "plane 4's rule" "$(path_field 10.4.0.1 rule)" \
	"$(path_field 10.1.0.1 rule)"
expect_eq "plane 3's weight explained" "$(path_field 10.3.0.1 explain)" \
	"plane 3: PB 25 GB/s (transitive), link 400 Gb/s: min 25 GB/s, weight 20: $(path_field 10.3.0.1 rule)"
"$FARECTL" bgp -s "$CTL" routes "$DST"
# The host's loopback reaches every leaf with PB = maximum (fare §4.1).
for i in 1 2 3 4; do
	wait_for 10 birdc_ $i show route 192.0.2.7/32 all >/dev/null || true
	if birdc_ $i show route 192.0.2.7/32 all |
		grep -q "(unknown 0x10f, 192.0.2.7, 31743)"; then
		pass "leaf$i got 192.0.2.7/32 with PB 0x7bff"
	else
		fail "leaf$i did not get 192.0.2.7/32 with PB 0x7bff"
		birdc_ $i show route 192.0.2.7/32 all
	fi
done
send 10100 1
split_is 1 4000 4000 2000 100

# Phase 2: leaf3's transceiver is fixed, its PB back to 50 GB/s.
bird_conf 3 $PB50
birdc_ 3 configure >/dev/null
wait_for 20 weights_are "1:40 2:40 3:40 4:1" || true
expect_eq "phase 2: weights" "$(weights)" "1:40 2:40 3:40 4:1"
send 12100 2
split_is 2 4000 4000 4000 100

# Phase 3: leaf2's BIRD dies; plane 2 leaves the route.
kill -9 "$(cat "$DIR/bird2.pid")"
wait_for 20 weights_are "1:40 3:40 4:1" || true
expect_eq "phase 3: weights" "$(weights)" "1:40 3:40 4:1"
send 8100 3
split_is 3 4000 0 4000 100

"$FARECTL" -n host route show
grep "fare:" "$DIR/fared.log" || true
lab_result
