// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl: configure and inspect fare.ko, in the manner of ip(8).
 *
 *	farectl [-j] [-p] [-n NETNS] OBJECT COMMAND [ARGS]
 *	farectl [-j] [-p] [-n NETNS] -batch FILE
 *
 * parse.c turns the command line into a request, this file carries it out
 * through libfare, and output.c prints the answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <arpa/inet.h>

#include "bgp.h"
#include "libfare.h"
#include "output.h"
#include "parse.h"
#include "pick.h"

struct ctx {
	struct fare *f;
	struct fc_request *req;
	struct fc_out out;
	struct fare_err err;
	char where[300];	/* "FILE:LINE: " in a batch, else "" */
};

static int runtime_error(const struct ctx *c)
{
	fprintf(stderr, "farectl: %s%s: %s\n", c->where, c->req->ctx,
		c->err.msg);
	return FC_EXIT_ERROR;
}

/* A change the kernel accepted may still carry a warning. */
static int done(const struct ctx *c)
{
	if (c->err.msg[0])
		fprintf(stderr, "farectl: %s%s: warning: %s\n", c->where,
			c->req->ctx, c->err.msg);
	return FC_EXIT_OK;
}

static const char *ifname_of(uint32_t ifindex, char *buf)
{
	return ifindex && if_indextoname(ifindex, buf) ? buf : NULL;
}

struct plane_list {
	struct fare_plane *v;
	size_t n, cap;
};

static int collect_plane(const struct fare_plane *p, void *arg)
{
	struct plane_list *l = arg;
	struct fare_plane *v;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
	}
	l->v[l->n++] = *p;
	return 0;
}

