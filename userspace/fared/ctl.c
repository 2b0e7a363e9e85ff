// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket. Each client sends one line and gets its answer,
 * written without blocking the loop. Who may ask what is the socket's
 * and the peer's credentials' business (ctl.h). A whole-RIB "routes"
 * answer is made in slices, one each time the client has taken the last
 * (dump_slice()): between two slices the loop runs its other events,
 * so a dump of any size neither stalls BGP nor holds more than a slice per
 * client. A client that takes nothing for CTL_STALL_MS is dropped.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "adj_out.h"
#include "bfd.h"
#include "ctl.h"
#include "fare_best.h"
#include "fare_sync.h"
#include "orf_sess.h"
#include "orf_want.h"
#include "peer.h"
#include "json.h"

#define CTL_REQUEST_MAX	512
/* A client that takes no byte of its answer for this long is dropped. */
#define CTL_STALL_MS	10000
/* Clients at once; one more is closed at accept (and logged once). */
#define CTL_CLIENTS_MAX	16
/*
 * A slice of a whole-RIB answer: this many prefixes, or as many as fill
 * this many bytes (plus the last prefix's own), whichever comes first.
 * The bytes bound a client's buffer; the prefixes bound the time the loop
 * spends on one slice (a prefix's explanation walks its paths).
 */
#define CTL_SLICE_PREFIXES	1024
#define CTL_SLICE_BYTES		(256u << 10)

struct routes_ctx {
	struct fared *d;
	FILE *f;
	struct json *j;
};

/* A whole-RIB "routes" answer being made, from after prefix last on. */
struct ctl_dump {
	struct routes_ctx rc;
	struct json j;
	bool js;
	bool has_last;
	struct bgp_prefix last;
	size_t in_slice;		/* prefixes in the slice being made */
	long slice_at;			/* where it began in rc.f */
};

struct client {
	struct ctl *ctl;
	struct io io;
	struct timer timeout;
	char req[CTL_REQUEST_MAX];
	size_t req_len;
	bool writer;			/* may change fared's state (ctl.h) */
	char *out;			/* the answer, or its current slice */
	size_t out_len, out_off;
	bool dumping;			/* dump has slices still to make */
	struct ctl_dump dump;
};

static void client_free(struct client *cl)
{
	struct loop *l = &cl->ctl->d->loop;
	int fd = cl->io.fd;

	io_del(l, &cl->io);
	close(fd);
	timer_stop(l, &cl->timeout);
	cl->ctl->n_clients--;
	free(cl->out);
	free(cl);
}

static void client_timeout(struct timer *t)
{
	client_free(t->arg);
}

static void hex(FILE *f, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		fprintf(f, "%02x", b[i]);
}

/* "none", "ok", "exceeded" (warning-only) or "idle" (held down). */
static const char *max_prefix_state(const struct peer *p)
{
	if (p->max_prefix_idle)
		return "idle";
	if (!p->nb->max_prefix)
		return "none";
	return p->max_prefix_warned ? "exceeded" : "ok";
}

/* The neighbor's BFD session (bfd.h); "enabled": false without one. */
static void bfd_json(struct json *j, const struct peer *p)
{
	const struct bfd_session *s = bfd_find(p->d->bfd, p->nb->family,
					       p->nb->addr);
	struct bfd_info i;

	json_key(j, "bfd");
	json_open_object(j);
	json_kv_bool(j, "enabled", s != NULL);
	if (s) {
		bfd_session_info(s, &i);
		json_kv_string(j, "state", bfd_state_name(i.state));
		json_kv_string(j, "remote_state",
			       bfd_state_name(i.remote_state));
		json_kv_string(j, "diagnostic", bfd_diag_name(i.local_diag));
		json_kv_string(j, "remote_diagnostic",
			       bfd_diag_name(i.remote_diag));
		json_kv_u64(j, "local_discriminator", i.local_discr);
		json_kv_u64(j, "remote_discriminator", i.remote_discr);
		json_kv_u64(j, "interval_ms", p->nb->bfd_interval_ms);
		json_kv_u64(j, "multiplier", i.mult);
		json_kv_u64(j, "tx_interval_us", i.tx_us);
		json_kv_u64(j, "detection_time_us", i.detect_us);
		json_kv_bool(j, "holds_plane", i.failed);
		json_kv_u64(j, "since_ms", loop_now_ms() - i.since_ms);
		json_kv_u64(j, "ups", i.ups);
		json_kv_u64(j, "failures", i.failures);
		json_kv_u64(j, "packets_rx", i.rx);
		json_kv_u64(j, "packets_tx", i.tx);
		json_kv_u64(j, "packets_refused", i.rx_refused);
	}
	json_close_object(j);
}

