// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the flowlet table (flowlet.c, flowlet.h): the mask
 * follows the size, sizes outside the range, not a power of two or above
 * the default without privilege are refused, a resize gives lookups a
 * working empty table (and the same size changes nothing), and resizing
 * while another thread reads and writes slots under RCU frees nothing a
 * reader still uses (KASAN and lockdep on the debug kernel watch that).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/rtnetlink.h>
#include "flowlet.h"

#define GAP_NS	(100 * NSEC_PER_USEC)

struct flowlet_ctx {
	struct fare_net fn;
};

static int flowlet_init(struct kunit *test)
{
	struct flowlet_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	mutex_init(&ctx->fn.lock);
	ctx->fn.flowlet_slots = FARE_FLOWLET_SLOTS_DEFAULT;
	test->priv = ctx;
	return 0;
}

static void flowlet_exit(struct kunit *test)
{
	struct flowlet_ctx *ctx = test->priv;

	/* As table_exit(): a failed assertion may have left it held. */
	if (!mutex_trylock(&ctx->fn.lock)) {
		KUNIT_FAIL(test, "the test ended holding the lock");
		return;
	}
	fare_flowlets_destroy(&ctx->fn);
	mutex_unlock(&ctx->fn.lock);
	/* The replaced tables' callbacks are this module's code. */
	rcu_barrier();
}

static int prepare(struct fare_net *fn)
{
	int err;

	rtnl_lock();
	err = fare_flowlets_prepare(fn);
	rtnl_unlock();
	return err;
}

static int resize(struct fare_net *fn, u32 slots)
{
	int err;

	mutex_lock(&fn->lock);
	err = fare_flowlets_resize(fn, slots);
	mutex_unlock(&fn->lock);
	return err;
}

static struct fare_flowlets *table(struct fare_net *fn)
{
	return rcu_dereference_protected(fn->flowlets, true);
}

/* Whether @hash's slot holds a live decision, and which (@value). */
static bool live_value(struct fare_net *fn, u32 hash, u64 now, u32 *value)
{
	bool live;

	rcu_read_lock();
	fare_slot(rcu_dereference(fn->flowlets), hash, now, GAP_NS, &live,
		  value);
	rcu_read_unlock();
	return live;
}

static void set_value(struct fare_net *fn, u32 hash, u32 value, u64 now)
{
	struct fare_flowlet *fl;
	bool live;
	u32 v;

	rcu_read_lock();
	fl = fare_slot(rcu_dereference(fn->flowlets), hash, now, GAP_NS,
		       &live, &v);
	fare_slot_set(fl, hash, value, now);
	rcu_read_unlock();
}

/* The mask is the size's, and a flow's slot is its hash's low bits. */
static void flowlet_mask_follows_the_size(struct kunit *test)
{
	static const u32 sizes[] = { FARE_FLOWLET_SLOTS_MIN, 4096, 65536,
				     FARE_FLOWLET_SLOTS_MAX };
	struct fare_flowlets *ft;
	struct fare_flowlet *fl;
	unsigned int i;
	bool live;
	u32 v;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ft = fare_flowlets_alloc(sizes[i]);
		KUNIT_ASSERT_NOT_NULL(test, ft);
		KUNIT_EXPECT_EQ(test, ft->mask, sizes[i] - 1);
		fl = fare_slot(ft, 0xdeadbeef, 1, GAP_NS, &live, &v);
		KUNIT_EXPECT_PTR_EQ(test, fl,
				    &ft->slot[0xdeadbeef & (sizes[i] - 1)]);
		KUNIT_EXPECT_FALSE(test, live);
		/* The last slot is inside the allocation (KASAN checks). */
		fl = fare_slot(ft, U32_MAX, 1, GAP_NS, &live, &v);
		KUNIT_EXPECT_PTR_EQ(test, fl, &ft->slot[sizes[i] - 1]);
		fare_slot_set(fl, U32_MAX, 7, 1);
		fare_slot(ft, U32_MAX, 2, GAP_NS, &live, &v);
		KUNIT_EXPECT_TRUE(test, live);
		KUNIT_EXPECT_EQ(test, v, 7U);
		/* Slot arrays of a page or more are page aligned. */
		KUNIT_EXPECT_EQ(test, (unsigned long)ft->slot % PAGE_SIZE, 0UL);
		fare_flowlets_free(ft);
	}
}

