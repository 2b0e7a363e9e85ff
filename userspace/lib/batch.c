// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bulk programming: requests pipelined on one socket (fare_pipe), the
 * ordered, all-or-stop application of many route changes built on it
 * (fare_routes_apply), and route flush.
 *
 * fare_routes_apply() runs in stages, each one pipeline:
 *  1. read the routes that "replace" and "del" ops will overwrite, so that
 *     they can be put back;
 *  2. send every fare.ko request; the first refusal, at op k, is where the
 *     batch stops, and what fare.ko did of ops after k is undone;
 *  3. point (or stop pointing) the kernel FIB at fare0 for ops before k;
 *     the first refusal there, at op j, moves the stop to j, and what was
 *     done of ops j.. on both sides is undone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fare_int.h"

static int pipe_errno(struct fare_err *err, int code, const char *what)
{
	return fare_err_set(err, code, "%s: %s", what, strerror(-code));
}

int fare_pipe_init(struct fare_pipe *p, struct fare *f, struct mnl_socket *nl,
		   size_t cap, fare_msg_cb cb, void *cb_arg,
		   struct fare_err *err)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->nl = nl;
	p->cap = cap;
	p->first_fail = SIZE_MAX;
	p->cb = cb;
	p->cb_arg = cb_arg;
	p->ack_last = !cb;
	p->buf = malloc(FARE_PIPE_SEND + FARE_TX_SIZE);
	p->rets = calloc(cap ? cap : 1, sizeof(*p->rets));
	if (!p->buf || !p->rets) {
		fare_pipe_free(p);
		return pipe_errno(err, -ENOMEM, "batch");
	}
	/* Reserve cap sequence numbers, one per request. */
	p->base_seq = fare_next_seq(f);
	f->seq += cap;
	return 0;
}

void fare_pipe_free(struct fare_pipe *p)
{
	free(p->buf);
	free(p->rets);
	p->buf = NULL;
	p->rets = NULL;
}

static int pipe_send(struct fare_pipe *p, struct fare_err *err)
{
	if (!p->len)
		return 0;
	if (p->ack_last)
		((struct nlmsghdr *)(p->buf + p->last_off))->nlmsg_flags |=
			NLM_F_ACK;
	if (mnl_socket_sendto(p->nl, p->buf, p->len) < 0)
		return pipe_errno(err, -errno, "sending a batch");
	p->len = 0;
	return 0;
}

int fare_pipe_feed(struct fare_pipe *p, const void *buf, size_t len,
		   struct fare_err *err)
{
	uint32_t portid = p->nl ? mnl_socket_get_portid(p->nl) : 0;
	const struct nlmsghdr *nlh = buf;
	struct fare_err e;
	int left = len;
	size_t idx;
	int ret;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		idx = (uint32_t)(nlh->nlmsg_seq - p->base_seq);
		if (idx >= p->n || !mnl_nlmsg_portid_ok(nlh, portid))
			continue;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
		case NLMSG_DONE:
			continue;
		case NLMSG_OVERRUN:
			return fare_err_set(err, -ENOBUFS, "netlink overrun");
		case NLMSG_ERROR:
			fare_err_clear(&e);
			ret = fare_msg_parse_error(nlh, &e);
			p->rets[idx] = ret;
			if (ret && idx < p->first_fail) {
				p->first_fail = idx;
				p->fail_err = e;
			}
			/* The kernel answers in order. */
			if (idx + 1 > p->acked)
				p->acked = idx + 1;
			continue;
		default:
			if (p->cb) {
				ret = p->cb(nlh, p->cb_arg);
				if (ret)
					return ret;
			}
			continue;
		}
	}
	if (left > 0)
		return fare_err_set(err, -EPROTO, "truncated netlink message");
	return 0;
}

int fare_pipe_sync(struct fare_pipe *p, struct fare_err *err)
{
	ssize_t n;
	int ret;

	ret = pipe_send(p, err);
	if (ret)
		return ret;
	while (p->acked < p->n) {
		n = mnl_socket_recvfrom(p->nl, p->f->rx, sizeof(p->f->rx));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				return fare_err_set(err, -ENOBUFS,
						    "netlink receive buffer overrun: acks of the batch were lost");
			return pipe_errno(err, -errno, "reading the acks of a batch");
		}
		ret = fare_pipe_feed(p, p->f->rx, n, err);
		if (ret)
			return ret;
	}
	p->cost = 0;
	return 0;
}

