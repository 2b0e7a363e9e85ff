// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's configuration: one readable file, see fared.conf.example. The
 * parser reports every problem it finds, each as "FILE:LINE: problem",
 * rather than stopping at the first.
 */
#ifndef FARED_CONFIG_H
#define FARED_CONFIG_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bgp.h"
#include "fare_policy.h"
#include "tier.h"

#define FARED_NAME_MAX	32

struct fared_rule {
	bool permit;
	bool any;			/* matches every prefix of any family */
	struct bgp_prefix prefix;
	uint8_t ge, le;			/* accepted lengths, inclusive */
};

struct fared_policy {
	char name[FARED_NAME_MAX];
	struct fared_rule *rules;
	size_t n_rules;
	int line;
};

struct fared_interface {
	char name[IF_NAMESIZE];
	uint64_t bandwidth;		/* bits per second */
	int line;
};

/*
 * A neighbor's session protection (tcp_auth.h): a TCP-MD5 password or a
 * TCP-AO master key tuple, never both, and GTSM. The secrets are never
 * printed: not in logs, errors or the control socket's answers.
 */
#define FARED_TCP_KEY_MAX	80	/* TCP_MD5SIG_MAXKEYLEN, TCP_AO_MAXKEYLEN */

enum fared_ao_alg {
	FARED_AO_HMAC_SHA1,		/* RFC 5926 §3.2, the default */
	FARED_AO_CMAC_AES_128,
};

struct fared_auth {
	uint8_t md5_len;		/* 0: no "password" */
	uint8_t md5_key[FARED_TCP_KEY_MAX];
	bool ao;			/* "tcp-ao ..." */
	uint8_t ao_send_id, ao_recv_id;	/* RFC 5925 §3.1 KeyIDs */
	uint8_t ao_alg;			/* enum fared_ao_alg */
	uint8_t ao_len;
	uint8_t ao_key[FARED_TCP_KEY_MAX];
	bool ttl_security;		/* GTSM: "ttl-security yes" */
	int md5_line, ao_line, ttl_line;
	/*
	 * Run time, set by tcp_auth_listener(): the listening socket could
	 * not take this neighbor's key, so its incoming connections are
	 * refused rather than accepted unauthenticated.
	 */
	bool listener_failed;
};

struct fared_neighbor {
	unsigned int plane;
	int family;			/* of the address: enum bgp_family */
	uint8_t addr[16];
	char addr_text[48];
	uint32_t remote_as;
	char interface[IF_NAMESIZE];
	uint32_t families;		/* BGP_FAM_BIT()s to negotiate */
	uint16_t hold_time;
	uint16_t connect_retry;
	bool passive;
	/* A spine's super-spine: its routes get fare-04 §4.2's S1@PoD-8 rules. */
	bool upstream;
	/* An RNIC's stub speaker behind a leaf (see suppress.h). */
	bool rnic;
	/*
	 * "enforce-neighbor-as no": an eBGP route's AS_PATH need not begin
	 * with remote-as (a route server); by default one that does not is
	 * treated as withdrawn (RFC 4271 §6.3, RFC 7606 §7.2).
	 */
	bool neighbor_as_unchecked;
	/* Address Prefix ORF capability for each family: BGP_ORF_* bits. */
	uint8_t orf;
	/* "add-path receive": families whose NLRI may carry path ids. */
	bool add_path_rx;
	/*
	 * "add-path receive max-paths N": the most paths the neighbor may
	 * have per prefix; past it a new path id is ignored (counted, logged
	 * once a session), so that one peer cannot make a prefix's path
	 * array, copied on each change, as long as it likes. The default is
	 * fare.ko's next-hop limit: more paths from one neighbor could never
	 * all be programmed.
	 */
	uint32_t add_path_max_paths;
	/*
	 * "max-prefix N [warning-only] [restart SECONDS]": the most paths
	 * (all families together, after import policy) the peer may have
	 * in the RIB; 0: no limit.
	 */
	uint32_t max_prefix;
	bool max_prefix_warning_only;
	uint16_t max_prefix_restart;	/* seconds; 0: until cleared */
	struct fared_auth auth;
	/*
	 * "bfd [interval MS] [multiplier N]" (bfd.h): a BFD session with
	 * these Desired Min TX and Required Min RX, and Detect Mult.
	 */
	bool bfd;
	uint32_t bfd_interval_ms;
	uint8_t bfd_multiplier;
	int import_policy;		/* index into policies, -1 for none */
	int export_policy;
	int line;
};

/* A prefix fared announces itself, to neighbors whose export permits it. */
struct fared_originate {
	struct bgp_prefix prefix;
	uint8_t *ext_communities;	/* wire bytes, 8 each, sent as is */
	size_t ext_communities_len;
	int line;
};

/* "rnic PREFIX interface NAME": a leaf's RNIC known by its link. */
struct fared_rnic {
	struct bgp_prefix prefix;	/* a host route */
	char interface[IF_NAMESIZE];
	int line;
};

/* "orf-prefix PREFIX": a remote host the host asks its leaves for. */
struct fared_orf_prefix {
	struct bgp_prefix prefix;
	int line;
};

/*
 * "mode MODE [tcp MODE] [policy NAME]": the forwarding mode of matching
 * prefixes, and that of their TCP packets.
 */
struct fared_mode {
	uint8_t mode;			/* enum fare_mode */
	uint8_t tcp_mode;		/* FARE_MODE_DEFAULT: mode's */
	int policy;			/* -1: every prefix */
	char policy_name[FARED_NAME_MAX];
	int line;
};

