#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Connection collision (RFC 4271 §6.8), with the raw peer's identifier
# above and then below fared's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf "" "	neighbor $R4 {
		remote-as 65003
		import in
		export out
	}"
setup_net
for run in 10.201.0.3 10.201.0.0 "10.201.0.3 confirmed" \
	"10.201.0.0 opensent" "10.201.0.3 opensent"; do
	start_fared
	# shellcheck disable=SC2086
	ip netns exec "$NS_B" python3 "$(dirname "$0")/collision.py" \
		$R4 $F4 $run || fail "collision with peer id $run"
	# The connection the peer runs may already be Established when fared
	# reads the OPEN: then the loser is closed as it enters OpenConfirm.
	grep -q "neighbor $R4 (plane 1): connection collision: closing the\|neighbor $R4 (plane 1): sent NOTIFICATION 6/7" \
		"$FARED_LOG" || fail "no collision in fared's log"
	kill -TERM "$FARED_PID"
	wait "$FARED_PID" 2>/dev/null
	FARED_PID=
	: >"$FARED_LOG"
done
echo "ok: collisions resolved by BGP identifier both ways, also against a" \
	"connection in OpenSent, and in favour of a connection the peer" \
	"already runs Established"
