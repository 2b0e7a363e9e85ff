// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared, the BGP daemon of fare: one thread, one event loop. It keeps a
 * session per configured neighbor, feeds what import policy accepts into
 * the RIB, answers the control socket and reloads on SIGHUP. SIGTERM with
 * graceful-restart configured is a restart (fared.8, RESTART): the peers
 * are left so that they keep our routes, fare.ko keeps its routes for the
 * next fared to adopt. SIGINT, and SIGTERM without graceful-restart, stop:
 * a Cease (a Hard Reset where RFC 8538 was negotiated) and fare.ko
 * flushed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef FARED_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "adj_out.h"
#include "bfd.h"
#include "config.h"
#include "ctl.h"
#include "fare_sync.h"
#include "fared.h"
#include "orf_want.h"
#include "peer.h"
#include "privs.h"
#include "tcp_auth.h"

#define DEFAULT_CONFIG	"/etc/fare/fared.conf"

static struct ctl ctl;
static const char *config_path = DEFAULT_CONFIG;
static bool verbose;
static int stop_signal;
static struct privs privs;

static void usage(FILE *f)
{
	fprintf(f, "usage: fared [-n] [-v] [-R] [-c FILE] [-u USER [-g GROUP]]\n"
		"  -c FILE  configuration (default " DEFAULT_CONFIG ")\n"
		"  -g GROUP with -u: run with this group (default USER's)\n"
		"  -n       check the configuration and exit: 0 when it is "
		"valid,\n"
		"           1 with every problem listed as "
		"FILE:LINE: problem\n"
		"  -R       start as a restarting speaker (RFC 4724) even if "
		"the\n"
		"           last run ended cleanly\n"
		"  -u USER  started as root: run as USER with "
		"CAP_NET_ADMIN and\n"
		"           CAP_NET_BIND_SERVICE only\n"
		"  -v       log every RIB change\n");
}

/*
 * Tells systemd (Type=notify) what fared is doing: READY=1 once the
 * configuration is loaded and fare.ko's planes exist, RELOADING=1 and
 * READY=1 around a SIGHUP reload, STOPPING=1 on the way out. Without
 * NOTIFY_SOCKET in the environment sd_notify() does nothing; a build
 * without libsystemd never notifies.
 */
static void notify(const char *state)
{
#ifdef FARED_SYSTEMD
	int err = sd_notify(0, state);

	if (err < 0)
		fared_log("sd_notify: %s", strerror(-err));
#else
	(void)state;
#endif
}

/* The directory that holds PATH (/run/fared by default), made if missing. */
static void make_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	privs_make_dir(&privs, dir);
}

/*
 * The one place the RIB's change feed goes: the FARE side weighs the
 * prefix's paths per plane and queues what fare.ko must change.
 */
static void rib_changed(const struct rib_entry *e, void *arg)
{
	static unsigned int since_busy;
	struct fared *d = arg;
	char pfx[BGP_PREFIX_STRLEN];

	fare_sync_changed(d, e);
	/* A drain of a whole table (a flushed peer) takes seconds too. */
	if (++since_busy % 4096 == 0)
		loop_tick(&d->loop);
	if (verbose)
		fared_log("rib: %s now has %zu path%s",
			  bgp_prefix_str(&e->prefix, pfx, sizeof(pfx)),
			  (size_t)e->n_paths, e->n_paths == 1 ? "" : "s");
}

/* A session's events (fared.h): where each one goes. */
static const struct fared_hooks hooks = {
	.export = adj_out_export,
	.down = adj_out_peer_down,
	.writable = adj_out_drain,
	.pending = adj_out_pending,
	.eor = fare_sync_eor,
	.forwarding = fare_sync_forwarding,
	.selecting = fare_sync_selecting,
};

static struct peer *peer_by_addr(struct fared *d, int family,
				 const uint8_t *addr);

/*
 * A BFD session changed (bfd.h): BFD's holds go to fare.ko first, one
 * request per plane, and only then does a failed neighbor's BGP session
 * end, whose routes then leave fare.ko in the next batch. s NULL: a
 * session went with a reload.
 */
static void bfd_changed(struct fared *d, struct bfd_session *s, bool failed)
{
	struct peer *p;

	fare_sync_planes_held(d);
	if (!s || !failed)
		return;
	p = peer_by_addr(d, bfd_session_family(s), bfd_session_addr(s));
	if (p)
		peer_bfd_down(p);
}

