// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctl-request: one request on fared's control socket, its whole answer on
 * standard output.
 *
 *   ctl-request SOCKET WORD...
 *
 * The words are joined by spaces and sent as one line; the answer is read
 * until fared closes the connection. The tests' ctl() used a Python client,
 * but Python's start-up takes seconds in an emulated guest and more on the
 * debug kernel, and ctl() is what their waits poll. CTL_TIMEOUT (seconds,
 * default 60) bounds each wait for fared; exit status 1 for any failure,
 * with the reason on standard error.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "ctl-request: %s %s: %s\n", what, path,
		strerror(errno));
	return 1;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *env = getenv("CTL_TIMEOUT");
	int timeout_ms = (env ? atoi(env) : 60) * 1000;
	char buf[65536];
	size_t len = 0;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: ctl-request SOCKET WORD...\n");
		return 2;
	}
	if (strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "ctl-request: socket path too long: %s\n",
			argv[1]);
		return 1;
	}
	strcpy(addr.sun_path, argv[1]);
	for (int i = 2; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + 2 > sizeof(buf)) {
			fprintf(stderr, "ctl-request: request too long\n");
			return 1;
		}
		if (i > 2)
			buf[len++] = ' ';
		memcpy(buf + len, argv[i], n);
		len += n;
	}
	buf[len++] = '\n';

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket for", argv[1]);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return fail("connecting to", argv[1]);
	if (write_all(fd, buf, len) < 0)
		return fail("sending to", argv[1]);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, timeout_ms);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail("waiting for", argv[1]);
		if (r == 0) {
			errno = ETIMEDOUT;
			return fail("waiting for", argv[1]);
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail("reading from", argv[1]);
		if (n == 0)
			break;
		if (write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
			return fail("writing the answer of", argv[1]);
	}
	close(fd);
	return 0;
}