static int cmp_plane(const void *a, const void *b)
{
	const struct fare_plane *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * A plane that changes state while they are read (a device going up,
 * a gateway failing) interrupts the dump (NLM_F_DUMP_INTR, -EINTR): they
 * are read again rather than the user told to run farectl again.
 */
#define PLANE_DUMP_TRIES	5

static int get_planes(struct ctx *c, struct plane_list *l)
{
	int ret, tries = 0;

	do {
		l->n = 0;
		ret = fare_plane_dump(c->f, collect_plane, l, &c->err);
	} while (ret == -EINTR && ++tries < PLANE_DUMP_TRIES);
	if (!ret)
		qsort(l->v, l->n, sizeof(*l->v), cmp_plane);
	return ret;
}

/* Planes, with each one's share of all plane packets when with_share. */
static void print_planes(struct ctx *c, const struct plane_list *l,
			 bool with_share)
{
	char name[IF_NAMESIZE];
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		total += l->v[i].tx_packets;
	if (c->out.json)
		json_open_array(&c->out.j);
	for (i = 0; i < l->n; i++)
		fc_out_plane(&c->out, &l->v[i],
			     ifname_of(l->v[i].ifindex, name), with_share,
			     fc_share(l->v[i].tx_packets, total));
	if (c->out.json)
		json_close_array(&c->out.j);
}

static int plane_show(struct ctx *c)
{
	struct plane_list l = { 0 };
	struct fare_plane p;
	int ret;

	if (c->req->has_key) {
		ret = fare_plane_get(c->f, c->req->plane.id, &p, &c->err);
		if (ret)
			return runtime_error(c);
		l.v = &p;
		l.n = 1;
		print_planes(c, &l, false);
	} else {
		ret = get_planes(c, &l);
		if (!ret)
			print_planes(c, &l, false);
		free(l.v);
		if (ret)
			return runtime_error(c);
	}
	if (c->out.json)
		json_end(&c->out.j);
	return FC_EXIT_OK;
}

static int plane_cmd(struct ctx *c)
{
	struct fc_request *req = c->req;

	switch (req->verb) {
	case FC_VERB_ADD:
	case FC_VERB_REPLACE:
		req->plane.ifindex = if_nametoindex(req->ifname);
		if (!req->plane.ifindex) {
			fprintf(stderr, "farectl: %s%s: device \"%s\" does not exist\n",
				c->where, req->ctx, req->ifname);
			return FC_EXIT_ERROR;
		}
		if (fare_plane_add(c->f, &req->plane,
				   req->verb == FC_VERB_REPLACE, &c->err))
			return runtime_error(c);
		return done(c);
	case FC_VERB_DEL:
		if (fare_plane_del(c->f, req->plane.id, &c->err))
			return runtime_error(c);
		return done(c);
	case FC_VERB_SYNC:
		if (fare_plane_sync(c->f, &c->err))
			return runtime_error(c);
		return done(c);
	default:
		return plane_show(c);
	}
}

static int print_route(const struct fare_route *r, void *arg)
{
	struct ctx *c = arg;

	fc_out_route(&c->out, r);
	return 0;
}

/* Every route (or the one asked for), as a JSON array with -j. */
static int print_routes(struct ctx *c, bool one)
{
	struct fare_route *r;
	int ret;

	if (c->out.json)
		json_open_array(&c->out.j);
	if (one) {
		r = malloc(sizeof(*r));
		if (!r) {
			ret = fare_err_set(&c->err, -ENOMEM, "%s",
					   strerror(ENOMEM));
		} else {
			ret = fare_route_get(c->f, &c->req->route.dst, r,
					     &c->err);
			if (!ret)
				print_route(r, c);
			free(r);
		}
	} else {
		ret = fare_route_dump(c->f, print_route, c, &c->err);
	}
	/* Close what was printed so that the JSON stays well formed. */
	if (c->out.json)
		json_close_array(&c->out.j);
	return ret;
}

/* route pick: the longest fare route that holds the address. */
struct pick_lpm {
	const struct fare_prefix *addr;
	struct fare_route *best;
	bool found;
};

static int pick_lpm_cb(const struct fare_route *r, void *arg)
{
	struct pick_lpm *l = arg;

	if (!fc_prefix_holds(&r->dst, l->addr) ||
	    (l->found && r->dst.plen <= l->best->dst.plen))
		return 0;
	*l->best = *r;
	l->found = true;
	return 0;
}

/* ... and the longest unreachable route (UPA) that holds it. */
struct pick_unreach {
	const struct fare_prefix *addr;
	struct fare_prefix best;
	bool found;
};

static int pick_unreach_cb(const struct fare_prefix *dst, void *arg)
{
	struct pick_unreach *u = arg;

	if (!fc_prefix_holds(dst, u->addr) ||
	    (u->found && dst->plen <= u->best.plen))
		return 0;
	u->best = *dst;
	u->found = true;
	return 0;
}

/* One next hop of the route, with what an application binds to. */
struct pick_row {
	struct fc_pick_plane p;
	uint8_t tier;
	enum fc_pick_why why;
	char dev[IF_NAMESIZE];
	struct fare_lookup lk;	/* the lookup bound to dev */
	bool has_dev_addr;
	union fare_addr dev_addr;	/* for RDMA CM: fc_dev_addr() */
	bool has_rdma;
	struct fc_rdma rdma;
};

static void pick_print_text(struct ctx *c, const char *pfx,
			    struct pick_row *rows, unsigned int n_rows,
			    const unsigned int *order)
{
	const struct fare_prefix *dst = &c->req->route.dst;
	char a[INET6_ADDRSTRLEN];
	unsigned int i, k;

	inet_ntop(dst->family, &dst->addr, a, sizeof(a));
	printf("%s via route %s: %u connections\n", a, pfx, c->req->pick_n);
	for (i = 0; i < n_rows; i++) {
		struct pick_row *w = &rows[i];

		if (w->why != FC_PICK_USED)
			continue;
		printf("plane %u dev %s weight %u: %u", w->p.plane_id,
		       w->dev, w->p.weight, w->p.count);
		if (w->lk.has_src &&
		    inet_ntop(dst->family, &w->lk.src, a, sizeof(a)))
			printf(" src %s", a);
		if (w->has_dev_addr &&
		    inet_ntop(dst->family, &w->dev_addr, a, sizeof(a)))
			printf(" dev-addr %s", a);
		if (w->has_rdma) {
			printf(" rdma %s port %u", w->rdma.dev, w->rdma.port);
			if (w->rdma.gid_index >= 0)
				printf(" gid %d%s", w->rdma.gid_index,
				       w->rdma.roce_v2 ? " (RoCE v2)" : "");
		}
		printf("\n");
	}
	for (i = 0; i < n_rows; i++)
		if (rows[i].why != FC_PICK_USED)
			printf("plane %u dev %s left out: %s\n",
			       rows[i].p.plane_id,
			       rows[i].dev[0] ? rows[i].dev : "-",
			       fc_pick_why_name(rows[i].why));
	for (k = 0; k < c->req->pick_n; k++)
		printf("connection %u plane %u dev %s\n", k,
		       rows[order[k]].p.plane_id, rows[order[k]].dev);
}

static void pick_print_json(struct ctx *c, const char *pfx,
			    struct pick_row *rows, unsigned int n_rows,
			    const unsigned int *order)
{
	const struct fare_prefix *dst = &c->req->route.dst;
	char a[INET6_ADDRSTRLEN];
	struct json *j = &c->out.j;
	unsigned int i, k;

	json_open_object(j);
	inet_ntop(dst->family, &dst->addr, a, sizeof(a));
	json_kv_string(j, "dst", a);
	json_kv_string(j, "route", pfx);
	json_kv_u64(j, "connections", c->req->pick_n);
	json_key(j, "planes");
	json_open_array(j);
	for (i = 0; i < n_rows; i++) {
		struct pick_row *w = &rows[i];

		if (w->why != FC_PICK_USED)
			continue;
		json_open_object(j);
		json_kv_u64(j, "plane", w->p.plane_id);
		json_kv_string(j, "dev", w->dev);
		json_kv_u64(j, "weight", w->p.weight);
		json_kv_u64(j, "count", w->p.count);
		if (w->lk.has_src && inet_ntop(dst->family, &w->lk.src, a,
					       sizeof(a)))
			json_kv_string(j, "src", a);
		else
			json_kv_null(j, "src");
		if (w->has_dev_addr && inet_ntop(dst->family, &w->dev_addr,
						 a, sizeof(a)))
			json_kv_string(j, "dev_addr", a);
		else
			json_kv_null(j, "dev_addr");
		if (w->has_rdma) {
			json_key(j, "rdma");
			json_open_object(j);
			json_kv_string(j, "dev", w->rdma.dev);
			json_kv_u64(j, "port", w->rdma.port);
			if (w->rdma.gid_index >= 0)
				json_kv_u64(j, "gid_index", w->rdma.gid_index);
			else
				json_kv_null(j, "gid_index");
			json_kv_bool(j, "roce_v2", w->rdma.roce_v2);
			json_close_object(j);
		} else {
			json_kv_null(j, "rdma");
		}
		json_close_object(j);
	}
	json_close_array(j);
	json_key(j, "left_out");
	json_open_array(j);
	for (i = 0; i < n_rows; i++) {
		if (rows[i].why == FC_PICK_USED)
			continue;
		json_open_object(j);
		json_kv_u64(j, "plane", rows[i].p.plane_id);
		if (rows[i].dev[0])
			json_kv_string(j, "dev", rows[i].dev);
		else
			json_kv_null(j, "dev");
		json_kv_string(j, "reason", fc_pick_why_name(rows[i].why));
		json_close_object(j);
	}
	json_close_array(j);
	json_key(j, "placement");
	json_open_array(j);
	for (k = 0; k < c->req->pick_n; k++)
		json_u64(j, rows[order[k]].p.plane_id);
	json_close_array(j);
	json_close_object(j);
	json_end(j);
}

/* The device, source and RDMA port a connection on row w binds to. */
static void pick_fill(struct ctx *c, struct pick_row *w,
		      const struct fare_plane *plane, const char *sysfs)
{
	const struct fare_prefix *dst = &c->req->route.dst;
	struct fare_err err = { 0 };

	/* What a socket or QP bound to the device gets as source. */
	if (fare_route_lookup(c->f, dst->family, &dst->addr, plane->ifindex,
			      &w->lk, &err))
		memset(&w->lk, 0, sizeof(w->lk));
	w->has_dev_addr = !fc_dev_addr(w->dev, dst->family, &w->dev_addr);
	w->has_rdma = !fc_rdma_find(sysfs, w->dev, dst->family,
				    w->lk.has_src ? &w->lk.src : &dst->addr,
				    &w->rdma);
	if (w->has_rdma && !w->lk.has_src)
		w->rdma.gid_index = -1;
}

/*
 * route pick ADDR N: the planes of ADDR's route that can carry it now
 * (fc_pick_usable) in its lowest tier that has one, and N connections
 * placed over them by weight. An unreachable route (UPA) longer than the
 * fare route wins, as it does in the kernel's lookup.
 */
static int route_pick(struct ctx *c)
{
	const struct fare_prefix *dst = &c->req->route.dst;
	struct pick_lpm l = { .addr = dst };
	struct pick_unreach u = { .addr = dst };
	struct fc_pick_plane p[FARE_NEXTHOP_MAX];
	enum fc_pick_why why[FARE_NEXTHOP_MAX];
	uint8_t tier[FARE_NEXTHOP_MAX];
	char pfx[FARE_PREFIX_STRLEN];
	struct pick_row *rows = NULL;
	struct fare_plane plane;
	unsigned int *order = NULL, i, np = 0;
	int ret = FC_EXIT_ERROR;
	const char *sysfs = getenv("FARECTL_SYSFS");

	l.best = malloc(sizeof(*l.best));
	rows = calloc(FARE_NEXTHOP_MAX, sizeof(*rows));
	order = calloc(c->req->pick_n, sizeof(*order));
	if (!l.best || !rows || !order) {
		fare_err_set(&c->err, -ENOMEM, "%s", strerror(ENOMEM));
		goto err;
	}
	if (fare_route_dump(c->f, pick_lpm_cb, &l, &c->err) ||
	    fare_route_unreachable_dump(c->f, pick_unreach_cb, &u, &c->err))
		goto err;
	if (u.found && (!l.found || u.best.plen > l.best->dst.plen)) {
		fare_prefix_format(&u.best, pfx, sizeof(pfx));
		fare_err_set(&c->err, -EHOSTUNREACH,
			     "unreachable (UPA): every plane reported %s lost, and the kernel's route to it is unreachable",
			     pfx);
		goto err;
	}
	if (!l.found) {
		fare_err_set(&c->err, -ENOENT, "no fare route holds this address");
		goto err;
	}
	for (i = 0; i < l.best->n_nexthops; i++) {
		const struct fare_nexthop *nh = &l.best->nexthops[i];
		struct pick_row *w = &rows[i];

		if (fare_plane_get(c->f, nh->plane_id, &plane, &c->err))
			goto err;
		w->p.plane_id = nh->plane_id;
		w->p.weight = nh->weight;
		w->tier = nh->tier;
		w->why = fc_pick_usable(nh->weight, &plane, dst->family);
		/* A device that went away since: nothing to bind to. */
		if (!if_indextoname(plane.ifindex, w->dev)) {
			w->dev[0] = '\0';
			if (w->why == FC_PICK_USED)
				w->why = FC_PICK_DOWN;
		}
		if (w->why == FC_PICK_USED)
			pick_fill(c, w, &plane, sysfs ? sysfs : "/sys");
		tier[i] = w->tier;
		why[i] = w->why;
	}
	if (!fc_pick_tier(why, tier, l.best->n_nexthops)) {
		fare_err_set(&c->err, -ENETUNREACH,
			     "no plane of the route can carry it now (farectl plane show says why)");
		goto err;
	}
	for (i = 0; i < l.best->n_nexthops; i++) {
		rows[i].why = why[i];
		p[i] = rows[i].p;
		/* Only the used planes share the connections. */
		if (why[i] != FC_PICK_USED)
			p[i].weight = 0;
	}
	np = l.best->n_nexthops;
	if (fc_pick_counts(p, np, c->req->pick_n)) {
		fare_err_set(&c->err, -EINVAL, "cannot place %u connections",
			     c->req->pick_n);
		goto err;
	}
	fc_pick_order(p, np, c->req->pick_n, order);
	for (i = 0; i < np; i++)
		rows[i].p.count = p[i].count;
	fare_prefix_format(&l.best->dst, pfx, sizeof(pfx));
	if (c->out.json)
		pick_print_json(c, pfx, rows, np, order);
	else
		pick_print_text(c, pfx, rows, np, order);
	ret = FC_EXIT_OK;
	goto out;
err:
	ret = runtime_error(c);
out:
	free(l.best);
	free(rows);
	free(order);
	return ret;
}

static int route_cmd(struct ctx *c)
{
	struct fc_request *req = c->req;

	switch (req->verb) {
	case FC_VERB_ADD:
	case FC_VERB_REPLACE:
		if (fare_route_add(c->f, &req->route,
				   req->verb == FC_VERB_REPLACE, &c->err))
			return runtime_error(c);
		return done(c);
	case FC_VERB_DEL:
		if (fare_route_del(c->f, &req->route.dst, &c->err))
			return runtime_error(c);
		return done(c);
	case FC_VERB_FLUSH:
		if (fare_route_flush(c->f, NULL, &c->err))
			return runtime_error(c);
		return done(c);
	case FC_VERB_PICK:
		return route_pick(c);
	default:
		if (print_routes(c, req->has_key)) {
			if (c->out.json)
				json_end(&c->out.j);
			fflush(stdout);
			return runtime_error(c);
		}
		if (c->out.json)
			json_end(&c->out.j);
		return FC_EXIT_OK;
	}
}

static int print_group(const struct fare_group *g, void *arg)
{
	struct ctx *c = arg;

	fc_out_group(&c->out, g);
	return 0;
}

static int group_show(struct ctx *c)
{
	struct fare_group *g;
	int ret;

	if (c->out.json)
		json_open_array(&c->out.j);
	if (c->req->has_key) {
		g = malloc(sizeof(*g));
		if (!g) {
			ret = fare_err_set(&c->err, -ENOMEM, "%s",
					   strerror(ENOMEM));
		} else {
			ret = fare_group_get(c->f, c->req->group.id, g,
					     &c->err);
			if (!ret)
				print_group(g, c);
			free(g);
		}
	} else {
		ret = fare_group_dump(c->f, print_group, c, &c->err);
	}
	if (c->out.json) {
		json_close_array(&c->out.j);
		json_end(&c->out.j);
	}
	if (ret) {
		fflush(stdout);
		return runtime_error(c);
	}
	return FC_EXIT_OK;
}

static int group_cmd(struct ctx *c)
{
	struct fc_request *req = c->req;

	switch (req->verb) {
	case FC_VERB_ADD:
	case FC_VERB_REPLACE:
		if (fare_group_add(c->f, &req->group,
				   req->verb == FC_VERB_REPLACE, &c->err))
			return runtime_error(c);
		return done(c);
	case FC_VERB_DEL:
		if (fare_group_del(c->f, req->group.id, &c->err))
			return runtime_error(c);
		return done(c);
	default:
		return group_show(c);
	}
}

static int config_cmd(struct ctx *c)
{
	char name[IF_NAMESIZE];
	struct fare_config cfg;

	if (c->req->verb == FC_VERB_SET) {
		if (fare_config_set(c->f, &c->req->config, &c->err))
			return runtime_error(c);
		return done(c);
	}
	if (fare_config_get(c->f, &cfg, &c->err))
		return runtime_error(c);
	fc_out_config(&c->out, &cfg, ifname_of(cfg.ifindex, name));
	return FC_EXIT_OK;
}

static int stats_cmd(struct ctx *c)
{
	struct plane_list l = { 0 };
	struct fare_stats s;
	int ret;

	if (fare_stats_get(c->f, &s, &c->err))
		return runtime_error(c);
	ret = get_planes(c, &l);
	if (ret) {
		free(l.v);
		return runtime_error(c);
	}
	if (c->out.json) {
		json_open_object(&c->out.j);
		json_key(&c->out.j, "drops");
	}
	fc_out_drops(&c->out, &s);
	if (c->out.json)
		json_key(&c->out.j, "tiers");
	fc_out_tiers(&c->out, &s);
	if (c->out.json)
		json_key(&c->out.j, "planes");
	print_planes(c, &l, true);
	free(l.v);
	if (c->out.json)
		json_key(&c->out.j, "routes");
	ret = print_routes(c, false);
	if (c->out.json) {
		json_close_object(&c->out.j);
		json_end(&c->out.j);
	}
	if (ret) {
		fflush(stdout);
		return runtime_error(c);
	}
	return FC_EXIT_OK;
}

struct monitor {
	struct ctx *c;
	unsigned int what;	/* FC_MON_* */
};

static int print_event(const struct fare_event *ev, void *arg)
{
	struct monitor *m = arg;
	char name[IF_NAMESIZE], dev[IF_NAMESIZE];
	const char *ifname = NULL;
	unsigned int kind;

	switch (ev->type) {
	case FARE_EVENT_LOST:
		fprintf(stderr, "farectl: monitor: events were lost (receive buffer overrun)\n");
		return 0;
	case FARE_EVENT_PLANE_NEW:
	case FARE_EVENT_PLANE_DEL:
		kind = FC_MON_PLANE;
		ifname = ifname_of(ev->plane.ifindex, name);
		break;
	case FARE_EVENT_CONFIG:
		kind = FC_MON_CONFIG;
		ifname = ifname_of(ev->config.ifindex, name);
		break;
	case FARE_EVENT_GROUP_NEW:
	case FARE_EVENT_GROUP_DEL:
		kind = FC_MON_GROUP;
		break;
	default:
		kind = FC_MON_ROUTE;
		break;
	}
	if (!(m->what & kind))
		return 0;
	fc_out_event(&m->c->out, ev, ifname, ifname_of(ev->ifindex, dev));
	/* Each event as it happens, also into a pipe. */
	if (fflush(stdout) || ferror(stdout))
		return fare_err_set(&m->c->err, -EIO,
				    "writing the output: %s", strerror(errno));
	return 0;
}

static int monitor_cmd(struct ctx *c)
{
	struct monitor m = { .c = c, .what = c->req->monitor };

	if (fare_monitor(c->f, print_event, &m, NULL, &c->err))
		return runtime_error(c);
	return FC_EXIT_OK;
}

static int run_one(struct ctx *c)
{
	switch (c->req->obj) {
	case FC_OBJ_PLANE:
		return plane_cmd(c);
	case FC_OBJ_ROUTE:
		return route_cmd(c);
	case FC_OBJ_CONFIG:
		return config_cmd(c);
	case FC_OBJ_GROUP:
		return group_cmd(c);
	case FC_OBJ_MONITOR:
		return monitor_cmd(c);
	default:
		return stats_cmd(c);
	}
}

/*
 * -batch: route changes are gathered into windows of BATCH_WINDOW and
 * applied in bulk; any other line first applies the window, then runs.
 */
#define BATCH_WINDOW	2048
#define BATCH_WORDS	512

struct batch {
	const char *name;	/* for messages: the file, or "<stdin>" */
	struct fare_op *ops;
	size_t *lines;
	size_t n;
};

static const char *op_ctx(enum fare_op_type t)
{
	return t == FARE_OP_ROUTE_ADD ? "route add" :
	       t == FARE_OP_ROUTE_REPLACE ? "route replace" : "route del";
}

static int batch_apply(struct ctx *c, struct batch *b)
{
	size_t failed;

	if (!b->n)
		return FC_EXIT_OK;
	if (fare_routes_apply(c->f, b->ops, b->n, &failed, &c->err)) {
		if (failed >= b->n)
			failed = b->n - 1;
		fprintf(stderr, "farectl: %s:%zu: %s: %s\n", b->name,
			b->lines[failed], op_ctx(b->ops[failed].type),
			c->err.msg);
		return FC_EXIT_ERROR;
	}
	b->n = 0;
	return FC_EXIT_OK;
}

static bool batchable(const struct fc_request *req)
{
	return req->obj == FC_OBJ_ROUTE &&
	       (req->verb == FC_VERB_ADD || req->verb == FC_VERB_REPLACE ||
		req->verb == FC_VERB_DEL);
}

/* One line: 0 to go on, else the exit status. */
static int batch_line(struct ctx *c, struct batch *b, char *line,
		      size_t lineno)
{
	struct fc_request *req = c->req;
	char *words[BATCH_WORDS];
	char err[512];
	int argc, ret;

	argc = fc_split_line(line, words, BATCH_WORDS, err, sizeof(err));
	if (!argc)
		return FC_EXIT_OK;
	if (argc > 0 && fc_parse_command(argc, words, req, err, sizeof(err)))
		argc = -1;
	if (argc > 0 && req->obj == FC_OBJ_MONITOR) {
		snprintf(err, sizeof(err), "monitor cannot run in a batch");
		argc = -1;
	}
	if (argc < 0) {
		/* The lines before this one take effect first. */
		ret = batch_apply(c, b);
		if (!ret)
			fprintf(stderr, "farectl: %s:%zu: %s\n", b->name, lineno,
				err);
		return FC_EXIT_ERROR;
	}
	if (batchable(req)) {
		b->ops[b->n].type = req->verb == FC_VERB_ADD ?
				    FARE_OP_ROUTE_ADD :
				    req->verb == FC_VERB_REPLACE ?
				    FARE_OP_ROUTE_REPLACE : FARE_OP_ROUTE_DEL;
		b->ops[b->n].route = req->route;
		b->lines[b->n++] = lineno;
		return b->n == BATCH_WINDOW ? batch_apply(c, b) : FC_EXIT_OK;
	}
	ret = batch_apply(c, b);
	if (ret)
		return ret;
	if (req->verb == FC_VERB_HELP) {
		fc_help(stdout, req->obj);
		return FC_EXIT_OK;
	}
	snprintf(c->where, sizeof(c->where), "%s:%zu: ", b->name, lineno);
	ret = run_one(c);
	c->where[0] = '\0';
	return ret;
}

static int run_batch(struct ctx *c)
{
	const char *path = c->req->batch;
	struct batch b = { .name = path };
	size_t cap = 0, lineno = 0;
	char *line = NULL;
	int ret = FC_EXIT_OK;
	FILE *in = stdin;

	if (strcmp(path, "-")) {
		in = fopen(path, "r");
		if (!in) {
			fprintf(stderr, "farectl: cannot open batch file \"%s\": %s\n",
				path, strerror(errno));
			return FC_EXIT_ERROR;
		}
	} else {
		b.name = "<stdin>";
	}
	b.ops = malloc(BATCH_WINDOW * sizeof(*b.ops));
	b.lines = malloc(BATCH_WINDOW * sizeof(*b.lines));
	if (!b.ops || !b.lines) {
		fprintf(stderr, "farectl: %s\n", strerror(ENOMEM));
		ret = FC_EXIT_ERROR;
		goto out;
	}
	while (!ret && getline(&line, &cap, in) >= 0)
		ret = batch_line(c, &b, line, ++lineno);
	if (!ret && ferror(in)) {
		fprintf(stderr, "farectl: reading %s: %s\n", b.name,
			strerror(errno));
		ret = FC_EXIT_ERROR;
	}
	if (!ret)
		ret = batch_apply(c, &b);
out:
	free(line);
	free(b.ops);
	free(b.lines);
	if (in != stdin)
		fclose(in);
	return ret;
}

static int run(struct fc_request *req)
{
	struct ctx c = { .req = req };
	int ret;

	if (req->netns && fare_netns_enter(req->netns, &c.err)) {
		fprintf(stderr, "farectl: %s\n", c.err.msg);
		return FC_EXIT_ERROR;
	}
	if (fare_open(&c.f, &c.err)) {
		fprintf(stderr, "farectl: %s\n", c.err.msg);
		return FC_EXIT_ERROR;
	}
	if (fare_set_dev(c.f, req->dev, &c.err)) {
		fprintf(stderr, "farectl: %s\n", c.err.msg);
		fare_close(c.f);
		return FC_EXIT_ERROR;
	}
	fc_out_init(&c.out, stdout, req->json, req->pretty);
	ret = req->batch ? run_batch(&c) : run_one(&c);
	fare_close(c.f);
	return ret;
}

int main(int argc, char **argv)
{
	struct fc_request *req;
	char err[512];
	int ret;

	if (argc < 2) {
		fc_help(stderr, FC_OBJ_NONE);
		return FC_EXIT_USAGE;
	}
	/* "bgp" talks to fared, not to fare.ko: see bgp.c. */
	for (int i = 1; i < argc && argv[i][0] == '-'; i++)
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "-json"))
			if (i + 1 < argc && !strcmp(argv[i + 1], "bgp"))
				return fc_bgp(argc - i - 2, argv + i + 2,
					      true);
	if (!strcmp(argv[1], "bgp"))
		return fc_bgp(argc - 2, argv + 2, false);
	/* A request holds a whole route: keep it off the stack. */
	req = malloc(sizeof(*req));
	if (!req) {
		fprintf(stderr, "farectl: %s\n", strerror(ENOMEM));
		return FC_EXIT_ERROR;
	}
	ret = fc_parse(argc, argv, req, err, sizeof(err));
	if (ret)
		fprintf(stderr, "farectl: %s\n", err);
	else if (!req->batch && req->verb == FC_VERB_HELP)
		fc_help(stdout, req->obj);
	else
		ret = run(req);
	free(req);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "farectl: writing the output: %s\n",
			strerror(errno));
		return FC_EXIT_ERROR;
	}
	return ret;
}