void *fare_pipe_next(struct fare_pipe *p, size_t reply_cost,
		     struct fare_err *err)
{
	if (p->n == p->cap) {
		fare_err_set(err, -E2BIG, "batch: more requests than planned");
		return NULL;
	}
	if (p->n > p->acked && p->cost + reply_cost > p->f->ack_budget &&
	    fare_pipe_sync(p, err))
		return NULL;
	if (p->len > FARE_PIPE_SEND && pipe_send(p, err))
		return NULL;
	p->next_cost = reply_cost;
	return p->buf + p->len;
}

void fare_pipe_commit(struct fare_pipe *p, struct nlmsghdr *nlh)
{
	/* pipe_send() asks for the ack of the last one sent. */
	if (p->ack_last)
		nlh->nlmsg_flags &= ~NLM_F_ACK;
	p->last_off = p->len;
	p->len += MNL_ALIGN(nlh->nlmsg_len);
	p->cost += p->next_cost;
	p->n++;
}

/* ---- fare_routes_apply ---- */

struct apply {
	struct fare *f;
	const struct fare_op *ops;
	size_t n;
	size_t limit;		/* ops limit.. are not to be applied */
	struct fare_route **old;	/* route before a replace or del */
	int *genl_ret;
	int *rtnl_ret;
	struct fare_pipe *get_pipe;
	size_t *get_op;		/* stage 1: op of each "get" request */
	struct fare_err *err;
};

static bool is_del(const struct fare_op *op)
{
	return op->type == FARE_OP_ROUTE_DEL;
}

/* Stop the batch at op i with error e, unless it already stops earlier. */
static void stop_at(struct apply *a, size_t i, const struct fare_err *e)
{
	if (i >= a->limit)
		return;
	a->limit = i;
	if (a->err)
		*a->err = *e;
}

static struct nlmsghdr *genl_start(struct fare *f, void *buf, uint8_t cmd,
				   uint32_t seq)
{
	return fare_msg_start(buf, f->family_id, cmd, NLM_F_ACK, seq);
}

static int old_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct apply *a = arg;
	size_t k = (uint32_t)(nlh->nlmsg_seq - a->get_pipe->base_seq);
	struct fare_route *r;
	size_t i;

	if (k >= a->get_pipe->n)
		return 0;
	i = a->get_op[k];
	if (a->old[i])
		return 0;
	r = malloc(sizeof(*r));
	if (!r)
		return fare_err_set(a->err, -ENOMEM, "%s", strerror(ENOMEM));
	if (fare_msg_parse_route(nlh, r, NULL)) {
		free(r);
		return 0;
	}
	a->old[i] = r;
	return 0;
}

/* Stage 1: what replace and del ops will overwrite. */
static int read_olds(struct apply *a)
{
	struct fare *f = a->f;
	struct fare_pipe p;
	struct nlmsghdr *nlh;
	struct fare_err e;
	size_t i, k;
	void *buf;
	int ret;

	for (i = 0; i < a->n; i++)
		if (a->ops[i].type != FARE_OP_ROUTE_ADD)
			break;
	if (i == a->n)
		return 0;
	a->get_op = calloc(a->n, sizeof(*a->get_op));
	if (!a->get_op)
		return fare_err_set(a->err, -ENOMEM, "%s", strerror(ENOMEM));
	ret = fare_pipe_init(&p, f, f->genl, a->n, old_cb, a, a->err);
	if (ret)
		goto out_map;
	a->get_pipe = &p;
	for (i = 0; i < a->n; i++) {
		if (a->ops[i].type == FARE_OP_ROUTE_ADD)
			continue;
		/* An op that cannot be sent fails in stage 2. */
		if (fare_msg_put_prefix(genl_start(f, f->tx, 0, 0),
					sizeof(f->tx), &a->ops[i].route.dst,
					&e))
			continue;
		buf = fare_pipe_next(&p, FARE_REPLY_COST, a->err);
		if (!buf) {
			ret = a->err ? a->err->code : -EIO;
			goto out;
		}
		a->get_op[p.n] = i;
		nlh = genl_start(f, buf, FARE_CMD_ROUTE_GET,
				 fare_pipe_seq(&p, p.n));
		fare_msg_put_prefix(nlh, FARE_TX_SIZE, &a->ops[i].route.dst,
				    NULL);
		fare_pipe_commit(&p, nlh);
	}
	ret = fare_pipe_sync(&p, a->err);
	if (ret)
		goto out;
	for (k = 0; k < p.n; k++) {
		ret = p.rets[k];
		if (ret && ret != -ENOENT) {
			fare_err_set(&e, ret, "reading the route to replace: %s",
				     strerror(-ret));
			stop_at(a, a->get_op[k], &e);
		}
	}
	ret = 0;
out:
	fare_pipe_free(&p);
	a->get_pipe = NULL;
out_map:
	free(a->get_op);
	a->get_op = NULL;
	return ret;
}

