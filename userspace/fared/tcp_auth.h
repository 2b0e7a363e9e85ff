// SPDX-License-Identifier: GPL-2.0-only
/*
 * Session protection on fared's sockets: TCP-MD5 (RFC 2385), TCP-AO
 * (RFC 5925) and GTSM (RFC 5082), per neighbor (struct fared_auth).
 *
 * A key is set on the connecting socket before connect() and, per peer
 * address, on the listening sockets before the peer can connect: the
 * kernel then drops every segment from that address that does not carry
 * the right signature, and an accepted socket inherits the key. GTSM sends
 * with TTL (hop limit) 255 and drops what arrives with less (RFC 5082 §3).
 */
#ifndef FARED_TCP_AUTH_H
#define FARED_TCP_AUTH_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"

/*
 * What the kernel cannot do for cfg (TCP-AO, or its algorithm, missing;
 * TCP-MD5 missing), each as "path:line: problem"; and a warning when the
 * file holds secrets and every user may read it. Returns the number of
 * errors: a configuration that asks for protection the kernel lacks is
 * refused, never run unprotected.
 */
int tcp_auth_check(const char *path, const struct fared_config *cfg,
		   FILE *err);

/* Before connect(): nb's key and GTSM on fd; 0 or -errno. */
int tcp_auth_connecting(int fd, const struct fared_neighbor *nb);

/*
 * After accept() of a connection from nb (from: its address, for the log):
 * GTSM's check of the SYN's TTL, and GTSM on fd. -errno, logged, when fd
 * must be closed: the SYN came from further away, GTSM could not be set,
 * or the listener has no key for nb (listener_failed).
 */
int tcp_auth_accepted(int fd, const struct fared_neighbor *nb,
		      const char *from);

/*
 * The listening socket fd (family af) gets the keys of cfg's neighbors of
 * that family and loses those of old's (NULL at start) that cfg no longer
 * has or has changed; its TTL is 255 when a neighbor uses GTSM (the
 * SYN-ACK must reach a GTSM peer). A neighbor whose key the socket did
 * not take is marked listener_failed and logged. Returns how many failed.
 */
int tcp_auth_listener(int fd, int af, const struct fared_config *old,
		      struct fared_config *cfg);

/* Whether a and b protect a session alike (a reload need not reset it). */
bool tcp_auth_equal(const struct fared_auth *a, const struct fared_auth *b);

/* "TCP-MD5", "TCP-AO" or "none", with "+GTSM": for logs, never a key. */
const char *tcp_auth_name(const struct fared_auth *a);

#endif /* FARED_TCP_AUTH_H */
