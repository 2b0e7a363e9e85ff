// SPDX-License-Identifier: GPL-2.0-only
/*
 * libfare: the sockets, the request/reply exchange with fare.ko and the
 * public calls. Message layout lives in msg.c, the kernel FIB route in
 * rtnl.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fare_int.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int fare_err_set(struct fare_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

void fare_err_clear(struct fare_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

static int err_errno(struct fare_err *err, int code)
{
	return fare_err_set(err, code, "%s", strerror(-code));
}

void fare_exchange_init(struct fare_exchange *x, const struct nlmsghdr *req,
			uint32_t portid, fare_msg_cb cb, void *arg,
			struct fare_err *err)
{
	memset(x, 0, sizeof(*x));
	x->seq = req->nlmsg_seq;
	x->portid = portid;
	/*
	 * NLM_F_DUMP is two bits that NEW requests reuse (NLM_F_REPLACE is
	 * NLM_F_ROOT): like genetlink, call it a dump only with both.
	 */
	x->dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	x->cb = cb;
	x->arg = arg;
	x->err = err;
}

static bool finish(struct fare_exchange *x, int ret)
{
	x->finished = true;
	if (ret)
		x->ret = ret;
	else if (x->cb_ret)
		x->ret = x->cb_ret;
	else if (x->interrupted)
		x->ret = fare_err_set(x->err, -EINTR,
				      "the dump was interrupted by a change and may be inconsistent; try again");
	else
		x->ret = 0;
	return true;
}

bool fare_exchange_feed(struct fare_exchange *x, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int left = len;
	int ret;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		/* Leftovers of an earlier exchange are not ours. */
		if (nlh->nlmsg_seq != x->seq ||
		    !mnl_nlmsg_portid_ok(nlh, x->portid))
			continue;
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			x->interrupted = true;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			continue;
		case NLMSG_OVERRUN:
			return finish(x, fare_err_set(x->err, -ENOBUFS,
						      "netlink overrun"));
		case NLMSG_ERROR:
			ret = fare_msg_parse_error(nlh, x->err);
			/* An ack ends a request, not a dump. */
			if (ret || !x->dump)
				return finish(x, ret);
			continue;
		case NLMSG_DONE:
			if (!x->dump)
				continue;
			return finish(x, fare_msg_parse_done(nlh, x->err));
		default:
			/*
			 * After a callback error, read on to the end so that
			 * the socket is clean for the next request.
			 */
			if (!x->cb || x->cb_ret)
				continue;
			x->cb_ret = x->cb(nlh, x->arg);
			if (x->cb_ret && (!x->err || !x->err->code))
				err_errno(x->err, x->cb_ret);
			continue;
		}
	}
	if (left > 0)
		return finish(x, fare_err_set(x->err, -EPROTO,
					      "truncated netlink message"));
	return false;
}

int fare_talk(struct fare *f, struct mnl_socket *nl, struct nlmsghdr *req,
	      fare_msg_cb cb, void *arg, struct fare_err *err)
{
	struct fare_exchange x;
	ssize_t n;

	fare_exchange_init(&x, req, mnl_socket_get_portid(nl), cb, arg, err);
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return err_errno(err, -errno);
	do {
		n = mnl_socket_recvfrom(nl, f->rx, sizeof(f->rx));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_errno(err, -errno);
		}
	} while (n < 0 || !fare_exchange_feed(&x, f->rx, n));
	return x.ret;
}

/*
 * A big receive buffer, so that pipelined acks and event bursts queue up
 * instead of being dropped: forced past rmem_max when we may (as root),
 * else as much as rmem_max allows. Returns what the kernel gave.
 */
static size_t grow_rcvbuf(int fd)
{
	int size = FARE_RCVBUF;
	socklen_t len = sizeof(size);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &len) || size <= 0)
		return 0;
	return size;
}

int fare_socket_open(int bus, struct mnl_socket **nlp, size_t *rcvbuf,
		     struct fare_err *err)
{
	struct mnl_socket *nl;
	int one = 1;
	int ret;