/* The fare.ko request that does op (undo false) or undoes it (undo true). */
static struct nlmsghdr *genl_msg(struct apply *a, size_t i, bool undo,
				 void *buf, uint32_t seq,
				 struct fare_err *e)
{
	const struct fare_op *op = &a->ops[i];
	const struct fare_route *r = &op->route;
	bool replace = op->type == FARE_OP_ROUTE_REPLACE;
	bool del = is_del(op);
	struct nlmsghdr *nlh;

	if (undo) {
		/* Put back what was there, or remove what was added. */
		r = a->old[i];
		replace = op->type == FARE_OP_ROUTE_REPLACE;
		del = !r;
		if (del)
			r = &op->route;
	}
	nlh = genl_start(a->f, buf, del ? FARE_CMD_ROUTE_DEL :
			 FARE_CMD_ROUTE_NEW, seq);
	if (del) {
		if (fare_msg_put_prefix(nlh, FARE_TX_SIZE, &r->dst, e))
			return NULL;
		return nlh;
	}
	if (fare_msg_put_route(nlh, FARE_TX_SIZE, r, e))
		return NULL;
	if (replace && !mnl_attr_put_check(nlh, FARE_TX_SIZE, FARE_A_REPLACE,
					   0, NULL)) {
		fare_err_set(e, -EMSGSIZE, "request too long");
		return NULL;
	}
	return nlh;
}

/* Send op i's fare.ko request (or its undo) through p; false on error. */
static bool genl_push(struct apply *a, struct fare_pipe *p, size_t i,
		      bool undo)
{
	struct nlmsghdr *nlh;
	struct fare_err e;
	void *buf;

	buf = fare_pipe_next(p, FARE_ACK_COST, a->err);
	if (!buf)
		return false;
	nlh = genl_msg(a, i, undo, buf, fare_pipe_seq(p, p->n), &e);
	if (!nlh) {
		/* Not sendable: the op itself is wrong. Ask for nothing. */
		nlh = genl_start(a->f, buf, FARE_CMD_CONFIG_GET,
				 fare_pipe_seq(p, p->n));
		if (!undo)
			stop_at(a, i, &e);
	}
	fare_pipe_commit(p, nlh);
	return true;
}

/* Undo fare.ko's side of ops from..to-1 where it succeeded. */
static void genl_undo(struct apply *a, size_t from, size_t to)
{
	struct fare_pipe p;
	struct fare_err e;
	size_t i;
	int ret;

	if (from >= to ||
	    fare_pipe_init(&p, a->f, a->f->genl, to - from, NULL, NULL, &e))
		return;
	for (i = from; i < to; i++) {
		if (a->genl_ret[i])
			continue;
		if (is_del(&a->ops[i]) && !a->old[i])
			continue;
		if (!genl_push(a, &p, i, true))
			break;
	}
	ret = fare_pipe_sync(&p, &e);
	if (!ret && p.first_fail < p.n)
		e = p.fail_err, ret = e.code;
	if (ret && a->err) {
		size_t len = strlen(a->err->msg);

		snprintf(a->err->msg + len, sizeof(a->err->msg) - len,
			 "; undoing the batch after it failed: %s", e.msg);
	}
	fare_pipe_free(&p);
}

/* Stage 2. */
static int genl_apply(struct apply *a)
{
	struct fare_pipe p;
	size_t i, sent;
	int ret;

	ret = fare_pipe_init(&p, a->f, a->f->genl, a->limit, NULL, NULL,
			     a->err);
	if (ret)
		return ret;
	for (i = 0; i < a->limit; i++) {
		if (!genl_push(a, &p, i, false)) {
			ret = a->err ? a->err->code : -EIO;
			break;
		}
	}
	sent = p.n;
	if (!ret)
		ret = fare_pipe_sync(&p, a->err);
	if (ret) {
		/* The socket failed: we cannot tell what was done. */
		fare_pipe_free(&p);
		a->limit = 0;
		return ret;
	}
	for (i = 0; i < sent; i++)
		a->genl_ret[i] = p.rets[i];
	if (p.first_fail < sent)
		stop_at(a, p.first_fail, &p.fail_err);
	fare_pipe_free(&p);
	genl_undo(a, a->limit + 1, sent);
	return 0;
}

