// SPDX-License-Identifier: GPL-2.0-only
/*
 * BFD: RFC 5880 asynchronous mode over RFC 5881 single hop (bfd.h).
 *
 * Reception, the state machine and the Detection Time run on the event
 * loop (its millisecond clock: intervals are kept in microseconds as the
 * wire has them and rounded up to whole milliseconds when armed, so a
 * Detection Time is never shorter than negotiated). The periodic packets
 * go from a thread of their own: fared's loop can be held for hundreds of
 * milliseconds by a FIB batch (the routes of a session that just ended,
 * on a slow host), longer than a 300 ms Detection Time, and a peer must
 * not see every session fail because one did. The loop hands the thread
 * each session's next packet and interval (tx_update()); a Detection Time
 * that expires first reads what waited in the sockets (detect_expired()).
 */
#define _GNU_SOURCE	/* struct in6_pktinfo */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bfd.h"
#include "bgp.h"
#include "config.h"
#include "fared.h"

/* A refusal is logged once per session per this many ms. */
#define BFD_REFUSAL_LOG_MS	10000

struct bfd_session {
	struct bfd *b;
	struct bfd_session *next;
	int family;			/* BGP_FAM_IPV4_UNICAST or _IPV6_ */
	uint8_t addr[16];
	char ifname[IF_NAMESIZE];
	unsigned int plane;
	char name[96];
	int fd;				/* connected to addr:3784, or -1 */
	uint16_t sport;
	enum bfd_state state, remote_state;
	uint8_t local_diag, remote_diag;
	uint32_t local_discr, remote_discr;
	uint8_t mult, remote_mult;
	uint32_t cfg_tx, cfg_rx;	/* configured, us */
	uint32_t adv_tx, adv_rx;	/* advertised: Desired Min TX, Req Min RX */
	uint32_t use_tx, use_rx;	/* in use until a Poll ends (§6.8.3) */
	uint32_t remote_min_rx, remote_desired_tx;
	bool poll;			/* Poll Sequence in progress */
	bool failed;			/* Up -> Down: holds its plane */
	struct timer detect_timer;
	struct timer reopen;		/* no socket yet (no such device) */
	uint64_t since_ms;
	unsigned int ups, failures;
	uint64_t rx, rx_refused;
	uint64_t refusal_logged_ms;
	/* Under b->lock: what the transmit thread sends, and when. */
	uint8_t tx_pkt[BFD_PKT_LEN];
	int tx_fd;
	uint8_t tx_mult;
	uint64_t tx_interval_us;	/* 0: no periodic packets */
	uint64_t tx_next_us;		/* CLOCK_MONOTONIC */
	uint64_t tx;			/* packets sent */
};

struct bfd {
	struct fared *d;
	bfd_changed_fn changed;
	/*
	 * The loop changes the list, and every session's tx_* fields, under
	 * lock only; the transmit thread reads them under it.
	 */
	struct bfd_session *sessions;
	int fd4, fd6;			/* port 3784 */
	struct io io4, io6;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* CLOCK_MONOTONIC: tx_update() */
	pthread_t tx_thread;
	bool tx_started, tx_stop;
};

static const char *const state_names[] = {
	"AdminDown", "Down", "Init", "Up",
};

static const char *const diag_names[] = {
	"No Diagnostic", "Control Detection Time Expired",
	"Echo Function Failed", "Neighbor Signaled Session Down",
	"Forwarding Plane Reset", "Path Down", "Concatenated Path Down",
	"Administratively Down", "Reverse Concatenated Path Down",
};

const char *bfd_state_name(unsigned int state)
{
	return state < 4 ? state_names[state] : "?";
}

