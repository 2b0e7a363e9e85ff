// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel nexthop objects behind the plane routes (rtnl.c; see
 * Documentation/datapath.md, "Lookups bound to a plane").
 *
 * A plane route is "PREFIX table FARE_PLANE_TABLE nhid G": G is a group
 * shared by every route that the same planes carry. For each plane and
 * family the group holds two members:
 *  - the plane's next hop, "via GW dev PLANE onlink", which a lookup bound
 *    to the plane's device takes (no other lookup sees table 248);
 *  - the plane's mark, "dev fare0": no lookup bound to a plane takes it,
 *    and the kernel never deletes it, since fare0 does not go down while
 *    it has routes.
 * The kernel deletes a nexthop object when its device goes down or loses
 * its carrier (net/ipv4/nexthop.c, nexthop_flush_dev()), and with it the
 * object's place in every group. The marks stay: a group is never left
 * empty (so the kernel never deletes a plane route with it), and its marks
 * say which planes it is for, so fare_nh_sync() can put a plane's next hop
 * back in every group that should have it without looking at a route.
 *
 * The fare device has one object of its own per family, "dev FARE" and
 * "via fe80::1 dev FARE", which its routes in table FARE_RT_TABLE point
 * at (rtnl.c): a route to a nexthop object costs the FIB less than one
 * with a next hop of its own (Documentation/datapath.md, "The kernel
 * routes"). An IPv6 route with a source keeps its own next hop: the
 * kernel caches an IPv6 route's output dst in its next hop, so routes
 * sharing an object share the first one's dst, and with it that route's
 * preferred source.
 *
 * Ids: a plane's objects are FARE_NH_ID_BASE + 4 * (256 * the fare
 * device's ifindex + plane id) + kind (next hop 0 and mark 2, plus 1 for
 * IPv6), so that planes sharing a device (or fare devices sharing a
 * namespace) have objects of their own; plane id 0's next hop is the
 * device's own; groups take free ids from FARE_NH_GROUP_MIN. All carry
 * protocol FARE_RTPROT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "fare_int.h"

/* Each plane's mark and next hop. */
#define GROUP_MEMBERS_MAX	(2 * FARE_PLANE_ID_MAX)

/* One object of a dump. */
struct nh_obj {
	uint32_t id;
	uint8_t family;
	uint8_t protocol;
	bool is_group;
	bool has_gw;
	uint32_t oif;
	union fare_addr gw;
	uint32_t *members;	/* a group's, sorted */
	unsigned int n_members;
};

struct nh_dump {
	struct nh_obj *obj;	/* sorted by id once read */
	size_t n;
	size_t cap;
	bool nomem;
};

static int fam_bit(uint8_t family)
{
	return family == AF_INET6;
}

static uint32_t nh_plane_id(const struct fare_plane_map *m, uint32_t plane,
			    uint8_t family, bool mark)
{
	return FARE_NH_ID_BASE +
	       4 * (256 * m->fare_ifindex + plane) + (mark ? 2 : 0) +
	       fam_bit(family);
}

uint32_t fare_nh_dev_id(uint32_t fare_ifindex, uint8_t family)
{
	return FARE_NH_ID_BASE + 4 * 256 * fare_ifindex + fam_bit(family);
}

static bool nh_is_mark(uint32_t id)
{
	return id >= FARE_NH_ID_BASE && ((id - FARE_NH_ID_BASE) & 2);
}

/* The fare device and the plane a mark is for. */
static uint32_t nh_mark_fare_ifindex(uint32_t id)
{
	return (id - FARE_NH_ID_BASE) / 4 / 256;
}

static uint32_t nh_mark_plane(uint32_t id)
{
	return (id - FARE_NH_ID_BASE) / 4 % 256;
}

