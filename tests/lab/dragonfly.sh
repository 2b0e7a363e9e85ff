#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Dragonfly+ (draft-agt-rtgwg-dragonfly-routing-01) end to end: three
# groups of BIRD routers configured per the draft's §5.1-§5.2 (local,
# core and reflect tables, C1/C2/C3, the 2/1/0 prepends, no propagation of
# C2; tests/lab/dragonfly-bird.bash), and the host H behind leaf L1 with two
# planes: plane 1 reaches D (203.0.113.0/24 behind L2) over LGL (tier 0),
# plane 2 over LGGL (tier 1) and LGLLGL (tier 2). Documentation/
# dragonfly.md has the picture.
#
#   1. BGP: LGL, LGGL and LGLLGL reach L1 and H with equal AS-path length
#      (the draft's claim), C2 routes are never propagated, the transit
#      spine forwards on its shortest path.
#   2. fared tiers them from the communities: plane 1 tier 0, plane 2
#      tier 1; fare.ko's route carries the tiers and each plane's
#      bandwidth min(link, PB).
#   3. Idle fabric, light load: every packet on tier 0.
#   4. S11's global link to S21 rate-limited (tbf, 500 kbit/s) and
#      offered 2-4 times its rate in many new flows: new flows spill to
#      tier 1, and D receives more than the tbf lets through.
#   5. H's plane-1 link loses carrier: nothing goes to plane 1 later than
#      2 s after, tier 1 carries the rest, while fared still holds plane
#      1's BGP route (hold time 90 s): the data path did not wait for BGP.
#
# With DF_BIRD_ONLY=1 (no fare.ko needed, e.g. on a build host) H runs
# BIRD instead of fared and only part 1 runs.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dragonfly-bird.bash"

LAB_DIR=$(mktemp -d /tmp/dragonfly.XXXXXX)
CTL=$LAB_DIR/fared.sock
DST=203.0.113.0/24
# The rate-limited global link S11 -> S21 and what the tier-1 path is
# given; their Path Bandwidths (binary16 GB/s) are what S11 and S12
# attach, so fared programs each plane's bandwidth = min(link, PB).
TBF_KBIT=500
DF_PB_S11=1049	# 500.2 kbit/s
DF_PB_S12=5145	# 8.0032 Mbit/s
BIRD_ONLY=${DF_BIRD_ONLY:-0}

# H as a plain BIRD speaker (DF_BIRD_ONLY): one table per plane,
# ADD-PATH receive.
h_bird_conf()
{
	local p

	{
		df_bird_common 192.0.2.7 H
		echo "protocol static own { ipv4; route 192.0.2.7/32 blackhole; }"
		for p in 1 2; do
			cat <<EOC
ipv4 table p$p;
protocol pipe own_p$p { table master4; peer table p$p; import none; export all; }
protocol bgp plane$p {
	local 10.1.$((10 + p)).2 as $DF_HOST_AS;
	neighbor 10.1.$((10 + p)).1 as ${DF_AS_BASE}1;
	hold time $DF_HOLD;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { table p$p; add paths rx; import all; export all; };
}
EOC
		done
	} >"$LAB_DIR/bird-H.conf"
}

fared_conf()
{
	local p

	cat <<EOC
router-id 192.0.2.7
local-as $DF_HOST_AS
# nh_tx reads fare.ko's per-route counters, off by default in fared.
route-stats on
hold-time $DF_HOLD
connect-retry 1
control-socket $CTL
state-file $LAB_DIR/fared.state
role host
mode flowlet
interface p1 bandwidth auto
interface p2 bandwidth auto
tier-community minimal $DF_C1
tier-community transit $DF_C2
tier-community reflect $DF_C3
originate 192.0.2.7/32
policy remote {
	permit 203.0.113.0/24
}
policy self {
	permit 192.0.2.7/32
}
EOC
	for p in 1 2; do
		cat <<EOC
plane $p {
	neighbor 10.1.$((10 + p)).1 {
		remote-as ${DF_AS_BASE}1
		interface p$p
		add-path receive
		import remote
		export self
	}
}
EOC
	done
}

# ---- part 1: BGP -------------------------------------------------------

if [ "$BIRD_ONLY" != 1 ]; then
	load_fare
fi
df_topo
df_bird_start
if [ "$BIRD_ONLY" = 1 ]; then
	h_bird_conf
	df_bird_start_one H
