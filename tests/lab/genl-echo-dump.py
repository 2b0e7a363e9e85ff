#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# genl-echo-dump.py PLANE: raw generic netlink against fare.ko in the
# caller's network namespace ("ip netns exec"), whose plane PLANE exists.
# No libfare: what the kernel sends is read as it arrives.
#
# 1. NLM_F_ECHO: a ROUTE_NEW, GROUP_NEW and ROUTE_DEL sent with it get, before
#    their ack, the event they caused, with the request's sequence number;
#    the same requests without it get the ack alone.
# 2. NLM_F_DUMP_INTR: a route dump over many messages, read one message at
#    a time, is marked interrupted when a route is added between two reads,
#    and not marked when nothing changes.
#
# Prints "ok: ..." or "FAIL: ..." lines; exit status 1 if any failed.
import os
import re
import socket
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
UAPI = os.path.join(HERE, "..", "..", "uapi", "linux", "fare.h")

NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_ECHO = 1, 2, 4, 8
NLM_F_DUMP_INTR = 0x10
NLM_F_DUMP = 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLA_F_NESTED = 0x8000


def enum_values(name):
    """The values of enum NAME in the uapi header, by name."""
    text = open(UAPI).read()
    body = re.search(r"enum %s \{(.*?)\};" % name, text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    vals, nxt = {}, 0
    for m in re.finditer(r"(\w+)\s*(?:=\s*(\w+))?\s*,", body):
        if m.group(2):
            nxt = int(m.group(2), 0) if m.group(2)[0].isdigit() \
                else vals[m.group(2)]
        vals[m.group(1)] = nxt
        nxt += 1
    return vals


CMD = enum_values("fare_cmd")
A = enum_values("fare_attr")
NHS = enum_values("fare_nexthops_attr")
NH = enum_values("fare_nh_attr")

failed = False


def check(what, good, detail=""):
    global failed
    if good:
        print("ok: %s" % what)
    else:
        failed = True
        print("FAIL: %s%s" % (what, ": " + detail if detail else ""))


def attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


def attrs(buf):
    out = {}
    while len(buf) >= 4:
        n, kind = struct.unpack_from("=HH", buf)
        if n < 4:
            break
        out[kind & ~NLA_F_NESTED] = buf[4:n]
        buf = buf[(n + 3) & ~3:]
    return out


class Genl:
    def __init__(self, family=None, bufsize=1 << 16):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
        self.s.bind((0, 0))
        # The kernel sizes a dump's messages by the largest read so far.
        self.bufsize = bufsize
        self.seq = 1000
        self.family = family or self.resolve()

    def send(self, msgtype, cmd, flags, payload=b""):
        self.seq += 1
        body = struct.pack("=BBH", cmd, 1, 0) + payload
        hdr = struct.pack("=IHHII", 16 + len(body), msgtype,
                          NLM_F_REQUEST | flags, self.seq, 0)
        self.s.send(hdr + body)
        return self.seq

    def recv(self):
        """The messages of one recv(): (type, flags, seq, cmd, attrs)."""
        data = self.s.recv(self.bufsize)
        msgs = []
        while len(data) >= 16:
            n, t, f, seq, _ = struct.unpack_from("=IHHII", data)
            body = data[16:n]
            if t == NLMSG_ERROR:
                msgs.append((t, f, seq, struct.unpack_from("=i", body)[0],
                             None))
            elif t == NLMSG_DONE:
                msgs.append((t, f, seq, None, None))
            else:
                msgs.append((t, f, seq, body[0], attrs(body[4:])))
            data = data[(n + 3) & ~3:]
        return msgs

    def until_ack(self, seq):
        """Every message up to the ack of SEQ; the ack's error last."""
        got = []
        while True:
            for m in self.recv():
                if m[2] != seq:
                    continue
                got.append(m)
                if m[0] == NLMSG_ERROR:
                    return got

    def resolve(self):
        seq = self.send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK,
                        attr(CTRL_ATTR_FAMILY_NAME, b"fare\0"))
        for m in self.until_ack(seq):
            if m[0] == GENL_ID_CTRL and m[4]:
                return struct.unpack("=H", m[4][CTRL_ATTR_FAMILY_ID][:2])[0]
        sys.exit("FAIL: no fare family")


