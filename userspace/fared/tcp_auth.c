// SPDX-License-Identifier: GPL-2.0-only
/*
 * TCP-MD5, TCP-AO and GTSM on fared's sockets (tcp_auth.h). As BIRD, FRR
 * and OpenBGPD on Linux do it: TCP_MD5SIG per peer address on every
 * socket, the TCP-AO master key tuple with TCP_AO_ADD_KEY (Linux 6.7 and
 * later, when built with CONFIG_TCP_AO), IP_MINTTL and IPV6_MINHOPCOUNT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fared.h"
#include "tcp_auth.h"

#ifndef IP_MINTTL
#define IP_MINTTL		21
#endif
#ifndef IPV6_MINHOPCOUNT
#define IPV6_MINHOPCOUNT	73
#endif

/*
 * RFC 5082 §3: send with 255 and, the peer being directly connected,
 * accept 255 only: 254 would let in a sender one router away. BIRD ("ttl
 * security") and FRR ("ttl-security hops 1") set the same.
 */
#define GTSM_TTL		255
#define GTSM_MIN_TTL		255

/*
 * Linux's uapi <linux/tcp.h> from 6.7, which the C library's headers may
 * predate: the layout is the kernel's ABI.
 */
#define FARED_TCP_AO_ADD_KEY	38
#define FARED_TCP_AO_DEL_KEY	39

struct fared_tcp_ao_add {
	struct sockaddr_storage addr;
	char alg_name[64];
	int32_t ifindex;
	uint32_t set_current:1, set_rnext:1, reserved:30;
	uint16_t reserved2;
	uint8_t prefix;
	uint8_t sndid;
	uint8_t rcvid;
	uint8_t maclen;
	uint8_t keyflags;
	uint8_t keylen;
	uint8_t key[FARED_TCP_KEY_MAX];
} __attribute__((aligned(8)));

struct fared_tcp_ao_del {
	struct sockaddr_storage addr;
	int32_t ifindex;
	uint32_t set_current:1, set_rnext:1, del_async:1, reserved:29;
	uint16_t reserved2;
	uint8_t prefix;
	uint8_t sndid;
	uint8_t rcvid;
	uint8_t current_key;
	uint8_t rnext;
	uint8_t keyflags;
} __attribute__((aligned(8)));

/* The kernel's names (RFC 5926 §3.1.1.2's KDF for CMAC: "cmac(aes128)"). */
static const char *const ao_kernel_alg[] = {
	[FARED_AO_HMAC_SHA1] = "hmac(sha1)",
	[FARED_AO_CMAC_AES_128] = "cmac(aes128)",
};

static const char *const ao_alg_text[] = {
	[FARED_AO_HMAC_SHA1] = "hmac-sha1",
	[FARED_AO_CMAC_AES_128] = "cmac-aes-128",
};

static int nb_af(const struct fared_neighbor *nb)
{
	return nb->family == BGP_FAM_IPV4_UNICAST ? AF_INET : AF_INET6;
}

/* The neighbor's address, port 0, as the key options take it. */
static void nb_addr(const struct fared_neighbor *nb,
		    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (nb_af(nb) == AF_INET) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, nb->addr, 4);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, nb->addr, 16);
	}
}

/* key NULL: the address's key is removed. */
static int md5_set(int fd, const struct fared_neighbor *nb,
		   const uint8_t *key, uint8_t len)
{
	struct tcp_md5sig m;
	int err = 0;

	memset(&m, 0, sizeof(m));
	nb_addr(nb, &m.tcpm_addr);
	if (key) {
		m.tcpm_keylen = len;
		memcpy(m.tcpm_key, key, len);
	}
	if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &m, sizeof(m)))
		err = -errno;
	explicit_bzero(&m, sizeof(m));
	return err;
}

