// SPDX-License-Identifier: GPL-2.0
/* Since 6.15 rtnl_link_ops.newlink takes struct rtnl_newlink_params. */
#include <net/rtnetlink.h>

int fare_probe(struct rtnl_newlink_params *params);
int fare_probe(struct rtnl_newlink_params *params)
{
	return !!params->src_net;
}