const char *bfd_diag_name(unsigned int diag)
{
	return diag < sizeof(diag_names) / sizeof(diag_names[0]) ?
	       diag_names[diag] : "unknown diagnostic";
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

size_t bfd_pkt_build(const struct bfd_pkt *p, uint8_t *buf)
{
	buf[0] = (uint8_t)(BFD_VERSION << 5 | (p->diag & 0x1f));
	buf[1] = (uint8_t)((p->state & 3) << 6 | (p->flags & 0x3f));
	buf[2] = p->mult;
	buf[3] = BFD_PKT_LEN;
	put32(buf + 4, p->my_discr);
	put32(buf + 8, p->your_discr);
	put32(buf + 12, p->desired_min_tx);
	put32(buf + 16, p->required_min_rx);
	put32(buf + 20, p->required_min_echo_rx);
	return BFD_PKT_LEN;
}

const char *bfd_pkt_parse(const uint8_t *buf, size_t len, struct bfd_pkt *p)
{
	if (len < BFD_PKT_LEN)
		return "shorter than 24 bytes";
	if (buf[0] >> 5 != BFD_VERSION)
		return "not version 1";
	p->diag = buf[0] & 0x1f;
	p->state = buf[1] >> 6;
	p->flags = buf[1] & 0x3f;
	p->mult = buf[2];
	/* The A bit first: its packets are at least 26 bytes long. */
	if (p->flags & BFD_F_AUTH)
		return "authenticated (A bit), and fared has no authentication";
	if (buf[3] < BFD_PKT_LEN)
		return "length field below 24";
	if (buf[3] > len)
		return "length field beyond the datagram";
	if (!p->mult)
		return "Detect Mult 0";
	if (p->flags & BFD_F_MULTI)
		return "Multipoint (M) bit set";
	p->my_discr = get32(buf + 4);
	p->your_discr = get32(buf + 8);
	if (!p->my_discr)
		return "My Discriminator 0";
	if (!p->your_discr && p->state != BFD_DOWN &&
	    p->state != BFD_ADMIN_DOWN)
		return "Your Discriminator 0 in state Init or Up";
	p->desired_min_tx = get32(buf + 12);
	p->required_min_rx = get32(buf + 16);
	p->required_min_echo_rx = get32(buf + 20);
	return NULL;
}

enum bfd_state bfd_next_state(enum bfd_state local, enum bfd_state remote)
{
	switch (local) {
	case BFD_ADMIN_DOWN:
		return local;
	case BFD_DOWN:
		if (remote == BFD_DOWN)
			return BFD_INIT;
		if (remote == BFD_INIT)
			return BFD_UP;
		return local;
	case BFD_INIT:
		if (remote == BFD_INIT || remote == BFD_UP)
			return BFD_UP;
		if (remote == BFD_ADMIN_DOWN)
			return BFD_DOWN;
		return local;
	case BFD_UP:
	default:
		if (remote == BFD_DOWN || remote == BFD_ADMIN_DOWN)
			return BFD_DOWN;
		return local;
	}
}

/* ------------------------------------------------------------------ */

static uint64_t us_to_ms_up(uint64_t us)
{
	return (us + 999) / 1000;
}

static size_t addr_len(int family)
{
	return family == BGP_FAM_IPV4_UNICAST ? 4 : 16;
}

static void send_now(struct bfd_session *s, uint8_t extra_flags);

/* Desired Min TX as §6.8.3 has it for the state: 1 s while not Up. */
static uint32_t desired_tx_for(const struct bfd_session *s)
{
	if (s->state == BFD_UP || s->cfg_tx >= BFD_SLOW_TX_US)
		return s->cfg_tx;
	return BFD_SLOW_TX_US;
}

/*
 * Advertises new intervals: a Poll Sequence (§6.8.3). While Up, an
 * increase of the transmit interval and a decrease of the receive
 * interval wait for the Final; the rest applies at once.
 */
static void set_intervals(struct bfd_session *s, uint32_t tx, uint32_t rx)
{
	if (tx == s->adv_tx && rx == s->adv_rx)
		return;
	s->adv_tx = tx;
	s->adv_rx = rx;
	if (s->state != BFD_UP || tx < s->use_tx)
		s->use_tx = tx;
	if (s->state != BFD_UP || rx > s->use_rx)
		s->use_rx = rx;
	s->poll = true;
}

/* The Detection Time (§6.8.4, asynchronous mode), us; 0: none yet. */
static uint64_t detect_us(const struct bfd_session *s)
{
	uint64_t i = s->use_rx > s->remote_desired_tx ? s->use_rx :
			s->remote_desired_tx;

	return s->remote_mult ? (uint64_t)s->remote_mult * i : 0;
}

/* The periodic interval (§6.8.7), us; 0: the peer wants none. */
static uint64_t tx_us(const struct bfd_session *s)
{
	if (s->remote_mult && !s->remote_min_rx)
		return 0;
	return s->use_tx > s->remote_min_rx ? s->use_tx : s->remote_min_rx;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* §6.8.7: 0-25 % less, or 10-25 % less with Detect Mult 1. */
static uint64_t jittered(uint64_t us, uint8_t mult)
{
	uint64_t j = mult == 1 ? 100 + (uint64_t)(random() % 151) :
				 (uint64_t)(random() % 251);

	return us - us * j / 1000;
}

static struct bfd_pkt packet(const struct bfd_session *s, uint8_t flags)
{
	struct bfd_pkt p = {
		.diag = s->local_diag,
		.state = (uint8_t)s->state,
		.flags = (uint8_t)((s->poll ? BFD_F_POLL : 0) | flags),
		.mult = s->mult,
		.my_discr = s->local_discr,
		.your_discr = s->remote_discr,
		.desired_min_tx = s->adv_tx,
		.required_min_rx = s->adv_rx,
	};

	/* §6.8.7: Poll and Final never together; the Final wins. */
	if (p.flags & BFD_F_FINAL)
		p.flags &= (uint8_t)~BFD_F_POLL;
	return p;
}

/*
 * Hands the transmit thread s's packet as it is now; restart: the next
 * one an interval from now (after a state change, whose packet went at
 * once), else at the time already set or sooner if the interval shrank.
 */
static void tx_update(struct bfd_session *s, bool restart)
{
	struct bfd_pkt p = packet(s, 0);
	uint64_t us = tx_us(s), now = mono_us();
	struct bfd *b = s->b;

	pthread_mutex_lock(&b->lock);
	bfd_pkt_build(&p, s->tx_pkt);
	s->tx_fd = s->fd;
	s->tx_mult = s->mult;
	if (us && (restart || us != s->tx_interval_us ||
		   s->tx_next_us > now + us))
		s->tx_next_us = now + jittered(us, s->mult);
	s->tx_interval_us = us;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static void *tx_run(void *arg)
{
	struct bfd *b = arg;
	struct bfd_session *s;
	struct timespec ts;
	uint64_t now, next;

	pthread_mutex_lock(&b->lock);
	while (!b->tx_stop) {
		now = mono_us();
		next = 0;
		for (s = b->sessions; s; s = s->next) {
			if (!s->tx_interval_us || s->tx_fd < 0)
				continue;
			if (s->tx_next_us <= now) {
				if (send(s->tx_fd, s->tx_pkt, BFD_PKT_LEN, 0) ==
				    BFD_PKT_LEN)
					s->tx++;
				s->tx_next_us = now + jittered(s->tx_interval_us,
							       s->tx_mult);
			}
			if (!next || s->tx_next_us < next)
				next = s->tx_next_us;
		}
		if (!next) {
			pthread_cond_wait(&b->cond, &b->lock);
			continue;
		}
		ts.tv_sec = (time_t)(next / 1000000);
		ts.tv_nsec = (long)(next % 1000000) * 1000;
		pthread_cond_timedwait(&b->cond, &b->lock, &ts);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

static void set_state(struct bfd_session *s, enum bfd_state state,
		      uint8_t diag, bool by_admin)
{
	enum bfd_state old = s->state;
	bool failed = false;

	if (old == state)
		return;
	s->state = state;
	s->local_diag = diag;
	s->since_ms = loop_now_ms();
	if (state == BFD_UP) {
		s->ups++;
		s->failed = false;
	} else if (old == BFD_UP && state == BFD_DOWN && !by_admin) {
		s->failed = failed = true;
		s->failures++;
	} else if (by_admin) {
		/* RFC 5882 §3.2: AdminDown is no failure of the path. */
		s->failed = false;
	}
	fared_log("bfd: %s: %s -> %s (%s)%s", s->name, bfd_state_name(old),
		  bfd_state_name(state), bfd_diag_name(diag),
		  failed ? ": plane and session go" : "");
	set_intervals(s, desired_tx_for(s), s->cfg_rx);
	/*
	 * The peer hears of the change at once, not an interval later, and
	 * the next packet comes at the new interval: one second's wait
	 * after Up would outlast the peer's Detection Time.
	 */
	send_now(s, 0);
	tx_update(s, true);
	if (old == BFD_UP || state == BFD_UP || by_admin)
		s->b->changed(s->b->d, s, failed);
}

static void rx_ready(struct io *io, uint32_t events);

static void detect_expired(struct timer *t)
{
	struct bfd_session *s = t->arg;
	struct bfd *b = s->b;

	/*
	 * What arrived while the loop was busy counts first: a packet
	 * waiting in a socket is no failure, and re-arms the timer.
	 */
	if (b->fd4 >= 0)
		rx_ready(&b->io4, EPOLLIN);
	if (b->fd6 >= 0)
		rx_ready(&b->io6, EPOLLIN);
	if (s->detect_timer.armed)
		return;
	/* §6.8.1: the remote discriminator is forgotten with the peer. */
	s->remote_discr = 0;
	s->remote_mult = 0;
	s->remote_min_rx = 0;
	s->remote_desired_tx = 0;
	s->remote_state = BFD_DOWN;
	if (s->state == BFD_INIT || s->state == BFD_UP)
		set_state(s, BFD_DOWN, BFD_DIAG_DETECT_EXPIRED, false);
	else
		tx_update(s, false);
}

/* A socket connected to the neighbor's port 3784 from a port of s's own. */
static int open_tx(struct bfd_session *s)
{
	struct sockaddr_storage src = { 0 }, dst = { 0 };
	struct sockaddr_in *s4 = (void *)&src, *d4 = (void *)&dst;
	struct sockaddr_in6 *s6 = (void *)&src, *d6 = (void *)&dst;
	int af = s->family == BGP_FAM_IPV4_UNICAST ? AF_INET : AF_INET6;
	int ttl = BFD_TTL, tos = IPTOS_PREC_INTERNETCONTROL, fd, i;
	unsigned int ifindex = s->ifname[0] ? if_nametoindex(s->ifname) : 0;
	socklen_t len;

	fd = socket(af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (af == AF_INET) {
		setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
		setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
		s4->sin_family = d4->sin_family = AF_INET;
		memcpy(&d4->sin_addr, s->addr, 4);
		d4->sin_port = htons(BFD_PORT);
		len = sizeof(*s4);
	} else {
		setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl,
			   sizeof(ttl));
		setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
		s6->sin6_family = d6->sin6_family = AF_INET6;
		memcpy(&d6->sin6_addr, s->addr, 16);
		d6->sin6_port = htons(BFD_PORT);
		d6->sin6_scope_id = ifindex;
		len = sizeof(*s6);
	}
	/* Single hop: the packets leave by the neighbor's link only. */
	if (s->ifname[0] &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, s->ifname,
		       (socklen_t)strlen(s->ifname) + 1)) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* RFC 5881 §4: one source port per session, 49152-65535. */
	for (i = 0; i < 64; i++) {
		uint16_t port = (uint16_t)(BFD_SRC_PORT_MIN +
					   random() % (65536 - BFD_SRC_PORT_MIN));

		if (af == AF_INET)
			s4->sin_port = htons(port);
		else
			s6->sin6_port = htons(port);
		if (!bind(fd, (struct sockaddr *)&src, len)) {
			s->sport = port;
			break;
		}
		if (errno != EADDRINUSE)
			break;
	}
	if (i == 64 || !s->sport ||
	    connect(fd, (struct sockaddr *)&dst, len)) {
		int err = errno ? -errno : -EADDRINUSE;

		close(fd);
		s->sport = 0;
		return err;
	}
	return fd;
}

/* Tries for s's socket again each second until it has one. */
static void reopen(struct timer *t)
{
	struct bfd_session *s = t->arg;

	if (s->fd < 0)
		s->fd = open_tx(s);
	if (s->fd < 0)
		timer_set(&s->b->d->loop, &s->reopen, 1000);
	else
		tx_update(s, true);
}

/* One packet now, from the loop (the thread sends the periodic ones). */
static void send_now(struct bfd_session *s, uint8_t extra_flags)
{
	struct bfd_pkt p = packet(s, extra_flags);
	uint8_t buf[BFD_PKT_LEN];
	int err;

	if (s->fd < 0) {
		s->fd = open_tx(s);
		if (s->fd < 0) {
			err = s->fd;
			if (loop_now_ms() - s->refusal_logged_ms >=
			    BFD_REFUSAL_LOG_MS || !s->refusal_logged_ms) {
				s->refusal_logged_ms = loop_now_ms();
				fared_log("bfd: %s: cannot send: %s", s->name,
					  strerror(-err));
			}
			if (!s->reopen.armed)
				timer_set(&s->b->d->loop, &s->reopen, 1000);
			return;
		}
	}
	bfd_pkt_build(&p, buf);
	if (send(s->fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf)) {
		pthread_mutex_lock(&s->b->lock);
		s->tx++;
		pthread_mutex_unlock(&s->b->lock);
	}
}

/* §6.8.6, from "set bfd.RemoteDiscr" on: p is for s. */
static void session_rx(struct bfd_session *s, const struct bfd_pkt *p)
{
	enum bfd_state next;

	s->rx++;
	s->remote_discr = p->my_discr;
	s->remote_state = p->state;
	s->remote_diag = p->diag;
	s->remote_min_rx = p->required_min_rx;
	s->remote_desired_tx = p->desired_min_tx;
	s->remote_mult = p->mult;
	if ((p->flags & BFD_F_FINAL) && s->poll) {
		s->poll = false;
		s->use_tx = s->adv_tx;
		s->use_rx = s->adv_rx;
	}
	if (s->state == BFD_ADMIN_DOWN)
		return;
	timer_set(&s->b->d->loop, &s->detect_timer,
		  us_to_ms_up(detect_us(s)));
	if (p->state == BFD_ADMIN_DOWN) {
		if (s->state != BFD_DOWN)
			set_state(s, BFD_DOWN, BFD_DIAG_NEIGHBOR_DOWN, true);
	} else {
		next = bfd_next_state(s->state, p->state);
		if (next != s->state)
			set_state(s, next, next == BFD_DOWN ?
				  BFD_DIAG_NEIGHBOR_DOWN : BFD_DIAG_NONE,
				  false);
	}
	/* §6.8.6: a Poll is answered at once, whatever the interval. */
	if (p->flags & BFD_F_POLL)
		send_now(s, BFD_F_FINAL);
	/* Its discriminator, Required Min RX, a Final: the next packets. */
	tx_update(s, false);
}

static struct bfd_session *by_discr(const struct bfd *b, uint32_t discr)
{
	struct bfd_session *s;

	for (s = b->sessions; s; s = s->next)
		if (s->local_discr == discr)
			return s;
	return NULL;
}

struct bfd_session *bfd_find(const struct bfd *b, int family,
			     const uint8_t *addr)
{
	struct bfd_session *s;

	for (s = b ? b->sessions : NULL; s; s = s->next)
		if (s->family == family &&
		    !memcmp(s->addr, addr, addr_len(family)))
			return s;
	return NULL;
}

static void refused(struct bfd_session *s, const char *from,
		    const char *why)
{
	uint64_t now = loop_now_ms();

	if (!s) {
		/* Not a neighbor of ours: once per 10 s for all of them. */
		static uint64_t logged;

		if (logged && now - logged < BFD_REFUSAL_LOG_MS)
			return;
		logged = now;
		fared_log("bfd: packet from %s refused: %s", from, why);
		return;
	}
	s->rx_refused++;
	if (s->refusal_logged_ms && now - s->refusal_logged_ms <
	    BFD_REFUSAL_LOG_MS)
		return;
	s->refusal_logged_ms = now;
	fared_log("bfd: %s: packet refused: %s", s->name, why);
}

static void rx_ready(struct io *io, uint32_t events)
{
	struct bfd *b = io->arg;
	uint8_t buf[128], cbuf[256];
	struct sockaddr_storage ss;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = {
		.msg_name = &ss, .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf,
	};
	char from[INET6_ADDRSTRLEN + 8];
	struct bfd_session *s;
	struct cmsghdr *cm;
	struct bfd_pkt p;
	const char *why;
	int family, ttl, n;
	unsigned int ifindex;
	const uint8_t *src;

	(void)events;
	/* A bounded batch: one busy socket must not starve the loop. */
	for (n = 0; n < 64; n++) {
		ssize_t len;

		mh.msg_namelen = sizeof(ss);
		mh.msg_controllen = sizeof(cbuf);
		len = recvmsg(io->fd, &mh, MSG_DONTWAIT);
		if (len < 0)
			return;
		ttl = -1;
		ifindex = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level == IPPROTO_IP &&
			    cm->cmsg_type == IP_TTL)
				memcpy(&ttl, CMSG_DATA(cm), sizeof(ttl));
			else if (cm->cmsg_level == IPPROTO_IP &&
				 cm->cmsg_type == IP_PKTINFO)
				ifindex = ((struct in_pktinfo *)
					   (void *)CMSG_DATA(cm))->ipi_ifindex;
			else if (cm->cmsg_level == IPPROTO_IPV6 &&
				 cm->cmsg_type == IPV6_HOPLIMIT)
				memcpy(&ttl, CMSG_DATA(cm), sizeof(ttl));
			else if (cm->cmsg_level == IPPROTO_IPV6 &&
				 cm->cmsg_type == IPV6_PKTINFO)
				ifindex = ((struct in6_pktinfo *)
					   (void *)CMSG_DATA(cm))->ipi6_ifindex;
		}
		if (ss.ss_family == AF_INET) {
			family = BGP_FAM_IPV4_UNICAST;
			src = (const uint8_t *)
			      &((struct sockaddr_in *)(void *)&ss)->sin_addr;
			inet_ntop(AF_INET, src, from, sizeof(from));
		} else {
			family = BGP_FAM_IPV6_UNICAST;
			src = (const uint8_t *)
			      &((struct sockaddr_in6 *)(void *)&ss)->sin6_addr;
			inet_ntop(AF_INET6, src, from, sizeof(from));
		}
		s = bfd_find(b, family, src);
		why = bfd_pkt_parse(buf, (size_t)len, &p);
		if (why) {
			refused(s, from, why);
			continue;
		}
		/* RFC 5881 §5: from one hop away only (GTSM). */
		if (ttl != BFD_TTL) {
			refused(s, from, "TTL is not 255");
			continue;
		}
		if (p.your_discr) {
			struct bfd_session *d = by_discr(b, p.your_discr);

			if (!d || d != s) {
				refused(s, from, "Your Discriminator is no "
					"session of this neighbor");
				continue;
			}
		} else if (!s) {
			refused(NULL, from, "not a neighbor with bfd");
			continue;
		}
		if (s->ifname[0] && ifindex &&
		    ifindex != if_nametoindex(s->ifname)) {
			refused(s, from, "arrived on another interface");
			continue;
		}
		session_rx(s, &p);
	}
}

static int open_rx(struct bfd *b, int af, struct io *io)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (void *)&ss;
	struct sockaddr_in6 *s6 = (void *)&ss;
	int fd, one = 1;
	socklen_t len;

	fd = socket(af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (af == AF_INET) {
		setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
		s4->sin_family = AF_INET;
		s4->sin_port = htons(BFD_PORT);
		len = sizeof(*s4);
	} else {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one,
			   sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one,
			   sizeof(one));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(BFD_PORT);
		len = sizeof(*s6);
	}
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    io_add(&b->d->loop, io, fd, EPOLLIN, rx_ready, b)) {
		fared_log("bfd: cannot listen on %s port %d: %s",
			  af == AF_INET ? "IPv4" : "IPv6", BFD_PORT,
			  strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ------------------------------------------------------------------ */

static uint32_t new_discr(const struct bfd *b)
{
	uint32_t v;

	do {
		v = (uint32_t)random() ^ (uint32_t)random() << 16;
	} while (!v || by_discr(b, v));
	return v;
}

static void session_params(struct bfd_session *s,
			   const struct fared_neighbor *nb)
{
	s->cfg_tx = s->cfg_rx = nb->bfd_interval_ms * 1000u;
	s->mult = nb->bfd_multiplier;
	set_intervals(s, desired_tx_for(s), s->cfg_rx);
}

static struct bfd_session *session_new(struct bfd *b,
				       const struct fared_neighbor *nb)
{
	struct bfd_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->b = b;
	s->family = nb->family;
	memcpy(s->addr, nb->addr, addr_len(nb->family));
	snprintf(s->ifname, sizeof(s->ifname), "%s", nb->interface);
	s->plane = nb->plane;
	snprintf(s->name, sizeof(s->name), "neighbor %s (plane %u)",
		 nb->addr_text, nb->plane);
	s->fd = -1;
	s->tx_fd = -1;
	s->state = BFD_DOWN;
	s->remote_state = BFD_DOWN;
	s->local_discr = new_discr(b);
	s->since_ms = loop_now_ms();
	timer_init(&s->detect_timer, detect_expired, s);
	timer_init(&s->reopen, reopen, s);
	session_params(s, nb);
	s->poll = false;
	s->use_tx = s->adv_tx;
	s->use_rx = s->adv_rx;
	/* A socket now, so that the thread has one to send on. */
	s->fd = open_tx(s);
	pthread_mutex_lock(&b->lock);
	s->next = b->sessions;
	b->sessions = s;
	pthread_mutex_unlock(&b->lock);
	tx_update(s, true);
	if (s->fd < 0)
		reopen(&s->reopen);
	return s;
}

/*
 * §6.8.16: AdminDown told to the peer, then s goes; the caller took it
 * off the list (under the lock), so the thread no longer sees it.
 */
static void session_free(struct bfd_session *s)
{
	struct loop *l = &s->b->d->loop;

	s->state = BFD_ADMIN_DOWN;
	s->local_diag = BFD_DIAG_ADMIN_DOWN;
	s->poll = false;
	send_now(s, 0);
	timer_stop(l, &s->detect_timer);
	timer_stop(l, &s->reopen);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

struct bfd *bfd_new(struct fared *d, bfd_changed_fn changed)
{
	struct bfd *b = calloc(1, sizeof(*b));
	pthread_condattr_t ca;

	if (!b)
		return NULL;

	b->d = d;
	b->changed = changed;
	b->fd4 = b->fd6 = -1;
	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&b->tx_thread, NULL, tx_run, b)) {
		fared_log("bfd: cannot start the transmit thread");
		bfd_free(b);
		return NULL;
	}
	b->tx_started = true;
	return b;
}

void bfd_free(struct bfd *b)
{
	struct bfd_session *s, *next;

	if (!b)
		return;
	if (b->tx_started) {
		pthread_mutex_lock(&b->lock);
		b->tx_stop = true;
		pthread_cond_signal(&b->cond);
		pthread_mutex_unlock(&b->lock);
		pthread_join(b->tx_thread, NULL);
	}
	s = b->sessions;
	b->sessions = NULL;
	for (; s; s = next) {
		next = s->next;
		session_free(s);
	}
	if (b->fd4 >= 0) {
		io_del(&b->d->loop, &b->io4);
		close(b->fd4);
	}
	if (b->fd6 >= 0) {
		io_del(&b->d->loop, &b->io6);
		close(b->fd6);
	}
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static const struct fared_neighbor *
configured(const struct fared_config *cfg, const struct bfd_session *s)
{
	size_t i;

	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];

		if (nb->bfd && nb->family == s->family &&
		    !memcmp(nb->addr, s->addr, addr_len(s->family)) &&
		    !strcmp(nb->interface, s->ifname) &&
		    nb->plane == s->plane)
			return nb;
	}
	return NULL;
}

void bfd_sync(struct bfd *b)
{
	const struct fared_config *cfg = &b->d->cfg;
	struct bfd_session **pp = &b->sessions, *s;
	bool gone_failed = false, want4 = false, want6 = false;
	size_t i;

	while ((s = *pp)) {
		const struct fared_neighbor *nb = configured(cfg, s);

		if (nb) {
			session_params(s, nb);
			tx_update(s, false);
			pp = &s->next;
			continue;
		}
		fared_log("bfd: %s: no longer configured: AdminDown",
			  s->name);
		gone_failed |= s->failed;
		pthread_mutex_lock(&b->lock);
		*pp = s->next;
		pthread_mutex_unlock(&b->lock);
		session_free(s);
	}
	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];

		if (!nb->bfd)
			continue;
		want4 |= nb->family == BGP_FAM_IPV4_UNICAST;
		want6 |= nb->family == BGP_FAM_IPV6_UNICAST;
		if (bfd_find(b, nb->family, nb->addr))
			continue;
		if (!session_new(b, nb))
			fared_log("bfd: neighbor %s: out of memory",
				  nb->addr_text);
	}
	if (want4 && b->fd4 < 0)
		b->fd4 = open_rx(b, AF_INET, &b->io4);
	if (want6 && b->fd6 < 0)
		b->fd6 = open_rx(b, AF_INET6, &b->io6);
	/* A plane a removed session held comes back. */
	if (gone_failed)
		b->changed(b->d, NULL, false);
}

