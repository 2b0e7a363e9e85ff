#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Transit export packs the prefixes that share attributes into one UPDATE
# (issue 15 §3), counted by a real receiver: fared as a spine, under
# valgrind, learns 400 prefixes from BIRD (B4) in two attribute sets (200
# with community 65000:1, 200 with 65000:2) and passes them on to FRR's
# bgpd (FAR), whose own message statistics count the UPDATEs:
#   FRR connects once fared has every prefix: the initial export is two
#     UPDATEs (one per attribute set) plus the End-of-RIB;
#   BIRD then adds 200 prefixes more, and withdraws them again: each
#     arrives in a few UPDATEs, not one per prefix.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

command -v /usr/lib/frr/bgpd >/dev/null || fail "FRR's bgpd missing (apt-get install frr)"
fared_under_valgrind
FAR4=10.201.0.5
FAR_AS=4200000005
setup_net
ip -n "$NS_B" addr add $FAR4/24 dev veth0
cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head 30)
role spine
interface veth0 bandwidth 100G
policy all {
	permit 10.0.0.0/8 le 32
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		import all
		export all
	}
}
plane 2 {
	neighbor $FAR4 {
		remote-as $FAR_AS
		interface veth0
		passive
		import all
		export all
	}
}
EOC
# bird_conf N: N /24s with community 65000:1 (from 10.210.0.0/24) and N
# with 65000:2 (from 10.220.0.0/24).
bird_conf()
{
	{
		cat <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static s4 {
	ipv4;
EOC
		for i in $(seq 0 $(($1 - 1))); do
			echo "	route 10.$((210 + i / 200)).$((i % 200)).0/24 blackhole { bgp_community.add((65000, 1)); };"
			echo "	route 10.$((220 + i / 200)).$((i % 200)).0/24 blackhole { bgp_community.add((65000, 2)); };"
		done
		cat <<EOC
}
protocol bgp leaf4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import none; export where source = RTS_STATIC; };
}
EOC
	} >"$DIR/bird.conf"
}
fared_has() { [ "$(ctl neighbors json | jq -r ".[] | select(.address == \"$B4\") | .paths")" = "$1" ]; }

bird_conf 200
start_bird
start_fared
wait_for 30 "fared Established with BIRD" fared_established $B4
wait_for 60 "fared to hold 400 prefixes" fared_has 400

cat >"$DIR/bgpd.conf" <<EOC
hostname $PFX
log file $DIR/bgpd.log
router bgp $FAR_AS
 bgp router-id $FAR4
 no bgp ebgp-requires-policy
 neighbor $F4 remote-as $F_AS
 neighbor $F4 update-source $FAR4
 neighbor $F4 timers connect 1
EOC
chmod 755 "$DIR"
ip netns exec "$NS_B" /usr/lib/frr/bgpd -Z -S -d -f "$DIR/bgpd.conf" \
	-i "$DIR/bgpd.pid" --vty_socket "$DIR" -P 0 -l $FAR4 ||
	fail "bgpd did not start"
vtysh_() { ip netns exec "$NS_B" vtysh --vty_socket "$DIR" -d bgpd -c "$*"; }
frr_json() { vtysh_ "show bgp neighbors $F4 json" | jq -r ".\"$F4\".$1"; }
frr_prefixes()
{
	vtysh_ "show bgp ipv4 unicast json" |
		jq -r '.routes | keys | map(select(startswith("10.2"))) | length'
}
frr_has() { [ "$(frr_prefixes)" = "$1" ]; }
# FRR has counted every UPDATE fared says it sent FRR (the End-of-RIB,
# which fared does not count, included): a wait, not the assertion. The
# counts judged are FRR's; a fared that sent more UPDATEs than it counts
# (or fewer) never meets this and fails the wait. No fixed sleep, where
# FRR on a loaded machine could count the last one later.
frr_caught_up()
{
	local sent

	sent=$(fared_field $FAR4 updates_tx)
	[ -n "$sent" ] && [ "$(frr_json messageStats.updatesRecv)" = $((sent + 1)) ]
}
wait_for 60 "FRR to accept 400 prefixes" frr_has 400
wait_for 30 "FRR to count every UPDATE fared sent it" frr_caught_up
n=$(frr_json messageStats.updatesRecv)
echo "FRR: $n UPDATEs received for 400 prefixes in 2 attribute sets (End-of-RIB included)"
[ "$n" = 3 ] || fail "the initial export took $n UPDATEs, not 2 and the End-of-RIB"
[ "$(vtysh_ "show bgp ipv4 unicast 10.220.7.0/24 json" | jq -r '.paths[0].community.string')" = 65000:2 ] ||
	fail "FRR does not see 10.220.7.0/24 with its community"
echo "ok: the initial export packs each attribute set into one UPDATE"

bird_conf 300
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 60 "FRR to accept 600 prefixes" frr_has 600
wait_for 30 "FRR to count every UPDATE fared sent it" frr_caught_up
m=$(frr_json messageStats.updatesRecv)
echo "FRR: $((m - n)) UPDATEs for 200 prefixes more"
[ $((m - n)) -le 20 ] || fail "200 new prefixes took $((m - n)) UPDATEs"
echo "ok: new prefixes passed on are packed too"

bird_conf 200
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 60 "FRR to be back at 400 prefixes" frr_has 400
wait_for 30 "FRR to count every UPDATE fared sent it" frr_caught_up
n=$(frr_json messageStats.updatesRecv)
echo "FRR: $((n - m)) UPDATEs for 200 withdrawals"
[ $((n - m)) -le 20 ] || fail "200 withdrawals took $((n - m)) UPDATEs"
echo "ok: withdrawals are packed too"
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
