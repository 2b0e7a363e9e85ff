# SPDX-License-Identifier: GPL-2.0-only
#
# A small Dragonfly+ built from BIRD instances, routed per
# draft-agt-rtgwg-dragonfly-routing-01 §5.1-§5.2 (PROTOCOL.md §8.3).
# Sourced by tests/lab/dragonfly.sh after lib.sh; also usable on a host
# without fare.ko (namespaces and BIRD only). Documentation/dragonfly.md
# explains the design and quotes the configs this file writes.
#
# Three groups, each a leaf-spine with one leaf and two spines, each group
# its own AS (group g: AS 6500g, leaf Lg, spines Sg1 and Sg2; iBGP inside
# a group, eBGP on global links). Global links:
#
#   S11-S21  group 1 to 2 direct
#   S12-S31  group 1 to 3
#   S31-S22  group 3 to 2
#   S32-S21  group 3 to 2
#
# S12 has no link to group 2, so from group 1 to D (203.0.113.0/24 behind
# L2) there are three paths:
#   LGL     L1 S11 S21 L2               C1 only  tier 0
#   LGGL    L1 S12 S31 S22 L2           C1 C2    tier 1
#   LGLLGL  L1 S12 S31 L3 S32 S21 L2    C1 C2 C3 tier 2 (reflected by L3)
#
# The host H sits behind L1 with two links ("VRF multiplexing" of the
# leaf's uplinks): on L1, H's link 1 shares a BIRD table and a kernel
# table with the uplink to S11 only, link 2 with the uplink to S12 only.
#
# Addresses:
#   local link Lg-Sgs        10.g.s.0/30       spine .1, leaf .2
#   reflect link L3-S3s      10.3.(4+s).0/30   spine .1, leaf .2
#   global link n (above)    10.100.n.0/30     first spine .1, second .2
#   L1-H plane p             10.1.(10+p).0/30  L1 .1, H .2
#   L2-D                     10.2.20.0/30      L2 .1, D .2
#   H's loopback 192.0.2.7/32, D's 203.0.113.1/32
#
# Interfaces: on a spine "lf" (to its leaf), "rf" (reflect link), "gHK"
# (global link to spine SHK); on a leaf "sS"/"rS" (local/reflect link to
# spine S), L1 "h1"/"h2", L2 "eth-d"; on H "p1"/"p2"; on D "l2".
#
# Forwarding on every router uses the kernel table of the BIRD table the
# arriving interface belongs to, chosen by "ip rule iif": a spine's main
# table is its local table, table 200 its core table (rules for the
# global and reflect links); L1's tables 101 and 102 serve H's links 1
# and 2. Only the best path of each table is installed (enough for LGL
# and LGGL forwarding). The reflect tables are not installed in any
# kernel table: the LGLLGL path exists in BGP but carries no traffic.

DF_AS_BASE=6500
DF_HOST_AS=${DF_HOST_AS:-65007}
DF_HOLD=${DF_HOLD:-90}
# C1, C2, C3 (draft §5.2 gives no values).
DF_C1=${DF_C1:-65000:1}
DF_C2=${DF_C2:-65000:2}
DF_C3=${DF_C3:-65000:3}
# FARE Path Bandwidth (binary16 GB/s) the spines of group 1 attach on
# import into their local table: what the path through S11's global link
# and through S12's can carry. Empty: none.
DF_PB_S11=${DF_PB_S11:-}
DF_PB_S12=${DF_PB_S12:-}
DF_GLOBAL="11-21 12-31 31-22 32-21"
DF_SPINES="11 12 21 22 31 32"
DF_DST=203.0.113.0/24

df_bird_pair() { echo "(${1%%:*}, ${1##*:})"; }

# df_ns NAME: a router namespace (lib.sh netns_add: forwarding, loose rp).
df_ns() { netns_add "$1"; }