static uint8_t nh_mark_family(uint32_t id)
{
	return (id - FARE_NH_ID_BASE) & 1 ? AF_INET6 : AF_INET;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int obj_cmp(const void *a, const void *b)
{
	return u32_cmp(&((const struct nh_obj *)a)->id,
		       &((const struct nh_obj *)b)->id);
}

static const struct nh_obj *dump_find(const struct nh_dump *d, uint32_t id)
{
	struct nh_obj key = { .id = id };

	return d->n ? bsearch(&key, d->obj, d->n, sizeof(key), obj_cmp) :
		      NULL;
}

static void dump_free(struct nh_dump *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->obj[i].members);
	free(d->obj);
	memset(d, 0, sizeof(*d));
}

static int dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nhmsg *nhm = mnl_nlmsg_get_payload(nlh);
	struct nh_dump *d = arg;
	const struct nlattr *a;
	struct nh_obj o = { 0 };
	size_t alen;

	if (nlh->nlmsg_type != RTM_NEWNEXTHOP ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*nhm))
		return 0;
	o.family = nhm->nh_family;
	o.protocol = nhm->nh_protocol;
	mnl_attr_for_each(a, nlh, sizeof(*nhm)) {
		uint16_t len = mnl_attr_get_payload_len(a);
		const struct nexthop_grp *g;
		unsigned int i;

		switch (mnl_attr_get_type(a)) {
		case NHA_ID:
			if (len == sizeof(uint32_t))
				o.id = mnl_attr_get_u32(a);
			break;
		case NHA_OIF:
			if (len == sizeof(uint32_t))
				o.oif = mnl_attr_get_u32(a);
			break;
		case NHA_GATEWAY:
			alen = fare_addr_len(o.family);
			if (alen && len == alen) {
				memcpy(&o.gw, mnl_attr_get_payload(a), alen);
				o.has_gw = true;
			}
			break;
		case NHA_GROUP:
			if (!len || len % sizeof(*g) || o.members)
				break;
			o.is_group = true;
			o.n_members = len / sizeof(*g);
			o.members = calloc(o.n_members, sizeof(uint32_t));
			if (!o.members) {
				d->nomem = true;
				return 0;
			}
			g = mnl_attr_get_payload(a);
			for (i = 0; i < o.n_members; i++)
				o.members[i] = g[i].id;
			qsort(o.members, o.n_members, sizeof(uint32_t),
			      u32_cmp);
			break;
		}
	}
	if (!o.id)
		goto drop;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct nh_obj *p = realloc(d->obj, cap * sizeof(*p));

		if (!p) {
			d->nomem = true;
			goto drop;
		}
		d->obj = p;
		d->cap = cap;
	}
	d->obj[d->n++] = o;
	return 0;
drop:
	free(o.members);
	return 0;
}

/*
 * A nexthop request's header in buf (NLM_F_REQUEST | flags), for objects of
 * family; the caller adds the rest.
 */
static struct nlmsghdr *nh_msg_start(void *buf, uint16_t type, uint16_t flags,
				     uint32_t seq, uint8_t family)
{
	struct nlmsghdr *nlh;
	struct nhmsg *nhm;

	nhm = fare_nlmsg_start(buf, type, flags, seq, sizeof(*nhm), &nlh);
	nhm->nh_family = family;
	return nlh;
}

static int dump_read(struct fare *f, struct nh_dump *d, struct fare_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	memset(d, 0, sizeof(*d));
	nlh = nh_msg_start(f->tx, RTM_GETNEXTHOP, NLM_F_DUMP, fare_next_seq(f),
			   AF_UNSPEC);
	ret = fare_talk(f, f->rtnl, nlh, dump_cb, d, err);
	if (!ret && d->nomem)
		ret = fare_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
	if (ret) {
		char reason[sizeof(err->msg)] = "";

		dump_free(d);
		if (err)
			snprintf(reason, sizeof(reason), "%s", err->msg);
		return fare_err_set(err, ret,
				    "reading the kernel's nexthop objects: %s",
				    reason[0] ? reason : strerror(-ret));
	}
	if (d->n)
		qsort(d->obj, d->n, sizeof(*d->obj), obj_cmp);
	return 0;
}

