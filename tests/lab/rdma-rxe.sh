#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Real RDMA connections over fare's planes: soft-RoCE (rdma_rxe) at both
# ends. rxe works only in the initial network namespace, so the two RDMA
# hosts are two guests (tests/vm/run --pair; this script runs in both and
# takes its part from FARE_VM_GUEST). Issue 23, item 3.
#
#   guest A: the fare host                 guest B: the leaves and the far host
#   lo 192.0.2.7, 2001:db8:7::7 (also on eth-pI, for the GIDs; IPv6 alike:
#   2001:db8:I::/64 between A and leaf I, 2001:db8:1I::/64 to B,
#   B's 2001:db8:100::1)
#   eth-p1 10.1.0.2/30 ==== QEMU link ==== eth-p1 10.1.0.1/30 [ns leaf1]
#     + 192.0.2.7/32, rxe1                   leaf1 eth-host 10.11.0.1/30
#                                              |  veth
#                                            eth-leaf1 10.11.0.2/30 (B's plane 1)
#                                              + 198.51.100.1/32, rxe1
#   eth-p2 10.2.0.2/30 ==== QEMU link ==== eth-p2 ... the same with 2, 12
#
#   B: lo 198.51.100.1; 192.0.2.7 by the kernel's own multipath route
#   (3:1) over eth-leaf1 and eth-leaf2, 10.I.0.0/30 via leaf I.
#   A: fare.ko, planes 1 and 2 via 10.I.0.1, the fare route
#   198.51.100.0/24 src 192.0.2.7 weighted 3:1.
#
# RoCEv2 (UDP port 4791) is counted by tc flower filters at two places
# fare.ko does not touch: leaf I's link from A (eth-p1/eth-p2 in the leaf
# namespaces) and B's plane devices (eth-leafI); and by B's rxe devices
# (hw_counters/rcvd_pkts). B does the counting, A the connecting; they meet
# at barriers in the shared directory /run/fare-pair, where B also leaves
# its verdicts. Checks (issue 23's letters):
#  (a) per plane: rping (RDMA CM) bound to the plane device's own address
#      and ib_write_bw (verbs, -d rxeI -x GID of the loopback address)
#      connect and complete; leaf I and B's eth-leafI count RoCE, the other
#      plane nothing; rping bound to the plane's IPv6 address and
#      ib_write_bw with IPv6 GIDs (2001:db8:7::7 to 2001:db8:100::1, the
#      fare route 2001:db8:100::/48), the same. The control: with A's oif rule of table 248 deleted
#      (issue 23's fix undone) rping bound to plane 1 fails and plane 1
#      carries no RoCE packet.
#  (b) "farectl route pick 198.51.100.1 8" over 3:1 places 6 and 2; eight
#      ib_write_bw QPs placed by it (each the same size) give RoCE packet
#      counts 3:1 on the leaves, equal on each plane's three counters;
#      the same over IPv6 (pick of 2001:db8:100::1, QPs on IPv6 GIDs).
#  (c) on both guests, rxe's out_of_seq_request, duplicate_request,
#      rcvd_seq_err, retry_exceeded_err and completer_retry_err do not move.
#  (d) an unbound RDMA CM connect (no source address) fails with ENODEV
#      (Documentation/rdma.md says why) and sends no RoCE packet.
#
# On 6.1 and on the debug kernel (tests/run-all; rxe, the verbs and RDMA
# CM interfaces and virtio-net are built into the latter). Not on stock
# 6.12: one run there lost a RoCE packet on A's side and rxe retried
# (Documentation/rdma.md); the debug kernel runs 6.12's code.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ME=${FARE_VM_GUEST:-}
P=/run/fare-pair
case $ME in
A) PEER=B ;;
B) PEER=A ;;
*)
	# Run alone (tests/lab/run with no list runs every scenario): this
	# one needs the two guests of tests/vm/run --pair.
	log "skipped: needs two guests (tests/vm/run --pair, FARE_VM_GUEST)"
	exit 0
	;;
