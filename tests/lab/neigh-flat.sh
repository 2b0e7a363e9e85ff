#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fare0 is point-to-point: IPv4 output through it resolves every
# destination to one neighbour entry, so 10,000 destinations routed via
# fare0 leave the neighbour table as it was (once, each made an entry of
# its own until the table overflowed at gc_thresh3 and sends failed). IPv6
# output keys its entry by the route's gateway, so fare's IPv6 kernel
# routes go via one link-local gateway on fare0, that of fare0's IPv6
# nexthop object for a route without a source (once, "dev fare0" alone
# made an entry per destination: 1,009 new entries for these 10,000): 10,000
# IPv6 destinations make at most one. The peer counts the datagrams it
# received.
set -eu
. "$(dirname "$0")/lib.sh"

N=10000
load_fare
netns_add nh v6
netns_add np v6
veth_link nh eth-p 10.1.0.2/24 np eth-h 10.1.0.1/24
ip -n nh addr add 2001:db8:1::2/64 dev eth-p nodad
ip -n np addr add 2001:db8:1::1/64 dev eth-h nodad
neigh_pin nh eth-p 10.1.0.1 np eth-h
neigh_pin6 nh eth-p 2001:db8:1::1 np eth-h
ip -n nh addr add 192.0.2.7/32 dev lo
ip -n nh addr add 2001:db8:7::7/128 dev lo
# The peer takes every address of fare's prefixes as its own.
ip -n np route add local 10.128.0.0/16 dev lo
ip -n np -6 route add local 2001:db8:80::/48 dev lo
ip -n np route add 192.0.2.7/32 via 10.1.0.2 dev eth-h
ip -n np -6 route add 2001:db8:7::7/128 via 2001:db8:1::2 dev eth-h

"$FARECTL" -n nh plane add 1 dev eth-p via 10.1.0.1 via 2001:db8:1::1
"$FARECTL" -n nh route add 10.128.0.0/16 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1
# Without a source, as fared's routes: through fare0's IPv6 nexthop
# object (with one, a next hop of its own: the same gateway).
"$FARECTL" -n nh route add 2001:db8:80::/48 mode packet \
	nexthop plane 1 weight 1
expect_eq "the IPv6 kernel route via one link-local gateway on fare0" \
	"$(ip -n nh -6 -j route show table 249 2001:db8:80::/48 |
		jq -r '.[0] | "\(.gateway) \(.dev)"')" "fe80::1 fare0"
expect_eq "through fare0's IPv6 nexthop object" \
	"$(ip -n nh -6 -j route show table 249 2001:db8:80::/48 | jq -r '.[0].nhid')" \
	$((0xf0000000 + 1024 * $(ip -n nh -j link show fare0 | jq '.[0].ifindex') + 1))

rx() { ip -n np -j -s link show eth-h | jq '.[0].stats64.rx.packets'; }
# Every state: "ip neigh" hides NOARP entries by default.
neigh() { ip -n nh "-$1" neigh show nud all | wc -l; }
# The kernel's count of entries in a neighbour table, all namespaces.
table_entries() { echo $((16#$(awk 'NR == 2 { print $1 }' "/proc/net/stat/$1"))); }

# send_to_many 4|6 SRC: a datagram to each of N addresses in fare's
# prefix of that family; prints how many the socket took.
send_to_many()
{
	ip netns exec nh python3 -S - "$N" "$1" "$2" <<'PY'
import socket, sys
n, fam, src = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_INET if fam == "4" else socket.AF_INET6,
                  socket.SOCK_DGRAM)
s.bind((src, 0))
ok = 0
for i in range(n):
    if fam == "4":
        dst = "10.128.%d.%d" % (i // 250, i % 250 + 1)
    else:
        dst = "2001:db8:80::%x:%x" % (i // 250, i % 250 + 1)
    try:
        s.sendto(b"x", (dst, 9))
        ok += 1
    except OSError:
        pass
print(ok)
PY
}

# flat 4|6 SRC TABLE NAME: N destinations through fare0 reach the peer
# and leave the sender's and the kernel's neighbour tables flat.
flat()
{
	local fam=$1 src=$2 table=$3 name=$4 n0 n1 e0 e1 rx0 sent got

	n0=$(neigh "$fam")
	e0=$(table_entries "$table")
	rx0=$(rx)
	sent=$(send_to_many "$fam" "$src")
	n1=$(neigh "$fam")
	e1=$(table_entries "$table")
	got=$(($(rx) - rx0))
	expect_eq "IPv$fam datagrams the sender could send" "$sent" $N
	expect_eq "peer received all of them (IPv$fam)" $((got >= N)) 1
	log "IPv$fam neighbour entries in the sender: $n0 before, $n1 after $N destinations:"
	ip -n nh "-$fam" neigh show nud all
	log "$name table entries (kernel count, all namespaces): $e0 before, $e1 after"
	expect_eq "IPv$fam neighbour entries of fare0 (one for all destinations)" \
		$(($(ip -n nh "-$fam" neigh show dev fare0 nud all | wc -l) <= 1)) 1
	expect_eq "sender's IPv$fam neighbour table flat (at most 2 new entries)" \
		$((n1 - n0 <= 2)) 1
	# fare0's one entry, the peer's for the sender and the reverse path's;
	# on a loaded machine also the sender's entry for its leaf's
	# link-local (router, REACHABLE) and the leaf's for the sender: the
	# debug kernel went 3 -> 6 at load 4-7 (with and without per-device
	# state) and 3 -> 8 twice at load 9. Constant, never one per
	# destination (10,000 here).
	expect_eq "$name table flat (at most 6 new entries)" $((e1 - e0 <= 6)) 1
}

flat 4 192.0.2.7 arp_cache ARP
flat 6 2001:db8:7::7 ndisc_cache ND
lab_result