static struct nlmsghdr *rtnl_msg(struct apply *a, size_t i, bool undo,
				 uint32_t oif, void *buf, uint32_t seq)
{
	const struct fare_op *op = &a->ops[i];
	const struct fare_route *r = &op->route;
	bool add = !is_del(op);

	if (undo)
		add = !add;
	return fare_rtnl_msg_route(buf, FARE_TX_SIZE,
				   add ? RTM_NEWROUTE : RTM_DELROUTE, seq,
				   &r->dst,
				   add && !undo && r->has_src ? &r->src : NULL,
				   oif);
}

static bool gone(int ret)
{
	/* IPv4 says ESRCH, IPv6 ENOENT: either way it is already gone. */
	return ret == -ESRCH || ret == -ENOENT;
}

/* Stage 3. */
static int rtnl_apply(struct apply *a, uint32_t oif)
{
	struct fare_pipe p;
	struct nlmsghdr *nlh;
	struct fare_err e;
	size_t i, to = a->limit, j = SIZE_MAX;
	void *buf;
	int ret;

	if (!to)
		return 0;
	ret = fare_pipe_init(&p, a->f, a->f->rtnl, 2 * to, NULL, NULL, a->err);
	if (ret)
		return ret;
	for (i = 0; i < to; i++) {
		buf = fare_pipe_next(&p, FARE_ACK_COST, a->err);
		if (!buf)
			goto sock_err;
		nlh = rtnl_msg(a, i, false, oif, buf, fare_pipe_seq(&p, i));
		fare_pipe_commit(&p, nlh);
	}
	if (fare_pipe_sync(&p, a->err))
		goto sock_err;
	for (i = 0; i < to; i++) {
		a->rtnl_ret[i] = p.rets[i];
		if (is_del(&a->ops[i]) && gone(p.rets[i]))
			a->rtnl_ret[i] = 0;
		if (a->rtnl_ret[i] && j == SIZE_MAX)
			j = i;
	}
	if (j == SIZE_MAX) {
		fare_pipe_free(&p);
		return 0;
	}

	/* Op j failed in the FIB: undo it and everything after it. */
	e = p.fail_err;
	if (!e.msg[0])
		fare_err_set(&e, a->rtnl_ret[j], "%s", strerror(-a->rtnl_ret[j]));
	{
		char what[FARE_PREFIX_STRLEN];
		char reason[sizeof(e.msg)];

		snprintf(reason, sizeof(reason), "%s", e.msg);
		fare_err_set(&e, a->rtnl_ret[j],
			     "installing the kernel route %s dev %s proto %d: %s",
			     fare_prefix_format(&a->ops[j].route.dst, what,
						sizeof(what)),
			     FARE_DEV_NAME, FARE_RTPROT, reason);
	}
	stop_at(a, j, &e);
	for (i = j + 1; i < to; i++) {
		if (a->rtnl_ret[i] || a->ops[i].type == FARE_OP_ROUTE_REPLACE)
			continue;
		buf = fare_pipe_next(&p, FARE_ACK_COST, &e);
		if (!buf)
			break;
		nlh = rtnl_msg(a, i, true, oif, buf, fare_pipe_seq(&p, p.n));
		fare_pipe_commit(&p, nlh);
	}
	fare_pipe_sync(&p, &e);
	fare_pipe_free(&p);
	genl_undo(a, j, to);
	return 0;

sock_err:
	ret = a->err ? a->err->code : -EIO;
	fare_pipe_free(&p);
	a->limit = 0;
	return ret;
}

static size_t prefix_hash(const struct fare_prefix *p)
{
	const uint8_t *b = (const uint8_t *)&p->addr;
	size_t h = p->family * 31 + p->plen;
	size_t i;

	for (i = 0; i < sizeof(p->addr); i++)
		h = h * 16777619 ^ b[i];
	return h;
}

static bool same_prefix(const struct fare_prefix *a,
			const struct fare_prefix *b)
{
	return a->family == b->family && a->plen == b->plen &&
	       !memcmp(&a->addr, &b->addr, sizeof(a->addr));
}

/*
 * The longest run of ops from the first on whose prefixes all differ: the
 * routes read in stage 1 are then what each op overwrites, and undoing in
 * any order restores the state before the run.
 */
