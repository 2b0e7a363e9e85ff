#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One hostile session must not reach another (issue 15 §2), checked where
# it matters: in fare.ko and at a receiver. The host (topo_planes 3) has
# BIRD leaves on planes 1 and 2 advertising the remote 198.51.100.1/32
# with PB 50 and 25 GB/s (links 400G: weights 2:1); on plane 3 the
# project's raw peer (tests/bgp/hostile.py, in leaf3) misbehaves, in turn:
#
#   flood    1M /32s against "max-prefix 10000": Cease 6/1, its paths go
#   silent   a peer that stops reading while fared exports 4000 routes
#            to it (test-send-hold-time 3, small socket buffers): the
#            send hold timer ends that session (NOTIFICATION 8/0)
#   oversize an UPDATE past 4096 octets (extended message) and an
#            AS_SET, received and kept without a session reset
#   flaps    FARE_FLAPS (20) sessions up, 10 routes, Cease
#
# During each misbehaviour a paced stream runs from the host to the
# remote; after it, the receiver must have counted every datagram once,
# split 2:1 over planes 1 and 2 exactly (packet mode: within 1), none on
# plane 3; fare.ko must still hold 198.51.100.1/32 at 1:2 2:1; neither
# BIRD session may have flapped (no new TCP connection in the leaf's
# kernel counters, BIRD says Established) and fared's count of their
# flaps is unchanged.
#
# Takes about 3 minutes on debian-6.1 under TCG on the shared 2-core
# machine at load 7-8 (157 s and 195 s in the guest, measured twice), and
# 275 s on the debug kernel beside another guest.
#
# Runs on Debian's 6.1, not on the debug kernel: its subject is fared
# against real peers, and what it asks of fare.ko runs under the
# detectors in the fare.ko scenarios, genl-fuzz, stress and KUnit
# (tests/run-all's top).
# On the debug kernel (run by hand) each phase streams 300 datagrams
# instead of 3,000 (N below); every
# check stands as is. There the flood's 10,000 routes take fared tens of
# seconds to program and drop, which is what showed that a long FIB batch
# must not hold back the other sessions' KEEPALIVEs. Only the flood runs
# there (FARE_HOSTILE_ALL=1 runs every phase): it is the one phase that
# puts fare.ko under load (10,000 routes programmed and dropped beside
# the stream); what the others test is fared's session handling, which
# tests/bgp runs on the host against the same raw peer (sendhold.sh,
# oversize.sh, rawflap.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/hostile-peer.XXXXXX)
CTL=$LAB_DIR/fared.sock
DST=198.51.100.1/32
HOSTILE=$FARE_ROOT/tests/bgp/hostile.py
FLOOD=${FARE_FLOOD:-1000000}
FLAPS=${FARE_FLAPS:-20}
LIMIT=10000
EXPORTS=4000
# Datagrams per check: 3 periods of 2:1 per 100.
N=3000
debug_kernel && N=300
PB50=21056
PB25=20032

nb() { "$FARECTL" -j bgp -s "$CTL" neighbors; }

# nb_field ADDR FIELD: a field of fared's view of neighbor ADDR.
nb_field()
{
	nb | jq -r --arg a "$1" ".[] | select(.address == \$a) | .$2"
}

raw_paths_above() { [ "$(nb_field 10.3.0.1 paths)" -gt "$1" ]; }
raw_paths_none() { [ "$(nb_field 10.3.0.1 paths)" = 0 ]; }

hostile() { ip netns exec leaf3 python3 -S "$HOSTILE" 10.3.0.1 10.3.0.2 "$@"; }

hostile_bg()
{
	ip netns exec leaf3 python3 -S "$HOSTILE" 10.3.0.1 10.3.0.2 "$@" \
		>"$LAB_DIR/hostile.log" 2>&1 &
	HOSTILE_PID=$!
	LAB_PIDS+=("$HOSTILE_PID")
}

# hostile_done NAME: waits for the raw peer, shows and judges its checks.
hostile_done()
{
	local rc=0

	wait "$HOSTILE_PID" || rc=$?
	cat "$LAB_DIR/hostile.log"
	expect_eq "$1: the raw peer's own checks (exit status)" $rc 0
}

# tcp_opens I: TCP connections leaf I's kernel ever opened or accepted:
# a new BGP session needs one, so an unchanged count means no flap.
tcp_opens()
{
	echo $(($(snmp leaf$1 Tcp ActiveOpens) + $(snmp leaf$1 Tcp PassiveOpens)))
}