else
	"$FARECTL" -n H plane add 1 dev p1 via 10.1.11.1
	"$FARECTL" -n H plane add 2 dev p2 via 10.1.12.1
	fared_conf >"$LAB_DIR/fared.conf"
	ip netns exec H "$FARE_ROOT/userspace/fared/fared" \
		-c "$LAB_DIR/fared.conf" >"$LAB_DIR/fared.log" 2>&1 &
	FARED_PID=$!
	LAB_PIDS+=("$FARED_PID")
fi

if wait_until 180 df_all_established; then
	pass "every BIRD session of the fabric is established"
else
	fail "BIRD sessions not all established"
	for r in S11 S12 S21 S22 S31 S32 L1 L2 L3; do
		df_birdc $r show protocols
	done
fi

# All three paths at L1: one in table t1 (uplink S11), two in t2 (S12).
l1_paths() { { df_paths L1 t1; df_paths L1 t2; } | sort | tr '\n' ';'; }
l1_complete() { [ "$(l1_paths)" = "3 C1;3 C1 C2;3 C1 C2 C3;" ]; }
wait_until 120 l1_complete || true
expect_eq "L1: D's paths (AS-path length, communities)" "$(l1_paths)" \
	"3 C1;3 C1 C2;3 C1 C2 C3;"
df_birdc L1 show route "$DST" table t2 all || true
expect_eq "S11 local table: LGL" "$(df_paths S11 local_vrf | tr '\n' ';')" \
	"3 C1;"
expect_eq "S12 local table: LGGL, LGLLGL" \
	"$(df_paths S12 local_vrf | tr '\n' ';')" "3 C1 C2;3 C1 C2 C3;"
# The transit spine S31 forwards on its shortest path: its core table's
# best route to D is its own global link to S22 (AS path 65002), not the
# reflected one, and that is what its kernel table 200 holds.
expect_eq "S31 core table: direct and reflected" \
	"$(df_paths S31 core_vrf | tr '\n' ';')" "1 C1;2 C1 C3;"
expect_eq "S31 forwards transit traffic to D over its link to S22" \
	"$(ip -n S31 -j route show table 200 "$DST" | jq -r '.[0].dev')" g22
# No propagation of C2: S21 holds H's prefix via group 3 with C2 and
# must not pass it on; no spine exports on a global link any path that
# arrived with C2 (prefix and AS path compared, as the export filter
# adds C2 to what it propagates).
h_at_s21()
{
	df_birdc S21 show route table core_vrf where \
		"$(df_bird_pair $DF_C2) ~ bgp_community && net = 192.0.2.7/32" \
		count | awk '/ of [0-9]+ routes/ { print $1 }'
}
wait_until 60 test "$(h_at_s21)" -gt 0 2>/dev/null || true
expect_eq "S21: paths to H carrying C2 (via group 3)" "$(h_at_s21)" 1
# route_keys ROUTER ARGS...: "PREFIX AS_PATH" of each path "show route"
# ARGS lists.
route_keys()
{
	df_birdc "$1" show route "${@:2}" all | awk '
		/^[0-9]/ { pfx = $1 }
		/BGP.as_path:/ { sub(/.*BGP.as_path: */, ""); print pfx " " $0 }' |
		sort -u
}
c2_in=0
c2_out=0
for s in $DF_SPINES; do
	route_keys S$s table core_vrf \
		where "$(df_bird_pair $DF_C2) ~ bgp_community" >"$LAB_DIR/c2-S$s"
	c2_in=$((c2_in + $(wc -l <"$LAB_DIR/c2-S$s")))
	for p in $(df_birdc S$s show protocols | awk '$1 ~ /^glb_/ { print $1 }'); do
		route_keys S$s export "$p" >"$LAB_DIR/out-S$s-$p"
		n=$(comm -12 "$LAB_DIR/c2-S$s" "$LAB_DIR/out-S$s-$p" | wc -l)
		[ "$n" -eq 0 ] || comm -12 "$LAB_DIR/c2-S$s" "$LAB_DIR/out-S$s-$p" |
			sed "s/^/S$s -> $p: /"
		c2_out=$((c2_out + n))
	done
done
[ $c2_in -gt 0 ] && pass "paths arrived with C2 at the spines: $c2_in" ||
	fail "no path arrived with C2 at any spine"
