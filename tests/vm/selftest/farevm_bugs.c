// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deliberate kernel bugs, one per load, to check that tests/vm/run fails a
 * run whose command succeeded but whose kernel log reports a problem:
 *
 *	insmod farevm_bugs.ko bug=warn|kasan|leak|lockdep
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

static char *bug = "none";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "which bug to commit: warn, kasan, leak, lockdep");

static DEFINE_MUTEX(farevm_lock_a);
static DEFINE_MUTEX(farevm_lock_b);

/* Taking A then B, and later B then A, is an ABBA deadlock in waiting. */
static void farevm_abba(void)
{
	mutex_lock(&farevm_lock_a);
	mutex_lock(&farevm_lock_b);
	mutex_unlock(&farevm_lock_b);
	mutex_unlock(&farevm_lock_a);

	mutex_lock(&farevm_lock_b);
	mutex_lock(&farevm_lock_a);
	mutex_unlock(&farevm_lock_a);
	mutex_unlock(&farevm_lock_b);
}

static int __init farevm_bugs_init(void)
{
	if (!strcmp(bug, "warn")) {
		WARN_ON(1);
	} else if (!strcmp(bug, "kasan")) {
		char *p = kmalloc(8, GFP_KERNEL);
		int i = 8;

		if (!p)
			return -ENOMEM;
		/* Keep the compiler from seeing the overflow at build time. */
		OPTIMIZER_HIDE_VAR(i);
		p[i] = 1;
		kfree(p);
	} else if (!strcmp(bug, "leak")) {
		void *p = kmalloc(64, GFP_KERNEL);

		/* Hide the pointer from the compiler, then drop it. */
		OPTIMIZER_HIDE_VAR(p);
	} else if (!strcmp(bug, "lockdep")) {
		farevm_abba();
	}
	return 0;
}

static void __exit farevm_bugs_exit(void)
{
}

module_init(farevm_bugs_init);
module_exit(farevm_bugs_exit);

MODULE_DESCRIPTION("tests/vm selftest: deliberate kernel bugs");
MODULE_LICENSE("GPL");
