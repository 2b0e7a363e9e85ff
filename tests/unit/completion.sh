#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# farectl's bash completion, without a kernel: each case completes a
# command line and compares the candidates. farectl itself is replaced by
# a stub that prints two planes and two routes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../userspace/farectl/farectl.bash-completion
. "$here/../../userspace/farectl/farectl.bash-completion"

stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
cat >"$stub/farectl" <<'STUB'
#!/bin/bash
case "$*" in
*"plane show") printf 'plane 1 dev eth-a via 10.1.0.1 up tx 0 packets 0 bytes\nplane 7 dev eth-b via 10.2.0.1 down tx 0 packets 0 bytes\n' ;;
*"route show") printf '10.0.0.0/24 mode packet\n\tnexthop plane 1 weight 1 tier 0 share 100.0%% actual - packets 0 bytes 0\n2001:db8::/32 mode flow\n' ;;
esac
STUB
chmod +x "$stub/farectl"

passed=0
failed=0

# expect "LINE" "CANDIDATES": complete the last word of LINE ("" after a
# trailing space) and compare the sorted candidates.
expect()
{
	local line=$1 want=$2 got

	read -r -a COMP_WORDS <<<"$line"
	[ "${line: -1}" = " " ] && COMP_WORDS+=("")
	COMP_WORDS[0]=$stub/farectl
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_farectl
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	got=${got% }
	if [ "$got" = "$want" ]; then
		echo "ok   completion: '$line' -> $got"
		passed=$((passed + 1))
	else
		echo "FAIL completion: '$line' -> '$got', not '$want'"
		failed=$((failed + 1))
	fi
}

expect "farectl " "config group help monitor plane route stats"
expect "farectl -j r" "route"
expect "farectl --" "--batch --dev --help --json --netns --pretty"
expect "farectl -d fx route " "add del flush help pick replace show"
expect "farectl route " "add del flush help pick replace show"
expect "farectl -n h1 route del " "10.0.0.0/24 2001:db8::/32"
expect "farectl plane del " "1 7"
expect "farectl plane add 3 d" "dev"
expect "farectl route add 10.0.0.0/8 " "group mode nexthop src stats"
expect "farectl route add 10.0.0.0/8 mode " "default flow flowlet packet"
expect "farectl route add 10.0.0.0/8 nexthop " "plane"
expect "farectl route add 10.0.0.0/8 nexthop plane " "1 7"
expect "farectl route add 10.0.0.0/8 nexthop plane 1 " "weight"
expect "farectl route add 10.0.0.0/8 nexthop plane 1 weight 3 " "bandwidth mode nexthop src stats tier"
expect "farectl config set " "flowlet-slots flowlet-timeout group-limit hash-seed memory-budget mode nexthop-limit plane-limit route-limit route-stats spill-bias tier-hops use-neigh"
expect "farectl config set mode " "flow flowlet packet"
expect "farectl monitor " "all config group help plane route"
expect "farectl monitor route " "config group plane route"
expect "farectl stats " "help show"
expect "farectl group " "add del help replace set show"
expect "farectl route add 10.0.0.0/8 stats " "off on"

echo "completion: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
