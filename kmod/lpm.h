/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The longest-prefix walk of fare's table, free of kernel objects: the
 * same code runs in fare.ko and, with the shim, in userspace benchmarks.
 * The table itself (a hash of (family, length, masked address)) is the
 * caller's: the walk hands it one masked key per prefix length in use,
 * longest first, and stops at the first hit.
 */
#ifndef _FARE_LPM_H
#define _FARE_LPM_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/socket.h>
#include <linux/string.h>
#else
#include "fare_shim.h"
#endif

struct fare_prefix {
	u8 family;			/* AF_INET or AF_INET6 */
	u8 plen;
	u8 pad[2];
	u8 addr[16];			/* masked to plen, zero beyond */
};

#define FARE_PLEN_SLOTS 129		/* prefix lengths 0..128 */

static inline unsigned int fare_family_bits(u8 family)
{
	return family == AF_INET ? 32 : 128;
}

/* Clears the bits of @addr (@bits long) from bit @plen on. */
static inline void fare_mask(u8 *addr, unsigned int bits, unsigned int plen)
{
	unsigned int i = plen / 8;

	if (i >= bits / 8)
		return;
	if (plen % 8)
		addr[i++] &= 0xff << (8 - plen % 8);
	memset(addr + i, 0, bits / 8 - i);
}

/*
 * Longest match of @daddr among the lengths set in @plens (a bitmap of
 * FARE_PLEN_SLOTS bits): probes the longest length in use first. Each
 * shorter key is the longer one masked further, so the address is copied
 * once. @probe is called with @table; inlined, so is a constant @probe.
 */
static __always_inline void *
fare_lpm(const unsigned long *plens, u8 family, const void *daddr,
	 void *(*probe)(void *table, const struct fare_prefix *key),
	 void *table)
{
	unsigned int bits = fare_family_bits(family);
	unsigned long plen = bits + 1, next;
	struct fare_prefix key;
	void *hit;

	memset(&key, 0, sizeof(key));
	key.family = family;
	memcpy(key.addr, daddr, bits / 8);
	/* find_last_bit() returns its bound when no length is left below. */
	while ((next = find_last_bit(plens, plen)) < plen) {
		plen = next;
		key.plen = plen;
		fare_mask(key.addr, bits, plen);
		hit = probe(table, &key);
		if (hit)
			return hit;
	}
	return NULL;
}

#endif /* _FARE_LPM_H */
