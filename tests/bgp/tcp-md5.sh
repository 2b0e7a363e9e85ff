#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# TCP-MD5 (RFC 2385) against BIRD, IPv4 and IPv6: fared's "password" on
# both neighbors, BIRD's "password" on both sessions.
#  - the same key: both sessions Established (BIRD's view: BIRD drops any
#    segment without its signature), and BIRD has fared's route;
#  - fared's key changed by SIGHUP to a wrong one: the sessions restart
#    and never come up while both kernels count segments with a wrong
#    signature (TCPMD5Failure: fared's SYNs at BIRD, BIRD's at fared's
#    listener);
#  - fared's key right again, BIRD's wrong ("birdc configure"): the same;
#  - both right: up again, through a reload of fared's key;
#  - fared passive, so that only BIRD connects: up with the key (the key
#    on fared's listening sockets), then, with the key removed on both
#    sides by a reload, up without it (the listeners lost the key: they
#    would drop BIRD's unsigned SYNs otherwise);
#  - neither fared's log nor its control socket shows a key, and fared
#    warns that its world-readable file holds keys.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/auth-lib.sh"

KEY='md5 key#with {braces}'
WRONG=Wr0ngKey
# fared_md5 KEY: fared.conf with KEY on both neighbors.
# fared_md5 KEY [passive]: fared.conf with KEY on both neighbors (none if
# KEY is empty).
fared_md5()
{
	write_fared_conf "" ""
	[ -z "$1" ] || sed -i "s/^\t\tremote-as $B_AS\$/&\n\t\tpassword \"$1\"/" \
		"$DIR/fared.conf"
	[ -z "${2:-}" ] || sed -i "s/^\t\tremote-as $B_AS\$/&\n\t\tpassive/" \
		"$DIR/fared.conf"
	[ -z "$1" ] || [ "$(grep -c "password \"$1\"" "$DIR/fared.conf")" = 2 ] ||
		fail "fared.conf: no password lines"
}
bird_md5()
{
	local p=${1:+password \"$1\";}
	BIRD_F4_EXTRA=$p BIRD_F6_EXTRA=$p write_bird_conf
}
both_up()
{
	bird_established fared4 && bird_established fared6
}
either_up()
{
	bird_established fared4 || bird_established fared6 ||
		fared_established $B4 || fared_established $B6
}

setup_net
fared_md5 "$KEY"
chmod 0644 "$DIR/fared.conf"
bird_md5 "$KEY"
start_bird
start_fared
wait_for 20 "BIRD sees fared4 and fared6 Established" both_up
wait_for 10 "fared sees B4 Established" fared_established $B4
wait_for 10 "fared sees B6 Established" fared_established $B6
wait_for 10 "BIRD has fared's route" bird_has_route 10.203.0.0/24 fared4
echo "ok: the same key: both sessions Established, BIRD has fared's route"
grep -q "warning: the file holds TCP-MD5/TCP-AO secrets and every user may read it" \
	"$FARED_LOG" || fail "no warning about the world-readable key file"
echo "ok: fared warns about its world-readable key file"
chmod 0600 "$DIR/fared.conf"

fared_md5 "$WRONG"
kill -HUP "$FARED_PID"
wait_for 10 "BIRD sees fared4 go down" eval '! bird_established fared4'
never_up_until "$NS_B" TCPMD5Failure 3 30 "fared's key wrong: BIRD's kernel" either_up
never_up_until "$NS_F" TCPMD5Failure 3 30 "fared's key wrong: fared's kernel" either_up

fared_md5 "$KEY"
bird_md5 "$WRONG"
birdc_ configure >/dev/null || fail "birdc configure"
kill -HUP "$FARED_PID"
never_up_until "$NS_B" TCPMD5Failure 3 30 "BIRD's key wrong: BIRD's kernel" either_up
never_up_until "$NS_F" TCPMD5Failure 3 30 "BIRD's key wrong: fared's kernel" either_up

bird_md5 "$KEY"
birdc_ configure >/dev/null || fail "birdc configure"
wait_for 30 "both sessions back with the same key" both_up
wait_for 10 "fared sees B4 Established" fared_established $B4
wait_for 10 "fared sees B6 Established" fared_established $B6
echo "ok: the same key again: both sessions Established"
no_secret_leaked "$KEY" "$WRONG"

fared_md5 "$KEY" passive
kill -HUP "$FARED_PID"
wait_for 10 "BIRD sees fared4 go down (new session)" eval '! bird_established fared4'
wait_for 30 "BIRD's connections to passive fared, with the key" both_up
echo "ok: fared passive: BIRD's connections with the key accepted"
fared_md5 "" passive
bird_md5 ""
birdc_ configure >/dev/null || fail "birdc configure"
kill -HUP "$FARED_PID"
wait_for 30 "BIRD's connections to passive fared, no key on either side" both_up
echo "ok: the key removed on both sides: BIRD's unsigned connections accepted"
