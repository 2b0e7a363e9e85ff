// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's FARE side (see fare_sync.h).
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fare_sync.h"
#include "fib_sync.h"
#include "gr.h"
#include "orf_sess.h"
#include "suppress.h"
#include "upa.h"

uint64_t fare_sync_ethtool_bps(const char *ifname)
{
	struct {
		struct ethtool_link_settings req;
		uint32_t masks[3 * 127];
	} ls;
	struct ifreq ifr;
	uint64_t bps = 0;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	memset(&ls, 0, sizeof(ls));
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	ifr.ifr_data = (void *)&ls;
	/*
	 * The handshake: the first call answers with minus the number of
	 * mask words the kernel uses; the second asks with that number.
	 */
	if (ioctl(fd, SIOCETHTOOL, &ifr) || ls.req.link_mode_masks_nwords >= 0)
		goto out;
	ls.req.link_mode_masks_nwords = -ls.req.link_mode_masks_nwords;
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	if (ls.req.speed && ls.req.speed != (uint32_t)SPEED_UNKNOWN)
		bps = (uint64_t)ls.req.speed * 1000000;
out:
	close(fd);
	return bps;
}

static void peer_of(void *arg, unsigned int peer, struct fare_fib_peer *out)
{
	struct fare_sync *fs = arg;
	struct fared *d = fs->d;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < d->n_peers; i++)
		if (d->peers[i]->index == peer) {
			const struct fared_neighbor *nb = d->peers[i]->nb;

			out->plane = nb->plane;
			out->upstream = nb->upstream;
			out->ibgp = nb->remote_as == d->cfg.local_as;
			out->router_id = d->peers[i]->peer_id;
			out->addr_family = nb->family;
			memcpy(out->addr, nb->addr, sizeof(out->addr));
			if (out->plane <= FARE_PLANE_ID_MAX)
				out->link_bps = fs->link_bps[out->plane];
			return;
		}
}

static void prefix_of(void *arg, const struct bgp_prefix *p, uint8_t *mode,
		      struct fare_policy_opts *opts)
{
	struct fare_sync *fs = arg;
	const struct fared_multihome *mh;

	*mode = fared_mode_of(&fs->d->cfg, p);
	mh = fared_multihome_of(&fs->d->cfg, p);
	if (mh) {
		opts->multihomed = mh->leaves;
		opts->multihome_multiply_link = mh->multiply_link;
	}
}

static int apply(void *arg, const struct fare_op *ops, size_t n,
		 size_t *failed)
{
	struct fare_sync *fs = arg;
	struct fare_err err;
	int ret;

	if (!fs->nl) {
		*failed = 0;
		return -ENOENT;
	}
	ret = fare_routes_apply(fs->nl, ops, n, failed, &err);
	/* The first refusal of a flush; fare_sync_flush() counts them. */
	if (ret && !fs->flush_refused++)
		fared_log("fare: route op %zu of %zu: %s", *failed, n,
			  err.msg);
	return ret;
}

/* Link bandwidths and fare.ko planes from the configuration. */
static void setup_planes(struct fare_sync *fs)
{
	const struct fared_config *cfg = &fs->d->cfg;
	struct fare_plane planes[FARE_PLANE_ID_MAX + 1];
	bool used[FARE_PLANE_ID_MAX + 1] = { false };
	struct fare_err err;
	size_t i, k;

	memset(fs->link_bps, 0, sizeof(fs->link_bps));
	memset(planes, 0, sizeof(planes));
	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];
		struct fare_plane *pl = &planes[nb->plane];

		if (nb->plane > FARE_PLANE_ID_MAX || !nb->interface[0])
			continue;
		if (!used[nb->plane]) {
			used[nb->plane] = true;
			pl->id = nb->plane;
			pl->ifindex = if_nametoindex(nb->interface);
			for (k = 0; k < cfg->n_interfaces; k++)
				if (!strcmp(cfg->interfaces[k].name,
					    nb->interface))
					fs->link_bps[nb->plane] =
						cfg->interfaces[k].bandwidth;
			if (!fs->link_bps[nb->plane])
				fs->link_bps[nb->plane] =
					fare_sync_ethtool_bps(nb->interface);
			fared_log("fare: plane %u: %s, link %llu bit/s%s",
				  nb->plane, nb->interface,
				  (unsigned long long)fs->link_bps[nb->plane],
				  fs->link_bps[nb->plane] ? "" :
				  " (unknown)");
		}
		if (nb->family == BGP_FAM_IPV4_UNICAST && !pl->has_gw4) {
			pl->has_gw4 = true;
			memcpy(&pl->gw4, nb->addr, 4);
		} else if (nb->family == BGP_FAM_IPV6_UNICAST &&
			   !pl->has_gw6) {
			pl->has_gw6 = true;
			memcpy(&pl->gw6, nb->addr, 16);
		}
	}
	for (i = 1; fs->nl && i <= FARE_PLANE_ID_MAX; i++) {
		if (!used[i])
			continue;
		if (!planes[i].ifindex)
			fared_log("fare: plane %zu: no such device", i);
		else if (fare_plane_add(fs->nl, &planes[i], true, &err))
			fared_log("fare: plane %zu: %s", i, err.msg);
	}
}

/*
 * Transit roles pass learned routes on (fare-04 §4.1, §4.2): with next
 * hop self, the AS path and origin of the best path (fare_best.h), its
 * extended communities minus every PB and every non-transitive community
 * (they do not cross an AS boundary, RFC 4360 §2), plus the PBs the
 * policy computed; its COMMUNITIES and LARGE_COMMUNITIES as they came
 * (Dragonfly+ tiers among them) and its unknown optional transitive
 * attributes with the Partial bit set (RFC 4271 §5; the unknown
 * non-transitive ones were dropped on input). Not back to the peers the
 * paths came from; with NO_ADVERTISE to nobody, with NO_EXPORT only to
 * iBGP (RFC 1997).
 */
struct fare_adv {
	struct fare_adv *next;
	struct bgp_prefix prefix;
	bool queued;
	bool live;			/* false: withdraw everywhere */
	uint8_t origin;
	uint32_t *path;			/* packed with its segments */
	size_t path_len;
	uint8_t *ecs;
	size_t ecs_len;
	/* COMMUNITIES, then LARGE_COMMUNITIES, then raw attributes. */
	uint8_t *xattr;
	size_t comms_len, lcomms_len, raw_len;
	bool no_export, no_advertise;	/* RFC 1997 well-known */
	bool from_ibgp;			/* the best path's: not to iBGP */
	unsigned int *from;		/* RIB peers with a path */
	size_t n_from;
	uint8_t *sent;			/* bitmap by RIB peer index */
	size_t sent_len;
	/* A leaf's RNIC host route: to whom (suppress.h). */
	enum fare_leaf_adv scope;
	struct bgp_prefix agg;		/* FARE_LEAF_UPA: its aggregate */
};

static uint32_t adv_hash(const struct bgp_prefix *p)
{
	uint32_t h = 2166136261u ^ p->family ^ (uint32_t)p->len << 8;
	size_t i;

	for (i = 0; i < 16; i++)
		h = (h ^ p->addr[i]) * 16777619u;
	return h ^ h >> 15;
}

