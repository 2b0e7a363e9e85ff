// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for fare's prefix table: longest-prefix match over IPv4 and
 * IPv6 with overlapping prefixes, host routes beside their aggregate, and
 * a randomized comparison against a naive linear search.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include "route.h"
#include "nhg.h"
#include "stats.h"

struct table_ctx {
	struct fare_net fn;
	struct fare_budget budget;	/* the namespace's */
};

static int table_init(struct kunit *test)
{
	struct table_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	mutex_init(&ctx->fn.lock);
	fare_budget_init(&ctx->budget, NULL);
	ctx->fn.budget = &ctx->budget;
	KUNIT_ASSERT_EQ(test, fare_table_init(&ctx->fn), 0);
	test->priv = ctx;
	return 0;
}

/*
 * Every test's routes and groups are charged to the memory budget as
 * netlink's would be, and every byte charged is released with them.
 */
static void table_exit(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;

	/*
	 * A failed assertion ends the test where it stands, the lock held
	 * by a thread that is gone: the table is left (the test has failed)
	 * rather than the suite waiting forever for it.
	 */
	if (!mutex_trylock(&ctx->fn.lock)) {
		KUNIT_FAIL(test, "the test ended holding the table's lock");
		return;
	}
	fare_table_destroy(&ctx->fn);
	KUNIT_EXPECT_EQ(test, ctx->fn.budget->used, 0ULL);
	mutex_unlock(&ctx->fn.lock);
	rcu_barrier();
}

/* Charges @rt, put in the table directly, as fare_route_set() would. */
static void charge_route(struct fare_net *fn, struct fare_route *rt)
{
	fn->budget->used += fare_route_held(fn, rt);
	fn->mem_held += fare_route_held(fn, rt);
}

/* Adds family/addr/plen; the route's mode records @tag for identification. */
static struct fare_route *add(struct kunit *test, u8 family, const void *addr,
			      u8 plen, u8 tag)
{
	struct table_ctx *ctx = test->priv;
	struct fare_route *rt = kzalloc(sizeof(*rt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rt);
	KUNIT_ASSERT_EQ(test, fare_prefix_make(&rt->key, family, addr, plen), 0);
	rt->mode = tag;
	mutex_lock(&ctx->fn.lock);
	KUNIT_ASSERT_EQ(test, fare_route_insert(&ctx->fn, rt), 0);
	charge_route(&ctx->fn, rt);
	mutex_unlock(&ctx->fn.lock);
	return rt;
}

static int lookup_tag(struct kunit *test, u8 family, const void *addr)
{
	struct table_ctx *ctx = test->priv;
	struct fare_route *rt;
	int tag;

	rcu_read_lock();
	rt = fare_route_lookup(&ctx->fn, family, addr);
	tag = rt ? rt->mode : -1;
	rcu_read_unlock();
	return tag;
}

static void lpm_v4_prefers_host_route_over_aggregate(struct kunit *test)
{
	__be32 agg = htonl(0x0a000000), host = htonl(0x0a000105);
	__be32 other = htonl(0x0a000106), outside = htonl(0x0b000001);

	add(test, AF_INET, &agg, 16, 1);
	add(test, AF_INET, &host, 32, 2);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &host), 2);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &other), 1);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &outside), -1);
}

static void lpm_v4_overlapping_prefixes_and_default(struct kunit *test)
{
	__be32 any = 0, p8 = htonl(0x0a000000), p24 = htonl(0x0a010200);
	__be32 a = htonl(0x0a010203), b = htonl(0x0a020304);
	__be32 c = htonl(0xc0000201);

	add(test, AF_INET, &any, 0, 1);
	add(test, AF_INET, &p8, 8, 2);
	add(test, AF_INET, &p24, 24, 3);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &a), 3);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &b), 2);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &c), 1);
}

static void lpm_ignores_host_bits_of_the_prefix(struct kunit *test)
{
	__be32 sloppy = htonl(0x0a0101ff), inside = htonl(0x0a010101);
	struct table_ctx *ctx = test->priv;
	struct fare_prefix key;
	__be32 clean = htonl(0x0a010100);

	add(test, AF_INET, &sloppy, 24, 7);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &inside), 7);
	KUNIT_ASSERT_EQ(test, fare_prefix_make(&key, AF_INET, &clean, 24), 0);
	KUNIT_EXPECT_NOT_NULL(test, fare_route_find(&ctx->fn, &key));
}

static void lpm_v6_prefers_longest_and_keeps_families_apart(struct kunit *test)
{
	struct in6_addr p32 = { .s6_addr = { 0x20, 0x01, 0x0d, 0xb8 } };
	struct in6_addr p64 = { .s6_addr = { 0x20, 0x01, 0x0d, 0xb8, 0, 1 } };
	struct in6_addr host = p64, near = p64, far = p32;
	__be32 v4 = htonl(0x20010db8);

	host.s6_addr[15] = 7;
	near.s6_addr[15] = 8;
	far.s6_addr[5] = 2;
	add(test, AF_INET6, &p32, 32, 1);
	add(test, AF_INET6, &p64, 64, 2);
	add(test, AF_INET6, &host, 128, 3);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET6, &host), 3);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET6, &near), 2);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET6, &far), 1);
	/* The IPv4 address with the same first bytes matches nothing. */
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &v4), -1);
}

static void lpm_forgets_removed_prefix_lengths(struct kunit *test)
{
	__be32 agg = htonl(0x0a000000), host = htonl(0x0a000001);
	struct table_ctx *ctx = test->priv;
	struct fare_route *rt;

	add(test, AF_INET, &agg, 8, 1);
	rt = add(test, AF_INET, &host, 32, 2);
	mutex_lock(&ctx->fn.lock);
	fare_route_remove(&ctx->fn, rt);
	fare_route_free(&ctx->fn, rt);
	mutex_unlock(&ctx->fn.lock);
	KUNIT_EXPECT_EQ(test, lookup_tag(test, AF_INET, &host), 1);
	KUNIT_EXPECT_FALSE(test, test_bit(32, ctx->fn.plens4));
	KUNIT_EXPECT_TRUE(test, test_bit(8, ctx->fn.plens4));
}

/* Whether IPv4 prefix @addr/@plen covers @probe (host order). */
static bool v4_covers(u32 addr, u8 plen, u32 probe)
{
	u32 mask = plen ? ~0U << (32 - plen) : 0;

	return (probe & mask) == addr;
}

