# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# How every test of fare waits for a condition: tests/lab, tests/bgp (and
# its helpers), tests/install and bench/ source this through their lib.sh.
#
#   wait_until SECONDS COMMAND...
#	true once COMMAND succeeds; false when it has not within SECONDS
#	times FARE_WAIT_SCALE. COMMAND's output is left as it is.
#   wait_for SECONDS WHAT COMMAND...
#	the same, COMMAND silenced; on a timeout the harness's fail says
#	"timed out after Ns: WHAT" and wait_for returns false.
#   nap SECONDS
#	sleeps without starting a process.
#
# fail is each harness's own: tests/lab's marks the scenario failed and
# goes on, so one guest boot reports every check; tests/bgp's ends the
# scenario with both peers' state, as its steps build on each other.
#
# A wait is for something that must happen, so a longer limit weakens no
# check: where a test asserts how long something took, it measures that
# itself. FARE_WAIT_SCALE (default 1; FBGP_WAIT_SCALE, its old name, is
# still read) stretches every limit on a machine that runs guests beside
# the test: tests/bgp/run sets 3 under CI=true.
#
# COMMAND is checked at once, then after 0.05 s, the pause doubling up to
# 0.5 s: a condition that holds soon is seen soon, and a long wait costs
# a check each half second. In a TCG guest each check is a few execs of
# farectl, jq or ip at 20-60 ms of CPU each, so a check every 0.1 s took
# the vCPU, and the host core its lane shares, from the work waited for.

FARE_WAIT_SCALE=${FARE_WAIT_SCALE:-${FBGP_WAIT_SCALE:-1}}

# read's time limit on a pipe that nobody writes to: a sleep(1) would be
# an exec per pause, 20 ms of a TCG guest's CPU.
exec {fare_nap_fd}<> <(:)
nap()
{
	read -r -t "$1" -u "$fare_nap_fd" _ || true
}

wait_until()
{
	local deadline=$((SECONDS + $1 * FARE_WAIT_SCALE)) pause=0.05

	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		nap "$pause"
		case $pause in
		0.05) pause=0.1 ;;
		0.1) pause=0.2 ;;
		0.2) pause=0.4 ;;
		*) pause=0.5 ;;
		esac
	done
}

wait_for()
{
	local seconds=$1 what=$2

	shift 2
	wait_until "$seconds" "$@" >/dev/null 2>&1 && return 0
	fail "timed out after $((seconds * FARE_WAIT_SCALE))s: $what"
	return 1
}
