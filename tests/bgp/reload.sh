#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# SIGHUP reload: sessions of unchanged neighbors stay up; a changed
# neighbor gets a new session, a removed one a Cease "deconfigured", a new
# one starts; policy changes apply without a reset (RFC 8212 included);
# a broken file is refused with FILE:LINE and changes nothing.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf
bringup
wait_for 10 "fared has 10.202.1.0/24" fared_has_route 10.202.1.0/24
wait_for 10 "BIRD has 10.203.0.0/24" bird_has_route 10.203.0.0/24 fared4
# Both sides connect at start; let a lost race settle, then take the
# flap counts as the baseline.
sleep 1
base4=$(fared_field $B4 flaps)
base6=$(fared_field $B6 flaps)
since6=$(birdc_ show protocols fared6 | awk '/fared6/ {print $5}')
hup()
{
	kill -HUP "$FARED_PID"
	wait_for 10 "reload $1" grep -c "reload: .*neighbor" "$FARED_LOG"
	sleep 1
}
same_v6()
{
	fared_established $B6 || fail "IPv6 session dropped ($1)"
	[ "$(fared_field $B6 flaps)" = "$base6" ] ||
		fail "IPv6 session flapped ($1)"
	[ "$(birdc_ show protocols fared6 | awk '/fared6/ {print $5}')" = \
	  "$since6" ] || fail "BIRD's IPv6 session restarted ($1)"
}

# 1. No import policy on the IPv4 neighbor: RFC 8212, nothing accepted;
#    no export policy: BIRD loses fared's route; no session reset.
sed -i "0,/\t\timport in/s///; 0,/\t\texport out/s///" "$DIR/fared.conf"
hup "without IPv4 policies"
wait_for 10 "IPv4 routes to go (RFC 8212 import)" \
	test "$(ctl routes json 10.202.1.0/24 | jq length)" = 0
wait_for 10 "BIRD to lose 10.203.0.0/24 (RFC 8212 export)" \
	bash -c "! birdc -s $BIRD_SOCK show route for 10.203.0.0/24 protocol fared4 | grep -q 10.203"
[ "$(fared_field $B4 rejected_no_policy)" -gt 0 ] ||
	fail "BIRD's refreshed routes were not counted as rejected"
fared_established $B4 || fail "IPv4 session reset by a policy change"
[ "$(fared_field $B4 flaps)" = "$base4" ] || fail "IPv4 session flapped"
fared_has_route fd00:202:1::/48 || fail "the IPv6 route went"
same_v6 "policies of another neighbor"
echo "ok: policies removed: no route in or out (RFC 8212), no session reset"

# 2. Policies back: routes return by route refresh, still no reset.
write_fared_conf
hup "with policies"
wait_for 10 "IPv4 routes back" fared_has_route 10.202.1.0/24
wait_for 10 "BIRD has 10.203.0.0/24 again" bird_has_route 10.203.0.0/24 fared4
[ "$(fared_field $B4 flaps)" = "$base4" ] || fail "IPv4 session flapped"
same_v6 "policies restored"
echo "ok: policies restored by route refresh and re-export"

# 3. The IPv4 neighbor's hold time changes: it alone gets a new session;
#    a neighbor is added.
write_fared_conf "" "	neighbor $R4 {
		remote-as 65003
		passive
	}"
sed -i "s/^\t\tfamily ipv4$/&\n\t\thold-time 9/" "$DIR/fared.conf"
hup "with a changed and a new neighbor"
wait_for 20 "the IPv4 session to come back" fared_established $B4
grep -q "reload: neighbor $B4 (plane 1) changed: new session" "$FARED_LOG" ||
	fail "the changed neighbor was not reset"
[ "$(fared_state $R4)" = Active ] || fail "new neighbor: $(fared_state $R4)"
same_v6 "another neighbor changed"
echo "ok: a changed neighbor restarts alone, a new one starts (Active)"

# 4. A broken file is refused with FILE:LINE and nothing changes.
cp "$DIR/fared.conf" "$DIR/good.conf"
echo "hold-time 2" >>"$DIR/fared.conf"
kill -HUP "$FARED_PID"
wait_for 10 "the refusal" grep -q "fared.conf:[0-9]*: hold-time must be" \
	"$FARED_LOG"
grep -q "keeping the running configuration" "$FARED_LOG" || fail "refusal"
same_v6 "a broken file"
fared_established $B4 || fail "IPv4 session dropped by a broken file"
echo "ok: a broken file is refused with FILE:LINE, sessions untouched"

# 5. The IPv6 neighbor removed: BIRD is told "deconfigured" (Cease 6/3).
cp "$DIR/good.conf" "$DIR/fared.conf"
python3 - "$DIR/fared.conf" <<'EOP'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"\tneighbor fd00:201::2 \{.*?\n\t\}\n", "", s, flags=re.S)
open(sys.argv[1], "w").write(s)
EOP
kill -HUP "$FARED_PID"
wait_for 10 "the removal" grep -q "reload: neighbor $B6 (plane 1) removed" \
	"$FARED_LOG"
wait_for 10 "BIRD to hear Cease/deconfigured" \
	grep -q "fared6: Received: Peer de-configured" "$DIR/bird.log"
ctl neighbors json | jq -e "all(.[]; .address != \"$B6\")" >/dev/null ||
	fail "the removed neighbor is still listed"
fared_established $B4 || fail "IPv4 session dropped by another's removal"
echo "ok: a removed neighbor gets Cease 6/3; the others stay"
