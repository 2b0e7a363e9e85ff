#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two fare devices in one namespace, each with its own table: fa's plane 1
# is the link to leaf A, fb's plane 1 the link to leaf B, and each has a
# route of its own. Both leaves answer both destinations, so only the
# devices' tables decide: the leaves' counters show that fa's traffic
# reaches leaf A alone and fb's leaf B alone. The memory budget stays the
# namespace's: a budget that fa's routes fill refuses fb too, and a third
# device or a larger flowlet table, which hold memory of their own
# before any route (charged since: before, both were made). Deleting fa
# frees what it held (its planes' devices go at once, its kernel route
# goes, the namespace's budget gets its bytes back) and fb keeps steering.
# Before per-device state the kernel refused a second fare device in a
# namespace ("this namespace already has a fare device"). A monitor of
# one device prints that device's changes only (before events named
# their device, each printed both's).
set -eu
. "$(dirname "$0")/lib.sh"

load_fare
netns_add nf
netns_add la
netns_add lb

veth_link nf eth-pa 10.1.0.2/24 la eth-h 10.1.0.1/24
veth_link nf eth-pb 10.2.0.2/24 lb eth-h 10.2.0.1/24
ip -n nf addr add 192.0.2.7/32 dev lo
for leaf in la lb; do
	ip -n $leaf addr add 198.51.100.1/32 dev lo
	ip -n $leaf addr add 198.51.100.2/32 dev lo
done
ip -n la route add 192.0.2.7/32 via 10.1.0.2 dev eth-h
ip -n lb route add 192.0.2.7/32 via 10.2.0.2 dev eth-h
# No ARP crosses a link while the leaves count.
neigh_pin nf eth-pa 10.1.0.1 la eth-h
neigh_pin nf eth-pb 10.2.0.1 lb eth-h
neigh_pin la eth-h 10.1.0.2 nf eth-pa
neigh_pin lb eth-h 10.2.0.2 nf eth-pb

fc() { "$FARECTL" -n nf "$@"; }

for dev in fa fb; do
	if ! out=$(ip -n nf link add $dev type fare 2>&1); then
		fail "ip link add $dev type fare: $out"
		lab_result
		exit 1
	fi
	ip -n nf link set $dev up
done
pass "two fare devices in one namespace"

# A monitor of each device: the events group hears both, each monitor
# prints its own device's changes only, and -j names the device.
mon=$(mktemp -d /tmp/fare-multidev.XXXXXX)
fc -d fa monitor >>"$mon/fa" 2>&1 &
LAB_PIDS+=($!)
fc -d fb -j monitor >>"$mon/fb" 2>&1 &
LAB_PIDS+=($!)
subscribed() {
	fc -d fa config set flowlet-timeout 100
	fc -d fb config set flowlet-timeout 100
	grep -q '^config set' "$mon/fa" && grep -q '"event":"config"' "$mon/fb"
}
wait_until 10 subscribed || fail "the monitors never subscribed"
: >"$mon/fa"
: >"$mon/fb"

fc -d fa plane add 1 dev eth-pa via 10.1.0.1
fc -d fb plane add 1 dev eth-pb via 10.2.0.1
fc -d fa route add 198.51.100.1/32 src 192.0.2.7 nexthop plane 1 weight 1
fc -d fb route add 198.51.100.2/32 src 192.0.2.7 nexthop plane 1 weight 1

# A last change to each: once a monitor printed it, it had read every
# event before it.
fc -d fa config set flowlet-timeout 200
fc -d fb config set flowlet-timeout 200
mon_done() {
	grep -q 'flowlet-timeout 200' "$mon/fa" &&
		grep -q '"flowlet_timeout_us":200' "$mon/fb"
}
wait_until 10 mon_done || fail "the monitors did not see the last change"
expect_eq "fa's monitor: fa's plane and route, nothing of fb's" \
	"$(grep -c 'eth-pa\|198.51.100.1/32' "$mon/fa") $(grep -c 'eth-pb\|198.51.100.2/32' "$mon/fa")" \
	"2 0"
expect_eq "fb's monitor -j: fb's plane and route, each naming fb" \
	"$(jq -rs 'map(select(.event != "config")) | map([.dev, (.plane.dev // .route.dst)] | join(":")) | join(" ")' "$mon/fb")" \
	"fb:eth-pb fb:198.51.100.2/32"
expect_eq "and its config events name fb too" \
	"$(jq -rs 'map(select(.event == "config") | .dev) | unique | join(" ")' "$mon/fb")" fb
lab_stop_pids
rm -rf "$mon"

expect_eq "fa's plane 1 is eth-pa" \
	"$(fc -d fa -j plane show | jq -r '[.[] | .dev] | join(" ")')" eth-pa
