#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A neighbor's routes held stale for different reasons (a graceful
# restart, an enhanced route refresh, an import change) are refresh
# epochs of their own: the end of one never sweeps what another holds
# (issue 26 §1 item 5). fared is a spine between the raw peer (R4, AS
# 65003: graceful restart and enhanced route refresh) and BIRD (B4),
# whose table shows what fared keeps and passes on:
#  1. the raw peer restarts (its connection ends without NOTIFICATION),
#     comes back and sends an EoRR without a BoRR: the routes it has not
#     sent again yet stay until its End-of-RIB;
#  2. a graceful drop right after a BoRR is no consecutive restart
#     (RFC 4724 §4.2): the routes stay, stale, until the End-of-RIB;
#  3. likewise right after an import policy change (SIGHUP);
#  4. with the N bit (RFC 8538), a peer that keeps coming back without
#     End-of-RIB loses its stale routes once restart-time plus fared's
#     stale-time have passed since its first drop (RFC 8538 §4.1's stale
#     timer), however often it comes back.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# conf STALE-TIME EXTRA-IMPORT-RULE
conf()
{
	raw_spine_conf "" "graceful-restart restart-time 60 stale-time $1
policy in {
	permit 100.64.0.0/10 le 32
	${2:-}
}" in
}

setup_net
conf 30
cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static leaf { ipv4; route 10.202.1.0/24 blackhole; }
protocol bgp fared4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export where source = RTS_STATIC; };
}
EOC
start_bird
fared_under_valgrind
start_fared
wait_for 20 "fared Established with BIRD" fared_established $B4
wait_for 10 "BIRD Established" bird_established fared4

# How many routes BIRD has from fared: the raw peer's /32s.
bird_n()
{
	birdc_ show route protocol fared4 count |
		awk '/routes for/ { print $1 }'
}
bird_n_is() { [ "$(bird_n)" = "$1" ]; }
go() { touch "$DIR/$1"; }
# raw STEP...: the raw peer's graceful restart script, in the background.
raw() { hostile_bg gr "$@" >>"$DIR/raw.log" 2>&1; }
raw_gone() { ! fared_established $R4; }

# 1. EoRR without BoRR while a restart's routes are stale.
case1()
{
raw open routes 0 10 eor await "$DIR/go1" drop open routes 0 5 eorr \
	routes 50 51 await "$DIR/go2" eor routes 60 61
wait_for 20 "BIRD to get the raw peer's 10 routes" bird_n_is 10
go go1
wait_for 20 "BIRD to get 100.64.0.50/32, sent after the EoRR" \
	bird_has_route 100.64.0.50/32 fared4
[ "$(bird_n)" = 11 ] || fail "BIRD has $(bird_n) of the raw peer's routes" \
	"after an EoRR without BoRR, not 11: the EoRR swept the routes" \
	"kept for its restart"
echo "ok: an EoRR without BoRR sweeps nothing a restart holds"
go go2
wait_for 20 "BIRD to get 100.64.0.60/32" bird_has_route 100.64.0.60/32 fared4
wait_for 10 "the routes not sent again to go at End-of-RIB" bird_n_is 7
echo "ok: End-of-RIB swept the 5 routes not sent again"
hostile_stop
wait_for 20 "fared to see the raw peer go" raw_gone
# Its routes are stale (a graceful drop): the next session's EoR sweeps.
}

# 2. A graceful drop right after a BoRR.
case2()
{
raw open routes 0 10 eor await "$DIR/go3" borr drop open routes 70 71 \
	await "$DIR/go4" eor routes 71 72
wait_for 20 "BIRD to get the raw peer's 10 routes" bird_n_is 10
go go3
wait_for 20 "BIRD to get 100.64.0.70/32 from the next session" \
	bird_has_route 100.64.0.70/32 fared4
[ "$(bird_n)" = 11 ] || fail "BIRD has $(bird_n) of the raw peer's routes" \
	"after a graceful drop that followed a BoRR, not 11: deleted as a" \
	"consecutive restart"
echo "ok: a graceful drop right after a BoRR keeps the routes stale"
go go4
wait_for 20 "BIRD to get 100.64.0.71/32" bird_has_route 100.64.0.71/32 fared4
wait_for 10 "the routes not sent again to go at End-of-RIB" bird_n_is 2
hostile_stop
wait_for 20 "fared to see the raw peer go" raw_gone
}

# 3. A graceful drop right after an import policy change.
case3()
{
raw open routes 0 10 eor await "$DIR/go5" drop open routes 80 81 \
	await "$DIR/go6" eor routes 81 82
wait_for 20 "BIRD to get the raw peer's 10 routes" bird_n_is 10
conf 30 "permit 10.99.0.0/16"
kill -HUP "$FARED_PID"
imported() { grep -q "neighbor $R4 .*import policy changed" "$FARED_LOG"; }
wait_for 10 "fared to apply the new import policy" imported
go go5
wait_for 20 "BIRD to get 100.64.0.80/32 from the next session" \
	bird_has_route 100.64.0.80/32 fared4
[ "$(bird_n)" = 11 ] || fail "BIRD has $(bird_n) of the raw peer's routes" \
	"after a graceful drop that followed an import change, not 11"
echo "ok: a graceful drop right after an import change keeps the routes stale"
go go6
wait_for 20 "BIRD to get 100.64.0.81/32" bird_has_route 100.64.0.81/32 fared4
wait_for 10 "the routes not sent again to go at End-of-RIB" bird_n_is 2
hostile_stop
wait_for 20 "fared to see the raw peer go" raw_gone
}

# 4. The N bit and a peer that keeps coming back: restart time 3 s,
# stale-time 4 s; it comes back every second or so, for 40 s.
case4()
{
stop_fared_clean
conf 4
start_fared
wait_for 20 "fared Established with BIRD" fared_established $B4
raw open n 3 routes 0 10 eor await "$DIR/go7" flap 40 0.8
wait_for 20 "BIRD to get the raw peer's 10 routes" bird_n_is 10
go go7
wait_for 25 "BIRD to lose the routes kept stale while the raw peer comes back without End-of-RIB (3 s + 4 s after its first drop)" \
	bird_n_is 0
grep -q "FAIL" "$DIR/raw.log" && fail "the raw peer: $(cat "$DIR/raw.log")"
echo "ok: with the N bit, stale routes go restart-time + stale-time after the first drop"
hostile_stop
}

# STALE_EPOCHS_CASES: some of them only (each fails on its own on a fared
# with one stale mark for every reason).
for c in ${STALE_EPOCHS_CASES:-1 2 3 4}; do
	rm -f "$DIR"/go*
	"case$c"
done
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
