// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's event loop: timers fire in deadline order through the timerfd,
 * a callback may stop or free other timers, and the RFC 4271 §10 jitter
 * stays within [0.75, 1.0] of the interval.
 */
#include <stdlib.h>

#include "harness.h"
#include "loop.h"

static struct loop lp;
static int order[8];
static int n_fired;
static struct timer timers[4];

static void fired(struct timer *t)
{
	order[n_fired++] = (int)(t - timers);
	/* Timer 1 cancels timer 3, which would fire after it. */
	if (t == &timers[1])
		timer_stop(&lp, &timers[3]);
	if (n_fired == 3)
		lp.stop = true;
}

TEST(loop_timers_fire_in_deadline_order_and_may_stop_others)
{
	static const uint64_t ms[] = { 30, 10, 20, 40 };
	uint64_t start, before;
	int i;

	CHECK_INT(loop_init(&lp, NULL, 0), 0);
	start = loop_now_ms();
	for (i = 0; i < 4; i++) {
		timer_init(&timers[i], fired, NULL);
		before = loop_now_ms();
		timer_set(&lp, &timers[i], ms[i]);
		CHECK(timers[i].when >= before + ms[i]);
		CHECK(timers[i].when <= loop_now_ms() + ms[i]);
	}
	/*
	 * The order under test is the deadlines', so they count from one
	 * instant: under valgrind, niced beside a kernel build, the calls
	 * above came more than 20 ms apart and timer 0 fell due first (the
	 * cold run of b812ea3).
	 */
	for (i = 0; i < 4; i++)
		timers[i].when = start + ms[i];
	CHECK_INT(loop_run(&lp), 0);
	CHECK_INT(n_fired, 3);
	CHECK_INT(order[0], 1);
	CHECK_INT(order[1], 2);
	CHECK_INT(order[2], 0);
	CHECK(!timers[3].armed);
	CHECK(loop_now_ms() - start >= 30);
	loop_fini(&lp);
}

TEST(loop_jitter_stays_within_three_quarters_and_whole)
{
	uint64_t v, lo = 1000, hi = 0;
	int i;

	for (i = 0; i < 10000; i++) {
		v = jitter_ms(1000);
		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	CHECK(lo >= 750);
	CHECK(hi <= 1000);
	/* It does vary: 10000 draws cover most of the range. */
	CHECK(hi - lo > 200);
}
