// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's log (fared.h): one line on stderr per event, UTC time first;
 * systemd's journal or the lab's log file takes it from there.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "fared.h"

void fared_log(const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char when[32];
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld fared: ", when, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fared_out_of_memory(struct fared *d, const char *what)
{
	if (d->out_of_memory)
		return;
	d->out_of_memory = true;
	fared_log("out of memory (%s): leaving for a restart, so that a new "
		  "fared rebuilds every table from the peers and adopts "
		  "fare.ko's routes (exit status %d)", what, FARED_EXIT_NOMEM);
	d->loop.stop = true;
}
