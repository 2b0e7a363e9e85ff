// SPDX-License-Identifier: GPL-2.0-only
/*
 * A neighbor's parts, as OpenBGPD splits its session engine from its
 * RDE, and what they share (private to peer*.c; the rest of fared sees
 * peer.h):
 *
 *   peer.c         the session: state machine, sockets, timers,
 *                  collisions, OPEN, and the dispatch of what arrives.
 *                  It calls no RIB function: what arrives and what
 *                  happens to the session go through d->rib_ops
 *                  (struct peer_rib_ops, peer.h), which the RIB side
 *                  registers (peer_rib_ops: import and stale routes).
 *   peer_import.c  import: checks, policy, max-prefix; writes the
 *                  neighbor's paths into the RIB
 *   peer_gr.c      stale routes: graceful restart (helper, and the
 *                  restarting speaker's deferral), enhanced route refresh
 *   peer_send.c    sending: announce, withdraw, End-of-RIB, the exports
 */
#ifndef FARED_PEER_INT_H
#define FARED_PEER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "bgp.h"
#include "fared.h"
#include "peer.h"

#define plog(p, fmt, ...) \
	fared_log("neighbor %s: " fmt, (p)->name, ##__VA_ARGS__)

static inline const char *peer_fam_name(unsigned int fam)
{
	return fam == BGP_FAM_IPV6_UNICAST ? "ipv6" : "ipv4";
}

static inline bool peer_is_ibgp(const struct peer *p)
{
	return p->nb->remote_as == p->d->cfg.local_as;
}

/* peer.c: the session. */

/*
 * Queues msg (len < 0: it could not be built) on c. Never closes c
 * itself: a failure closes the connection from the loop, right after
 * the current event.
 */
void conn_send(struct conn *c, const uint8_t *msg, int len);
/* Sends a NOTIFICATION and closes c, best effort (RFC 4271 §6). */
void conn_notify(struct conn *c, uint8_t code, uint8_t subcode,
		 const uint8_t *data, size_t data_len, const char *why);
/*
 * A Cease with data, and closes c; inside a Hard Reset when the N bit
 * was exchanged and the subcode is one RFC 8538 §5.1 ends hard with
 * (max-prefix among them: gr_cease_is_hard()).
 */
void conn_cease_data(struct conn *c, uint8_t subcode, const uint8_t *data,
		     size_t data_len, const char *why);
/* A Cease (RFC 9003 text for a shutdown or reset), as conn_cease_data. */
void conn_cease(struct conn *c, uint8_t subcode, const char *text);
/* RFC 8538: both sides sent the N bit on c. */
bool conn_gr_n(const struct conn *c);
/* What the codec needs of c's session (AS4, iBGP, ADD-PATH, size). */
struct bgp_codec_opts conn_codec_opts(const struct conn *c);

/* peer_import.c: import. */

void peer_import_init(struct peer *p);
/*
 * The routes of the UPDATE u (tw: RFC 7606 treat-as-withdraw) into the
 * RIB through p's import checks and policy, then max-prefix, which may
 * close c.
 */
void peer_import_update(struct conn *c, const struct bgp_update *u,
			bool tw);
/* p goes: every path it gave the RIB goes too. */
void peer_import_flush(struct peer *p);
/* Heap the RIB holds for p's paths. */
size_t peer_import_bytes(const struct peer *p);

/* peer_gr.c: stale routes. */

void peer_gr_init(struct peer *p);
/* p goes: its epochs close, their timers stop. */
void peer_gr_stop(struct peer *p);
/*
 * The session c went down (notified: a NOTIFICATION was sent or
 * received): keep the routes stale, or flush them (gr_session_down()).
 */
void peer_gr_session_down(struct peer *p, const struct conn *c,
			  bool notified);
/* c came up: stale routes of families not preserved go (RFC 4724 §4.2). */
void peer_gr_established(struct peer *p, const struct conn *c);
/*
 * An End-of-RIB arrived and the FARE side heard of it: when every
 * neighbor's is in and the FARE side holds nothing back, a restarting
 * fared's deferred initial exports go (peers_selection_done()).
 */
void peer_gr_eor(struct fared *d);
/* The End-of-RIB for fam: a restart's stale routes of fam go. */
void peer_gr_eor_rx(struct peer *p, unsigned int fam);
/* A BoRR for fam (RFC 7313 §4): p's paths of fam stale until its EoRR. */
void peer_gr_refresh_begin(struct peer *p, unsigned int fam);
/* An EoRR for fam: the BoRR's stale routes go; without a BoRR, nothing. */
void peer_gr_refresh_end(struct peer *p, unsigned int fam);
/*
 * p's import policy changed: its paths of families stale until it sent
 * them again (its EoRR), or stale-time.
 */
void peer_gr_import_begin(struct peer *p, uint32_t families);

/* peer_send.c: sending. */

/*
 * The Adj-RIB-Out's routes of fam to p: originated, then passed on
 * (resend: all of them again, for a ROUTE-REFRESH).
 */
void peer_export_fam(struct peer *p, unsigned int fam, bool resend);
void peer_send_eor(struct conn *c, unsigned int fam);
/* The initial export, then End-of-RIB per family (RFC 4724 §2). */
void peer_initial_export(struct peer *p);
/* A family held back for ORF: its first export and End-of-RIB. */
void peer_export_first(struct conn *c, unsigned int fam);

#endif /* FARED_PEER_INT_H */
