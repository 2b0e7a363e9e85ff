// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event loop. Timers live in a plain list: fared has a handful per
 * neighbor, and a linear scan per event costs less than keeping a heap
 * straight while callbacks free the objects timers are embedded in.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

uint64_t loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t jitter_ms(uint64_t ms)
{
	return ms - ms * (uint64_t)(random() % 250) / 1000;
}

static void rearm(struct loop *l)
{
	struct itimerspec its = { 0 };
	uint64_t min = 0;
	struct timer *t;

	for (t = l->timers; t; t = t->next)
		if (!min || t->when < min)
			min = t->when;
	if (min == l->armed_at)
		return;
	l->armed_at = min;
	if (min) {
		/* An absolute time of 0 would disarm: never ask for it. */
		its.it_value.tv_sec = (time_t)(min / 1000);
		its.it_value.tv_nsec = (long)(min % 1000) * 1000000 + 1;
	}
	timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void timer_init(struct timer *t, void (*fn)(struct timer *), void *arg)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->arg = arg;
}

void timer_stop(struct loop *l, struct timer *t)
{
	if (!t->armed)
		return;
	if (t->prev)
		t->prev->next = t->next;
	else
		l->timers = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->next = t->prev = NULL;
	t->armed = false;
}

void timer_set(struct loop *l, struct timer *t, uint64_t ms)
{
	timer_stop(l, t);
	t->when = loop_now_ms() + ms;
	t->armed = true;
	t->prev = NULL;
	t->next = l->timers;
	if (l->timers)
		l->timers->prev = t;
	l->timers = t;
}

static void run_timers(struct loop *l)
{
	uint64_t now = loop_now_ms();
	struct timer *t, *first;

	/*
	 * Rescan after each callback: it may have freed any timer. Of those
	 * due, the earliest deadline goes first, however late the loop is.
	 */
	for (;;) {
		first = NULL;
		for (t = l->timers; t; t = t->next)
			if (t->when <= now && (!first || t->when < first->when))
				first = t;
		t = first;
		if (!t)
			return;
		timer_stop(l, t);
		t->fn(t);
		if (l->on_idle)
			l->on_idle(l);
	}
}

static void timer_ready(struct io *io, uint32_t events)
{
	struct loop *l = io->arg;
	uint64_t n;

	(void)events;
	if (read(l->tfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	l->armed_at = 0;
	run_timers(l);
}

static void signal_ready(struct io *io, uint32_t events)
{
	struct loop *l = io->arg;
	struct signalfd_siginfo si;

	(void)events;
	while (read(l->sfd, &si, sizeof(si)) == sizeof(si))
		if (l->on_signal)
			l->on_signal(l, (int)si.ssi_signo);
}

int io_add(struct loop *l, struct io *io, int fd, uint32_t events,
	   void (*fn)(struct io *, uint32_t), void *arg)
{
	struct epoll_event ev = { .events = events, .data.ptr = io };

	io->fd = fd;
	io->events = events;
	io->fn = fn;
	io->arg = arg;
	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int io_set(struct loop *l, struct io *io, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = io };

	if (io->events == events)
		return 0;
	io->events = events;
	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, io->fd, &ev) ? -errno : 0;
}

void io_del(struct loop *l, struct io *io)
{
	if (io->fd >= 0)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, io->fd, NULL);
	io->fd = -1;
}

int loop_init(struct loop *l, const int *sigs, int n_sigs)
{
	sigset_t set;
	int i;

	memset(l, 0, sizeof(*l));
	l->tfd = l->sfd = -1;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return -errno;
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	sigemptyset(&set);
	for (i = 0; i < n_sigs; i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == 0)
		l->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (l->tfd < 0 || l->sfd < 0 ||
	    io_add(l, &l->tio, l->tfd, EPOLLIN, timer_ready, l) ||
	    io_add(l, &l->sio, l->sfd, EPOLLIN, signal_ready, l)) {
		int err = -errno;

		loop_fini(l);
		return err ? err : -EINVAL;
	}
	return 0;
}

void loop_fini(struct loop *l)
{
	if (l->sfd >= 0)
		close(l->sfd);
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = l->tfd = l->sfd = -1;
}

int loop_run(struct loop *l)
{
	struct epoll_event ev;
	struct io *io;
	int n;

	while (!l->stop) {
		rearm(l);
		/*
		 * One event per wait: a callback may free the io of an event
		 * still pending in a batch.
		 */
		n = epoll_wait(l->epfd, &ev, 1, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			continue;
		io = ev.data.ptr;
		io->fn(io, ev.events);
		/* A timerfd wakeup can lag; run whatever is due now. */
		run_timers(l);
		if (l->on_idle)
			l->on_idle(l);
	}
	return 0;
}

void loop_tick(struct loop *l)
{
	if (l->on_tick)
		l->on_tick(l);
}

bool loop_busy(const struct loop *l)
{
	struct pollfd p = { .fd = l->epfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}
