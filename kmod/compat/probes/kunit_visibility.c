// SPDX-License-Identifier: GPL-2.0
/* Since 6.2 KUnit names what a module exports for tests alone. */
#include <kunit/visibility.h>

VISIBLE_IF_KUNIT int fare_probe(void);
VISIBLE_IF_KUNIT int fare_probe(void)
{
	return 0;
}
