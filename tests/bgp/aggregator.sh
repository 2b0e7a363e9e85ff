#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a transit fared passes on of aggregation (issue 26 §1 item 7, RFC
# 4271 §5.1.6-7) and NO_EXPORT_SUBCONFED (RFC 1997): fared as a spine,
# under valgrind, between the raw peer (R4, AS 65003) and BIRD (B4). The
# raw peer sends 100.64.0.5/32 with ATOMIC_AGGREGATE and AGGREGATOR (AS
# 4200000099, 10.9.9.9) and 100.64.0.6/32 with NO_EXPORT_SUBCONFED. BIRD
# must show both aggregation attributes unchanged on the first, and never
# get the second: fared has no confederations, so NO_EXPORT_SUBCONFED
# keeps a route inside its AS as NO_EXPORT does.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
setup_net
raw_spine_conf
raw_spine_bird far4 none
hostile_bg aggr
wait_for 20 "fared Established with the raw peer" fared_established $R4
wait_for 10 "BIRD gets 100.64.0.5/32" bird_has_route 100.64.0.5/32 far4
birdc_ show route 100.64.0.5/32 all | tee "$DIR/route.txt"
grep -q "BGP.atomic_aggr:" "$DIR/route.txt" ||
	fail "ATOMIC_AGGREGATE not passed on"
grep -Eq "BGP.aggregator: 10.9.9.9 AS ?4200000099" "$DIR/route.txt" ||
	fail "AGGREGATOR not passed on unchanged"
echo "ok: ATOMIC_AGGREGATE and AGGREGATOR passed on"
wait_for 10 "fared takes 100.64.0.6/32" \
	eval '[ "$(ctl routes json 100.64.0.6/32 | jq length)" = 1 ]'
# 100.64.0.6/32 came after 100.64.0.5/32, which BIRD has: had fared
# passed it on, it would have been in the same or an earlier batch.
sleep 2
bird_has_route 100.64.0.6/32 far4 &&
	fail "a NO_EXPORT_SUBCONFED route was passed on to eBGP"
echo "ok: a NO_EXPORT_SUBCONFED route is not passed on to eBGP"
hostile_stop
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
