#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Stress: both CPUs send through fare0 (two local senders pinned to CPU 0
# and CPU 1, and a client namespace whose datagrams the host forwards into
# fare0) while genl-fuzz churn replaces the route every few milliseconds,
# adds and deletes longer routes inside it (the traffic's own /32 among
# them) and deletes and re-adds two of the four planes, and fare.ko is
# unloaded and reloaded every FARE_STRESS_RELOAD_EVERY seconds. The guest
# runner fails the run on any kernel report; the scenario fails unless the
# remote's interfaces counted traffic after every reload.
#
#   FARE_STRESS_SECONDS        how long (default 180)
#   FARE_STRESS_RELOAD_EVERY   seconds between reloads (default 20)
set -eu
. "$(dirname "$0")/lib.sh"

FUZZ=${FARE_GENL_FUZZ:-$FARE_ROOT/tests/genl-fuzz/genl-fuzz}
DURATION=${FARE_STRESS_SECONDS:-180}
RELOAD_EVERY=${FARE_STRESS_RELOAD_EVERY:-20}
SEED=${FARE_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

load_fare
topo_planes 4
netns_add client
veth_link client eth-host 10.99.0.1/30 host eth-client 10.99.0.2/30
neigh_pin client eth-host 10.99.0.2 host eth-client
ip -n client route add 198.51.100.0/24 via 10.99.0.2
plane_add_all 4
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1

# rx_remote: datagrams the remote's four interfaces received.
rx_remote()
{
	local i n=0

	for i in 1 2 3 4; do
		n=$((n + $(rx_packets remote eth-leaf$i)))
	done
	echo $n
}

remote_above() { [ "$(rx_remote)" -gt "$1" ]; }

start_rx=$(rx_remote)
for cpu in 0 1; do
	ip netns exec host taskset -c $cpu "$FARE_UDP" send --src 192.0.2.7 \
		--dst 198.51.100.1 --port $((9000 + cpu)) --count 1000000000 \
		--interval-us 100 --flows 16 --keep-going 1 >/dev/null 2>&1 &
	LAB_PIDS+=("$!")
done
ip netns exec client taskset -c 1 "$FARE_UDP" send --src 10.99.0.1 \
	--dst 198.51.100.1 --port 9002 --count 1000000000 --interval-us 200 \
	--flows 16 --keep-going 1 >/dev/null 2>&1 &
LAB_PIDS+=("$!")

log "churn: seed $SEED, $DURATION s, a reload every $RELOAD_EVERY s"
ip netns exec host "$FUZZ" churn --seed "$SEED" --seconds "$DURATION" \
	--interval-us 2000 --keep 198.51.100.0/24 \
	--plane 1:eth-p1:10.1.0.1 --plane 2:eth-p2:10.2.0.1 \
	--plane 3:eth-p3:10.3.0.1 --plane 4:eth-p4:10.4.0.1 \
	--spare 3 --spare 4 &
churn=$!
LAB_PIDS+=("$churn")

# A reload every RELOAD_EVERY seconds from the start (at once when a round
# ran late), the last one early enough for its traffic check.
end=$((SECONDS + DURATION - 10))
next=$((SECONDS + RELOAD_EVERY))
rounds=0
while :; do
	[ $next -gt $SECONDS ] && sleep $((next - SECONDS))
	[ $SECONDS -lt $end ] || break
	next=$((next + RELOAD_EVERY))
	rounds=$((rounds + 1))
	unload_fare || { fail "reload $rounds: rmmod failed"; break; }
	insmod "$FARE_KO" || { fail "reload $rounds: insmod failed"; break; }
	# churn adds the planes back, which makes fare0; the kernel route
	# went with the old fare0 (the rule that leads to table 249 stays).
	wait_until 30 ip -n host link show fare0 >/dev/null 2>&1 ||
		{ fail "reload $rounds: fare0 not back"; continue; }
	ip -n host route replace 198.51.100.0/24 dev fare0 table 249 \
		proto 249 src 192.0.2.7
	before=$(rx_remote)
	if wait_until 30 remote_above $((before + 100)); then
		pass "reload $rounds: traffic flows again ($(($(rx_remote) - before)) datagrams since)"
	else
		fail "reload $rounds: no traffic at the remote after the reload"
	fi
done

rc=0
wait "$churn" || rc=$?
expect_eq "genl-fuzz churn exit status (seed $SEED)" $rc 0
total=$(($(rx_remote) - start_rx))
log "the remote received $total datagrams in $DURATION s over $rounds reloads"
[ "$total" -gt 1000 ] || fail "the remote received only $total datagrams"
[ $rounds -ge 1 ] || fail "no reload happened"
lab_result
