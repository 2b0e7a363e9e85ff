// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's control socket: a UNIX stream socket taking one request line
 * and answering with text or JSON, then closing. Requests:
 *
 *   neighbors [json]
 *   routes [json] [PREFIX]
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
};

int ctl_open(struct ctl *ctl, struct fared *d, const char *path);
void ctl_close(struct ctl *ctl);
/* Renders the answer to one request line into out; 0, or -1 if bad. */
int ctl_answer(struct fared *d, const char *request, FILE *out);

#endif /* FARED_CTL_H */
