#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The YNL spec against the real module: the kernel's own ynl library
# (tools/net/ynl from linux-source-6.12; its CLI for the first request and
# a refusal, then the same library in one process, ynl-batch.py) drives
# fare.ko through Documentation/netlink/specs/fare.yaml alone. Every do
# and dump it makes must be accepted (the family validates strictly) and
# read back the same through farectl, and farectl's changes must read
# back the same through ynl, events included.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LAB_DIR=$(mktemp -d /tmp/ynl.XXXXXX)
SPEC=$FARE_ROOT/Documentation/netlink/specs/fare.yaml
tree=$("$FARE_ROOT/tests/ynl/ynl-tree")

load_fare
netns_add yn
# IPv6 on, for the IPv6 route's kernel route (fare0 inherits the default).
ip netns exec yn sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
	net.ipv6.conf.default.disable_ipv6=0
ip -n yn link add eth-a type dummy
ip -n yn link add eth-b type dummy
ip -n yn link set eth-a up
ip -n yn link set eth-b up
ifa=$(ip -n yn -j link show eth-a | jq '.[0].ifindex')
ifb=$(ip -n yn -j link show eth-b | jq '.[0].ifindex')

fc() { "$FARECTL" -n yn "$@"; }
# Debian's python3 with python3-yaml. --no-schema: tests/ynl/validate.sh
# (run-all's ynl-spec step) validates the spec against the kernel's schema
# once, on the host.
ynl_cli()
{
	ip netns exec yn /usr/bin/python3 "$tree/tools/net/ynl/cli.py" \
		--spec "$SPEC" --no-schema --output-json "$@"
}

# ynl --do|--dump OP [--json JSON]: the same request through the same
# library in one Python process for the whole scenario (ynl-batch.py):
# the CLI's start and the spec's parse took seconds a call in TCG, most of
# this scenario's time. Prints what the CLI prints; 1 on a netlink error.
mkfifo "$LAB_DIR/ynl.req" "$LAB_DIR/ynl.rep"
ip netns exec yn /usr/bin/python3 "$FARE_ROOT/tests/lab/ynl-batch.py" \
	"$tree" "$SPEC" <"$LAB_DIR/ynl.req" >"$LAB_DIR/ynl.rep" &
LAB_PIDS+=("$!")
exec 7>"$LAB_DIR/ynl.req" 8<"$LAB_DIR/ynl.rep"
ynl()
{
	local kind=${1#--} op=$2 attrs='{}' reply

	[ "${3:-}" != --json ] || attrs=$4
	printf '{"%s": "%s", "attrs": %s}\n' "$kind" "$op" "$attrs" >&7
	IFS= read -r reply <&8 || { echo "ynl-batch: no reply"; return 2; }
	case $reply in
	"ERROR "*) echo "${reply#ERROR }"; return 1 ;;
	esac
	echo "$reply"
}

# do: planes and a route with nested next hops, as ynl encodes them (the
# first through the CLI itself)
ynl_cli --do plane-new --json "{\"plane-id\": 1, \"plane-ifindex\": $ifa, \"plane-gw4\": \"0a010001\"}" >/dev/null
ynl --do plane-new --json "{\"plane-id\": 2, \"plane-ifindex\": $ifb, \"plane-gw6\": \"fe800000000000000000000000000002\"}" >/dev/null
expect_eq "ynl plane-new read by farectl" \
	"$(fc -j plane show | jq -c '[.[] | [.id, .dev, .gw4, .gw6]]')" \
	'[[1,"eth-a","10.1.0.1",null],[2,"eth-b",null,"fe80::2"]]'
ynl --do route-new --json '{"route-family": 2, "route-dst": "c6336400", "route-plen": 24, "route-mode": "flow", "route-nexthops": {"entry": [{"plane-id": 1, "weight": 3}, {"plane-id": 2, "weight": 4000000000, "tier": 1}]}}' >/dev/null
expect_eq "ynl route-new read by farectl" \
	"$(fc -j route show 198.51.100.0/24 | jq -c '.[0] | [.mode, [.nexthops[] | [.plane, .weight, .tier]]]')" \
	'["flow",[[1,3,0],[2,4000000000,1]]]'

