#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The per-neighbor log rate limit (issue 26 §1 item 9): a flood of
# malformed UPDATEs (each treat-as-withdraw, RFC 7606) costs a bounded
# number of log lines. fared is a spine, under valgrind; the raw peer (R4)
# sends 2,000 UPDATEs with a malformed ORIGIN. fared's log must hold at
# most the bucket's 10 lines plus one per 6 s the flood could have lasted,
# and "N similar messages suppressed" summaries that account for every
# other UPDATE (lines + suppressed = 2,000, what the raw peer sent); the
# session stays up and BIRD still gets what fared originates.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

N=2000
BURST=10
REFILL_S=6
fared_under_valgrind
setup_net
raw_spine_conf
raw_spine_bird fared4 leaf
started=$(date +%s)
hostile_bg badflood $N
wait_for 20 "the raw peer Established" fared_established $R4
malformed_lines() { grep -c "neighbor $R4 .*RFC 7606 treat-as-withdraw" "$FARED_LOG"; }
suppressed_sum()
{
	sed -n "s/.*neighbor $R4 .*: \([0-9]*\) similar messages\? suppressed.*/\1/p" \
		"$FARED_LOG" | awk '{ s += $1 } END { print s + 0 }'
}
all_accounted() { [ $(($(malformed_lines) + $(suppressed_sum))) -ge $N ]; }
wait_for 60 "every malformed UPDATE logged or counted in a summary" all_accounted
elapsed=$(($(date +%s) - started))
lines=$(malformed_lines)
sum=$(suppressed_sum)
echo "log: $lines lines, $sum suppressed, within ${elapsed} s"
[ $((lines + sum)) -eq $N ] ||
	fail "$lines lines + $sum suppressed is not the $N UPDATEs sent"
[ "$lines" -le $((BURST + elapsed / REFILL_S + 1)) ] ||
	fail "$lines log lines for $N malformed UPDATEs in ${elapsed} s"
echo "ok: $N malformed UPDATEs cost $lines log lines and a summary"
fared_established $R4 || fail "the raw peer's session dropped"
[ "$(fared_field $R4 treat_as_withdraw)" -ge $N ] ||
	fail "fared did not count every malformed UPDATE"
echo "ok: the session stays up"
hostile_stop
stop_fared_clean
echo "ok: under valgrind, no error, no leak"
