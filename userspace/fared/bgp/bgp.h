// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BGP-4 wire codec: pure functions from bytes to structs and back.
 *
 * Nothing here does I/O, keeps state between calls or applies policy.
 * Parsers never read outside the buffer they are given; parsed structs
 * may point into that buffer (views), so the buffer must outlive them.
 * Builders write into a caller's buffer and return the message length,
 * or -1 when it does not fit (nothing useful is left in the buffer then).
 *
 * Errors follow RFC 4271 §6 as revised by RFC 7606: every error carries
 * the action it calls for and, when that action is a session reset, the
 * NOTIFICATION code, subcode and data to send.
 */
#ifndef FARED_BGP_H
#define FARED_BGP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BGP_MARKER_LEN		16
#define BGP_HEADER_LEN		19
#define BGP_MAX_LEN		4096
#define BGP_EXT_MAX_LEN		65535	/* RFC 8654 */
#define BGP_OPEN_MIN_LEN	29
#define BGP_UPDATE_MIN_LEN	23
#define BGP_NOTIFICATION_MIN_LEN 21
#define BGP_ROUTE_REFRESH_LEN	23
#define BGP_PORT		179
#define BGP_VERSION		4
#define BGP_AS_TRANS		23456	/* RFC 6793 */

enum bgp_msg_type {
	BGP_MSG_OPEN = 1,
	BGP_MSG_UPDATE = 2,
	BGP_MSG_NOTIFICATION = 3,
	BGP_MSG_KEEPALIVE = 4,
	BGP_MSG_ROUTE_REFRESH = 5,
};

/* NOTIFICATION error codes and the subcodes fared sends or reads. */
enum bgp_err_code {
	BGP_ERR_HEADER = 1,
	BGP_ERR_OPEN = 2,
	BGP_ERR_UPDATE = 3,
	BGP_ERR_HOLD_TIMER = 4,
	BGP_ERR_FSM = 5,
	BGP_ERR_CEASE = 6,
	BGP_ERR_ROUTE_REFRESH = 7,
	BGP_ERR_SEND_HOLD_TIMER = 8,	/* RFC 9687 */
};

enum {
	BGP_HEADER_NOT_SYNC = 1,
	BGP_HEADER_BAD_LENGTH = 2,
	BGP_HEADER_BAD_TYPE = 3,
};

enum {
	BGP_OPEN_UNSPECIFIC = 0,
	BGP_OPEN_BAD_VERSION = 1,
	BGP_OPEN_BAD_PEER_AS = 2,
	BGP_OPEN_BAD_BGP_ID = 3,
	BGP_OPEN_UNSUPPORTED_PARAM = 4,
	BGP_OPEN_BAD_HOLD_TIME = 6,
	BGP_OPEN_UNSUPPORTED_CAP = 7,
};

enum {
	BGP_UPDATE_MALFORMED_ATTR_LIST = 1,
	BGP_UPDATE_UNRECOGNIZED_WELLKNOWN = 2,
	BGP_UPDATE_MISSING_WELLKNOWN = 3,
	BGP_UPDATE_ATTR_FLAGS = 4,
	BGP_UPDATE_ATTR_LENGTH = 5,
	BGP_UPDATE_INVALID_ORIGIN = 6,
	BGP_UPDATE_INVALID_NEXT_HOP = 8,
	BGP_UPDATE_OPTIONAL_ATTR = 9,
	BGP_UPDATE_INVALID_NETWORK = 10,
	BGP_UPDATE_MALFORMED_AS_PATH = 11,
};

enum {
	BGP_CEASE_MAX_PREFIXES = 1,
	BGP_CEASE_ADMIN_SHUTDOWN = 2,
	BGP_CEASE_PEER_DECONFIGURED = 3,
	BGP_CEASE_ADMIN_RESET = 4,
	BGP_CEASE_CONNECTION_REJECTED = 5,
	BGP_CEASE_OTHER_CONFIG_CHANGE = 6,
	BGP_CEASE_COLLISION = 7,
	BGP_CEASE_OUT_OF_RESOURCES = 8,
	BGP_CEASE_HARD_RESET = 9,	/* RFC 8538 */
	BGP_CEASE_BFD_DOWN = 10,	/* RFC 9384 */
};