bool bfd_plane_held(const struct bfd *b, unsigned int plane)
{
	const struct bfd_session *s;

	for (s = b ? b->sessions : NULL; s; s = s->next)
		if (s->plane == plane && s->failed)
			return true;
	return false;
}

void bfd_session_info(const struct bfd_session *s, struct bfd_info *out)
{
	memset(out, 0, sizeof(*out));
	out->state = s->state;
	out->remote_state = s->remote_state;
	out->local_diag = s->local_diag;
	out->remote_diag = s->remote_diag;
	out->local_discr = s->local_discr;
	out->remote_discr = s->remote_discr;
	out->tx_us = (uint32_t)tx_us(s);
	out->detect_us = (uint32_t)detect_us(s);
	out->mult = s->mult;
	out->failed = s->failed;
	out->since_ms = s->since_ms;
	out->ups = s->ups;
	out->failures = s->failures;
	out->rx = s->rx;
	pthread_mutex_lock(&s->b->lock);
	out->tx = s->tx;
	pthread_mutex_unlock(&s->b->lock);
	out->rx_refused = s->rx_refused;
}

int bfd_session_family(const struct bfd_session *s)
{
	return s->family;
}

const uint8_t *bfd_session_addr(const struct bfd_session *s)
{
	return s->addr;
}

unsigned int bfd_session_plane(const struct bfd_session *s)
{
	return s->plane;
}
