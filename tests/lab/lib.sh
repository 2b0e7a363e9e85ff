# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers shared by the lab scenarios. A scenario runs as root inside a
# guest (tests/vm/run) on the kernel it tests, sources this file, builds its
# namespaces and asserts on counters. Every namespace and process it makes
# is removed on exit.

FARE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FARECTL=${FARECTL:-$FARE_ROOT/userspace/farectl/farectl}
FARE_UDP=${FARE_UDP:-$FARE_ROOT/tests/tools/fare-udp}
FARE_KO=${FARE_KO:-$FARE_ROOT/out/$(uname -r)/fare.ko}

LAB_NETNS=()
LAB_PIDS=()
LAB_FAILED=0

lab_cleanup()
{
	local pid ns

	for pid in "${LAB_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for ns in "${LAB_NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
}
trap lab_cleanup EXIT

log() { echo "lab: $*"; }

fail()
{
	echo "lab: FAIL: $*"
	LAB_FAILED=1
}

pass() { echo "lab: ok: $*"; }

# The module must be loaded once per guest; a scenario may share it.
load_fare()
{
	if [ ! -d /sys/module/fare ]; then
		insmod "$FARE_KO" || { echo "lab: cannot load $FARE_KO"; exit 1; }
	fi
}

# A namespace with lo up, no IPv6 chatter (router solicitations, MLD)
# that would pollute interface counters, and loose reverse-path filtering,
# since planes deliver a shared loopback address from any interface.
netns_add()
{
	local ns=$1

	ip netns add "$ns"
	LAB_NETNS+=("$ns")
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 \
		net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.ip_forward=1
}

# veth_link NS1 IF1 ADDR1/LEN NS2 IF2 ADDR2/LEN
veth_link()
{
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

# Pins the neighbour NS:DEV -> ADDR to the peer's MAC so no ARP crosses
# the link while a scenario counts packets on it.
neigh_pin()
{
	local ns=$1 dev=$2 addr=$3 peer_ns=$4 peer_dev=$5 mac

	mac=$(ip -n "$peer_ns" -j link show "$peer_dev" | jq -r '.[0].address')
	ip -n "$ns" neigh replace "$addr" lladdr "$mac" dev "$dev" nud permanent
}

rx_packets()
{
	ip -n "$1" -s -j link show "$2" | jq '.[0].stats64.rx.packets'
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s.
wait_for()
{
	local deadline=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}

# expect_near NAME ACTUAL EXPECTED TOLERANCE
expect_near()
{
	local d=$(($2 - $3))

	[ $d -lt 0 ] && d=$((-d))
	if [ $d -le "$4" ]; then
		pass "$1 = $2 (expected $3 +/- $4)"
	else
		fail "$1 = $2 (expected $3 +/- $4)"
	fi
}

expect_eq()
{
	if [ "$2" = "$3" ]; then
		pass "$1 = $2"
	else
		fail "$1 = $2 (expected $3)"
	fi
}

lab_result()
{
	if [ $LAB_FAILED -ne 0 ]; then
		log "scenario $(basename "$0") FAILED"
		return 1
	fi
	log "scenario $(basename "$0") passed"
}