static bool adv_prefix_eq(const struct bgp_prefix *a,
			  const struct bgp_prefix *b)
{
	return a->family == b->family && a->len == b->len &&
	       !memcmp(a->addr, b->addr, 16);
}

static struct fare_adv **adv_slot(struct fare_sync *fs,
				  const struct bgp_prefix *p)
{
	struct fare_adv **pa;

	pa = &fs->adv_buckets[adv_hash(p) & (fs->n_adv_buckets - 1)];
	while (*pa && !adv_prefix_eq(&(*pa)->prefix, p))
		pa = &(*pa)->next;
	return pa;
}

static int adv_grow(struct fare_sync *fs)
{
	size_t n = fs->n_adv_buckets ? fs->n_adv_buckets * 2 : 256, i;
	struct fare_adv **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < fs->n_adv_buckets; i++) {
		struct fare_adv *a = fs->adv_buckets[i], *next;

		for (; a; a = next) {
			size_t h = adv_hash(&a->prefix) & (n - 1);

			next = a->next;
			a->next = b[h];
			b[h] = a;
		}
	}
	free(fs->adv_buckets);
	fs->adv_buckets = b;
	fs->n_adv_buckets = n;
	return 0;
}

static void adv_clear(struct fare_adv *a)
{
	free(a->path);
	free(a->ecs);
	free(a->xattr);
	free(a->from);
	a->path = NULL;
	a->ecs = NULL;
	a->xattr = NULL;
	a->from = NULL;
	a->path_len = a->ecs_len = a->n_from = 0;
	a->comms_len = a->lcomms_len = a->raw_len = 0;
	a->no_export = a->no_advertise = false;
	a->from_ibgp = false;
	a->live = false;
}

static bool sent_to(const struct fare_adv *a, unsigned int peer)
{
	return peer / 8 < a->sent_len && a->sent[peer / 8] & 1 << peer % 8;
}

static void set_sent(struct fare_adv *a, unsigned int peer, bool on)
{
	if (peer / 8 >= a->sent_len) {
		uint8_t *s;

		if (!on)
			return;
		s = realloc(a->sent, peer / 8 + 1);
		if (!s)
			return;
		memset(s + a->sent_len, 0, peer / 8 + 1 - a->sent_len);
		a->sent = s;
		a->sent_len = peer / 8 + 1;
	}
	if (on)
		a->sent[peer / 8] |= 1 << peer % 8;
	else
		a->sent[peer / 8] &= ~(1 << peer % 8);
}

static bool sent_any(const struct fare_adv *a)
{
	size_t i;

	for (i = 0; i < a->sent_len; i++)
		if (a->sent[i])
			return true;
	return false;
}

/*
 * A prefix this node originates: its own announcement wins over learned
 * paths (no fare route, nothing passed on), as RFC 4271 §9.1.1 lets
 * local policy prefer a locally originated route.
 */
static bool originated(const struct fared_config *cfg,
		       const struct bgp_prefix *p)
{
	size_t i;

	for (i = 0; i < cfg->n_originates; i++)
		if (adv_prefix_eq(&cfg->originates[i].prefix, p))
			return true;
	return false;
}

/* Whether a is to be announced to p (export_done aside). */
static bool adv_for(const struct fare_adv *a, const struct peer *p)
{
	const struct fared_config *cfg = &p->d->cfg;
	const struct fared_policy *pol;
	size_t i;

	if (!a->live || p->nb->export_policy < 0)
		return false;
	pol = &cfg->policies[p->nb->export_policy];
	/* A UPA route goes where its aggregate goes, never to RNICs. */
	if (a->scope == FARE_LEAF_UPA)
		return !p->nb->rnic && fared_policy_permits(pol, &a->agg) &&
		       orf_permits(p, &a->prefix);
	if (a->scope == FARE_LEAF_HOLD && !p->nb->rnic)
		return false;
	if (!fared_policy_permits(pol, &a->prefix) ||
	    !orf_permits(p, &a->prefix))
		return false;
	if (a->no_advertise ||
	    (a->no_export && p->nb->remote_as != cfg->local_as))
		return false;
	/* RFC 4271 §9.2: learned from iBGP, not passed on to iBGP. */
	if (a->from_ibgp && p->nb->remote_as == cfg->local_as)
		return false;
	for (i = 0; i < a->n_from; i++)
		if (a->from[i] == p->index)
			return false;
	return true;
}

/* The attributes a goes out with. */
static void adv_route(const struct fare_adv *a, struct peer_route *r)
{
	r->origin = a->origin;
	r->path = a->path;
	r->path_len = a->path_len;
	r->ecs = a->ecs;
	r->ecs_len = a->ecs_len;
	r->comms = a->xattr;
	r->comms_len = a->comms_len;
	r->lcomms = a->xattr ? a->xattr + a->comms_len : NULL;
	r->lcomms_len = a->lcomms_len;
	r->raw = a->xattr ? a->xattr + a->comms_len + a->lcomms_len : NULL;
	r->raw_len = a->raw_len;
}

/* Brings p's copy of a in line; resend: announce even if sent before. */
static void adv_to(struct fare_adv *a, struct peer *p, bool resend)
{
	if (adv_for(a, p)) {
		struct peer_route r;

		adv_route(a, &r);
		if ((resend || !sent_to(a, p->index)) &&
		    peer_announce(p, &a->prefix, 1, &r))
			set_sent(a, p->index, true);
	} else if (sent_to(a, p->index)) {
		/* Never withdraw what export_family() now announces. */
		if (!originated(&p->d->cfg, &a->prefix))
			peer_withdraw(p, &a->prefix, 1);
		set_sent(a, p->index, false);
	}
}

static size_t x_len(const struct fare_adv *a)
{
	return a->comms_len + a->lcomms_len + a->raw_len;
}

static int cmp_bytes(const void *x, size_t xn, const void *y, size_t yn)
{
	if (xn != yn)
		return xn < yn ? -1 : 1;
	return xn ? memcmp(x, y, xn) : 0;
}

/* The attributes a and b go out with, compared (prefix aside). */
static int attr_cmp(const struct fare_adv *a, const struct fare_adv *b)
{
	int r;

	if (a->prefix.family != b->prefix.family)
		return a->prefix.family < b->prefix.family ? -1 : 1;
	if (a->origin != b->origin)
		return a->origin < b->origin ? -1 : 1;
	if (a->comms_len != b->comms_len)
		return a->comms_len < b->comms_len ? -1 : 1;
	if (a->lcomms_len != b->lcomms_len)
		return a->lcomms_len < b->lcomms_len ? -1 : 1;
	r = cmp_bytes(a->path, a->path_len * sizeof(*a->path), b->path,
		      b->path_len * sizeof(*b->path));
	if (!r)
		r = cmp_bytes(a->ecs, a->ecs_len, b->ecs, b->ecs_len);
	if (!r)
		r = cmp_bytes(a->xattr, x_len(a), b->xattr, x_len(b));
	return r;
}

/* Orders advs so that those sent with equal attributes are adjacent. */
static int adv_attr_cmp(const void *x, const void *y)
{
	const struct fare_adv *a = *(struct fare_adv *const *)x;
	const struct fare_adv *b = *(struct fare_adv *const *)y;
	int r = attr_cmp(a, b);

	return r ? r : memcmp(&a->prefix, &b->prefix, sizeof(a->prefix));
}

