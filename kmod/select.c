// SPDX-License-Identifier: GPL-2.0
/*
 * Weighted selection for fare: a bounded-deviation schedule for per-packet
 * spray, resilient buckets and hash-threshold for per-flow pinning.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/math64.h>
#ifndef CONFIG_ARCH_SUPPORTS_INT128
#error "fare needs 128-bit integer arithmetic (a 64-bit architecture)"
#endif
#endif
#include "select.h"
#include "visibility.h"

static void fare_spray_restart(struct fare_spray *st, u64 usable,
			       unsigned int n)
{
	unsigned int i;

	st->usable = usable;
	st->picks = 0;
	for (i = 0; i < n; i++)
		st->count[i] = 0;
}

int fare_spray_pick(const u32 *weights, struct fare_spray *st, u64 usable,
		    unsigned int n)
{
	u64 total = 0, d, pick, key, best_key = 0;
	int best = -1;
	unsigned int i;

	if (!usable)
		return -1;
	for (i = 0; i < n; i++)
		if (usable & (1ULL << i))
			total += weights[i];
	if (st->usable != usable || st->picks >= total)
		fare_spray_restart(st, usable, n);

	/*
	 * In units of 1/d picks, with d = 2(k - 1): entry i is due once
	 * c_i + 1/d <= pick * w_i / W, and its deadline is
	 * (c_i + 1 - 1/d) / w_i. Products need up to 83 bits.
	 */
	d = hweight64(usable) > 1 ? 2 * (hweight64(usable) - 1) : 1;
	pick = st->picks + 1;
	for (i = 0; i < n; i++) {
		if (!(usable & (1ULL << i)))
			continue;
		if ((__uint128_t)(d * st->count[i] + 1) * total >
		    (__uint128_t)(d * pick) * weights[i])
			continue;
		key = d * (st->count[i] + 1) - 1;
		if (best < 0 || (__uint128_t)key * weights[best] <
				(__uint128_t)best_key * weights[i]) {
			best = i;
			best_key = key;
		}
	}
	/* Tijdeman's theorem says some entry is always due; stay safe. */
	if (best < 0)
		best = __builtin_ctzll(usable);
	st->count[best]++;
	st->picks = pick;
	return best;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_spray_pick);

static u32 fare_gcd(u32 a, u32 b)
{
	while (b) {
		u32 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

unsigned int fare_sched_build(u8 *seq, unsigned int max, const u32 *weights,
			      u64 members, unsigned int n, u32 *w,
			      struct fare_spray *scratch)
{
	u64 total = 0;
	unsigned int i;
	u32 g = 0;

	for (i = 0; i < n; i++)
		if (members & (1ULL << i))
			g = fare_gcd(weights[i], g);
	if (!g || n > 64)
		return 0;
	for (i = 0; i < n; i++) {
		w[i] = members & (1ULL << i) ? weights[i] / g : 0;
		total += w[i];
	}
	if (total > max)
		return 0;
	scratch->usable = 0;
	scratch->cursor = 0;
	for (i = 0; i < total; i++)
		seq[i] = fare_spray_pick(w, scratch, members, n);
	return total;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_sched_build);

int fare_deficit_pick(const u32 *weights, const u64 *sent, u64 usable,
		      unsigned int n)
{
	__int128_t deficit, best_deficit = 0;
	u64 total_w = 0, total_sent = 0;
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!(usable & (1ULL << i)))
			continue;
		total_w += weights[i];
		total_sent += sent[i];
	}
	/* Scaled by W: deficit_i * W = total * w_i - sent_i * W. */
	for (i = 0; i < n; i++) {
		if (!(usable & (1ULL << i)))
			continue;
		deficit = (__int128_t)total_sent * weights[i] -
			  (__int128_t)sent[i] * total_w;
		if (best < 0 || deficit > best_deficit) {
			best = i;
			best_deficit = deficit;
		}
	}
	return best;
}

int fare_deficit_pick_since(const u32 *weights, u64 *sent,
			    struct fare_deficit_base *base, u32 gen,
			    u64 usable, unsigned int n)
{
	unsigned int i;
	u64 b;

	if (base->gen != gen) {
		for (i = 0; i < n; i++)
			base->sent[i] = sent[i];
		base->gen = gen;
	}
	for (i = 0; i < n; i++) {
		if (!(usable & (1ULL << i)))
			continue;
		b = base->sent[i];
		sent[i] = sent[i] > b ? sent[i] - b : 0;
	}
	return fare_deficit_pick(weights, sent, usable, n);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_deficit_pick_since);

int fare_hash_pick(const u32 *weights, u64 usable, unsigned int n, u32 hash)
{
	u64 total = 0, threshold, sum = 0;
	int last = -1;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (usable & (1ULL << i))
			total += weights[i];
	if (!total)
		return -1;

	/* Scale the 32-bit hash onto [0, total) without a division. */
	threshold = (u64)(((__uint128_t)total * hash) >> 32);
	for (i = 0; i < n; i++) {
		if (!(usable & (1ULL << i)))
			continue;
		sum += weights[i];
		last = i;
		if (threshold < sum)
			return i;
	}
	return last;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_hash_pick);

