// SPDX-License-Identifier: GPL-2.0
/*
 * AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH on /dev/kfd without an AMD GPU.
 *
 * With no GPU every call ends in -EINVAL at the gpu_id lookup, so a
 * malformed argument that is not checked would still see -EINVAL. What
 * tells the two apart is a kprobe on kfd_process_device_data_by_id(): each
 * malformed call must fail with its documented errno and never reach the
 * lookup; the well-formed call with an unknown gpu_id reaches it exactly
 * once. Runs in the guest (scripts/vm-run) as root, with amdgpu loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>

#include "batch_param.h"
#include "kselftest_harness.h"

#define TRACING		"/sys/kernel/tracing"
#define PROBE		"kfdbatch_lookup"
#define GPU_VA		0x100000000ULL
#define UNKNOWN_GPU_ID	0xdeadbeefU
#define BATCH_NR	_IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH)

static long page_size;

static int write_file(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* hits of the lookup kprobe, from kprobe_profile ("  name  hits  misses") */
static long lookup_hits(void)
{
	char name[128];
	long hits = -1, h, m;
	FILE *f = fopen(TRACING "/kprobe_profile", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %ld %ld", name, &h, &m) == 3)
		if (!strcmp(name, PROBE))
			hits = h;
	fclose(f);
	return hits;
}

enum mutation {
	NONE, COUNT_0, NULL_PTR, BAD_PTR, PAD, TOTAL_0, NO_USERPTR, VRAM, AQL,
	CONTIGUOUS, UNDEFINED_FLAG, ATTRIBUTES,
	VA_UNALIGNED, TOTAL_UNALIGNED, VA_WRAP, OVER_CAP, START_UNALIGNED,
	SIZE_UNALIGNED, SIZE_0, RANGE_WRAP, ABOVE_TASK_SIZE, OVERLAP,
	SUM_NE_TOTAL, START_0, CMD_SMALLER, CMD_LARGER, CMD_WRITE_ONLY,
	SECONDARY,
};

FIXTURE(kfd_batch)
{
	int fd;
	char *a, *b;	/* two mappings with a hole between them */
	struct kfd_ioctl_userptr_range ranges[2];
	struct kfd_ioctl_alloc_memory_of_gpu_batch_args args;
	unsigned long max_ranges;
};

FIXTURE_VARIANT(kfd_batch)
{
	enum mutation mutation;
	int err;		/* the documented errno */
	int lookups;		/* calls that reach the gpu_id lookup */
};

FIXTURE_VARIANT_ADD(kfd_batch, unknown_gpu_id) {
	.mutation = NONE,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_VARIANT_ADD(kfd_batch, count_0) {
	.mutation = COUNT_0,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, null_ranges_ptr) {
	.mutation = NULL_PTR,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, unreadable_ranges_ptr) {
	.mutation = BAD_PTR,
	.err = EFAULT,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, pad_not_0) {
	.mutation = PAD,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, total_0) {
	.mutation = TOTAL_0,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, no_userptr_flag) {
	.mutation = NO_USERPTR,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, vram_flag) {
	.mutation = VRAM,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, aql_flag) {
	.mutation = AQL,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, contiguous_flag) {
	.mutation = CONTIGUOUS,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, undefined_flag) {
	.mutation = UNDEFINED_FLAG,
	.err = EINVAL,
	.lookups = 0,
};

/* every attribute flag a userptr BO takes passes, up to the gpu_id lookup */
FIXTURE_VARIANT_ADD(kfd_batch, attribute_flags) {
	.mutation = ATTRIBUTES,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_VARIANT_ADD(kfd_batch, va_unaligned) {
	.mutation = VA_UNALIGNED,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, total_unaligned) {
	.mutation = TOTAL_UNALIGNED,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, va_wraps) {
	.mutation = VA_WRAP,
	.err = EOVERFLOW,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, over_the_cap) {
	.mutation = OVER_CAP,
	.err = E2BIG,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, start_unaligned) {
	.mutation = START_UNALIGNED,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, size_unaligned) {
	.mutation = SIZE_UNALIGNED,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, size_0) {
	.mutation = SIZE_0,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, range_wraps) {
	.mutation = RANGE_WRAP,
	.err = EOVERFLOW,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, above_task_size) {
	.mutation = ABOVE_TASK_SIZE,
	.err = EFAULT,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, ranges_overlap) {
	.mutation = OVERLAP,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, sum_not_total) {
	.mutation = SUM_NE_TOTAL,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, start_0) {
	.mutation = START_0,
	.err = EINVAL,
	.lookups = 0,
};

/*
 * The number with another size or direction: what a caller built with
 * another layout sends. amdkfd takes other sizes for its other ioctls;
 * not for this one.
 */
FIXTURE_VARIANT_ADD(kfd_batch, cmd_smaller) {
	.mutation = CMD_SMALLER,
	.err = ENOTTY,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, cmd_larger) {
	.mutation = CMD_LARGER,
	.err = ENOTTY,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_batch, cmd_write_only) {
	.mutation = CMD_WRITE_ONLY,
	.err = ENOTTY,
	.lookups = 0,
};

/*
 * A secondary KFD process (AMDKFD_IOC_CREATE_PROCESS on the file) takes no
 * userptr on 7.3: the batch is refused as a single userptr is, with
 * EOPNOTSUPP, before any argument or the gpu_id is looked at.
 */
FIXTURE_VARIANT_ADD(kfd_batch, secondary_process) {
	.mutation = SECONDARY,
	.err = EOPNOTSUPP,
	.lookups = 0,
};

FIXTURE_SETUP(kfd_batch)
{
	char probe[128];

	page_size = sysconf(_SC_PAGESIZE);
	self->fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no /dev/kfd: amdgpu with amdkfd not loaded");
	ASSERT_GE(self->fd, 0) TH_LOG("open /dev/kfd: %s", strerror(errno));
	self->max_ranges = batch_param("max_ranges");
	ASSERT_GT(self->max_ranges, 0) TH_LOG("cannot read drm_userptr_batch.max_ranges");

	/* a: 3 pages, the middle one unmapped again; b = a + 2 pages */
	self->a = mmap(NULL, 3 * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->a);
	ASSERT_EQ(0, munmap(self->a + page_size, page_size));
	self->b = self->a + 2 * page_size;

	self->ranges[0].start = (unsigned long)self->a;
	self->ranges[0].size = page_size;
	self->ranges[1].start = (unsigned long)self->b;
	self->ranges[1].size = page_size;
	memset(&self->args, 0, sizeof(self->args));
	self->args.va_addr = GPU_VA;
	self->args.total_size = 2 * page_size;
	self->args.ranges_ptr = (unsigned long)self->ranges;
	self->args.num_ranges = 2;
	self->args.gpu_id = UNKNOWN_GPU_ID;
	self->args.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
			   KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;

	write_file(TRACING "/events/kprobes/" PROBE "/enable", "0", 0);
	write_file(TRACING "/kprobe_events", "-:kprobes/" PROBE, O_APPEND);
	snprintf(probe, sizeof(probe), "p:kprobes/%s kfd_process_device_data_by_id", PROBE);
	ASSERT_EQ(0, write_file(TRACING "/kprobe_events", probe, O_APPEND))
		TH_LOG("cannot add a kprobe on kfd_process_device_data_by_id");
	ASSERT_EQ(0, write_file(TRACING "/events/kprobes/" PROBE "/enable", "1", 0));
	ASSERT_EQ(0, lookup_hits());
}

FIXTURE_TEARDOWN(kfd_batch)
{
	write_file(TRACING "/events/kprobes/" PROBE "/enable", "0", 0);
	write_file(TRACING "/kprobe_events", "-:kprobes/" PROBE, O_APPEND);
	munmap(self->a, page_size);
	munmap(self->b, page_size);
	close(self->fd);
}

TEST_F(kfd_batch, errno_and_no_device_lookup)
{
	struct kfd_ioctl_alloc_memory_of_gpu_batch_args *args = &self->args;
	struct kfd_ioctl_userptr_range *r = self->ranges;
	unsigned long cmd = AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH;
	int ret;

	switch (variant->mutation) {
	case NONE:
		break;
	case COUNT_0:
		args->num_ranges = 0;
		break;
	case NULL_PTR:
		args->ranges_ptr = 0;
		break;
	case BAD_PTR:
		args->ranges_ptr = (unsigned long)self->a + page_size;	/* the hole */
		break;
	case PAD:
		args->pad = 1;
		break;
	case TOTAL_0:
		args->total_size = 0;
		break;
	case NO_USERPTR:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
		break;
	case VRAM:
		args->flags |= KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
		break;
	case AQL:
		args->flags |= KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM;
		break;
	case CONTIGUOUS:
		args->flags |= KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS;
		break;
	case UNDEFINED_FLAG:
		args->flags |= 1U << 20;	/* no KFD_IOC_ALLOC_MEM_FLAGS_* */
		break;
	case ATTRIBUTES:
		args->flags |= KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE |
			       KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC |
			       KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE |
			       KFD_IOC_ALLOC_MEM_FLAGS_COHERENT |
			       KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED |
			       KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT;
		break;
	case VA_UNALIGNED:
		args->va_addr += 1;
		break;
	case TOTAL_UNALIGNED:
		args->total_size += 1;
		break;
	case VA_WRAP:
		args->va_addr = -(__u64)page_size;
		break;
	case OVER_CAP:
		/* rejected before the array is read: ranges_ptr is too short */
		args->num_ranges = self->max_ranges + 1;
		break;
	case START_UNALIGNED:
		r[1].start += 1;
		break;
	case SIZE_UNALIGNED:
		r[1].size += 1;
		break;
	case SIZE_0:
		r[1].size = 0;
		args->total_size = page_size;
		break;
	case RANGE_WRAP:
		r[1].start = -(__u64)page_size;
		r[1].size = 2 * page_size;
		args->total_size = 3 * page_size;
		break;
	case ABOVE_TASK_SIZE:
		r[1].start = 1ULL << 47;
		break;
	case OVERLAP:
		r[1].start = r[0].start;
		break;
	case SUM_NE_TOTAL:
		args->total_size = 3 * page_size;
		break;
	case START_0:
		r[0].start = 0;
		break;
	case CMD_SMALLER:
		cmd = _IOC(_IOC_READ | _IOC_WRITE, AMDKFD_IOCTL_BASE, BATCH_NR, sizeof(*args) - 8);
		break;
	case CMD_LARGER:
		/* the fixture's next member keeps the 8 bytes more readable */
		cmd = _IOC(_IOC_READ | _IOC_WRITE, AMDKFD_IOCTL_BASE, BATCH_NR, sizeof(*args) + 8);
		break;
	case CMD_WRITE_ONLY:
		cmd = _IOC(_IOC_WRITE, AMDKFD_IOCTL_BASE, BATCH_NR, sizeof(*args));
		break;
	case SECONDARY:
		ASSERT_EQ(0, ioctl(self->fd, AMDKFD_IOC_CREATE_PROCESS))
			TH_LOG("AMDKFD_IOC_CREATE_PROCESS: %s", strerror(errno));
		break;
	}

	errno = 0;
	ret = ioctl(self->fd, cmd, args);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(variant->err, errno)
		TH_LOG("got %s, expected %s", strerror(errno), strerror(variant->err));
	EXPECT_EQ(variant->lookups, lookup_hits())
		TH_LOG("the gpu_id lookup ran %ld times, expected %d",
		       lookup_hits(), variant->lookups);
	EXPECT_EQ(0, args->handle);
}

/*
 * On a secondary KFD process (AMDKFD_IOC_CREATE_PROCESS) a single userptr
 * and a batch of one range over the same page are refused alike.
 */
TEST(secondary_process_refuses_single_and_batch)
{
	struct kfd_ioctl_alloc_memory_of_gpu_batch_args batch = { 0 };
	struct kfd_ioctl_alloc_memory_of_gpu_args one = { 0 };
	struct kfd_ioctl_userptr_range r;
	int fd, single_errno;
	char *p;

	page_size = sysconf(_SC_PAGESIZE);
	fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		SKIP(return, "no /dev/kfd: amdgpu with amdkfd not loaded");
	ASSERT_GE(fd, 0) TH_LOG("open /dev/kfd: %s", strerror(errno));
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ioctl(fd, AMDKFD_IOC_CREATE_PROCESS))
		TH_LOG("AMDKFD_IOC_CREATE_PROCESS: %s", strerror(errno));

	one.va_addr = GPU_VA;
	one.size = page_size;
	one.mmap_offset = (unsigned long)p;
	one.gpu_id = UNKNOWN_GPU_ID;
	one.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &one));
	single_errno = errno;
	EXPECT_EQ(EOPNOTSUPP, single_errno) TH_LOG("single: %s", strerror(single_errno));

	r.start = (unsigned long)p;
	r.size = page_size;
	batch.va_addr = GPU_VA;
	batch.total_size = page_size;
	batch.ranges_ptr = (unsigned long)&r;
	batch.num_ranges = 1;
	batch.gpu_id = UNKNOWN_GPU_ID;
	batch.flags = one.flags;
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH, &batch));
	EXPECT_EQ(single_errno, errno) TH_LOG("batch: %s", strerror(errno));
	EXPECT_EQ(0, batch.handle);
	munmap(p, page_size);
	close(fd);
}

