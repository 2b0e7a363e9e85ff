#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Who may use fared's control socket (issue 26 §3; fared.8, CONTROL
# SOCKET): fared.conf's control-group daemon makes the socket root:daemon
# 0660. farectl run as an unprivileged uid (setpriv, uid nobody):
#   - a member of the group may look (neighbors, routes, orf) and is
#     refused what changes fared's state (clear, orf add), with farectl
#     exiting non-zero and saying "permission denied"; root's orf list
#     afterwards shows the refused add did nothing
#   - a uid outside the group cannot connect at all (the kernel's EACCES)
#   - root (and fared's own uid: tests/bgp/privdrop.sh) may change state
#   - fared -n names an unknown control-group with its file and line
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# An unknown group is a configuration error, named with its line.
write_fared_conf "control-group no-such-group-fare"
rc=0
out=$("$FARED" -n -c "$DIR/fared.conf" 2>&1) || rc=$?
[ $rc -eq 1 ] && grep -q "fared.conf:[0-9]*: control-group: no-such-group-fare" <<<"$out" ||
	fail "fared -n with an unknown control-group: exit $rc: $out"
echo "ok: fared -n refuses an unknown control-group: $(head -n 1 <<<"$out")"

write_fared_conf "control-group daemon"
bringup
# The test's directory is root's 0700: let others reach the socket.
chmod 0711 "$DIR"
expect() { [ "$2" = "$3" ] || fail "$1: \"$2\", expected \"$3\""; echo "ok: $1: $2"; }
expect "the socket's mode, owner and group" "$(stat -c '%a %U %G' "$CTL")" \
	"660 root daemon"

gid=$(getent group daemon | cut -d: -f3)
reader() { setpriv --reuid=65534 --regid=65534 --groups="$gid" "$FARECTL" "$@"; }
stranger() { setpriv --reuid=65534 --regid=65534 --clear-groups "$FARECTL" "$@"; }

out=$(reader -j bgp -s "$CTL" neighbors 2>&1) || fail "a group member's neighbors: $out"
expect "a group member's neighbors" "$(jq -r '[.[].state] | join(" ")' <<<"$out")" \
	"Established Established"
# Sessions up is not routes in: wait for BIRD's route as root first.
wait_for 30 "fared to have 10.202.1.0/24" eval \
	'ctl routes json | jq -e "any(.[]; .prefix == \"10.202.1.0/24\")"'
out=$(reader -j bgp -s "$CTL" routes 10.202.1.0/24 2>&1) || fail "a group member's routes: $out"
expect "a group member's routes" "$(jq -r '.[0].prefix' <<<"$out")" 10.202.1.0/24
reader bgp -s "$CTL" orf >/dev/null 2>&1 || fail "a group member's orf list"

for req in "clear $B4" "orf add 10.99.0.0/16"; do
	rc=0
	# shellcheck disable=SC2086
	out=$(reader bgp -s "$CTL" $req 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "a group member's \"$req\" exited 0: $out"
	grep -q "permission denied" <<<"$out" ||
		fail "a group member's \"$req\": no \"permission denied\": $out"
	echo "ok: a group member's \"$req\" is refused (exit $rc): $out"
done
ctl orf | grep -q 10.99.0.0/16 && fail "the refused orf add took effect"
echo "ok: root's orf list does not have the refused 10.99.0.0/16"

rc=0
out=$(stranger bgp -s "$CTL" neighbors 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "a uid outside the group got neighbors: $out"
grep -q "Permission denied" <<<"$out" || fail "outside the group: $out"
echo "ok: outside the group, farectl cannot connect (exit $rc): $out"

out=$("$FARECTL" bgp -s "$CTL" orf add 10.99.0.0/16 2>&1) || fail "root's orf add: $out"
ctl orf | grep -q 10.99.0.0/16 || fail "root's orf add did not take effect"
"$FARECTL" bgp -s "$CTL" clear $B4 >/dev/null || fail "root's clear"
echo "ok: root may change fared's state (orf add, clear)"
