// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FARE policy: from a prefix's paths to next-hop weights for fare.ko
 * and the Path Bandwidth to re-advertise. Pure functions, no I/O.
 *
 * The daemon, for each prefix the RIB's change feed reports, fills one
 * struct fare_path_in per path: the bandwidths the path carries (from
 * fare_ec_find_bw() on its ext communities) and the bandwidth of the link
 * toward that path's neighbor (the configured interface bandwidth, in
 * bits/s; 0 when unknown). It calls fare_policy_compute() with its role
 * and gets back, per path, the u32 weight (0: do not use this path) and
 * why, and per prefix whether the weights are WECMP or plain ECMP and
 * which PB communities to attach when re-advertising.
 *
 * Roles (which rules apply to the paths of one prefix):
 *  HOST          mpson-00 §3: a stub speaker per plane; weight = min(link,
 *                PB), the non-transitive PB preferred when every path has
 *                one (fare-04 §4.2's choice), else the transitive one
 *                (PROTOCOL.md §2.4). Never re-advertises.
 *  LEAF, SPINE   fare-04 §4.1 and §4.2 (S1@PoD-1, L8, L1@PoD-8): weight =
 *                min(link, transitive PB); re-advertise the transitive PB
 *                as the sum of those minima (a single path: its minimum).
 *                A leaf's own prefixes: fare_policy_origin_pb().
 *  SUPER_SPINE   fare-04 §4.2 (SS1@Plane-1): weights as a spine; the
 *                transitive PB goes on unchanged; optionally a
 *                non-transitive PB = bandwidth of the link(s) toward the
 *                advertiser(s) (their sum for several paths).
 *  REMOTE_SPINE  fare-04 §4.2 (S1@PoD-8, for paths learned from
 *                super-spines): weight = min(link, non-transitive PB) when
 *                every path has one, else ECMP; the transitive PB goes on
 *                unchanged, or (option) lowered to the sum of those minima
 *                (the total toward the next-next hop) when that is
 *                smaller; the non-transitive PB is never passed on.
 *
 * Rules common to all roles:
 *  - Gate (fare-04 §4.1, §4.2: "SHOULD NOT ... unless all equal-cost
 *    routes ... carry" PB): a path without a usable PB of the kind the
 *    role weighs by makes the whole prefix ECMP (every weight 1), and a
 *    transit role then re-advertises no PB, so that downstream falls back
 *    to ECMP too [PROTOCOL.md §2.2 decision, I].
 *  - A PB of 0 (PROTOCOL.md §2.2): that path gets weight 0 (unused) while
 *    another path has bandwidth; if all are 0, ECMP.
 *  - A path whose bandwidth is unbounded (no link bandwidth configured and
 *    a PB of +infinity) cannot be weighed against others: ECMP.
 *  - One node, several links (draft-xu-idr-fare-05, "Multiple BGP
 *    sessions per switch pair": path bandwidth at node granularity):
 *    the paths whose struct fare_node is the same (the daemon fills it
 *    from the neighbor's AS and BGP Identifier, and the path's tier) are
 *    one node's parallel links. The node's bandwidth is min(sum of those
 *    links, PB), the PB being the smallest the node sent over them, and
 *    it is split over its paths in proportion to their links
 *    (FARE_SPLIT_LINK, the default: no link is asked for more than it
 *    has) or evenly (FARE_SPLIT_EVEN, -05's first option; also when a
 *    link is unknown). Each path's share stands for its min(link, PB)
 *    from then on: its weight, its bandwidth and the re-advertised sum.
 *    FARE_SPLIT_OFF keeps fare-04's per-session rule, for planes that
 *    are separate networks whose switches reuse BGP Identifiers.
 *  - Multi-homing (fare-04 §4.1, §4.2, LEAF/SPINE/SUPER_SPINE/HOST): with
 *    multihomed = n >= 2 the received transitive PB is divided by n before
 *    the minimum; with multihome_multiply_link, the link bandwidth is
 *    multiplied by n instead (the draft's alternative; the weights are n
 *    times larger, the same ratios when n is per prefix, and the
 *    re-advertised sum is divided by n back). How n is learned is not
 *    specified [U]: the daemon passes its configuration.
 *
 * Weights: path bandwidths in bits/s are divided by their greatest common
 * divisor, so ratios are exact whenever the reduced values fit in a u32
 * (100G:400G becomes 1:4); otherwise they are scaled so the largest is
 * UINT32_MAX, rounding to nearest, with at least 1 for a path that has
 * bandwidth (the error of each is then under 2^-32 of the largest).
 */
#ifndef FARED_FARE_POLICY_H
#define FARED_FARE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_ec.h"

enum fare_role {
	FARE_ROLE_HOST,
	FARE_ROLE_LEAF,
	FARE_ROLE_SPINE,
	FARE_ROLE_SUPER_SPINE,
	FARE_ROLE_REMOTE_SPINE,
};

/* How a node's bandwidth is split over its parallel links' paths. */
enum fare_node_split {
	FARE_SPLIT_LINK,		/* in proportion to each link */
	FARE_SPLIT_EVEN,		/* the same share each */
	FARE_SPLIT_OFF,			/* no nodes: each path by itself */
};

struct fare_policy_opts {
	enum fare_role role;
	enum fare_node_split node_split;
	unsigned int multihomed;	/* leaves the prefix is homed to */
	bool multihome_multiply_link;
	bool attach_nontransitive;	/* SUPER_SPINE */
	bool lower_to_next_next_hop;	/* REMOTE_SPINE */
};

/*
 * The node a path comes through: paths with equal values are one node's
 * parallel links. id 0: a node of its own (a neighbor never up).
 */
struct fare_node {
	uint32_t as;			/* the neighbor's AS */
	uint32_t id;			/* its BGP Identifier */
	uint8_t tier;			/* the path's tier */
};

struct fare_path_in {
	struct fare_path_bw bw;
	uint64_t link_bps;		/* toward the neighbor; 0: unknown */
	struct fare_node node;
};

/* Why a path got its weight, for `farectl bgp routes PREFIX`. */
enum fare_rule {
	FARE_RULE_MIN_LINK_PB,		/* weight = min(link, PB) */
	FARE_RULE_MIN_LINK_PB_NT,	/* weight = min(link, non-trans. PB) */
	FARE_RULE_NODE,			/* node: min(links, PB), split */
	FARE_RULE_ZERO,			/* bandwidth 0: unused */
	FARE_RULE_ECMP_MISSING,		/* some path lacks PB: ECMP */
	FARE_RULE_ECMP_MISSING_NT,	/* some path lacks non-trans. PB */
	FARE_RULE_ECMP_ALL_ZERO,	/* every path has bandwidth 0 */
	FARE_RULE_ECMP_UNBOUNDED,	/* some path has no bound at all */
};

struct fare_path_out {
	uint32_t weight;		/* 0: leave the path out */
	enum fare_rule rule;
	bool used_nt;			/* weighed by the non-transitive PB */
	enum fare_bw_origin origin;	/* of the PB weighed by */
	uint64_t pb_bps;		/* that PB, after the ÷ n rule */
	uint64_t link_bps;		/* after the × n rule; INF: unknown */
	uint64_t bw_bps;		/* min(link, PB), or the node's share */
	/* With other paths through the same node (FARE_RULE_NODE): */
	unsigned int node_paths;	/* its paths, this one included */
	uint64_t node_links_bps;	/* the sum of their links */
	uint64_t node_bw_bps;		/* min(that sum, PB) */
	enum fare_node_split node_split;
};

/* What to attach when re-advertising the prefix. */
enum fare_adv_rule {
	FARE_ADV_NONE,			/* host: never re-advertises */
	FARE_ADV_SUM,			/* sum of the per-path minima */
	FARE_ADV_STRIP,			/* gate failed: no PB */
	FARE_ADV_UNCHANGED,		/* transitive PB passed on as is */
	FARE_ADV_LOWERED,		/* lowered to the next-next hop total */
};

struct fare_result {
	bool weighted;			/* false: ECMP, every weight 1 */
	enum fare_adv_rule adv_rule;
	bool adv_t;			/* attach a transitive PB ... */
	uint16_t adv_t_value;		/* ... of this binary16 value */
	bool adv_nt;			/* attach a non-transitive PB ... */
	uint16_t adv_nt_value;
};

/*
 * Computes out[0..n-1] and *res for the n paths of one prefix. n may be 0
 * (the prefix is gone: nothing to weigh or advertise).
 */
void fare_policy_compute(const struct fare_policy_opts *opts,
			 const struct fare_path_in *in, size_t n,
			 struct fare_path_out *out, struct fare_result *res);

/* The PB a leaf or host attaches to a prefix it originates (fare §4.1). */
uint16_t fare_policy_origin_pb(void);

/*
 * Maps bandwidths (bits/s, none FARE_BW_INF) to u32 weights as described
 * above; a bandwidth of 0 gives weight 0.
 */
void fare_weights_scale(const uint64_t *bw, size_t n, uint32_t *w);

const char *fare_rule_text(enum fare_rule rule);
const char *fare_adv_rule_text(enum fare_adv_rule rule);
const char *fare_role_name(enum fare_role role);

/*
 * One line explaining a path's weight: "PB 12.5 GB/s (transitive), link
 * 100 Gb/s: min 12.5 GB/s, weight 1: fare-04 §4.1 weight = min(link, PB)".
 * Returns buf.
 */
char *fare_explain(const struct fare_path_out *path, char *buf, size_t len);

#endif /* FARED_FARE_POLICY_H */
