// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's routing information bases: an Adj-RIB-In per peer and a Loc-RIB
 * that keeps, per prefix, every path that passed import policy (FARE
 * weighs paths across planes; it never picks one best path).
 *
 * The session layer feeds it (rib_update/rib_withdraw/rib_peer_*); the
 * FARE policy layer consumes the change feed (rib_drain): the set of
 * prefixes whose path set changed since the last drain, each once, in
 * the order they first changed. Nothing here does I/O.
 *
 * Peers are small integers the caller chooses (fared's neighbor index);
 * the RIB knows nothing else about them.
 */
#ifndef FARED_RIB_H
#define FARED_RIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp.h"

struct rib;

/*
 * One path's attributes, deep-copied out of an UPDATE (whose bgp_attrs
 * only point into the message buffer), interned and reference-counted:
 * equal sets share one copy. Immutable once made.
 */
struct rib_attrs {
	unsigned int refs;
	uint8_t origin;
	uint32_t *as_path;		/* flattened, nearest AS first */
	size_t as_path_len;		/* RFC 4271 §9.1.2.2 length */
	char *as_path_text;		/* "65001 {65002 65003}" */
	/* The AS path with its segments, to pass on: bgp_as_path_pack(). */
	uint32_t *as_packed;
	size_t as_packed_len;		/* words */
	bool has_med;
	uint32_t med;
	bool has_local_pref;
	uint32_t local_pref;
	uint8_t family;			/* of the next hop: enum bgp_family */
	uint8_t next_hop[16];		/* IPv4 in the first 4 octets */
	bool has_next_hop_ll;
	uint8_t next_hop_ll[16];	/* RFC 2545 link-local */
	uint8_t *communities;		/* wire bytes, 4 each */
	size_t communities_len;
	uint8_t *ext_communities;	/* wire bytes, 8 each, byte-exact */
	size_t ext_communities_len;
	uint8_t *large_communities;	/* wire bytes, 12 each */
	size_t large_communities_len;
	/* RFC 4271 §5.1.6-7, passed on unchanged; AS in 4 octets. */
	bool atomic_aggregate;
	bool has_aggregator;
	uint32_t aggregator_as;
	uint8_t aggregator_id[4];
	/* Unknown optional transitive attributes, kept to pass on. */
	unsigned int n_kept;
	struct rib_kept_attr {
		uint8_t flags;
		uint8_t type;
		uint8_t *value;
		size_t len;
	} *kept;
	/* Internal to rib.c: the intern table's chain. */
	struct rib_attrs *intern_next;
	uint32_t intern_hash;
};

/* A path of a Loc-RIB entry. */
struct rib_path {
	unsigned int peer;
	uint32_t path_id;		/* ADD-PATH id, 0 without */
	/*
	 * The peer's refresh generation when the path last arrived
	 * (rib_refresh_begin()); stale: it has not arrived again since the
	 * latest refresh of its family began (graceful restart, route
	 * refresh), and goes at that refresh's end unless it does.
	 */
	uint32_t gen;
	bool stale;
	struct rib_attrs *attrs;
};

/*
 * A prefix and every path to it, ordered by (peer, path_id). The paths
 * array is interned like the attribute sets: prefixes with equal paths
 * (typically every host route learnt from the same planes) share one
 * immutable copy, so it is valid only until the RIB next changes.
 */
struct rib_entry {
	struct bgp_prefix prefix;	/* path_id is 0 */
	uint32_t n_paths;		/* 0: the prefix was withdrawn */
	uint32_t rib_flags;		/* internal to rib.c */
	struct rib_path *paths;
};

struct rib *rib_new(void);
/* Frees everything, attribute sets included. */
void rib_free(struct rib *rib);

/*
 * The interned copy of attrs (with the next hop of family fam: the
 * NEXT_HOP attribute for IPv4 unicast in the RFC 4271 fields, else
 * MP_REACH's), one reference taken for the caller. NULL on ENOMEM.
 */
struct rib_attrs *rib_attrs_get(struct rib *rib, const struct bgp_attrs *attrs,
				enum bgp_family fam);
void rib_attrs_put(struct rib *rib, struct rib_attrs *attrs);

/*
 * Adds or replaces peer's path (prefix->path_id) to prefix. The RIB takes
 * its own reference on attrs. Replacing a path by an equal one is not a
 * change. Clears the path's stale mark and gives it the peer's current
 * refresh generation. Returns 0, or -ENOMEM (nothing
 * changed then), or -EINVAL for a family or length out of range.
 */
int rib_update(struct rib *rib, unsigned int peer,
	       const struct bgp_prefix *prefix, struct rib_attrs *attrs);
/* Non-zero: the RIB's allocations count it down; the one to 0 fails. */
extern unsigned long rib_fault_countdown;
/*
 * Removes peer's path (prefix->path_id); a missing path is not an error
 * and not a change. -ENOMEM when the prefix's new path array could not
 * be made: the path is still there.
 */
int rib_withdraw(struct rib *rib, unsigned int peer,
		 const struct bgp_prefix *prefix);

/*
 * Every path of peer in families (BGP_FAM_BIT()s) goes: session down.
 * Returns how many went. These, rib_withdraw() and the stale operations
 * build a prefix's new (interned) path array; without memory for it an
 * unshared array is edited in place, and only a path in an array other
 * prefixes share stays (and is not counted).
 */
size_t rib_peer_flush(struct rib *rib, unsigned int peer, uint32_t families);
/*
 * Refresh epochs, as BIRD's rt_refresh_begin()/rt_refresh_end(): the
 * caller keeps one per reason (a graceful restart, an enhanced route
 * refresh, an import change), each ended on its own, so that the end of
 * one never sweeps what another holds.
 *
 * rib_refresh_begin: a new generation for peer; its paths in families
 * are marked stale (*stale, if not NULL: how many). Returns the epoch's
 * begin: every path that arrives from now on has a generation at least
 * that. 0 without memory (an epoch that sweeps nothing).
 */
uint32_t rib_refresh_begin(struct rib *rib, unsigned int peer,
			   uint32_t families, size_t *stale);
/*
 * The epoch that began at begin ends (its End-of-RIB, EoRR, or timeout):
 * peer's paths in families that have not arrived since go. Returns how
 * many went.
 */
size_t rib_refresh_end(struct rib *rib, unsigned int peer, uint32_t families,
		       uint32_t begin);

/*
 * The number of paths peer has for prefix (its path_id aside), and in
 * *has whether it has the one of prefix->path_id: O(log paths).
 */
size_t rib_peer_prefix_paths(const struct rib *rib, unsigned int peer,
			     const struct bgp_prefix *prefix, bool *has);
/* The number of paths peer has in families, stale ones included. */
size_t rib_peer_count(const struct rib *rib, unsigned int peer,
		      uint32_t families);

/*
 * Heap the RIB holds for peer's paths, at most: one path slot each (path
 * arrays and attribute sets are shared between prefixes and peers, so
 * the real share is smaller).
 */
size_t rib_peer_bytes(const struct rib *rib, unsigned int peer);

/* The exact entry for prefix (path_id ignored), or NULL. */
const struct rib_entry *rib_lookup(const struct rib *rib,
				   const struct bgp_prefix *prefix);

/*
 * Calls fn for every entry with at least one path, in prefix order
 * (family, then address, then length). Stops and returns fn's value when
 * it is non-zero.
 */
int rib_walk(const struct rib *rib,
	     int (*fn)(const struct rib_entry *entry, void *ctx), void *ctx);

/*
 * The change feed: calls fn once for every prefix whose set of paths
 * (or any path's attributes or stale mark) changed since the last drain,
 * in the order of their first change; an entry with no paths means the
 * prefix is gone (it is freed after fn returns). fn must not change the
 * RIB. Returns the number of entries passed.
 */
size_t rib_drain(struct rib *rib,
		 void (*fn)(const struct rib_entry *entry, void *ctx),
		 void *ctx);
/* Prefixes waiting in the change feed. */
size_t rib_pending(const struct rib *rib);

/* Counts for the control socket and benchmarks. */
struct rib_stats {
	size_t prefixes;
	size_t paths;
	size_t attr_sets;		/* distinct interned attribute sets */
	size_t path_sets;		/* distinct interned path arrays */
	size_t bytes;			/* heap held by the RIB, approximately */
};
void rib_get_stats(const struct rib *rib, struct rib_stats *stats);

#endif /* FARED_RIB_H */
