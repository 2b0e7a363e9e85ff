#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What a BFD speaker at SRC put on the wire, seen from the peer's side of
the link (run in the peer's namespace): one line per packet, flushed at
once, with the wall-clock time in ms:

  MS bfd STATE DIAG TTL         a BFD control packet from SRC to port 3784
  MS notification CODE SUBCODE [DATA0 DATA1]  a BGP NOTIFICATION from SRC

Usage: bfd-sniff.py IFNAME SRC-IPV4 (runs until killed)."""
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
STATES = ["AdminDown", "Down", "Init", "Up"]


def main():
    ifname, src = sys.argv[1], socket.inet_aton(sys.argv[2])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    s.bind((ifname, ETH_P_IP))
    print("listening", flush=True)
    while True:
        frame, addr = s.recvfrom(65535)
        # Ours only: PACKET_OUTGOING (4) is what this side sent.
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        ms = int(time.time() * 1000)
        ip = frame[14:]
        if len(ip) < 20 or ip[12:16] != src:
            continue
        ihl = (ip[0] & 15) * 4
        ttl, proto = ip[8], ip[9]
        l4 = ip[ihl:]
        if proto == 17 and len(l4) >= 8 + 24:
            dport = struct.unpack("!H", l4[2:4])[0]
            if dport != 3784:
                continue
            b = l4[8:]
            print(f"{ms} bfd {STATES[b[1] >> 6]} {b[0] & 31} {ttl}", flush=True)
        elif proto == 6 and len(l4) >= 20:
            off = (l4[12] >> 4) * 4
            data = l4[off:]
            # A NOTIFICATION at the start of a segment (fared sends it alone).
            i = data.find(b"\xff" * 16)
            while 0 <= i and i + 21 <= len(data):
                length, typ = struct.unpack("!HB", data[i + 16:i + 19])
                if typ == 3:
                    # A Hard Reset (6/9) carries the code inside: shown too.
                    inner = " ".join(str(x) for x in data[i + 21:i + 23])
                    print(f"{ms} notification {data[i + 19]} {data[i + 20]}"
                          f" {inner}".rstrip(), flush=True)
                if length < 19:
                    break
                i = data.find(b"\xff" * 16, i + length)


if __name__ == "__main__":
    main()