def route_key(i):
    dst = socket.inet_aton("10.%d.%d.0" % (200 + i // 256, i % 256))
    return (attr(A["FARE_A_ROUTE_FAMILY"], bytes([socket.AF_INET])) +
            attr(A["FARE_A_ROUTE_DST"], dst) +
            attr(A["FARE_A_ROUTE_PLEN"], bytes([24])))


def nexthops(plane, weight):
    nh = (attr(NH["FARE_A_NH_PLANE_ID"], struct.pack("=I", plane)) +
          attr(NH["FARE_A_NH_WEIGHT"], struct.pack("=I", weight)))
    return attr(A["FARE_A_ROUTE_NEXTHOPS"] | NLA_F_NESTED,
                attr(NHS["FARE_A_NEXTHOPS_ENTRY"] | NLA_F_NESTED, nh))


def do(g, cmd, payload, flags=NLM_F_ACK):
    got = g.until_ack(g.send(g.family, CMD[cmd], flags, payload))
    if got[-1][3] != 0:
        sys.exit("FAIL: %s refused: %d" % (cmd, got[-1][3]))
    return got[:-1]


def echo_checks(g, plane):
    key = route_key(0)
    got = do(g, "FARE_CMD_ROUTE_NEW", key + nexthops(plane, 3),
             NLM_F_ACK | NLM_F_ECHO)
    check("ROUTE_NEW with NLM_F_ECHO: one echo before the ack",
          len(got) == 1 and got[0][3] == CMD["FARE_CMD_ROUTE_NEW"] and
          got[0][4].get(A["FARE_A_ROUTE_DST"]) ==
          socket.inet_aton("10.200.0.0"), repr(got))
    got = do(g, "FARE_CMD_ROUTE_NEW",
             key + nexthops(plane, 5) + attr(A["FARE_A_REPLACE"], b""))
    check("ROUTE_NEW without NLM_F_ECHO: the ack alone", got == [],
          repr(got))
    got = do(g, "FARE_CMD_GROUP_NEW",
             attr(A["FARE_A_GROUP_ID"], struct.pack("=I", 77)) +
             nexthops(plane, 2), NLM_F_ACK | NLM_F_ECHO)
    check("GROUP_NEW with NLM_F_ECHO: the group echoed",
          len(got) == 1 and got[0][3] == CMD["FARE_CMD_GROUP_NEW"] and
          got[0][4].get(A["FARE_A_GROUP_ID"]) == struct.pack("=I", 77),
          repr(got))
    do(g, "FARE_CMD_GROUP_DEL", attr(A["FARE_A_GROUP_ID"],
                                     struct.pack("=I", 77)))
    got = do(g, "FARE_CMD_ROUTE_DEL", key, NLM_F_ACK | NLM_F_ECHO)
    check("ROUTE_DEL with NLM_F_ECHO: the deletion echoed",
          len(got) == 1 and got[0][3] == CMD["FARE_CMD_ROUTE_DEL"],
          repr(got))


def dump_flags(g, change):
    """The flags of every message of a route dump read one recv() at a
    time, CHANGE() called after the first."""
    g.send(g.family, CMD["FARE_CMD_ROUTE_GET"], NLM_F_DUMP)
    flags, reads, routes = [], 0, 0
    while True:
        msgs = g.recv()
        reads += 1
        if reads == 1:
            change()
        for m in msgs:
            flags.append(m[1])
            if m[0] == NLMSG_DONE:
                return flags, reads, routes
            if m[0] == NLMSG_ERROR:
                sys.exit("FAIL: dump refused: %d" % m[3])
            routes += 1


def bulk(g, cmd, payloads):
    """Sends the requests in batches of 50, then reads their acks."""
    for b in range(0, len(payloads), 50):
        seqs = [g.send(g.family, CMD[cmd], NLM_F_ACK, p)
                for p in payloads[b:b + 50]]
        for seq in seqs:
            if g.until_ack(seq)[-1][3] != 0:
                sys.exit("FAIL: %s refused" % cmd)


def dump_checks(g, plane, n):
    other = Genl(g.family)
    bulk(other, "FARE_CMD_ROUTE_NEW",
         [route_key(i) + nexthops(plane, i) for i in range(1, n + 1)])
    flags, reads, routes = dump_flags(g, lambda: None)
    check("a dump of %d routes spans several messages" % n, reads > 2,
          "%d reads" % reads)
    check("an undisturbed dump lists every route", routes == n,
          "%d routes" % routes)
    check("an undisturbed dump is not marked interrupted",
          not any(f & NLM_F_DUMP_INTR for f in flags))

    def add_one():
        do(other, "FARE_CMD_ROUTE_NEW", route_key(n + 1) + nexthops(plane, 1))
    flags, reads, routes = dump_flags(g, add_one)
    check("a dump across a route add is marked NLM_F_DUMP_INTR",
          any(f & NLM_F_DUMP_INTR for f in flags),
          "flags %s" % sorted(set(flags)))
    bulk(other, "FARE_CMD_ROUTE_DEL", [route_key(i) for i in range(1, n + 2)])


def main():
    plane = int(sys.argv[1])
    g = Genl()
    echo_checks(g, plane)
    # Reads of 8 KB: about 45 routes a message.
    dump_checks(Genl(g.family, 8192), plane, 120)
    sys.exit(1 if failed else 0)


main()
