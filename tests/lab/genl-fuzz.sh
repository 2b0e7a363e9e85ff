#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/genl-fuzz/genl-fuzz against fare.ko while traffic flows through
# fare0 in every mode: a host with two planes (IPv4 and IPv6) sends to
# three prefixes, one per mode (packet, flow, flowlet), and pings over
# IPv6, while the fuzzer sends random and mutated requests of every
# command, deletes, re-creates and moves fare0, deletes namespaces,
# replaces planes and flips the sysctls fare's paths depend on. It fails if
# a refusal lacks its extack message; the guest runner fails the run on
# any kernel report.
#
#   FARE_FUZZ_SECONDS   how long the fuzzer runs (default 150)
#   FARE_FUZZ_SEED      the seed (default: a new one, printed)
set -eu
. "$(dirname "$0")/lib.sh"

FUZZ=${FARE_GENL_FUZZ:-$FARE_ROOT/tests/genl-fuzz/genl-fuzz}
SECONDS_WANTED=${FARE_FUZZ_SECONDS:-150}
SEED=${FARE_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

load_fare
topo_planes 2 v6
# One address of the remote per mode; the leaves route the whole /24.
for a in 198.51.100.65 198.51.100.129; do
	ip -n remote addr add $a/32 dev lo
done
for i in 1 2; do
	ip -n leaf$i route add 198.51.100.0/24 via 10.1$i.0.2
done
plane_add_all 2 v6
"$FARECTL" -n host route add 198.51.100.0/26 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1
"$FARECTL" -n host route add 198.51.100.64/26 mode flow src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1
"$FARECTL" -n host route add 198.51.100.128/26 mode flowlet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 2 tier 1
"$FARECTL" -n host route add 2001:db8:100::/48 mode packet \
	src 2001:db8:7::7 nexthop plane 1 weight 1 nexthop plane 2 weight 1

# Traffic in every mode before the fuzzer starts: proof that it flows.
before=$(($(rx_packets remote eth-leaf1) + $(rx_packets remote eth-leaf2)))
for dst in 198.51.100.1 198.51.100.65 198.51.100.129; do
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst $dst \
		--port 9000 --count 100000000 --interval-us 500 --flows 8 \
		--burst 4 --gap-us 2000 --keep-going 1 >/dev/null 2>&1 &
	LAB_PIDS+=("$!")
done
ip netns exec host ping -q -6 -i 0.2 -I 2001:db8:7::7 2001:db8:100::1 \
	>/dev/null 2>&1 &
LAB_PIDS+=("$!")
if wait_until 20 rx_above remote eth-leaf1 $((before + 50)); then
	pass "traffic flows through fare0 before fuzzing"
else
	fail "no traffic through fare0 before fuzzing"
fi

log "genl-fuzz: seed $SEED for $SECONDS_WANTED s"
rc=0
ip netns exec host "$FUZZ" --seed "$SEED" --seconds "$SECONDS_WANTED" || rc=$?
expect_eq "genl-fuzz exit status (seed $SEED)" $rc 0

# The module still answers and can be emptied.
"$FARECTL" -n host stats >/dev/null || fail "farectl stats after fuzzing"
lab_result