/*
 * Brings p's copies of the n advs v in line (adv_to() for each), with the
 * prefixes that share their attributes packed into as few UPDATEs as the
 * session's message size allows, and the withdrawals of a family
 * likewise. v is reordered. Falls back to adv_to() without memory.
 */
static void adv_to_many(struct fare_adv **v, size_t n, struct peer *p,
			bool resend)
{
	/* pfx: a run to send; w: the withdrawals. */
	struct bgp_prefix *pfx = malloc((2 * n + 1) * sizeof(*pfx)), *w;
	size_t i, k, m, na = 0, nw = 0;

	if (!pfx) {
		for (i = 0; i < n && p->est; i++)
			adv_to(v[i], p, resend);
		return;
	}
	w = pfx + n;
	/* v[0..na): to announce. */
	for (i = 0; i < n; i++) {
		struct fare_adv *a = v[i];

		if (adv_for(a, p)) {
			if (resend || !sent_to(a, p->index))
				v[na++] = a;
		} else if (sent_to(a, p->index)) {
			/* Never withdraw what export_family() announces. */
			if (!originated(&p->d->cfg, &a->prefix))
				w[nw++] = a->prefix;
			set_sent(a, p->index, false);
		}
	}
	for (k = 0; k < BGP_FAM_COUNT && p->est; k++) {
		for (i = 0, m = 0; i < nw; i++)
			if (w[i].family == k)
				pfx[m++] = w[i];
		if (m)
			peer_withdraw(p, pfx, m);
	}
	qsort(v, na, sizeof(*v), adv_attr_cmp);
	for (i = 0; i < na && p->est; i = k) {
		struct peer_route r;

		for (k = i, m = 0; k < na && !attr_cmp(v[k], v[i]); k++)
			pfx[m++] = v[k]->prefix;
		adv_route(v[i], &r);
		if (peer_announce(p, pfx, m, &r))
			for (m = i; m < k; m++)
				set_sent(v[m], p->index, true);
	}
	free(pfx);
}

#define COMMUNITY_NO_EXPORT	0xffffff01u
#define COMMUNITY_NO_ADVERTISE	0xffffff02u

/*
 * best's COMMUNITIES, LARGE_COMMUNITIES and unknown optional transitive
 * attributes (Partial set) into a->xattr; RFC 1997's NO_EXPORT and
 * NO_ADVERTISE noted.
 */
static int adv_xattr(struct fare_adv *a, const struct rib_attrs *best)
{
	size_t raw = 0, k, at;
	uint8_t *x;

	for (k = 0; k < best->n_kept; k++) {
		struct bgp_raw_attr r = {
			.flags = best->kept[k].flags, .type = best->kept[k].type,
			.value = best->kept[k].value, .len = best->kept[k].len,
		};

		raw += bgp_raw_attr_encode(NULL, &r, true);
	}
	for (k = 0; k + 4 <= best->communities_len; k += 4) {
		const uint8_t *c = best->communities + k;
		uint32_t v = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
			     (uint32_t)c[2] << 8 | c[3];

		a->no_export |= v == COMMUNITY_NO_EXPORT;
		a->no_advertise |= v == COMMUNITY_NO_ADVERTISE;
	}
	if (!best->communities_len && !best->large_communities_len && !raw)
		return 0;
	x = malloc(best->communities_len + best->large_communities_len + raw);
	if (!x)
		return -ENOMEM;
	a->xattr = x;
	a->comms_len = best->communities_len;
	a->lcomms_len = best->large_communities_len;
	a->raw_len = raw;
	if (a->comms_len)
		memcpy(x, best->communities, a->comms_len);
	if (a->lcomms_len)
		memcpy(x + a->comms_len, best->large_communities,
		       a->lcomms_len);
	at = a->comms_len + a->lcomms_len;
	for (k = 0; k < best->n_kept; k++) {
		struct bgp_raw_attr r = {
			.flags = best->kept[k].flags, .type = best->kept[k].type,
			.value = best->kept[k].value, .len = best->kept[k].len,
		};

		at += bgp_raw_attr_encode(x + at, &r, true);
	}
	return 0;
}

/* The communities to pass on: see struct fare_adv. */
static int adv_ecs(const struct fare_sync *fs, const struct rib_attrs *best,
		   const struct fare_result *res, uint8_t **out, size_t *len)
{
	const struct fared_config *cfg = &fs->d->cfg;
	/* Room for two PBs and a FIB-Suppress. */
	uint8_t *ecs = malloc(best->ext_communities_len + 24), *ec;
	struct fare_pb pb, kept = { 0 };
	bool have_kept = false;
	size_t k, n = 0;

	if (!ecs)
		return -ENOMEM;
	for (k = 0; k + 8 <= best->ext_communities_len; k += 8) {
		ec = best->ext_communities + k;
		if (fare_pb_decode(ec, cfg->ec.pb_subtype, &pb)) {
			if (pb.transitive && !have_kept) {
				kept = pb;
				have_kept = true;
			}
			continue;
		}
		if (ec[0] & 0x40)
			continue;
		memcpy(ecs + n, ec, 8);
		n += 8;
	}
	if (res->adv_t) {
		/* Passed on unchanged keeps who attached it. */
		if (!(res->adv_rule == FARE_ADV_UNCHANGED && have_kept &&
		      kept.value == res->adv_t_value)) {
			kept.router_id = cfg->router_id;
			kept.value = res->adv_t_value;
		}
		kept.transitive = true;
		fare_pb_encode(ecs + n, &kept, cfg->ec.pb_subtype);
		n += 8;
	}
	if (res->adv_nt) {
		pb.transitive = false;
		pb.router_id = cfg->router_id;
		pb.value = res->adv_nt_value;
		fare_pb_encode(ecs + n, &pb, cfg->ec.pb_subtype);
		n += 8;
	}
	*out = ecs;
	*len = n;
	return 0;
}

static bool same_adv(const struct fare_adv *a, const struct fare_adv *b)
{
	return a->live == b->live && a->origin == b->origin &&
	       a->scope == b->scope && adv_prefix_eq(&a->agg, &b->agg) &&
	       a->path_len == b->path_len && a->ecs_len == b->ecs_len &&
	       a->n_from == b->n_from && a->comms_len == b->comms_len &&
	       a->lcomms_len == b->lcomms_len && a->raw_len == b->raw_len &&
	       a->no_export == b->no_export &&
	       a->no_advertise == b->no_advertise &&
	       a->from_ibgp == b->from_ibgp &&
	       (!x_len(a) || !memcmp(a->xattr, b->xattr, x_len(a))) &&
	       (!a->path_len ||
		!memcmp(a->path, b->path, a->path_len * sizeof(*a->path))) &&
	       (!a->ecs_len || !memcmp(a->ecs, b->ecs, a->ecs_len)) &&
	       (!a->n_from ||
		!memcmp(a->from, b->from, a->n_from * sizeof(*a->from)));
}

static bool peer_rnic(const struct fared *d, unsigned int index)
{
	size_t i;

	for (i = 0; i < d->n_peers; i++)
		if (d->peers[i]->index == index)
			return d->peers[i]->nb->rnic;
	return false;
}

/* Whether RIB peer index is an iBGP neighbor. */
static bool peer_ibgp(const struct fared *d, unsigned int index)
{
	size_t i;

	for (i = 0; i < d->n_peers; i++)
		if (d->peers[i]->index == index)
			return d->peers[i]->nb->remote_as == d->cfg.local_as;
	return false;
}

