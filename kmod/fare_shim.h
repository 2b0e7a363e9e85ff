/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers the pure selection code needs, so that
 * it builds unchanged in userspace for unit tests and callgrind benchmarks.
 */
#ifndef _FARE_SHIM_H
#define _FARE_SHIM_H

#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define hweight64(x) ((unsigned int)__builtin_popcountll(x))

#endif /* _FARE_SHIM_H */