esac
[ -d $P ] || { fail "no $P (tests/vm/run --pair)"; lab_result; exit 1; }

DST=198.51.100.1
SRC=192.0.2.7
DST6=2001:db8:100::1
SRC6=2001:db8:7::7
LAB_DIR=$(mktemp -d)
# The rxe counters that move when packets are lost, reordered or
# retransmitted (drivers/infiniband/sw/rxe/rxe_hw_counters.c).
BAD_COUNTERS='out_of_seq_request duplicate_request rcvd_seq_err retry_exceeded_err completer_retry_err'
# Each QP writes ITER messages of SIZE bytes: SIZE/1024 packets each at
# rxe's 1024-byte path MTU on a 1500-byte link. A QP timeout of 4 s (-u
# 20): two TCG guests on one core each answer late, and a retry there
# would say nothing about the planes.
ITER=50
SIZE=4096
PERF=(-F -s "$SIZE" -n "$ITER" -u 20)

rdma_cleanup()
{
	local i pid

	touch "$P/gone.$ME" 2>/dev/null || true
	# The RDMA programs first: rxe cannot take its devices from a
	# process that holds them open (no disassociate), so "rdma link
	# delete" would wait for rping -P for ever (seen: hung task).
	for pid in "${LAB_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${LAB_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	"$FARECTL" route flush >/dev/null 2>&1 || true
	for i in 1 2; do
		rdma link delete rxe$i 2>/dev/null || true
		"$FARECTL" plane del $i 2>/dev/null || true
	done
	lab_cleanup
}
trap rdma_cleanup EXIT

# barrier NAME: this guest reached NAME; returns when the other has too.
# A guest that left (its script ended, pass or fail) leaves gone.X, which
# ends the wait at once.
barrier()
{
	local deadline=$((SECONDS + 300))

	touch "$P/$1.$ME"
	until [ -e "$P/$1.$PEER" ]; do
		if [ -e "$P/gone.$PEER" ]; then
			fail "guest $PEER left before barrier $1"
			exit 1
		fi
		if [ $SECONDS -ge $deadline ]; then
			fail "guest $PEER did not reach barrier $1 in 300 s"
			exit 1
		fi
		sleep 0.2
	done
}

# gid_index DEV NETDEV ADDR: the index of DEV's RoCE v2 GID of ADDR on
# NETDEV, from the kernel's GID table in sysfs. One process reads the whole
# table: rxe's has 1,024 entries, and a cat of each three files took
# minutes of a TCG guest's CPU on the debug kernel (1,425 s for this
# scenario in stop 40's CI, most of it here).
gid_index()
{
	python3 -S - "$@" <<'PY'
import ipaddress, os, sys

dev, netdev, addr = sys.argv[1:4]
port = "/sys/class/infiniband/%s/ports/1" % dev
a = ipaddress.ip_address(addr)
if a.version == 4:
	a = ipaddress.IPv6Address("::ffff:" + str(a))
want = a.exploded


def read(path):
	try:
		with open(path) as f:
			return f.read().strip()
	except OSError:
		return None


for n in sorted(os.listdir(port + "/gids"), key=int):
	if read("%s/gids/%s" % (port, n)) != want:
		continue
	if read("%s/gid_attrs/types/%s" % (port, n)) != "RoCE v2":
		continue
	if read("%s/gid_attrs/ndevs/%s" % (port, n)) != netdev:
		continue
	print(n)
	sys.exit(0)
sys.exit(1)
PY
}

# hw DEV NAME: an rxe counter.
hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# bad_sum: the sum of BAD_COUNTERS over rxe1 and rxe2, as "name=v ...".
bad_snapshot()
{
	local i c

	for i in 1 2; do
		for c in $BAD_COUNTERS; do
			printf 'rxe%s.%s=%s ' $i $c "$(hw rxe$i $c)"
		done
	done
}

