// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's control socket: a UNIX stream socket taking one request line
 * and answering with text or JSON, then closing. Requests that look:
 *
 *   neighbors [json]
 *   routes [json] [PREFIX]
 *   fare [json]
 *   orf [json]
 *
 * and those that change fared's state, which only root and fared's own
 * uid may send (SO_PEERCRED at accept; others get "error: permission
 * denied"):
 *
 *   clear NEIGHBOR
 *   orf add PREFIX, orf del PREFIX
 *
 * Who may connect at all is the socket file's business: mode 0660, owned
 * by fared's uid and its gid, or control-group's (fared.conf(5)). An
 * existing path is replaced only if it is a socket nobody answers on.
 *
 * farectl bgp relays these, so it needs no JSON parser of its own.
 */
#ifndef FARED_CTL_H
#define FARED_CTL_H

#include <stdio.h>

#include "fared.h"
#include "loop.h"

struct ctl {
	struct fared *d;
	struct io io;
	char path[108];
	unsigned int n_clients;
	unsigned long refused;		/* clients over CTL_CLIENTS_MAX */
};

/* 0, or -errno with the reason logged (fared does not start then). */
int ctl_open(struct ctl *ctl, struct fared *d, const char *path);
void ctl_close(struct ctl *ctl);
/*
 * Renders the whole answer to one request line into out, as for root;
 * 0, or -1 if bad.
 */
int ctl_answer(struct fared *d, const char *request, FILE *out);

#endif /* FARED_CTL_H */
