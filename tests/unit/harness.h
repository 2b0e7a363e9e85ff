// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tiny test harness. TEST(name) defines and registers a test; the runner
 * prints "ok NAME", "FAIL NAME: where: what" or "skip NAME: why" for each,
 * then "N passed, N failed, N skipped", and exits 1 if any failed.
 *
 * With FARE_UNIT_SUMMARY naming a file, the runner also appends its counts
 * and each skip there (see tests/unit/summary, which sums every harness of
 * "make check" and fails in CI on a skip).
 */
#ifndef FARE_HARNESS_H
#define FARE_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void t_register(const char *name, void (*fn)(void));
/* Record a failure of the running test (the first one is reported). */
void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Mark the running test skipped, with a reason: something this machine
 * lacks. In CI (CI=true) tests/unit/summary fails the run on any skip.
 */
void t_skip(const char *why);

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define TEST(name)							\
	static void name(void);						\
	__attribute__((constructor)) static void register_##name(void)	\
	{								\
		t_register(#name, name);				\
	}								\
	static void name(void)

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			t_fail(__FILE__, __LINE__, "%s", #cond);	\
			return;						\
		}							\
	} while (0)

#define CHECK_INT(got, want)						\
	do {								\
		long long g_ = (got), w_ = (want);			\
		if (g_ != w_) {						\
			t_fail(__FILE__, __LINE__, "%s is %lld, not %lld", \
			       #got, g_, w_);				\
			return;						\
		}							\
	} while (0)

#define CHECK_STR(got, want)						\
	do {								\
		const char *g_ = (got), *w_ = (want);			\
		if (!g_ || strcmp(g_, w_)) {				\
			t_fail(__FILE__, __LINE__,			\
			       "%s is\n\t\"%s\"\n\tnot\n\t\"%s\"", #got,	\
			       g_ ? g_ : "(null)", w_);			\
			return;						\
		}							\
	} while (0)

/* Capture what a block of code writes to a FILE *. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

void capture_start(struct capture *c);
/* Returns the text written so far (valid until capture_end). */
const char *capture_text(struct capture *c);
void capture_end(struct capture *c);

#endif /* FARE_HARNESS_H */
