// SPDX-License-Identifier: GPL-2.0-only
/*
 * Graceful restart's rules (see gr.h).
 */
#include <string.h>

#include "gr.h"

void gr_open_caps(struct bgp_caps *caps, uint16_t restart_time,
		  uint32_t families, bool restarting, uint32_t forwarding)
{
	unsigned int fam;

	caps->graceful_restart = true;
	caps->gr_restart_time = restart_time & 0x0fff;
	caps->gr_flags = BGP_GR_FLAG_NOTIFICATION;
	if (restarting)
		caps->gr_flags |= BGP_GR_FLAG_RESTART;
	caps->gr_families = families;
	memset(caps->gr_af_flags, 0, sizeof(caps->gr_af_flags));
	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		if (families & forwarding & BGP_FAM_BIT(fam))
			caps->gr_af_flags[fam] = BGP_GR_AF_FORWARDING;
}

bool gr_n_exchanged(uint8_t our_flags, const struct bgp_caps *theirs)
{
	return (our_flags & BGP_GR_FLAG_NOTIFICATION) &&
	       theirs->graceful_restart &&
	       (theirs->gr_flags & BGP_GR_FLAG_NOTIFICATION);
}

bool gr_forwarding_kept(bool transit, bool fare_loaded, size_t fare_routes)
{
	return !transit || (fare_loaded && fare_routes > 0);
}

bool gr_cease_is_hard(uint8_t subcode)
{
	switch (subcode) {
	case BGP_CEASE_MAX_PREFIXES:
	case BGP_CEASE_ADMIN_SHUTDOWN:
	case BGP_CEASE_PEER_DECONFIGURED:
	case BGP_CEASE_HARD_RESET:
	/* The neighbor's forwarding failed: nothing to keep (fared.8, BFD). */
	case BGP_CEASE_BFD_DOWN:
		return true;
	default:
		/* 4, Administrative Reset: fared's planned restart. */
		return false;
	}
}

int gr_hard_reset_data(uint8_t code, uint8_t subcode, const uint8_t *data,
		       size_t len, uint8_t *out, size_t max)
{
	if (max < 2 || len > max - 2)
		return -1;
	out[0] = code;
	out[1] = subcode;
	if (len)
		memcpy(out + 2, data, len);
	return (int)(len + 2);
}

void gr_session_down(const struct gr_session *s, bool notified, bool hard,
		     struct gr_down *out)
{
	out->drop_stale = 0;
	out->keep = 0;
	if (!s->helper || (notified && (!s->n || hard)))
		return;
	out->keep = s->families;
	if (!s->n)
		out->drop_stale = s->stale & s->families;
}

uint32_t gr_established_drop(const struct bgp_caps *theirs, uint32_t stale)
{
	uint32_t drop = 0;
	unsigned int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		if (!theirs->graceful_restart ||
		    !(theirs->gr_families & BGP_FAM_BIT(fam)) ||
		    !(theirs->gr_af_flags[fam] & BGP_GR_AF_FORWARDING))
			drop |= BGP_FAM_BIT(fam);
	return drop & stale;
}

bool gr_borr_accept(bool peer_gr, uint32_t eor_rx, unsigned int fam)
{
	return !peer_gr || (eor_rx & BGP_FAM_BIT(fam));
}
