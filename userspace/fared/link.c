// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device speed and link state (see link.h).
 */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "link.h"

uint64_t link_speed_bps(const char *ifname)
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

int link_running(const char *name)
{
	struct ifreq ifr;
	int fd, up;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	up = !ioctl(fd, SIOCGIFFLAGS, &ifr) &&
	     (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
	     (IFF_UP | IFF_RUNNING);
	close(fd);
	return up;
}
