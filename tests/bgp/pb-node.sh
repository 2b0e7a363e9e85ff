#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Path bandwidth per node, not per session (draft-xu-idr-fare-05,
# "Multiple BGP sessions per switch pair"; fared.conf(5), FARE): fared as
# a leaf, under valgrind, with two links to one BIRD spine (router id
# 10.201.0.2, AS B_AS): veth0 (plane 1) and a second veth, veth1
# (plane 2), one BGP session over each. The spine sends 10.202.1.0/24
# over both with one transitive PB; fared passes it on to the spine
# fixture's far BIRD (lib.sh spine_conf, plane 3), and what that BIRD
# receives is the PB fared computed: the sum over the spine's paths.
#
#   two 10G links, PB 15 Gb/s   min(10 + 10, 15) = 15 Gb/s   (1.875 GB/s)
#                               per session it was 10 + 10 = 20 (2.5 GB/s)
#   one link (up2 disabled)     min(10, 15) = 10 Gb/s        (1.25 GB/s)
#   10G and 4G, PB 7 Gb/s       min(14, 7) = 7 Gb/s          (0.875 GB/s)
#                               per session 7 + 4 = 11       (1.375 GB/s)
#
# The split over the two planes reaches fare.ko only (in a guest with
# FBGP_KERNEL=1, read by fare_expect): 1:1, then plane 1 alone, then by
# link 5:2, then with "path-bandwidth node-split even" 1:1; with
# "node-split off" fared goes back to per-session minima (7:4, 1.375 GB/s).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
F4B=10.211.0.1
B4B=10.211.0.2

setup_net
# The second link between fared and the spine.
ip -n "$NS_F" link add veth1 type veth peer name veth1 netns "$NS_B" ||
	fail "veth1"
for ns in "$NS_F" "$NS_B"; do
	ip -n "$ns" link set veth1 up
done
ip -n "$NS_F" addr add $F4B/24 dev veth1
ip -n "$NS_B" addr add $B4B/24 dev veth1

# spine_conf gives the far BIRD's far.conf; fared's own configuration
# has the two planes to the spine.
spine_conf
# fared_conf VETH1-BANDWIDTH [GLOBAL-LINE]
fared_conf()
{
	cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role leaf
${2:-}
interface veth0 bandwidth 10G
interface veth1 bandwidth $1
policy all {
	permit 10.202.0.0/16 le 32
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		import all
		export all
	}
}
plane 2 {
	neighbor $B4B {
		remote-as $B_AS
		interface veth1
		import all
		export all
	}
}
plane 3 {
	neighbor $R4 {
		remote-as $SPINE_FAR_AS
		interface veth0
		import all
		export all
	}
}
EOC
}

# spine_bird PB: the spine, one BIRD with a session over each link, its
# route carrying a transitive PB of PB (binary16, GB/s, as BIRD prints it).
spine_bird()
{
	cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static spine {
	ipv4;
	route $SPINE_PFX blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.201.0.2, $1));
	};
}
template bgp up {
	local as $B_AS;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export where source = RTS_STATIC; };
}
protocol bgp up1 from up { local $B4; neighbor $F4 as $F_AS; strict bind on; }
protocol bgp up2 from up { local $B4B; neighbor $F4B as $F_AS; strict bind on; }
EOC
}

# far_pb: the PB the far BIRD has for the spine's prefix from fared (under
# fared's router id), the binary16 value as BIRD prints it.
far_pb()
{
	farc show route "$SPINE_PFX" protocol far4 all |
		sed -n 's/.*(unknown 0x10f, 10\.201\.0\.1, \([0-9]*\)).*/\1/p'
}
not_established() { ! fared_established "$1"; }
# expect_pb VALUE GB/S WHY: the far BIRD gets PB VALUE within 20 s.
expect_pb()
{
	local end=$((SECONDS + 20 * FARE_WAIT_SCALE))

	until [ "$(far_pb)" = "$1" ]; do
		[ $SECONDS -lt $end ] ||
			fail "the far BIRD has PB \"$(far_pb)\", want $1 ($2 GB/s: $3)"
		sleep 0.2
	done
	echo "ok: the far BIRD gets PB $2 GB/s: $3"
}

fared_conf 10G
spine_bird 16256				# 1.875 GB/s = 15 Gb/s
spine_start
wait_for 20 "fared Established over the second link" fared_established $B4B
expect_pb 16256 1.875 "two 10G links to one node, PB 15 Gb/s: min(20, 15)"
fare_expect "two links" "$NS_F" "$SPINE_PFX" "1:1:0 2:1:0"

# One link: the node is its one session.
birdc_ disable up2 >/dev/null || fail "birdc disable up2"
wait_for 20 "fared sees the second session go" not_established $B4B
expect_pb 15616 1.25 "one 10G link, PB 15 Gb/s: min(10, 15)"
fare_expect "one link" "$NS_F" "$SPINE_PFX" "1:1:0"
birdc_ enable up2 >/dev/null || fail "birdc enable up2"
wait_for 20 "fared Established over the second link again" \
	fared_established $B4B
expect_pb 16256 1.875 "the second link back"

# Unequal links: veth1 at 4G (a reload), the spine's PB 7 Gb/s.
fared_conf 4G
kill -HUP "$FARED_PID"
spine_bird 15104				# 0.875 GB/s = 7 Gb/s
birdc_ configure >/dev/null || fail "birdc configure"
expect_pb 15104 0.875 "10G and 4G links, PB 7 Gb/s: min(14, 7)"
fare_expect "by link" "$NS_F" "$SPINE_PFX" "1:5:0 2:2:0"
[ "$(ctl routes json $SPINE_PFX |
     jq -r '[.[0].paths[].fare.node_bw_bps] | join(" ")')" = \
  "7000000000 7000000000" ] || fail "fared does not explain the node"

# The even split changes only the weights; the node's PB stays.
fared_conf 4G "path-bandwidth node-split even"
kill -HUP "$FARED_PID"
fare_expect "evenly" "$NS_F" "$SPINE_PFX" "1:1:0 2:1:0"
# Only once fared has taken the reload does the PB below say anything.
split_even()
{
	[ "$(ctl routes json $SPINE_PFX |
	     jq -r '[.[0].paths[].fare.node_split] | join(" ")')" = "even even" ]
}
wait_for 20 "fared to take the reload (node_split even)" split_even
expect_pb 15104 0.875 "split evenly, the same node"

# node-split off: fare-04's per-session minima again, 7 + 4 = 11 Gb/s.
fared_conf 4G "path-bandwidth node-split off"
kill -HUP "$FARED_PID"
expect_pb 15744 1.375 "node-split off: per session, min(10, 7) + min(4, 7)"
fare_expect "per session" "$NS_F" "$SPINE_PFX" "1:7:0 2:4:0"

stop_fared_clean
echo "ok: under valgrind, no error, no leak"
