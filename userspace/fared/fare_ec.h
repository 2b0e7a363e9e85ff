// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FARE extended communities, as pure codecs (no I/O, no allocation):
 *
 *  - Path Bandwidth (PB, draft-xu-idr-fare-04 §3; PROTOCOL.md §2.1-2.2):
 *    type 0x01 (transitive) or 0x41 (non-transitive), a configured
 *    sub-type (default 0x0f), the router id of the router that attached
 *    or last updated it, and the bandwidth in GB/s (10^9 bytes/s) as an
 *    IEEE 754 binary16, big-endian.
 *  - Link Bandwidth (RFC 10005; PROTOCOL.md §3.8): type 0x00 or 0x40,
 *    sub-type 0x04, a 2-octet AS and a binary32 in bytes/s; taken as a
 *    bandwidth source only when the configuration says so.
 *  - FIB-Suppress (draft-xu-idr-fare-in-mpson-00 §4.2.1): type 0x00, a
 *    configured sub-type (default 0x0f), the 2-octet AS (AS_TRANS for a
 *    4-octet one) and the router id.
 *  - UPA (PROTOCOL.md §6.1): Transitive Opaque 0x03, sub-type 0x09, flags
 *    (D = 0x80), a reserved octet and the originator's router id.
 *
 * The daemon calls fare_ec_find_bw() on a path's ext_communities bytes
 * (struct rib_attrs) to get the bandwidths the policy (fare_policy.h)
 * weighs, fare_pb_encode() to build the PB it re-advertises, and the
 * FIB-Suppress and UPA helpers to classify routes. Router ids and AS
 * numbers are in host order here; the 8 wire octets are big-endian.
 *
 * Bandwidths are uint64_t bits per second everywhere, FARE_BW_INF meaning
 * unbounded, so that the policy works in exact integers: every binary16 of
 * at least 0.25 GB/s is a whole number of bits per second (8e9 = 2^12 *
 * 5^9 and binary16 has 11 significant bits).
 */
#ifndef FARED_FARE_EC_H
#define FARED_FARE_EC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FARE_EC_LEN			8
#define FARE_PB_TYPE_TRANSITIVE		0x01
#define FARE_PB_TYPE_NON_TRANSITIVE	0x41
#define FARE_PB_SUBTYPE_DEFAULT		0x0f
#define FARE_PB_MAX			0x7bff	/* 65504 GB/s: "maximum" */
#define FARE_LB_TYPE_TRANSITIVE		0x00
#define FARE_LB_TYPE_NON_TRANSITIVE	0x40
#define FARE_LB_SUBTYPE			0x04
#define FARE_FS_TYPE			0x00
#define FARE_FS_SUBTYPE_DEFAULT		0x0f
#define FARE_UPA_TYPE			0x03
#define FARE_UPA_SUBTYPE		0x09
#define FARE_UPA_FLAG_DROP		0x80

#define FARE_BW_INF	UINT64_MAX

/*
 * IEEE 754 binary16 <-> double, exact: every binary16 is a double; a
 * double becomes the nearest binary16, ties to even, overflowing to
 * infinity (from 65520 up), NaN to a quiet NaN with its sign.
 */
double fare_half_to_double(uint16_t h);
uint16_t fare_half_from_double(double v);

/*
 * A PB value as bits per second: 0 and the nearest integer for a finite
 * non-negative value (ties up; only values under 0.25 GB/s round at all),
 * FARE_BW_INF for +infinity. NaN and anything with the sign bit set
 * (-0 included) return -1: the path is treated as carrying no PB
 * (PROTOCOL.md §2.2).
 */
int fare_pb_to_bps(uint16_t h, uint64_t *bps);
/*
 * The PB to send for bps: bps / 8e9 GB/s rounded to nearest-even, values
 * past the largest finite binary16 (and FARE_BW_INF) sent as FARE_PB_MAX.
 */
uint16_t fare_pb_from_bps(uint64_t bps);

struct fare_pb {
	bool transitive;
	uint32_t router_id;
	uint16_t value;			/* binary16, GB/s */
};

void fare_pb_encode(uint8_t ec[FARE_EC_LEN], const struct fare_pb *pb,
		    uint8_t subtype);
/* False when ec is not a PB of that sub-type. */
bool fare_pb_decode(const uint8_t ec[FARE_EC_LEN], uint8_t subtype,
		    struct fare_pb *pb);

struct fare_lb {
	bool transitive;
	uint16_t as;
	uint32_t value;			/* binary32 bits, bytes/s */
};

void fare_lb_encode(uint8_t ec[FARE_EC_LEN], const struct fare_lb *lb);
bool fare_lb_decode(const uint8_t ec[FARE_EC_LEN], struct fare_lb *lb);
/* As fare_pb_to_bps(), for an LB binary32 in bytes/s. */
int fare_lb_to_bps(uint32_t value, uint64_t *bps);
/* The binary32 bytes/s for bps (nearest), for tests and origination. */
uint32_t fare_lb_from_bps(uint64_t bps);

struct fare_ec_cfg {
	uint8_t pb_subtype;		/* FARE_PB_SUBTYPE_DEFAULT */
	bool accept_link_bw;		/* RFC 10005 LB stands in for PB */
	uint8_t fs_subtype;		/* FARE_FS_SUBTYPE_DEFAULT */
};

enum fare_bw_origin {
	FARE_BW_NONE,			/* no usable bandwidth */
	FARE_BW_PB,			/* a Path Bandwidth EC */
	FARE_BW_LB,			/* an RFC 10005 Link Bandwidth EC */
};

/* One kind (transitive or not) of bandwidth a path carries. */
struct fare_bw_src {
	enum fare_bw_origin origin;
	uint64_t bps;			/* when origin != FARE_BW_NONE */
	uint32_t router_id;		/* PB only */
	uint16_t raw;			/* PB only: the binary16 as received */
	bool invalid_pb;		/* a PB was there but NaN or negative */
};

struct fare_path_bw {
	struct fare_bw_src t;		/* transitive */
	struct fare_bw_src nt;		/* non-transitive */
};

/*
 * The bandwidths in a path's ext communities (len a multiple of 8; a
 * trailing partial community is ignored). Per kind the first valid PB
 * wins; without one, and with cfg->accept_link_bw, the first LB of that
 * kind stands in.
 */
void fare_ec_find_bw(const uint8_t *ecs, size_t len,
		     const struct fare_ec_cfg *cfg, struct fare_path_bw *bw);

struct fare_fs {
	uint16_t as;
	uint32_t router_id;
};

/* local_as past 65535 is sent as AS_TRANS (23456, RFC 6793). */
void fare_fs_encode(uint8_t ec[FARE_EC_LEN], uint32_t local_as,
		    uint32_t router_id, uint8_t subtype);
bool fare_fs_decode(const uint8_t ec[FARE_EC_LEN], uint8_t subtype,
		    struct fare_fs *fs);
bool fare_ec_has_fs(const uint8_t *ecs, size_t len, uint8_t subtype);

struct fare_upa {
	bool drop;			/* the D flag */
	uint32_t router_id;
};

void fare_upa_encode(uint8_t ec[FARE_EC_LEN], const struct fare_upa *upa);
/* Unknown flag bits and the reserved octet are ignored on receipt. */
bool fare_upa_decode(const uint8_t ec[FARE_EC_LEN], struct fare_upa *upa);
/*
 * Whether the path is a UPA route: the number of UPA communities (one per
 * originator); *drop is set when any has D.
 */
size_t fare_ec_find_upa(const uint8_t *ecs, size_t len, bool *drop);

#endif /* FARED_FARE_EC_H */
