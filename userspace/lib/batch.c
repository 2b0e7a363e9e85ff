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
 *  3. point (or stop pointing) the kernel FIB at fare0 for ops before k,
 *     step by step as fare.ko answers them (from a second thread when
 *     there is more than one step); the first refusal there, at op j,
 *     moves the stop to j, and what was done of ops j.. on both sides is
 *     undone.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
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
	p->rx = f->rx;
	p->rx_size = sizeof(f->rx);
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
			if (ret && idx < p->first_fail &&
			    !(p->tolerated && p->tolerated(p, idx, ret))) {
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
		n = mnl_socket_recvfrom(p->nl, p->rx, p->rx_size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				return fare_err_set(err, -ENOBUFS,
						    "netlink receive buffer overrun: acks of the batch were lost");
			return pipe_errno(err, -errno, "reading the acks of a batch");
		}
		ret = fare_pipe_feed(p, p->rx, n, err);
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

/*
 * Ops per step of stage 2. Stage 3 takes each step once fare.ko answered
 * it, on a thread of its own when a run has more than one step: fare.ko's
 * requests (under genl_mutex) and the kernel FIB's (under RTNL) are then
 * handled on two CPUs at once.
 */
#define APPLY_STEP		128
/* Stage 3's thread: fib_step() and the libc calls under it. */
#define FIB_THREAD_STACK	(256 * 1024)

struct fib_side;

struct apply {
	struct fare *f;
	const struct fare_op *const *ops;
	size_t n;
	size_t limit;		/* ops limit.. are not to be applied */
	struct fare_route **old;	/* route before a replace or del */
	int *genl_ret;		/* stage 2's, written by its thread */
	int *rtnl_ret;		/* stage 3's, read once it is joined */
	struct fare_pipe *get_pipe;
	size_t *get_op;		/* stage 1: op of each "get" request */
	struct fare_err *err;	/* stage 2's thread writes it */
	/* fare.ko has ops 0..genl_upto-1 done (those it did not refuse). */
	size_t genl_upto;
	struct fib_side *fib;	/* stage 3, NULL when it has nothing to do */
	/* Read before stage 2, for the plane routes (rtnl.c). */
	struct fare_plane_map *planes;
	struct fare_group *groups;	/* the named groups ops use, by id */
	size_t n_groups;
};

/*
 * Stage 3 of a run. ready, closed and refused are shared with stage 2
 * under lock (when threaded); the rest is stage 3's until fib_finish().
 */
struct fib_side {
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;	/* protects ready, closed and refused */
	pthread_cond_t moved;	/* ready or closed changed */
	size_t ready;		/* fare.ko took ops 0..ready-1 */
	bool closed;		/* stage 2 is over: ready moves no more */
	bool refused;		/* stage 3 is over early: stage 2 stops */
	uint32_t oif;		/* fare0 */
	/*
	 * On f->rtnl: requests 2i (the route to fare0) and 2i + 1 (the plane
	 * route) are op i's.
	 */
	struct fare_pipe pipe;
	size_t sent;		/* ops 0..sent-1 went to the FIB */
	size_t fail;		/* the first op it refused, or SIZE_MAX */
	struct fare_err fail_err;
	int sock_ret;		/* the socket failed: the last step is unknown */
	/* Only acks come back: each a request's header and an extack. */
	char rx[16384] __attribute__((aligned(8)));
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
	return fare_req_start(f, buf, cmd, NLM_F_ACK, seq);
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
		if (a->ops[i]->type != FARE_OP_ROUTE_ADD)
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
		if (a->ops[i]->type == FARE_OP_ROUTE_ADD)
			continue;
		/* An op that cannot be sent fails in stage 2. */
		if (fare_msg_put_prefix(genl_start(f, f->tx, 0, 0),
					sizeof(f->tx), &a->ops[i]->route.dst,
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
		fare_msg_put_prefix(nlh, FARE_TX_SIZE, &a->ops[i]->route.dst,
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
	const struct fare_op *op = a->ops[i];
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
		if (is_del(a->ops[i]) && !a->old[i])
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

static struct nlmsghdr *rtnl_msg(struct apply *a, size_t i, bool undo,
				 uint32_t oif, void *buf, uint32_t seq)
{
	const struct fare_op *op = a->ops[i];
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

static int group_cmp(const void *a, const void *b)
{
	const struct fare_group *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Op i's hops: its own, or its named group's (NULL, 0: none known). */
static void op_hops(const struct apply *a, size_t i,
		    const struct fare_nexthop **nh, unsigned int *n)
{
	const struct fare_route *r = &a->ops[i]->route;
	struct fare_group key;
	const struct fare_group *g;

	*nh = r->nexthops;
	*n = r->n_nexthops;
	if (*n || !r->group_id)
		return;
	key.id = r->group_id;
	g = a->n_groups ? bsearch(&key, a->groups, a->n_groups, sizeof(*g),
				  group_cmp) : NULL;
	*nh = g ? g->nexthops : NULL;
	*n = g ? g->n_nexthops : 0;
}

static int plane_group_ensure(struct apply *a, size_t i, struct fare_err *e)
{
	const struct fare_nexthop *nh;
	unsigned int n;

	if (is_del(a->ops[i]))
		return 0;
	op_hops(a, i, &nh, &n);
	return fare_nh_group_ensure(a->f, a->planes,
				    a->ops[i]->route.dst.family, nh, n, e);
}

/*
 * Op i's plane route (undo: the removal of an add's; NULL for the undo of
 * a del, which does not bring it back).
 */
static struct nlmsghdr *plane_msg(struct apply *a, size_t i, bool undo,
				  void *buf, uint32_t seq)
{
	const struct fare_route *r = &a->ops[i]->route;
	const struct fare_nexthop *nh;
	unsigned int n;

	if (undo && is_del(a->ops[i]))
		return NULL;
	if (undo || is_del(a->ops[i]))
		return fare_rtnl_msg_plane_route(buf, FARE_TX_SIZE, seq,
						 &r->dst, NULL, NULL, 0, NULL);
	op_hops(a, i, &nh, &n);
	return fare_rtnl_msg_plane_route(buf, FARE_TX_SIZE, seq, &r->dst,
					 r->has_src ? &r->src : NULL, nh, n,
					 a->planes);
}

static bool gone(int ret)
{
	/* IPv4 says ESRCH, IPv6 ENOENT: either way it is already gone. */
	return ret == -ESRCH || ret == -ENOENT;
}

/* Request idx of the FIB's pipe: a del whose route is already gone. */
static bool fib_tolerated(const struct fare_pipe *p, size_t idx, int ret)
{
	const struct apply *a = p->tolerated_arg;

	if (idx >= 2 * a->n)
		return false;
	if (idx & 1)
		return fare_rtnl_plane_tolerated(ret);
	return is_del(a->ops[idx / 2]) && gone(ret);
}

/*
 * The FIB refused op fs->fail: say which route, and undo what it did of
 * the ops after it (stage 2's side is undone once the thread is joined).
 */
static void fib_refused(struct apply *a, struct fib_side *fs)
{
	struct fare_pipe *p = &fs->pipe;
	char what[FARE_PREFIX_STRLEN];
	size_t j = fs->fail, i;
	struct fare_err e;
	struct nlmsghdr *nlh;
	void *buf;

	e = p->fail_err;
	if (!e.msg[0])
		fare_err_set(&e, a->rtnl_ret[j], "%s", strerror(-a->rtnl_ret[j]));
	fare_err_set(&fs->fail_err, a->rtnl_ret[j],
		     "installing the kernel route %s dev %s proto %d: %s",
		     fare_prefix_format(&a->ops[j]->route.dst, what,
					sizeof(what)),
		     FARE_DEV_NAME, FARE_RTPROT, e.msg);
	for (i = j; i < fs->sent; i++) {
		if (a->ops[i]->type == FARE_OP_ROUTE_REPLACE)
			continue;
		/* Op j: only its plane route failed, its fare0 side is undone. */
		if (i == j ? p->rets[2 * j] || !p->rets[2 * j + 1] :
		    a->rtnl_ret[i] != 0)
			continue;
		buf = fare_pipe_next(p, FARE_ACK_COST, &e);
		if (!buf)
			break;
		nlh = rtnl_msg(a, i, true, fs->oif, buf, fare_pipe_seq(p, p->n));
		fare_pipe_commit(p, nlh);
		if (i == j)
			continue;
		buf = fare_pipe_next(p, FARE_ACK_COST, &e);
		if (!buf)
			break;
		nlh = plane_msg(a, i, true, buf, fare_pipe_seq(p, p->n));
		if (nlh)
			fare_pipe_commit(p, nlh);
	}
	fare_pipe_sync(p, &e);
}

/*
 * Stage 3 for ops fs->sent..to-1, which fare.ko took: point the kernel FIB
 * at fare0 for them (or stop pointing). False once it refused one or the
 * socket failed: stage 3 is over.
 */
static bool fib_step(struct apply *a, struct fib_side *fs, size_t to)
{
	struct fare_pipe *p = &fs->pipe;
	size_t i, from = fs->sent;
	struct nlmsghdr *nlh;
	void *buf;

	/* Requests 2i and 2i + 1 of the pipe are op i's. */
	for (i = from; i < to; i++) {
		buf = fare_pipe_next(p, FARE_ACK_COST, &fs->fail_err);
		if (!buf)
			goto sock_err;
		nlh = rtnl_msg(a, i, false, fs->oif, buf,
			       fare_pipe_seq(p, 2 * i));
		fare_pipe_commit(p, nlh);
		buf = fare_pipe_next(p, FARE_ACK_COST, &fs->fail_err);
		if (!buf)
			goto sock_err;
		nlh = plane_msg(a, i, false, buf, fare_pipe_seq(p, 2 * i + 1));
		if (!nlh) {
			fare_err_set(&fs->fail_err, -EMSGSIZE,
				     "route request too long");
			goto sock_err;
		}
		fare_pipe_commit(p, nlh);
	}
	fs->sent = to;
	if (fare_pipe_sync(p, &fs->fail_err))
		goto sock_err;
	for (i = from; i < to; i++) {
		int r0 = p->rets[2 * i], r1 = p->rets[2 * i + 1];

		r0 = fib_tolerated(p, 2 * i, r0) ? 0 : r0;
		r1 = fib_tolerated(p, 2 * i + 1, r1) ? 0 : r1;
		a->rtnl_ret[i] = r0 ? r0 : r1;
		if (a->rtnl_ret[i] && fs->fail == SIZE_MAX)
			fs->fail = i;
	}
	if (fs->fail == SIZE_MAX)
		return true;
	fib_refused(a, fs);
	return false;

sock_err:
	fs->sock_ret = fs->fail_err.code ? fs->fail_err.code : -EIO;
	return false;
}

static void *fib_thread(void *arg)
{
	struct apply *a = arg;
	struct fib_side *fs = a->fib;
	size_t to;

	for (;;) {
		pthread_mutex_lock(&fs->lock);
		while (fs->ready == fs->sent && !fs->closed)
			pthread_cond_wait(&fs->moved, &fs->lock);
		to = fs->ready;
		pthread_mutex_unlock(&fs->lock);
		if (to == fs->sent)
			return NULL;		/* closed, and all done */
		if (!fib_step(a, fs, to))
			break;
	}
	pthread_mutex_lock(&fs->lock);
	fs->refused = true;
	pthread_mutex_unlock(&fs->lock);
	return NULL;
}

/*
 * Hand ops 0..ready-1, which fare.ko took, to stage 3; closed: no more
 * will come. False if stage 3 is over early (stage 2 then stops).
 */
static bool fib_publish(struct apply *a, size_t ready, bool closed)
{
	struct fib_side *fs = a->fib;
	bool refused;

	if (!fs)
		return true;
	if (!fs->threaded) {
		if (!fs->refused && ready > fs->sent && !fib_step(a, fs, ready))
			fs->refused = true;
		return !fs->refused;
	}
	pthread_mutex_lock(&fs->lock);
	if (ready > fs->ready)
		fs->ready = ready;
	fs->closed |= closed;
	refused = fs->refused;
	pthread_cond_signal(&fs->moved);
	pthread_mutex_unlock(&fs->lock);
	return !refused;
}

/*
 * Stage 3's state for a run of n ops with fare0 at oif; with more than
 * one step, its own thread (all signals blocked: they are the caller's).
 * NULL without memory.
 */
static struct fib_side *fib_start(struct apply *a, uint32_t oif,
				  struct fare_err *err)
{
	struct fib_side *fs;
	pthread_attr_t attr;
	sigset_t all, old;

	fs = calloc(1, sizeof(*fs));
	if (!fs) {
		fare_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	fs->oif = oif;
	fs->fail = SIZE_MAX;
	/* Room for every op's two requests and their undo. */
	if (fare_pipe_init(&fs->pipe, a->f, a->f->rtnl, 4 * a->limit, NULL,
			   NULL, err)) {
		free(fs);
		return NULL;
	}
	fs->pipe.rx = fs->rx;
	fs->pipe.rx_size = sizeof(fs->rx);
	fs->pipe.tolerated = fib_tolerated;
	fs->pipe.tolerated_arg = a;
	a->fib = fs;
	if (a->limit <= APPLY_STEP || pthread_mutex_init(&fs->lock, NULL))
		return fs;
	if (pthread_cond_init(&fs->moved, NULL))
		goto no_thread;
	if (pthread_attr_init(&attr))
		goto no_cond;
	pthread_attr_setstacksize(&attr, FIB_THREAD_STACK);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	fs->threaded = !pthread_create(&fs->thread, &attr, fib_thread, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (fs->threaded)
		return fs;
no_cond:
	pthread_cond_destroy(&fs->moved);
no_thread:
	/* Stage 3 then runs step by step on the caller's thread. */
	pthread_mutex_destroy(&fs->lock);
	return fs;
}

/*
 * After stage 2 closed it: wait for stage 3, then settle the run. A
 * refusal there moves the stop back to its op and undoes fare.ko's side
 * of the ops from it on. Returns a socket error, or 0.
 */
static int fib_finish(struct apply *a)
{
	struct fib_side *fs = a->fib;
	int ret = 0;

	if (!fs)
		return 0;
	if (fs->threaded) {
		pthread_join(fs->thread, NULL);
		pthread_cond_destroy(&fs->moved);
		pthread_mutex_destroy(&fs->lock);
	}
	if (fs->sock_ret) {
		/* What the FIB did of the last step is unknown. */
		ret = fs->sock_ret;
		if (a->err)
			*a->err = fs->fail_err;
		a->limit = 0;
	} else if (fs->fail != SIZE_MAX) {
		stop_at(a, fs->fail, &fs->fail_err);
		genl_undo(a, fs->fail, a->genl_upto);
	}
	fare_pipe_free(&fs->pipe);
	free(fs);
	a->fib = NULL;
	return ret;
}

/*
 * Stage 2, in steps of APPLY_STEP ops: each step answered by fare.ko is
 * handed to stage 3 (fib_publish). Stops at fare.ko's first refusal (what
 * it did of the step's later ops is undone) or when stage 3 refused one.
 */
static int genl_apply(struct apply *a)
{
	size_t i, end, sent = 0, upto = a->limit;
	struct fare_pipe p;
	int ret;

	ret = fare_pipe_init(&p, a->f, a->f->genl, upto, NULL, NULL, a->err);
	if (ret)
		return ret;
	while (sent < upto) {
		end = sent + APPLY_STEP < upto ? sent + APPLY_STEP : upto;
		for (i = sent; i < end; i++) {
			if (!genl_push(a, &p, i, false)) {
				ret = a->err ? a->err->code : -EIO;
				break;
			}
		}
		if (!ret)
			ret = fare_pipe_sync(&p, a->err);
		if (ret) {
			/* The socket failed: we cannot tell what was done. */
			a->limit = 0;
			break;
		}
		for (i = sent; i < end; i++)
			a->genl_ret[i] = p.rets[i];
		sent = end;
		if (p.first_fail < sent)
			stop_at(a, p.first_fail, &p.fail_err);
		if (a->limit < sent) {
			genl_undo(a, a->limit + 1, sent);
			break;
		}
		if (!fib_publish(a, sent, sent == upto))
			break;
	}
	a->genl_upto = a->limit < sent ? a->limit : sent;
	fib_publish(a, ret ? 0 : a->genl_upto, true);
	fare_pipe_free(&p);
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
static size_t distinct_run(const struct fare_op *const *ops, size_t n)
{
	const struct fare_prefix **slot;
	size_t size = 16, i, h;

	while (size < 2 * n)
		size *= 2;
	slot = calloc(size, sizeof(*slot));
	if (!slot)
		return 1;
	for (i = 0; i < n; i++) {
		const struct fare_prefix *p = &ops[i]->route.dst;

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

static int apply_run(struct fare *f, const struct fare_op *const *ops,
		     size_t n, size_t *failed, struct fare_err *err);

int fare_routes_apply_ptrs(struct fare *f, const struct fare_op *const *ops,
			   size_t n, size_t *failed, struct fare_err *err)
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

int fare_routes_apply(struct fare *f, const struct fare_op *ops, size_t n,
		      size_t *failed, struct fare_err *err)
{
	const struct fare_op **ptrs;
	size_t i;
	int ret;

	fare_err_clear(err);
	if (failed)
		*failed = n;
	if (!n)
		return 0;
	ptrs = malloc(n * sizeof(*ptrs));
	if (!ptrs) {
		/* Nothing applied: op 0 is the one that failed. */
		if (failed)
			*failed = 0;
		return fare_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
	}
	for (i = 0; i < n; i++)
		ptrs[i] = &ops[i];
	ret = fare_routes_apply_ptrs(f, ptrs, n, failed, err);
	free(ptrs);
	return ret;
}

/*
 * Before stage 2, for the plane routes: the planes, and the named groups
 * that ops use (stage 3 may run on a thread of its own, which must not use
 * the generic netlink socket of stage 2).
 */
static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int plane_prepare(struct apply *a, uint32_t oif, struct fare_err *e)
{
	size_t i, n = 0;
	uint32_t *ids;
	int ret;

	a->planes = calloc(1, sizeof(*a->planes));
	if (!a->planes)
		return fare_err_set(e, -ENOMEM, "%s", strerror(ENOMEM));
	ret = fare_plane_map_load(a->f, a->planes, oif, e);
	if (ret)
		return ret;
	ids = malloc(a->limit * sizeof(*ids));
	if (!ids)
		return fare_err_set(e, -ENOMEM, "%s", strerror(ENOMEM));
	for (i = 0; i < a->limit; i++) {
		const struct fare_route *r = &a->ops[i]->route;

		if (!is_del(a->ops[i]) && !r->n_nexthops && r->group_id)
			ids[n++] = r->group_id;
	}
	/* Each group once, in id order, for plane_msg()'s bsearch. */
	qsort(ids, n, sizeof(*ids), id_cmp);
	a->groups = n ? calloc(n, sizeof(*a->groups)) : NULL;
	if (n && !a->groups)
		ret = fare_err_set(e, -ENOMEM, "%s", strerror(ENOMEM));
	for (i = 0; !ret && i < n; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		ret = fare_group_get(a->f, ids[i], &a->groups[a->n_groups], e);
		/* No such group: fare.ko refuses the op itself. */
		if (ret == -ENOENT || ret == -ESRCH) {
			fare_err_clear(e);
			ret = 0;
		} else if (!ret) {
			a->n_groups++;
		}
	}
	free(ids);
	/* Each set of planes' nexthop group, before stage 3 points at it. */
	for (i = 0; !ret && i < a->limit; i++)
		ret = plane_group_ensure(a, i, e);
	return ret;
}

/*
 * Before stage 2: fare0's ifindex (0 without fare0: there is no plane, so
 * fare.ko refuses every add and stage 3 has nothing to do) and the rule
 * that makes the kernel routes count, for each family that is added.
 */
static int fib_prepare(struct apply *a, uint32_t *oif)
{
	struct fare_config cfg;
	struct fare_err e;
	bool done4 = false, done6 = false;
	size_t i;
	int ret;

	ret = fare_config_get(a->f, &cfg, &e);
	for (i = 0; !ret && cfg.ifindex && i < a->limit; i++) {
		uint8_t family = a->ops[i]->route.dst.family;

		if (is_del(a->ops[i]) || (family == AF_INET ? done4 : done6))
			continue;
		ret = fare_rtnl_rule_ensure(a->f, family, &e);
		if (family == AF_INET)
			done4 = true;
		else
			done6 = true;
	}
	if (!ret && cfg.ifindex)
		ret = plane_prepare(a, cfg.ifindex, &e);
	if (ret && a->err)
		*a->err = e;
	*oif = ret ? 0 : cfg.ifindex;
	return ret;
}

static int apply_run(struct fare *f, const struct fare_op *const *ops,
		     size_t n, size_t *failed, struct fare_err *err)
{
	struct apply a = {
		.f = f, .ops = ops, .n = n, .limit = n, .err = err,
	};
	uint32_t oif = 0;
	int ret, fib_ret;
	size_t i;

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
		ret = fib_prepare(&a, &oif);
	if (!ret && oif && a.limit && !fib_start(&a, oif, err))
		ret = err ? err->code : -ENOMEM;
	if (!ret)
		ret = genl_apply(&a);
	fib_ret = fib_finish(&a);
	if (!ret)
		ret = fib_ret;
out:
	for (i = 0; a.old && i < n; i++)
		free(a.old[i]);
	free(a.old);
	free(a.genl_ret);
	free(a.rtnl_ret);
	fare_plane_map_free(a.planes);
	free(a.groups);
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
		goto groups;

	/* The kernel routes first, so that no packet meets fare0 unrouted. */
	if (cfg.ifindex) {
		/* Requests 2i and 2i + 1: prefix i's plane route, its fare0 one. */
		ret = fare_pipe_init(&p, f, f->rtnl, 2 * l.n, NULL, NULL, err);
		if (ret)
			goto out;
		for (i = 0; i < 2 * l.n && !ret; i++) {
			buf = fare_pipe_next(&p, FARE_ACK_COST, err);
			if (!buf) {
				ret = err ? err->code : -EIO;
				break;
			}
			if (i & 1)
				nlh = fare_rtnl_msg_route(buf, FARE_TX_SIZE,
							  RTM_DELROUTE,
							  fare_pipe_seq(&p, i),
							  &l.v[i / 2], NULL,
							  cfg.ifindex);
			else
				nlh = fare_rtnl_msg_plane_route(buf, FARE_TX_SIZE,
								fare_pipe_seq(&p, i),
								&l.v[i / 2],
								NULL, NULL, 0,
								NULL);
			fare_pipe_commit(&p, nlh);
		}
		if (!ret)
			ret = fare_pipe_sync(&p, err);
		for (i = 0; !ret && i < p.n; i++) {
			if (p.rets[i] && !gone(p.rets[i])) {
				char what[FARE_PREFIX_STRLEN];

				ret = fare_err_set(err, p.rets[i],
						   "removing the kernel route %s %s proto %d: %s",
						   fare_prefix_format(&l.v[i / 2],
								      what,
								      sizeof(what)),
						   i & 1 ? "dev " FARE_DEV_NAME :
						   "table " FARE_STR(FARE_PLANE_TABLE),
						   FARE_RTPROT,
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
groups:
	/* No plane route is left to need them (or one left before). */
	if (!ret && cfg.ifindex)
		ret = fare_nh_groups_remove(f, cfg.ifindex, NULL, err);
out:
	free(l.v);
	if (deleted)
		*deleted = count;
	return ret;
}