enum {
	BGP_RR_INVALID_LENGTH = 1,	/* RFC 7313 §5 */
};

/* Path attribute type codes. */
enum bgp_attr_type {
	BGP_ATTR_ORIGIN = 1,
	BGP_ATTR_AS_PATH = 2,
	BGP_ATTR_NEXT_HOP = 3,
	BGP_ATTR_MED = 4,
	BGP_ATTR_LOCAL_PREF = 5,
	BGP_ATTR_ATOMIC_AGGREGATE = 6,
	BGP_ATTR_AGGREGATOR = 7,
	BGP_ATTR_COMMUNITIES = 8,
	BGP_ATTR_ORIGINATOR_ID = 9,
	BGP_ATTR_CLUSTER_LIST = 10,
	BGP_ATTR_MP_REACH = 14,
	BGP_ATTR_MP_UNREACH = 15,
	BGP_ATTR_EXT_COMMUNITIES = 16,
	BGP_ATTR_AS4_PATH = 17,
	BGP_ATTR_AS4_AGGREGATOR = 18,
	BGP_ATTR_LARGE_COMMUNITIES = 32,
};

#define BGP_ATTR_FLAG_OPTIONAL		0x80
#define BGP_ATTR_FLAG_TRANSITIVE	0x40
#define BGP_ATTR_FLAG_PARTIAL		0x20
#define BGP_ATTR_FLAG_EXT_LEN		0x10

enum bgp_origin {
	BGP_ORIGIN_IGP = 0,
	BGP_ORIGIN_EGP = 1,
	BGP_ORIGIN_INCOMPLETE = 2,
};

enum bgp_as_segment_type {
	BGP_AS_SET = 1,
	BGP_AS_SEQUENCE = 2,
	BGP_AS_CONFED_SEQUENCE = 3,	/* RFC 5065 */
	BGP_AS_CONFED_SET = 4,
};

/* Capability codes (RFC 5492 registry). */
enum bgp_cap_code {
	BGP_CAP_MP = 1,
	BGP_CAP_ROUTE_REFRESH = 2,
	BGP_CAP_ORF = 3,
	BGP_CAP_EXT_MESSAGE = 6,
	BGP_CAP_GRACEFUL_RESTART = 64,
	BGP_CAP_AS4 = 65,
	BGP_CAP_ADD_PATH = 69,
	BGP_CAP_ENHANCED_ROUTE_REFRESH = 70,
};

#define BGP_AFI_IPV4	1
#define BGP_AFI_IPV6	2
#define BGP_SAFI_UNICAST 1

/* The address families fared speaks; an index into per-family arrays. */
enum bgp_family {
	BGP_FAM_IPV4_UNICAST,
	BGP_FAM_IPV6_UNICAST,
	BGP_FAM_COUNT,
};

#define BGP_FAM_BIT(fam)	(1u << (fam))

/* Returns the family of (afi, safi), or -1 when fared does not speak it. */
int bgp_family_of(uint16_t afi, uint8_t safi);
uint16_t bgp_family_afi(enum bgp_family fam);
uint8_t bgp_family_safi(enum bgp_family fam);

/* ADD-PATH Send/Receive field bits (RFC 7911 §4). */
#define BGP_ADD_PATH_RECEIVE	1
#define BGP_ADD_PATH_SEND	2

/* ORF capability Send/Receive field bits (RFC 5291 §5). */
#define BGP_ORF_RECEIVE		1
#define BGP_ORF_SEND		2
#define BGP_ORF_TYPE_ADDRESS_PREFIX 64

/* Graceful restart (RFC 4724 §3, RFC 8538). */
#define BGP_GR_FLAG_RESTART	0x8
#define BGP_GR_FLAG_NOTIFICATION 0x4
#define BGP_GR_AF_FORWARDING	0x80

/* ROUTE-REFRESH message subtypes (RFC 7313 §3.2). */
enum {
	BGP_RR_NORMAL = 0,
	BGP_RR_BORR = 1,
	BGP_RR_EORR = 2,
};

/* ---------------------------------------------------------------------
 * Errors and what to do about them.
 */

