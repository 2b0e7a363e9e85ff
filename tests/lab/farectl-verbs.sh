#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The farectl verbs genl-basics.sh leaves out, against the real module:
# monitor (text and JSON, and its refusal without CAP_NET_ADMIN), config,
# stats as JSON, -batch (stopping at the line that fails, whether fare.ko,
# the kernel FIB or the parser refuses it, with nothing of the later lines
# applied), route flush, and 10k routes programmed by one -batch and
# flushed again (the time is printed, not asserted; FARE_BATCH_ROUTES=N
# programs N instead; route-dump-100k.sh programs 100k).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

load_fare
netns_add fv
ip -n fv link add eth-a type dummy
ip -n fv link add eth-b type dummy
ip -n fv addr add 10.1.0.2/24 dev eth-a
ip -n fv addr add 10.2.0.2/24 dev eth-b
ip -n fv addr add 192.0.2.7/32 dev lo
ip -n fv link set eth-a up
ip -n fv link set eth-b up

fc() { "$FARECTL" -n fv "$@"; }
work=$(mktemp -d)
LAB_CLEANUP_DIR=$work
trap 'lab_cleanup; rm -rf "$LAB_CLEANUP_DIR"' EXIT

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
kroutes() { ip -n fv -o route show table 249 proto 249 | wc -l; }
# Text, not JSON: 100k routes should not take jq's time. A farectl that
# fails prints no number (grep -c's "0" with "|| true" passed for "no
# route").
froutes()
{
	local out

	out=$(fc route show) || { echo "farectl route show failed"; return 0; }
	printf '%s' "$out" | awk '!/^[[:space:]]/ { n++ } END { print n + 0 }'
}

# ---- monitor ----
expect_exit "unprivileged monitor" 1 \
	'farectl: monitor: joining the "events" group needs CAP_NET_ADMIN' \
	nobody fv monitor

fc monitor >>"$work/mon" 2>>"$work/mon.err" &
LAB_PIDS+=($!)
fc -j monitor route config >>"$work/monj" 2>&1 &
LAB_PIDS+=($!)
# Poke until both listen: an event seen proves the subscription. They
# append, so that truncating their files below leaves no hole.
subscribed() {
	fc config set flowlet-timeout 100
	grep -q '^config set' "$work/mon" && grep -q '"event":"config"' "$work/monj"
}
wait_until 10 subscribed || fail "monitor never subscribed"
: >"$work/mon"
: >"$work/monj"

fc plane add 1 dev eth-a via 10.1.0.1
fc plane add 2 dev eth-b via 10.2.0.1 via fe80::2
fc route add 198.51.100.0/24 src 192.0.2.7 mode packet \
	nexthop plane 1 weight 3 nexthop plane 2 weight 1 tier 1
fc route replace 198.51.100.0/24 nexthop plane 2 weight 5
fc route del 198.51.100.0/24
fc config set mode flow flowlet-timeout 250 hash-seed 0x1234
ip -n fv link set eth-b down
fc plane del 2

mon_expected="plane replace 1 dev eth-a via 10.1.0.1 # up
plane replace 2 dev eth-b via 10.2.0.1 via fe80::2 # up
route replace 198.51.100.0/24 mode packet stats off nexthop plane 1 weight 3 nexthop plane 2 weight 1 tier 1
route replace 198.51.100.0/24 stats off nexthop plane 2 weight 5
route del 198.51.100.0/24
config set mode flow flowlet-timeout 250 hash-seed 0x00001234 tier-hops 3,4,6 spill-bias 65536 use-neigh on
plane replace 2 dev eth-b via 10.2.0.1 via fe80::2 # down
plane del 2"
mon_complete() { [ "$(wc -l <"$work/mon")" -ge 8 ]; }
wait_until 10 mon_complete || true
expect_eq "monitor text, every event in order" "$(cat "$work/mon")" \
	"$mon_expected"