df_topo()
{
	local g s n=0 l a b

	for g in 1 2 3; do
		df_ns L$g
		for s in 1 2; do
			df_ns S$g$s
			veth_link S$g$s lf 10.$g.$s.1/30 L$g s$s 10.$g.$s.2/30
		done
	done
	for s in 1 2; do
		veth_link S3$s rf 10.3.$((4 + s)).1/30 L3 r$s \
			10.3.$((4 + s)).2/30
		ip -n S3$s rule add iif rf lookup 200
	done
	for l in $DF_GLOBAL; do
		n=$((n + 1))
		a=${l%-*}
		b=${l#*-}
		veth_link S$a g$b 10.100.$n.1/30 S$b g$a 10.100.$n.2/30
		ip -n S$a rule add iif g$b lookup 200
		ip -n S$b rule add iif g$a lookup 200
	done
	df_ns H
	ip -n H addr add 192.0.2.7/32 dev lo
	for s in 1 2; do
		veth_link L1 h$s 10.1.$((10 + s)).1/30 H p$s \
			10.1.$((10 + s)).2/30
		ip -n L1 rule add iif h$s lookup $((100 + s))
	done
	df_ns D
	ip -n D addr add 203.0.113.1/32 dev lo
	veth_link L2 eth-d 10.2.20.1/30 D l2 10.2.20.2/30
	ip -n D route add default via 10.2.20.1
	ip -n L2 route add $DF_DST via 10.2.20.2
}

# The filters every spine shares: draft §5.2, one function per pipe or
# session direction. PROTOCOL.md §8.3 has the reconstructed rules.
df_spine_filters()
{
	cat <<EOC
define C1 = $(df_bird_pair $DF_C1);
define C2 = $(df_bird_pair $DF_C2);
define C3 = $(df_bird_pair $DF_C3);
define MYAS = $1;

# local -> core (pipe export): what the group's own leaves originate
# (no C1); announced to other groups with C1 by core_out.
filter local_to_core {
	if C1 ~ bgp_community then reject;
	accept;
}

# core -> local (pipe import): routes of other groups, with C1 and C2
# (§5.2), the AS path prepended 2x for C1 only, 1x for C2, 0x for C3 so
# that LGL, LGGL and LGLLGL have the same length. A route this spine
# reflected itself (C1 C3 without C2) stays out: it is a detour
# through the own group.
filter core_to_local {
	if C1 !~ bgp_community then reject;
	if C2 ~ bgp_community then {
		if C3 !~ bgp_community then
			bgp_path.prepend(bgp_path.first);
	} else {
		if C3 ~ bgp_community then reject;
		bgp_path.prepend(bgp_path.first);
		bgp_path.prepend(bgp_path.first);
	}
${2:+	$2
}	accept;
}

# core -> other groups (eBGP export on global links).
filter core_out {
	if C2 ~ bgp_community then reject;	# never propagate C2
	if C1 !~ bgp_community then {		# originated in this group
		bgp_community.add(C1);
		accept;
	}
	bgp_community.add(C2);			# propagating a C1 route
	accept;
}

# core -> reflect (pipe import into reflect): C1-only routes, adding C3.
filter core_to_reflect {
	if C1 !~ bgp_community || C2 ~ bgp_community ||
	   C3 ~ bgp_community then reject;
	bgp_community.add(C3);
	accept;
}

# reflect -> core (pipe export): C3 routes reflected by the group's leaf.
# The reflection through the leaf counts as one AS hop: without it the
# LGLLGL path would be one shorter than LGGL where it arrives (iBGP
# through the leaf adds no AS), and a transit spine could prefer the
# reflected path over its own global link.
filter reflect_to_core {
	if C3 !~ bgp_community || proto !~ "ref_*" then reject;
	bgp_path.prepend(MYAS);
	accept;
}

# local -> the group's leaf: what came from other groups.
filter local_out {
	if C1 ~ bgp_community then accept;
	reject;
}
EOC
}

df_bird_common()
{
	cat <<EOC
router id $1;
log "$LAB_DIR/bird-$2.log" { warning, error };
protocol device { }
EOC
}

# df_ibgp NAME TABLE LOCAL NEIGHBOR AS EXTRA IMPORT EXPORT
df_ibgp()
{
	cat <<EOC
protocol bgp $1 {
	local $3 as $5;
	neighbor $4 as $5;
	direct;
	hold time $DF_HOLD;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
${6:+	$6
}	ipv4 {
		table $2;
		gateway direct;
		next hop self;
		add paths on;
		import $7;
		export $8;
	};
}
EOC
}

df_spine_conf()
{
	local g=${1:0:1} s=${1:1:1} as=$DF_AS_BASE${1:0:1} l n=0 a b pb pbset=""

	case $1 in
	11) pb=$DF_PB_S11 ;;
	12) pb=$DF_PB_S12 ;;
	*) pb= ;;
	esac
	# FARE Path Bandwidth (transitive, PROTOCOL.md §2.1) of this spine's
	# global link(s), for fared on the host.
	[ -z "$pb" ] ||
		pbset="bgp_ext_community.add((unknown 0x0f, 10.255.$g.$s, $pb));"
	{
		df_bird_common 10.255.$g.$s S$1
		df_spine_filters "$as" "$pbset"
		cat <<EOC
ipv4 table local_vrf;
ipv4 table core_vrf;
protocol kernel k_local {
	ipv4 { table local_vrf; export where source = RTS_BGP; import none; };
}
protocol kernel k_core {
	kernel table 200;
	ipv4 { table core_vrf; export where source = RTS_BGP; import none; };
}
protocol pipe p_local {
	table local_vrf;
	peer table core_vrf;
	export filter local_to_core;
	import filter core_to_local;
}
EOC
		df_ibgp loc_l$g local_vrf 10.$g.$s.1 10.$g.$s.2 "$as" "" all \
			"filter local_out"
		if [ "$g" = 3 ]; then
			cat <<EOC
ipv4 table reflect_vrf;
protocol pipe p_reflect {
	table reflect_vrf;
	peer table core_vrf;
	import filter core_to_reflect;
	export filter reflect_to_core;
}
EOC
			df_ibgp ref_l3 reflect_vrf 10.3.$((4 + s)).1 \
				10.3.$((4 + s)).2 "$as" "" all \
				"where C3 ~ bgp_community && proto !~ \"ref_*\""
		fi
		for l in $DF_GLOBAL; do
			n=$((n + 1))
			a=${l%-*}
			b=${l#*-}
			if [ "$a" = "$1" ]; then
				df_ebgp glb_s$b 10.100.$n.1 10.100.$n.2 "$as" \
					$DF_AS_BASE${b:0:1}
			elif [ "$b" = "$1" ]; then
				df_ebgp glb_s$a 10.100.$n.2 10.100.$n.1 "$as" \
					$DF_AS_BASE${a:0:1}
			fi
		done
	} >"$LAB_DIR/bird-S$1.conf"
}