expect_eq "of them exported on a global link" "$c2_out" 0

if [ "$BIRD_ONLY" = 1 ]; then
	# H itself: three paths of equal length (one AS more, L1's).
	h_paths() {
		{ df_paths H p1 | sed 's/^/p1 /'; df_paths H p2 | sed 's/^/p2 /'; } |
			sort | tr '\n' ';'
	}
	wait_until 60 test "$(h_paths)" = "p1 4 C1;p2 4 C1 C2;p2 4 C1 C2 C3;" ||
		true
	expect_eq "H: D's paths per plane" "$(h_paths)" \
		"p1 4 C1;p2 4 C1 C2;p2 4 C1 C2 C3;"
	lab_result
	exit
fi

# ---- part 2: fared's tiers and fare.ko's route ---------------------------

fared_paths()
{
	"$FARECTL" -j bgp -s "$CTL" routes "$DST" 2>/dev/null |
		jq -r '[.[0].paths[] | "p\(.fare.plane) \(.as_path | split(" ") |
			length) t\(.fare.tier)"] | sort | join(";")'
}
wait_until 60 test "$(fared_paths)" = "p1 4 t0;p2 4 t1;p2 4 t2" || true
expect_eq "fared: D's paths (plane, AS-path length, tier)" "$(fared_paths)" \
	"p1 4 t0;p2 4 t1;p2 4 t2"
"$FARECTL" bgp -s "$CTL" routes "$DST" || true

# fare.ko's route: plane 1 at tier 0, plane 2 at tier 1 (its lowest).
kroute()
{
	"$FARECTL" -j -n H route show | jq -r --arg d "$DST" \
		'[.[] | select(.dst == $d) | .nexthops[] |
		  "\(.plane):t\(.tier)"] | sort | join(" ")'
}
wait_until 30 test "$(kroute)" = "1:t0 2:t1" || true
expect_eq "fare.ko: D's next hops (plane:tier)" "$(kroute)" "1:t0 2:t1"
"$FARECTL" -n H route show
# Each next hop's bandwidth (bytes/s) is min(link 10G, PB): S11's PB
# 1049 = 62525 B/s, S12's 5145 = 1000404 B/s (binary16 GB/s).
kbw()
{
	"$FARECTL" -j -n H route show | jq -r --arg d "$DST" \
		'[.[] | select(.dst == $d) | .nexthops[] |
		  "\(.plane):\(.bandwidth / 1000 | floor)k"] | sort | join(" ")'
}
expect_eq "fare.ko: next-hop bandwidths (plane:kB/s)" "$(kbw)" "1:62k 2:1000k"

# nh_tx PLANE: packets fare.ko sent to D over PLANE.
nh_tx()
{
	"$FARECTL" -j -n H route show | jq -r --arg d "$DST" --argjson p "$1" \
		'[.[] | select(.dst == $d) | .nexthops[] | select(.plane == $p) |
		  .tx_packets] | add // 0'
}
rx_bytes() { ip -n "$1" -s -j link show "$2" | jq '.[0].stats64.rx.bytes'; }

# d_sink LOG ARGS...: the receiver on D; waits until bound.
d_sink()
{
	local log=$1

	shift
	ip netns exec D "$FARE_UDP" sink --bind 203.0.113.1 "$@" >"$log" &
	LAB_SINK=$!
	LAB_PIDS+=("$LAB_SINK")
	wait_until 10 grep -q listening "$log"
}

h_send() { ip netns exec H "$FARE_UDP" send --src 192.0.2.7 --dst 203.0.113.1 "$@"; }

