// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's event loop: one epoll set, one timerfd armed at the earliest
 * software timer, and a signalfd. Single-threaded: its callbacks run on
 * the thread of loop_run() and may add and remove fds and timers,
 * including their own; another thread (fib_worker.h) reaches it through
 * an fd of its own only.
 */
#ifndef FARED_LOOP_H
#define FARED_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct loop;

struct io {
	int fd;
	uint32_t events;
	void (*fn)(struct io *io, uint32_t events);
	void *arg;
};

struct timer {
	uint64_t when;			/* CLOCK_MONOTONIC, ms */
	bool armed;
	void (*fn)(struct timer *t);
	void *arg;
	struct timer *next, *prev;
};

struct loop {
	int epfd;
	int tfd;
	int sfd;
	struct io tio, sio;
	struct timer *timers;
	uint64_t armed_at;		/* what the timerfd is set to, 0: none */
	void (*on_signal)(struct loop *l, int sig);
	void (*on_idle)(struct loop *l);	/* after each event */
	/* What must not wait for long work: see loop_tick(). */
	void (*on_tick)(struct loop *l);
	void *arg;
	bool stop;
};

uint64_t loop_now_ms(void);
/* Blocks sigs and delivers them through on_signal. 0 or -errno. */
int loop_init(struct loop *l, const int *sigs, int n_sigs);
void loop_fini(struct loop *l);
int loop_run(struct loop *l);
/*
 * Called now and then by work that holds the loop for long (seconds: a FIB
 * batch of many routes), so that what cannot wait (KEEPALIVEs) still runs.
 */
void loop_tick(struct loop *l);
/* Whether an event is ready now (loop_run() would not wait for one). */
bool loop_busy(const struct loop *l);

int io_add(struct loop *l, struct io *io, int fd, uint32_t events,
	   void (*fn)(struct io *, uint32_t), void *arg);
int io_set(struct loop *l, struct io *io, uint32_t events);
void io_del(struct loop *l, struct io *io);

void timer_init(struct timer *t, void (*fn)(struct timer *), void *arg);
void timer_set(struct loop *l, struct timer *t, uint64_t ms);
void timer_stop(struct loop *l, struct timer *t);
/* ms scaled into [0.75, 1.0) of itself, the RFC 4271 §10 jitter. */
uint64_t jitter_ms(uint64_t ms);

#endif /* FARED_LOOP_H */