/* The key addr: a peer's address (/32 or /128), or the probe's. */
static int ao_add(int fd, const struct sockaddr_storage *addr,
		  const struct fared_auth *a)
{
	struct fared_tcp_ao_add k;
	int err = 0;

	memset(&k, 0, sizeof(k));
	k.addr = *addr;
	k.prefix = addr->ss_family == AF_INET ? 32 : 128;
	snprintf(k.alg_name, sizeof(k.alg_name), "%s",
		 ao_kernel_alg[a->ao_alg]);
	k.sndid = a->ao_send_id;
	k.rcvid = a->ao_recv_id;
	k.keylen = a->ao_len;
	memcpy(k.key, a->ao_key, a->ao_len);
	if (setsockopt(fd, IPPROTO_TCP, FARED_TCP_AO_ADD_KEY, &k, sizeof(k)))
		err = -errno;
	explicit_bzero(&k, sizeof(k));
	return err;
}

static int ao_del(int fd, const struct fared_neighbor *nb)
{
	struct fared_tcp_ao_del k;

	memset(&k, 0, sizeof(k));
	nb_addr(nb, &k.addr);
	k.prefix = nb_af(nb) == AF_INET ? 32 : 128;
	k.sndid = nb->auth.ao_send_id;
	k.rcvid = nb->auth.ao_recv_id;
	k.del_async = 1;	/* a listening socket's: no current key */
	if (setsockopt(fd, IPPROTO_TCP, FARED_TCP_AO_DEL_KEY, &k, sizeof(k)))
		return -errno;
	return 0;
}

static int ttl_set(int fd, int af, int ttl, int min_ttl)
{
	int lvl = af == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;

	if (setsockopt(fd, lvl, af == AF_INET ? IP_TTL : IPV6_UNICAST_HOPS,
		       &ttl, sizeof(ttl)))
		return -errno;
	if (min_ttl >= 0 &&
	    setsockopt(fd, lvl, af == AF_INET ? IP_MINTTL : IPV6_MINHOPCOUNT,
		       &min_ttl, sizeof(min_ttl)))
		return -errno;
	return 0;
}

/*
 * Whether this kernel takes a (the TCP-AO key or the TCP-MD5 password) on
 * a fresh socket: 0, or -errno (ENOPROTOOPT: the kernel lacks the option;
 * ENOENT: it lacks the algorithm).
 */
static int probe(const struct fared_auth *a)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (void *)&ss;
	struct tcp_md5sig m;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (a->ao) {
		err = ao_add(fd, &ss, a);
	} else {
		memset(&m, 0, sizeof(m));
		memcpy(&m.tcpm_addr, &ss, sizeof(ss));
		m.tcpm_keylen = 1;
		m.tcpm_key[0] = 'p';
		if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &m, sizeof(m)))
			err = -errno;
	}
	close(fd);
	return err;
}

/* A neighbor's keys against the kernel: errors printed, counted. */
static int check_neighbor(const char *path, const struct fared_neighbor *nb,
			  FILE *err)
{
	const struct fared_auth *a = &nb->auth;
	int e;

	if (!a->ao && !a->md5_len)
		return 0;
	e = probe(a);
	if (!e)
		return 0;
	if (a->ao && (e == -ENOPROTOOPT || e == -EOPNOTSUPP))
		fprintf(err, "%s:%d: neighbor %s: tcp-ao: this kernel lacks "
			"TCP-AO (RFC 5925; Linux 6.7 or later built with "
			"CONFIG_TCP_AO): refusing to run the session "
			"unauthenticated\n", path, a->ao_line, nb->addr_text);
	else if (a->ao && e == -ENOENT)
		fprintf(err, "%s:%d: neighbor %s: tcp-ao: this kernel lacks "
			"the algorithm %s (%s)\n", path, a->ao_line,
			nb->addr_text, ao_alg_text[a->ao_alg],
			ao_kernel_alg[a->ao_alg]);
	else if (a->ao)
		fprintf(err, "%s:%d: neighbor %s: tcp-ao: the kernel refuses "
			"the key: %s\n", path, a->ao_line, nb->addr_text,
			strerror(-e));
	else if (e == -ENOPROTOOPT || e == -EOPNOTSUPP)
		fprintf(err, "%s:%d: neighbor %s: password: this kernel lacks "
			"TCP-MD5 (RFC 2385, CONFIG_TCP_MD5SIG): refusing to run "
			"the session unauthenticated\n", path, a->md5_line,
			nb->addr_text);
	else
		fprintf(err, "%s:%d: neighbor %s: password: the kernel "
			"refuses the key: %s\n", path, a->md5_line,
			nb->addr_text, strerror(-e));
	return 1;
}