void fare_buckets_quota(u32 *quota, const u32 *weights, u64 members,
			unsigned int n)
{
	u64 total = 0, rem, best_rem, given = 0;
	unsigned int i, left = FARE_BUCKETS;
	int best;

	for (i = 0; i < n; i++)
		if (members & (1ULL << i))
			total += weights[i];
	for (i = 0; i < n; i++) {
		quota[i] = 0;
		if (!(members & (1ULL << i)) || !total)
			continue;
		/* B * w < 2^40: no overflow. */
		quota[i] = (u64)FARE_BUCKETS * weights[i] / total;
		left -= quota[i];
	}
	/*
	 * The remainders sum to left * W, each below W: at least left entries
	 * have one, and each of the largest gets one more bucket.
	 */
	while (total && left) {
		best = -1;
		best_rem = 0;
		for (i = 0; i < n; i++) {
			if (!(members & (1ULL << i)) || (given & (1ULL << i)))
				continue;
			rem = (u64)FARE_BUCKETS * weights[i] % total;
			if (rem && (best < 0 || rem > best_rem)) {
				best = i;
				best_rem = rem;
			}
		}
		if (best < 0)
			break;
		quota[best]++;
		given |= 1ULL << best;
		left--;
	}
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_buckets_quota);

void fare_buckets_build(u8 *buckets, const u8 *prev, const u32 *weights,
			u64 members, unsigned int n)
{
	u32 quota[64], count[64] = { 0 };
	unsigned int b, next = 0;
	u8 idx;

	fare_buckets_quota(quota, weights, members, n);
	for (b = 0; b < FARE_BUCKETS; b++) {
		idx = prev ? prev[b] : FARE_BUCKET_NONE;
		if (idx < n && count[idx] < quota[idx]) {
			buckets[b] = idx;
			count[idx]++;
		} else {
			buckets[b] = FARE_BUCKET_NONE;
		}
	}
	/* The quotas sum to FARE_BUCKETS, so every free bucket finds one. */
	for (b = 0; b < FARE_BUCKETS; b++) {
		if (buckets[b] != FARE_BUCKET_NONE)
			continue;
		while (next < n && count[next] >= quota[next])
			next++;
		if (next == n)
			break;
		buckets[b] = next;
		count[next]++;
	}
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_buckets_build);

u64 fare_tier_usable(const u8 *tiers, u64 up, unsigned int n)
{
	unsigned int i, tier = 256;
	u64 usable = 0;

	for (i = 0; i < n; i++) {
		if (!(up & (1ULL << i)))
			continue;
		if (tiers[i] < tier) {
			tier = tiers[i];
			usable = 0;
		}
		if (tiers[i] == tier)
			usable |= 1ULL << i;
	}
	return usable;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_tier_usable);

/* Beyond any real queue: keeps q * H (H < 2^8) and sums within u64. */
#define FARE_Q_MAX	0x80000000000000ULL	/* 2^55 */

static unsigned int fare_tier_hops(const u8 *hops, unsigned int n_hops,
				   unsigned int tier)
{
	return hops[tier < n_hops ? tier : n_hops - 1];
}

/* The lowest tier above @above (-1: any) with an entry in @up, or -1. */
static int fare_tier_next(const u8 *tiers, u64 up, unsigned int n, int above)
{
	int next = -1;
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((up & (1ULL << i)) && (int)tiers[i] > above &&
		    (next < 0 || tiers[i] < next))
			next = tiers[i];
	return next;
}

/* The mean q of @tier's entries in @up, with the mask of those entries. */
static u64 fare_tier_q(const u8 *tiers, u64 up, const u64 *q, unsigned int n,
		       int tier, u64 *mask)
{
	unsigned int i, count = 0;
	u64 sum = 0;

	*mask = 0;
	for (i = 0; i < n; i++) {
		if (!(up & (1ULL << i)) || tiers[i] != tier)
			continue;
		sum += q[i] < FARE_Q_MAX ? q[i] : FARE_Q_MAX;
		count++;
		*mask |= 1ULL << i;
	}
	return count ? sum / count : 0;
}

u64 fare_tier_spill(const u8 *tiers, u64 up, const u64 *q, unsigned int n,
		    const u8 *hops, unsigned int n_hops, u32 bias,
		    bool *spilled)
{
	int t = fare_tier_next(tiers, up, n, -1), u;
	u64 mask_t, mask_u, qt, qu, cost_t, cost_u;

	*spilled = false;
	if (t < 0)
		return 0;
	qt = fare_tier_q(tiers, up, q, n, t, &mask_t);
	while ((u = fare_tier_next(tiers, up, n, t)) >= 0) {
		qu = fare_tier_q(tiers, up, q, n, u, &mask_u);
		cost_t = qt * fare_tier_hops(hops, n_hops, t);
		cost_u = qu * fare_tier_hops(hops, n_hops, u);
		if (cost_t <= cost_u + bias)
			break;
		*spilled = true;
		t = u;
		qt = qu;
		mask_t = mask_u;
	}
	return mask_t;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_tier_spill);

u64 fare_vq_add(u64 vt, u64 now, u64 rate, u32 len)
{
	u64 start = vt > now ? vt : now;
	u64 cost = (u64)len * 1000000000ULL / rate;

	if (start - now >= FARE_VQ_CAP_NS || cost >= FARE_VQ_CAP_NS ||
	    start - now + cost > FARE_VQ_CAP_NS)
		return now + FARE_VQ_CAP_NS;
	return start + cost;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_vq_add);

u64 fare_vq_backlog(u64 vt, u64 now, u64 rate)
{
	u64 d, whole;

	if (vt <= now)
		return 0;
	/*
	 * d <= FARE_VQ_CAP_NS < 2^30; split the rate at 10^9 so that the
	 * products fit in 64 bits (a rate beyond 2^33 GB/s is saturated).
	 */
	d = vt - now < FARE_VQ_CAP_NS ? vt - now : FARE_VQ_CAP_NS;
	whole = rate / 1000000000ULL;
	if (whole > (1ULL << 33))
		whole = 1ULL << 33;
	return whole * d + (rate % 1000000000ULL) * d / 1000000000ULL;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_vq_backlog);
