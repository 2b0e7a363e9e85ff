// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sending (peer_int.h): UPDATEs built from what the Adj-RIB-Out asks for
 * (announce, withdraw, as many prefixes per message as fit), End-of-RIB,
 * the exports a session's events start, and ORF lists to a leaf.
 */
#include <ifaddrs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fared.h"
#include "orf_sess.h"
#include "peer.h"
#include "peer_int.h"

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

void peer_send_eor(struct conn *c, unsigned int fam)
{
	uint8_t buf[64];

	conn_send(c, buf, bgp_eor_build(buf, sizeof(buf), fam));
	c->peer->eor_tx |= BGP_FAM_BIT(fam);
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
	struct bgp_codec_opts o = conn_codec_opts(c);

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
 * Withdraws the n prefixes pfx (one family) on c, as many per UPDATE as
 * fit; false when the session went.
 */
static bool withdraw_run(struct conn *c, const struct bgp_prefix *pfx,
			 size_t n)
{
	struct bgp_codec_opts o = conn_codec_opts(c);
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
		/*
		 * Not the peer's fault: the route alone is not sent, and an
		 * older version the peer may hold is withdrawn (RFC 8654 §4).
		 */
		p->too_large++;
		plog(p, "%s not advertised: its UPDATE would exceed the "
		     "session's %zu-byte message size; withdrawn",
		     bgp_prefix_str(pfx, text, sizeof(text)),
		     conn_codec_opts(c).max_len);
		return withdraw_run(c, pfx, 1);
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
		     peer_fam_name(pfx->family),
		     bgp_prefix_str(pfx, text, sizeof(text)));
		return false;
	}
	out.origin = r->origin;
	out.path_packed = true;
	out.packed_path = r->path;
	out.packed_path_len = r->path_len;
	if (!peer_is_ibgp(p)) {
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

/*
 * The Adj-RIB-Out's routes of fam to p: originated, then passed on; the
 * markers due (eor_due, eorr_due) follow them (peer_fam_sent()).
 */
void peer_export_fam(struct peer *p, unsigned int fam, bool resend)
{
	if (p->d->hooks && p->d->hooks->export)
		p->d->hooks->export(p, fam, resend);
	else
		peer_fam_sent(p, fam);
}

void peer_fam_sent(struct peer *p, unsigned int fam)
{
	uint32_t bit = BGP_FAM_BIT(fam);
	uint8_t buf[64];

	if (!p->est)
		return;
	if (p->eorr_due & bit) {
		p->eorr_due &= ~bit;
		conn_send(p->est, buf, bgp_route_refresh_build(buf,
			  sizeof(buf), bgp_family_afi(fam),
			  bgp_family_safi(fam), BGP_RR_EORR));
	}
	if (p->est && (p->eor_due & bit)) {
		p->eor_due &= ~bit;
		peer_send_eor(p->est, fam);
	}
}

/* The initial export, then End-of-RIB per family (RFC 4724 §2). */
void peer_initial_export(struct peer *p)
{
	struct conn *c = p->est;
	unsigned int fam;

	timer_stop(&p->d->loop, &p->deferral);
	for (fam = 0; c && fam < BGP_FAM_COUNT; fam++) {
		if (!(c->params.families & BGP_FAM_BIT(fam)) ||
		    (p->orf_wait & BGP_FAM_BIT(fam)))
			continue;
		p->eor_due |= BGP_FAM_BIT(fam);
		peer_export_fam(p, fam, false);
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
			peer_export_fam(p, fam, false);
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

/* A family held back for ORF: its first export and End-of-RIB. */
void peer_export_first(struct conn *c, unsigned int fam)
{
	struct peer *p = c->peer;

	p->eor_due |= BGP_FAM_BIT(fam);
	peer_export_fam(p, fam, false);
}