int tcp_auth_check(const char *path, const struct fared_config *cfg,
		   FILE *err)
{
	bool secrets = false;
	int errors = 0;
	struct stat st;
	size_t i;

	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];

		secrets |= nb->auth.ao || nb->auth.md5_len;
		errors += check_neighbor(path, nb, err);
	}
	if (secrets && !stat(path, &st) && (st.st_mode & S_IROTH))
		fprintf(err, "%s: warning: the file holds TCP-MD5/TCP-AO "
			"secrets and every user may read it (mode %04o): "
			"chmod o-r it\n", path, (unsigned int)st.st_mode & 07777);
	return errors;
}

int tcp_auth_connecting(int fd, const struct fared_neighbor *nb)
{
	const struct fared_auth *a = &nb->auth;
	struct sockaddr_storage ss;
	int err = 0;

	if (a->md5_len)
		err = md5_set(fd, nb, a->md5_key, a->md5_len);
	if (!err && a->ao) {
		nb_addr(nb, &ss);
		err = ao_add(fd, &ss, a);
	}
	if (!err && a->ttl_security)
		err = ttl_set(fd, nb_af(nb), GTSM_TTL, GTSM_MIN_TTL);
	return err;
}

/*
 * The TTL (hop limit) the connection's SYN arrived with, from the copy
 * the listener saved (TCP_SAVE_SYN): 0..255, or -errno.
 */
static int syn_ttl(int fd)
{
	uint8_t syn[512];
	socklen_t len = sizeof(syn);

	if (getsockopt(fd, IPPROTO_TCP, TCP_SAVED_SYN, syn, &len))
		return -errno;
	if (len >= 20 && syn[0] >> 4 == 4)
		return syn[8];
	if (len >= 40 && syn[0] >> 4 == 6)
		return syn[7];
	return -EPROTO;
}

int tcp_auth_accepted(int fd, const struct fared_neighbor *nb,
		      const char *from)
{
	int ttl, err;

	if (nb->auth.listener_failed) {
		fared_log("connection from %s: the listener has no %s key "
			  "for it: closed", from, tcp_auth_name(&nb->auth));
		return -ENOKEY;
	}
	if (!nb->auth.ttl_security)
		return 0;
	/*
	 * IP_MINTTL set now would not cover what arrived before accept():
	 * the peer's OPEN may be queued already. The SYN's TTL decides.
	 */
	ttl = syn_ttl(fd);
	if (ttl < 0) {
		fared_log("connection from %s: GTSM: no saved SYN (%s): "
			  "closed", from, strerror(-ttl));
		return ttl;
	}
	if (ttl < GTSM_MIN_TTL) {
		fared_log("connection from %s: GTSM: its SYN arrived with TTL "
			  "%d, not %d (not directly connected): closed", from,
			  ttl, GTSM_MIN_TTL);
		return -EACCES;
	}
	err = ttl_set(fd, nb_af(nb), GTSM_TTL, GTSM_MIN_TTL);
	if (err)
		fared_log("connection from %s: GTSM: %s: closed", from,
			  strerror(-err));
	return err;
}

static bool ao_equal(const struct fared_auth *a, const struct fared_auth *b)
{
	if (a->ao != b->ao)
		return false;
	return !a->ao ||
	       (a->ao_send_id == b->ao_send_id &&
		a->ao_recv_id == b->ao_recv_id && a->ao_alg == b->ao_alg &&
		a->ao_len == b->ao_len &&
		!memcmp(a->ao_key, b->ao_key, a->ao_len));
}

bool tcp_auth_equal(const struct fared_auth *a, const struct fared_auth *b)
{
	return a->md5_len == b->md5_len &&
	       !memcmp(a->md5_key, b->md5_key, a->md5_len) && ao_equal(a, b) &&
	       a->ttl_security == b->ttl_security;
}