expect_eq "fb's plane 1 is eth-pb" \
	"$(fc -d fb -j plane show | jq -r '[.[] | .dev] | join(" ")')" eth-pb
expect_eq "fa's table holds its route alone" \
	"$(fc -d fa -j route show | jq -r '[.[] | .dst] | join(" ")')" \
	198.51.100.1/32
expect_eq "fb's table holds its route alone" \
	"$(fc -d fb -j route show | jq -r '[.[] | .dst] | join(" ")')" \
	198.51.100.2/32
expect_eq "the kernel routes .1 through fa" \
	"$(ip -n nf -j route show table 249 exact 198.51.100.1/32 | jq -r '.[0].dev')" fa
expect_eq "the kernel routes .2 through fb" \
	"$(ip -n nf -j route show table 249 exact 198.51.100.2/32 | jq -r '.[0].dev')" fb
expect_eq "no fare0 made" \
	"$(ip -n nf -j link show | jq '[.[] | select(.ifname == "fare0")] | length')" 0

# send DST N: N echo requests from the shared loopback address; prints how
# many leaf A and leaf B received meanwhile.
send()
{
	local a0 b0

	a0=$(rx_packets la eth-h)
	b0=$(rx_packets lb eth-h)
	ip netns exec nf ping -q -c "$2" -i 0.05 -W 1 -I 192.0.2.7 "$1" \
		>/dev/null 2>&1 || true
	echo "$(($(rx_packets la eth-h) - a0)) $(($(rx_packets lb eth-h) - b0))"
}

read -r a b <<<"$(send 198.51.100.1 20)"
expect_eq "leaf A received fa's 20 requests" $((a >= 20)) 1
expect_eq "leaf B received none of fa's" "$b" 0
read -r a b <<<"$(send 198.51.100.2 20)"
expect_eq "leaf B received fb's 20 requests" $((b >= 20)) 1
expect_eq "leaf A received none of fb's" "$a" 0
expect_eq "fa counted its packets sent" \
	$(($(ip -n nf -j -s link show fa | jq '.[0].stats64.tx.packets') >= 20)) 1

# One budget for the namespace: filled by fa's routes, it refuses fb's.
budget=$(fc -d fb -j config show | jq '.memory_budget')
used=$(fc -d fb -j config show | jq '.memory_used')
expect_eq "fb's config shows the namespace's bytes (fa's and fb's)" \
	"$(fc -d fa -j config show | jq '.memory_used')" "$used"
fc -d fa config set memory-budget "$used"
expect_refusal "a route on fb past the namespace's budget" "memory budget" \
	fc -d fb route add 198.51.100.3/32 nexthop plane 1 weight 1
# A device holds memory before its first route (its per-CPU counters, its
# flowlet table): a full budget refuses another device and a larger table.
expect_exit "a third fare device past the namespace's budget" 2 \
	"no room for another fare device" ip -n nf link add fc type fare
expect_eq "and none was made" \
	"$(ip -n nf -j link show type fare | jq -r '[.[].ifname] | join(" ")')" "fa fb"
expect_refusal "a larger flowlet table past the budget" "memory budget" \
	fc -d fb config set flowlet-slots 8192
fc -d fa config set memory-budget "$budget"
fc -d fb config set flowlet-slots 8192
expect_eq "with room, the larger table is charged" \
	$(($(fc -d fb -j config show | jq '.memory_used') - used >= 8192 * 16 / 2)) 1

# fa goes: what it held goes with it, fb keeps steering.
ip -n nf link del fa
expect_eq "fa's kernel route went with it" \
	"$(ip -n nf -j route show table 249 exact 198.51.100.1/32 | jq length)" 0
expect_refusal "fa no longer there for farectl" "no such device" \
	fc -d fa config show
expect_eq "the namespace's budget got fa's bytes back" \
	$(($(fc -d fb -j config show | jq '.memory_used') < used)) 1
# A reference fa kept would make the deletion wait for ever (the core's
# "waiting for eth-pa to become free"); the bound only has to outlast a
# loaded debug kernel (10 s did not, beside four other guests).
if timeout 120 ip -n nf link del eth-pa; then
	pass "fa's plane device deleted (fa let it go)"
else
	fail "fa's plane device still held after 120 s"
fi
expect_eq "fb keeps its plane" \
	"$(fc -d fb -j plane show | jq -r '[.[] | .dev] | join(" ")')" eth-pb
read -r a b <<<"$(send 198.51.100.2 20)"
expect_eq "leaf B still receives fb's requests" $((b >= 20)) 1
expect_eq "leaf A receives nothing" "$a" 0

# Namespace exit takes fb and all it holds (kmemleak on the debug kernel).
ip netns del nf
lab_result
