// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libuserptr's pure parts: validation, coalescing and
 * splitting above the cap, and the errors of opening a device that is not
 * there (no registration needs a device to be checked).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "userptr.h"
#include "kselftest_harness.h"

#define PG	4096ULL

TEST(validate_accepts_and_sums)
{
	/* ranges 2 and 0 touch: touching is not overlapping */
	struct upr_range r[] = { { 3 * PG, PG }, { 10 * PG, 2 * PG }, { PG, 2 * PG } };
	uint64_t total = 0;

	ASSERT_EQ(0, upr_validate(r, 3, PG, &total)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(5 * PG, total);
	EXPECT_EQ(0, upr_validate(r, 3, PG, NULL));
}

TEST(validate_errors)
{
	static const struct {
		struct upr_range r[2];
		unsigned int n;
		int err;
		const char *msg;
	} bad[] = {
		{ { { PG, PG } }, 0, -EINVAL, "no ranges" },
		{ { { 0, PG } }, 1, -EINVAL, "range 0: start is 0" },
		{ { { PG, 0 } }, 1, -EINVAL, "range 0: size is 0" },
		{ { { PG + 8, PG } }, 1, -EINVAL, "not page aligned" },
		{ { { PG, PG }, { 4 * PG, 100 } }, 2, -EINVAL,
		  "range 1: 0x4000+0x64 is not page aligned" },
		{ { { -PG, 2 * PG } }, 1, -EOVERFLOW, "wraps around" },
		{ { { PG, 4 * PG }, { 2 * PG, PG } }, 2, -EINVAL, "overlap" },
		{ { { 8 * PG, PG }, { 8 * PG, PG } }, 2, -EINVAL, "overlap" },
		{ { { PG, 1ULL << 63 }, { 1ULL << 62, 1ULL << 63 } }, 2, -EOVERFLOW, "add up to" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(bad[i].err, upr_validate(bad[i].r, bad[i].n, PG, NULL))
			TH_LOG("case %u", i);
		EXPECT_NE(NULL, strstr(upr_errmsg(), bad[i].msg))
			TH_LOG("case %u: \"%s\" lacks \"%s\"", i, upr_errmsg(), bad[i].msg);
	}
	EXPECT_EQ(-EINVAL, upr_validate(NULL, 1, PG, NULL));
}

TEST(coalesce_merges_only_neighbours_in_device_order)
{
	struct upr_range r[] = {
		{ 1 * PG, PG }, { 2 * PG, PG }, { 3 * PG, 2 * PG },	/* one run */
		{ 9 * PG, PG },						/* alone */
		{ 20 * PG, PG }, { 19 * PG, PG },			/* reversed: kept */
		{ 30 * PG, PG }, { 31 * PG, PG },			/* a run again */
	};

	ASSERT_EQ(5, upr_coalesce(r, ARRAY_SIZE(r)));
	EXPECT_EQ(1 * PG, r[0].start);
	EXPECT_EQ(4 * PG, r[0].size);
	EXPECT_EQ(9 * PG, r[1].start);
	EXPECT_EQ(PG, r[1].size);
	EXPECT_EQ(20 * PG, r[2].start);
	EXPECT_EQ(19 * PG, r[3].start);
	EXPECT_EQ(30 * PG, r[4].start);
	EXPECT_EQ(2 * PG, r[4].size);
	EXPECT_EQ(0, upr_coalesce(r, 0));
}

TEST(split_takes_the_fewest_calls)
{
	EXPECT_EQ(1, upr_split_calls(1, 8192));
	EXPECT_EQ(1, upr_split_calls(8192, 8192));
	EXPECT_EQ(2, upr_split_calls(8193, 8192));
	EXPECT_EQ(3, upr_split_calls(40, 16));
	EXPECT_EQ(4096, upr_split_calls(4096, 1));
	EXPECT_EQ(0, upr_split_calls(10, 0));
}

TEST(split_covers_every_range_once)
{
	static const unsigned int cases[][2] = {
		{ 40, 16 }, { 8193, 8192 }, { 16384, 8192 }, { 7, 7 }, { 1, 5 }, { 100, 3 },
		{ 12289, 4096 },
	};
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		unsigned int n = cases[c][0], cap = cases[c][1], calls, i, first, cnt;
		unsigned int next = 0, lo = ~0U, hi = 0;

		calls = upr_split_calls(n, cap);
		for (i = 0; i < calls; i++) {
			cnt = upr_split_count(n, cap, i, &first);
			EXPECT_EQ(next, first) TH_LOG("n %u cap %u call %u", n, cap, i);
			EXPECT_LE(cnt, cap);
			EXPECT_GE(cnt, 1);
			lo = cnt < lo ? cnt : lo;
			hi = cnt > hi ? cnt : hi;
			next = first + cnt;
		}
		EXPECT_EQ(n, next) TH_LOG("n %u cap %u", n, cap);
		EXPECT_LE(hi - lo, 1) TH_LOG("n %u cap %u: unbalanced", n, cap);
		EXPECT_EQ(0, upr_split_count(n, cap, calls, &first));
	}
	/* 40 at 16: 14 + 13 + 13 */
	EXPECT_EQ(14, upr_split_count(40, 16, 0, NULL));
	EXPECT_EQ(13, upr_split_count(40, 16, 2, NULL));
}

/* on the host there is no device: the errors say which and why */
TEST(open_without_a_device)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	struct upr_dev *dev = NULL;

	if (!access("/dev/userptr_emu", F_OK))
		SKIP(return, "/dev/userptr_emu exists here");
	EXPECT_EQ(-ENOENT, upr_open(&dev, &o));
	EXPECT_NE(NULL, strstr(upr_errmsg(), "open /dev/userptr_emu"));
	EXPECT_EQ(NULL, dev);
	o.backend = UPR_BACKEND_AUTO;
	EXPECT_EQ(-ENOENT, upr_open(&dev, &o));
	EXPECT_NE(NULL, strstr(upr_errmsg(), "no device: "));
	o.backend = 7;
	EXPECT_EQ(-EINVAL, upr_open(&dev, &o));
	EXPECT_EQ(NULL, dev);
}

TEST_HARNESS_MAIN
