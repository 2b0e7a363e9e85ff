#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A raw-socket BGP peer that misbehaves on purpose, for the tests/bgp
scenarios maxprefix.sh, sendhold.sh, oversize.sh and rawflap.sh. It checks
what it sees on the wire itself (the NOTIFICATION fared sends, whether a
connection is accepted, whether the stream ends) and prints one "ok ..." or
"FAIL ..." line per check; it exits 1 when any check failed.

usage: hostile.py LOCAL_ADDR FARED_ADDR MODE [ARGS]
  flood N LIMIT          connect, send N /32s from 100.64.0.0 in full
                         UPDATEs; expect Cease 6/1 with AFI 1, SAFI 1 and
                         LIMIT (RFC 4486) and a reconnection at once
                         refused with Cease 6/5; LIMIT 0: expect no
                         NOTIFICATION (warning-only), stay 5 s
  connect-rejected       one connection: expect Cease 6/5 right away
  grnoafi                Established with a graceful restart capability
                         listing no AFI/SAFI, then a bare second TCP
                         connection: expect Cease 6/7 on it and the first
                         session kept
  nofamily               an OPEN whose only Multiprotocol capability is
                         IPv6 unicast: expect NOTIFICATION 2/7 listing
                         fared's IPv4 unicast capability, not Established
  connect [WAIT]         connect (retrying for WAIT s, default 20) until
                         Established, send 10 /32s, stay until killed
  silent RCVBUF          connect with a RCVBUF-byte receive buffer, read
                         nothing after Established, send KEEPALIVEs; wait
                         (at most 90 s) for fared to end the connection
  oversize ASNS          connect with the extended message capability,
                         send 100.64.0.1/32 with an AS_PATH of ASNS
                         4-octet ASes (an UPDATE past 4096 octets) and
                         100.64.0.2/32 with a short one and
                         100.64.0.3/32 with AS_PATH 65003 {65005 65006};
                         stay until killed
  flaps N                N times: connect, Established, 10 routes, Cease
  attrs                  connect, send 100.64.0.2/32 with NO_EXPORT, then
                         100.64.0.1/32 with COMMUNITIES 65003:1 65003:2,
                         LARGE_COMMUNITIES 65003:1:2, an unknown optional
                         transitive attribute 0xf1 ("fare-xyz") and an
                         unknown optional non-transitive one 0xf2
                         ("nontrans"); stay until killed
  aggr                   connect, send 100.64.0.5/32 with ATOMIC_AGGREGATE
                         and AGGREGATOR AS 4200000099 10.9.9.9, then
                         100.64.0.6/32 with NO_EXPORT_SUBCONFED; stay
                         until killed
  badflood N             connect, send N UPDATEs (100.64.0.0 + i) with a
                         malformed ORIGIN (treat-as-withdraw); stay until
                         killed
  addpaths N             connect with ADD-PATH (send, IPv4 unicast), send
                         N paths (ids 1..N) for 100.64.0.1/32 in full
                         UPDATEs, then 100.64.0.2/32; check that no
                         NOTIFICATION came within 3 s; stay until killed
  orfmany N WANT         connect with ORF (send), send ROUTE-REFRESHes
                         (DEFER, then IMMEDIATE) with N ORF entries permitting every second
                         10.202.2.I/32 for I < WANT (the others DENY or
                         outside fared's routes) and a catch-all DENY;
                         check that fared announces exactly those
  expect-attr IP TYPE FLAGS HEX
                         connect and wait (30 s at most) for an UPDATE
                         announcing IP/32; check that it carries attribute
                         TYPE with exactly FLAGS (Extended Length aside)
                         and value HEX (all hex), and that no other
                         attribute of an unassigned type (> 0x28) came
  speak WORD...           a well-behaved peer of odd shape; words, in order:
                         nomp (an OPEN without the Multiprotocol
                         capability: IPv4 unicast by RFC 4760), ibgp
                         (empty AS path and LOCAL_PREF 100 from then on),
                         v4 PREFIX (announce an IPv4 prefix), v6 PREFIX
                         (announce an IPv6 prefix in MP_REACH_NLRI),
                         expect PREFIX (wait 30 s at most for fared to
                         announce that IPv4 prefix); then check that no
                         NOTIFICATION came within 3 s and stay until killed
  gr STEP...             a graceful-restart speaker (capability with
                         IPv4 unicast, F set; enhanced route refresh),
                         step by step: open [n] [RESTART] (connect, with
                         the N bit, restart time RESTART, default 60),
                         routes A B (announce 100.64.0.A to 100.64.0.B-1),
                         eor, borr, eorr (IPv4 unicast), drop (close the
                         connection without NOTIFICATION), sleep S,
                         flap N S (N times: drop, open again, stay S s),
                         mark WORD (print "mark WORD"), await PATH (until
                         the file PATH exists); then stay until killed
HOSTILE_AS in the environment replaces the AS (65003); HOSTILE_RETRY, how
long "speak" retries its connection (20 s), for a peer started before fared:
it then prints "connecting to ADDR" once it starts trying.
"""
import os
import select
import socket
import struct
import sys
import threading
import time

LOCAL, FARED, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
ARGS = sys.argv[4:]
MY_AS = int(os.environ.get("HOSTILE_AS", "65003"))
SPEAK_RETRY = float(os.environ.get("HOSTILE_RETRY", "20"))
failed = 0


def check(name, ok, detail=""):
    global failed
    if ok:
        print("ok: %s" % name, flush=True)
    else:
        failed += 1
        print("FAIL: %s %s" % (name, detail), flush=True)


def msg(mtype, body):
    return b"\xff" * 16 + struct.pack("!HB", 19 + len(body), mtype) + body


def attr(flags, atype, value):
    if len(value) > 255:
        return struct.pack("!BBH", flags | 0x10, atype, len(value)) + value
    return struct.pack("!BBB", flags, atype, len(value)) + value


def as_path(asns):
    out = b""
    for i in range(0, len(asns), 255):
        seg = asns[i:i + 255]
        out += struct.pack("!BB", 2, len(seg))
        out += b"".join(struct.pack("!I", a) for a in seg)
    return attr(0x40, 2, out)


def base_attrs(asns=(MY_AS,)):
    return (attr(0x40, 1, b"\x00") + as_path(list(asns)) +
            attr(0x40, 3, socket.inet_aton(LOCAL)))


def host(i):
    """100.64.0.0 + i as a /32 NLRI."""
    return b"\x20" + struct.pack("!I", 0x64400000 + i)


def update(attrs, nlri):
    return msg(2, struct.pack("!H", 0) + struct.pack("!H", len(attrs)) +
               attrs + nlri)


class Session:
    """One connection to fared; reads in a thread of its own so that the
    main thread may block in sendall (or not read at all)."""

    def __init__(self, ext_msg=False, rcvbuf=0, retry_for=20.0,
                 reader=True, mp=True, answer_for=10.0, extra_caps=b""):
        self.msgs = []
        self.closed = threading.Event()
        self.notif = None
        self.buf = b""
        self.established = False
        self.s = None
        end = time.time() + retry_for
        if "HOSTILE_RETRY" in os.environ:
            # For a caller that waits until this peer is up before it
            # starts fared: Python's own start is slow in a debug guest.
            print("connecting to %s" % FARED, flush=True)
        while True:
            s = socket.socket()
            if rcvbuf:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            s.bind((LOCAL, 0))
            try:
                s.connect((FARED, 179))
                self.s = s
                break
            except OSError:
                s.close()
                if time.time() > end:
                    raise SystemExit("FAIL: cannot connect to fared")
                time.sleep(0.2)
        caps = (b"\x01\x04\x00\x01\x00\x01" if mp else b"")  # MP IPv4
        caps += (b"\x41\x04" + struct.pack("!I", MY_AS) +
                 b"\x02\x00")                         # route refresh
        if ext_msg:
            caps += b"\x06\x00"                       # RFC 8654
        caps += extra_caps
        opt = b"\x02" + bytes([len(caps)]) + caps
        as2 = MY_AS if MY_AS <= 65535 else 23456     # AS_TRANS
        self.s.sendall(msg(1, struct.pack("!BHH4sB", 4, as2, 30,
                                          socket.inet_aton(LOCAL),
                                          len(opt)) + opt))
        self.open = None
        got = set()
        while not {1, 4} <= got:
            t, body = self.read_one(answer_for)
            if t is None or t == 3:
                self.notif = body
                return
            if t == 1:
                self.open = body
            got.add(t)
        self.s.sendall(msg(4, b""))
        self.established = True
        if reader:
            threading.Thread(target=self.reader, daemon=True).start()

    def read_one(self, timeout):
        end = time.time() + timeout
        while True:
            if len(self.buf) >= 19:
                n = struct.unpack("!H", self.buf[16:18])[0]
                if len(self.buf) >= n:
                    m, self.buf = self.buf[:n], self.buf[n:]
                    return m[18], m[19:]
            left = end - time.time()
            try:
                ready = left > 0 and select.select([self.s], [], [],
                                                   left)[0]
            except (OSError, ValueError):
                ready = False
            if not ready:
                return None, None
            try:
                b = self.s.recv(65536)
            except OSError:
                b = b""
            if not b:
                return None, None
            self.buf += b

    def reader(self):
        while True:
            t, body = self.read_one(3600)
            if t is None:
                break
            if t == 3 and self.notif is None:
                self.notif = body
            self.msgs.append(t)
        self.closed.set()

    def has_add_path(self):
        """Whether fared's OPEN carries the ADD-PATH capability (69)."""
        body = self.open or b""
        opt = body[10:10 + body[9]] if len(body) >= 10 else b""
        i = 0
        while i + 2 <= len(opt):
            ptype, plen = opt[i], opt[i + 1]
            if ptype == 2:
                k = i + 2
                while k + 2 <= i + 2 + plen:
                    if opt[k] == 69:
                        return True
                    k += 2 + opt[k + 1]
            i += 2 + plen
        return False

    def send(self, data):
        """False once fared has closed the connection."""
        try:
            self.s.sendall(data)
            return True
        except OSError:
            return False

    def keepalives(self, stop):
        while not stop.is_set():
            if not self.send(msg(4, b"")):
                return
            stop.wait(1.0)

    def close(self):
        self.s.close()


def notif_text(n):
    return "none" if n is None else n.hex()


def flood():
    total, limit = int(ARGS[0]), int(ARGS[1])
    s = Session()
    check("session Established", s.established, notif_text(s.notif))
    check("fared's OPEN has no ADD-PATH capability (not configured)",
          s.established and not s.has_add_path())
    attrs = base_attrs()
    per = (4096 - 23 - len(attrs)) // 5
    sent = 0
    while sent < total:
        n = min(per, total - sent)
        nlri = b"".join(host(sent + i) for i in range(n))
        if not s.send(update(attrs, nlri)):
            break
        sent += n
    if limit == 0:
        # warning-only: the session stays, every prefix taken.
        s.send(msg(4, b""))
        s.closed.wait(5)
        check("all %d prefixes sent, no NOTIFICATION, session up" % total,
              sent == total and s.notif is None and
              not s.closed.is_set(), "(sent %d, got %s)" %
              (sent, notif_text(s.notif)))
        s.close()
        return
    s.closed.wait(30)
    want = bytes([6, 1]) + struct.pack("!HBI", 1, 1, limit)
    print("flood: %d of %d prefixes sent before the session ended"
          % (sent, total), flush=True)
    check("Cease 6/1 with AFI 1, SAFI 1 and the limit %d" % limit,
          s.notif == want, "(got %s)" % notif_text(s.notif))
    check("fared stopped the flood early", sent < total,
          "(all %d prefixes went in)" % total)
    s.close()
    # At once, well inside any restart time: held Idle.
    connect_rejected()


def nofamily():
    # An OPEN whose only Multiprotocol capability is IPv6 unicast, to a
    # neighbor fared runs for IPv4 only: nothing in common.
    s = Session(mp=False, extra_caps=b"\x01\x04\x00\x02\x00\x01")
    check("no family in common: NOTIFICATION 2/7, never Established",
          not s.established and s.notif is not None and
          s.notif[:2] == bytes([2, 7]), "(got %s%s)" % (
              notif_text(s.notif),
              ", Established" if s.established else ""))
    if s.notif is not None and s.notif[:2] == bytes([2, 7]):
        check("its data lists fared's IPv4 unicast capability",
              s.notif[2:] == b"\x01\x04\x00\x01\x00\x01",
              "(data %s)" % s.notif[2:].hex())
    s.close()


def grnoafi():
    # Graceful restart with no AFI/SAFI in the capability (a restart time
    # only): RFC 4724 §4.2 makes a new connection a restart only with one
    # or more, so fared must keep the Established session and close the
    # new, bare connection as a collision (Cease 6/7).
    gr_cap = struct.pack("!H", 60)
    s = Session(retry_for=30, extra_caps=b"\x40" + bytes([len(gr_cap)]) +
                gr_cap)
    check("session Established (graceful restart, no AFI/SAFI)",
          s.established, notif_text(s.notif))
    if not s.established:
        return
    stop = threading.Event()
    threading.Thread(target=s.keepalives, args=(stop,), daemon=True).start()
    b = socket.socket()
    b.bind((LOCAL, 0))
    b.connect((FARED, 179))
    b.settimeout(10)
    data = b""
    try:
        while len(data) < 21:
            x = b.recv(4096)
            if not x:
                break
            data += x
    except OSError:
        pass
    b.close()
    check("the bare new connection is closed with Cease 6/7",
          len(data) >= 21 and data[18] == 3 and data[19:21] == b"\x06\x07",
          "(got %s)" % (data.hex() or "nothing"))
    time.sleep(3)
    check("the Established session stays up",
          not s.closed.is_set() and s.notif is None,
          "(NOTIFICATION %s)" % notif_text(s.notif))
    stop.set()


def connect_rejected():
    # The kernel takes the connection at once; fared answers it once it
    # has dropped the flood's paths, which on a debug kernel (KASAN) takes
    # far longer than the usual 10 s.
    s = Session(retry_for=5, answer_for=90)
    check("a new connection is refused with Cease 6/5 while Idle",
          not s.established and s.notif is not None and
          s.notif[:2] == bytes([6, 5]), "(got %s)" % notif_text(s.notif))
    s.close()


def connect():
    wait = float(ARGS[0]) if ARGS else 20.0
    end = time.time() + wait
    while True:
        s = Session(retry_for=wait)
        if s.established or time.time() > end:
            break
        s.close()
        time.sleep(0.5)
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    s.send(update(base_attrs(), b"".join(host(i) for i in range(10))))
    stop = threading.Event()
    s.keepalives(stop)


def silent():
    s = Session(rcvbuf=int(ARGS[0]), reader=False)
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    stop = threading.Event()
    t = threading.Thread(target=s.keepalives, args=(stop,), daemon=True)
    t.start()
    # Not a byte read until fared gives up on us: then the kernel's
    # buffers drain and the stream must end (FIN or RST).
    t.join(90)
    stop.set()
    ended = not t.is_alive()
    n = 0
    eof = False
    s.s.settimeout(10)
    try:
        while True:
            b = s.s.recv(65536)
            if not b:
                eof = True
                break
            n += len(b)
    except OSError:
        eof = True
    print("silent: %d bytes were waiting unread when fared ended the "
          "connection" % n, flush=True)
    check("fared ended the connection of a peer that reads nothing",
          ended and eof)


def oversize():
    asns = [4200100000 + i for i in range(int(ARGS[0]))]
    s = Session(ext_msg=True)
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    big = update(base_attrs([MY_AS] + asns), host(1))
    print("oversize: an UPDATE of %d octets" % len(big), flush=True)
    s.send(big)
    s.send(update(base_attrs(), host(2)))
    # An AS_SET, which a transit fared must pass on whole.
    with_set = (attr(0x40, 1, b"\x00") +
                attr(0x40, 2, struct.pack("!BBI", 2, 1, MY_AS) +
                     struct.pack("!BBII", 1, 2, 65005, 65006)) +
                attr(0x40, 3, socket.inet_aton(LOCAL)))
    s.send(update(with_set, host(3)))
    stop = threading.Event()
    s.keepalives(stop)


def attrs():
    s = Session()
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    no_export = attr(0xc0, 8, struct.pack("!I", 0xffffff01))
    s.send(update(base_attrs() + no_export, host(2)))
    comms = attr(0xc0, 8, struct.pack("!HHHH", MY_AS, 1, MY_AS, 2))
    large = attr(0xc0, 32, struct.pack("!III", MY_AS, 1, 2))
    unknown_t = attr(0xc0, 0xf1, b"fare-xyz")
    unknown_nt = attr(0x80, 0xf2, b"nontrans")
    s.send(update(base_attrs() + comms + large + unknown_t + unknown_nt,
                  host(1)))
    stop = threading.Event()
    s.keepalives(stop)


def aggr():
    """100.64.0.5/32 with ATOMIC_AGGREGATE and AGGREGATOR (AS 4200000099,
    10.9.9.9, four octets on this session), 100.64.0.6/32 with
    NO_EXPORT_SUBCONFED."""
    s = Session()
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    atomic = attr(0x40, 6, b"")
    aggregator = attr(0xc0, 7, struct.pack("!I", 4200000099) +
                      socket.inet_aton("10.9.9.9"))
    s.send(update(base_attrs() + atomic + aggregator, host(5)))
    subconfed = attr(0xc0, 8, struct.pack("!I", 0xffffff03))
    s.send(update(base_attrs() + subconfed, host(6)))
    stop = threading.Event()
    s.keepalives(stop)


def badflood():
    """N UPDATEs for 100.64.0.0 + i, each with a malformed ORIGIN (value 5:
    treat-as-withdraw, RFC 7606 §7.1)."""
    total = int(ARGS[0])
    s = Session()
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    bad = (attr(0x40, 1, b"\x05") + as_path([MY_AS]) +
           attr(0x40, 3, socket.inet_aton(LOCAL)))
    sent = 0
    while sent < total and s.send(update(bad, host(sent))):
        sent += 1
    check("all %d malformed UPDATEs sent" % total, sent == total,
          "(sent %d)" % sent)
    stop = threading.Event()
    s.keepalives(stop)


def addpaths():
    """ADD-PATH (send, IPv4 unicast): N paths (path ids 1..N) for
    100.64.0.1/32, then 100.64.0.2/32 with path id 1."""
    total = int(ARGS[0])
    s = Session(extra_caps=b"\x45\x04\x00\x01\x01\x02")
    check("session Established", s.established, notif_text(s.notif))
    check("fared's OPEN has the ADD-PATH capability", s.has_add_path())
    if not s.established:
        return
    attrs = base_attrs()
    per = (4096 - 23 - len(attrs)) // 9
    sent = 0
    while sent < total:
        n = min(per, total - sent)
        nlri = b"".join(struct.pack("!I", sent + i + 1) + host(1)
                        for i in range(n))
        if not s.send(update(attrs, nlri)):
            break
        sent += n
    s.send(update(attrs, struct.pack("!I", 1) + host(2)))
    check("%d paths for 100.64.0.1/32 sent" % total, sent == total,
          "(sent %d)" % sent)
    s.closed.wait(3)
    check("no NOTIFICATION, session up",
          s.notif is None and not s.closed.is_set(), notif_text(s.notif))
    stop = threading.Event()
    s.keepalives(stop)


def orfmany():
    """ORF (send, IPv4 unicast): ROUTE-REFRESHes (DEFER, the last
    IMMEDIATE) whose Address Prefix ORF permits every second 10.202.2.0 + i/32 for i <
    WANT among N entries (the rest /32s under 10.99.0.0/16 that match
    nothing fared has), then a catch-all DENY; checks that fared then
    announces exactly the permitted ones of the 10.202.2.0/24 /32s."""
    total, want = int(ARGS[0]), int(ARGS[1])
    orf_cap = struct.pack("!HBBBBB", 1, 0, 1, 1, 64, 2)   # send
    s = Session(reader=False,
                extra_caps=b"\x03" + bytes([len(orf_cap)]) + orf_cap)
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    permitted = set("10.202.2.%d/32" % i for i in range(0, want, 2))
    entries = []
    for i in range(total - 1):
        if i < want:
            pfx = socket.inet_aton("10.202.2.%d" % i)
            deny = i % 2
        else:
            pfx = struct.pack("!I", 0x0a630000 + i)
            deny = 0
        entries.append(struct.pack("!BIBBB", 0x20 if deny else 0,
                                   i + 1, 0, 0, 32) + pfx)
    entries.append(struct.pack("!BIBBB", 0x20, 0xffffffff, 0, 32, 0))
    per = (4096 - 19 - 7) // 12     # a /32 entry: 8 + 4 octets
    for at in range(0, len(entries), per):
        blob = b"".join(entries[at:at + per])
        when = 1 if at + per >= len(entries) else 2   # IMMEDIATE, DEFER
        s.send(msg(5, struct.pack("!HBBBBH", 1, 0, 1, when, 64,
                                  len(blob)) + blob))
    got = set()
    end = time.time() + 30
    quiet = 0
    while time.time() < end and s.notif is None and \
            (quiet < 5 or not got):
        s.send(msg(4, b""))
        t, body = s.read_one(1)
        if t == 3:
            s.notif = body
        if t == 2:
            quiet = 0
            got |= set(x for x in parse_update(body)[1]
                       if x.startswith("10.202.2."))
        else:
            quiet += 1
    check("no NOTIFICATION", s.notif is None, notif_text(s.notif))
    print("orf: %d permitted, %d received" % (len(permitted), len(got)),
          flush=True)
    check("fared announced exactly the %d permitted /32s" % len(permitted),
          got == permitted, "(missing %s, extra %s)" %
          (sorted(permitted - got)[:5], sorted(got - permitted)[:5]))
    s.close()


def parse_update(body):
    """The (flags, type, value) attributes and the IPv4 NLRI of body."""
    wl = struct.unpack("!H", body[0:2])[0]
    al = struct.unpack("!H", body[2 + wl:4 + wl])[0]
    a = body[4 + wl:4 + wl + al]
    nlri = body[4 + wl + al:]
    attrs = []
    i = 0
    while i < len(a):
        flags, atype = a[i], a[i + 1]
        if flags & 0x10:
            n = struct.unpack("!H", a[i + 2:i + 4])[0]
            i += 4
        else:
            n = a[i + 2]
            i += 3
        attrs.append((flags, atype, a[i:i + n]))
        i += n
    prefixes = []
    i = 0
    while i < len(nlri):
        plen = nlri[i]
        nb = (plen + 7) // 8
        addr = nlri[i + 1:i + 1 + nb] + b"\0" * (4 - nb)
        prefixes.append("%s/%d" % (socket.inet_ntoa(addr), plen))
        i += 1 + nb
    return attrs, prefixes


def expect_attr():
    want = ARGS[0] + "/32"
    atype, aflags = int(ARGS[1], 16), int(ARGS[2], 16)
    value = bytes.fromhex(ARGS[3])
    s = Session(reader=False)
    check("session Established", s.established, notif_text(s.notif))
    if not s.established:
        return
    end = time.time() + 30
    found = None
    while found is None and time.time() < end:
        s.send(msg(4, b""))
        t, body = s.read_one(1)
        if t == 2:
            attrs, prefixes = parse_update(body)
            if want in prefixes:
                found = attrs
    check("an UPDATE for %s arrived" % want, found is not None)
    if found is None:
        return
    for flags, t, v in found:
        print("attribute type 0x%02x flags 0x%02x value %s"
              % (t, flags, v.hex()), flush=True)
    got = [(f & ~0x10, v) for f, t, v in found if t == atype]
    check("attribute 0x%02x with flags 0x%02x and value %s"
          % (atype, aflags, value.hex()), got == [(aflags, value)],
          "(got %s)" % [(hex(f), v.hex()) for f, v in got])
    other = [hex(t) for f, t, v in found if t > 0x28 and t != atype]
    check("no other unassigned attribute", not other, "(got %s)" % other)
    s.close()


def speak():
    words = list(ARGS)
    mp = "nomp" not in words
    s = Session(mp=mp, reader=False, retry_for=SPEAK_RETRY)
    check("session Established%s" % ("" if mp else " without MP"),
          s.established, notif_text(s.notif))
    if not s.established:
        return
    ibgp = False
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "ibgp":
            ibgp = True
        if w not in ("v4", "v6", "expect"):
            continue
        arg = words[i]
        i += 1
        path = attr(0x40, 2, b"") if ibgp else \
            attr(0x40, 2, struct.pack("!BBI", 2, 1, MY_AS))
        base = attr(0x40, 1, b"\x00") + path
        if ibgp:
            base += attr(0x40, 5, struct.pack("!I", 100))
        addr, plen = arg.split("/")
        plen = int(plen)
        if w == "v4":
            nlri = bytes([plen]) + socket.inet_aton(addr)[:(plen + 7) // 8]
            s.send(update(base + attr(0x40, 3, socket.inet_aton(LOCAL)),
                          nlri))
        elif w == "v6":
            nh = socket.inet_pton(socket.AF_INET6, "fd00:201::3")
            nlri = bytes([plen]) + \
                socket.inet_pton(socket.AF_INET6, addr)[:(plen + 7) // 8]
            reach = struct.pack("!HBB", 2, 1, 16) + nh + b"\0" + nlri
            s.send(update(attr(0x80, 14, reach) + base, b""))
        else:
            end = time.time() + 30
            seen = False
            while not seen and time.time() < end and s.notif is None:
                s.send(msg(4, b""))
                t, body = s.read_one(1)
                if t == 3:
                    s.notif = body
                if t == 2:
                    seen = arg in parse_update(body)[1]
            check("fared announced %s to us" % arg, seen,
                  notif_text(s.notif))
    end = time.time() + 3
    while time.time() < end and s.notif is None:
        s.send(msg(4, b""))
        t, body = s.read_one(1)
        if t == 3:
            s.notif = body
    check("no NOTIFICATION, session up", s.notif is None,
          notif_text(s.notif))
    threading.Thread(target=s.reader, daemon=True).start()
    stop = threading.Event()
    s.keepalives(stop)


def flaps():
    n = int(ARGS[0])
    ok = 0
    for i in range(n):
        s = Session(retry_for=30)
        if not s.established:
            print("flap %d: %s" % (i + 1, notif_text(s.notif)), flush=True)
            s.close()
            continue
        s.send(update(base_attrs(), b"".join(host(k) for k in range(10))))
        # Administrative reset (6/4), then wait for fared to close.
        s.send(msg(3, bytes([6, 4])))
        s.closed.wait(10)
        s.close()
        ok += 1
    check("%d of %d flaps Established" % (ok, n), ok == n)


def gr():
    """A graceful-restart speaker driven step by step (see the usage)."""
    words = list(ARGS)
    s = None
    stop = None
    n_bit, restart = False, 60

    def borr_eorr(subtype):
        # ROUTE-REFRESH for IPv4 unicast with RFC 7313's subtype.
        return msg(5, struct.pack("!HBB", 1, subtype, 1))

    def opened():
        nonlocal s, stop
        flags = (0x4 if n_bit else 0) << 12 | restart
        gr_cap = struct.pack("!HHBB", flags, 1, 1, 0x80)   # IPv4, F
        caps = b"\x40" + bytes([len(gr_cap)]) + gr_cap + b"\x46\x00"
        s = Session(retry_for=30, extra_caps=caps)
        check("session Established (graceful restart%s, restart time %d)"
              % (", N" if n_bit else "", restart), s.established,
              notif_text(s.notif))
        if not s.established:
            raise SystemExit(1)
        stop = threading.Event()
        threading.Thread(target=s.keepalives, args=(stop,),
                         daemon=True).start()

    def dropped():
        # The TCP connection ends, no NOTIFICATION: graceful (RFC 4724).
        stop.set()
        s.close()

    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "open":
            n_bit = i < len(words) and words[i] == "n"
            if n_bit:
                i += 1
            if i < len(words) and words[i].isdigit():
                restart = int(words[i])
                i += 1
            opened()
        elif w == "routes":
            a, b = int(words[i]), int(words[i + 1])
            i += 2
            for k in range(a, b, 100):
                s.send(update(base_attrs(), b"".join(
                    host(j) for j in range(k, min(b, k + 100)))))
            print("sent 100.64.0.%d to 100.64.0.%d" % (a, b - 1), flush=True)
        elif w == "eor":
            s.send(msg(2, b"\x00\x00\x00\x00"))
        elif w in ("borr", "eorr"):
            s.send(borr_eorr(1 if w == "borr" else 2))
        elif w == "drop":
            dropped()
        elif w == "sleep":
            time.sleep(float(words[i]))
            i += 1
        elif w == "flap":
            # N times: drop, open again at once, stay S seconds.
            n, secs = int(words[i]), float(words[i + 1])
            i += 2
            for _ in range(n):
                dropped()
                opened()
                time.sleep(secs)
        elif w == "await":
            # Until the scenario creates the file PATH.
            while not os.path.exists(words[i]):
                time.sleep(0.1)
            i += 1
        elif w == "mark":
            # A line the scenario waits for.
            print("mark %s" % words[i], flush=True)
            i += 1
        else:
            raise SystemExit("gr: unknown step %s" % w)
    # Stay until killed.
    while True:
        time.sleep(3600)


{"gr": gr, "flood": flood, "connect-rejected": connect_rejected, "connect": connect,
 "nofamily": nofamily, "grnoafi": grnoafi,
 "silent": silent, "oversize": oversize, "flaps": flaps,
 "attrs": attrs, "aggr": aggr, "badflood": badflood, "addpaths": addpaths,
 "orfmany": orfmany,
 "expect-attr": expect_attr, "speak": speak}[MODE]()
sys.exit(1 if failed else 0)
