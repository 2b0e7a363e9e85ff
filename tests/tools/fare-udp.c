// SPDX-License-Identifier: GPL-2.0-only
/*
 * fare-udp: the lab's traffic source and sink.
 *
 *   fare-udp send --src ADDR --dst ADDR --port P --count N
 *                 [--size BYTES] [--interval-us U]
 *                 [--flows F] [--burst B] [--gap-us G] [--keep-going 1]
 *                 [--dev IFNAME]
 *   fare-udp sink --bind ADDR --port P --count N [--timeout SECONDS]
 *                 [--flows F] [--burst B]
 *
 * send opens F sockets (F flows, distinct source ports) bound to ADDR (the
 * host's shared loopback address) and sends N datagrams in all: bursts of
 * B datagrams per flow, flow after flow, with G microseconds of silence
 * after each round of bursts (so each burst is a flowlet when G exceeds
 * the flowlet timeout). Each datagram carries its sequence number, flow
 * and burst. With --keep-going 1 a failed send (no route yet, say) is
 * counted and the stream goes on. With --dev every socket is bound to
 * device IFNAME (SO_BINDTODEVICE), as a plane-bound application's are.
 *
 * sink counts distinct sequence numbers until it has N or the timeout
 * passes, and notes the interface each datagram came in on. It prints
 * "received R of N", one "iface NAME PACKETS" line per interface, and
 * "flows F split S" and "bursts B split S": how many flows and bursts had
 * datagrams arrive on more than one interface. It exits 0 only if every
 * datagram arrived once. SIGTERM or SIGINT ends the wait early (what
 * already waits in the socket still counts), with the
 * same report (a script stops it once its sender is done).
 *
 * SIGTERM or SIGINT also ends a send early, after the datagram in hand,
 * with the same "sent S" line: a stream that runs for as long as some
 * command takes, which the script then compares with what the sink got.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *src, *dst, *dev;
	unsigned int port, count, size, interval_us, timeout;
	unsigned int flows, burst, gap_us, keep_going;
};

/* What each datagram carries, in network order. */
struct payload {
	uint32_t seq, flow, burst;
};

static int usage(void)
{
	fprintf(stderr,
		"usage: fare-udp send --src ADDR --dst ADDR --port P --count N [--size B] [--interval-us U]\n"
		"                     [--flows F] [--burst B] [--gap-us G] [--keep-going 1] [--dev IFNAME]\n"
		"       fare-udp sink --bind ADDR --port P --count N [--timeout S]\n"
		"                     [--flows F] [--burst B]   (as given to send)\n");
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

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int do_send(const struct opts *o)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct sockaddr_storage src, dst;
	unsigned int i, flow, sent = 0, failed = 0;
	socklen_t slen, dlen;
	char buf[9000];
	int *fds, fam;

	fam = make_addr(o->src, 0, &src, &slen);
	if (fam < 0 || make_addr(o->dst, o->port, &dst, &dlen) != fam)
		return 2;
	if (o->size < sizeof(struct payload) || o->size > sizeof(buf)) {
		fprintf(stderr, "fare-udp: size must be %zu..%zu\n",
			sizeof(struct payload), sizeof(buf));
		return 2;
	}
	fds = calloc(o->flows, sizeof(*fds));
	if (!fds)
		return 1;
	for (flow = 0; flow < o->flows; flow++) {
		fds[flow] = socket(fam, SOCK_DGRAM, 0);
		if (fds[flow] < 0 ||
		    bind(fds[flow], (struct sockaddr *)&src, slen) < 0) {
			perror("fare-udp: socket/bind");
			return 1;
		}
		if (o->dev && setsockopt(fds[flow], SOL_SOCKET, SO_BINDTODEVICE,
					 o->dev, strlen(o->dev) + 1) < 0) {
			perror("fare-udp: SO_BINDTODEVICE");
			return 1;
		}
	}
	memset(buf, 0x5a, sizeof(buf));
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (unsigned int round = 0; sent < o->count && !stop_requested;
	     round++) {
		for (flow = 0; flow < o->flows && sent < o->count &&
		     !stop_requested; flow++) {
			for (i = 0; i < o->burst && sent < o->count &&
			     !stop_requested; i++) {
				struct payload pl = {
					.seq = htonl(sent),
					.flow = htonl(flow),
					.burst = htonl(round),
				};

				memcpy(buf, &pl, sizeof(pl));
				if (sendto(fds[flow], buf, o->size, 0,
					   (struct sockaddr *)&dst, dlen) < 0) {
					if (!o->keep_going) {
						fprintf(stderr, "fare-udp: sendto #%u: %s\n",
							sent, strerror(errno));
						return 1;
					}
					failed++;
				}
				sent++;
				if (o->interval_us)
					usleep(o->interval_us);
			}
		}
		if (o->gap_us)
			usleep(o->gap_us);
	}
	for (flow = 0; flow < o->flows; flow++)
		close(fds[flow]);
	free(fds);
	printf("sent %u in %u flows (%u failed)\n", sent, o->flows, failed);
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

#define MAX_IFINDEX 4096

struct seen_unit {
	int ifindex;		/* first interface seen, 0 for none yet */
	int split;		/* came in on more than one interface */
};

static void note(struct seen_unit *u, int ifindex)
{
	if (!u->ifindex)
		u->ifindex = ifindex;
	else if (u->ifindex != ifindex)
		u->split = 1;
}

static unsigned int count_split(const struct seen_unit *u, size_t n,
				unsigned int *used)
{
	unsigned int split = 0;
	size_t i;

	*used = 0;
	for (i = 0; i < n; i++) {
		*used += !!u[i].ifindex;
		split += u[i].split;
	}
	return split;
}

/* The ingress interface of a datagram, from IP_PKTINFO/IPV6_PKTINFO. */
static int ingress_ifindex(struct msghdr *msg)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
			return ((struct in_pktinfo *)CMSG_DATA(c))->ipi_ifindex;
		if (c->cmsg_level == IPPROTO_IPV6 &&
		    c->cmsg_type == IPV6_PKTINFO)
			return ((struct in6_pktinfo *)CMSG_DATA(c))->ipi6_ifindex;
	}
	return 0;
}

