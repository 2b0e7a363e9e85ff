#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 cannot be given an MTU above its smallest plane's (a larger packet
# would leave fare0 only to be dropped at the plane), though it may go
# lower; and it takes the smallest of its planes' GSO limits (size and
# segments, and TSO limits where the kernel has them) whenever its planes
# change (a GSO limit set on a device raises no event: a plane replace
# takes it), so every GSO packet it accepts is one each plane takes. Once the MTU could be raised freely and the limits were
# fare0's own defaults.
set -eu
. "$(dirname "$0")/lib.sh"

load_fare
netns_add fm
for d in a b; do
	ip -n fm link add eth-$d type veth peer name peer-$d
	ip -n fm link set eth-$d up
	ip -n fm link set peer-$d up
done
ip -n fm addr add 10.1.0.2/24 dev eth-a
ip -n fm addr add 10.2.0.2/24 dev eth-b
ip -n fm link set eth-b mtu 1400 gso_max_size 32000 gso_max_segs 30

fc() { "$FARECTL" -n fm "$@"; }
link() { ip -n fm -d -j link show "$1" | jq ".[0].$2"; }

fc plane add 1 dev eth-a via 10.1.0.1
fc plane add 2 dev eth-b via 10.2.0.1
expect_eq "MTU of fare0 is the smallest plane's" "$(link fare0 mtu)" 1400

rc=0
out=$(ip -n fm link set fare0 mtu 1500 2>&1) || rc=$?
if [ $rc -ne 0 ]; then
	pass "MTU above the planes' refused: $out"
else
	fail "fare0 took MTU 1500 above its planes' 1400"
fi
expect_eq "MTU unchanged after the refusal" "$(link fare0 mtu)" 1400
ip -n fm link set fare0 mtu 1300
expect_eq "a lower MTU is taken" "$(link fare0 mtu)" 1300

expect_eq "GSO size of fare0 is the smallest plane's" \
	"$(link fare0 gso_max_size)" 32000
expect_eq "GSO segments of fare0 are the smallest plane's" \
	"$(link fare0 gso_max_segs)" 30
ip -n fm link set eth-a gso_max_size 20000 gso_max_segs 12
fc plane replace 1 dev eth-a via 10.1.0.1
expect_eq "GSO size follows a replaced plane's" "$(link fare0 gso_max_size)" \
	20000
expect_eq "GSO segments follow a replaced plane's" \
	"$(link fare0 gso_max_segs)" 12
# TSO: a driver's limit, which no "ip link set" changes. Both veths have
# the same (512 KiB, BIG TCP), above fare0's own default (64 KiB); a dummy
# device as plane 3 has 64 KiB. So fare0 must show the veths' limit with
# planes 1 and 2, the dummy's with it, and the veths' again without it:
# neither a fare0 that kept its default nor one that took no plane's
# meets all three. Every kernel fare supports has tso_max_size (5.19+),
# and bookworm's ip shows it: null fails.
ip -n fm link add du0 type dummy
ip -n fm link set du0 up
ip -n fm addr add 10.3.0.2/24 dev du0
tso_veth=$(link eth-a tso_max_size)
tso_dummy=$(link du0 tso_max_size)
if ! is_int "$tso_veth" || ! is_int "$tso_dummy" ||
   [ "$(link eth-b tso_max_size)" != "$tso_veth" ] ||
   [ "$tso_dummy" -ge "$tso_veth" ]; then
	fail "TSO fixture: veths $tso_veth and $(link eth-b tso_max_size)," \
		"dummy $tso_dummy (want two equal numbers above the dummy's)"
else
	expect_eq "TSO size limit of fare0: the veth planes'" \
		"$(link fare0 tso_max_size)" "$tso_veth"
	fc plane add 3 dev du0 via 10.3.0.1
	expect_eq "TSO size limit of fare0: the dummy plane's, smaller" \
		"$(link fare0 tso_max_size)" "$tso_dummy"
	fc plane del 3
	expect_eq "TSO size limit of fare0: the veths' again without it" \
		"$(link fare0 tso_max_size)" "$tso_veth"
fi
fc plane del 1
expect_eq "GSO size back to the remaining plane's" \
	"$(link fare0 gso_max_size)" 32000
lab_result
