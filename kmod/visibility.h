/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fare.ko shows its KUnit suites, which are a module of their own
 * (fare_kunit.ko; kmod/Makefile says why): the functions they call are
 * exported in KUnit's namespace, and the few static ones made global, only
 * when CONFIG_FARE_KUNIT_TEST is enabled. Keyed on fare's option rather
 * than on CONFIG_KUNIT (as mac80211 does), so that a kernel with KUnit but
 * without fare's suites gets the same fare.ko as a kernel without KUnit.
 */
#ifndef _FARE_VISIBILITY_H
#define _FARE_VISIBILITY_H

#ifndef __KERNEL__
/* select.c in the userspace unit tests */
#define EXPORT_SYMBOL_IF_FARE_KUNIT(...)
#define VISIBLE_IF_FARE_KUNIT static
#elif IS_ENABLED(CONFIG_FARE_KUNIT_TEST)
#include "compat/compat.h"
#ifdef FARE_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#else
/* Before 6.2: the namespace 6.2's <kunit/visibility.h> exports into. */
#include <linux/export.h>
#define EXPORT_SYMBOL_IF_KUNIT(sym) \
	EXPORT_SYMBOL_NS(sym, EXPORTED_FOR_KUNIT_TESTING)
#endif
#define EXPORT_SYMBOL_IF_FARE_KUNIT(sym) \
	EXPORT_SYMBOL_IF_KUNIT(sym)
#define VISIBLE_IF_FARE_KUNIT
#else
#define EXPORT_SYMBOL_IF_FARE_KUNIT(...)
#define VISIBLE_IF_FARE_KUNIT static
#endif

#endif /* _FARE_VISIBILITY_H */