/* A single next hop; exists: NLM_F_REPLACE or NLM_F_EXCL. */
static struct nlmsghdr *nexthop_msg(void *buf, size_t buflen, uint32_t seq,
				    uint32_t id, uint8_t family, uint32_t oif,
				    const union fare_addr *gw, bool onlink,
				    uint16_t exists)
{
	size_t alen = fare_addr_len(family);
	struct nlmsghdr *nlh = buf;
	struct nhmsg *nhm;

	if (!alen || buflen < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*nhm)) +
			      3 * MNL_ATTR_HDRLEN + 8 + MNL_ALIGN(alen))
		return NULL;
	nlh = nh_msg_start(buf, RTM_NEWNEXTHOP,
			   NLM_F_ACK | NLM_F_CREATE | exists, seq, family);
	nhm = mnl_nlmsg_get_payload(nlh);
	nhm->nh_protocol = FARE_RTPROT;
	if (onlink)
		nhm->nh_flags = RTNH_F_ONLINK;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	mnl_attr_put_u32(nlh, NHA_OIF, oif);
	if (gw)
		mnl_attr_put(nlh, NHA_GATEWAY, alen, gw);
	return nlh;
}

struct nlmsghdr *fare_rtnl_msg_nexthop(void *buf, size_t buflen, uint32_t seq,
				       uint32_t id, uint8_t family,
				       uint32_t oif, const union fare_addr *gw)
{
	/* fare.ko sends to the gateway whatever the device's addresses. */
	return nexthop_msg(buf, buflen, seq, id, family, oif, gw, gw,
			   NLM_F_REPLACE);
}

struct nlmsghdr *fare_rtnl_msg_nh_group(void *buf, size_t buflen,
					uint32_t seq, uint32_t id,
					const uint32_t *members, unsigned int n,
					bool create)
{
	struct nexthop_grp g[GROUP_MEMBERS_MAX];
	struct nlmsghdr *nlh;
	struct nhmsg *nhm;
	unsigned int i;

	if (!n || n > GROUP_MEMBERS_MAX || buflen < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*nhm)) +
			   2 * MNL_ATTR_HDRLEN + 4 +
			   MNL_ALIGN(n * sizeof(*g)))
		return NULL;
	/* A new group must not take over someone else's id. */
	nlh = nh_msg_start(buf, RTM_NEWNEXTHOP,
			   NLM_F_ACK | NLM_F_CREATE |
			   (create ? NLM_F_EXCL : NLM_F_REPLACE), seq,
			   AF_UNSPEC);
	nhm = mnl_nlmsg_get_payload(nlh);
	nhm->nh_protocol = FARE_RTPROT;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	/* Every member weighs the same: a bound lookup takes one of them. */
	memset(g, 0, n * sizeof(*g));
	for (i = 0; i < n; i++)
		g[i].id = members[i];
	mnl_attr_put(nlh, NHA_GROUP, n * sizeof(*g), g);
	return nlh;
}

static int nh_talk(struct fare *f, struct nlmsghdr *nlh, const char *what,
		   uint32_t id, struct fare_err *err)
{
	char reason[sizeof(err->msg)] = "";
	int ret;

	if (!nlh)
		return fare_err_set(err, -EMSGSIZE, "nexthop request too long");
	ret = fare_talk(f, f->rtnl, nlh, NULL, NULL, err);
	if (!ret || !err)
		return ret;
	snprintf(reason, sizeof(reason), "%s", err->msg);
	return fare_err_set(err, ret, "%s (nexthop id %u): %s", what, id,
			    reason[0] ? reason : strerror(-ret));
}

/* Whether the object id there (o, or none) is not fare's to change. */
static int not_ours(const struct nh_obj *o, struct fare_err *err)
{
	if (!o || o->protocol == FARE_RTPROT)
		return 0;
	return fare_err_set(err, -EEXIST,
			    "nexthop id %u belongs to protocol %u, not fare's (%d)",
			    o->id, o->protocol, FARE_RTPROT);
}