	nl = mnl_socket_open(bus);
	if (!nl)
		return err_errno(err, -errno);
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		mnl_socket_close(nl);
		return err_errno(err, ret);
	}
	/* Both are optional: old kernels just give less detail. */
	setsockopt(mnl_socket_get_fd(nl), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(nl), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	if (rcvbuf)
		*rcvbuf = grow_rcvbuf(mnl_socket_get_fd(nl));
	*nlp = nl;
	return 0;
}

struct family_reply {
	struct fare *f;
	bool seen;
};

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct family_reply *r = arg;
	struct fare *f = r->f;
	int ret;

	ret = fare_msg_parse_family(nlh, &f->family_id, &f->family_version,
				    &f->events_group, NULL);
	if (!ret)
		r->seen = true;
	return ret;
}

static int resolve_family(struct fare *f, struct fare_err *err)
{
	struct family_reply r = { .f = f };
	struct nlmsghdr *nlh;
	int ret;

	nlh = fare_msg_getfamily(f->tx, fare_next_seq(f));
	ret = fare_talk(f, f->genl, nlh, family_cb, &r, err);
	if (ret == -ENOENT)
		return fare_err_set(err, ret,
				    "the fare module is not loaded (generic netlink family \"%s\" not found)",
				    FARE_GENL_NAME);
	if (ret)
		return ret;
	if (!r.seen)
		return fare_err_set(err, -EPROTO,
				    "the genetlink controller did not describe family \"%s\"",
				    FARE_GENL_NAME);
	return 0;
}

int fare_open(struct fare **fp, struct fare_err *err)
{
	size_t gbuf = 0, rbuf = 0;
	struct fare *f;
	int ret;

	fare_err_clear(err);
	*fp = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return err_errno(err, -ENOMEM);
	ret = fare_socket_open(NETLINK_GENERIC, &f->genl, &gbuf, err);
	if (!ret)
		ret = fare_socket_open(NETLINK_ROUTE, &f->rtnl, &rbuf, err);
	/*
	 * The kernel reports twice what it accounts against (its overhead);
	 * keep half of that again in reserve.
	 */
	f->ack_budget = (gbuf < rbuf ? gbuf : rbuf) / 2;
	if (f->ack_budget < 16 * FARE_REPLY_COST)
		f->ack_budget = 16 * FARE_REPLY_COST;
	if (!ret)
		ret = resolve_family(f, err);
	if (ret) {
		fare_close(f);
		return ret;
	}
	*fp = f;
	return 0;
}

void fare_close(struct fare *f)
{
	if (!f)
		return;
	if (f->genl)
		mnl_socket_close(f->genl);
	if (f->rtnl)
		mnl_socket_close(f->rtnl);
	free(f);
}

uint32_t fare_events_group(const struct fare *f)
{
	return f->events_group;
}

int fare_set_dev(struct fare *f, const char *name, struct fare_err *err)
{
	fare_err_clear(err);
	if (!name)
		name = "";
	if (strlen(name) >= sizeof(f->dev))
		return fare_err_set(err, -EINVAL,
				    "device name \"%s\" is longer than %zu bytes",
				    name, sizeof(f->dev) - 1);
	strcpy(f->dev, name);
	return 0;
}

static struct nlmsghdr *start(struct fare *f, uint8_t cmd, uint16_t flags)
{
	return fare_req_start(f, f->tx, cmd, flags, fare_next_seq(f));
}

/* A change: the kernel answers with an ack or an error. */
static int change(struct fare *f, struct nlmsghdr *nlh, struct fare_err *err)
{
	return fare_talk(f, f->genl, nlh, NULL, NULL, err);
}

int fare_plane_add(struct fare *f, const struct fare_plane *plane,
		   bool replace, struct fare_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_PLANE_NEW, NLM_F_ACK);
	ret = fare_msg_put_plane(nlh, sizeof(f->tx), plane, err);
	if (ret)
		return ret;
	if (replace)
		mnl_attr_put(nlh, FARE_A_REPLACE, 0, NULL);
	return change(f, nlh, err);
}

int fare_plane_del(struct fare *f, uint32_t id, struct fare_err *err)
{
	struct nlmsghdr *nlh;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_PLANE_DEL, NLM_F_ACK);
	mnl_attr_put_u32(nlh, FARE_A_PLANE_ID, id);
	return change(f, nlh, err);
}

