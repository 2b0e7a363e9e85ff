#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/bgp's tiers.sh with fare.ko loaded (FBGP_KERNEL=1): fared programs
# the module, and each "fared programs these next hops" check of the
# scenario (the Dragonfly+ tiers and weights of three prefixes, through a
# withdrawal and two reloads) is also read from fare.ko's table
# (tests/bgp/lib.sh, fare_expect), not only from fared's own report of it,
# as on the host. fared runs without valgrind here (the host's run has
# it). FIB-Suppress and UPA are read from fare.ko by the fib-suppress and
# upa scenarios here, with traffic; tests/bgp's fib-suppress.sh and
# upa-leaf.sh have the same fare_expect checks for a run by hand
# (FBGP_KERNEL=1 tests/bgp/run fib-suppress.sh upa-leaf.sh with fare.ko
# loaded), left out here for time: each takes minutes under emulation.
# Stock 6.1 only (tests/run-all says why).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/fare-bgp-kernel.XXXXXX)
load_fare
if FBGP_KERNEL=1 FBGP_LOGS=$LAB_DIR/bgp "$FARE_ROOT/tests/bgp/run" \
	tiers.sh; then
	pass "tests/bgp's tiers against fare.ko"
else
	fail "tests/bgp's tiers against fare.ko"
fi
lab_result
