// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's FARE side (see fare_sync.h).
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "adj_out.h"
#include "export.h"
#include "bfd.h"
#include "fare_sync.h"
#include "fared.h"
#include "fib_sync.h"
#include "gr.h"
#include "link.h"
#include "peer.h"
#include "pfx.h"
#include "suppress.h"
#include "upa.h"

static void peer_of(void *arg, unsigned int peer, struct fare_fib_peer *out)
{
	struct fare_sync *fs = arg;
	const struct peer_info *pi = peer_table_get(&fs->d->peer_table, peer);

	memset(out, 0, sizeof(*out));
	if (!pi)
		return;
	out->plane = pi->plane;
	out->upstream = pi->upstream;
	out->ibgp = pi->ibgp;
	out->router_id = pi->router_id;
	out->remote_as = pi->remote_as;
	out->addr_family = pi->addr_family;
	memcpy(out->addr, pi->addr, sizeof(out->addr));
	if (out->plane <= FARE_PLANE_ID_MAX)
		out->link_bps = fs->link_bps[out->plane];
}

static void prefix_of(void *arg, const struct bgp_prefix *p, uint8_t *mode,
		      uint8_t *tcp_mode, struct fare_policy_opts *opts)
{
	struct fare_sync *fs = arg;
	const struct fared_multihome *mh;

	*mode = fared_mode_of(&fs->d->cfg, p, tcp_mode);
	mh = fared_multihome_of(&fs->d->cfg, p);
	if (mh) {
		opts->multihomed = mh->leaves;
		opts->multihome_multiply_link = mh->multiply_link;
	}
}

static int apply(void *arg, const struct fare_op *const *ops, size_t n,
		 size_t *failed)
{
	struct fare_sync *fs = arg;
	struct fare_err err;
	int ret;

	if (!fs->nl) {
		*failed = 0;
		return -ENOENT;
	}
	ret = fare_routes_apply_ptrs(fs->nl, ops, n, failed, &err);
	/* A batch of many chunks takes seconds: the sessions must not wait. */
	loop_tick(&fs->d->loop);
	/* The first refusal of a flush; fare_sync_flush() counts them. */
	if (ret && !fs->flush_refused++)
		fared_log("fare: route op %zu of %zu: %s", *failed, n,
			  err.msg);
	return ret;
}

/* A plane's device back: its next hop in the plane routes again. */
static void plane_sync(struct timer *t)
{
	struct fare_sync *fs = t->arg;
	struct fare_err err;

	if (!fs->nl)
		return;
	if (fare_plane_sync(fs->nl, &err)) {
		if (strcmp(fs->plane_sync_err, err.msg))
			fared_log("fare: the planes' nexthop objects: %s",
				  err.msg);
		snprintf(fs->plane_sync_err, sizeof(fs->plane_sync_err), "%s",
			 err.msg);
	} else if (fs->plane_sync_err[0]) {
		fared_log("fare: the planes' nexthop objects are right again");
		fs->plane_sync_err[0] = '\0';
	}
	timer_set(&fs->d->loop, &fs->plane_sync, FARE_PLANE_SYNC_MS);
}

/* Programs plane i as fs->planes[i] has it; false when it failed. */
static bool program_plane(struct fare_sync *fs, size_t i)
{
	struct fare_err err;

	if (!fs->nl)
		return true;
	if (!fs->planes[i].ifindex) {
		fared_log("fare: plane %zu: no such device", i);
		return false;
	}
	if (fare_plane_add(fs->nl, &fs->planes[i], true, &err)) {
		fared_log("fare: plane %zu: %s", i, err.msg);
		return false;
	}
	return true;
}

/* Link bandwidths and fare.ko planes from the configuration. */
static void setup_planes(struct fare_sync *fs)
{
	const struct fared_config *cfg = &fs->d->cfg;
	struct fare_plane *planes = fs->planes;
	bool used[FARE_PLANE_ID_MAX + 1] = { false };
	size_t i, k;

	memset(fs->link_bps, 0, sizeof(fs->link_bps));
	memset(fs->planes, 0, sizeof(fs->planes));
	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];
		struct fare_plane *pl = &planes[nb->plane];

		if (nb->plane > FARE_PLANE_ID_MAX || !nb->interface[0])
			continue;
		if (!used[nb->plane]) {
			used[nb->plane] = true;
			pl->id = nb->plane;
			pl->ifindex = if_nametoindex(nb->interface);
			/* A reload keeps what BFD holds out. */
			pl->admin_down = bfd_plane_held(fs->d->bfd, nb->plane);
			for (k = 0; k < cfg->n_interfaces; k++)
				if (!strcmp(cfg->interfaces[k].name,
					    nb->interface))
					fs->link_bps[nb->plane] =
						cfg->interfaces[k].bandwidth;
			if (!fs->link_bps[nb->plane])
				fs->link_bps[nb->plane] =
					link_speed_bps(nb->interface);
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
	for (i = 1; i <= FARE_PLANE_ID_MAX; i++)
		if (used[i])
			program_plane(fs, i);
}

