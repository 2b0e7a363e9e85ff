#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Connection collision (RFC 4271 §6.8) against fared, from a raw peer
that both accepts fared's connection and opens its own, then sends OPEN
on both so that the second OPEN arrives while the first connection is in
OpenConfirm. The connection opened by the speaker with the higher BGP
Identifier must survive; fared sends Cease/7 on the other.

usage: collision.py LOCAL_ADDR FARED_ADDR PEER_ID [confirmed|opensent]
PEER_ID above fared's 10.201.0.1: fared must close its own (outgoing)
connection; below: fared must close the one the peer opened. With
"confirmed" the peer, Established on fared's connection, sends its
KEEPALIVE and an End-of-RIB there just before its OPEN on its own:
whatever order fared reads them in, the connection the peer already runs
must survive. With "opensent" the peer holds back its OPEN on fared's
connection and sends one only on its own, as BIRD may when both
connect at once: fared, knowing the identifier from that OPEN, must
settle the collision then (§6.8 allows it with a connection in OpenSent)
rather than answer with KEEPALIVE, which the peer would take for
OpenConfirm and close by the identifiers once our OPEN on the other
came, ending both.
Prints one line per check and ends with "N passed, N failed"."""
import select
import socket
import struct
import sys

LOCAL, FARED, PEER_ID = sys.argv[1], sys.argv[2], sys.argv[3]
CONFIRMED = sys.argv[4:] == ["confirmed"]
OPENSENT = sys.argv[4:] == ["opensent"]
FARED_ID = "10.201.0.1"
MY_AS = 65003
res = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    res["passed" if ok else "failed"] += 1
    print(("ok   %s" if ok else "FAIL %s " + detail) % name)


def msg(t, body):
    return b"\xff" * 16 + struct.pack("!HB", 19 + len(body), t) + body


def open_msg():
    caps = b"\x01\x04\x00\x01\x00\x01\x41\x04" + struct.pack("!I", MY_AS)
    opt = b"\x02" + bytes([len(caps)]) + caps
    return msg(1, struct.pack("!BHH4sB", 4, MY_AS, 90,
                              socket.inet_aton(PEER_ID), len(opt)) + opt)


bufs = {}


def read_msg(s, timeout=5):
    """The next message's (type, body), or (None, None) at EOF/timeout."""
    while True:
        buf = bufs.get(s, b"")
        if len(buf) >= 19:
            n = struct.unpack("!H", buf[16:18])[0]
            if len(buf) >= n:
                bufs[s] = buf[n:]
                return buf[18], buf[19:n]
        if not select.select([s], [], [], timeout)[0]:
            return None, None
        b = s.recv(4096)
        if not b:
            return None, None
        bufs[s] = buf + b


def expect(s, want, timeout=5):
    """Reads until a message of type want; returns its body or None."""
    while True:
        t, body = read_msg(s, timeout)
        if t is None or t == want:
            return body
        if t == 3:
            return None


lst = socket.socket()
lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
lst.bind((LOCAL, 179))
lst.listen(1)
lst.settimeout(15)
accepted, _ = lst.accept()          # fared's outgoing connection
check("fared connects actively", True)
expect(accepted, 1)
if not OPENSENT:
    accepted.sendall(open_msg())    # fared: outgoing -> OpenConfirm
    check("fared answers OPEN with KEEPALIVE",
          expect(accepted, 4) is not None)

mine = socket.create_connection((FARED, 179), 5, (LOCAL, 0))
expect(mine, 1)
if CONFIRMED:
    # Established there: its KEEPALIVE, then at once its End-of-RIB.
    accepted.sendall(msg(4, b"") + msg(2, b"\0\0\0\0"))
mine.sendall(open_msg())            # collision seen here

fared_wins = socket.inet_aton(FARED_ID) > socket.inet_aton(PEER_ID)
loser, winner = (mine, accepted) if fared_wins else (accepted, mine)
if CONFIRMED:
    loser, winner, fared_wins = mine, accepted, True
t, body = None, None
while True:
    t, body = read_msg(loser)
    if t in (3, None):
        break
    if OPENSENT and t == 4:
        check("no KEEPALIVE on the losing connection", False,
              "(fared went on to OpenConfirm there)")
check("Cease/7 on the connection %s opened" %
      ("the peer" if fared_wins else "fared"),
      t == 3 and body[:2] == b"\x06\x07", "(got type %s %r)" % (t, body))
if OPENSENT and fared_wins:
    # Our OPEN, held back until now, on the connection that survives.
    winner.sendall(open_msg())
    check("fared answers OPEN with KEEPALIVE on its own connection",
          expect(winner, 4) is not None)
elif OPENSENT:
    check("fared answers OPEN with KEEPALIVE on the peer's connection",
          expect(winner, 4) is not None)
winner.sendall(msg(4, b""))
if not fared_wins and not OPENSENT:
    t = expect(winner, 4)
    check("the surviving connection gets KEEPALIVE", t is not None)
elif not fared_wins:
    check("the surviving connection carries UPDATEs",
          expect(winner, 2) is not None)
else:
    # Our KEEPALIVE on fared's connection makes it Established; fared
    # sends its End-of-RIB (an UPDATE).
    check("the surviving connection carries UPDATEs",
          expect(winner, 2) is not None)
print("%d passed, %d failed" % (res["passed"], res["failed"]))
sys.exit(1 if res["failed"] else 0)
