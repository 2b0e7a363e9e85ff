#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fared run by systemd as Documentation/install.md says: the installed
# per-namespace unit fared@host.service with /etc/fare/fared-host.conf, on
# the topo_planes host with two BIRD leaves advertising the remote with
# path bandwidths 50 and 25 GB/s (links 400G): weights 2:1.
#
#   systemctl start    returns once fared is ready (Type=notify), and by
#                      then fare.ko's planes exist; fared runs in the
#                      namespace as the package's user fared with the group
#                      fare and CAP_NET_ADMIN and CAP_NET_BIND_SERVICE only;
#                      its control socket is fared:fare 0660, a member of
#                      fare may look but not change state, another uid
#                      cannot connect; 3000 datagrams split 2000:1000 at the
#                      receiver
#   systemctl reload   SIGHUP: the same fared, still active
#   systemctl restart  with graceful-restart (fared.8 RESTART): a new fared
#                      while a paced stream runs from the host's loopback
#                      (until the new fared weights 2:1 again); the
#                      receiver counts every datagram sent
#   apt-get install    (with FARE_UPGRADE_DEBS, the installed packages
#                      being an earlier release) the tree's packages under
#                      the same stream: none lost, a new fared running the
#                      new program, the loaded fare.ko still the earlier one
#   systemctl stop     with graceful-restart still configured: a stop for
#                      good (SIGINT, the unit's KillSignal): fared's routes
#                      leave fare.ko
#   apt-get remove     (with FARE_REMOVE=1) both packages while fared runs
#                      with graceful-restart: fared stops for good (the
#                      leaf loses its route), no fare.ko, no rule to tables
#                      248 and 249, no route in them
#
# A lab scenario for a guest whose PID 1 is systemd (tests/install/in-guest),
# with FARED and FARECTL naming the installed programs.
set -euo pipefail
. "$(dirname "$0")/../lab/lib.sh"

LAB_DIR=$(mktemp -d /tmp/fare-systemd.XXXXXX)
UNIT=fared@host.service
CONF=/etc/fare/fared-host.conf
SOCK=/run/fared/host.sock
DST=198.51.100.1/32
# binary16 GB/s: 50 = 0x5240, 25 = 0x4e40.
PB50=21056
PB25=20032

if [ "$(cat /proc/1/comm)" != systemd ]; then
	fail "PID 1 is $(cat /proc/1/comm), not systemd"
	lab_result
	exit 1
fi

unit_prop() { systemctl show -p "$1" --value "$UNIT"; }

load_fare
topo_planes 2
i=1
for pb in $PB50 $PB25; do
	leaf_bird_conf $i 30 "route $DST blackhole {
		bgp_ext_community.add((unknown 0x0f, 10.$i.0.1, $pb));
	};"
	leaf_bird_start $i
	i=$((i + 1))
done

# write_conf GR-LINE: fared-host.conf with that graceful-restart line.
write_conf()
{
	local GR=$1 i

	cat >"$CONF" <<EOC
# fared.conf(5) for the namespace "host" (fared@host.service)
router-id 192.0.2.7
local-as 65007
hold-time 30
connect-retry 1
control-socket $SOCK
state-file /run/fared/host.state
role host
mode packet
$GR
originate 192.0.2.7/32
policy remote {
	permit 198.51.100.0/24 le 32
}
policy self {
	permit 192.0.2.7/32
}
EOC
	for i in 1 2; do
		cat >>"$CONF" <<EOC
interface eth-p$i bandwidth 400G
plane $i {
	neighbor 10.$i.0.1 {
		remote-as 6510$i
		interface eth-p$i
		import remote
		export self
	}
}
EOC
	done
}
write_conf "graceful-restart restart-time 120"

# Type=notify: "start" returns once fared said READY=1, which it says once
# its planes exist in fare.ko.
if systemctl start "$UNIT"; then
	pass "systemctl start $UNIT"
	expect_eq "fare.ko's planes when systemctl start returned" \
		"$("$FARECTL" -j -n host plane show | jq -r '[.[].id] | sort | join(" ")')" \
		"1 2"