# ---- part 3: idle fabric, light load: tier 0 only --------------------------
# 400 datagrams of 100 bytes in 20 flows at about 100/s (80 kbit/s, a
# sixth of tier 0's 500 kbit/s, and too sparse for 4000 bytes of phantom
# queue to build up). Receiver side: what crossed each path's
# global link into the next group (S21's link from S11: tier 0; S31's
# from S12: tier 1; BGP keepalives allowed for).
n=400
p1=$(nh_tx 1) p2=$(nh_tx 2)
g0=$(rx_packets S21 g11) g1=$(rx_packets S31 g12)
d_sink "$LAB_DIR/sink3" --port 9300 --count $n --flows 20 --timeout 60
h_send --port 9300 --count $n --size 100 --interval-us 10000 --flows 20
rc=0
sink_wait "$LAB_DIR/sink3" || rc=$?
expect_eq "idle: every datagram arrived once" $rc 0
expect_eq "idle: fare.ko sent on plane 1 (tier 0)" $(($(nh_tx 1) - p1)) $n
expect_eq "idle: fare.ko sent on plane 2 (tier 1)" $(($(nh_tx 2) - p2)) 0
d0=$(($(rx_packets S21 g11) - g0))
d1=$(($(rx_packets S31 g12) - g1))
if [ $d0 -ge $n ] && [ $d0 -le $((n + 5)) ] && [ $d1 -le 5 ]; then
	pass "idle: the tier-0 global link carried $d0, the tier-1 one $d1"
else
	fail "idle: the tier-0 global link carried $d0, the tier-1 one $d1" \
		"(expected $n and 0, +5 for BGP)"
fi

# ---- part 4: the minimal path saturated: new flows spill to tier 1 ---------
# S11's global link to S21 shaped to TBF_KBIT (the PB S11 attaches, so
# plane 1's next-hop bandwidth is the same 500 kbit/s); H offers 2-4
# times that: 1400-byte datagrams paced at 2 ms (a loaded TCG guest's
# usleep adds 3-7 ms: 1.1-1.7 Mbit/s measured), in 200 flows sending in
# turn, so every datagram starts a new flowlet. UGAL-L (tier-hops 1,2: global hops;
# spill-bias 4000 bytes) must move new flowlets to tier 1 once plane 1's
# queue (its phantom queue drains at 500 kbit/s) outweighs tier 1's, and
# D must receive more than the tbf lets through in the same time.
tier_field()
{
	"$FARECTL" -j -n H stats | jq -r --argjson t "$1" --arg f "$2" \
		'[.tiers[]? | select(.tier == $t) | .[$f]] | add // 0'
}
"$FARECTL" -n H config set tier-hops 1,2 spill-bias 4000
"$FARECTL" -n H config show
tc -n S11 qdisc add dev g21 root tbf rate ${TBF_KBIT}kbit burst 4000 \
	latency 200ms
n=2000
p1=$(nh_tx 1) p2=$(nh_tx 2)
sp1=$(tier_field 1 spills) tp1=$(tier_field 1 packets)
b0=$(rx_bytes D l2)
g0=$(rx_packets S21 g11) g1=$(rx_packets S31 g12)
d_sink "$LAB_DIR/sink4" --port 9400 --count $n --flows 200 --timeout 90
t0=$(date +%s%N)
h_send --port 9400 --count $n --size 1400 --interval-us 2000 --flows 200
t1=$(date +%s%N)
sleep 1		# the tbf's queue (200 ms) drains
delivered=$(($(rx_bytes D l2) - b0))
sink_end "$LAB_DIR/sink4" >/dev/null || true
grep -e received -e iface "$LAB_DIR/sink4" || true
ms=$(((t1 - t0) / 1000000))
# What the tbf lets through in the sending interval plus the drain
# second, plus its bucket.
allowed=$((TBF_KBIT * (ms + 1000) / 8 + 4000))
spills=$(($(tier_field 1 spills) - sp1))
t1pk=$(($(tier_field 1 packets) - tp1))
s1=$(($(nh_tx 1) - p1)) s2=$(($(nh_tx 2) - p2))
d0=$(($(rx_packets S21 g11) - g0)) d1=$(($(rx_packets S31 g12) - g1))
log "saturated: D's UDP checksum errors: $(snmp D Udp InCsumErrors)"
log "saturated: sent $n in $ms ms; plane 1 $s1, plane 2 $s2; tier 1: $t1pk packets, $spills spills; global links: tier 0 $d0, tier 1 $d1; D got $delivered bytes, the tbf allows $allowed"
"$FARECTL" -n H stats || true
tc -n S11 -s qdisc show dev g21 || true
[ $spills -gt 0 ] && pass "saturated: $spills spills to tier 1" ||
	fail "saturated: no spill to tier 1"
# What fare.ko put on tier 1 must have crossed the tier-1 global link into
# group 3 (nearly all of it: a few BGP packets share that link, so a bare
# "more than zero" would prove nothing).
[ $t1pk -ge 20 ] && [ $d1 -ge $((t1pk * 9 / 10)) ] &&
	pass "saturated: tier 1 carried $t1pk packets ($d1 reached group 3)" ||
	fail "saturated: tier 1 carried $t1pk packets ($d1 reached group 3)"