# df_ebgp NAME LOCAL NEIGHBOR AS PEER_AS: a global link's session.
df_ebgp()
{
	cat <<EOC
protocol bgp $1 {
	local $2 as $4;
	neighbor $3 as $5;
	hold time $DF_HOLD;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 {
		table core_vrf;
		add paths on;
		import all;
		export filter core_out;
	};
}
EOC
}

# Leaves. L1: H's link p shares table tP (kernel table 100+P) with the
# uplink to S1P; eBGP to H (fared) with ADD-PATH tx, communities kept.
df_leaf1_conf()
{
	local s

	{
		df_bird_common 10.255.1.0 L1
		for s in 1 2; do
			cat <<EOC
ipv4 table t$s;
protocol kernel k_t$s {
	kernel table $((100 + s));
	ipv4 { table t$s; export where source = RTS_BGP; import none; };
}
protocol bgp host_p$s {
	local 10.1.$((10 + s)).1 as ${DF_AS_BASE}1;
	neighbor 10.1.$((10 + s)).2 as $DF_HOST_AS;
	hold time $DF_HOLD;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 {
		table t$s;
		add paths tx;
		import where net = 192.0.2.7/32;
		export where net = $DF_DST;
	};
}
EOC
			df_ibgp loc_s1$s t$s 10.1.$s.2 10.1.$s.1 ${DF_AS_BASE}1 \
				"" all all
		done
	} >"$LAB_DIR/bird-L1.conf"
}

