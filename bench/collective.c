// SPDX-License-Identifier: GPL-2.0-only
/*
 * collective: one collective step of N TCP flows, for bench/run-collective.
 *
 *   collective now
 *   collective recv --port P --flows N --bytes S [--timeout SECONDS]
 *   collective send --src ADDR --dst ADDR[,ADDR...] --port P --flows N
 *                   --bytes S [--at-ms MS --write FIFO=LINE ...]
 *
 * recv listens on P (every address), accepts N connections and reads S
 * bytes from each. It prints "listening" once bound, then one line
 * "flow PEERPORT DONE_NS" per flow as its S-th byte is read (DONE_NS: the
 * CLOCK_MONOTONIC time, in ns, when the read that completed the flow
 * returned), and "done" once every flow is complete. It exits 1 on a
 * timeout, a short flow (EOF before S bytes) or an error.
 *
 * send opens N connections from ADDR (the host's shared loopback
 * address) to the destinations in turn (flow i to destination i mod D),
 * waits until every one is established, prints "start T0_NS" and then
 * writes S bytes to each, all flows at once (poll over every socket):
 * the step starts together at T0. With --at-ms MS, at T0 + MS ms it
 * writes each LINE (and a newline) to its FIFO, in the order given, closes
 * them and prints "wrote AT_NS": bench/run-collective degrades a plane
 * so, mid-step, through "tc -batch" and "farectl -batch" processes
 * started before the step and blocked on those FIFOs (a command spawned
 * at that moment started up to 2.5 s late on the 2-CPU emulated guest).
 * It exits 0 once every byte was handed to the kernel; the sockets close
 * gracefully, so what is still queued is still delivered, and the
 * receiver says when.
 *
 * now prints the CLOCK_MONOTONIC time in ns.
 *
 * Both run in the same guest, so their CLOCK_MONOTONIC times compare.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FLOWS 1024
#define MAX_DSTS 16
#define CHUNK (64 * 1024)
#define MAX_WRITES 4

static char buf[CHUNK];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: collective now\n"
		"       collective recv --port P --flows N --bytes S [--timeout SECONDS]\n"
		"       collective send --src ADDR --dst ADDR[,ADDR...] --port P --flows N\n"
		"                       --bytes S [--at-ms MS --write FIFO=LINE ...]\n");
	exit(2);
}

static unsigned long long number(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "collective: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

struct opts {
	const char *src, *dst, *writes[MAX_WRITES];
	unsigned int nwrites;
	unsigned int port, flows, timeout;
	unsigned long long bytes, at_ms;
	int have_at;
};

static void parse(int argc, char **argv, struct opts *o)
{
	int i;

	o->timeout = 120;
	for (i = 2; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (!strcmp(k, "--src")) {
			o->src = v;
		} else if (!strcmp(k, "--dst")) {
			o->dst = v;
		} else if (!strcmp(k, "--port")) {
			o->port = number(v, 65535);
		} else if (!strcmp(k, "--flows")) {
			o->flows = number(v, MAX_FLOWS);
		} else if (!strcmp(k, "--bytes")) {
			o->bytes = number(v, 1ull << 40);
		} else if (!strcmp(k, "--timeout")) {
			o->timeout = number(v, 86400);
		} else if (!strcmp(k, "--at-ms")) {
			o->at_ms = number(v, 86400000);
			o->have_at = 1;
		} else if (!strcmp(k, "--write")) {
			if (o->nwrites == MAX_WRITES || !strchr(v, '='))
				usage();
			o->writes[o->nwrites++] = v;
		} else {
			usage();
		}
	}
	if (!o->port || !o->flows || !o->bytes || o->have_at != !!o->nwrites)
		usage();
}

static int do_recv(const struct opts *o)
{
	static struct pollfd pfd[MAX_FLOWS + 1];
	static unsigned long long got[MAX_FLOWS];
	static unsigned int peer[MAX_FLOWS];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	unsigned int accepted = 0, done = 0, i;
	uint64_t deadline;
	int one = 1, ls;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		die("socket");
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_port = htons(o->port);
	if (bind(ls, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(ls, MAX_FLOWS))
		die("bind/listen");
	printf("listening\n");
	fflush(stdout);
	pfd[0].fd = ls;
	pfd[0].events = POLLIN;
	deadline = now_ns() + o->timeout * 1000000000ull;
	while (done < o->flows) {
		int n, left = (int)((deadline - now_ns()) / 1000000);

		if (now_ns() >= deadline) {
			fprintf(stderr, "collective: timeout, %u of %u flows complete\n",
				done, o->flows);
			return 1;
		}
		n = poll(pfd, accepted + 1, left);
		if (n < 0 && errno != EINTR)
			die("poll");
		if (n <= 0)
			continue;
		if (pfd[0].revents & POLLIN && accepted < o->flows) {
			struct sockaddr_in from;
			socklen_t len = sizeof(from);
			int fd = accept(ls, (struct sockaddr *)&from, &len);

			if (fd < 0)
				die("accept");
			peer[accepted] = ntohs(from.sin_port);
			pfd[accepted + 1].fd = fd;
			pfd[accepted + 1].events = POLLIN;
			accepted++;
			if (accepted == o->flows)
				pfd[0].events = 0;
		}
		for (i = 0; i < accepted; i++) {
			struct pollfd *p = &pfd[i + 1];
			ssize_t r;

			if (p->fd < 0 || !(p->revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(p->fd, buf, sizeof(buf));
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				fprintf(stderr, "collective: flow from port %u ended after %llu of %llu bytes\n",
					peer[i], got[i], o->bytes);
				return 1;
			}
			got[i] += r;
			if (got[i] >= o->bytes) {
				printf("flow %u %llu\n", peer[i],
				       (unsigned long long)now_ns());
				close(p->fd);
				p->fd = -1;
				done++;
			}
		}
	}
	printf("done\n");
	return 0;
}

/* Each --write's LINE to its FIFO, whose reader is already waiting. */
static void write_lines(const struct opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nwrites; i++) {
		const char *eq = strchr(o->writes[i], '=');
		char path[256];
		int fd;

		snprintf(path, sizeof(path), "%.*s",
			 (int)(eq - o->writes[i]), o->writes[i]);
		fd = open(path, O_WRONLY);
		if (fd < 0 || dprintf(fd, "%s\n", eq + 1) < 0)
			die(path);
		close(fd);
	}
}

