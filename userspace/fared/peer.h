// SPDX-License-Identifier: GPL-2.0-only
/*
 * BGP neighbors: the RFC 4271 §8 state machine per configured neighbor,
 * its TCP connections (one outgoing and one incoming at most, for
 * collision detection), UPDATE handling into the RIB, and the session
 * writer: UPDATEs built from what the Adj-RIB-Out (adj_out.h) asks for,
 * as the socket takes them (the writer pulls: fared_hooks' writable).
 * Four files, as peer_int.h describes: the session (peer.c), import
 * (peer_import.c), stale routes as refresh epochs per family and reason
 * (peer_gr.c) and sending (peer_send.c); the session reaches the RIB
 * only through struct peer_rib_ops, which the other side registers. The
 * decision code sees neighbors through the peer table (peer_table.h).
 *
 * The session layer is the top of fared's one-way data flow: paths go
 * into the RIB, whose change feed goes on; the rest of the daemon hears
 * of session events through struct fared_hooks (fared.h), and writes to
 * a session only through peer_announce(), peer_withdraw(), peer_send_raw()
 * and peer_send_orf(). peer*.c include no header of the modules below
 * them but orf_sess.h (the ORF codec) and gr.h (graceful restart's rules).
 */
#ifndef FARED_PEER_H
#define FARED_PEER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bgp.h"
#include "config.h"
#include "loop.h"
#include "orf.h"
#include "rib.h"

enum peer_state {
	PEER_IDLE,
	PEER_CONNECT,
	PEER_ACTIVE,
	PEER_OPENSENT,
	PEER_OPENCONFIRM,
	PEER_ESTABLISHED,
};

const char *peer_state_name(enum peer_state s);

struct fared;
struct peer;

/*
 * Why a neighbor's routes of a family are held stale, each a refresh
 * epoch of its own (rib_refresh_begin()): one ends only by its own
 * event or timer, and sweeps only what has not arrived since it began.
 */
enum peer_refresh_reason {
	/* The session went gracefully (RFC 4724): until its End-of-RIB. */
	PEER_REFRESH_GR,
	/* The neighbor's BoRR (RFC 7313): until its EoRR. */
	PEER_REFRESH_RR,
	/* Our import policy changed: until the routes asked for again. */
	PEER_REFRESH_IMPORT,
	PEER_REFRESH_REASONS
};

struct peer_epoch {
	struct peer *p;
	uint8_t fam, reason;
	bool open;
	uint32_t begin;			/* rib_refresh_begin()'s */
	/*
	 * Graceful restart: when its routes go whatever happens (opened
	 * at the first graceful drop: restart-time plus stale-time), so
	 * that repeated re-establishments with the N bit do not keep them
	 * for ever (RFC 8538 §4.1's stale timer). 0: no such bound.
	 */
	uint64_t bound_ms;
	struct timer timer;		/* its end by timeout */
};

struct conn {
	struct peer *peer;
	struct io io;
	bool outgoing;
	bool broken;			/* a send failed: closing */
	const char *broken_why;		/* static text for the log */
	enum peer_state state;	/* CONNECT, OPENSENT, OPENCONFIRM, ESTABLISHED */
	uint8_t *rbuf;
	size_t rlen, rcap;
	uint8_t *wbuf;			/* wbuf[woff..wlen): not sent yet */
	size_t woff, wlen, wcap;
	struct timer hold, keepalive, send_hold;
	bool hold_deferred;		/* hold_expired() waited for unread input */
	struct bgp_open open;		/* the peer's */
	bool open_rx;			/* ... has arrived */
	uint8_t gr_flags_tx;		/* our OPEN's restart flags (gr.h) */
	bool hard;			/* a Hard Reset was sent or received */
	struct bgp_session_params params;
	struct sockaddr_storage local;
	/*
	 * The RFC 2545 link-local next hop beside local (peer_send.c), as
	 * last looked up (ll_at, ms; 0: never): getifaddrs() is a netlink
	 * dump of every address, too dear for each UPDATE.
	 */
	uint64_t ll_at;
	bool has_ll;
	uint8_t ll[16];
};

