#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RFC 7606 from outside: a raw-socket peer (malformed.py) sends fared a
# corpus of broken UPDATEs and checks each action fared takes.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

write_fared_conf "" "	neighbor $R4 {
		remote-as 65003
		passive
		import in
		export out
	}"
setup_net
start_fared
wait_for 10 "fared's control socket" test -S "$CTL"
ip netns exec "$NS_B" python3 "$(dirname "$0")/malformed.py" $R4 $F4 "$CTL" ||
	fail "malformed-UPDATE corpus"
