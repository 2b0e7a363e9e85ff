#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# IPv4 and IPv6 sessions with BIRD, both sides on 4-octet AS numbers:
# routes both ways, extended communities byte-exact, withdrawals, End-of-RIB.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf
bringup

# What BIRD sent, as fared holds it. BIRD sorts the list; the bytes of
# each community must be exactly those of the BIRD literals.
wait_for 10 "fared has 10.202.1.0/24" fared_has_route 10.202.1.0/24
ecs=$(ctl routes json 10.202.1.0/24 | jq -c '.[0].paths[0].ext_communities')
[ "$ecs" = '["0004fde84b3ebc20","01770a0000013c00","8009000000000001"]' ] ||
	fail "extended communities of 10.202.1.0/24 are $ecs"
aspath=$(ctl routes json 10.202.1.0/24 | jq -r '.[0].paths[0].as_path')
[ "$aspath" = "$B_AS" ] || fail "AS path is \"$aspath\", want $B_AS"
nh=$(ctl routes json 10.202.1.0/24 | jq -r '.[0].paths[0].next_hop')
[ "$nh" = "$B4" ] || fail "next hop is $nh, want $B4"
wait_for 10 "fared has fd00:202:1::/48" fared_has_route fd00:202:1::/48
ecs=$(ctl routes json fd00:202:1::/48 | jq -c '.[0].paths[0].ext_communities')
[ "$ecs" = '["0004fde84b3ebc20"]' ] || fail "IPv6 route communities $ecs"
nh=$(ctl routes json fd00:202:1::/48 | jq -r '.[0].paths[0].next_hop')
[ "$nh" = "$B6" ] || fail "IPv6 next hop is $nh, want $B6"
echo "ok: routes and extended communities from BIRD intact (v4, v6)"

# End-of-RIB both ways (bit 0 ipv4, bit 1 ipv6).
[ "$(fared_field $B4 eor_received)" = 1 ] || fail "no IPv4 EoR from BIRD"
[ "$(fared_field $B6 eor_received)" = 2 ] || fail "no IPv6 EoR from BIRD"
[ "$(fared_field $B4 eor_sent)" = 1 ] || fail "no IPv4 EoR sent"

# What fared sent, as BIRD holds it.
wait_for 10 "BIRD has 10.203.0.0/24" bird_has_route 10.203.0.0/24 fared4
out=$(birdc_ show route all for 10.203.0.0/24 protocol fared4)
echo "$out" | grep -q "BGP.as_path: $F_AS" || fail "AS path in BIRD: $out"
echo "$out" | grep -q "BGP.ext_community: (unknown 0x4, 65000, 100)" ||
	fail "extended community in BIRD: $out"
wait_for 10 "BIRD has fd00:203::/48" bird_has_route fd00:203::/48 fared6
out=$(birdc_ show route all for fd00:203::/48 protocol fared6)
echo "$out" | grep -q "BGP.next_hop: $F6" || fail "IPv6 next hop in BIRD: $out"
echo "ok: BIRD has fared's routes with AS path, next hop and community"

# Policy: 10.202.2.0/24 passes, BIRD's export of anything else does not
# reach fared's RIB (RFC 8212 is tested with the raw peer).
wait_for 10 "fared has 10.202.2.0/24" fared_has_route 10.202.2.0/24

# ADD-PATH (RFC 7911): BIRD sends both of its paths to 10.202.3.0/24,
# each with its own path id; fared keeps both.
wait_for 10 "fared has 10.202.3.0/24" fared_has_route 10.202.3.0/24
paths=$(ctl routes json 10.202.3.0/24 | jq -c '[.[0].paths[] | .path_id]')
[ "$(echo "$paths" | jq 'length')" = 2 ] &&
	[ "$(echo "$paths" | jq '.[0] != .[1] and all(. > 0)')" = true ] ||
	fail "ADD-PATH: path ids $paths"
ctl routes json 10.202.3.0/24 | jq -e '[.[0].paths[] | .med] | index(7)' \
	>/dev/null || fail "ADD-PATH: the MED 7 path is missing"
echo "ok: ADD-PATH receive: two paths from one peer"

# Route refresh: BIRD asks, fared answers with its routes.
birdc_ reload in fared4 >/dev/null
wait_for 10 "fared to answer BIRD's route refresh" \
	grep -q "neighbor $B4 (plane 1): route refresh asked for ipv4" \
	"$FARED_LOG"
bird_has_route 10.203.0.0/24 fared4 || fail "route gone after refresh"
echo "ok: route refresh from BIRD answered"

# Withdrawals: BIRD's static protocol off, its routes leave fared.
birdc_ disable s4 >/dev/null
wait_for 10 "10.202.1.0/24 withdrawn" \
	bash -c "! { $(declare -f ctl fared_has_route); CTL=$CTL; fared_has_route 10.202.1.0/24; }"
fared_has_route 10.202.2.0/24 && fail "10.202.2.0/24 not withdrawn"
fared_has_route fd00:202:1::/48 || fail "the IPv6 route went too"
fared_established $B4 || fail "session dropped on withdrawal"
birdc_ enable s4 >/dev/null
wait_for 10 "10.202.1.0/24 back" fared_has_route 10.202.1.0/24
echo "ok: withdrawals and re-announcements"

# farectl relays the same views.
"$FARECTL" bgp -s "$CTL" neighbors | grep -q "$B4 .*Established" ||
	fail "farectl bgp neighbors: $("$FARECTL" bgp -s "$CTL" neighbors)"
"$FARECTL" bgp -s "$CTL" routes 10.202.1.0/24 -j |
	jq -e '.[0].paths[0].ext_communities | length == 3' >/dev/null ||
	fail "farectl bgp routes -j"
echo "ok: farectl bgp neighbors|routes"

# SIGINT, a stop: a Cease with a shutdown communication (RFC 9003) reaches
# BIRD. (With graceful-restart configured, as here, SIGTERM is a restart
# and sends none: grace.sh.)
kill -INT "$FARED_PID"
wait "$FARED_PID" || fail "fared exited with $?"
FARED_PID=
wait_for 10 "BIRD saw the Cease" grep -q "fared shutting down" "$DIR/bird.log"
[ -e "$DIR/fared.state" ] && fail "state file left after a clean exit"
echo "ok: SIGTERM sends Administrative Shutdown with its text"