# roce_filter NS DEV: count UDP 4791 (IPv4 and IPv6) entering DEV.
roce_filter()
{
	local nsopt=()

	[ -n "$1" ] && nsopt=(-n "$1")
	tc "${nsopt[@]}" qdisc add dev "$2" clsact
	tc "${nsopt[@]}" filter add dev "$2" ingress pref 1 protocol ip \
		flower ip_proto udp dst_port 4791 action pass
	tc "${nsopt[@]}" filter add dev "$2" ingress pref 2 protocol ipv6 \
		flower ip_proto udp dst_port 4791 action pass
}

# roce NS DEV: RoCE packets that entered DEV so far.
roce()
{
	local nsopt=()

	[ -n "$1" ] && nsopt=(-n "$1")
	tc "${nsopt[@]}" -s -j filter show dev "$2" ingress |
		jq '[.[] | select(.options.actions != null) |
		     .options.actions[0].stats.packets] | add // 0'
}

# counters: B's view, one line: leaf1-in leaf2-in leaf1-back leaf2-back
# eth-leaf1 eth-leaf2 rxe1-rcvd rxe2-rcvd. "in" is from A (leaf I's link
# to A), "back" toward A (leaf I's link to B).
counters()
{
	echo "$(roce leaf1 eth-p1) $(roce leaf2 eth-p2)" \
		"$(roce leaf1 eth-host) $(roce leaf2 eth-host)" \
		"$(roce "" eth-leaf1) $(roce "" eth-leaf2)" \
		"$(hw rxe1 rcvd_pkts) $(hw rxe2 rcvd_pkts)"
}

# delta BEFORE AFTER: the element-wise difference of two counters lines.
delta()
{
	local -a b a
	read -r -a b <<<"$1"
	read -r -a a <<<"$2"
	local i d=()

	for i in "${!a[@]}"; do
		d+=($((a[i] - b[i])))
	done
	echo "${d[*]}"
}

# verdict LINE...: B's result for A to print, and B's own.
verdict() { echo "$*" >>"$P/verdicts"; echo "lab: [B] $*"; }

for tool in rdma rping ib_write_bw jq tc python3; do
	command -v $tool >/dev/null ||
		{ fail "$tool is not installed (tests/deps.sh)"; lab_result; exit 1; }
done
kernel_module rdma_rxe || { fail "modprobe rdma_rxe"; lab_result; exit 1; }
kernel_module rdma_ucm || true
kernel_module ib_uverbs || true
for s in all default; do
	sysctl -qw net.ipv4.conf.$s.rp_filter=0
done

# --- set up ------------------------------------------------------------

if [ $ME = A ]; then
	load_fare
	ip addr add $SRC/32 dev lo
	ip addr add $SRC6/128 dev lo
	for i in 1 2; do
		sysctl -qw net.ipv4.conf.eth-p$i.rp_filter=0
		ip addr add 10.$i.0.2/30 dev eth-p$i
		ip addr add $SRC/32 dev eth-p$i
		ip addr add 2001:db8:$i::2/64 dev eth-p$i nodad
		ip addr add $SRC6/128 dev eth-p$i nodad
		ip link set eth-p$i up
		rdma link add rxe$i type rxe netdev eth-p$i
		"$FARECTL" plane add $i dev eth-p$i via 10.$i.0.1 \
			via 2001:db8:$i::1
	done
	"$FARECTL" route add 198.51.100.0/24 src $SRC \
		nexthop plane 1 weight 3 nexthop plane 2 weight 1
	"$FARECTL" route add 2001:db8:100::/48 src $SRC6 \
		nexthop plane 1 weight 3 nexthop plane 2 weight 1
