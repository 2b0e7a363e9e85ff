// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host's wanted list: the remote hosts fared asks its neighbors for
 * with Address Prefix ORF (config "orf-prefix", changed at run time
 * through the control socket). A change goes to every neighbor at once
 * (peer_send_orf(), orf_sess.h says how the list is sent).
 */
#ifndef FARED_ORF_WANT_H
#define FARED_ORF_WANT_H

#include "bgp.h"

struct fared;

/*
 * The run-time list: add or remove pfx, then resend to every neighbor.
 * Returns 0, -EEXIST / -ENOENT, -ENOMEM.
 */
int orf_want_add(struct fared *d, const struct bgp_prefix *pfx);
int orf_want_del(struct fared *d, const struct bgp_prefix *pfx);
/* The list from the configuration (start); 0 or -ENOMEM. */
int orf_want_init(struct fared *d);
void orf_want_free(struct fared *d);

#endif /* FARED_ORF_WANT_H */
