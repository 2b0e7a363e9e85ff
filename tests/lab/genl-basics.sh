#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The generic netlink family through farectl against the real module:
# planes and routes are added, replaced, shown and deleted; the kernel
# route follows the fare route; refusals come back with the kernel's
# extack text; unprivileged users cannot change anything. A request with
# NLM_F_ECHO gets the event it caused (once ignored), and a route dump
# that spans a change is marked NLM_F_DUMP_INTR (once never).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

load_fare
netns_add gh
ip -n gh link add eth-a type dummy
ip -n gh link add eth-b type dummy
ip -n gh addr add 10.1.0.2/24 dev eth-a
ip -n gh addr add 10.2.0.2/24 dev eth-b
ip -n gh link set eth-a up
ip -n gh link set eth-b up

fc() { "$FARECTL" -n gh "$@"; }

fc plane add 1 dev eth-a via 10.1.0.1
fc plane add 2 dev eth-b via 10.2.0.1
expect_eq "fare0 created by the first plane" \
	"$(ip -n gh -j link show fare0 | jq -r '.[0].ifname')" fare0
expect_refusal "duplicate plane" "plane already exists" \
	fc plane add 1 dev eth-b via 10.2.0.1
fc plane replace 1 dev eth-a via 10.1.0.9

# NLM_F_ECHO and NLM_F_DUMP_INTR, seen on a raw socket (genl-echo-dump.py).
if ip netns exec gh python3 -S "$(dirname "$0")/genl-echo-dump.py" 2 |
	sed 's/^/lab: /'; then
	pass "echo and dump consistency marks"
else
	fail "echo and dump consistency marks"
fi
expect_eq "plane replaced" "$(fc -j plane show 1 | jq -r '.[0].gw4')" 10.1.0.9

fc route add 203.0.113.0/24 nexthop plane 1 weight 300 nexthop plane 2 weight 100
expect_eq "kernel route installed" \
	"$(ip -n gh -j route show table 249 203.0.113.0/24 proto 249 | jq -r '.[0].dev')" fare0
expect_refusal "duplicate route" "route already exists" \
	fc route add 203.0.113.0/24 nexthop plane 1 weight 1
expect_refusal "unknown plane" "no such plane" \
	fc route add 198.18.0.0/15 nexthop plane 9 weight 1
fc route replace 203.0.113.0/24 mode flow nexthop plane 2 weight 7
expect_eq "route replaced (weights)" \
	"$(fc -j route show 203.0.113.0/24 | jq -c '[.[0].nexthops[] | [.plane, .weight]]')" \
	'[[2,7]]'
expect_eq "route replaced (mode)" \
	"$(fc -j route show 203.0.113.0/24 | jq -r '.[0].mode')" flow
fc route replace 203.0.113.0/24 mode flowlet nexthop plane 2 weight 7
expect_eq "flowlet mode accepted" \
	"$(fc -j route show 203.0.113.0/24 | jq -r '.[0].mode')" flowlet

expect_refusal "unprivileged change" "Operation not permitted" \
	nobody gh plane del 2
expect_eq "unprivileged read" "$(nobody gh -j plane show | jq length)" 2

fc route del 203.0.113.0/24
expect_eq "kernel route removed" \
	"$(ip -n gh -j route show table 249 proto 249 | jq length)" 0
expect_refusal "deleting a missing route" "no such route" \
	fc route del 203.0.113.0/24
fc plane del 2
expect_eq "plane deleted" "$(fc -j plane show | jq length)" 1
ip -n gh link del eth-a
expect_eq "plane follows its device away" "$(fc -j plane show | jq length)" 0

lab_result
