#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# BFD (RFC 5880/5881) against BIRD's: fared's IPv4 neighbor (plane 1) has
# "bfd interval 100 multiplier 3" and BIRD "bfd on" with 100 ms x 3; its
# IPv6 neighbor (plane 2) has "bfd" too, but BIRD runs none for it.
#
#   1. BIRD's own view (show bfd sessions) has fared's session Up, with
#      BIRD's BGP session fared4 using it; the wire (a sniffer in BIRD's
#      namespace) shows fared's packets Up with TTL 255 (RFC 5881 §5).
#   2. The IPv6 neighbor's BFD never comes Up, and that costs nothing: its
#      BGP session stays up the whole scenario (BIRD's fared6 never
#      changes state) and fared holds plane 2 in (RFC 5882 §3.2).
#   3. BIRD frozen with SIGSTOP, links up: fared's BFD declares the
#      session Down with diagnostic 1 (Control Detection Time Expired) and
#      ends the BGP session with a Cease "BFD Down" (RFC 9384; 6/10, or
#      inside a Hard Reset 6/9 with RFC 8538's N bit), both on the wire
#      within 1 s of the freeze (x FARE_WAIT_SCALE; a functional bound,
#      300 ms plus slack: the precise time is printed), far inside the 6 s
#      hold time that ends it without BFD; fared holds plane 1 out and
#      BIRD's routes leave fared's RIB.
#   4. SIGCONT: BIRD's BFD and BGP session come back, and so do the routes
#      and plane 1.
#
# No fare.ko on the host: the plane itself going out of fare.ko is what
# tests/lab/bfd-dead-leaf.sh counts at the leaves; here fared's log says
# what it would program.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
setup_net
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
graceful-restart restart-time 60 stale-time 30
role host
interface veth0 bandwidth 100G
originate 10.203.0.0/24
policy in {
	permit 10.202.0.0/16 le 32
	permit fd00:202::/32 le 128
}
policy out {
	permit 10.203.0.0/16 le 32
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		family ipv4
		bfd interval 100 multiplier 3
		import in
		export out
	}
}
plane 2 {
	neighbor $B6 {
		remote-as $B_AS
		interface veth0
		family ipv6
		bfd
		import in
		export out
	}
}
EOC
BIRD_F4_EXTRA="bfd on;"
write_bird_conf
cat >>"$DIR/bird.conf" <<EOC
protocol bfd {
	interface "veth0" {
		min rx interval 100 ms;
		min tx interval 100 ms;
		idle tx interval 1000 ms;
		multiplier 3;
	};
}
EOC

ip netns exec "$NS_B" python3 "$TOP/tests/bgp/bfd-sniff.py" veth0 $F4 \
	>"$DIR/wire" 2>&1 &
SNIFF_PID=$!
wait_for 10 "the sniffer to listen" grep -q listening "$DIR/wire"

start_bird
start_fared
wait_for 20 "fared sees the IPv4 session Established" fared_established $B4
wait_for 20 "fared sees the IPv6 session Established" fared_established $B6
wait_for 10 "BIRD sees fared6 Established" bird_established fared6
SINCE6=$(bird_since fared6)

# 1. BIRD's view: its BFD session with fared is Up.
bird_bfd_up()
{
	birdc_ show bfd sessions | awk -v a=$F4 '$1 == a && $3 == "Up"' |
		grep -q .
}
wait_for 20 "BIRD's BFD session with $F4 Up" bird_bfd_up
birdc_ show bfd sessions
wait_for 10 "BIRD sees fared4 Established" bird_established fared4
wait_for 10 "fared has 10.202.1.0/24" fared_has_route 10.202.1.0/24
grep -q " bfd Up 0 255$" "$DIR/wire" ||
	fail "no BFD packet of fared on the wire in state Up with TTL 255"
awk '$2 == "bfd" && $5 != 255' "$DIR/wire" | grep -q . &&
	fail "fared sent BFD with a TTL other than 255"