else
	fail "systemctl start $UNIT"
	systemctl status --no-pager "$UNIT" || true
	journalctl -u "$UNIT" --no-pager | tail -n 30
	lab_result
	exit 1
fi
expect_eq "$UNIT state" "$(unit_prop ActiveState)" active
pid=$(unit_prop MainPID)
expect_eq "fared's network namespace" "$(readlink "/proc/$pid/ns/net")" \
	"$(ip netns exec host readlink /proc/self/ns/net)"
# CAP_NET_BIND_SERVICE is bit 10, CAP_NET_ADMIN bit 12: nothing else.
status() { awk -v k="$1:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$pid/status"; }
expect_eq "fared's effective capabilities" "$(status CapEff)" 0000000000001400
expect_eq "fared's bounding set" "$(status CapBnd)" 0000000000001400
fared_uid=$(getent passwd fared | cut -d: -f3)
fare_gid=$(getent group fare | cut -d: -f3)
[ -n "$fared_uid" ] && [ "$fared_uid" != 0 ] && [ -n "$fare_gid" ] ||
	fail "the package made no user fared ($fared_uid) or group fare ($fare_gid)"
expect_eq "fared's uids" "$(status Uid)" \
	"$fared_uid $fared_uid $fared_uid $fared_uid"
expect_eq "fared's gids" "$(status Gid)" "$fare_gid $fare_gid $fare_gid $fare_gid"
expect_eq "the control socket's mode, owner and group" \
	"$(stat -c '%a %U %G' "$SOCK")" "660 fared fare"
reader() { setpriv --reuid=65534 --regid=65534 --groups="$fare_gid" "$FARECTL" "$@"; }
stranger() { setpriv --reuid=65534 --regid=65534 --clear-groups "$FARECTL" "$@"; }
expect_eq "a member of fare: farectl bgp neighbors" \
	"$(reader -j bgp -s "$SOCK" neighbors | jq length)" 2
expect_exit "a member of fare: farectl bgp clear" 1 "permission denied" \
	reader bgp -s "$SOCK" clear 10.1.0.1
expect_exit "outside fare: farectl bgp neighbors" 1 "Permission denied" \
	stranger bgp -s "$SOCK" neighbors

weights_are() { host_weights_are "$DST" "$1"; }

# dpkg_steps FROM: dpkg's log since line FROM, its timed steps (where an
# apt-get's time went in the emulated guest).
dpkg_steps()
{
	tail -n +"$(($1 + 1))" /var/log/dpkg.log 2>/dev/null |
		awk '$3 != "status" { print "dpkg.log: " $0 }'
	echo "dpkg.log: $(date '+%F %T') apt-get done"
}
dpkg_at()
{
	echo "dpkg.log: $(date '+%F %T') apt-get starts" >&2
	wc -l </var/log/dpkg.log 2>/dev/null || echo 0
}
wait_until 60 weights_are "1:2 2:1" || true
expect_eq "weights from the two sessions" "$(host_weights "$DST")" "1:2 2:1"
expect_eq "sessions (farectl bgp)" \
	"$("$FARECTL" -j bgp -s "$SOCK" neighbors | jq -r '[.[].state] | join(" ")')" \
	"Established Established"

send_phase 3000 1
split_is 1 2000 1000

if systemctl reload "$UNIT"; then
	pass "systemctl reload $UNIT"
else
	fail "systemctl reload $UNIT"
fi
expect_eq "the same fared after the reload" "$(unit_prop MainPID)" "$pid"
expect_eq "$UNIT state after the reload" "$(unit_prop ActiveState)" active

lines=$(journalctl -u "$UNIT" _PID="$pid" -o cat --no-pager | wc -l)
if [ "$lines" -gt 0 ]; then
	pass "journalctl -u $UNIT holds fared's log ($lines lines)"
