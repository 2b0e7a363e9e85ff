#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Checks Documentation/netlink/specs/fare.yaml without a kernel:
#  1. it validates against the kernel's genetlink-legacy schema (jsonschema);
#  2. the kernel's own YNL library (tools/net/ynl/lib) loads and resolves it;
#  3. every name and number in it equals uapi/linux/fare.h: a C program
#     generated from the spec is compiled against the header and run;
#  4. each command's kernel policy (kmod/policy.h) takes the attributes
#     its request lists, no more, no fewer.
# The schema and library come from linux-source-6.12 (tests/ynl/ynl-tree).
#
# usage: tests/ynl/validate.sh [SPEC]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
spec=$(readlink -f "${1:-$root/Documentation/netlink/specs/fare.yaml}")
# Debian's python3 with python3-yaml and python3-jsonschema (tests/deps.sh).
python=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}

tree=$("$here/ynl-tree")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
ok() { echo "ynl: ok: $*"; passed=$((passed + 1)); }
bad() { echo "ynl: FAIL: $*"; failed=$((failed + 1)); }

if "$python" - "$spec" "$tree" <<'PY'; then
import sys, yaml, jsonschema
spec_path, tree = sys.argv[1], sys.argv[2]
with open(spec_path) as f:
    first = f.readline()
    f.seek(0)
    spec = yaml.safe_load(f)
if not first.startswith('# SPDX-License-Identifier: '):
    sys.exit('the spec must start with an SPDX line')
proto = spec.get('protocol', 'genetlink')
with open(f'{tree}/Documentation/netlink/{proto}.yaml') as f:
    schema = yaml.safe_load(f)
try:
    jsonschema.validate(spec, schema)
except jsonschema.ValidationError as e:
    sys.exit(f'{spec_path}: {e.message} at {"/".join(map(str, e.absolute_path))}')
PY
	ok "fare.yaml validates against the kernel's $(sed -n 's/^protocol: //p' "$spec") schema"
else
	bad "fare.yaml does not validate against the kernel's schema"
fi

if "$python" - "$spec" "$tree" "$work/check.c" <<'PY'; then
import sys
spec_path, tree, out = sys.argv[1:4]
sys.path.insert(0, f'{tree}/tools/net/ynl')
from lib.nlspec import SpecFamily

proto_schema = f'{tree}/Documentation/netlink/genetlink-legacy.yaml'
fam = SpecFamily(spec_path, proto_schema)
y = fam.yaml

def c(name):
    return name.upper().replace('-', '_')

checks = []      # (C expression, expected value as C literal, label)
def num(expr, value):
    checks.append(('num', expr, str(value)))
def text(expr, value):
    checks.append(('str', expr, '"' + value + '"'))

text(c(y['c-family-name']), y['name'])
num(c(y['c-version-name']), y.get('version', 1))
for grp in y['mcast-groups']['list']:
    text(c(grp['c-define-name']), grp['name'])

for d in y.get('definitions', []):
    if d['type'] == 'const':
        name = c(y['name'] + '-' + d['name'])
        if isinstance(d['value'], str):
            text(name, d['value'])
        else:
            num(name, d['value'])
    else:
        const = fam.consts[d['name']]
        for e in const.entries.values():
            v = e.user_value()
            num(c(d['name-prefix'] + e.name), v)
        if d.get('render-max'):
            last = max(e.value for e in const.entries.values())
            num(c(d['name-prefix'] + 'max'), last)

for aset in y['attribute-sets']:
    s = fam.attr_sets[aset['name']]
    prefix = aset['name-prefix']
    for attr in s.attrs.values():
        num(c(prefix + attr.name), attr.value)
    num(c(aset['attr-max-name']), max(a.value for a in s.attrs.values()))

for op in fam.ops.values():
    num(c(y['operations']['name-prefix'] + op.name), op.value)
num(c(y['cmd-max-name']), max(op.value for op in fam.ops.values()))

