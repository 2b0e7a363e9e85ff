#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# TCP-AO (RFC 5925) between two fareds, IPv4 (hmac-sha1) and IPv6
# (cmac-aes-128). Needs a kernel with TCP-AO (CONFIG_TCP_AO): no stock
# Debian kernel has it, so tests/run-all runs this in the debug kernel's
# guest (tests/vm/test-kernel.config); tests/bgp/run does not discover it.
#  - the same keys: both sessions Established on both fareds, and both
#    kernels count segments whose MAC verified (TCPAOGood);
#  - the far fared's IPv4 and IPv6 secrets changed by SIGHUP: its sessions
#    restart and never come up while each kernel counts segments with a
#    bad MAC (TCPAOBad);
#  - the secrets right again (SIGHUP): both sessions up;
#  - no secret in either fared's log or control socket answers.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../auth-lib.sh"

# A kernel with TCP-AO, asked directly (not through fared's own probe).
python3 - <<'EOP' || fail "this kernel lacks TCP-AO: run this scenario on one with CONFIG_TCP_AO"
import errno, socket, sys
s = socket.socket()
try:
	s.getsockopt(socket.IPPROTO_TCP, 40, 128)	# TCP_AO_INFO
except OSError as e:
	sys.exit(e.errno != errno.ENOENT)	# ENOENT: AO, but no key yet
EOP

CTL_B=$DIR/b.sock
LOG_B=$DIR/fared-b.log
KEY4='ao v4 #key'
KEY6=ao-v6-key
WRONG=Wr0ngAoKey
# fared_conf FILE ROUTER-ID AS CTL STATE PEER4 PEER6 PEER-AS IDS4 IDS6 K4 K6
fared_conf()
{
	cat >"$1" <<EOC
router-id $2
local-as $3
hold-time 6
connect-retry 1
control-socket $4
state-file $5
plane 1 {
	neighbor $6 {
		remote-as $8
		tcp-ao $9 algorithm hmac-sha1 secret "${11}"
	}
	neighbor $7 {
		remote-as $8
		family ipv6
		tcp-ao ${10} algorithm cmac-aes-128 secret "${12}"
	}
}
EOC
	chmod 0600 "$1"
}
conf_a()
{
	fared_conf "$DIR/fared.conf" $F4 $F_AS "$CTL" "$DIR/a.state" $B4 $B6 \
		$B_AS "send-id 1 recv-id 2" "send-id 3 recv-id 4" "$KEY4" "$KEY6"
}
# conf_b KEY4 KEY6: the far fared's, with those secrets.
conf_b()
{
	fared_conf "$DIR/b.conf" $B4 $B_AS "$CTL_B" "$DIR/b.state" $F4 $F6 \
		$F_AS "send-id 2 recv-id 1" "send-id 4 recv-id 3" "$1" "$2"
}
b_up() { CTL=$CTL_B fared_established "$1"; }
all_up()
{
	fared_established $B4 && fared_established $B6 && b_up $F4 && b_up $F6
}
# One request per fared: under the debug kernel in TCG each costs seconds.
any_up()
{
	local q='any(.[]; .state == "Established")'
	ctl neighbors json | jq -e "$q" || CTL=$CTL_B ctl neighbors json | jq -e "$q"
}

setup_net
conf_a
conf_b "$KEY4" "$KEY6"
start_fared
ip netns exec "$NS_B" "$FARED" -c "$DIR/b.conf" >>"$LOG_B" 2>&1 &
PID_B=$!
good_f=$(tcpext "$NS_F" TCPAOGood)
good_b=$(tcpext "$NS_B" TCPAOGood)
wait_for 30 "both fareds see both sessions Established" all_up
counter_rose "$NS_F" TCPAOGood "$good_f" 4 || fail "TCPAOGood did not rise in $NS_F"
counter_rose "$NS_B" TCPAOGood "$good_b" 4 || fail "TCPAOGood did not rise in $NS_B"
echo "ok: the same keys: IPv4 (hmac-sha1) and IPv6 (cmac-aes-128) Established on both fareds, TCPAOGood rose in both namespaces"

conf_b "$WRONG" "$WRONG"
kill -HUP "$PID_B"
wait_for 10 "fared sees B4 go down" eval '! fared_established $B4'
never_up_until "$NS_F" TCPAOBad 3 60 "the far fared's keys wrong: this fared's kernel" any_up
never_up_until "$NS_B" TCPAOBad 3 60 "the far fared's keys wrong: the far fared's kernel" any_up

conf_b "$KEY4" "$KEY6"
kill -HUP "$PID_B"
wait_for 30 "both sessions back with the same keys" all_up
echo "ok: the same keys again (SIGHUP): both sessions Established"
no_secret_leaked "$KEY4" "$KEY6" "$WRONG"
FARED_LOG=$LOG_B CTL=$CTL_B no_secret_leaked "$KEY4" "$KEY6" "$WRONG"
kill -0 "$PID_B" || fail "the far fared died"