else
	ip addr add $DST/32 dev lo
	ip addr add $DST6/128 dev lo
	for i in 1 2; do
		netns_add leaf$i v6
		ip link set eth-p$i netns leaf$i
		ip -n leaf$i addr add 10.$i.0.1/30 dev eth-p$i
		ip -n leaf$i addr add 2001:db8:$i::1/64 dev eth-p$i nodad
		ip -n leaf$i link set eth-p$i up
		ip link add eth-leaf$i type veth peer name eth-host netns leaf$i
		ip -n leaf$i addr add 10.1$i.0.1/30 dev eth-host
		ip -n leaf$i addr add 2001:db8:1$i::1/64 dev eth-host nodad
		ip -n leaf$i link set eth-host up
		ip -n leaf$i route add $DST/32 via 10.1$i.0.2
		ip -n leaf$i route add $SRC/32 via 10.$i.0.2
		ip -n leaf$i route add $DST6/128 via 2001:db8:1$i::2
		ip -n leaf$i route add $SRC6/128 via 2001:db8:$i::2
		sysctl -qw net.ipv4.conf.eth-leaf$i.rp_filter=0
		ip addr add 10.1$i.0.2/30 dev eth-leaf$i
		ip addr add $DST/32 dev eth-leaf$i
		ip addr add 2001:db8:1$i::2/64 dev eth-leaf$i nodad
		ip addr add $DST6/128 dev eth-leaf$i nodad
		ip link set eth-leaf$i up
		ip route add 10.$i.0.0/30 via 10.1$i.0.1 dev eth-leaf$i
		ip -6 route add 2001:db8:$i::/64 via 2001:db8:1$i::1 dev eth-leaf$i
		rdma link add rxe$i type rxe netdev eth-leaf$i
		roce_filter leaf$i eth-p$i
		roce_filter leaf$i eth-host
		roce_filter "" eth-leaf$i
	done
	# The kernel's own weighted multipath route back: a lookup bound to
	# eth-leafI takes that plane's next hop.
	ip route add $SRC/32 src $DST \
		nexthop via 10.11.0.1 dev eth-leaf1 weight 3 \
		nexthop via 10.12.0.1 dev eth-leaf2 weight 1
	ip -6 route add $SRC6/128 src $DST6 \
		nexthop via 2001:db8:11::1 dev eth-leaf1 weight 3 \
		nexthop via 2001:db8:12::1 dev eth-leaf2 weight 1
	# Persistent RDMA CM server on every address (B's checks (a), (d)).
	rping -s -P -a 0.0.0.0 >"$LAB_DIR/rping-server" 2>&1 &
	LAB_PIDS+=($!)
	rping -s -P -a :: -p 7175 >"$LAB_DIR/rping6-server" 2>&1 &
	LAB_PIDS+=($!)
fi
rdma link show

# The GID tables fill from the devices' addresses asynchronously.
if [ "$ME" = A ]; then
	MYADDR=$SRC MYADDR6=$SRC6
else
	MYADDR=$DST MYADDR6=$DST6
fi
# gids_ready: GID[I] and GID6[I], the indexes of this guest's addresses
# on rxeI, once all four are there (each a read of the whole table).
gids_ready()
{
	local i nd

	for i in 1 2; do
		if [ "$ME" = A ]; then nd=eth-p$i; else nd=eth-leaf$i; fi
		GID[$i]=$(gid_index rxe$i $nd $MYADDR) || return 1
		GID6[$i]=$(gid_index rxe$i $nd $MYADDR6) || return 1
	done
}
wait_until 10 gids_ready ||
	fail "rxe1 and rxe2 have no RoCE v2 GID of $MYADDR and $MYADDR6"
for i in 1 2; do
	if [ "$ME" = A ]; then nd=eth-p$i; else nd=eth-leaf$i; fi
	: "${GID[$i]:=none}" "${GID6[$i]:=none}"
	log "rxe$i: GID ${GID[$i]} holds $MYADDR, GID ${GID6[$i]} $MYADDR6 (RoCE v2, $nd)"
done
BAD0=$(bad_snapshot)

barrier setup

# --- (a) each plane in turn ------------------------------------------------