/*
 * The aggregates' interval index against a linear scan while they grow
 * past FARE_AGG_MAX (no index: one probe per length), shrink below half
 * of it (an index again, built from the route list) and are replaced,
 * beside host routes; each step checks random and boundary probes.
 */
static void lpm_index_matches_naive_search_across_its_limits(struct kunit *test)
{
	enum { AGGS = FARE_AGG_MAX + 120, HOSTS = 64 };
	struct table_ctx *ctx = test->priv;
	struct { u32 addr; u8 plen; bool on; struct fare_route *rt; } *ref;
	struct rnd_state rnd;
	unsigned int i, j, step, on = 0;

	ref = kunit_kcalloc(test, AGGS + HOSTS, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	prandom_seed_state(&rnd, 14);
	for (i = 0; i < AGGS + HOSTS; i++) {
		u8 plen = i < AGGS ? 8 + prandom_u32_state(&rnd) % 24 : 32;
		u32 a = 0x0a000000 | (prandom_u32_state(&rnd) & 0x00ffffff);

		ref[i].addr = plen ? a & ~0U << (32 - plen) : 0;
		ref[i].plen = plen;
	}
	for (step = 0; step < 5; step++) {
		/*
		 * 0: hosts and half the aggregates; 1: all (over the limit);
		 * 2: a quarter; 3: the same, some replaced; 4: nothing.
		 */
		for (i = 0; i < AGGS + HOSTS; i++) {
			bool want = i >= AGGS ? step < 4 :
				    step == 0 ? i % 2 == 0 :
				    step == 1 ? true :
				    step == 2 || step == 3 ? i % 4 == 0 : false;
			__be32 be = htonl(ref[i].addr);
			struct fare_prefix key;

			if (want == ref[i].on)
				continue;
			fare_prefix_make(&key, AF_INET, &be, ref[i].plen);
			mutex_lock(&ctx->fn.lock);
			if (want && fare_route_find(&ctx->fn, &key)) {
				mutex_unlock(&ctx->fn.lock);
				continue;	/* a duplicate prefix */
			}
			mutex_unlock(&ctx->fn.lock);
			if (want) {
				ref[i].rt = add(test, AF_INET, &be, ref[i].plen,
						i % 250);
			} else {
				mutex_lock(&ctx->fn.lock);
				fare_route_remove(&ctx->fn, ref[i].rt);
				fare_route_free(&ctx->fn, ref[i].rt);
				mutex_unlock(&ctx->fn.lock);
				ref[i].rt = NULL;
			}
			ref[i].on = want;
		}
		if (step == 3) {
			/* Replaced routes: the index names the new ones. */
			for (i = 0; i < AGGS; i += 8) {
				struct fare_route *new;

				if (!ref[i].on)
					continue;
				new = kzalloc(sizeof(*new), GFP_KERNEL);
				KUNIT_ASSERT_NOT_NULL(test, new);
				new->key = ref[i].rt->key;
				new->mode = (i + 1) % 250;
				mutex_lock(&ctx->fn.lock);
				KUNIT_ASSERT_EQ(test,
						fare_route_swap(&ctx->fn,
								ref[i].rt, new),
						0);
				charge_route(&ctx->fn, new);
				fare_route_free(&ctx->fn, ref[i].rt);
				mutex_unlock(&ctx->fn.lock);
				ref[i].rt = new;
			}
		}
		for (i = 0, on = 0; i < AGGS; i++)
			on += ref[i].on;
		mutex_lock(&ctx->fn.lock);
		KUNIT_EXPECT_EQ(test, ctx->fn.num_agg[0], on);
		/* An index at the start, none over the limit, one again. */
		KUNIT_EXPECT_EQ_MSG(test,
				    !!rcu_dereference_protected(ctx->fn.agg[0],
								true),
				    step != 1, "step %u", step);
		mutex_unlock(&ctx->fn.lock);
		for (j = 0; j < 4000; j++) {
			u32 probe = 0x0a000000 |
				    (prandom_u32_state(&rnd) & 0x00ffffff);
			int best = -1, best_plen = -1;
			__be32 p;

			/* Every fourth probe just outside a prefix. */
			if (j % 4 == 0) {
				i = prandom_u32_state(&rnd) % AGGS;
				if (j % 8)
					probe = ref[i].addr +
						(1U << (32 - ref[i].plen));
				else
					probe = ref[i].addr - 1;
			}
			for (i = 0; i < AGGS + HOSTS; i++)
				if (ref[i].on && ref[i].plen > best_plen &&
				    v4_covers(ref[i].addr, ref[i].plen, probe)) {
					best = ref[i].rt->mode;
					best_plen = ref[i].plen;
				}
			p = htonl(probe);
			KUNIT_ASSERT_EQ_MSG(test, lookup_tag(test, AF_INET, &p),
					    best, "step %u probe %pI4", step, &p);
		}
	}
}

/* The table agrees with a linear scan over random overlapping prefixes. */
static void lpm_matches_naive_search(struct kunit *test)
{
	enum { ROUTES = 300, PROBES = 3000 };
	struct { __be32 addr; u8 plen; } *ref;
	struct rnd_state rnd;
	unsigned int i, j;

	ref = kunit_kcalloc(test, ROUTES, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	prandom_seed_state(&rnd, 42);
	for (i = 0; i < ROUTES; i++) {
		struct table_ctx *ctx = test->priv;
		struct fare_prefix key;
		u8 plen = 8 + prandom_u32_state(&rnd) % 25;
		u32 a = 0x0a000000 | (prandom_u32_state(&rnd) & 0x00ffffff);

		a &= plen ? ~0U << (32 - plen) : 0;
		ref[i].addr = htonl(a);
		ref[i].plen = plen;
		fare_prefix_make(&key, AF_INET, &ref[i].addr, plen);
		if (fare_route_find(&ctx->fn, &key)) {
			ref[i].plen = 0xff;	/* duplicate: not added */
			continue;
		}
		add(test, AF_INET, &ref[i].addr, plen, i % 250);
	}
	for (j = 0; j < PROBES; j++) {
		u32 probe = 0x0a000000 | (prandom_u32_state(&rnd) & 0x00ffffff);
		__be32 p = htonl(probe);
		int best = -1, best_plen = -1;

		for (i = 0; i < ROUTES; i++) {
			u32 mask;

			if (ref[i].plen == 0xff)
				continue;
			/* A shift by 32 or more is undefined (UBSAN). */
			mask = ref[i].plen ? ~0U << (32 - ref[i].plen) : 0;
			if ((probe & mask) == ntohl(ref[i].addr) &&
			    ref[i].plen > best_plen) {
				best = i % 250;
				best_plen = ref[i].plen;
			}
		}
		KUNIT_ASSERT_EQ_MSG(test, lookup_tag(test, AF_INET, &p), best,
				    "probe %pI4", &p);
	}
}

/* Whether the first @plen bits of @a and @b agree. */
static bool v6_prefix_match(const struct in6_addr *a, const struct in6_addr *b,
			    unsigned int plen)
{
	if (memcmp(a->s6_addr, b->s6_addr, plen / 8))
		return false;
	return !(plen % 8) ||
	       !((a->s6_addr[plen / 8] ^ b->s6_addr[plen / 8]) &
		 (0xff << (8 - plen % 8)));
}

/*
 * IPv6 against a linear scan: prefixes of every length 0..128 (most not a
 * multiple of 8) nested under 2001:db8::/32, a default route, and probes
 * drawn near the prefixes so that deep matches happen.
 */
static void lpm_v6_matches_naive_search(struct kunit *test)
{
	enum { ROUTES = 200, PROBES = 1000 };
	struct table_ctx *ctx = test->priv;
	struct { struct in6_addr addr; int plen; } *ref;
	struct in6_addr zero = { };
	struct rnd_state rnd;
	unsigned int i, j, k;

	ref = kunit_kcalloc(test, ROUTES, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	prandom_seed_state(&rnd, 6);
	add(test, AF_INET6, &zero, 0, 250);
	for (i = 0; i < ROUTES; i++) {
		struct fare_prefix key;
		u8 plen = 32 + prandom_u32_state(&rnd) % 97;

		prandom_bytes_state(&rnd, ref[i].addr.s6_addr, 16);
		ref[i].addr.s6_addr32[0] = htonl(0x20010db8);
		/* Few distinct bits after /32, so prefixes nest. */
		ref[i].addr.s6_addr[4] &= 0x3;
		fare_prefix_make(&key, AF_INET6, &ref[i].addr, plen);
		memcpy(ref[i].addr.s6_addr, key.addr, 16);
		ref[i].plen = plen;
		if (fare_route_find(&ctx->fn, &key)) {
			ref[i].plen = -1;
			continue;
		}
		add(test, AF_INET6, &ref[i].addr, plen, i);
	}
	for (j = 0; j < PROBES; j++) {
		struct in6_addr p = ref[j % ROUTES].addr;
		int best = 250, best_plen = 0;

		/* Flip one random bit at or after bit 32. */
		k = 32 + prandom_u32_state(&rnd) % 96;
		p.s6_addr[k / 8] ^= 0x80 >> (k % 8);
		for (i = 0; i < ROUTES; i++) {
			if (ref[i].plen > best_plen &&
			    v6_prefix_match(&p, &ref[i].addr, ref[i].plen)) {
				best = i;
				best_plen = ref[i].plen;
			}
		}
		KUNIT_ASSERT_EQ_MSG(test, lookup_tag(test, AF_INET6, &p), best,
				    "probe %pI6c", &p);
		/* KASAN under TCG is slow: let the watchdogs see progress. */
		cond_resched();
	}
}

/*
 * A new group's schedules start at a random point of their period: of 64
 * routes over two equal next hops, the first packet does not go to the
 * same hop on all of them (all 64 alike: probability 2^-63).
 */
static void group_schedule_starts_at_a_random_phase(struct kunit *test)
{
	unsigned int first[2] = { }, r, i;
	struct fare_group *grp;

	for (r = 0; r < 64; r++) {
		grp = fare_group_alloc(2);
		KUNIT_ASSERT_NOT_NULL(test, grp);
		for (i = 0; i < 2; i++) {
			grp->nh[i].plane_id = i + 1;
			grp->nh[i].weight = 1;
			grp->weights[i] = 1;
		}
		KUNIT_ASSERT_EQ(test, fare_group_finish(grp), 0);
		preempt_disable();
		i = fare_spray_pick(grp->weights, this_cpu_ptr(grp->spray),
				    3, 2);
		preempt_enable();
		KUNIT_ASSERT_LT(test, i, 2U);
		first[i]++;
		fare_group_free_rcu(grp);
	}
	KUNIT_EXPECT_GT(test, first[0], 0U);
	KUNIT_EXPECT_GT(test, first[1], 0U);
}

/*
 * The largest group the policy admits, 64 next hops over the 8 tiers,
 * gets its per-CPU state (without the allocator's size WARN).
 */
static void group_of_the_largest_size_allocates(struct kunit *test)
{
	struct fare_group *grp = fare_group_alloc(FARE_NEXTHOP_MAX);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, grp);
	for (i = 0; i < FARE_NEXTHOP_MAX; i++) {
		grp->nh[i].plane_id = i + 1;
		grp->weights[i] = i + 1;
		grp->tiers[i] = i % (FARE_TIER_MAX + 1);
	}
	KUNIT_EXPECT_EQ(test, fare_group_finish(grp), 0);
	KUNIT_EXPECT_EQ(test, grp->num_tiers, FARE_TIER_MAX + 1U);
	fare_group_free_rcu(grp);
	rcu_barrier();
}

/*
 * A group over planes 1..@n with @weights, filled but not finished: what
 * fare_nhg_get_anon() and fare_nhg_set() take.
 */
static struct fare_group *mkgroup(struct kunit *test, unsigned int n,
				  const u32 *weights)
{
	struct fare_group *grp = fare_group_alloc(n);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, grp);
	for (i = 0; i < n; i++) {
		grp->nh[i].plane_id = i + 1;
		grp->nh[i].weight = weights[i];
		grp->weights[i] = weights[i];
	}
	return grp;
}

/*
 * What packets write in a group stays out of what they read: a group of
 * several tiers has its virtual queues in whole cache lines of their own,
 * one of one tier none; each CPU's deficit baselines follow its own
 * counters, within its own per-CPU area.
 */
static void group_keeps_packet_writes_apart(struct kunit *test)
{
	static const u32 w[] = { 5, 3, 2 };
	struct fare_group *grp = fare_group_alloc(3);
	unsigned int i, cpu;

	KUNIT_ASSERT_NOT_NULL(test, grp);
	for (i = 0; i < 3; i++) {
		grp->nh[i].plane_id = i + 1;
		grp->weights[i] = w[i];
		grp->tiers[i] = i == 2;
	}
	KUNIT_ASSERT_EQ(test, fare_group_finish(grp), 0);
	KUNIT_ASSERT_NOT_NULL(test, grp->vq);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)grp->vq,
					   L1_CACHE_BYTES));
	KUNIT_EXPECT_GE(test, ksize(grp->vq), (size_t)L1_CACHE_BYTES);
	for_each_possible_cpu(cpu) {
		struct fare_group_tx *gtx = per_cpu_ptr(grp->tx, cpu);
		char *end = (char *)gtx + fare_group_tx_size(3);

		KUNIT_EXPECT_GE(test, (unsigned long)gtx->deficit.sent,
				(unsigned long)&gtx->nh[3]);
		KUNIT_EXPECT_LE(test, (unsigned long)&gtx->deficit.sent[3],
				(unsigned long)end);
	}
	fare_group_free_rcu(grp);

	grp = mkgroup(test, 3, w);
	KUNIT_ASSERT_EQ(test, fare_group_finish(grp), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)grp->vq, NULL);
	fare_group_free_rcu(grp);
	rcu_barrier();
}

