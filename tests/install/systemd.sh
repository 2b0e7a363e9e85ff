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
#                      while a paced stream of 3000 datagrams runs from the
#                      host's loopback; the receiver counts every one, the
#                      split is 2:1 again
#   systemctl stop     with graceful-restart still configured: a stop for
#                      good (SIGINT, the unit's KillSignal): fared's routes
#                      leave fare.ko
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

# A restart as an operator or an upgrade does it, under a paced stream:
# the unit's SIGTERM leaves fare.ko's routes, the next fared adopts them.
N=3000
sink_start "$LAB_DIR/sinkr" --bind 198.51.100.1 --port 9100 --count $N \
	--timeout 300
ip netns exec host "$FARE_UDP" send --src 192.0.2.7 --dst 198.51.100.1 \
	--port 9100 --count $N --interval-us 2000 --keep-going 1 \
	>"$LAB_DIR/sendr" 2>&1 &
sender=$!
LAB_PIDS+=("$sender")
sleep 1
kill -0 "$sender" 2>/dev/null ||
	fail "restart: the stream was over before the restart (proves nothing)"
if systemctl restart "$UNIT"; then
	pass "systemctl restart $UNIT"
else
	fail "systemctl restart $UNIT"
fi
if kill -0 "$sender" 2>/dev/null; then
	pass "restart: the stream still ran when the new fared was ready"
else
	fail "restart: the stream ended before the new fared was ready"
fi
newpid=$(unit_prop MainPID)
[ "$newpid" != "$pid" ] || fail "restart: the same fared ($pid) after it"
expect_eq "$UNIT state after the restart" "$(unit_prop ActiveState)" active
wait "$sender" || fail "restart: the sender failed: $(tail -n 1 "$LAB_DIR/sendr")"
rc=0
wait_for 15 bash -c "! kill -0 $LAB_SINK 2>/dev/null" ||
	kill -TERM "$LAB_SINK" 2>/dev/null || true
wait "$LAB_SINK" || rc=$?
cat "$LAB_DIR/sinkr"
expect_eq "restart: datagrams received" \
	"$(awk '$1 == "received" { print $2 }' "$LAB_DIR/sinkr")" $N
expect_eq "restart: every datagram once" $rc 0
wait_for 60 weights_are "1:2 2:1" || true
expect_eq "weights after the restart" "$(host_weights "$DST")" "1:2 2:1"
send_phase 3000 2
split_is 2 2000 1000
pid=$newpid

# A stop is for good, graceful-restart or not: fare.ko's routes go, where
# the restart above left them for the next fared.
if systemctl stop "$UNIT"; then
	pass "systemctl stop $UNIT"
else
	fail "systemctl stop $UNIT"
fi
expect_eq "$UNIT state after the stop" "$(unit_prop ActiveState)" inactive
expect_eq "fare.ko's routes after the stop" "$(host_weights "$DST")" none
rm -f "$CONF"

lab_result