echo "ok: BIRD shows fared's BFD session Up; fared sends with TTL 255"

# 2. The IPv6 neighbor's BFD has had several Detection Times to come up
# and has not: BIRD runs none for it. Its session and plane stay.
sleep 1
[ "$(ctl neighbors json | jq -r ".[] | select(.address == \"$B6\") |
	.bfd.state")" = Down ] || fail "IPv6 BFD is not Down"
bird_kept_session fared6 "$SINCE6"	# its BFD never came up

# 3. The freeze.
ms() { echo $(($(date +%s%N) / 1000000)); }
kill -STOP "$BIRD_PID"
t0=$(ms)
wait_for 5 "fared's BFD Down on the wire after the freeze" \
	awk -v t=$t0 '$1 >= t && $2 == "bfd" && $3 == "Down" { f = 1 }
		END { exit !f }' "$DIR/wire"
wait_for 5 "fared's Cease on the wire after the freeze" \
	awk -v t=$t0 '$1 >= t && $2 == "notification" { f = 1 }
		END { exit !f }' "$DIR/wire"
read -r t_down diag < <(awk -v t=$t0 '$1 >= t && $2 == "bfd" &&
	$3 == "Down" { print $1, $4; exit }' "$DIR/wire")
read -r t_cease code subcode d0 d1 < <(awk -v t=$t0 '$1 >= t &&
	$2 == "notification" { print $1, $3, $4, $5, $6; exit }' "$DIR/wire")
down_ms=$((t_down - t0))
cease_ms=$((t_cease - t0))
echo "fared's BFD Down $down_ms ms, Cease $code/$subcode ${d0:-} ${d1:-}" \
	"$cease_ms ms after the freeze (the Detection Time, 3 x 100 ms, runs" \
	"from BIRD's last packet, 75-100 ms apart, and fared runs under valgrind)"
BOUND_MS=$((1000 * FARE_WAIT_SCALE))
[ "$diag" = 1 ] || fail "BFD Down with diagnostic $diag, not 1"
[ $down_ms -le $BOUND_MS ] || fail "BFD Down after $down_ms ms"
[ $cease_ms -le $BOUND_MS ] || fail "BGP ended after $cease_ms ms"
if [ "$code/$subcode" != 6/10 ] &&
	[ "$code/$subcode/${d0:-}/${d1:-}" != 6/9/6/10 ]; then
	fail "NOTIFICATION $code/$subcode ${d0:-} ${d1:-}, not a Cease BFD Down"
fi
echo "ok: BFD Down (Control Detection Time Expired) and Cease BFD Down" \
	"within $BOUND_MS ms of the freeze"
fared_lacks_route() { ! fared_has_route "$1"; }
wait_for 5 "BIRD's routes to leave fared" fared_lacks_route 10.202.1.0/24
grep -q "fare: plane 1 out: administratively down (BFD down)" "$FARED_LOG" ||
	fail "fared did not take plane 1 out"
grep -q "fare: plane 2 out" "$FARED_LOG" &&
	fail "fared took plane 2 out: its BFD never came up"
echo "ok: routes gone, plane 1 out, plane 2 kept"

# 4. The thaw.
kill -CONT "$BIRD_PID"
wait_for 30 "BIRD's BFD session with $F4 Up again" bird_bfd_up
wait_for 30 "BIRD sees fared4 Established again" bird_established fared4
wait_for 30 "fared sees the IPv4 session again" fared_established $B4
wait_for 10 "the routes to come back" fared_has_route 10.202.1.0/24
wait_for 10 "plane 1 back" grep -q "fare: plane 1 back: BFD up" "$FARED_LOG"
bird_kept_session fared6 "$SINCE6"	# a 6 s hold time outlasts the freeze
echo "ok: BFD, the session, the routes and plane 1 back after SIGCONT"
kill "$SNIFF_PID" 2>/dev/null
stop_fared_clean
echo "ok: fared exited cleanly under valgrind"