/*
 * A group precomputes each tier's period where it is short: 5:3:2 over
 * tier 0 and 4:4 (period 2) over tier 1; none for 1000:999.
 */
static void group_precomputes_short_periods(struct kunit *test)
{
	static const u32 w[] = { 5, 3, 2 }, w2[] = { 1000, 999 };
	struct fare_group *grp = fare_group_alloc(5);
	unsigned int i, c[5] = { };

	KUNIT_ASSERT_NOT_NULL(test, grp);
	for (i = 0; i < 5; i++) {
		grp->nh[i].plane_id = i + 1;
		grp->weights[i] = i < 3 ? w[i] : 4;
		grp->tiers[i] = i < 3 ? 0 : 1;
	}
	KUNIT_ASSERT_EQ(test, fare_group_finish(grp), 0);
	KUNIT_ASSERT_EQ(test, grp->num_tiers, 2U);
	KUNIT_EXPECT_EQ(test, grp->sched[0].members, 0x7ULL);
	KUNIT_EXPECT_EQ(test, grp->sched[0].len, 10U);
	KUNIT_EXPECT_EQ(test, grp->sched[1].members, 0x18ULL);
	KUNIT_EXPECT_EQ(test, grp->sched[1].len, 2U);
	for (i = 0; i < 12; i++)
		c[grp->seq[i]]++;
	KUNIT_EXPECT_EQ(test, c[0], 5U);
	KUNIT_EXPECT_EQ(test, c[1], 3U);
	KUNIT_EXPECT_EQ(test, c[2], 2U);
	KUNIT_EXPECT_EQ(test, c[3], 1U);
	KUNIT_EXPECT_EQ(test, c[4], 1U);
	fare_group_free_rcu(grp);

	grp = mkgroup(test, 2, w2);
	KUNIT_ASSERT_EQ(test, fare_group_finish(grp), 0);
	KUNIT_EXPECT_EQ(test, grp->sched[0].len, 0U);
	/* Sprayed all the same, by the computed schedule. */
	preempt_disable();
	for (i = 0; i < 1999; i++)
		c[fare_group_spray_pick(grp, 0, 0x3)]++;
	preempt_enable();
	KUNIT_EXPECT_EQ(test, c[0], 5U + 1000);
	KUNIT_EXPECT_EQ(test, c[1], 3U + 999);
	fare_group_free_rcu(grp);
	rcu_barrier();
}

