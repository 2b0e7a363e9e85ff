#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 belongs to its namespace: its flowlet table, planes and routes are
# that namespace's, so the kernel refuses to move it to another one (once
# a move was accepted, and a ping through the moved fare0 in flowlet mode
# dereferenced the target namespace's missing flowlet table). After the
# refused move each namespace gets a fare0 of its own and a flowlet-mode
# ping through it is answered; the peer's counters, not fare's, say so.
set -eu
. "$(dirname "$0")/lib.sh"

load_fare
netns_add na
netns_add nb
netns_add np

# na and nb each reach np's 198.51.100.1 through a veth plane.
veth_link na eth-p 10.1.0.2/24 np eth-a 10.1.0.1/24
veth_link nb eth-p 10.2.0.2/24 np eth-b 10.2.0.1/24
ip -n np addr add 198.51.100.1/32 dev lo
for ns in na nb; do
	ip -n $ns addr add 192.0.2.7/32 dev lo
done
ip -n np route add 192.0.2.7/32 via 10.1.0.2 dev eth-a

"$FARECTL" -n na plane add 1 dev eth-p via 10.1.0.1
ip -n na link show fare0 >/dev/null

rc=0
out=$(ip -n na link set fare0 netns nb 2>&1) || rc=$?
if [ $rc -ne 0 ]; then
	pass "moving fare0 to another namespace refused: $out"
else
	fail "fare0 moved to another namespace"
fi
expect_eq "fare0 still in its namespace" \
	"$(ip -n na -j link show fare0 | jq -r '.[0].ifname')" fare0
expect_eq "no fare0 arrived in the other one" \
	"$(ip -n nb -j link show | jq '[.[] | select(.ifname == "fare0")] | length')" 0

# The other namespace: a plane (which makes its own fare0), a flowlet
# route, one ping.
"$FARECTL" -n nb plane add 1 dev eth-p via 10.2.0.1
"$FARECTL" -n nb route add 198.51.100.1/32 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1
ip -n np route replace 192.0.2.7/32 via 10.2.0.2 dev eth-b
before=$(ip -n np -j -s link show eth-b | jq '.[0].stats64.rx.packets')
if ip netns exec nb ping -c 3 -i 0.2 -W 2 -I 192.0.2.7 198.51.100.1 >/dev/null; then
	pass "ping through the second namespace's fare0 answered"
else
	fail "ping through the second namespace's fare0 not answered"
fi
after=$(ip -n np -j -s link show eth-b | jq '.[0].stats64.rx.packets')
expect_eq "echo requests the peer received over nb's plane" \
	$((after - before >= 3)) 1

# And the first namespace's fare0 still steers.
"$FARECTL" -n na route add 198.51.100.1/32 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1
ip -n np route replace 192.0.2.7/32 via 10.1.0.2 dev eth-a
if ip netns exec na ping -c 3 -i 0.2 -W 2 -I 192.0.2.7 198.51.100.1 >/dev/null; then
	pass "ping through the first namespace's fare0 answered"
else
	fail "ping through the first namespace's fare0 not answered"
fi

rc=0
ip -n nb link set fare0 netns na 2>/dev/null || rc=$?
expect_eq "moving the second fare0 refused too" $((rc != 0)) 1

# A namespace deleted under forwarded traffic, with a plane registered
# after fare0: the kernel unregisters its devices newest first, so that
# plane goes after fare0 started going, and its NETDEV_UNREGISTER once
# refitted the dying fare0 (dev_set_mtu() and a feature update on it).
# Where the kernel has kprobes, probes on dev_set_mtu() and
# netdev_update_features(), which fare.ko calls to refit fare0, see
# whether the dying fare0 was touched; the debug kernel (no kprobes) shows
# only that nothing WARNs, leaks or oopses.
netns_add nu
ip netns exec nu sysctl -qw net.ipv4.ip_forward=0
netns_add nt
veth_link nt eth-a 10.3.0.2/24 nu peer-a 10.3.0.1/24
"$FARECTL" -n nt plane add 1 dev eth-a via 10.3.0.1
ip link add eth-b netns nt mtu 1400 type veth peer name peer-b netns nu
ip -n nt addr add 10.4.0.2/24 dev eth-b
ip -n nt link set eth-b up
ip -n nu link set peer-b up
ip -n nu addr add 10.4.0.1/24 dev peer-b
"$FARECTL" -n nt plane add 2 dev eth-b via 10.4.0.1
expect_eq "fare0 took the later plane's MTU" \
	"$(ip -n nt -j link show fare0 | jq '.[0].mtu')" 1400
"$FARECTL" -n nt route add 198.51.100.0/24 nexthop plane 1 weight 1 \
	nexthop plane 2 weight 1
ip -n nu route add 198.51.100.0/24 via 10.3.0.2
ip netns exec nu "$FARE_UDP" send --src 10.3.0.1 --dst 198.51.100.1 \
	--port 9100 --count 100000000 --interval-us 50 --keep-going 1 &
LAB_PIDS+=($!)
if wait_until 10 rx_above nu peer-b 100; then
	pass "traffic forwarded through nt's fare0 arrives on its later plane"
else
	fail "no traffic through nt's fare0 on its later plane"
fi

tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null || true
probes=0
if [ -w $tr/kprobe_events ] &&
   echo 'p:fare_lab/mtu dev_set_mtu name=+0(%di):string' >> $tr/kprobe_events &&
   echo 'p:fare_lab/feat netdev_update_features name=+0(%di):string' >> $tr/kprobe_events; then
	echo 1 > $tr/events/fare_lab/enable
	: > $tr/trace
	# Control: the probes see fare.ko refit fare0 in a live namespace.
	ip -n nt link set eth-b mtu 1450
	if [ "$(grep -c 'name="fare0"' $tr/trace)" -ge 2 ]; then
		probes=1
	fi
	ip -n nt link set eth-b mtu 1400
	: > $tr/trace
fi
if [ $probes -eq 0 ]; then
	case $(uname -r) in
	6.1.*) fail "kprobes do not see fare.ko refit fare0" ;;
	*) log "no kprobes here: fare0's refit at teardown not observed" ;;
	esac
fi

ip netns del nt
LAB_NETNS=("${LAB_NETNS[@]/nt}")
gone() { ! ip -n nu link show "$1" >/dev/null 2>&1; }
if wait_until 30 gone peer-b && wait_until 30 gone peer-a; then
	pass "nt's planes went with it"
else
	fail "nt's planes still have peers in nu 30 s after its deletion"
fi
if [ $probes -eq 1 ]; then
	echo 0 > $tr/events/fare_lab/enable
	touched=$(grep -c 'name="fare0"' $tr/trace || true)
	expect_eq "no MTU or feature change on the dying fare0" "$touched" 0
	echo '-:fare_lab/mtu' >> $tr/kprobe_events
	echo '-:fare_lab/feat' >> $tr/kprobe_events
else
	debug_relax "no refit of the dying fare0" "no kprobes"
fi
lab_result
