#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds fare.ko (and the KUnit module) for one kernel as `make module`
# does, with W=1 and sparse (C=2: every file, built or not), and fails on
# any warning either prints: the kernel build itself stops only on errors.
#
# usage: tests/module-check.sh KDIR
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -eq 1 ] || { echo "usage: $0 KDIR" >&2; exit 2; }
command -v sparse >/dev/null ||
	{ echo "module-check: sparse is not installed (tests/deps.sh)" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
make module KDIR="$1" C=2 2>&1 | tee "$log"
if grep -E '(warning|error):' "$log" >/dev/null; then
	echo "module-check: $1: the warnings above (W=1, sparse)" >&2
	exit 1
fi
echo "module-check: $1: W=1 and sparse clean"
