// SPDX-License-Identifier: GPL-2.0-only
/* The farectl program itself: exit codes and messages, no kernel needed. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifndef FARECTL
#error "build with -DFARECTL=\"path/to/farectl\""
#endif

static char out[8192], errout[8192];

static void slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Run farectl with args (NULL-terminated); returns its exit status. */
static int run(const char *const *args)
{
	const char *argv[64];
	FILE *o = tmpfile(), *e = tmpfile();
	int status, i;
	pid_t pid;

	argv[0] = "farectl";
	for (i = 0; args[i] && i < 62; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	out[0] = errout[0] = '\0';
	if (!o || !e)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(o), 1);
		dup2(fileno(e), 2);
		execv(FARECTL, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		fclose(o);
		fclose(e);
		return -1;
	}
	slurp(o, out, sizeof(out));
	slurp(e, errout, sizeof(errout));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#define RUN(...) run((const char *const[]){ __VA_ARGS__, NULL })

TEST(cli_usage_error_exits_2_with_one_line)
{
	CHECK_INT(RUN("route", "add", "10.0.0.0/24", "nexthop", "plane", "1",
		      "weight", "0"), 2);
	CHECK_STR(errout,
		  "farectl: route add: weight 0 out of range (1..4294967295) at argument 8\n");
	CHECK_STR(out, "");
}

TEST(cli_without_arguments_prints_usage_and_exits_2)
{
	CHECK_INT(run((const char *const[]){ NULL }), 2);
	CHECK(!strncmp(errout, "Usage: farectl", 14));
	CHECK_STR(out, "");
}

TEST(cli_help_goes_to_stdout_and_exits_0)
{
	CHECK_INT(RUN("help"), 0);
	CHECK(!strncmp(out, "Usage: farectl", 14));
	CHECK_INT(RUN("route", "help"), 0);
	CHECK(strstr(out, "farectl route show [PREFIX]"));
	CHECK_INT(RUN("--help"), 0);
	CHECK_STR(errout, "");
}

TEST(cli_unknown_namespace_exits_1)
{
	CHECK_INT(RUN("-n", "fare-unit-no-such-ns", "plane", "show"), 1);
	CHECK_STR(errout,
		  "farectl: network namespace \"fare-unit-no-such-ns\" does not exist (no /run/netns/fare-unit-no-such-ns)\n");
}

TEST(cli_without_the_module_says_so_and_exits_1)
{
	struct stat st;

	if (!stat("/sys/module/fare", &st)) {
		t_skip("fare.ko is loaded here");
		return;
	}
	CHECK_INT(RUN("plane", "show"), 1);
	CHECK_STR(errout,
		  "farectl: the fare module is not loaded (generic netlink family \"fare\" not found)\n");
	CHECK_STR(out, "");
}