monj_complete() { [ "$(wc -l <"$work/monj")" -ge 4 ]; }
wait_until 10 monj_complete || true
expect_eq "monitor -j route config: one object a line, planes filtered" \
	"$(jq -c '[.event, (.route.dst // .config.mode), (.route.nexthops // [] | map(.weight))]' "$work/monj" | tr '\n' ' ')" \
	'["route_new","198.51.100.0/24",[3,1]] ["route_new","198.51.100.0/24",[5]] ["route_del","198.51.100.0/24",[]] ["config","flow",[]] '
expect_empty "monitor reported no loss" "$(cat "$work/mon.err")"
lab_stop_pids

# The monitor's lines replay as a batch in another namespace.
netns_add fv2
ip -n fv2 link add eth-a type dummy
ip -n fv2 link add eth-b type dummy
ip -n fv2 link set eth-a up
ip -n fv2 link set eth-b up
"$FARECTL" -n fv2 -batch "$work/mon"
expect_eq "monitor output replayed by -batch" \
	"$("$FARECTL" -n fv2 config show | cut -d' ' -f1-6)" \
	"mode flow flowlet-timeout 250 hash-seed 0x00001234"
expect_eq "replayed planes" "$("$FARECTL" -n fv2 -j plane show | jq -c 'map(.id)')" "[1]"

# ---- config ----
expect_eq "config show -j" \
	"$(fc -j config show | jq -c '[.mode, .flowlet_timeout_us, .hash_seed, .dev]')" \
	'["flow",250,4660,"fare0"]'
expect_exit "config usage error" 2 \
	"farectl: config set: flowlet-timeout 0 out of range (1..10000000) at argument 6" \
	fc config set flowlet-timeout 0
expect_exit "unprivileged config set" 1 "Operation not permitted" \
	nobody fv config set mode packet
fc config set mode packet

# ---- stats -j ----
fc plane add 2 dev eth-b via 10.2.0.1
ip -n fv link set eth-b up
fc route add 203.0.113.0/24 nexthop plane 1 weight 1 nexthop plane 2 weight 3
expect_eq "stats -j members" "$(fc -j stats | jq -c 'keys')" \
	'["drops","planes","routes","tiers"]'
expect_eq "stats -j drops" "$(fc -j stats | jq -c '.drops | keys')" \
	'["error_packets","fallback_packets","noplane_packets","noroute_packets"]'
expect_eq "stats -j planes" \
	"$(fc -j stats | jq -c '[.planes[] | [.id, .dev, .up, .share]]')" \
	'[[1,"eth-a",true,null],[2,"eth-b",true,null]]'
expect_eq "stats -j routes" \
	"$(fc -j stats | jq -c '[.routes[] | [.dst, [.nexthops[].share]]]')" \
	'[["203.0.113.0/24",[0.25,0.75]]]'
# A plane changing while stats reads the planes interrupts that dump
# (NLM_F_DUMP_INTR): farectl reads it again rather than fail.
(
	while [ ! -e "$work/churn.stop" ]; do
		fc plane replace 1 dev eth-a via 10.1.0.9
		fc plane replace 1 dev eth-a via 10.1.0.1
	done
) &
churn=$!
fails=0
for i in $(seq 1 300); do
	fc -j stats >/dev/null 2>>"$work/churn.err" || fails=$((fails + 1))
done
touch "$work/churn.stop"
wait "$churn"
[ "$fails" -eq 0 ] || log "stats under plane churn: $(sort -u "$work/churn.err")"
expect_eq "stats under plane churn: failures of 300" "$fails" 0

# ---- batch: errors stop it at their line ----
cat >"$work/b1" <<EOF
# two good lines around a bad one
route add 10.10.0.0/16 nexthop plane 1 weight 1
route add 10.11.0.0/16 nexthop plane 9 weight 1
route add 10.12.0.0/16 nexthop plane 2 weight 1
route replace 203.0.113.0/24 nexthop plane 1 weight 9
route del 203.0.113.0/24
EOF
expect_exit "batch refused by fare.ko" 1 \
	"farectl: $work/b1:3: route add: no such plane" fc -batch "$work/b1"
expect_eq "lines before the failure applied" \
	"$(fc -j route show 10.10.0.0/16 | jq -r '.[0].dst')" 10.10.0.0/16
expect_eq "no later line applied (fare)" \
	"$(fc -j route show | jq -c '[.[].dst] | sort')" \
	'["10.10.0.0/16","203.0.113.0/24"]'
