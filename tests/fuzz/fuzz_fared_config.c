// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the fared.conf parser. Any text must parse or be
 * refused without a crash, leak or read past the input; an accepted
 * configuration must also hold what the daemon relies on: every policy
 * index in range, every neighbor with a remote AS, and every originated
 * prefix's communities a whole number of 8-octet values. A breach is a
 * bug, reported by abort().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static FILE *sink;

static void check(const struct fared_config *cfg)
{
	struct bgp_prefix any = { 0 };
	size_t i;

	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct fared_neighbor *nb = &cfg->neighbors[i];

		if (!nb->remote_as || !nb->families ||
		    nb->import_policy >= (int)cfg->n_policies ||
		    nb->export_policy >= (int)cfg->n_policies ||
		    nb->import_policy < -1 || nb->export_policy < -1)
			abort();
	}
	for (i = 0; i < cfg->n_originates; i++)
		if (cfg->originates[i].ext_communities_len % 8)
			abort();
	for (i = 0; i < cfg->n_policies; i++)
		fared_policy_permits(&cfg->policies[i], &any);
	if (cfg->gr_restart_time > 4095)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fared_config cfg;
	char *text;

	if (!sink)
		sink = fopen("/dev/null", "w");
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (fared_config_parse("fuzz.conf", text, &cfg, sink) == 0)
		check(&cfg);
	fared_config_free(&cfg);
	free(text);
	return 0;
}
