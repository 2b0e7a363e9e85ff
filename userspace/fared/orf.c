// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address Prefix ORF codec (see orf.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "orf.h"

#define ORF_ACTION_SHIFT	6
#define ORF_MATCH_DENY		0x20

static unsigned int fam_bits(unsigned int fam)
{
	return fam == BGP_FAM_IPV4_UNICAST ? 32 : 128;
}

/* RFC 5292 §2, a zero Minlen or Maxlen being unspecified. */
static bool entry_valid(const struct orf_entry *e)
{
	unsigned int bits;

	if (e->action > ORF_REMOVE_ALL)
		return false;
	if (e->action == ORF_REMOVE_ALL)
		return true;
	if (e->prefix.family >= BGP_FAM_COUNT)
		return false;
	bits = fam_bits(e->prefix.family);
	if (e->prefix.len > bits || e->minlen > bits || e->maxlen > bits)
		return false;
	if (e->minlen && e->prefix.len >= e->minlen)
		return false;
	if (e->maxlen && e->prefix.len >= e->maxlen)
		return false;
	return !e->minlen || !e->maxlen || e->minlen <= e->maxlen;
}

int orf_entry_encode(uint8_t *buf, size_t cap, const struct orf_entry *e)
{
	struct writer w = writer_make(buf, cap);

	if (!entry_valid(e))
		return -1;
	w_u8(&w, e->action << ORF_ACTION_SHIFT |
		 (e->deny ? ORF_MATCH_DENY : 0));
	if (e->action != ORF_REMOVE_ALL) {
		w_u32(&w, e->seq);
		w_u8(&w, e->minlen);
		w_u8(&w, e->maxlen);
		w_u8(&w, e->prefix.len);
		w_bytes(&w, e->prefix.addr, (e->prefix.len + 7) / 8);
	}
	return w.overflow ? -1 : (int)w.len;
}

int orf_entry_next(const uint8_t *data, size_t len, size_t *pos,
		   enum bgp_family fam, struct orf_entry *e)
{
	struct cursor c = { data + *pos, len - *pos };
	const uint8_t *addr;
	uint8_t common, plen;
	size_t n;

	if (*pos >= len)
		return 0;
	memset(e, 0, sizeof(*e));
	cur_u8(&c, &common);
	e->action = common >> ORF_ACTION_SHIFT;
	e->deny = common & ORF_MATCH_DENY;
	e->prefix.family = fam;
	if (e->action != ORF_REMOVE_ALL) {
		if (!cur_u32(&c, &e->seq) || !cur_u8(&c, &e->minlen) ||
		    !cur_u8(&c, &e->maxlen) || !cur_u8(&c, &plen) ||
		    plen > fam_bits(fam) ||
		    !cur_take(&c, (plen + 7) / 8, &addr))
			return -1;
		e->prefix.len = plen;
		n = plen / 8;
		memcpy(e->prefix.addr, addr, n);
		if (plen % 8)
			e->prefix.addr[n] = addr[n] & (0xff << (8 - plen % 8));
	}
	if (!entry_valid(e))
		return -1;
	*pos = len - c.left;
	return 1;
}

int orf_block_next(const uint8_t *orf, size_t len, size_t *pos,
		   struct orf_block *b)
{
	struct cursor c = { orf + *pos, len - *pos };
	uint16_t n;

	if (*pos >= len)
		return 0;
	if (!cur_u8(&c, &b->type) || !cur_u16(&c, &n) ||
	    !cur_take(&c, n, &b->entries))
		return -1;
	b->len = n;
	*pos = len - c.left;
	return 1;
}

int orf_route_refresh_build(uint8_t *buf, size_t cap, size_t max_len,
			    enum bgp_family fam, uint8_t when,
			    const struct orf_entry *e, size_t n)
{
	struct writer w = writer_make(buf, cap);
	size_t i, at;
	int k;

	w_header(&w, BGP_MSG_ROUTE_REFRESH);
	w_u16(&w, bgp_family_afi(fam));
	w_u8(&w, 0);
	w_u8(&w, bgp_family_safi(fam));
	w_u8(&w, when);
	w_u8(&w, BGP_ORF_TYPE_ADDRESS_PREFIX);
	at = w.len;
	w_u16(&w, 0);
	for (i = 0; i < n && !w.overflow; i++) {
		if (e[i].action != ORF_REMOVE_ALL &&
		    e[i].prefix.family != fam)
			return -1;
		k = orf_entry_encode(w.p + w.len, w.cap - w.len, &e[i]);
		if (k < 0)
			return -1;
		w.len += k;
	}
	if (w.len - at - 2 > 0xffff)
		return -1;
	w_patch_u16(&w, at, w.len - at - 2);
	return w_finish(&w, max_len);
}