struct one_reply {
	void *out;
	struct fare_err *err;
	bool seen;
};

static int one_plane_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct one_reply *r = arg;
	int ret;

	if (r->seen)
		return 0;
	ret = fare_msg_parse_plane(nlh, r->out, r->err);
	r->seen = !ret;
	return ret;
}

static int no_reply(struct fare_err *err)
{
	return fare_err_set(err, -EPROTO, "fare.ko acknowledged without a reply");
}

int fare_plane_get(struct fare *f, uint32_t id, struct fare_plane *out,
		   struct fare_err *err)
{
	struct one_reply r = { .out = out, .err = err };
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_PLANE_GET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, FARE_A_PLANE_ID, id);
	ret = fare_talk(f, f->genl, nlh, one_plane_cb, &r, err);
	if (!ret && !r.seen)
		ret = no_reply(err);
	return ret;
}

struct plane_dump {
	fare_plane_cb cb;
	void *arg;
	struct fare_err *err;
};

static int plane_dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct plane_dump *d = arg;
	struct fare_plane plane;
	int ret;

	ret = fare_msg_parse_plane(nlh, &plane, d->err);
	if (ret)
		return ret;
	return d->cb(&plane, d->arg);
}

int fare_plane_dump(struct fare *f, fare_plane_cb cb, void *arg,
		    struct fare_err *err)
{
	struct plane_dump d = { .cb = cb, .arg = arg, .err = err };
	struct nlmsghdr *nlh;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_PLANE_GET, NLM_F_DUMP);
	return fare_talk(f, f->genl, nlh, plane_dump_cb, &d, err);
}

static int route_new(struct fare *f, const struct fare_route *route,
		     bool replace, struct fare_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	nlh = start(f, FARE_CMD_ROUTE_NEW, NLM_F_ACK);
	ret = fare_msg_put_route(nlh, sizeof(f->tx), route, err);
	if (ret)
		return ret;
	if (replace)
		mnl_attr_put(nlh, FARE_A_REPLACE, 0, NULL);
	return change(f, nlh, err);
}

static int route_del(struct fare *f, const struct fare_prefix *dst,
		     struct fare_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	nlh = start(f, FARE_CMD_ROUTE_DEL, NLM_F_ACK);
	ret = fare_msg_put_prefix(nlh, sizeof(f->tx), dst, err);
	if (ret)
		return ret;
	return change(f, nlh, err);
}

/* fare0's ifindex, or a clear error when the device does not exist yet. */
static int fare_ifindex(struct fare *f, uint32_t *ifindex,
			struct fare_err *err)
{
	struct fare_config cfg;
	int ret;

	ret = fare_config_get(f, &cfg, err);
	if (ret)
		return ret;
	if (!cfg.ifindex)
		return fare_err_set(err, -ENODEV,
				    "no %s device in this namespace (add a plane first)",
				    FARE_DEV_NAME);
	*ifindex = cfg.ifindex;
	return 0;
}

/* Append a note to err->msg, keeping err->code. */
static void err_append(struct fare_err *err, const char *what,
		       const struct fare_err *more)
{
	size_t len;

	if (!err)
		return;
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, "; %s: %s", what,
		 more->msg);
}

/*
 * The plane route of a route fare.ko now has (rtnl.c): plane-bound lookups
 * go via the gateways of the planes that carry it.
 */
static int plane_route_install(struct fare *f, const struct fare_route *route,
			       uint32_t ifindex, struct fare_err *err)
{
	const union fare_addr *src = route->has_src ? &route->src : NULL;
	const struct fare_nexthop *nh;
	struct fare_plane_map *m;
	struct fare_group *g;
	unsigned int n;
	int ret;

	m = calloc(1, sizeof(*m));
	g = malloc(sizeof(*g));
	if (!m || !g) {
		ret = err_errno(err, -ENOMEM);
		goto out;
	}
	ret = fare_plane_map_load(f, m, ifindex, err);
	if (!ret)
		ret = fare_route_hops(f, route, g, &nh, &n, err);
	if (!ret)
		ret = fare_rtnl_plane_route(f, &route->dst, src, nh, n, m,
					    err);
out:
	fare_plane_map_free(m);
	free(g);
	return ret;
}

