# SPDX-License-Identifier: GPL-2.0-only
# Shared by fib-suppress.sh and upa-leaf.sh (route-table suppression,
# mpson-00 §4): a chain of four network namespaces, no fare.ko (weights
# are computed and explained, nothing is programmed):
#
#   H (BIRD, the RNIC's stub speaker, AS 65010) announces X = 10.1.0.5/32
#     |  10.210.1.0/24: H .2, L .1          (L's plane 1, "rnic")
#   L (fared, role leaf, AS $L_AS) originates A = 10.1.0.0/24
#     |  10.210.2.0/24: L .1, S .2          (L's plane 2, S's plane 1)
#   S (fared, role spine, AS 65100, "fib-suppress honour")
#     |  10.210.3.0/24: S .1, O .2          (S's plane 2)
#   O (BIRD, the observer, AS 65200): what the far side is told
#
# Every fared runs under valgrind; stop_all_clean fails on an error or a
# leak. Hold timers are 30 s: nothing here waits on one to expire.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NS_L=$PFX-l NS_H=$PFX-h NS_S=$PFX-s NS_O=$PFX-o
# Scenarios' own fareds (fared_start NAME runs in $PFX-NAME).
EXTRA_FAREDS=${EXTRA_FAREDS:-}
# lib.sh's cleanup removes NS_F and NS_B: the leaf and the host.
NS_F=$NS_L NS_B=$NS_H
X=10.1.0.5/32
A=10.1.0.0/24
L_ID=10.210.0.1
declare -A PIDS=()

cleanup_chain()
{
	local ns pid

	for pid in "${PIDS[@]}"; do
		kill -9 "$pid" 2>/dev/null
	done
	for ns in "$NS_S" "$NS_O" ${EXTRA_NS:-}; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	cleanup
}
trap cleanup_chain EXIT

chain_fail()
{
	local n
	echo "FAIL: $*" >&2
	for n in l s $EXTRA_FAREDS; do
		echo "--- fared $n log (last 20 lines)" >&2
		tail -n 20 "$DIR/$n.log" >&2 2>/dev/null
	done
	exit 1
}

