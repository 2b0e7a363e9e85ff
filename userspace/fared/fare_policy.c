// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FARE policy (see fare_policy.h for the rules and their sources).
 */
#include <stdio.h>
#include <string.h>

#include "fare_policy.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > FARE_BW_INF - b ? FARE_BW_INF : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t n)
{
	return a == FARE_BW_INF || (n && a > FARE_BW_INF / n) ? FARE_BW_INF
							      : a * n;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The weights of n bandwidths found every bstride bytes from bw, written
 * every wstride bytes from w: the callers keep them in plain arrays or in
 * struct fare_path_out.
 */
static void scale(const uint64_t *bw, size_t bstride, uint32_t *w,
		  size_t wstride, size_t n)
{
#define BW(i)	(*(const uint64_t *)((const char *)bw + (i) * bstride))
#define W(i)	(*(uint32_t *)((char *)w + (i) * wstride))
	uint64_t g = 0, max = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!BW(i))
			continue;
		g = gcd(BW(i), g);
		if (BW(i) > max)
			max = BW(i);
	}
	for (i = 0; i < n; i++) {
		unsigned __int128 x;

		if (!BW(i)) {
			W(i) = 0;
		} else if (max / g <= UINT32_MAX) {
			W(i) = BW(i) / g;
		} else {
			x = ((unsigned __int128)BW(i) * UINT32_MAX + max / 2) /
			    max;
			W(i) = x ? (uint32_t)x : 1;
		}
	}
#undef BW
#undef W
}

void fare_weights_scale(const uint64_t *bw, size_t n, uint32_t *w)
{
	scale(bw, sizeof(*bw), w, sizeof(*w), n);
}

uint16_t fare_policy_origin_pb(void)
{
	return FARE_PB_MAX;
}

/* Does every path carry a usable bandwidth of that kind? */
static bool all_have(const struct fare_path_in *in, size_t n, bool nt)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((nt ? in[i].bw.nt : in[i].bw.t).origin == FARE_BW_NONE)
			return false;
	return true;
}

/* The smallest transitive PB of the paths, as received. */
static uint16_t min_transitive(const struct fare_path_in *in, size_t n,
			       uint64_t *bps)
{
	uint16_t raw = 0;
	size_t i;

	*bps = FARE_BW_INF;
	for (i = 0; i < n; i++)
		if (i == 0 || in[i].bw.t.bps < *bps) {
			*bps = in[i].bw.t.bps;
			raw = in[i].bw.t.origin == FARE_BW_PB ?
			      in[i].bw.t.raw : fare_pb_from_bps(*bps);
		}
	return raw;
}

/* What the per-path minima add up to (fare_policy_compute()). */
struct minima {
	uint64_t sum;		/* of the minima, saturated */
	uint64_t links;		/* of the links, saturated */
	bool any_inf, any_pos;	/* a minimum unbounded, one above zero */
};

static bool same_node(const struct fare_node *a, const struct fare_node *b)
{
	return a->id && a->id == b->id && a->as == b->as && a->tier == b->tier;
}

/*
 * draft-xu-idr-fare-05: the paths through one node (same struct
 * fare_node, each with its PB) get the node's min(sum of their links,
 * smallest PB), split as opts says, in place of their own minima.
 */
static void node_shares(const struct fare_policy_opts *opts,
			const struct fare_path_in *in, size_t n,
			struct fare_path_out *out)
{
	size_t i, j;

	for (i = 0; opts->node_split != FARE_SPLIT_OFF && i < n; i++) {
		uint64_t links = 0, pb = FARE_BW_INF, bw;
		enum fare_node_split split = opts->node_split;
		unsigned int k = 0;

		if (out[i].origin == FARE_BW_NONE || out[i].node_paths)
			continue;
		for (j = i; j < n; j++) {
			if (out[j].origin == FARE_BW_NONE ||
			    !same_node(&in[i].node, &in[j].node))
				continue;
			k++;
			links = add_sat(links, out[j].link_bps);
			if (out[j].pb_bps < pb)
				pb = out[j].pb_bps;
		}
		if (k < 2)
			continue;
		bw = pb < links ? pb : links;
		/* An unknown link has no proportion. */
		if (links == FARE_BW_INF)
			split = FARE_SPLIT_EVEN;
		for (j = i; j < n; j++) {
			struct fare_path_out *o = &out[j];

			if (o->origin == FARE_BW_NONE ||
			    !same_node(&in[i].node, &in[j].node))
				continue;
			o->node_paths = k;
			o->node_links_bps = links;
			o->node_bw_bps = bw;
			o->node_split = split;
			if (bw == FARE_BW_INF)
				o->bw_bps = FARE_BW_INF;
			else if (split == FARE_SPLIT_EVEN)
				o->bw_bps = bw / k;
			else
				o->bw_bps = (uint64_t)((unsigned __int128)bw *
						       o->link_bps / links);
		}
	}
}

/*
 * fare-04 §4.1: each path's min(link, PB) into out, from the transitive
 * PB or (use_nt) the non-transitive one; mh: the multi-homing factor.
 */
