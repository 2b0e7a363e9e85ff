#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prefix ORF (mpson-00 §4.2, RFC 5291/5292) end to end with traffic: a
# fared host (topo_planes 3, fare.ko) whose three leaves are FRR 8.4.4
# bgpd instances (-Z: no zebra; one per leaf namespace, config, pid and
# vty socket in the lab's temp dir). Every leaf originates the 200 host
# routes 198.51.100.1-200/32 with an RFC 10005 Link Bandwidth of 300,
# 200, 100 Mbit/s (planes 1-3; fared: "link-bandwidth accept", links
# 400G, so the weights are 3:2:1) and forwards them to the remote. fared
# asks each leaf by ORF for 198.51.100.1-50 only (orf-prefix lines).
#
#   step  what                                      asserted
#   1     ORF from the config                       fare.ko holds exactly
#                                                   .1-.50, each 1:3 2:2 3:1;
#                                                   each FRR advertised 50
#   2     120 datagrams to .1 (requested)           60 40 20 at the remote
#   3     to .100 (not requested), no other route   refused by the host's
#                                                   kernel: ENETUNREACH, 0
#                                                   at the remote, fare's
#                                                   counters unchanged
#   4     to .100 with a main-table route via       all 120 over plane 1
#         plane 1 (the "normal" route)              (fare not involved)
#   5     farectl bgp orf add 198.51.100.100/32     .100 in fare.ko at
#                                                   1:3 2:2 3:1 (51 routes),
#                                                   120 datagrams: 60 40 20
#   6     farectl bgp orf del 198.51.100.100/32     back to 50; .100 follows
#                                                   the main route again
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BGPD=/usr/lib/frr/bgpd
command -v "$BGPD" >/dev/null || { echo "lab: FRR's bgpd missing (apt-get install frr)"; exit 1; }
LAB_DIR=$(mktemp -d /tmp/fare-orf.XXXXXX)
chmod 755 "$LAB_DIR"	# bgpd drops to user frr for its log file
CTL=$LAB_DIR/fared.sock
LBW=(0 300 200 100)	# Mbit/s, planes 1-3
W3="1:3 2:2 3:1"

# FRR 8.4.4 sends End-of-RIB only to a peer that advertised graceful
# restart, and ignores a ROUTE-REFRESH received before its End-of-RIB
# ("rcvd route-refresh (REQUEST) ... before EoR" in its debug log): so
# without "graceful-restart" on fared's side the first ORF filters (it
# ends FRR's wait for one, RFC 5291 §6) but an "orf add" at run time never
# changes what FRR sends. fared therefore advertises graceful restart here,
# and step 1 checks each leaf's End-of-RIB arrived.

# leaf_frr_start I: leaf I's bgpd, 200 host routes, ORF receive.
leaf_frr_start()
{
	local i=$1 h

	{
		cat <<EOC
hostname leaf$i
log file $LAB_DIR/bgpd$i.log ${FRR_LOG_LEVEL:-informational}
debug bgp neighbor-events
debug bgp updates out
debug bgp update-groups
router bgp 6510$i
 bgp router-id 10.$i.0.1
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor 10.$i.0.2 remote-as 65007
 neighbor 10.$i.0.2 timers 30 90
 neighbor 10.$i.0.2 timers connect 1
 address-family ipv4 unicast
EOC
		for h in $(seq 1 200); do echo "  network 198.51.100.$h/32"; done
		cat <<EOC
  neighbor 10.$i.0.2 capability orf prefix-list receive
  neighbor 10.$i.0.2 route-map lbw out
 exit-address-family
route-map lbw permit 10
 set extcommunity bandwidth ${LBW[$i]}
EOC
	} >"$LAB_DIR/bgpd$i.conf"
	mkdir -m 777 "$LAB_DIR/vty$i"
	ip netns exec leaf$i "$BGPD" -Z -S -d -f "$LAB_DIR/bgpd$i.conf" \
		-i "$LAB_DIR/bgpd$i.pid" --vty_socket "$LAB_DIR/vty$i" -P 0 \
		-l 10.$i.0.1
	# The parent may return before the daemon wrote its pid file.
	wait_until 10 test -s "$LAB_DIR/bgpd$i.pid"
	LAB_PIDS+=("$(cat "$LAB_DIR/bgpd$i.pid")")
}