else
	fail "journalctl -u $UNIT has nothing from fared"
fi

# through WHAT CMD...: CMD run while a paced stream (a datagram every 2
# ms) flows from the host's loopback; the stream runs on until fared is a
# new process, ready and weighting 2:1 again, plus a second, and the
# receiver must count every datagram sent.
through()
{
	local what=$1 sender sent failed got t0

	shift
	sink_start "$LAB_DIR/sink-$what" --bind 198.51.100.1 --port 9100 \
		--count 300000 --timeout 900
	ip netns exec host "$FARE_UDP" send --src 192.0.2.7 \
		--dst 198.51.100.1 --port 9100 --count 300000 --interval-us 2000 \
		--keep-going 1 >"$LAB_DIR/send-$what" 2>&1 &
	sender=$!
	LAB_PIDS+=("$sender")
	sleep 1
	t0=$SECONDS
	if "$@"; then
		pass "$what: $* ($((SECONDS - t0)) s)"
	else
		fail "$what: $*"
	fi
	newpid=$(unit_prop MainPID)
	[ "$newpid" != "$pid" ] || fail "$what: the same fared ($pid) after it"
	expect_eq "$UNIT state after $what" "$(unit_prop ActiveState)" active
	wait_until 60 weights_are "1:2 2:1" || true
	expect_eq "weights after $what" "$(host_weights "$DST")" "1:2 2:1"
	sleep 1
	if kill -0 "$sender" 2>/dev/null; then
		pass "$what: the stream ran throughout"
	else
		fail "$what: the stream ended before it was over (proves nothing)"
	fi
	kill -TERM "$sender" 2>/dev/null || true
	wait "$sender" ||
		fail "$what: the sender failed: $(tail -n 1 "$LAB_DIR/send-$what")"
	sent=$(awk '$1 == "sent" { print $2 }' "$LAB_DIR/send-$what")
	failed=$(sed -n 's/.*(\([0-9]*\) failed).*/\1/p' "$LAB_DIR/send-$what")
	# What is still in flight arrives within a second.
	sleep 1
	kill -TERM "$LAB_SINK" 2>/dev/null || true
	wait "$LAB_SINK" || true   # short of its count: stopped
	cat "$LAB_DIR/send-$what" "$LAB_DIR/sink-$what"
	got=$(awk '$1 == "received" { print $2 }' "$LAB_DIR/sink-$what")
	expect_eq "$what: sends that failed" "$failed" 0
	if is_int "$sent" && [ "$sent" -gt 1000 ]; then
		pass "$what: $sent datagrams sent"
	else
		fail "$what: '$sent' datagrams sent (a stream of at least 1000 expected)"
	fi
	expect_eq "$what: datagrams received" "$got" "$sent"
	expect_eq "$what: no datagram twice" \
		"$(sed -n 's/.*(\([0-9]*\) unexpected).*/\1/p' "$LAB_DIR/sink-$what")" 0
	pid=$newpid
}

# A restart as an operator does it: the unit's SIGTERM leaves fare.ko's
# routes, the next fared adopts them.
through restart systemctl restart "$UNIT"
send_phase 3000 2
split_is 2 2000 1000

