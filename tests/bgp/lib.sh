# SPDX-License-Identifier: GPL-2.0-only
# Shared by the tests/bgp scenarios: two network namespaces joined by a
# veth, fared in one ("fared side"), BIRD in the other ("peer side"), and
# helpers that wait for and assert on observed state. Everything is named
# with $PFX so that concurrent runs and other users of BIRD never clash.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FARED=${FBGP_FARED:-$TOP/userspace/fared/fared}
FARECTL=$TOP/userspace/farectl/farectl
CTL_REQUEST=$TOP/tests/tools/ctl-request
PFX=${FBGP_PREFIX:-fbgp$$}
NS_F=$PFX-f
NS_B=$PFX-b
DIR=$(mktemp -d "/tmp/$PFX.XXXXXX")
CTL=$DIR/fared.sock
BIRD_SOCK=$DIR/bird.ctl
FARED_LOG=$DIR/fared.log
FARED_PID=
BIRD_PID=
# Addresses: fared .1, BIRD .2, the raw-socket peer .3.
F4=10.201.0.1
B4=10.201.0.2
R4=10.201.0.3
F6=fd00:201::1
B6=fd00:201::2
F_AS=4200000001
B_AS=4200000002

fail()
{
	echo "FAIL: $*" >&2
	echo "--- fared log (last 30 lines)" >&2
	tail -n 30 "$FARED_LOG" >&2 2>/dev/null
	# Both sides' view, to tell a stuck fared from a peer that did not act.
	if [ -n "${FARED_PID:-}" ] && [ -S "${CTL:-}" ]; then
		echo "--- fared (pid $FARED_PID): $(kill -0 "$FARED_PID" 2>/dev/null &&
			echo running || echo gone); its neighbors:" >&2
		CTL_TIMEOUT=5 ctl neighbors >&2 2>&1 ||
			echo "(no answer in 5 s)" >&2
		# What its writer holds: bytes queued, routes not yet built.
		CTL_TIMEOUT=5 ctl neighbors json 2>/dev/null | jq -c '.[] |
			{address, updates_tx, send_queue_bytes, routes_pending}' >&2 2>&1
	fi
	if [ -n "${BIRD_PID:-}" ] && [ -S "${BIRD_SOCK:-}" ]; then
		echo "--- BIRD's protocols and log (last 20 lines)" >&2
		timeout 5 birdc -s "$BIRD_SOCK" show protocols >&2 2>&1
		tail -n 20 "$DIR/bird.log" >&2 2>/dev/null
	fi
	exit 1
}

cleanup()
{
	[ -n "$FARED_PID" ] && { kill -9 "$FARED_PID"; wait "$FARED_PID"; } 2>/dev/null
	[ -n "$BIRD_PID" ] && kill -9 "$BIRD_PID" 2>/dev/null
	# Anything else started inside our namespaces (ping, ip monitor).
	for ns in "$NS_F" "$NS_B"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "${KEEP_DIR:-}" ] || rm -rf "$DIR"
}
trap cleanup EXIT

setup_net()
{
	ip netns add "$NS_F" && ip netns add "$NS_B" || fail "netns add"
	ip -n "$NS_F" link add veth0 type veth peer name veth0 netns "$NS_B" ||
		fail "veth"
	for ns in "$NS_F" "$NS_B"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set veth0 up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.veth0.accept_dad=0
	done
	ip -n "$NS_F" addr add $F4/24 dev veth0
	ip -n "$NS_F" addr add $F6/64 dev veth0 nodad
	ip -n "$NS_B" addr add $B4/24 dev veth0
	ip -n "$NS_B" addr add $R4/24 dev veth0
	ip -n "$NS_B" addr add $B6/64 dev veth0 nodad
	# The prefixes fared originates, so that the peer side can ping them.
	ip -n "$NS_F" addr add 10.203.0.1/24 dev lo
	ip -n "$NS_F" addr add fd00:203::1/48 dev lo
}