int fare_plane_sync(struct fare *f, struct fare_err *err)
{
	struct fare_plane_map *m;
	struct fare_config cfg;
	int ret;

	fare_err_clear(err);
	ret = fare_config_get(f, &cfg, err);
	/* No fare device yet: no plane, no plane route. */
	if (ret || !cfg.ifindex)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return err_errno(err, -ENOMEM);
	ret = fare_plane_map_load(f, m, cfg.ifindex, err);
	fare_plane_map_free(m);
	return ret;
}

int fare_route_add(struct fare *f, const struct fare_route *route,
		   bool replace, struct fare_err *err)
{
	struct fare_route *old = NULL;
	struct fare_err rb_err;
	uint32_t ifindex = 0;
	int ret, rb;

	fare_err_clear(err);
	if (replace) {
		/* Keep the route being replaced, to restore it on failure. */
		old = malloc(sizeof(*old));
		if (!old)
			return err_errno(err, -ENOMEM);
		ret = fare_route_get(f, &route->dst, old, err);
		if (ret == -ENOENT || ret == -ESRCH) {
			free(old);
			old = NULL;
			fare_err_clear(err);
		} else if (ret) {
			goto out;
		}
	}

	ret = route_new(f, route, replace, err);
	if (ret)
		goto out;

	ret = fare_ifindex(f, &ifindex, err);
	if (!ret)
		ret = fare_rtnl_route_install(f, route, ifindex, err);
	if (!ret) {
		ret = plane_route_install(f, route, ifindex, err);
		if (!ret)
			goto out;
		/* A new route takes its kernel route with it. */
		if (!old && fare_rtnl_route_remove(f, &route->dst, ifindex,
						   &rb_err))
			err_append(err, "removing the new kernel route failed",
				   &rb_err);
	}

	/* Undo the fare side so that fare and the FIB agree. */
	if (old) {
		rb = route_new(f, old, true, &rb_err);
		if (rb)
			err_append(err, "restoring the replaced fare route failed",
				   &rb_err);
	} else {
		rb = route_del(f, &route->dst, &rb_err);
		if (rb)
			err_append(err, "removing the new fare route failed",
				   &rb_err);
	}
out:
	free(old);
	return ret;
}

int fare_route_del(struct fare *f, const struct fare_prefix *dst,
		   struct fare_err *err)
{
	struct fare_config cfg;
	int ret;

	fare_err_clear(err);
	ret = fare_config_get(f, &cfg, err);
	if (ret)
		return ret;
	/* Without fare0 there is no kernel route of ours to remove. */
	if (cfg.ifindex) {
		ret = fare_rtnl_plane_route(f, dst, NULL, NULL, 0, NULL, err);
		if (!ret)
			ret = fare_rtnl_route_remove(f, dst, cfg.ifindex, err);
		if (ret)
			return ret;
	}
	return route_del(f, dst, err);
}

static int one_route_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct one_reply *r = arg;
	int ret;

	if (r->seen)
		return 0;
	ret = fare_msg_parse_route(nlh, r->out, r->err);
	r->seen = !ret;
	return ret;
}

int fare_route_get(struct fare *f, const struct fare_prefix *dst,
		   struct fare_route *out, struct fare_err *err)
{
	struct one_reply r = { .out = out, .err = err };
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_ROUTE_GET, NLM_F_ACK);
	ret = fare_msg_put_prefix(nlh, sizeof(f->tx), dst, err);
	if (ret)
		return ret;
	ret = fare_talk(f, f->genl, nlh, one_route_cb, &r, err);
	if (!ret && !r.seen)
		ret = no_reply(err);
	return ret;
}

struct route_dump {
	fare_route_cb cb;
	void *arg;
	struct fare_err *err;
	struct fare_route route;
};

static int route_dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct route_dump *d = arg;
	int ret;

	ret = fare_msg_parse_route(nlh, &d->route, d->err);
	if (ret)
		return ret;
	return d->cb(&d->route, d->arg);
}

