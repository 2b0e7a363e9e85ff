// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl's command line parser: argv in, a request out, or a usage error
 * naming the argument at fault. Pure (no kernel, no I/O but fc_help), so
 * tests/unit drives it directly.
 */
#ifndef FARECTL_PARSE_H
#define FARECTL_PARSE_H

#include <stdbool.h>
#include <stdio.h>
#include <net/if.h>

#include "libfare.h"

/* Exit codes. */
#define FC_EXIT_OK	0
#define FC_EXIT_ERROR	1	/* the kernel or the system refused */
#define FC_EXIT_USAGE	2	/* the command line is wrong */

enum fc_object {
	FC_OBJ_NONE,		/* "farectl help" */
	FC_OBJ_PLANE,
	FC_OBJ_ROUTE,
	FC_OBJ_CONFIG,
	FC_OBJ_STATS,
	FC_OBJ_MONITOR,
	FC_OBJ_GROUP,
};

enum fc_verb {
	FC_VERB_HELP,
	FC_VERB_ADD,
	FC_VERB_REPLACE,
	FC_VERB_DEL,
	FC_VERB_SHOW,
	FC_VERB_SET,
	FC_VERB_FLUSH,
	FC_VERB_PICK,
	FC_VERB_SYNC,
};

/* What "farectl monitor" shows. */
#define FC_MON_PLANE	(1U << 0)
#define FC_MON_ROUTE	(1U << 1)
#define FC_MON_CONFIG	(1U << 2)
#define FC_MON_GROUP	(1U << 3)
#define FC_MON_ALL	(FC_MON_PLANE | FC_MON_ROUTE | FC_MON_CONFIG | \
			 FC_MON_GROUP)

struct fc_request {
	bool json;		/* -j */
	bool pretty;		/* -p (implies -j) */
	const char *netns;	/* -n NAME, points into argv */
	const char *dev;	/* -d NAME, points into argv */
	const char *batch;	/* -batch FILE ("-": stdin), points into argv */
	enum fc_object obj;
	enum fc_verb verb;
	char ctx[32];		/* "route add": prefix of error messages */
	bool has_key;		/* show of one plane id or one prefix */
	char ifname[IF_NAMESIZE];	/* plane add/replace: dev */
	struct fare_plane plane;	/* ifindex left 0: resolve ifname */
	struct fare_route route;
	struct fare_group group;	/* group add/replace/del/show */
	struct fare_config config;
	unsigned int monitor;	/* FC_MON_* */
	unsigned int pick_n;	/* route pick DST N: 1..FC_PICK_MAX */
};

/*
 * Parse argv[1..argc-1] into req. Returns 0, or FC_EXIT_USAGE with a
 * message in err such as
 * "route add: weight 0 out of range (1..4294967295) at argument 8",
 * where N counts the words after the program name from 1.
 */
int fc_parse(int argc, char *const argv[], struct fc_request *req,
	     char *err, size_t errlen);

/*
 * Parse one line of a batch file, already split into words (no program
 * name, no options): as fc_parse, but "at argument N" counts the line's
 * words from 1, and the options of the command line (json, netns) are
 * kept from *req.
 */
int fc_parse_command(int argc, char *const argv[], struct fc_request *req,
		     char *err, size_t errlen);

/*
 * Split a batch line into words in place: blanks separate words, "..." and
 * '...' quote, a backslash escapes the next character, and # starts a
 * comment where a word could start. Returns the number of words (0 for a
 * blank or comment line), or -1 with a message in err.
 */
int fc_split_line(char *line, char **argv, int max, char *err, size_t errlen);

/* The help text of an object (FC_OBJ_NONE: the overview). */
void fc_help(FILE *out, enum fc_object obj);

#endif /* FARECTL_PARSE_H */