/* A host route 10.0.0.@host over @nhg, its counters if @stats. */
static struct fare_route *add_on(struct kunit *test, u8 host,
				 struct fare_nhg *nhg, bool stats)
{
	struct table_ctx *ctx = test->priv;
	u8 addr[4] = { 10, 0, 0, host };
	struct fare_route_stats *st = NULL;
	struct fare_route *rt;

	if (stats) {
		st = fare_route_stats_alloc(rcu_dereference_protected(nhg->grp,
								      true));
		KUNIT_ASSERT_NOT_NULL(test, st);
	}
	rt = fare_route_alloc(st);
	KUNIT_ASSERT_NOT_NULL(test, rt);
	KUNIT_ASSERT_EQ(test, fare_prefix_make(&rt->key, AF_INET, addr, 32), 0);
	rt->mode = FARE_MODE_PACKET;
	RCU_INIT_POINTER(rt->nhg, nhg);
	mutex_lock(&ctx->fn.lock);
	KUNIT_ASSERT_EQ(test, fare_route_insert(&ctx->fn, rt), 0);
	charge_route(&ctx->fn, rt);
	mutex_unlock(&ctx->fn.lock);
	return rt;
}

/* Packets of @rt's next hop @i among @picks per-packet picks on this CPU. */
static unsigned int spray_count(struct fare_route *rt, unsigned int picks,
				unsigned int i)
{
	struct fare_group *grp;
	unsigned int n = 0;

	rcu_read_lock();
	grp = rcu_dereference(rcu_dereference(rt->nhg)->grp);
	preempt_disable();
	while (picks--)
		n += fare_group_spray_pick(grp, 0,
					   BIT_ULL(grp->num_nh) - 1) == i;
	preempt_enable();
	rcu_read_unlock();
	return n;
}

/* The next hops of @nhg; under @fn's lock. */
static const struct fare_group *fare_nhg_grp(struct fare_net *fn,
					     struct fare_nhg *nhg)
{
	return rcu_dereference_protected(nhg->grp, lockdep_is_held(&fn->lock));
}

/* Whether @grp's flow buckets hold each of its next hops' quota. */
static bool buckets_hold_quotas(const struct fare_group *grp)
{
	u32 quota[8] = { 0 }, count[8] = { 0 };
	u64 members = GENMASK_ULL(grp->num_nh - 1, 0);
	unsigned int b, i;

	if (grp->num_nh > ARRAY_SIZE(quota))
		return false;
	fare_buckets_quota(quota, grp->weights, members, grp->num_nh);
	for (b = 0; b < FARE_BUCKETS; b++) {
		if (grp->buckets[b] >= grp->num_nh)
			return false;
		count[grp->buckets[b]]++;
	}
	for (i = 0; i < grp->num_nh; i++)
		if (count[i] != quota[i])
			return false;
	return true;
}