[ $delivered -gt $allowed ] &&
	pass "saturated: D received $delivered bytes > $allowed the tbf allows" ||
	fail "saturated: D received $delivered bytes, not more than the $allowed the tbf allows"
tc -n S11 qdisc del dev g21 root

# ---- part 5: H's plane-1 link loses carrier -----------------------------
# 600 datagrams at about 100/s; after about 1 s L1's end of plane 1 goes
# down (H's p1 loses carrier). fare.ko stops using plane 1 as soon as it
# hears of it; fared's BGP session on plane 1 stays up until its 90 s hold
# time expires, so its route via plane 1 is still there when the traffic
# has long moved. (A failure deeper in the path, with the first hop up, is
# repaired by BGP: the path's withdrawal reaches fared and it removes the
# next hop.)
#
# The carrier event reaches fare.ko through linkwatch, which may hold it
# back for up to a second, so what fare.ko sent on plane 1 in that second
# is lost (at most ~100 datagrams at 100/s; 110 allowed). From then on
# nothing may be lost: with the sender stopped 2 s after the failure and
# again at the end (nothing in flight either time), every datagram H's
# UDP layer sent in between must be in D's UDP counter.
n=600
LOSS_MAX=110
p1=$(nh_tx 1) p2=$(nh_tx 2)
d_sink "$LAB_DIR/sink5" --port 9500 --count $n --flows 20 --timeout 45
ip netns exec H "$FARE_UDP" send --src 192.0.2.7 --dst 203.0.113.1 \
	--port 9500 --count $n --size 200 --interval-us 10000 --flows 20 \
	--keep-going 1 &
send_pid=$!
sleep 1
ip -n L1 link set h1 down
t_down=$SECONDS
sleep 2
kill -STOP $send_pid
sleep 0.5
sent_2s=$(snmp H Udp OutDatagrams) got_2s=$(snmp D Udp InDatagrams)
p1_2s=$(nh_tx 1)
kill -CONT $send_pid
wait $send_pid || true
sleep 0.5
sent_end=$(snmp H Udp OutDatagrams) got_end=$(snmp D Udp InDatagrams)
# Everything about the failure is read at once, well within the hold
# time (fared withdraws plane 1's path when it expires, which replaces
# the route and restarts its counters).
fared_p1()
{
	"$FARECTL" -j bgp -s "$CTL" routes "$DST" 2>/dev/null |
		jq '[.[0].paths[] | select(.fare.plane == 1)] | length'
}
after=$((SECONDS - t_down))
expect_eq "fared still has the BGP path via plane 1, $after s after the failure" \
	"$(fared_p1)" 1
expect_eq "fare.ko's route still names plane 1 (not usable)" \
	"$(kroute)" "1:t0 2:t1"
p1_end=$(nh_tx 1)
s1=$((p1_end - p1))
s2=$(($(nh_tx 2) - p2))
expect_eq "packets on plane 1 later than 2 s after the failure" \
	$((p1_end - p1_2s)) 0
rc=0
sink_end "$LAB_DIR/sink5" || rc=$?
got=$(awk '/^received/ { print $2 }' "$LAB_DIR/sink5")
lost=$((n - got))
log "carrier loss: plane 1 sent $s1, plane 2 sent $s2, D got $got of $n"
log "from 2 s after the failure: H sent $((sent_end - sent_2s)), D got $((got_end - got_2s))"
expect_eq "carrier loss: D got every datagram sent from 2 s after the failure" \
	$((got_end - got_2s)) $((sent_end - sent_2s))
[ $((sent_end - sent_2s)) -ge 100 ] ||
	fail "carrier loss: only $((sent_end - sent_2s)) sent after 2 s; the check proves little"
if [ $lost -le $LOSS_MAX ] && [ $s2 -gt 0 ]; then
	pass "carrier loss: $lost lost (at most $LOSS_MAX), tier 1 carried $s2"
else
	fail "carrier loss: $lost lost (at most $LOSS_MAX), plane 2 sent $s2"
fi
ip -n L1 link set h1 up
"$FARECTL" -n H route show
"$FARECTL" -n H stats

lab_result