df_leaf2_conf()
{
	local s

	{
		df_bird_common 10.255.2.0 L2
		cat <<EOC
protocol static origin_d {
	ipv4;
	route $DF_DST via 10.2.20.2;
}
EOC
		for s in 1 2; do
			df_ibgp loc_s2$s master4 10.2.$s.2 10.2.$s.1 \
				${DF_AS_BASE}2 "" all "where source = RTS_STATIC"
		done
	} >"$LAB_DIR/bird-L2.conf"
}

# L3 has no hosts: its local sessions only import; its reflect table
# reflects (iBGP route reflector, next hop self) between the spines'
# reflect tables.
df_leaf3_conf()
{
	local s

	{
		df_bird_common 10.255.3.0 L3
		echo "ipv4 table reflect_vrf;"
		for s in 1 2; do
			df_ibgp loc_s3$s master4 10.3.$s.2 10.3.$s.1 \
				${DF_AS_BASE}3 "" all none
			df_ibgp ref_s3$s reflect_vrf 10.3.$((4 + s)).2 \
				10.3.$((4 + s)).1 ${DF_AS_BASE}3 "rr client;" \
				all all
		done
	} >"$LAB_DIR/bird-L3.conf"
}

df_bird_start_one()
{
	ip netns exec "$1" bird -c "$LAB_DIR/bird-$1.conf" \
		-s "$LAB_DIR/bird-$1.ctl" -P "$LAB_DIR/bird-$1.pid" ||
		return 1
	# BIRD's parent returns before the daemon has written its pid file.
	wait_until 10 test -s "$LAB_DIR/bird-$1.pid" ||
		echo "lab: BIRD of $1 wrote no pid file" >&2
	LAB_PIDS+=("$(cat "$LAB_DIR/bird-$1.pid")")
}

df_bird_start()
{
	local s

	for s in $DF_SPINES; do
		df_spine_conf $s
	done
	df_leaf1_conf
	df_leaf2_conf
	df_leaf3_conf
	for s in $DF_SPINES; do
		df_bird_start_one S$s || return 1
	done
	for s in 1 2 3; do
		df_bird_start_one L$s || return 1
	done
}

# df_birdc ROUTER ARGS...
df_birdc() { birdc -s "$LAB_DIR/bird-$1.ctl" "${@:2}"; }

# df_established ROUTER: every BGP session of ROUTER is up.
df_established()
{
	! df_birdc "$1" show protocols | awk '$2 == "BGP" && $6 != "Established"' |
		grep -q .
}

df_all_established()
{
	local r

	for r in S11 S12 S21 S22 S31 S32 L1 L2 L3; do
		df_established $r || return 1
	done
}

# df_paths ROUTER TABLE: one line per path of D in TABLE of ROUTER:
# "ASPATH_LENGTH COMMUNITIES" (communities sorted, e.g. "3 C1 C2").
df_paths()
{
	df_birdc "$1" show route "$DF_DST" table "$2" all | awk -v c1="$DF_C1" \
		-v c2="$DF_C2" -v c3="$DF_C3" '
		function flush() {
			if (!seen) return
			printf "%d", len
			if (c[c1]) printf " C1"
			if (c[c2]) printf " C2"
			if (c[c3]) printf " C3"
			printf "\n"
			delete c; seen = 0
		}
		/unicast|unreachable/ { flush(); seen = 1; len = 0 }
		/BGP.as_path:/ { len = NF - 1 }
		/BGP.community:/ {
			for (i = 2; i <= NF; i++) {
				x = $i; gsub(/[(), ]/, "", x)
				sub(/,/, ":", x)
			}
			s = $0; sub(/.*BGP.community: /, "", s)
			gsub(/\) \(/, ")(", s)
			n = split(s, p, ")")
			for (i = 1; i <= n; i++) {
				x = p[i]; gsub(/[( ]/, "", x); sub(/,/, ":", x)
				if (x != "") c[x] = 1
			}
		}
		END { flush() }' | sort
}
