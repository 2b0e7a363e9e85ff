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
#   systemctl stop     fared's routes leave fare.ko (no graceful-restart)
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

if systemctl stop "$UNIT"; then
	pass "systemctl stop $UNIT"
else
	fail "systemctl stop $UNIT"
fi
expect_eq "$UNIT state after the stop" "$(unit_prop ActiveState)" inactive
expect_eq "fare.ko's routes after the stop" "$(host_weights "$DST")" none
rm -f "$CONF"

lab_result
