// SPDX-License-Identifier: GPL-2.0-only
/*
 * The neighbors as the decision code sees them (see peer_table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "peer_table.h"

int peer_table_set(struct peer_table *t, unsigned int index,
		   const struct peer_info *pi)
{
	if (index >= t->n) {
		size_t n = index + 1 > 2 * t->n ? index + 1 : 2 * t->n;
		struct peer_info *v = realloc(t->v, n * sizeof(*v));

		if (!v)
			return -1;
		memset(v + t->n, 0, (n - t->n) * sizeof(*v));
		t->v = v;
		t->n = n;
	}
	t->v[index] = *pi;
	t->v[index].present = true;
	return 0;
}

void peer_table_clear(struct peer_table *t, unsigned int index)
{
	if (index < t->n)
		memset(&t->v[index], 0, sizeof(t->v[index]));
}

const struct peer_info *peer_table_get(const struct peer_table *t,
				       unsigned int index)
{
	if (index >= t->n || !t->v[index].present)
		return NULL;
	return &t->v[index];
}

void peer_table_free(struct peer_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
