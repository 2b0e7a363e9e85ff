#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Dragonfly+ tiers from BGP communities (draft-agt-rtgwg-dragonfly-
# routing-01 §5.2, PROTOCOL.md §8.3, §8.5): fared as a host with two
# planes, under valgrind, no fare.ko on the host (what would be
# programmed is what "routes json" reports as nexthops); in a guest with
# fare.ko (tests/lab/bgp-kernel.sh) each of those is also read from
# fare.ko. Two BIRDs, one
# per plane, each send several paths per prefix by ADD-PATH, tagged
# C1 = 65000:1, C2 = 65000:2, C3 = the large community 65000:0:3, and a
# Path Bandwidth each (links 100G = 12.5 GB/s, above every PB here):
#
#   T  10.202.10.0/24  plane 1: C1+C2 8 GB/s, C1 4 GB/s
#                      plane 2: C1+C3 8 GB/s, C1+C2 2 GB/s
#      -> plane 1 tier 0 (its C1-only path, 4), plane 2 tier 1 (2): 2:1
#   I  10.202.11.0/24  plane 1: no tier community 4 GB/s, C1 8 GB/s
#                      plane 2: C1 2 GB/s
#      -> intra-group, minimal only: plane 1's untagged path alone
#   R  10.202.12.0/24  plane 1: C1+C3 4 GB/s; plane 2: C1+C2 4 GB/s
#      -> plane 1 tier 2, plane 2 tier 1, 1:1
#
# Then: I's untagged path is withdrawn (its tiers come back), a reload
# without tier-community makes every tier 0 and one with them restores
# the tiers (SIGHUP re-evaluates), and fared stops clean.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
R_AS=4200000003
T=10.202.10.0/24
I=10.202.11.0/24
R=10.202.12.0/24
TIERS="tier-community minimal 65000:1
tier-community transit 65000:2
tier-community reflect 65000:0:3"

setup_net
# fared_conf [GLOBAL_LINES]
fared_conf()
{
	cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head 30)
role host
interface veth0 bandwidth 100G
${1:-}
policy in {
	permit 10.202.0.0/16 le 32
}
policy out {
	permit 10.203.0.0/16 le 32
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		add-path receive
		import in
		export out
	}
}
plane 2 {
	neighbor $R4 {
		remote-as $R_AS
		interface veth0
		add-path receive
		import in
		export out
	}
}
EOC
}

C1='bgp_community.add((65000,1));'
C2='bgp_community.add((65000,2));'
C3='bgp_large_community.add((65000,0,3));'
# pb RID GBS_BINARY16: a transitive Path Bandwidth (sub-type 0x0f).
pb() { echo "bgp_ext_community.add((unknown 0x0f, $1, $2));"; }
# binary16: 2 GB/s 0x4000, 4 GB/s 0x4400, 8 GB/s 0x4800.
PB2=16384
PB4=17408
PB8=18432

# bird_conf NAME ROUTER_ID LOCAL_ADDR AS STATIC_PROTOCOLS
bird_conf()
{
	cat >"$DIR/$1.conf" <<EOC
router id $2;
log "$DIR/$1.log" all;
protocol device { scan time 1; }
$5
protocol bgp fared4 {
	local $3 as $4;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export where source = RTS_STATIC; add paths tx; };
}
EOC
}

# Plane 1: one static protocol per path, so that each prefix has several.
bird_conf p1 10.201.0.2 $B4 $B_AS "
protocol static a { ipv4;
	route $T blackhole { $C1 $C2 $(pb $B4 $PB8) };
	route $R blackhole { $C1 $C3 $(pb $B4 $PB4) };
}
protocol static b { ipv4;
	route $T blackhole { $C1 $(pb $B4 $PB4) };
	route $I blackhole { $C1 $(pb $B4 $PB8) };
}
protocol static intra { ipv4;
	route $I blackhole { $(pb $B4 $PB4) };
}"
bird_conf p2 10.201.0.3 $R4 $R_AS "
protocol static a { ipv4;
	route $T blackhole { $C1 $C3 $(pb $R4 $PB8) };
	route $I blackhole { $C1 $(pb $R4 $PB2) };
	route $R blackhole { $C1 $C2 $(pb $R4 $PB4) };
}
protocol static b { ipv4;
	route $T blackhole { $C1 $C2 $(pb $R4 $PB2) };
}"