# fared_conf_head [HOLD-TIME]: the globals every scenario's fared.conf
# starts with (router id, AS, timers, control socket, state file), for
# "$(fared_conf_head)" at the top of a fared.conf heredoc.
fared_conf_head()
{
	cat <<EOC
router-id 10.201.0.1
local-as $F_AS
hold-time ${1:-6}
connect-retry 1
control-socket $CTL
state-file $DIR/fared.state
EOC
}

# write_fared_conf [EXTRA_GLOBAL_LINES] [EXTRA_NEIGHBORS]
write_fared_conf()
{
	cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
graceful-restart restart-time 60 stale-time 30
interface veth0 bandwidth 100G
originate 10.203.0.0/24 ext-community 0x0004fde800000064
originate fd00:203::/48 ext-community 0x0004fde800000064
${1:-}
policy in {
	permit 10.202.0.0/16 le 32
	permit fd00:202::/32 le 128
}
policy out {
	permit 10.203.0.0/16 le 32
	permit fd00:203::/32 le 128
}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		family ipv4
		add-path receive
		import in
		export out
	}
	neighbor $B6 {
		remote-as $B_AS
		interface veth0
		family ipv6
		import in
		export out
	}
${2:-}
}
EOC
}

write_bird_conf()
{
	cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol kernel k4 { ipv4 { export where source = RTS_BGP; }; }
protocol kernel k6 { ipv6 { export where source = RTS_BGP; }; }
protocol static s4 {
	ipv4;
	route 10.202.1.0/24 blackhole {
		bgp_ext_community.add((generic, 0x0004fde8, 0x4b3ebc20));
		bgp_ext_community.add((unknown 0x77, 10.0.0.1, 0x3c00));
		bgp_ext_community.add((generic, 0x80090000, 0x1));
	};
	route 10.202.2.0/24 blackhole;
	route 10.202.3.0/24 blackhole;
}
# A second path to 10.202.3.0/24, which only ADD-PATH carries to fared.
protocol static s4b {
	ipv4;
	route 10.202.3.0/24 blackhole { bgp_med = 7; };
}
protocol static s6 {
	ipv6;
	route fd00:202:1::/48 blackhole {
		bgp_ext_community.add((generic, 0x0004fde8, 0x4b3ebc20));
	};
}
template bgp F {
	local as $B_AS;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	graceful restart on;
}
protocol bgp fared4 from F {
	neighbor $F4 as $F_AS;
	source address $B4;
	${BIRD_F4_EXTRA:-}
	ipv4 { import all; export where source = RTS_STATIC; add paths tx; };
}
protocol bgp fared6 from F {
	neighbor $F6 as $F_AS;
	source address $B6;
	${BIRD_F6_EXTRA:-}
	ipv6 { import all; export where source = RTS_STATIC; };
}
EOC
}

# bird_pid PIDFILE: once BIRD has written PIDFILE, its pid in BIRD_PID_READ
# (BIRD's parent returns before the daemon has written its pid file).
bird_pid()
{
	wait_for 10 "BIRD's pid file $1" test -s "$1"
	BIRD_PID_READ=$(cat "$1")
}

start_bird()
{
	ip netns exec "$NS_B" bird -c "$DIR/bird.conf" -s "$BIRD_SOCK" \
		-P "$DIR/bird.pid" "$@" || fail "bird did not start"
	bird_pid "$DIR/bird.pid"
	BIRD_PID=$BIRD_PID_READ
}

birdc_()
{
	birdc -s "$BIRD_SOCK" "$@"
}

# start_fared [fared options]; valgrind when $FARED_WRAP says so.
start_fared()
{
	# shellcheck disable=SC2086
	ip netns exec "$NS_F" ${FARED_WRAP:-} "$FARED" -c "$DIR/fared.conf" \
		"$@" >>"$FARED_LOG" 2>&1 &
	FARED_PID=$!
}