static void neighbor_json(struct json *j, const struct peer *p)
{
	const struct fared_neighbor *nb = p->nb;
	uint64_t now = loop_now_ms();
	const char *fams[] = { "ipv4", "ipv6" };
	unsigned int fam;

	json_open_object(j);
	json_kv_string(j, "address", nb->addr_text);
	json_kv_u64(j, "plane", nb->plane);
	json_kv_u64(j, "remote_as", nb->remote_as);
	json_kv_string(j, "state", peer_state_name(peer_state(p)));
	json_kv_u64(j, "uptime_s", p->established_at ?
		    (now - p->established_at) / 1000 : 0);
	json_kv_u64(j, "hold_time", p->est ? p->est->params.hold_time : 0);
	json_key(j, "families");
	json_open_array(j);
	for (fam = 0; p->est && fam < BGP_FAM_COUNT; fam++)
		if (p->est->params.families & BGP_FAM_BIT(fam))
			json_string(j, fams[fam]);
	json_close_array(j);
	json_kv_bool(j, "graceful_restart", p->est &&
		     p->est->params.graceful_restart);
	json_kv_u64(j, "prefixes_received", p->prefixes_rx);
	json_kv_u64(j, "prefixes_denied", p->prefixes_denied);
	json_kv_u64(j, "paths", rib_peer_count(p->d->rib, p->index,
						BGP_FAM_BIT(BGP_FAM_COUNT) - 1));
	json_key(j, "paths_by_family");
	json_open_object(j);
	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		json_kv_u64(j, fams[fam], rib_peer_count(p->d->rib, p->index,
							 BGP_FAM_BIT(fam)));
	json_close_object(j);
	json_kv_u64(j, "memory_bytes", peer_memory(p));
	json_kv_u64(j, "send_queue_bytes", peer_send_queue(p));
	json_kv_u64(j, "routes_pending", adj_out_pending(p));
	json_kv_u64(j, "not_sent_too_large", p->too_large);
	json_key(j, "max_prefix");
	json_open_object(j);
	json_kv_u64(j, "limit", nb->max_prefix);
	json_kv_bool(j, "warning_only", nb->max_prefix_warning_only);
	json_kv_u64(j, "restart_s", nb->max_prefix_restart);
	json_kv_string(j, "state", max_prefix_state(p));
	json_kv_u64(j, "restart_in_s", p->max_prefix_restart.armed &&
		    p->max_prefix_restart.when > now ?
		    (p->max_prefix_restart.when - now + 999) / 1000 : 0);
	json_kv_u64(j, "sessions_closed", p->max_prefix_hits);
	json_close_object(j);
	json_kv_u64(j, "stale_families", p->stale_families);
	json_kv_u64(j, "flaps", p->flaps);
	json_kv_u64(j, "updates_rx", p->updates_rx);
	json_kv_u64(j, "updates_tx", p->updates_tx);
	json_kv_u64(j, "notifications_rx", p->notifications_rx);
	json_kv_u64(j, "notifications_tx", p->notifications_tx);
	json_kv_u64(j, "treat_as_withdraw", p->withdraw_7606);
	json_kv_u64(j, "attribute_discard", p->discard_7606);
	json_kv_u64(j, "rejected_no_policy", p->rejected_8212);
	json_kv_u64(j, "family_not_negotiated", p->unnegotiated);
	json_kv_u64(j, "neighbor_as_mismatch", p->neighbor_as_bad);
	json_kv_u64(j, "log_lines_suppressed", p->log_suppressed_total);
	json_kv_u64(j, "add_path_over_max_paths", p->add_path_over);
	json_kv_u64(j, "eor_received", p->eor_rx);
	json_kv_u64(j, "eor_sent", p->eor_tx);
	json_key(j, "orf");
	json_open_object(j);
	json_kv_bool(j, "sends", orf_sends(p, BGP_FAM_IPV4_UNICAST) ||
		     orf_sends(p, BGP_FAM_IPV6_UNICAST));
	json_kv_bool(j, "receives", orf_receives(p, BGP_FAM_IPV4_UNICAST) ||
		     orf_receives(p, BGP_FAM_IPV6_UNICAST));
	json_kv_u64(j, "messages_tx", p->orf_tx);
	json_kv_u64(j, "messages_rx", p->orf_rx_msgs);
	json_kv_u64(j, "entries_rx", p->n_orf_rx[BGP_FAM_IPV4_UNICAST] +
		    p->n_orf_rx[BGP_FAM_IPV6_UNICAST]);
	json_close_object(j);
	bfd_json(j, p);
	json_kv_string(j, "last_error", p->last_error);
	json_close_object(j);
}

static void neighbors(struct fared *d, FILE *f, bool js)
{
	struct json j;
	size_t i;

	if (js) {
		json_init(&j, f, false);
		json_open_array(&j);
		for (i = 0; i < d->n_peers; i++)
			neighbor_json(&j, d->peers[i]);
		json_close_array(&j);
		json_end(&j);
		return;
	}
	fprintf(f, "%-28s %5s %10s %-12s %8s %9s %9s %9s %-14s %s\n",
		"neighbor", "plane", "AS", "state", "up(s)", "received",
		"paths", "mem(KiB)", "max-prefix", "last error");
	for (i = 0; i < d->n_peers; i++) {
		const struct peer *p = d->peers[i];
		char mp[32];

		if (p->nb->max_prefix)
			snprintf(mp, sizeof(mp), "%u %s", p->nb->max_prefix,
				 max_prefix_state(p));
		else
			snprintf(mp, sizeof(mp), "-");
		fprintf(f, "%-28s %5u %10u %-12s %8llu %9llu %9zu %9zu %-14s "
			"%s\n", p->nb->addr_text, p->nb->plane,
			p->nb->remote_as, peer_state_name(peer_state(p)),
			(unsigned long long)(p->established_at ?
			(loop_now_ms() - p->established_at) / 1000 : 0),
			(unsigned long long)p->prefixes_rx,
			rib_peer_count(d->rib, p->index,
				       BGP_FAM_BIT(BGP_FAM_COUNT) - 1),
			(peer_memory(p) + 1023) / 1024, mp, p->last_error);
	}
}