/*
 * The RFC 7606 approaches, weakest first, so that the strongest of
 * several errors is simply the largest.
 */
enum bgp_action {
	BGP_ACTION_NONE = 0,
	BGP_ACTION_ATTR_DISCARD,
	BGP_ACTION_TREAT_AS_WITHDRAW,
	BGP_ACTION_SESSION_RESET,
};

const char *bgp_action_name(enum bgp_action action);

/*
 * An error found in a message. For a session reset, code/subcode/data are
 * the NOTIFICATION to send; for weaker actions they name the error the
 * RFC would once have sent, which is what a log line wants. data points
 * into the parsed message or into static storage.
 */
struct bgp_error {
	enum bgp_action action;
	uint8_t code;
	uint8_t subcode;
	const uint8_t *data;
	size_t data_len;
	const char *reason;	/* static text for logs */
};

/* ---------------------------------------------------------------------
 * Header.
 */

enum bgp_parse_status {
	BGP_PARSE_OK = 0,
	BGP_PARSE_NEED_MORE = 1,	/* a stream: wait for more bytes */
	BGP_PARSE_ERROR = -1,		/* see the struct bgp_error */
};

struct bgp_header {
	uint16_t length;
	uint8_t type;
};

/*
 * Checks the header at the start of a stream buffer. max_len is 4096, or
 * 65535 once the Extended Message capability is negotiated (OPEN and
 * KEEPALIVE stay bounded by their own sizes either way). Returns
 * NEED_MORE until the whole message is in the buffer.
 */
enum bgp_parse_status bgp_header_parse(const uint8_t *buf, size_t len,
				       size_t max_len, struct bgp_header *hdr,
				       struct bgp_error *err);

/* A KEEPALIVE: the bare header. */
int bgp_keepalive_build(uint8_t *buf, size_t cap);

/* ---------------------------------------------------------------------
 * OPEN and capabilities.
 */

#define BGP_MAX_UNKNOWN_CAPS	16

struct bgp_caps {
	uint32_t families;		/* BGP_FAM_BIT()s of Multiprotocol */
	/* Any Multiprotocol capability, of a family fared speaks or not. */
	bool mp;
	bool as4;
	uint32_t as4_number;
	bool route_refresh;
	bool enhanced_route_refresh;
	bool extended_message;
	bool graceful_restart;
	uint8_t gr_flags;		/* BGP_GR_FLAG_* (4 bits) */
	uint16_t gr_restart_time;	/* seconds, 12 bits */
	uint32_t gr_families;		/* families listed in the capability */
	uint8_t gr_af_flags[BGP_FAM_COUNT];
	uint8_t add_path[BGP_FAM_COUNT];	/* BGP_ADD_PATH_* bits */
	/* Address Prefix ORF (RFC 5292) Send/Receive, per family. */
	uint8_t orf_prefix[BGP_FAM_COUNT];	/* BGP_ORF_* bits */
	/* Capabilities fared does not know, kept for logs; never an error. */
	unsigned int n_unknown;
	uint8_t unknown[BGP_MAX_UNKNOWN_CAPS];
};

struct bgp_open {
	uint8_t version;
	uint16_t my_as;			/* the 2-octet field: AS_TRANS if big */
	uint16_t hold_time;
	uint32_t bgp_id;		/* host order */
	struct bgp_caps caps;
};

/* The peer's AS: the 4-octet capability's when present (RFC 6793). */
uint32_t bgp_open_peer_as(const struct bgp_open *open);

/*
 * Parses and checks an OPEN message (header included). Checks what needs
 * no configuration: version, hold time, a non-zero identifier, parameter
 * and capability encoding. The caller checks the peer AS and identifier
 * against its own configuration.
 */
enum bgp_parse_status bgp_open_parse(const uint8_t *msg, size_t len,
				     struct bgp_open *open,
				     struct bgp_error *err);

/* Builds an OPEN advertising exactly what open->caps says. */
int bgp_open_build(uint8_t *buf, size_t cap, const struct bgp_open *open);

