// SPDX-License-Identifier: GPL-2.0-only
#ifndef FARECTL_BGP_H
#define FARECTL_BGP_H

#include <stdbool.h>

/* farectl bgp ARGS (argv after "bgp"); returns the exit status. */
int fc_bgp(int argc, char **argv, bool json);

#endif /* FARECTL_BGP_H */