/* Is p equal to or more specific than e's <Prefix, Length>? */
static bool covers(const struct orf_entry *e, const struct bgp_prefix *p)
{
	unsigned int i, len = e->prefix.len;

	if (p->family != e->prefix.family || p->len < len)
		return false;
	for (i = 0; i < len / 8; i++)
		if (p->addr[i] != e->prefix.addr[i])
			return false;
	return !(len % 8) ||
	       !((p->addr[i] ^ e->prefix.addr[i]) & (0xff << (8 - len % 8)));
}

int orf_match(const struct orf_entry *e, size_t n, const struct bgp_prefix *p)
{
	const struct orf_entry *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct orf_entry *x = &e[i];
		bool ok;

		if (x->action != ORF_ADD || !covers(x, p))
			continue;
		if (!x->minlen && !x->maxlen)
			ok = p->len == x->prefix.len;
		else
			ok = (!x->minlen || p->len >= x->minlen) &&
			     (!x->maxlen || p->len <= x->maxlen);
		if (ok && (!best || x->seq < best->seq))
			best = x;
	}
	return best ? !best->deny : -1;
}

/* Whether x's Minlen/Maxlen (or exact Length) admit a p it covers. */
static bool length_ok(const struct orf_entry *x, const struct bgp_prefix *p)
{
	if (!x->minlen && !x->maxlen)
		return p->len == x->prefix.len;
	return (!x->minlen || p->len >= x->minlen) &&
	       (!x->maxlen || p->len <= x->maxlen);
}

static int key_cmp(unsigned int len, const uint8_t *addr,
		   const struct orf_entry *e)
{
	int r;

	if (len != e->prefix.len)
		return len < e->prefix.len ? -1 : 1;
	r = memcmp(addr, e->prefix.addr, (len + 7) / 8);
	return r;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct orf_entry *x = a, *y = b;
	int r = key_cmp(x->prefix.len, x->prefix.addr, y);

	if (r)
		return r;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void orf_index_free(struct orf_index *ix)
{
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

int orf_index_build(struct orf_index *ix, const struct orf_entry *e,
		    size_t n)
{
	size_t i;

	orf_index_free(ix);
	if (!n)
		return 0;
	ix->v = malloc(n * sizeof(*ix->v));
	if (!ix->v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		unsigned int len = e[i].prefix.len;

		if (e[i].action != ORF_ADD || len > 128)
			continue;
		ix->v[ix->n++] = e[i];
		ix->lens[len / 64] |= 1ull << (len % 64);
	}
	qsort(ix->v, ix->n, sizeof(*ix->v), entry_cmp);
	return 0;
}

int orf_index_match(const struct orf_index *ix, const struct bgp_prefix *p)
{
	const struct orf_entry *best = NULL;
	uint8_t key[16];
	unsigned int len, i;

	for (len = 0; len <= p->len && len <= 128; len++) {
		size_t lo = 0, hi = ix->n, k;

		if (!(ix->lens[len / 64] & (1ull << (len % 64))))
			continue;
		memset(key, 0, sizeof(key));
		for (i = 0; i < len / 8; i++)
			key[i] = p->addr[i];
		if (len % 8)
			key[i] = p->addr[i] & (0xff << (8 - len % 8));
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (key_cmp(len, key, &ix->v[mid]) > 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < ix->n && !key_cmp(len, key, &ix->v[k]); k++) {
			const struct orf_entry *x = &ix->v[k];

			if (x->prefix.family != p->family)
				continue;
			if (best && x->seq >= best->seq)
				break;
			if (length_ok(x, p)) {
				best = x;
				break;
			}
		}
	}
	return best ? !best->deny : -1;
}
