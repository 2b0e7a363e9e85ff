// SPDX-License-Identifier: GPL-2.0-only
/*
 * A KUnit suite that passes: plain cases, a parameterised case and a
 * skipped case, so that kunit-run's counting of nested results and of
 * "# SKIP" is exercised.
 */
#include <kunit/test.h>
#include <linux/module.h>

static void farevm_pass_plain(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 2, 1 + 1);
}

static void farevm_pass_again(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, true);
}

static const int farevm_params[] = { 1, 2, 3 };

static void farevm_param_desc(const int *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "value %d", *p);
}

KUNIT_ARRAY_PARAM(farevm, farevm_params, farevm_param_desc);

static void farevm_pass_param(struct kunit *test)
{
	const int *p = test->param_value;

	KUNIT_EXPECT_GT(test, *p, 0);
}

static void farevm_skip(struct kunit *test)
{
	kunit_skip(test, "skipped on purpose");
}

static struct kunit_case farevm_pass_cases[] = {
	KUNIT_CASE(farevm_pass_plain),
	KUNIT_CASE(farevm_pass_again),
	KUNIT_CASE_PARAM(farevm_pass_param, farevm_gen_params),
	KUNIT_CASE(farevm_skip),
	{}
};

static struct kunit_suite farevm_pass_suite = {
	.name = "farevm_selftest_pass",
	.test_cases = farevm_pass_cases,
};

kunit_test_suite(farevm_pass_suite);

MODULE_DESCRIPTION("tests/vm selftest: a passing KUnit suite");
MODULE_LICENSE("GPL");
