#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fared started as root with -u nobody -g nogroup (issue 26 §3; fared.8,
# PRIVILEGES), with its control socket and state file in a directory that
# does not exist yet:
#   - /proc/PID/status: every uid and gid is nobody's, no supplementary
#     group but nogroup, CapEff and CapPrm are CAP_NET_ADMIN and
#     CAP_NET_BIND_SERVICE (0x1400) and nothing else, CapInh and CapAmb
#     are empty, the bounding set is the same two, NoNewPrivs is set
#   - it listens on port 179 (ss: the socket is fared's) and BGP with BIRD
#     works both ways: BIRD has fared's prefixes, fared has BIRD's
#   - the socket is nobody:nogroup 0660 in a directory fared made for
#     nobody; nobody (fared's own uid) may change state (orf add)
#   - a SIGHUP reload as nobody still reads the file: BIRD gets a new
#     originated prefix
#   - SIGINT: fared exits 0 and removes its socket and state file
# What CAP_NET_ADMIN is kept for (fare.ko, kernel routes) needs fare.ko:
# tests/install/systemd.sh checks it, with the packaged unit, in a guest.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

CTL=$DIR/run/fared.sock
write_fared_conf
sed -i "s|^state-file .*|state-file $DIR/run/fared.state|" "$DIR/fared.conf"
chmod 0711 "$DIR"
bringup -u nobody -g nogroup
expect() { [ "$2" = "$3" ] || fail "$1: \"$2\", expected \"$3\""; echo "ok: $1: $2"; }
status() { awk -v k="$1:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$FARED_PID/status"; }
expect "fared's uids" "$(status Uid)" "65534 65534 65534 65534"
expect "fared's gids" "$(status Gid)" "65534 65534 65534 65534"
expect "fared's groups" "$(status Groups)" "65534"
expect "CapEff" "$(status CapEff)" 0000000000001400
expect "CapPrm" "$(status CapPrm)" 0000000000001400
expect "CapInh" "$(status CapInh)" 0000000000000000
expect "CapAmb" "$(status CapAmb)" 0000000000000000
expect "CapBnd" "$(status CapBnd)" 0000000000001400
expect "NoNewPrivs" "$(status NoNewPrivs)" 1

ip netns exec "$NS_F" ss -Hltnp 'sport = :179' | grep -q "pid=$FARED_PID," ||
	fail "fared does not listen on port 179: $(ip netns exec "$NS_F" ss -Hltnp)"
echo "ok: fared listens on port 179"
wait_for 10 "BIRD has fared's 10.203.0.0/24" bird_has_route 10.203.0.0/24 fared4
wait_for 10 "fared has BIRD's 10.202.1.0/24" fared_has_route 10.202.1.0/24
echo "ok: BGP with BIRD both ways"

expect "the socket's mode, owner and group" "$(stat -c '%a %U %G' "$CTL")" \
	"660 nobody nogroup"
expect "its directory's owner" "$(stat -c '%U' "$DIR/run")" nobody
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$FARECTL" bgp \
	-s "$CTL" orf add 10.99.0.0/16 2>&1) || fail "fared's own uid's orf add: $out"
ctl orf | grep -q 10.99.0.0/16 || fail "fared's own uid's orf add did nothing"
echo "ok: fared's own uid may change state"

sed -i 's|^originate 10.203.0.0/24|originate 10.203.9.0/24\noriginate 10.203.0.0/24|' \
	"$DIR/fared.conf"
kill -HUP "$FARED_PID"
wait_for 10 "BIRD has the reloaded 10.203.9.0/24" bird_has_route 10.203.9.0/24 fared4
echo "ok: a reload as nobody"

kill -INT "$FARED_PID"
rc=0
wait "$FARED_PID" || rc=$?
FARED_PID=
[ $rc -eq 0 ] || fail "fared exited $rc after SIGINT"
[ -e "$CTL" ] && fail "the control socket is left"
[ -e "$DIR/run/fared.state" ] && fail "the state file is left"
echo "ok: SIGINT: exit 0, socket and state file removed"
