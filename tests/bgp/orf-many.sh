#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A received ORF of many entries is applied exactly (issue 26 §1 item 9:
# the indexed matcher). fared is a spine, under valgrind: the leaf BIRD
# (B4) originates 10.202.2.0 to 10.202.2.199 (/32s); the raw peer (R4, "orf
# receive" at fared) sends ROUTE-REFRESHes (DEFER, the last IMMEDIATE)
# whose Address Prefix ORF has 10,000 entries: PERMIT for the even /32s below .200, DENY for the odd
# ones, PERMIT for /32s fared does not have, then a catch-all DENY. The raw
# peer must receive exactly the 100 even /32s, and the session stay up.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

N=10000
WANT=200
fared_under_valgrind
setup_net
raw_spine_conf "orf receive"
{
	cat <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static leaf {
	ipv4;
EOC
	for i in $(seq 0 $((WANT - 1))); do
		printf '\troute 10.202.2.%u/32 blackhole;\n' "$i"
	done
	cat <<EOC
}
protocol bgp leaf4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export all; };
}
EOC
} >"$DIR/bird.conf"
start_bird
start_fared
wait_for 20 "fared Established with the leaf" fared_established $B4
leaf_routes_in() { [ "$(ctl routes json | jq '[.[] | select(.prefix | startswith("10.202.2."))] | length')" = $WANT ]; }
wait_for 30 "fared has the leaf's $WANT routes" leaf_routes_in
hostile orfmany $N $WANT || fail "the raw peer did not get exactly the permitted routes"
[ "$(fared_field $R4 orf.entries_rx)" = $N ] ||
	fail "fared does not hold the $N entries"
echo "ok: $N ORF entries applied exactly"
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
