# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers shared by the lab scenarios. A scenario runs as root inside a
# guest (tests/vm/run) on the kernel it tests, sources this file, builds its
# namespaces and asserts on counters. Every namespace and process it makes
# is removed on exit.
#
# Scenarios start with "set -euo pipefail" (repeated here for any that
# forget): without pipefail a failing farectl in "farectl ... | jq ..."
# yields empty output and a zero status, and two empty sides of a
# comparison are equal. For the same reason expect_eq refuses to compare
# two empty values (expect_empty says that on purpose) and expect_near
# refuses anything but integers.
#
# FARE_DEBUG_KERNEL=1 (tests/run-all sets it on the debug kernel, where
# KASAN, lockdep and kmemleak make the guest several times slower): a
# check that compares traffic against wall-clock pacing may be relaxed
# there, and only with debug_relax, which says which check and why.

FARE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FARECTL=${FARECTL:-$FARE_ROOT/userspace/farectl/farectl}
FARED=${FARED:-$FARE_ROOT/userspace/fared/fared}
FARE_UDP=${FARE_UDP:-$FARE_ROOT/tests/tools/fare-udp}
SNMP_WATCH=${SNMP_WATCH:-$FARE_ROOT/tests/tools/snmp-watch}
FARE_KO=${FARE_KO:-$FARE_ROOT/out/$(uname -r)/fare.ko}
# On the debug kernel every receiver waits ten times longer (fare-udp-slow).
if [ "${FARE_DEBUG_KERNEL:-0}" = 1 ] && [ -z "${FARE_UDP_REAL:-}" ]; then
	export FARE_UDP_REAL=$FARE_UDP
	FARE_UDP=$FARE_ROOT/tests/lab/fare-udp-slow
fi

set -o pipefail

# nap, wait_until and wait_for: the one way the tests wait.
. "$FARE_ROOT/tests/wait.sh"

LAB_NETNS=()
LAB_PIDS=()
LAB_FAILED=0

# lab_stop_pids: the background processes started so far are killed and
# forgotten.
lab_stop_pids()
{
	local pid

	for pid in "${LAB_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	LAB_PIDS=()
}

