// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prefix helpers (see pfx.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfx.h"

bool pfx_eq(const struct bgp_prefix *a, const struct bgp_prefix *b)
{
	return a->family == b->family && a->len == b->len &&
	       !memcmp(a->addr, b->addr, 16);
}

bool pfx_covers(const struct bgp_prefix *a, const struct bgp_prefix *x)
{
	unsigned int i, len = a->len;

	if (a->family != x->family || a->len >= x->len)
		return false;
	for (i = 0; i < len / 8; i++)
		if (a->addr[i] != x->addr[i])
			return false;
	return !(len % 8) ||
	       !((a->addr[i] ^ x->addr[i]) & (0xff << (8 - len % 8)));
}

int pfx_set_track(struct bgp_prefix **v, size_t *n,
		  const struct bgp_prefix *x, bool in)
{
	struct bgp_prefix *nv;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!memcmp(&(*v)[i], x, sizeof(*x)))
			break;
	if (!in && i < *n) {
		(*v)[i] = (*v)[--*n];
		return 1;
	}
	if (!in || i < *n)
		return 0;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	(*v)[(*n)++] = *x;
	return 1;
}