static size_t distinct_run(const struct fare_op *ops, size_t n)
{
	const struct fare_prefix **slot;
	size_t size = 16, i, h;

	while (size < 2 * n)
		size *= 2;
	slot = calloc(size, sizeof(*slot));
	if (!slot)
		return 1;
	for (i = 0; i < n; i++) {
		const struct fare_prefix *p = &ops[i].route.dst;

		for (h = prefix_hash(p) & (size - 1); slot[h];
		     h = (h + 1) & (size - 1))
			if (same_prefix(slot[h], p))
				goto out;
		slot[h] = p;
	}
out:
	free(slot);
	return i;
}

static int apply_run(struct fare *f, const struct fare_op *ops, size_t n,
		     size_t *failed, struct fare_err *err);

int fare_routes_apply(struct fare *f, const struct fare_op *ops, size_t n,
		      size_t *failed, struct fare_err *err)
{
	size_t start = 0, run, bad;
	int ret;

	fare_err_clear(err);
	if (failed)
		*failed = n;
	while (start < n) {
		run = distinct_run(ops + start, n - start);
		ret = apply_run(f, ops + start, run, &bad, err);
		if (ret) {
			if (failed)
				*failed = start + bad;
			return ret;
		}
		start += run;
	}
	return 0;
}

static int apply_run(struct fare *f, const struct fare_op *ops, size_t n,
		     size_t *failed, struct fare_err *err)
{
	struct apply a = {
		.f = f, .ops = ops, .n = n, .limit = n, .err = err,
	};
	struct fare_config cfg;
	bool need_fib = false;
	size_t i;
	int ret;

	fare_err_clear(err);
	if (failed)
		*failed = n;
	if (!n)
		return 0;
	a.old = calloc(n, sizeof(*a.old));
	a.genl_ret = calloc(n, sizeof(*a.genl_ret));
	a.rtnl_ret = calloc(n, sizeof(*a.rtnl_ret));
	if (!a.old || !a.genl_ret || !a.rtnl_ret) {
		ret = fare_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}

	ret = read_olds(&a);
	if (!ret)
		ret = genl_apply(&a);
	if (ret)
		goto out;
	for (i = 0; i < a.limit; i++)
		need_fib |= !a.genl_ret[i];
	if (need_fib) {
		struct fare_err e;

		ret = fare_config_get(f, &cfg, &e);
		/* The kernel routes are useless without the rule. */
		for (i = 0; !ret && cfg.ifindex && i < a.limit; i++)
			if (!a.genl_ret[i] && !is_del(&a.ops[i]))
				ret = fare_rtnl_rule_ensure(f,
						a.ops[i].route.dst.family, &e);
		if (ret) {
			/* fare.ko took the ops: undo them all. */
			if (err)
				*err = e;
			genl_undo(&a, 0, a.limit);
			a.limit = 0;
			goto out;
		}
		/* Without fare0 nothing was added (no plane), only deleted. */
		if (cfg.ifindex)
			ret = rtnl_apply(&a, cfg.ifindex);
	}
out:
	for (i = 0; a.old && i < n; i++)
		free(a.old[i]);
	free(a.old);
	free(a.genl_ret);
	free(a.rtnl_ret);
	if (ret)
		a.limit = 0;
	if (a.limit < n) {
		if (failed)
			*failed = a.limit;
		if (!ret)
			ret = err ? err->code : -EIO;
		if (!ret)
			ret = -EIO;
	}
	return ret;
}

/* ---- flush ---- */

struct prefix_list {
	struct fare_prefix *v;
	size_t n, cap;
};

static int prefix_list_add(struct prefix_list *l, const struct fare_prefix *p)
{
	struct fare_prefix *v;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
	}
	l->v[l->n++] = *p;
	return 0;
}

static int collect_prefix(const struct fare_route *r, void *arg)
{
	return prefix_list_add(arg, &r->dst);
}

static int collect_unreachable(const struct nlmsghdr *nlh, void *arg)
{
	struct fare_prefix p;

	if (!fare_rtnl_parse_unreachable(nlh, &p))
		return 0;
	return prefix_list_add(arg, &p);
}

/*
 * fared normally takes its unreachable routes away itself; after a crash
 * they would stay, refusing traffic to hosts that may long be back, so a
 * flush finds them by their table, protocol and type.
 */
