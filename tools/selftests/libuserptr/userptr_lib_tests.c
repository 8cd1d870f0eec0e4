// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests of libuserptr on the emulated device: how many ioctls a
 * registration takes in each mode and above the cap, that the device sees
 * the ranges at one contiguous device range, and that every failure
 * leaves nothing registered (the device's STATS ioctl counts what a file
 * holds, its render node's the GEM objects of the device: the render-node
 * route's variants leave none either). Run as root: tests lower the
 * helper's cap through sysfs.
 * The hsakmt_* tests: upr_hsakmt_register_ranges(), libhsakmt's
 * hsaKmtRegisterMemoryRangesWithFlags() (hsakmt_compat.h), end to end:
 * through the render node (one GEM userptr with a ranges array, taken
 * over), whatever the device's mode.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "layout.h"
#include "userptr.h"
#include "hsakmt_compat.h"
#include "userptr_emu_uapi.h"
#include "batch_param.h"
#include "kselftest_harness.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600

#define CAP_PARAM "/sys/module/drm_userptr_batch/parameters/max_ranges"

static struct userptr_emu_stats_args stats(struct upr_dev *dev)
{
	struct userptr_emu_stats_args s;

	memset(&s, 0xff, sizeof(s));
	if (ioctl(upr_dev_fd(dev), USERPTR_EMU_IOC_STATS, &s))
		memset(&s, 0xff, sizeof(s));
	return s;
}

/*
 * The GEM userptr objects of the device's render node (taken over or not)
 * and their ranges; all ones without the node
 */
static struct drm_userptr_emu_stats gem_stats(void)
{
	struct drm_userptr_emu_stats s;
	bool found = false;
	struct dirent *de;
	DIR *d = opendir("/dev/dri");
	char path[300];

	memset(&s, 0xff, sizeof(s));
	while (d && !found && (de = readdir(d))) {
		drmVersionPtr v;
		int fd;

		if (strncmp(de->d_name, "renderD", 7))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, "userptr_emu"))
			found = !ioctl(fd, DRM_IOCTL_USERPTR_EMU_STATS, &s);
		drmFreeVersion(v);
		close(fd);
	}
	if (d)
		closedir(d);
	if (!found)
		memset(&s, 0xff, sizeof(s));
	return s;
}

/* the GEM userptr objects of the device's render node, -1 without one */
static long long gem_objects(void)
{
	return (long long)gem_stats().objects;
}

/* the device reads every range where the library says it put it */
static int device_sees_layout(struct upr_dev *dev, const struct layout *l, uint64_t va)
{
	unsigned int i;
	uint64_t off = 0;
	int ret = 0;

	for (i = 0; i < l->n && !ret; i++) {
		void *buf = malloc(l->r[i].size);

		ret = buf ? wl_device_read(upr_dev_fd(dev), va + off, buf, l->r[i].size, 20000)
			  : -ENOMEM;
		if (!ret && wl_check(buf, l->r[i].size, i + 1, 0) >= 0)
			ret = -EIO;
		off += l->r[i].size;
		free(buf);
	}
	return ret;
}

