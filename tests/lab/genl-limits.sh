#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel boundary of the fare family: a namespace's limits on routes,
# planes and next hops per route refuse the object past them with the
# kernel's extack text (replacing an existing one still works), a
# namespace's own root may lower a limit but not raise it, the flow hash
# seed is shown to CAP_NET_ADMIN only, the flowlet table's size reads back
# and only the initial namespace's root grows it past the default, and a
# route of 64 next hops with bandwidths (larger than a default netlink
# message) is shown whole by route show, route get and monitor. The
# memory budget reads back, only the initial namespace's root raises it
# (tenant-budget.sh shows a tenant refused at it), and it never goes below
# one empty device, so a namespace without devices can make one again.
set -eu
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/genl-limits.XXXXXX)
load_fare
netns_add gl
ip -n gl link add eth-a type dummy
ip -n gl addr add 10.1.0.2/24 dev eth-a
ip -n gl link set eth-a up

fc() { "$FARECTL" -n gl "$@"; }
cfg() { fc -j config show | jq -r ".$1"; }

expect_eq "default route limit" "$(cfg route_limit)" 262144
expect_eq "default plane limit" "$(cfg plane_limit)" 64
expect_eq "default next-hop limit" "$(cfg nexthop_limit)" 64

fc config set route-limit 3 plane-limit 2 nexthop-limit 1
fc plane add 1 dev eth-a via 10.1.0.1
fc plane add 2 dev eth-a via 10.1.0.1
expect_refusal "third plane past the limit" \
	"plane limit of the namespace reached" \
	fc plane add 3 dev eth-a via 10.1.0.1
fc plane replace 2 dev eth-a via 10.1.0.9
pass "a plane replaced at the limit"
for i in 1 2 3; do
	fc route add 198.18.$i.0/24 nexthop plane 1 weight 1
done
expect_refusal "fourth route past the limit" \
	"route limit of the namespace reached" \
	fc route add 198.18.4.0/24 nexthop plane 1 weight 1
fc route replace 198.18.3.0/24 nexthop plane 2 weight 1
pass "a route replaced at the limit"
expect_refusal "two next hops past the limit of one" \
	"more next hops than the namespace allows" \
	fc route replace 198.18.1.0/24 nexthop plane 1 weight 1 \
	nexthop plane 2 weight 1
expect_eq "routes counted" "$(cfg routes)" 3
# Per-route counters are opt-in: a route added without "stats" has none.
expect_eq "route-stats off by default" "$(cfg route_stats)" false
expect_eq "so a route has no counters of its own" \
	"$(fc -j route show 198.18.1.0/24 | jq -c '.[0] | [.stats, .nexthops[0].tx_packets]')" \
	'[false,null]'
expect_eq "planes counted" "$(cfg planes)" 2
fc route del 198.18.3.0/24
fc route add 198.18.4.0/24 nexthop plane 1 weight 1
pass "a route added once another went"

# A namespace owned by a user namespace: its root may lower, not raise.
out=$(unshare --user --map-root-user --net sh -c \
	"'$FARECTL' config set route-limit 10 && '$FARECTL' config set route-limit 20" 2>&1) && rc=0 || rc=$?
if [ $rc -eq 1 ] && grep -qF "raising a limit needs CAP_NET_ADMIN in the initial user namespace" <<<"$out"; then
	pass "user-namespace root lowers but cannot raise: $out"
else
	fail "user-namespace root and limits: exit $rc, $out"
fi

# The memory budget: 4 GiB in a namespace of the host's, 64 MiB in one of
# an unprivileged user namespace, whose root may lower but not raise it;
# read back in text and JSON, with what the namespace holds.
expect_eq "host namespace's memory budget" "$(cfg memory_budget)" 4294967296
expect_eq "its three routes and their group count in its use" \
	"$(u=$(cfg memory_used); [ "$u" -gt 0 ] 2>/dev/null && echo some)" some
fc config set memory-budget 8G
expect_eq "raised by the host's root" "$(cfg memory_budget)" 8589934592
expect_eq "and shown as text" \
	"$(fc config show | grep -o 'memory-budget [0-9]*M')" "memory-budget 8192M"
fc config set memory-budget 4G
out=$(unshare --user --map-root-user --net sh -c \
	"'$FARECTL' -j config show && '$FARECTL' config set memory-budget 32M && '$FARECTL' -j config show && '$FARECTL' config set memory-budget 65M" 2>&1) && rc=0 || rc=$?
if [ $rc -eq 1 ] && grep -qF '"memory_budget":67108864' <<<"$out" &&
   grep -qF '"memory_budget":33554432' <<<"$out" &&
   grep -qF "raising a limit needs CAP_NET_ADMIN in the initial user namespace" <<<"$out"; then
	pass "user-namespace root: 64 MiB, lowered to 32, not raised past it"
else
	fail "user-namespace root and the memory budget: exit $rc, $out"
fi

# The budget has a floor, one empty device: a namespace left with none can
# make fare0 again and raise it. Budget 0 (accepted before the floor) with
# fare0 then deleted locked the namespace out for good.
netns_add floor
ff() { "$FARECTL" -n floor "$@"; }
empty=$(ff -j config show | jq -r .memory_used)
out=$(ff config set memory-budget 0 2>&1) && rc=0 || rc=$?
if [ $rc -ne 0 ] && grep -q "what one empty fare device takes" <<<"$out"; then
	pass "a budget of 0 is refused: $out"
