// SPDX-License-Identifier: GPL-2.0
/* Since 6.2 a family's pre_doit gets the split ops of the command. */
#include <net/genetlink.h>

int fare_probe(const struct genl_split_ops *ops, struct sk_buff *skb,
	       struct genl_info *info);
int fare_probe(const struct genl_split_ops *ops, struct sk_buff *skb,
	       struct genl_info *info)
{
	return ops->pre_doit ? ops->pre_doit(ops, skb, info) : 0;
}
