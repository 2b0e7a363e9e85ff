// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl: configure and inspect fare.ko, in the manner of ip(8).
 *
 *	farectl [-j] [-p] [-n NETNS] OBJECT COMMAND [ARGS]
 *
 * parse.c turns the command line into a request, this file carries it out
 * through libfare, and output.c prints the answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "libfare.h"
#include "output.h"
#include "parse.h"

struct ctx {
	struct fare *f;
	struct fc_request *req;
	struct fc_out out;
	struct fare_err err;
};

static int runtime_error(const struct ctx *c)
{
	fprintf(stderr, "farectl: %s: %s\n", c->req->ctx, c->err.msg);
	return FC_EXIT_ERROR;
}

/* A change the kernel accepted may still carry a warning. */
static int done(const struct ctx *c)
{
	if (c->err.msg[0])
		fprintf(stderr, "farectl: %s: warning: %s\n", c->req->ctx,
			c->err.msg);
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

static int get_planes(struct ctx *c, struct plane_list *l)
{
	int ret;

	ret = fare_plane_dump(c->f, collect_plane, l, &c->err);
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
			fprintf(stderr, "farectl: %s: device \"%s\" does not exist\n",
				req->ctx, req->ifname);
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
	fc_out_init(&c.out, stdout, req->json, req->pretty);

	switch (req->obj) {
	case FC_OBJ_PLANE:
		ret = plane_cmd(&c);
		break;
	case FC_OBJ_ROUTE:
		ret = route_cmd(&c);
		break;
	case FC_OBJ_CONFIG:
		ret = config_cmd(&c);
		break;
	default:
		ret = stats_cmd(&c);
		break;
	}
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
	/* A request holds a whole route: keep it off the stack. */
	req = malloc(sizeof(*req));
	if (!req) {
		fprintf(stderr, "farectl: %s\n", strerror(ENOMEM));
		return FC_EXIT_ERROR;
	}
	ret = fc_parse(argc, argv, req, err, sizeof(err));
	if (ret)
		fprintf(stderr, "farectl: %s\n", err);
	else if (req->verb == FC_VERB_HELP)
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