static void path_minima(const struct fare_policy_opts *opts,
			const struct fare_path_in *in, size_t n, bool use_nt,
			unsigned int mh, struct fare_path_out *out,
			struct minima *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++) {
		const struct fare_bw_src *src = use_nt ? &in[i].bw.nt
						       : &in[i].bw.t;
		struct fare_path_out *o = &out[i];
		uint64_t link = in[i].link_bps ? in[i].link_bps : FARE_BW_INF;
		uint64_t pb = src->bps;

		memset(o, 0, sizeof(*o));
		o->used_nt = use_nt;
		o->origin = src->origin;
		m->links = add_sat(m->links, link);
		if (src->origin == FARE_BW_NONE) {
			o->link_bps = link;
			continue;
		}
		/* fare-04 §4.1: the multi-homed prefix's PB ÷ n, or link × n. */
		if (!use_nt && mh > 1) {
			if (opts->multihome_multiply_link)
				link = mul_sat(link, mh);
			else if (pb != FARE_BW_INF)
				pb /= mh;
		}
		o->pb_bps = pb;
		o->link_bps = link;
		o->bw_bps = pb < link ? pb : link;
	}
	node_shares(opts, in, n, out);
	for (i = 0; i < n; i++) {
		uint64_t bw = out[i].bw_bps;

		if (out[i].origin == FARE_BW_NONE)
			continue;
		if (bw == FARE_BW_INF)
			m->any_inf = true;
		else if (bw)
			m->any_pos = true;
		m->sum = add_sat(m->sum, bw);
	}
}

/*
 * The weights: proportional to the minima when every path has a bounded
 * one and one is above zero (have: every path has its PB), else equal,
 * with the rule that says why.
 */
static void path_weights(struct fare_path_out *out, size_t n, bool have,
			 bool use_nt, const struct minima *m,
			 struct fare_result *res)
{
	enum fare_rule ecmp = FARE_RULE_ECMP_MISSING;
	size_t i;

	if (!have)
		ecmp = use_nt ? FARE_RULE_ECMP_MISSING_NT : FARE_RULE_ECMP_MISSING;
	else if (m->any_inf)
		ecmp = FARE_RULE_ECMP_UNBOUNDED;
	else if (!m->any_pos)
		ecmp = FARE_RULE_ECMP_ALL_ZERO;
	else
		res->weighted = true;
	if (res->weighted) {
		scale(&out[0].bw_bps, sizeof(*out), &out[0].weight,
		      sizeof(*out), n);
		for (i = 0; i < n; i++) {
			out[i].rule = !out[i].weight ? FARE_RULE_ZERO :
				      out[i].node_paths ? FARE_RULE_NODE :
				      use_nt ? FARE_RULE_MIN_LINK_PB_NT :
					       FARE_RULE_MIN_LINK_PB;
		}
	} else {
		for (i = 0; i < n; i++) {
			out[i].weight = 1;
			out[i].rule = ecmp;
		}
	}
}

/* The PB a transit role re-advertises (sum: of the minima, per prefix). */
static void advertise(const struct fare_policy_opts *opts,
		      const struct fare_path_in *in, size_t n, bool have,
		      const struct minima *m, uint64_t sum,
		      struct fare_result *res)
{
	uint64_t t_bps;

	switch (opts->role) {
	case FARE_ROLE_HOST:
		break;
	case FARE_ROLE_LEAF:
	case FARE_ROLE_SPINE:
		/* fare-04 §4.1: the sum of the per-path minima. */
		res->adv_rule = have ? FARE_ADV_SUM : FARE_ADV_STRIP;
		res->adv_t = have;
		if (have)
			res->adv_t_value = fare_pb_from_bps(sum);
		break;
	case FARE_ROLE_SUPER_SPINE:
		/* fare-04 §4.2: SS1 leaves the transitive PB alone. */
		res->adv_t = have;
		res->adv_rule = have ? FARE_ADV_UNCHANGED : FARE_ADV_STRIP;
		if (have)
			res->adv_t_value = min_transitive(in, n, &t_bps);
		if (opts->attach_nontransitive && m->links != FARE_BW_INF) {
			res->adv_nt = true;
			res->adv_nt_value = fare_pb_from_bps(m->links);
		}
		break;
	case FARE_ROLE_REMOTE_SPINE:
		/* fare-04 §4.2: S1@PoD-8 passes the transitive PB on. */
		if (!all_have(in, n, false)) {
			res->adv_rule = FARE_ADV_STRIP;
			break;
		}
		res->adv_t = true;
		res->adv_rule = FARE_ADV_UNCHANGED;
		res->adv_t_value = min_transitive(in, n, &t_bps);
		if (opts->lower_to_next_next_hop && have && !m->any_inf &&
		    sum < t_bps) {
			res->adv_rule = FARE_ADV_LOWERED;
			res->adv_t_value = fare_pb_from_bps(sum);
		}
		break;
	}
}

void fare_policy_compute(const struct fare_policy_opts *opts,
			 const struct fare_path_in *in, size_t n,
			 struct fare_path_out *out, struct fare_result *res)
{
	unsigned int mh = opts->multihomed > 1 ? opts->multihomed : 1;
	struct minima m;
	bool use_nt, have;
	uint64_t sum;

