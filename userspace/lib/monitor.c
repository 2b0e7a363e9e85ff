// SPDX-License-Identifier: GPL-2.0-only
/* Listening to fare.ko's "events" multicast group. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/netlink.h>

#include "fare_int.h"

/*
 * Whether an event of device @ifindex is for device @want (the one
 * fare_set_dev() named, else fare0), whose index is *@ours (0: not known
 * yet). The group carries every fare device of the namespace; a device of
 * that name made, or made again, after the monitor started is learnt from
 * its first event. An event without a device (an older fare.ko) is ours.
 */
static bool event_is_ours(const char *want, uint32_t ifindex, uint32_t *ours)
{
	char name[IF_NAMESIZE];

	if (!ifindex || ifindex == *ours)
		return true;
	if (!if_indextoname(ifindex, name) || strcmp(name, want))
		return false;
	*ours = ifindex;
	return true;
}

int fare_monitor(struct fare *f, fare_event_cb cb, void *arg,
		 void (*ready)(void *arg), struct fare_err *err)
{
	struct mnl_socket *nl;
	const struct nlmsghdr *nlh;
	struct fare_event *ev;
	struct fare_err perr;
	const char *want;
	uint32_t group, ours;
	char *buf;
	ssize_t n;
	int left, ret = 0;

	fare_err_clear(err);
	group = f->events_group;
	if (!group)
		return fare_err_set(err, -ENOENT,
				    "fare.ko has no \"%s\" multicast group",
				    FARE_MCGRP_EVENTS);
	ret = fare_socket_open(NETLINK_GENERIC, &nl, NULL, err);
	if (ret)
		return ret;
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0) {
		ret = -errno;
		mnl_socket_close(nl);
		if (ret == -EPERM || ret == -EACCES)
			return fare_err_set(err, ret,
					    "joining the \"%s\" group needs CAP_NET_ADMIN: %s",
					    FARE_MCGRP_EVENTS, strerror(-ret));
		return fare_err_set(err, ret, "joining the \"%s\" group: %s",
				    FARE_MCGRP_EVENTS, strerror(-ret));
	}
	ev = malloc(sizeof(*ev));
	buf = malloc(FARE_RX_SIZE);
	if (!ev || !buf) {
		ret = fare_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	want = f->dev[0] ? f->dev : FARE_DEV_NAME;
	ours = if_nametoindex(want);
	if (ready)
		ready(arg);

	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, FARE_RX_SIZE);
		if (n < 0) {
			if (errno == EINTR) {
				ret = 0;
				break;
			}
			if (errno == ENOBUFS) {
				ev->type = FARE_EVENT_LOST;
				ret = cb(ev, arg);
				if (ret)
					break;
				continue;
			}
			ret = fare_err_set(err, -errno, "reading events: %s",
					   strerror(errno));
			break;
		}
		left = n;
		for (nlh = (const struct nlmsghdr *)buf;
		     mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			if (fare_msg_parse_event(nlh, f->family_id, ev, &perr) ||
			    !event_is_ours(want, ev->ifindex, &ours))
				continue;
			ret = cb(ev, arg);
			if (ret)
				goto out;
		}
	}
out:
	free(ev);
	free(buf);
	mnl_socket_close(nl);
	return ret;
}