# dump: what farectl made, as ynl decodes it
# With counters of its own (off by default): route-get reads them.
fc route add 2001:db8::/32 stats on nexthop plane 2 weight 7
expect_eq "ynl dump plane-get" \
	"$(ynl --dump plane-get | jq -c '[.[] | [.["plane-id"], .["plane-ifindex"], .["plane-gw4"], .["plane-gw6"], .["plane-flags"]]]')" \
	"[[1,$ifa,\"10.1.0.1\",null,[\"oper-up\"]],[2,$ifb,null,\"fe80::2\",[\"oper-up\"]]]"
expect_eq "ynl dump route-get" \
	"$(ynl --dump route-get | jq -c '[.[] | [.["route-family"], .["route-dst"], .["route-plen"], .["route-mode"], [.["route-nexthops"].entry[] | .weight]]]')" \
	'[[2,"c6336400",24,"flow",[3,4000000000]],[10,"20010db8000000000000000000000000",32,"default",[7]]]'
expect_eq "ynl do route-get" \
	"$(ynl --do route-get --json '{"route-family": 10, "route-dst": "20010db8000000000000000000000000", "route-plen": 32}' | jq -c '[.["route-nexthops"].entry[] | [.["plane-id"], .tier, .["tx-packets"]]]')" \
	'[[2,0,0]]'
expect_eq "ynl do plane-get" \
	"$(ynl --do plane-get --json '{"plane-id": 2}' | jq -c '[.["plane-id"], .["plane-tx-packets"], .["plane-tx-bytes"]]')" \
	'[2,0,0]'

# config and stats, both ways
expect_eq "ynl do config-get" \
	"$(ynl --do config-get | jq -c '[.["config-mode"], .["config-flowlet-us"], .["config-ifindex"]]')" \
	"[\"packet\",100,$(ip -n yn -j link show fare0 | jq '.[0].ifindex')]"
ynl --do config-set --json '{"config-mode": "flow", "config-hash-seed": 4660}' >/dev/null
expect_eq "ynl config-set read by farectl" \
	"$(fc -j config show | jq -c '[.mode, .hash_seed]')" '["flow",4660]'
expect_eq "ynl do stats-get" \
	"$(ynl --do stats-get | jq -c 'keys')" \
	'["stats-error-packets","stats-fallback-packets","stats-noplane-packets","stats-noroute-packets","stats-tiers"]'
expect_eq "ynl do stats-get: a counter entry per tier" \
	"$(ynl --do stats-get | jq -c '[.["stats-tiers"].entry[].index]')" \
	'[0,1,2,3,4,5,6,7]'
ynl --do config-set --json '{"config-tier-hops": "0305", "config-spill-bias": 1000}' >/dev/null
expect_eq "ynl config-set tier hops and bias read by farectl" \
	"$(fc -j config show | jq -c '[.tier_hops, .spill_bias]')" '[[3,5],1000]'

# the replace flag, and a refusal with its extack text
ynl --do plane-new --json "{\"plane-id\": 1, \"plane-ifindex\": $ifa, \"plane-gw4\": \"0a010009\", \"replace\": true}" >/dev/null
expect_eq "ynl replace flag" "$(fc -j plane show 1 | jq -r '.[0].gw4')" 10.1.0.9
for cmd in ynl_cli ynl; do
	rc=0
	out=$($cmd --do plane-new --json "{\"plane-id\": 1, \"plane-ifindex\": $ifa, \"plane-gw4\": \"0a010001\"}" 2>&1) || rc=$?
	if [ $rc -eq 1 ] && grep -qF "plane already exists (use replace)" <<<"$out"; then
		pass "$cmd: the refusal carries the extack text"
	else
		fail "$cmd refusal: exit $rc, output: $out"
	fi
done