/* What two OPENs agree on: the parameters of an Established session. */
struct bgp_session_params {
	uint16_t hold_time;
	uint16_t keepalive_time;
	uint32_t families;
	bool as4;
	bool extended_message;
	bool route_refresh;
	bool enhanced_route_refresh;
	bool graceful_restart;		/* the peer can help or restart */
	uint32_t add_path_rx;		/* families whose NLRI carry path ids */
	uint32_t add_path_tx;		/* families we send path ids in */
	size_t max_len;
};

/*
 * A side that sent no Multiprotocol capability at all speaks IPv4 unicast
 * (RFC 4760 §8), so that is what a session with it carries.
 */
void bgp_negotiate(const struct bgp_open *local, const struct bgp_open *peer,
		   struct bgp_session_params *params);

/* ---------------------------------------------------------------------
 * NOTIFICATION.
 */

#define BGP_SHUTDOWN_TEXT_MAX	255	/* RFC 9003 */

struct bgp_notification {
	uint8_t code;
	uint8_t subcode;
	const uint8_t *data;
	size_t data_len;
};

enum bgp_parse_status bgp_notification_parse(const uint8_t *msg, size_t len,
					     struct bgp_notification *notif,
					     struct bgp_error *err);

int bgp_notification_build(uint8_t *buf, size_t cap, uint8_t code,
			   uint8_t subcode, const uint8_t *data,
			   size_t data_len);

/*
 * A Cease with a shutdown communication (RFC 9003): subcode must be
 * Administrative Shutdown or Reset, text valid UTF-8 of at most 255
 * octets (NULL for none). Returns -1 otherwise.
 */
int bgp_notification_build_shutdown(uint8_t *buf, size_t cap, uint8_t subcode,
				    const char *text);

/*
 * Copies the shutdown communication of a Cease into text (NUL-terminated,
 * cap >= BGP_SHUTDOWN_TEXT_MAX + 1). Returns 0, or -1 when the
 * notification carries none or its text is malformed or not UTF-8, which
 * RFC 9003 forbids interpreting.
 */
int bgp_notification_shutdown_text(const struct bgp_notification *notif,
				   char *text, size_t cap);

/* Shortest-form UTF-8 without surrogates (RFC 3629). */
bool bgp_utf8_valid(const uint8_t *s, size_t len);

/* ---------------------------------------------------------------------
 * ROUTE-REFRESH (RFC 2918, RFC 7313, ORF of RFC 5291).
 */

struct bgp_route_refresh {
	uint16_t afi;
	uint8_t subtype;
	uint8_t safi;
	/* The ORF part (RFC 5291 §4), when present. */
	bool has_orf;
	uint8_t when_to_refresh;
	const uint8_t *orf;		/* the ORF type/length/entries */
	size_t orf_len;
};

enum bgp_parse_status bgp_route_refresh_parse(const uint8_t *msg, size_t len,
					      struct bgp_route_refresh *rr,
					      struct bgp_error *err);

int bgp_route_refresh_build(uint8_t *buf, size_t cap, uint16_t afi,
			    uint8_t safi, uint8_t subtype);

/* ---------------------------------------------------------------------
 * Prefixes and UPDATE.
 */

struct bgp_prefix {
	uint8_t family;			/* enum bgp_family */
	uint8_t len;			/* bits */
	uint32_t path_id;		/* ADD-PATH id, 0 without ADD-PATH */
	uint8_t addr[16];		/* bits past len are zero */
};

/* "10.0.0.0/8", "2001:db8::/32"; returns 0 or -1. */
int bgp_prefix_parse(const char *text, struct bgp_prefix *prefix);
/* Into a buffer of at least BGP_PREFIX_STRLEN. */
#define BGP_PREFIX_STRLEN	64
char *bgp_prefix_str(const struct bgp_prefix *prefix, char *buf, size_t len);

/*
 * A run of NLRI of one family, already checked to be well formed: walk it
 * with bgp_nlri_next(). A family fared does not speak has known false and
 * yields nothing.
 */
struct bgp_nlri {
	bool present;
	bool known;
	uint16_t afi;
	uint8_t safi;
	uint8_t family;
	bool add_path;
	const uint8_t *data;
	size_t len;
};

/*
 * Reads the prefix at *pos and advances it; returns false at the end.
 * Safe on any struct bgp_nlri the parser produced.
 */