struct peer {
	struct fared *d;
	const struct fared_neighbor *nb;	/* into d->cfg */
	unsigned int index;			/* the RIB's peer number */
	char name[80];
	struct conn *out, *in, *est;
	struct timer connect_retry;
	/* Stale routes, per family and reason (peer_gr.c). */
	struct peer_epoch epoch[BGP_FAM_COUNT][PEER_REFRESH_REASONS];
	struct timer deferral;		/* restarting: waiting for its EoR */
	/* max-prefix: kept Idle after a Cease 6/1, until this or a clear. */
	struct timer max_prefix_restart;
	bool max_prefix_idle;
	bool max_prefix_warned;		/* warning-only: logged once */
	/* What the last Established session agreed, kept across a drop. */
	struct bgp_session_params params;
	struct bgp_caps peer_caps;
	uint32_t peer_id;
	uint32_t stale_families;	/* families with an epoch open */
	uint32_t eor_rx, eor_tx;
	/*
	 * End-of-RIB, EoRR to send once nothing of the family is pending
	 * in the Adj-RIB-Out any more (peer_fam_sent()).
	 */
	uint32_t eor_due, eorr_due;
	bool restarting;		/* our R bit for this peer's next OPEN */
	/* Leaf: the ORF it sent us per family; families not yet exported
	 * because its first ROUTE-REFRESH is awaited (RFC 5291 §6). */
	struct orf_entry *orf_rx[BGP_FAM_COUNT];
	size_t n_orf_rx[BGP_FAM_COUNT];
	/*
	 * orf_rx indexed for export's per-prefix checks (orf_permits());
	 * orf_ix_ok false: not built (no memory), orf_match() walks the list.
	 */
	struct orf_index orf_ix[BGP_FAM_COUNT];
	bool orf_ix_ok[BGP_FAM_COUNT];
	uint32_t orf_wait;
	uint64_t orf_tx, orf_rx_msgs;	/* ROUTE-REFRESHes with ORF */
	bool export_done;
	/* For the control socket. */
	uint64_t established_at;	/* ms, 0 when not Established */
	unsigned int flaps;
	uint64_t updates_rx, updates_tx, notifications_rx, notifications_tx;
	uint64_t withdraw_7606, discard_7606, rejected_8212;
	/* This session: prefixes announced to us, and those import denied. */
	uint64_t prefixes_rx, prefixes_denied;
	/* This session: NLRI runs of a family not negotiated, ignored. */
	uint64_t unnegotiated;
	/* This session: UPDATEs whose AS_PATH does not begin with its AS. */
	uint64_t neighbor_as_bad;
	/* This session: paths ignored past add-path max-paths. */
	uint64_t add_path_over;
	uint64_t too_large;		/* routes not sent: over max_len */
	uint64_t max_prefix_hits;	/* sessions closed by max-prefix */
	/* The log rate limit (peer_log.c). */
	unsigned int log_tokens;
	uint64_t log_refill_at;		/* ms: the last refill */
	uint64_t log_suppressed;	/* since the last summary */
	uint64_t log_suppressed_total;
	struct timer log_summary;
	char last_error[320];
};

/*
 * What the session layer (peer.c) tells the RIB side, which registers it
 * (fared.c sets d->rib_ops to &peer_rib_ops: import, graceful restart and
 * refresh epochs, peer_import.c and peer_gr.c), so that the session calls
 * no RIB function. NULL: the session keeps nothing (unit tests).
 *   update         an UPDATE (tw: RFC 7606 treat-as-withdraw); may end
 *                  the session (max-prefix)
 *   eor            its End-of-RIB for fam
 *   refresh_begin  its BoRR for fam (RFC 7313), accepted
 *   refresh_end    its EoRR for fam
 *   established    a session came up (c: its OPEN, capabilities)
 *   down           the Established session c went (notified: a
 *                  NOTIFICATION was sent or received)
 *   gone           the neighbor goes: everything it gave goes
 *   bytes          heap held for its paths
 */
struct peer_rib_ops {
	void (*update)(struct conn *c, const struct bgp_update *u, bool tw);
	void (*eor)(struct peer *p, unsigned int fam);
	void (*refresh_begin)(struct peer *p, unsigned int fam);
	void (*refresh_end)(struct peer *p, unsigned int fam);
	void (*established)(struct peer *p, const struct conn *c);
	void (*down)(struct peer *p, const struct conn *c, bool notified);
	void (*gone)(struct peer *p);
	size_t (*bytes)(const struct peer *p);
};
extern const struct peer_rib_ops peer_rib_ops;

enum peer_state peer_state(const struct peer *p);
/* Established, and End-of-RIB received for every negotiated family. */
bool peer_has_first_table(const struct peer *p);
struct peer *peer_new(struct fared *d, const struct fared_neighbor *nb);
void peer_start(struct peer *p);

/*
 * Sends every KEEPALIVE that is due now. Work that holds the loop for long
 * (a FIB batch of many routes) calls it through loop_tick(): otherwise
 * every peer's hold timer runs out while fared is busy with one peer's
 * routes, and one hostile peer ends every session.
 */
