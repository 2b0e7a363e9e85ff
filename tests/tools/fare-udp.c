// SPDX-License-Identifier: GPL-2.0-only
/*
 * fare-udp: the lab's traffic source and sink.
 *
 *   fare-udp send --src ADDR --dst ADDR --port P --count N
 *                 [--size BYTES] [--interval-us U]
 *   fare-udp sink --bind ADDR --port P --count N [--timeout SECONDS]
 *
 * send binds one socket to ADDR (the host's shared loopback address) and
 * sends N datagrams, each carrying its sequence number. sink counts
 * distinct sequence numbers until it has N or the timeout passes, prints
 * "received R of N" and exits 0 only if every datagram arrived once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *src, *dst;
	unsigned int port, count, size, interval_us, timeout;
};

static int usage(void)
{
	fprintf(stderr,
		"usage: fare-udp send --src ADDR --dst ADDR --port P --count N [--size B] [--interval-us U]\n"
		"       fare-udp sink --bind ADDR --port P --count N [--timeout S]\n");
	return 2;
}

static int make_addr(const char *text, unsigned int port,
		     struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, text, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return AF_INET6;
	}
	fprintf(stderr, "fare-udp: not an IP address: %s\n", text);
	return -1;
}

static int do_send(const struct opts *o)
{
	struct sockaddr_storage src, dst;
	socklen_t slen, dlen;
	char buf[9000];
	unsigned int i;
	int fd, fam;

	fam = make_addr(o->src, 0, &src, &slen);
	if (fam < 0 || make_addr(o->dst, o->port, &dst, &dlen) != fam)
		return 2;
	if (o->size < sizeof(uint32_t) || o->size > sizeof(buf)) {
		fprintf(stderr, "fare-udp: size must be 4..%zu\n", sizeof(buf));
		return 2;
	}
	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, slen) < 0) {
		perror("fare-udp: socket/bind");
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < o->count; i++) {
		uint32_t seq = htonl(i);

		memcpy(buf, &seq, sizeof(seq));
		if (sendto(fd, buf, o->size, 0, (struct sockaddr *)&dst,
			   dlen) < 0) {
			fprintf(stderr, "fare-udp: sendto #%u: %s\n", i,
				strerror(errno));
			return 1;
		}
		if (o->interval_us)
			usleep(o->interval_us);
	}
	close(fd);
	printf("sent %u\n", o->count);
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int do_sink(const struct opts *o)
{
	long long deadline = now_ms() + o->timeout * 1000LL;
	unsigned int received = 0, dups = 0;
	struct sockaddr_storage addr;
	unsigned char *seen;
	char buf[9000];
	socklen_t len;
	int fd, fam;

	fam = make_addr(o->src, o->port, &addr, &len);
	if (fam < 0)
		return 2;
	seen = calloc(o->count ? o->count : 1, 1);
	fd = socket(fam, SOCK_DGRAM, 0);
	if (!seen || fd < 0 || bind(fd, (struct sockaddr *)&addr, len) < 0) {
		perror("fare-udp: socket/bind");
		return 1;
	}
	/* Tell a waiting script that the socket is bound. */
	printf("listening\n");
	fflush(stdout);
	while (received < o->count) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		uint32_t seq;
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < (ssize_t)sizeof(seq))
			continue;
		memcpy(&seq, buf, sizeof(seq));
		seq = ntohl(seq);
		if (seq >= o->count || seen[seq]) {
			dups++;
			continue;
		}
		seen[seq] = 1;
		received++;
	}
	printf("received %u of %u (%u unexpected)\n", received, o->count,
	       dups);
	free(seen);
	close(fd);
	return received == o->count && !dups ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o = { .size = 64, .timeout = 30 };
	int i, send;

	if (argc < 2)
		return usage();
	send = !strcmp(argv[1], "send");
	if (!send && strcmp(argv[1], "sink"))
		return usage();
	for (i = 2; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--src") || !strcmp(k, "--bind"))
			o.src = v;
		else if (!strcmp(k, "--dst"))
			o.dst = v;
		else if (!strcmp(k, "--port"))
			o.port = atoi(v);
		else if (!strcmp(k, "--count"))
			o.count = atoi(v);
		else if (!strcmp(k, "--size"))
			o.size = atoi(v);
		else if (!strcmp(k, "--interval-us"))
			o.interval_us = atoi(v);
		else if (!strcmp(k, "--timeout"))
			o.timeout = atoi(v);
		else
			return usage();
	}
	if (i != argc || !o.src || !o.port || !o.count || (send && !o.dst))
		return usage();
	return send ? do_send(&o) : do_sink(&o);
}