# fared_under_valgrind: start_fared runs fared under valgrind from now on;
# stop_fared_clean then fails the scenario on any error or leak.
# With fare.ko (FBGP_KERNEL=1: tests/lab/bgp-kernel.sh runs scenarios in
# a guest with the module loaded), fared programs it, and what a scenario
# says fared programs is read from fare.ko. valgrind is left out there:
# under an emulator it would take most of the run, and the same scenarios
# run under it on the host.
kernel_mode() { [ "${FBGP_KERNEL:-0}" = 1 ]; }

# fare_nhs NETNS PREFIX: fare.ko's next hops for PREFIX in NETNS,
# "plane:weight:tier ..." in plane order ("" when it has no such route).
fare_nhs()
{
	"$FARECTL" -n "$1" -j route show | jq -r --arg p "$2" \
		'[.[] | select(.dst == $p) | .nexthops[] |
		  "\(.plane):\(.weight):\(.tier)"] | sort | join(" ")'
}
# fare_planes NETNS PREFIX: only the planes, "1 2" ("" without a route).
fare_planes()
{
	"$FARECTL" -n "$1" -j route show | jq -r --arg p "$2" \
		'[.[] | select(.dst == $p) | .nexthops[] | .plane] | sort |
		 map(tostring) | join(" ")'
}

# fare_expect WHAT NETNS PREFIX WANT: with fare.ko, it holds WANT
# ("plane:weight:tier ...") for PREFIX in NETNS within 30 s (fared
# programs from a thread of its own). fare_expect_planes: WANT is only
# the planes ("1 2"; "" for no route).
fare_expect() { fare_expect_by fare_nhs "$@"; }
fare_expect_planes() { fare_expect_by fare_planes "$@"; }
fare_expect_by()
{
	local get=$1 end=$((SECONDS + 30 * FARE_WAIT_SCALE))

	shift
	kernel_mode || return 0
	until [ "$("$get" "$2" "$3")" = "$4" ]; do
		[ $SECONDS -lt $end ] ||
			fail "fare.ko: $1: got \"$("$get" "$2" "$3")\", want \"$4\""
		sleep 0.2
	done
	echo "ok: fare.ko: $1: ${4:-no route}"
}

fared_under_valgrind()
{
	kernel_mode && return 0
	command -v valgrind >/dev/null || fail "valgrind is not installed"
	FARED_WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=all
		--error-exitcode=99 --log-file=$DIR/valgrind.log"
}

# stop_fared_clean: SIGTERM; fared must exit 0 (and valgrind say nothing).
stop_fared_clean()
{
	local rc=0

	kill -TERM "$FARED_PID"
	wait "$FARED_PID" || rc=$?
	FARED_PID=
	[ $rc -eq 0 ] || { cat "$DIR/valgrind.log"; fail "fared exited $rc"; }
	[ -s "$DIR/valgrind.log" ] && { cat "$DIR/valgrind.log"; fail "valgrind"; }
	return 0
}

# ctl COMMAND...: fared's answer on its control socket; fails when fared
# does not answer within CTL_TIMEOUT seconds (60). A C client: the waits
# poll it, and Python's start-up alone takes seconds in an emulated guest
# (tests/lab/bgp-kernel.sh, tests/bgp/guest/).
ctl() { "$CTL_REQUEST" "$CTL" "$*"; }

# nap, wait_until and wait_for (SECONDS WHAT CMD..., fails on a timeout):
# the one way the tests wait, limits times FARE_WAIT_SCALE.
. "$(dirname "${BASH_SOURCE[0]}")/../wait.sh"

# fared's view of a neighbor: state NEIGHBOR -> "Established" etc.
fared_state()
{
	ctl neighbors json | jq -r ".[] | select(.address == \"$1\") | .state"
}

fared_field()
{
	ctl neighbors json | jq -r ".[] | select(.address == \"$1\") | .$2"
}

fared_established()
{
	[ "$(fared_state "$1")" = Established ]
}

bird_established()
{
	birdc_ show protocols "$1" | grep -q Established
}

