// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's RIB (see rib.h for the contract).
 *
 * Prefixes live in one path-compressed binary trie per family: a pre-order
 * walk of it is exactly (address, length) order, since a node's address is
 * no larger than any descendant's and every address under child[0] is
 * smaller than every address under child[1]. Nodes with no prefix of their
 * own ("glue") join two subtrees where they first differ.
 *
 * Memory is what a full table costs, so a node is 56 bytes (no parent
 * pointer: the few operations that need ancestors find them from the
 * root, at most 129 steps), and a prefix's path array is interned: at
 * 100,000 host routes from 4 planes every prefix shares one array of 4
 * paths, and every path of a peer one attribute set. A change builds the
 * new array in a scratch buffer and looks it up (or makes it); arrays and
 * attribute sets are immutable and reference-counted.
 *
 * A peer's flush, refresh begin and end walk the family's trie: O(prefixes)
 * for an event as rare as a session going down, instead of a per-peer
 * index of every path that would cost 16 bytes a path all the time.
 *
 * A prefix whose path set changes is appended once to the change feed (a
 * vector of nodes, guarded by the node's queued flag). Its capacity is
 * kept at least the number of entry nodes, reserved when a node is made,
 * so that queueing never allocates and a withdrawal or a flush never
 * fails. A prefix that loses its last path stays in the trie, invisible to
 * lookup and walk, until the feed has reported it gone.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "rib.h"

/* Flags of a node (e.rib_flags). */
#define NODE_ENTRY	1u		/* a prefix, else glue */
#define NODE_QUEUED	2u		/* in the change feed */

/* Lengths strictly grow down the trie: at most 129 nodes root to leaf. */
#define TRIE_DEPTH	(128 + 2)

struct rib_node {
	struct rib_node *child[2];
	struct rib_entry e;		/* e.prefix.len is the node's length */
};

/* An interned path array: e.paths points at its paths[]. */
struct rib_pathset {
	struct rib_pathset *next;	/* the intern table's chain */
	uint32_t hash;
	uint32_t refs;
	uint32_t n;
	struct rib_path paths[];
};

struct rib_peer {
	size_t count[BGP_FAM_COUNT];
	uint32_t gen;			/* the latest refresh's begin */
};

struct rib {
	struct rib_node *root[BGP_FAM_COUNT];
	struct rib_peer *peers;
	size_t n_peers;
	struct rib_attrs **buckets;	/* attribute sets */
	size_t n_buckets;
	struct rib_pathset **set_buckets;
	size_t n_set_buckets;
	/* Scratch for building a path array. */
	struct rib_path *scratch;
	size_t scratch_cap;
	/* The change feed; queue_cap >= n_entries. */
	struct rib_node **queue;
	size_t queue_len, queue_cap, n_entries;
	size_t pending;
	struct rib_stats stats;
};

/*
 * Fault injection for the unit tests: when non-zero, counts allocations
 * down and fails the one that brings it to zero.
 */
unsigned long rib_fault_countdown;

static bool fault(void)
{
	return rib_fault_countdown && !--rib_fault_countdown;
}

static void *xmalloc(size_t n)
{
	return fault() ? NULL : malloc(n);
}

static void *xcalloc(size_t n, size_t size)
{
	return fault() ? NULL : calloc(n, size);
}

static void *xrealloc(void *p, size_t n)
{
	return fault() ? NULL : realloc(p, n);
}

static unsigned int addr_bytes(uint8_t family)
{
	return family == BGP_FAM_IPV4_UNICAST ? 4 : 16;
}

static unsigned int bit_at(const uint8_t *addr, unsigned int i)
{
	return (addr[i >> 3] >> (7 - (i & 7))) & 1;
}

/*
 * The first bit (< limit) where a and b, two prefixes' 16-byte addresses,
 * differ, else limit. Eight bytes at a time: each of the 400,000 paths of
 * a 4-plane table of 100,000 host routes is looked up through about 17
 * nodes.
 */
static unsigned int first_diff(const uint8_t *a, const uint8_t *b,
			       unsigned int limit)
{
	unsigned int i;
	uint64_t x, y;

	for (i = 0; i < limit; i += 64) {
		memcpy(&x, a + (i >> 3), sizeof(x));
		memcpy(&y, b + (i >> 3), sizeof(y));
		x = be64toh(x) ^ be64toh(y);
		if (x) {
			i += __builtin_clzll(x);
			return i < limit ? i : limit;
		}
	}
	return limit;
}

static bool is_entry(const struct rib_node *n)
{
	return n->e.rib_flags & NODE_ENTRY;
}

static bool is_queued(const struct rib_node *n)
{
	return n->e.rib_flags & NODE_QUEUED;
}

/* Never allocates: the feed has room for every entry node. */
static void change(struct rib *rib, struct rib_node *n)
{
	if (is_queued(n))
		return;
	n->e.rib_flags |= NODE_QUEUED;
	rib->queue[rib->queue_len++] = n;
	rib->pending++;
}

/* Room in the feed for one more entry node. */
static bool queue_reserve(struct rib *rib)
{
	struct rib_node **q;
	size_t cap;

	if (rib->n_entries < rib->queue_cap)
		return true;
	cap = rib->queue_cap ? rib->queue_cap * 2 : 64;
	q = xrealloc(rib->queue, cap * sizeof(*q));
	if (!q)
		return false;
	rib->stats.bytes += (cap - rib->queue_cap) * sizeof(*q);
	rib->queue = q;
	rib->queue_cap = cap;
	return true;
}

/* After a drain: a feed much larger than the table shrinks. */
static void queue_shrink(struct rib *rib)
{
	size_t cap = rib->queue_cap;
	struct rib_node **q;

	while (cap > 64 && cap / 4 >= rib->n_entries)
		cap /= 2;
	if (cap == rib->queue_cap)
		return;
	q = realloc(rib->queue, cap * sizeof(*q));
	if (!q)
		return;
	rib->stats.bytes -= (rib->queue_cap - cap) * sizeof(*q);
	rib->queue = q;
	rib->queue_cap = cap;
}

/* Attribute sets. */

static uint32_t hash_bytes(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

#define HASH_FIELD(h, f)	hash_bytes((h), &(f), sizeof(f))

static uint32_t attrs_hash(const struct rib_attrs *a)
{
	uint32_t h = 2166136261u;
	unsigned int i;

	h = HASH_FIELD(h, a->origin);
	h = hash_bytes(h, a->as_path_text, strlen(a->as_path_text));
	h = HASH_FIELD(h, a->has_med);
	h = HASH_FIELD(h, a->med);
	h = HASH_FIELD(h, a->has_local_pref);
	h = HASH_FIELD(h, a->local_pref);
	h = HASH_FIELD(h, a->family);
	h = hash_bytes(h, a->next_hop, sizeof(a->next_hop));
	h = HASH_FIELD(h, a->has_next_hop_ll);
	h = hash_bytes(h, a->next_hop_ll, sizeof(a->next_hop_ll));
	h = hash_bytes(h, a->communities, a->communities_len);
	h = hash_bytes(h, a->ext_communities, a->ext_communities_len);
	h = hash_bytes(h, a->large_communities, a->large_communities_len);
	h = HASH_FIELD(h, a->atomic_aggregate);
	h = HASH_FIELD(h, a->has_aggregator);
	h = HASH_FIELD(h, a->aggregator_as);
	h = hash_bytes(h, a->aggregator_id, sizeof(a->aggregator_id));
	for (i = 0; i < a->n_kept; i++) {
		h = HASH_FIELD(h, a->kept[i].flags);
		h = HASH_FIELD(h, a->kept[i].type);
		h = hash_bytes(h, a->kept[i].value, a->kept[i].len);
	}
	return h;
}

static bool bytes_eq(const void *a, size_t alen, const void *b, size_t blen)
{
	return alen == blen && (!alen || !memcmp(a, b, alen));
}

/* as_path_text carries the segment structure, as_path the numbers. */
static bool attrs_eq(const struct rib_attrs *a, const struct rib_attrs *b,
		     size_t a_asns, size_t b_asns)
{
	unsigned int i;

	if (a->origin != b->origin || a->has_med != b->has_med ||
	    a->med != b->med || a->has_local_pref != b->has_local_pref ||
	    a->local_pref != b->local_pref || a->family != b->family ||
	    a->has_next_hop_ll != b->has_next_hop_ll ||
	    a->as_path_len != b->as_path_len || a->n_kept != b->n_kept ||
	    a->atomic_aggregate != b->atomic_aggregate ||
	    a->has_aggregator != b->has_aggregator ||
	    a->aggregator_as != b->aggregator_as ||
	    memcmp(a->aggregator_id, b->aggregator_id,
		   sizeof(a->aggregator_id)) ||
	    memcmp(a->next_hop, b->next_hop, sizeof(a->next_hop)) ||
	    memcmp(a->next_hop_ll, b->next_hop_ll, sizeof(a->next_hop_ll)) ||
	    strcmp(a->as_path_text, b->as_path_text) ||
	    !bytes_eq(a->as_path, a_asns * 4, b->as_path, b_asns * 4) ||
	    !bytes_eq(a->communities, a->communities_len, b->communities,
		      b->communities_len) ||
	    !bytes_eq(a->ext_communities, a->ext_communities_len,
		      b->ext_communities, b->ext_communities_len) ||
	    !bytes_eq(a->large_communities, a->large_communities_len,
		      b->large_communities, b->large_communities_len))
		return false;
	for (i = 0; i < a->n_kept; i++)
		if (a->kept[i].flags != b->kept[i].flags ||
		    a->kept[i].type != b->kept[i].type ||
		    !bytes_eq(a->kept[i].value, a->kept[i].len,
			      b->kept[i].value, b->kept[i].len))
			return false;
	return true;
}

/*
 * The flattened AS numbers are stored with their count just before them,
 * since struct rib_attrs only has the RFC 4271 path length.
 */
static size_t asns_count(const struct rib_attrs *a)
{
	return a->as_path ? a->as_path[-1] : 0;
}

static size_t attrs_size(const struct rib_attrs *a)
{
	size_t n = sizeof(*a) + strlen(a->as_path_text) + 1 +
		   a->communities_len + a->ext_communities_len +
		   a->large_communities_len;
	unsigned int i;

	if (a->as_path)
		n += (asns_count(a) + 1) * 4;
	n += a->as_packed_len * sizeof(*a->as_packed);
	n += a->n_kept * sizeof(*a->kept);
	for (i = 0; i < a->n_kept; i++)
		n += a->kept[i].len;
	return n;
}

static void attrs_free(struct rib_attrs *a)
{
	unsigned int i;

	if (!a)
		return;
	free(a->as_path ? a->as_path - 1 : NULL);
	free(a->as_path_text);
	free(a->as_packed);
	free(a->communities);
	free(a->ext_communities);
	free(a->large_communities);
	for (i = 0; i < a->n_kept; i++)
		free(a->kept[i].value);
	free(a->kept);
	free(a);
}

static bool dup_bytes(uint8_t **dst, const void *src, size_t len)
{
	*dst = NULL;
	if (!len)
		return true;
	*dst = xmalloc(len);
	if (!*dst)
		return false;
	memcpy(*dst, src, len);
	return true;
}

/* A heap copy of the stack view v (whose as_path has n_asns numbers). */
static struct rib_attrs *attrs_copy(const struct rib_attrs *v, size_t n_asns)
{
	struct rib_attrs *a = xcalloc(1, sizeof(*a));
	size_t tlen = strlen(v->as_path_text) + 1;
	unsigned int i;

	if (!a)
		return NULL;
	*a = *v;
	a->as_path = NULL;
	a->as_path_text = NULL;
	a->as_packed = NULL;
	a->communities = a->ext_communities = a->large_communities = NULL;
	a->kept = NULL;
	a->n_kept = 0;
	if (n_asns) {
		uint32_t *p = xmalloc((n_asns + 1) * 4);

		if (!p)
			goto fail;
		p[0] = n_asns;
		memcpy(p + 1, v->as_path, n_asns * 4);
		a->as_path = p + 1;
	}
	a->as_path_text = xmalloc(tlen);
	if (!a->as_path_text)
		goto fail;
	memcpy(a->as_path_text, v->as_path_text, tlen);
	if (v->as_packed_len) {
		a->as_packed = xmalloc(v->as_packed_len * 4);
		if (!a->as_packed)
			goto fail;
		memcpy(a->as_packed, v->as_packed,
		       v->as_packed_len * sizeof(*a->as_packed));
	}
	if (!dup_bytes(&a->communities, v->communities, v->communities_len) ||
	    !dup_bytes(&a->ext_communities, v->ext_communities,
		       v->ext_communities_len) ||
	    !dup_bytes(&a->large_communities, v->large_communities,
		       v->large_communities_len))
		goto fail;
	if (v->n_kept) {
		a->kept = xcalloc(v->n_kept, sizeof(*a->kept));
		if (!a->kept)
			goto fail;
		for (i = 0; i < v->n_kept; i++) {
			a->kept[i] = v->kept[i];
			if (!dup_bytes(&a->kept[i].value, v->kept[i].value,
				       v->kept[i].len))
				goto fail;
			a->n_kept = i + 1;
		}
	}
	return a;
fail:
	attrs_free(a);
	return NULL;
}

static bool intern_grow(struct rib *rib)
{
	size_t n = rib->n_buckets ? rib->n_buckets * 2 : 64, i;
	struct rib_attrs **b = xcalloc(n, sizeof(*b));

	if (!b)
		return false;
	for (i = 0; i < rib->n_buckets; i++) {
		struct rib_attrs *a = rib->buckets[i], *next;

		for (; a; a = next) {
			next = a->intern_next;
			a->intern_next = b[a->intern_hash & (n - 1)];
			b[a->intern_hash & (n - 1)] = a;
		}
	}
	rib->stats.bytes += (n - rib->n_buckets) * sizeof(*b);
	free(rib->buckets);
	rib->buckets = b;
	rib->n_buckets = n;
	return true;
}

struct rib_attrs *rib_attrs_get(struct rib *rib, const struct bgp_attrs *in,
				enum bgp_family fam)
{
	struct rib_kept_attr kept[BGP_MAX_KEPT_ATTRS];
	size_t n_asns = in->as_path.n_asns, cap = n_asns * 14 + 1;
	struct rib_attrs v = { 0 }, *a;
	unsigned int i;

	/* Failing to grow only makes the chains longer. */
	if (rib->stats.attr_sets >= rib->n_buckets)
		intern_grow(rib);
	v.as_path_text = xmalloc(cap);
	if (!v.as_path_text)
		return NULL;
	bgp_as_path_str(&in->as_path, v.as_path_text, cap);
	v.origin = in->origin;
	v.as_path = in->as_path.asns;
	v.as_path_len = bgp_as_path_length(&in->as_path);
	v.as_packed_len = bgp_as_path_packed_len(&in->as_path);
	if (v.as_packed_len) {
		v.as_packed = xmalloc(v.as_packed_len * sizeof(*v.as_packed));
		if (!v.as_packed) {
			free(v.as_path_text);
			return NULL;
		}
		bgp_as_path_pack(&in->as_path, v.as_packed);
	}
	v.has_med = bgp_attr_has(in, BGP_ATTR_MED);
	v.med = v.has_med ? in->med : 0;
	v.has_local_pref = bgp_attr_has(in, BGP_ATTR_LOCAL_PREF);
	v.local_pref = v.has_local_pref ? in->local_pref : 0;
	if (fam == BGP_FAM_IPV4_UNICAST) {
		v.family = BGP_FAM_IPV4_UNICAST;
		memcpy(v.next_hop, in->next_hop, 4);
	} else if (in->mp_next_hop_len == 4) {
		v.family = BGP_FAM_IPV4_UNICAST;
		memcpy(v.next_hop, in->mp_next_hop, 4);
	} else {
		v.family = fam;
		memcpy(v.next_hop, in->mp_next_hop, 16);
		v.has_next_hop_ll = in->mp_has_ll;
		if (in->mp_has_ll)
			memcpy(v.next_hop_ll, in->mp_next_hop_ll, 16);
	}
	v.communities = (uint8_t *)in->communities;
	v.communities_len = in->communities_len;
	v.ext_communities = (uint8_t *)in->ext_communities;
	v.ext_communities_len = in->ext_communities_len;
	v.large_communities = (uint8_t *)in->large_communities;
	v.large_communities_len = in->large_communities_len;
	v.atomic_aggregate = bgp_attr_has(in, BGP_ATTR_ATOMIC_AGGREGATE);
	v.has_aggregator = bgp_attr_has(in, BGP_ATTR_AGGREGATOR);
	if (v.has_aggregator) {
		v.aggregator_as = in->aggregator_as;
		memcpy(v.aggregator_id, in->aggregator_id, 4);
	}
	v.n_kept = in->n_kept;
	for (i = 0; i < in->n_kept; i++) {
		kept[i].flags = in->kept[i].flags;
		kept[i].type = in->kept[i].type;
		kept[i].value = (uint8_t *)in->kept[i].value;
		kept[i].len = in->kept[i].len;
	}
	v.kept = kept;
	v.intern_hash = attrs_hash(&v);

	for (a = rib->buckets[v.intern_hash & (rib->n_buckets - 1)]; a;
	     a = a->intern_next)
		if (a->intern_hash == v.intern_hash &&
		    attrs_eq(a, &v, asns_count(a), n_asns))
			break;
	if (!a) {
		a = attrs_copy(&v, n_asns);
		if (a) {
			size_t b = a->intern_hash & (rib->n_buckets - 1);

			a->refs = 0;
			a->intern_next = rib->buckets[b];
			rib->buckets[b] = a;
			rib->stats.attr_sets++;
			rib->stats.bytes += attrs_size(a);
		}
	}
	free(v.as_path_text);
	free(v.as_packed);
	if (a)
		a->refs++;
	return a;
}

void rib_attrs_put(struct rib *rib, struct rib_attrs *a)
{
	struct rib_attrs **pp;

	if (!a || --a->refs)
		return;
	pp = &rib->buckets[a->intern_hash & (rib->n_buckets - 1)];
	while (*pp != a)
		pp = &(*pp)->intern_next;
	*pp = a->intern_next;
	rib->stats.attr_sets--;
	rib->stats.bytes -= attrs_size(a);
	attrs_free(a);
}

/* Path arrays. */

static uint32_t set_hash(const struct rib_path *p, uint32_t n)
{
	uint32_t h = 2166136261u;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uintptr_t a = (uintptr_t)p[i].attrs;
		uint8_t stale = p[i].stale;

		h = HASH_FIELD(h, p[i].peer);
		h = HASH_FIELD(h, p[i].path_id);
		h = HASH_FIELD(h, stale);
		h = HASH_FIELD(h, p[i].gen);
		h = HASH_FIELD(h, a);
	}
	return h;
}

static bool set_eq(const struct rib_pathset *s, const struct rib_path *p,
		   uint32_t n)
{
	uint32_t i;

	if (s->n != n)
		return false;
	for (i = 0; i < n; i++)
		if (s->paths[i].peer != p[i].peer ||
		    s->paths[i].path_id != p[i].path_id ||
		    s->paths[i].stale != p[i].stale ||
		    s->paths[i].gen != p[i].gen ||
		    s->paths[i].attrs != p[i].attrs)
			return false;
	return true;
}

static size_t set_size(uint32_t n)
{
	return sizeof(struct rib_pathset) + n * sizeof(struct rib_path);
}

static struct rib_pathset *set_of(const struct rib_entry *e)
{
	if (!e->paths)
		return NULL;
	return (struct rib_pathset *)((char *)e->paths -
				      offsetof(struct rib_pathset, paths));
}

static bool set_grow(struct rib *rib)
{
	size_t n = rib->n_set_buckets ? rib->n_set_buckets * 2 : 64, i;
	struct rib_pathset **b = xcalloc(n, sizeof(*b));

	if (!b)
		return false;
	for (i = 0; i < rib->n_set_buckets; i++) {
		struct rib_pathset *s = rib->set_buckets[i], *next;

		for (; s; s = next) {
			next = s->next;
			s->next = b[s->hash & (n - 1)];
			b[s->hash & (n - 1)] = s;
		}
	}
	rib->stats.bytes += (n - rib->n_set_buckets) * sizeof(*b);
	free(rib->set_buckets);
	rib->set_buckets = b;
	rib->n_set_buckets = n;
	return true;
}

/* The interned array equal to p[0..n), one reference taken; or NULL. */
static struct rib_pathset *set_get(struct rib *rib, const struct rib_path *p,
				   uint32_t n)
{
	uint32_t h = set_hash(p, n), i;
	struct rib_pathset *s;
	size_t b;

	for (s = rib->set_buckets[h & (rib->n_set_buckets - 1)]; s;
	     s = s->next)
		if (s->hash == h && set_eq(s, p, n)) {
			s->refs++;
			return s;
		}
	/* Failing to grow only makes the chains longer. */
	if (rib->stats.path_sets >= rib->n_set_buckets)
		set_grow(rib);
	s = xmalloc(set_size(n));
	if (!s)
		return NULL;
	s->hash = h;
	s->refs = 1;
	s->n = n;
	for (i = 0; i < n; i++) {
		memset(&s->paths[i], 0, sizeof(s->paths[i]));
		s->paths[i].peer = p[i].peer;
		s->paths[i].path_id = p[i].path_id;
		s->paths[i].stale = p[i].stale;
		s->paths[i].gen = p[i].gen;
		s->paths[i].attrs = p[i].attrs;
		p[i].attrs->refs++;
	}
	b = h & (rib->n_set_buckets - 1);
	s->next = rib->set_buckets[b];
	rib->set_buckets[b] = s;
	rib->stats.path_sets++;
	rib->stats.bytes += set_size(n);
	return s;
}

static void set_put(struct rib *rib, struct rib_pathset *s)
{
	struct rib_pathset **pp;
	uint32_t i;

	if (!s || --s->refs)
		return;
	pp = &rib->set_buckets[s->hash & (rib->n_set_buckets - 1)];
	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	for (i = 0; i < s->n; i++)
		rib_attrs_put(rib, s->paths[i].attrs);
	rib->stats.path_sets--;
	rib->stats.bytes -= set_size(s->n);
	free(s);
}

/* Room for n paths in the scratch array. */
static bool scratch_reserve(struct rib *rib, size_t n)
{
	struct rib_path *p;
	size_t cap;

	if (n <= rib->scratch_cap)
		return true;
	cap = rib->scratch_cap ? rib->scratch_cap : 8;
	while (cap < n)
		cap *= 2;
	p = xrealloc(rib->scratch, cap * sizeof(*p));
	if (!p)
		return false;
	rib->stats.bytes += (cap - rib->scratch_cap) * sizeof(*p);
	rib->scratch = p;
	rib->scratch_cap = cap;
	return true;
}

/*
 * Without memory for a new array, an unshared one that is not growing is
 * rewritten in place (re-hashed), so that a withdrawal or a flush can
 * still remove paths.
 */
static bool set_rewrite(struct rib *rib, struct rib_pathset *s,
			const struct rib_path *p, uint32_t n)
{
	struct rib_pathset **pp;
	uint32_t i;
	size_t b;

	if (s->refs != 1 || n > s->n)
		return false;
	pp = &rib->set_buckets[s->hash & (rib->n_set_buckets - 1)];
	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	for (i = 0; i < n; i++)
		p[i].attrs->refs++;
	for (i = 0; i < s->n; i++)
		rib_attrs_put(rib, s->paths[i].attrs);
	for (i = 0; i < n; i++)
		s->paths[i] = p[i];
	rib->stats.bytes -= set_size(s->n) - set_size(n);
	s->n = n;
	s->hash = set_hash(p, n);
	b = s->hash & (rib->n_set_buckets - 1);
	s->next = rib->set_buckets[b];
	rib->set_buckets[b] = s;
	return true;
}

/*
 * Gives node the paths p[0..n) (interned; p is not the node's array);
 * -ENOMEM changes nothing.
 */
static int node_set_paths(struct rib *rib, struct rib_node *node,
			  const struct rib_path *p, uint32_t n)
{
	struct rib_pathset *old = set_of(&node->e), *s = NULL;

	if (n) {
		s = set_get(rib, p, n);
		if (!s && old && set_rewrite(rib, old, p, n)) {
			node->e.n_paths = n;
			return 0;
		}
		if (!s)
			return -ENOMEM;
	}
	node->e.paths = s ? s->paths : NULL;
	node->e.n_paths = n;
	set_put(rib, old);
	return 0;
}

/* The trie. */

static bool node_covers(const struct rib_node *n, const uint8_t *addr)
{
	return first_diff(n->e.prefix.addr, addr, n->e.prefix.len) ==
	       n->e.prefix.len;
}

/*
 * Where a search for a prefix ended: at its node (found: an entry or
 * glue), or, when it has none, between parent (NULL: the root) and cur,
 * the node in its place (NULL: none), where trie_add() puts it.
 */
struct trie_spot {
	struct rib_node *found, *parent, *cur;
};

static void trie_search(const struct rib *rib, const struct bgp_prefix *p,
			struct trie_spot *spot)
{
	struct rib_node *cur = rib->root[p->family], *parent = NULL;

	spot->found = NULL;
	while (cur && cur->e.prefix.len <= p->len && node_covers(cur, p->addr)) {
		if (cur->e.prefix.len == p->len) {
			spot->found = cur;
			break;
		}
		parent = cur;
		cur = cur->child[bit_at(p->addr, cur->e.prefix.len)];
	}
	spot->parent = parent;
	spot->cur = cur;
}

static struct rib_node *spot_entry(const struct trie_spot *spot)
{
	return spot->found && is_entry(spot->found) ? spot->found : NULL;
}

static struct rib_node *trie_find(const struct rib *rib,
				  const struct bgp_prefix *p)
{
	struct trie_spot spot;

	if (p->family >= BGP_FAM_COUNT)
		return NULL;
	trie_search(rib, p, &spot);
	return spot_entry(&spot);
}

static struct rib_node *node_new(struct rib *rib, uint8_t family,
				 const uint8_t *addr, unsigned int len)
{
	struct rib_node *n = xcalloc(1, sizeof(*n));
	unsigned int i;

	if (!n)
		return NULL;
	n->e.prefix.family = family;
	n->e.prefix.len = len;
	for (i = 0; i < len; i += 8) {
		uint8_t mask = len - i >= 8 ? 0xff : 0xff << (8 - (len - i));

		n->e.prefix.addr[i >> 3] = addr[i >> 3] & mask;
	}
	rib->stats.bytes += sizeof(*n);
	return n;
}

static void node_free(struct rib *rib, struct rib_node *n)
{
	rib->stats.bytes -= sizeof(*n);
	free(n);
}

static void make_entry(struct rib *rib, struct rib_node *n)
{
	n->e.rib_flags |= NODE_ENTRY;
	rib->n_entries++;
}

/*
 * The entry node for p, made (with a glue node, maybe) when missing, at
 * spot, a trie_search() for p with no change to the trie since. The
 * caller has reserved room in the feed for one more entry.
 */
static struct rib_node *trie_add(struct rib *rib, const struct bgp_prefix *p,
				 const struct trie_spot *spot)
{
	struct rib_node *cur = spot->cur, *parent = spot->parent, *n, *g;
	unsigned int d, limit;
	struct rib_node **link;

	if (spot->found) {
		if (!is_entry(spot->found))
			make_entry(rib, spot->found);
		return spot->found;
	}
	n = node_new(rib, p->family, p->addr, p->len);
	if (!n)
		return NULL;
	link = parent ? &parent->child[bit_at(p->addr, parent->e.prefix.len)]
		      : &rib->root[p->family];
	if (!cur) {
		*link = n;
		make_entry(rib, n);
		return n;
	}
	limit = cur->e.prefix.len < p->len ? cur->e.prefix.len : p->len;
	d = first_diff(cur->e.prefix.addr, p->addr, limit);
	if (d == p->len) {
		/* p covers cur. */
		n->child[bit_at(cur->e.prefix.addr, p->len)] = cur;
		*link = n;
		make_entry(rib, n);
		return n;
	}
	g = node_new(rib, p->family, p->addr, d);
	if (!g) {
		node_free(rib, n);
		return NULL;
	}
	g->child[bit_at(p->addr, d)] = n;
	g->child[bit_at(cur->e.prefix.addr, d)] = cur;
	*link = g;
	make_entry(rib, n);
	return n;
}

/* n's ancestors, root first, into anc[]; returns how many. */
static unsigned int trie_ancestors(struct rib *rib, const struct rib_node *n,
				   struct rib_node **anc)
{
	struct rib_node *cur = rib->root[n->e.prefix.family];
	unsigned int k = 0;

	while (cur != n) {
		anc[k++] = cur;
		cur = cur->child[bit_at(n->e.prefix.addr, cur->e.prefix.len)];
	}
	return k;
}

/* Drops n's prefix, and n itself and a glue parent when no longer needed. */
static void trie_remove(struct rib *rib, struct rib_node *n)
{
	struct rib_node *anc[TRIE_DEPTH], *child, **link;
	unsigned int k = trie_ancestors(rib, n, anc);

	node_set_paths(rib, n, NULL, 0);
	if (is_entry(n)) {
		n->e.rib_flags &= ~NODE_ENTRY;
		rib->n_entries--;
	}
	while (!is_entry(n) && !is_queued(n)) {
		if (n->child[0] && n->child[1])
			return;
		child = n->child[0] ? n->child[0] : n->child[1];
		link = k ? &anc[k - 1]->child[anc[k - 1]->child[1] == n]
			 : &rib->root[n->e.prefix.family];
		*link = child;
		node_free(rib, n);
		/* Only a glue parent can have lost its reason to be. */
		if (child || !k)
			return;
		n = anc[--k];
	}
}

/* Pre-order over a trie with an explicit stack (no parent pointers). */
struct trie_iter {
	struct rib_node *stack[TRIE_DEPTH + 1];
	unsigned int sp;
};

static void iter_start(struct trie_iter *it, struct rib_node *root)
{
	it->sp = 0;
	if (root)
		it->stack[it->sp++] = root;
}

static struct rib_node *iter_next(struct trie_iter *it)
{
	struct rib_node *n;

	if (!it->sp)
		return NULL;
	n = it->stack[--it->sp];
	if (n->child[1])
		it->stack[it->sp++] = n->child[1];
	if (n->child[0])
		it->stack[it->sp++] = n->child[0];
	return n;
}

/* Paths. */

static bool find_path(const struct rib_entry *e, unsigned int peer,
		      uint32_t path_id, size_t *at)
{
	size_t lo = 0, hi = e->n_paths;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct rib_path *p = &e->paths[mid];

		if (p->peer < peer || (p->peer == peer && p->path_id < path_id))
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < e->n_paths && e->paths[lo].peer == peer &&
	       e->paths[lo].path_id == path_id;
}

size_t rib_peer_prefix_paths(const struct rib *rib, unsigned int peer,
			     const struct bgp_prefix *prefix, bool *has)
{
	struct rib_node *n;
	size_t lo, hi;

	*has = false;
	if (prefix->family >= BGP_FAM_COUNT ||
	    prefix->len > addr_bytes(prefix->family) * 8)
		return 0;
	n = trie_find(rib, prefix);
	if (!n)
		return 0;
	*has = find_path(&n->e, peer, prefix->path_id, &lo);
	find_path(&n->e, peer, 0, &lo);
	if (peer == UINT_MAX)
		hi = n->e.n_paths;
	else
		find_path(&n->e, peer + 1, 0, &hi);
	return hi - lo;
}

static struct rib_peer *peer_get(struct rib *rib, unsigned int peer)
{
	if (peer >= rib->n_peers) {
		size_t n = peer + 1 > rib->n_peers * 2 ? peer + 1
						      : rib->n_peers * 2;
		struct rib_peer *p;

		p = xrealloc(rib->peers, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + rib->n_peers, 0, (n - rib->n_peers) * sizeof(*p));
		rib->stats.bytes += (n - rib->n_peers) * sizeof(*p);
		rib->peers = p;
		rib->n_peers = n;
	}
	return &rib->peers[peer];
}

/* Bookkeeping for a path of node n that came (+1) or went (-1). */
static void path_count(struct rib *rib, struct rib_node *n,
		       unsigned int peer, int delta)
{
	rib->peers[peer].count[n->e.prefix.family] += delta;
	rib->stats.paths += delta;
}

int rib_update(struct rib *rib, unsigned int peer,
	       const struct bgp_prefix *prefix, struct rib_attrs *attrs)
{
	struct trie_spot spot;
	struct rib_path *s;
	struct rib_node *n;
	uint32_t np;
	size_t at;

	if (prefix->family >= BGP_FAM_COUNT ||
	    prefix->len > addr_bytes(prefix->family) * 8)
		return -EINVAL;
	/* One walk, for a new prefix too: nothing below changes the trie. */
	trie_search(rib, prefix, &spot);
	n = spot_entry(&spot);
	np = n ? n->e.n_paths : 0;
	if (!peer_get(rib, peer) || !scratch_reserve(rib, np + 1) ||
	    (!n && !queue_reserve(rib)))
		return -ENOMEM;
	s = rib->scratch;
	if (np)
		memcpy(s, n->e.paths, np * sizeof(*s));
	if (n && find_path(&n->e, peer, prefix->path_id, &at)) {
		/* Not stale: it arrived since the latest begin already. */
		if (s[at].attrs == attrs && !s[at].stale)
			return 0;
		s[at].attrs = attrs;
		s[at].stale = false;
		s[at].gen = rib->peers[peer].gen;
		if (node_set_paths(rib, n, s, np))
			return -ENOMEM;
		change(rib, n);
		return 0;
	}
	if (!n) {
		n = trie_add(rib, prefix, &spot);
		if (!n)
			return -ENOMEM;
		at = 0;
	}
	memmove(&s[at + 1], &s[at], (np - at) * sizeof(*s));
	memset(&s[at], 0, sizeof(*s));
	s[at].peer = peer;
	s[at].path_id = prefix->path_id;
	s[at].gen = rib->peers[peer].gen;
	s[at].attrs = attrs;
	if (node_set_paths(rib, n, s, np + 1)) {
		/* A fresh node with no paths: take it out again. */
		if (!np && !is_queued(n))
			trie_remove(rib, n);
		return -ENOMEM;
	}
	path_count(rib, n, peer, 1);
	if (!np)
		rib->stats.prefixes++;
	change(rib, n);
	return 0;
}

/*
 * n's paths without p[at..at+k) (or, mark, with them stale); -ENOMEM when
 * no array could be made for the result.
 */
static int paths_edit(struct rib *rib, struct rib_node *n, size_t at,
		      size_t k, bool mark)
{
	uint32_t np = n->e.n_paths, i;
	struct rib_path *s = rib->scratch;
	unsigned int peer = n->e.paths[at].peer;

	/* scratch holds every path of every prefix seen so far: no growth. */
	memcpy(s, n->e.paths, np * sizeof(*s));
	if (mark) {
		for (i = at; i < at + k; i++)
			s[i].stale = true;
	} else {
		memmove(&s[at], &s[at + k], (np - at - k) * sizeof(*s));
		np -= k;
	}
	if (node_set_paths(rib, n, s, np))
		return -ENOMEM;
	if (!mark) {
		path_count(rib, n, peer, -(int)k);
		if (!np)
			rib->stats.prefixes--;
	}
	change(rib, n);
	return 0;
}

int rib_withdraw(struct rib *rib, unsigned int peer,
		 const struct bgp_prefix *prefix)
{
	struct rib_node *n = trie_find(rib, prefix);
	size_t at;

	if (n && find_path(&n->e, peer, prefix->path_id, &at))
		return paths_edit(rib, n, at, 1, false);
	return 0;
}

enum peer_op { PEER_FLUSH, PEER_MARK, PEER_SWEEP };

/*
 * Applies op to peer's paths of node n (sweep: those of a generation
 * below begin); returns how many it touched.
 */
static size_t peer_apply_node(struct rib *rib, struct rib_node *n,
			      unsigned int peer, enum peer_op op,
			      uint32_t begin)
{
	size_t at, end, i, done = 0;

	find_path(&n->e, peer, 0, &at);
	for (end = at; end < n->e.n_paths && n->e.paths[end].peer == peer;)
		end++;
	if (at == end)
		return 0;
	if (op == PEER_FLUSH) {
		done = end - at;
		return paths_edit(rib, n, at, done, false) ? 0 : done;
	}
	if (op == PEER_MARK) {
		for (i = at; i < end && n->e.paths[i].stale; i++)
			;
		if (i < end && paths_edit(rib, n, at, end - at, true))
			return 0;
		return end - at;
	}
	/* Sweep: each run of paths older than begin goes. */
	while (at < end) {
		for (i = at; i < end && n->e.paths[i].gen < begin; i++)
			;
		if (i == at) {
			at++;
			continue;
		}
		if (paths_edit(rib, n, at, i - at, false))
			break;
		done += i - at;
		end -= i - at;
	}
	return done;
}

static size_t peer_apply(struct rib *rib, unsigned int peer,
			 uint32_t families, enum peer_op op, uint32_t begin)
{
	struct trie_iter it;
	struct rib_node *n;
	size_t done = 0;
	unsigned int f;

	if (peer >= rib->n_peers)
		return 0;
	for (f = 0; f < BGP_FAM_COUNT; f++) {
		if (!(families & BGP_FAM_BIT(f)) || !rib->peers[peer].count[f])
			continue;
		/*
		 * Nodes are only removed by a drain: the walk is safe while
		 * paths change under it.
		 */
		iter_start(&it, rib->root[f]);
		while ((n = iter_next(&it)))
			if (n->e.n_paths)
				done += peer_apply_node(rib, n, peer, op,
							begin);
	}
	return done;
}

size_t rib_peer_flush(struct rib *rib, unsigned int peer, uint32_t families)
{
	return peer_apply(rib, peer, families, PEER_FLUSH, 0);
}

uint32_t rib_refresh_begin(struct rib *rib, unsigned int peer,
			   uint32_t families, size_t *stale)
{
	size_t n = 0;
	uint32_t begin = 0;

	/* The peer's entry first: its paths to come need the generation. */
	if (peer_get(rib, peer)) {
		begin = ++rib->peers[peer].gen;
		n = peer_apply(rib, peer, families, PEER_MARK, 0);
	}
	if (stale)
		*stale = n;
	return begin;
}

size_t rib_refresh_end(struct rib *rib, unsigned int peer, uint32_t families,
		       uint32_t begin)
{
	return peer_apply(rib, peer, families, PEER_SWEEP, begin);
}

size_t rib_peer_count(const struct rib *rib, unsigned int peer,
		      uint32_t families)
{
	size_t n = 0;
	unsigned int f;

	if (peer >= rib->n_peers)
		return 0;
	for (f = 0; f < BGP_FAM_COUNT; f++)
		if (families & BGP_FAM_BIT(f))
			n += rib->peers[peer].count[f];
	return n;
}

size_t rib_peer_bytes(const struct rib *rib, unsigned int peer)
{
	return rib_peer_count(rib, peer, BGP_FAM_BIT(BGP_FAM_COUNT) - 1) *
	       sizeof(struct rib_path);
}

const struct rib_entry *rib_lookup(const struct rib *rib,
				   const struct bgp_prefix *prefix)
{
	const struct rib_node *n = trie_find(rib, prefix);

	return n && n->e.n_paths ? &n->e : NULL;
}

int rib_walk(const struct rib *rib,
	     int (*fn)(const struct rib_entry *entry, void *ctx), void *ctx)
{
	struct trie_iter it;
	struct rib_node *n;
	unsigned int f;
	int ret;

	for (f = 0; f < BGP_FAM_COUNT; f++) {
		iter_start(&it, rib->root[f]);
		while ((n = iter_next(&it))) {
			if (!n->e.n_paths)
				continue;
			ret = fn(&n->e, ctx);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * After many prefixes went at once (a big session down, a flood cut by
 * max-prefix): their heap goes back to the system, so that fared's RSS
 * does not stay at its peak.
 */
static void give_back(size_t gone)
{
#ifdef __GLIBC__
	if (gone >= 4096)
		malloc_trim(0);
#else
	(void)gone;
#endif
}

size_t rib_drain(struct rib *rib,
		 void (*fn)(const struct rib_entry *entry, void *ctx),
		 void *ctx)
{
	size_t n = 0, gone = 0;

	for (n = 0; n < rib->queue_len; n++) {
		struct rib_node *node = rib->queue[n];

		rib->pending--;
		fn(&node->e, ctx);
		node->e.rib_flags &= ~NODE_QUEUED;
		if (!node->e.n_paths) {
			trie_remove(rib, node);
			gone++;
		}
	}
	rib->queue_len = 0;
	queue_shrink(rib);
	give_back(gone);
	return n;
}

size_t rib_pending(const struct rib *rib)
{
	return rib->pending;
}

void rib_get_stats(const struct rib *rib, struct rib_stats *stats)
{
	*stats = rib->stats;
}

struct rib *rib_new(void)
{
	struct rib *rib = xcalloc(1, sizeof(*rib));

	if (!rib)
		return NULL;
	rib->stats.bytes = sizeof(*rib);
	if (!intern_grow(rib) || !set_grow(rib)) {
		free(rib->buckets);
		free(rib);
		return NULL;
	}
	return rib;
}

static void subtree_free(struct rib *rib, struct rib_node *n)
{
	while (n) {
		struct rib_node *next;

		/* Rotate a left child up, so no recursion or stack is needed. */
		if (n->child[0]) {
			struct rib_node *l = n->child[0];

			n->child[0] = l->child[1];
			l->child[1] = n;
			n = l;
			continue;
		}
		next = n->child[1];
		set_put(rib, set_of(&n->e));
		free(n);
		n = next;
	}
}

void rib_free(struct rib *rib)
{
	size_t i;

	if (!rib)
		return;
	for (i = 0; i < BGP_FAM_COUNT; i++)
		subtree_free(rib, rib->root[i]);
	free(rib->peers);
	free(rib->buckets);
	free(rib->set_buckets);
	free(rib->scratch);
	free(rib->queue);
	free(rib);
}
