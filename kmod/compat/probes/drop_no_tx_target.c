// SPDX-License-Identifier: GPL-2.0
/* Since 6.11 a packet with nowhere to go has a drop reason of its own. */
#include <linux/skbuff.h>

enum skb_drop_reason fare_probe(void);
enum skb_drop_reason fare_probe(void)
{
	return SKB_DROP_REASON_NO_TX_TARGET;
}