fared_conf "$TIERS"
for b in p1 p2; do
	ip netns exec "$NS_B" bird -c "$DIR/$b.conf" -s "$DIR/$b.ctl" \
		-P "$DIR/$b.pid" || fail "BIRD $b did not start"
	bird_pid "$DIR/$b.pid"
done
# cleanup kills BIRD_PID and, with every pid of $NS_B, the other BIRD.
bird_pid "$DIR/p1.pid"
BIRD_PID=$BIRD_PID_READ
start_fared
wait_for 30 "fared Established with plane 1" fared_established $B4
wait_for 30 "fared Established with plane 2" fared_established $R4

# paths PREFIX: how many paths fared holds for it.
paths() { ctl routes json "$1" | jq '.[0].paths | length'; }
# nhs PREFIX: what fare.ko would get, "plane:weight:tier ...".
nhs()
{
	ctl routes json "$1" |
		jq -r '[.[0].nexthops[] | "\(.plane):\(.weight):\(.tier)"] | join(" ")'
}
# explain PREFIX PLANE PB: the explanation of that plane's path with
# that PB (bits/s, as "routes json" shows it) or, PB "-", without one.
explain()
{
	ctl routes json "$1" | jq -r --argjson pl "$2" --arg pb "$3" \
		'.[0].paths[] | select(.fare.plane == $pl) |
		 select(($pb == "-" and (.ext_communities | length) == 0) or
			(.ext_communities[] | ltrimstr("010f") | .[8:] ==
			 $pb)) | .fare.explain'
}
paths_are() { [ "$(paths "$1")" = "$2" ]; }
nhs_are() { [ "$(nhs "$1")" = "$2" ]; }
expect()
{
	local got
	got=$("${@:3}")
	[ "$got" = "$2" ] || fail "$1: got \"$got\", want \"$2\""
}

