#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# farectl route pick with real RDMA devices: soft-RoCE (rdma_rxe) on each
# plane's device. rxe works only in the initial network namespace, so the
# host here is the guest's own namespace; the leaves are namespaces.
#
#   [host: the initial namespace]                    [leafI: a namespace]
#   lo 192.0.2.7, 2001:db8:7::7
#   eth-pI 10.I.0.2/30, 2001:db8:I::2/64  --------  eth-host 10.I.0.1
#          + 192.0.2.7/32, 2001:db8:7::7/128 (so that the GID table of
#            rxeI, the RDMA device on eth-pI, holds the loopback address)
#
# A fare route to 198.51.100.0/24 (and 2001:db8:100::/48) weighted 3:1 over
# planes 1 and 2: "route pick DST 8" must place 6 and 2, name for each
# plane the RDMA device that "rdma link" shows on its device, and a GID
# index that ibv_devinfo -v (libibverbs' ibv_query_gid) and the sysfs GID
# table both show holding the route's source address as a RoCE v2 GID.
# RDMA CM bound to the plane device's own address that the pick names
# (dev_addr; rdma.md) must take that plane's RDMA device (the kernel's cm_id table) and send over that plane
# only (the remote's interfaces), and send nothing once the oif rules of
# table 248 are gone (the fix reverted); unbound, it must fail with
# ENODEV, as rdma.md says. Then what changes the answer: plane 2's device
# down, an unreachable route fared would leave for the prefix (UPA), no
# RDMA device on a plane; and the refusals (no route, N out of bounds, no
# usable plane).
#
#   leafI eth-remote 10.1I.0.1/30 -- remote eth-leafI 10.1I.0.2/30
#   remote lo 198.51.100.1 (IPv4 only)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DST4=198.51.100.1
DST6=2001:db8:100::1
LAB_DIR=$(mktemp -d)

# What this scenario adds to the initial namespace goes with it: the other
# scenarios of the guest run in namespaces of their own, but fare.ko and
# this namespace's fare0 stay.
pick_cleanup()
{
	local i fam

	"$FARECTL" route flush >/dev/null 2>&1 || true
	for i in 1 2; do
		rdma link delete rxe$i 2>/dev/null || true
		"$FARECTL" plane del $i 2>/dev/null || true
		ip link del eth-p$i 2>/dev/null || true
		while ip rule del pref 32764 oif eth-p$i 2>/dev/null; do :; done
		while ip -6 rule del pref 32764 oif eth-p$i 2>/dev/null; do :; done
	done
	for fam in -4 -6; do
		ip $fam route flush table 248 proto 249 2>/dev/null || true
		ip $fam route flush table 249 proto 249 2>/dev/null || true
		while ip $fam rule del pref 32765 table 249 2>/dev/null; do :; done
	done
	ip addr del 192.0.2.7/32 dev lo 2>/dev/null || true
	ip addr del 2001:db8:7::7/128 dev lo 2>/dev/null || true
	lab_cleanup
}
trap pick_cleanup EXIT

for tool in rdma ibv_devinfo jq python3; do
	command -v $tool >/dev/null ||
		{ fail "$tool is not installed (tests/deps.sh)"; lab_result; }
done
kernel_module rdma_rxe || { fail "modprobe rdma_rxe"; lab_result; }
# ibv_devinfo reaches the devices through /dev/infiniband/uverbsN.
kernel_module ib_uverbs || { fail "modprobe ib_uverbs"; lab_result; }

load_fare
# The remote has no IPv6, so that its plane interfaces receive nothing but
# what the leaves forward to 198.51.100.1.
netns_add remote
ip -n remote addr add 198.51.100.1/32 dev lo
ip addr add 192.0.2.7/32 dev lo
ip addr add 2001:db8:7::7/128 dev lo
for i in 1 2; do
	netns_add leaf$i v6
	ip link add eth-p$i type veth peer name eth-host netns leaf$i
	ip addr add 10.$i.0.2/30 dev eth-p$i
	ip addr add 192.0.2.7/32 dev eth-p$i
	ip addr add 2001:db8:$i::2/64 dev eth-p$i nodad
	ip addr add 2001:db8:7::7/128 dev eth-p$i nodad
	ip link set eth-p$i up
	ip -n leaf$i addr add 10.$i.0.1/30 dev eth-host
	ip -n leaf$i addr add 2001:db8:$i::1/64 dev eth-host nodad
	ip -n leaf$i link set eth-host up
	veth_link leaf$i eth-remote 10.1$i.0.1/30 remote eth-leaf$i 10.1$i.0.2/30
	ip -n leaf$i route add 198.51.100.1/32 via 10.1$i.0.2
	neigh_pin leaf$i eth-remote 10.1$i.0.2 remote eth-leaf$i
	rdma link add rxe$i type rxe netdev eth-p$i
	"$FARECTL" plane add $i dev eth-p$i via 10.$i.0.1 via 2001:db8:$i::1
