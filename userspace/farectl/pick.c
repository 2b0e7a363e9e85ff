// SPDX-License-Identifier: GPL-2.0-only
/*
 * "farectl route pick": placement arithmetic and the RDMA devices of the
 * planes (pick.h).
 */
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "pick.h"

int fc_pick_counts(struct fc_pick_plane *p, unsigned int np, unsigned int n)
{
	uint64_t total = 0, rem[FARE_NEXTHOP_MAX];
	bool given[FARE_NEXTHOP_MAX] = { false };
	unsigned int i, j, best, placed = 0;

	if (!np || np > FARE_NEXTHOP_MAX || n > FC_PICK_MAX)
		return -EINVAL;
	for (i = 0; i < np; i++)
		total += p[i].weight;
	if (!total)
		return -EINVAL;
	for (i = 0; i < np; i++) {
		/* n * w fits: 2^16 * 2^32; total under 2^38. */
		p[i].count = (unsigned int)((uint64_t)n * p[i].weight / total);
		rem[i] = (uint64_t)n * p[i].weight % total;
		placed += p[i].count;
	}
	/*
	 * Fewer than the planes of weight above zero are left over (each
	 * remainder is under one): one each, largest remainder first, the
	 * earlier plane on a tie; weight 0 has remainder 0 and never wins
	 * while a plane with weight is left.
	 */
	for (j = placed; j < n; j++) {
		best = np;
		for (i = 0; i < np; i++)
			if (!given[i] && p[i].weight &&
			    (best == np || rem[i] > rem[best]))
				best = i;
		p[best].count++;
		given[best] = true;
	}
	return 0;
}

const char *fc_pick_why_name(enum fc_pick_why why)
{
	switch (why) {
	case FC_PICK_USED:
		return "used";
	case FC_PICK_WEIGHT_ZERO:
		return "weight-zero";
	case FC_PICK_ADMIN_DOWN:
		return "admin-down";
	case FC_PICK_DOWN:
		return "down";
	case FC_PICK_NO_GATEWAY:
		return "no-gateway";
	case FC_PICK_HIGHER_TIER:
		return "higher-tier";
	}
	return "?";
}

enum fc_pick_why fc_pick_usable(uint32_t weight, const struct fare_plane *pl,
				uint8_t family)
{
	if (!weight)
		return FC_PICK_WEIGHT_ZERO;
	if (pl->admin_down || (pl->flags & FARE_PLANE_F_ADMIN_DOWN))
		return FC_PICK_ADMIN_DOWN;
	if (!(pl->flags & FARE_PLANE_F_OPER_UP))
		return FC_PICK_DOWN;
	/* As the plane route (datapath.md): a gateway of the family. */
	if (!(family == AF_INET ? pl->has_gw4 : pl->has_gw6))
		return FC_PICK_NO_GATEWAY;
	return FC_PICK_USED;
}

unsigned int fc_pick_tier(enum fc_pick_why *why, const uint8_t *tier,
			  unsigned int n)
{
	unsigned int i, used = 0;
	int low = -1;

	for (i = 0; i < n; i++)
		if (why[i] == FC_PICK_USED && (low < 0 || tier[i] < low))
			low = tier[i];
	for (i = 0; i < n; i++) {
		if (why[i] != FC_PICK_USED)
			continue;
		if (tier[i] > low)
			why[i] = FC_PICK_HIGHER_TIER;
		else
			used++;
	}
	return used;
}

bool fc_prefix_holds(const struct fare_prefix *p, const struct fare_prefix *a)
{
	const uint8_t *x = (const uint8_t *)&p->addr;
	const uint8_t *y = (const uint8_t *)&a->addr;
	unsigned int full = p->plen / 8, bits = p->plen % 8;

	if (p->family != a->family || a->plen < p->plen ||
	    memcmp(x, y, full))
		return false;
	return !bits || !((x[full] ^ y[full]) & (0xff << (8 - bits)));
}

void fc_pick_order(const struct fc_pick_plane *p, unsigned int np,
		   unsigned int n, unsigned int *out)
{
	int64_t cur[FARE_NEXTHOP_MAX] = { 0 };
	unsigned int i, k, best;

	for (k = 0; k < n; k++) {
		best = 0;
		for (i = 0; i < np; i++) {
			cur[i] += p[i].count;
			if (cur[i] > cur[best])
				best = i;
		}
		cur[best] -= n;
		out[k] = best;
	}
}