# intact PHASE: the BIRD sessions, their route in fare.ko and the split.
intact()
{
	local i

	for i in 1 2; do
		if [ "$(tcp_opens $i)" != "${OPENS[$i]}" ]; then
			# Who ended the session, and why: fared's and BIRD's
			# side of it.
			grep -F "neighbor 10.$i.0.1 " "$LAB_DIR/fared.log" |
				tail -n 8 || true
			tail -n 8 "$LAB_DIR/bird$i.log" || true
			OPENS[$i]=$(tcp_opens $i)
			fail "$1: leaf$i opened a new TCP connection (its kernel)"
		else
			pass "$1: leaf$i opened no new TCP connection (its kernel)"
		fi
		expect_eq "$1: leaf$i's BIRD session" \
			"$(leaf_birdc $i show protocols tohost |
			   awk '$1 == "tohost" { print $6 }')" Established
		expect_eq "$1: fared counts no flap of leaf$i" \
			"$(nb_field 10.$i.0.1 flaps)" "${FLAPS0[$i]}"
		# Each phase is judged on its own.
		FLAPS0[$i]=$(nb_field 10.$i.0.1 flaps)
	done
	expect_eq "$1: weights in fare.ko" "$(host_weights $DST)" "1:2 2:1"
}

# stream PHASE: N datagrams, judged at the receiver.
stream()
{
	send_phase $N "$1"
	split_is "$1" $((N * 2 / 3)) $((N / 3)) 0
}


load_fare
topo_planes 3
# Small socket buffers on the host, so that 4000 UPDATEs to a peer that
# reads nothing cannot all hide in the kernel.
ip netns exec host sysctl -qw net.ipv4.tcp_wmem="4096 16384 16384"
for i in 1 2; do
	pb=$PB50
	[ $i -ne 2 ] || pb=$PB25
	leaf_bird_conf $i 30 "route $DST blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$i.0.1, $pb));
	};"
	leaf_bird_start $i
done
# fared: the host on planes 1 and 2 (BIRD), and plane 3's raw peer.
FARED_HOST_GLOBAL="test-send-hold-time 3
policy raw {
	permit 100.64.0.0/10 le 32
}
policy toraw {
	permit 10.203.0.0/16 le 32
}
$(for i in $(seq 0 $((EXPORTS - 1))); do
	echo "originate 10.203.$((i / 250 + 1)).$((i % 250 + 1))/32"
done)" FARED_HOST_TAIL="interface eth-p3 bandwidth 400G
plane 3 {
	neighbor 10.3.0.1 {
		remote-as 65003
		interface eth-p3
		passive
		max-prefix $LIMIT
		import raw
		export toraw
	}
}" fared_host_start 30 400G 2

if ! wait_until 60 host_weights_are $DST "1:2 2:1"; then
	tail -n 30 "$LAB_DIR/fared.log"
fi
expect_eq "before: weights in fare.ko" "$(host_weights $DST)" "1:2 2:1"
declare -A OPENS FLAPS0
for i in 1 2; do
	OPENS[$i]=$(tcp_opens $i)
	FLAPS0[$i]=$(nb_field 10.$i.0.1 flaps)
done
stream 0

# flood: the stream runs while the flood arrives.
hostile_bg flood "$FLOOD" $LIMIT
wait_until 60 raw_paths_above 100 || fail "the flood did not start"
stream 1
hostile_done flood
wait_until 20 raw_paths_none || true
expect_eq "flood: the raw peer's paths after Cease 6/1" \
	"$(nb_field 10.3.0.1 paths)" 0
expect_eq "flood: held Idle by max-prefix" \
	"$(nb_field 10.3.0.1 max_prefix.state)" idle
intact flood
if debug_kernel && [ "${FARE_HOSTILE_ALL:-0}" != 1 ]; then
	echo "lab: on the debug kernel the flood phase only (silent," \
		"oversize and flaps run in tests/bgp against fared on the host)"
	lab_result
	exit
fi
"$FARECTL" bgp -s "$CTL" clear 10.3.0.1 >/dev/null

# silent: a peer that reads nothing.
hostile_bg silent 4096
stream 2
hostile_done silent
if grep -q "neighbor 10.3.0.1 (plane 3): sent NOTIFICATION 8/0" \
	"$LAB_DIR/fared.log"; then
	pass "silent: fared ended the session with NOTIFICATION 8/0"
else
	fail "silent: no NOTIFICATION 8/0 in fared's log"
fi
intact silent

# oversize: a 4-octet AS_PATH of 1100 ASes (an UPDATE past 4096 octets).
hostile_bg oversize 1100
wait_until 60 raw_paths_above 2 || fail "oversize: the raw peer's 3 routes"
stream 3
expect_eq "oversize: the raw peer's session" \
	"$(nb_field 10.3.0.1 state)" Established
expect_eq "oversize: its 3 routes, the 4457-octet one too, in fared" \
	"$(nb_field 10.3.0.1 paths)" 3
kill "$HOSTILE_PID" 2>/dev/null || true
wait "$HOSTILE_PID" 2>/dev/null || true
cat "$LAB_DIR/hostile.log"
intact oversize

# flaps, with the stream running through them.
hostile_bg flaps "$FLAPS"
stream 4
hostile_done flaps
intact flaps

"$FARECTL" bgp -s "$CTL" neighbors
lab_result
