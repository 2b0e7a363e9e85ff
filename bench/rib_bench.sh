#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds fared's library and runs the RIB benchmark: bench/rib_bench.sh [N...]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$top/userspace/fared" "$top/userspace/fared/build/libfared.a"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -std=gnu11 -Wall -Wextra -Werror -O2 -g -I"$top/userspace/fared" \
	-I"$top/userspace/fared/bgp" -I"$top/userspace/lib" -I"$top/uapi" -o "$out/rib_bench" "$top/bench/rib_bench.c" \
	"$top/userspace/fared/build/libfared.a" -lm
"$out/rib_bench" "$@"
