#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a transit fared passes on besides the path (issue 15 §3, RFC 4271
# §5, RFC 1997, RFC 8092): fared as a spine, under valgrind, between the
# project's raw peer (R4, AS 65003, which can send attributes no daemon
# originates) and BIRD (B4, AS B_AS). The raw peer sends 100.64.0.1/32
# with COMMUNITIES, LARGE_COMMUNITIES, an unknown optional transitive
# attribute (0xf1) and an unknown optional non-transitive one (0xf2), and
# 100.64.0.2/32 with NO_EXPORT. BIRD must receive the first with both
# kinds of communities as sent, 0xf1 with its value and the Partial bit
# set (which the raw peer's second session reads off the wire), and no
# 0xf2; and not the second (it would leave fared's AS).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

fared_under_valgrind
R4B=10.201.0.4
setup_net
ip -n "$NS_B" addr add $R4B/24 dev veth0
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role spine
interface veth0 bandwidth 100G
policy all {
	permit 100.64.0.0/10 le 32
}
plane 1 {
	neighbor $R4 {
		remote-as 65003
		interface veth0
		passive
		import all
		export all
	}
}
plane 2 {
	neighbor $R4B {
		remote-as 65004
		interface veth0
		passive
		import all
		export all
	}
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		import all
		export all
	}
}
EOC
raw_spine_bird far4 none
hostile_bg attrs
wait_for 20 "fared Established with the raw peer" fared_established $R4
wait_for 10 "BIRD gets 100.64.0.1/32" bird_has_route 100.64.0.1/32 far4
birdc_ show route 100.64.0.1/32 all | tee "$DIR/route.txt"
grep -q "BGP.community: (65003,1) (65003,2)" "$DIR/route.txt" ||
	fail "COMMUNITIES not passed on as sent"
grep -q "BGP.large_community: (65003, 1, 2)" "$DIR/route.txt" ||
	fail "LARGE_COMMUNITIES not passed on as sent"
echo "ok: COMMUNITIES and LARGE_COMMUNITIES passed on"
# BIRD shows an attribute it does not know by type, [t] for transitive
# and its value ("fare-xyz"), not the Partial bit: the raw peer's second
# session (R4B, AS 65004) reads the flags off the wire.
grep -q "BGP.f1 \[t\]: 66 61 72 65 2d 78 79 7a" "$DIR/route.txt" ||
	fail "unknown optional transitive 0xf1 not passed on"
HOSTILE_AS=65004 ip netns exec "$NS_B" python3 "$HOSTILE" $R4B $F4 \
	expect-attr 100.64.0.1 f1 e0 "$(printf fare-xyz | od -An -tx1 | tr -d ' ')" ||
	fail "the raw receiver did not see 0xf1 with flags O, T and Partial"
echo "ok: unknown optional transitive attribute passed on, Partial set"
# BIRD would show 0xf2 as "BGP.f2: ..." (no [t]), as it shows 0xf1 above.
grep -q "^[[:space:]]*BGP\.f2\b" "$DIR/route.txt" &&
	fail "unknown optional non-transitive 0xf2 was passed on"
echo "ok: unknown optional non-transitive attribute dropped"
[ "$(ctl routes json 100.64.0.2/32 | jq length)" = 1 ] ||
	fail "fared did not take 100.64.0.2/32"
bird_has_route 100.64.0.2/32 far4 &&
	fail "a NO_EXPORT route was passed on to eBGP"
echo "ok: a NO_EXPORT route is not passed on to eBGP"
hostile_stop
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