const char *tcp_auth_name(const struct fared_auth *a)
{
	if (a->md5_len)
		return a->ttl_security ? "TCP-MD5+GTSM" : "TCP-MD5";
	if (a->ao)
		return a->ttl_security ? "TCP-AO+GTSM" : "TCP-AO";
	return a->ttl_security ? "GTSM" : "none";
}

/* cfg's neighbor at nb's address, or NULL. */
static const struct fared_neighbor *
same_address(const struct fared_config *cfg, const struct fared_neighbor *nb)
{
	size_t i;

	for (i = 0; i < cfg->n_neighbors; i++)
		if (cfg->neighbors[i].family == nb->family &&
		    !memcmp(cfg->neighbors[i].addr, nb->addr, 16))
			return &cfg->neighbors[i];
	return NULL;
}

/* Removes what old's neighbors of af put on the listener and cfg drops. */
static void listener_drop(int fd, int af, const struct fared_config *old,
			  const struct fared_config *cfg)
{
	const struct fared_neighbor *o, *n;
	size_t i;
	int err;

	for (i = 0; i < old->n_neighbors; i++) {
		o = &old->neighbors[i];
		if (nb_af(o) != af || o->auth.listener_failed)
			continue;
		n = same_address(cfg, o);
		if (o->auth.md5_len && (!n || !n->auth.md5_len)) {
			err = md5_set(fd, o, NULL, 0);
			if (err)
				fared_log("neighbor %s: removing its TCP-MD5 "
					  "key from the listener: %s",
					  o->addr_text, strerror(-err));
		}
		if (o->auth.ao && (!n || !ao_equal(&o->auth, &n->auth))) {
			err = ao_del(fd, o);
			if (err)
				fared_log("neighbor %s: removing its TCP-AO "
					  "key from the listener: %s",
					  o->addr_text, strerror(-err));
		}
	}
}

int tcp_auth_listener(int fd, int af, const struct fared_config *old,
		      struct fared_config *cfg)
{
	const struct fared_neighbor *o;
	struct sockaddr_storage ss;
	bool gtsm = false;
	int failed = 0, err;
	size_t i;

	if (fd < 0)
		return 0;
	if (old)
		listener_drop(fd, af, old, cfg);
	for (i = 0; i < cfg->n_neighbors; i++) {
		struct fared_neighbor *nb = &cfg->neighbors[i];

		if (nb_af(nb) != af)
			continue;
		gtsm |= nb->auth.ttl_security;
		o = old ? same_address(old, nb) : NULL;
		err = 0;
		if (nb->auth.md5_len)
			/* Replaces the address's key, if any. */
			err = md5_set(fd, nb, nb->auth.md5_key,
				      nb->auth.md5_len);
		else if (nb->auth.ao &&
			 (!o || o->auth.listener_failed ||
			  !ao_equal(&o->auth, &nb->auth))) {
			nb_addr(nb, &ss);
			err = ao_add(fd, &ss, &nb->auth);
		}
		if (err) {
			nb->auth.listener_failed = true;
			failed++;
			fared_log("neighbor %s: the %s listener refuses its %s "
				  "key: %s; its incoming connections are "
				  "refused", nb->addr_text,
				  af == AF_INET ? "IPv4" : "IPv6",
				  nb->auth.ao ? "TCP-AO" : "TCP-MD5",
				  strerror(-err));
		}
	}
	/*
	 * -1: the default TTL (hop limit) again. With GTSM the SYN-ACK
	 * must reach the peer with 255, and tcp_auth_accepted() reads the
	 * TTL the SYN came with.
	 */
	err = ttl_set(fd, af, gtsm ? GTSM_TTL : -1, -1);
	if (!err && setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &(int){ gtsm },
			       sizeof(int)))
		err = -errno;
	if (err)
		fared_log("%s listener: GTSM: %s",
			  af == AF_INET ? "IPv4" : "IPv6", strerror(-err));
	return failed;
}
