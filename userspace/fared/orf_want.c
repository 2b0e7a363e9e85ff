// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host's wanted list of remote hosts (see orf_want.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "fared.h"
#include "orf_want.h"
#include "peer.h"

static void resend_all(struct fared *d)
{
	size_t i;

	for (i = 0; i < d->n_peers; i++)
		peer_send_orf(d->peers[i]);
}

static ssize_t want_find(const struct fared *d, const struct bgp_prefix *pfx)
{
	size_t i;

	for (i = 0; i < d->n_orf_want; i++)
		if (d->orf_want[i].family == pfx->family &&
		    d->orf_want[i].len == pfx->len &&
		    !memcmp(d->orf_want[i].addr, pfx->addr, 16))
			return (ssize_t)i;
	return -1;
}

static int want_push(struct fared *d, const struct bgp_prefix *pfx)
{
	struct bgp_prefix *w = realloc(d->orf_want, (d->n_orf_want + 1) *
				       sizeof(*w));

	if (!w)
		return -ENOMEM;
	d->orf_want = w;
	w[d->n_orf_want] = *pfx;
	w[d->n_orf_want++].path_id = 0;
	return 0;
}

int orf_want_add(struct fared *d, const struct bgp_prefix *pfx)
{
	int err;

	if (want_find(d, pfx) >= 0)
		return -EEXIST;
	err = want_push(d, pfx);
	if (!err)
		resend_all(d);
	return err;
}

int orf_want_del(struct fared *d, const struct bgp_prefix *pfx)
{
	ssize_t i = want_find(d, pfx);

	if (i < 0)
		return -ENOENT;
	/* Order kept: the sequence numbers follow it. */
	memmove(&d->orf_want[i], &d->orf_want[i + 1],
		(d->n_orf_want - (size_t)i - 1) * sizeof(*d->orf_want));
	d->n_orf_want--;
	resend_all(d);
	return 0;
}

int orf_want_init(struct fared *d)
{
	size_t i, n = d->cfg.n_orf_prefixes;

	d->orf_want = calloc(n + 1, sizeof(*d->orf_want));
	if (!d->orf_want)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		d->orf_want[i] = d->cfg.orf_prefixes[i].prefix;
	d->n_orf_want = n;
	return 0;
}

void orf_want_free(struct fared *d)
{
	free(d->orf_want);
	d->orf_want = NULL;
	d->n_orf_want = 0;
}
