// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address Prefix ORF on sessions (mpson-00 §4.2, RFC 5291/5292).
 *
 * Host side: the remote hosts fared wants (config "orf-prefix", changed at
 * run time through the control socket) go to every neighbor that
 * negotiated ORF with us sending and it receiving; a neighbor that did not
 * advertise the capability never gets ORF (BIRD drops the session on it).
 *
 * What goes on the wire is shaped by FRR 8.4.4, the only ORF peer there
 * is: its receiver takes any non-zero Action as REMOVE-ALL and then skips
 * the rest of that block, and skips a block shorter than 7 octets (a lone
 * REMOVE-ALL). So a whole list is always sent as
 *   1. REMOVE-ALL, then the catch-all DENY (seq 0xffffffff),
 *   2. the PERMIT entries, as many messages as they need,
 * every message DEFER but the last, IMMEDIATE. An RFC receiver ends up
 * with the permits and the catch-all DENY; FRR with the permits alone,
 * which its implicit deny makes the same filter. An empty list is sent as
 * REMOVE-ALL then PERMIT everything, which both read as "no filter".
 *
 * Leaf side: ORF received from a neighbor filters what is exported to it;
 * until its first ROUTE-REFRESH the family is not exported at all
 * (RFC 5291 §6).
 *
 * This is the session's part: the lists' codec and what a session
 * negotiated. It calls nothing; the session (peer_send.c) sends the host's
 * list (peer_send_orf()) and the wanted list itself is orf_want.h's.
 */
#ifndef FARED_ORF_SESS_H
#define FARED_ORF_SESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp.h"
#include "orf.h"

struct peer;

/*
 * Calls emit(msg, len, arg) for each ROUTE-REFRESH carrying the whole list
 * want[0..n) of family fam, each at most max_len octets, in the order
 * above. Returns the number of messages, or -1 when emit fails (non-zero)
 * or an entry is of another family.
 */
int orf_list_build(enum bgp_family fam, const struct bgp_prefix *want,
		   size_t n, size_t max_len,
		   int (*emit)(const uint8_t *msg, size_t len, void *arg),
		   void *arg);

/*
 * Applies the entries of an ORF part (rr->orf) of family fam to the list
 * (*e, *n): ADD adds (or replaces the entry of the same sequence), REMOVE
 * drops an equal entry, REMOVE-ALL empties it, and an unrecognized value
 * empties it too (RFC 5291 §6). The list holds at most ORF_RX_MAX
 * entries: one more is -E2BIG (the list then keeps what it had reached).
 * Returns 0, -1 on an unrecognized value, -ENOMEM, -E2BIG.
 */
#define ORF_RX_MAX	16384
int orf_list_apply(struct orf_entry **e, size_t *n, enum bgp_family fam,
		   const uint8_t *orf, size_t orf_len);

/* The session's side of ORF, from what both OPENs said. */
bool orf_sends(const struct peer *p, unsigned int fam);
bool orf_receives(const struct peer *p, unsigned int fam);

/* p's ORF of fam changed: its index is made again. */
void orf_rx_changed(struct peer *p, unsigned int fam);
/* Whether export may send pfx to p: the ORF p sent us permits it. */
bool orf_permits(const struct peer *p, const struct bgp_prefix *pfx);

#endif /* FARED_ORF_SESS_H */
