// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address Prefix ORF (RFC 5292) in ROUTE-REFRESH (RFC 5291), pure codecs.
 *
 * A host (mpson-00 §4.2) tells each plane's leaf which host routes it
 * wants: the daemon fills struct orf_entry values (ADD PERMIT per wanted
 * prefix, then a catch-all DENY, PROTOCOL.md §3.7) and calls
 * orf_route_refresh_build() for the whole message, IMMEDIATE after
 * Established. On receipt, bgp_route_refresh_parse() (bgp/msg.c) hands
 * over the ORF part as raw bytes: walk its blocks with orf_block_next()
 * and the entries of a type-64 block with orf_entry_next(); a -1 from
 * either means an unrecognized value, and RFC 5291 §6 then removes the
 * whole ORF previously received. orf_match() applies a list of entries to
 * a prefix (RFC 5292 §4).
 */
#ifndef FARED_ORF_H
#define FARED_ORF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp.h"

#define ORF_WHEN_IMMEDIATE	1
#define ORF_WHEN_DEFER		2

/*
 * RFC 5291 §4 common part: Action (2 bits), Match (1 bit), 5 reserved,
 * from the most significant bit: ADD 0x00, REMOVE 0x40, REMOVE-ALL 0x80,
 * DENY 0x20. FRR (bgpd/bgp_packet.h) sends REMOVE as 0x80 and REMOVE-ALL
 * as 0xc0, and takes any non-zero Action as REMOVE-ALL. So fared sends
 * no REMOVE entries (it sends REMOVE-ALL and the list again), and an
 * Action of 3 (0xc0) is an unrecognized value, which by RFC 5291 §6
 * removes the whole ORF: what FRR meant.
 */
enum orf_action {
	ORF_ADD = 0,
	ORF_REMOVE = 1,
	ORF_REMOVE_ALL = 2,
};

struct orf_entry {
	uint8_t action;			/* enum orf_action */
	bool deny;			/* Match: PERMIT 0, DENY 1 */
	uint32_t seq;
	uint8_t minlen, maxlen;		/* 0: unspecified */
	struct bgp_prefix prefix;	/* family, len, addr; path_id unused */
};

/*
 * Appends e's wire form (the common octet alone for REMOVE-ALL) at
 * buf[0..cap); returns its length, or -1 when it does not fit or e breaks
 * RFC 5292 §2 ("0 <= Length < Minlen <= Maxlen", a zero bound being
 * unspecified and not tested) or the family's address length.
 */
int orf_entry_encode(uint8_t *buf, size_t cap, const struct orf_entry *e);

/*
 * Reads the entry at *pos of the entries of one type-64 block of family
 * fam and advances *pos. Returns 1 for an entry, 0 at the end, -1 for a
 * malformed or unrecognized entry (action 3, bad lengths, truncated).
 * Trailing prefix bits are irrelevant (RFC 5292 §3) and come out zero.
 */
int orf_entry_next(const uint8_t *data, size_t len, size_t *pos,
		   enum bgp_family fam, struct orf_entry *e);

/* One ORF of a ROUTE-REFRESH: its type and its entries' bytes. */
struct orf_block {
	uint8_t type;
	const uint8_t *entries;
	size_t len;
};

/* As orf_entry_next(), for the {type, length, entries} blocks. */
int orf_block_next(const uint8_t *orf, size_t len, size_t *pos,
		   struct orf_block *b);

/*
 * A whole ROUTE-REFRESH for fam carrying one Address Prefix ORF block of
 * the n entries, when ORF_WHEN_*; returns the message length, or -1 when
 * it does not fit in cap or max_len (4096, or 65535 with RFC 8654), or an
 * entry is invalid or of another family.
 */
int orf_route_refresh_build(uint8_t *buf, size_t cap, size_t max_len,
			    enum bgp_family fam, uint8_t when,
			    const struct orf_entry *e, size_t n);

/*
 * RFC 5292 §4: among the ADD entries that match p, the one with the
 * smallest sequence decides. Returns 1 (PERMIT), 0 (DENY) or -1 when none
 * matches (RFC 5292 is silent; PROTOCOL.md §3.7: the daemon then treats
 * a non-empty list as DENY, as FRR does).
 */
int orf_match(const struct orf_entry *e, size_t n, const struct bgp_prefix *p);

/*
 * The same decision without a walk of the whole list: the ADD entries of
 * a list sorted by <Length, Prefix, sequence>, and which lengths occur. A
 * prefix of length L is then matched with one binary search per length
 * present up to L (at most 33 or 129), whatever the number of entries; of
 * the entries with one <Prefix, Length> (sorted by sequence) the first
 * whose Minlen/Maxlen admit the prefix decides for them.
 */
struct orf_index {
	struct orf_entry *v;
	size_t n;
	uint64_t lens[3];		/* bit L: an entry of Length L */
};

/* ix from e[0..n) (ix emptied first). 0 or -ENOMEM (ix then empty). */
int orf_index_build(struct orf_index *ix, const struct orf_entry *e,
		    size_t n);
/* As orf_match() over the entries ix was built from. */
int orf_index_match(const struct orf_index *ix, const struct bgp_prefix *p);
void orf_index_free(struct orf_index *ix);

#endif /* FARED_ORF_H */
