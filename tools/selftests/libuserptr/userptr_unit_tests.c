// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libuserptr's pure parts: validation, coalescing and
 * splitting above the cap, the errors of opening a device that is not
 * there (no registration needs a device to be checked), and
 * hsaKmtRegisterMemoryRangesWithFlags()'s statuses (hsakmt_compat.h): the
 * values, the layouts, each check in libhsakmt's order, each errno.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "userptr.h"
#include "hsakmt_compat.h"
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
	/* both reasons, each once: KFD's, then the emulated device's */
	EXPECT_NE(NULL, strstr(upr_errmsg(), "no device: open /dev/kfd: "))
		TH_LOG("%s", upr_errmsg());
	EXPECT_NE(NULL, strstr(upr_errmsg(), "; open /dev/userptr_emu: "))
		TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(NULL, strstr(strstr(upr_errmsg(), "/dev/kfd") + 1, "/dev/kfd"))
		TH_LOG("%s", upr_errmsg());
	o.backend = 7;
	EXPECT_EQ(-EINVAL, upr_open(&dev, &o));
	EXPECT_EQ(NULL, dev);
}

/* libhsakmt's include/hsakmt/hsakmttypes.h, number by number */
TEST(hsakmt_status_values_are_libhsakmts)
{
	EXPECT_EQ(0, HSAKMT_STATUS_SUCCESS);
	EXPECT_EQ(1, HSAKMT_STATUS_ERROR);
	EXPECT_EQ(2, HSAKMT_STATUS_DRIVER_MISMATCH);
	EXPECT_EQ(3, HSAKMT_STATUS_INVALID_PARAMETER);
	EXPECT_EQ(4, HSAKMT_STATUS_INVALID_HANDLE);
	EXPECT_EQ(5, HSAKMT_STATUS_INVALID_NODE_UNIT);
	EXPECT_EQ(6, HSAKMT_STATUS_NO_MEMORY);
	EXPECT_EQ(7, HSAKMT_STATUS_BUFFER_TOO_SMALL);
	EXPECT_EQ(10, HSAKMT_STATUS_NOT_IMPLEMENTED);
	EXPECT_EQ(11, HSAKMT_STATUS_NOT_SUPPORTED);
	EXPECT_EQ(12, HSAKMT_STATUS_UNAVAILABLE);
	EXPECT_EQ(13, HSAKMT_STATUS_OUT_OF_RESOURCES);
	EXPECT_EQ(20, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
	EXPECT_EQ(21, HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
	EXPECT_EQ(22, HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
	EXPECT_EQ(23, HSAKMT_STATUS_HSAMMU_UNAVAILABLE);
	EXPECT_EQ(30, HSAKMT_STATUS_WAIT_FAILURE);
	EXPECT_EQ(31, HSAKMT_STATUS_WAIT_TIMEOUT);
	EXPECT_EQ(35, HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED);
	EXPECT_EQ(36, HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
	EXPECT_EQ(37, HSAKMT_STATUS_MEMORY_ALIGNMENT);
}

TEST(hsakmt_layouts_are_libhsakmts)
{
	HsaMemFlags f = { .Value = 0 };

	EXPECT_EQ(16, sizeof(HsaMemoryRange));
	EXPECT_EQ(0, offsetof(HsaMemoryRange, MemoryAddress));
	EXPECT_EQ(8, offsetof(HsaMemoryRange, SizeInBytes));
	EXPECT_EQ(4, sizeof(HsaMemFlags));
	f.ui32.NonPaged = 1;
	EXPECT_EQ(1U << 0, f.Value);
	f.Value = 0;
	f.ui32.HostAccess = 1;
	EXPECT_EQ(1U << 6, f.Value);
	f.Value = 0;
	f.ui32.CoarseGrain = 1;
	EXPECT_EQ(1U << 13, f.Value);
	f.Value = 0;
	f.ui32.ExtendedCoherent = 1;
	EXPECT_EQ(1U << 20, f.Value);
}

/* libhsakmt gives every failed ioctl HSAKMT_STATUS_ERROR, whatever errno */
TEST(hsakmt_every_errno_is_error)
{
	static const int errs[] = {
		EINVAL, EFAULT, EADDRINUSE, E2BIG, ENOMEM, ENOSPC, EBUSY, EPERM, EACCES,
		ENOTTY, EOPNOTSUPP, EAGAIN, EINTR, ENODEV, EOVERFLOW, EEXIST, EIO,
	};
	unsigned int i;

	EXPECT_EQ(HSAKMT_STATUS_SUCCESS, upr_hsakmt_status(0));
	for (i = 0; i < ARRAY_SIZE(errs); i++)
		EXPECT_EQ(HSAKMT_STATUS_ERROR, upr_hsakmt_status(-errs[i]))
			TH_LOG("%s", strerror(errs[i]));
}

#define BIT(n)		(1U << (n))
#define HOST		BIT(6)
#define NONPAGED	BIT(0)
#define COARSE		BIT(13)
#define EXTCOH		BIT(20)

/* every check before the device, in libhsakmt's order, with its status */
TEST(hsakmt_checks_in_libhsakmts_order)
{
	static const struct {
		uint64_t addr;
		HsaMemoryRange r[2];
		int no_ranges;
		HSAuint64 n;
		uint32_t flags;
		HSAKMT_STATUS status;
		int err;
		const char *msg;
	} c[] = {
		/* hsaKmtRegisterMemoryRangesWithFlagsCtx() */
		{ 0, { { 0 } }, 1, 1, HOST, HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL, "no ranges" },
		{ 0, { { (void *)PG, PG } }, 0, 0, HOST, HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL,
		  "no ranges" },
		/* no ranges comes before the flags */
		{ 0, { { 0 } }, 0, 0, NONPAGED, HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL,
		  "no ranges" },
		{ 0, { { (void *)PG, PG } }, 0, 1, HOST | COARSE | EXTCOH,
		  HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL, "CoarseGrain and ExtendedCoherent" },
		/* the pair comes before HostAccess */
		{ 0, { { (void *)PG, PG } }, 0, 1, COARSE | EXTCOH,
		  HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL, "CoarseGrain and ExtendedCoherent" },
		{ 0, { { (void *)PG, PG } }, 0, 1, 0, HSAKMT_STATUS_NOT_SUPPORTED, -EOPNOTSUPP,
		  "no HostAccess" },
		{ 0, { { (void *)PG, PG } }, 0, 1, HOST | NONPAGED, HSAKMT_STATUS_NOT_SUPPORTED,
		  -EOPNOTSUPP, "NonPaged" },
		/* the fmm's and the kernel's: ERROR */
		{ 0, { { (void *)PG, PG } }, 0, 1ULL << 32, HOST, HSAKMT_STATUS_ERROR, -E2BIG,
		  "do not fit" },
		{ PG + 8, { { (void *)PG, PG } }, 0, 1, HOST, HSAKMT_STATUS_ERROR, -EINVAL,
		  "MemoryAddress 0x1008 is not page aligned" },
		{ 0, { { (void *)(PG + 8), PG } }, 0, 1, HOST, HSAKMT_STATUS_ERROR, -EINVAL,
		  "not page aligned" },
		{ 0, { { (void *)PG, PG }, { (void *)(4 * PG), 100 } }, 0, 2, HOST,
		  HSAKMT_STATUS_ERROR, -EINVAL, "range 1: 0x4000+0x64 is not page aligned" },
		{ 0, { { (void *)PG, 0 } }, 0, 1, HOST, HSAKMT_STATUS_ERROR, -EINVAL,
		  "range 0: size is 0" },
		{ 0, { { 0, PG } }, 0, 1, HOST, HSAKMT_STATUS_ERROR, -EINVAL,
		  "range 0: start is 0" },
		{ 0, { { (void *)PG, 4 * PG }, { (void *)(2 * PG), PG } }, 0, 2, HOST,
		  HSAKMT_STATUS_ERROR, -EINVAL, "overlap" },
		{ 0, { { (void *)-PG, 2 * PG } }, 0, 1, HOST, HSAKMT_STATUS_ERROR, -EOVERFLOW,
		  "wraps around" },
		{ 0, { { (void *)PG, 1ULL << 63 }, { (void *)(1ULL << 62), 1ULL << 63 } }, 0, 2,
		  HOST, HSAKMT_STATUS_ERROR, -EOVERFLOW, "add up to" },
		/* what passes: the flags libhsakmt does not look at pass too */
		{ 0, { { (void *)(3 * PG), PG }, { (void *)PG, 2 * PG } }, 0, 2, HOST,
		  HSAKMT_STATUS_SUCCESS, 0, NULL },
		{ 8 * PG, { { (void *)PG, PG } }, 0, 1, HOST | COARSE | BIT(3) | BIT(12),
		  HSAKMT_STATUS_SUCCESS, 0, NULL },
		{ 0, { { (void *)PG, PG } }, 0, 1, HOST | EXTCOH, HSAKMT_STATUS_SUCCESS, 0, NULL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		HsaMemFlags f = { .Value = c[i].flags };

		EXPECT_EQ(c[i].status,
			  upr_hsakmt_check((void *)(uintptr_t)c[i].addr,
					   c[i].no_ranges ? NULL : c[i].r, c[i].n, f, PG))
			TH_LOG("case %u", i);
		EXPECT_EQ(c[i].err, upr_hsakmt_errno()) TH_LOG("case %u", i);
		if (c[i].msg)
			EXPECT_NE(NULL, strstr(upr_errmsg(), c[i].msg))
				TH_LOG("case %u: \"%s\" lacks \"%s\"", i, upr_errmsg(), c[i].msg);
	}
}

/* no device is libhsakmt's KFD not opened, before any other check */
TEST(hsakmt_without_a_device)
{
	HsaMemoryRange r = { (void *)PG, PG };
	HsaMemFlags f = { .Value = HOST };
	struct upr_alloc *a = NULL;

	EXPECT_EQ(HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
		  upr_hsakmt_register_ranges(NULL, NULL, &r, 1, f, &a));
	EXPECT_EQ(-EBADF, upr_hsakmt_errno());
	EXPECT_NE(NULL, strstr(upr_errmsg(), "no device"));
	f.Value = 0;
	EXPECT_EQ(HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
		  upr_hsakmt_register_ranges(NULL, (void *)3, NULL, 0, f, NULL));
	EXPECT_EQ(NULL, a);
}

TEST_HARNESS_MAIN
