// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deliberate kernel bugs, one per load, to check that tests/vm/run fails a
 * run whose command succeeded but whose kernel log reports a problem:
 *
 *	insmod farevm_bugs.ko bug=warn|kasan|leak|lockdep|softlockup|hung|
 *			       ubsan-bounds|ubsan-shift [seconds=N]
 *
 * softlockup spins with preemption off and hung sleeps uninterruptibly,
 * each for @seconds: the caller first lowers kernel.watchdog_thresh (the
 * soft-lockup threshold is twice that) or kernel.hung_task_timeout_secs
 * below it.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>

static char *bug = "none";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "which bug to commit: warn, kasan, leak, lockdep, softlockup, hung, ubsan-bounds, ubsan-shift");

static unsigned int seconds = 8;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long softlockup spins and hung sleeps");

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

/* A CPU that never schedules: the soft-lockup watchdog's thread starves. */
static void farevm_spin(void)
{
	unsigned long end = jiffies + seconds * HZ;

	preempt_disable();
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
}

/* Two arrays side by side, so that the overrun stays inside the object. */
struct farevm_pair {
	int first[4];
	int second[4];
};

static int farevm_ubsan_bounds(void)
{
	struct farevm_pair pair = { };
	int i = 5;

	OPTIMIZER_HIDE_VAR(i);
	pair.first[i] = 1;
	return pair.second[1];
}

static u32 farevm_ubsan_shift(void)
{
	u32 one = 1;
	int by = 40;

	OPTIMIZER_HIDE_VAR(by);
	return one << by;
}

/*
 * Drop several objects, not one, so that a stale copy of a pointer left
 * in some scanned memory cannot hide the whole leak. Zeroed: this kernel
 * has neither init_on_alloc nor a hardened freelist, so a kmalloc()ed
 * object still holds SLUB's raw pointer to the next free object, which
 * is the next one allocated here; one stale reference to the first then
 * kept all 16 referenced (CI missed the leak twice, the second time after
 * the scans in tests/vm/guest-init were made robust).
 * Each pointer lives only in a register until the next allocation.
 */
static void farevm_leak(void)
{
	int i;

	for (i = 0; i < 16; i++) {
		void *p = kzalloc(64, GFP_KERNEL);

		OPTIMIZER_HIDE_VAR(p);
	}
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
		farevm_leak();
	} else if (!strcmp(bug, "lockdep")) {
		farevm_abba();
	} else if (!strcmp(bug, "softlockup")) {
		farevm_spin();
	} else if (!strcmp(bug, "hung")) {
		/* TASK_UNINTERRUPTIBLE for the whole time. */
		msleep(seconds * 1000);
	} else if (!strcmp(bug, "ubsan-bounds")) {
		pr_info("farevm_bugs: %d\n", farevm_ubsan_bounds());
	} else if (!strcmp(bug, "ubsan-shift")) {
		pr_info("farevm_bugs: %u\n", farevm_ubsan_shift());
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