/*
 * Two routes given the same next hops inline share one anonymous group;
 * different next hops make another, each with its flow buckets laid out;
 * the group goes with its last route.
 */
static void routes_with_the_same_next_hops_share_one_group(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 w[] = { 1, 2, 3, 4 }, w2[] = { 4, 3, 2, 1 };
	struct fare_nhg *a, *b, *c;
	u32 id;

	mutex_lock(&ctx->fn.lock);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 4, w),
						NULL, 0, 0, &a, NULL), 0);
	KUNIT_EXPECT_TRUE(test, buckets_hold_quotas(fare_nhg_grp(&ctx->fn, a)));
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 4, w),
						NULL, 0, 0, &b, NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_EQ(test, a->refs, 2U);
	KUNIT_EXPECT_GT(test, a->id, (u32)FARE_GROUP_ID_MAX);
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 1U);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 4, w2),
						NULL, 0, 0, &c, NULL), 0);
	KUNIT_EXPECT_PTR_NE(test, a, c);
	KUNIT_EXPECT_TRUE(test, buckets_hold_quotas(fare_nhg_grp(&ctx->fn, c)));
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 2U);
	id = a->id;
	fare_nhg_put(&ctx->fn, a);
	fare_nhg_put(&ctx->fn, b);
	KUNIT_EXPECT_NULL(test, fare_nhg_find(&ctx->fn, id));
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 1U);
	fare_nhg_put(&ctx->fn, c);
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 0U);
	mutex_unlock(&ctx->fn.lock);
}

/* Buckets of @a whose plane differs in @b (both over the same planes). */
static unsigned int buckets_moved(const struct fare_group *a,
				  const struct fare_group *b)
{
	unsigned int i, moved = 0;

	for (i = 0; i < FARE_BUCKETS; i++)
		moved += a->nh[a->buckets[i]].plane_id !=
			 b->nh[b->buckets[i]].plane_id;
	return moved;
}

/*
 * A route replaced onto next hops that another route's group already has
 * moves no more of its flows than its new weights need (datapath.md): it
 * shares that group only if the group's buckets are the ones its own
 * history gives, else it gets a group of its own. Here the other group
 * (3:1, reached from 1:1:2 over three planes) has its buckets laid out
 * unlike those 1:1 -> 3:1 gives (once the route took them, 192 of 256
 * flows moved instead of 64); two routes moved together from one group
 * still share the result.
 */
static void replaced_route_keeps_its_flows_beside_an_equal_group(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 even[] = { 1, 1 }, skew[] = { 3, 1 };
	static const u32 three[] = { 1, 1, 2 };
	struct fare_nhg *g1, *gx, *g2, *mine, *also, *dropped;
	const struct fare_group *old, *other, *got;
	u32 quota[2], need = 0, i;

	mutex_lock(&ctx->fn.lock);
	/* Two routes on 1:1; another route reaches 3:1 from 1:1:2. */
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 2, even),
						NULL, 0, 0, &g1, NULL), 0);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 2, even),
						NULL, 0, 0, &dropped, NULL), 0);
	KUNIT_ASSERT_PTR_EQ(test, g1, dropped);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn,
						mkgroup(test, 3, three),
						NULL, 0, 0, &gx, NULL), 0);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 2, skew),
						fare_nhg_grp(&ctx->fn, gx), 1, 0,
						&g2, NULL), 0);
	fare_nhg_put(&ctx->fn, gx);
	old = fare_nhg_grp(&ctx->fn, g1);
	other = fare_nhg_grp(&ctx->fn, g2);
	fare_buckets_quota(quota, skew, 3, 2);
	for (i = 0; i < 2; i++) {
		u32 o = 0, b;

		for (b = 0; b < FARE_BUCKETS; b++)
			o += old->buckets[b] == i;
		need += o > quota[i] ? o - quota[i] : 0;
	}
	KUNIT_ASSERT_EQ(test, need, 64U);
	/* The case is real: taking the other group would move more. */
	KUNIT_ASSERT_GT(test, buckets_moved(old, other), need);

	/* The first route on 1:1 goes to 3:1: the least movement. */
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 2, skew),
						old, 0, 0, &mine, NULL), 0);
	got = fare_nhg_grp(&ctx->fn, mine);
	KUNIT_EXPECT_EQ(test, buckets_moved(old, got), need);
	KUNIT_EXPECT_PTR_NE(test, mine, g2);
	/* The second one, moved the same way, shares its group. */
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 2, skew),
						old, 0, 0, &also, NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, also, mine);
	KUNIT_EXPECT_EQ(test, mine->refs, 2U);
	/* A new route has no flows to keep: it takes the first group found. */
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 2, skew),
						NULL, 0, 0, &dropped, NULL), 0);
	KUNIT_EXPECT_TRUE(test, dropped == g2 || dropped == mine);
	fare_nhg_put(&ctx->fn, dropped);
	fare_nhg_put(&ctx->fn, g1);
	fare_nhg_put(&ctx->fn, g1);
	fare_nhg_put(&ctx->fn, also);
	fare_nhg_put(&ctx->fn, mine);
	fare_nhg_put(&ctx->fn, g2);
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 0U);
	mutex_unlock(&ctx->fn.lock);
}

/*
 * Two routes on one named group: one replace of the group's weights moves
 * the traffic of both, each looked up by its own prefix.
 */