bool bgp_nlri_next(const struct bgp_nlri *nlri, size_t *pos,
		   struct bgp_prefix *prefix);
/* The number of prefixes in the run. */
size_t bgp_nlri_count(const struct bgp_nlri *nlri);

struct bgp_as_segment {
	uint8_t type;			/* enum bgp_as_segment_type */
	uint8_t count;
	const uint32_t *asns;		/* into the path's asns */
};

struct bgp_as_path {
	size_t n_segments;
	struct bgp_as_segment *segments;
	size_t n_asns;
	uint32_t *asns;
};

/* The RFC 4271 §9.1.2.2 length: a set counts 1, confederations 0. */
size_t bgp_as_path_length(const struct bgp_as_path *path);
void bgp_as_path_free(struct bgp_as_path *path);
/* "65001 {65002 65003}" into buf; returns buf. */
char *bgp_as_path_str(const struct bgp_as_path *path, char *buf, size_t len);

/*
 * An AS path packed into one array of 32-bit words with its segments
 * intact: per segment a head word BGP_AS_PACKED_HEAD(type, count), then
 * its count AS numbers. A parsed path packs into
 * bgp_as_path_packed_len() words.
 */
#define BGP_AS_PACKED_HEAD(type, count)	((uint32_t)(type) << 8 | (count))
size_t bgp_as_path_packed_len(const struct bgp_as_path *path);
void bgp_as_path_pack(const struct bgp_as_path *path, uint32_t *out);

#define BGP_MAX_KEPT_ATTRS	16

/* An attribute kept as it came (an unknown optional transitive one). */
struct bgp_raw_attr {
	uint8_t flags;
	uint8_t type;
	const uint8_t *value;
	size_t len;
};

struct bgp_attrs {
	uint64_t present;		/* 1ull << type of kept attributes */
	uint8_t origin;
	struct bgp_as_path as_path;	/* with AS4_PATH of old peers */
	uint8_t next_hop[4];
	uint32_t med;
	uint32_t local_pref;
	uint32_t aggregator_as;
	uint8_t aggregator_id[4];
	uint8_t originator_id[4];
	const uint8_t *cluster_list;
	size_t cluster_list_len;
	/* Communities are kept as wire bytes: 4, 8 and 12 octets each. */
	const uint8_t *communities;
	size_t communities_len;
	const uint8_t *ext_communities;
	size_t ext_communities_len;
	const uint8_t *large_communities;
	size_t large_communities_len;
	/* MP_REACH_NLRI next hop (RFC 2545 for IPv6: global + link-local). */
	uint8_t mp_next_hop_len;
	uint8_t mp_next_hop[16];
	uint8_t mp_next_hop_ll[16];
	bool mp_has_ll;
	/* Unknown optional transitive attributes, to pass on. */
	unsigned int n_kept;
	struct bgp_raw_attr kept[BGP_MAX_KEPT_ATTRS];
};

static inline bool bgp_attr_has(const struct bgp_attrs *attrs, unsigned int t)
{
	return t < 64 && (attrs->present & (1ull << t));
}

/* What the parser needs to know of the session. */
struct bgp_codec_opts {
	bool as4;			/* both sides sent capability 65 */
	bool ibgp;
	uint32_t add_path_rx;		/* families whose NLRI carry path ids */
	size_t max_len;			/* 4096, or 65535 (extended message) */
};

struct bgp_update {
	struct bgp_nlri withdrawn;	/* IPv4 unicast Withdrawn Routes */
	struct bgp_nlri nlri;		/* IPv4 unicast NLRI field */
	struct bgp_nlri mp_reach;
	struct bgp_nlri mp_unreach;
	struct bgp_attrs attrs;
	bool end_of_rib;		/* RFC 4724 §2; see eor_family */
	uint8_t eor_family;
	uint16_t eor_afi;
	uint8_t eor_safi;
	/*
	 * The strongest error found (action NONE if none). With
	 * TREAT_AS_WITHDRAW every prefix of nlri and mp_reach is withdrawn;
	 * with SESSION_RESET nothing of the message may be used.
	 */
	struct bgp_error error;
	unsigned int n_discarded;	/* attributes dropped by discard */
};