for i in 1 2; do
	o=$((3 - i))
	if [ $ME = B ]; then
		timeout 150 ib_write_bw -d rxe$i -x "${GID[$i]}" -p $((18000 + i)) \
			"${PERF[@]}" >"$LAB_DIR/bw-server$i" 2>&1 &
		srv=$!
		LAB_PIDS+=("$srv")
		wait_until 20 sh -c "ss -ltn | grep -q ':$((18000 + i)) '" ||
			fail "ib_write_bw server on port $((18000 + i)) not listening"
		c0=$(counters)
		barrier a$i.go
		barrier a$i.done
		wait "$srv" 2>/dev/null || true
		c1=$(counters)
		read -r in1 in2 back1 back2 far1 far2 rx1 rx2 <<<"$(delta "$c0" "$c1")"
		rin=([1]=$in1 [2]=$in2)
		far=([1]=$far1 [2]=$far2)
		rx=([1]=$rx1 [2]=$rx2)
		back=([1]=$back1 [2]=$back2)
		if [ "${rin[$i]}" -gt 0 ] && [ "${rin[$o]}" -eq 0 ] &&
		   [ "${back[$i]}" -gt 0 ] && [ "${back[$o]}" -eq 0 ] &&
		   [ "${far[$i]}" -gt 0 ] && [ "${far[$o]}" -eq 0 ] &&
		   [ "${rx[$o]}" -eq 0 ]; then
			verdict "ok: (a) plane $i: RoCE packets from A on leaf $i ${rin[$i]}, leaf $o ${rin[$o]}; toward A on leaf $i ${back[$i]}, leaf $o ${back[$o]}; on B's eth-leaf$i ${far[$i]}, eth-leaf$o ${far[$o]}; rxe$i rcvd_pkts +${rx[$i]}, rxe$o +${rx[$o]}"
		else
			verdict "FAIL: (a) plane $i: RoCE counts (leaf in 1 2, leaf back 1 2, eth-leaf 1 2, rxe rcvd 1 2) = $(delta "$c0" "$c1") (expected only plane $i's above 0)"
			cat "$LAB_DIR/bw-server$i"
		fi
		continue
	fi
	barrier a$i.go
	rc=0
	timeout 60 rping -c -I 10.$i.0.2 -a $DST -C 5 \
		>"$LAB_DIR/rping$i" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		pass "(a) rping bound to 10.$i.0.2 (plane $i) connected and ran 5 pings to $DST"
	else
		fail "(a) rping bound to 10.$i.0.2 (plane $i): exit $rc: $(cat "$LAB_DIR/rping$i")"
	fi
	rc=0
	timeout 120 ib_write_bw -d rxe$i -x "${GID[$i]}" -p $((18000 + i)) \
		"${PERF[@]}" $DST >"$LAB_DIR/bw$i" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		pass "(a) ib_write_bw -d rxe$i -x ${GID[$i]} (plane $i, $SRC) to $DST: $(awk '$1 == '$SIZE' { print $4 " MB/s" }' "$LAB_DIR/bw$i")"
	else
		fail "(a) ib_write_bw on plane $i: exit $rc: $(cat "$LAB_DIR/bw$i")"
	fi
	barrier a$i.done
done