static const char *peer_name(struct fared *d, unsigned int index)
{
	size_t i;

	for (i = 0; i < d->n_peers; i++)
		if (d->peers[i]->index == index)
			return d->peers[i]->nb->addr_text;
	return "?";
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/* Standard (RFC 1997) and large (RFC 8092) communities, as text. */
static void communities_text(FILE *f, const struct rib_attrs *a)
{
	size_t k;

	if (a->communities_len)
		fputs(" communities", f);
	for (k = 0; k + 4 <= a->communities_len; k += 4)
		fprintf(f, " %u:%u", get32(a->communities + k) >> 16,
			get32(a->communities + k) & 0xffff);
	if (a->large_communities_len)
		fputs(" large-communities", f);
	for (k = 0; k + 12 <= a->large_communities_len; k += 12)
		fprintf(f, " %u:%u:%u", get32(a->large_communities + k),
			get32(a->large_communities + k + 4),
			get32(a->large_communities + k + 8));
}

static void communities_json(struct json *j, const struct rib_attrs *a)
{
	char s[40];
	size_t k;

	json_key(j, "communities");
	json_open_array(j);
	for (k = 0; k + 4 <= a->communities_len; k += 4) {
		snprintf(s, sizeof(s), "%u:%u", get32(a->communities + k) >> 16,
			 get32(a->communities + k) & 0xffff);
		json_string(j, s);
	}
	json_close_array(j);
	json_key(j, "large_communities");
	json_open_array(j);
	for (k = 0; k + 12 <= a->large_communities_len; k += 12) {
		snprintf(s, sizeof(s), "%u:%u:%u",
			 get32(a->large_communities + k),
			 get32(a->large_communities + k + 4),
			 get32(a->large_communities + k + 8));
		json_string(j, s);
	}
	json_close_array(j);
}

static void nh_str(const struct rib_attrs *a, char *buf)
{
	if (a->family == BGP_FAM_IPV6_UNICAST)
		inet_ntop(AF_INET6, a->next_hop, buf, BGP_PREFIX_STRLEN);
	else
		inet_ntop(AF_INET, a->next_hop, buf, BGP_PREFIX_STRLEN);
}

/* "tier 1 LGGL (C2 transit 65000:2)", for a path's tier with tiers on. */
static void tier_text(const struct fare_tier_cfg *t,
		      const struct fare_fib_path *fp, char *buf, size_t len)
{
	char c[40];

	if (fp->tier == FARE_TIER_INTRA) {
		snprintf(buf, len, "intra-group (none of C1, C2, C3): "
			 "minimal, tier 0");
		return;
	}
	snprintf(buf, len, "tier %u %s (C%d %s %s)", fp->tier,
		 fare_tier_signature(fp->tier), fp->tier_by + 1,
		 fare_tier_comm_name(fp->tier_by),
		 fare_tier_community_str(&t->c[fp->tier_by], c, sizeof(c)));
}

/* Why path i of a prefix got its weight in fare.ko (FARE side only). */
static void fare_why(const struct fare_tier_cfg *t,
		     const struct fare_fib_path *fp, char *buf, size_t len)
{
	char why[256], tier[96] = "";

	if (t && t->enabled && fp->peer.plane) {
		tier_text(t, fp, tier, sizeof(tier) - 2);
		strcat(tier, ": ");
	}
	if (!fp->peer.plane)
		snprintf(buf, len, "no plane: not used");
	else if (fp->minimal_only)
		snprintf(buf, len, "plane %u: %sthe prefix is intra-group: "
			 "minimal only, not used", fp->peer.plane, tier);
	else if (fp->longer)
		snprintf(buf, len, "plane %u: %s%s worse than the best path's: "
			 "not equal-cost, not used", fp->peer.plane, tier,
			 fare_best_step_name(fp->longer_by));
	else if (fp->duplicate && tier[0])
		snprintf(buf, len, "plane %u: %splane %u already has a path "
			 "of this or a better tier: not used", fp->peer.plane,
			 tier, fp->peer.plane);
	else if (fp->duplicate)
		snprintf(buf, len, "plane %u: plane %u already has a path: "
			 "not used", fp->peer.plane, fp->peer.plane);
	else
		snprintf(buf, len, "plane %u: %s%s", fp->peer.plane, tier,
			 fare_explain(&fp->out, why, sizeof(why)));
}

static void fare_json(struct json *j, const struct fare_tier_cfg *t,
		      const struct fare_fib_path *fp)
{
	char why[420], c[40];

	json_key(j, "fare");
	json_open_object(j);
	json_kv_u64(j, "plane", fp->peer.plane);
	json_kv_bool(j, "duplicate", fp->duplicate);
	json_kv_bool(j, "longer", fp->longer);
	json_kv_string(j, "not_equal_cost_by", fp->longer ?
		       fare_best_step_name(fp->longer_by) : "");
	if (t && t->enabled) {
		bool intra = fp->tier == FARE_TIER_INTRA;

		json_kv_u64(j, "tier", intra ? 0 : fp->tier);
		json_kv_bool(j, "intra_group", intra);
		json_kv_string(j, "signature", fare_tier_signature(fp->tier));
		json_kv_string(j, "tier_community", intra ? "" :
			       fare_tier_community_str(&t->c[fp->tier_by], c,
						       sizeof(c)));
		json_kv_bool(j, "minimal_only", fp->minimal_only);
	}
	if (fare_fib_weighed(fp)) {
		json_kv_u64(j, "weight", fp->out.weight);
		json_kv_string(j, "rule", fare_rule_text(fp->out.rule));
		json_kv_bool(j, "non_transitive", fp->out.used_nt);
		json_kv_string(j, "bw_source",
			       fp->out.origin == FARE_BW_PB ? "pb" :
			       fp->out.origin == FARE_BW_LB ? "lb" : "none");
		if (fp->out.origin != FARE_BW_NONE)
			json_kv_u64(j, "pb_bps", fp->out.pb_bps);
		if (fp->out.link_bps != FARE_BW_INF)
			json_kv_u64(j, "link_bps", fp->out.link_bps);
		/* One node's parallel links (fare_policy.h). */
		json_kv_u64(j, "node_paths", fp->out.node_paths);
		if (fp->out.node_paths) {
			if (fp->out.node_links_bps != FARE_BW_INF)
				json_kv_u64(j, "node_links_bps",
					    fp->out.node_links_bps);
			if (fp->out.node_bw_bps != FARE_BW_INF)
				json_kv_u64(j, "node_bw_bps",
					    fp->out.node_bw_bps);
			json_kv_string(j, "node_split",
				       fp->out.node_split == FARE_SPLIT_EVEN ?
				       "even" : "link");
		}
		if (fp->out.bw_bps != FARE_BW_INF &&
		    fp->out.origin != FARE_BW_NONE)
			json_kv_u64(j, "bw_bps", fp->out.bw_bps);
	}
	fare_why(t, fp, why, sizeof(why));
	json_kv_string(j, "explain", why);
	json_close_object(j);
}

static uint64_t adv_bps(uint16_t pb)
{
	uint64_t bps = 0;

	fare_pb_to_bps(pb, &bps);
	return bps;
}

/*
 * A host prefix with UPA paths (mpson-00 §4.1) is not forwarded by them:
 * it follows its covering aggregate minus the planes that reported it.
 */
static void upa_text(FILE *f, const struct fare_upa_info *ui,
		     const struct fare_route *want, bool unreachable)
{
	char nh[FARE_FIB_NEXTHOPS_STRLEN];
	unsigned int p;

	fputs("  fare: unreachable via plane", f);
	for (p = 1; p <= FARE_PLANE_ID_MAX; p++)
		if (ui->plane[p])
			fprintf(f, " %u", p);
	if (unreachable) {
		fputs(" (UPA): no plane left, dropped by an unreachable "
		      "kernel route\n", f);
		return;
	}
	if (ui->n_plain) {
		fputs(" (UPA), ignored: the prefix has paths of its own\n", f);
		return;
	}
	fprintf(f, " (UPA): the covering aggregate's other planes %s\n",
		fare_fib_nexthops_str(want, nh, sizeof(nh)));
}

static void upa_json(struct json *j, const struct fare_upa_info *ui,
		     const struct fare_route *want, bool unreachable)
{
	unsigned int p, i;

	json_key(j, "upa_planes");
	json_open_array(j);
	for (p = 1; p <= FARE_PLANE_ID_MAX; p++)
		if (ui->plane[p])
			json_u64(j, p);
	json_close_array(j);
	json_kv_bool(j, "unreachable", unreachable);
	if (ui->n_plain || unreachable)
		return;
	json_key(j, "upa_nexthops");
	json_open_array(j);
	for (i = 0; i < want->n_nexthops; i++) {
		json_open_object(j);
		json_kv_u64(j, "plane", want->nexthops[i].plane_id);
		json_kv_u64(j, "weight", want->nexthops[i].weight);
		json_close_object(j);
	}
	json_close_array(j);
}

/* What fare.ko gets for the prefix; with tiers, whether intra-group. */
static void nexthops_json(struct json *j, const struct fare_fib_result *fr,
			  const struct fare_route *want)
{
	unsigned int i;

	json_kv_bool(j, "tiers", fr->tiers);
	if (fr->tiers)
		json_kv_bool(j, "intra_group", fr->intra);
	json_key(j, "nexthops");
	json_open_array(j);
	for (i = 0; i < want->n_nexthops; i++) {
		json_open_object(j);
		json_kv_u64(j, "plane", want->nexthops[i].plane_id);
		json_kv_u64(j, "weight", want->nexthops[i].weight);
		json_kv_u64(j, "tier", want->nexthops[i].tier);
		json_kv_u64(j, "bandwidth", want->nexthops[i].bandwidth);
		json_close_object(j);
	}
	json_close_array(j);
}

/*
 * Route-table suppression (suppress.h): "suppressed (FIB-Suppress
 * AS:id)" and the like, and what a leaf sends for an RNIC's host route.
 */
static void suppress_explain(struct routes_ctx *rc, const struct rib_entry *e)
{
	struct fare_fs why = { 0 };
	enum fare_fs_verdict v = fare_sync_fs(rc->d, e, &why);
	enum fare_leaf_adv la = adj_out_scope(rc->d->out, &e->prefix);
	char text[160], id[INET_ADDRSTRLEN];
	struct in_addr a = { .s_addr = htonl(why.router_id) };

	if (v != FARE_FS_NONE) {
		inet_ntop(AF_INET, &a, id, sizeof(id));
		snprintf(text, sizeof(text), "%s (FIB-Suppress %u:%s)",
			 fare_fs_verdict_text(v), why.as, id);
		if (rc->j) {
			json_kv_string(rc->j, "fib_suppress", text);
			json_kv_bool(rc->j, "suppressed",
				     v == FARE_FS_SUPPRESS);
		} else {
			fprintf(rc->f, "  fare: %s\n", text);
		}
	}
	if (la == FARE_LEAF_PASS)
		return;
	if (rc->j)
		json_kv_string(rc->j, "leaf", fare_leaf_adv_text(la));
	else
		fprintf(rc->f, "  fare: %s\n", fare_leaf_adv_text(la));
}

/* The UPA routes a leaf originates (they are in no RIB entry). */
static void upa_routes(struct routes_ctx *rc, const struct bgp_prefix *only)
{
	struct adj_upa *v;
	char pfx[BGP_PREFIX_STRLEN], agg[BGP_PREFIX_STRLEN];
	size_t i, n = adj_out_upa_routes(rc->d->out, NULL, 0);

	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return;
	n = adj_out_upa_routes(rc->d->out, v, n);
	for (i = 0; i < n; i++) {
		if (only && (only->family != v[i].prefix.family ||
			     only->len != v[i].prefix.len ||
			     memcmp(only->addr, v[i].prefix.addr, 16)))
			continue;
		bgp_prefix_str(&v[i].prefix, pfx, sizeof(pfx));
		bgp_prefix_str(&v[i].aggregate, agg, sizeof(agg));
		if (!rc->j) {
			fprintf(rc->f, "%-24s originated UPA%s under %s%s\n",
				pfx, v[i].drop ? " (D)" : "", agg,
				v[i].sent ? "" : ", not sent yet");
			continue;
		}
		json_open_object(rc->j);
		json_kv_string(rc->j, "prefix", pfx);
		json_key(rc->j, "paths");
		json_open_array(rc->j);
		json_close_array(rc->j);
		json_key(rc->j, "originated_upa");
		json_open_object(rc->j);
		json_kv_string(rc->j, "aggregate", agg);
		json_kv_bool(rc->j, "drop", v[i].drop);
		json_kv_bool(rc->j, "sent", v[i].sent);
		json_close_object(rc->j);
		json_close_object(rc->j);
	}
	free(v);
}

/* What fared programs for a prefix and why (fare_sync_explain()). */
struct route_why {
	struct fare_fib_path *fp;	/* per path; NULL: no FARE */
	const struct fare_tier_cfg *tiers;
	struct fare_fib_result fr;
	struct fare_route *want;
	struct fare_upa_info ui;
	bool unreachable;
};

static const char *mode_text(uint8_t mode, const char *dflt)
{
	return mode == FARE_MODE_PACKET ? "packet" :
	       mode == FARE_MODE_FLOW ? "flow" :
	       mode == FARE_MODE_FLOWLET ? "flowlet" : dflt;
}

/* Path i of e as a line of text, with its FARE fate. */
static void path_text(struct routes_ctx *rc, const struct rib_entry *e,
		      size_t i, const char *pfx, const struct route_why *w)
{
	const struct rib_path *pa = &e->paths[i];
	const struct rib_attrs *a = pa->attrs;
	char nh[BGP_PREFIX_STRLEN], why[420];

	nh_str(a, nh);
	fprintf(rc->f, "%-24s via %-26s from %s path-id %u as-path [%s]%s",
		pfx, nh, peer_name(rc->d, pa->peer), pa->path_id,
		a->as_path_text ? a->as_path_text : "",
		pa->stale ? " stale" : "");
	communities_text(rc->f, a);
	if (a->ext_communities_len) {
		fputs(" ext-communities ", rc->f);
		hex(rc->f, a->ext_communities, a->ext_communities_len);
	}
	fputc('\n', rc->f);
	if (w->fp) {
		fare_why(w->tiers, &w->fp[i], why, sizeof(why));
		fprintf(rc->f, "  fare: %s\n", why);
	}
}

/* Path i of e as a JSON object, with its FARE fate. */
static void path_json(struct routes_ctx *rc, const struct rib_entry *e,
		      size_t i, const struct route_why *w)
{
	const struct rib_path *pa = &e->paths[i];
	const struct rib_attrs *a = pa->attrs;
	char nh[BGP_PREFIX_STRLEN];

	nh_str(a, nh);
	json_open_object(rc->j);
	json_kv_string(rc->j, "neighbor", peer_name(rc->d, pa->peer));
	json_kv_u64(rc->j, "path_id", pa->path_id);
	json_kv_string(rc->j, "next_hop", nh);
	json_kv_string(rc->j, "as_path", a->as_path_text ?
		       a->as_path_text : "");
	json_kv_u64(rc->j, "origin", a->origin);
	if (a->has_med)
		json_kv_u64(rc->j, "med", a->med);
	if (a->has_local_pref)
		json_kv_u64(rc->j, "local_pref", a->local_pref);
	json_kv_bool(rc->j, "stale", pa->stale);
	json_key(rc->j, "ext_communities");
	json_open_array(rc->j);
	for (size_t k = 0; k + 8 <= a->ext_communities_len; k += 8) {
		char s[17];

		for (int b = 0; b < 8; b++)
			snprintf(s + 2 * b, 3, "%02x",
				 a->ext_communities[k + b]);
		json_string(rc->j, s);
	}
	json_close_array(rc->j);
	communities_json(rc->j, a);
	if (w->fp)
		fare_json(rc->j, w->tiers, &w->fp[i]);
	json_close_object(rc->j);
}

/* The route fared programs for e, after its paths, in JSON. */
static void want_json(struct routes_ctx *rc, const struct rib_entry *e,
		      const struct route_why *w)
{
	const struct fare_result *res = &w->fr.res;

	json_kv_bool(rc->j, "weighted", res->weighted);
	json_kv_string(rc->j, "role", fare_role_name(w->fr.role));
	json_kv_string(rc->j, "advertise", fare_adv_rule_text(res->adv_rule));
	if (res->adv_t)
		json_kv_u64(rc->j, "advertise_pb_bps",
			    adv_bps(res->adv_t_value));
	if (res->adv_nt)
		json_kv_u64(rc->j, "advertise_nt_pb_bps",
			    adv_bps(res->adv_nt_value));
	json_kv_string(rc->j, "mode", mode_text(w->want->mode, "default"));
	json_kv_string(rc->j, "tcp_mode",
		       mode_text(w->want->tcp_mode, "default"));
	if (w->ui.n_upa)
		upa_json(rc->j, &w->ui, w->want, w->unreachable);
	suppress_explain(rc, e);
	nexthops_json(rc->j, &w->fr, w->want);
}

/* The route fared programs for e, after its paths, as text. */
static void want_text(struct routes_ctx *rc, const struct rib_entry *e,
		      const struct route_why *w)
{
	const struct fare_result *res = &w->fr.res;
	char nhs[FARE_FIB_NEXTHOPS_STRLEN];

	fprintf(rc->f, "  fare: %s: %s, %s, mode %s%s%s\n",
		fare_role_name(w->fr.role), res->weighted ?
		"weighted by path bandwidth" : "equal weights (ECMP)",
		fare_adv_rule_text(res->adv_rule),
		mode_text(w->want->mode, "namespace default"),
		w->want->tcp_mode ? ", tcp " : "",
		w->want->tcp_mode ? mode_text(w->want->tcp_mode, "") : "");
	if (w->ui.n_upa)
		upa_text(rc->f, &w->ui, w->want, w->unreachable);
	suppress_explain(rc, e);
	if (w->fr.tiers)
		fprintf(rc->f, "  fare: dragonfly tiers%s: "
			"plane:weight[/tier] %s\n", w->fr.intra ?
			", intra-group: minimal only" : "",
			fare_fib_nexthops_str(w->want, nhs, sizeof(nhs)));
}

static int route_one(const struct rib_entry *e, void *arg)
{
	struct routes_ctx *rc = arg;
	static struct fare_route want;
	struct route_why w = {
		.tiers = rc->d->fare ? &rc->d->fare->cfg.tiers : NULL,
		.want = &want,
		.ui = { .n_upa = 0 },
	};
	char pfx[BGP_PREFIX_STRLEN];
	size_t i;

	bgp_prefix_str(&e->prefix, pfx, sizeof(pfx));
	if (rc->d->fare) {
		w.fp = calloc(e->n_paths, sizeof(*w.fp));
		if (w.fp)
			fare_sync_explain(rc->d, e, w.fp, &w.fr, &want, &w.ui,
					  &w.unreachable);
	}
	if (rc->j) {
		json_open_object(rc->j);
		json_kv_string(rc->j, "prefix", pfx);
		json_key(rc->j, "paths");
		json_open_array(rc->j);
	}
	for (i = 0; i < e->n_paths; i++)
		if (rc->j)
			path_json(rc, e, i, &w);
		else
			path_text(rc, e, i, pfx, &w);
	if (rc->j) {
		json_close_array(rc->j);
		if (w.fp)
			want_json(rc, e, &w);
		json_close_object(rc->j);
	} else if (w.fp) {
		want_text(rc, e, &w);
	}
	free(w.fp);
	return 0;
}

/* "orf [json]", "orf add PREFIX", "orf del PREFIX": see orf_sess.h. */
static int orf_request(struct fared *d, FILE *f, char **words, int n,
		       bool js)
{
	struct bgp_prefix pfx;
	struct json j;
	char text[64];
	size_t i;
	int err;

	if (n == 3 && (!strcmp(words[1], "add") || !strcmp(words[1], "del"))) {
		if (bgp_prefix_parse(words[2], &pfx)) {
			fprintf(f, "error: bad prefix \"%s\"\n", words[2]);
			return -1;
		}
		err = words[1][0] == 'a' ? orf_want_add(d, &pfx) :
		      orf_want_del(d, &pfx);
		if (err) {
			fprintf(f, "error: %s %s\n", words[2],
				err == -EEXIST ? "is already wanted" :
				err == -ENOENT ? "is not wanted" :
				"out of memory");
			return -1;
		}
		/* A host never suppresses what it asks for (suppress.h). */
		fare_sync_reweigh_all(d);
		fprintf(f, "ok\n");
		return 0;
	}
	if (n != 1 + js)
		return 1;
	if (js) {
		json_init(&j, f, false);
		json_open_array(&j);
	}
	for (i = 0; i < d->n_orf_want; i++) {
		bgp_prefix_str(&d->orf_want[i], text, sizeof(text));
		if (js)
			json_string(&j, text);
		else
			fprintf(f, "%s\n", text);
	}
	if (js) {
		json_close_array(&j);
		json_end(&j);
	}
	return 0;
}

/* "clear ADDRESS": ends a max-prefix Idle. */
static int clear_neighbor(struct fared *d, FILE *f, const char *addr)
{
	size_t i;

	for (i = 0; i < d->n_peers; i++) {
		struct peer *p = d->peers[i];

		if (strcmp(p->nb->addr_text, addr))
			continue;
		if (peer_clear_idle(p))
			fprintf(f, "neighbor %s: max-prefix Idle cleared, "
				"connecting again\n", addr);
		else
			fprintf(f, "neighbor %s: not held Idle; nothing to "
				"clear\n", addr);
		return 0;
	}
	fprintf(f, "error: no neighbor %s\n", addr);
	return -1;
}

/* The FARE side's counters: how far fare.ko is programmed. */
static void fare_stats(struct fared *d, FILE *f, bool js)
{
	const struct fare_sync *fs = d->fare;
	struct json j;
	size_t routes = fs ? fare_fib_count(fs->fib) : 0;
	/* Changes not drained yet count: they are still to be programmed. */
	size_t pending = fs ? fare_fib_pending(fs->fib) +
			      rib_pending(d->rib) : 0;

	if (!js) {
		if (!fs) {
			fputs("fare: no role\n", f);
			return;
		}
		fprintf(f, "fare: role %s, fare.ko %s, %zu routes programmed, "
			"%zu pending, %llu batches, %llu ops, %llu refused\n",
			fare_role_name(d->cfg.role),
			fs->nl ? "in use" : "absent", routes, pending,
			(unsigned long long)fs->batches,
			(unsigned long long)fs->ops,
			(unsigned long long)fs->failed);
		return;
	}
	json_init(&j, f, false);
	json_open_object(&j);
	json_kv_bool(&j, "enabled", fs);
	if (fs) {
		json_kv_string(&j, "role", fare_role_name(d->cfg.role));
		json_kv_bool(&j, "fare_ko", fs->nl);
		json_kv_u64(&j, "routes", routes);
		json_kv_u64(&j, "pending", pending);
		json_kv_u64(&j, "batches", fs->batches);
		json_kv_u64(&j, "ops", fs->ops);
		json_kv_u64(&j, "refused", fs->failed);
		json_kv_u64(&j, "resyncs", fs->resyncs);
	}
	json_close_object(&j);
	json_end(&j);
}

/* The order of rib_walk(): family, then address, then length. */
static int prefix_cmp(const struct bgp_prefix *a, const struct bgp_prefix *b)
{
	int c;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	c = memcmp(a->addr, b->addr, sizeof(a->addr));
	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

static int dump_one(const struct rib_entry *e, void *arg)
{
	struct ctl_dump *dp = arg;

	/* Made by an earlier slice (or new before the cursor: missed). */
	if (dp->has_last && prefix_cmp(&e->prefix, &dp->last) <= 0)
		return 0;
	route_one(e, &dp->rc);
	dp->last = e->prefix;
	dp->has_last = true;
	return ++dp->in_slice >= CTL_SLICE_PREFIXES ||
	       ftell(dp->rc.f) - dp->slice_at >= (long)CTL_SLICE_BYTES;
}

static void dump_start(struct ctl_dump *dp, struct fared *d, bool js)
{
	memset(dp, 0, sizeof(*dp));
	dp->rc.d = d;
	dp->js = js;
}

/*
 * The next slice of dp's answer into f; true when that was the last. The
 * RIB may change between slices: each prefix is shown as it is when its
 * slice is made, and one added behind the cursor meanwhile is not shown
 * (as if it came after the answer).
 */
static bool dump_slice(struct ctl_dump *dp, FILE *f)
{
	bool first = !dp->has_last && !dp->in_slice && !dp->rc.f;

	dp->rc.f = f;
	dp->j.out = f;
	dp->rc.j = dp->js ? &dp->j : NULL;
	if (first && dp->js) {
		json_init(&dp->j, f, false);
		json_open_array(&dp->j);
	}
	dp->in_slice = 0;
	dp->slice_at = ftell(f);
	if (rib_walk(dp->rc.d->rib, dump_one, dp))
		return false;
	upa_routes(&dp->rc, NULL);
	if (dp->js) {
		json_close_array(&dp->j);
		json_end(&dp->j);
	}
	return true;
}

/* The requests that change fared's state (ctl.h): for writers only. */
static bool changes_state(char **words, int n)
{
	return !strcmp(words[0], "clear") ||
	       (!strcmp(words[0], "orf") && n == 3 &&
		(!strcmp(words[1], "add") || !strcmp(words[1], "del")));
}

/*
 * One request line into f; 0, or -1 if refused. A whole-RIB "routes" is
 * left to dump (its slices to come) when dump is not NULL, made whole
 * here otherwise.
 */
static int answer(struct fared *d, const char *request, FILE *f,
		  bool writer, struct ctl_dump *dump, bool *dumping)
{
	char buf[CTL_REQUEST_MAX], *words[4], *save = NULL, *w;
	struct routes_ctx rc = { .d = d, .f = f };
	struct ctl_dump whole;
	struct bgp_prefix pfx;
	struct json j;
	bool js = false;
	int n = 0, i;

	snprintf(buf, sizeof(buf), "%s", request);
	for (w = strtok_r(buf, " \t\r\n", &save); w && n < 4;
	     w = strtok_r(NULL, " \t\r\n", &save))
		words[n++] = w;
	if (w || n == 0)
		goto bad;
	for (i = 1; i < n; i++)
		if (!strcmp(words[i], "json"))
			js = true;
	if (!writer && changes_state(words, n)) {
		fprintf(f, "error: permission denied: \"%s\" changes fared's "
			"state, which only root and fared's own user (uid "
			"%u) may do\n", words[0], (unsigned int)geteuid());
		return -1;
	}
	if (!strcmp(words[0], "neighbors") && n == 1 + js) {
		neighbors(d, f, js);
		return 0;
	}
	if (!strcmp(words[0], "clear") && n == 2 && !js)
		return clear_neighbor(d, f, words[1]);
	if (!strcmp(words[0], "fare") && n == 1 + js) {
		fare_stats(d, f, js);
		return 0;
	}
	if (!strcmp(words[0], "orf")) {
		int r = orf_request(d, f, words, n, js);

		if (r <= 0)
			return r;
		goto bad;
	}
	if (strcmp(words[0], "routes") || n > 2 + js)
		goto bad;
	if (n == 1 + js) {
		if (dump) {
			dump_start(dump, d, js);
			*dumping = true;
			return 0;
		}
		dump_start(&whole, d, js);
		while (!dump_slice(&whole, f))
			;
		return 0;
	}
	if (bgp_prefix_parse(words[n - 1], &pfx)) {
		fprintf(f, "error: bad prefix \"%s\"\n", words[n - 1]);
		return -1;
	}
	if (js) {
		json_init(&j, f, false);
		rc.j = &j;
		json_open_array(&j);
	}
	{
		const struct rib_entry *e = rib_lookup(d->rib, &pfx);

		if (e && e->n_paths)
			route_one(e, &rc);
		else
			upa_routes(&rc, &pfx);
	}
	if (js) {
		json_close_array(&j);
		json_end(&j);
	}
	return 0;
bad:
	fprintf(f, "error: unknown request; try \"neighbors [json]\", "
		"\"routes [json] [PREFIX]\" or \"clear NEIGHBOR\"\n");
	return -1;
}

int ctl_answer(struct fared *d, const char *request, FILE *f)
{
	return answer(d, request, f, true, NULL, NULL);
}

/* Sets cl->out to what comes next: the next slice of its dump. */
static int client_next_slice(struct client *cl)
{
	FILE *f;

	free(cl->out);
	cl->out = NULL;
	cl->out_len = cl->out_off = 0;
	f = open_memstream(&cl->out, &cl->out_len);
	if (!f)
		return -1;
	if (dump_slice(&cl->dump, f))
		cl->dumping = false;
	return fclose(f) ? -1 : 0;
}

/* Sends what it can of the answer; false when the client is gone. */
static bool client_send(struct client *cl)
{
	struct loop *l = &cl->ctl->d->loop;
	ssize_t n;

	/* One slice per call: the loop runs other events between two. */
	if (cl->out_off == cl->out_len && cl->dumping &&
	    client_next_slice(cl)) {
		client_free(cl);
		return false;
	}
	if (cl->out_off == cl->out_len) {
		client_free(cl);
		return false;
	}
	n = send(cl->io.fd, cl->out + cl->out_off, cl->out_len - cl->out_off,
		 MSG_NOSIGNAL);
	if (n < 0 && errno == EAGAIN)
		return true;
	if (n <= 0) {
		client_free(cl);
		return false;
	}
	cl->out_off += (size_t)n;
	/* Only a client that takes nothing at all is dropped. */
	timer_set(l, &cl->timeout, CTL_STALL_MS);
	if (cl->out_off == cl->out_len && !cl->dumping) {
		client_free(cl);
		return false;
	}
	return true;
}

static void client_ready(struct io *io, uint32_t events)
{
	struct client *cl = io->arg;
	struct loop *l = &cl->ctl->d->loop;
	char *nl;
	ssize_t n;
	FILE *f;

	if (cl->out || cl->dumping) {
		client_send(cl);
		return;
	}
	if (!(events & EPOLLIN))
		return;
	n = recv(io->fd, cl->req + cl->req_len,
		 sizeof(cl->req) - 1 - cl->req_len, 0);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {
		client_free(cl);
		return;
	}
	cl->req_len += (size_t)n;
	cl->req[cl->req_len] = '\0';
	nl = strchr(cl->req, '\n');
	if (!nl && cl->req_len < sizeof(cl->req) - 1)
		return;
	if (nl)
		*nl = '\0';
	f = open_memstream(&cl->out, &cl->out_len);
	if (!f) {
		client_free(cl);
		return;
	}
	answer(cl->ctl->d, cl->req, f, cl->writer, &cl->dump, &cl->dumping);
	fclose(f);
	if (!cl->out_len && !cl->dumping) {
		client_free(cl);
		return;
	}
	shutdown(io->fd, SHUT_RD);
	io_set(l, io, EPOLLOUT);
}

/* Root and fared's own user may change its state; others may look. */
static bool peer_writes(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return false;
	return cred.uid == 0 || cred.uid == geteuid();
}

static void ctl_accept(struct io *io, uint32_t events)
{
	struct ctl *ctl = io->arg;
	struct client *cl;
	int fd;

	(void)events;
	fd = accept4(io->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (ctl->n_clients >= CTL_CLIENTS_MAX) {
		if (!ctl->refused++)
			fared_log("control socket: %d clients at once; closing "
				  "the next ones", CTL_CLIENTS_MAX);
		close(fd);
		return;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		close(fd);
		return;
	}
	cl->ctl = ctl;
	cl->writer = peer_writes(fd);
	timer_init(&cl->timeout, client_timeout, cl);
	if (io_add(&ctl->d->loop, &cl->io, fd, EPOLLIN, client_ready, cl)) {
		close(fd);
		free(cl);
		return;
	}
	ctl->n_clients++;
	timer_set(&ctl->d->loop, &cl->timeout, CTL_STALL_MS);
}

/*
 * Whether path may be bound: it must not exist, or be a socket nobody
 * answers on (a dead fared's). Anything else is refused, and left alone.
 */
static int path_free(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, err;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		err = -errno;
		fared_log("control socket %s: %s", path, strerror(-err));
		return err;
	}
	if (!S_ISSOCK(st.st_mode)) {
		fared_log("control socket %s: exists and is not a socket; "
			  "not replacing it (remove it, or name another path "
			  "with control-socket)", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A listener answers (or is busy: EAGAIN); a dead one refuses. */
	err = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ? errno : 0;
	close(fd);
	if (!err || err == EAGAIN) {
		fared_log("control socket %s: another fared answers there; "
			  "not replacing it (one fared per control-socket)",
			  path);
		return -EADDRINUSE;
	}
	if (err != ECONNREFUSED) {
		fared_log("control socket %s: probing it: %s", path,
			  strerror(err));
		return -err;
	}
	/* A stale socket of a dead fared would block the bind. */
	if (unlink(path) && errno != ENOENT) {
		err = -errno;
		fared_log("control socket %s: removing the stale socket: %s",
			  path, strerror(-err));
		return err;
	}
	return 0;
}

int ctl_open(struct ctl *ctl, struct fared *d, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t mask;
	int fd, err;

	ctl->d = d;
	ctl->io.fd = -1;
	ctl->n_clients = 0;
	ctl->refused = 0;
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	err = path_free(path, &sa);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	/* 0660 from the start: never a moment open to others. */
	mask = umask(0117);
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(mask);
	if (err)
		goto fail;
	if (d->cfg.control_gid >= 0 &&
	    chown(path, (uid_t)-1, (gid_t)d->cfg.control_gid)) {
		err = -errno;
		fared_log("control socket %s: control-group %s: %s (fared "
			  "must be a member, or start as root)", path,
			  d->cfg.control_group, strerror(-err));
		unlink(path);
		close(fd);
		return err;
	}
	if (listen(fd, 16) ||
	    io_add(&d->loop, &ctl->io, fd, EPOLLIN, ctl_accept, ctl)) {
		err = -errno;
		unlink(path);
		goto fail;
	}
	return 0;
fail:
	fared_log("control socket %s: %s", path, strerror(-err));
	if (fd >= 0)
		close(fd);
	return err;
}

void ctl_close(struct ctl *ctl)
{
	int fd = ctl->io.fd;

	if (fd < 0)
		return;
	io_del(&ctl->d->loop, &ctl->io);
	close(fd);
	unlink(ctl->path);
}
