// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FARE extended community codecs (see fare_ec.h).
 */
#include <math.h>
#include <string.h>

#include "bgp.h"
#include "fare_ec.h"

double fare_half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, f = h & 0x3ff;
	double v;

	if (e == 0)
		v = ldexp(f, -24);
	else if (e == 31)
		v = f ? NAN : INFINITY;
	else
		v = ldexp(f | 0x400, e - 25);
	return h & 0x8000 ? -v : v;
}

/*
 * Works on the double's bits so that rounding happens once, in integers:
 * the 53-bit significand is shifted down to the 11 bits (or fewer, for a
 * subnormal result) binary16 keeps, then rounded to nearest-even. A carry
 * out of the significand moves into the exponent by plain addition.
 */
uint16_t fare_half_from_double(double v)
{
	uint64_t b, sig, q, rem, half;
	unsigned int e, shift, hexp;
	uint16_t sign;
	int exp;

	memcpy(&b, &v, sizeof(b));
	sign = (b >> 48) & 0x8000;
	e = (b >> 52) & 0x7ff;
	sig = b & ((1ull << 52) - 1);
	if (e == 0x7ff)
		return sign | (sig ? 0x7e00 : 0x7c00);
	/* Zero, and double subnormals: far below half the least binary16. */
	if (e == 0)
		return sign;
	exp = (int)e - 1023;
	if (exp > 15)
		return sign | 0x7c00;
	sig |= 1ull << 52;
	if (exp >= -14) {
		shift = 42;
		hexp = exp + 15;
	} else {
		shift = 42 + (-14 - exp);
		hexp = 0;
	}
	if (shift > 53)			/* under 2^-25: rounds to zero */
		return sign;
	q = sig >> shift;
	rem = sig & ((1ull << shift) - 1);
	half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (hexp)
		q = ((uint64_t)hexp << 10) + q - 0x400;
	if (q >= 0x7c00)
		q = 0x7c00;
	return sign | q;
}

int fare_pb_to_bps(uint16_t h, uint64_t *bps)
{
	int e = (h >> 10) & 0x1f, f = h & 0x3ff, k;
	uint64_t x;

	if (h & 0x8000 || (e == 31 && f))
		return -1;
	if (e == 31) {
		*bps = FARE_BW_INF;
		return 0;
	}
	/* h = m * 2^k GB/s, and 8e9 b/s = 1953125 * 2^12 b/s. */
	x = (uint64_t)(e ? f | 0x400 : f) * 1953125;
	k = (e ? e - 25 : -24) + 12;
	if (k >= 0)
		*bps = x << k;
	else
		*bps = (x + (1ull << (-k - 1))) >> -k;
	return 0;
}

/*
 * bps / 8e9 is rounded to a double first; that cannot move it across a
 * binary16 rounding boundary: a boundary is a 12-bit dyadic d, exactly a
 * double, and an integer bps that is not 8e9 * d sits at least 1 / 8e9
 * GB/s (relative 2^-40 or more) away from it, much more than a double's
 * 2^-53.
 */
