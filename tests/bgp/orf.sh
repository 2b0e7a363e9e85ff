#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Prefix ORF (mpson-00 §4.2, RFC 5291/5292) against FRR 8.4.4's bgpd as the
# leaf: FRR originates 200 host routes, fared asks for 50 of them among
# 6,000 wanted prefixes (more than one 65,535-octet message: DEFER, then
# IMMEDIATE) and must receive exactly those; adding and removing one at
# run time changes what arrives. The BIRD peers of the same fared are
# configured "orf send" too but never advertised ORF, so they never get
# it and stay up (BIRD drops a session on an ORF ROUTE-REFRESH).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

command -v /usr/lib/frr/bgpd >/dev/null || fail "FRR's bgpd missing (apt-get install frr)"
NS_R=$PFX-r
FRR_PID=
RR4=10.204.0.2
FR4=10.204.0.1
R_AS=4200000003

cleanup_orf()
{
	[ -n "$FRR_PID" ] && kill -9 "$FRR_PID" 2>/dev/null
	for pid in $(ip netns pids "$NS_R" 2>/dev/null); do
		kill -9 "$pid" 2>/dev/null
	done
	ip netns del "$NS_R" 2>/dev/null
	cleanup
}
trap cleanup_orf EXIT

setup_net
ip netns add "$NS_R" || fail "netns add"
ip -n "$NS_F" link add veth1 type veth peer name veth1 netns "$NS_R" ||
	fail "veth"
ip -n "$NS_R" link set lo up
ip -n "$NS_R" link set veth1 up
ip -n "$NS_F" link set veth1 up
ip -n "$NS_F" addr add $FR4/24 dev veth1
ip -n "$NS_R" addr add $RR4/24 dev veth1

# Wanted: 10.205.0.1-50 (FRR has them) and 10.206.0.0-10.206.23.109 (it
# has none); in the middle, so that they ride in several messages.
{
	for i in $(seq 1 25); do echo "orf-prefix 10.205.0.$i/32"; done
	for i in $(seq 0 5999); do
		echo "orf-prefix 10.206.$((i / 256)).$((i % 256))/32"
	done
	for i in $(seq 26 50); do echo "orf-prefix 10.205.0.$i/32"; done
} >"$DIR/orf.conf"
write_fared_conf "interface veth1 bandwidth 100G
$(cat "$DIR/orf.conf")
$(for i in $(seq 1 20); do echo "originate 10.207.0.$i/32"; done)
policy frr-in {
	permit 10.205.0.0/16 le 32
}
policy frr-out {
	permit 10.203.0.0/16 le 32
	permit 10.207.0.0/16 le 32
}" "	neighbor $RR4 {
		remote-as $R_AS
		interface veth1
		family ipv4
		orf both
		import frr-in
		export frr-out
	}"
# The BIRD neighbors ask for ORF too: only the capability exchange may
# decide whether fared sends it.
sed -i 's/^\t\tinterface veth0$/&\n\t\torf send/' "$DIR/fared.conf"
[ "$(grep -c "orf send" "$DIR/fared.conf")" = 2 ] || fail "conf: orf send lines"

{
	cat <<EOC
hostname $PFX
log file $DIR/bgpd.log
router bgp $R_AS
 bgp router-id $RR4
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor $FR4 remote-as $F_AS
 neighbor $FR4 timers connect 1
 address-family ipv4 unicast
EOC
	for i in $(seq 1 200); do echo "  network 10.205.0.$i/32"; done
	cat <<EOC
  neighbor $FR4 capability orf prefix-list both
  neighbor $FR4 prefix-list from-fared in
 exit-address-family
ip prefix-list from-fared seq 5 permit 10.207.0.3/32
ip prefix-list from-fared seq 10 permit 10.207.0.4/32
EOC
} >"$DIR/bgpd.conf"
chmod 755 "$DIR"
ip netns exec "$NS_R" /usr/lib/frr/bgpd -Z -S -d -f "$DIR/bgpd.conf" \
	-i "$DIR/bgpd.pid" --vty_socket "$DIR" -P 0 -l $RR4 ||
	fail "bgpd did not start"
FRR_PID=$(cat "$DIR/bgpd.pid")
vtysh_()
{
	ip netns exec "$NS_R" vtysh --vty_socket "$DIR" -d bgpd -c "$*"
}

# BIRD waits for fared to connect: no connect race at start-up to cost a
# flap (see flap.sh), so BIRD's sessions must not change state from their
# first Established on.
BIRD_F4_EXTRA="passive on;"
BIRD_F6_EXTRA="passive on;"
# valgrind on a loaded 2-core CI box can stall fared for seconds: the
# lib's 6 s hold time would turn that into flaps this test counts.
sed -i 's/^hold-time 6$/hold-time 60/' "$DIR/fared.conf"
# bringup, on the namespaces set up above; fared under valgrind, for the
# ORF lists it grows and frees.
fared_under_valgrind
write_bird_conf
sed -i 's/^\thold time 6;$/\thold time 60;/' "$DIR/bird.conf"
grep -q "hold time 60;" "$DIR/bird.conf" || fail "bird.conf: hold time"
start_bird
start_fared
for nb in $B4 $B6 $RR4; do
	wait_for 20 "fared sees $nb Established" fared_established $nb