leaf_vtysh()
{
	ip netns exec leaf$1 vtysh --vty_socket "$LAB_DIR/vty$1" -d bgpd \
		-c "$2"
}

# FRR's count of what it advertised to the host.
leaf_advertised()
{
	leaf_vtysh $1 "show bgp ipv4 unicast neighbors 10.$1.0.2 advertised-routes" |
		sed -n 's/^Total number of prefixes \([0-9]*\).*/\1/p'
}

# fared asks every plane for hosts .1-.50 by ORF; FRR needs graceful
# restart for run-time ORF changes (fared.conf(5)).
fared_start()
{
	FARED_HOST_GLOBAL="link-bandwidth accept
graceful-restart restart-time 120
$(for h in $(seq 1 50); do echo "orf-prefix 198.51.100.$h/32"; done)" \
	FARED_HOST_NEIGHBOR="orf send" fared_host_start 90 400G 3
}

# "prefix plane:weight ..." of every route in fare.ko, sorted by host.
fare_table()
{
	"$FARECTL" -j -n host route show | jq -r '.[] | "\(.dst) " +
		([.nexthops[] | "\(.plane):\(.weight)"] | join(" "))' |
		sort -t. -k4n
}

# What fare_table must be for hosts "$@" of 198.51.100.0/24.
fare_table_want()
{
	local h

	for h in "$@"; do echo "198.51.100.$h/32 $W3"; done
}

table_is() { [ "$(fare_table)" = "$1" ]; }

fare_tx()
{
	"$FARECTL" -j -n host stats | jq '[.. | objects | .tx_packets? // empty] | add // 0'
}

# send_to HOST PHASE: 120 paced datagrams from the host's loopback to
# 198.51.100.HOST; the receiver's report goes to $LAB_DIR/sinkPHASE.
send_to()
{
	local log=$LAB_DIR/sink$2 rc=0

	sink_start "$log" --bind 198.51.100.$1 --port 9100 --count 120 \
		--timeout 60
	ip netns exec host taskset -c 0 "$FARE_UDP" send --src 192.0.2.7 \
		--dst 198.51.100.$1 --port 9100 --count 120 --interval-us 20
	sink_wait "$log" || rc=$?
	expect_eq "phase $2: every datagram to .$1 arrived once" $rc 0
}

# What each side says about ORF, when a step went wrong.
orf_diag()
{
	local i

	"$FARECTL" -j bgp -s "$CTL" neighbors |
		jq -c '.[] | [.address, .state, .paths, .eor_received, .orf]'
	for i in 1 2 3; do
		leaf_vtysh $i "show bgp ipv4 unicast neighbors 10.$i.0.2 received prefix-filter" | tail -n 3 || true
		leaf_vtysh $i "show bgp ipv4 unicast neighbors 10.$i.0.2" |
			grep -i -A3 'orf\|refresh' || true
		tail -n 60 "$LAB_DIR/bgpd$i.log" || true
	done
	tail -n 20 "$LAB_DIR/fared.log" || true
}

load_fare
topo_planes 3
for i in 1 2 3; do
	ip -n leaf$i route add 198.51.100.0/24 via 10.1$i.0.2
done
for h in 1 2 3 100; do
	[ $h = 1 ] || ip -n remote addr add 198.51.100.$h/32 dev lo
done
for i in 1 2 3; do leaf_frr_start $i; done
fared_start

# Step 1: what ORF let through, and nothing else.
want=$(fare_table_want $(seq 1 50))
wait_until 120 table_is "$want" || { orf_diag; fare_table | sed -n 1,10p; }
sleep 3		# whatever FRR would send unfiltered has had time to come
expect_eq "step 1: fare.ko routes" "$(fare_table | wc -l)" 50
expect_eq "step 1: fare.ko holds .1-.50 at $W3" \
	"$([ "$(fare_table)" = "$want" ] && echo yes || echo no)" yes
for i in 1 2 3; do
	expect_eq "step 1: leaf$i (FRR) advertised" "$(leaf_advertised $i)" 50
	expect_eq "step 1: fared got from leaf$i" \
		"$("$FARECTL" -j bgp -s "$CTL" neighbors | jq --arg n 10.$i.0.1 '.[] | select(.address == $n) | .paths')" 50