/* The address of an ifaddrs entry of family, NULL if another family. */
static const void *ifa_addr_of(const struct ifaddrs *i, uint8_t family)
{
	if (!i->ifa_addr || i->ifa_addr->sa_family != family)
		return NULL;
	if (family == AF_INET)
		return &((const struct sockaddr_in *)i->ifa_addr)->sin_addr;
	return &((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
}

static bool on_lo(const struct ifaddrs *all, uint8_t family, const void *a)
{
	size_t len = family == AF_INET ? 4 : 16;
	const struct ifaddrs *i;
	const void *b;

	for (i = all; i; i = i->ifa_next) {
		b = ifa_addr_of(i, family);
		if (b && !strcmp(i->ifa_name, "lo") && !memcmp(a, b, len))
			return true;
	}
	return false;
}

int fc_dev_addr(const char *dev, uint8_t family, union fare_addr *out)
{
	size_t len = family == AF_INET ? 4 : 16;
	struct ifaddrs *all, *i;
	int ret = -ENOENT;
	const void *a;

	if (getifaddrs(&all))
		return -errno;
	for (i = all; i; i = i->ifa_next) {
		a = ifa_addr_of(i, family);
		if (!a || strcmp(i->ifa_name, dev) ||
		    (family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(a)) ||
		    on_lo(all, family, a))
			continue;
		memcpy(out, a, len);
		ret = 0;
		break;
	}
	freeifaddrs(all);
	return ret;
}

/* snprintf that says whether all of it fit (sysfs paths are short). */
__attribute__((format(printf, 3, 4)))
static bool fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

/* The first line of a sysfs file, without its newline; -1 if unreadable. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t l;

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	l = strlen(buf);
	while (l && (buf[l - 1] == '\n' || buf[l - 1] == ' '))
		buf[--l] = '\0';
	return 0;
}

/* A GID as sysfs prints it: eight groups of four hex digits. */
static bool gid_is(const char *text, uint8_t family,
		   const union fare_addr *addr)
{
	struct in6_addr gid, want;

	if (inet_pton(AF_INET6, text, &gid) != 1)
		return false;
	if (family == AF_INET6) {
		want = addr->v6;
	} else {
		memset(&want, 0, sizeof(want));
		want.s6_addr[10] = 0xff;
		want.s6_addr[11] = 0xff;
		memcpy(&want.s6_addr[12], &addr->v4, 4);
	}
	return !memcmp(&gid, &want, sizeof(gid));
}

/* One port: does netdev own GIDs here, and which one is addr's? */
static bool scan_port(const char *pdir, const char *netdev, uint8_t family,
		      const union fare_addr *addr, struct fc_rdma *out)
{
	char path[4096], line[128];
	bool on_dev = false;
	struct dirent *e;
	DIR *d;
	int idx;

	out->gid_index = -1;
	out->roce_v2 = false;
	if (!fmt(path, sizeof(path), "%s/gid_attrs/ndevs", pdir))
		return false;
	d = opendir(path);
	if (!d)
		return false;
	while ((e = readdir(d))) {
		char *end;
		bool v2;

		idx = (int)strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name)
			continue;
		/* Unused entries cannot be read. */
		if (!fmt(path, sizeof(path), "%s/gid_attrs/ndevs/%d", pdir,
			 idx) || read_line(path, line, sizeof(line)) ||
		    strcmp(line, netdev))
			continue;
		on_dev = true;
		if (!fmt(path, sizeof(path), "%s/gids/%d", pdir, idx) ||
		    read_line(path, line, sizeof(line)) ||
		    !gid_is(line, family, addr))
			continue;
		v2 = fmt(path, sizeof(path), "%s/gid_attrs/types/%d", pdir,
			 idx) && !read_line(path, line, sizeof(line)) &&
		     !strcmp(line, "RoCE v2");
		if (out->gid_index < 0 || (v2 && !out->roce_v2) ||
		    (v2 == out->roce_v2 && idx < out->gid_index)) {
			out->gid_index = idx;
			out->roce_v2 = v2;
		}
	}
	closedir(d);
	return on_dev;
}

int fc_rdma_find(const char *sysfs, const char *netdev, uint8_t family,
		 const union fare_addr *addr, struct fc_rdma *out)
{
	char path[4096], pdir[4096];
	struct dirent *e, *pe;
	DIR *d, *pd;
	bool found = false;

	if (!fmt(path, sizeof(path), "%s/class/infiniband", sysfs))
		return -ENOENT;
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!fmt(path, sizeof(path), "%s/class/infiniband/%s/ports",
			 sysfs, e->d_name))
			continue;
		pd = opendir(path);
		if (!pd)
			continue;
		while (!found && (pe = readdir(pd))) {
			if (pe->d_name[0] == '.')
				continue;
			if (!fmt(pdir, sizeof(pdir), "%s/%s", path,
				 pe->d_name) ||
			    !scan_port(pdir, netdev, family, addr, out) ||
			    !fmt(out->dev, sizeof(out->dev), "%s", e->d_name))
				continue;
			out->port = (unsigned int)strtoul(pe->d_name, NULL, 10);
			found = true;
		}
		closedir(pd);
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}