static int write_cap(unsigned int v)
{
	FILE *f = fopen(CAP_PARAM, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fprintf(f, "%u\n", v) < 0;
	return fclose(f) || ret ? -EIO : 0;
}

FIXTURE(lib)
{
	struct layout l;
	uint64_t sizes[40];
	struct upr_dev *dev;
	struct upr_alloc *a;
};

FIXTURE_VARIANT(lib)
{
	enum upr_mode mode;
	unsigned int max_ranges;
	unsigned int calls;		/* for 40 ranges */
	unsigned int file_allocs;	/* what the device holds then */
};

FIXTURE_VARIANT_ADD(lib, batch) { UPR_MODE_BATCH, 0, 1, 1 };
FIXTURE_VARIANT_ADD(lib, auto_is_batch) { UPR_MODE_AUTO, 0, 1, 1 };
FIXTURE_VARIANT_ADD(lib, per_range) { UPR_MODE_PER_RANGE, 0, 40, 40 };
FIXTURE_VARIANT_ADD(lib, split_at_16) { UPR_MODE_BATCH, 16, 3, 3 };
FIXTURE_VARIANT_ADD(lib, split_at_1) { UPR_MODE_BATCH, 1, 40, 40 };
FIXTURE_VARIANT_ADD(lib, split_at_39) { UPR_MODE_BATCH, 39, 2, 2 };
/* a GEM userptr of the render node and its takeover: two ioctls an object */
FIXTURE_VARIANT_ADD(lib, render) { UPR_MODE_RENDER, 0, 2, 1 };
FIXTURE_VARIANT_ADD(lib, render_per_range) { UPR_MODE_RENDER_PER_RANGE, 0, 80, 40 };
FIXTURE_VARIANT_ADD(lib, render_split_at_16) { UPR_MODE_RENDER, 16, 6, 3 };

FIXTURE_SETUP(lib)
{
	struct upr_opts o = {
		.backend = UPR_BACKEND_EMU,
		.mode = variant->mode,
		.max_ranges = variant->max_ranges,
	};

	wl_sizes(self->sizes, 40, 0, 64 << 10, 3);
	ASSERT_EQ(0, wl_scattered(&self->l, 40, self->sizes, 3));
	ASSERT_EQ(0, upr_open(&self->dev, &o)) TH_LOG("%s", upr_errmsg());
	self->a = NULL;
}

FIXTURE_TEARDOWN(lib)
{
	if (self->a)
		upr_unregister(self->dev, self->a);
	upr_close(self->dev);
	wl_free(&self->l);
}

TEST_F(lib, calls_layout_and_nothing_left)
{
	uint64_t va;

	ASSERT_EQ(0, upr_register(self->dev, self->l.r, 40, 0, UPR_WRITABLE, &self->a))
		TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(variant->calls, upr_alloc_calls(self->a));
	EXPECT_EQ(variant->file_allocs, upr_alloc_handles(self->a));
	EXPECT_EQ(40, upr_alloc_ranges(self->a));
	/* taken over: each object lives on as an allocation's memory */
	EXPECT_EQ(variant->mode >= UPR_MODE_RENDER ? variant->file_allocs : 0, gem_objects());
	EXPECT_EQ(self->l.total, upr_alloc_size(self->a));
	EXPECT_EQ(variant->file_allocs, stats(self->dev).file_allocs);
	EXPECT_EQ(40, stats(self->dev).file_ranges);
	va = upr_alloc_va(self->a);
	EXPECT_EQ(0, device_sees_layout(self->dev, &self->l, va));
	/* the next registration goes after this one */
	EXPECT_EQ(0, upr_unregister(self->dev, self->a));
	self->a = NULL;
	EXPECT_EQ(0, stats(self->dev).file_allocs);
	EXPECT_EQ(0, stats(self->dev).file_ranges);
	EXPECT_EQ(0, gem_objects());
}

/* the 30th range is not mapped: whatever was registered before goes */
TEST_F(lib, failure_part_way_leaves_nothing)
{
	void *p = (void *)(uintptr_t)self->l.r[29].start;

	ASSERT_EQ(0, munmap(p, self->l.r[29].size));
	EXPECT_EQ(-EFAULT, upr_register(self->dev, self->l.r, 40, 0, UPR_WRITABLE, &self->a));
	EXPECT_NE(NULL, strstr(upr_errmsg(), "Bad address")) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(NULL, self->a);
	EXPECT_EQ(0, stats(self->dev).file_allocs);
	EXPECT_EQ(0, stats(self->dev).file_ranges);
	EXPECT_EQ(0, gem_objects());
	/* the hole back, for the allocator that owns it */
	ASSERT_EQ(p, mmap(p, self->l.r[29].size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
}

TEST_F(lib, bad_input_is_refused_and_leaves_nothing)
{
	struct upr_range r[3];
	struct {
		int err;
		unsigned int n;
		uint64_t va;
		uint32_t flags;
		int fix;
	} bad[] = {
		{ -EINVAL, 0, 0, 0, 0 },
		{ -EINVAL, 3, 0, 0, 1 },	/* overlap */
		{ -EINVAL, 3, 0, 0, 2 },	/* unaligned size */
		{ -EINVAL, 3, 123, 0, 0 },	/* unaligned device address */
		{ -EOVERFLOW, 3, -4096ULL, 0, 0 },
		{ -EINVAL, 3, 0, 1, 0 },	/* a flag the library does not know */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(r, self->l.r, sizeof(r));
		if (bad[i].fix == 1)
			r[2] = r[0];
		if (bad[i].fix == 2)
			r[1].size -= 512;
		errno = 0;
		EXPECT_EQ(bad[i].err, upr_register(self->dev, r, bad[i].n, bad[i].va,
						   bad[i].flags, &self->a)) TH_LOG("case %u", i);
		EXPECT_NE(0, upr_errmsg()[0]);
		/* in one batch ioctl the kernel finds it: the message names it */
		if (bad[i].fix == 1)
			EXPECT_NE(NULL, strstr(upr_errmsg(), "overlap")) TH_LOG("%s", upr_errmsg());
		EXPECT_EQ(0, stats(self->dev).file_allocs) TH_LOG("case %u", i);
		EXPECT_EQ(0, gem_objects()) TH_LOG("case %u", i);
	}
}

/* the kernel refuses a device range in use: all of the split is undone */
TEST_F(lib, device_range_in_use)
{
	struct upr_range one = self->l.r[0];
	struct upr_alloc *first;
	uint64_t va;

	ASSERT_EQ(0, upr_register(self->dev, &one, 1, 0, 0, &first));
	/* the last ioctl of the split or of per-range ends on it */
	va = upr_alloc_va(first) + upr_alloc_size(first) - self->l.total;
	EXPECT_EQ(-EADDRINUSE, upr_register(self->dev, self->l.r, 40, va, UPR_WRITABLE,
					    &self->a)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(1, stats(self->dev).file_allocs);
	/* a takeover refused: its GEM object closed (first's own stays) */
	EXPECT_EQ(variant->mode >= UPR_MODE_RENDER ? 1 : 0, gem_objects());
	EXPECT_EQ(0, upr_unregister(self->dev, first));
	EXPECT_EQ(0, gem_objects());
	EXPECT_EQ(0, stats(self->dev).file_allocs);
}

/* ranges adjacent in memory and in device order become one */
TEST(coalesce)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU, .coalesce = true };
	uint64_t sizes[8] = { 4096, 8192, 4096, 16384, 4096, 4096, 8192, 4096 };
	struct upr_dev *dev;
	struct upr_alloc *a;
	struct layout l;

	ASSERT_EQ(0, wl_contiguous(&l, 8, sizes));
	ASSERT_EQ(0, upr_open(&dev, &o));
	ASSERT_EQ(0, upr_register(dev, l.r, 8, 0, UPR_WRITABLE, &a)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(1, upr_alloc_ranges(a));
	EXPECT_EQ(1, stats(dev).file_ranges);
	EXPECT_EQ(0, device_sees_layout(dev, &l, upr_alloc_va(a)));
	EXPECT_EQ(0, upr_unregister(dev, a));
	upr_close(dev);
	wl_free(&l);
}

/* the kernel's cap, read from sysfs, is what the library splits at */
TEST(split_at_the_kernel_cap)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	unsigned long old = batch_param("max_ranges");
	uint64_t sizes[25];
	struct upr_dev *dev;
	struct upr_alloc *a;
	struct layout l;

	ASSERT_NE(0, old);
	wl_sizes(sizes, 25, 4096, 0, 1);
	ASSERT_EQ(0, wl_scattered(&l, 25, sizes, 5));
	ASSERT_EQ(0, write_cap(10));
	ASSERT_EQ(0, upr_open(&dev, &o));
	EXPECT_EQ(10, upr_dev_max_ranges(dev));
	EXPECT_EQ(0, upr_register(dev, l.r, 25, 0, 0, &a)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(3, upr_alloc_calls(a));
	EXPECT_EQ(0, device_sees_layout(dev, &l, upr_alloc_va(a)));
	EXPECT_EQ(0, upr_unregister(dev, a));
	upr_close(dev);
	EXPECT_EQ(0, write_cap(old));
	wl_free(&l);
}

#define EMU_BATCH_ATTR "/sys/class/misc/userptr_emu/userptr_batch_max_ranges"

/* discovery: the device's attribute says the batch ioctl exists, with the cap */
TEST(batch_discovered)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	unsigned long cap = batch_param("max_ranges");
	unsigned int attr = 0;
	struct upr_dev *dev;
	FILE *f;

	f = fopen(EMU_BATCH_ATTR, "r");
	ASSERT_NE(NULL, f) TH_LOG("%s: %s", EMU_BATCH_ATTR, strerror(errno));
	EXPECT_EQ(1, fscanf(f, "%u", &attr));
	fclose(f);
	EXPECT_EQ(cap, attr);
	ASSERT_EQ(0, upr_open(&dev, &o)) TH_LOG("%s", upr_errmsg());
	EXPECT_TRUE(upr_dev_has_batch(dev));
	EXPECT_EQ(cap, upr_dev_max_ranges(dev));
	upr_close(dev);
}

/*
 * A device without the batch ioctl: userptr_emu loaded with hide_batch=1
 * (no attribute; the ioctl is -ENOTTY), as a kernel without the series.
 * AUTO registers one range per ioctl and the device reads the layout;
 * BATCH is refused at open, naming the attribute. guest-userptr.sh runs
 * this test alone, with the module loaded so; every other run excludes it.
 */
TEST(batch_hidden)
{
	struct userptr_emu_alloc_batch_args b = { 0 };
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	uint64_t sizes[40];
	struct upr_dev *dev;
	struct upr_alloc *a;
	struct layout l;

	ASSERT_NE(0, access(EMU_BATCH_ATTR, F_OK))
		TH_LOG("%s exists: load userptr_emu with hide_batch=1", EMU_BATCH_ATTR);
	wl_sizes(sizes, 40, 0, 64 << 10, 3);
	ASSERT_EQ(0, wl_scattered(&l, 40, sizes, 3));
	ASSERT_EQ(0, upr_open(&dev, &o)) TH_LOG("%s", upr_errmsg());
	EXPECT_FALSE(upr_dev_has_batch(dev));
	EXPECT_EQ(1, upr_dev_max_ranges(dev));
	ASSERT_EQ(0, upr_register(dev, l.r, 40, 0, UPR_WRITABLE, &a)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(40, upr_alloc_calls(a));
	EXPECT_EQ(40, stats(dev).file_allocs);
	EXPECT_EQ(0, device_sees_layout(dev, &l, upr_alloc_va(a)));
	EXPECT_EQ(0, upr_unregister(dev, a));
	EXPECT_EQ(0, stats(dev).file_allocs);
	/* what the library did not send is not there */
	errno = 0;
	EXPECT_EQ(-1, ioctl(upr_dev_fd(dev), USERPTR_EMU_IOC_ALLOC_BATCH, &b));
	EXPECT_EQ(ENOTTY, errno);
	upr_close(dev);

	o.mode = UPR_MODE_BATCH;
	dev = NULL;
	EXPECT_EQ(-EOPNOTSUPP, upr_open(&dev, &o));
	EXPECT_NE(NULL, strstr(upr_errmsg(), EMU_BATCH_ATTR)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(NULL, dev);
	wl_free(&l);
}

/* --- hsaKmtRegisterMemoryRangesWithFlags() (hsakmt_compat.h) --- */

#define HSA_HOST ((HsaMemFlags) { .ui32 = { .HostAccess = 1 } })

/* a free address range, as virglrenderer frees the blob's before the call */
static void *free_range(uint64_t size)
{
	void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, size);
	return p;
}

/* 1 when [p, p + size) is free in this process's address space */
static int range_is_free(void *p, uint64_t size)
{
	void *q = mmap(p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (q == MAP_FAILED)
		return 0;
	munmap(q, size);
	return q == p;
}

FIXTURE(hsakmt)
{
	struct layout l;
	uint64_t sizes[40];
	struct upr_dev *dev;
	struct upr_alloc *a;
};

FIXTURE_SETUP(hsakmt)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };

	wl_sizes(self->sizes, 40, 0, 64 << 10, 5);
	ASSERT_EQ(0, wl_scattered(&self->l, 40, self->sizes, 5));
	ASSERT_EQ(0, upr_open(&self->dev, &o)) TH_LOG("%s", upr_errmsg());
	self->a = NULL;
}

FIXTURE_TEARDOWN(hsakmt)
{
	if (self->a)
		upr_unregister(self->dev, self->a);
	upr_close(self->dev);
	wl_free(&self->l);
}

/*
 * GPU VA = MemoryAddress, range i after ranges 0..i-1: one GEM userptr of
 * the render node with the 40 ranges, taken over by the compute file (two
 * ioctls, one allocation, the object its memory), on a device opened with
 * the default mode, whose own registrations take its batch ioctl
 */
TEST_F(hsakmt, registers_at_memory_address)
{
	HsaMemoryRange *r = (HsaMemoryRange *)self->l.r;
	void *p = free_range(self->l.total);
	unsigned char page[4096];

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, gem_objects());
	ASSERT_EQ(HSAKMT_STATUS_SUCCESS,
		  upr_hsakmt_register_ranges(self->dev, p, r, 40, HSA_HOST, &self->a))
		TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(0, upr_hsakmt_errno());
	EXPECT_EQ((uintptr_t)p, upr_alloc_va(self->a));
	EXPECT_EQ(self->l.total, upr_alloc_size(self->a));
	EXPECT_EQ(2, upr_alloc_calls(self->a));
	EXPECT_EQ(1, upr_alloc_handles(self->a));
	EXPECT_EQ(1, stats(self->dev).file_allocs);
	EXPECT_EQ(40, stats(self->dev).file_ranges);
	/* the allocation's memory is one GEM userptr of the render node */
	EXPECT_EQ(1, gem_stats().objects);
	EXPECT_EQ(40, gem_stats().ranges);
	EXPECT_EQ(0, device_sees_layout(self->dev, &self->l, (uintptr_t)p));
	/* writable, as libhsakmt registers it: not a READONLY object */
	memset(page, 0x5a, sizeof(page));
	EXPECT_EQ(0, wl_device_write(upr_dev_fd(self->dev),
				     (uintptr_t)p + wl_offset(&self->l, 3), page, sizeof(page),
				     20000));
	EXPECT_EQ(0, memcmp(page, (void *)(uintptr_t)self->l.r[3].start, sizeof(page)));
	wl_fill((void *)(uintptr_t)self->l.r[3].start, self->l.r[3].size, 4);
	/* held in the CPU's address space while registered, as libhsakmt */
	EXPECT_EQ(0, range_is_free(p, self->l.total));
	EXPECT_EQ(0, upr_unregister(self->dev, self->a));
	self->a = NULL;
	EXPECT_EQ(0, stats(self->dev).file_allocs);
	EXPECT_EQ(0, gem_objects());
	EXPECT_EQ(1, range_is_free(p, self->l.total));

	/* NULL: an address the library chooses, reserved the same way */
	ASSERT_EQ(HSAKMT_STATUS_SUCCESS,
		  upr_hsakmt_register_ranges(self->dev, NULL, r, 40, HSA_HOST, &self->a))
		TH_LOG("%s", upr_errmsg());
	p = (void *)(uintptr_t)upr_alloc_va(self->a);
	EXPECT_NE(NULL, p);
	EXPECT_EQ(0, (uintptr_t)p & 4095);
	EXPECT_EQ(0, range_is_free(p, self->l.total));
	EXPECT_EQ(1, gem_objects());
	EXPECT_EQ(0, device_sees_layout(self->dev, &self->l, (uintptr_t)p));
}

/* each status on the device, and nothing registered or reserved after it */
TEST_F(hsakmt, each_status_leaves_nothing)
{
	HsaMemoryRange r[40];
	struct upr_alloc *first = NULL;
	unsigned int i;
	void *p;
	struct {
		int fix;
		HSAuint64 n;
		uint32_t flags;
		HSAKMT_STATUS status;
		int err;
		const char *msg;
	} c[] = {
		{ 0, 40, 0, HSAKMT_STATUS_NOT_SUPPORTED, -EOPNOTSUPP, "no HostAccess" },
		{ 0, 40, 0x41, HSAKMT_STATUS_NOT_SUPPORTED, -EOPNOTSUPP, "NonPaged" },
		{ 0, 40, 0x40 | 1U << 13 | 1U << 20, HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL,
		  "CoarseGrain and ExtendedCoherent" },
		{ 0, 0, 0x40, HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL, "no ranges" },
		{ 1, 40, 0x40, HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL, "no ranges" },
		{ 2, 40, 0x40, HSAKMT_STATUS_INVALID_PARAMETER, -EINVAL, "no allocp" },
		{ 3, 40, 0x40, HSAKMT_STATUS_ERROR, -EINVAL, "not page aligned" },
		{ 4, 40, 0x40, HSAKMT_STATUS_ERROR, -EINVAL, "overlap" },
		{ 5, 40, 0x40, HSAKMT_STATUS_ERROR, -EINVAL, "MemoryAddress" },
		/* MemoryAddress on memory in use: the CPU's range is not free */
		{ 6, 40, 0x40, HSAKMT_STATUS_ERROR, -EEXIST, "File exists" },
		/* the kernel's errnos */
		{ 7, 40, 0x40, HSAKMT_STATUS_ERROR, -EFAULT, "Bad address" },
		{ 8, 40, 0x40, HSAKMT_STATUS_ERROR, -EADDRINUSE, "Address already in use" },
	};

	p = free_range(self->l.total);
	ASSERT_NE(NULL, p);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		HsaMemFlags f = { .Value = c[i].flags };
		void *addr = p;
		void *hole = NULL;

		memcpy(r, self->l.r, sizeof(r));
		if (c[i].fix == 3)
			r[7].SizeInBytes -= 512;
		if (c[i].fix == 4)
			r[30] = r[2];
		if (c[i].fix == 5)
			addr = (char *)p + 8;
		if (c[i].fix == 6)
			addr = r[0].MemoryAddress;
		if (c[i].fix == 7) {
			hole = r[29].MemoryAddress;
			ASSERT_EQ(0, munmap(hole, r[29].SizeInBytes));
		}
		if (c[i].fix == 8) {
			/* the device range's last page is registered already */
			struct upr_range one = self->l.r[0];

			one.size = 4096;
			ASSERT_EQ(0, upr_register(self->dev, &one, 1,
						  (uintptr_t)p + self->l.total - 4096, 0, &first))
				TH_LOG("%s", upr_errmsg());
		}
		EXPECT_EQ(c[i].status,
			  upr_hsakmt_register_ranges(self->dev, addr, c[i].fix == 1 ? NULL : r,
						     c[i].n, f, c[i].fix == 2 ? NULL : &self->a))
			TH_LOG("case %u: %s", i, upr_errmsg());
		EXPECT_EQ(c[i].err, upr_hsakmt_errno()) TH_LOG("case %u", i);
		EXPECT_NE(NULL, strstr(upr_errmsg(), c[i].msg))
			TH_LOG("case %u: \"%s\" lacks \"%s\"", i, upr_errmsg(), c[i].msg);
		EXPECT_EQ(NULL, self->a) TH_LOG("case %u", i);
		EXPECT_EQ(first ? 1 : 0, stats(self->dev).file_allocs) TH_LOG("case %u", i);
		/* a GEM userptr whose takeover was refused (EADDRINUSE) is closed */
		EXPECT_EQ(0, gem_objects()) TH_LOG("case %u", i);
		EXPECT_EQ(1, range_is_free(p, self->l.total)) TH_LOG("case %u", i);
		if (hole)
			ASSERT_EQ(hole, mmap(hole, r[29].SizeInBytes, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
		if (first) {
			EXPECT_EQ(0, upr_unregister(self->dev, first));
			first = NULL;
		}
	}
}

/* one GEM userptr, never split: above the kernel's cap the kernel says E2BIG */
TEST_F(hsakmt, no_split_at_the_cap)
{
	unsigned long old = batch_param("max_ranges");
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	struct upr_dev *dev;

	ASSERT_NE(0, old);
	ASSERT_EQ(0, write_cap(39));
	ASSERT_EQ(0, upr_open(&dev, &o));
	EXPECT_EQ(39, upr_dev_max_ranges(dev));
	EXPECT_EQ(HSAKMT_STATUS_ERROR,
		  upr_hsakmt_register_ranges(dev, NULL, (HsaMemoryRange *)self->l.r, 40,
					     HSA_HOST, &self->a));
	EXPECT_EQ(-E2BIG, upr_hsakmt_errno()) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(NULL, self->a);
	EXPECT_EQ(0, stats(dev).file_allocs);
	EXPECT_EQ(0, gem_objects());
	EXPECT_EQ(HSAKMT_STATUS_SUCCESS,
		  upr_hsakmt_register_ranges(dev, NULL, (HsaMemoryRange *)self->l.r, 39,
					     HSA_HOST, &self->a)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(1, stats(dev).file_allocs);
	EXPECT_EQ(1, gem_objects());
	EXPECT_EQ(0, upr_unregister(dev, self->a));
	self->a = NULL;
	upr_close(dev);
	EXPECT_EQ(0, write_cap(old));
}

/*
 * The device without its batch ioctl (userptr_emu hide_batch=1;
 * guest-userptr.sh runs this test alone, with batch_hidden): the call does
 * not use it. It registers through the render node, whose GEM userptr
 * takes the ranges array, while the device's own registrations take one
 * ioctl a range; the batch ioctl is not there to be sent.
 */
TEST(hsakmt_batch_hidden)
{
	struct userptr_emu_alloc_batch_args b = { 0 };
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	struct upr_alloc *a = NULL;
	uint64_t sizes[40];
	struct upr_dev *dev;
	struct layout l;
	void *p;

	ASSERT_NE(0, access(EMU_BATCH_ATTR, F_OK))
		TH_LOG("%s exists: load userptr_emu with hide_batch=1", EMU_BATCH_ATTR);
	wl_sizes(sizes, 40, 0, 64 << 10, 5);
	ASSERT_EQ(0, wl_scattered(&l, 40, sizes, 5));
	ASSERT_EQ(0, upr_open(&dev, &o)) TH_LOG("%s", upr_errmsg());
	EXPECT_FALSE(upr_dev_has_batch(dev));
	p = free_range(l.total);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(HSAKMT_STATUS_SUCCESS,
		  upr_hsakmt_register_ranges(dev, p, (HsaMemoryRange *)l.r, 40, HSA_HOST, &a))
		TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(0, upr_hsakmt_errno());
	EXPECT_EQ(2, upr_alloc_calls(a));
	EXPECT_EQ(1, stats(dev).file_allocs);
	EXPECT_EQ(40, stats(dev).file_ranges);
	EXPECT_EQ(1, gem_stats().objects);
	EXPECT_EQ(40, gem_stats().ranges);
	EXPECT_EQ(0, device_sees_layout(dev, &l, (uintptr_t)p));
	EXPECT_EQ(0, upr_unregister(dev, a));
	EXPECT_EQ(0, stats(dev).file_allocs);
	EXPECT_EQ(0, gem_objects());
	EXPECT_EQ(1, range_is_free(p, l.total));
	errno = 0;
	EXPECT_EQ(-1, ioctl(upr_dev_fd(dev), USERPTR_EMU_IOC_ALLOC_BATCH, &b));
	EXPECT_EQ(ENOTTY, errno);
	upr_close(dev);
	wl_free(&l);
}

/*
 * The order a libhsakmt user sees on a kernel whose GEM userptr takes no
 * ranges array (the helper's cap 0 here, as without its parameter): the
 * call is HSAKMT_STATUS_ERROR with nothing sent and nothing reserved, its
 * message naming the parameter, no fallback inside it; the caller's own
 * path then registers (here libuserptr's, one range per ioctl).
 */
TEST(hsakmt_no_ranges_array)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	unsigned long old = batch_param("max_ranges");
	HSAKMT_STATUS status = HSAKMT_STATUS_SUCCESS;
	struct upr_alloc *a = NULL;
	struct upr_dev *dev = NULL;
	char msg[256] = "";
	uint64_t sizes[40];
	struct layout l;
	int ret, err = 0;
	void *p;

	ASSERT_NE(0, old);
	wl_sizes(sizes, 40, 0, 64 << 10, 5);
	ASSERT_EQ(0, wl_scattered(&l, 40, sizes, 5));
	p = free_range(l.total);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, write_cap(0));
	/* the cap back before any assertion can end the test */
	ret = upr_open(&dev, &o);
	if (!ret) {
		status = upr_hsakmt_register_ranges(dev, p, (HsaMemoryRange *)l.r, 40,
						    HSA_HOST, &a);
		err = upr_hsakmt_errno();
		snprintf(msg, sizeof(msg), "%s", upr_errmsg());
	}
	EXPECT_EQ(0, write_cap(old));
	ASSERT_EQ(0, ret) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(HSAKMT_STATUS_ERROR, status);
	EXPECT_EQ(-EOPNOTSUPP, err);
	EXPECT_NE(NULL, strstr(msg, "takes no ranges array")) TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, CAP_PARAM)) TH_LOG("%s", msg);
	EXPECT_EQ(NULL, a);
	EXPECT_EQ(0, stats(dev).file_allocs);
	EXPECT_EQ(0, gem_objects());
	EXPECT_EQ(1, range_is_free(p, l.total));
	/* the caller's fallback (the device read a cap of 0 at open) */
	EXPECT_FALSE(upr_dev_has_batch(dev));
	ASSERT_EQ(0, upr_register(dev, l.r, 40, (uintptr_t)p, UPR_WRITABLE, &a))
		TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(40, upr_alloc_calls(a));
	EXPECT_EQ(40, stats(dev).file_allocs);
	EXPECT_EQ(0, device_sees_layout(dev, &l, (uintptr_t)p));
	EXPECT_EQ(0, upr_unregister(dev, a));
	EXPECT_EQ(0, stats(dev).file_allocs);
	upr_close(dev);
	wl_free(&l);
}

