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
 * Each peer keeps a vector of (node, path id) for its paths, and every path
 * remembers its index there (rib_slot), so that removing a path is O(1) on
 * the peer side and flush, mark_stale and sweep cost O(paths of the peer).
 *
 * A prefix whose path set changes is appended once to the change feed (an
 * intrusive FIFO through the node, guarded by its queued flag). A prefix
 * that loses its last path stays in the trie, invisible to lookup and walk,
 * until the feed has reported it gone.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "rib.h"

struct rib_node {
	struct rib_entry e;		/* e.prefix.len is the node's length */
	struct rib_node *child[2];
	struct rib_node *parent;
	struct rib_node *q_next;	/* change feed */
	bool is_entry;			/* false: glue */
	bool queued;
};

struct peer_ref {
	struct rib_node *node;
	uint32_t path_id;
};

struct rib_peer {
	struct peer_ref *refs;
	size_t n_refs, cap;
	size_t count[BGP_FAM_COUNT];
};

struct rib {
	struct rib_node *root[BGP_FAM_COUNT];
	struct rib_peer *peers;
	size_t n_peers;
	struct rib_attrs **buckets;
	size_t n_buckets;
	struct rib_node *q_head, **q_tail;
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

/* The first bit (< limit) where a and b differ, else limit. */
static unsigned int first_diff(const uint8_t *a, const uint8_t *b,
			       unsigned int limit)
{
	unsigned int i;

	for (i = 0; i < limit; i += 8) {
		uint8_t x = a[i >> 3] ^ b[i >> 3];

		if (x) {
			i += __builtin_clz(x) - 24;
			return i < limit ? i : limit;
		}
	}
	return limit;
}

static void change(struct rib *rib, struct rib_node *n)
{
	if (n->queued)
		return;
	n->queued = true;
	n->q_next = NULL;
	*rib->q_tail = n;
	rib->q_tail = &n->q_next;
	rib->pending++;
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

/* The trie. */

static bool node_covers(const struct rib_node *n, const uint8_t *addr)
{
	return first_diff(n->e.prefix.addr, addr, n->e.prefix.len) ==
	       n->e.prefix.len;
}

static struct rib_node *trie_find(const struct rib *rib,
				  const struct bgp_prefix *p)
{
	struct rib_node *n;

	if (p->family >= BGP_FAM_COUNT)
		return NULL;
	n = rib->root[p->family];
	while (n && n->e.prefix.len <= p->len && node_covers(n, p->addr)) {
		if (n->e.prefix.len == p->len)
			return n->is_entry ? n : NULL;
		n = n->child[bit_at(p->addr, n->e.prefix.len)];
	}
	return NULL;
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

static struct rib_node **slot_of(struct rib *rib, struct rib_node *n)
{
	if (!n->parent)
		return &rib->root[n->e.prefix.family];
	return &n->parent->child[n->parent->child[1] == n];
}

/* The entry node for p, made (with a glue node, maybe) when missing. */
static struct rib_node *trie_get(struct rib *rib, const struct bgp_prefix *p)
{
	struct rib_node *cur = rib->root[p->family], *parent = NULL, *n, *g;
	unsigned int d, limit;
	struct rib_node **link;

	while (cur && cur->e.prefix.len <= p->len &&
	       node_covers(cur, p->addr)) {
		if (cur->e.prefix.len == p->len) {
			cur->is_entry = true;
			return cur;
		}
		parent = cur;
		cur = cur->child[bit_at(p->addr, cur->e.prefix.len)];
	}
	n = node_new(rib, p->family, p->addr, p->len);
	if (!n)
		return NULL;
	n->is_entry = true;
	link = parent ? &parent->child[bit_at(p->addr, parent->e.prefix.len)]
		      : &rib->root[p->family];
	n->parent = parent;
	if (!cur) {
		*link = n;
		return n;
	}
	limit = cur->e.prefix.len < p->len ? cur->e.prefix.len : p->len;
	d = first_diff(cur->e.prefix.addr, p->addr, limit);
	if (d == p->len) {
		/* p covers cur. */
		n->child[bit_at(cur->e.prefix.addr, p->len)] = cur;
		cur->parent = n;
		*link = n;
		return n;
	}
	g = node_new(rib, p->family, p->addr, d);
	if (!g) {
		node_free(rib, n);
		return NULL;
	}
	g->parent = parent;
	g->child[bit_at(p->addr, d)] = n;
	g->child[bit_at(cur->e.prefix.addr, d)] = cur;
	n->parent = g;
	cur->parent = g;
	*link = g;
	return n;
}

/* Drops n's prefix, and n itself and a glue parent when no longer needed. */
static void trie_remove(struct rib *rib, struct rib_node *n)
{
	struct rib_node *child, *parent;

	free(n->e.paths);
	n->e.paths = NULL;
	n->is_entry = false;
	while (n && !n->is_entry && !n->queued) {
		if (n->child[0] && n->child[1])
			return;
		child = n->child[0] ? n->child[0] : n->child[1];
		parent = n->parent;
		*slot_of(rib, n) = child;
		if (child)
			child->parent = parent;
		node_free(rib, n);
		/* Only a glue parent can have lost its reason to be. */
		n = child ? NULL : parent;
	}
}

/* Paths. */

static bool find_path(const struct rib_node *n, unsigned int peer,
		      uint32_t path_id, size_t *at)
{
	size_t lo = 0, hi = n->e.n_paths;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct rib_path *p = &n->e.paths[mid];

		if (p->peer < peer || (p->peer == peer && p->path_id < path_id))
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < n->e.n_paths && n->e.paths[lo].peer == peer &&
	       n->e.paths[lo].path_id == path_id;
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

static bool peer_reserve(struct rib *rib, struct rib_peer *p)
{
	struct peer_ref *r;
	size_t cap;

	if (p->n_refs < p->cap)
		return true;
	cap = p->cap ? p->cap * 2 : 16;
	r = xrealloc(p->refs, cap * sizeof(*r));
	if (!r)
		return false;
	rib->stats.bytes += (cap - p->cap) * sizeof(*r);
	p->refs = r;
	p->cap = cap;
	return true;
}

/* Removes path i of n: from the peer's vector, the array and the counts. */
static void path_remove(struct rib *rib, struct rib_node *n, size_t i)
{
	struct rib_path *path = &n->e.paths[i];
	struct rib_peer *p = &rib->peers[path->peer];
	size_t slot = path->rib_slot, at;

	p->n_refs--;
	if (slot != p->n_refs) {
		struct peer_ref *moved = &p->refs[p->n_refs];

		p->refs[slot] = *moved;
		find_path(moved->node, path->peer, moved->path_id, &at);
		moved->node->e.paths[at].rib_slot = slot;
	}
	p->count[n->e.prefix.family]--;
	rib_attrs_put(rib, path->attrs);
	memmove(path, path + 1, (n->e.n_paths - i - 1) * sizeof(*path));
	n->e.n_paths--;
	rib->stats.paths--;
	rib->stats.bytes -= sizeof(*path);
	if (!n->e.n_paths)
		rib->stats.prefixes--;
	change(rib, n);
}

int rib_update(struct rib *rib, unsigned int peer,
	       const struct bgp_prefix *prefix, struct rib_attrs *attrs)
{
	struct rib_path *paths, *path;
	struct rib_peer *p;
	struct rib_node *n;
	bool created;
	size_t at;

	if (prefix->family >= BGP_FAM_COUNT ||
	    prefix->len > addr_bytes(prefix->family) * 8)
		return -EINVAL;
	n = trie_find(rib, prefix);
	if (n && find_path(n, peer, prefix->path_id, &at)) {
		path = &n->e.paths[at];
		if (path->attrs == attrs && !path->stale)
			return 0;
		attrs->refs++;
		rib_attrs_put(rib, path->attrs);
		path->attrs = attrs;
		path->stale = false;
		change(rib, n);
		return 0;
	}
	p = peer_get(rib, peer);
	if (!p || !peer_reserve(rib, p))
		return -ENOMEM;
	created = !n;
	if (created) {
		n = trie_get(rib, prefix);
		if (!n)
			return -ENOMEM;
	}
	paths = xrealloc(n->e.paths, (n->e.n_paths + 1) * sizeof(*paths));
	if (!paths) {
		/* A fresh node with no paths: take it out again. */
		if (!n->e.n_paths && !n->queued)
			trie_remove(rib, n);
		return -ENOMEM;
	}
	n->e.paths = paths;
	find_path(n, peer, prefix->path_id, &at);
	memmove(&paths[at + 1], &paths[at],
		(n->e.n_paths - at) * sizeof(*paths));
	path = &paths[at];
	memset(path, 0, sizeof(*path));
	path->peer = peer;
	path->path_id = prefix->path_id;
	path->attrs = attrs;
	path->rib_slot = p->n_refs;
	attrs->refs++;
	p->refs[p->n_refs].node = n;
	p->refs[p->n_refs].path_id = prefix->path_id;
	p->n_refs++;
	p->count[prefix->family]++;
	if (!n->e.n_paths++)
		rib->stats.prefixes++;
	rib->stats.paths++;
	rib->stats.bytes += sizeof(*path);
	change(rib, n);
	return 0;
}

void rib_withdraw(struct rib *rib, unsigned int peer,
		  const struct bgp_prefix *prefix)
{
	struct rib_node *n = trie_find(rib, prefix);
	size_t at;

	if (n && find_path(n, peer, prefix->path_id, &at))
		path_remove(rib, n, at);
}

enum peer_op { PEER_FLUSH, PEER_MARK, PEER_SWEEP };

static size_t peer_apply(struct rib *rib, unsigned int peer,
			 uint32_t families, enum peer_op op)
{
	struct rib_peer *p;
	size_t i, n = 0, at;

	if (peer >= rib->n_peers)
		return 0;
	p = &rib->peers[peer];
	/* Backwards: a removal moves the last ref, already seen, into i. */
	for (i = p->n_refs; i--;) {
		struct rib_node *node = p->refs[i].node;
		struct rib_path *path;

		if (!(families & BGP_FAM_BIT(node->e.prefix.family)))
			continue;
		find_path(node, peer, p->refs[i].path_id, &at);
		path = &node->e.paths[at];
		if (op == PEER_MARK) {
			if (!path->stale) {
				path->stale = true;
				change(rib, node);
			}
			n++;
		} else if (op == PEER_FLUSH || path->stale) {
			path_remove(rib, node, at);
			n++;
		}
	}
	/* A peer that had a flood of paths keeps no index for them. */
	if (!p->n_refs && p->cap) {
		rib->stats.bytes -= p->cap * sizeof(*p->refs);
		free(p->refs);
		p->refs = NULL;
		p->cap = 0;
	}
	return n;
}

size_t rib_peer_flush(struct rib *rib, unsigned int peer, uint32_t families)
{
	return peer_apply(rib, peer, families, PEER_FLUSH);
}

size_t rib_peer_mark_stale(struct rib *rib, unsigned int peer,
			   uint32_t families)
{
	return peer_apply(rib, peer, families, PEER_MARK);
}

size_t rib_peer_sweep_stale(struct rib *rib, unsigned int peer,
			    uint32_t families)
{
	return peer_apply(rib, peer, families, PEER_SWEEP);
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
	const struct rib_peer *rp;

	if (peer >= rib->n_peers)
		return 0;
	rp = &rib->peers[peer];
	return rp->cap * sizeof(*rp->refs) +
	       rib_peer_count(rib, peer, BGP_FAM_BIT(BGP_FAM_COUNT) - 1) *
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
	unsigned int f;
	int ret;

	for (f = 0; f < BGP_FAM_COUNT; f++) {
		const struct rib_node *n = rib->root[f];

		while (n) {
			if (n->e.n_paths) {
				ret = fn(&n->e, ctx);
				if (ret)
					return ret;
			}
			if (n->child[0] || n->child[1]) {
				n = n->child[0] ? n->child[0] : n->child[1];
				continue;
			}
			/* Up to the first ancestor with an unseen right. */
			while (n->parent && (n->parent->child[1] == n ||
					     !n->parent->child[1]))
				n = n->parent;
			n = n->parent ? n->parent->child[1] : NULL;
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

	while (rib->q_head) {
		struct rib_node *node = rib->q_head;

		rib->q_head = node->q_next;
		if (!rib->q_head)
			rib->q_tail = &rib->q_head;
		rib->pending--;
		fn(&node->e, ctx);
		node->queued = false;
		if (!node->e.n_paths) {
			trie_remove(rib, node);
			gone++;
		}
		n++;
	}
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
	rib->q_tail = &rib->q_head;
	rib->stats.bytes = sizeof(*rib);
	if (!intern_grow(rib)) {
		free(rib);
		return NULL;
	}
	return rib;
}

static void subtree_free(struct rib *rib, struct rib_node *n)
{
	while (n) {
		struct rib_node *next;
		size_t i;

		/* Rotate a left child up, so no recursion or stack is needed. */
		if (n->child[0]) {
			struct rib_node *l = n->child[0];

			n->child[0] = l->child[1];
			l->child[1] = n;
			n = l;
			continue;
		}
		next = n->child[1];
		for (i = 0; i < n->e.n_paths; i++)
			rib_attrs_put(rib, n->e.paths[i].attrs);
		free(n->e.paths);
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
	for (i = 0; i < rib->n_peers; i++)
		free(rib->peers[i].refs);
	free(rib->peers);
	free(rib->buckets);
	free(rib);
}