	memset(res, 0, sizeof(*res));
	res->adv_rule = FARE_ADV_NONE;
	if (!n)
		return;
	if (opts->role == FARE_ROLE_REMOTE_SPINE)
		use_nt = true;
	else
		use_nt = opts->role == FARE_ROLE_HOST && all_have(in, n, true);
	have = all_have(in, n, use_nt);
	path_minima(opts, in, n, use_nt, mh, out, &m);
	path_weights(out, n, have, use_nt, &m, res);
	sum = m.sum;
	if (!use_nt && mh > 1 && opts->multihome_multiply_link &&
	    sum != FARE_BW_INF)
		sum /= mh;
	advertise(opts, in, n, have, &m, sum, res);
}

const char *fare_rule_text(enum fare_rule rule)
{
	switch (rule) {
	case FARE_RULE_MIN_LINK_PB:
		return "fare-04 §4.1 weight = min(link, PB)";
	case FARE_RULE_MIN_LINK_PB_NT:
		return "fare-04 §4.2 weight = min(link, non-transitive PB)";
	case FARE_RULE_NODE:
		return "fare-05 weight = the node's min(sum of its links, PB), "
		       "split over its paths";
	case FARE_RULE_ZERO:
		return "bandwidth 0: unused while other paths have some";
	case FARE_RULE_ECMP_MISSING:
		return "ECMP: not every path carries PB (fare-04 §4.1)";
	case FARE_RULE_ECMP_MISSING_NT:
		return "ECMP: not every path carries a non-transitive PB "
		       "(fare-04 §4.2)";
	case FARE_RULE_ECMP_ALL_ZERO:
		return "ECMP: every path has bandwidth 0";
	case FARE_RULE_ECMP_UNBOUNDED:
		return "ECMP: a path has neither link bandwidth nor a finite PB";
	}
	return "?";
}

const char *fare_adv_rule_text(enum fare_adv_rule rule)
{
	switch (rule) {
	case FARE_ADV_NONE:
		return "not re-advertised";
	case FARE_ADV_SUM:
		return "PB = sum of the per-path minima (fare-04 §4.1)";
	case FARE_ADV_STRIP:
		return "no PB: not every path carries one";
	case FARE_ADV_UNCHANGED:
		return "transitive PB passed on unchanged (fare-04 §4.2)";
	case FARE_ADV_LOWERED:
		return "transitive PB lowered to the total toward the "
		       "next-next hop (fare-04 §4.2)";
	}
	return "?";
}

const char *fare_role_name(enum fare_role role)
{
	static const char *const names[] = {
		[FARE_ROLE_HOST] = "host",
		[FARE_ROLE_LEAF] = "leaf",
		[FARE_ROLE_SPINE] = "spine",
		[FARE_ROLE_SUPER_SPINE] = "super-spine",
		[FARE_ROLE_REMOTE_SPINE] = "remote-spine",
	};

	return (unsigned int)role < sizeof(names) / sizeof(names[0]) ?
	       names[role] : "?";
}

static int fmt_bw(char *buf, size_t len, uint64_t bps, bool bytes)
{
	if (bps == FARE_BW_INF)
		return snprintf(buf, len, "unbounded");
	if (bytes)
		return snprintf(buf, len, "%.6g GB/s", bps / 8e9);
	return snprintf(buf, len, "%.6g Gb/s", bps / 1e9);
}

char *fare_explain(const struct fare_path_out *p, char *buf, size_t len)
{
	char pb[32], link[32], bw[32];
	const char *kind = p->used_nt ? "non-transitive" : "transitive";

	fmt_bw(link, sizeof(link), p->link_bps, false);
	if (p->origin == FARE_BW_NONE) {
		snprintf(buf, len, "no %s PB, link %s: weight %u: %s", kind,
			 link, p->weight, fare_rule_text(p->rule));
		return buf;
	}
	fmt_bw(pb, sizeof(pb), p->pb_bps, true);
	fmt_bw(bw, sizeof(bw), p->bw_bps, true);
	if (p->node_paths) {
		char links[32], node[32];

		fmt_bw(links, sizeof(links), p->node_links_bps, false);
		fmt_bw(node, sizeof(node), p->node_bw_bps, true);
		snprintf(buf, len, "%s %s (%s), link %s; node of %u links, "
			 "%s: min %s, this path's share (%s) %s, weight %u: "
			 "%s", p->origin == FARE_BW_LB ? "LB" : "PB", pb,
			 kind, link, p->node_paths, links, node,
			 p->node_split == FARE_SPLIT_EVEN ? "even" :
			 "by link", bw, p->weight, fare_rule_text(p->rule));
		return buf;
	}
	snprintf(buf, len, "%s %s (%s), link %s: min %s, weight %u: %s",
		 p->origin == FARE_BW_LB ? "LB" : "PB", pb, kind, link, bw,
		 p->weight, fare_rule_text(p->rule));
	return buf;
}
