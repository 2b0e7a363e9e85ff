// SPDX-License-Identifier: GPL-2.0-only
/* The runner of the unit tests: see harness.h. */
#include <stdarg.h>
#include <stdlib.h>

#include "harness.h"

#define MAX_TESTS 512

static struct {
	const char *name;
	void (*fn)(void);
} tests[MAX_TESTS];
static int n_tests;

static bool failed, skipped;
static char reason[1024];

void t_register(const char *name, void (*fn)(void))
{
	if (n_tests == MAX_TESTS) {
		fprintf(stderr, "harness: more than %d tests\n", MAX_TESTS);
		exit(2);
	}
	tests[n_tests].name = name;
	tests[n_tests].fn = fn;
	n_tests++;
}

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (failed)
		return;
	failed = true;
	len = snprintf(reason, sizeof(reason), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(reason + len, sizeof(reason) - len, fmt, ap);
	va_end(ap);
}

void t_skip(const char *why)
{
	skipped = true;
	snprintf(reason, sizeof(reason), "%s", why);
}

void capture_start(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(2);
	}
}

const char *capture_text(struct capture *c)
{
	fflush(c->f);
	return c->buf;
}

void capture_end(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
	c->f = NULL;
	c->buf = NULL;
}

/*
 * The program's name for the summary, "valgrind:NAME" under valgrind
 * (whose launcher preloads its vgpreload libraries into the client).
 */
static void summary_name(const char *argv0, char *buf, size_t len)
{
	const char *preload = getenv("LD_PRELOAD");
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	snprintf(buf, len, "%s%s",
		 preload && strstr(preload, "vgpreload") ? "valgrind:" : "",
		 base);
}

/* Appends a line to $FARE_UNIT_SUMMARY, if set. */
static void summary_add(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void summary_add(const char *fmt, ...)
{
	const char *path = getenv("FARE_UNIT_SUMMARY");
	va_list ap;
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "a");
	if (!f) {
		perror(path);
		exit(2);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f)) {
		perror(path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	int passed = 0, n_failed = 0, n_skipped = 0, i;
	char name[256];

	summary_name(argv[0], name, sizeof(name));
	for (i = 0; i < n_tests; i++) {
		/* An argument runs only the tests whose names contain it. */
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		failed = skipped = false;
		reason[0] = '\0';
		tests[i].fn();
		if (failed) {
			printf("FAIL %s: %s\n", tests[i].name, reason);
			n_failed++;
		} else if (skipped) {
			printf("skip %s: %s\n", tests[i].name, reason);
			summary_add("skip %s %s: %s\n", name, tests[i].name,
				    reason);
			n_skipped++;
		} else {
			printf("ok   %s\n", tests[i].name);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed, %d skipped\n", passed, n_failed,
	       n_skipped);
	summary_add("harness %s %d %d %d\n", name, passed, n_failed,
		    n_skipped);
	return n_failed ? 1 : 0;
}
