// SPDX-License-Identifier: GPL-2.0
/* Since 6.7 a dump's parsed request is a struct genl_info. */
#include <net/genetlink.h>

struct nlattr **fare_probe(struct netlink_callback *cb);
struct nlattr **fare_probe(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}