/* The handler's check, with the message a caller sees. */
static void flowlet_refuses_bad_sizes(struct kunit *test)
{
	struct netlink_ext_ack extack = { };

	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(128, true, NULL,
						       &extack), -ERANGE);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   "flowlet table size out of range (256..4194304 slots)");
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(FARE_FLOWLET_SLOTS_MAX * 2,
						       true, NULL, &extack),
			-ERANGE);
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(0, true, NULL, &extack),
			-ERANGE);
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(3000, true, NULL,
						       &extack), -EINVAL);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   "flowlet table size must be a power of two");
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(8192, false, NULL,
						       &extack), -EPERM);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   "a flowlet table above 4096 slots needs CAP_NET_ADMIN in the initial user namespace");
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(8192, true, NULL,
						       &extack), 0);
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(FARE_FLOWLET_SLOTS_MAX,
						       true, NULL, &extack), 0);
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(FARE_FLOWLET_SLOTS_DEFAULT,
						       false, NULL, &extack), 0);
	KUNIT_EXPECT_EQ(test, fare_flowlet_slots_check(FARE_FLOWLET_SLOTS_MIN,
						       false, NULL, &extack), 0);
	KUNIT_EXPECT_NULL(test, extack._msg);
}

/*
 * Before the table exists a resize only records the size, which the
 * table then takes; a resize gives an empty table that lookups use at
 * once (every flowlet starts anew); the same size again keeps the table
 * and its flowlets.
 */
static void flowlet_resize_keeps_lookups_working(struct kunit *test)
{
	struct flowlet_ctx *ctx = test->priv;
	struct fare_net *fn = &ctx->fn;
	struct fare_flowlets *before;
	u32 v, h1 = 0x12345678, h2 = 0x12345778;	/* same low 8 bits */

	KUNIT_ASSERT_EQ(test, resize(fn, 1024), 0);
	KUNIT_EXPECT_NULL(test, table(fn));
	KUNIT_EXPECT_EQ(test, fn->flowlet_slots, 1024U);
	KUNIT_ASSERT_EQ(test, prepare(fn), 0);
	KUNIT_ASSERT_NOT_NULL(test, table(fn));
	KUNIT_EXPECT_EQ(test, table(fn)->mask, 1023U);

	/* 1024 slots: h1 and h2 have slots of their own. */
	set_value(fn, h1, 1, 10);
	set_value(fn, h2, 2, 10);
	KUNIT_EXPECT_TRUE(test, live_value(fn, h1, 20, &v));
	KUNIT_EXPECT_EQ(test, v, 1U);
	KUNIT_EXPECT_TRUE(test, live_value(fn, h2, 20, &v));
	KUNIT_EXPECT_EQ(test, v, 2U);

	/* The same size: nothing changes. */
	before = table(fn);
	KUNIT_ASSERT_EQ(test, resize(fn, 1024), 0);
	KUNIT_EXPECT_PTR_EQ(test, table(fn), before);
	KUNIT_EXPECT_TRUE(test, live_value(fn, h1, 20, &v));

	/* 256 slots: a new, empty table, where h1 and h2 share a slot. */
	KUNIT_ASSERT_EQ(test, resize(fn, 256), 0);
	KUNIT_EXPECT_PTR_NE(test, table(fn), before);
	KUNIT_EXPECT_EQ(test, table(fn)->mask, 255U);
	KUNIT_EXPECT_EQ(test, fn->flowlet_slots, 256U);
	KUNIT_EXPECT_FALSE(test, live_value(fn, h1, 20, &v));
	KUNIT_EXPECT_FALSE(test, live_value(fn, h2, 20, &v));
	set_value(fn, h1, 3, 30);
	KUNIT_EXPECT_TRUE(test, live_value(fn, h1, 40, &v));
	KUNIT_EXPECT_EQ(test, v, 3U);
	/* h2 does not take h1's decision: the owner's hash differs. */
	KUNIT_EXPECT_FALSE(test, live_value(fn, h2, 40, &v));
	set_value(fn, h2, 4, 30);
	KUNIT_EXPECT_TRUE(test, live_value(fn, h2, 40, &v));
	KUNIT_EXPECT_EQ(test, v, 4U);
	KUNIT_EXPECT_FALSE(test, live_value(fn, h1, 40, &v));

	/* Growing works the same way; the decision ages out as before. */
	KUNIT_ASSERT_EQ(test, resize(fn, FARE_FLOWLET_SLOTS_MAX), 0);
	KUNIT_EXPECT_EQ(test, table(fn)->mask, FARE_FLOWLET_SLOTS_MAX - 1);
	set_value(fn, h1, 5, 50);
	KUNIT_EXPECT_TRUE(test, live_value(fn, h1, 50 + GAP_NS, &v));
	KUNIT_EXPECT_EQ(test, v, 5U);
	KUNIT_EXPECT_FALSE(test, live_value(fn, h1, 50 + 2 * GAP_NS, &v));
}

