#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A session with no address family in common carries nothing: fared ends
# it at the OPEN with NOTIFICATION 2/7 (Unsupported Capability, its data
# the Multiprotocol capabilities fared wanted, RFC 5492 §3) instead of
# running it Established, which it did before. The raw peer (fared's
# IPv4-only neighbor on plane 2 of the spine fixture) offers only IPv6
# unicast and checks what it receives; BIRD on plane 1 stays up.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

setup_net
raw_spine_conf
raw_spine_bird far4 none
hostile nofamily || fail "the raw peer's checks"
[ "$(fared_state $R4)" != Established ] ||
	fail "fared runs a session with no family in common Established"
fared_field $R4 last_error | grep -q "NOTIFICATION 2/7" ||
	fail "fared's last error: $(fared_field $R4 last_error)"
bird_established far4 || fail "BIRD's session went down"
echo "ok: no family in common: NOTIFICATION 2/7 at the OPEN, never Established"
