#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# route-watch.py record FILE
#     Listens to the IPv4 route multicast group of the current network
#     namespace (receive buffer forced to 256 MiB) and appends every
#     datagram to FILE with the wall-clock time it was read: it only reads
#     and stamps, so that it keeps up with a daemon installing 100k routes
#     under TCG (ip monitor, which formats every route, falls behind and
#     stamps late). Stops on SIGTERM. An ENOBUFS (events lost) is recorded.
#
# route-watch.py done FILE N PROTO NEXTHOPS
#     Replays FILE: the time at which, for the first time, N distinct IPv4
#     prefixes of routing protocol PROTO were present with NEXTHOPS next
#     hops each (a route is its prefix, table and metric; a single-next-hop
#     route counts 1; deletions count). Prints
#     "TIME EVENTS LOST", TIME "-" if never; LOST is the ENOBUFS count.
import errno
import signal
import socket
import struct
import sys

RTMGRP_IPV4_ROUTE = 0x40
SO_RCVBUFFORCE = 33
RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTA_DST, RTA_PRIORITY, RTA_MULTIPATH, RTA_TABLE = 1, 6, 9, 15


def record(path):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 256 << 20)
    s.bind((0, RTMGRP_IPV4_ROUTE))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    import time
    with open(path, "wb", buffering=1 << 20) as out:
        while True:
            try:
                data = s.recv(1 << 20)
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                data = b""     # a zero-length record marks lost events
            out.write(struct.pack("=dI", time.time(), len(data)) + data)


def done(path, n, proto, want):
    hops = {}
    complete = 0
    events = lost = 0
    with open(path, "rb") as f:
        buf = f.read()
    off = 0
    while off + 12 <= len(buf):
        t, ln = struct.unpack_from("=dI", buf, off)
        off += 12
        data = buf[off:off + ln]
        off += ln
        if ln == 0:
            lost += 1
            continue
        p = 0
        while p + 16 <= len(data):
            mlen, mtype = struct.unpack_from("=IH", data, p)
            if mlen < 16:
                break
            msg = data[p + 16:p + mlen]
            p += (mlen + 3) & ~3
            if mtype not in (RTM_NEWROUTE, RTM_DELROUTE) or len(msg) < 12:
                continue
            fam, dlen, _, _, table, rproto = struct.unpack_from("=BBBBBB",
                                                                 msg, 0)
            if fam != socket.AF_INET or rproto != proto:
                continue
            events += 1
            dst, nh, prio = b"", 1, 0
            a = 12
            while a + 4 <= len(msg):
                alen, atype = struct.unpack_from("=HH", msg, a)
                if alen < 4:
                    break
                val = msg[a + 4:a + alen]
                if atype == RTA_DST:
                    dst = val
                elif atype == RTA_PRIORITY:
                    prio = struct.unpack_from("=I", val)[0]
                elif atype == RTA_TABLE:
                    table = struct.unpack_from("=I", val)[0]
                elif atype == RTA_MULTIPATH:
                    nh, q = 0, 0
                    while q + 8 <= len(val):
                        rl = struct.unpack_from("=H", val, q)[0]
                        if rl < 8:
                            break
                        nh += 1
                        q += (rl + 3) & ~3
                a += (alen + 3) & ~3
            # One kernel route: prefix, table and metric.
            key = (dst, dlen, table, prio)
            old = hops.get(key, 0)
            new = 0 if mtype == RTM_DELROUTE else nh
            hops[key] = new
            complete += (new == want) - (old == want)
            if complete >= n:
                print("%.6f %d %d" % (t, events, lost))
                return
    final = {}
    for v in hops.values():
        final[v] = final.get(v, 0) + 1
    print("route-watch: never %d with %d next hops; at the end, routes by "
          "next hops: %s" % (n, want, sorted(final.items())), file=sys.stderr)
    print("- %d %d" % (events, lost))


if __name__ == "__main__":
    if sys.argv[1] == "record":
        record(sys.argv[2])
    else:
        done(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
             int(sys.argv[5]))