static void replacing_a_group_moves_every_route_on_it(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 even[] = { 1, 1 }, skew[] = { 3, 1 };
	u8 d1[4] = { 10, 0, 0, 1 }, d2[4] = { 10, 0, 0, 2 };
	struct fare_route *r1, *r2;
	struct fare_nhg *nhg, *again;

	mutex_lock(&ctx->fn.lock);
	KUNIT_ASSERT_EQ(test, fare_nhg_set(&ctx->fn, 7, mkgroup(test, 2, even),
					   false, &nhg, NULL), 0);
	nhg->refs += 2;
	mutex_unlock(&ctx->fn.lock);
	add_on(test, 1, nhg, false);
	add_on(test, 2, nhg, false);
	rcu_read_lock();
	r1 = fare_route_lookup(&ctx->fn, AF_INET, d1);
	r2 = fare_route_lookup(&ctx->fn, AF_INET, d2);
	rcu_read_unlock();
	KUNIT_ASSERT_NOT_NULL(test, r1);
	KUNIT_ASSERT_NOT_NULL(test, r2);
	KUNIT_EXPECT_EQ(test, spray_count(r1, 400, 0), 200U);
	KUNIT_EXPECT_EQ(test, spray_count(r2, 400, 0), 200U);

	mutex_lock(&ctx->fn.lock);
	KUNIT_ASSERT_EQ(test, fare_nhg_set(&ctx->fn, 7, mkgroup(test, 2, skew),
					   true, &again, NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, again, nhg);
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 1U);
	mutex_unlock(&ctx->fn.lock);
	/* Whole periods of 4 picks: exactly 3 of 4 to the first hop. */
	KUNIT_EXPECT_EQ(test, spray_count(r1, 400, 0), 300U);
	KUNIT_EXPECT_EQ(test, spray_count(r2, 400, 0), 300U);
}

/*
 * A route with counters counts its own packets per plane, beside another
 * route on the same group; one without has no counters at all, so no
 * per-CPU memory, and the route object stays in the 64-byte slab.
 */
static void route_counters_count_only_where_enabled(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 w[] = { 1, 1 };
	struct fare_route *with, *without;
	struct fare_route_stats *st;
	struct fare_group *grp;
	struct fare_nhg *nhg;
	u64 packets, bytes, noplane, fallback;

	mutex_lock(&ctx->fn.lock);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 2, w),
						NULL, 0, 0, &nhg, NULL), 0);
	nhg->refs++;
	grp = rcu_dereference_protected(nhg->grp, true);
	mutex_unlock(&ctx->fn.lock);
	with = add_on(test, 1, nhg, true);
	without = add_on(test, 2, nhg, false);
	/* kmalloc-64 without counters: 128 B per route all told is the aim. */
	KUNIT_EXPECT_LE(test, ksize(without), 64UL);
	KUNIT_EXPECT_FALSE(test, without->flags & FARE_ROUTE_F_STATS);

	rcu_read_lock();
	local_bh_disable();
	KUNIT_EXPECT_NULL(test, fare_route_stats_rcu(without));
	st = fare_route_stats_rcu(with);
	KUNIT_ASSERT_NOT_NULL(test, st);
	fare_route_count_tx(st, grp, 1, 1000);
	fare_route_count_tx(st, grp, 1, 500);
	fare_route_count_tx(st, grp, 0, 64);
	fare_route_count_drop(with, false);
	fare_route_count_drop(without, true);
	local_bh_enable();
	rcu_read_unlock();

	fare_route_stats_read(st, 2, &packets, &bytes);
	KUNIT_EXPECT_EQ(test, packets, 2ULL);
	KUNIT_EXPECT_EQ(test, bytes, 1500ULL);
	fare_route_stats_read(st, 1, &packets, &bytes);
	KUNIT_EXPECT_EQ(test, packets, 1ULL);
	KUNIT_EXPECT_EQ(test, bytes, 64ULL);
	fare_route_stats_drops(st, &noplane, &fallback);
	KUNIT_EXPECT_EQ(test, noplane, 1ULL);
	KUNIT_EXPECT_EQ(test, fallback, 0ULL);
	/* A plane not in the route's counters reads as nothing sent. */
	fare_route_stats_read(st, 9, &packets, &bytes);
	KUNIT_EXPECT_EQ(test, packets, 0ULL);
}

/* The group limit refuses a new group, named or anonymous, with extack. */
static void group_limit_refuses_with_extack(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 w1[] = { 1 }, w2[] = { 2 };
	struct netlink_ext_ack extack = {};
	struct fare_nhg *a, *b;

	mutex_lock(&ctx->fn.lock);
	ctx->fn.max_groups = 1;
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 1, w1),
						NULL, 0, 0, &a, &extack), 0);
	/* The same content needs no new group. */
	KUNIT_EXPECT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 1, w1),
						NULL, 0, 0, &b, &extack), 0);
	KUNIT_EXPECT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 1, w2),
						NULL, 0, 0, &b, &extack), -ENOSPC);
	KUNIT_EXPECT_STREQ(test, extack._msg,
			   "group limit of the namespace reached (config group-limit)");
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_nhg_set(&ctx->fn, 3, mkgroup(test, 1, w2),
					   false, &b, &extack), -ENOSPC);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	/* A route that drops its own group for another may make it. */
	KUNIT_EXPECT_EQ(test, fare_nhg_get_anon(&ctx->fn, mkgroup(test, 1, w2),
						NULL, 1, 0, &b, &extack), 0);
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 2U);
	fare_nhg_put(&ctx->fn, b);
	fare_nhg_put(&ctx->fn, a);
	fare_nhg_put(&ctx->fn, a);
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 0U);
	mutex_unlock(&ctx->fn.lock);
}

/*
 * The memory budget counts groups and routes as they are made, per-CPU
 * state once per possible CPU, refuses what would pass it with the
 * budget's extack text, lets a replacement reuse what it replaces, and
 * gets every byte back.
 */