/* /dev/kfd without a GPU is no device; AUTO falls back to the emulation */
TEST(kfd_without_a_gpu)
{
	struct upr_opts o = { .backend = UPR_BACKEND_KFD };
	struct upr_dev *dev = NULL;

	if (access("/dev/kfd", F_OK))
		SKIP(return, "no /dev/kfd (amdgpu not loaded)");
	EXPECT_EQ(-ENODEV, upr_open(&dev, &o));
	EXPECT_NE(NULL, strstr(upr_errmsg(), "no GPU in the KFD topology"))
		TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(NULL, dev);
	o.gpu_id = 1234;
	EXPECT_EQ(-ENODEV, upr_open(&dev, &o));
	EXPECT_NE(NULL, strstr(upr_errmsg(), "gpu_id 1234")) TH_LOG("%s", upr_errmsg());
	o.backend = UPR_BACKEND_AUTO;
	o.gpu_id = 0;
	ASSERT_EQ(0, upr_open(&dev, &o)) TH_LOG("%s", upr_errmsg());
	EXPECT_EQ(UPR_BACKEND_EMU, upr_dev_backend(dev));
	EXPECT_STREQ("userptr_emu", upr_dev_name(dev));
	EXPECT_TRUE(upr_dev_has_batch(dev));
	upr_close(dev);
}

TEST_HARNESS_MAIN
