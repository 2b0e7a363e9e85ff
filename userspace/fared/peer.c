// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BGP session (peer_int.h): the neighbor state machine (RFC 4271 §8),
 * its connections, collision detection (§6.8), timers with jitter (§10),
 * the send hold timer (RFC 9687), the OPEN and its capabilities, and the
 * dispatch of what arrives: UPDATEs to import (peer_import.c), route
 * refresh (RFC 2918, RFC 7313) and End-of-RIB to the stale routes
 * (peer_gr.c) and to sending (peer_send.c). It calls no RIB function.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fared.h"
#include "gr.h"
#include "orf_sess.h"
#include "peer.h"
#include "peer_int.h"
#include "tcp_auth.h"

/* RFC 4271 §8: a large hold time until the OPENs are exchanged. */
#define OPEN_HOLD_MS		(240 * 1000)
/* RFC 9687 §4: at least 8 minutes, or twice the hold time. */
#define SEND_HOLD_MIN_MS	(480 * 1000)

static const char *const state_names[] = {
	[PEER_IDLE] = "Idle",
	[PEER_CONNECT] = "Connect",
	[PEER_ACTIVE] = "Active",
	[PEER_OPENSENT] = "OpenSent",
	[PEER_OPENCONFIRM] = "OpenConfirm",
	[PEER_ESTABLISHED] = "Established",
};

const char *peer_state_name(enum peer_state s)
{
	return state_names[s];
}

enum peer_state peer_state(const struct peer *p)
{
	enum peer_state s = PEER_IDLE;

	if (p->est)
		return PEER_ESTABLISHED;
	if (p->max_prefix_idle && !p->out && !p->in)
		return PEER_IDLE;
	if (p->out)
		s = p->out->state;
	if (p->in && p->in->state > s)
		s = p->in->state;
	if (s == PEER_IDLE && p->connect_retry.armed)
		s = p->nb->passive ? PEER_ACTIVE : PEER_CONNECT;
	if (s == PEER_IDLE && p->nb->passive)
		s = PEER_ACTIVE;
	return s;
}

/* ------------------------------------------------------------------ */
/* Connections. */

static void conn_ready(struct io *io, uint32_t events);
static void conn_close(struct conn *c, const char *why, bool notified);
static void hold_expired(struct timer *t);
static void keepalive_due(struct timer *t);
void peers_keepalives_due(struct fared *d)
{
	uint64_t now = loop_now_ms();
	struct conn *c;
	size_t i, k;

	for (i = 0; i < d->n_peers; i++) {
		for (k = 0; k < 2; k++) {
			c = k ? d->peers[i]->in : d->peers[i]->out;
			if (!c || !c->keepalive.armed || c->keepalive.when > now)
				continue;
			timer_stop(&d->loop, &c->keepalive);
			keepalive_due(&c->keepalive);
		}
	}
}

static void send_hold_expired(struct timer *t);

static struct conn *conn_new(struct peer *p, int fd, bool outgoing)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->peer = p;
	c->outgoing = outgoing;
	c->io.fd = -1;
	timer_init(&c->hold, hold_expired, c);
	timer_init(&c->keepalive, keepalive_due, c);
	timer_init(&c->send_hold, send_hold_expired, c);
	if (io_add(&p->d->loop, &c->io, fd, EPOLLIN | (outgoing ? EPOLLOUT :
		   0), conn_ready, c)) {
		free(c);
		return NULL;
	}
	return c;
}

static void conn_free(struct conn *c)
{
	struct loop *l = &c->peer->d->loop;
	int fd = c->io.fd;

	io_del(l, &c->io);
	if (fd >= 0)
		close(fd);
	timer_stop(l, &c->hold);
	timer_stop(l, &c->keepalive);
	timer_stop(l, &c->send_hold);
	free(c->rbuf);
	free(c->wbuf);
	free(c);
}

static uint64_t send_hold_ms(const struct conn *c)
{
	uint64_t twice = (uint64_t)c->params.hold_time * 2000;
	uint16_t test = c->peer->d->cfg.test_send_hold_time;

	if (test)
		return test * 1000ull;

	return twice > SEND_HOLD_MIN_MS ? twice : SEND_HOLD_MIN_MS;
}

/* Whether c's writer (fared_hooks' pending) has records waiting. */
static bool conn_writer_waits(const struct conn *c)
{
	const struct peer *p = c->peer;

	return p->est == c && p->export_done && p->d->hooks &&
	       p->d->hooks->writable && p->d->hooks->pending &&
	       p->d->hooks->pending(p);
}

/*
 * Writes what the socket takes; the send hold timer runs while stuck.
 * What was sent is skipped (woff), not moved: the rest moves to the front
 * only when conn_queue() needs the room. Writability is watched while
 * bytes wait or the writer has records: a flush from elsewhere (a
 * KEEPALIVE) that empties the queue must not leave the writer asleep.
 */
