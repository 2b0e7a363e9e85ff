#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# max-prefix is a Hard Reset when graceful restart's N bit was exchanged
# (RFC 8538 §5.1) against FRR 8.4.4's bgpd: FRR (graceful restart with
# the N bit on) announces 5 routes, then 20 more, past fared's max-prefix
# of 10. fared must end the session with Cease 6/9 wrapping 6/1 (FRR's
# view of the NOTIFICATION), and FRR must then delete fared's route at
# once rather than keep it stale for fared's 60 s restart time; fared
# drops FRR's routes too.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

command -v /usr/lib/frr/bgpd >/dev/null || fail "FRR's bgpd missing (apt-get install frr)"
FRR_PID=
FROM_FARED=10.203.0.0/24

cleanup_frr()
{
	[ -n "$FRR_PID" ] && kill -9 "$FRR_PID" 2>/dev/null
	cleanup
}
trap cleanup_frr EXIT

setup_net
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
graceful-restart restart-time 60 stale-time 30
interface veth0 bandwidth 100G
originate $FROM_FARED
policy in {
	permit 10.202.0.0/16 le 32
}
policy out {
	permit 10.203.0.0/16 le 32
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		family ipv4
		max-prefix 10
		import in
		export out
	}
}
EOC
{
	cat <<EOC
hostname $PFX
log file $DIR/bgpd.log
router bgp $B_AS
 bgp router-id $B4
 no bgp ebgp-requires-policy
 no bgp network import-check
 bgp graceful-restart
 bgp graceful-restart notification
 neighbor $F4 remote-as $F_AS
 neighbor $F4 timers connect 1
 address-family ipv4 unicast
EOC
	for i in $(seq 1 5); do echo "  network 10.202.0.$i/32"; done
	echo " exit-address-family"
} >"$DIR/bgpd.conf"
chmod 755 "$DIR"
ip netns exec "$NS_B" /usr/lib/frr/bgpd -Z -S -d -f "$DIR/bgpd.conf" \
	-i "$DIR/bgpd.pid" --vty_socket "$DIR" -P 0 -l $B4 ||
	fail "bgpd did not start"
FRR_PID=$(cat "$DIR/bgpd.pid")
vtysh_()
{
	ip netns exec "$NS_B" vtysh --vty_socket "$DIR" -d bgpd -c "$@"
}
frr_nb() { vtysh_ "show bgp neighbors $F4 json" | jq -r ".\"$F4\".$1"; }
frr_has_from_fared()
{
	[ "$(vtysh_ "show bgp ipv4 unicast $FROM_FARED json" |
		jq '.paths // [] | length')" -gt 0 ]
}
frr_lacks_from_fared() { ! frr_has_from_fared; }

start_fared
wait_for 20 "fared sees FRR Established" fared_established $B4
wait_for 10 "FRR sees fared Established" \
	sh -c "[ \"\$(ip netns exec $NS_B vtysh --vty_socket $DIR -d bgpd \
		-c 'show bgp neighbors $F4 json' |
		jq -r '.\"$F4\".bgpState')\" = Established ]"
wait_for 10 "FRR has fared's $FROM_FARED" frr_has_from_fared
# Both sides sent the N bit: FRR says so.
vtysh_ "show bgp neighbors $F4 json" >"$DIR/frr-nb.json"
jq -e ".\"$F4\".gracefulRestartInfo.nBit == true" "$DIR/frr-nb.json" \
	>/dev/null 2>&1 || {
	jq ".\"$F4\" | {gracefulRestartInfo, neighborCapabilities}" \
		"$DIR/frr-nb.json"
	fail "FRR does not report the N bit exchanged with fared"
}
echo "ok: Established with graceful restart and the N bit both ways"

more=()
for i in $(seq 6 25); do more+=(-c "network 10.202.0.$i/32"); done
vtysh_ "configure terminal" -c "router bgp $B_AS" \
	-c "address-family ipv4 unicast" "${more[@]}" ||
	fail "vtysh: more networks"
wait_for 10 "FRR to see its session with fared go" \
	sh -c "[ \"\$(ip netns exec $NS_B vtysh --vty_socket $DIR -d bgpd \
		-c 'show bgp neighbors $F4 json' |
		jq -r '.\"$F4\".bgpState')\" != Established ]"
vtysh_ "show bgp neighbors $F4 json" >"$DIR/frr-nb.json"
jq ".\"$F4\" | {lastNotificationReason, lastNotificationHardReset, lastResetDueTo}" \
	"$DIR/frr-nb.json"
jq -e ".\"$F4\".lastNotificationHardReset == true" "$DIR/frr-nb.json" \
	>/dev/null || fail "FRR did not receive a Hard Reset"
jq -r ".\"$F4\".lastNotificationReason" "$DIR/frr-nb.json" |
	grep -q "Maximum Number of Prefixes" ||
	fail "the Hard Reset does not carry Cease 6/1"
echo "ok: FRR received Cease/Hard Reset around Maximum Number of Prefixes"
# fared's restart time is 60 s: a graceful end would keep the route stale.
wait_for 5 "FRR to delete fared's $FROM_FARED (not kept stale)" \
	frr_lacks_from_fared
[ "$(fared_field $B4 paths)" = 0 ] || fail "fared kept FRR's paths"
[ "$(ctl routes json 10.202.0.1/32 | jq length)" = 0 ] ||
	fail "FRR's route stayed in fared's RIB"
echo "ok: neither side keeps the other's routes after max-prefix"