int fare_route_dump(struct fare *f, fare_route_cb cb, void *arg,
		    struct fare_err *err)
{
	struct route_dump *d;
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	/* A route is 1.6 KiB with all its hops: keep it off the stack. */
	d = malloc(sizeof(*d));
	if (!d)
		return err_errno(err, -ENOMEM);
	d->cb = cb;
	d->arg = arg;
	d->err = err;
	nlh = start(f, FARE_CMD_ROUTE_GET, NLM_F_DUMP);
	ret = fare_talk(f, f->genl, nlh, route_dump_cb, d, err);
	free(d);
	return ret;
}

int fare_group_add(struct fare *f, const struct fare_group *group,
		   bool replace, struct fare_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_GROUP_NEW, NLM_F_ACK);
	ret = fare_msg_put_group(nlh, sizeof(f->tx), group, err);
	if (ret)
		return ret;
	if (replace)
		mnl_attr_put(nlh, FARE_A_REPLACE, 0, NULL);
	return change(f, nlh, err);
}

int fare_group_del(struct fare *f, uint32_t id, struct fare_err *err)
{
	struct nlmsghdr *nlh;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_GROUP_DEL, NLM_F_ACK);
	mnl_attr_put_u32(nlh, FARE_A_GROUP_ID, id);
	return change(f, nlh, err);
}

static int one_group_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct one_reply *r = arg;
	int ret;

	if (r->seen)
		return 0;
	ret = fare_msg_parse_group(nlh, r->out, r->err);
	r->seen = !ret;
	return ret;
}

int fare_group_get(struct fare *f, uint32_t id, struct fare_group *out,
		   struct fare_err *err)
{
	struct one_reply r = { .out = out, .err = err };
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_GROUP_GET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, FARE_A_GROUP_ID, id);
	ret = fare_talk(f, f->genl, nlh, one_group_cb, &r, err);
	if (!ret && !r.seen)
		ret = no_reply(err);
	return ret;
}

struct group_dump {
	fare_group_cb cb;
	void *arg;
	struct fare_err *err;
	struct fare_group group;
};

static int group_dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct group_dump *d = arg;
	int ret;

	ret = fare_msg_parse_group(nlh, &d->group, d->err);
	if (ret)
		return ret;
	return d->cb(&d->group, d->arg);
}

int fare_group_dump(struct fare *f, fare_group_cb cb, void *arg,
		    struct fare_err *err)
{
	struct group_dump *d;
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	d = malloc(sizeof(*d));
	if (!d)
		return err_errno(err, -ENOMEM);
	d->cb = cb;
	d->arg = arg;
	d->err = err;
	nlh = start(f, FARE_CMD_GROUP_GET, NLM_F_DUMP);
	ret = fare_talk(f, f->genl, nlh, group_dump_cb, d, err);
	free(d);
	return ret;
}

static int config_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct one_reply *r = arg;
	int ret;

	if (r->seen)
		return 0;
	ret = fare_msg_parse_config(nlh, r->out, r->err);
	r->seen = !ret;
	return ret;
}

int fare_config_get(struct fare *f, struct fare_config *out,
		    struct fare_err *err)
{
	struct one_reply r = { .out = out, .err = err };
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_CONFIG_GET, NLM_F_ACK);
	ret = fare_talk(f, f->genl, nlh, config_cb, &r, err);
	if (!ret && !r.seen)
		ret = no_reply(err);
	return ret;
}

int fare_config_set(struct fare *f, const struct fare_config *cfg,
		    struct fare_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_CONFIG_SET, NLM_F_ACK);
	ret = fare_msg_put_config(nlh, sizeof(f->tx), cfg, err);
	if (ret)
		return ret;
	return change(f, nlh, err);
}

static int stats_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct one_reply *r = arg;
	int ret;

	if (r->seen)
		return 0;
	ret = fare_msg_parse_stats(nlh, r->out, r->err);
	r->seen = !ret;
	return ret;
}

int fare_stats_get(struct fare *f, struct fare_stats *out,
		   struct fare_err *err)
{
	struct one_reply r = { .out = out, .err = err };
	struct nlmsghdr *nlh;
	int ret;

	fare_err_clear(err);
	nlh = start(f, FARE_CMD_STATS_GET, NLM_F_ACK);
	ret = fare_talk(f, f->genl, nlh, stats_cb, &r, err);
	if (!ret && !r.seen)
		ret = no_reply(err);
	return ret;
}
