// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's FARE side (with "role" in the configuration): the planes in
 * fare.ko made from the configuration (plane N's device is its neighbors'
 * interface, its gateways their addresses), each plane's link bandwidth
 * (the interface's configured bandwidth, or with "auto" the device's
 * ethtool speed), and the RIB's change feed turned into fare.ko routes
 * through fare_fib.h, one libfare batch per event-loop iteration.
 *
 * It consumes the RIB's change feed (fare_sync_changed()) and feeds two
 * consumers below it: fare.ko through fare_fib.h, and in transit roles
 * the Adj-RIB-Out through export.h (a leaf's UPA state machine,
 * leaf_upa.h, on the way). It calls no session: the sessions hear of
 * what it exports through the Adj-RIB-Out (adj_out.h).
 *
 * fared owns the fare routes of its network namespace. At start it adopts
 * those it finds (a predecessor's, left by a crash or a graceful exit) as
 * stale: fare.ko keeps forwarding on them until the first tables are in,
 * then only the differences are programmed and what the RIB no longer has
 * is swept (fared.8, RESTART). At exit it flushes them, unless it leaves
 * them for the next fared (fare_sync_stop()'s keep). Without fare.ko (no
 * module: libfare's -ENOENT) the weights are still computed and
 * explained, and nothing is programmed.
 */
#ifndef FARED_FARE_SYNC_H
#define FARED_FARE_SYNC_H

#include "config.h"
#include "fare_fib.h"
#include "fib_worker.h"
#include "leaf_upa.h"
#include "loop.h"
#include "suppress.h"
#include "upa.h"

struct fared;

#define FARE_PLANE_SYNC_MS	1000

struct fare_sync {
	struct fared *d;
	struct fare *nl;		/* NULL: fare.ko is not there */
	struct fare_fib *fib;
	struct fare_fib_cfg cfg;
	uint64_t link_bps[FARE_PLANE_ID_MAX + 1];
	/*
	 * The planes as last programmed (id 0: not configured), with BFD's
	 * hold (admin_down): fare_sync_planes_held() sends what changed.
	 */
	struct fare_plane planes[FARE_PLANE_ID_MAX + 1];
	uint64_t batches, ops, failed;
	/* Host: prefixes with UPA paths, programmed from their aggregate. */
	struct bgp_prefix *upa;
	size_t n_upa;
	/* ... of which every plane of the aggregate reported: unreachable */
	struct bgp_prefix *unreach;
	size_t n_unreach;
	/* Leaf: the RNIC hosts seen and the RNIC links (leaf_upa.h). */
	struct leaf_upa leaf;
	/*
	 * Start-up: fare.ko and the routes passed on wait until every
	 * neighbor's first table is in (its End-of-RIB) or update-delay
	 * runs out, so that each prefix is programmed once, with every
	 * plane, rather than once per arriving table.
	 */
	bool first_tables;
	/*
	 * Every neighbor's End-of-RIB is in: the wait ends at the loop's
	 * next idle call, once the RIB's feed (the UPDATEs read with the
	 * last End-of-RIB) is weighed as the wait weighs it.
	 */
	bool tables_in;
	struct timer update_delay;
	uint64_t started_ms;
	/*
	 * ... except a prefix whose path set is complete: on a host whose
	 * every plane has one session without ADD-PATH (final_planes;
	 * empty otherwise), a prefix with a path that is not stale from
	 * each of them has its final weights; it is weighed and programmed
	 * at once, and every later change to it is an ordinary one
	 * (fare_sync.c, weigh_now()).
	 */
	struct fare_plane_set final_planes;
	/*
	 * They go to fare.ko in fared's idle time, FARE_SYNC_IDLE_CHUNK
	 * at a time (the tables coming in are read first); idle brings
	 * the loop back for the next chunk.
	 */
	struct timer idle;
	/*
	 * ... by a worker thread (fib_worker.h), so that the loop reads
	 * the tables on while they go in: one batch out at a time, open
	 * during the wait only. Every other flush waits for the batch to be
	 * back first (flush()). worker_off: it could not be opened or
	 * started; the idle time on the loop's thread does it then.
	 */
	struct fib_worker worker;
	struct fare_fib_batch batch;
	bool worker_off;
	uint64_t worker_batches, worker_ops, worker_ms;
	/*
	 * Restart: fare routes found in fare.ko at start (the stale ones
	 * are in fib), and fare's unreachable kernel routes found then, to
	 * be swept when the first tables are in unless wanted again.
	 */
	size_t adopted;
	struct fare_prefix *stale_unreach;
	size_t n_stale_unreach;
	/*
	 * fare.ko refused an op (a limit, no memory): after retry_ms (1 s,
	 * doubling to 64 s while refusals go on) fared reads fare.ko's
	 * routes again and programs the differences (fare_sync.c, resync).
	 */
	struct timer retry;
	unsigned int retry_ms;
	/*
	 * The kernel deletes a plane's nexthop object when its device goes
	 * down or loses its carrier: every FARE_PLANE_SYNC_MS fared puts
	 * back what came back (fare_plane_sync()), logging a failure once
	 * until it changes or ends.
	 */
	struct timer plane_sync;
	char plane_sync_err[256];
	size_t flush_refused;		/* in this flush: logged once */
	uint64_t resyncs;
};

/* Starts the FARE side when d->cfg has a role; 0 or -errno. */
int fare_sync_start(struct fared *d);
/*
 * keep: leave fare.ko's routes (and their kernel routes) in place for the
 * next fared to adopt; otherwise every one is flushed.
 */
void fare_sync_stop(struct fared *d, bool keep);
/*
 * The graceful restart F bit (RFC 4724 §3) for family fam (BGP_FAM_*):
 * gr_forwarding_kept() for this fared (a transit role's routes need
 * fare.ko to hold routes of the family, adopted or programmed).
 */
bool fare_sync_forwarding(const struct fared *d, unsigned int fam);
/*
 * The planes whose paths make a prefix final during the start-up wait
 * (struct fare_sync's final_planes) into *out: with role host, every
 * neighbor's plane when each neighbor has a plane of its own, no ADD-PATH,
 * is not an RNIC and not upstream; otherwise none (false).
 */
bool fare_sync_final_planes(const struct fared_config *cfg,
			    struct fare_plane_set *out);
/* How long the start-up wait lasts, in seconds (see fare_sync_start()). */
unsigned int fare_sync_wait_s(const struct fared_config *cfg, size_t adopted);
/* The configuration was reloaded: planes again, every prefix again. */
void fare_sync_reload(struct fared *d);
/*
 * BFD's holds (bfd_plane_held()) into fare.ko: each plane whose hold
 * changed is replaced, administratively down or up again, in ONE
 * request (FARE_A_PLANE_ADMIN_DOWN): fare.ko stops choosing it for every
 * route at once, as on carrier loss, before any route is reprogrammed.
 */
void fare_sync_planes_held(struct fared *d);
/*
 * p's End-of-RIB arrived: the start-up wait may be over. When it is,
 * the neighbors whose initial export waited for it get it
 * (peers_selection_done()).
 */
void fare_sync_eor(struct fared *d);
/* The start-up wait holds learned routes back (fared_hooks.selecting). */
bool fare_sync_selecting(const struct fared *d);
/* The change-feed consumer and the once-per-iteration flush. */
void fare_sync_changed(struct fared *d, const struct rib_entry *e);
void fare_sync_flush(struct fared *d);
/*
 * The event loop's once-per-iteration flush: fare_sync_flush(), except
 * that during the start-up wait the prefixes programmed early go only
 * when no event is ready, FARE_SYNC_IDLE_CHUNK at a time.
 */
void fare_sync_idle(struct fared *d);
/*
 * Each of e's paths' fate (paths: e->n_paths of them) and the route fared
 * programs for e (want), the same one fare_sync_changed() programs: for a
 * host prefix with UPA paths, its aggregate minus the reporting planes
 * (ui says which; *unreachable when none is left). false: no FARE.
 */
bool fare_sync_explain(struct fared *d, const struct rib_entry *e,
		       struct fare_fib_path *paths, struct fare_fib_result *fr,
		       struct fare_route *want, struct fare_upa_info *ui,
		       bool *unreachable);

/*
 * Route-table suppression (suppress.h): e's FIB-Suppress verdict here
 * (*why, may be NULL: the first FIB-Suppress).
 */
enum fare_fs_verdict fare_sync_fs(struct fared *d, const struct rib_entry *e,
				  struct fare_fs *why);
/* Every prefix again (the ORF wanted list changed on a host). */
void fare_sync_reweigh_all(struct fared *d);

#endif /* FARED_FARE_SYNC_H */
