#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a
# bounded time, starting from its seed corpus in corpus/NAME/.
#
#   tests/fuzz/run.sh [SECONDS]      default 60 per target
#
# Needs clang and libclang-rt (Debian: clang-14 libclang-rt-14-dev).
# New inputs go to a scratch corpus, not the seeds; a crash leaves its
# input in $OUT/NAME/ and makes the script fail.
set -euo pipefail

SECONDS_PER_TARGET=${1:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUT=${FUZZ_OUT:-$TOP/tests/fuzz/out}
CLANG=${CLANG:-$(command -v clang-14 || command -v clang || true)}

[ -n "$CLANG" ] || { echo "fuzz: clang not found" >&2; exit 1; }

FLAGS=(-std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -I"$TOP/userspace/fared/bgp"
       -I"$TOP/userspace/fared" -I"$TOP/uapi" -I"$TOP/userspace/lib")

declare -A SOURCES=(
	[bgp_msg]="$TOP/userspace/fared/bgp/msg.c $TOP/userspace/fared/bgp/update.c"
	[fared_config]="$TOP/userspace/fared/config.c $TOP/userspace/fared/fare_ec.c $TOP/userspace/fared/fare_policy.c $TOP/userspace/fared/tier.c $TOP/userspace/fared/bgp/msg.c $TOP/userspace/fared/bgp/update.c"
)

mkdir -p "$OUT"
status=0
for name in "${!SOURCES[@]}"; do
	bin=$OUT/fuzz_$name
	# shellcheck disable=SC2086
	"$CLANG" "${FLAGS[@]}" -o "$bin" "$HERE/fuzz_$name.c" ${SOURCES[$name]}
	work=$OUT/$name
	mkdir -p "$work/corpus"
	echo "fuzz: $name for ${SECONDS_PER_TARGET}s"
	if ! (cd "$work" && "$bin" -max_total_time="$SECONDS_PER_TARGET" \
		-print_final_stats=1 "$work/corpus" "$HERE/corpus/$name" \
		>"$work/log" 2>&1); then
		echo "fuzz: $name FAILED; see $work/log" >&2
		tail -n 40 "$work/log" >&2
		status=1
	else
		grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' \
			"$work/log" | sed "s/^/fuzz: $name: /"
	fi
done
exit $status