expect_eq "no later line applied (replace undone)" \
	"$(fc -j route show 203.0.113.0/24 | jq -c '[.[0].nexthops[].weight]')" \
	'[1,3]'
expect_eq "no later line applied (kernel routes)" \
	"$(ip -n fv -j route show table 249 proto 249 | jq -c '[.[].dst] | sort')" \
	'["10.10.0.0/16","203.0.113.0/24"]'

printf '%s\n' \
	"route add 10.20.0.0/16 src 192.0.2.7 nexthop plane 1 weight 1" \
	"route add 10.21.0.0/16 src 192.0.2.99 nexthop plane 1 weight 1" \
	"route add 10.22.0.0/16 nexthop plane 2 weight 1" >"$work/b2"
expect_exit "batch refused by the kernel FIB" 1 \
	"farectl: $work/b2:2: route add: installing the kernel route 10.21.0.0/16 dev fare0 proto 249" \
	fc -batch "$work/b2"
expect_eq "FIB refusal: fare and FIB agree" \
	"$(fc -j route show | jq -c '[.[].dst] | sort') $(ip -n fv -j route show table 249 proto 249 | jq -c '[.[].dst] | sort')" \
	'["10.10.0.0/16","10.20.0.0/16","203.0.113.0/24"] ["10.10.0.0/16","10.20.0.0/16","203.0.113.0/24"]'
expect_eq "the line before kept its src" \
	"$(ip -n fv -j route show table 249 10.20.0.0/16 proto 249 | jq -r '.[0].prefsrc')" 192.0.2.7

# A del whose kernel route is already gone is no failure; a refusal after
# it is reported with its own cause, not the del's "No such process".
fc route add 10.40.0.0/16 nexthop plane 1 weight 1
ip -n fv route del 10.40.0.0/16 table 249 proto 249
printf '%s\n' "route del 10.40.0.0/16" \
	"route add 10.41.0.0/16 src 192.0.2.99 nexthop plane 1 weight 1" >"$work/b3"
expect_exit "FIB refusal after a del of a gone kernel route: its own cause" 1 \
	"farectl: $work/b3:2: route add: installing the kernel route 10.41.0.0/16 dev fare0 proto 249: Invalid prefsrc address" \
	fc -batch "$work/b3"
expect_eq "the del before the refusal applied, the refused add not" \
	"$(fc -j route show | jq -c '[.[].dst | select(startswith("10.4"))]') $(ip -n fv -j route show table 249 proto 249 | jq -c '[.[].dst | select(startswith("10.4"))]')" \
	'[] []'

expect_exit "batch usage error from stdin" 1 \
	"farectl: <stdin>:2: route del: invalid prefix \"10.10.0.1/16\": host bits set beyond the prefix length at argument 3" \
	fc -batch - <<EOF
route del 10.20.0.0/16
route del 10.10.0.1/16
route del 10.10.0.0/16
EOF
expect_eq "usage error: earlier lines applied, later not" \
	"$(fc -j route show | jq -c '[.[].dst] | sort')" \
	'["10.10.0.0/16","203.0.113.0/24"]'
expect_exit "batch: plane line refused with its line" 1 \
	"farectl: <stdin>:1: plane add: plane already exists (use replace)" \
	fc -batch - <<<"plane add 1 dev eth-a via 10.1.0.1"
expect_exit "batch: missing file" 1 \
	"farectl: cannot open batch file \"$work/none\": No such file or directory" \
	fc -batch "$work/none"
expect_exit "batch: monitor refused" 1 \
	"farectl: <stdin>:1: monitor cannot run in a batch" \
	fc -batch - <<<"monitor"
expect_eq "batch: show lines print" \
	"$(printf 'config set mode flow\nconfig show\n' | fc -j -batch - | jq -r .mode)" \
	flow

# ---- route flush ----
[ "$(ip -n fv nexthop show protocol 249 | grep -c ' group ' || true)" -gt 0 ] ||
	fail "before the flush: no plane route group"