# Starts "ip monitor route" in namespace NS, writing to LOG, and returns
# once it is subscribed: until the monitor shows it, a host route to a
# documentation address (no traffic goes there) is added and deleted
# again. A monitor started just before what it should see can otherwise
# miss it, and a scenario that asserts an absence would pass falsely.
# Sets MON_PID for stop_route_monitor.
MONITOR_PROBE=192.0.2.254
monitor_probe_seen()
{
	grep -q "$MONITOR_PROBE" "$1" && return 0
	ip -n "$2" route add blackhole "$MONITOR_PROBE/32" &&
		ip -n "$2" route del blackhole "$MONITOR_PROBE/32"
	return 1
}

start_route_monitor()
{
	local ns=$1 log=$2

	ip -n "$ns" monitor route >"$log" 2>&1 &
	MON_PID=$!
	wait_for 10 "ip monitor route in $ns to see its probe route" \
		monitor_probe_seen "$log" "$ns"
}

# Ends start_route_monitor's monitor, which must still be running: one
# that died early would have seen nothing.
stop_route_monitor()
{
	kill -0 "$MON_PID" 2>/dev/null || fail "ip monitor route ended early"
	kill "$MON_PID"
	wait "$MON_PID" 2>/dev/null
}

bird_has_route()
{
	birdc_ show route for "$1" protocol "$2" | grep -q "$1"
}

fared_has_route()
{
	[ "$(ctl routes json "$1" | jq length)" = 1 ]
}

bringup()
{
	setup_net
	write_bird_conf
	start_bird
	start_fared "$@"
	wait_for 20 "fared sees the IPv4 session Established" \
		fared_established $B4
	wait_for 20 "fared sees the IPv6 session Established" \
		fared_established $B6
	wait_for 10 "BIRD sees fared4 Established" bird_established fared4
	wait_for 10 "BIRD sees fared6 Established" bird_established fared6
}

# fared's resident set, in KiB, as the kernel counts it.
fared_rss_kib()
{
	awk '/^VmRSS:/ { print $2 }' "/proc/$FARED_PID/status"
}

# proto_since SOCKET PROTO: when the BIRD at SOCKET last changed PROTO's
# state, as "show protocols" prints it; unchanged means no flap. Read
# again (for up to 10 s) while the answer has no time for PROTO: an empty
# read proves nothing. Compare two reads with same_since, never as strings.
proto_since()
{
	local t tries=0

	until t=$(birdc -s "$1" show protocols "$2" |
		  awk -v p="$2" '$1 == p { print $5 }') && [ -n "$t" ]; do
		if [ $((tries += 1)) -ge 20 ]; then
			echo "no time for $2 in 'show protocols' of $1" >&2
			return 1
		fi
		nap 0.5
	done
	echo "$t"
}

bird_since() { proto_since "$BIRD_SOCK" "$1"; }