# --- (a) over IPv6 GIDs: verbs on each plane --------------------------------
#
# rxe resolves a QP's IPv6 destination with the plane's device as oif and
# the GID's address as source, from a socket bound to no device: a lookup
# IPv6 does not match strictly to the device (datapath.md), so it may be
# hashed onto another plane's next hop of table 248's multipath route.
# Whether the QP then stays on its plane is what this measures. perftest
# (4.5) exchanges QP numbers and GIDs over IPv4 TCP only: the QP itself
# runs between the IPv6 GIDs given with -x.
for i in 1 2; do
	o=$((3 - i))
	if [ "$ME" = B ]; then
		timeout 150 ib_write_bw -d rxe$i -x "${GID6[$i]}" \
			-p $((18100 + i)) "${PERF[@]}" >"$LAB_DIR/bw6-server$i" 2>&1 &
		srv=$!
		LAB_PIDS+=("$srv")
		wait_until 20 sh -c "ss -ltn | grep -q ':$((18100 + i)) '" ||
			fail "ib_write_bw server on port $((18100 + i)) not listening"
		c0=$(counters)
		barrier a6-$i.go
		barrier a6-$i.done
		wait "$srv" 2>/dev/null || true
		read -r in1 in2 back1 back2 far1 far2 rx1 rx2 <<<"$(delta "$c0" "$(counters)")"
		rin=([1]=$in1 [2]=$in2)
		back=([1]=$back1 [2]=$back2)
		far=([1]=$far1 [2]=$far2)
		log "(a) IPv6 plane $i: RoCE from A on leaf 1 $in1, leaf 2 $in2; toward A $back1, $back2; eth-leaf1 $far1, eth-leaf2 $far2; rxe1 +$rx1, rxe2 +$rx2"
		if [ "${rin[$i]}" -gt 0 ] && [ "${rin[$o]}" -eq 0 ] &&
		   [ "${far[$i]}" -eq "${rin[$i]}" ] && [ "${far[$o]}" -eq 0 ]; then
			verdict "ok: (a) IPv6, rping and a QP on rxe$i: RoCE packets from A on plane $i only (leaf $i ${rin[$i]}, leaf $o ${rin[$o]}; eth-leaf$i ${far[$i]})"
		else
			verdict "FAIL: (a) IPv6, rping and a QP on rxe$i: RoCE packets from A on leaf $i ${rin[$i]}, leaf $o ${rin[$o]}; eth-leaf$i ${far[$i]}, eth-leaf$o ${far[$o]} (expected plane $i only)"
		fi
		continue
	fi
	barrier a6-$i.go
	rc=0
	timeout 60 rping -c -I 2001:db8:$i::2 -a $DST6 -p 7175 -C 5 \
		>"$LAB_DIR/rping6-$i" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		pass "(a) IPv6: rping bound to 2001:db8:$i::2 (plane $i) connected and ran 5 pings to $DST6"
	else
		fail "(a) IPv6: rping bound to 2001:db8:$i::2 (plane $i): exit $rc: $(cat "$LAB_DIR/rping6-$i")"
	fi
	rc=0
	timeout 120 ib_write_bw -d rxe$i -x "${GID6[$i]}" -p $((18100 + i)) \
		"${PERF[@]}" $DST >"$LAB_DIR/bw6-$i" 2>&1 || rc=$?
	log "lookup rxe makes for it: $(ip -6 route get $DST6 oif eth-p$i from $SRC6 2>&1 | head -1)"
	if [ $rc -eq 0 ]; then
		pass "(a) IPv6: ib_write_bw -d rxe$i -x ${GID6[$i]} ($SRC6) to $DST6 completed"
	else
		fail "(a) IPv6: ib_write_bw on plane $i: exit $rc: $(cat "$LAB_DIR/bw6-$i")"
	fi
	barrier a6-$i.done
done

# --- the control: issue 23's fix undone on plane 1 ---------------------------

if [ $ME = A ]; then
	barrier ctl.go
	ip rule del pref 32764 oif eth-p1
	rc=0
	timeout 30 rping -c -I 10.1.0.2 -a $DST -C 1 >"$LAB_DIR/rping-ctl" 2>&1 ||
		rc=$?
	log "without table 248's oif rule: $(ip route get $DST oif eth-p1 | head -1)"
	if [ $rc -ne 0 ]; then
		pass "control: without the oif rule rping bound to 10.1.0.2 fails (exit $rc): $(tr '\n' ' ' <"$LAB_DIR/rping-ctl" | cut -c1-160)"
	else
		fail "control: without the oif rule rping bound to 10.1.0.2 still connected"
	fi
	# A new handle puts the rule back with the route.
	"$FARECTL" route replace 198.51.100.0/24 src $SRC \
		nexthop plane 1 weight 3 nexthop plane 2 weight 1
	barrier ctl.done
