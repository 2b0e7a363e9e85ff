/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers the pure selection code needs, so that
 * it builds unchanged in userspace for unit tests and callgrind benchmarks.
 */
#ifndef _FARE_SHIM_H
#define _FARE_SHIM_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define hweight64(x) ((unsigned int)__builtin_popcountll(x))

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

#define BITS_PER_LONG (8 * sizeof(long))

/* One access the compiler neither splits, merges nor repeats. */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/* The kernel's: the last bit set below @size, or @size if none. */
static inline unsigned long find_last_bit(const unsigned long *addr,
					  unsigned long size)
{
	unsigned long i = size / BITS_PER_LONG, w;

	if (size % BITS_PER_LONG) {
		w = addr[i] & (~0UL >> (BITS_PER_LONG - size % BITS_PER_LONG));
		if (w)
			return i * BITS_PER_LONG + BITS_PER_LONG - 1 -
			       __builtin_clzl(w);
	}
	while (i--)
		if (addr[i])
			return i * BITS_PER_LONG + BITS_PER_LONG - 1 -
			       __builtin_clzl(addr[i]);
	return size;
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG) & 1;
}

#define be32_to_cpu(x) be32toh(x)
#define be64_to_cpu(x) be64toh(x)
typedef uint32_t __be32;
typedef uint64_t __be64;

/* The kernel's jhash.h: Bob Jenkins' lookup3 over 32-bit words. */
#define JHASH_INITVAL 0xdeadbeef

static inline u32 rol32(u32 w, unsigned int s)
{
	return (w << s) | (w >> ((-s) & 31));
}

#define __jhash_mix(a, b, c)				\
{							\
	a -= c;  a ^= rol32(c, 4);  c += b;		\
	b -= a;  b ^= rol32(a, 6);  a += c;		\
	c -= b;  c ^= rol32(b, 8);  b += a;		\
	a -= c;  a ^= rol32(c, 16); c += b;		\
	b -= a;  b ^= rol32(a, 19); a += c;		\
	c -= b;  c ^= rol32(b, 4);  b += a;		\
}

#define __jhash_final(a, b, c)				\
{							\
	c ^= b; c -= rol32(b, 14);			\
	a ^= c; a -= rol32(c, 11);			\
	b ^= a; b -= rol32(a, 25);			\
	c ^= b; c -= rol32(b, 16);			\
	a ^= c; a -= rol32(c, 4);			\
	b ^= a; b -= rol32(a, 14);			\
	c ^= b; c -= rol32(b, 24);			\
}

static inline u32 jhash2(const u32 *k, u32 length, u32 initval)
{
	u32 a, b, c;

	a = b = c = JHASH_INITVAL + (length << 2) + initval;
	while (length > 3) {
		a += k[0];
		b += k[1];
		c += k[2];
		__jhash_mix(a, b, c);
		length -= 3;
		k += 3;
	}
	switch (length) {
	case 3:
		c += k[2];
		/* fall through */
	case 2:
		b += k[1];
		/* fall through */
	case 1:
		a += k[0];
		__jhash_final(a, b, c);
		break;
	}
	return c;
}

static inline u32 __jhash_nwords(u32 a, u32 b, u32 c, u32 initval)
{
	a += initval;
	b += initval;
	c += initval;
	__jhash_final(a, b, c);
	return c;
}

static inline u32 jhash_2words(u32 a, u32 b, u32 initval)
{
	return __jhash_nwords(a, b, 0, initval + JHASH_INITVAL + (2 << 2));
}

static inline u32 jhash_1word(u32 a, u32 initval)
{
	return __jhash_nwords(a, 0, 0, initval + JHASH_INITVAL + (1 << 2));
}

#endif /* _FARE_SHIM_H */