done
wait_for 10 "BIRD sees fared4 Established" bird_established fared4
wait_for 10 "BIRD sees fared6 Established" bird_established fared6
since4=$(bird_since fared4)
since6=$(bird_since fared6)
since_ms "$since4" >/dev/null && since_ms "$since6" >/dev/null ||
	fail "BIRD's since times: '$since4' '$since6'"

frr_count()
{
	ctl routes json | jq '[.[] | select(.prefix | startswith("10.205."))] | length'
}
frr_prefixes()
{
	ctl routes json | jq -r '.[] | select(.prefix | startswith("10.205.")) | .prefix' |
		sort -t. -k4n | tr '\n' ' '
}
want=$(for i in $(seq 1 50); do printf '10.205.0.%s/32 ' "$i"; done)
frr_has_exactly()
{
	[ "$(frr_prefixes)" = "$1" ]
}
wait_for 20 "fared has the 50 wanted routes of FRR" frr_has_exactly "$want"
# Anything more FRR sent has been read: fared counts as many UPDATEs from
# it as FRR says it sent (End-of-RIB included), instead of a fixed sleep.
frr_json() { vtysh_ "show bgp neighbors $FR4 json" | jq -r ".\"$FR4\".$1"; }
fared_read_all_of_frr()
{
	local sent

	sent=$(frr_json messageStats.updatesSent)
	[ -n "$sent" ] && [ "$sent" != null ] &&
		[ "$(fared_field $RR4 updates_rx)" = "$sent" ]
}
wait_for 20 "fared to read every UPDATE FRR sent" fared_read_all_of_frr
frr_has_exactly "$want" || fail "from FRR: $(frr_count) routes: $(frr_prefixes)"
vtysh_ "show bgp ipv4 unicast neighbors $FR4 advertised-routes" >"$DIR/adv.txt"
grep -q "Total number of prefixes 50" "$DIR/adv.txt" ||
	fail "FRR advertised: $(tail -n 3 "$DIR/adv.txt")"
tx=$(fared_field $RR4 orf.messages_tx)
[ "$tx" -ge 3 ] || fail "$tx ORF messages to FRR, want REMOVE-ALL + 2 batches"
echo "ok: FRR sends only the 50 of 200 routes fared asked for ($tx ORF messages for 6,050 entries)"

"$FARECTL" bgp -s "$CTL" orf add 10.205.0.100/32 | grep -qx ok ||
	fail "farectl bgp orf add"
want2="${want}10.205.0.100/32 "
wait_for 10 "10.205.0.100/32 arrives after orf add" frr_has_exactly "$want2"
"$FARECTL" bgp -s "$CTL" orf del 10.205.0.7/32 | grep -qx ok ||
	fail "farectl bgp orf del"
want3=$(echo "$want2" | sed 's|10.205.0.7/32 ||')
wait_for 10 "10.205.0.7/32 goes after orf del" frr_has_exactly "$want3"
out=$("$FARECTL" bgp -s "$CTL" orf del 10.205.0.7/32) &&
	fail "a second orf del succeeded"
echo "$out" | grep -q "is not wanted" || fail "orf del twice: $out"
[ "$("$FARECTL" -j bgp -s "$CTL" orf | jq length)" = 6050 ] ||
	fail "orf list length"
echo "ok: orf add and del at run time change what FRR sends"

# The other way: FRR as the host sends its prefix-list as ORF, and fared
# as the leaf sends it only those 2 of its 21 routes for FRR.
frr_from_fared()
{
	vtysh_ "show bgp ipv4 unicast json" |
		jq -r '.routes | keys[] | select(startswith("10.207.") or startswith("10.203."))' | sort | tr '\n' ' '
}
frr_has_wanted()
{
	[ "$(frr_from_fared)" = "10.207.0.3/32 10.207.0.4/32 " ]
}
wait_for 10 "FRR has 10.207.0.4/32 from fared" frr_has_wanted
[ "$(fared_field $RR4 orf.receives)" = true ] || fail "fared does not receive ORF"
vtysh_ "show bgp ipv4 neighbors $FR4" | grep -q "received (6050 entries)" ||
	fail "FRR does not hold fared's 6,050 ORF entries"
[ "$(fared_field $RR4 orf.entries_rx)" = 2 ] ||
	fail "fared holds $(fared_field $RR4 orf.entries_rx) ORF entries"
echo "ok: FRR's ORF filters what fared sends it: $(frr_from_fared)"

# The BIRD sessions: up all along (BIRD ends a session on an ORF
# ROUTE-REFRESH), never sent an ORF.
bird_kept_session fared4 "$since4"
bird_kept_session fared6 "$since6"
bird_established fared6 || fail "BIRD dropped fared6"
for nb in $B4 $B6; do
	fared_established $nb || fail "BIRD session $nb is $(fared_state $nb)"
	[ "$(fared_field $nb orf.messages_tx)" = 0 ] || fail "ORF sent to BIRD $nb"
	[ "$(fared_field $nb orf.sends)" = false ] || fail "ORF negotiated with BIRD"
done
bird_established fared4 || fail "BIRD dropped fared4"
[ "$(frr_json connectionsEstablished) $(frr_json connectionsDropped)" = "1 0" ] ||
	fail "FRR's session flapped: established $(frr_json connectionsEstablished), dropped $(frr_json connectionsDropped)"
echo "ok: BIRD peers (no ORF capability) never got ORF and stayed up"

stop_fared_clean
echo "ok: fared exits cleanly under valgrind, no error, no leak"
