// SPDX-License-Identifier: GPL-2.0-only
/* libfare helpers that need no kernel: prefixes and mode names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "libfare.h"

const char *fare_mode_name(unsigned int mode)
{
	switch (mode) {
	case FARE_MODE_DEFAULT:
		return "default";
	case FARE_MODE_PACKET:
		return "packet";
	case FARE_MODE_FLOW:
		return "flow";
	case FARE_MODE_FLOWLET:
		return "flowlet";
	default:
		return "unknown";
	}
}

static bool host_bits_clear(const uint8_t *addr, unsigned int alen,
			    unsigned int plen)
{
	unsigned int i;

	for (i = plen / 8; i < alen; i++) {
		uint8_t mask = i == plen / 8 ? 0xff >> (plen % 8) : 0xff;

		if (addr[i] & mask)
			return false;
	}
	return true;
}

int fare_prefix_parse(const char *s, struct fare_prefix *out,
		      struct fare_err *err)
{
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long plen;
	unsigned int max;
	char *end;

	memset(out, 0, sizeof(*out));
	if (alen >= sizeof(addr))
		return fare_err_set(err, -EINVAL, "not an IPv4 or IPv6 address");
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, &out->addr.v4) == 1) {
		out->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, addr, &out->addr.v6) == 1) {
		out->family = AF_INET6;
		max = 128;
	} else {
		memset(out, 0, sizeof(*out));
		return fare_err_set(err, -EINVAL, "not an IPv4 or IPv6 address");
	}
	if (!slash) {
		out->plen = max;
		return 0;
	}
	/* Digits only: no sign, no space, no hex. */
	if (slash[1] < '0' || slash[1] > '9')
		return fare_err_set(err, -EINVAL, "bad prefix length");
	errno = 0;
	plen = strtoul(slash + 1, &end, 10);
	if (*end || errno)
		return fare_err_set(err, -EINVAL, "bad prefix length");
	if (plen > max)
		return fare_err_set(err, -EINVAL,
				    "prefix length out of range (0..%u)", max);
	out->plen = plen;
	if (!host_bits_clear((const uint8_t *)&out->addr, max / 8, plen))
		return fare_err_set(err, -EINVAL,
				    "host bits set beyond the prefix length");
	return 0;
}

const char *fare_prefix_format(const struct fare_prefix *p, char *buf,
			       size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family, &p->addr, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "?");
	snprintf(buf, len, "%s/%u", addr, p->plen);
	return buf;
}
