// SPDX-License-Identifier: GPL-2.0-only
/*
 * A KUnit suite with one failing case: kunit-run must report it and exit 1
 * although insmod succeeds.
 */
#include <kunit/test.h>
#include <linux/module.h>

static void farevm_fail_ok(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1, 1);
}

static void farevm_fail_bad(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1, 2, "fails on purpose");
}

static struct kunit_case farevm_fail_cases[] = {
	KUNIT_CASE(farevm_fail_ok),
	KUNIT_CASE(farevm_fail_bad),
	{}
};

static struct kunit_suite farevm_fail_suite = {
	.name = "farevm_selftest_fail",
	.test_cases = farevm_fail_cases,
};

kunit_test_suite(farevm_fail_suite);

MODULE_DESCRIPTION("tests/vm selftest: a failing KUnit suite");
MODULE_LICENSE("GPL");