static int conn_flush(struct conn *c)
{
	struct loop *l = &c->peer->d->loop;
	size_t start = c->woff;
	ssize_t n;

	while (c->woff < c->wlen) {
		n = send(c->io.fd, c->wbuf + c->woff, c->wlen - c->woff,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		c->woff += (size_t)n;
	}
	if (c->woff != start)
		timer_stop(l, &c->send_hold);
	if (c->woff == c->wlen)
		c->woff = c->wlen = 0;
	/* A burst's buffer is not kept once the peer has taken it all. */
	if (!c->wlen && c->wcap > 65536) {
		free(c->wbuf);
		c->wbuf = NULL;
		c->wcap = 0;
	}
	if (c->wlen && !c->send_hold.armed)
		timer_set(l, &c->send_hold, send_hold_ms(c));
	io_set(l, &c->io, EPOLLIN | (c->wlen || conn_writer_waits(c) ?
				     EPOLLOUT : 0));
	return 0;
}

/*
 * Appends msg to what waits for the peer's socket. The queue is bounded
 * (send-buffer-limit): a peer that reads nothing costs at most that.
 */
static int conn_queue(struct conn *c, const uint8_t *msg, size_t len)
{
	size_t limit = c->peer->d->cfg.send_buffer_limit;

	if (c->wlen - c->woff + len > limit) {
		c->broken_why = "send buffer limit reached: the peer does "
				"not read";
		return -ENOBUFS;
	}
	if (c->wlen + len > c->wcap && c->woff) {
		/* The sent part's room first: at most the unsent bytes move. */
		memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
		c->wlen -= c->woff;
		c->woff = 0;
	}
	if (c->wlen + len > c->wcap) {
		size_t cap = (c->wlen + len) * 2;
		uint8_t *b;

		if (cap > limit)
			cap = limit;
		b = realloc(c->wbuf, cap);
		if (!b)
			return -ENOMEM;
		c->wbuf = b;
		c->wcap = cap;
	}
	memcpy(c->wbuf + c->wlen, msg, len);
	c->wlen += len;
	/* Any message sent restarts the peer's keepalive wait (§4.4). */
	if (c->state == PEER_ESTABLISHED && c->params.keepalive_time)
		timer_set(&c->peer->d->loop, &c->keepalive,
			  jitter_ms(c->params.keepalive_time * 1000ull));
	return 0;
}

/*
 * Never closes c itself: its callers go on using it. A failure closes
 * the connection from the loop, right after the current event.
 */
void conn_send(struct conn *c, const uint8_t *msg, int len)
{
	if (c->broken)
		return;
	if (len < 0 || conn_queue(c, msg, (size_t)len) || conn_flush(c)) {
		c->broken = true;
		timer_set(&c->peer->d->loop, &c->hold, 0);
	}
}

/*
 * Gives the NOTIFICATION just queued its best chance to arrive: pushed at
 * once (no Nagle wait), and unread input discarded so that closing sends
 * a FIN behind it rather than a reset that drops it (RFC 2525 §2.17).
 * Bounded by the socket's receive buffer; never blocks.
 */
static void conn_linger(struct conn *c)
{
	static uint8_t sink[65536];
	int one = 1;

	setsockopt(c->io.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (recv(c->io.fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
	shutdown(c->io.fd, SHUT_WR);
}

/* Sends a NOTIFICATION and closes, best effort, as §6 asks. */
void conn_notify(struct conn *c, uint8_t code, uint8_t subcode,
		 const uint8_t *data, size_t data_len, const char *why)
{
	uint8_t buf[BGP_MAX_LEN];
	int len;

	len = bgp_notification_build(buf, sizeof(buf), code, subcode, data,
				     data_len > 4000 ? 4000 : data_len);
	if (len > 0 && c->state != PEER_CONNECT) {
		conn_queue(c, buf, (size_t)len);
		conn_flush(c);
		c->peer->notifications_tx++;
		conn_linger(c);
	}
	c->hard = code == BGP_ERR_CEASE && subcode == BGP_CEASE_HARD_RESET;
	snprintf(c->peer->last_error, sizeof(c->peer->last_error),
		 "sent NOTIFICATION %u/%u (%s)", code, subcode, why);
	plog(c->peer, "sent NOTIFICATION %u/%u: %s", code, subcode, why);
	conn_close(c, why, true);
}

struct bgp_codec_opts conn_codec_opts(const struct conn *c)
{
	struct bgp_codec_opts o = {
		.as4 = c->params.as4,
		.ibgp = peer_is_ibgp(c->peer),
		.add_path_rx = c->params.add_path_rx,
		.max_len = c->params.max_len ? c->params.max_len : BGP_MAX_LEN,
	};
	return o;
}

/* RFC 8538: both sides sent the N bit on c. */
bool conn_gr_n(const struct conn *c)
{
	return c->open_rx && gr_n_exchanged(c->gr_flags_tx, &c->open.caps);
}

void conn_cease_data(struct conn *c, uint8_t subcode, const uint8_t *data,
		     size_t data_len, const char *why)
{
	uint8_t hard[BGP_MAX_LEN];
	int n;

	/* RFC 8538 §5.1: a lasting end goes inside a Hard Reset. */
	if (conn_gr_n(c) && gr_cease_is_hard(subcode) &&
	    subcode != BGP_CEASE_HARD_RESET) {
		n = gr_hard_reset_data(BGP_ERR_CEASE, subcode, data, data_len,
				       hard, sizeof(hard));
		if (n > 0) {
			conn_notify(c, BGP_ERR_CEASE, BGP_CEASE_HARD_RESET,
				    hard, (size_t)n, why);
			return;
		}
	}
	conn_notify(c, BGP_ERR_CEASE, subcode, data, data_len, why);
}

void conn_cease(struct conn *c, uint8_t subcode, const char *text)
{
	uint8_t buf[BGP_MAX_LEN];
	int len = -1;

	if (text && (subcode == BGP_CEASE_ADMIN_SHUTDOWN ||
		     subcode == BGP_CEASE_ADMIN_RESET))
		len = bgp_notification_build_shutdown(buf, sizeof(buf),
						      subcode, text);
	if (len > BGP_NOTIFICATION_MIN_LEN)
		conn_cease_data(c, subcode, buf + BGP_NOTIFICATION_MIN_LEN,
				(size_t)len - BGP_NOTIFICATION_MIN_LEN, text);
	else
		conn_cease_data(c, subcode, NULL, 0, text ? text : "cease");
}

/* ------------------------------------------------------------------ */
/* Events for the rest of the daemon (fared.h, struct fared_hooks). */

static void event_down(struct peer *p, bool gone)
{
	if (p->d->hooks && p->d->hooks->down)
		p->d->hooks->down(p, gone);
}

static void event_eor(struct peer *p)
{
	if (p->d->hooks && p->d->hooks->eor)
		p->d->hooks->eor(p->d);
}

static bool forwarding_kept(const struct peer *p, unsigned int fam)
{
	return p->d->hooks && p->d->hooks->forwarding &&
	       p->d->hooks->forwarding(p->d, fam);
}

/*
 * -1 without memory for p's entry, only possible from peer_new(): once
 * it exists this never allocates.
 */
int peer_table_refresh(struct peer *p)
{
	const struct fared_neighbor *nb = p->nb;
	struct peer_info pi = {
		.ibgp = peer_is_ibgp(p),
		.upstream = nb->upstream,
		.rnic = nb->rnic,
		.plane = nb->plane,
		.router_id = p->peer_id,
		.remote_as = nb->remote_as,
		.addr_family = nb->family,
	};

	memcpy(pi.addr, nb->addr, sizeof(pi.addr));
	return peer_table_set(&p->d->peer_table, p->index, &pi);
}

/* ------------------------------------------------------------------ */
/* The state machine. */

static void try_connect(struct peer *p);

static void connect_retry_expired(struct timer *t)
{
	struct peer *p = t->arg;

	if (p->max_prefix_idle)
		return;
	/*
	 * RFC 4271 §8.2.2, Connect state: the expiry drops a connection
	 * still being set up and starts another, rather than wait out the
	 * kernel's SYN retransmissions (minutes, with a silent peer).
	 */
	if (p->out && p->out->state == PEER_CONNECT && !p->est)
		conn_close(p->out, "connect did not complete within "
			   "connect-retry", false);
	if (!p->nb->passive && !p->out && !p->est)
		try_connect(p);
	timer_set(&p->d->loop, &p->connect_retry,
		  jitter_ms(p->nb->connect_retry * 1000ull));
}

static void conn_close(struct conn *c, const char *why, bool notified)
{
	struct peer *p = c->peer;
	bool was_est = p->est == c;

	if (p->out == c)
		p->out = NULL;
	if (p->in == c)
		p->in = NULL;
	if (was_est) {
		p->est = NULL;
		p->established_at = 0;
		p->export_done = false;
		p->eor_due = p->eorr_due = 0;
		p->flaps++;
		plog(p, "session down: %s", why);
		event_down(p, false);
		if (p->d->rib_ops)
			p->d->rib_ops->down(p, c, notified);
	} else if (c->state >= PEER_OPENSENT) {
		plog(p, "connection closed in %s: %s",
		     peer_state_name(c->state), why);
	}
	conn_free(c);
	if (!p->est && !p->connect_retry.armed && !p->max_prefix_idle)
		timer_set(&p->d->loop, &p->connect_retry,
			  jitter_ms(p->nb->connect_retry * 1000ull));
}

static void local_open(const struct peer *p, struct bgp_open *o)
{
	const struct fared_config *cfg = &p->d->cfg;
	unsigned int fam;

	memset(o, 0, sizeof(*o));
	o->version = BGP_VERSION;
	o->my_as = cfg->local_as > 65535 ? BGP_AS_TRANS :
		   (uint16_t)cfg->local_as;
	o->hold_time = p->nb->hold_time;
	o->bgp_id = cfg->router_id;
	o->caps.families = p->nb->families;
	o->caps.as4 = true;
	o->caps.as4_number = cfg->local_as;
	o->caps.route_refresh = true;
	o->caps.enhanced_route_refresh = true;
	o->caps.extended_message = true;
	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		if (p->nb->families & BGP_FAM_BIT(fam)) {
			if (p->nb->add_path_rx)
				o->caps.add_path[fam] = BGP_ADD_PATH_RECEIVE;
			o->caps.orf_prefix[fam] = p->nb->orf;
		}
	if (cfg->gr_restart_time) {
		uint32_t fwd = 0;

		/* F: where forwarding survived (hooks->forwarding). */
		for (fam = 0; fam < BGP_FAM_COUNT; fam++)
			if (forwarding_kept(p, fam))
				fwd |= BGP_FAM_BIT(fam);
		gr_open_caps(&o->caps, cfg->gr_restart_time, p->nb->families,
			     p->restarting, fwd);
	}
}

static void send_open(struct conn *c)
{
	struct bgp_open o;
	uint8_t buf[BGP_MAX_LEN];

	local_open(c->peer, &o);
	c->gr_flags_tx = o.caps.graceful_restart ? o.caps.gr_flags : 0;
	c->state = PEER_OPENSENT;
	timer_set(&c->peer->d->loop, &c->hold, OPEN_HOLD_MS);
	conn_send(c, buf, bgp_open_build(buf, sizeof(buf), &o));
}

static void connected(struct conn *c)
{
	socklen_t len = sizeof(c->local);

	getsockname(c->io.fd, (struct sockaddr *)&c->local, &len);
	send_open(c);
}

static int peer_sockaddr(const struct peer *p, struct sockaddr_storage *ss,
			 socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (p->nb->family == BGP_FAM_IPV4_UNICAST) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(BGP_PORT);
		memcpy(&s->sin_addr, p->nb->addr, 4);
		*len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(BGP_PORT);
		memcpy(&s->sin6_addr, p->nb->addr, 16);
		if (IN6_IS_ADDR_LINKLOCAL(&s->sin6_addr) && p->nb->interface[0])
			s->sin6_scope_id = if_nametoindex(p->nb->interface);
		*len = sizeof(*s);
	}
	return 0;
}

static void try_connect(struct peer *p)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct conn *c;
	int fd, err;

	peer_sockaddr(p, &ss, &len);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		plog(p, "socket: %s", strerror(errno));
		return;
	}
	err = tcp_auth_connecting(fd, p->nb);
	if (err) {
		snprintf(p->last_error, sizeof(p->last_error), "%s: %s",
			 tcp_auth_name(&p->nb->auth), strerror(-err));
		plog(p, "%s", p->last_error);
		close(fd);
		return;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS) {
		snprintf(p->last_error, sizeof(p->last_error), "connect: %s",
			 strerror(errno));
		close(fd);
		return;
	}
	c = conn_new(p, fd, true);
	if (!c) {
		close(fd);
		return;
	}
	c->state = PEER_CONNECT;
	p->out = c;
}

void peer_accept(struct peer *p, int fd)
{
	socklen_t len = sizeof(struct sockaddr_storage);
	uint8_t buf[BGP_NOTIFICATION_MIN_LEN];
	struct conn *c;
	int n;

	if (p->max_prefix_idle) {
		/* RFC 4486 §4: held down after Maximum Number of Prefixes. */
		n = bgp_notification_build(buf, sizeof(buf), BGP_ERR_CEASE,
					   BGP_CEASE_CONNECTION_REJECTED,
					   NULL, 0);
		if (n > 0 && send(fd, buf, (size_t)n,
				  MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			plog(p, "rejecting: %s", strerror(errno));
		plog(p, "connection rejected with Cease/5: held Idle after "
		     "max-prefix");
		close(fd);
		return;
	}
	if (p->est) {
		/*
		 * RFC 4724 §4.2: a graceful restart peer that connects again
		 * has restarted, and its old session is gone, if its
		 * capability listed one or more AFI/SAFI. Anyone else
		 * collides with the Established session and loses (§6.8).
		 */
		if (!p->params.graceful_restart ||
		    !p->est->open.caps.gr_families) {
			n = bgp_notification_build(buf, sizeof(buf),
						   BGP_ERR_CEASE,
						   BGP_CEASE_COLLISION, NULL, 0);
			if (n > 0 && send(fd, buf, (size_t)n,
					  MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				plog(p, "collision: %s", strerror(errno));
			plog(p, "connection collides with the Established "
			     "session: closed with Cease/7");
			close(fd);
			return;
		}
		conn_close(p->est, "peer restarted (new connection)", false);
	}
	/* A second incoming connection replaces one not yet Established. */
	if (p->in)
		conn_close(p->in, "replaced by a newer connection", false);
	c = conn_new(p, fd, false);
	if (!c) {
		close(fd);
		return;
	}
	getsockname(fd, (struct sockaddr *)&c->local, &len);
	p->in = c;
	send_open(c);
}

static bool marker_ok(const uint8_t *b)
{
	size_t i;

	for (i = 0; i < BGP_MARKER_LEN; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

/*
 * Whether the peer evidently holds c Established: its KEEPALIVE waits
 * unread with another message behind it (an Established speaker sends its
 * UPDATEs at once), so closing c would end its session. A KEEPALIVE alone
 * says only OpenConfirm, where the peer settles the collision as we do.
 */
static bool peer_established_on(const struct conn *c)
{
	uint8_t b[2 * BGP_HEADER_LEN];

	if (c->rlen)
		return false;
	return recv(c->io.fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT) ==
	       (ssize_t)sizeof(b) && marker_ok(b) && b[16] == 0 &&
	       b[17] == BGP_HEADER_LEN && b[18] == BGP_MSG_KEEPALIVE &&
	       marker_ok(b + BGP_HEADER_LEN);
}

/*
 * §6.8: whether the connection fared opened survives a collision with
 * a peer whose BGP Identifier is PEER_ID: the higher identifier's, and
 * between equal ones (an eBGP peer may share fared's, RFC 6286 §2.2) the
 * higher AS number's.
 */
static bool fared_wins_collision(const struct peer *p, uint32_t peer_id)
{
	if (p->d->cfg.router_id != peer_id)
		return p->d->cfg.router_id > peer_id;
	return p->d->cfg.local_as > p->nb->remote_as;
}

/*
 * §6.8: which of two connections survives; false if c lost. The other
 * one counts in OpenSent too, as §6.8 allows once the peer's identifier
 * is known (c's OPEN gave it) and as FRR does: otherwise c could go on
 * to Established while the peer, reading our OPEN on the other with c in
 * OpenConfirm, closes c by the identifiers (BIRD does), and both
 * connections end.
 */
static bool collision(struct conn *c)
{
	struct peer *p = c->peer;
	struct conn *other = c->outgoing ? p->in : p->out;
	struct conn *loser;

	/* peer_accept already settled collisions with Established. */
	if (!other || (other->state != PEER_OPENCONFIRM &&
		       other->state != PEER_OPENSENT))
		return true;
	/*
	 * The connection opened by the higher identifier wins (as BIRD and
	 * FRR decide), unless the peer already runs the other one
	 * Established: it then closes this one itself. Without our
	 * KEEPALIVE on it, one in OpenSent cannot be Established there.
	 */
	if (other->state == PEER_OPENCONFIRM && peer_established_on(other))
		loser = c;
	else if (fared_wins_collision(p, c->open.bgp_id))
		loser = c->outgoing ? other : c;
	else
		loser = c->outgoing ? c : other;
	plog(p, "connection collision: closing the %s connection",
	     loser->outgoing ? "outgoing" : "incoming");
	conn_cease(loser, BGP_CEASE_COLLISION, NULL);
	return loser != c;
}

/* RFC 6608: which state an unexpected message came in. */
static uint8_t fsm_subcode(const struct conn *c)
{
	switch (c->state) {
	case PEER_OPENSENT:
		return 1;
	case PEER_OPENCONFIRM:
		return 2;
	case PEER_ESTABLISHED:
		return 3;
	default:
		return 0;
	}
}

/*
 * A session with no address family in common would carry nothing: RFC
 * 5492 §3's Unsupported Capability, its data the Multiprotocol
 * capabilities fared offered (which the peer lacks).
 */
static void no_common_family(struct conn *c, const struct bgp_open *local)
{
	uint8_t data[BGP_FAM_COUNT * 6];
	size_t n = 0;
	int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		uint16_t afi = bgp_family_afi(fam);

		if (!(local->caps.families & BGP_FAM_BIT(fam)))
			continue;
		data[n++] = 1;			/* Multiprotocol Extensions */
		data[n++] = 4;
		data[n++] = (uint8_t)(afi >> 8);
		data[n++] = (uint8_t)afi;
		data[n++] = 0;
		data[n++] = bgp_family_safi(fam);
	}
	conn_notify(c, BGP_ERR_OPEN, BGP_OPEN_UNSUPPORTED_CAP, data, n,
		    "no address family in common");
}

static void got_open(struct conn *c, const uint8_t *msg, size_t len)
{
	struct peer *p = c->peer;
	struct bgp_open local;
	struct bgp_error err;
	uint8_t buf[BGP_HEADER_LEN];
	uint8_t as_data[2];

	if (c->state != PEER_OPENSENT) {
		conn_notify(c, BGP_ERR_FSM, fsm_subcode(c), NULL, 0,
			    "unexpected OPEN");
		return;
	}
	if (bgp_open_parse(msg, len, &c->open, &err) != BGP_PARSE_OK) {
		conn_notify(c, err.code, err.subcode, err.data, err.data_len,
			    err.reason);
		return;
	}
	if (bgp_open_peer_as(&c->open) != p->nb->remote_as) {
		as_data[0] = (uint8_t)(c->open.my_as >> 8);
		as_data[1] = (uint8_t)c->open.my_as;
		conn_notify(c, BGP_ERR_OPEN, BGP_OPEN_BAD_PEER_AS, as_data, 2,
			    "peer AS is not the configured remote-as");
		return;
	}
	/* RFC 6286 §2.2: unique within an AS, so only iBGP must differ. */
	if (c->open.bgp_id == p->d->cfg.router_id && peer_is_ibgp(p)) {
		conn_notify(c, BGP_ERR_OPEN, BGP_OPEN_BAD_BGP_ID, NULL, 0,
			    "an internal peer uses our BGP identifier");
		return;
	}
	c->open_rx = true;
	local_open(p, &local);
	bgp_negotiate(&local, &c->open, &c->params);
	if (!c->params.families) {
		no_common_family(c, &local);
		return;
	}
	if (!collision(c))
		return;
	c->state = PEER_OPENCONFIRM;
	conn_send(c, buf, bgp_keepalive_build(buf, sizeof(buf)));
	if (c->params.hold_time) {
		timer_set(&p->d->loop, &c->hold, c->params.hold_time * 1000ull);
		timer_set(&p->d->loop, &c->keepalive,
			  jitter_ms(c->params.keepalive_time * 1000ull));
	} else {
		timer_stop(&p->d->loop, &c->hold);
	}
}

static void established(struct conn *c)
{
	struct peer *p = c->peer;
	struct conn *other = c->outgoing ? p->in : p->out;
	unsigned int fam;

	if (other)
		conn_cease(other, BGP_CEASE_COLLISION, NULL);
	c->state = PEER_ESTABLISHED;
	p->est = c;
	p->params = c->params;
	p->peer_caps = c->open.caps;
	p->peer_id = c->open.bgp_id;
	peer_table_refresh(p);
	p->established_at = loop_now_ms();
	p->eor_rx = p->eor_tx = 0;
	p->prefixes_rx = p->prefixes_denied = 0;
	p->unnegotiated = 0;
	p->neighbor_as_bad = 0;
	p->add_path_over = 0;
	p->max_prefix_warned = false;
	p->last_error[0] = '\0';
	p->orf_wait = 0;
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		p->n_orf_rx[fam] = 0;
		orf_rx_changed(p, fam);
		if (orf_receives(p, fam))
			p->orf_wait |= BGP_FAM_BIT(fam);
	}
	timer_stop(&p->d->loop, &p->connect_retry);
	plog(p, "session Established (AS %u, id %u.%u.%u.%u, hold %u s%s%s)",
	     bgp_open_peer_as(&c->open), c->open.bgp_id >> 24,
	     (c->open.bgp_id >> 16) & 255, (c->open.bgp_id >> 8) & 255,
	     c->open.bgp_id & 255, c->params.hold_time,
	     c->params.graceful_restart ? ", graceful restart" : "",
	     (c->open.caps.gr_flags & BGP_GR_FLAG_RESTART) ?
	     ", peer restarting" : "");
	/*
	 * RFC 4724 §4.2: stale routes of a family the peer no longer
	 * preserved (no capability, or F bit clear) go now; the rest wait
	 * for its End-of-RIB.
	 */
	if (p->d->rib_ops)
		p->d->rib_ops->established(p, c);
	/* RFC 5291 §6: the leaf waits for our list before it exports. */
	peer_send_orf(p);
	if (!p->est)
		return;
	/*
	 * RFC 4724 §4.1: a restarting speaker waits for every neighbor's
	 * End-of-RIB before it selects routes (peers_selection_done()).
	 */
	if (p->restarting && c->params.graceful_restart && !p->d->selected)
		timer_set(&p->d->loop, &p->deferral,
			  p->d->cfg.gr_stale_time * 1000ull);
	else
		peer_initial_export(p);
}

bool peer_has_first_table(const struct peer *p)
{
	return peer_state(p) == PEER_ESTABLISHED &&
	       (p->eor_rx & p->est->params.families) ==
	       p->est->params.families;
}

static void got_eor(struct peer *p, unsigned int fam)
{
	p->eor_rx |= BGP_FAM_BIT(fam);
	plog(p, "End-of-RIB received for %s", peer_fam_name(fam));
	if (p->d->rib_ops)
		p->d->rib_ops->eor(p, fam);
	event_eor(p);
	peer_gr_eor(p->d);
}

static void got_update(struct conn *c, const uint8_t *msg, size_t len)
{
	struct peer *p = c->peer;
	struct bgp_codec_opts o = conn_codec_opts(c);
	struct bgp_update u;
	const struct bgp_error *e = &u.error;
	bool tw;

	if (c->state != PEER_ESTABLISHED) {
		conn_notify(c, BGP_ERR_FSM, fsm_subcode(c), NULL, 0,
			    "UPDATE before Established");
		return;
	}
	p->updates_rx++;
	if (bgp_update_parse(msg, len, &o, &u) != BGP_PARSE_OK) {
		conn_notify(c, e->code, e->subcode, e->data, e->data_len,
			    e->reason);
		bgp_update_free(&u);
		return;
	}
	if (e->action != BGP_ACTION_NONE) {
		plog_limited(p, "RFC 7606 %s: %s (error %u/%u)",
			     bgp_action_name(e->action), e->reason, e->code,
			     e->subcode);
		if (e->action == BGP_ACTION_TREAT_AS_WITHDRAW)
			p->withdraw_7606++;
		else
			p->discard_7606++;
	}
	if (u.end_of_rib) {
		if (u.eor_family < BGP_FAM_COUNT)
			got_eor(p, u.eor_family);
		bgp_update_free(&u);
		return;
	}
	tw = e->action == BGP_ACTION_TREAT_AS_WITHDRAW;
	if (p->d->rib_ops)
		p->d->rib_ops->update(c, &u, tw);
	bgp_update_free(&u);
}

/*
 * The ORF part of a ROUTE-REFRESH: true when the refresh is to go on
 * (IMMEDIATE), false when it waits for a later one (DEFER) or is ignored.
 */
static bool got_orf(struct conn *c, unsigned int fam,
		    const struct bgp_route_refresh *rr)
{
	struct peer *p = c->peer;
	int err;

	p->orf_rx_msgs++;
	/* RFC 5291 §5: ORF only where we said we would receive it. */
	if (!orf_receives(p, fam)) {
		plog(p, "ORF for %s ignored: not negotiated",
		     peer_fam_name(fam));
		return rr->when_to_refresh == ORF_WHEN_IMMEDIATE;
	}
	err = orf_list_apply(&p->orf_rx[fam], &p->n_orf_rx[fam], fam,
			     rr->orf, rr->orf_len);
	orf_rx_changed(p, fam);
	if (err == -E2BIG) {
		conn_notify(c, BGP_ERR_CEASE, BGP_CEASE_OUT_OF_RESOURCES,
			    NULL, 0, "ORF list longer than fared keeps");
		return false;
	}
	if (err)
		plog(p, "ORF for %s: %s; the whole ORF removed",
		     peer_fam_name(fam),
		     err == -1 ? "unrecognized value" : "out of memory");
	return rr->when_to_refresh == ORF_WHEN_IMMEDIATE;
}

static void got_route_refresh(struct conn *c, const uint8_t *msg, size_t len)
{
	struct peer *p = c->peer;
	struct bgp_route_refresh rr;
	struct bgp_error err;
	uint8_t buf[64];
	int fam;

	if (bgp_route_refresh_parse(msg, len, &rr, &err) != BGP_PARSE_OK) {
		conn_notify(c, err.code, err.subcode, err.data, err.data_len,
			    err.reason);
		return;
	}
	fam = bgp_family_of(rr.afi, rr.safi);
	/* RFC 2918 §4: an AFI/SAFI not negotiated is ignored. */
	if (fam < 0 || !(c->params.families & BGP_FAM_BIT(fam)))
		return;
	if (rr.subtype == BGP_RR_NORMAL && rr.has_orf) {
		if (!got_orf(c, (unsigned int)fam, &rr) || !p->est)
			return;
	}
	switch (rr.subtype) {
	case BGP_RR_NORMAL:
		if (p->orf_wait & BGP_FAM_BIT(fam)) {
			p->orf_wait &= ~BGP_FAM_BIT(fam);
			if (p->export_done)
				peer_export_first(c, (unsigned int)fam);
			return;
		}
		if (!p->export_done)
			return;
		plog(p, "route refresh asked for %s", peer_fam_name(fam));
		if (c->params.enhanced_route_refresh) {
			conn_send(c, buf, bgp_route_refresh_build(buf,
				  sizeof(buf), rr.afi, rr.safi, BGP_RR_BORR));
			if (!p->est)
				return;
		}
		/*
		 * Every route of fam is pending again (RFC 2918 §4, RFC 7313
		 * §4): the EoRR follows the last of them.
		 */
		if (c->params.enhanced_route_refresh)
			p->eorr_due |= BGP_FAM_BIT(fam);
		peer_export_fam(p, (unsigned int)fam, true);
		break;
	case BGP_RR_BORR:
		if (!c->params.enhanced_route_refresh)
			break;
		/* RFC 7313 §4: not before its End-of-RIB (graceful restart). */
		if (!gr_borr_accept(c->open.caps.graceful_restart, p->eor_rx,
				    (unsigned int)fam)) {
			plog(p, "BoRR for %s before its End-of-RIB: ignored",
			     peer_fam_name((unsigned int)fam));
			break;
		}
		if (p->d->rib_ops)
			p->d->rib_ops->refresh_begin(p, (unsigned int)fam);
		break;
	case BGP_RR_EORR:
		if (c->params.enhanced_route_refresh && p->d->rib_ops)
			p->d->rib_ops->refresh_end(p, (unsigned int)fam);
		break;
	default:
		/* RFC 7313 §5: other subtypes are ignored. */
		break;
	}
}

static void got_notification(struct conn *c, const uint8_t *msg, size_t len)
{
	struct peer *p = c->peer;
	struct bgp_notification n;
	struct bgp_error err;
	char text[BGP_SHUTDOWN_TEXT_MAX + 1];

	p->notifications_rx++;
	if (bgp_notification_parse(msg, len, &n, &err) != BGP_PARSE_OK) {
		snprintf(p->last_error, sizeof(p->last_error),
			 "malformed NOTIFICATION");
		conn_close(c, "malformed NOTIFICATION received", true);
		return;
	}
	if (n.code == BGP_ERR_CEASE &&
	    !bgp_notification_shutdown_text(&n, text, sizeof(text)))
		snprintf(p->last_error, sizeof(p->last_error),
			 "received NOTIFICATION %u/%u, shutdown "
			 "communication \"%s\"", n.code, n.subcode, text);
	else
		snprintf(p->last_error, sizeof(p->last_error),
			 "received NOTIFICATION %u/%u", n.code, n.subcode);
	plog(p, "%s", p->last_error);
	c->hard = n.code == BGP_ERR_CEASE && n.subcode == BGP_CEASE_HARD_RESET;
	conn_close(c, p->last_error, true);
}

/* Handles one whole message; false when c is gone. */
static bool handle(struct conn *c, const struct bgp_header *h,
		   const uint8_t *msg)
{
	struct peer *p = c->peer;
	bool alive;

	if (c->params.hold_time && c->state >= PEER_OPENCONFIRM) {
		timer_set(&p->d->loop, &c->hold,
			  c->params.hold_time * 1000ull);
		c->hold_deferred = false;
	}
	switch (h->type) {
	case BGP_MSG_OPEN:
		got_open(c, msg, h->length);
		break;
	case BGP_MSG_UPDATE:
		got_update(c, msg, h->length);
		break;
	case BGP_MSG_NOTIFICATION:
		got_notification(c, msg, h->length);
		return false;
	case BGP_MSG_KEEPALIVE:
		if (c->state == PEER_OPENCONFIRM)
			established(c);
		else if (c->state != PEER_ESTABLISHED)
			conn_notify(c, BGP_ERR_FSM, fsm_subcode(c), NULL, 0,
				    "unexpected KEEPALIVE");
		break;
	case BGP_MSG_ROUTE_REFRESH:
		if (c->state != PEER_ESTABLISHED)
			conn_notify(c, BGP_ERR_FSM, fsm_subcode(c), NULL, 0,
				    "ROUTE-REFRESH before Established");
		else
			got_route_refresh(c, msg, h->length);
		break;
	}
	alive = p->out == c || p->in == c;
	return alive;
}

static void conn_read(struct conn *c)
{
	struct bgp_header h;
	struct bgp_error err;
	size_t off = 0, max;
	ssize_t n;

	if (c->rcap - c->rlen < 4096) {
		size_t cap = c->rcap ? c->rcap * 2 : 8192;
		uint8_t *b;

		if (cap > 4 * BGP_EXT_MAX_LEN)
			cap = c->rlen + 4096;
		b = realloc(c->rbuf, cap);
		if (!b) {
			conn_close(c, "out of memory", false);
			return;
		}
		c->rbuf = b;
		c->rcap = cap;
	}
	n = recv(c->io.fd, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
	if (n == 0) {
		conn_close(c, "connection closed by peer", false);
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c, strerror(errno), false);
		return;
	}
	c->rlen += (size_t)n;
	for (;;) {
		max = c->params.max_len && c->state == PEER_ESTABLISHED ?
		      c->params.max_len : BGP_MAX_LEN;
		switch (bgp_header_parse(c->rbuf + off, c->rlen - off, max,
					 &h, &err)) {
		case BGP_PARSE_NEED_MORE:
			memmove(c->rbuf, c->rbuf + off, c->rlen - off);
			c->rlen -= off;
			return;
		case BGP_PARSE_ERROR:
			conn_notify(c, err.code, err.subcode, err.data,
				    err.data_len, err.reason);
			return;
		case BGP_PARSE_OK:
			break;
		}
		if (!handle(c, &h, c->rbuf + off))
			return;
		off += h.length;
	}
}

static void conn_ready(struct io *io, uint32_t events)
{
	struct conn *c = io->arg;
	int err = 0;
	socklen_t len = sizeof(err);

	if (c->state == PEER_CONNECT) {
		getsockopt(io->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			snprintf(c->peer->last_error,
				 sizeof(c->peer->last_error), "connect: %s",
				 strerror(err));
			conn_close(c, c->peer->last_error, false);
			return;
		}
		if (events & EPOLLOUT)
			connected(c);
		return;
	}
	if (events & EPOLLOUT) {
		if (conn_flush(c)) {
			conn_close(c, "send failed", false);
			return;
		}
		/* The writer pulls what is pending (adj_out.h). */
		if (conn_writer_waits(c))
			c->peer->d->hooks->writable(c->peer);
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		conn_read(c);
}

/*
 * Grace for a peer whose messages wait unread: fared, not the peer, was
 * late (a long FIB batch held the loop), and the loop reads them before
 * this runs out.
 */
#define HOLD_UNREAD_GRACE_MS	1000

static void hold_expired(struct timer *t)
{
	struct conn *c = t->arg;
	int unread = 0;

	/*
	 * Once only until a whole message restarts the timer, so that a
	 * peer trickling bytes of a message it never ends cannot keep its
	 * session alive.
	 */
	if (!c->broken && !c->hold_deferred &&
	    ioctl(c->io.fd, FIONREAD, &unread) == 0 && unread > 0) {
		c->hold_deferred = true;
		timer_set(&c->peer->d->loop, &c->hold, HOLD_UNREAD_GRACE_MS);
		return;
	}
	if (c->broken) {
		if (c->broken_why)
			snprintf(c->peer->last_error,
				 sizeof(c->peer->last_error), "%s",
				 c->broken_why);
		conn_close(c, c->broken_why ? c->broken_why : "cannot send",
			   false);
		return;
	}
	conn_notify(c, BGP_ERR_HOLD_TIMER, 0, NULL, 0, "hold timer expired");
}

static void keepalive_due(struct timer *t)
{
	struct conn *c = t->arg;
	uint8_t buf[BGP_HEADER_LEN];

	if (c->state < PEER_OPENCONFIRM || !c->params.keepalive_time)
		return;
	if (c->state == PEER_OPENCONFIRM)
		timer_set(&c->peer->d->loop, &c->keepalive,
			  jitter_ms(c->params.keepalive_time * 1000ull));
	conn_send(c, buf, bgp_keepalive_build(buf, sizeof(buf)));
}

static void send_hold_expired(struct timer *t)
{
	struct conn *c = t->arg;

	/* RFC 9687 §3: the peer reads nothing; there is no use waiting. */
	c->woff = c->wlen = 0;
	conn_notify(c, BGP_ERR_SEND_HOLD_TIMER, 0, NULL, 0,
		    "send hold timer expired");
}

/* ------------------------------------------------------------------ */

struct peer *peer_new(struct fared *d, const struct fared_neighbor *nb)
{
	struct peer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->d = d;
	p->nb = nb;
	p->index = d->next_index++;
	p->restarting = d->restarting;
	snprintf(p->name, sizeof(p->name), "%s (plane %u)", nb->addr_text,
		 nb->plane);
	timer_init(&p->connect_retry, connect_retry_expired, p);
	peer_log_init(p);
	peer_gr_init(p);
	peer_import_init(p);
	if (peer_table_refresh(p)) {
		free(p);
		return NULL;
	}
	return p;
}

void peer_start(struct peer *p)
{
	/*
	 * A short random delay spreads out the first connections: 10 ms a
	 * neighbor, at most 500 ms. The session that comes up last holds
	 * back a host's routes (the start-up wait programs a prefix early
	 * only once every plane has it), so a few neighbors need no more.
	 */
	uint64_t spread = 10 * (uint64_t)p->d->cfg.n_neighbors;

	if (p->nb->passive)
		return;
	if (spread > 500)
		spread = 500;
	timer_set(&p->d->loop, &p->connect_retry,
		  spread ? (uint64_t)random() % spread : 0);
}

void peer_restart_leave(struct peer *p)
{
	if (p->est && conn_gr_n(p->est))
		conn_cease(p->est, BGP_CEASE_ADMIN_RESET, "fared restarting");
	else if (p->est)
		conn_close(p->est, "fared restarting: closed without "
			   "NOTIFICATION (graceful restart)", false);
	if (p->out)
		conn_close(p->out, "fared restarting", false);
	if (p->in)
		conn_close(p->in, "fared restarting", false);
	peer_free(p, BGP_CEASE_ADMIN_SHUTDOWN, NULL);
}

void peer_bfd_down(struct peer *p)
{
	if (p->est)
		conn_cease(p->est, BGP_CEASE_BFD_DOWN, "BFD session down");
	if (p->out)
		conn_cease(p->out, BGP_CEASE_BFD_DOWN, "BFD session down");
	if (p->in)
		conn_cease(p->in, BGP_CEASE_BFD_DOWN, "BFD session down");
}

void peer_free(struct peer *p, uint8_t subcode, const char *text)
{
	struct loop *l = &p->d->loop;
	unsigned int i;

	if (p->est)
		conn_cease(p->est, subcode, text);
	if (p->out)
		conn_cease(p->out, subcode, text);
	if (p->in)
		conn_cease(p->in, subcode, text);
	/* conn_close re-armed it. */
	timer_stop(l, &p->connect_retry);
	timer_stop(l, &p->deferral);
	timer_stop(l, &p->max_prefix_restart);
	peer_log_fini(p);
	if (p->d->rib_ops)
		p->d->rib_ops->gone(p);
	event_down(p, true);
	peer_table_clear(&p->d->peer_table, p->index);
	for (i = 0; i < BGP_FAM_COUNT; i++) {
		free(p->orf_rx[i]);
		orf_index_free(&p->orf_ix[i]);
	}
	free(p);
}

static size_t conn_memory(const struct conn *c)
{
	return c ? sizeof(*c) + c->rcap + c->wcap : 0;
}

size_t peer_memory(const struct peer *p)
{
	size_t n = sizeof(*p);
	unsigned int fam;

	n += conn_memory(p->out) + conn_memory(p->in);
	if (p->est && p->est != p->out && p->est != p->in)
		n += conn_memory(p->est);
	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		n += p->n_orf_rx[fam] * sizeof(*p->orf_rx[fam]) +
		     p->orf_ix[fam].n * sizeof(*p->orf_ix[fam].v);
	return n + (p->d->rib_ops ? p->d->rib_ops->bytes(p) : 0);
}

size_t peer_send_queue(const struct peer *p)
{
	return p->est ? p->est->wlen - p->est->woff : 0;
}
