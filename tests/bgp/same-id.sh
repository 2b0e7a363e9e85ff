#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RFC 6286 §2.2: a BGP Identifier need only be unique within its AS, so an
# eBGP peer may use fared's own. BIRD (another AS) with fared's router id
# 10.201.0.1: both sessions come up, as BIRD and fared each see them, and
# fared sent no NOTIFICATION 2/3 (Bad BGP Identifier), which it did before
# for any peer with its identifier. (An internal peer with it is still
# refused, as BIRD refuses one; not exercised here.)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

setup_net
write_fared_conf
write_bird_conf
sed -i 's/^router id 10.201.0.2;/router id 10.201.0.1;/' "$DIR/bird.conf"
grep -q "^router id 10.201.0.1;" "$DIR/bird.conf" ||
	fail "BIRD's configuration does not carry fared's router id"
start_bird
start_fared
wait_for 20 "fared sees the IPv4 session Established" fared_established $B4
wait_for 20 "fared sees the IPv6 session Established" fared_established $B6
wait_for 10 "BIRD sees fared4 Established" bird_established fared4
wait_for 10 "BIRD sees fared6 Established" bird_established fared6
wait_for 10 "fared has BIRD's 10.202.1.0/24" fared_has_route 10.202.1.0/24
if grep -q "sent NOTIFICATION 2/3" "$FARED_LOG"; then
	fail "fared refused its eBGP peer's identifier: $(grep -m1 'NOTIFICATION 2/3' "$FARED_LOG")"
fi
echo "ok: an eBGP peer with fared's BGP Identifier: both sessions Established, no Bad BGP Identifier"
