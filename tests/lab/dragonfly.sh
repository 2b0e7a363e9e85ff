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
#   4. S11's global link to S21 rate-limited (tbf) and offered 2-3 times
#      its rate in many new flows: new flows spill to tier 1, and D
#      receives more than the tbf lets through.
#   5. H's plane-1 link loses carrier: traffic is on tier 1 within
#      seconds, while fared still holds plane 1's BGP route (hold time
#      90 s): the data path did not wait for BGP.
#
# With DF_BIRD_ONLY=1 (no fare.ko needed, e.g. on a build host) H runs
# BIRD instead of fared and only part 1 runs.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dragonfly-bird.bash"

LAB_DIR=$(mktemp -d /tmp/dragonfly.XXXXXX)
CTL=$LAB_DIR/fared.sock
DST=203.0.113.0/24
# The rate-limited global link S11 -> S21 and what the tier-1 path is
# given; their Path Bandwidths (binary16 GB/s) are what S11 and S12
# attach, so fared programs each plane's bandwidth = min(link, PB).
TBF_KBIT=2000
DF_PB_S11=3097	# 2.0008 Mbit/s
DF_PB_S12=5145	# 8.0032 Mbit/s
# Parts 2-5 need fare.ko's tier spill-over (in progress): until then H
# runs BIRD and only part 1 runs.
BIRD_ONLY=${DF_BIRD_ONLY:-1}

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

if wait_for 180 df_all_established; then
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
wait_for 120 l1_complete || true
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
wait_for 60 test "$(h_at_s21)" -gt 0 2>/dev/null || true
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
	wait_for 60 test "$(h_paths)" = "p1 4 C1;p2 4 C1 C2;p2 4 C1 C2 C3;" ||
		true
	expect_eq "H: D's paths per plane" "$(h_paths)" \
		"p1 4 C1;p2 4 C1 C2;p2 4 C1 C2 C3;"
	lab_result
	exit
fi
