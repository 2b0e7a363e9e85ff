# SPDX-License-Identifier: GPL-2.0-only
# Shared by the session-protection scenarios (tcp-md5, gtsm, tcp-ao): the
# kernel's TCP counters of a namespace, which count the segments that
# TCP-MD5, TCP-AO and GTSM dropped where fared and its peers cannot see.

# tcpext NS NAME: the namespace's TcpExt counter NAME (e.g. TCPMD5Failure).
tcpext()
{
	ip netns exec "$1" cat /proc/net/netstat | awk -v n="$2" '
		$1 == "TcpExt:" && !names { for (i = 2; i <= NF; i++) k[i] = $i; names = 1; next }
		$1 == "TcpExt:" { for (i = 2; i <= NF; i++) if (k[i] == n) print $i }'
}

# counter_rose NS NAME BASE BY: NAME in NS is at least BASE + BY.
counter_rose()
{
	[ "$(tcpext "$1" "$2")" -ge $(($3 + $4)) ]
}

# never_up_until NS NAME BY SECONDS DESCRIPTION UP-CMD...: polls until the
# counter NAME in NS has risen BY (each rise a segment the kernel dropped),
# failing if UP-CMD (a session seen up) ever succeeds meanwhile, or if the
# counter does not rise within SECONDS.
never_up_until()
{
	local ns=$1 name=$2 by=$3 limit=$(($4 * FARE_WAIT_SCALE)) what=$5
	local base end
	shift 5
	base=$(tcpext "$ns" "$name")
	[[ $base =~ ^[0-9]+$ ]] || fail "no counter $name in $ns: \"$base\""
	end=$((SECONDS + limit))
	while :; do
		"$@" >/dev/null 2>&1 && fail "$what: the session came up"
		counter_rose "$ns" "$name" "$base" "$by" && break
		[ $SECONDS -lt $end ] ||
			fail "$what: $name in $ns rose $(($(tcpext "$ns" "$name") - base)) in ${limit}s, not $by"
		sleep 0.2
	done
	"$@" >/dev/null 2>&1 && fail "$what: the session came up"
	echo "ok: $what: never up, $name in $ns rose by $by or more"
}

# no_secret_leaked SECRET...: neither fared's log nor its control socket's
# answers hold any of the secrets.
no_secret_leaked()
{
	local s answers

	answers=$(ctl neighbors json; ctl neighbors; ctl routes json)
	[ -n "$answers" ] || fail "no answer on fared's control socket"
	for s in "$@"; do
		grep -qF -- "$s" "$FARED_LOG" && fail "fared's log shows a secret"
		grep -qF -- "$s" <<<"$answers" &&
			fail "fared's control socket shows a secret"
	done
	echo "ok: no secret in fared's log or control socket answers"
}