void fare_sync_planes_held(struct fared *d)
{
	struct fare_sync *fs = d->fare;
	bool held;
	size_t i;

	if (!fs)
		return;
	for (i = 1; i <= FARE_PLANE_ID_MAX; i++) {
		if (!fs->planes[i].id)
			continue;
		held = bfd_plane_held(d->bfd, (unsigned int)i);
		if (held == fs->planes[i].admin_down)
			continue;
		fs->planes[i].admin_down = held;
		if (program_plane(fs, i))
			fared_log("fare: plane %zu %s", i, held ?
				  "out: administratively down (BFD down)" :
				  "back: BFD up");
	}
}

static void set_opts(struct fare_sync *fs)
{
	const struct fared_config *cfg = &fs->d->cfg;

	fs->cfg.ec = cfg->ec;
	memset(&fs->cfg.opts, 0, sizeof(fs->cfg.opts));
	fs->cfg.opts.role = cfg->role;
	fs->cfg.opts.attach_nontransitive = cfg->attach_nontransitive;
	fs->cfg.opts.lower_to_next_next_hop = cfg->lower_to_next_next_hop;
	fs->cfg.opts.node_split = cfg->node_split;
	fs->cfg.tiers = cfg->tiers;
	fs->cfg.route_stats = cfg->route_stats ? FARE_ROUTE_STATS_ON :
						 FARE_ROUTE_STATS_OFF;
	fare_sync_final_planes(cfg, &fs->final_planes);
}

bool fare_sync_final_planes(const struct fared_config *cfg,
			    struct fare_plane_set *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; cfg->role == FARE_ROLE_HOST && i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];

		/* A second session on a plane may bring a path later. */
		if (nb->add_path_rx || nb->rnic || nb->upstream ||
		    !fare_plane_set_add(out, nb->plane))
			break;
	}
	if (!cfg->n_neighbors || i < cfg->n_neighbors)
		memset(out, 0, sizeof(*out));
	return out->n > 0;
}





static int reweigh(const struct rib_entry *e, void *arg);
static void resync(struct timer *t);
static void idle_again(struct timer *t);
static void rnic_reset(struct fare_sync *fs);
static void fib_flush(struct fare_sync *fs, size_t max);

/*
 * A configured RNIC's link changed (leaf_upa.h): its host route's fate
 * again; x NULL: the poll is over, the changes go out.
 */
static void rnic_changed(void *arg, const struct bgp_prefix *x)
{
	struct fare_sync *fs = arg;
	struct fared *d = fs->d;
	const struct rib_entry *e;
	struct fare_fib_result fr = { .best = -1 };
	struct rib_entry none = { .prefix = { 0 } };

	if (!x) {
		fare_sync_flush(d);
		return;
	}
	e = rib_lookup(d->rib, x);
	none.prefix = *x;
	if (e && e->n_paths)
		fare_sync_changed(d, e);
	else if (export_update(d, &fs->leaf, &none, &fr))
		fared_out_of_memory(d, "a leaf's RNIC route");
}

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

	fib_worker_wait(&fs->worker);
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

/* Wall-clock and CPU time (ms) at one moment, for the start-up log. */
struct cpu_mark {
	uint64_t wall_ms, user_ms, sys_ms;
};

static void cpu_mark(struct cpu_mark *m)
{
	struct rusage ru;

	memset(m, 0, sizeof(*m));
	m->wall_ms = loop_now_ms();
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	m->user_ms = (uint64_t)ru.ru_utime.tv_sec * 1000 +
		     (uint64_t)ru.ru_utime.tv_usec / 1000;
	m->sys_ms = (uint64_t)ru.ru_stime.tv_sec * 1000 +
		    (uint64_t)ru.ru_stime.tv_usec / 1000;
}

struct rest_walk {
	struct fared *d;
	bool all;
	size_t early, now;
};

