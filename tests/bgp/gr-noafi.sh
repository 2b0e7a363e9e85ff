#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RFC 4724 §4.2: a new TCP connection from a neighbor whose Graceful
# Restart capability listed one or more AFI/SAFI means it restarted, and
# ends the Established session; one whose capability listed none has not,
# and the new connection collides with the Established session and loses
# (RFC 4271 §6.8). fared dropped the session in both cases. The raw peer
# (plane 2 of the spine fixture, fared with graceful-restart) sends the
# capability with a restart time only, then opens a bare connection: it
# gets Cease 6/7 there and keeps its session (3 s more of KEEPALIVEs
# with no NOTIFICATION and no close).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

setup_net
raw_spine_conf "" "graceful-restart restart-time 60"
raw_spine_bird far4 none
hostile grnoafi || fail "the raw peer's checks"
echo "ok: no AFI/SAFI in the capability: the new connection loses, the session stays"