static int unreachable_flush(struct fare *f, size_t *deleted,
			     struct fare_err *err)
{
	struct prefix_list l = { 0 };
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	nlh = fare_rtnl_msg_route_dump(f->tx, fare_next_seq(f));
	ret = fare_talk(f, f->rtnl, nlh, collect_unreachable, &l, err);
	if (ret && err)
		ret = fare_err_set(err, ret,
				   "listing fare's unreachable routes: %s",
				   err->msg[0] ? err->msg : strerror(-ret));
	for (i = 0; !ret && i < l.n; i++) {
		ret = fare_route_unreachable(f, &l.v[i], false, err);
		if (!ret)
			(*deleted)++;
	}
	free(l.v);
	return ret;
}

int fare_route_unreachable_dump(struct fare *f, fare_prefix_cb cb, void *arg,
				struct fare_err *err)
{
	struct prefix_list l = { 0 };
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	fare_err_clear(err);
	nlh = fare_rtnl_msg_route_dump(f->tx, fare_next_seq(f));
	ret = fare_talk(f, f->rtnl, nlh, collect_unreachable, &l, err);
	if (ret && err)
		ret = fare_err_set(err, ret,
				   "listing fare's unreachable routes: %s",
				   err->msg[0] ? err->msg : strerror(-ret));
	for (i = 0; !ret && i < l.n; i++)
		ret = cb(&l.v[i], arg);
	free(l.v);
	return ret;
}

int fare_route_flush(struct fare *f, size_t *deleted, struct fare_err *err)
{
	struct prefix_list l = { 0 };
	struct fare_config cfg;
	struct nlmsghdr *nlh;
	struct fare_pipe p;
	size_t i, count = 0;
	void *buf;
	int ret;

	fare_err_clear(err);
	if (deleted)
		*deleted = 0;
	ret = unreachable_flush(f, &count, err);
	if (!ret)
		ret = fare_route_dump(f, collect_prefix, &l, err);
	if (!ret)
		ret = fare_config_get(f, &cfg, err);
	if (ret || !l.n)
		goto out;

	/* The kernel routes first, so that no packet meets fare0 unrouted. */
	if (cfg.ifindex) {
		ret = fare_pipe_init(&p, f, f->rtnl, l.n, NULL, NULL, err);
		if (ret)
			goto out;
		for (i = 0; i < l.n && !ret; i++) {
			buf = fare_pipe_next(&p, FARE_ACK_COST, err);
			if (!buf) {
				ret = err ? err->code : -EIO;
				break;
			}
			nlh = fare_rtnl_msg_route(buf, FARE_TX_SIZE,
						  RTM_DELROUTE,
						  fare_pipe_seq(&p, i),
						  &l.v[i], NULL, cfg.ifindex);
			fare_pipe_commit(&p, nlh);
		}
		if (!ret)
			ret = fare_pipe_sync(&p, err);
		for (i = 0; !ret && i < p.n; i++) {
			if (p.rets[i] && !gone(p.rets[i])) {
				char what[FARE_PREFIX_STRLEN];

				ret = fare_err_set(err, p.rets[i],
						   "removing the kernel route %s dev %s proto %d: %s",
						   fare_prefix_format(&l.v[i], what,
								      sizeof(what)),
						   FARE_DEV_NAME, FARE_RTPROT,
						   strerror(-p.rets[i]));
			}
		}
		fare_pipe_free(&p);
		if (ret)
			goto out;
	}

	ret = fare_pipe_init(&p, f, f->genl, l.n, NULL, NULL, err);
	if (ret)
		goto out;
	for (i = 0; i < l.n; i++) {
		buf = fare_pipe_next(&p, FARE_ACK_COST, err);
		if (!buf) {
			ret = err ? err->code : -EIO;
			break;
		}
		nlh = genl_start(f, buf, FARE_CMD_ROUTE_DEL,
				 fare_pipe_seq(&p, i));
		fare_msg_put_prefix(nlh, FARE_TX_SIZE, &l.v[i], NULL);
		fare_pipe_commit(&p, nlh);
	}
	if (!ret)
		ret = fare_pipe_sync(&p, err);
	for (i = 0; !ret && i < p.n; i++) {
		char what[FARE_PREFIX_STRLEN];

		/* Deleted meanwhile by someone else: just as good. */
		if (!p.rets[i])
			count++;
		else if (p.rets[i] != -ENOENT)
			ret = fare_err_set(err, p.rets[i],
					   "deleting the fare route %s: %s",
					   fare_prefix_format(&l.v[i], what,
							      sizeof(what)),
					   strerror(-p.rets[i]));
	}
	fare_pipe_free(&p);
out:
	free(l.v);
	if (deleted)
		*deleted = count;
	return ret;
}
