/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The release fare.ko reports (modinfo, /sys/module/fare/version, ethtool
 * -i). Out of tree the build passes the release it was made from
 * (VERSION); in tree fare is part of the kernel, so it is the kernel's.
 */
#ifndef _FARE_VERSION_H
#define _FARE_VERSION_H

#ifndef FARE_VERSION
#include <generated/utsrelease.h>
#define FARE_VERSION UTS_RELEASE
#endif

#endif /* _FARE_VERSION_H */