static bool pfx_covers(const struct bgp_prefix *a,
		       const struct bgp_prefix *x);
static int set_track(struct bgp_prefix **v, size_t *n,
		     const struct bgp_prefix *x, bool in);

/* The leaf's step for e (suppress.h): hosts seen are in fs->hosts. */
static enum fare_leaf_adv leaf_step(struct fare_sync *fs,
				    const struct rib_entry *e,
				    struct bgp_prefix *agg)
{
	const struct fared_config *cfg = &fs->d->cfg;
	struct fare_leaf_host h = {
		.upa = cfg->upa_originate && cfg->role == FARE_ROLE_LEAF,
	};
	struct bgp_prefix x = e->prefix;
	bool was = false, seen, stat = false;
	size_t i;

	x.path_id = 0;
	memset(agg, 0, sizeof(*agg));
	for (i = 0; h.upa && !h.covered && i < cfg->n_originates; i++)
		if (pfx_covers(&cfg->originates[i].prefix, &x)) {
			h.covered = true;
			*agg = cfg->originates[i].prefix;
		}
	for (i = 0; h.covered && i < e->n_paths; i++)
		if (peer_rnic(fs->d, e->paths[i].peer))
			h.n_rnic_paths++;
	/* A configured RNIC is known from the start; its link counts. */
	for (i = 0; h.covered && i < cfg->n_rnics && i < fs->n_rnic_up; i++)
		if (adv_prefix_eq(&cfg->rnics[i].prefix, &x)) {
			stat = true;
			if (fs->rnic_up[i] > 0)
				h.n_rnic_paths++;
		}
	for (i = 0; i < fs->n_hosts; i++)
		if (adv_prefix_eq(&fs->hosts[i], &x))
			was = true;
	seen = was || stat;
	i = fare_leaf_host_step(&x, &h, &seen);
	if (!stat && seen != was) {
		struct bgp_prefix key;

		/* Compared whole by set_track(): no stray bytes. */
		memset(&key, 0, sizeof(key));
		key.family = x.family;
		key.len = x.len;
		memcpy(key.addr, x.addr, sizeof(key.addr));
		if (set_track(&fs->hosts, &fs->n_hosts, &key, seen) < 0)
			fared_log("fare: out of memory for the RNIC hosts");
	}
	return (enum fare_leaf_adv)i;
}

/* A leaf's UPA route for a lost host: its own, IGP, no AS path. */
static int adv_upa(const struct fare_sync *fs, struct fare_adv *now)
{
	struct fare_upa upa = {
		.drop = fs->d->cfg.upa_drop,
		.router_id = fs->d->cfg.router_id,
	};

	now->live = true;
	now->origin = BGP_ORIGIN_IGP;
	now->ecs = malloc(FARE_EC_LEN);
	if (!now->ecs)
		return -ENOMEM;
	fare_upa_encode(now->ecs, &upa);
	now->ecs_len = FARE_EC_LEN;
	return 0;
}

/* What e now means for the peers; queued when it changed. */
static int adv_update(struct fare_sync *fs, const struct rib_entry *e,
		      const struct fare_fib_result *fr)
{
	const struct fared_config *cfg = &fs->d->cfg;
	struct fare_adv now = { .prefix = e->prefix }, **pa, *a;
	const struct rib_attrs *best;
	size_t i;

	now.prefix.path_id = 0;
	now.scope = leaf_step(fs, e, &now.agg);
	if (now.scope == FARE_LEAF_UPA) {
		if (adv_upa(fs, &now))
			goto nomem;
	} else if (fr->best >= 0 && fr->res.adv_rule != FARE_ADV_NONE &&
		   !originated(cfg, &now.prefix)) {
		best = e->paths[fr->best].attrs;
		now.live = true;
		now.origin = best->origin;
		/* The path with its segments (sets, confederations). */
		now.path_len = best->as_packed_len;
		now.path = malloc((now.path_len + 1) * sizeof(*now.path));
		now.from = malloc((e->n_paths + 1) * sizeof(*now.from));
		if (!now.path || !now.from ||
		    adv_ecs(fs, best, &fr->res, &now.ecs, &now.ecs_len) ||
		    adv_xattr(&now, best))
			goto nomem;
		if (now.path_len)
			memcpy(now.path, best->as_packed,
			       now.path_len * sizeof(*now.path));
		for (i = 0; i < e->n_paths; i++)
			now.from[now.n_from++] = e->paths[i].peer;
		now.from_ibgp = peer_ibgp(fs->d, e->paths[fr->best].peer);
		/* mpson-00 §4.2: a leaf tags what it learned from RNICs. */
		if (cfg->fs_tag && cfg->role == FARE_ROLE_LEAF &&
		    fare_is_host_route(&now.prefix) &&
		    peer_rnic(fs->d, e->paths[fr->best].peer))
			now.ecs_len = fare_fs_tag(now.ecs, now.ecs_len,
						  cfg->local_as,
						  cfg->router_id,
						  cfg->ec.fs_subtype);
	}
	if (fs->n_adv >= fs->n_adv_buckets && adv_grow(fs))
		goto nomem;
	pa = adv_slot(fs, &now.prefix);
	a = *pa;
	if (!a) {
		if (!now.live)
			return 0;
		a = calloc(1, sizeof(*a));
		if (!a)
			goto nomem;
		a->prefix = now.prefix;
		*pa = a;
		fs->n_adv++;
	} else if (same_adv(a, &now)) {
		adv_clear(&now);
		return 0;
	}
	adv_clear(a);
	a->live = now.live;
	a->scope = now.scope;
	a->agg = now.agg;
	a->origin = now.origin;
	a->path = now.path;
	a->path_len = now.path_len;
	a->ecs = now.ecs;
	a->ecs_len = now.ecs_len;
	a->xattr = now.xattr;
	a->comms_len = now.comms_len;
	a->lcomms_len = now.lcomms_len;
	a->raw_len = now.raw_len;
	a->no_export = now.no_export;
	a->no_advertise = now.no_advertise;
	a->from_ibgp = now.from_ibgp;
	a->from = now.from;
	a->n_from = now.n_from;
	if (!a->queued) {
		if (fs->n_adv_queue == fs->adv_queue_cap) {
			size_t cap = fs->adv_queue_cap ? 2 * fs->adv_queue_cap
						       : 64;
			struct fare_adv **q = realloc(fs->adv_queue,
						      cap * sizeof(*q));

			if (!q)
				return -ENOMEM;
			fs->adv_queue = q;
			fs->adv_queue_cap = cap;
		}
		fs->adv_queue[fs->n_adv_queue++] = a;
		a->queued = true;
	}
	return 0;
nomem:
	adv_clear(&now);
	return -ENOMEM;
}

static void adv_drop(struct fare_sync *fs, struct fare_adv *a)
{
	struct fare_adv **pa = adv_slot(fs, &a->prefix);

	*pa = a->next;
	fs->n_adv--;
	adv_clear(a);
	free(a->sent);
	free(a);
}

