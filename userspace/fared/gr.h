// SPDX-License-Identifier: GPL-2.0-only
/*
 * Graceful restart's rules, as pure functions peer*.c apply (RFC 4724,
 * RFC 8538, RFC 7313 §4), so that each one is tested on its own.
 *
 * fared advertises the capability with the N bit (RFC 8538) whenever
 * "graceful-restart" is configured. With N exchanged, a NOTIFICATION other
 * than a Hard Reset (Cease/9), sent or received, ends the session the
 * graceful way: the routes stay, stale. The Cease subcodes RFC 8538 §5.1
 * suggests as hard go out inside a Hard Reset.
 */
#ifndef FARED_GR_H
#define FARED_GR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp.h"

/*
 * The capability of our OPEN: restart time, the families, R when
 * restarting, N always, and F per family in forwarding (a BGP_FAM_BIT
 * mask of the families fare.ko holds routes of).
 */
void gr_open_caps(struct bgp_caps *caps, uint16_t restart_time,
		  uint32_t families, bool restarting, uint32_t forwarding);

/*
 * RFC 8538 §2: both OPENs carried the capability with the N bit; ours had
 * our_flags (0 when it had no capability).
 */
bool gr_n_exchanged(uint8_t our_flags, const struct bgp_caps *theirs);

/*
 * RFC 4724 §3's F bit for a family: the forwarding of every route fared
 * advertises in it survived fared's restart. What fared originates is the
 * kernel's to deliver and always survives; a transit role also passes on
 * learned routes, whose forwarding is fare.ko's: kept only when fare.ko is
 * there and holds routes of the family (fare_routes, adopted or
 * programmed).
 */
bool gr_forwarding_kept(bool transit, bool fare_loaded, size_t fare_routes);

/* RFC 8538 §5.1: a Cease subcode that goes out as a Hard Reset. */
bool gr_cease_is_hard(uint8_t subcode);

/*
 * A Hard Reset's data (§3.1): the NOTIFICATION it stands for, as code,
 * subcode and data. Returns its length, or -1 when max is too small.
 */
int gr_hard_reset_data(uint8_t code, uint8_t subcode, const uint8_t *data,
		       size_t len, uint8_t *out, size_t max);

/* What a session going down does to the peer's routes. */
struct gr_session {
	bool helper;		/* we help: capability, restart time > 0 */
	bool n;			/* RFC 8538 N exchanged */
	uint32_t families;	/* negotiated, and in its capability */
	uint32_t stale;		/* already stale (an earlier restart, BoRR) */
};

struct gr_down {
	uint32_t drop_stale;	/* stale routes of these go first */
	uint32_t keep;		/* then these families' routes turn stale */
};

/*
 * A session went down: notified when a NOTIFICATION was sent or received,
 * hard when it was a Hard Reset. RFC 4724 §4.2: the routes of the
 * families in its capability stay, stale; without N, routes already stale
 * (consecutive restarts) are deleted first; RFC 8538 §4: with N, only a
 * Hard Reset (or no helper) flushes. Routes of other families are flushed
 * by the caller.
 */
void gr_session_down(const struct gr_session *s, bool notified, bool hard,
		     struct gr_down *out);

/*
 * The session is back with the peer's new capability: the stale families
 * whose routes go now (RFC 4724 §4.2: no capability, family not listed,
 * or F clear). The rest wait for its End-of-RIB.
 */
uint32_t gr_established_drop(const struct bgp_caps *theirs, uint32_t stale);

/*
 * RFC 7313 §4: a BoRR for family fam is honoured, unless the peer sent
 * the graceful restart capability and its End-of-RIB for fam has not
 * arrived yet.
 */
bool gr_borr_accept(bool peer_gr, uint32_t eor_rx, unsigned int fam);

#endif /* FARED_GR_H */
