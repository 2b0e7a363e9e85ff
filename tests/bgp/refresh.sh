#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A ROUTE-REFRESH gets the whole Adj-RIB-Out again (RFC 2918 §4, RFC 7313
# §4), the routes fared passes on too. fared is a spine between two BIRDs:
# the leaf (B4) originates 10.202.1.0/24, fared passes it on to the far
# BIRD (R4), which then asks for a refresh ("birdc reload in"). The far
# BIRD speaks enhanced route refresh: what fared does not send between
# its BoRR and EoRR, BIRD deletes. It must receive the route again and
# still hold it afterwards.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

PFX=$SPINE_PFX

setup_net
spine_conf
spine_leaf_conf "{ bgp_ext_community.add((unknown 0x0f, 10.201.0.2, 21056)); }" \
	"" "export where source = RTS_STATIC;"
# Import updates the far BIRD accepted from fared (show protocols all).
far_updates()
{
	farc show protocols all far4 |
		awk '$1 == "Import" && $2 == "updates:" { print $3 }'
}
far_updates_above() { [ "$(far_updates)" -gt "$1" ]; }

spine_start
farc show protocols all far4 | grep -qi 'enhanced refresh' ||
	fail "the far BIRD did not negotiate enhanced route refresh"
since=$(far_since)
n0=$(far_updates)
echo "far BIRD: $n0 import updates before the refresh"

farc reload in far4 >/dev/null || fail "birdc reload in"
# BIRD's own packet trace says when fared's refresh ended (EoRR): BIRD
# has then deleted whatever fared did not send again.
wait_for 10 "the far BIRD to get fared's End-of-RR" \
	grep -q 'Got END-OF-RR' "$DIR/far.log"
sleep 1
far_has || fail "the far BIRD lost $PFX in its route refresh"
far_updates_above "$n0" ||
	fail "the far BIRD was not sent $PFX again ($(far_updates) updates)"
far_kept_session "$since"
echo "ok: a route refresh re-sends the route passed on; the far BIRD keeps it"
