// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel services of src/shim/os.c that the other suites do not reach: a
 * call site's rate limit.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/ratelimit.h>

#include <ktl/platform.h>

/* The kernel's state inside a struct srpt_os_ratelimit (src/shim/os.c). */
static struct ratelimit_state *rs_of(struct srpt_os_ratelimit *rl)
{
	return (struct ratelimit_state *)rl;
}

/*
 * Each call site has its own limit: a flood at one (an initiator sending
 * bad IUs) does not silence another; once an interval has passed, the
 * next line goes out and the count of the dropped ones with it.
 */
static void os_ratelimit_per_call_site(struct kunit *test)
{
	static struct srpt_os_ratelimit flood, other;
	int i;

	for (i = 0; i < 3 * DEFAULT_RATELIMIT_BURST; i++)
		srpt_os_log_ratelimited(&flood, SRPT_LOG_INFO, "srpt kunit: flood %d\n", i);
	KUNIT_EXPECT_EQ(test, rs_of(&flood)->printed, DEFAULT_RATELIMIT_BURST);
	KUNIT_EXPECT_EQ(test, rs_of(&flood)->missed, 2 * DEFAULT_RATELIMIT_BURST);

	srpt_os_log_ratelimited(&other, SRPT_LOG_INFO, "srpt kunit: another call site\n");
	KUNIT_EXPECT_EQ(test, rs_of(&other)->printed, 1);
	KUNIT_EXPECT_EQ(test, rs_of(&other)->missed, 0);

	/* An interval later: printed again, the dropped ones counted out. */
	rs_of(&flood)->begin -= DEFAULT_RATELIMIT_INTERVAL + 1;
	srpt_os_log_ratelimited(&flood, SRPT_LOG_INFO, "srpt kunit: flood again\n");
	KUNIT_EXPECT_EQ(test, rs_of(&flood)->printed, 1);
	KUNIT_EXPECT_EQ(test, rs_of(&flood)->missed, 0);
}

static struct kunit_case os_cases[] = {
	KUNIT_CASE(os_ratelimit_per_call_site),
	{}
};

static struct kunit_suite srpt_os_suite = {
	.name = "srpt_os",
	.test_cases = os_cases,
};

kunit_test_suites(&srpt_os_suite);
