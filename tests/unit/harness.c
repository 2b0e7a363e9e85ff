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

int main(int argc, char **argv)
{
	int passed = 0, n_failed = 0, i;

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
		} else {
			printf("ok   %s\n", tests[i].name);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, n_failed);
	return n_failed ? 1 : 0;
}