done
for i in 1 2 3; do
	expect_eq "step 1: End-of-RIB from leaf$i" \
		"$("$FARECTL" -j bgp -s "$CTL" neighbors | jq --arg n 10.$i.0.1 '.[] | select(.address == $n) | .eor_received > 0')" true
done
"$FARECTL" -n host route show | sed -n 1,3p

# Each leaf's session flaps so far. Both sides connect at start and, with
# graceful restart, a peer's second connection that arrives just after the
# first became Established counts as its restart (RFC 4724 §5): that one
# start-up flap is not what this scenario is about. From here on none.
leaf_flaps()
{
	"$FARECTL" -j bgp -s "$CTL" neighbors |
		jq --arg n "10.$1.0.1" '.[] | select(.address == $n) | .flaps'
}
declare -A flaps_at_start
for i in 1 2 3; do
	flaps_at_start[$i]=$(leaf_flaps $i)
done

# Step 2: a requested host, split 3:2:1.
send_to 1 2
split_is 2 60 40 20

# Step 3: a host fared did not ask for: no route in fare's table 249
# (nor anywhere else in the host), so the host's kernel refuses the send.
expect_eq "step 3: .100 in fare.ko" "$(host_weights 198.51.100.100/32)" none
tx=$(fare_tx)
rx=$(for i in 1 2 3; do rx_packets remote eth-leaf$i; done | paste -sd+ | bc)
out=$(ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
	--dst 198.51.100.100 --port 9100 --count 1 2>&1) || true
expect_eq "step 3: a send to .100" "$out" \
	"fare-udp: sendto #0: Network is unreachable"
expect_eq "step 3: packets at the remote" \
	$(($(for i in 1 2 3; do rx_packets remote eth-leaf$i; done | paste -sd+ | bc) - rx)) 0
expect_eq "step 3: fare's tx counters" "$(fare_tx)" "$tx"

# Step 4: with a normal route in main via plane 1, .100 takes it alone.
ip -n host route add 198.51.100.0/24 via 10.1.0.1 dev eth-p1
send_to 100 4
split_is 4 120 0 0
expect_eq "step 4: fare's tx counters" "$(fare_tx)" "$tx"

# Step 5: ask for .100 at run time: it comes, weighted, and carries.
"$FARECTL" bgp -s "$CTL" orf add 198.51.100.100/32 | grep -x ok >/dev/null ||
	fail "farectl bgp orf add"
want=$(fare_table_want $(seq 1 50) 100)
wait_until 120 table_is "$want" || orf_diag
expect_eq "step 5: fare.ko routes" "$(fare_table | wc -l)" 51
expect_eq "step 5: .100 in fare.ko" "$(host_weights 198.51.100.100/32)" "$W3"
for i in 1 2 3; do
	expect_eq "step 5: leaf$i (FRR) advertised" "$(leaf_advertised $i)" 51
done
send_to 100 5
split_is 5 60 40 20

# Step 6: and take it back: .100 is the main route's again.
"$FARECTL" bgp -s "$CTL" orf del 198.51.100.100/32 | grep -x ok >/dev/null ||
	fail "farectl bgp orf del"
want=$(fare_table_want $(seq 1 50))
wait_until 120 table_is "$want" || orf_diag
expect_eq "step 6: fare.ko routes" "$(fare_table | wc -l)" 50
expect_eq "step 6: .100 in fare.ko" "$(host_weights 198.51.100.100/32)" none
send_to 100 6
split_is 6 120 0 0

for i in 1 2 3; do
	expect_eq "leaf$i: session to fared never dropped after step 1" \
		"$(leaf_flaps $i)" "${flaps_at_start[$i]}"
done
# fared has graceful-restart: SIGTERM would be a restart that keeps fare.ko's
# routes; SIGINT is the stop that removes them.
kill -INT "$FARED_PID"
rc=0
wait "$FARED_PID" || rc=$?
expect_eq "fared's exit status" $rc 0
expect_eq "fare's table after fared" \
	"$(ip -n host route show table 249 | wc -l)" 0
cat "$LAB_DIR/fared.log"
lab_result