else
	fail "a budget of 0: exit $rc, $out"
fi
expect_eq "the refused budget left as it was" \
	"$(ff -j config show | jq -r .memory_budget)" 4294967296
ff config set memory-budget "$empty"
expect_eq "a budget of one empty device ($empty bytes) is taken" \
	"$(ff -j config show | jq -r .memory_budget)" "$empty"
ip -n floor link del fare0
if ff config set memory-budget 4G && ip -n floor link show fare0 >/dev/null &&
   [ "$(ff -j config show | jq -r .memory_budget)" = 4294967296 ]; then
	pass "fare0 deleted at that budget: made again, budget raised"
else
	fail "fare0 deleted at a budget of one empty device: no way back"
fi

# The flowlet table's size: it reads back in text and JSON; the initial
# namespace's root may grow it past the default, a namespace's own root
# may shrink it but not grow it past the default; a size that is not a
# power of two is refused (by farectl; ynl.sh sends it raw to fare.ko).
expect_eq "default flowlet table" "$(cfg flowlet_slots)" 4096
fc config set flowlet-slots 65536
expect_eq "flowlet table grown" "$(cfg flowlet_slots)" 65536
expect_eq "and shown as text" \
	"$(fc config show | grep -o 'flowlet-slots [0-9]*')" "flowlet-slots 65536"
fc config set flowlet-slots 256
expect_eq "flowlet table shrunk" "$(cfg flowlet_slots)" 256
out=$(unshare --user --map-root-user --net sh -c \
	"'$FARECTL' config set flowlet-slots 4096 && '$FARECTL' config set flowlet-slots 1024 && '$FARECTL' -j config show && '$FARECTL' config set flowlet-slots 8192" 2>&1) && rc=0 || rc=$?
if [ $rc -eq 1 ] && grep -qF '"flowlet_slots":1024' <<<"$out" &&
   grep -qF "a flowlet table above 4096 slots needs CAP_NET_ADMIN in the initial user namespace" <<<"$out"; then
	pass "user-namespace root sets up to 4096 slots, not more: $(tail -n 1 <<<"$out")"
else
	fail "user-namespace root and the flowlet table: exit $rc, $out"
fi
rc=0
out=$(fc config set flowlet-slots 3000 2>&1) || rc=$?
expect_eq "flowlet-slots 3000 refused by farectl" "$rc: $out" \
	"2: farectl: config set: flowlet-slots 3000 is not a power of two at argument 6"
expect_eq "the refused sizes changed nothing" "$(cfg flowlet_slots)" 256
fc config set flowlet-slots 4096

# The hash seed: root sees it, an unprivileged reader does not.
seed=$(cfg hash_seed)
expect_eq "root sees the hash seed" "$([ "$seed" != null ] && echo yes)" yes
expect_eq "an unprivileged reader does not" \
	"$(nobody gl -j config show | jq -r .hash_seed)" null
# The text output must come (a failed farectl, "|| true", counted 0).
text_seed_lines()
{
	local out

	out=$(nobody gl config show) ||
		{ echo "farectl config show failed"; return 0; }
	[ -n "$out" ] || { echo "farectl config show printed nothing"; return 0; }
	printf '%s\n' "$out" | awk '/hash-seed/ { n++ } END { print n + 0 }'
}
expect_eq "nor in the text output" "$(text_seed_lines)" 0

# 64 next hops with bandwidths: 4176 bytes, above NLMSG_GOODSIZE.
fc route flush
fc config set route-limit 262144 plane-limit 64 nexthop-limit 64
for i in $(seq 3 64); do
	fc plane add $i dev eth-a via 10.1.0.1
done
nh=()
for i in $(seq 1 64); do
	nh+=(nexthop plane $i weight $i bandwidth $((i * 1000000)))
done
mon=$LAB_DIR/monitor.json
"$FARECTL" -n gl -j monitor all >"$mon" &
LAB_PIDS+=($!)
# Listening once a config change of ours shows up.
monitor_ready()
{
	fc config set spill-bias 65536
	grep -q '"config"' "$mon"
}
wait_until 30 monitor_ready
fc route add 203.0.113.0/24 "${nh[@]}"
expect_eq "route show lists the 64-hop route" \
	"$(fc -j route show | jq '[.[] | select(.dst == "203.0.113.0/24") | .nexthops | length] | .[0]')" 64
expect_eq "route get shows it" \
	"$(fc -j route show 203.0.113.0/24 | jq '.[0].nexthops | length')" 64
wait_until 10 grep -q 203.0.113.0 "$mon" || true
expect_eq "monitor saw it with its 64 next hops" \
	"$(jq -s '[.[] | select(.event == "route_new" and .route.dst == "203.0.113.0/24") | .route.nexthops | length] | .[0]' "$mon")" 64
# A named group of the same 64: its reply is sized for the group found.
fc group add 64 "${nh[@]}"
expect_eq "group get shows the 64-hop group" \
	"$(fc -j group show 64 | jq '.[0].nexthops | length')" 64
expect_eq "group get: its last next hop's bandwidth" \
	"$(fc -j group show 64 | jq '.[0].nexthops[63].bandwidth')" 64000000
lab_result
