// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's FIB worker: a thread that applies one batch of fare.ko route ops
 * (fare_fib_take()) with a libfare handle of its own (its own genl and
 * rtnl sockets), while the event loop goes on reading BGP. Used during a
 * host's start-up wait only (fare_sync.c): most of the table is in fare.ko
 * and fare's kernel table by the last End-of-RIB, on a second CPU.
 *
 * A thread per batch: pthread_create() hands the batch over, the thread
 * writes an eventfd in the loop when it is done, and the main thread
 * joins it (then, or in fib_worker_wait()) before it reads the result.
 * Between the two the thread alone touches the job fields below; outside
 * of them the main thread alone does: create and join order the accesses,
 * so no lock is needed. No thread exists while no batch is out.
 */
#ifndef FARED_FIB_WORKER_H
#define FARED_FIB_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libfare.h"
#include "loop.h"

struct fib_worker {
	struct loop *loop;
	struct fare *nl;		/* the thread's handle; NULL: closed */
	int efd;			/* eventfd: the batch is done */
	struct io io;
	bool busy;			/* a thread started and not joined */
	pthread_t thread;
	/*
	 * lock protects finished alone: set by the thread last, read by
	 * fib_worker_poll(), so that the loop hands over the next batch as
	 * soon as one is done rather than when the eventfd's turn comes.
	 */
	pthread_mutex_t lock;
	bool finished;
	/* On the main thread, after the join: the result is in the job. */
	void (*done)(struct fib_worker *w);
	void *arg;
	/* The job: the thread's between create and join (see above). */
	const struct fare_op *const *ops;	/* read only */
	size_t n;
	int ret;			/* fare_routes_apply()'s */
	size_t applied;			/* ops applied (ret: the failed one) */
	struct fare_err err;
	uint64_t wall_ms;		/* the thread's time on the batch */
};

/*
 * The handle (in the calling thread's network namespace) and the eventfd
 * in loop l; 0 or -errno (nothing open then).
 */
int fib_worker_open(struct fib_worker *w, struct loop *l,
		    void (*done)(struct fib_worker *w), void *arg);
bool fib_worker_is_open(const struct fib_worker *w);
/* Starts a thread on ops[0..n-1] (kept intact until done); 0 or -errno. */
int fib_worker_start(struct fib_worker *w, const struct fare_op *const *ops,
		     size_t n);
/* If the thread is done: joined and done() called; whether it was. */
bool fib_worker_poll(struct fib_worker *w);
/* The batch out, if any, is finished: joined and done() called. */
void fib_worker_wait(struct fib_worker *w);
/* fib_worker_wait(), then the handle and the eventfd are closed. */
void fib_worker_close(struct fib_worker *w);

#endif /* FARED_FIB_WORKER_H */