done
rdma link show
"$FARECTL" route add 198.51.100.0/24 src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
"$FARECTL" route add 2001:db8:100::/48 src 2001:db8:7::7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1

# host_lookup_init DST DEV: lib.sh's host_lookup in this namespace.
host_lookup_init()
{
	{ ip route get "$1" oif "$2" 2>&1 || true; } | head -1
}

# rdma_dev_of NETDEV: the RDMA link on NETDEV, as iproute2's rdma tool
# (the RDMA netlink family) reports it.
rdma_dev_of()
{
	rdma -j link show | jq -r --arg n "$1" \
		'.[] | select(.netdev == $n) | .ifname' | cut -d/ -f1
}

# devinfo_gids DEV ADDR: the indices of DEV's port-1 GIDs that ibv_devinfo
# -v lists as ADDR (IPv4 as its IPv4-mapped GID) with type RoCE v2.
devinfo_gids()
{
	ibv_devinfo -v -d "$1" -i 1 | python3 -S -c '
import ipaddress, re, sys
a = ipaddress.ip_address(sys.argv[1])
if a.version == 4:
	a = ipaddress.IPv6Address("::ffff:" + str(a))
for line in sys.stdin:
	m = re.match(r"\s*GID\[\s*(\d+)\]:\s*([0-9a-fA-F:.]+),\s*(.*?)\s*$", line)
	if m and m.group(3) == "RoCE v2" and \
	   ipaddress.IPv6Address(m.group(2)) == a:
		print(m.group(1))
' "$2"
}

# sysfs_gid DEV INDEX: the GID, its type and its device in the kernel's
# table (/sys/class/infiniband/DEV/ports/1), one line.
sysfs_gid()
{
	local p=/sys/class/infiniband/$1/ports/1

	echo "$(cat "$p/gids/$2") $(cat "$p/gid_attrs/types/$2")" \
		"$(cat "$p/gid_attrs/ndevs/$2")"
}

# check_plane FAMILY JSON PLANE ADDR FULLGID: plane PLANE's RDMA device is
# the one rdma link shows on its device, and its GID index holds ADDR.
check_plane()
{
	local fam=$1 json=$2 i=$3 addr=$4 full=$5 dev gid want

	dev=$(jq -r ".planes[] | select(.plane == $i) | .rdma.dev" <<<"$json")
	gid=$(jq -r ".planes[] | select(.plane == $i) | .rdma.gid_index" \
		<<<"$json")
	want=$(rdma_dev_of "eth-p$i")
	expect_eq "$fam plane $i: RDMA device (rdma link: $want)" "$dev" "$want"
	if ! is_int "$gid"; then
		fail "$fam plane $i: GID index '$gid'"
		return 0
	fi
	if grep -qx -- "$gid" <<<"$(devinfo_gids "$want" "$addr")"; then
		pass "$fam plane $i: ibv_devinfo -v shows GID[$gid] of $want as $addr, RoCE v2"
	else
		fail "$fam plane $i: GID index $gid is not one ibv_devinfo -v shows as $addr RoCE v2 on $want: $(devinfo_gids "$want" "$addr" | tr '\n' ' ')"
	fi
	expect_eq "$fam plane $i: sysfs GID $gid of $want" \
		"$(sysfs_gid "$want" "$gid")" "$full RoCE v2 eth-p$i"
}

# The GID tables fill from the devices' addresses asynchronously.
gid_ready()
{
	local i

	for i in 1 2; do
		[ -n "$(devinfo_gids rxe$i 192.0.2.7)" ] &&
			[ -n "$(devinfo_gids rxe$i 2001:db8:7::7)" ] || return 1
	done
}
wait_until 10 gid_ready ||
	fail "rxe1 and rxe2 have no RoCE v2 GID of the loopback addresses"

FULL4=0000:0000:0000:0000:0000:ffff:c000:0207
FULL6=2001:0db8:0007:0000:0000:0000:0000:0007
"$FARECTL" route pick $DST4 8
pick4=$("$FARECTL" -j route pick $DST4 8)
expect_eq "IPv4 pick 8 over 3:1: plane, device, count, source" \
	"$(jq -c '[.planes[] | [.plane, .dev, .count, .src]]' <<<"$pick4")" \
	'[[1,"eth-p1",6,"192.0.2.7"],[2,"eth-p2",2,"192.0.2.7"]]'