/*
 * The layout on 7.3: the first free number, 0x29 (AMDKFD_IOC_PROFILER holds
 * 0x28, the number v4 took on 6.12), 48 bytes, ranges of 16; the import of
 * a render-node GEM userptr (patch 19) grows AMDKFD_IOC_IMPORT_DMABUF's
 * struct from 24 to 32 bytes (gem_handle, flags) at its own number; and
 * the minor versions after 7.3's 23: 24 for the batch, 25 for the import.
 */
TEST(uapi_layout)
{
	EXPECT_EQ(0x29, _IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH));
	EXPECT_EQ(0x28, _IOC_NR(AMDKFD_IOC_PROFILER));
	EXPECT_EQ(48, _IOC_SIZE(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH));
	EXPECT_EQ(_IOC_READ | _IOC_WRITE, _IOC_DIR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH));
	EXPECT_EQ(16, sizeof(struct kfd_ioctl_userptr_range));
	EXPECT_EQ(0x2A, AMDKFD_COMMAND_END);
	EXPECT_EQ(0x1D, _IOC_NR(AMDKFD_IOC_IMPORT_DMABUF));
	EXPECT_EQ(32, _IOC_SIZE(AMDKFD_IOC_IMPORT_DMABUF));
	EXPECT_EQ(24, offsetof(struct kfd_ioctl_import_dmabuf_args, gem_handle));
	EXPECT_EQ(25, KFD_IOCTL_MINOR_VERSION);
}

/*
 * Userspace finds the ioctl, and its cap, in sysfs: the number and the KFD
 * version mean other things on other kernel lines. The version is still
 * the one this base's header says.
 */
TEST(sysfs_advertises_the_ioctl)
{
	struct kfd_ioctl_get_version_args v = { 0 };
	int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	unsigned int cap = 0;
	FILE *f;

	if (fd < 0 && errno == ENOENT)
		SKIP(return, "no /dev/kfd: amdgpu with amdkfd not loaded");
	f = fopen("/sys/class/kfd/kfd/userptr_batch_max_ranges", "r");
	ASSERT_NE(NULL, f) TH_LOG("/sys/class/kfd/kfd/userptr_batch_max_ranges: %s",
				  strerror(errno));
	EXPECT_EQ(1, fscanf(f, "%u", &cap));
	fclose(f);
	EXPECT_EQ(batch_param("max_ranges"), cap);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, AMDKFD_IOC_GET_VERSION, &v));
	EXPECT_EQ(KFD_IOCTL_MAJOR_VERSION, v.major_version);
	EXPECT_EQ(KFD_IOCTL_MINOR_VERSION, v.minor_version);
	close(fd);
}

TEST_HARNESS_MAIN
