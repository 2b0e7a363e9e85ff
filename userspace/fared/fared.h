// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon: what one fared holds (its configuration, its RIB, its
 * neighbors, its listeners, the FARE side) and its log.
 *
 * The data flows one way (DESIGN.md §4): a neighbor's session (peer.h:
 * FSM and codec) puts paths into the RIB (rib.h), whose change feed goes
 * to the FARE side (fare_sync.h: policy, then FIB sync and the routes
 * passed on), which writes to the sessions through the Adj-RIB-Out.
 */
#ifndef FARED_FARED_H
#define FARED_FARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp.h"
#include "config.h"
#include "loop.h"
#include "peer_table.h"
#include "rib.h"

struct adj_out;
struct bfd;
struct fared;
struct fare_sync;
struct peer;
struct peer_rib_ops;

/*
 * What a session tells the rest of the daemon (fared.c sets them), so
 * that the session layer calls nothing above it:
 *   export      p may be sent family fam now (it came up, it asked for a
 *               refresh, or export changed): the Adj-RIB-Out sends it;
 *               resend: all of it again, not only what p was not sent
 *               (a ROUTE-REFRESH, RFC 2918 §4, RFC 7313 §4)
 *   down        p's session went (gone: p itself goes)
 *   eor         an End-of-RIB arrived: the start-up wait may be over
 *   forwarding  the graceful restart F bit for fam (our OPEN)
 *   selecting   the FARE side still holds learned routes back (its
 *               start-up wait): a restarting fared's initial exports
 *               wait for it (RFC 4724 §4.1)
 *   writable    p's socket took what was queued: more UPDATEs may be
 *               built from what is pending for it (adj_out.h)
 *   pending     how many records wait for p's writer: while any do, the
 *               socket's writability is watched even with nothing queued,
 *               so that a queue emptied by other traffic (a KEEPALIVE's
 *               flush) still wakes the writer
 * A hook left NULL does nothing (forwarding, selecting: false).
 */
struct fared_hooks {
	void (*export)(struct peer *p, unsigned int fam, bool resend);
	void (*down)(struct peer *p, bool gone);
	void (*eor)(struct fared *d);
	bool (*forwarding)(const struct fared *d, unsigned int fam);
	bool (*selecting)(const struct fared *d);
	void (*writable)(struct peer *p);
	size_t (*pending)(const struct peer *p);
};

struct fared {
	struct loop loop;
	struct fared_config cfg;
	struct rib *rib;
	struct peer **peers;
	size_t n_peers;
	int listen4, listen6;
	struct io lio4, lio6;
	bool restarting;		/* started after an unclean exit */
	/*
	 * Restarting: routes were selected once (peers_selection_done()):
	 * a session that comes up later is not deferred.
	 */
	bool selected;
	uint32_t next_index;
	/* The neighbors by RIB peer number, for the decision code. */
	struct peer_table peer_table;
	struct fare_sync *fare;		/* with a role: see fare_sync.h */
	struct adj_out *out;		/* the Adj-RIB-Out, every role */
	struct bfd *bfd;		/* BFD sessions (bfd.h) */
	const struct fared_hooks *hooks;
	/* What the sessions tell the RIB side (peer.h). */
	const struct peer_rib_ops *rib_ops;
	/* Host: the remote hosts asked for by ORF, see orf_sess.h. */
	struct bgp_prefix *orf_want;
	size_t n_orf_want;
	bool out_of_memory;		/* fared_out_of_memory() was called */
};

void fared_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * fared could not record a change for want of memory (WHAT): rather than
 * run on with a RIB that no longer says what the peers sent, it leaves as
 * for a restart (fare.ko keeps its routes, graceful-restart peers keep
 * fared's) and exits FARED_EXIT_NOMEM, which the units restart; the new
 * fared rebuilds every table from the peers and adopts fare.ko's routes.
 */
void fared_out_of_memory(struct fared *d, const char *what);
#define FARED_EXIT_NOMEM	75	/* EX_TEMPFAIL */

#endif /* FARED_FARED_H */
