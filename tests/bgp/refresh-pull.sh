#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A route refresh of a whole table through a small send buffer: the
# writer builds UPDATEs only as the socket takes them (issue 26 §4), so a
# table many times send-buffer-limit goes out without reaching it. fared
# is a spine between a leaf BIRD advertising 20,000 /32s, each with a
# community of its own (no two share an UPDATE: about 1.2 MB of UPDATEs),
# and the far BIRD; send-buffer-limit is its minimum, 64 KiB, and both
# namespaces' TCP buffers are small. The far BIRD asks for a refresh
# ("birdc reload in") and stops reading for 2 s (SIGSTOP), twice: each
# time it must import the 20,000 routes again on the same session, which
# never drops. A writer that encodes the whole table at once goes past
# the limit while the peer does not read, and loses the session.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

N=20000
setup_net
for ns in "$NS_F" "$NS_B"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_wmem="4096 16384 65536"
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 16384 65536"
done
awk -v n="$N" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "route 10.202.%d.%d/32 blackhole { bgp_community.add((65000, %d)); };\n",
		       int(i / 256) % 256, i % 256, i
}' >"$DIR/routes.conf"
spine_conf "send-buffer-limit 65536"
# The far BIRD logs no packets: 20,000 routes would fill its log.
sed -i "/debug protocols/d" "$DIR/far.conf"
cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" { warning, error };
protocol device { scan time 1; }
protocol static leaf {
	ipv4;
	include "$DIR/routes.conf";
}
protocol bgp leaf4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export where source = RTS_STATIC; };
}
EOC
far_n() { farc show route protocol far4 count | awk '/routes for/ { print $1; exit }'; }
far_n_is() { [ "$(far_n)" = "$1" ]; }
far_updates()
{
	farc show protocols all far4 |
		awk '$1 == "Import" && $2 == "updates:" { print $3 }'
}
far_updates_at_least() { [ "$(far_updates)" -ge "$1" ]; }

fared_under_valgrind
start_bird
ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
	-P "$DIR/far.pid" || fail "the far BIRD did not start"
bird_pid "$DIR/far.pid"
far_pid=$BIRD_PID_READ
start_fared
wait_for 30 "fared Established with the leaf" fared_established $B4
wait_for 30 "fared Established with the far side" fared_established $R4
wait_for 120 "the far BIRD to get the $N routes" far_n_is $N
since=$(far_since)
for round in 1 2; do
	u0=$(far_updates)
	farc reload in far4 >/dev/null
	kill -STOP "$far_pid"
	sleep 2
	kill -CONT "$far_pid"
	wait_for 120 "the far BIRD to import the $N routes again (refresh $round)" \
		far_updates_at_least $((u0 + N))
	same_since "$(far_since)" "$since" ||
		fail "the far BIRD's session went down and up during refresh $round"
	far_n_is $N || fail "the far BIRD has $(far_n) routes after refresh $round"
done
echo "ok: two refreshes of $N routes through a 64 KiB send-buffer-limit, session intact"
grep -q "send buffer limit reached" "$FARED_LOG" && fail "fared reached its send buffer limit"
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