wait_for 30 "T's 4 paths (ADD-PATH: 2 + 2)" paths_are $T 4
wait_for 30 "I's 3 paths" paths_are $I 3
wait_for 30 "R's 2 paths" paths_are $R 2
ctl routes
# Two paths of one session, told apart by their ADD-PATH ids.
[ "$(ctl routes json $T | jq "[.[0].paths[] | select(.neighbor == \"$B4\") |
	.path_id] | unique | length")" = 2 ] ||
	fail "plane 1's two paths to $T do not have two path ids"

expect "T's next hops" "1:2:0 2:1:1" nhs $T
fare_expect "T's next hops" "$NS_F" $T "1:2:0 2:1:1"
# fare.ko is told min(link, PB) in bytes/s with each next hop.
[ "$(ctl routes json $T | jq -c '[.[0].nexthops[].bandwidth]')" = \
  "[4000000000,2000000000]" ] || fail "T's next-hop bandwidths"
explain $T 1 4400 | grep -q "^plane 1: tier 0 LGL (C1 minimal 65000:1): PB 4 GB/s.*weight 2" ||
	fail "T plane 1's C1-only path: $(explain $T 1 4400)"
explain $T 1 4800 | grep -q "^plane 1: tier 1 LGGL (C2 transit 65000:2): plane 1 already has a path of this or a better tier: not used$" ||
	fail "T plane 1's C2 path: $(explain $T 1 4800)"
explain $T 2 4800 | grep -q "^plane 2: tier 2 LGLLGL (C3 reflect 65000:0:3): plane 2 already has a path" ||
	fail "T plane 2's C3 path: $(explain $T 2 4800)"
explain $T 2 4000 | grep -q "^plane 2: tier 1 LGGL (C2 transit 65000:2): PB 2 GB/s.*weight 1" ||
	fail "T plane 2's C2 path: $(explain $T 2 4000)"
[ "$(ctl routes json $T | jq -c '[.[0].tiers, .[0].intra_group]')" = \
  "[true,false]" ] || fail "T: tiers/intra_group flags"
echo "ok: per plane the lowest tier, with that path's weight (2:1, tiers 0 and 1)"

expect "I's next hops" "1:1:0" nhs $I
fare_expect "I's next hops" "$NS_F" $I "1:1:0"
[ "$(ctl routes json $I | jq '.[0].intra_group')" = true ] ||
	fail "I is not intra-group"
explain $I 1 4400 | grep -q "^plane 1: intra-group (none of C1, C2, C3): minimal, tier 0: PB 4 GB/s" ||
	fail "I plane 1's untagged path: $(explain $I 1 4400)"
explain $I 1 4800 | grep -q "^plane 1: tier 0 LGL (C1 minimal 65000:1): the prefix is intra-group: minimal only, not used$" ||
	fail "I plane 1's C1 path: $(explain $I 1 4800)"
explain $I 2 4000 | grep -q "minimal only, not used$" ||
	fail "I plane 2's C1 path: $(explain $I 2 4000)"
ctl routes $I | grep -q "^  fare: dragonfly tiers, intra-group: minimal only: plane:weight\[/tier\] 1:1$" ||
	fail "I's text output"
echo "ok: an intra-group prefix is minimal only, its tiered paths unused"

expect "R's next hops" "1:1:2 2:1:1" nhs $R
fare_expect "R's next hops" "$NS_F" $R "1:1:2 2:1:1"
[ "$(ctl routes json $R | jq -c '.[0].paths[] | select(.fare.plane == 1) |
	[.communities, .large_communities, .fare.tier, .fare.tier_community]')" = \
  '[["65000:1"],["65000:0:3"],2,"65000:0:3"]' ] ||
	fail "R plane 1's communities and tier in JSON"
ctl routes $R | grep -q "^  fare: dragonfly tiers: plane:weight\[/tier\] 1:1/t2 2:1/t1$" ||
	fail "R's text output"
echo "ok: a reflected path (large C3) is tier 2"

# The untagged path goes: I is tiered again, 8:2 on tier 0.
birdc -s "$DIR/p1.ctl" disable intra >/dev/null || fail "birdc disable"
wait_for 30 "I's untagged path to go" paths_are $I 2
expect "I's next hops without its intra-group path" "1:4:0 2:1:0" nhs $I
fare_expect "I's next hops without its intra-group path" "$NS_F" $I "1:4:0 2:1:0"
echo "ok: without its intra-group path the prefix uses its tiers again"

# A reload without tier-community: every tier 0; with them: back.
fared_conf
kill -HUP "$FARED_PID"
wait_for 30 "tiers off after a reload" nhs_are $R "1:1:0 2:1:0"
fare_expect "R's next hops, tiers off" "$NS_F" $R "1:1:0 2:1:0"
[ "$(ctl routes json $R | jq '.[0].tiers')" = false ] ||
	fail "R still says tiers after the reload"
fared_conf "$TIERS"
kill -HUP "$FARED_PID"
wait_for 30 "tiers back after a reload" nhs_are $R "1:1:2 2:1:1"
fare_expect "R's next hops, tiers back" "$NS_F" $R "1:1:2 2:1:1"
fared_established $B4 && fared_established $R4 ||
	fail "a reload of tier-community reset a session"
echo "ok: SIGHUP re-evaluates the tiers, sessions stay up"

stop_fared_clean
if kernel_mode; then
	echo "ok: fared stopped with status 0"
else
	echo "ok: under valgrind, no error, no leak"
fi