expect_eq "IPv4 pick 8: connections per plane in the placement" \
	"$(jq -c '[.placement[] | select(. == 1)] | length' <<<"$pick4"):$(
	   jq -c '[.placement[] | select(. == 2)] | length' <<<"$pick4")" "6:2"
for i in 1 2; do
	check_plane IPv4 "$pick4" $i 192.0.2.7 $FULL4
done
pick6=$("$FARECTL" -j route pick $DST6 8)
expect_eq "IPv6 pick 8 over 3:1: plane, device, count, source" \
	"$(jq -c '[.planes[] | [.plane, .dev, .count, .src]]' <<<"$pick6")" \
	'[[1,"eth-p1",6,"2001:db8:7::7"],[2,"eth-p2",2,"2001:db8:7::7"]]'
for i in 1 2; do
	check_plane IPv6 "$pick6" $i 2001:db8:7::7 $FULL6
done

# rping_bound I ADDR: RDMA CM bound to ADDR (plane I's own address)
# toward the remote; nothing answers RDMA there, so its connection
# request is retried until rping is stopped. Sets RPING to its pid.
rping_bound()
{
	timeout 20 rping -c -I "$2" -a $DST4 -C 1 -v \
		>"$LAB_DIR/rping$1" 2>&1 &
	RPING=$!
	LAB_PIDS+=("$RPING")
}

# cm_dev SRC: the RDMA device and port of the kernel's cm_id bound to SRC.
cm_dev()
{
	rdma res show cm_id | awk -v s="src-addr $1:" \
		'index($0, s) { print $2; exit }'
}

remote_rx_above() { rx_above remote "eth-leaf$1" "$2"; }

for i in 1 2; do
	o=$((3 - i))
	b_i=$(rx_packets remote eth-leaf$i)
	b_o=$(rx_packets remote eth-leaf$o)
	addr=$(jq -r ".planes[] | select(.plane == $i) | .dev_addr" <<<"$pick4")
	expect_eq "IPv4 pick: plane $i's own address, for RDMA CM" "$addr" \
		"10.$i.0.2"
	expect_eq "IPv6 pick: plane $i's own address, for RDMA CM" \
		"$(jq -r ".planes[] | select(.plane == $i) | .dev_addr" \
		   <<<"$pick6")" "2001:db8:$i::2"
	rping_bound $i "$addr"
	wait_until 10 test -n "$(cm_dev 10.$i.0.2)" || true
	expect_eq "RDMA CM bound to 10.$i.0.2: the cm_id's RDMA device" \
		"$(cm_dev 10.$i.0.2)" "rxe$i/1"
	wait_until 15 remote_rx_above $i "$b_i" || true
	kill "$RPING" 2>/dev/null || true
	wait "$RPING" 2>/dev/null || true
	d_i=$(($(rx_packets remote eth-leaf$i) - b_i))
	d_o=$(($(rx_packets remote eth-leaf$o) - b_o))
	if [ "$d_i" -gt 0 ] && [ "$d_o" -eq 0 ]; then
		pass "RDMA CM bound to 10.$i.0.2: the remote got $d_i over plane $i, $d_o over plane $o"
	else
		fail "RDMA CM bound to 10.$i.0.2: the remote got $d_i over plane $i, $d_o over plane $o (expected > 0 and 0)"
		cat "$LAB_DIR/rping$i"
	fi
done

# The fix reverted: without the oif rules a lookup bound to eth-p1 does
# not find the plane route, and the connection request goes nowhere.
ip rule del pref 32764 oif eth-p1
b_1=$(rx_packets remote eth-leaf1)
rping_bound 1 10.1.0.2
sleep 5
kill "$RPING" 2>/dev/null || true
wait "$RPING" 2>/dev/null || true
log "without table 248's rule: $(host_lookup_init $DST4 eth-p1)"
expect_eq "RDMA CM bound to 10.1.0.2 without the oif rule: the remote got" \
	$(($(rx_packets remote eth-leaf1) - b_1)) 0
# A new handle puts the rule back with the route.
"$FARECTL" route replace 198.51.100.0/24 src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
expect_eq "IPv4 bound to eth-p1 once the route is replaced" \
	"$(host_lookup_init $DST4 eth-p1 | grep -o 'via 10.1.0.1 dev eth-p1')" \
	"via 10.1.0.1 dev eth-p1"