static void memory_budget_refuses_with_extack(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 w[] = { 5, 6 }, w2[] = { 7, 8 };
	struct fare_net *fn = &ctx->fn;
	struct netlink_ext_ack extack = {};
	struct fare_prefix key;
	u8 addr[4] = { 10, 0, 0, 1 };
	struct fare_route *rt;
	struct fare_nhg *nhg, *b;
	u64 one;

	KUNIT_ASSERT_EQ(test, fare_prefix_make(&key, AF_INET, addr, 32), 0);
	mutex_lock(&fn->lock);
	KUNIT_EXPECT_EQ(test, fn->budget->limit, FARE_MEMORY_BUDGET_HOST_DEFAULT);
	fare_budget_set(fn->budget, FARE_MEMORY_BUDGET_DEFAULT);
	KUNIT_EXPECT_STREQ(test, fn->budget->msg,
			   "fare: memory budget of 64 MiB for this namespace reached");
	KUNIT_ASSERT_EQ(test, fare_nhg_set(fn, 1, mkgroup(test, 2, w), false,
					   &nhg, NULL), 0);
	one = fn->budget->used;
	/* Its counters and spray state, one copy per possible CPU. */
	KUNIT_EXPECT_GE(test, one,
			(u64)num_possible_cpus() *
			struct_size_t(struct fare_group_tx, nh, 2));
	fare_budget_set(fn->budget, one);
	KUNIT_EXPECT_EQ(test, fare_nhg_set(fn, 2, mkgroup(test, 2, w2), false,
					   &b, &extack), -ENOSPC);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   fn->budget->msg);
	KUNIT_EXPECT_NOT_NULL(test, strstr(fn->budget->msg, "memory budget of "));
	KUNIT_EXPECT_EQ(test, fare_nhg_get_anon(fn, mkgroup(test, 2, w2), NULL,
						0, 0, &b, &extack), -ENOSPC);
	KUNIT_EXPECT_EQ(test, fn->num_groups, 1U);
	/* Replacing the group needs no more than it holds. */
	KUNIT_EXPECT_EQ(test, fare_nhg_set(fn, 1, mkgroup(test, 2, w2), true,
					   &nhg, NULL), 0);
	KUNIT_EXPECT_EQ(test, fn->budget->used, one);
	/* A route on it: refused at the budget, made below it. */
	nhg->refs++;
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_route_set(fn, NULL, &key, FARE_MODE_PACKET, FARE_MODE_DEFAULT,
					     false, nhg, &rt, &extack),
			-ENOSPC);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)", fn->budget->msg);
	KUNIT_EXPECT_EQ(test, nhg->refs, 0U);
	fare_budget_set(fn->budget, one + fare_route_bytes(0));
	nhg->refs++;
	KUNIT_ASSERT_EQ(test, fare_route_set(fn, NULL, &key, FARE_MODE_PACKET, FARE_MODE_DEFAULT,
					     false, nhg, &rt, NULL), 0);
	KUNIT_EXPECT_EQ(test, fn->budget->used, fn->budget->limit);
	/* Counters of its own pass the budget: the route stays as it was. */
	nhg->refs++;
	KUNIT_EXPECT_EQ(test, fare_route_set(fn, rt, &key, FARE_MODE_FLOW, FARE_MODE_DEFAULT,
					     true, nhg, &rt, &extack),
			-ENOSPC);
	KUNIT_EXPECT_NULL(test, fare_route_stats_locked(fn, rt));
	KUNIT_EXPECT_EQ(test, fn->budget->used, fn->budget->limit);
	fare_budget_set(fn->budget, one + fare_route_bytes(2));
	nhg->refs++;
	KUNIT_ASSERT_EQ(test, fare_route_set(fn, rt, &key, FARE_MODE_FLOW, FARE_MODE_DEFAULT,
					     true, nhg, &rt, NULL), 0);
	KUNIT_EXPECT_NOT_NULL(test, fare_route_stats_locked(fn, rt));
	KUNIT_EXPECT_EQ(test, fn->budget->used, fn->budget->limit);
	fare_route_remove(fn, rt);
	fare_route_free(fn, rt);
	KUNIT_EXPECT_EQ(test, fn->budget->used, one);
	KUNIT_EXPECT_EQ(test, fare_nhg_del(fn, 1, NULL), 0);
	KUNIT_EXPECT_EQ(test, fn->budget->used, 0ULL);
	mutex_unlock(&fn->lock);
}

/*
 * Two fare devices of one namespace charge one budget: what one holds
 * refuses the other, and a device that goes (its destructor: the table
 * destroyed, then fare_budget_release()) gives all its bytes back.
 */
static void devices_share_the_namespace_budget(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 w[] = { 5, 6 };
	struct fare_net *a = &ctx->fn, *b;
	struct netlink_ext_ack extack = {};
	struct fare_nhg *nhg;
	u64 one;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	mutex_init(&b->lock);
	b->budget = a->budget;
	KUNIT_ASSERT_EQ(test, fare_table_init(b), 0);

	mutex_lock(&a->lock);
	KUNIT_ASSERT_EQ(test, fare_nhg_set(a, 1, mkgroup(test, 2, w), false,
					   &nhg, NULL), 0);
	one = a->budget->used;
	KUNIT_EXPECT_EQ(test, a->mem_held, one);
	mutex_unlock(&a->lock);

	fare_budget_set(a->budget, one + one / 2);
	mutex_lock(&b->lock);
	KUNIT_EXPECT_EQ(test, fare_nhg_set(b, 1, mkgroup(test, 2, w), false,
					   &nhg, &extack), -ENOSPC);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)", b->budget->msg);
	KUNIT_EXPECT_EQ(test, b->mem_held, 0ULL);
	mutex_unlock(&b->lock);

	/* a goes, as its destructor would take it. */
	mutex_lock(&a->lock);
	fare_table_destroy(a);
	mutex_unlock(&a->lock);
	fare_budget_release(a);
	KUNIT_EXPECT_EQ(test, a->budget->used, 0ULL);
	KUNIT_EXPECT_EQ(test, a->mem_held, 0ULL);

	mutex_lock(&b->lock);
	KUNIT_EXPECT_EQ(test, fare_nhg_set(b, 1, mkgroup(test, 2, w), false,
					   &nhg, NULL), 0);
	KUNIT_EXPECT_EQ(test, b->budget->used, one);
	fare_table_destroy(b);
	mutex_unlock(&b->lock);
	fare_budget_release(b);
	KUNIT_EXPECT_EQ(test, b->budget->used, 0ULL);
	/* table_exit() destroys a's empty table again. */
	KUNIT_ASSERT_EQ(test, fare_table_init(a), 0);
}

/*
 * At the budget, a route moved from its own anonymous group to new next
 * hops of the same size fits: what the move frees counts for what it
 * makes, in the group's charge and in the route's.
 */