static void idle(struct loop *l)
{
	struct fared *d = l->arg;

	if (rib_pending(d->rib))
		rib_drain(d->rib, rib_changed, d);
	/* One batch per loop iteration, however many prefixes changed. */
	fare_sync_idle(d);
}

static void tick(struct loop *l)
{
	peers_keepalives_due(l->arg);
}

static struct peer *peer_by_addr(struct fared *d, int family,
				 const uint8_t *addr)
{
	size_t i;

	for (i = 0; i < d->n_peers; i++)
		if (d->peers[i]->nb->family == family &&
		    !memcmp(d->peers[i]->nb->addr, addr,
			    family == BGP_FAM_IPV4_UNICAST ? 4 : 16))
			return d->peers[i];
	return NULL;
}

static void listen_ready(struct io *io, uint32_t events)
{
	struct fared *d = io->arg;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	const struct sockaddr_in6 *s6 = (void *)&ss;
	const struct sockaddr_in *s4 = (void *)&ss;
	struct peer *p = NULL;
	char text[INET6_ADDRSTRLEN] = "?";
	int fd;

	(void)events;
	fd = accept4(io->fd, (struct sockaddr *)&ss, &len,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (ss.ss_family == AF_INET) {
		p = peer_by_addr(d, BGP_FAM_IPV4_UNICAST,
				 (const uint8_t *)&s4->sin_addr);
		inet_ntop(AF_INET, &s4->sin_addr, text, sizeof(text));
	} else if (ss.ss_family == AF_INET6) {
		p = peer_by_addr(d, BGP_FAM_IPV6_UNICAST,
				 (const uint8_t *)&s6->sin6_addr);
		inet_ntop(AF_INET6, &s6->sin6_addr, text, sizeof(text));
	}
	if (!p) {
		fared_log("connection from %s, not a neighbor: closed", text);
		close(fd);
		return;
	}
	if (tcp_auth_accepted(fd, p->nb, text)) {
		close(fd);
		return;
	}
	peer_accept(p, fd);
}

static int open_listener(struct fared *d, int af, struct io *io)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (void *)&ss;
	struct sockaddr_in6 *s6 = (void *)&ss;
	socklen_t len;
	int fd, one = 1;

	fd = socket(af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (af == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(BGP_PORT);
		len = sizeof(*s4);
	} else {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(BGP_PORT);
		len = sizeof(*s6);
	}
	/*
	 * Keys before listen(): no peer connects without its key. One the
	 * socket refuses marks its neighbor (listener_failed), whose
	 * connections listen_ready() then refuses.
	 */
	tcp_auth_listener(fd, af, NULL, &d->cfg);
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64) ||
	    io_add(&d->loop, io, fd, EPOLLIN, listen_ready, d)) {
		fared_log("cannot listen on %s port %d: %s",
			  af == AF_INET ? "IPv4" : "IPv6", BGP_PORT,
			  strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int add_peer(struct fared *d, const struct fared_neighbor *nb)
{
	struct peer **v = realloc(d->peers, (d->n_peers + 1) * sizeof(*v));
	struct peer *p;

	if (!v)
		return -1;
	d->peers = v;
	p = peer_new(d, nb);
	if (!p)
		return -1;
	d->peers[d->n_peers++] = p;
	peer_start(p);
	return 0;
}

static bool policies_equal(const struct fared_config *a, int ia,
			   const struct fared_config *b, int ib)
{
	const struct fared_policy *pa, *pb;
	size_t i;

	if (ia < 0 || ib < 0)
		return ia == ib;
	pa = &a->policies[ia];
	pb = &b->policies[ib];
	if (pa->n_rules != pb->n_rules)
		return false;
	for (i = 0; i < pa->n_rules; i++) {
		const struct fared_rule *x = &pa->rules[i], *y = &pb->rules[i];

		if (x->permit != y->permit || x->any != y->any ||
		    x->ge != y->ge || x->le != y->le ||
		    memcmp(&x->prefix, &y->prefix, sizeof(x->prefix)))
			return false;
	}
	return true;
}

/* What a change of needs a new session; policies are handled softly. */
static bool session_equal(const struct fared_neighbor *a,
			  const struct fared_neighbor *b)
{
	return a->plane == b->plane && a->remote_as == b->remote_as &&
	       !strcmp(a->interface, b->interface) &&
	       a->families == b->families && a->hold_time == b->hold_time &&
	       a->connect_retry == b->connect_retry &&
	       a->passive == b->passive && a->orf == b->orf &&
	       a->add_path_rx == b->add_path_rx &&
	       a->neighbor_as_unchecked == b->neighbor_as_unchecked &&
	       tcp_auth_equal(&a->auth, &b->auth);
}

static bool originates_equal(const struct fared_config *a,
			     const struct fared_config *b)
{
	size_t i;

	if (a->n_originates != b->n_originates)
		return false;
	for (i = 0; i < a->n_originates; i++) {
		const struct fared_originate *x = &a->originates[i];
		const struct fared_originate *y = &b->originates[i];

		if (memcmp(&x->prefix, &y->prefix, sizeof(x->prefix)) ||
		    x->ext_communities_len != y->ext_communities_len ||
		    (x->ext_communities_len &&
		     memcmp(x->ext_communities, y->ext_communities,
			    x->ext_communities_len)))
			return false;
	}
	return true;
}

/*
 * SIGHUP: sessions whose neighbor did not change stay up; a changed one
 * restarts, a removed one is told it was deconfigured, a new one starts.
 * Policy and originate changes are applied without a reset: export is
 * redone, import asks the peer for a route refresh.
 */
/*
 * Which running neighbor each of cfg's is (keep[k], used[k]); those
 * removed, or changed (global: every one), are freed.
 */
static void reload_match(struct fared *d, const struct fared_config *cfg,
			 bool global, struct peer **keep, bool *used)
{
	size_t i, k;

	for (i = 0; i < d->n_peers; i++) {
		struct peer *p = d->peers[i];
		const struct fared_neighbor *o = p->nb;

		for (k = 0; k < cfg->n_neighbors; k++)
			if (cfg->neighbors[k].family == o->family &&
			    !memcmp(cfg->neighbors[k].addr, o->addr, 16))
				break;
		if (k == cfg->n_neighbors) {
			fared_log("reload: neighbor %s removed", p->name);
			peer_free(p, BGP_CEASE_PEER_DECONFIGURED, NULL);
			continue;
		}
		used[k] = true;
		if (global || !session_equal(o, &cfg->neighbors[k])) {
			fared_log("reload: neighbor %s changed: new session",
				  p->name);
			peer_free(p, BGP_CEASE_OTHER_CONFIG_CHANGE, NULL);
			used[k] = false;
			continue;
		}
		keep[k] = p;
	}
}

/*
 * d->cfg is the new configuration (old the one before): the kept
 * neighbors point into it and export or import again where their
 * policies changed (origs: the originated prefixes did); new ones start.
 */
static void reload_apply(struct fared *d, const struct fared_config *old,
			 bool origs, struct peer **keep, const bool *used)
{
	size_t k;

	for (k = 0; k < d->cfg.n_neighbors; k++) {
		struct peer *p = keep[k];
		bool imp, exp;

		if (!used[k]) {
			fared_log("reload: neighbor %s added",
				  d->cfg.neighbors[k].addr_text);
			add_peer(d, &d->cfg.neighbors[k]);
			continue;
		}
		imp = !policies_equal(old, p->nb->import_policy, &d->cfg,
				      d->cfg.neighbors[k].import_policy);
		exp = !policies_equal(old, p->nb->export_policy, &d->cfg,
				      d->cfg.neighbors[k].export_policy);
		p->nb = &d->cfg.neighbors[k];
		peer_table_refresh(p);
		d->peers[d->n_peers++] = p;
		/* A reload ends a max-prefix Idle, as a clear does. */
		if (peer_clear_idle(p))
			fared_log("reload: neighbor %s: max-prefix Idle "
				  "cleared", p->name);
		if (exp || origs)
			peer_reexport(p);
		if (imp)
			peer_import_changed(p);
	}
}

static void reload(struct fared *d)
{
	struct fared_config cfg, old;
	struct peer **keep, **peers;
	bool *used, global, origs;
	int errors;

	errors = fared_config_load(config_path, &cfg, stderr);
	if (!errors)
		errors = tcp_auth_check(config_path, &cfg, stderr);
	if (errors) {
		fared_log("reload: %s: %d error%s; keeping the running "
			  "configuration", config_path, errors,
			  errors == 1 ? "" : "s");
		fared_config_free(&cfg);
		return;
	}
	keep = calloc(cfg.n_neighbors + 1, sizeof(*keep));
	used = calloc(cfg.n_neighbors + 1, sizeof(*used));
	/* Room for every kept peer; add_peer grows it for new ones. */
	peers = calloc(cfg.n_neighbors + 1, sizeof(*peers));
	if (!keep || !used || !peers) {
		fared_log("reload: out of memory");
		free(keep);
		free(used);
		free(peers);
		fared_config_free(&cfg);
		return;
	}
	global = cfg.router_id != d->cfg.router_id ||
		 cfg.local_as != d->cfg.local_as ||
		 cfg.gr_restart_time != d->cfg.gr_restart_time;
	origs = !originates_equal(&cfg, &d->cfg);
	old = d->cfg;
	reload_match(d, &cfg, global, keep, used);
	/* Every peer now points into the old config: swap, then repoint. */
	d->cfg = cfg;
	free(d->peers);
	d->peers = peers;
	d->n_peers = 0;
	reload_apply(d, &old, origs, keep, used);
	/* Before the loop runs again: the new peers connect from there. */
	tcp_auth_listener(d->listen4, AF_INET, &old, &d->cfg);
	tcp_auth_listener(d->listen6, AF_INET6, &old, &d->cfg);
	fared_config_free(&old);
	free(keep);
	free(used);
	bfd_sync(d->bfd);
	fare_sync_reload(d);
	fared_log("reload: %s: %zu neighbor%s", config_path, d->n_peers,
		  d->n_peers == 1 ? "" : "s");
}

static void on_signal(struct loop *l, int sig)
{
	struct fared *d = l->arg;

	if (sig == SIGHUP) {
		notify("RELOADING=1");
		reload(d);
		notify("READY=1");
		return;
	}
	notify("STOPPING=1");
	stop_signal = sig;
	fared_log("%s: %s", strsignal(sig),
		  sig == SIGTERM && d->cfg.gr_restart_time ?
		  "leaving for a restart (graceful restart): fare.ko keeps "
		  "its routes" : "shutting down");
	l->stop = true;
}

/*
 * The state file outlives an unclean exit or a restart only: finding it
 * means this fared restarts (RFC 4724 R bit), and so do fare.ko routes
 * left behind (fare_sync_start() adopts them).
 */
static void state_file_open(struct fared *d, bool force_restart)
{
	int fd;

	d->restarting = force_restart || !access(d->cfg.state_file, F_OK);
	fd = open(d->cfg.state_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd >= 0) {
		dprintf(fd, "%d\n", getpid());
		close(fd);
	}
}

/*
 * For tests only (tests/bgp/out-of-memory.sh, fared.8 ENVIRONMENT):
 * FARED_FAULT_RIB_ALLOC=N fails the RIB's Nth allocation from now on.
 */
static void fault_injection(void)
{
	const char *n = getenv("FARED_FAULT_RIB_ALLOC");

	if (n && *n) {
		rib_fault_countdown = strtoul(n, NULL, 10);
		fared_log("FARED_FAULT_RIB_ALLOC: the RIB's allocation %lu "
			  "will fail", rib_fault_countdown);
	}
}

/* Everything but the sessions; 0, or 1 when fared cannot run. */
static int start(struct fared *d, bool force_restart)
{
	static const int sigs[] = { SIGHUP, SIGTERM, SIGINT };
	int err;

	err = loop_init(&d->loop, sigs, 3);
	if (err) {
		fared_log("event loop: %s", strerror(-err));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	d->loop.arg = d;
	d->loop.on_signal = on_signal;
	d->loop.on_idle = idle;
	d->loop.on_tick = tick;
	d->rib = rib_new();
	d->out = adj_out_new(d);
	d->hooks = &hooks;
	d->rib_ops = &peer_rib_ops;
	d->bfd = bfd_new(d, bfd_changed);
	if (!d->rib || !d->out || !d->bfd) {
		fared_log("out of memory");
		return 1;
	}
	fault_injection();
	/* Made as root, owned by the user fared becomes, which removes them. */
	make_parent(d->cfg.state_file);
	make_parent(d->cfg.control_socket);
	if (privs_drop(&privs))
		return 1;
	/*
	 * Before the state file: a second fared started by mistake must
	 * leave the running one's alone (ctl_open() says why it refuses).
	 */
	if (ctl_open(&ctl, d, d->cfg.control_socket))
		return 1;
	state_file_open(d, force_restart);
	err = orf_want_init(d);
	if (err) {
		fared_log("out of memory");
		return 1;
	}
	err = fare_sync_start(d);
	if (err) {
		fared_log("fare: %s", strerror(-err));
		return 1;
	}
	if (d->fare && d->fare->adopted)
		d->restarting = true;
	if (d->cfg.gr_restart_time && d->restarting)
		fared_log("restarting: graceful restart with the peers");
	d->listen4 = open_listener(d, AF_INET, &d->lio4);
	d->listen6 = open_listener(d, AF_INET6, &d->lio6);
	return 0;
}

/*
 * The end: leave (SIGTERM with graceful restart) keeps fare.ko's routes
 * and ends the sessions so that the peers keep ours (fared.8, RESTART).
 */
static void stop(struct fared *d, bool leave)
{
	size_t i;

	/* Before the peers go: their routes leaving must not touch fare.ko. */
	if (leave)
		fare_sync_stop(d, true);
	/* AdminDown first: the peers' BFD must not see a failure. */
	bfd_free(d->bfd);
	d->bfd = NULL;
	for (i = 0; i < d->n_peers; i++)
		if (leave)
			peer_restart_leave(d->peers[i]);
		else
			peer_free(d->peers[i], BGP_CEASE_ADMIN_SHUTDOWN,
				  "fared shutting down");
	/* The last drain below must not see the freed peers. */
	free(d->peers);
	d->peers = NULL;
	d->n_peers = 0;
	ctl_close(&ctl);
	if (d->listen4 >= 0) {
		io_del(&d->loop, &d->lio4);
		close(d->listen4);
	}
	if (d->listen6 >= 0) {
		io_del(&d->loop, &d->lio6);
		close(d->listen6);
	}
	idle(&d->loop);
	fare_sync_stop(d, false);
	adj_out_free(d->out);
	d->out = NULL;
	orf_want_free(d);
	rib_free(d->rib);
	peer_table_free(&d->peer_table);
	loop_fini(&d->loop);
	/* Kept for a restart: the next fared sets the R bit. */
	if (!leave)
		unlink(d->cfg.state_file);
}

static int run(struct fared *d, bool force_restart)
{
	bool leave;
	size_t i;
	int err;

	if (start(d, force_restart))
		return 1;
	for (i = 0; i < d->cfg.n_neighbors; i++)
		add_peer(d, &d->cfg.neighbors[i]);
	bfd_sync(d->bfd);
	fared_log("running: AS %u, %zu neighbor%s", d->cfg.local_as,
		  d->n_peers, d->n_peers == 1 ? "" : "s");
	notify("READY=1");
	err = loop_run(&d->loop);
	if (err)
		fared_log("event loop: %s", strerror(-err));
	leave = !err && ((stop_signal == SIGTERM && d->cfg.gr_restart_time) ||
			 d->out_of_memory);
	if (d->out_of_memory)
		notify("STOPPING=1");
	stop(d, leave);
	if (d->out_of_memory)
		return FARED_EXIT_NOMEM;
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct fared d = { 0 };
	bool check = false, restart = false;
	const char *user = NULL, *group = NULL;
	int opt, errors, rc;

	while ((opt = getopt(argc, argv, "c:g:nRu:vh")) != -1) {
		switch (opt) {
		case 'c':
			config_path = optarg;
			break;
		case 'g':
			group = optarg;
			break;
		case 'n':
			check = true;
			break;
		case 'u':
			user = optarg;
			break;
		case 'R':
			restart = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (privs_resolve(&privs, user, group))
		return 1;
	errors = fared_config_load(config_path, &d.cfg, stderr);
	if (!errors)
		errors = tcp_auth_check(config_path, &d.cfg, stderr);
	if (errors) {
		fprintf(stderr, "fared: %s: %d error%s\n", config_path, errors,
			errors == 1 ? "" : "s");
		fared_config_free(&d.cfg);
		return 1;
	}
	if (check) {
		printf("fared: %s: configuration OK (%zu neighbor%s, %zu "
		       "polic%s)\n", config_path, d.cfg.n_neighbors,
		       d.cfg.n_neighbors == 1 ? "" : "s", d.cfg.n_policies,
		       d.cfg.n_policies == 1 ? "y" : "ies");
		fared_config_free(&d.cfg);
		return 0;
	}
	srandom((unsigned int)time(NULL) ^ (unsigned int)getpid());
	rc = run(&d, restart);
	fared_config_free(&d.cfg);
	return rc;
}
