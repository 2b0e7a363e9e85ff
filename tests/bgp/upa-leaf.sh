#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A leaf's UPA for a lost RNIC (mpson-00 §4.1, PROTOCOL.md §6.1), chain
# of suppress-lib.sh with "upa originate drop" on the leaf: while the RNIC
# H has X the leaf holds X back from the spine (the aggregate A stands for
# it); when H's session goes down the leaf announces a UPA route for X
# (0x03 0x09, D, its router id) which reaches the observer through the
# spine, A staying; when H is back the UPA route is withdrawn, A stays.
# The spine does not program the UPA-only X (it follows A).
set -uo pipefail
L_AS=65001
. "$(dirname "$0")/suppress-lib.sh"

# Y: an RNIC configured on the leaf by its link ("rnic Y interface
# eth-y"), no BGP: its carrier is what counts.
Y=10.1.0.9/32
chain_extra()
{
	link "$NS_H" eth-y 10.210.9.2/24 "$NS_L" eth-y 10.210.9.1/24
}
leaf_conf "upa originate drop
rnic $Y interface eth-y"
start_chain
wait_for 60 "the leaf learns $X from the RNIC" \
	sh -c "birdc -s $DIR/h.bird.ctl show protocols up | grep -q Established"
leaf_holds_x()
{
	ctl_at l routes json "$X" | jq -r '.[0].leaf' | grep -q "RNICs only"
}
wait_for 60 "the leaf to hold $X" leaf_holds_x
# The spine had every chance to get X: A came after it would have.
wait_for 60 "the observer gets $A" obs_has "$A"
obs_lacks "$X" || { obs_route "$X"; chain_fail "$X went past the leaf"; }
[ "$(ctl_at s routes json "$X" | jq 'length')" = 0 ] ||
	chain_fail "the spine has $X"
fare_expect_planes "the spine's $X (held back by the leaf)" "$NS_S" "$X" ""
echo "ok: $X is held back by the leaf, $A stands for it"

# The RNIC goes away: a UPA route for X, with D, from the leaf.
birdc_at h disable up >/dev/null || chain_fail "birdc disable"
wait_for 60 "the UPA route for $X at the observer" obs_has "$X"
obs_route "$X"
# 0x03 0x09 0x80 0x00 | 10.210.0.1: BIRD shows it as a generic pair.
UPA="(generic, 0x3098000, 0xad20001)"
obs_route "$X" | grep -qF "$UPA" || chain_fail "no UPA community $UPA"
obs_route "$X" | grep -q "BGP.as_path: 65100 65001\$" ||
	chain_fail "the UPA route is not the leaf's own"
obs_has "$A" || chain_fail "the aggregate $A went away"
J=$(ctl_at l routes json "$X")
echo "$J"
[ "$(echo "$J" | jq -r '.[0].originated_upa.aggregate')" = "$A" ] ||
	chain_fail "the leaf does not list its UPA route for $X"
[ "$(echo "$J" | jq -r '.[0].originated_upa.drop')" = true ] ||
	chain_fail "the leaf's UPA route lacks D"
ctl_at l routes | grep -q "^$X .*originated UPA (D) under $A" ||
	chain_fail "routes (text) does not list the UPA route"
# The spine: X has a UPA path only; it is not programmed.
[ "$(ctl_at s routes json "$X" | jq -r '.[0].nexthops | length')" = 0 ] ||
	chain_fail "the spine would program the UPA route"
fare_expect_planes "the spine's UPA-only $X" "$NS_S" "$X" ""
fare_expect_planes "the spine's $A" "$NS_S" "$A" 1
echo "ok: H down: UPA $UPA for $X from the leaf, $A kept"

# H is back: the UPA route is withdrawn, X is held back again.
birdc_at h enable up >/dev/null || chain_fail "birdc enable"
wait_for 60 "the UPA route to go from the observer" obs_lacks "$X"
wait_for 60 "the leaf to hold $X again" leaf_holds_x
obs_has "$A" || chain_fail "the aggregate $A went away"
[ "$(ctl_at l routes json "$X" | jq '[.[] | select(.originated_upa)] | length')" = 0 ] ||
	chain_fail "the leaf still lists a UPA route for $X"
echo "ok: H back: the UPA route is withdrawn, $A kept"

# Once more, by a withdrawal rather than a session loss.
sed -i "s|route $X blackhole;||" "$DIR/h.bird.conf"
birdc_at h configure >/dev/null || chain_fail "birdc configure"
wait_for 60 "the UPA route after a withdrawal" obs_has "$X"
echo "ok: a withdrawn host is announced unreachable too"

# Y's link loses its carrier (the RNIC's end goes down): UPA; back: gone.
obs_lacks "$Y" || chain_fail "$Y announced while its link is up"
ip -n "$NS_H" link set eth-y down
wait_for 60 "the UPA route for $Y at the observer" obs_has "$Y"
obs_route "$Y" | grep -qF "$UPA" || chain_fail "no UPA community on $Y"
obs_has "$A" || chain_fail "the aggregate $A went away"
ip -n "$NS_H" link set eth-y up
wait_for 60 "the UPA route for $Y to go" obs_lacks "$Y"
echo "ok: a configured RNIC's carrier loss: UPA for $Y; carrier back: withdrawn"

stop_all_clean
echo "ok: every fared under valgrind, no error, no leak"