/*
 * A prefix programmed during the wait (weigh_now()) had every change
 * since weighed then, or has one in the RIB's feed still: it is left,
 * unless fare.ko refused an op during the wait (w->all: resync() does not
 * run then, so every prefix is weighed again and the differences sent).
 */
static int reweigh_rest(const struct rib_entry *e, void *arg)
{
	struct rest_walk *w = arg;
	struct fare_prefix dst;

	fare_fib_prefix(&e->prefix, &dst);
	if (!w->all && fare_fib_confirmed(w->d->fare->fib, &dst)) {
		w->early++;
		return 0;
	}
	w->now++;
	fare_sync_changed(w->d, e);
	return 0;
}

/*
 * The start-up wait is over: every prefix not programmed during it is
 * programmed, once. Routes adopted at start that the RIB still wants stay
 * untouched when equal (fare_fib_queue() sends nothing), are replaced when
 * not, and the rest are swept in the same batch, after the adds
 * (fib_ops_order()).
 */
static void first_tables_in(struct fare_sync *fs, const char *why)
{
	struct fared *d = fs->d;
	size_t swept, stale_unreach, queued;
	struct rest_walk w = { .d = d };
	struct cpu_mark m0, m1, m2, m3;
	size_t early_queued;
	uint64_t ops, early_ops;

	fs->first_tables = false;
	timer_stop(&d->loop, &fs->update_delay);
	cpu_mark(&m0);
	fared_log("fare: %s after %llu ms (CPU so far: user %llu ms, "
		  "system %llu ms): programming", why,
		  (unsigned long long)(loop_now_ms() - fs->started_ms),
		  (unsigned long long)m0.user_ms,
		  (unsigned long long)m0.sys_ms);
	/* The batch out goes in first; no thread after the wait. */
	fib_worker_close(&fs->worker);
	ops = fs->ops;
	/*
	 * What is queued was weighed, final, during the wait: it goes in
	 * before the walk looks for the rest, which takes 80 ms at 100,000
	 * prefixes in TCG (bench/run-bgp-100k) and often finds nothing.
	 */
	early_queued = fare_fib_pending(fs->fib);
	fib_flush(fs, SIZE_MAX);
	cpu_mark(&m1);
	early_ops = fs->ops - ops;
	w.all = fs->failed > 0;
	rib_walk(d->rib, reweigh_rest, &w);
	swept = fare_fib_sweep(fs->fib);
	queued = fare_fib_pending(fs->fib);
	cpu_mark(&m2);
	fare_sync_flush(d);
	cpu_mark(&m3);
	fared_log("fare: %zu prefix%s final and weighed while the tables "
		  "came in (%llu ops programmed then, %llu of them by the FIB "
		  "worker in %llu batch%s, %llu ms of its time; %zu queued, "
		  "programmed in %llu ms); weighed the other %zu in %llu ms "
		  "(user %llu, system %llu), %zu queued; programmed %llu ops "
		  "in %llu ms (user %llu, system %llu)",
		  w.early, w.early == 1 ? "" : "es", (unsigned long long)ops,
		  (unsigned long long)fs->worker_ops,
		  (unsigned long long)fs->worker_batches,
		  fs->worker_batches == 1 ? "" : "es",
		  (unsigned long long)fs->worker_ms, early_queued,
		  (unsigned long long)(m1.wall_ms - m0.wall_ms), w.now,
		  (unsigned long long)(m2.wall_ms - m1.wall_ms),
		  (unsigned long long)(m2.user_ms - m1.user_ms),
		  (unsigned long long)(m2.sys_ms - m1.sys_ms), queued,
		  (unsigned long long)(fs->ops - ops - early_ops),
		  (unsigned long long)(m3.wall_ms - m2.wall_ms),
		  (unsigned long long)(m3.user_ms - m2.user_ms),
		  (unsigned long long)(m3.sys_ms - m2.sys_ms));
	stale_unreach = unreach_sweep(fs);
	if (fs->adopted)
		fared_log("fare: restart: %zu adopted route%s, %zu swept, "
			  "%zu unreachable route%s swept; %llu ops so far",
			  fs->adopted, fs->adopted == 1 ? "" : "s", swept,
			  stale_unreach, stale_unreach == 1 ? "" : "s",
			  (unsigned long long)fs->ops);
	/* Routes are selected: a restarting fared advertises now. */
	peers_selection_done(d);
	/*
	 * The wait's transients (each batch's ops, the queue, the read
	 * buffers) are free but still resident: give them back once, as
	 * they will not be needed at this size again. At 100,000 routes
	 * from 4 planes that is 3 MiB of 27 (bench/run-bgp-100k).
	 */
	malloc_trim(0);
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

bool fare_sync_selecting(const struct fared *d)
{
	return d->fare && d->fare->first_tables;
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
	/* fare_sync_idle() ends the wait, after the loop's RIB drain. */
	fs->tables_in = true;
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
/* What an adoption that did not finish has gathered goes. */
static void adopt_forget(struct fare_sync *fs)
{
	fare_fib_free(fs->fib);
	fs->fib = fare_fib_new(apply, fs);
	fs->adopted = 0;
	free(fs->stale_unreach);
	fs->stale_unreach = NULL;
	fs->n_stale_unreach = 0;
}

/*
 * A dump that another writer interrupted (NLM_F_DUMP_INTR: -EINTR) is
 * read again, up to this many times, before fared falls back to a flush.
 */
#define ADOPT_TRIES 5

static void adopt(struct fare_sync *fs)
{
	struct fare_err err;
	size_t n = 0;
	int ret, tries = 0;

	for (;;) {
		ret = fare_route_dump(fs->nl, adopt_route, fs, &err);
		if (!ret)
			ret = fare_route_unreachable_dump(fs->nl, adopt_unreach,
							  fs, &err);
		if (!ret) {
			if (fs->adopted || fs->n_stale_unreach)
				fared_log("fare: restart: %zu route%s and %zu "
					  "unreachable route%s adopted as "
					  "stale: forwarding on them until the "
					  "first tables are in", fs->adopted,
					  fs->adopted == 1 ? "" : "s",
					  fs->n_stale_unreach,
					  fs->n_stale_unreach == 1 ? "" : "s");
			return;
		}
		adopt_forget(fs);
		if (ret != -EINTR || !fs->fib || ++tries >= ADOPT_TRIES)
			break;
		fared_log("fare: adopting fare.ko's routes: %s (reading them "
			  "again, %d of %d)", err.msg, tries + 1, ADOPT_TRIES);
	}
	fared_log("fare: adopting fare.ko's routes: %s; flushing them",
		  err.msg);
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
	leaf_upa_init(&fs->leaf, d, rnic_changed, fs);
	rnic_reset(fs);
	timer_init(&fs->update_delay, update_delay_over, fs);
	timer_init(&fs->retry, resync, fs);
	timer_init(&fs->idle, idle_again, fs);
	timer_init(&fs->plane_sync, plane_sync, fs);
	if (fs->nl)
		timer_set(&d->loop, &fs->plane_sync, FARE_PLANE_SYNC_MS);
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
	/* What the worker programs is recorded before anything else. */
	fib_worker_close(&fs->worker);
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
	free(fs->upa);
	free(fs->unreach);
	leaf_upa_free(&fs->leaf);
	timer_stop(&d->loop, &fs->update_delay);
	timer_stop(&d->loop, &fs->retry);
	timer_stop(&d->loop, &fs->idle);
	timer_stop(&d->loop, &fs->plane_sync);
	free(fs);
	d->fare = NULL;
}

/* A UPA route whose host is in no RIB entry: another look (reload). */
static void upa_reload(struct fared *d)
{
	struct fare_sync *fs = d->fare;
	struct adj_upa *v;
	struct fare_fib_result fr = { .best = -1 };
	size_t i, n = adj_out_upa_routes(d->out, NULL, 0);

	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return;
	n = adj_out_upa_routes(d->out, v, n);
	for (i = 0; i < n; i++) {
		struct rib_entry e = { .prefix = v[i].prefix };
		const struct rib_entry *x = rib_lookup(d->rib, &e.prefix);

		if (!x || !x->n_paths)
			export_update(d, &fs->leaf, &e, &fr);
	}
	free(v);
}

/* The configured RNICs anew (start, reload): polled now. */
static void rnic_reset(struct fare_sync *fs)
{
	if (!leaf_upa_reset(&fs->leaf))
		return;
	/* A host no longer configured: its UPA route goes. */
	upa_reload(fs->d);
	/* Every state is unknown (-1): each one is looked at now. */
	leaf_upa_poll(&fs->leaf);
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
	/* The worker's routes go in before the planes change under them. */
	fib_worker_wait(&fs->worker);
	set_opts(fs);
	setup_planes(fs);
	rib_walk(d->rib, reweigh, d);
	upa_reload(d);
	rnic_reset(fs);
	fare_sync_flush(d);
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


static int upa_track(struct fare_sync *fs, const struct bgp_prefix *x,
		     bool in)
{
	return pfx_set_track(&fs->upa, &fs->n_upa, x, in) < 0 ? -ENOMEM : 0;
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

	ret = pfx_set_track(&fs->unreach, &fs->n_unreach, x, unreach);
	if (ret <= 0) {
		if (ret)
			fared_out_of_memory(d, "an unreachable route");
		return;
	}
	if (!unreach && want->n_nexthops)
		return;
	/* Its fare route may be in the worker's batch: that goes first. */
	fib_worker_wait(&fs->worker);
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

/*
 * During the start-up wait: whether e is programmed now. Yes when its
 * weights are final (every plane's one session has a path to it, and no
 * UPA path makes it depend on its aggregate), and for every later change
 * of a prefix programmed so, which is an ordinary change then.
 */
static bool weigh_now(struct fare_sync *fs, const struct rib_entry *e,
		      const struct fare_upa_info *ui)
{
	struct fare_prefix dst;

	if (!fs->final_planes.n)
		return false;
	if (!ui->n_upa && fare_fib_every_plane(&fs->cfg, e, &fs->final_planes))
		return true;
	fare_fib_prefix(&e->prefix, &dst);
	return fare_fib_confirmed(fs->fib, &dst);
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
	if (fs->cfg.opts.role == FARE_ROLE_HOST &&
	    upa_track(fs, &e->prefix, ui.n_upa > 0))
		err = -ENOMEM;
	/*
	 * Start-up: first_tables_in() weighs every prefix once, at the end;
	 * weighing each of the first tables' paths as it comes would be
	 * thrown away (it was a third of fared's CPU while they came in).
	 * Not so for a prefix whose weights are final already.
	 */
	if (fs->first_tables && !weigh_now(fs, e, &ui)) {
		if (err)
			fared_log("fare: %s: out of memory",
				  bgp_prefix_str(&e->prefix, pfx,
						 sizeof(pfx)));
		return;
	}
	if (fs->cfg.opts.role == FARE_ROLE_HOST && ui.n_upa)
		unreach = upa_compute(d, e, &ui, &want, &fr);
	else
		fare_fib_compute(&fs->cfg, e, NULL, &fr, &want);
	if (adj_out_originates(&d->cfg, &e->prefix))
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
	/* Without fare.ko there is nothing to keep in step with. */
	if (fs->nl)
		err = fare_fib_queue(fs->fib, &want);
	if (fs->nl && !err)
		unreach_sync(d, &want, &e->prefix, unreach);
	if (!err && fs->cfg.opts.role != FARE_ROLE_HOST)
		err = export_update(d, &fs->leaf, e, &fr);
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
/* About 60 ms of fare.ko and FIB work in TCG, a few ms on hardware. */
#define FARE_SYNC_IDLE_CHUNK	1024
/*
 * The worker's batch: each fare_routes_apply() fills its pipeline of two
 * stages and drains it, and each batch waits for the loop to hand over
 * the next, so bigger batches spend less of the worker's time idle (at
 * 990f935, 4,096 ops a batch instead of 1,024 made fared 0.5-0.7 s
 * sooner at 100,000 routes in bench/run-bgp-100k, bench/RESULTS.md). An
 * op holds only its route's next hops (about 200 B for 4 planes,
 * fare_fib.c), so a batch is under 1 MiB; and the wait for the batch out
 * at the last End-of-RIB stays short.
 */
#define FARE_SYNC_WORKER_BATCH	4096

/* Nothing to do: the loop's idle callback comes after it. */
static void idle_again(struct timer *t)
{
	(void)t;
}

static void flush(struct fared *d, size_t max);

void fare_sync_flush(struct fared *d)
{
	flush(d, SIZE_MAX);
}

/*
 * A batch's outcome: counted, and a refusal arms the resync (which, during
 * the start-up wait, first_tables_in() stands in for: fs->failed).
 */
static void flushed(struct fare_sync *fs, const struct fare_fib_flush_stats *st)
{
	struct fared *d = fs->d;

	fs->batches++;
	fs->ops += st->ops;
	fs->failed += st->failed;
	if (st->failed && !fs->retry.armed) {
		fs->retry_ms = !fs->retry_ms ? RETRY_FIRST_MS :
			       fs->retry_ms >= RETRY_MAX_MS / 2 ?
			       RETRY_MAX_MS : 2 * fs->retry_ms;
		fared_log("fare: %zu route op%s refused: resynchronising "
			  "with fare.ko in %u ms", st->failed,
			  st->failed == 1 ? "" : "s", fs->retry_ms);
		timer_set(&d->loop, &fs->retry, fs->retry_ms);
	}
}

/* On the loop's thread: the worker's batch is back. */
static void worker_done(struct fib_worker *w)
{
	struct fare_sync *fs = w->arg;
	struct fare_fib_flush_stats st;

	fare_fib_done(fs->fib, &fs->batch, w->applied, w->ret, NULL, NULL,
		      &st);
	if (w->ret)
		fared_log("fare: route op %zu of %zu: %s", w->applied, w->n,
			  w->err.msg);
	fs->worker_batches++;
	fs->worker_ops += st.ops;
	fs->worker_ms += w->wall_ms;
	flushed(fs, &st);
}

/*
 * During the start-up wait: the next FARE_SYNC_WORKER_BATCH queued
 * prefixes to the worker unless a batch is out. false: no worker (it
 * could not be opened or started), the caller programs them itself.
 */
static bool worker_flush(struct fare_sync *fs)
{
	struct fared *d = fs->d;
	int ret;

	if (fs->worker_off)
		return false;
	/* A batch done is settled now: the next one goes at once. */
	if (fs->worker.busy && !fib_worker_poll(&fs->worker))
		return true;
	if (!fib_worker_is_open(&fs->worker)) {
		ret = fib_worker_open(&fs->worker, &d->loop, worker_done, fs);
		if (ret) {
			fared_log("fare: FIB worker: %s: programming on the "
				  "event loop's thread", fs->worker.err.msg[0] ?
				  fs->worker.err.msg : strerror(-ret));
			fs->worker_off = true;
			return false;
		}
	}
	if (fare_fib_take(fs->fib, FARE_SYNC_WORKER_BATCH, &fs->batch))
		return false;	/* no memory: flush() tries in chunks */
	if (!fs->batch.n) {
		/* Nothing to send in these: the loop comes back for more. */
		if (fare_fib_pending(fs->fib))
			timer_set(&d->loop, &fs->idle, 0);
		return true;
	}
	ret = fib_worker_start(&fs->worker, fs->batch.ops, fs->batch.n);
	if (ret) {
		struct fare_fib_flush_stats st = { 0 };

		/* Not sent: every prefix of it is queued again. */
		st.failed = fare_fib_untake(fs->fib, &fs->batch);
		if (st.failed)
			flushed(fs, &st);
		fared_log("fare: FIB worker: %s: programming on the event "
			  "loop's thread", strerror(-ret));
		fib_worker_close(&fs->worker);
		fs->worker_off = true;
		return false;
	}
	return true;
}

void fare_sync_idle(struct fared *d)
{
	struct fare_sync *fs = d->fare;

	if (fs && fs->first_tables && fs->tables_in)
		first_tables_in(fs, "End-of-RIB from every neighbor");

	/*
	 * During the start-up wait the prefixes programmed early go to the
	 * worker thread, one batch at a time, while the loop reads on;
	 * without it in idle time: with a table's next UPDATEs waiting,
	 * they wait.
	 */
	if (fs && fs->first_tables && (fare_fib_pending(fs->fib) ||
				       fs->worker.busy)) {
		if (!worker_flush(fs) && !loop_busy(&d->loop))
			flush(d, FARE_SYNC_IDLE_CHUNK);
		else
			adj_out_flush(d->out);
		return;
	}
	flush(d, SIZE_MAX);
}

/* Up to max queued prefixes to fare.ko, on the loop's thread. */
static void fib_flush(struct fare_sync *fs, size_t max)
{
	struct fare_fib_flush_stats st;

	/* The worker's batch goes first: ops for a prefix stay in order. */
	fib_worker_wait(&fs->worker);
	if (fare_fib_pending(fs->fib)) {
		fs->flush_refused = 0;
		fare_fib_flush_part(fs->fib, 0, max, NULL, NULL, &st);
		flushed(fs, &st);
		if (fare_fib_pending(fs->fib))
			timer_set(&fs->d->loop, &fs->idle, 0);
	}
}

static void flush(struct fared *d, size_t max)
{
	if (!d->fare)
		return;
	/* Forwarding first: a route is passed on once it is in place. */
	fib_flush(d->fare, max);
	adj_out_flush(d->out);
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
	fib_worker_close(&fs->worker);
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
		if (pfx_eq(&d->orf_want[i], x) ||
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
