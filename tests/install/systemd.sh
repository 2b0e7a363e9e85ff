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
#                      namespace with CAP_NET_ADMIN and CAP_NET_BIND_SERVICE
#                      only; 3000 datagrams split 2000:1000 at the receiver
#   systemctl reload   SIGHUP: the same fared, still active
#   systemctl restart  with graceful-restart (fared.8 RESTART): a new fared
#                      while a paced stream runs from the host's loopback
#                      (until the new fared weights 2:1 again); the
#                      receiver counts every datagram sent
#   apt-get install    (with FARE_UPGRADE_DEBS, the installed packages
#                      being an earlier release) the tree's packages under
#                      the same stream: none lost, a new fared running the
#                      new program, the loaded fare.ko still the earlier one
#   systemctl stop     after "graceful-restart off" and a reload, fared's
#                      routes leave fare.ko
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
expect_eq "fared's effective capabilities" \
	"$(awk '$1 == "CapEff:" { print $2 }' "/proc/$pid/status")" \
	0000000000001400

weights_are() { host_weights_are "$DST" "$1"; }
wait_for 60 weights_are "1:2 2:1" || true
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
	wait_for 60 weights_are "1:2 2:1" || true
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
	through upgrade upgrade
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
# To stop for good with graceful-restart configured, turn it off first.
write_conf "graceful-restart off"
systemctl reload "$UNIT" || fail "systemctl reload (graceful-restart off)"
expect_eq "the same fared after turning graceful-restart off" \
	"$(unit_prop MainPID)" "$pid"

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
# or the initial one. A route farectl added by hand goes too.
if [ "${FARE_REMOVE:-0}" = 1 ]; then
	write_conf "graceful-restart restart-time 120"
	systemctl start "$UNIT" || fail "systemctl start (before the removal)"
	wait_for 60 weights_are "1:2 2:1" || true
	expect_eq "weights before the removal" "$(host_weights "$DST")" "1:2 2:1"
	"$FARECTL" -n host route add 203.0.113.0/24 nexthop plane 1 weight 1 ||
		fail "farectl route add (a route by hand, before the removal)"
	leaf_has_host() { leaf_birdc 1 show route 192.0.2.7/32 | grep -q 192.0.2.7; }
	leaf_has_host || fail "leaf 1 has no route to fared's 192.0.2.7/32"
	if DEBIAN_FRONTEND=noninteractive apt-get remove -y fare fare-dkms \
		>"$LAB_DIR/remove.log" 2>&1; then
		pass "apt-get remove fare fare-dkms"
	else
		fail "apt-get remove fare fare-dkms: $(tail -n 5 "$LAB_DIR/remove.log")"
	fi
	expect_empty "fared processes after the removal" "$(pgrep -x fared || true)"
	expect_eq "$UNIT state after the removal" "$(unit_prop ActiveState)" inactive
	leaf_lost_host() { ! leaf_has_host; }
	wait_for 10 leaf_lost_host || true
	if leaf_has_host; then
		fail "leaf 1 still routes to 192.0.2.7/32 (fared was not stopped for good)"
	else
		pass "leaf 1 no longer routes to 192.0.2.7/32"
	fi
	if [ -d /sys/module/fare ]; then
		fail "fare.ko still loaded after the removal: $(tail -n 20 "$LAB_DIR/remove.log")"
	else
		pass "fare.ko unloaded by the removal"
	fi
	for ns in host ""; do
		n=${ns:+-n $ns}
		where=${ns:-the initial namespace}
		for fam in -4 -6; do
			expect_empty "$fam rules to fare's tables in $where" \
				"$(ip $n $fam rule show | grep -E 'lookup (248|249)' || true)"
			for t in 248 249; do
				expect_empty "$fam routes in table $t in $where" \
					"$(ip $n $fam route show table $t 2>/dev/null)"
			done
		done
	done
fi
rm -f "$CONF"

lab_result