uint16_t fare_pb_from_bps(uint64_t bps)
{
	uint16_t h;

	if (bps == FARE_BW_INF)
		return FARE_PB_MAX;
	h = fare_half_from_double((double)bps / 8e9);
	return h > FARE_PB_MAX ? FARE_PB_MAX : h;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void fare_pb_encode(uint8_t ec[FARE_EC_LEN], const struct fare_pb *pb,
		    uint8_t subtype)
{
	ec[0] = pb->transitive ? FARE_PB_TYPE_TRANSITIVE
			       : FARE_PB_TYPE_NON_TRANSITIVE;
	ec[1] = subtype;
	put32(ec + 2, pb->router_id);
	ec[6] = pb->value >> 8;
	ec[7] = pb->value;
}

bool fare_pb_decode(const uint8_t ec[FARE_EC_LEN], uint8_t subtype,
		    struct fare_pb *pb)
{
	if ((ec[0] != FARE_PB_TYPE_TRANSITIVE &&
	     ec[0] != FARE_PB_TYPE_NON_TRANSITIVE) || ec[1] != subtype)
		return false;
	pb->transitive = ec[0] == FARE_PB_TYPE_TRANSITIVE;
	pb->router_id = get32(ec + 2);
	pb->value = ec[6] << 8 | ec[7];
	return true;
}

void fare_lb_encode(uint8_t ec[FARE_EC_LEN], const struct fare_lb *lb)
{
	ec[0] = lb->transitive ? FARE_LB_TYPE_TRANSITIVE
			       : FARE_LB_TYPE_NON_TRANSITIVE;
	ec[1] = FARE_LB_SUBTYPE;
	ec[2] = lb->as >> 8;
	ec[3] = lb->as;
	put32(ec + 4, lb->value);
}

bool fare_lb_decode(const uint8_t ec[FARE_EC_LEN], struct fare_lb *lb)
{
	if ((ec[0] != FARE_LB_TYPE_TRANSITIVE &&
	     ec[0] != FARE_LB_TYPE_NON_TRANSITIVE) ||
	    ec[1] != FARE_LB_SUBTYPE)
		return false;
	lb->transitive = ec[0] == FARE_LB_TYPE_TRANSITIVE;
	lb->as = ec[2] << 8 | ec[3];
	lb->value = get32(ec + 4);
	return true;
}

int fare_lb_to_bps(uint32_t value, uint64_t *bps)
{
	double v;
	float f;

	memcpy(&f, &value, sizeof(f));
	if (value & 0x80000000u || isnan(f))
		return -1;
	v = (double)f * 8;
	/* Infinity, and anything past what a uint64_t holds: unbounded. */
	if (v >= 18446744073709551616.0)
		*bps = FARE_BW_INF;
	else
		*bps = (uint64_t)(v + 0.5);
	return 0;
}

uint32_t fare_lb_from_bps(uint64_t bps)
{
	float f = bps == FARE_BW_INF ? INFINITY : (float)((double)bps / 8);
	uint32_t v;

	memcpy(&v, &f, sizeof(v));
	return v;
}

void fare_ec_find_bw(const uint8_t *ecs, size_t len,
		     const struct fare_ec_cfg *cfg, struct fare_path_bw *bw)
{
	struct fare_bw_src lb_t = { 0 }, lb_nt = { 0 }, *src;
	struct fare_pb pb;
	struct fare_lb lb;
	uint64_t bps;
	size_t i;

	memset(bw, 0, sizeof(*bw));
	for (i = 0; i + FARE_EC_LEN <= len; i += FARE_EC_LEN) {
		const uint8_t *ec = ecs + i;

		if (fare_pb_decode(ec, cfg->pb_subtype, &pb)) {
			src = pb.transitive ? &bw->t : &bw->nt;
			if (src->origin != FARE_BW_NONE)
				continue;
			if (fare_pb_to_bps(pb.value, &bps)) {
				src->invalid_pb = true;
				continue;
			}
			src->origin = FARE_BW_PB;
			src->bps = bps;
			src->router_id = pb.router_id;
			src->raw = pb.value;
		} else if (cfg->accept_link_bw && fare_lb_decode(ec, &lb)) {
			src = lb.transitive ? &lb_t : &lb_nt;
			if (src->origin == FARE_BW_NONE &&
			    !fare_lb_to_bps(lb.value, &bps)) {
				src->origin = FARE_BW_LB;
				src->bps = bps;
			}
		}
	}
	if (bw->t.origin == FARE_BW_NONE && lb_t.origin != FARE_BW_NONE) {
		lb_t.invalid_pb = bw->t.invalid_pb;
		bw->t = lb_t;
	}
	if (bw->nt.origin == FARE_BW_NONE && lb_nt.origin != FARE_BW_NONE) {
		lb_nt.invalid_pb = bw->nt.invalid_pb;
		bw->nt = lb_nt;
	}
}

void fare_fs_encode(uint8_t ec[FARE_EC_LEN], uint32_t local_as,
		    uint32_t router_id, uint8_t subtype)
{
	uint16_t as = local_as > 0xffff ? BGP_AS_TRANS : local_as;

	ec[0] = FARE_FS_TYPE;
	ec[1] = subtype;
	ec[2] = as >> 8;
	ec[3] = as;
	put32(ec + 4, router_id);
}

bool fare_fs_decode(const uint8_t ec[FARE_EC_LEN], uint8_t subtype,
		    struct fare_fs *fs)
{
	if (ec[0] != FARE_FS_TYPE || ec[1] != subtype)
		return false;
	fs->as = ec[2] << 8 | ec[3];
	fs->router_id = get32(ec + 4);
	return true;
}

bool fare_ec_has_fs(const uint8_t *ecs, size_t len, uint8_t subtype)
{
	struct fare_fs fs;
	size_t i;

	for (i = 0; i + FARE_EC_LEN <= len; i += FARE_EC_LEN)
		if (fare_fs_decode(ecs + i, subtype, &fs))
			return true;
	return false;
}

void fare_upa_encode(uint8_t ec[FARE_EC_LEN], const struct fare_upa *upa)
{
	ec[0] = FARE_UPA_TYPE;
	ec[1] = FARE_UPA_SUBTYPE;
	ec[2] = upa->drop ? FARE_UPA_FLAG_DROP : 0;
	ec[3] = 0;
	put32(ec + 4, upa->router_id);
}

bool fare_upa_decode(const uint8_t ec[FARE_EC_LEN], struct fare_upa *upa)
{
	if (ec[0] != FARE_UPA_TYPE || ec[1] != FARE_UPA_SUBTYPE)
		return false;
	upa->drop = ec[2] & FARE_UPA_FLAG_DROP;
	upa->router_id = get32(ec + 4);
	return true;
}

size_t fare_ec_find_upa(const uint8_t *ecs, size_t len, bool *drop)
{
	struct fare_upa upa;
	size_t i, n = 0;

	*drop = false;
	for (i = 0; i + FARE_EC_LEN <= len; i += FARE_EC_LEN)
		if (fare_upa_decode(ecs + i, &upa)) {
			n++;
			*drop |= upa.drop;
		}
	return n;
}