# link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B
link()
{
	ip -n "$1" link add "$2" type veth peer name "$5" netns "$4" ||
		chain_fail "veth $2-$5"
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

setup_chain()
{
	local ns

	for ns in "$NS_H" "$NS_L" "$NS_S" "$NS_O"; do
		ip netns add "$ns" || chain_fail "netns add $ns"
		ip -n "$ns" link set lo up
	done
	link "$NS_H" eth-l 10.210.1.2/24 "$NS_L" eth-h 10.210.1.1/24
	link "$NS_L" eth-s 10.210.2.1/24 "$NS_S" eth-l 10.210.2.2/24
	link "$NS_S" eth-o 10.210.3.1/24 "$NS_O" eth-s 10.210.3.2/24
}

# leaf_conf EXTRA-LINES
leaf_conf()
{
	cat >"$DIR/l.conf" <<EOC
router-id $L_ID
local-as $L_AS
hold-time 30
connect-retry 1
control-socket $DIR/l.sock
state-file $DIR/l.state
role leaf
originate $A
$1
interface eth-h bandwidth 100G
interface eth-s bandwidth 100G
policy hosts {
	permit $A le 32
}
policy all {
	permit 10.0.0.0/8 le 32
}
plane 1 {
	neighbor 10.210.1.2 {
		remote-as 65010
		interface eth-h
		rnic
		import hosts
		export all
	}
}
plane 2 {
	neighbor 10.210.2.2 {
		remote-as 65100
		interface eth-s
		import all
		export all
	}
}
EOC
}

spine_conf()
{
	cat >"$DIR/s.conf" <<EOC
router-id 10.210.0.2
local-as 65100
hold-time 30
connect-retry 1
control-socket $DIR/s.sock
state-file $DIR/s.state
role spine
fib-suppress honour
interface eth-l bandwidth 100G
interface eth-o bandwidth 100G
policy all {
	permit 10.0.0.0/8 le 32
}
plane 1 {
	neighbor 10.210.2.1 {
		remote-as $L_AS
		interface eth-l
		import all
		export all
	}
}
plane 2 {
	neighbor 10.210.3.2 {
		remote-as 65200
		interface eth-o
		import all
		export all
	}
}
${SPINE_EXTRA:-}
EOC
}

# bird_start NAME NS ROUTER-ID AS NEIGHBOR NEIGHBOR-AS EXPORT-ROUTES
bird_start()
{
	cat >"$DIR/$1.bird.conf" <<EOC
router id $3;
log "$DIR/$1.bird.log" all;
protocol device { scan time 1; }
protocol static st {
	ipv4;
	$7
}
protocol bgp up {
	local as $4;
	neighbor $5 as $6;
	hold time 30;
	connect retry time 1;
	connect delay time 1;
	error wait time 1, 2;
	ipv4 { import all; export where source = RTS_STATIC; };
}
EOC
	ip netns exec "$2" bird -c "$DIR/$1.bird.conf" -s "$DIR/$1.bird.ctl" \
		-P "$DIR/$1.bird.pid" || chain_fail "bird $1 did not start"
	bird_pid "$DIR/$1.bird.pid"
	PIDS[bird-$1]=$BIRD_PID_READ
}

birdc_at() { local n=$1; shift; birdc -s "$DIR/$n.bird.ctl" "$@"; }

# fared_start l|s|NAME: under valgrind (not with fare.ko: lib.sh's
# kernel_mode), in $NS_L, $NS_S or $PFX-NAME.
fared_start()
{
	local ns=$PFX-$1
	[ "$1" = l ] && ns=$NS_L
	[ "$1" = s ] && ns=$NS_S
	if kernel_mode; then
		ip netns exec "$ns" "$FARED" -c "$DIR/$1.conf" \
			>>"$DIR/$1.log" 2>&1 &
	else
		ip netns exec "$ns" valgrind -q --leak-check=full \
			--errors-for-leak-kinds=all --error-exitcode=99 \
			--log-file="$DIR/$1.valgrind" "$FARED" -c "$DIR/$1.conf" \
			>>"$DIR/$1.log" 2>&1 &
	fi
	PIDS[fared-$1]=$!
}

# ctl_at l|s REQUEST: the control socket of that fared.
ctl_at()
{
	local n=$1
	shift
	CTL=$DIR/$n.sock ctl "$@"
}

state_at() # NODE NEIGHBOR
{
	ctl_at "$1" neighbors json |
		jq -r ".[] | select(.address == \"$2\") | .state"
}
established_at() { [ "$(state_at "$1" "$2")" = Established ]; }

# What the observer is told about a prefix ("show route ... all").
obs_route() { birdc_at o show route "$1" all; }
obs_has() { obs_route "$1" | grep -q "$1"; }
obs_lacks() { ! obs_has "$1"; }

start_chain()
{
	setup_chain
	# A scenario's own links, before the daemons start.
	! declare -F chain_extra >/dev/null || chain_extra
	spine_conf
	fared_start s
	fared_start l
	bird_start h "$NS_H" 10.210.0.10 65010 10.210.1.1 $L_AS \
		"route $X blackhole;"
	bird_start o "$NS_O" 10.210.0.20 65200 10.210.3.1 65100 ""
	wait_for 60 "leaf - host session" established_at l 10.210.1.2
	wait_for 60 "leaf - spine session" established_at l 10.210.2.2
	wait_for 60 "spine - observer session" established_at s 10.210.3.2
	wait_for 60 "the observer gets the aggregate $A" obs_has "$A"
}

# stop_all_clean: both fareds stop on SIGTERM with status 0, and
# valgrind reports nothing.
stop_all_clean()
{
	local n rc

	for n in l s $EXTRA_FAREDS; do
		rc=0
		kill -TERM "${PIDS[fared-$n]}"
		wait "${PIDS[fared-$n]}" || rc=$?
		unset "PIDS[fared-$n]"
		[ $rc -eq 0 ] || { cat "$DIR/$n.valgrind"; chain_fail "fared $n exited $rc"; }
		[ -s "$DIR/$n.valgrind" ] &&
			{ cat "$DIR/$n.valgrind"; chain_fail "valgrind ($n)"; }
	done
	return 0
}