static int do_send(const struct opts *o)
{
	static struct pollfd pfd[MAX_FLOWS];
	static unsigned long long left[MAX_FLOWS];
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst[MAX_DSTS];
	unsigned int ndst = 0, i, active;
	char *list, *tok, *save;
	int fired = 0;
	uint64_t t0, at = 0;

	if (!o->src || !o->dst || inet_pton(AF_INET, o->src, &src.sin_addr) != 1)
		usage();
	list = strdup(o->dst);
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (ndst == MAX_DSTS)
			usage();
		memset(&dst[ndst], 0, sizeof(dst[ndst]));
		dst[ndst].sin_family = AF_INET;
		dst[ndst].sin_port = htons(o->port);
		if (inet_pton(AF_INET, tok, &dst[ndst].sin_addr) != 1)
			usage();
		ndst++;
	}
	free(list);
	if (!ndst)
		usage();
	for (i = 0; i < o->flows; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src)))
			die("socket/bind");
		if (connect(fd, (struct sockaddr *)&dst[i % ndst],
			    sizeof(dst[0])))
			die("connect");
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		pfd[i].fd = fd;
		pfd[i].events = POLLOUT;
		left[i] = o->bytes;
	}
	t0 = now_ns();
	printf("start %llu\n", (unsigned long long)t0);
	fflush(stdout);
	if (o->have_at)
		at = t0 + o->at_ms * 1000000ull;
	active = o->flows;
	while (active || (at && !fired)) {
		int timeout = -1, n;

		if (at && !fired) {
			uint64_t now = now_ns();

			if (now >= at) {
				write_lines(o);
				fired = 1;
				printf("wrote %llu\n",
				       (unsigned long long)now_ns());
				fflush(stdout);
				continue;
			}
			timeout = (int)((at - now) / 1000000) + 1;
		}
		n = poll(pfd, o->flows, timeout);
		if (n < 0 && errno != EINTR)
			die("poll");
		for (i = 0; n > 0 && i < o->flows; i++) {
			ssize_t w;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			w = write(pfd[i].fd, buf,
				  left[i] < CHUNK ? left[i] : CHUNK);
			if (w < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (w < 0)
				die("write");
			left[i] -= w;
			if (!left[i]) {
				/* Not closed yet: -1 only leaves poll's set. */
				pfd[i].fd = ~pfd[i].fd;
				active--;
			}
		}
	}
	for (i = 0; i < o->flows; i++)
		close(~pfd[i].fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };

	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%llu\n", (unsigned long long)now_ns());
		return 0;
	}
	if (argc < 2)
		usage();
	parse(argc, argv, &o);
	if (!strcmp(argv[1], "recv"))
		return do_recv(&o);
	if (!strcmp(argv[1], "send"))
		return do_send(&o);
	usage();
	return 2;
}