struct reader {
	struct fare_net *fn;
	struct completion started;
	unsigned long rounds;
};

/* A packet path: looks slots up and writes decisions until stopped. */
static int flowlet_reader(void *arg)
{
	struct reader *r = arg;
	struct fare_flowlet *fl;
	u32 hash = 0, v;
	bool live;

	complete(&r->started);
	while (!kthread_should_stop()) {
		rcu_read_lock_bh();
		rcu_read_lock();
		hash = hash * 2654435761U + 1;
		fl = fare_slot(rcu_dereference(r->fn->flowlets), hash,
			       r->rounds, GAP_NS, &live, &v);
		if (live)
			fare_slot_touch(fl, r->rounds, GAP_NS);
		else
			fare_slot_set(fl, hash, hash & 0xff, r->rounds);
		rcu_read_unlock();
		rcu_read_unlock_bh();
		r->rounds++;
		if (!(r->rounds & 1023))
			cond_resched();
	}
	return 0;
}

/*
 * Resizes 64 times while a reader uses the table: no use after free
 * (KASAN), no RCU or lock report (lockdep), and the last size holds.
 */
static void flowlet_resize_under_readers(struct kunit *test)
{
	struct flowlet_ctx *ctx = test->priv;
	struct reader r = { .fn = &ctx->fn };
	struct task_struct *t;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, prepare(&ctx->fn), 0);
	init_completion(&r.started);
	t = kthread_run(flowlet_reader, &r, "fare-flowlet-rd");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&r.started);
	for (i = 0; i < 64; i++) {
		KUNIT_EXPECT_EQ(test, resize(&ctx->fn, i & 1 ? 256 : 8192), 0);
		usleep_range(200, 400);
	}
	kthread_stop(t);
	KUNIT_EXPECT_GT(test, r.rounds, 0UL);
	KUNIT_EXPECT_EQ(test, table(&ctx->fn)->mask, 255U);
}

static struct kunit_case fare_flowlet_cases[] = {
	KUNIT_CASE(flowlet_mask_follows_the_size),
	KUNIT_CASE(flowlet_refuses_bad_sizes),
	KUNIT_CASE(flowlet_resize_keeps_lookups_working),
	KUNIT_CASE(flowlet_resize_under_readers),
	{}
};

static struct kunit_suite fare_flowlet_suite = {
	.name = "fare_flowlet",
	.init = flowlet_init,
	.exit = flowlet_exit,
	.test_cases = fare_flowlet_cases,
};

kunit_test_suite(fare_flowlet_suite);
