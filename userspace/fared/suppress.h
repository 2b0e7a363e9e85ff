// SPDX-License-Identifier: GPL-2.0-only
/*
 * Route-table suppression (mpson-00 §1, §4; PROTOCOL.md §2.5), the rules
 * as pure functions; fare_sync.c applies them.
 *
 * FIB-Suppress (mpson-00 §4.2.1): a leaf with "fib-suppress tag" adds
 * FIB-Suppress(its AS, its router id) to the host routes (/32, /128) it
 * learned from RNICs ("rnic" neighbors) when it passes them on. A node
 * with "fib-suppress honour" keeps a route whose every path carries one
 * in its RIB, and re-advertises it with the community, but does not
 * program it into fare.ko (so the kernel FIB has no route for it either:
 * its packets follow the covering aggregate). A path without the
 * community means somebody wants the route installed: one such path is
 * enough to install it. A host never suppresses a route it asked for by
 * ORF ("orf-prefix" or "orf add"): equal to or inside a wanted prefix.
 *
 * Leaf UPA (mpson-00 §4.1, PROTOCOL.md §6.1): a leaf with "upa originate"
 * keeps a host route learned from an RNIC and covered by a prefix it
 * originates off its other (upstream) neighbors, where the aggregate
 * stands for it, and remembers the host. When the host has no path from
 * an RNIC any more (its session went down, it withdrew), the leaf
 * announces a UPA route for it upstream, keeping the aggregate; when the
 * host is back, the UPA route is withdrawn and the host is held back
 * again.
 */
#ifndef FARED_SUPPRESS_H
#define FARED_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_ec.h"
#include "rib.h"

/* Whether p is a host route: a /32 or a /128. */
bool fare_is_host_route(const struct bgp_prefix *p);

enum fare_fs_verdict {
	FARE_FS_NONE,			/* no path carries FIB-Suppress */
	FARE_FS_SUPPRESS,		/* every path does: not programmed */
	FARE_FS_NOT_HONOURED,		/* it does, but no "honour" */
	FARE_FS_PARTIAL,		/* some path lacks it: programmed */
	FARE_FS_ORF_WANTED,		/* the host asked for it by ORF */
};

/*
 * The verdict on e (see above); *fs is the first FIB-Suppress found (when
 * the verdict is not FARE_FS_NONE). orf_wanted: the node is a host and
 * wants e's prefix by ORF.
 */
enum fare_fs_verdict fare_fs_check(const struct rib_entry *e,
				   uint8_t subtype, bool honour,
				   bool orf_wanted, struct fare_fs *fs);
const char *fare_fs_verdict_text(enum fare_fs_verdict v);

/*
 * Appends FIB-Suppress(local_as, router_id) to the len octets of ecs
 * (room for len + 8) unless one of that sub-type is there; returns the
 * new length.
 */
size_t fare_fs_tag(uint8_t *ecs, size_t len, uint32_t local_as,
		   uint32_t router_id, uint8_t subtype);

/*
 * What a leaf sends for a host route, by neighbor kind: PASS as any
 * learned route, to every neighbor; HOLD to RNIC neighbors only (the
 * aggregate stands for it upstream); UPA a UPA route, to upstream
 * neighbors only.
 */
enum fare_leaf_adv {
	FARE_LEAF_PASS,
	FARE_LEAF_HOLD,
	FARE_LEAF_UPA,
};

struct fare_leaf_host {
	bool upa;		/* "upa originate" */
	bool covered;		/* inside a prefix the leaf originates */
	size_t n_rnic_paths;	/* paths to it from RNIC neighbors */
};

/*
 * The leaf's state machine for one prefix: *seen (the host was reachable
 * through an RNIC since it was first covered) is updated; the result says
 * what to advertise. Only host routes are ever held or UPA'd.
 */
enum fare_leaf_adv fare_leaf_host_step(const struct bgp_prefix *p,
				       const struct fare_leaf_host *h,
				       bool *seen);
const char *fare_leaf_adv_text(enum fare_leaf_adv a);

#endif /* FARED_SUPPRESS_H */
