#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Route dumps resume correctly across many netlink messages: 100k routes,
# IPv4 /32 and IPv6 /128 interleaved, 1 to 4 next hops each with their own
# weights, tiers and modes, programmed by one -batch. `farectl -j route
# show` must list each exactly once with what was installed, over many
# recvmsg calls (counted with strace).
#
# Then a dump is held between two of its messages (farectl blocked writing
# into a full pipe) while the first 5000 routes (the first in the dump's
# key order too), which hold the dump's resume point, and every tenth
# route after them are deleted and 5000 new routes added; once released,
# the dump must list every untouched route exactly once and no route
# twice, and be marked interrupted (NLM_F_DUMP_INTR, which farectl
# reports); a dump after it lists exactly what is there.
# FARE_DUMP_ROUTES=N installs N instead (N >= 20000, so that the held part
# lies inside the deleted head).
set -euo pipefail
export LC_ALL=C
. "$(dirname "$0")/lib.sh"

N=${FARE_DUMP_ROUTES:-100000}
HEAD=5000

load_fare
netns_add rd v6
for i in 1 2 3 4; do
	ip -n rd link add d$i type dummy
	ip -n rd addr add 10.$i.0.2/24 dev d$i
	ip -n rd link set d$i up
	"$FARECTL" -n rd plane add $i dev d$i via 10.$i.0.1 via fe80::1
done

work=$(mktemp -d)
trap 'lab_cleanup; rm -rf "$work"' EXIT
fc() { "$FARECTL" -n rd "$@"; }

# gen FIRST COUNT: "route add" lines for routes FIRST.. to $work/batch and
# the expected dump lines ("DST MODE PLANE:WEIGHT:TIER ...") to
# $work/expect. Route i is IPv6 when i % 3 == 2; it has 1 + i % 4 next hops.
gen()
{
	awk -v first="$1" -v n="$2" -v batch="$work/batch" -v expf="$work/expect" 'BEGIN {
		split("default packet flow", modes, " ")
		for (i = first; i < first + n; i++) {
			if (i % 3 == 2)
				dst = sprintf("2001:db8:%x:%x::1/128",
					      256 + int(i / 32768), 32768 + i % 32768)
			else
				dst = sprintf("10.%d.%d.%d/32", 100 + int(i / 65536),
					      int(i / 256) % 256, i % 256)
			mode = modes[1 + int(i / 3) % 3]
			line = "route add " dst " mode " mode
			e = dst " " mode
			for (p = 1; p <= 1 + i % 4; p++) {
				w = 1 + (i * 7 + p * 13) % 1000
				t = p == 4 ? 1 : 0
				line = line " nexthop plane " p " weight " w " tier " t
				e = e " " p ":" w ":" t
			}
			print line > batch
			print e > expf
		}
	}'
}

# The dump's routes as expected lines, sorted. Python, not jq: jq takes a
# minute over 100k routes in an emulated guest.
dumped()
{
	python3 -S -c 'import json, sys
for r in json.load(open(sys.argv[1])):
	print(r["dst"], r["mode"], *("%d:%d:%d" % (n["plane"], n["weight"],
		n["tier"]) for n in r["nexthops"]))' "$1" | sort
}

# check NAME DUMPED EXPECTED: every expected line exactly once in DUMPED.
check()
{
	local dups missing

	dups=$(cut -d' ' -f1 "$2" | uniq -d | wc -l)
	missing=$(comm -13 "$2" "$3" | wc -l)
	expect_eq "$1: prefixes listed twice" "$dups" 0
	expect_eq "$1: installed routes missing or different" "$missing" 0
	if [ "$missing" -ne 0 ]; then
		comm -13 "$2" "$3" | sed -n 1,3p | sed 's/^/lab:   missing: /'
	fi
}

# ---- 100k routes, one dump ----
gen 0 "$N"
t0=$SECONDS
fc -batch "$work/batch"
log "$N routes programmed in $((SECONDS - t0)) s"
sort "$work/expect" >"$work/all"

t0=$SECONDS
strace -f --seccomp-bpf -e trace=recvmsg -o "$work/strace" \
	"$FARECTL" -n rd -j route show >"$work/dump.json"
log "dumped in $((SECONDS - t0)) s"
t0=$SECONDS
dumped "$work/dump.json" >"$work/got"
log "parsed and sorted in $((SECONDS - t0)) s"
check "full dump" "$work/got" "$work/all"
expect_eq "full dump: routes listed" "$(wc -l <"$work/got")" "$N"
# farectl's socket sees the family lookup, then one recvmsg per batch of
# route messages the kernel filled, then NLMSG_DONE.
msgs=$(grep -c 'recvmsg(.*= [1-9]' "$work/strace" || true)
if [ "$msgs" -ge $((N / 1000)) ]; then
	pass "the dump spanned $msgs recvmsg calls"
else
	fail "the dump spanned only $msgs recvmsg calls (expected >= $((N / 1000)))"
fi

# ---- a dump held while routes change ----
awk -v h=$HEAD '{ i = NR - 1 } i < h || i % 10 == 5 { print "route del", $1; next }
	{ print > "/dev/stderr" }' "$work/expect" >"$work/churn" 2>"$work/kept"
gen "$N" "$HEAD"
cat "$work/batch" >>"$work/churn"
sort -o "$work/kept" "$work/kept"

mkfifo "$work/go"
{
	rc=0
	"$FARECTL" -n rd -j route show 2>"$work/held.err" || rc=$?
	echo $rc >"$work/held.rc"
} | { read -r _ <"$work/go"; cat; } >"$work/held.json" &
LAB_PIDS+=($!)
# farectl (the pipe's writer) blocks in pipe_write once the pipe is full.
held() {
	local pid

	for pid in $(pgrep -x farectl); do
		[ "$(cat /proc/$pid/wchan 2>/dev/null)" = pipe_write ] && return 0
	done
	return 1
}
if wait_until 30 held; then
	pass "dump held between messages"
else
	fail "the dump never blocked on its pipe"
fi
t0=$SECONDS
fc -batch "$work/churn"
log "changes applied in $((SECONDS - t0)) s"
echo go >"$work/go"
wait
dumped "$work/held.json" >"$work/got"
check "held dump" "$work/got" "$work/kept"
log "held dump listed $(wc -l <"$work/got") routes ($(wc -l <"$work/kept") untouched)"
# The kernel marked it NLM_F_DUMP_INTR, and farectl says so.
expect_eq "held dump: farectl's exit status" "$(cat "$work/held.rc")" 1
expect_eq "held dump: reported as interrupted" \
	"$(grep -c 'the dump was interrupted by a change' "$work/held.err")" 1

# A dump that nothing interrupts lists exactly what is there.
"$FARECTL" -n rd -j route show >"$work/after.json"
dumped "$work/after.json" >"$work/got"
sort -m "$work/kept" <(sort "$work/expect") >"$work/now"
check "dump after the changes" "$work/got" "$work/now"
expect_eq "dump after the changes: routes listed" "$(wc -l <"$work/got")" \
	"$(wc -l <"$work/now")"

lab_result