with open(out, 'w') as f:
    f.write('#include <stdio.h>\n#include <string.h>\n#include <linux/fare.h>\n\n')
    f.write('int main(void)\n{\n\tint bad = 0;\n\n')
    for kind, expr, want in checks:
        if kind == 'num':
            f.write(f'\tif ((long long)({expr}) != {want}LL) {{\n'
                    f'\t\tprintf("{expr} is %lld in the header, {want} in the spec\\n", (long long)({expr}));\n'
                    f'\t\tbad = 1;\n\t}}\n')
        else:
            f.write(f'\tif (strcmp({expr}, {want})) {{\n'
                    f'\t\tprintf("{expr} is \\"%s\\" in the header, \\"%s\\" in the spec\\n", {expr}, {want});\n'
                    f'\t\tbad = 1;\n\t}}\n')
    f.write(f'\tprintf("%d names compared\\n", {len(checks)});\n')
    f.write('\treturn bad;\n}\n')
print(f'{len(fam.ops)} operations, {len(fam.attr_sets)} attribute sets resolved')
PY
	ok "the kernel's YNL library loads and resolves fare.yaml"
	if "$CC" -std=gnu11 -Wall -Werror -I"$root/uapi" -o "$work/check" \
		"$work/check.c" && "$work/check"; then
		ok "every name and number of fare.yaml equals uapi/linux/fare.h"
	else
		bad "fare.yaml and uapi/linux/fare.h disagree"
	fi
else
	bad "the kernel's YNL library cannot load fare.yaml"
fi

# 4. What each command's kernel policy takes is what the spec's request
#    lists for it (do and dump): policy.h's per-command tables, found
#    from netlink.c's ops, read as text.
if "$python" - "$spec" "$root/kmod/policy.h" "$root/kmod/netlink.c" <<'PY'; then
import re, sys, yaml
spec_path, policy_h, netlink_c = sys.argv[1:4]
with open(spec_path) as f:
    spec = yaml.safe_load(f)
with open(policy_h) as f:
    text = f.read()
with open(netlink_c) as f:
    ops_text = f.read()

macros = {m.group(1): m.group(2) for m in re.finditer(
    r'#define (FARE_POL_[A-Z0-9_]+)[ \t]*\\\n((?:.*\\\n)*.*)', text)}


def attrs_of(body):
    out = set(re.findall(r'\[FARE_A_([A-Z0-9_]+)\]', body))
    for ref in re.findall(r'\b(FARE_POL_[A-Z0-9_]+)\b', body):
        out |= attrs_of(macros[ref])
    return out


tables = {m.group(1): attrs_of(m.group(2)) for m in re.finditer(
    r'static const struct nla_policy (fare_[a-z0-9_]+_policy)'
    r'\[FARE_A_MAX \+ 1\][^=]*= \{(.*?)\n\};', text, re.S)}
policy_of = dict(re.findall(
    r'\.cmd = FARE_CMD_([A-Z0-9_]+),\s*\.policy = (fare_[a-z0-9_]+_policy),',
    ops_text))
bad = 0
checked = 0
for op in spec['operations']['list']:
    if 'do' not in op and 'dump' not in op:
        continue
    want = set()
    for kind in ('do', 'dump'):
        want |= set(op.get(kind, {}).get('request', {}).get('attributes', []))
    want = {a.upper().replace('-', '_') for a in want}
    cmd = op['name'].upper().replace('-', '_')
    if cmd not in policy_of or policy_of[cmd] not in tables:
        print(f'FARE_CMD_{cmd}: no policy of its own in netlink.c')
        bad = 1
        continue
    have = tables[policy_of[cmd]]
    checked += 1
    if have != want:
        print(f'FARE_CMD_{cmd} ({policy_of[cmd]}): the kernel also takes '
              f'{sorted(have - want)}, the spec also lists {sorted(want - have)}')
        bad = 1
print(f'{checked} commands compared')
sys.exit(bad)
PY
	ok "each command's kernel policy takes exactly the spec's request attributes"
else
	bad "the kernel's per-command policies and fare.yaml's requests disagree"
fi

echo "ynl: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