# Unbound, RDMA CM resolves to fare0, which has no GID: ENODEV (rdma.md).
rc=0
out=$(timeout 20 rping -c -a $DST4 -C 1 -v 2>&1) || rc=$?
if [ $rc -ne 0 ] && grep -q "RDMA_CM_EVENT_ADDR_ERROR, error -19" <<<"$out"; then
	pass "RDMA CM with no address bound fails with ENODEV: $(head -1 <<<"$out")"
else
	fail "RDMA CM with no address bound: exit $rc: $out (expected ADDR_ERROR -19)"
fi

# N below the number of planes: the larger weight first.
expect_eq "IPv4 pick 1: plane 1 only" \
	"$("$FARECTL" -j route pick $DST4 1 | jq -c '[.planes[].count]')" \
	'[1,0]'

# Plane 2's device down: fare.ko reports the plane down and the pick
# leaves it out; up again, 6 and 2 again.
ip link set eth-p2 down
expect_eq "eth-p2 down: the kernel's operstate" \
	"$(ip -j link show eth-p2 | jq -r '.[0].operstate')" DOWN
"$FARECTL" route pick $DST4 8 || true
pick=$("$FARECTL" -j route pick $DST4 8)
expect_eq "IPv4 pick 8 with eth-p2 down: plane, count" \
	"$(jq -c '[.planes[] | [.plane, .count]]' <<<"$pick")" '[[1,8]]'
expect_eq "IPv4 pick 8 with eth-p2 down: plane 2 left out, why" \
	"$(jq -c '[.left_out[] | [.plane, .reason]]' <<<"$pick")" \
	'[[2,"down"]]'
expect_eq "IPv4 pick 8 with eth-p2 down: placement" \
	"$(jq -c .placement <<<"$pick")" '[1,1,1,1,1,1,1,1]'
ip link set eth-p2 up
pick_back()
{
	[ "$("$FARECTL" -j route pick $DST4 8 |
	      jq -c '[.planes[].count]')" = "[6,2]" ]
}
if wait_until 10 pick_back; then
	pass "IPv4 pick 8 with eth-p2 up again: 6 and 2"
else
	fail "IPv4 pick 8 with eth-p2 up again: $("$FARECTL" -j route pick $DST4 8 | jq -c '[.planes[].count]')"
fi

# A prefix every plane reported lost (UPA): fared deletes its fare route
# and libfare's fare_route_unreachable() leaves this unreachable route in
# table 249 (tests/lab/upa.sh drives it through fared); the kernel answers
# "No route to host" to an unbound lookup, and nothing is placed. (A bound
# lookup still follows the /24's plane route: logged, datapath.md.)
ip route add unreachable 198.51.100.1/32 proto 249 table 249
expect_eq "the kernel's lookup toward the unreachable prefix" \
	"$({ ip route get $DST4 2>&1 || true; } | head -1 |
	   grep -o 'No route to host')" "No route to host"
log "a lookup bound to eth-p1 toward it: $(host_lookup_init $DST4 eth-p1)"
expect_refusal "pick toward a prefix unreachable by UPA" \
	"unreachable (UPA)" "$FARECTL" route pick $DST4 8
expect_eq "pick toward another address of the route still places" \
	"$("$FARECTL" -j route pick 198.51.100.2 8 | jq -c '[.planes[].count]')" \
	'[6,2]'
ip route del unreachable 198.51.100.1/32 proto 249 table 249

# The refusals.
expect_refusal "pick with no fare route" "no fare route" \
	"$FARECTL" route pick 203.0.113.1 8
expect_exit "pick of 0 connections (usage)" 2 "(1..65536)" \
	"$FARECTL" route pick $DST4 0
expect_exit "pick of 65537 connections (usage)" 2 "(1..65536)" \
	"$FARECTL" route pick $DST4 65537
"$FARECTL" route replace 198.51.100.0/24 src 192.0.2.7 \
	nexthop plane 2 weight 1
ip link set eth-p2 down
expect_refusal "pick with no usable plane" "no plane of the route" \
	"$FARECTL" route pick $DST4 8
ip link set eth-p2 up
"$FARECTL" route replace 198.51.100.0/24 src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1

# No RDMA device on plane 2's device: the device and count, no RDMA.
rdma link delete rxe2
wait_until 10 pick_back || true
pick=$("$FARECTL" -j route pick $DST4 8)
expect_eq "pick 8 with no RDMA device on eth-p2: rdma per plane" \
	"$(jq -c '[.planes[] | [.dev, .count, .rdma.dev]]' <<<"$pick")" \
	'[["eth-p1",6,"rxe1"],["eth-p2",2,null]]'

lab_result
