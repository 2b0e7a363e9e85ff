// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's FIB worker (see fib_worker.h).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fib_worker.h"

static void *run(void *arg)
{
	struct fib_worker *w = arg;
	uint64_t t0 = loop_now_ms(), one = 1;

	w->applied = w->n;
	w->ret = fare_routes_apply_ptrs(w->nl, w->ops, w->n, &w->applied,
					&w->err);
	w->wall_ms = loop_now_ms() - t0;
	/* The loop's wakeup; the join waits for the rest of the exit. */
	if (write(w->efd, &one, sizeof(one)) < 0) {
		/* Only on overflow, impossible at one write per batch. */
	}
	pthread_mutex_lock(&w->lock);
	w->finished = true;
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void finish(struct fib_worker *w)
{
	uint64_t n;

	pthread_join(w->thread, NULL);
	w->busy = false;
	/* Written before the thread returned: clears the wakeup. */
	if (read(w->efd, &n, sizeof(n)) < 0) {
		/* EAGAIN: the loop's callback read it already. */
	}
	w->done(w);
}

static void ready(struct io *io, uint32_t events)
{
	struct fib_worker *w = io->arg;
	uint64_t n;

	(void)events;
	if (w->busy)
		finish(w);
	else if (read(w->efd, &n, sizeof(n)) < 0) {
		/* Nothing there: a wakeup finish() cleared already. */
	}
}

int fib_worker_open(struct fib_worker *w, struct loop *l,
		    void (*done)(struct fib_worker *w), void *arg)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->loop = l;
	w->done = done;
	w->arg = arg;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0)
		return -errno;
	ret = fare_open(&w->nl, &w->err);
	if (!ret)
		ret = io_add(l, &w->io, w->efd, EPOLLIN, ready, w);
	if (ret) {
		fare_close(w->nl);
		w->nl = NULL;
		close(w->efd);
		w->efd = -1;
		return ret;
	}
	pthread_mutex_init(&w->lock, NULL);
	return 0;
}

bool fib_worker_is_open(const struct fib_worker *w)
{
	return w->nl != NULL;
}

int fib_worker_start(struct fib_worker *w, const struct fare_op *const *ops,
		     size_t n)
{
	int ret;

	if (!w->nl || w->busy)
		return -EBUSY;
	w->ops = ops;
	w->n = n;
	w->ret = 0;
	w->applied = 0;
	memset(&w->err, 0, sizeof(w->err));
	/* No thread runs: no lock needed. */
	w->finished = false;
	ret = pthread_create(&w->thread, NULL, run, w);
	if (ret)
		return -ret;
	w->busy = true;
	return 0;
}

bool fib_worker_poll(struct fib_worker *w)
{
	bool done;

	if (!w->busy)
		return false;
	pthread_mutex_lock(&w->lock);
	done = w->finished;
	pthread_mutex_unlock(&w->lock);
	if (done)
		finish(w);
	return done;
}

void fib_worker_wait(struct fib_worker *w)
{
	if (w->busy)
		finish(w);
}

void fib_worker_close(struct fib_worker *w)
{
	if (!w->nl)
		return;
	fib_worker_wait(w);
	io_del(w->loop, &w->io);
	close(w->efd);
	w->efd = -1;
	fare_close(w->nl);
	w->nl = NULL;
	pthread_mutex_destroy(&w->lock);
}