# An upgrade (FARE_UPGRADE_DEBS: the tree's packages, the installed ones
# being the tree built as an earlier release): fare's postinst restarts
# the instance as above; fare-dkms's DKMS builds and installs the new
# module while the loaded one goes on forwarding, until the next boot or
# a reload of the module (Documentation/install.md, "Upgrades").
if [ -n "${FARE_UPGRADE_DEBS:-}" ]; then
	old=$(dpkg-query -W -f '${Version}' fare)
	loaded=$(cat /sys/module/fare/version)
	expect_eq "the loaded fare.ko is the installed release's" "$loaded" "$old"
	upgrade()
	{
		(cd "$FARE_UPGRADE_DEBS" && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y ./fare-dkms_*_all.deb ./fare_*_amd64.deb) \
			>"$LAB_DIR/upgrade.log" 2>&1 || {
			tail -n 30 "$LAB_DIR/upgrade.log"
			return 1
		}
	}
	at=$(dpkg_at)
	through upgrade upgrade
	dpkg_steps "$at"
	new=$(dpkg-query -W -f '${Version}' fare)
	[ "$new" != "$old" ] || fail "upgrade: fare is still $old"
	expect_eq "upgrade: fare-dkms's release" \
		"$(dpkg-query -W -f '${Version}' fare-dkms)" "$new"
	expect_eq "upgrade: fared runs the new program" \
		"$(readlink "/proc/$pid/exe")" /usr/sbin/fared
	# In CI the emulated guest does not build (in-root upgrade checked
	# DKMS's part natively, with the same packages, before this boot).
	if [ -e /etc/dkms/no-autoinstall ]; then
		log "upgrade: DKMS's build of $new was checked natively (in-root upgrade)"
	else
		for k in $(ls /lib/modules); do
			[ -e "/lib/modules/$k/build/Makefile" ] || continue
			expect_eq "upgrade: DKMS's fare.ko for $k" \
				"$(modinfo -k "$k" -F version fare 2>/dev/null)" "$new"
		done
	fi
	expect_eq "upgrade: the loaded fare.ko (kept)" \
		"$(cat /sys/module/fare/version)" "$loaded"
	send_phase 3000 3
	split_is 3 2000 1000
fi
# A stop is for good, graceful-restart or not: fare.ko's routes go, where
# the restart above left them for the next fared.
if systemctl stop "$UNIT"; then
	pass "systemctl stop $UNIT"
else
	fail "systemctl stop $UNIT"
fi
expect_eq "$UNIT state after the stop" "$(unit_prop ActiveState)" inactive
expect_eq "fare.ko's routes after the stop" "$(host_weights "$DST")" none

# A removal (FARE_REMOVE=1) of both packages while fared runs with
# graceful-restart, which a plain stop would leave forwarding: fared stops
# for good (the leaves see its routes withdrawn, not kept stale), and no
# fare route, plane route, rule or module is left, in the host's namespace
# or the initial one. A route farectl added by hand goes too. Each is read
# where the kernel shows it (ip rule, ip route show table all, lsmod, the
# leaf's BIRD), not from fare's tools, which the removal takes away.
# remove keeps the configuration; the purge that follows takes it and
# every other file the packages had (dpkg -L, read before the removal),
# the links of "systemctl enable fared@host", DKMS's tree and sources.

# kernel_read WHAT SANITY CMD...: CMD's output in KOUT; CMD must succeed
# and its output hold SANITY (a read that failed or came back empty
# proves no absence). An empty SANITY accepts any output.
kernel_read()
{
	local what=$1 sanity=$2

	shift 2
	if KOUT=$("$@" 2>&1) && grep -q -- "$sanity" <<<"$KOUT"; then
		return 0
	fi
	fail "$what: '$*' gave '$KOUT' (no '$sanity': not a real read)"
	return 1
}

