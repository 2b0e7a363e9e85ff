#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare.ko unloads and reloads 20 times while traffic flows and routes are
# installed. Unloading deletes the fare device and with it the kernel
# routes through it; the module must never oops, warn or leak (the guest
# runner fails the run on any kernel warning, KASAN or kmemleak report).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# On the debug kernel 8 rounds (each ~9 s there); stress.sh reloads
# fare.ko under traffic every 20 s there as well.
if [ "${FARE_DEBUG_KERNEL:-0}" = 1 ]; then
	ROUNDS=${ROUNDS:-8}
	log "debug kernel: $ROUNDS rounds instead of 20"
fi
ROUNDS=${ROUNDS:-20}

load_fare
topo_planes 2

# Traffic through fare, round after round, as the remote counts it: what
# it received from each leaf (neighbors pinned: datagrams only). Plane 2
# (weight 1) carries only what fare.ko sprays, so both counts must grow
# after each reload.
fare_carries()
{
	[ "$(rx_packets remote eth-leaf1)" -gt $(($1 + 30)) ] &&
		[ "$(rx_packets remote eth-leaf2)" -gt $(($2 + 10)) ]
}

ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
	--port 9000 --count 100000000 --interval-us 200 --keep-going 1 \
	>/dev/null 2>&1 &
LAB_PIDS+=("$!")

for i in $(seq 1 "$ROUNDS"); do
	[ -d /sys/module/fare ] || insmod "$FARE_KO"
	plane_add_all 2
	"$FARECTL" -n host route add 198.51.100.0/24 mode packet \
		src 192.0.2.7 nexthop plane 1 weight 3 nexthop plane 2 weight 1
	b1=$(rx_packets remote eth-leaf1)
	b2=$(rx_packets remote eth-leaf2)
	wait_until 10 fare_carries "$b1" "$b2" ||
		fail "round $i: in 10 s the remote got" \
			"$(($(rx_packets remote eth-leaf1) - b1)) and" \
			"$(($(rx_packets remote eth-leaf2) - b2)) datagrams" \
			"by planes 1 and 2 (want > 30, > 10)"
	unload_fare || { fail "round $i: rmmod failed"; break; }
done
expect_eq "kernel routes gone with the module" \
	"$(ip -n host -j route show table 249 proto 249 | jq length)" 0
insmod "$FARE_KO"
pass "$ROUNDS unload/reload rounds under traffic"

lab_result
