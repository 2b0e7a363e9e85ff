// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Adj-RIB-Out (RFC 4271 §3.2): what fared sends its neighbors, in
 * every role. One record per prefix holds the route passed on for it (a
 * transit role's learned route, or a leaf's UPA route: export.h sets it)
 * and, per neighbor, whether that neighbor was sent the route passed on
 * and whether it was sent the route this node originates ("originate"
 * lines, announced with origin IGP and the line's extended communities).
 * A host has only originated routes in it.
 *
 * Data comes in from the FARE side (adj_out_set(), then adj_out_flush()
 * once per event-loop iteration) and from the sessions' events
 * (adj_out_export() when a session comes up or asks for a refresh,
 * adj_out_peer_down() when it goes), and leaves through the session
 * writer only: peer_announce() and peer_withdraw() (peer.h).
 *
 * The writer is pull-based, as OpenBGPD's RDE keeps pending updates per
 * peer: a change, an export or a refresh only marks the records pending
 * for a neighbor (a bit in its column, and a FIFO of records); they are
 * turned into UPDATEs when its socket takes more (adj_out_drain(), from
 * the session's writability hook), a batch at a time, with the
 * attributes of the moment. A refresh marks every record of the family
 * pending, so the whole Adj-RIB-Out goes again by construction, and a
 * full table never waits encoded in a send buffer. End-of-RIB and EoRR
 * follow once nothing of their family is pending (peer_fam_sent()).
 */
#ifndef FARED_ADJ_OUT_H
#define FARED_ADJ_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp.h"
#include "config.h"
#include "suppress.h"

struct fared;
struct peer;

/*
 * The route passed on for a prefix (fare-04 §4.1, §4.2): with next hop
 * self, the AS path and origin of the best path (fare_best.h), its
 * extended communities minus every PB and every non-transitive community
 * (they do not cross an AS boundary, RFC 4360 §2), plus the PBs the
 * policy computed; its COMMUNITIES and LARGE_COMMUNITIES as they came
 * (Dragonfly+ tiers among them) and its unknown optional transitive
 * attributes with the Partial bit set (RFC 4271 §5; the unknown
 * non-transitive ones were dropped on input). Not back to the peers the
 * paths came from; with NO_ADVERTISE to nobody, with NO_EXPORT only to
 * iBGP (RFC 1997).
 */
struct adj_route {
	struct adj_route *next;		/* in its hash bucket */
	struct bgp_prefix prefix;	/* path_id 0 */
	bool queued;			/* to be flushed to every neighbor */
	bool live;			/* false: nothing passed on */
	uint8_t origin;
	uint32_t *path;			/* packed with its segments */
	size_t path_len;
	uint8_t *ecs;
	size_t ecs_len;
	/* COMMUNITIES, then LARGE_COMMUNITIES, then raw attributes. */
	uint8_t *xattr;
	size_t comms_len, lcomms_len, raw_len;
	bool no_export, no_advertise;	/* RFC 1997 well-known */
	/* RFC 4271 §5.1.6-7, as the best path had them. */
	bool atomic_aggregate;
	bool has_aggregator;
	uint32_t aggregator_as;		/* 2 or 4 octets per session */
	uint8_t aggregator_id[4];
	bool from_ibgp;			/* the best path's: not to iBGP */
	unsigned int *from;		/* RIB peers with a path */
	size_t n_from;
	/* A leaf's RNIC host route: to whom (suppress.h). */
	enum fare_leaf_adv scope;
	struct bgp_prefix agg;		/* FARE_LEAF_UPA: its aggregate */
	/*
	 * Per RIB peer index, four bits: ADJ_SENT_LEARNED, ADJ_SENT_ORIG,
	 * ADJ_PENDING.
	 */
	uint8_t *col;
	size_t col_len;
};

/* A neighbor's pending records, in the order they became pending. */
struct adj_peer {
	struct adj_route **v;		/* v[head..n): pending */
	size_t head, n, cap;
	size_t n_fam[BGP_FAM_COUNT];	/* pending, per family */
};

struct adj_out {
	struct fared *d;
	struct adj_route **buckets;
	size_t n_buckets, n;
	struct adj_route **queue;
	size_t n_queue, queue_cap;
	struct adj_peer *peers;		/* by RIB peer index */
	size_t n_peers;
};

struct adj_out *adj_out_new(struct fared *d);
void adj_out_free(struct adj_out *o);

/* Frees what r's attributes hold and marks it not live. */
void adj_route_clear(struct adj_route *r);
/*
 * The route passed on for now->prefix is now (its attributes are taken
 * over, or freed when nothing changed): queued for adj_out_flush() when it
 * changed. 0 or -ENOMEM (now freed either way).
 */
int adj_out_set(struct adj_out *o, struct adj_route *now);
/* Every queued route brought in line at every exporting neighbor. */
void adj_out_flush(struct adj_out *o);

/*
 * p's session may be sent fam (it came up, asked for a refresh, or its
 * export policy changed): the originated routes export permits, announced
 * again, and the routes passed on it had not been sent (resend: every
 * route passed on, as a ROUTE-REFRESH asks, RFC 2918 §4: with enhanced
 * route refresh the peer drops what is not re-sent, RFC 7313 §4); what
 * export no longer permits is withdrawn.
 */
void adj_out_export(struct peer *p, unsigned int fam, bool resend);
/*
 * p's session went: it has none of the routes passed on any more. gone:
 * p itself goes, its record of originated routes too.
 */
void adj_out_peer_down(struct peer *p, bool gone);
/*
 * p's socket takes more: UPDATEs for its pending records, until its send
 * queue holds ADJ_WRITE_HIGH bytes or nothing is pending.
 */
void adj_out_drain(struct peer *p);
#define ADJ_WRITE_HIGH		(256u << 10)
/* Records pending for p (all families). */
size_t adj_out_pending(const struct peer *p);

/* Whether this node originates p ("originate" lines): it wins. */
bool adj_out_originates(const struct fared_config *cfg,
			const struct bgp_prefix *p);
/* A leaf's route for host x (FARE_LEAF_PASS when nothing special). */
enum fare_leaf_adv adj_out_scope(const struct adj_out *o,
				 const struct bgp_prefix *x);

/* A UPA route a leaf originates for a lost RNIC host. */
struct adj_upa {
	struct bgp_prefix prefix;
	struct bgp_prefix aggregate;	/* the prefix it stands under */
	bool drop;			/* the D flag */
	bool sent;			/* to at least one neighbor */
};

/* The UPA routes passed on, up to max of them into out; their number. */
size_t adj_out_upa_routes(const struct adj_out *o, struct adj_upa *out,
			  size_t max);

#endif /* FARED_ADJ_OUT_H */