# nothing_of_fare_in_kernel WHEN: no rule of fare's (pref 32764/32765,
# tables 248/249), no route of its protocol (249) or through fare0 in any
# table, no fare link, in the host's namespace and the initial one; no
# fare.ko (lsmod and /sys/module).
nothing_of_fare_in_kernel()
{
	local when=$1 ns n where fam sanity

	for ns in host ""; do
		n=()
		[ -z "$ns" ] || n=(-n "$ns")
		where=${ns:-the initial namespace}
		for fam in -4 -6; do
			kernel_read "$when: ip $fam rule in $where" "lookup main" \
				ip "${n[@]}" $fam rule show &&
				expect_empty "$when: $fam rules of fare's (pref 32764/32765, tables 248/249) in $where" \
				"$(grep -E '^3276[45]:|lookup (248|249)' <<<"$KOUT" || true)"
			# (The lab's namespaces may have no IPv6 at all:
			# an empty table is a real read there.)
			sanity="table local"
			[ "$fam$ns" = -6host ] && sanity=
			kernel_read "$when: ip $fam route table all in $where" "$sanity" \
				ip "${n[@]}" $fam route show table all &&
				expect_empty "$when: $fam routes of fare's (proto 249, dev fare0, tables 248/249) in $where" \
				"$(grep -E 'proto 249|dev fare0|table (248|249)' <<<"$KOUT" || true)"
		done
		kernel_read "$when: ip nexthop in $where" "" \
			ip "${n[@]}" nexthop show &&
			expect_empty "$when: nexthop objects of fare's (proto 249) in $where" \
			"$(grep -E 'proto 249' <<<"$KOUT" || true)"
		kernel_read "$when: ip link in $where" "lo:" ip "${n[@]}" -d link show &&
			expect_empty "$when: fare links in $where" \
			"$(grep -E 'fare0|^ +fare( |$)' <<<"$KOUT" || true)"
	done
	kernel_read "$when: lsmod" Module lsmod &&
		expect_empty "$when: fare in lsmod" "$(awk '$1 == "fare"' <<<"$KOUT")"
	if [ -d /sys/module/fare ]; then
		fail "$when: /sys/module/fare exists (fare.ko still loaded)"
	else
		pass "$when: no /sys/module/fare"
	fi
}