lab_cleanup()
{
	local ns

	lab_stop_pids
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

# kernel_module NAME: NAME is ready, loaded now or built in. The debug
# test kernel builds everything in and has no /lib/modules for its
# release, so there modprobe cannot succeed and is not needed; what the
# module gives (an rxe device, /dev/infiniband) is checked by its users.
kernel_module()
{
	modprobe "$1" 2>/dev/null && return 0
	[ ! -d "/lib/modules/$(uname -r)" ] && return 0
	modprobe "$1"
}

# rmmod refuses at once while anything holds fare.ko, and a generic
# netlink dump in flight holds it until the dump ends (milliseconds), so a
# scenario that unloads under netlink churn waits for that, as an operator
# would. A reference held longer than 5 s is a leak: say who holds it.
unload_fare()
{
	local i

	for i in $(seq 1 50); do
		if rmmod fare 2>/dev/null; then
			[ "$i" -eq 1 ] ||
				log "fare.ko unloaded after $(( (i - 1) * 100 )) ms of retries"
			return 0
		fi
		[ -d /sys/module/fare ] || return 0
		nap 0.1
	done
	echo "lab: fare.ko still in use after 5 s: refcnt $(cat /sys/module/fare/refcnt 2>/dev/null), holders: $(ls /sys/module/fare/holders 2>/dev/null | tr '\n' ' ')"
	rmmod fare
}

# A namespace with lo up and loose reverse-path filtering, since planes
# deliver a shared loopback address from any interface. Without "v6" it
# has no IPv6 at all, so no router solicitation or MLD report pollutes
# interface counters.
netns_add()
{
	local ns=$1 v6=${2:-}

	ip netns add "$ns"
	LAB_NETNS+=("$ns")
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.ip_forward=1
	if [ "$v6" = v6 ]; then
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.all.accept_dad=0
	else
		ip netns exec "$ns" sysctl -qw \
			net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	fi
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

# link_up NS DEV: DEV set up, and back once the kernel reports it running
# (operstate UP). A veth's carrier comes at once, but IFF_RUNNING only once
# the linkwatch work has run: until then libfare (plane sync) takes the
# device for down and leaves its next hops out. fared syncs again on the
# link event that follows; a scenario that runs plane sync itself waits.
link_running() { ip -n "$1" link show dev "$2" | grep -q ' state UP '; }
link_up()
{
	ip -n "$1" link set "$2" up
	wait_for 10 "$1 $2 running" link_running "$1" "$2" || true
}

# Pins the neighbour NS:DEV -> ADDR to the peer's MAC so no ARP crosses
# the link while a scenario counts packets on it.
neigh_pin()
{
	local ns=$1 dev=$2 addr=$3 peer_ns=$4 peer_dev=$5 mac

	mac=$(ip -n "$peer_ns" -j link show "$peer_dev" | jq -r '.[0].address')
	ip -n "$ns" neigh replace "$addr" lladdr "$mac" dev "$dev" nud permanent
}

# Pins an IPv6 neighbour like neigh_pin.
neigh_pin6()
{
	local ns=$1 dev=$2 addr=$3 peer_ns=$4 peer_dev=$5 mac

	mac=$(ip -n "$peer_ns" -j link show "$peer_dev" | jq -r '.[0].address')
	ip -n "$ns" -6 neigh replace "$addr" lladdr "$mac" dev "$dev" \
		nud permanent
}

# topo_planes N [v6]: the multi-plane host.
#
#   host  (lo 192.0.2.7, 2001:db8:7::7)
#     eth-pI 10.I.0.2/30, 2001:db8:I::2/64  --  leafI eth-host .1 / ::1
#   leafI eth-remote 10.1I.0.1/30, 2001:db8:1I::1/64  --  remote eth-leafI
#   remote (lo 198.51.100.1, 2001:db8:100::1)
#
# Plane I of the host goes through leafI; every neighbour is pinned, so no
# ARP or ND crosses a link while a scenario counts. The remote answers the
# host over plane 1.
topo_planes()
{
	local n=$1 v6=${2:-} i

	netns_add host $v6
	netns_add remote $v6
	ip -n host addr add 192.0.2.7/32 dev lo
	ip -n remote addr add 198.51.100.1/32 dev lo
	if [ "$v6" = v6 ]; then
		ip -n host addr add 2001:db8:7::7/128 dev lo
		ip -n remote addr add 2001:db8:100::1/128 dev lo
	fi
	for i in $(seq 1 "$n"); do
		netns_add leaf$i $v6
		veth_link host eth-p$i 10.$i.0.2/30 leaf$i eth-host 10.$i.0.1/30
		veth_link leaf$i eth-remote 10.1$i.0.1/30 remote eth-leaf$i \
			10.1$i.0.2/30
		ip -n leaf$i route add 198.51.100.1/32 via 10.1$i.0.2
		ip -n leaf$i route add 192.0.2.7/32 via 10.$i.0.2
		neigh_pin host eth-p$i 10.$i.0.1 leaf$i eth-host
		neigh_pin leaf$i eth-remote 10.1$i.0.2 remote eth-leaf$i
		neigh_pin leaf$i eth-host 10.$i.0.2 host eth-p$i
		if [ "$v6" = v6 ]; then
			ip -n host addr add 2001:db8:$i::2/64 dev eth-p$i nodad
			ip -n leaf$i addr add 2001:db8:$i::1/64 dev eth-host nodad
			ip -n leaf$i addr add 2001:db8:1$i::1/64 dev eth-remote nodad
			ip -n remote addr add 2001:db8:1$i::2/64 dev eth-leaf$i nodad
			ip -n leaf$i route add 2001:db8:100::1/128 via 2001:db8:1$i::2
			ip -n leaf$i route add 2001:db8:7::7/128 via 2001:db8:$i::2
			neigh_pin6 host eth-p$i 2001:db8:$i::1 leaf$i eth-host
			neigh_pin6 leaf$i eth-remote 2001:db8:1$i::2 remote eth-leaf$i
			neigh_pin6 leaf$i eth-host 2001:db8:$i::2 host eth-p$i
		fi
	done
	ip -n remote route add 192.0.2.7/32 via 10.11.0.1
	[ "$v6" != v6 ] ||
		ip -n remote route add 2001:db8:7::7/128 via 2001:db8:11::1
}

# plane_add_all N [v6]: fare planes 1..N of topo_planes on the host.
plane_add_all()
{
	local n=$1 v6=${2:-} i

	for i in $(seq 1 "$n"); do
		if [ "$v6" = v6 ]; then
			"$FARECTL" -n host plane add "$i" dev eth-p$i \
				via 10.$i.0.1 via 2001:db8:$i::1
		else
			"$FARECTL" -n host plane add "$i" dev eth-p$i via 10.$i.0.1
		fi
	done
}

# ---- fared on the topo_planes host, one BIRD leaf per plane ----
# The scenarios set LAB_DIR (their scratch directory) first.

# leaf_bird_conf I HOLD ROUTES: leaf I's BIRD config, exporting the static
# ROUTES (BIRD text) to the host over one eBGP session (AS 6510I - 65007).
leaf_bird_conf()
{
	cat >"$LAB_DIR/bird$1.conf" <<EOC
router id 10.$1.0.1;
log "$LAB_DIR/bird$1.log" { warning, error };
protocol device { }
protocol static far {
	ipv4;
	$3
}
protocol bgp tohost {
	local 10.$1.0.1 as 6510$1;
	neighbor 10.$1.0.2 as 65007;
	hold time $2;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export where source = RTS_STATIC; };
}
EOC
}

# lab_bird NS CONF CTL PIDFILE: BIRD in netns NS; its pid joins LAB_PIDS
# once the daemon has written PIDFILE (BIRD's parent returns before that:
# read at once, the pid could be empty and BIRD outlive the scenario).
lab_bird()
{
	ip netns exec "$1" bird -c "$2" -s "$3" -P "$4" ||
		{ echo "lab: FAIL: bird in $1 did not start"; exit 1; }
	wait_until 10 test -s "$4" ||
		{ echo "lab: FAIL: bird in $1 wrote no pid file $4"; exit 1; }
	LAB_PIDS+=("$(cat "$4")")
}

leaf_bird_start()
{
	lab_bird leaf$1 "$LAB_DIR/bird$1.conf" "$LAB_DIR/bird$1.ctl" \
		"$LAB_DIR/bird$1.pid"
}

leaf_birdc() { birdc -s "$LAB_DIR/bird$1.ctl" "${@:2}"; }

# fared_host_start HOLD PLANE4_BANDWIDTH [PLANES]: fared as the host
# (192.0.2.7, AS 65007, packet mode) with a session per plane (4 unless
# PLANES), importing 198.51.100.0/24 and longer, originating its loopback;
# sets FARED_PID. $FARED_HOST_GLOBAL adds global lines,
# $FARED_HOST_NEIGHBOR lines to every neighbor and $FARED_HOST_TAIL lines
# after the planes (a plane of another kind, say). FARED_HOST_V6=1: the
# sessions, the remote (2001:db8:100::/48) and the loopback are IPv6.
fared_host_start()
{
	local i planes=${3:-4} v6=${FARED_HOST_V6:-} peer
	local self=192.0.2.7/32 remote="198.51.100.0/24 le 32"

	if [ "$v6" = 1 ]; then
		self=2001:db8:7::7/128
		remote="2001:db8:100::/48 le 128"
	fi

	{
		cat <<EOC
router-id 192.0.2.7
local-as 65007
hold-time $1
connect-retry 1
control-socket $LAB_DIR/fared.sock
state-file $LAB_DIR/fared.state
role host
mode packet
originate $self
policy remote {
	permit $remote
}
policy self {
	permit $self
}
${FARED_HOST_GLOBAL:-}
EOC
		for i in $(seq 1 "$planes"); do
			peer=10.$i.0.1
			[ "$v6" != 1 ] || peer=2001:db8:$i::1
			cat <<EOC
interface eth-p$i bandwidth $([ "$i" = 4 ] && echo "$2" || echo 400G)
plane $i {
	neighbor $peer {
		remote-as 6510$i
		interface eth-p$i
		${FARED_HOST_NEIGHBOR:-}
		import remote
		export self
	}
}
EOC
		done
		echo "${FARED_HOST_TAIL:-}"
	} >"$LAB_DIR/fared.conf"
	ip netns exec host "$FARED" \
		-c "$LAB_DIR/fared.conf" >"$LAB_DIR/fared.log" 2>&1 &
	FARED_PID=$!
	LAB_PIDS+=("$FARED_PID")
}

# fared_node_head NODE ROUTER-ID AS ROLE [PREFIX...]: the global part of
# the fared.conf of lab node NODE (its socket and state file in $DIR), with
# a policy "all" permitting 10.0.0.0/8 and each PREFIX, and longer.
fared_node_head()
{
	local p

	cat <<EOC
router-id $2
local-as $3
hold-time 30
connect-retry 1
control-socket $DIR/$1.sock
state-file $DIR/$1.state
role $4
mode packet
policy all {
	permit 10.0.0.0/8 le 32
EOC
	for p in "${@:5}"; do
		printf '\tpermit %s le 32\n' "$p"
	done
	echo "}"
}

# node_weights NODE PREFIX: "plane:weight ..." of PREFIX in NODE's fare.ko,
# or "none".
node_weights()
{
	"$FARECTL" -j -n "$1" route show | jq -r --arg d "$2" \
		'[.[] | select(.dst == $d) | .nexthops[] |
		  "\(.plane):\(.weight)"] | if length > 0 then join(" ")
		  else "none" end'
}

node_weights_are() { [ "$(node_weights "$1" "$2")" = "$3" ]; }

# host_weights PREFIX: node_weights of the fared host.
host_weights() { node_weights host "$1"; }

host_weights_are() { [ "$(host_weights "$1")" = "$2" ]; }

# send_phase N PHASE [SRC DST]: N paced datagrams from the host's loopback
# to 198.51.100.1 (or SRC to DST); the receiver's report goes to
# $LAB_DIR/sinkPHASE.
send_phase()
{
	local log=$LAB_DIR/sink$2 rc=0 src=${3:-192.0.2.7}
	local dst=${4:-198.51.100.1}

	sink_start "$log" --bind "$dst" --port 9100 --count "$1" --timeout 60
	ip netns exec host taskset -c 0 "$FARE_UDP" send --src "$src" \
		--dst "$dst" --port 9100 --count "$1" --interval-us 20
	sink_wait "$log" || rc=$?
	expect_eq "phase $2: every datagram arrived once" $rc 0
}

# split_is PHASE COUNT...: the receiver got COUNT on plane 1, 2, ... in
# that phase, each within 1 (packet mode), and exactly 0 where 0 is due.
split_is()
{
	local phase=$1 i=1 want

	shift
	for want in "$@"; do
		expect_near "phase $phase: plane $i" \
			"$(sink_iface "$LAB_DIR/sink$phase" eth-leaf$i)" \
			"$want" $((want > 0))
		i=$((i + 1))
	done
}

# sink_start LOG ARGS...: the receiver on the remote; waits until bound.
sink_start()
{
	local log=$1

	shift
	ip netns exec remote "$FARE_UDP" sink "$@" >"$log" &
	LAB_SINK=$!
	LAB_PIDS+=("$LAB_SINK")
	wait_until 10 grep -q listening "$log"
}

# sink_wait LOG: waits for the receiver, shows its report, returns its rc.
sink_wait()
{
	local rc=0

	wait "$LAB_SINK" || rc=$?
	cat "$1"
	return $rc
}

# sink_end LOG: stops a receiver that cannot get its whole count (a stream
# that loses datagrams by design) once the sender is done, instead of
# waiting out its timeout; what already arrived still counts. Then as
# sink_wait.
sink_end()
{
	kill -TERM "$LAB_SINK" 2>/dev/null || true
	sink_wait "$1"
}

# sink_iface LOG IFNAME: datagrams the receiver got on IFNAME.
sink_iface()
{
	awk -v i="$2" '$1 == "iface" && $2 == i { n = $3 } END { print n + 0 }' "$1"
}

# sink_field LOG WORD COLUMN: e.g. sink_field LOG bursts 4 -> split bursts.
sink_field()
{
	awk -v w="$2" -v c="$3" '$1 == w { print $c }' "$1"
}

rx_packets()
{
	ip -n "$1" -s -j link show "$2" | jq '.[0].stats64.rx.packets'
}

# snmp NS PROTO FIELD: a counter of /proc/net/snmp in NS (e.g. Udp
# InDatagrams): what the network stack saw, not fare.ko.
snmp()
{
	ip netns exec "$1" awk -v p="$2:" -v f="$3" '
		$1 == p && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
		$1 == p && c { print $c }' /proc/net/snmp
}

# rx_above NS DEV N: true once DEV in NS has received more than N packets
# (for wait_until, which re-runs it).
rx_above()
{
	[ "$(rx_packets "$1" "$2")" -gt "$3" ]
}

# jq 1.6 parses and compiles its library of builtins at every start: 270
# ms of CPU a call in a TCG guest, where gojq (the same language, a static
# binary) takes 58 ms, and the labs run it in every poll. gojq prints an
# object's keys sorted and integers exactly; the checks compare values.
# Where it is missing (the install test's own Debian root), jq runs.
if command -v gojq >/dev/null; then
	jq()
	{
		gojq "$@"
	}
fi

# host_monitor_start GROUP...: "farectl monitor GROUP... config" in netns
# host, its events in $LAB_DIR/events; returns once it listens. Only an
# event seen proves that, so fare.ko is poked with a config change that
# changes nothing (flowlet-timeout set to its own value) until one shows:
# a monitor slower to start than fared once missed fared's planes.
host_monitor_poke()
{
	"$FARECTL" -n host config set flowlet-timeout "$1" &&
		grep -q '^config set' "$LAB_DIR/events"
}

host_monitor_start()
{
	local flowlet_us

	ip netns exec host "$FARECTL" monitor "$@" config \
		>"$LAB_DIR/events" 2>&1 &
	LAB_PIDS+=("$!")
	flowlet_us=$("$FARECTL" -n host -j config show |
		     jq .flowlet_timeout_us) ||
		fail "farectl config show in netns host"
	wait_until 20 host_monitor_poke "$flowlet_us" ||
		fail "farectl monitor $* never listened"
}

# host_monitor_sync WHAT: host_monitor_start's monitor is still running
# and has written every event fare.ko sent before now: a config change
# that changes nothing must show up after what it has written so far
# (fare.ko sends its events in order). A monitor that died fails WHAT
# instead of passing an absence of events.
monitor_config_after()
{
	tail -n +$(($1 + 1)) "$LAB_DIR/events" | grep -q '^config set'
}

host_monitor_sync()
{
	local n flowlet_us

	n=$(wc -l <"$LAB_DIR/events")
	flowlet_us=$("$FARECTL" -n host -j config show |
		     jq .flowlet_timeout_us) &&
		"$FARECTL" -n host config set flowlet-timeout "$flowlet_us" ||
		{ fail "$1: no config change to show the monitor"; return 0; }
	wait_until 20 monitor_config_after "$n" ||
		fail "$1: the fare.ko event monitor no longer reports (dead?)"
}

# mark_events: the events host_monitor_start's monitor has written so far;
# events_since prints the route events after them, events_are N is true
# once there are N.
mark_events() { EVENTS_AT=$(wc -l <"$LAB_DIR/events"); }
events_since()
{
	tail -n +$((EVENTS_AT + 1)) "$LAB_DIR/events" | grep '^route' || true
}
events_are() { [ "$(events_since | wc -l)" = "$1" ]; }

# host_lookup FAMILY DST DEV: the first line of the kernel's answer to a
# lookup bound to DEV in netns host ("ip route get DST oif DEV"), or its
# error: what a socket bound to the device (SO_BINDTODEVICE) gets.
host_lookup()
{
	{ ip -n host "$1" route get "$2" oif "$3" 2>&1 || true; } | head -1
}

# host_lookup_is NAME FAMILY DST DEV WANT: that answer contains WANT.
host_lookup_is()
{
	local got

	got=$(host_lookup "$2" "$3" "$4")
	if grep -qF -- "$5" <<<"$got"; then
		pass "$1: $got"
	else
		fail "$1: '$got' (expected '$5')"
	fi
}

# is_int VALUE: an optional minus sign and digits, nothing else.
is_int() { [[ $1 =~ ^-?[0-9]+$ ]]; }

# expect_near NAME ACTUAL EXPECTED TOLERANCE
expect_near()
{
	local d

	if ! is_int "$2" || ! is_int "$3"; then
		fail "$1 = '$2' (expected $3 +/- $4; not a number)"
		return 0
	fi
	d=$(($2 - $3))
	[ $d -lt 0 ] && d=$((-d))
	if [ $d -le "$4" ]; then
		pass "$1 = $2 (expected $3 +/- $4)"
	else
		fail "$1 = $2 (expected $3 +/- $4)"
	fi
}

expect_eq()
{
	if [ -z "$2" ] && [ -z "$3" ]; then
		fail "$1: both sides empty (a command failed?)"
	elif [ "$2" = "$3" ]; then
		pass "$1 = $2"
	else
		fail "$1 = $2 (expected $3)"
	fi
}

# expect_exit NAME STATUS EXPECTED_TEXT CMD...: CMD must exit with STATUS
# and print EXPECTED_TEXT (on stdout or stderr).
expect_exit()
{
	local name=$1 status=$2 text=$3 out rc=0

	shift 3
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -eq "$status" ] && grep -qF -- "$text" <<<"$out"; then
		pass "$name: $out"
	else
		fail "$name: exit $rc, output: $out (expected $status: $text)"
	fi
}