void peers_keepalives_due(struct fared *d);
/*
 * p's BFD session failed (bfd.h): every connection ends with a Cease
 * "BFD Down" (RFC 9384), inside a Hard Reset when RFC 8538's N bit was
 * exchanged, so that neither side keeps the other's routes stale; p
 * connects again after its connect-retry time.
 */
void peer_bfd_down(struct peer *p);
/* Sends a Cease (subcode, RFC 9003 text) on any session and frees p. */
void peer_free(struct peer *p, uint8_t subcode, const char *text);
/*
 * fared restarts (fared.8, RESTART): ends p's session so that the peer
 * keeps our routes, stale (RFC 8538 Administrative Reset with N, else the
 * TCP connection closed without NOTIFICATION, RFC 4724), and frees p.
 */
void peer_restart_leave(struct peer *p);
/* An accepted connection whose source address matched p. */
void peer_accept(struct peer *p, int fd);
/*
 * A restarting fared has selected its routes (every neighbor's End-of-RIB
 * is in and the FARE side's start-up wait is over, or that wait or the
 * deferral timer ran out): each neighbor whose initial export was
 * deferred gets it now, then End-of-RIB (RFC 4724 §4.1); sessions that
 * come up later are no longer deferred.
 */
void peers_selection_done(struct fared *d);
/* Re-sends what export permits now, withdrawing what it no longer does. */
void peer_reexport(struct peer *p);
/*
 * p's entry in the peer table (peer_table.h) again, after its
 * configuration changed (reload).
 */
int peer_table_refresh(struct peer *p);
/* Sends the host's wanted list (orf_want.h) of each ORF family to p. */
void peer_send_orf(struct peer *p);
/*
 * What a transit role passes on with a learned route (next hop self):
 * path is the AS path beyond us, path_len words packed with its segments
 * (bgp_as_path_pack(), rib_attrs' as_packed), to which we prepend ours
 * toward eBGP; ecs the extended communities; comms and lcomms the
 * standard and large communities as received; raw whole attributes
 * (unknown optional transitive ones, Partial set) sent as they are.
 */
struct peer_route {
	uint8_t origin;
	const uint32_t *path;
	size_t path_len;
	const uint8_t *ecs;
	size_t ecs_len;
	const uint8_t *comms;
	size_t comms_len;
	const uint8_t *lcomms;
	size_t lcomms_len;
	const uint8_t *raw;
	size_t raw_len;
	bool atomic_aggregate;
	bool has_aggregator;
	uint32_t aggregator_as;
	uint8_t aggregator_id[4];
};

/*
 * Announces the n prefixes pfx (one family) with the attributes r, in as
 * few UPDATEs as the session's message size allows. False when p has no
 * Established session for the family or a send failed; a prefix whose
 * UPDATE alone would be too large is logged, counted and withdrawn
 * instead, so that the peer keeps no older version (RFC 8654 §4).
 */
bool peer_announce(struct peer *p, const struct bgp_prefix *pfx, size_t n,
		   const struct peer_route *r);
/* Withdraws the n prefixes pfx (one family), as few UPDATEs as fit. */
bool peer_withdraw(struct peer *p, const struct bgp_prefix *pfx, size_t n);
/*
 * The Adj-RIB-Out has nothing of fam pending for p any more: the
 * End-of-RIB or EoRR that waited for it goes now.
 */
void peer_fam_sent(struct peer *p, unsigned int fam);
/* Queues a whole message on p's Established session; false if gone. */
bool peer_send_raw(struct peer *p, const uint8_t *msg, size_t len);
/* Asks the peer to send its routes again (import policy changed). */
void peer_refresh_in(struct peer *p);
/*
 * p's import policy changed (reload): the paths it denies now go, the
 * others stay, stale, until the peer has sent its routes again (a
 * ROUTE-REFRESH), so that nothing the new policy still accepts is
 * withdrawn from fare.ko or from the neighbors in between.
 */
void peer_import_changed(struct peer *p);
/*
 * Ends a max-prefix Idle (operator's clear, reload): connects again.
 * False when p was not held Idle.
 */
bool peer_clear_idle(struct peer *p);
/* Heap held for p: buffers, ORF lists, its RIB paths (not attributes). */
size_t peer_memory(const struct peer *p);
/* Bytes queued to the peer and not yet taken by its socket. */
size_t peer_send_queue(const struct peer *p);

#endif /* FARED_PEER_H */