if [ "${FARE_REMOVE:-0}" = 1 ]; then
	write_conf "graceful-restart restart-time 120"
	# Enabled as an operator does, so that the purge has links to take.
	systemctl enable "$UNIT" >/dev/null 2>&1 ||
		fail "systemctl enable $UNIT (before the removal)"
	systemctl start "$UNIT" || fail "systemctl start (before the removal)"
	wait_until 60 weights_are "1:2 2:1" || true
	expect_eq "weights before the removal" "$(host_weights "$DST")" "1:2 2:1"
	"$FARECTL" -n host route add 203.0.113.0/24 nexthop plane 1 weight 1 ||
		fail "farectl route add (a route by hand, before the removal)"
	# What there is to remove, so that its absence afterwards means
	# something: the rules, fare's routes, the module, the enable link.
	expect_eq "rules of fare's in host before the removal (pref 32764, 32765)" \
		"$(ip -n host -4 rule show | sed -n -E 's/^(3276[45]):.*lookup (248|249).*/\1/p' |
			sort -u | tr '\n' ' ')" "32764 32765 "
	[ -n "$(ip -n host route show table all proto 249 | grep 203.0.113.0/24)" ] ||
		fail "no kernel route of fare's for 203.0.113.0/24 before the removal"
	[ -n "$(lsmod | awk '$1 == "fare"')" ] || fail "fare not in lsmod before the removal"
	links=$(find /etc/systemd/system -type l -name "$UNIT" | wc -l)
	[ "$links" -gt 0 ] || fail "no link of systemctl enable $UNIT before the removal"
	# Every file of the two packages (directories apart).
	dpkg -L fare fare-dkms | sort -u | while read -r f; do
		[ -d "$f" ] || echo "$f"
	done >"$LAB_DIR/files"
	expect_eq "files of fare and fare-dkms before the removal (dpkg -L, more than 10)" \
		"$([ "$(wc -l <"$LAB_DIR/files")" -gt 10 ] && echo yes)" yes
	leaf_has_host() { leaf_birdc 1 show route 192.0.2.7/32 | grep -q 192.0.2.7; }
	leaf_has_host || fail "leaf 1 has no route to fared's 192.0.2.7/32"
	t0=$SECONDS
	at=$(dpkg_at)
	if DEBIAN_FRONTEND=noninteractive apt-get remove -y fare fare-dkms \
		>"$LAB_DIR/remove.log" 2>&1; then
		pass "apt-get remove fare fare-dkms ($((SECONDS - t0)) s)"
	else
		fail "apt-get remove fare fare-dkms: $(tail -n 5 "$LAB_DIR/remove.log")"
	fi
	dpkg_steps "$at"
	expect_empty "fared processes after the removal" "$(pgrep -x fared || true)"
	expect_eq "$UNIT state after the removal" "$(unit_prop ActiveState)" inactive
	leaf_lost_host() { ! leaf_has_host; }
	wait_until 10 leaf_lost_host || true
	if leaf_has_host; then
		fail "leaf 1 still routes to 192.0.2.7/32 (fared was not stopped for good)"
	else
		pass "leaf 1 no longer routes to 192.0.2.7/32"
	fi
	if [ -d /sys/module/fare ]; then
		log "remove.log: $(tail -n 20 "$LAB_DIR/remove.log")"
	fi
	nothing_of_fare_in_kernel "after the removal"
	# remove keeps the configuration (dpkg's "rc"), nothing else.
	expect_eq "fare's state after the removal (dpkg)" \
		"$(dpkg-query -W -f '${db:Status-Abbrev}' fare 2>/dev/null | tr -d ' ')" rc
	expect_eq "/etc/fare/fared.conf after the removal (kept)" \
		"$([ -f /etc/fare/fared.conf ] && echo kept)" kept
	expect_empty "programs and modules after the removal" \
		"$(ls /usr/sbin/fared /usr/sbin/farectl /lib/modules/*/updates/dkms/fare.ko* 2>/dev/null || true)"

	t0=$SECONDS
	at=$(dpkg_at)
	if DEBIAN_FRONTEND=noninteractive apt-get purge -y fare fare-dkms \
		>"$LAB_DIR/purge.log" 2>&1; then
		pass "apt-get purge fare fare-dkms ($((SECONDS - t0)) s)"
	else
		fail "apt-get purge fare fare-dkms: $(tail -n 5 "$LAB_DIR/purge.log")"
	fi
	dpkg_steps "$at"
	# (dpkg may remember a purged package as "pn": not installed.)
	expect_empty "fare and fare-dkms in dpkg's database after the purge, but as not installed" \
		"$(dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' fare fare-dkms 2>/dev/null |
			awk 'substr($2, 2, 1) != "n"' || true)"
	# dpkg takes the conffile and leaves a directory that is not empty:
	# the operator's own fared-host.conf stays (Documentation/install.md).
	expect_eq "/etc/fare after the purge (the operator's file only)" \
		"$(ls -A /etc/fare 2>&1)" fared-host.conf
	rm -f "$CONF"
	rmdir /etc/fare 2>/dev/null || true
	expect_empty "files of the packages left (dpkg -L before the removal)" \
		"$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done <"$LAB_DIR/files")"
	# (fare-vm.service and fare-test-unsafe-io are the install test's.)
	expect_empty "names with fare under /etc" \
		"$(find /etc -iname '*fare*' | grep -v -E '/fare-vm\.service$|/fare-test-unsafe-io$' || true)"
	expect_empty "links to fared's units in /etc/systemd/system" \
		"$(find /etc/systemd/system -lname '*fared*' 2>/dev/null)"
	expect_empty "DKMS's fare (dkms status, /var/lib/dkms/fare, /usr/src/fare-*)" \
		"$(dkms status -m fare 2>/dev/null; ls -d /var/lib/dkms/fare /usr/src/fare-* 2>/dev/null || true)"
	expect_empty "fare.ko in /lib/modules" "$(find /lib/modules -name 'fare.ko*')"
	expect_empty "fared's runtime directory /run/fared" "$(ls -d /run/fared 2>/dev/null || true)"
	nothing_of_fare_in_kernel "after the purge"
	log "kept, as Debian does: the user $(getent passwd fared | cut -d: -f1,3) and the group $(getent group fare | cut -d: -f1,3)"
fi
rm -f "$CONF"

lab_result
