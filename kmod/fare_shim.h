/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers the pure selection code needs, so that
 * it builds unchanged in userspace for unit tests and callgrind benchmarks.
 */
#ifndef _FARE_SHIM_H
#define _FARE_SHIM_H

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

#endif /* _FARE_SHIM_H */