else
	c0=$(counters)
	barrier ctl.go
	barrier ctl.done
	read -r in1 _ _ _ far1 _ rx1 _ <<<"$(delta "$c0" "$(counters)")"
	if [ "$in1" -eq 0 ] && [ "$far1" -eq 0 ] && [ "$rx1" -eq 0 ]; then
		verdict "ok: control: no RoCE packet reached leaf 1 ($in1), eth-leaf1 ($far1) or rxe1 ($rx1) without A's oif rule"
	else
		verdict "FAIL: control: without A's oif rule leaf 1 saw $in1, eth-leaf1 $far1, rxe1 $rx1 RoCE packets (expected 0)"
	fi
fi

# --- (b) 8 QPs placed by route pick over 3:1 --------------------------------
#
# place_qps FAM PICKDST BASEPORT: A places 8 QPs toward PICKDST (the
# destination of FAM, IPv4 or IPv6) by its pick; B counts. The QPs use
# FAM's GIDs; perftest's own TCP goes to $DST either way.
place_qps()
{
	local fam=$1 pdst=$2 base=$3 tag=b$1 pick=$P/pick$1.json
	local -n gids=GID$4
	local k plane dev gid rc srvs pid c0 in1 in2 back1 back2 far1 far2 rx1 rx2

	if [ "$ME" = A ]; then
		"$FARECTL" route pick "$pdst" 8
		"$FARECTL" -j route pick "$pdst" 8 >"$pick"
		expect_eq "(b) $fam pick 8 over 3:1: plane, device, count, RDMA device" \
			"$(jq -c '[.planes[] | [.plane, .dev, .count, .rdma.dev]]' "$pick")" \
			'[[1,"eth-p1",6,"rxe1"],[2,"eth-p2",2,"rxe2"]]'
		for i in 1 2; do
			expect_eq "(b) $fam pick: plane $i's GID index (sysfs)" \
				"$(jq -r ".planes[] | select(.plane == $i) | .rdma.gid_index" "$pick")" \
				"${gids[$i]}"
		done
		barrier $tag.pick
		barrier $tag.go
		k=0
		for plane in $(jq -r '.placement[]' "$pick"); do
			dev=$(jq -r ".planes[] | select(.plane == $plane) | .rdma.dev" "$pick")
			gid=$(jq -r ".planes[] | select(.plane == $plane) | .rdma.gid_index" "$pick")
			rc=0
			timeout 120 ib_write_bw -d "$dev" -x "$gid" -p $((base + k)) \
				"${PERF[@]}" $DST >"$LAB_DIR/bwq$tag$k" 2>&1 || rc=$?
			if [ $rc -eq 0 ]; then
				pass "(b) $fam QP $k on plane $plane ($dev GID $gid) completed"
			else
				fail "(b) $fam QP $k on plane $plane ($dev GID $gid): exit $rc: $(cat "$LAB_DIR/bwq$tag$k")"
			fi
			k=$((k + 1))
		done
		barrier $tag.done
		return 0
	fi
	barrier $tag.pick
	srvs=()
	k=0
	for plane in $(jq -r '.placement[]' "$pick"); do
		timeout 600 ib_write_bw -d rxe$plane -x "${gids[$plane]}" \
			-p $((base + k)) "${PERF[@]}" >"$LAB_DIR/bw-serverq$tag$k" 2>&1 &
		srvs+=($!)
		LAB_PIDS+=($!)
		k=$((k + 1))
	done
	listening()
	{
		local k

		for k in 0 1 2 3 4 5 6 7; do
			ss -ltn | grep -q ":$((base + k)) " || return 1
		done
	}
	wait_until 30 listening ||
		fail "(b) $fam: the eight ib_write_bw servers are not all listening"
	c0=$(counters)
	barrier $tag.go
	barrier $tag.done
	for pid in "${srvs[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	read -r in1 in2 back1 back2 far1 far2 rx1 rx2 <<<"$(delta "$c0" "$(counters)")"
	log "(b) $fam RoCE packets: from A on leaf 1 $in1, leaf 2 $in2; toward A $back1, $back2; on eth-leaf1 $far1, eth-leaf2 $far2; rxe1 +$rx1, rxe2 +$rx2"
	# The same QP size on every QP: exactly 3:1, and the three places of
	# a plane count the same packets.
	if [ "$in2" -gt 0 ] && [ "$in1" -eq $((3 * in2)) ] &&
	   [ "$far1" -eq "$in1" ] && [ "$far2" -eq "$in2" ] &&
	   [ "$rx1" -eq "$in1" ] && [ "$rx2" -eq "$in2" ]; then
		verdict "ok: (b) $fam: 8 QPs placed 6:2: RoCE packets from A, leaf 1 $in1 and leaf 2 $in2 (3:1), the same on B's eth-leaf1/eth-leaf2 ($far1, $far2) and rxe1/rxe2 rcvd_pkts (+$rx1, +$rx2)"
	else
		verdict "FAIL: (b) $fam: 8 QPs placed 6:2: RoCE packets from A, leaf 1 $in1, leaf 2 $in2; eth-leaf1 $far1, eth-leaf2 $far2; rxe1 +$rx1, rxe2 +$rx2 (expected 3:1, equal per plane)"
	fi
}
place_qps IPv4 $DST 18515 ""
place_qps IPv6 $DST6 18615 6

