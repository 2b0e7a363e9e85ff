// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dropping root for a user that keeps fared's two capabilities (privs.h),
 * as BIRD's -u/-g does: PR_SET_KEEPCAPS across setresuid(), then capset()
 * down to the two. No libcap: the three calls are all it would wrap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fared.h"
#include "privs.h"

/* What fared keeps: see privs.h for why each. */
#define PRIVS_KEEP	((1u << CAP_NET_ADMIN) | (1u << CAP_NET_BIND_SERVICE))

int privs_resolve(struct privs *pv, const char *user, const char *group)
{
	struct passwd *pw;
	struct group *gr;

	pv->uid = geteuid();
	pv->gid = getegid();
	pv->drop = false;
	if (!user && !group)
		return 0;
	if (!user) {
		fprintf(stderr, "fared: -g needs -u\n");
		return -1;
	}
	if (geteuid()) {
		fprintf(stderr, "fared: -u %s: only root can become another "
			"user (under systemd: the unit's User=)\n", user);
		return -1;
	}
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		fprintf(stderr, "fared: -u %s: %s\n", user,
			errno ? strerror(errno) : "no such user");
		return -1;
	}
	pv->uid = pw->pw_uid;
	pv->gid = pw->pw_gid;
	if (group) {
		errno = 0;
		gr = getgrnam(group);
		if (!gr) {
			fprintf(stderr, "fared: -g %s: %s\n", group,
				errno ? strerror(errno) : "no such group");
			return -1;
		}
		pv->gid = gr->gr_gid;
	}
	if (!pv->uid) {
		fprintf(stderr, "fared: -u %s: that is root; nothing to drop\n",
			user);
		return -1;
	}
	pv->drop = true;
	return 0;
}

static int caps_set(uint32_t keep)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3] = {
		{ .effective = keep, .permitted = keep },
	};

	return syscall(SYS_capset, &h, c) ? -errno : 0;
}

int privs_drop(const struct privs *pv)
{
	unsigned long cap;
	int err;

	if (!pv->drop)
		return 0;
	/* The bounding set first, while CAP_SETPCAP is still effective. */
	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
		if (PRIVS_KEEP & (cap < 32 ? 1u << cap : 0))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			err = -errno;
			fared_log("privileges: dropping capability %lu from "
				  "the bounding set: %s", cap, strerror(-err));
			return err;
		}
	}
	/* Nothing fared execs may gain anything. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL) {
		err = -errno;
		fared_log("privileges: clearing ambient capabilities: %s",
			  strerror(-err));
		return err;
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    setgroups(1, &pv->gid) ||
	    setresgid(pv->gid, pv->gid, pv->gid) ||
	    setresuid(pv->uid, pv->uid, pv->uid)) {
		err = -errno;
		fared_log("privileges: becoming uid %u gid %u: %s",
			  (unsigned int)pv->uid, (unsigned int)pv->gid,
			  strerror(-err));
		return err;
	}
	/* Permitted survived setresuid() (KEEPCAPS); effective did not. */
	err = caps_set(PRIVS_KEEP);
	if (!err && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0))
		err = -errno;
	if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		err = -errno;
	if (err) {
		fared_log("privileges: keeping CAP_NET_ADMIN and "
			  "CAP_NET_BIND_SERVICE: %s", strerror(-err));
		return err;
	}
	fared_log("privileges: running as uid %u gid %u with CAP_NET_ADMIN "
		  "and CAP_NET_BIND_SERVICE only", (unsigned int)pv->uid,
		  (unsigned int)pv->gid);
	return 0;
}

void privs_make_dir(const struct privs *pv, const char *dir)
{
	if (!mkdir(dir, 0755)) {
		if (pv->drop && chown(dir, pv->uid, pv->gid))
			fared_log("%s: chown to uid %u: %s", dir,
				  (unsigned int)pv->uid, strerror(errno));
		return;
	}
	if (errno != EEXIST)
		fared_log("%s: %s", dir, strerror(errno));
}