/* "multihomed N policy NAME [multiply-link]" (fare-04 §4.1). */
struct fared_multihome {
	unsigned int leaves;
	bool multiply_link;
	int policy;
	char policy_name[FARED_NAME_MAX];
	int line;
};

#define FARED_DEFAULT_CONTROL	"/run/fared/fared.sock"
#define FARED_DEFAULT_STATE	"/run/fared/fared.state"
#define FARED_DEFAULT_SEND_BUFFER	(32u << 20)
#define FARED_MIN_SEND_BUFFER	(64u << 10)
/* add-path max-paths: FARE_NEXTHOP_MAX by default (see add_path_max_paths). */
#define FARED_ADD_PATH_MAX_PATHS_DEFAULT	64u
#define FARED_ADD_PATH_MAX_PATHS_MAX		4096u
/* BFD: "bfd" alone is 100 ms x 3 (issue 26 §3's 300 ms to detect). */
#define FARED_BFD_INTERVAL_MS		100
#define FARED_BFD_MULTIPLIER		3
#define FARED_BFD_INTERVAL_MIN_MS	10
#define FARED_BFD_INTERVAL_MAX_MS	60000

struct fared_config {
	uint32_t router_id;		/* host order */
	uint32_t local_as;
	uint16_t hold_time;		/* defaults for every neighbor */
	uint16_t connect_retry;
	struct fared_interface *interfaces;
	size_t n_interfaces;
	struct fared_policy *policies;
	size_t n_policies;
	struct fared_neighbor *neighbors;
	size_t n_neighbors;
	struct fared_originate *originates;
	size_t n_originates;
	struct fared_orf_prefix *orf_prefixes;
	size_t n_orf_prefixes;
	char control_socket[108];	/* sun_path */
	/* The control socket's group (0660); -1: fared's own. */
	char control_group[64];
	long control_gid;
	char state_file[256];
	/* RFC 4724 restart time advertised; 0: graceful restart off. */
	uint16_t gr_restart_time;
	/* How long a restarted peer's stale routes may wait for End-of-RIB. */
	uint16_t gr_stale_time;
	/*
	 * With fare.ko: how long the first tables may take (every neighbor's
	 * End-of-RIB) before fared programs what it has; 0: at once.
	 */
	uint16_t update_delay;
	/*
	 * "route-stats on": fare.ko keeps per-route counters (what farectl
	 * route show prints per next hop) on the routes fared programs. Off
	 * by default: they cost per-CPU memory per route, which at 100k
	 * routes on a many-CPU host is hundreds of MiB.
	 */
	bool route_stats;
	/* Bytes a session may have queued for a peer that does not read. */
	size_t send_buffer_limit;
	/*
	 * "test-send-hold-time SECONDS": replaces RFC 9687's minimum of
	 * max(8 minutes, 2 x hold time); for tests only, 0: the RFC's.
	 */
	uint16_t test_send_hold_time;
	/*
	 * FARE: with a role, fared weighs every prefix's paths per plane and
	 * programs fare.ko; without one it is a plain BGP speaker.
	 */
	bool fare;
	enum fare_role role;
	struct fare_ec_cfg ec;		/* PB sub-type, RFC 10005 acceptance */
	struct fared_mode *modes;
	size_t n_modes;
	struct fared_multihome *multihomes;
	size_t n_multihomes;
	bool attach_nontransitive;	/* super-spine */
	bool lower_to_next_next_hop;	/* spine, for upstream routes */
	/* "path-bandwidth node-split link|even|off" (fare_policy.h) */
	enum fare_node_split node_split;
	/* Route-table suppression (suppress.h); fs sub-type in ec. */
	bool upa_originate;		/* leaf: "upa originate [drop]" */
	bool upa_drop;
	bool fs_tag;			/* leaf: "fib-suppress tag" */
	bool fs_honour;			/* "fib-suppress honour" */
	struct fared_rnic *rnics;
	size_t n_rnics;
	/* Dragonfly+: "tier-community minimal|transit|reflect VALUE". */
	struct fare_tier_cfg tiers;
};

/* The multi-homing of prefix: the first matching "multihomed" line. */
const struct fared_multihome *
fared_multihome_of(const struct fared_config *cfg,
		   const struct bgp_prefix *prefix);

/*
 * The mode of prefix: the first "mode" line whose policy permits it; its
 * TCP packets' mode in *tcp_mode (if not NULL).
 */
uint8_t fared_mode_of(const struct fared_config *cfg,
		      const struct bgp_prefix *prefix, uint8_t *tcp_mode);

/* Whether policy permits prefix: the first matching rule decides. */
bool fared_policy_permits(const struct fared_policy *pol,
			  const struct bgp_prefix *prefix);

/*
 * Parses text (named name in messages) into cfg. Every error is printed
 * to err as "name:line: problem"; returns the number of errors (cfg is
 * only meaningful when that is 0). Free cfg in every case.
 */
int fared_config_parse(const char *name, const char *text,
		       struct fared_config *cfg, FILE *err);
/* The same for a file; an unreadable file is one error. */
int fared_config_load(const char *path, struct fared_config *cfg, FILE *err);
void fared_config_free(struct fared_config *cfg);

/* "100G", "25000M", "12.5G": bits per second; returns 0 or -1. */
int fared_parse_bandwidth(const char *text, uint64_t *bps);

#endif /* FARED_CONFIG_H */
