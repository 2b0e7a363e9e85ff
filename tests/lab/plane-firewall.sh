#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Firewall rules by plane (issue 24 §4; datapath.md "Firewalls and
# traffic control"). fare0 picks the plane in its transmit, after the IP
# stack's output hooks ran with fare0 as the output device; the plane's
# own egress hooks (nftables netdev egress, tc clsact egress) run after,
# in the plane's dev_queue_xmit. What each hook saw is read from its own
# counters and checked against the leaves' interface counters.
#  1. 400 datagrams over two planes 1:1, IPv4 and IPv6: an inet
#     postrouting rule on oifname fare0 counts all of them, one on
#     oifname eth-p1 none; each plane's netdev egress and tc egress
#     counters count what that plane's leaf received.
#  2. An operator's per-plane drop (netdev egress on eth-p2, the remote's
#     address): leaf 2 gets none of the stream, leaf 1 its half; the
#     rule's counter and fare0's tx_dropped (`ip -s link`) both count
#     plane 2's half. Traffic to another destination over plane 2 still
#     passes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=400

command -v nft >/dev/null || { echo "lab: nft missing (tests/deps.sh)"; exit 1; }
load_fare
topo_planes 2 v6
plane_add_all 2 v6
ip -n remote addr add 198.51.100.2/32 dev lo
for i in 1 2; do
	ip -n leaf$i route add 198.51.100.2/32 via 10.1$i.0.2
done
"$FARECTL" -n host route add 198.51.100.0/24 mode packet src 192.0.2.7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1
"$FARECTL" -n host route add 2001:db8:100::/48 mode packet src 2001:db8:7::7 \
	nexthop plane 1 weight 1 nexthop plane 2 weight 1

ip netns exec host nft -f - <<'EOF'
table inet lab {
	chain post {
		type filter hook postrouting priority 0;
		oifname "fare0" udp dport 9000 counter name post_fare0
		oifname "eth-p1" udp dport 9000 counter name post_p1
	}
	counter post_fare0 { }
	counter post_p1 { }
}
table netdev lab1 {
	chain egress {
		type filter hook egress device "eth-p1" priority 0;
		udp dport 9000 counter name eg
	}
	counter eg { }
}
table netdev lab2 {
	chain egress {
		type filter hook egress device "eth-p2" priority 0;
		udp dport 9000 counter name eg
	}
	counter eg { }
}
EOF
for i in 1 2; do
	ip netns exec host tc qdisc add dev eth-p$i clsact
	for proto in ip ipv6; do
		ip netns exec host tc filter add dev eth-p$i egress \
			protocol $proto flower ip_proto udp dst_port 9000 \
			action pass
	done
done

# nft_count FAMILY TABLE COUNTER: that named counter's packets.
nft_count()
{
	ip netns exec host nft -j list counter "$1" "$2" "$3" |
		jq '.nftables[] | select(.counter) | .counter.packets'
}
# tc_count I: the packets tc's egress filters on eth-pI passed.
tc_count()
{
	ip netns exec host tc -s -j filter show dev eth-p"$1" egress |
		jq '[.[] | select(.options.actions) |
		     .options.actions[0].stats.packets] | add'
}
leaf_rx() { ip -n leaf"$1" -s -j link show eth-host | jq '.[0].stats64.rx.packets'; }
fare0_dropped() { ip -n host -s -j link show fare0 | jq '.[0].stats64.tx.dropped'; }
send()
{
	ip netns exec host "$FARE_UDP" send --src "$1" --dst "$2" --port 9000 \
		--count "$3" --size 100 >/dev/null
}
leaves_got() { [ $(($(leaf_rx 1) + $(leaf_rx 2) - l1 - l2)) -ge "$1" ]; }

# ---- 1. where the stream is seen ----
for fam in 4 6; do
	if [ $fam = 4 ]; then src=192.0.2.7 dst=198.51.100.1
	else src=2001:db8:7::7 dst=2001:db8:100::1; fi
	f0=$(nft_count inet lab post_fare0)
	fp1=$(nft_count inet lab post_p1)
	e1=$(nft_count netdev lab1 eg) e2=$(nft_count netdev lab2 eg)
	t1=$(tc_count 1) t2=$(tc_count 2)
	l1=$(leaf_rx 1) l2=$(leaf_rx 2)
	send $src $dst $N
	wait_until 10 leaves_got $N || true
	g1=$(($(leaf_rx 1) - l1)) g2=$(($(leaf_rx 2) - l2))
	expect_eq "$fam: the leaves received" $((g1 + g2)) $N
	expect_near "$fam: plane 1's half" $g1 $((N / 2)) 2
	expect_eq "$fam: inet postrouting, oifname fare0" \
		$(($(nft_count inet lab post_fare0) - f0)) $N
	expect_eq "$fam: inet postrouting, oifname eth-p1" \
		$(($(nft_count inet lab post_p1) - fp1)) 0
	expect_eq "$fam: netdev egress on eth-p1 = leaf 1's rx" \
		$(($(nft_count netdev lab1 eg) - e1)) $g1
	expect_eq "$fam: netdev egress on eth-p2 = leaf 2's rx" \
		$(($(nft_count netdev lab2 eg) - e2)) $g2
	expect_eq "$fam: tc egress on eth-p1 = leaf 1's rx" \
		$(($(tc_count 1) - t1)) $g1
	expect_eq "$fam: tc egress on eth-p2 = leaf 2's rx" \
		$(($(tc_count 2) - t2)) $g2
done

# ---- 2. an operator's drop on plane 2 ----
ip netns exec host nft -f - <<'EOF'
table netdev drop2 {
	chain egress {
		type filter hook egress device "eth-p2" priority 10;
		ip daddr 198.51.100.1 counter name dropped drop
	}
	counter dropped { }
}
EOF
l1=$(leaf_rx 1) l2=$(leaf_rx 2) d=$(fare0_dropped)
send 192.0.2.7 198.51.100.1 $N
wait_until 10 leaves_got $((N / 2 - 2)) || true
g1=$(($(leaf_rx 1) - l1)) g2=$(($(leaf_rx 2) - l2))
dropped=$(nft_count netdev drop2 dropped)
expect_eq "drop on plane 2: leaf 2 received" $g2 0
expect_near "drop on plane 2: leaf 1 received its half" $g1 $((N / 2)) 2
expect_eq "drop on plane 2: the rule dropped the rest" $dropped $((N - g1))
expect_eq "drop on plane 2: fare0's tx_dropped = the rule's" \
	$(($(fare0_dropped) - d)) "$dropped"
l2=$(leaf_rx 2)
leaf2_got() { [ $(($(leaf_rx 2) - l2)) -ge "$1" ]; }
send 192.0.2.7 198.51.100.2 $N
wait_until 10 leaf2_got $((N / 2 - 2)) || true
expect_near "another destination over plane 2 passes" \
	$(($(leaf_rx 2) - l2)) $((N / 2)) 2

lab_result
