// SPDX-License-Identifier: GPL-2.0-only
/*
 * BFD (RFC 5880 asynchronous mode, RFC 5881 single hop) per neighbor
 * configured with "bfd": fared's fast failure detection of a plane whose
 * leaf stops forwarding with its links up.
 *
 * One session per such neighbor, on UDP port 3784 from a source port of
 * its own in 49152-65535, sent with TTL (hop limit) 255 and accepted only
 * with 255 (RFC 5881 §5), over the neighbor's interface. No Demand mode,
 * no Echo function, no authentication: a packet with the A bit is refused
 * (and counted), as RFC 5880 §6.8.6 asks of a session without it.
 *
 * What a session's change means to the rest of fared goes through the
 * changed callback (fared.c): a session that was Up and goes Down (its
 * Detection Time expired, or the neighbor said Down) has failed: its
 * plane is held out of fare.ko (bfd_plane_held()) until the session is
 * Up again, and its BGP session is ended. A session that never came Up
 * fails nothing (RFC 5882 §3.2: a peer without BFD keeps its session and
 * plane), nor does a neighbor's AdminDown (RFC 5882 §3.2).
 */
#ifndef FARED_BFD_H
#define FARED_BFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loop.h"

#define BFD_PORT		3784
#define BFD_SRC_PORT_MIN	49152
#define BFD_TTL			255
#define BFD_VERSION		1
#define BFD_PKT_LEN		24
/* RFC 5880 §6.8.3: while not Up, at least one second between packets. */
#define BFD_SLOW_TX_US		1000000u

enum bfd_state {
	BFD_ADMIN_DOWN,
	BFD_DOWN,
	BFD_INIT,
	BFD_UP,
};

enum bfd_diag {
	BFD_DIAG_NONE,
	BFD_DIAG_DETECT_EXPIRED,	/* Control Detection Time Expired */
	BFD_DIAG_ECHO_FAILED,
	BFD_DIAG_NEIGHBOR_DOWN,		/* Neighbor Signaled Session Down */
	BFD_DIAG_FWD_RESET,
	BFD_DIAG_PATH_DOWN,
	BFD_DIAG_CONCAT_DOWN,
	BFD_DIAG_ADMIN_DOWN,		/* Administratively Down */
	BFD_DIAG_REV_CONCAT_DOWN,
};

#define BFD_F_POLL	0x20
#define BFD_F_FINAL	0x10
#define BFD_F_CPI	0x08
#define BFD_F_AUTH	0x04
#define BFD_F_DEMAND	0x02
#define BFD_F_MULTI	0x01

/* An RFC 5880 §4.1 control packet, intervals in microseconds. */
struct bfd_pkt {
	uint8_t diag;
	uint8_t state;			/* enum bfd_state */
	uint8_t flags;			/* BFD_F_* */
	uint8_t mult;
	uint32_t my_discr, your_discr;
	uint32_t desired_min_tx, required_min_rx, required_min_echo_rx;
};

const char *bfd_state_name(unsigned int state);
const char *bfd_diag_name(unsigned int diag);
/* p into buf (at least BFD_PKT_LEN bytes); returns BFD_PKT_LEN. */
size_t bfd_pkt_build(const struct bfd_pkt *p, uint8_t *buf);
/*
 * The §6.8.6 checks a packet passes before any session sees it: NULL
 * and p filled, or why it is discarded.
 */
const char *bfd_pkt_parse(const uint8_t *buf, size_t len, struct bfd_pkt *p);
/*
 * The §6.8.6 state table: the state a session in local goes to when a
 * packet says remote (local AdminDown: no change).
 */
enum bfd_state bfd_next_state(enum bfd_state local, enum bfd_state remote);

struct fared;
struct fared_neighbor;
struct bfd;
struct bfd_session;

/*
 * s's state changed; failed: it was Up and is Down now (not by an
 * AdminDown of either side).
 */
typedef void (*bfd_changed_fn)(struct fared *d, struct bfd_session *s,
			       bool failed);

/* The engine of d; NULL when out of memory. */
struct bfd *bfd_new(struct fared *d, bfd_changed_fn changed);
/* Every session sends AdminDown (RFC 5880 §6.8.16) and goes. */
void bfd_free(struct bfd *b);
/*
 * The sessions of d->cfg's neighbors with "bfd": new ones start, those
 * whose neighbor lost "bfd" or went send AdminDown and go, those whose
 * interval or multiplier changed start a Poll Sequence (§6.8.3). Called
 * at start and after a reload.
 */
void bfd_sync(struct bfd *b);
/* Whether a failed session (see above) holds plane out of fare.ko. */
bool bfd_plane_held(const struct bfd *b, unsigned int plane);
/* The session of the neighbor at family/addr (BGP_FAM_*), or NULL. */
struct bfd_session *bfd_find(const struct bfd *b, int family,
			     const uint8_t *addr);

/* For the log and the control socket. */
struct bfd_info {
	enum bfd_state state, remote_state;
	uint8_t local_diag, remote_diag;
	uint32_t local_discr, remote_discr;
	uint32_t tx_us, detect_us;	/* now in use; 0: none */
	uint8_t mult;
	bool failed;			/* holds its plane */
	uint64_t since_ms;		/* last state change (loop_now_ms) */
	unsigned int ups, failures;
	uint64_t rx, tx, rx_refused;
};

void bfd_session_info(const struct bfd_session *s, struct bfd_info *out);
int bfd_session_family(const struct bfd_session *s);
const uint8_t *bfd_session_addr(const struct bfd_session *s);
unsigned int bfd_session_plane(const struct bfd_session *s);

#endif /* FARED_BFD_H */