static bool obj_is(const struct nh_obj *o, uint8_t family, uint32_t oif,
		   const union fare_addr *gw)
{
	if (!o || o->is_group || o->family != family || o->oif != oif ||
	    o->has_gw != !!gw)
		return false;
	return !gw || !memcmp(&o->gw, gw, fare_addr_len(family));
}

static bool plane_has_family(const struct fare_plane_info *pi, uint8_t family)
{
	return family == AF_INET ? pi->has_gw4 : pi->has_gw6;
}

/* A plane's mark and, when its device is up, its next hop. */
static int plane_objects(struct fare *f, struct fare_plane_map *m,
			 uint32_t plane, uint8_t family,
			 const struct nh_dump *d, struct fare_err *err)
{
	struct fare_plane_info *pi = &m->p[plane];
	uint32_t mark = nh_plane_id(m, plane, family, true);
	uint32_t hop = nh_plane_id(m, plane, family, false);
	const union fare_addr *gw;
	const struct nh_obj *o;
	int ret;

	o = dump_find(d, mark);
	ret = not_ours(o, err);
	if (!ret && !obj_is(o, family, m->fare_ifindex, NULL))
		ret = nh_talk(f, fare_rtnl_msg_nexthop(f->tx, sizeof(f->tx),
						       fare_next_seq(f), mark,
						       family, m->fare_ifindex,
						       NULL),
			      "adding a plane's mark on the fare device", mark,
			      err);
	if ((ret == -EAFNOSUPPORT || ret == -EACCES) && family == AF_INET6) {
		/*
		 * No IPv6 in this kernel, or none on the fare device
		 * (disable_ipv6): nothing IPv6 to steer.
		 */
		fare_err_clear(err);
		pi->has_gw6 = false;
		return 0;
	}
	if (ret)
		return ret;

	gw = family == AF_INET ? (const union fare_addr *)&pi->gw4 :
				 (const union fare_addr *)&pi->gw6;
	o = dump_find(d, hop);
	ret = not_ours(o, err);
	if (ret)
		return ret;
	if (obj_is(o, family, pi->ifindex, gw)) {
		pi->live[fam_bit(family)] = true;
		return 0;
	}
	if (!pi->up)
		return 0;
	ret = nh_talk(f, fare_rtnl_msg_nexthop(f->tx, sizeof(f->tx),
					       fare_next_seq(f), hop, family,
					       pi->ifindex, gw),
		      "adding a plane's next hop", hop, err);
	/*
	 * Down or without carrier since the map was read, or IPv6 disabled
	 * on the plane's device: not yet.
	 */
	if (ret == -ENETDOWN || ret == -ENETUNREACH || ret == -ENODEV ||
	    (ret == -EACCES && family == AF_INET6)) {
		fare_err_clear(err);
		return 0;
	}
	if (!ret)
		pi->live[fam_bit(family)] = true;
	return ret;
}

/* Whether fare's nexthop ids have room for the fare device's ifindex. */
static int ifindex_fits(uint32_t fare_ifindex, struct fare_err *err)
{
	if (fare_ifindex <= FARE_NH_IFINDEX_MAX)
		return 0;
	return fare_err_set(err, -ERANGE,
			    "the fare device's ifindex %u is above the %u that fare's nexthop ids allow",
			    fare_ifindex, FARE_NH_IFINDEX_MAX);
}

static const union fare_addr *dev_gw(uint8_t family)
{
	return family == AF_INET6 ? (const union fare_addr *)&fare_dev_gw6 :
				    NULL;
}

