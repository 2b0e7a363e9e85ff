#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ConnectRetry in the Connect state (RFC 4271 §8.2.2): a connection that
# is not set up when the timer expires is dropped and a new one started,
# rather than left to the kernel's SYN retransmissions (1, 3, 7, 15 s ...
# after the first). For 12 s nothing answers fared's SYNs (the peer's
# namespace routes its answers to fared into a blackhole, BIRD not yet
# started): with connect-retry 1 fared starts about one connection a
# second, so the peer's kernel counts at least 8 TCP segments in (one
# connection's retransmissions alone make 4 in that time: fared before
# this change); then the blackhole goes, BIRD starts, the session comes
# up. fared's IPv6 neighbor is left out, so every segment is IPv4's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

setup_net
write_fared_conf
sed -i "/neighbor $B6 {/,/^\t}/d" "$DIR/fared.conf"
grep -q "neighbor $B6" "$DIR/fared.conf" && fail "the IPv6 neighbor is still there"
write_bird_conf
# Kernels from 6.7 retransmit the first SYNs at 1 s intervals
# (tcp_syn_linear_timeouts, 4 by default); 0 gives every kernel the
# exponential backoff the count above assumes.
if [ -e /proc/sys/net/ipv4/tcp_syn_linear_timeouts ]; then
	ip netns exec "$NS_F" sysctl -qw net.ipv4.tcp_syn_linear_timeouts=0 ||
		fail "sysctl tcp_syn_linear_timeouts"
fi
ip -n "$NS_B" route add blackhole $F4/32 || fail "blackhole route"
tcp_in() {
	ip netns exec "$NS_B" awk '$1 == "Tcp:" && $11 ~ /^[0-9]+$/ { print $11 }' \
		/proc/net/snmp
}
before=$(tcp_in)
[[ $before =~ ^[0-9]+$ ]] || fail "no TCP InSegs in the peer's namespace: \"$before\""
start_fared
sleep 12
segs=$(($(tcp_in) - before))
[ "$(fared_state $B4)" != Established ] ||
	fail "fared Established although nothing answered"
if [ "$segs" -ge 8 ]; then
	echo "ok: $segs SYNs in 12 s: a new connection every connect-retry"
else
	fail "$segs SYNs in 12 s: the hung connect was not restarted by ConnectRetry"
fi
ip -n "$NS_B" route del blackhole $F4/32 || fail "blackhole route del"
start_bird
wait_for 20 "fared Established once the peer answers" fared_established $B4
wait_for 10 "BIRD sees fared4 Established" bird_established fared4
echo "ok: the session comes up once the peer answers"
