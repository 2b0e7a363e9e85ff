// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BGP neighbor state machine (RFC 4271 §8), collision detection
 * (§6.8), timers with jitter (§10), the send hold timer (RFC 9687),
 * graceful restart (RFC 4724) both as helper and as restarting speaker,
 * route refresh (RFC 2918, RFC 7313) and UPDATE handling with the RFC 7606
 * actions the codec decides and the RFC 8212 default of no policy, no
 * route.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
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

#define plog(p, fmt, ...) \
	fared_log("neighbor %s: " fmt, (p)->name, ##__VA_ARGS__)

static const char *fam_name(unsigned int fam)
{
	return fam == BGP_FAM_IPV6_UNICAST ? "ipv6" : "ipv4";
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

static bool ibgp(const struct peer *p)
{
	return p->nb->remote_as == p->d->cfg.local_as;
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

/* Writes what the socket takes; the send hold timer runs while stuck. */
static int conn_flush(struct conn *c)
{
	struct loop *l = &c->peer->d->loop;
	ssize_t n;
	size_t done = 0;

	while (done < c->wlen) {
		n = send(c->io.fd, c->wbuf + done, c->wlen - done,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		done += (size_t)n;
	}
	if (done) {
		memmove(c->wbuf, c->wbuf + done, c->wlen - done);
		c->wlen -= done;
		timer_stop(l, &c->send_hold);
	}
	/* A burst's buffer is not kept once the peer has taken it all. */
	if (!c->wlen && c->wcap > 65536) {
		free(c->wbuf);
		c->wbuf = NULL;
		c->wcap = 0;
	}
	if (c->wlen && !c->send_hold.armed)
		timer_set(l, &c->send_hold, send_hold_ms(c));
	io_set(l, &c->io, EPOLLIN | (c->wlen ? EPOLLOUT : 0));
	return 0;
}

/*
 * Appends msg to what waits for the peer's socket. The queue is bounded
 * (send-buffer-limit): a peer that reads nothing costs at most that.
 */
static int conn_queue(struct conn *c, const uint8_t *msg, size_t len)
{
	size_t limit = c->peer->d->cfg.send_buffer_limit;

	if (c->wlen + len > limit) {
		c->broken_why = "send buffer limit reached: the peer does "
				"not read";
		return -ENOBUFS;
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
static void conn_send(struct conn *c, const uint8_t *msg, int len)
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
static void conn_notify(struct conn *c, uint8_t code, uint8_t subcode,
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

/* RFC 8538: both sides sent the N bit on c. */
static bool conn_gr_n(const struct conn *c)
{
	return c->open_rx && gr_n_exchanged(c->gr_flags_tx, &c->open.caps);
}

static void conn_cease(struct conn *c, uint8_t subcode, const char *text)
{
	uint8_t buf[BGP_MAX_LEN], hard[BGP_MAX_LEN];
	int len = -1, n;

	if (text && (subcode == BGP_CEASE_ADMIN_SHUTDOWN ||
		     subcode == BGP_CEASE_ADMIN_RESET))
		len = bgp_notification_build_shutdown(buf, sizeof(buf),
						      subcode, text);
	/* RFC 8538 §5.1: a lasting end goes inside a Hard Reset. */
	if (conn_gr_n(c) && gr_cease_is_hard(subcode) &&
	    subcode != BGP_CEASE_HARD_RESET) {
		n = gr_hard_reset_data(BGP_ERR_CEASE, subcode,
				       buf + BGP_NOTIFICATION_MIN_LEN,
				       len > BGP_NOTIFICATION_MIN_LEN ?
				       (size_t)len - BGP_NOTIFICATION_MIN_LEN :
				       0, hard, sizeof(hard));
		if (n > 0) {
			conn_notify(c, BGP_ERR_CEASE, BGP_CEASE_HARD_RESET,
				    hard, (size_t)n, text ? text : "cease");
			return;
		}
	}
	if (len > BGP_NOTIFICATION_MIN_LEN)
		conn_notify(c, BGP_ERR_CEASE, subcode,
			    buf + BGP_NOTIFICATION_MIN_LEN,
			    (size_t)len - BGP_NOTIFICATION_MIN_LEN,
			    text);
	else
		conn_notify(c, BGP_ERR_CEASE, subcode, NULL, 0,
			    text ? text : "cease");
}

/* ------------------------------------------------------------------ */
/* Export. */

/* The local address of c's family fam as a next hop; false if none. */
static bool next_hop(const struct conn *c, unsigned int fam, uint8_t *nh,
		     bool *has_ll, uint8_t *ll)
{
	const struct sockaddr_in *s4 = (const void *)&c->local;
	const struct sockaddr_in6 *s6 = (const void *)&c->local;
	struct ifaddrs *ifa, *i;
	const char *ifname = NULL;

	*has_ll = false;
	if (fam == BGP_FAM_IPV4_UNICAST) {
		if (c->local.ss_family != AF_INET)
			return false;
		memcpy(nh, &s4->sin_addr, 4);
		return true;
	}
	if (c->local.ss_family != AF_INET6 ||
	    IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return false;
	memcpy(nh, &s6->sin6_addr, 16);
	/* RFC 2545 §3: add the link-local address of the shared link. */
	if (getifaddrs(&ifa))
		return true;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET6 &&
		    !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			    &s6->sin6_addr, 16))
			ifname = i->ifa_name;
	for (i = ifa; ifname && i; i = i->ifa_next) {
		const struct sockaddr_in6 *a = (const void *)i->ifa_addr;

		if (a && a->sin6_family == AF_INET6 &&
		    !strcmp(i->ifa_name, ifname) &&
		    IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr) &&
		    !IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr)) {
			memcpy(ll, &a->sin6_addr, 16);
			*has_ll = true;
			break;
		}
	}
	freeifaddrs(ifa);
	return true;
}

static void send_eor(struct conn *c, unsigned int fam)
{
	uint8_t buf[64];

	conn_send(c, buf, bgp_eor_build(buf, sizeof(buf), fam));
	c->peer->eor_tx |= BGP_FAM_BIT(fam);
}

static struct bgp_codec_opts codec_opts(const struct conn *c)
{
	struct bgp_codec_opts o = {
		.as4 = c->params.as4,
		.ibgp = ibgp(c->peer),
		.add_path_rx = c->params.add_path_rx,
		.max_len = c->params.max_len ? c->params.max_len : BGP_MAX_LEN,
	};
	return o;
}

/*
 * Where UPDATEs are built: as large as the largest message a session may
 * negotiate (RFC 8654), and not on the stack. fared is single-threaded
 * and a message is queued before the next one is built.
 */
static uint8_t update_buf[BGP_EXT_MAX_LEN];

/* One UPDATE announcing the n prefixes pfx of out's family on c. */
static int announce_build(struct conn *c, struct bgp_update_out *out,
			  const struct bgp_prefix *pfx, size_t n)
{
	struct bgp_codec_opts o = codec_opts(c);

	if (pfx->family == BGP_FAM_IPV4_UNICAST) {
		out->nlri = pfx;
		out->n_nlri = n;
	} else {
		out->mp_family = (int)pfx->family;
		out->mp_nlri = pfx;
		out->n_mp_nlri = n;
	}
	return bgp_update_build(update_buf, sizeof(update_buf), &o,
				c->params.add_path_tx, out);
}

/*
 * Sends the n prefixes pfx with out's attributes on c, as many per
 * UPDATE as fit (halving a run that does not); false when the session
 * went.
 */
static bool announce_run(struct conn *c, struct bgp_update_out *out,
			 const struct bgp_prefix *pfx, size_t n)
{
	struct peer *p = c->peer;
	char text[BGP_PREFIX_STRLEN];
	int len = announce_build(c, out, pfx, n);

	if (len < 0 && n > 1)
		return announce_run(c, out, pfx, n / 2) &&
		       announce_run(c, out, pfx + n / 2, n - n / 2);
	if (len < 0) {
		/* Not the peer's fault: the route alone is not sent. */
		p->too_large++;
		plog(p, "%s not advertised: its UPDATE would exceed the "
		     "session's %zu-byte message size", bgp_prefix_str(pfx,
		     text, sizeof(text)), codec_opts(c).max_len);
		return true;
	}
	conn_send(c, update_buf, len);
	if (!p->est)
		return false;
	p->updates_tx++;
	return true;
}

/*
 * Announces the n prefixes pfx (one family) with next hop self and the
 * attributes r on c; false when it could not be sent.
 */
static bool announce(struct conn *c, const struct bgp_prefix *pfx, size_t n,
		     const struct peer_route *r)
{
	struct peer *p = c->peer;
	struct bgp_update_out out = { .mp_family = -1,
				      .mp_unreach_family = -1 };
	char text[BGP_PREFIX_STRLEN];
	uint8_t nh[16];
	bool has_ll;

	if (!n)
		return true;
	if (!next_hop(c, pfx->family, nh, &has_ll, out.mp_next_hop_ll)) {
		plog(p, "no %s next hop on this session: %s not advertised",
		     fam_name(pfx->family),
		     bgp_prefix_str(pfx, text, sizeof(text)));
		return false;
	}
	out.origin = r->origin;
	out.path_packed = true;
	out.packed_path = r->path;
	out.packed_path_len = r->path_len;
	if (!ibgp(p)) {
		out.prepend_as = p->d->cfg.local_as;
	} else {
		out.has_local_pref = true;
		out.local_pref = 100;
	}
	out.ext_communities = r->ecs;
	out.ext_communities_len = r->ecs_len;
	out.communities = r->comms;
	out.communities_len = r->comms_len;
	out.large_communities = r->lcomms;
	out.large_communities_len = r->lcomms_len;
	out.raw_attrs = r->raw;
	out.raw_attrs_len = r->raw_len;
	if (pfx->family == BGP_FAM_IPV4_UNICAST) {
		out.has_next_hop = true;
		memcpy(out.next_hop, nh, 4);
	} else {
		memcpy(out.mp_next_hop, nh, 16);
		out.mp_has_ll = has_ll;
	}
	return announce_run(c, &out, pfx, n);
}

/* Withdraws the n prefixes pfx (one family) on c, as many per UPDATE
 * as fit; false when the session went. */
static bool withdraw_run(struct conn *c, const struct bgp_prefix *pfx,
			 size_t n)
{
	struct bgp_codec_opts o = codec_opts(c);
	struct bgp_update_out out = { .mp_family = -1,
				      .mp_unreach_family = -1 };
	int len;

	if (pfx->family == BGP_FAM_IPV4_UNICAST) {
		out.withdrawn = pfx;
		out.n_withdrawn = n;
	} else {
		out.mp_unreach_family = (int)pfx->family;
		out.mp_withdrawn = pfx;
		out.n_mp_withdrawn = n;
	}
	len = bgp_update_build(update_buf, sizeof(update_buf), &o,
			       c->params.add_path_tx, &out);
	/* One prefix always fits: only a run is ever too long. */
	if (len < 0 && n > 1)
		return withdraw_run(c, pfx, n / 2) &&
		       withdraw_run(c, pfx + n / 2, n - n / 2);
	conn_send(c, update_buf, len);
	if (!c->peer->est)
		return false;
	c->peer->updates_tx++;
	return true;
}

static bool can_send(const struct peer *p, const struct bgp_prefix *pfx)
{
	return p->est && (p->est->params.families & BGP_FAM_BIT(pfx->family));
}

bool peer_announce(struct peer *p, const struct bgp_prefix *pfx, size_t n,
		   const struct peer_route *r)
{
	if (!n)
		return true;
	if (!can_send(p, pfx))
		return false;
	return announce(p->est, pfx, n, r) && p->est;
}

bool peer_withdraw(struct peer *p, const struct bgp_prefix *pfx, size_t n)
{
	if (!n)
		return true;
	if (!can_send(p, pfx))
		return false;
	return withdraw_run(p->est, pfx, n) && p->est;
}

/* ------------------------------------------------------------------ */
/* Events for the rest of the daemon (fared.h, struct fared_hooks). */

/* The Adj-RIB-Out's routes of fam to p: originated, then passed on. */
static void export_fam(struct peer *p, unsigned int fam)
{
	if (p->d->hooks && p->d->hooks->export)
		p->d->hooks->export(p, fam);
}

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

/* The initial export, then End-of-RIB per family (RFC 4724 §2). */
static void initial_export(struct peer *p)
{
	struct conn *c = p->est;
	unsigned int fam;

	timer_stop(&p->d->loop, &p->deferral);
	for (fam = 0; c && fam < BGP_FAM_COUNT; fam++) {
		if (!(c->params.families & BGP_FAM_BIT(fam)) ||
		    (p->orf_wait & BGP_FAM_BIT(fam)))
			continue;
		export_fam(p, fam);
		if (!p->est)
			return;
		send_eor(c, fam);
		if (!p->est)
			return;
	}
	p->export_done = true;
	p->restarting = false;
}

void peer_reexport(struct peer *p)
{
	unsigned int fam;

	if (!p->est || !p->export_done)
		return;
	for (fam = 0; p->est && fam < BGP_FAM_COUNT; fam++)
		if (p->est->params.families & BGP_FAM_BIT(fam))
			export_fam(p, fam);
}

bool peer_send_raw(struct peer *p, const uint8_t *msg, size_t len)
{
	if (!p->est)
		return false;
	conn_send(p->est, msg, (int)len);
	return p->est;
}

static int emit_orf(const uint8_t *msg, size_t len, void *arg)
{
	struct peer *p = arg;

	if (!peer_send_raw(p, msg, len))
		return -1;
	p->orf_tx++;
	return 0;
}

void peer_send_orf(struct peer *p)
{
	struct fared *d = p->d;
	struct bgp_prefix *want;
	unsigned int fam;
	size_t i, n;

	for (fam = 0; fam < BGP_FAM_COUNT && p->est; fam++) {
		if (!orf_sends(p, fam))
			continue;
		want = malloc((d->n_orf_want + 1) * sizeof(*want));
		if (!want)
			return;
		for (i = n = 0; i < d->n_orf_want; i++)
			if (d->orf_want[i].family == fam)
				want[n++] = d->orf_want[i];
		if (orf_list_build(fam, want, n, p->est->params.max_len ?
				   p->est->params.max_len : BGP_MAX_LEN,
				   emit_orf, p) < 0)
			fared_log("%s: ORF for %s not sent", p->name,
				  fam ? "ipv6" : "ipv4");
		free(want);
	}
}

struct peer *peer_by_index(const struct fared *d, unsigned int index)
{
	size_t i;

	for (i = 0; i < d->n_peers; i++)
		if (d->peers[i]->index == index)
			return d->peers[i];
	return NULL;
}

bool peer_index_rnic(const struct fared *d, unsigned int index)
{
	const struct peer *p = peer_by_index(d, index);

	return p && p->nb->rnic;
}

void peer_refresh_in(struct peer *p)
{
	struct conn *c = p->est;
	uint8_t buf[64];
	unsigned int fam;

	if (!c)
		return;
	if (!c->params.route_refresh) {
		/* No other way to see the routes again (RFC 2918 §1). */
		conn_cease(c, BGP_CEASE_OTHER_CONFIG_CHANGE, NULL);
		return;
	}
	for (fam = 0; p->est && fam < BGP_FAM_COUNT; fam++)
		if (c->params.families & BGP_FAM_BIT(fam))
			conn_send(c, buf, bgp_route_refresh_build(buf,
				  sizeof(buf), bgp_family_afi(fam),
				  bgp_family_safi(fam), BGP_RR_NORMAL));
}

struct import_denied {
	const struct peer *p;
	const struct fared_policy *pol;	/* NULL: none, RFC 8212 */
	struct bgp_prefix *v;
	size_t n, cap;
	bool nomem;
};

/* Collects p's paths the new import policy denies (fn of rib_walk). */
static int collect_denied(const struct rib_entry *e, void *arg)
{
	struct import_denied *x = arg;
	size_t i;

	if (x->pol && fared_policy_permits(x->pol, &e->prefix))
		return 0;
	for (i = 0; i < e->n_paths; i++) {
		struct bgp_prefix pfx = e->prefix;

		if (e->paths[i].peer != x->p->index)
			continue;
		if (x->n == x->cap) {
			size_t cap = x->cap ? 2 * x->cap : 64;
			struct bgp_prefix *v = realloc(x->v, cap * sizeof(*v));

			if (!v) {
				x->nomem = true;
				return 1;
			}
			x->v = v;
			x->cap = cap;
		}
		pfx.path_id = e->paths[i].path_id;
		x->v[x->n++] = pfx;
	}
	return 0;
}

void peer_import_changed(struct peer *p)
{
	struct import_denied x = { .p = p };
	uint32_t fams = BGP_FAM_BIT(BGP_FAM_COUNT) - 1;
	size_t i;

	if (p->nb->import_policy >= 0)
		x.pol = &p->d->cfg.policies[p->nb->import_policy];
	rib_walk(p->d->rib, collect_denied, &x);
	if (x.nomem) {
		/* The old way: everything goes, the refresh brings it back. */
		plog(p, "import policy changed, out of memory: its routes "
		     "are flushed and asked for again");
		rib_peer_flush(p->d->rib, p->index, fams);
		free(x.v);
		peer_refresh_in(p);
		return;
	}
	/* What the new policy denies goes at once. */
	for (i = 0; i < x.n; i++)
		rib_withdraw(p->d->rib, p->index, &x.v[i]);
	free(x.v);
	if (!p->est || !p->est->params.route_refresh) {
		peer_refresh_in(p);
		return;
	}
	/*
	 * The rest stays, stale, while the peer sends its routes again:
	 * what it re-sends is no change to fare.ko or to the routes passed
	 * on; what it does not is swept at its EoRR (RFC 7313) or after
	 * stale-time. Routes the old policy denied arrive as new ones.
	 */
	fams &= p->est->params.families;
	rib_peer_mark_stale(p->d->rib, p->index, fams);
	p->stale_families |= fams;
	p->rr_families |= fams;
	timer_set(&p->d->loop, &p->rr_stale, p->d->cfg.gr_stale_time * 1000ull);
	plog(p, "import policy changed: %zu path%s denied now, the rest "
	     "kept while the neighbor sends its routes again", x.n,
	     x.n == 1 ? "" : "s");
	peer_refresh_in(p);
}

static void deferral_expired(struct timer *t)
{
	struct peer *p = t->arg;

	plog(p, "no End-of-RIB within the selection deferral time; "
	     "advertising now");
	initial_export(p);
}

/* ------------------------------------------------------------------ */
/* Graceful restart, helper side. */

static void sweep(struct peer *p, uint32_t families, const char *why)
{
	size_t n;

	families &= p->stale_families;
	if (!families)
		return;
	n = rib_peer_sweep_stale(p->d->rib, p->index, families);
	p->stale_families &= ~families;
	plog(p, "%zu stale route%s swept (%s)", n, n == 1 ? "" : "s", why);
	p->rr_families &= p->stale_families;
	if (!p->rr_families)
		timer_stop(&p->d->loop, &p->rr_stale);
	if (!p->stale_families) {
		timer_stop(&p->d->loop, &p->gr_stale);
		timer_stop(&p->d->loop, &p->gr_restart);
	}
}

static void gr_restart_expired(struct timer *t)
{
	struct peer *p = t->arg;

	sweep(p, p->stale_families, "peer's restart time over");
}

static void gr_stale_expired(struct timer *t)
{
	struct peer *p = t->arg;

	sweep(p, p->stale_families, "no End-of-RIB within stale-time");
}

/* RFC 7313 §4: stale since a BoRR, bounded by stale-time. */
static void rr_stale_expired(struct timer *t)
{
	struct peer *p = t->arg;

	sweep(p, p->rr_families, "no EoRR within stale-time");
}

/*
 * The session c went down (notified: a NOTIFICATION was sent or
 * received): keep the routes stale, or flush them (gr_session_down()).
 */
static void session_down(struct peer *p, const struct conn *c, bool notified)
{
	uint32_t keep, all = BGP_FAM_BIT(BGP_FAM_COUNT) - 1;
	struct gr_session s = {
		.helper = p->params.graceful_restart &&
			  p->peer_caps.gr_restart_time,
		.n = conn_gr_n(c),
		.families = p->peer_caps.gr_families & p->params.families,
		.stale = p->stale_families,
	};
	struct gr_down g;
	size_t n;

	gr_session_down(&s, notified, c->hard, &g);
	keep = g.keep;
	p->rr_families = 0;
	timer_stop(&p->d->loop, &p->rr_stale);
	if (g.drop_stale) {
		n = rib_peer_sweep_stale(p->d->rib, p->index, g.drop_stale);
		p->stale_families &= ~g.drop_stale;
		plog(p, "consecutive restart: %zu route%s still stale from "
		     "before deleted", n, n == 1 ? "" : "s");
	}
	if (keep) {
		n = rib_peer_mark_stale(p->d->rib, p->index, keep);
		p->stale_families |= keep;
		timer_stop(&p->d->loop, &p->gr_stale);
		timer_set(&p->d->loop, &p->gr_restart,
			  p->peer_caps.gr_restart_time * 1000ull);
		plog(p, "graceful restart: %zu route%s kept stale for %u s",
		     n, n == 1 ? "" : "s", p->peer_caps.gr_restart_time);
	}
	n = rib_peer_flush(p->d->rib, p->index, all & ~keep);
	if (n)
		plog(p, "%zu route%s flushed", n, n == 1 ? "" : "s");
	p->stale_families &= keep;
	if (!keep) {
		timer_stop(&p->d->loop, &p->gr_stale);
		timer_stop(&p->d->loop, &p->gr_restart);
	}
}

/* ------------------------------------------------------------------ */
/* The state machine. */

static void try_connect(struct peer *p);

static void connect_retry_expired(struct timer *t)
{
	struct peer *p = t->arg;

	if (p->max_prefix_idle)
		return;
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
		p->flaps++;
		plog(p, "session down: %s", why);
		event_down(p, false);
		session_down(p, c, notified);
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
	int fd;

	peer_sockaddr(p, &ss, &len);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		plog(p, "socket: %s", strerror(errno));
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
		 * has restarted, and its old session is gone. Anyone else
		 * collides with the Established session and loses (§6.8).
		 */
		if (!p->params.graceful_restart) {
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

/* §6.8: which of two connections survives; false if c lost. */
static bool collision(struct conn *c)
{
	struct peer *p = c->peer;
	struct conn *other = c->outgoing ? p->in : p->out;
	struct conn *loser;

	/* peer_accept already settled collisions with Established. */
	if (!other || other->state != PEER_OPENCONFIRM)
		return true;
	/*
	 * The connection opened by the higher identifier wins (as BIRD and
	 * FRR decide between two in OpenConfirm), unless the peer already
	 * runs the other one Established: it then closes this one itself.
	 */
	if (peer_established_on(other))
		loser = c;
	else if (p->d->cfg.router_id < c->open.bgp_id)
		loser = c->outgoing ? c : other;
	else
		loser = c->outgoing ? other : c;
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
	if (c->open.bgp_id == p->d->cfg.router_id) {
		conn_notify(c, BGP_ERR_OPEN, BGP_OPEN_BAD_BGP_ID, NULL, 0,
			    "peer uses our BGP identifier");
		return;
	}
	c->open_rx = true;
	local_open(p, &local);
	bgp_negotiate(&local, &c->open, &c->params);
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
	uint32_t fl = 0;
	unsigned int fam;

	if (other)
		conn_cease(other, BGP_CEASE_COLLISION, NULL);
	c->state = PEER_ESTABLISHED;
	p->est = c;
	p->params = c->params;
	p->peer_caps = c->open.caps;
	p->peer_id = c->open.bgp_id;
	p->established_at = loop_now_ms();
	p->eor_rx = p->eor_tx = 0;
	p->prefixes_rx = p->prefixes_denied = 0;
	p->unnegotiated = 0;
	p->max_prefix_warned = false;
	p->last_error[0] = '\0';
	p->orf_wait = 0;
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		p->n_orf_rx[fam] = 0;
		if (orf_receives(p, fam))
			p->orf_wait |= BGP_FAM_BIT(fam);
	}
	timer_stop(&p->d->loop, &p->connect_retry);
	timer_stop(&p->d->loop, &p->gr_restart);
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
	if (p->stale_families) {
		fl = gr_established_drop(&c->open.caps, p->stale_families);
		sweep(p, fl, "forwarding state not kept");
		if (p->stale_families)
			timer_set(&p->d->loop, &p->gr_stale,
				  p->d->cfg.gr_stale_time * 1000ull);
	}
	/* RFC 5291 §6: the leaf waits for our list before it exports. */
	peer_send_orf(p);
	if (!p->est)
		return;
	/* RFC 4724 §4.1: a restarting speaker waits for the peer's EoR. */
	if (p->restarting && c->params.graceful_restart)
		timer_set(&p->d->loop, &p->deferral,
			  p->d->cfg.gr_stale_time * 1000ull);
	else
		initial_export(p);
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
	plog(p, "End-of-RIB received for %s", fam_name(fam));
	sweep(p, BGP_FAM_BIT(fam), "End-of-RIB");
	if (p->deferral.armed && peer_has_first_table(p))
		initial_export(p);
	event_eor(p);
}

static void import_run(struct peer *p, const struct bgp_update *u,
		       const struct bgp_nlri *run, bool withdraw)
{
	const struct fared_policy *pol = NULL;
	struct rib_attrs *ra = NULL;
	struct bgp_prefix pfx;
	size_t pos = 0, i;
	bool loop_detected = false;

	if (!run->present)
		return;
	/* RFC 4760 §7: a family not negotiated is ignored, with a log. */
	if (!run->known || !p->est ||
	    !(p->est->params.families & BGP_FAM_BIT(run->family))) {
		if (!p->unnegotiated++)
			plog(p, "UPDATE for AFI %u SAFI %u, not negotiated on "
			     "this session: ignored (RFC 4760 §7); "
			     "further ones are counted", run->afi, run->safi);
		return;
	}
	if (!withdraw) {
		if (p->nb->import_policy < 0) {
			p->rejected_8212 += bgp_nlri_count(run);
			return;
		}
		pol = &p->d->cfg.policies[p->nb->import_policy];
		/* RFC 4271 §9.1.2: our own AS in the path is a loop. */
		for (i = 0; !ibgp(p) && i < u->attrs.as_path.n_asns; i++)
			if (u->attrs.as_path.asns[i] == p->d->cfg.local_as)
				loop_detected = true;
		if (!loop_detected) {
			ra = rib_attrs_get(p->d->rib, &u->attrs, run->family);
			if (!ra)
				plog(p, "out of memory: UPDATE treated as "
				     "withdraw");
		}
	}
	while (bgp_nlri_next(run, &pos, &pfx)) {
		if (!withdraw)
			p->prefixes_rx++;
		if (ra && fared_policy_permits(pol, &pfx)) {
			rib_update(p->d->rib, p->index, &pfx, ra);
		} else {
			if (!withdraw)
				p->prefixes_denied++;
			rib_withdraw(p->d->rib, p->index, &pfx);
		}
	}
	if (ra)
		rib_attrs_put(p->d->rib, ra);
}

static void max_prefix_restart_expired(struct timer *t)
{
	struct peer *p = t->arg;

	plog(p, "max-prefix restart time over: connecting again");
	peer_clear_idle(p);
}

bool peer_clear_idle(struct peer *p)
{
	if (!p->max_prefix_idle)
		return false;
	p->max_prefix_idle = false;
	timer_stop(&p->d->loop, &p->max_prefix_restart);
	if (!p->est && !p->connect_retry.armed)
		timer_set(&p->d->loop, &p->connect_retry,
			  (uint64_t)(random() % 500));
	return true;
}

/*
 * RFC 4486 §4: past max-prefix paths the session ends with Cease 6/1,
 * data AFI, SAFI and the limit (of fam: the family whose UPDATE went
 * past it), its routes go, and the peer is held Idle.
 */
static void check_max_prefix(struct conn *c, unsigned int fam)
{
	struct peer *p = c->peer;
	const struct fared_neighbor *nb = p->nb;
	uint16_t afi = bgp_family_afi(fam);
	uint8_t data[7];
	size_t n;

	if (!nb->max_prefix || p->est != c)
		return;
	n = rib_peer_count(p->d->rib, p->index,
			   BGP_FAM_BIT(BGP_FAM_COUNT) - 1);
	if (n <= nb->max_prefix)
		return;
	if (nb->max_prefix_warning_only) {
		if (!p->max_prefix_warned)
			plog(p, "%zu paths, past max-prefix %u (warning-only)",
			     n, nb->max_prefix);
		p->max_prefix_warned = true;
		return;
	}
	data[0] = (uint8_t)(afi >> 8);
	data[1] = (uint8_t)afi;
	data[2] = bgp_family_safi(fam);
	data[3] = (uint8_t)(nb->max_prefix >> 24);
	data[4] = (uint8_t)(nb->max_prefix >> 16);
	data[5] = (uint8_t)(nb->max_prefix >> 8);
	data[6] = (uint8_t)nb->max_prefix;
	p->max_prefix_hits++;
	p->max_prefix_idle = true;
	timer_stop(&p->d->loop, &p->connect_retry);
	if (nb->max_prefix_restart)
		timer_set(&p->d->loop, &p->max_prefix_restart,
			  nb->max_prefix_restart * 1000ull);
	plog(p, "%zu paths, past max-prefix %u: held Idle %s", n,
	     nb->max_prefix, nb->max_prefix_restart ?
	     "for the restart time" : "until cleared");
	conn_notify(c, BGP_ERR_CEASE, BGP_CEASE_MAX_PREFIXES, data,
		    sizeof(data), "maximum number of prefixes reached");
}

static void got_update(struct conn *c, const uint8_t *msg, size_t len)
{
	struct peer *p = c->peer;
	struct bgp_codec_opts o = codec_opts(c);
	struct bgp_update u;
	const struct bgp_error *e = &u.error;
	unsigned int fam = BGP_FAM_IPV4_UNICAST;
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
		plog(p, "RFC 7606 %s: %s (error %u/%u)",
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
	import_run(p, &u, &u.withdrawn, true);
	import_run(p, &u, &u.mp_unreach, true);
	import_run(p, &u, &u.nlri, tw);
	import_run(p, &u, &u.mp_reach, tw);
	if (u.mp_reach.present && u.mp_reach.known)
		fam = u.mp_reach.family;
	bgp_update_free(&u);
	check_max_prefix(c, fam);
}

/* A family held back for ORF: its first export and End-of-RIB. */
static void export_first(struct conn *c, unsigned int fam)
{
	struct peer *p = c->peer;

	export_fam(p, fam);
	if (p->est)
		send_eor(c, fam);
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
		plog(p, "ORF for %s ignored: not negotiated", fam_name(fam));
		return rr->when_to_refresh == ORF_WHEN_IMMEDIATE;
	}
	err = orf_list_apply(&p->orf_rx[fam], &p->n_orf_rx[fam], fam,
			     rr->orf, rr->orf_len);
	if (err == -E2BIG) {
		conn_notify(c, BGP_ERR_CEASE, BGP_CEASE_OUT_OF_RESOURCES,
			    NULL, 0, "ORF list longer than fared keeps");
		return false;
	}
	if (err)
		plog(p, "ORF for %s: %s; the whole ORF removed", fam_name(fam),
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
				export_first(c, (unsigned int)fam);
			return;
		}
		if (!p->export_done)
			return;
		plog(p, "route refresh asked for %s", fam_name(fam));
		if (c->params.enhanced_route_refresh) {
			conn_send(c, buf, bgp_route_refresh_build(buf,
				  sizeof(buf), rr.afi, rr.safi, BGP_RR_BORR));
			if (!p->est)
				return;
		}
		export_fam(p, (unsigned int)fam);
		if (p->est && c->params.enhanced_route_refresh)
			conn_send(c, buf, bgp_route_refresh_build(buf,
				  sizeof(buf), rr.afi, rr.safi, BGP_RR_EORR));
		break;
	case BGP_RR_BORR:
		if (!c->params.enhanced_route_refresh)
			break;
		/* RFC 7313 §4: not before its End-of-RIB (graceful restart). */
		if (!gr_borr_accept(c->open.caps.graceful_restart, p->eor_rx,
				    (unsigned int)fam)) {
			plog(p, "BoRR for %s before its End-of-RIB: ignored",
			     fam_name((unsigned int)fam));
			break;
		}
		/* RFC 7313 §4.2: what is not re-sent before EoRR goes. */
		rib_peer_mark_stale(p->d->rib, p->index, BGP_FAM_BIT(fam));
		p->stale_families |= BGP_FAM_BIT(fam);
		p->rr_families |= BGP_FAM_BIT(fam);
		timer_set(&p->d->loop, &p->rr_stale,
			  p->d->cfg.gr_stale_time * 1000ull);
		break;
	case BGP_RR_EORR:
		if (c->params.enhanced_route_refresh)
			sweep(p, BGP_FAM_BIT(fam), "enhanced route refresh");
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
	c->wlen = 0;
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
	timer_init(&p->gr_restart, gr_restart_expired, p);
	timer_init(&p->gr_stale, gr_stale_expired, p);
	timer_init(&p->deferral, deferral_expired, p);
	timer_init(&p->rr_stale, rr_stale_expired, p);
	timer_init(&p->max_prefix_restart, max_prefix_restart_expired, p);
	return p;
}

void peer_start(struct peer *p)
{
	if (p->nb->passive)
		return;
	/* A short random delay spreads out the first connections. */
	timer_set(&p->d->loop, &p->connect_retry, (uint64_t)(random() % 500));
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
	timer_stop(l, &p->gr_restart);
	timer_stop(l, &p->gr_stale);
	timer_stop(l, &p->deferral);
	timer_stop(l, &p->rr_stale);
	timer_stop(l, &p->max_prefix_restart);
	rib_peer_flush(p->d->rib, p->index, BGP_FAM_BIT(BGP_FAM_COUNT) - 1);
	event_down(p, true);
	for (i = 0; i < BGP_FAM_COUNT; i++)
		free(p->orf_rx[i]);
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
		n += p->n_orf_rx[fam] * sizeof(*p->orf_rx[fam]);
	return n + rib_peer_bytes(p->d->rib, p->index);
}

size_t peer_send_queue(const struct peer *p)
{
	return p->est ? p->est->wlen : 0;
}
