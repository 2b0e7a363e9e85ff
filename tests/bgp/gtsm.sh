#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# GTSM (RFC 5082) against BIRD's "ttl security": fared's "ttl-security yes".
#  - direct (IPv4 and IPv6 over the veth): Established; BIRD, which drops
#    every segment that arrives with a TTL (hop limit) below 255, is the
#    judge of what fared sends;
#  - a second BIRD one router away ($NS_R between fared and $NS_X; "ttl
#    security on; multihop 2", so it sends 255 and accepts 254): its
#    segments arrive with 254, and fared's kernel drops them
#    (TCPMinTTLDrop rises) while the session never comes up;
#  - the control: the same path with GTSM off on both sides comes up, so
#    the refusal above was GTSM's and not the path's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/auth-lib.sh"

NS_R=$PFX-r
NS_X=$PFX-x
X4=10.205.0.2
X_AS=4200000005
X_SOCK=$DIR/x.ctl
cleanup_gtsm()
{
	for ns in "$NS_R" "$NS_X"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	cleanup
}
trap cleanup_gtsm EXIT

setup_net
# fared veth1 10.204.0.1 -- .254 router .254 -- 10.205.0.2 far BIRD
ip netns add "$NS_R" && ip netns add "$NS_X" || fail "netns add"
ip -n "$NS_F" link add veth1 type veth peer name veth1 netns "$NS_R"
ip -n "$NS_R" link add veth2 type veth peer name veth2 netns "$NS_X"
ip -n "$NS_F" addr add 10.204.0.1/24 dev veth1
ip -n "$NS_R" addr add 10.204.0.254/24 dev veth1
ip -n "$NS_R" addr add 10.205.0.254/24 dev veth2
ip -n "$NS_X" addr add $X4/24 dev veth2
for l in "$NS_F veth1" "$NS_R veth1" "$NS_R veth2" "$NS_X veth2" \
	"$NS_R lo" "$NS_X lo"; do
	set -- $l
	ip -n "$1" link set "$2" up || fail "link $2 in $1"
done
ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
ip -n "$NS_F" route add 10.205.0.0/24 via 10.204.0.254 || fail "route"
ip -n "$NS_X" route add default via 10.205.0.254 || fail "route"
ip netns exec "$NS_X" ping -c 1 -W 5 10.204.0.1 >/dev/null ||
	fail "the far BIRD's namespace cannot reach fared through the router"

# fared_gtsm FAR-TTL-SECURITY: GTSM on the direct neighbors, FAR-... on
# the far one.
fared_gtsm()
{
	write_fared_conf "" "	neighbor $X4 {
		remote-as $X_AS
		ttl-security $1
	}"
	sed -i "s/^\t\tremote-as $B_AS\$/&\n\t\tttl-security yes/" "$DIR/fared.conf"
}
# far_bird TTL-SECURITY-LINE
far_bird()
{
	cat >"$DIR/x.conf" <<EOC
router id $X4;
log "$DIR/x.log" all;
protocol device { scan time 1; }
protocol bgp fared {
	local $X4 as $X_AS;
	neighbor 10.204.0.1 as $F_AS;
	multihop 2;
	$1
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export none; };
}
EOC
}
xc() { birdc -s "$X_SOCK" "$@"; }
far_up() { xc show protocols fared | grep -q Established; }
far_or_fared_up() { far_up || fared_established $X4; }
direct_up() { bird_established fared4 && bird_established fared6; }

fared_gtsm yes
far_bird "ttl security on;"
BIRD_F4_EXTRA="ttl security on;" BIRD_F6_EXTRA="ttl security on;" \
	write_bird_conf
start_bird
ip netns exec "$NS_X" bird -c "$DIR/x.conf" -s "$X_SOCK" -P "$DIR/x.pid" ||
	fail "the far BIRD did not start"
start_fared
wait_for 20 "BIRD (ttl security) sees fared4 and fared6 Established" direct_up
wait_for 10 "fared sees B4 Established" fared_established $B4
wait_for 10 "fared sees B6 Established" fared_established $B6
echo "ok: direct, GTSM on both sides: IPv4 and IPv6 sessions Established"
never_up_until "$NS_F" TCPMinTTLDrop 8 30 \
	"one router away (TTL 254 at fared)" far_or_fared_up
direct_up || fail "a direct session went down"

fared_gtsm no
far_bird ""
xc configure >/dev/null || fail "birdc configure (far)"
kill -HUP "$FARED_PID"
wait_for 30 "the far session without GTSM on either side" far_up
wait_for 10 "fared sees the far session Established" fared_established $X4
echo "ok: the same path without GTSM comes up: the refusal was GTSM's"
direct_up || fail "a direct session went down on the reload"
echo "ok: the direct GTSM sessions stayed up through the reload"