/*
 * Parses an UPDATE message (header included, header already checked).
 * Returns OK whenever the session survives (update->error.action says
 * what to do with the routes) and ERROR for a session reset. Free with
 * bgp_update_free() in either case.
 */
enum bgp_parse_status bgp_update_parse(const uint8_t *msg, size_t len,
				       const struct bgp_codec_opts *opts,
				       struct bgp_update *update);
void bgp_update_free(struct bgp_update *update);

/* What to advertise or withdraw: one UPDATE's worth. */
struct bgp_update_out {
	/* IPv4 unicast in the RFC 4271 fields. */
	const struct bgp_prefix *withdrawn;
	size_t n_withdrawn;
	const struct bgp_prefix *nlri;
	size_t n_nlri;
	/* Any family through MP_REACH / MP_UNREACH. */
	int mp_family;			/* enum bgp_family, or -1 for none */
	const struct bgp_prefix *mp_nlri;
	size_t n_mp_nlri;
	int mp_unreach_family;		/* -1 for none */
	const struct bgp_prefix *mp_withdrawn;
	size_t n_mp_withdrawn;
	/* Attributes, sent when there is anything to advertise. */
	uint8_t origin;
	const uint32_t *as_path;	/* one AS_SEQUENCE, nearest AS first */
	size_t as_path_len;
	/*
	 * Or, with path_packed, a packed AS path (bgp_as_path_pack()) sent
	 * with its segments as they are, after prepend_as unless that is 0
	 * (RFC 4271 §5.1.2: into a leading AS_SEQUENCE with room, else in
	 * a new one). Confederation segments are not sent to eBGP (RFC 5065
	 * §5.3) nor in AS4_PATH (RFC 6793 §3).
	 */
	bool path_packed;
	const uint32_t *packed_path;
	size_t packed_path_len;		/* words */
	uint32_t prepend_as;
	bool has_next_hop;
	uint8_t next_hop[4];
	bool has_med;
	uint32_t med;
	bool has_local_pref;
	uint32_t local_pref;
	const uint8_t *communities;
	size_t communities_len;
	const uint8_t *ext_communities;
	size_t ext_communities_len;
	const uint8_t *large_communities;
	size_t large_communities_len;
	uint8_t mp_next_hop[16];	/* IPv4 uses the first 4 octets */
	bool mp_has_ll;
	uint8_t mp_next_hop_ll[16];
	/*
	 * ATOMIC_AGGREGATE and AGGREGATOR (RFC 4271 §5.1.6-7); the AS in 2
	 * octets to an old speaker, AS_TRANS plus AS4_AGGREGATOR when it does
	 * not fit (RFC 6793 §4.2.2).
	 */
	bool atomic_aggregate;
	bool has_aggregator;
	uint32_t aggregator_as;
	uint8_t aggregator_id[4];
	/*
	 * Whole attributes (flags, type, length, value), written as they
	 * are after the others: the unknown optional transitive ones a
	 * transit speaker passes on (bgp_raw_attr_encode()).
	 */
	const uint8_t *raw_attrs;
	size_t raw_attrs_len;
};

/*
 * Encodes attribute a into buf (when buf is not NULL) with the Extended
 * Length flag as its length needs, plus the Partial flag when partial
 * (RFC 4271 §5: an unrecognized optional transitive attribute passed
 * on). Returns its length on the wire.
 */
size_t bgp_raw_attr_encode(uint8_t *buf, const struct bgp_raw_attr *a,
			   bool partial);

/*
 * Builds one UPDATE. AS numbers go out in 4 octets when opts->as4, else
 * in 2 with AS_TRANS for big ones plus an AS4_PATH (RFC 6793 §4.2.2).
 * Path ids are sent for families in add_path_tx. MP_REACH/MP_UNREACH come
 * first among the attributes (RFC 7606 §5.1).
 */
int bgp_update_build(uint8_t *buf, size_t cap,
		     const struct bgp_codec_opts *opts, uint32_t add_path_tx,
		     const struct bgp_update_out *out);

/* The End-of-RIB marker of a family (RFC 4724 §2). */
int bgp_eor_build(uint8_t *buf, size_t cap, enum bgp_family fam);

#endif /* FARED_BGP_H */
