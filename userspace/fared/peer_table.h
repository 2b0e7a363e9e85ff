// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the decision code needs of each neighbor, by the RIB's peer
 * number (rib_path.peer): its plane, iBGP or not, its BGP Identifier and
 * the like. The session layer keeps it (peer.c: when a neighbor is made,
 * reconfigured or comes up, and when it goes); fare_sync.c, export.c and
 * leaf_upa.c read it in O(1), and never see a struct peer.
 *
 * Peer numbers are never reused (fared's next_index), so an entry whose
 * neighbor went stays absent and a path that outlived it reads as no
 * neighbor at all.
 */
#ifndef FARED_PEER_TABLE_H
#define FARED_PEER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct peer_info {
	bool present;			/* a configured neighbor */
	bool ibgp;			/* its AS is ours */
	bool upstream;			/* a spine's super-spine */
	bool rnic;			/* a leaf's RNIC host */
	unsigned int plane;		/* its fare.ko plane; 0: none */
	uint32_t router_id;		/* its BGP Identifier; 0: never up */
	uint32_t remote_as;		/* its AS */
	uint8_t addr_family;		/* enum bgp_family of addr */
	uint8_t addr[16];
};

struct peer_table {
	struct peer_info *v;
	size_t n;
};

/* Sets entry index to *pi; -1 (the table unchanged) on ENOMEM. */
int peer_table_set(struct peer_table *t, unsigned int index,
		   const struct peer_info *pi);
/* The neighbor index went. */
void peer_table_clear(struct peer_table *t, unsigned int index);
/* Entry index, or NULL when there is no such neighbor (any more). */
const struct peer_info *peer_table_get(const struct peer_table *t,
				       unsigned int index);
void peer_table_free(struct peer_table *t);

#endif /* FARED_PEER_TABLE_H */