static int do_sink(const struct opts *o)
{
	/* No SA_RESTART: the signal ends poll() with EINTR. */
	struct sigaction sa = { .sa_handler = on_stop };
	long long deadline = now_ms() + o->timeout * 1000LL;
	unsigned int received = 0, dups = 0, used, split;
	static unsigned long long per_if[MAX_IFINDEX];
	struct seen_unit *flows, *bursts;
	struct sockaddr_storage addr;
	unsigned char *seen;
	size_t max_bursts, rounds;
	char buf[9000];
	socklen_t len;
	int fd, fam, one = 1, i, rcvbuf = 16 << 20;

	fam = make_addr(o->src, o->port, &addr, &len);
	if (fam < 0)
		return 2;
	/* With the sender's F and B, burst (flow, round) has its own slot. */
	rounds = (o->count + o->flows * o->burst - 1) / (o->flows * o->burst);
	max_bursts = (size_t)o->flows * rounds;
	seen = calloc(o->count, 1);
	flows = calloc(o->flows, sizeof(*flows));
	bursts = calloc(max_bursts, sizeof(*bursts));
	fd = socket(fam, SOCK_DGRAM, 0);
	/*
	 * Bursts arrive faster than a starved guest CPU may read them: a
	 * large receive buffer keeps the count about the network, not about
	 * scheduling. SO_RCVBUFFORCE needs root; fall back quietly.
	 */
	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				  sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (!seen || !flows || !bursts || fd < 0 ||
	    setsockopt(fd, fam == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
		       fam == AF_INET ? IP_PKTINFO : IPV6_RECVPKTINFO,
		       &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&addr, len) < 0) {
		perror("fare-udp: socket/bind");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Tell a waiting script that the socket is bound. */
	printf("listening\n");
	fflush(stdout);
	while (received < o->count) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		char control[256];
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = control,
			.msg_controllen = sizeof(control),
		};
		struct payload pl;
		int ifindex;
		ssize_t n;

		int ready;

		/*
		 * Stopped (SIGTERM): what already waits in the socket still
		 * counts, so read on without waiting until it is empty.
		 */
		if (!stop_requested && left <= 0)
			break;
		ready = poll(&pfd, 1, stop_requested ? 0 : (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			break;
		/*
		 * Not blocking: a datagram that poll() saw may still be dropped
		 * by recvmsg() (a bad checksum), and a blocking read would
		 * then wait past the deadline for the next one.
		 */
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n < (ssize_t)sizeof(pl))
			continue;
		memcpy(&pl, buf, sizeof(pl));
		pl.seq = ntohl(pl.seq);
		pl.flow = ntohl(pl.flow);
		pl.burst = ntohl(pl.burst);
		if (pl.seq >= o->count || seen[pl.seq] ||
		    pl.flow >= o->flows || pl.burst >= rounds) {
			dups++;
			continue;
		}
		seen[pl.seq] = 1;
		received++;
		ifindex = ingress_ifindex(&msg);
		if (ifindex > 0 && ifindex < MAX_IFINDEX)
			per_if[ifindex]++;
		note(&flows[pl.flow], ifindex);
		note(&bursts[(size_t)pl.flow * rounds + pl.burst], ifindex);
	}
	printf("received %u of %u (%u unexpected)\n", received, o->count,
	       dups);
	for (i = 1; i < MAX_IFINDEX; i++) {
		char name[IF_NAMESIZE];

		if (per_if[i])
			printf("iface %s %llu\n",
			       if_indextoname(i, name) ? name : "?", per_if[i]);
	}
	split = count_split(flows, o->flows, &used);
	printf("flows %u split %u\n", used, split);
	split = count_split(bursts, max_bursts, &used);
	printf("bursts %u split %u\n", used, split);
	free(seen);
	free(flows);
	free(bursts);
	close(fd);
	return received == o->count && !dups ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o = { .size = 64, .timeout = 30, .flows = 1, .burst = 1 };
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
		else if (!strcmp(k, "--flows"))
			o.flows = atoi(v);
		else if (!strcmp(k, "--burst"))
			o.burst = atoi(v);
		else if (!strcmp(k, "--gap-us"))
			o.gap_us = atoi(v);
		else if (!strcmp(k, "--keep-going"))
			o.keep_going = atoi(v);
		else if (send && !strcmp(k, "--dev"))
			o.dev = v;
		else
			return usage();
	}
	if (i != argc || !o.src || !o.port || !o.count || !o.flows ||
	    !o.burst || (send && !o.dst))
		return usage();
	return send ? do_send(&o) : do_sink(&o);
}
