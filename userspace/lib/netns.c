// SPDX-License-Identifier: GPL-2.0-only
/* Entering a named network namespace, the way "ip -n NAME" does. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libfare.h"

#define NETNS_RUN_DIR "/run/netns"

int fare_netns_enter(const char *name, struct fare_err *err)
{
	char path[256];
	int fd, ret;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strlen(name) >= sizeof(path) -
	    sizeof(NETNS_RUN_DIR) - 1)
		return fare_err_set(err, -EINVAL,
				    "invalid network namespace name \"%s\"",
				    name);
	snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return fare_err_set(err, ret,
					    "network namespace \"%s\" does not exist (no %s)",
					    name, path);
		return fare_err_set(err, ret,
				    "cannot open network namespace \"%s\": %s",
				    name, strerror(-ret));
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		ret = -errno;
		close(fd);
		return fare_err_set(err, ret,
				    "cannot enter network namespace \"%s\": %s",
				    name, strerror(-ret));
	}
	close(fd);
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
	return 0;
}
