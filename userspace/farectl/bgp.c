// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl bgp: relays a request to fared's control socket and prints the
 * answer. fared renders text or JSON itself, so farectl needs no JSON
 * parser and the two never disagree on a format.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bgp.h"

#define FARED_SOCKET	"/run/fared/fared.sock"

static int bgp_usage(FILE *f)
{
	fprintf(f, "usage: farectl [-j] bgp [-s SOCKET] neighbors\n"
		"       farectl [-j] bgp [-s SOCKET] routes [PREFIX]\n"
		"       farectl [-j] bgp [-s SOCKET] orf [add|del PREFIX]\n"
		"       farectl bgp [-s SOCKET] clear NEIGHBOR\n"
		"  SOCKET is fared's control-socket (default "
		FARED_SOCKET ")\n");
	return f == stdout ? 0 : 2;
}

int fc_bgp(int argc, char **argv, bool json)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = FARED_SOCKET, *what = NULL, *prefix = NULL;
	const char *op = NULL;
	char req[256], buf[65536];
	ssize_t n;
	size_t off = 0;
	int i, fd;
	bool last_nl = true, first = true, refused = false;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "-json")) {
			json = true;
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			path = argv[++i];
		} else if (!strcmp(argv[i], "help") || !strcmp(argv[i], "-h")) {
			return bgp_usage(stdout);
		} else if (!what && (!strcmp(argv[i], "neighbors") ||
				     !strcmp(argv[i], "routes") ||
				     !strcmp(argv[i], "orf") ||
				     !strcmp(argv[i], "clear"))) {
			what = argv[i];
		} else if (what && what[0] == 'o' && !op &&
			   (!strcmp(argv[i], "add") || !strcmp(argv[i], "del"))) {
			op = argv[i];
		} else if (what && (what[0] == 'r' || what[0] == 'c' || op) &&
			   !prefix &&
			   argv[i][0] != '-') {
			prefix = argv[i];
		} else {
			fprintf(stderr, "farectl: bgp: unexpected \"%s\"\n",
				argv[i]);
			return bgp_usage(stderr);
		}
	}
	if (!what || (op && !prefix) || (what[0] == 'c' && !prefix))
		return bgp_usage(stderr);
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "farectl: bgp: socket path too long\n");
		return 2;
	}
	if (op)
		snprintf(req, sizeof(req), "%s %s %s\n", what, op, prefix);
	else
		snprintf(req, sizeof(req), "%s%s%s%s\n", what,
			 json ? " json" : "", prefix ? " " : "",
			 prefix ? prefix : "");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "farectl: bgp: %s: %s (%s)\n", path,
			strerror(errno), errno == EACCES ?
			"asking fared needs membership of the socket's group" :
			"is fared running?");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	while (off < strlen(req)) {
		n = write(fd, req + off, strlen(req) - off);
		if (n <= 0) {
			fprintf(stderr, "farectl: bgp: %s\n", strerror(errno));
			close(fd);
			return 1;
		}
		off += (size_t)n;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, stdout);
		last_nl = buf[n - 1] == '\n';
		/* fared answers a bad request with a line "error: ...". */
		if (first && n >= 6 && !strncmp(buf, "error:", 6))
			refused = true;
		first = false;
	}
	close(fd);
	if (!last_nl)
		putchar('\n');
	return n < 0 || refused ? 1 : 0;
}
