// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's privileges. It needs two capabilities, whatever uid it runs as:
 *
 *   CAP_NET_ADMIN         fare.ko's generic netlink operations
 *                         (GENL_UNS_ADMIN_PERM), rtnetlink route and rule
 *                         changes, SO_RCVBUFFORCE on its netlink sockets
 *   CAP_NET_BIND_SERVICE  the BGP port 179
 *
 * and nothing else: it binds no socket to a device, opens no raw socket,
 * execs nothing and writes only its state file and control socket.
 * Started as root with -u, it becomes that user and keeps just these;
 * started by systemd as User=fared, the unit's AmbientCapabilities gave
 * them.
 */
#ifndef FARED_PRIVS_H
#define FARED_PRIVS_H

#include <stdbool.h>
#include <sys/types.h>

struct privs {
	uid_t uid;
	gid_t gid;
	bool drop;		/* a user was asked for */
};

/*
 * Resolves USER and GROUP (NULL: USER's primary group) into pv; with
 * user NULL, fared keeps its uid and pv->drop is false. 0, or -1 with
 * the problem written to stderr.
 */
int privs_resolve(struct privs *pv, const char *user, const char *group);
/*
 * Becomes pv's uid and gid with CAP_NET_ADMIN and CAP_NET_BIND_SERVICE
 * only (effective and permitted; none inheritable or ambient; every
 * other capability out of the bounding set). Needs root (CAP_SETUID,
 * CAP_SETGID, CAP_SETPCAP). 0, or -errno with the failing step logged.
 */
int privs_drop(const struct privs *pv);
/* Makes DIR if missing; owned by pv's uid and gid when pv->drop. */
void privs_make_dir(const struct privs *pv, const char *dir);

#endif /* FARED_PRIVS_H */