# since_ms TIME: a "since" time (hh:mm:ss.mmm) in milliseconds of the day.
since_ms()
{
	local h m s ms

	[[ $1 =~ ^([0-9]+):([0-9]+):([0-9]+)\.([0-9]+)$ ]] || return 1
	h=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
	ms=${BASH_REMATCH[4]}
	echo $(((10#$h * 3600 + 10#$m * 60 + 10#$s) * 1000 + 10#$ms))
}

# same_since A B: A and B, two "since" times of one BIRD protocol, name the
# same change of state. BIRD keeps that time on its monotonic clock and
# prints it as wall time, from the two clocks as read at two points of its
# event loop (tm_format_time() in BIRD's lib/timer.c), so an unchanged time
# can print a millisecond or more apart when BIRD is busy: ctl-dump failed
# in CI with 14:00:35.077 then 14:00:35.078. A new state is seconds away
# in every scenario (a new connection, an OPEN exchange), so 250 ms is
# slack for the first and far short of the second.
SINCE_SLACK_MS=250
same_since()
{
	local a b d

	a=$(since_ms "$1") && b=$(since_ms "$2") || return 1
	d=$(((a - b + 86400000) % 86400000))
	[ "$d" -le $SINCE_SLACK_MS ] || [ $((86400000 - d)) -le $SINCE_SLACK_MS ]
}

# bird_kept_session PROTO SINCE: BIRD's PROTO has not changed state since
# SINCE (a bird_since read before); names both times when it has.
bird_kept_session()
{
	local now

	now=$(bird_since "$1")
	if ! same_since "$now" "$2"; then
		fail "BIRD's $1 changed state (since '$2', now '$now')"
	fi
}

# note_second_session: records BIRD's fared4 session (its "since" time,
# fared's flap count of B4) for second_session_intact, once BIRD shows it
# Established with a time: a reference read while it was not up, or from
# a BIRD that did not answer, would compare empty with empty or flag a
# flap that happened before. Scenarios that use it give BIRD "passive on"
# (BIRD_F4_EXTRA): a connection of fared's still pending when the session
# came up would otherwise end it (RFC 4724 §8) after the reference.
note_second_session()
{
	wait_for 10 "BIRD sees fared4 Established" bird_established fared4
	SINCE=$(bird_since fared4)
	B4_FLAPS=$(fared_field $B4 flaps)
	since_ms "$SINCE" >/dev/null || fail "BIRD's fared4 since: \"$SINCE\""
	[[ $B4_FLAPS =~ ^[0-9]+$ ]] || fail "fared's B4 flaps: \"$B4_FLAPS\""
}

# second_session_intact ROUTE: BIRD's fared4 session has not changed state
# since note_second_session, BIRD's route is still in fared and fared's
# ROUTE still in BIRD.
second_session_intact()
{
	local since

	since=$(bird_since fared4)
	same_since "$since" "$SINCE" ||
		fail "BIRD's session flapped: up since $SINCE, now \"$since\""
	bird_established fared4 || fail "BIRD's fared4 is not Established"
	[ "$(fared_field $B4 flaps)" = "$B4_FLAPS" ] || fail "fared counts B4 flaps"
	fared_has_route 10.202.1.0/24 || fail "BIRD's route left fared"
	bird_has_route "$1" fared4 || fail "fared's $1 left BIRD"
}

HOSTILE=$TOP/tests/bgp/hostile.py
# hostile MODE [ARGS]: the misbehaving raw peer, from R4; hostile_bg
# runs it in the background, its pid in HOSTILE_PID.
hostile()
{
	ip netns exec "$NS_B" python3 "$HOSTILE" $R4 $F4 "$@"
}

hostile_bg()
{
	ip netns exec "$NS_B" python3 "$HOSTILE" $R4 $F4 "$@" &
	HOSTILE_PID=$!
}

hostile_stop()
{
	kill "$HOSTILE_PID" 2>/dev/null
	wait "$HOSTILE_PID" 2>/dev/null
	HOSTILE_PID=
}

# ---- the spine fixture ----
# fared as a spine (role spine) between two BIRDs in $NS_B: the leaf (B4,
# AS B_AS, plane 1) originates $SPINE_PFX, fared passes it on to the far
# BIRD (R4, AS SPINE_FAR_AS, plane 2). Used by the scenarios on what a
# transit fared sends (refresh, restart-defer, oversize-grow).
SPINE_PFX=10.202.1.0/24
SPINE_FAR_AS=4200000003
FAR_SOCK=$DIR/far.ctl

# spine_conf [GLOBAL-LINE] [BIRD-OPTION-LINE]: fared's and the far BIRD's
# configuration (GLOBAL-LINE among fared's globals, BIRD-OPTION-LINE in the
# far BIRD's session, e.g. graceful restart for both).
spine_conf()
{
	cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
${1:-}
role spine
interface veth0 bandwidth 100G
policy all {
	permit 10.202.0.0/16 le 32
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
	neighbor $R4 {
		remote-as $SPINE_FAR_AS
		interface veth0
		import all
		export all
	}
}
EOC
	# A second BIRD for the far side: each binds its own address.
	cat >"$DIR/far.conf" <<EOC
router id 10.201.0.3;
log "$DIR/far.log" all;
debug protocols { states, events, packets };
protocol device { scan time 1; }
protocol bgp far4 {
	local $R4 as $SPINE_FAR_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	${2:-}
	ipv4 { import all; export none; };
}
EOC
}

# spine_leaf_conf ROUTE-ATTRS OPTION-LINE EXPORT: the leaf BIRD's
# configuration: its static $SPINE_PFX with ROUTE-ATTRS (a block or ""),
# OPTION-LINE in its session, EXPORT its export clause.
spine_leaf_conf()
{
	cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
protocol static leaf {
	ipv4;
	route $SPINE_PFX blackhole ${1:+$1};
}
protocol bgp leaf4 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	$2
	ipv4 { import none; $3 };
}
EOC
}

farc() { birdc -s "$FAR_SOCK" "$@"; }
far_has() { farc show route "$SPINE_PFX" protocol far4 | grep -q "$SPINE_PFX"; }
far_lacks() { ! far_has; }
# far_since: when the far BIRD's session last changed state.
far_since() { proto_since "$FAR_SOCK" far4; }
# far_kept_session SINCE: fails unless the far BIRD's session still dates
# from SINCE (far_since before); both times go in the message.
far_kept_session()
{
	local now

	now=$(far_since)
	if ! same_since "$now" "$1"; then
		fail "the far BIRD's session flapped (state since '$1', now '$now')"
	fi
}

# spine_start: both BIRDs and fared; returns once the far BIRD has the
# leaf's route through fared.
spine_start()
{
	start_bird
	ip netns exec "$NS_B" bird -c "$DIR/far.conf" -s "$FAR_SOCK" \
		-P "$DIR/far.pid" || fail "the far BIRD did not start"
	start_fared
	wait_for 20 "fared Established with the leaf" fared_established $B4
	wait_for 20 "fared Established with the far side" fared_established $R4
	wait_for 10 "the far BIRD gets $SPINE_PFX" far_has
}

# raw_spine_bird PROTO leaf|none [OPTION]: BIRD, fared's plane-1 peer in
# the raw_spine_conf fixture: a session PROTO that imports everything and
# exports a static 10.202.1.0/24 ("leaf") or nothing ("none"), with
# OPTION (a line such as "passive on;") added; then BIRD and fared start
# and fared's session with BIRD is Established.
raw_spine_bird()
{
	local static= export=none

	if [ "$2" = leaf ]; then
		static='protocol static leaf { ipv4; route 10.202.1.0/24 blackhole; }'
		export='where source = RTS_STATIC'
	fi
	cat >"$DIR/bird.conf" <<EOC
router id 10.201.0.2;
log "$DIR/bird.log" all;
protocol device { scan time 1; }
$static
protocol bgp $1 {
	local $B4 as $B_AS;
	neighbor $F4 as $F_AS;
	strict bind on;
	${3:-}
	hold time 6;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export $export; };
}
EOC
	start_bird
	start_fared
	wait_for 20 "fared Established with BIRD" fared_established $B4
}

# raw_spine_conf [NEIGHBOR-LINE [GLOBAL-LINES [IMPORT]]]: fared.conf for
# fared as a spine between BIRD (B4, plane 1) and the raw peer (R4, AS
# 65003, plane 2, passive), passing 100.64.0.0/10 and 10.202.0.0/16 on;
# NEIGHBOR-LINE goes into the raw peer's neighbor block, GLOBAL-LINES
# (graceful restart, another policy) before the planes, and the raw
# peer's routes go through policy IMPORT (default all).
raw_spine_conf()
{
	cat >"$DIR/fared.conf" <<EOC
$(fared_conf_head)
role spine
interface veth0 bandwidth 100G
policy all {
	permit 100.64.0.0/10 le 32
	permit 10.202.0.0/16 le 32
}
${2:-}
plane 1 {
	neighbor $B4 {
		remote-as $B_AS
		interface veth0
		import all
		export all
	}
}
plane 2 {
	neighbor $R4 {
		remote-as 65003
		interface veth0
		passive
		import ${3:-all}
		export all
		${1:-}
	}
}
EOC
}