# expect_refusal NAME EXPECTED_TEXT CMD...: CMD must fail with exit 1 and
# print EXPECTED_TEXT.
expect_refusal() { expect_exit "$1" 1 "$2" "${@:3}"; }

# nobody NS FARECTL_ARGS...: farectl in netns NS as uid/gid 65534 with no
# capability (entered as root, then every privilege dropped).
nobody()
{
	local ns=$1

	shift
	ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all "$FARECTL" "$@"
}

# expect_empty NAME ACTUAL: ACTUAL is the empty string.
expect_empty()
{
	if [ -z "$2" ]; then
		pass "$1: nothing"
	else
		fail "$1 = $2 (expected nothing)"
	fi
}

# debug_kernel: true on the debug kernel (FARE_DEBUG_KERNEL=1).
debug_kernel() { [ "${FARE_DEBUG_KERNEL:-0}" = 1 ]; }

# fare's tracepoints (kmod/fare_trace.h) in tracefs, mounted if need be.
LAB_TRACING=/sys/kernel/tracing
trace_mount() { [ -d $LAB_TRACING/events ] || mount -t tracefs tracefs $LAB_TRACING; }
# trace_on EVENT...: an empty trace, recording only fare's EVENTs.
trace_on()
{
	trace_mount
	echo 0 >$LAB_TRACING/tracing_on
	echo >$LAB_TRACING/trace
	echo 0 >$LAB_TRACING/events/enable
	for e in "$@"; do echo 1 >$LAB_TRACING/events/fare/$e/enable; done
	echo 1 >$LAB_TRACING/tracing_on
}
# trace_events NAME [FILTER]: the trace's NAME events with FILTER in the line.
trace_events()
{
	grep " $1: " $LAB_TRACING/trace | grep -c -e "${2:-}" || true
}

# debug_relax CHECK WHY: logs that CHECK is relaxed on the debug kernel.
debug_relax()
{
	echo "lab: relaxed on the debug kernel: $1 ($2)"
}

lab_result()
{
	if [ $LAB_FAILED -ne 0 ]; then
		log "scenario $(basename "$0") FAILED"
		return 1
	fi
	log "scenario $(basename "$0") passed"
}