static int dev_object_add(struct fare *f, uint32_t fare_ifindex,
			  uint8_t family, bool create, struct fare_err *err)
{
	uint32_t id = fare_nh_dev_id(fare_ifindex, family);
	struct nlmsghdr *nlh;

	/*
	 * A link-local gateway needs no onlink, and with it the kernel
	 * would look fe80::1 up in table main, where another device's
	 * fe80::/64 is a "device mismatch". Replacing an object the kernel
	 * has makes it notify every route through it: only to mend one that
	 * is not as it should be.
	 */
	nlh = nexthop_msg(f->tx, sizeof(f->tx), fare_next_seq(f), id, family,
			  fare_ifindex, dev_gw(family), false,
			  create ? NLM_F_EXCL : NLM_F_REPLACE);
	return nh_talk(f, nlh, "adding the fare device's own next hop", id,
		       err);
}

int fare_nh_dev_ensure(struct fare *f, uint32_t fare_ifindex, uint8_t family,
		       struct fare_err *err)
{
	int ret = ifindex_fits(fare_ifindex, err);

	if (!ret)
		ret = dev_object_add(f, fare_ifindex, family, true, err);
	if (ret == -EEXIST) {
		fare_err_clear(err);
		ret = 0;
	}
	return ret;
}

/* The fare device's own next hop, as the dump shows it or made anew. */
static int dev_object(struct fare *f, const struct fare_plane_map *m,
		      uint8_t family, const struct nh_dump *d,
		      struct fare_err *err)
{
	uint32_t id = fare_nh_dev_id(m->fare_ifindex, family);
	const struct nh_obj *o = dump_find(d, id);
	int ret = not_ours(o, err);

	if (ret || obj_is(o, family, m->fare_ifindex, dev_gw(family)))
		return ret;
	ret = dev_object_add(f, m->fare_ifindex, family, false, err);
	/*
	 * No IPv6 in this kernel, or none on the fare device: no IPv6
	 * route can point at it either.
	 */
	if ((ret == -EAFNOSUPPORT || ret == -EACCES) && family == AF_INET6) {
		fare_err_clear(err);
		ret = 0;
	}
	return ret;
}

static void set_plane(uint64_t *planes, uint32_t plane)
{
	planes[plane / 64] |= 1ULL << (plane % 64);
}

static bool has_plane(const uint64_t *planes, uint32_t plane)
{
	return planes[plane / 64] & (1ULL << (plane % 64));
}

static int group_cmp(const void *a, const void *b)
{
	const struct fare_nh_group *x = a, *y = b;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return memcmp(x->planes, y->planes, sizeof(x->planes));
}

static const struct fare_nh_group *group_find(const struct fare_plane_map *m,
					      const struct fare_nh_group *key)
{
	return m->n_groups ? bsearch(key, m->groups, m->n_groups,
				     sizeof(*key), group_cmp) : NULL;
}

