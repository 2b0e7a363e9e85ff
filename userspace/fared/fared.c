// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared, the BGP daemon of fare. This build checks configurations
 * (fared -n -c FILE); the session loop comes next.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"

#define DEFAULT_CONFIG	"/etc/fare/fared.conf"

static void usage(FILE *f)
{
	fprintf(f, "usage: fared [-n] [-c FILE]\n"
		"  -c FILE  configuration (default " DEFAULT_CONFIG ")\n"
		"  -n       check the configuration and exit: 0 when it is "
		"valid,\n"
		"           1 with every problem listed as "
		"FILE:LINE: problem\n");
}

int main(int argc, char **argv)
{
	const char *path = DEFAULT_CONFIG;
	struct fared_config cfg;
	bool check = false;
	int opt, errors;

	while ((opt = getopt(argc, argv, "c:nh")) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
			break;
		case 'n':
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	errors = fared_config_load(path, &cfg, stderr);
	if (errors) {
		fprintf(stderr, "fared: %s: %d error%s\n", path, errors,
			errors == 1 ? "" : "s");
		fared_config_free(&cfg);
		return 1;
	}
	if (check) {
		printf("fared: %s: configuration OK (%zu neighbor%s, %zu "
		       "polic%s)\n", path, cfg.n_neighbors,
		       cfg.n_neighbors == 1 ? "" : "s", cfg.n_policies,
		       cfg.n_policies == 1 ? "y" : "ies");
		fared_config_free(&cfg);
		return 0;
	}
	fared_config_free(&cfg);
	fprintf(stderr, "fared: this build only checks configurations; "
		"run it with -n\n");
	return 2;
}