static void adv_flush(struct fare_sync *fs)
{
	struct fared *d = fs->d;
	struct fare_adv **v;
	size_t i, k;

	if (!fs->n_adv_queue)
		return;
	v = malloc(fs->n_adv_queue * sizeof(*v));
	for (k = 0; k < d->n_peers; k++) {
		if (!d->peers[k]->export_done)
			continue;
		if (!v) {
			for (i = 0; i < fs->n_adv_queue; i++)
				adv_to(fs->adv_queue[i], d->peers[k], true);
			continue;
		}
		memcpy(v, fs->adv_queue, fs->n_adv_queue * sizeof(*v));
		adv_to_many(v, fs->n_adv_queue, d->peers[k], true);
	}
	free(v);
	for (i = 0; i < fs->n_adv_queue; i++) {
		struct fare_adv *a = fs->adv_queue[i];

		a->queued = false;
		if (!a->live && !sent_any(a))
			adv_drop(fs, a);
	}
	fs->n_adv_queue = 0;
}

void fare_sync_export_peer(struct peer *p, unsigned int fam)
{
	struct fare_sync *fs = p->d->fare;
	struct fare_adv **v, *a;
	size_t i, n = 0;

	if (!fs || !fs->n_adv)
		return;
	v = malloc(fs->n_adv * sizeof(*v));
	for (i = 0; i < fs->n_adv_buckets && p->est; i++)
		for (a = fs->adv_buckets[i]; a && p->est; a = a->next) {
			if (a->prefix.family != fam)
				continue;
			if (v)
				v[n++] = a;
			else
				adv_to(a, p, false);
		}
	if (v && p->est)
		adv_to_many(v, n, p, false);
	free(v);
}

void fare_sync_peer_down(struct peer *p)
{
	struct fare_sync *fs = p->d->fare;
	size_t i;

	for (i = 0; fs && i < fs->n_adv_buckets; i++) {
		struct fare_adv *a;

		for (a = fs->adv_buckets[i]; a; a = a->next)
			set_sent(a, p->index, false);
	}
}

static void adv_free_all(struct fare_sync *fs)
{
	size_t i;

	for (i = 0; i < fs->n_adv_buckets; i++) {
		struct fare_adv *a = fs->adv_buckets[i], *next;

		for (; a; a = next) {
			next = a->next;
			adv_clear(a);
			free(a->sent);
			free(a);
		}
	}
	free(fs->adv_buckets);
	free(fs->adv_queue);
}

static void set_opts(struct fare_sync *fs)
{
	const struct fared_config *cfg = &fs->d->cfg;

	fs->cfg.ec = cfg->ec;
	memset(&fs->cfg.opts, 0, sizeof(fs->cfg.opts));
	fs->cfg.opts.role = cfg->role;
	fs->cfg.opts.attach_nontransitive = cfg->attach_nontransitive;
	fs->cfg.opts.lower_to_next_next_hop = cfg->lower_to_next_next_hop;
	fs->cfg.tiers = cfg->tiers;
	fs->cfg.route_stats = cfg->route_stats ? FARE_ROUTE_STATS_ON :
						 FARE_ROUTE_STATS_OFF;
}

static void upa_reload(struct fared *d);

