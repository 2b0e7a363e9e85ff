#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel's YNL library (what tools/net/ynl/cli.py drives) serving one
# request a line, so that a scenario pays for Python's start and the
# spec's parse once rather than per request (seconds each in TCG).
#
# usage: ynl-batch.py TREE SPEC <requests >replies
#   request: {"do": OP, "attrs": {...}} or {"dump": OP, "attrs": {...}}
#   reply:   the reply as cli.py --output-json prints it, on one line, or
#            "ERROR " and the netlink error (with its extack) on one line.
import json
import sys

tree, spec = sys.argv[1:3]
sys.path.insert(0, f'{tree}/tools/net/ynl')
from lib import YnlFamily, NlError  # noqa: E402


class Encoder(json.JSONEncoder):
    """cli.py's YnlEncoder: bytes as hex, sets as lists."""

    def default(self, obj):
        if isinstance(obj, bytes):
            return bytes.hex(obj)
        if isinstance(obj, set):
            return list(obj)
        return json.JSONEncoder.default(self, obj)


ynl = YnlFamily(spec, '')
for line in sys.stdin:
    req = json.loads(line)
    try:
        if 'do' in req:
            reply = ynl.do(req['do'], req.get('attrs', {}), None)
        else:
            reply = ynl.dump(req['dump'], req.get('attrs', {}))
        print(json.dumps(reply, cls=Encoder), flush=True)
    except NlError as e:
        print('ERROR ' + ' '.join(str(e).split()), flush=True)