static int group_add(struct fare_plane_map *m, const struct fare_nh_group *g)
{
	size_t i;

	if (group_find(m, g))
		return 0;
	if (m->n_groups == m->cap_groups) {
		size_t cap = m->cap_groups ? 2 * m->cap_groups : 16;
		struct fare_nh_group *p = realloc(m->groups, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->groups = p;
		m->cap_groups = cap;
	}
	for (i = m->n_groups; i && group_cmp(&m->groups[i - 1], g) > 0; i--)
		m->groups[i] = m->groups[i - 1];
	m->groups[i] = *g;
	m->n_groups++;
	return 0;
}

/*
 * The members a group for planes should have now: each plane's mark, and
 * its next hop while that exists. Returns how many (at most max).
 */
static unsigned int group_members(const struct fare_plane_map *m,
				  uint8_t family, const uint64_t *planes,
				  uint32_t *out, unsigned int max)
{
	unsigned int n = 0;
	uint32_t p;

	for (p = 1; p <= FARE_PLANE_ID_MAX && n + 2 <= max; p++) {
		const struct fare_plane_info *pi = &m->p[p];

		if (!has_plane(planes, p))
			continue;
		out[n++] = nh_plane_id(m, p, family, true);
		if (pi->live[fam_bit(family)])
			out[n++] = nh_plane_id(m, p, family, false);
	}
	qsort(out, n, sizeof(*out), u32_cmp);
	return n;
}

/*
 * One of fare's groups as the dump shows it: put the next hops of its
 * planes that are back (or gone) right, and remember it for the routes.
 */
static int group_repair(struct fare *f, struct fare_plane_map *m,
			const struct nh_obj *o, const struct nh_dump *d,
			struct fare_err *err)
{
	uint32_t want[GROUP_MEMBERS_MAX], extra[GROUP_MEMBERS_MAX];
	struct fare_nh_group g = { .id = o->id };
	unsigned int i, n, n_extra = 0;
	bool complete = true, any = false;

	for (i = 0; i < o->n_members; i++) {
		uint32_t id = o->members[i], plane;
		const struct nh_obj *mark;

		if (!nh_is_mark(id))
			continue;
		mark = dump_find(d, id);
		/* Another fare device's group, or not fare's at all. */
		if (nh_mark_fare_ifindex(id) != m->fare_ifindex || !mark ||
		    mark->protocol != FARE_RTPROT)
			return 0;
		plane = nh_mark_plane(id);
		g.family = nh_mark_family(id);
		any = true;
		if (plane && m->p[plane].ifindex &&
		    plane_has_family(&m->p[plane], g.family)) {
			set_plane(g.planes, plane);
		} else {
			/* No longer a plane: its mark keeps the routes. */
			complete = false;
			if (n_extra < GROUP_MEMBERS_MAX)
				extra[n_extra++] = id;
		}
	}
	if (!any)
		return 0;
	n = group_members(m, g.family, g.planes, want, GROUP_MEMBERS_MAX);
	for (i = 0; i < n_extra && n < GROUP_MEMBERS_MAX; i++)
		want[n++] = extra[i];
	qsort(want, n, sizeof(*want), u32_cmp);
	if (n != o->n_members ||
	    memcmp(want, o->members, n * sizeof(*want))) {
		int ret = nh_talk(f, fare_rtnl_msg_nh_group(f->tx,
							    sizeof(f->tx),
							    fare_next_seq(f),
							    o->id, want, n,
							    false),
				  "restoring a plane route group", o->id, err);
		if (ret)
			return ret;
	}
	if (complete && group_add(m, &g))
		return fare_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
	return 0;
}

int fare_nh_sync(struct fare *f, struct fare_plane_map *m,
		 struct fare_err *err)
{
	struct nh_dump d;
	uint32_t p;
	size_t i;
	int ret;

	if (!m->fare_ifindex)
		return 0;
	ret = ifindex_fits(m->fare_ifindex, err);
	if (!ret)
		ret = dump_read(f, &d, err);
	if (ret)
		return ret;
	ret = dev_object(f, m, AF_INET, &d, err);
	if (!ret)
		ret = dev_object(f, m, AF_INET6, &d, err);
	for (p = 1; !ret && p <= FARE_PLANE_ID_MAX; p++) {
		const struct fare_plane_info *pi = &m->p[p];

		if (!pi->ifindex)
			continue;
		if (pi->has_gw4)
			ret = plane_objects(f, m, p, AF_INET, &d, err);
		if (!ret && pi->has_gw6)
			ret = plane_objects(f, m, p, AF_INET6, &d, err);
	}
	for (i = 0; !ret && i < d.n; i++) {
		const struct nh_obj *o = &d.obj[i];

		if (o->id >= FARE_NH_GROUP_MIN && o->id < FARE_NH_ID_BASE &&
		    o->id >= m->next_group)
			m->next_group = o->id + 1;
		if (o->is_group && o->protocol == FARE_RTPROT)
			ret = group_repair(f, m, o, &d, err);
	}
	dump_free(&d);
	return ret;
}

/* Whether o is one of fare's groups for the fare device fare_ifindex. */
static bool group_of(const struct nh_obj *o, const struct nh_dump *d,
		     uint32_t fare_ifindex)
{
	const struct nh_obj *mark;
	bool any = false;
	unsigned int i;

	if (!o->is_group || o->protocol != FARE_RTPROT)
		return false;
	for (i = 0; i < o->n_members; i++) {
		uint32_t id = o->members[i];

		if (!nh_is_mark(id))
			continue;
		mark = dump_find(d, id);
		if (nh_mark_fare_ifindex(id) != fare_ifindex || !mark ||
		    mark->protocol != FARE_RTPROT)
			return false;
		any = true;
	}
	return any;
}

int fare_nh_groups_remove(struct fare *f, uint32_t fare_ifindex,
			  size_t *removed, struct fare_err *err)
{
	struct nlmsghdr *nlh;
	struct nh_dump d;
	size_t i;
	int ret;

	if (removed)
		*removed = 0;
	if (!fare_ifindex)
		return 0;
	ret = dump_read(f, &d, err);
	for (i = 0; !ret && i < d.n; i++) {
		if (!group_of(&d.obj[i], &d, fare_ifindex))
			continue;
		nlh = nh_msg_start(f->tx, RTM_DELNEXTHOP, NLM_F_ACK,
				   fare_next_seq(f), AF_UNSPEC);
		mnl_attr_put_u32(nlh, NHA_ID, d.obj[i].id);
		ret = nh_talk(f, nlh, "removing a plane route group",
			      d.obj[i].id, err);
		/* Gone meanwhile: what was wanted. */
		if (ret == -ENOENT) {
			fare_err_clear(err);
			ret = 0;
		} else if (!ret && removed) {
			(*removed)++;
		}
	}
	dump_free(&d);
	return ret;
}

/* The planes of nh that carry a route of family, as a group's key. */
static bool carrying(const struct fare_plane_map *m, uint8_t family,
		     const struct fare_nexthop *nh, unsigned int n_nh,
		     struct fare_nh_group *key)
{
	bool any = false;
	unsigned int i;

	memset(key, 0, sizeof(*key));
	key->family = family;
	for (i = 0; i < n_nh; i++) {
		uint32_t p = nh[i].plane_id;

		if (p < 1 || p > FARE_PLANE_ID_MAX || !nh[i].weight ||
		    !m->p[p].ifindex || !plane_has_family(&m->p[p], family))
			continue;
		set_plane(key->planes, p);
		any = true;
	}
	return any;
}

uint32_t fare_nh_group_find(const struct fare_plane_map *m, uint8_t family,
			    const struct fare_nexthop *nh, unsigned int n_nh,
			    bool *none)
{
	struct fare_nh_group key;
	const struct fare_nh_group *g;

	*none = !carrying(m, family, nh, n_nh, &key);
	if (*none)
		return 0;
	g = group_find(m, &key);
	return g ? g->id : 0;
}

int fare_nh_group_ensure(struct fare *f, struct fare_plane_map *m,
			 uint8_t family, const struct fare_nexthop *nh,
			 unsigned int n_nh, struct fare_err *err)
{
	uint32_t members[GROUP_MEMBERS_MAX];
	struct fare_nh_group key;
	unsigned int n, tries;
	int ret = -EEXIST;

	if (!m->fare_ifindex || !carrying(m, family, nh, n_nh, &key) ||
	    group_find(m, &key))
		return 0;
	n = group_members(m, family, key.planes, members, GROUP_MEMBERS_MAX);
	if (m->next_group < FARE_NH_GROUP_MIN)
		m->next_group = FARE_NH_GROUP_MIN;
	/* EEXIST: someone else took the id since the dump; the next one. */
	for (tries = 0; ret == -EEXIST && tries < 64; tries++) {
		if (m->next_group >= FARE_NH_ID_BASE)
			return fare_err_set(err, -ENOSPC,
					    "no nexthop id left for another plane route group");
		key.id = m->next_group++;
		ret = nh_talk(f, fare_rtnl_msg_nh_group(f->tx, sizeof(f->tx),
							fare_next_seq(f),
							key.id, members, n,
							true),
			      "adding a plane route group", key.id, err);
	}
	if (ret)
		return ret;
	if (group_add(m, &key))
		return fare_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
	return 0;
}