static void route_moved_at_the_budget_fits(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 w[] = { 5, 6 }, w2[] = { 7, 8 };
	struct fare_net *fn = &ctx->fn;
	u8 addr[4] = { 10, 0, 0, 9 };
	struct fare_nhg *a, *b;
	struct fare_prefix key;
	struct fare_route *rt;

	KUNIT_ASSERT_EQ(test, fare_prefix_make(&key, AF_INET, addr, 32), 0);
	mutex_lock(&fn->lock);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(fn, mkgroup(test, 2, w), NULL,
						0, 0, &a, NULL), 0);
	KUNIT_ASSERT_EQ(test, fare_route_set(fn, NULL, &key, FARE_MODE_PACKET, FARE_MODE_DEFAULT,
					     false, a, &rt, NULL), 0);
	fare_budget_set(fn->budget, fn->budget->used);
	KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(fn, mkgroup(test, 2, w2),
						fare_nhg_grp(fn, a), 1,
						fare_nhg_bytes(fn, a), &b,
						NULL), 0);
	KUNIT_EXPECT_EQ(test, fare_route_set(fn, rt, &key, FARE_MODE_PACKET, FARE_MODE_DEFAULT,
					     false, b, &rt, NULL), 0);
	KUNIT_EXPECT_EQ(test, fn->num_groups, 1U);
	KUNIT_EXPECT_EQ(test, fn->budget->used, fn->budget->limit);
	fare_route_remove(fn, rt);
	fare_route_free(fn, rt);
	KUNIT_EXPECT_EQ(test, fn->budget->used, 0ULL);
	mutex_unlock(&fn->lock);
}

/*
 * Anonymous groups live in a table that grows with them: 2,000 groups of
 * distinct next hops are each found again by their content, not made
 * twice, and each goes with its last route.
 */
static void many_anonymous_groups_are_found_by_content(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	struct fare_net *fn = &ctx->fn;
	struct fare_nhg **nhg, *again;
	unsigned int i, n = 2000;
	u32 w[2];

	nhg = kunit_kcalloc(test, n, sizeof(*nhg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nhg);
	mutex_lock(&fn->lock);
	for (i = 0; i < n; i++) {
		w[0] = i + 1;
		w[1] = 7;
		KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(fn, mkgroup(test, 2, w),
							NULL, 0, 0, &nhg[i],
							NULL), 0);
	}
	KUNIT_EXPECT_EQ(test, fn->num_groups, n);
	for (i = 0; i < n; i++) {
		w[0] = i + 1;
		w[1] = 7;
		KUNIT_ASSERT_EQ(test, fare_nhg_get_anon(fn, mkgroup(test, 2, w),
							NULL, 0, 0, &again,
							NULL), 0);
		KUNIT_EXPECT_PTR_EQ(test, again, nhg[i]);
		KUNIT_EXPECT_EQ(test, nhg[i]->refs, 2U);
	}
	KUNIT_EXPECT_EQ(test, fn->num_groups, n);
	for (i = 0; i < n; i++) {
		fare_nhg_put(fn, nhg[i]);
		fare_nhg_put(fn, nhg[i]);
	}
	KUNIT_EXPECT_EQ(test, fn->num_groups, 0U);
	KUNIT_EXPECT_EQ(test, fn->budget->used, 0ULL);
	mutex_unlock(&fn->lock);
}

/* A named group in use cannot be deleted; once unused it can. */
static void group_in_use_cannot_be_deleted(struct kunit *test)
{
	struct table_ctx *ctx = test->priv;
	static const u32 w[] = { 5, 6 };
	struct netlink_ext_ack extack = {};
	struct fare_nhg *nhg;

	mutex_lock(&ctx->fn.lock);
	KUNIT_ASSERT_EQ(test, fare_nhg_set(&ctx->fn, 42, mkgroup(test, 2, w),
					   false, &nhg, NULL), 0);
	nhg->refs++;			/* a route uses it */
	KUNIT_EXPECT_EQ(test, fare_nhg_del(&ctx->fn, 42, &extack), -EBUSY);
	KUNIT_EXPECT_STREQ(test, extack._msg,
			   "group in use by routes (delete or move them first)");
	KUNIT_EXPECT_PTR_EQ(test, fare_nhg_find(&ctx->fn, 42), nhg);
	fare_nhg_put(&ctx->fn, nhg);	/* a named group outlives its routes */
	KUNIT_EXPECT_PTR_EQ(test, fare_nhg_find(&ctx->fn, 42), nhg);
	KUNIT_EXPECT_EQ(test, fare_nhg_del(&ctx->fn, 42, &extack), 0);
	KUNIT_EXPECT_NULL(test, fare_nhg_find(&ctx->fn, 42));
	KUNIT_EXPECT_EQ(test, fare_nhg_del(&ctx->fn, 42, &extack), -ENOENT);
	KUNIT_EXPECT_EQ(test, ctx->fn.num_groups, 0U);
	mutex_unlock(&ctx->fn.lock);
}

static struct kunit_case fare_table_cases[] = {
	KUNIT_CASE(routes_with_the_same_next_hops_share_one_group),
	KUNIT_CASE(replacing_a_group_moves_every_route_on_it),
	KUNIT_CASE(replaced_route_keeps_its_flows_beside_an_equal_group),
	KUNIT_CASE(route_counters_count_only_where_enabled),
	KUNIT_CASE(group_limit_refuses_with_extack),
	KUNIT_CASE(group_in_use_cannot_be_deleted),
	KUNIT_CASE(memory_budget_refuses_with_extack),
	KUNIT_CASE(many_anonymous_groups_are_found_by_content),
	KUNIT_CASE(route_moved_at_the_budget_fits),
	KUNIT_CASE(group_schedule_starts_at_a_random_phase),
	KUNIT_CASE(group_of_the_largest_size_allocates),
	KUNIT_CASE(lpm_v4_prefers_host_route_over_aggregate),
	KUNIT_CASE(lpm_v4_overlapping_prefixes_and_default),
	KUNIT_CASE(lpm_ignores_host_bits_of_the_prefix),
	KUNIT_CASE(lpm_v6_prefers_longest_and_keeps_families_apart),
	KUNIT_CASE(lpm_forgets_removed_prefix_lengths),
	KUNIT_CASE(lpm_matches_naive_search),
	KUNIT_CASE(lpm_index_matches_naive_search_across_its_limits),
	KUNIT_CASE(group_precomputes_short_periods),
	KUNIT_CASE(group_keeps_packet_writes_apart),
	KUNIT_CASE(lpm_v6_matches_naive_search),
	KUNIT_CASE(devices_share_the_namespace_budget),
	{}
};

static struct kunit_suite fare_table_suite = {
	.name = "fare_table",
	.init = table_init,
	.exit = table_exit,
	.test_cases = fare_table_cases,
};

kunit_test_suite(fare_table_suite);
