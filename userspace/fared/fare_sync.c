// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's FARE side (see fare_sync.h).
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fare_sync.h"

uint64_t fare_sync_ethtool_bps(const char *ifname)
{
	struct {
		struct ethtool_link_settings req;
		uint32_t masks[3 * 127];
	} ls;
	struct ifreq ifr;
	uint64_t bps = 0;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	memset(&ls, 0, sizeof(ls));
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	ifr.ifr_data = (void *)&ls;
	/*
	 * The handshake: the first call answers with minus the number of
	 * mask words the kernel uses; the second asks with that number.
	 */
	if (ioctl(fd, SIOCETHTOOL, &ifr) || ls.req.link_mode_masks_nwords >= 0)
		goto out;
	ls.req.link_mode_masks_nwords = -ls.req.link_mode_masks_nwords;
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	if (ls.req.speed && ls.req.speed != (uint32_t)SPEED_UNKNOWN)
		bps = (uint64_t)ls.req.speed * 1000000;
out:
	close(fd);
	return bps;
}

static void peer_of(void *arg, unsigned int peer, struct fare_fib_peer *out)
{
	struct fare_sync *fs = arg;
	struct fared *d = fs->d;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < d->n_peers; i++)
		if (d->peers[i]->index == peer) {
			out->plane = d->peers[i]->nb->plane;
			out->upstream = d->peers[i]->nb->upstream;
			if (out->plane <= FARE_PLANE_ID_MAX)
				out->link_bps = fs->link_bps[out->plane];
			return;
		}
}

static void prefix_of(void *arg, const struct bgp_prefix *p, uint8_t *mode,
		      struct fare_policy_opts *opts)
{
	struct fare_sync *fs = arg;
	const struct fared_multihome *mh;

	*mode = fared_mode_of(&fs->d->cfg, p);
	mh = fared_multihome_of(&fs->d->cfg, p);
	if (mh) {
		opts->multihomed = mh->leaves;
		opts->multihome_multiply_link = mh->multiply_link;
	}
}

static int apply(void *arg, const struct fare_op *ops, size_t n,
		 size_t *failed)
{
	struct fare_sync *fs = arg;
	struct fare_err err;
	int ret;

	if (!fs->nl) {
		*failed = 0;
		return -ENOENT;
	}
	ret = fare_routes_apply(fs->nl, ops, n, failed, &err);
	if (ret)
		fared_log("fare: route op %zu of %zu: %s", *failed, n,
			  err.msg);
	return ret;
}

/* Link bandwidths and fare.ko planes from the configuration. */
static void setup_planes(struct fare_sync *fs)
{
	const struct fared_config *cfg = &fs->d->cfg;
	struct fare_plane planes[FARE_PLANE_ID_MAX + 1];
	bool used[FARE_PLANE_ID_MAX + 1] = { false };
	struct fare_err err;
	size_t i, k;

	memset(fs->link_bps, 0, sizeof(fs->link_bps));
	memset(planes, 0, sizeof(planes));
	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];
		struct fare_plane *pl = &planes[nb->plane];

		if (nb->plane > FARE_PLANE_ID_MAX || !nb->interface[0])
			continue;
		if (!used[nb->plane]) {
			used[nb->plane] = true;
			pl->id = nb->plane;
			pl->ifindex = if_nametoindex(nb->interface);
			for (k = 0; k < cfg->n_interfaces; k++)
				if (!strcmp(cfg->interfaces[k].name,
					    nb->interface))
					fs->link_bps[nb->plane] =
						cfg->interfaces[k].bandwidth;
			if (!fs->link_bps[nb->plane])
				fs->link_bps[nb->plane] =
					fare_sync_ethtool_bps(nb->interface);
			fared_log("fare: plane %u: %s, link %llu bit/s%s",
				  nb->plane, nb->interface,
				  (unsigned long long)fs->link_bps[nb->plane],
				  fs->link_bps[nb->plane] ? "" :
				  " (unknown)");
		}
		if (nb->family == BGP_FAM_IPV4_UNICAST && !pl->has_gw4) {
			pl->has_gw4 = true;
			memcpy(&pl->gw4, nb->addr, 4);
		} else if (nb->family == BGP_FAM_IPV6_UNICAST &&
			   !pl->has_gw6) {
			pl->has_gw6 = true;
			memcpy(&pl->gw6, nb->addr, 16);
		}
	}
	for (i = 1; fs->nl && i <= FARE_PLANE_ID_MAX; i++) {
		if (!used[i])
			continue;
		if (!planes[i].ifindex)
			fared_log("fare: plane %zu: no such device", i);
		else if (fare_plane_add(fs->nl, &planes[i], true, &err))
			fared_log("fare: plane %zu: %s", i, err.msg);
	}
}