fc route flush
expect_eq "flush: no fare route" "$(froutes)" 0
expect_eq "flush: no kernel route" "$(kroutes)" 0
expect_eq "flush: no plane route group left" \
	"$(ip -n fv nexthop show protocol 249 | grep -c ' group ' || true)" 0
fc route flush
pass "flush of nothing succeeds"
expect_exit "unprivileged flush" 1 "Operation not permitted" \
	nobody fv route add 10.30.0.0/16 nexthop plane 1 weight 1

# ---- 10k routes in one batch ----
n=${FARE_BATCH_ROUTES:-10000}
awk -v n=$n 'BEGIN {
	for (i = 0; i < n; i++)
		printf "route add 10.%d.%d.%d/32 src 192.0.2.7 nexthop plane 1 weight 3 nexthop plane 2 weight 1\n",
			int(i / 65536) + 100, int(i / 256) % 256, i % 256
}' >"$work/big"
t0=$(date +%s.%N)
fc -batch "$work/big"
t1=$(date +%s.%N)
log "TIMING: $n routes by one -batch in $(elapsed "$t0" "$t1") s on $(uname -r) ($(nproc) CPUs)"
expect_eq "$n routes: fare routes" "$(froutes)" $n
expect_eq "$n routes: kernel routes" "$(kroutes)" $n
log "counted in $(elapsed "$t1" "$(date +%s.%N)") s"
last=$((n - 1))
last=10.$((last / 65536 + 100)).$((last / 256 % 256)).$((last % 256))/32
expect_eq "$n routes: the last route reads back" \
	"$(fc -j route show $last | jq -c '[.[0].nexthops[].weight]')" '[3,1]'
t0=$(date +%s.%N)
fc route flush
t1=$(date +%s.%N)
log "TIMING: flush of $n routes in $(elapsed "$t0" "$t1") s"
expect_eq "$n flushed: fare routes" "$(froutes)" 0
expect_eq "$n flushed: kernel routes" "$(kroutes)" 0

# ---- a refusal in the middle of a run of many steps ----
# libfare hands the kernel FIB each step of 128 routes that fare.ko took
# while it sends fare.ko the next ones (from a second thread): a refusal
# on either side, mid-run, must leave exactly the lines before it, on both
# sides, however far the other side had got.
# big_batch LINE SRC NH: 1500 route adds; line LINE has src SRC and NH.
big_batch()
{
	awk -v bad="$1" -v src="$2" -v nh="$3" 'BEGIN {
		for (i = 1; i <= 1500; i++)
			printf "route add 10.%d.%d.0/24 src %s %s\n",
				100 + int(i / 256), i % 256,
				i == bad ? src : "192.0.2.7",
				i == bad ? nh : "nexthop plane 1 weight 1 nexthop plane 2 weight 1"
	}' >"$work/mid"
}
for bad in 700 1500; do
	big_batch $bad 192.0.2.7 "nexthop plane 9 weight 1"
	expect_exit "line $bad of 1500 refused by fare.ko" 1 \
		"farectl: $work/mid:$bad: route add: no such plane" \
		fc -batch "$work/mid"
	expect_eq "fare.ko refused line $bad: lines before it, both sides" \
		"$(froutes) $(kroutes)" "$((bad - 1)) $((bad - 1))"
	fc route flush
	big_batch $bad 192.0.2.99 "nexthop plane 1 weight 1"
	expect_exit "line $bad of 1500 refused by the kernel FIB" 1 \
		"farectl: $work/mid:$bad: route add: installing the kernel route 10.$((100 + bad / 256)).$((bad % 256)).0/24 dev fare0 proto 249" \
		fc -batch "$work/mid"
	expect_eq "the FIB refused line $bad: lines before it, both sides" \
		"$(froutes) $(kroutes)" "$((bad - 1)) $((bad - 1))"
	last=$((bad - 1))
	expect_eq "the FIB refused line $bad: line $last kept its src" \
		"$(ip -n fv -j route show table 249 10.$((100 + last / 256)).$((last % 256)).0/24 proto 249 | jq -r '.[0].prefsrc')" \
		192.0.2.7
	fc route flush
done
expect_eq "refusals mid-run: nothing left after the flushes" \
	"$(froutes) $(kroutes)" "0 0"

lab_result
