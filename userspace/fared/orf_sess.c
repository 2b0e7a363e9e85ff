// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orf_sess.h"
#include "peer.h"

/* Header, AFI, reserved, SAFI, When, ORF type and entries' length. */
#define RR_ORF_FIXED	(BGP_HEADER_LEN + 4 + 1 + 1 + 2)
#define SEQ_CATCH_ALL	0xffffffffu

static size_t entry_len(const struct orf_entry *e)
{
	if (e->action == ORF_REMOVE_ALL)
		return 1;
	return 8 + (e->prefix.len + 7) / 8;
}

static unsigned int fam_bits(unsigned int fam)
{
	return fam == BGP_FAM_IPV4_UNICAST ? 32 : 128;
}

static int emit_one(enum bgp_family fam, uint8_t when,
		    const struct orf_entry *e, size_t n, size_t max_len,
		    int (*emit)(const uint8_t *, size_t, void *), void *arg)
{
	uint8_t buf[BGP_EXT_MAX_LEN];
	int len = orf_route_refresh_build(buf, sizeof(buf), max_len, fam,
					  when, e, n);

	if (len < 0 || emit(buf, (size_t)len, arg))
		return -1;
	return 0;
}

int orf_list_build(enum bgp_family fam, const struct bgp_prefix *want,
		   size_t n, size_t max_len,
		   int (*emit)(const uint8_t *msg, size_t len, void *arg),
		   void *arg)
{
	struct orf_entry head[2] = { { .action = ORF_REMOVE_ALL } };
	struct orf_entry *batch;
	size_t i = 0, k, room;
	int msgs = 0, err = 0;

	if (max_len > BGP_EXT_MAX_LEN)
		max_len = BGP_EXT_MAX_LEN;
	for (k = 0; k < n; k++)
		if (want[k].family != fam)
			return -1;
	head[1].prefix.family = fam;
	head[1].seq = SEQ_CATCH_ALL;
	head[1].maxlen = fam_bits(fam);
	/* With nothing wanted, REMOVE-ALL then PERMIT all: no filter. */
	head[1].deny = n > 0;
	if (emit_one(fam, n ? ORF_WHEN_DEFER : ORF_WHEN_IMMEDIATE, head, 2,
		     max_len, emit, arg))
		return -1;
	msgs++;
	batch = malloc((max_len / 9 + 1) * sizeof(*batch));
	if (!batch)
		return -1;
	while (i < n && !err) {
		room = max_len - RR_ORF_FIXED;
		for (k = 0; i < n; i++, k++) {
			struct orf_entry *e = &batch[k];

			memset(e, 0, sizeof(*e));
			e->action = ORF_ADD;
			e->seq = (uint32_t)i + 1;
			e->prefix = want[i];
			e->prefix.path_id = 0;
			if (entry_len(e) > room)
				break;
			room -= entry_len(e);
		}
		err = emit_one(fam, i < n ? ORF_WHEN_DEFER :
			       ORF_WHEN_IMMEDIATE, batch, k, max_len, emit,
			       arg);
		msgs++;
	}
	free(batch);
	return err ? -1 : msgs;
}

static bool entry_eq(const struct orf_entry *a, const struct orf_entry *b)
{
	return a->seq == b->seq && a->deny == b->deny &&
	       a->minlen == b->minlen && a->maxlen == b->maxlen &&
	       a->prefix.len == b->prefix.len &&
	       !memcmp(a->prefix.addr, b->prefix.addr, sizeof(a->prefix.addr));
}

int orf_list_apply(struct orf_entry **list, size_t *n, enum bgp_family fam,
		   const uint8_t *orf, size_t orf_len)
{
	struct orf_block b;
	struct orf_entry e, *grown;
	size_t pos = 0, epos, i;
	int r;

	while ((r = orf_block_next(orf, orf_len, &pos, &b)) == 1) {
		/* RFC 5291 §6: other ORF types are not ours to act on. */
		if (b.type != BGP_ORF_TYPE_ADDRESS_PREFIX)
			continue;
		epos = 0;
		while ((r = orf_entry_next(b.entries, b.len, &epos, fam,
					   &e)) == 1) {
			if (e.action == ORF_REMOVE_ALL) {
				*n = 0;
				continue;
			}
			for (i = 0; i < *n; i++)
				if ((*list)[i].seq == e.seq)
					break;
			if (e.action == ORF_REMOVE) {
				if (i < *n && entry_eq(&(*list)[i], &e))
					(*list)[i] = (*list)[--*n];
				continue;
			}
			if (i == *n && *n >= ORF_RX_MAX)
				return -E2BIG;
			if (i == *n) {
				grown = realloc(*list, (*n + 1) *
						sizeof(**list));
				if (!grown)
					return -ENOMEM;
				*list = grown;
				(*n)++;
			}
			(*list)[i] = e;
		}
		if (r < 0)
			break;
	}
	if (r < 0) {
		*n = 0;
		return -1;
	}
	return 0;
}

bool orf_sends(const struct peer *p, unsigned int fam)
{
	return p->est && (p->est->params.families & BGP_FAM_BIT(fam)) &&
	       (p->nb->orf & BGP_ORF_SEND) &&
	       (p->est->open.caps.orf_prefix[fam] & BGP_ORF_RECEIVE);
}

bool orf_receives(const struct peer *p, unsigned int fam)
{
	return p->est && (p->est->params.families & BGP_FAM_BIT(fam)) &&
	       (p->nb->orf & BGP_ORF_RECEIVE) &&
	       (p->est->open.caps.orf_prefix[fam] & BGP_ORF_SEND);
}

void orf_rx_changed(struct peer *p, unsigned int fam)
{
	p->orf_ix_ok[fam] = !orf_index_build(&p->orf_ix[fam], p->orf_rx[fam],
					     p->n_orf_rx[fam]);
}

bool orf_permits(const struct peer *p, const struct bgp_prefix *pfx)
{
	unsigned int fam = pfx->family;

	if (fam >= BGP_FAM_COUNT || !p->n_orf_rx[fam])
		return true;
	if (p->orf_ix_ok[fam])
		return orf_index_match(&p->orf_ix[fam], pfx) == 1;
	return orf_match(p->orf_rx[fam], p->n_orf_rx[fam], pfx) == 1;
}