static void set_opts(struct fare_sync *fs)
{
	const struct fared_config *cfg = &fs->d->cfg;

	fs->cfg.ec = cfg->ec;
	memset(&fs->cfg.opts, 0, sizeof(fs->cfg.opts));
	fs->cfg.opts.role = cfg->role;
	fs->cfg.opts.attach_nontransitive = cfg->attach_nontransitive;
	fs->cfg.opts.lower_to_next_next_hop = cfg->lower_to_next_next_hop;
}

int fare_sync_start(struct fared *d)
{
	struct fare_sync *fs;
	struct fare_err err;
	size_t n = 0;
	int ret;

	if (!d->cfg.fare)
		return 0;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->d = d;
	fs->fib = fare_fib_new(apply, fs);
	if (!fs->fib) {
		free(fs);
		return -ENOMEM;
	}
	fs->cfg.peer_of = peer_of;
	fs->cfg.prefix_of = prefix_of;
	fs->cfg.arg = fs;
	set_opts(fs);
	ret = fare_open(&fs->nl, &err);
	if (ret) {
		fared_log("fare: %s: weights are computed, not programmed",
			  ret == -ENOENT ? "fare.ko is not loaded" : err.msg);
		fs->nl = NULL;
	} else if (fare_route_flush(fs->nl, &n, &err)) {
		fared_log("fare: flushing old routes: %s", err.msg);
	} else if (n) {
		fared_log("fare: flushed %zu old route%s", n,
			  n == 1 ? "" : "s");
	}
	d->fare = fs;
	setup_planes(fs);
	return 0;
}

void fare_sync_stop(struct fared *d)
{
	struct fare_sync *fs = d->fare;
	struct fare_err err;
	size_t n = 0;

	if (!fs)
		return;
	if (fs->nl) {
		if (fare_route_flush(fs->nl, &n, &err))
			fared_log("fare: flushing routes: %s", err.msg);
		fare_close(fs->nl);
	}
	fare_fib_free(fs->fib);
	free(fs);
	d->fare = NULL;
}

static int reweigh(const struct rib_entry *e, void *arg)
{
	fare_sync_changed(arg, e);
	return 0;
}

void fare_sync_reload(struct fared *d)
{
	struct fare_sync *fs = d->fare;

	if (!fs)
		return;
	set_opts(fs);
	setup_planes(fs);
	rib_walk(d->rib, reweigh, d);
	fare_sync_flush(d);
}

void fare_sync_changed(struct fared *d, const struct rib_entry *e)
{
	struct fare_sync *fs = d->fare;
	char pfx[BGP_PREFIX_STRLEN];

	/* Without fare.ko there is nothing to keep in step with. */
	if (fs && fs->nl && fare_fib_update(fs->fib, &fs->cfg, e))
		fared_log("fare: %s: out of memory",
			  bgp_prefix_str(&e->prefix, pfx, sizeof(pfx)));
}

void fare_sync_flush(struct fared *d)
{
	struct fare_sync *fs = d->fare;
	struct fare_fib_flush_stats st;

	if (!fs || !fare_fib_pending(fs->fib))
		return;
	fare_fib_flush(fs->fib, 0, NULL, NULL, &st);
	fs->batches++;
	fs->ops += st.ops;
	fs->failed += st.failed;
}

bool fare_sync_explain(struct fared *d, const struct rib_entry *e,
		       struct fare_fib_path *paths, struct fare_fib_result *fr,
		       struct fare_route *want)
{
	if (!d->fare)
		return false;
	fare_fib_compute(&d->fare->cfg, e, paths, fr, want);
	return true;
}
