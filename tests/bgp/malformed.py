#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A raw-socket BGP peer that sends fared a corpus of malformed UPDATEs and
checks, per case, the RFC 7606 action fared took, as seen from outside:
treat-as-withdraw (the prefix leaves fared's RIB, the session stays up),
attribute discard (the route is kept without the attribute, the session
stays up) or session reset (the NOTIFICATION code/subcode received).
Also: a ROUTE-REFRESH is answered, and the FSM errors of RFC 4271 §6.8 and
RFC 6608 (a second connection while Established, OPEN while Established,
UPDATE in OpenConfirm) get their NOTIFICATIONs.

usage: malformed.py LOCAL_ADDR FARED_ADDR CONTROL_SOCKET
Prints one line per case and ends with "N passed, N failed"."""
import json
import select
import socket
import struct
import sys
import time

LOCAL, FARED, CTL = sys.argv[1], sys.argv[2], sys.argv[3]
MY_AS = 65003
results = {"passed": 0, "failed": 0}


def msg(mtype, body):
    return b"\xff" * 16 + struct.pack("!HB", 19 + len(body), mtype) + body


def attr(flags, atype, value):
    if len(value) > 255:
        flags |= 0x10
        return struct.pack("!BBH", flags, atype, len(value)) + value
    return struct.pack("!BBB", flags, atype, len(value)) + value


def update(attrs=b"", nlri=b"", withdrawn=b""):
    return msg(2, struct.pack("!H", len(withdrawn)) + withdrawn +
               struct.pack("!H", len(attrs)) + attrs + nlri)


def pfx(n):
    """10.202.n.0/24 as NLRI, and as text."""
    return bytes([24, 10, 202, n]), "10.202.%d.0/24" % n


ORIGIN = attr(0x40, 1, b"\x00")
AS_PATH = attr(0x40, 2, b"\x02\x01" + struct.pack("!I", MY_AS))
NEXT_HOP = attr(0x40, 3, socket.inet_aton(LOCAL))
BASE = ORIGIN + AS_PATH + NEXT_HOP
EC1 = bytes.fromhex("0004fde800000001")
EC2 = bytes.fromhex("0004fde800000002")


def ctl(request):
    s = socket.socket(socket.AF_UNIX)
    s.connect(CTL)
    s.sendall(request.encode() + b"\n")
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    return json.loads(out)


def route(prefix):
    r = ctl("routes json " + prefix)
    return r[0]["paths"][0] if r else None


def neighbor():
    for n in ctl("neighbors json"):
        if n["address"] == LOCAL:
            return n
    raise SystemExit("fared does not list neighbor " + LOCAL)


def wait(cond, limit=5.0):
    end = time.time() + limit
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    return cond()


class Peer:
    def __init__(self):
        self.buf = b""
        for _ in range(100):
            self.s = socket.socket()
            self.s.bind((LOCAL, 0))
            try:
                self.s.connect((FARED, 179))
                break
            except OSError:
                self.s.close()
                time.sleep(0.2)
        caps = (b"\x01\x04\x00\x01\x00\x01" +      # MP IPv4 unicast
                b"\x41\x04" + struct.pack("!I", MY_AS) +
                b"\x02\x00")                         # route refresh
        opt = b"\x02" + bytes([len(caps)]) + caps
        Peer.open_bytes = msg(1, struct.pack("!BHH4sB", 4, MY_AS, 90,
                                             socket.inet_aton(LOCAL),
                                             len(opt)) + opt)
        self.s.sendall(Peer.open_bytes)
        got = set()
        while not {1, 4} <= got:
            t, _ = self.read(5)
            if t is None:
                raise SystemExit("no OPEN/KEEPALIVE from fared")
            got.add(t)
        self.s.sendall(msg(4, b""))
        if not wait(lambda: neighbor()["state"] == "Established"):
            raise SystemExit("session not Established")

    def read(self, timeout):
        end = time.time() + timeout
        while True:
            if len(self.buf) >= 19:
                n = struct.unpack("!H", self.buf[16:18])[0]
                if len(self.buf) >= n:
                    m, self.buf = self.buf[:n], self.buf[n:]
                    return m[18], m[19:]
            left = end - time.time()
            if left <= 0 or not select.select([self.s], [], [], left)[0]:
                return None, None
            b = self.s.recv(65536)
            if not b:
                return None, None
            self.buf += b

    def notification(self, timeout):
        """The (code, subcode) of a NOTIFICATION fared sends, or None."""
        while True:
            t, body = self.read(timeout)
            if t is None:
                return None
            if t == 3:
                return body[0], body[1]

    def send(self, data):
        self.s.sendall(data)

    def close(self):
        self.s.close()


def check(name, ok, detail=""):
    if ok:
        results["passed"] += 1
        print("ok   %s" % name)
    else:
        results["failed"] += 1
        print("FAIL %s %s" % (name, detail))


peer = Peer()
n = 10


def treat_as_withdraw(name, attrs, nlri_fn=None):
    global n
    n += 1
    nlri, text = pfx(n)
    before = neighbor()["treat_as_withdraw"]
    peer.send(update(BASE, nlri))
    if not wait(lambda: route(text)):
        check(name, False, "(the valid route was not accepted)")
        return
    peer.send(update(attrs, nlri))
    gone = wait(lambda: route(text) is None)
    nb = neighbor()
    check("treat-as-withdraw: " + name,
          gone and nb["state"] == "Established" and
          nb["treat_as_withdraw"] == before + 1 and
          peer.notification(0.2) is None,
          "(route gone %s, state %s, counter %d -> %d)" %
          (gone, nb["state"], before, nb["treat_as_withdraw"]))


def discard(name, attrs, check_route=None):
    global n
    n += 1
    nlri, text = pfx(n)
    before = neighbor()["attribute_discard"]
    peer.send(update(attrs, nlri))
    r = wait(lambda: route(text))
    nb = neighbor()
    ok = (r is not None and nb["state"] == "Established" and
          nb["attribute_discard"] > before and
          peer.notification(0.2) is None)
    if ok and check_route:
        ok = check_route(r)
    check("attribute discard: " + name, ok,
          "(route %s, state %s, counter %d -> %d)" %
          (r, nb["state"], before, nb["attribute_discard"]))


def reset(name, data, want):
    global peer
    peer.send(data)
    got = peer.notification(5)
    check("session reset: %s -> NOTIFICATION %d/%d" % ((name,) + want),
          got == want, "(got %s)" % (got,))
    peer.close()
    wait(lambda: neighbor()["state"] != "Established")
    peer = Peer()


nlri0, _ = pfx(10)
# --- treat-as-withdraw (RFC 7606 §7 and §3)
treat_as_withdraw("ORIGIN length 2",
                  attr(0x40, 1, b"\x00\x00") + AS_PATH + NEXT_HOP)
treat_as_withdraw("ORIGIN value 5", attr(0x40, 1, b"\x05") + AS_PATH +
                  NEXT_HOP)
treat_as_withdraw("AS_PATH segment type 7", ORIGIN +
                  attr(0x40, 2, b"\x07\x01" + struct.pack("!I", MY_AS)) +
                  NEXT_HOP)
treat_as_withdraw("AS_PATH segment overrun", ORIGIN +
                  attr(0x40, 2, b"\x02\x03" + struct.pack("!I", MY_AS)) +
                  NEXT_HOP)
treat_as_withdraw("AS_PATH zero-count segment", ORIGIN +
                  attr(0x40, 2, b"\x02\x00") + NEXT_HOP)
treat_as_withdraw("NEXT_HOP length 5", ORIGIN + AS_PATH +
                  attr(0x40, 3, socket.inet_aton(LOCAL) + b"\x00"))
treat_as_withdraw("MED length 3", BASE + attr(0x80, 4, b"\x00\x00\x01"))
treat_as_withdraw("COMMUNITIES length 6", BASE + attr(0xc0, 8, b"\x00" * 6))
treat_as_withdraw("EXTENDED COMMUNITIES length 12",
                  BASE + attr(0xc0, 16, b"\x00" * 12))
treat_as_withdraw("missing NEXT_HOP (well-known mandatory)",
                  ORIGIN + AS_PATH)
treat_as_withdraw("ORIGIN flagged optional (flags conflict)",
                  attr(0xc0, 1, b"\x00") + AS_PATH + NEXT_HOP)
treat_as_withdraw("attribute overruns the attribute length",
                  BASE + b"\xc0\x10\x08" + EC1[:4])

# --- attribute discard
discard("ATOMIC_AGGREGATE length 1", BASE + attr(0x40, 6, b"\x01"))
discard("AGGREGATOR length 5", BASE + attr(0xc0, 7, b"\x00" * 5))
discard("LOCAL_PREF from an eBGP peer", BASE + attr(0x40, 5, b"\0\0\0\x64"),
        lambda r: "local_pref" not in r)
discard("EXTENDED COMMUNITIES twice: the first copy kept",
        BASE + attr(0xc0, 16, EC1) + attr(0xc0, 16, EC2),
        lambda r: r["ext_communities"] == [EC1.hex()])

# --- a well-formed unknown extended community type is kept byte-exact
n += 1
nl, text = pfx(n)
odd = bytes.fromhex("7f99deadbeef0001")
peer.send(update(BASE + attr(0xc0, 16, odd + EC1), nl))
r = wait(lambda: route(text))
check("unknown extended community type kept byte-exact",
      r is not None and r["ext_communities"] == [odd.hex(), EC1.hex()],
      "(%s)" % (r,))

# --- route refresh (RFC 2918): fared sends its routes again
while peer.read(0.3)[0] is not None:
    pass
peer.send(msg(5, b"\x00\x01\x00\x01"))
got = None
while True:
    t, body = peer.read(3)
    if t is None or (t == 2 and bytes([24, 10, 203, 0]) in body):
        got = t
        break
check("ROUTE-REFRESH answered with fared's 10.203.0.0/24", got == 2)

# --- FSM (RFC 4271 §6.8, RFC 6608)
second = socket.socket()
second.bind((LOCAL, 0))
second.connect((FARED, 179))
t = None
buf = b""
while True:
    r = select.select([second], [], [], 5)[0]
    b = second.recv(4096) if r else b""
    if not b:
        break
    buf += b
check("a second connection while Established gets Cease/7",
      buf[18:21] == b"\x03\x06\x07" and
      neighbor()["state"] == "Established", "(got %r)" % buf[:24])
second.close()
reset("OPEN while Established", peer.open_bytes, (5, 3))
peer.close()
wait(lambda: neighbor()["state"] != "Established")
# OpenConfirm: an UPDATE before the KEEPALIVE.
s2 = socket.socket()
s2.bind((LOCAL, 0))
for _ in range(50):
    try:
        s2.connect((FARED, 179))
        break
    except OSError:
        time.sleep(0.2)
s2.sendall(Peer.open_bytes)
time.sleep(0.5)
s2.sendall(update(BASE, nlri0))
buf = b""
while True:
    r = select.select([s2], [], [], 5)[0]
    b = s2.recv(4096) if r else b""
    if not b:
        break
    buf += b
notes = [buf[i + 19:i + 21] for i in range(0, len(buf) - 20)
         if buf[i:i + 16] == b"\xff" * 16 and buf[i + 18] == 3]
check("UPDATE in OpenConfirm -> NOTIFICATION 5/2", b"\x05\x02" in notes,
      "(%r)" % notes)
s2.close()
peer = Peer()

# --- session reset
reset("MP_REACH_NLRI twice",
      update(BASE + attr(0x80, 14, b"\x00\x01\x01\x04" +
                         socket.inet_aton(LOCAL) + b"\x00") * 2), (3, 1))
reset("MP_REACH_NLRI next hop length 5",
      update(ORIGIN + AS_PATH + attr(0x80, 14, b"\x00\x01\x01\x05" +
             socket.inet_aton(LOCAL) + b"\x00\x00" + nlri0)), (3, 9))
reset("prefix length 33 in NLRI", update(BASE, b"\x21\x0a\xca\x0a\x00\x00"),
      (3, 10))
reset("withdrawn length overruns the message",
      msg(2, b"\x00\x40\x00\x00"), (3, 1))
reset("unrecognized well-known attribute",
      update(BASE + attr(0x40, 99, b"\x00"), nlri0), (3, 2))
reset("bad marker", b"\x00" * 16 + b"\x00\x13\x04", (1, 1))
reset("UPDATE longer than 4096 without extended message",
      update(BASE + attr(0xc0, 16, EC1 * 520), nlri0), (1, 2))
reset("unknown message type 9", msg(9, b""), (1, 3))
peer.close()
print("%d passed, %d failed" % (results["passed"], results["failed"]))
sys.exit(1 if results["failed"] else 0)
