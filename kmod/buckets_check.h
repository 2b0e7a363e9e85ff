/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resilience bound of the flow buckets, checked the same way by the
 * KUnit suite and by the userspace unit test: include after select.c (or
 * select.h, linking select.c).
 */
#ifndef _FARE_BUCKETS_CHECK_H
#define _FARE_BUCKETS_CHECK_H

/* Static: KASAN's redzones would make these too big for a stack frame. */
static struct {
	u8 t0[FARE_BUCKETS], t1[FARE_BUCKETS];
	u32 q0[64], q1[64], c0[64], c1[64];
} fare_bc;

static const char *fare_buckets_count(const u8 *t, u64 m, unsigned int n,
				      const u32 *w, u32 *q, u32 *c)
{
	u64 total = 0, sum = 0;
	__uint128_t exact;
	unsigned int b, i;

	for (i = 0; i < n; i++) {
		c[i] = 0;
		if (m & (1ULL << i))
			total += w[i];
	}
	for (b = 0; b < FARE_BUCKETS; b++) {
		if (t[b] >= n || !(m & (1ULL << t[b])))
			return "a bucket names no member";
		c[t[b]]++;
	}
	for (i = 0; i < n; i++) {
		if (c[i] != q[i])
			return "an entry holds other than its quota";
		sum += q[i];
		if (!(m & (1ULL << i)))
			continue;
		/* |q - B w / W| < 1, scaled by W */
		exact = (__uint128_t)FARE_BUCKETS * w[i];
		if ((__uint128_t)q[i] * total >= exact + total ||
		    (__uint128_t)q[i] * total + total <= exact)
			return "a quota is a bucket or more off its share";
	}
	return sum == FARE_BUCKETS ? NULL : "quotas do not sum to the buckets";
}

/*
 * Builds a table for weights @w0 over members @m0, then one for @w1 over
 * @m1 from it (the same entry numbering), and checks that each holds
 * exactly the quotas, that exactly sum_i max(0, o_i - q_i) buckets moved
 * (the least possible), and that moved <= B * TV(p, p') + k, k being the
 * number of entries in either set. Returns NULL, or what failed; the
 * number of moved buckets in *@movedp.
 */
static const char *fare_buckets_check(const u32 *w0, u64 m0, const u32 *w1,
				      u64 m1, unsigned int n,
				      unsigned int *movedp)
{
	__uint128_t tv = 0, lhs, rhs;
	unsigned int b, i, moved = 0, must = 0, k = 0;
	u64 tot0 = 0, tot1 = 0;
	const char *err;

	fare_buckets_quota(fare_bc.q0, w0, m0, n);
	fare_buckets_quota(fare_bc.q1, w1, m1, n);
	fare_buckets_build(fare_bc.t0, NULL, w0, m0, n);
	err = fare_buckets_count(fare_bc.t0, m0, n, w0, fare_bc.q0,
				 fare_bc.c0);
	if (err)
		return err;
	fare_buckets_build(fare_bc.t1, fare_bc.t0, w1, m1, n);
	err = fare_buckets_count(fare_bc.t1, m1, n, w1, fare_bc.q1,
				 fare_bc.c1);
	if (err)
		return err;

	for (b = 0; b < FARE_BUCKETS; b++)
		moved += fare_bc.t0[b] != fare_bc.t1[b];
	for (i = 0; i < n; i++) {
		if (m0 & (1ULL << i))
			tot0 += w0[i];
		if (m1 & (1ULL << i))
			tot1 += w1[i];
	}
	for (i = 0; i < n; i++) {
		u64 o = fare_bc.c0[i], q = fare_bc.q1[i];
		__uint128_t a = 0, c = 0;

		if (o > q)
			must += o - q;
		k += !!((m0 | m1) & (1ULL << i));
		/* TV * W0 * W1 = sum max(0, w0 W1 - w1 W0) */
		if (m0 & (1ULL << i))
			a = (__uint128_t)w0[i] * tot1;
		if (m1 & (1ULL << i))
			c = (__uint128_t)w1[i] * tot0;
		if (a > c)
			tv += a - c;
	}
	*movedp = moved;
	if (moved != must)
		return "other than the excess buckets moved";
	lhs = (__uint128_t)moved * tot0 * tot1;
	rhs = tv * FARE_BUCKETS + (__uint128_t)k * tot0 * tot1;
	return lhs <= rhs ? NULL : "moved more than B * TV + k";
}

#endif /* _FARE_BUCKETS_CHECK_H */