/* Whether NAME is up with a carrier (IFF_UP and IFF_RUNNING). */
static int link_running(const char *name)
{
	struct ifreq ifr;
	int fd, up;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	up = !ioctl(fd, SIOCGIFFLAGS, &ifr) &&
	     (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
	     (IFF_UP | IFF_RUNNING);
	close(fd);
	return up;
}

/* A configured RNIC's link changed: its host route's fate again. */
static void rnic_changed(struct fare_sync *fs, const struct bgp_prefix *x)
{
	struct fared *d = fs->d;
	const struct rib_entry *e = rib_lookup(d->rib, x);
	struct fare_fib_result fr = { .best = -1 };
	struct rib_entry none = { .prefix = *x };

	if (e && e->n_paths)
		fare_sync_changed(d, e);
	else if (adv_update(fs, &none, &fr))
		fared_log("fare: out of memory");
}

/*
 * "rnic PREFIX interface NAME": the links are polled once a second (a
 * carrier change is then at most a second late; no netlink listener).
 */
static void rnic_poll(struct timer *t)
{
	struct fare_sync *fs = t->arg;
	const struct fared_config *cfg = &fs->d->cfg;
	char pfx[BGP_PREFIX_STRLEN];
	bool changed = false;
	size_t i;

	for (i = 0; i < fs->n_rnic_up && i < cfg->n_rnics; i++) {
		int up = link_running(cfg->rnics[i].interface);

		if (up == fs->rnic_up[i])
			continue;
		if (fs->rnic_up[i] >= 0 || !up)
			fared_log("fare: rnic %s: %s %s",
				  bgp_prefix_str(&cfg->rnics[i].prefix, pfx,
						 sizeof(pfx)),
				  cfg->rnics[i].interface,
				  up ? "up" : "down: UPA");
		fs->rnic_up[i] = (int8_t)up;
		rnic_changed(fs, &cfg->rnics[i].prefix);
		changed = true;
	}
	if (changed)
		fare_sync_flush(fs->d);
	if (fs->n_rnic_up)
		timer_set(&fs->d->loop, t, 1000);
}

/* The configured RNICs anew (start, reload): polled now. */
static void rnic_reset(struct fare_sync *fs)
{
	const struct fared_config *cfg = &fs->d->cfg;
	int8_t *v = NULL;

	timer_stop(&fs->d->loop, &fs->rnic_timer);
	if (cfg->n_rnics) {
		v = malloc(cfg->n_rnics);
		if (!v) {
			fared_log("fare: out of memory for the rnic lines");
			return;
		}
		memset(v, -1, cfg->n_rnics);
	}
	free(fs->rnic_up);
	fs->rnic_up = v;
	fs->n_rnic_up = cfg->n_rnics;
	/* A host no longer configured: its UPA route goes. */
	upa_reload(fs->d);
	/* Every state is unknown (-1): each one is looked at now. */
	rnic_poll(&fs->rnic_timer);
}

static int reweigh(const struct rib_entry *e, void *arg);
static void resync(struct timer *t);

static bool unreach_wanted(struct fare_sync *fs, const struct fare_prefix *x)
{
	struct fare_prefix p;
	size_t i;

	for (i = 0; i < fs->n_unreach; i++) {
		fare_fib_prefix(&fs->unreach[i], &p);
		if (!fib_prefix_cmp(&p, x))
			return true;
	}
	return false;
}

/*
 * The unreachable routes found at start that no prefix wants now go; one
 * that became a fare route was replaced by fare_route_add() already.
 */
static size_t unreach_sweep(struct fare_sync *fs)
{
	struct fare_route have;
	struct fare_err err;
	size_t i, n = 0;

	for (i = 0; fs->nl && i < fs->n_stale_unreach; i++) {
		const struct fare_prefix *x = &fs->stale_unreach[i];

		if (unreach_wanted(fs, x) || fare_fib_get(fs->fib, x, &have))
			continue;
		if (fare_route_unreachable(fs->nl, x, false, &err))
			fared_log("fare: sweeping an unreachable route: %s",
				  err.msg);
		else
			n++;
	}
	free(fs->stale_unreach);
	fs->stale_unreach = NULL;
	fs->n_stale_unreach = 0;
	return n;
}

/*
 * The start-up wait is over: every prefix is programmed, once. Routes
 * adopted at start that the RIB still wants stay untouched when equal
 * (fare_fib_queue() sends nothing), are replaced when not, and the rest
 * are swept in the same batch, after the adds (fib_ops_order()).
 */
static void first_tables_in(struct fare_sync *fs, const char *why)
{
	struct fared *d = fs->d;
	size_t swept, stale_unreach;

	fs->first_tables = false;
	timer_stop(&d->loop, &fs->update_delay);
	fared_log("fare: %s after %llu ms: programming", why,
		  (unsigned long long)(loop_now_ms() - fs->started_ms));
	rib_walk(d->rib, reweigh, d);
	swept = fare_fib_sweep(fs->fib);
	fare_sync_flush(d);
	stale_unreach = unreach_sweep(fs);
	if (fs->adopted)
		fared_log("fare: restart: %zu adopted route%s, %zu swept, "
			  "%zu unreachable route%s swept; %llu ops so far",
			  fs->adopted, fs->adopted == 1 ? "" : "s", swept,
			  stale_unreach, stale_unreach == 1 ? "" : "s",
			  (unsigned long long)fs->ops);
}

static void update_delay_over(struct timer *t)
{
	struct fare_sync *fs = t->arg;
	struct fared *d = fs->d;
	size_t i, missing = 0;

	for (i = 0; i < d->n_peers; i++)
		if (!peer_has_first_table(d->peers[i]))
			missing++;
	fared_log("fare: update-delay (%u s) over, %zu of %zu neighbors "
		  "without a first table",
		  fare_sync_wait_s(&d->cfg, fs->adopted + fs->n_stale_unreach),
		  missing, d->n_peers);
	first_tables_in(fs, "update-delay over");
}

void fare_sync_eor(struct fared *d)
{
	struct fare_sync *fs = d->fare;
	size_t i;

	if (!fs || !fs->first_tables)
		return;
	for (i = 0; i < d->n_peers; i++)
		if (!peer_has_first_table(d->peers[i]))
			return;
	first_tables_in(fs, "End-of-RIB from every neighbor");
}

static int adopt_route(const struct fare_route *r, void *arg)
{
	struct fare_sync *fs = arg;
	int ret = fare_fib_adopt(fs->fib, r);

	if (ret < 0)
		return ret;
	fs->adopted += (size_t)ret;
	return 0;
}

static int adopt_unreach(const struct fare_prefix *x, void *arg)
{
	struct fare_sync *fs = arg;
	struct fare_prefix *v;

	v = realloc(fs->stale_unreach, (fs->n_stale_unreach + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	fs->stale_unreach = v;
	v[fs->n_stale_unreach++] = *x;
	return 0;
}

/*
 * What a predecessor left in fare.ko stays and forwards: adopted as stale
 * (fare_fib_adopt()), reconciled when the first tables are in. When that
 * fails, fare.ko is flushed as a last resort, so that fared's record and
 * fare.ko agree.
 */
static void adopt(struct fare_sync *fs)
{
	struct fare_err err;
	size_t n = 0;

	if (!fare_route_dump(fs->nl, adopt_route, fs, &err) &&
	    !fare_route_unreachable_dump(fs->nl, adopt_unreach, fs, &err)) {
		if (fs->adopted || fs->n_stale_unreach)
			fared_log("fare: restart: %zu route%s and %zu "
				  "unreachable route%s adopted as stale: "
				  "forwarding on them until the first tables "
				  "are in", fs->adopted,
				  fs->adopted == 1 ? "" : "s",
				  fs->n_stale_unreach,
				  fs->n_stale_unreach == 1 ? "" : "s");
		return;
	}
	fared_log("fare: adopting fare.ko's routes: %s; flushing them",
		  err.msg);
	fare_fib_free(fs->fib);
	fs->fib = fare_fib_new(apply, fs);
	fs->adopted = 0;
	free(fs->stale_unreach);
	fs->stale_unreach = NULL;
	fs->n_stale_unreach = 0;
	if (fare_route_flush(fs->nl, &n, &err))
		fared_log("fare: flushing old routes: %s", err.msg);
	else if (n)
		fared_log("fare: flushed %zu old route%s", n,
			  n == 1 ? "" : "s");
}

unsigned int fare_sync_wait_s(const struct fared_config *cfg, size_t adopted)
{
	unsigned int s = cfg->update_delay;

	if (!adopted)
		return s;
	/* Routes to keep: as long as the peers keep ours, at least. */
	if (cfg->gr_restart_time > s)
		s = cfg->gr_restart_time;
	return s ? s : cfg->gr_stale_time;
}

bool fare_sync_forwarding(const struct fared *d, unsigned int fam)
{
	const struct fare_sync *fs = d->fare;

	/* Without a role, or as a host, fared passes nothing on. */
	return gr_forwarding_kept(fs && d->cfg.role != FARE_ROLE_HOST,
				  fs && fs->nl && fs->fib,
				  fs && fs->fib ? fare_fib_count_family(fs->fib,
				  fam == BGP_FAM_IPV4_UNICAST ? AF_INET :
				  AF_INET6) : 0);
}

int fare_sync_start(struct fared *d)
{
	struct fare_sync *fs;
	struct fare_err err;
	unsigned int wait_s;
	int ret;

	if (!d->cfg.fare)
		return 0;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->d = d;
	fs->fib = fare_fib_new(apply, fs);
	if (!fs->fib) {
		free(fs);
		return -ENOMEM;
	}
	fs->cfg.peer_of = peer_of;
	fs->cfg.prefix_of = prefix_of;
	fs->cfg.arg = fs;
	set_opts(fs);
	ret = fare_open(&fs->nl, &err);
	if (ret) {
		fared_log("fare: %s: weights are computed, not programmed",
			  ret == -ENOENT ? "fare.ko is not loaded" : err.msg);
		fs->nl = NULL;
	} else {
		adopt(fs);
		if (!fs->fib) {
			fare_close(fs->nl);
			free(fs);
			return -ENOMEM;
		}
	}
	d->fare = fs;
	setup_planes(fs);
	timer_init(&fs->rnic_timer, rnic_poll, fs);
	rnic_reset(fs);
	timer_init(&fs->update_delay, update_delay_over, fs);
	timer_init(&fs->retry, resync, fs);
	wait_s = fare_sync_wait_s(&d->cfg, fs->adopted + fs->n_stale_unreach);
	if (fs->nl && wait_s) {
		fs->first_tables = true;
		fs->started_ms = loop_now_ms();
		timer_set(&d->loop, &fs->update_delay, wait_s * 1000ull);
	}
	return 0;
}

void fare_sync_stop(struct fared *d, bool keep)
{
	struct fare_sync *fs = d->fare;
	struct fare_err err;
	size_t n = 0;

	if (!fs)
		return;
	if (fs->nl && keep) {
		fared_log("fare: leaving %zu route%s in fare.ko for the next "
			  "fared", fare_fib_count(fs->fib),
			  fare_fib_count(fs->fib) == 1 ? "" : "s");
		fare_close(fs->nl);
	} else if (fs->nl) {
		/* Also takes the unreachable routes (fs->unreach) away. */
		if (fare_route_flush(fs->nl, &n, &err))
			fared_log("fare: flushing routes: %s", err.msg);
		fare_close(fs->nl);
	}
	free(fs->stale_unreach);
	fare_fib_free(fs->fib);
	adv_free_all(fs);
	free(fs->upa);
	free(fs->unreach);
	timer_stop(&d->loop, &fs->rnic_timer);
	timer_stop(&d->loop, &fs->update_delay);
	timer_stop(&d->loop, &fs->retry);
	free(fs->rnic_up);
	free(fs->hosts);
	free(fs);
	d->fare = NULL;
}

static int reweigh(const struct rib_entry *e, void *arg);

/* A UPA route whose host is in no RIB entry: another look (reload). */
static void upa_reload(struct fared *d)
{
	struct fare_sync *fs = d->fare;
	struct fare_sync_upa *v;
	struct fare_fib_result fr = { .best = -1 };
	size_t i, n = fare_sync_upa_routes(d, NULL, 0);

	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return;
	n = fare_sync_upa_routes(d, v, n);
	for (i = 0; i < n; i++) {
		struct rib_entry e = { .prefix = v[i].prefix };
		const struct rib_entry *x = rib_lookup(d->rib, &e.prefix);

		if (!x || !x->n_paths)
			adv_update(fs, &e, &fr);
	}
	free(v);
}

void fare_sync_reweigh_all(struct fared *d)
{
	if (!d->fare)
		return;
	rib_walk(d->rib, reweigh, d);
	fare_sync_flush(d);
}

static int reweigh(const struct rib_entry *e, void *arg)
{
	fare_sync_changed(arg, e);
	return 0;
}

void fare_sync_reload(struct fared *d)
{
	struct fare_sync *fs = d->fare;

	if (!fs != !d->cfg.fare)
		fared_log("reload: a role %s takes a restart of fared",
			  fs ? "removed" : "added");
	if (!fs)
		return;
	set_opts(fs);
	setup_planes(fs);
	rib_walk(d->rib, reweigh, d);
	upa_reload(d);
	rnic_reset(fs);
	fare_sync_flush(d);
}

static bool pfx_covers(const struct bgp_prefix *a, const struct bgp_prefix *x)
{
	unsigned int i, len = a->len;

	if (a->family != x->family || a->len >= x->len)
		return false;
	for (i = 0; i < len / 8; i++)
		if (a->addr[i] != x->addr[i])
			return false;
	return !(len % 8) ||
	       !((a->addr[i] ^ x->addr[i]) & (0xff << (8 - len % 8)));
}

/* The longest less specific prefix of x that has paths. */
static const struct rib_entry *covering(struct fared *d,
					const struct bgp_prefix *x)
{
	struct bgp_prefix p = *x;
	const struct rib_entry *e;
	int len;

	p.path_id = 0;
	for (len = x->len - 1; len >= 0; len--) {
		/* Bits past len cleared: len < 128 leaves a byte at len / 8. */
		p.len = (uint8_t)len;
		p.addr[len / 8] &= (uint8_t)(0xff00 >> (len % 8));
		memset(p.addr + len / 8 + 1, 0, sizeof(p.addr) - len / 8 - 1);
		e = rib_lookup(d->rib, &p);
		if (e && e->n_paths)
			return e;
	}
	return NULL;
}

/* Whether x is in the set *v; in or out as told. 1: it changed. */
static int set_track(struct bgp_prefix **v, size_t *n,
		     const struct bgp_prefix *x, bool in)
{
	struct bgp_prefix *nv;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!memcmp(&(*v)[i], x, sizeof(*x)))
			break;
	if (!in && i < *n) {
		(*v)[i] = (*v)[--*n];
		return 1;
	}
	if (!in || i < *n)
		return 0;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	(*v)[(*n)++] = *x;
	return 1;
}

static int upa_track(struct fare_sync *fs, const struct bgp_prefix *x,
		     bool in)
{
	return set_track(&fs->upa, &fs->n_upa, x, in) < 0 ? -ENOMEM : 0;
}

/*
 * mpson-00 §4.1, see upa.h: a UPA path never forwards; a prefix with
 * only UPA paths takes its aggregate's planes minus theirs. True when
 * none is left: the prefix is unreachable.
 */
static bool upa_compute(struct fared *d, const struct rib_entry *e,
			const struct fare_upa_info *ui, struct fare_route *want,
			struct fare_fib_result *fr)
{
	struct fare_sync *fs = d->fare;
	static struct fare_route agg;
	struct fare_fib_result afr;
	const struct rib_entry *a;
	struct rib_path *paths;
	struct rib_entry plain;

	paths = malloc(e->n_paths * sizeof(*paths));
	if (!paths) {
		memset(want, 0, sizeof(*want));
		fare_fib_prefix(&e->prefix, &want->dst);
		fr->best = -1;
		return false;
	}
	fare_upa_strip(e, paths, &plain);
	fare_fib_compute(&fs->cfg, &plain, NULL, fr, want);
	free(paths);
	if (ui->n_plain)
		return false;
	a = covering(d, &e->prefix);
	if (!a)
		return false;
	fare_fib_compute(&fs->cfg, a, NULL, &afr, &agg);
	return !fare_upa_exception(&agg, ui, want) && agg.n_nexthops;
}

/*
 * fare.ko has no unreachable route: an unreachable prefix gets a kernel
 * "unreachable" route in fare's table instead (fare_route_unreachable()),
 * put in before the fare route goes, so that its packets are dropped and
 * counted rather than follow the aggregate to planes that cannot deliver.
 * The queue is flushed on the way in so that fare.ko no longer has the
 * prefix: on the way out its route is then an add, whose kernel route
 * replaces the unreachable one; with no route left, the latter is removed.
 */
static void unreach_sync(struct fared *d, const struct fare_route *want,
			 const struct bgp_prefix *x, bool unreach)
{
	struct fare_sync *fs = d->fare;
	char pfx[BGP_PREFIX_STRLEN];
	struct fare_err err;
	int ret;

	ret = set_track(&fs->unreach, &fs->n_unreach, x, unreach);
	if (ret <= 0) {
		if (ret)
			fared_log("fare: %s: out of memory",
				  bgp_prefix_str(x, pfx, sizeof(pfx)));
		return;
	}
	if (!unreach && want->n_nexthops)
		return;
	if (fare_route_unreachable(fs->nl, &want->dst, unreach, &err))
		fared_log("fare: %s: %s", bgp_prefix_str(x, pfx, sizeof(pfx)),
			  err.msg);
	else if (unreach)
		fared_log("fare: %s: unreachable on every plane of its "
			  "aggregate: dropped", bgp_prefix_str(x, pfx,
							       sizeof(pfx)));
	if (unreach)
		fare_sync_flush(d);
}

void fare_sync_changed(struct fared *d, const struct rib_entry *e)
{
	struct fare_sync *fs = d->fare;
	static struct fare_route want;
	char pfx[BGP_PREFIX_STRLEN];
	struct fare_fib_result fr;
	int err = 0;

	struct fare_upa_info ui;
	bool unreach = false;
	size_t i;

	if (!fs)
		return;
	fare_upa_classify(&fs->cfg, e, &ui);
	if (fs->cfg.opts.role == FARE_ROLE_HOST && ui.n_upa)
		unreach = upa_compute(d, e, &ui, &want, &fr);
	else
		fare_fib_compute(&fs->cfg, e, NULL, &fr, &want);
	if (fs->cfg.opts.role == FARE_ROLE_HOST &&
	    upa_track(fs, &e->prefix, ui.n_upa > 0))
		err = -ENOMEM;
	if (originated(&d->cfg, &e->prefix))
		want.n_nexthops = 0;
	/*
	 * Route-table suppression (suppress.h): FIB-Suppress honoured; a
	 * transit node's prefix with only UPA paths follows its aggregate.
	 */
	if (fare_sync_fs(d, e, NULL) == FARE_FS_SUPPRESS ||
	    (fs->cfg.opts.role != FARE_ROLE_HOST && ui.n_upa &&
	     !ui.n_plain)) {
		want.n_nexthops = 0;
		unreach = false;
	}
	/* Start-up: first_tables_in() takes every prefix at once. */
	if (fs->first_tables)
		return;
	/* Without fare.ko there is nothing to keep in step with. */
	if (fs->nl)
		err = fare_fib_queue(fs->fib, &want);
	if (fs->nl && !err)
		unreach_sync(d, &want, &e->prefix, unreach);
	if (!err && fs->cfg.opts.role != FARE_ROLE_HOST)
		err = adv_update(fs, e, &fr);
	if (err)
		fared_log("fare: %s: out of memory",
			  bgp_prefix_str(&e->prefix, pfx, sizeof(pfx)));
	/* An aggregate changed: the exceptions under it follow. */
	for (i = fs->n_upa; i-- > 0;)
		if (pfx_covers(&e->prefix, &fs->upa[i])) {
			const struct rib_entry *x = rib_lookup(d->rib,
							       &fs->upa[i]);

			if (x)
				fare_sync_changed(d, x);
		}
}

#define RETRY_FIRST_MS	1000
#define RETRY_MAX_MS	64000

void fare_sync_flush(struct fared *d)
{
	struct fare_sync *fs = d->fare;
	struct fare_fib_flush_stats st;

	if (!fs)
		return;
	/* Forwarding first: a route is passed on once it is in place. */
	if (fare_fib_pending(fs->fib)) {
		fs->flush_refused = 0;
		fare_fib_flush(fs->fib, 0, NULL, NULL, &st);
		fs->batches++;
		fs->ops += st.ops;
		fs->failed += st.failed;
		if (st.failed && !fs->retry.armed) {
			fs->retry_ms = !fs->retry_ms ? RETRY_FIRST_MS :
				       fs->retry_ms >= RETRY_MAX_MS / 2 ?
				       RETRY_MAX_MS : 2 * fs->retry_ms;
			fared_log("fare: %zu route op%s refused: "
				  "resynchronising with fare.ko in %u ms",
				  st.failed, st.failed == 1 ? "" : "s",
				  fs->retry_ms);
			timer_set(&d->loop, &fs->retry, fs->retry_ms);
		}
	}
	adv_flush(fs);
}

static int resync_adopt(const struct fare_route *r, void *arg)
{
	struct fare_sync *fs = arg;

	return fare_fib_adopt(fs->fib, r) < 0 ? -ENOMEM : 0;
}

/*
 * After a refusal: what fare.ko holds is read again (a new record, every
 * route in it stale), every prefix is computed again, so that only the
 * differences are sent, and what the RIB no longer wants is swept. A
 * failed read keeps the old record and tries again later.
 */
static void resync(struct timer *t)
{
	struct fare_sync *fs = t->arg;
	struct fared *d = fs->d;
	struct fare_fib *old = fs->fib;
	uint64_t failed = fs->failed, ops = fs->ops;
	struct fare_err err;

	if (fs->first_tables || !fs->nl)
		return;	/* first_tables_in() programs everything anyway */
	fs->fib = fare_fib_new(apply, fs);
	if (!fs->fib || fare_route_dump(fs->nl, resync_adopt, fs, &err)) {
		fared_log("fare: resynchronising: %s", fs->fib ? err.msg :
			  "out of memory");
		fare_fib_free(fs->fib);
		fs->fib = old;
		timer_set(&d->loop, &fs->retry, fs->retry_ms);
		return;
	}
	fare_fib_free(old);
	fs->resyncs++;
	rib_walk(d->rib, reweigh, d);
	fare_fib_sweep(fs->fib);
	fare_sync_flush(d);
	if (fs->failed == failed) {
		fared_log("fare: resynchronised with fare.ko: %llu op%s",
			  (unsigned long long)(fs->ops - ops),
			  fs->ops - ops == 1 ? "" : "s");
		fs->retry_ms = 0;
	}
}

static bool orf_wanted(const struct fared *d, const struct bgp_prefix *x)
{
	size_t i;

	for (i = 0; i < d->n_orf_want; i++)
		if (adv_prefix_eq(&d->orf_want[i], x) ||
		    pfx_covers(&d->orf_want[i], x))
			return true;
	return false;
}

enum fare_fs_verdict fare_sync_fs(struct fared *d, const struct rib_entry *e,
				  struct fare_fs *why)
{
	const struct fared_config *cfg = &d->cfg;
	struct fare_fs fs;

	return fare_fs_check(e, cfg->ec.fs_subtype, cfg->fs_honour,
			     cfg->role == FARE_ROLE_HOST &&
			     orf_wanted(d, &e->prefix), why ? why : &fs);
}

enum fare_leaf_adv fare_sync_leaf(struct fared *d,
				  const struct bgp_prefix *x)
{
	struct fare_sync *fs = d->fare;
	struct bgp_prefix p = *x;
	struct fare_adv *a;

	p.path_id = 0;
	if (!fs || !fs->n_adv_buckets)
		return FARE_LEAF_PASS;
	a = *adv_slot(fs, &p);
	return a && a->live ? a->scope : FARE_LEAF_PASS;
}

size_t fare_sync_upa_routes(struct fared *d, struct fare_sync_upa *out,
			    size_t max)
{
	struct fare_sync *fs = d->fare;
	size_t i, n = 0;

	for (i = 0; fs && i < fs->n_adv_buckets; i++) {
		const struct fare_adv *a;

		for (a = fs->adv_buckets[i]; a; a = a->next) {
			if (!a->live || a->scope != FARE_LEAF_UPA)
				continue;
			if (n < max) {
				out[n].prefix = a->prefix;
				out[n].aggregate = a->agg;
				out[n].drop = d->cfg.upa_drop;
				out[n].sent = sent_any(a);
			}
			n++;
		}
	}
	return n;
}

bool fare_sync_explain(struct fared *d, const struct rib_entry *e,
		       struct fare_fib_path *paths, struct fare_fib_result *fr,
		       struct fare_route *want, struct fare_upa_info *ui,
		       bool *unreachable)
{
	struct fare_fib_result upa_fr;

	*unreachable = false;
	if (!d->fare)
		return false;
	fare_fib_compute(&d->fare->cfg, e, paths, fr, want);
	fare_upa_classify(&d->fare->cfg, e, ui);
	if (d->fare->cfg.opts.role == FARE_ROLE_HOST && ui->n_upa)
		*unreachable = upa_compute(d, e, ui, want, &upa_fr);
	/* As fare_sync_changed(): what is suppressed gets no route. */
	if (fare_sync_fs(d, e, NULL) == FARE_FS_SUPPRESS ||
	    (d->fare->cfg.opts.role != FARE_ROLE_HOST && ui->n_upa &&
	     !ui->n_plain)) {
		want->n_nexthops = 0;
		*unreachable = false;
	}
	return true;
}