# --- (d) the unbound RDMA CM connect ----------------------------------------

if [ $ME = A ]; then
	barrier d.go
	rc=0
	out=$(timeout 30 rping -c -a $DST -C 1 -v 2>&1) || rc=$?
	if [ $rc -ne 0 ] && grep -q "RDMA_CM_EVENT_ADDR_ERROR, error -19" <<<"$out"; then
		pass "(d) unbound RDMA CM connect to $DST fails with ENODEV (fare0 has no GID; rdma.md): $(head -1 <<<"$out")"
	else
		fail "(d) unbound RDMA CM connect: exit $rc: $out (expected ADDR_ERROR -19)"
	fi
	barrier d.done
else
	c0=$(counters)
	barrier d.go
	barrier d.done
	read -r in1 in2 _ _ far1 far2 rx1 rx2 <<<"$(delta "$c0" "$(counters)")"
	if [ $((in1 + in2 + far1 + far2 + rx1 + rx2)) -eq 0 ]; then
		verdict "ok: (d) the unbound connect sent no RoCE packet (leaves, eth-leafI, rxeI all 0)"
	else
		verdict "FAIL: (d) the unbound connect: RoCE packets $in1 $in2 $far1 $far2 $rx1 $rx2 (expected none)"
	fi
fi

# --- (c) no reordering, no retry, on either end ------------------------------

BAD1=$(bad_snapshot)
if [ "$BAD0" = "$BAD1" ]; then
	pass "(c) $ME's rxe counters did not move: $BAD1"
else
	fail "(c) $ME's rxe counters moved: before $BAD0, after $BAD1"
fi
# Where a packet went missing, should (c) fail: rxe's own send counters,
# the link's transmit counters and qdisc drops (A), what the leaves got (B).
for i in 1 2; do
	log "rxe$i: sent_pkts $(hw rxe$i sent_pkts) rcvd_pkts $(hw rxe$i rcvd_pkts) send_err $(hw rxe$i send_err)"
	if [ "$ME" = A ]; then
		log "eth-p$i: tx $(ip -s -j link show eth-p$i | jq -c '.[0].stats64.tx'), qdisc drops $(tc -s -j qdisc show dev eth-p$i | jq '[.[].drops // 0] | add')"
	else
		log "leaf$i eth-p$i: rx $(ip -n leaf$i -s -j link show eth-p$i | jq -c '.[0].stats64.rx')"
	fi
done

barrier end
# A reports B's verdicts as its own checks too, so that A's status (the
# pair's) covers them.
if [ $ME = A ]; then
	while read -r v; do
		case $v in
		ok:*) pass "[B] ${v#ok: }" ;;
		*) fail "[B] ${v#FAIL: }" ;;
		esac
	done <"$P/verdicts"
else
	grep -q '^FAIL' "$P/verdicts" && LAB_FAILED=1
fi
lab_result