# Refusals farectl's own parser would catch first, sent raw to fare.ko:
# the kernel's policy and handlers name the problem themselves.
ynl_refusal()
{
	local name=$1 text=$2 json=$3 out rc=0

	out=$(ynl --do route-new --json "$json" 2>&1) || rc=$?
	if [ $rc -ne 0 ] && grep -qiF -- "$text" <<<"$out"; then
		pass "$name refused: $(grep -iF -- "$text" <<<"$out" | head -n 1)"
	else
		fail "$name: exit $rc, output: $out (expected: $text)"
	fi
}
ynl_refusal "weight 0" "integer out of range" \
	'{"route-family": 2, "route-dst": "c6336500", "route-plen": 24, "route-nexthops": {"entry": [{"plane-id": 1, "weight": 0}]}}'
ynl_refusal "IPv4 /33" "prefix length too long for the family" \
	'{"route-family": 2, "route-dst": "c6336500", "route-plen": 33, "route-nexthops": {"entry": [{"plane-id": 1, "weight": 1}]}}'
ynl_refusal "IPv4 prefix of 16 bytes" "destination length does not match the family" \
	'{"route-family": 2, "route-dst": "20010db8000000000000000000000000", "route-plen": 24, "route-nexthops": {"entry": [{"plane-id": 1, "weight": 1}]}}'
ynl_refusal "unknown plane" "no such plane" \
	'{"route-family": 2, "route-dst": "c6336500", "route-plen": 24, "route-nexthops": {"entry": [{"plane-id": 77, "weight": 1}]}}'

# The flowlet table's size, raw: a size farectl would refuse is refused by
# fare.ko with its own text, and one it takes reads back through farectl.
for c in "3000:flowlet table size must be a power of two" \
	 "128:integer out of range" "8388608:integer out of range"; do
	rc=0
	out=$(ynl --do config-set --json "{\"config-flowlet-slots\": ${c%%:*}}" 2>&1) || rc=$?
	if [ $rc -ne 0 ] && grep -qiF -- "${c#*:}" <<<"$out"; then
		pass "flowlet-slots ${c%%:*} refused: ${c#*:}"
	else
		fail "flowlet-slots ${c%%:*}: exit $rc, output: $out (expected: ${c#*:})"
	fi
done
ynl --do config-set --json '{"config-flowlet-slots": 16384}' >/dev/null
expect_eq "ynl config-set flowlet-slots read by farectl" \
	"$(fc -j config show | jq -c .flowlet_slots)" 16384
expect_eq "and read back by ynl" \
	"$(ynl --do config-get | jq -c '.["config-flowlet-slots"]')" 16384

# events: a change farectl makes reaches a subscriber as its -ntf message.
# (The CLI's "--subscribe events --do ..." trips over a notification that
# arrives in a datagram of its own before the ack, in 6.12's ynl.py, so the
# subscriber is the CLI's library, driven directly.)
events=$(ip netns exec yn /usr/bin/python3 - "$tree" "$SPEC" "$FARECTL" <<'PY'
import json, subprocess, sys, time
tree, spec, farectl = sys.argv[1:4]
sys.path.insert(0, f'{tree}/tools/net/ynl')
from lib import YnlFamily
ynl = YnlFamily(spec, '')
ynl.ntf_subscribe('events')
subprocess.run([farectl, 'config', 'set', 'flowlet-timeout', '300'], check=True)
subprocess.run([farectl, 'route', 'del', '2001:db8::/32'], check=True)
deadline = time.time() + 20
while len(ynl.async_msg_queue) < 2 and time.time() < deadline:
    ynl.check_ntf()
    time.sleep(0.1)
print(json.dumps([[m['name'], m['msg']] for m in ynl.async_msg_queue],
                 default=lambda b: b.hex()))
PY
)
expect_eq "events decoded by the spec" \
	"$(jq -c '[.[] | [.[0], .[1]["config-flowlet-us"] // .[1]["route-plen"]]]' <<<"$events")" \
	'[["config-set-ntf",300],["route-del-ntf",32]]'

ynl --do route-del --json '{"route-family": 2, "route-dst": "c6336400", "route-plen": 24}' >/dev/null
expect_eq "ynl route-del read by farectl" "$(fc -j route show | jq length)" 0
ynl --do plane-del --json '{"plane-id": 2}' >/dev/null
expect_eq "ynl plane-del read by farectl" "$(fc -j plane show | jq -c '[.[].id]')" '[1]'
exec 7>&- 8<&-
rm -rf "$LAB_DIR"

lab_result
