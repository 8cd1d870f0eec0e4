// SPDX-License-Identifier: GPL-2.0
/*
 * AMDKFD_IOC_IMPORT_DMABUF's takeover of a GEM userptr (KFD 1.24,
 * dmabuf_fd = KFD_INVALID_FD) on /dev/kfd without an AMD GPU: its argument
 * checks, and what the series no longer has.
 *
 * With no GPU every call ends in -EINVAL at the gpu_id lookup, so a
 * malformed argument that is not checked would still see -EINVAL. What
 * tells the two apart is a kprobe on kfd_process_device_data_by_id(): a
 * secondary KFD process, an unaligned va_addr and a flag outside the
 * mapping flags of a USERPTR allocation must fail with their errno without
 * reaching the lookup, as must a dma-buf import (dmabuf_fd a descriptor)
 * that gives flags or a gem_handle; every well-formed call with an unknown
 * gpu_id reaches it exactly once. Runs in the guest (scripts/vm-run) as
 * root, with amdgpu loaded and kfd-node-shim letting /dev/kfd open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>

#include "kselftest_harness.h"

#define TRACING		"/sys/kernel/tracing"
#define PROBE		"kfdimport_lookup"
#define GPU_VA		0x100000000ULL
#define UNKNOWN_GPU_ID	0xdeadbeefU
#define GEM_HANDLE	1
#define IMPORT_NR	_IOC_NR(AMDKFD_IOC_IMPORT_DMABUF)
/* the number AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH had, and its size */
#define OLD_BATCH_NR	0x29
#define OLD_BATCH_SIZE	48
#define OLD_BATCH_ATTR	"/sys/class/kfd/kfd/userptr_batch_max_ranges"

/* the takeover's flags: a USERPTR allocation's for its mapping */
#define ALLOWED_FLAGS	(KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |		\
			 KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE |		\
			 KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE |		\
			 KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE |	\
			 KFD_IOC_ALLOC_MEM_FLAGS_COHERENT |		\
			 KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT |		\
			 KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED)

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

static void probe_del(void)
{
	write_file(TRACING "/events/kprobes/" PROBE "/enable", "0", 0);
	write_file(TRACING "/kprobe_events", "-:kprobes/" PROBE, O_APPEND);
}

/* the kprobe on the gpu_id lookup, at 0 hits; 0 or a negative errno */
static int probe_add(void)
{
	char probe[128];
	int ret;

	probe_del();
	snprintf(probe, sizeof(probe), "p:kprobes/%s kfd_process_device_data_by_id", PROBE);
	ret = write_file(TRACING "/kprobe_events", probe, O_APPEND);
	if (!ret)
		ret = write_file(TRACING "/events/kprobes/" PROBE "/enable", "1", 0);
	return ret;
}

/* /dev/kfd, or -1 with errno; the callers skip on ENOENT */
static int kfd_open(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	return open("/dev/kfd", O_RDWR | O_CLOEXEC);
}

/* the takeover's arguments: a GEM handle at a page-aligned GPU VA */
static void takeover_args(struct kfd_ioctl_import_dmabuf_args *args, __u32 flags)
{
	memset(args, 0, sizeof(*args));
	args->va_addr = GPU_VA;
	args->gpu_id = UNKNOWN_GPU_ID;
	args->dmabuf_fd = KFD_INVALID_FD;
	args->gem_handle = GEM_HANDLE;
	args->flags = flags;
}

enum mutation {
	NONE, WRITABLE, ALL_ALLOWED, VA_UNALIGNED, VA_HALF_PAGE, VA_UNALIGNED_FLAGS_OK,
	VRAM, GTT, DOORBELL, MMIO_REMAP, PUBLIC, AQL, CONTIGUOUS, UNDEFINED_FLAG,
	WRITABLE_AND_VRAM, SECONDARY, SECONDARY_MALFORMED, DMABUF, DMABUF_FLAGS,
	DMABUF_USERPTR_FLAG, DMABUF_GEM_HANDLE, CMD_24, CMD_24_DMABUF,
};

FIXTURE(kfd_import)
{
	int fd;
	struct kfd_ioctl_import_dmabuf_args args;
	/* a larger command reads past args: keep the bytes after it readable */
	__u64 after[2];
};

FIXTURE_VARIANT(kfd_import)
{
	enum mutation mutation;
	int err;		/* the documented errno */
	int lookups;		/* calls that reach the gpu_id lookup */
};

/* well formed: the gpu_id lookup, which finds no device */
FIXTURE_VARIANT_ADD(kfd_import, unknown_gpu_id) {
	.mutation = NONE,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_VARIANT_ADD(kfd_import, writable_unknown_gpu_id) {
	.mutation = WRITABLE,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_VARIANT_ADD(kfd_import, every_allowed_flag_unknown_gpu_id) {
	.mutation = ALL_ALLOWED,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_VARIANT_ADD(kfd_import, va_unaligned) {
	.mutation = VA_UNALIGNED,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, va_half_page) {
	.mutation = VA_HALF_PAGE,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, va_unaligned_flags_allowed) {
	.mutation = VA_UNALIGNED_FLAGS_OK,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, vram_flag) {
	.mutation = VRAM,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, gtt_flag) {
	.mutation = GTT,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, doorbell_flag) {
	.mutation = DOORBELL,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, mmio_remap_flag) {
	.mutation = MMIO_REMAP,
	.err = EINVAL,
	.lookups = 0,
};

/* a userptr allocation takes PUBLIC; the takeover does not */
FIXTURE_VARIANT_ADD(kfd_import, public_flag) {
	.mutation = PUBLIC,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, aql_queue_mem_flag) {
	.mutation = AQL,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, contiguous_flag) {
	.mutation = CONTIGUOUS,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, undefined_flag) {
	.mutation = UNDEFINED_FLAG,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, writable_and_vram) {
	.mutation = WRITABLE_AND_VRAM,
	.err = EINVAL,
	.lookups = 0,
};

/*
 * A secondary KFD process (AMDKFD_IOC_CREATE_PROCESS on the file) takes no
 * userptr on 7.3: the takeover is refused as a USERPTR allocation is, with
 * EOPNOTSUPP, before any argument or the gpu_id is looked at.
 */
FIXTURE_VARIANT_ADD(kfd_import, secondary_process) {
	.mutation = SECONDARY,
	.err = EOPNOTSUPP,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, secondary_process_malformed) {
	.mutation = SECONDARY_MALFORMED,
	.err = EOPNOTSUPP,
	.lookups = 0,
};

/* a dma-buf import is what it was: no flags, no gem_handle, then the lookup */
FIXTURE_VARIANT_ADD(kfd_import, dmabuf_unknown_gpu_id) {
	.mutation = DMABUF,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_VARIANT_ADD(kfd_import, dmabuf_with_flags) {
	.mutation = DMABUF_FLAGS,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, dmabuf_with_userptr_flag) {
	.mutation = DMABUF_USERPTR_FLAG,
	.err = EINVAL,
	.lookups = 0,
};

FIXTURE_VARIANT_ADD(kfd_import, dmabuf_with_gem_handle) {
	.mutation = DMABUF_GEM_HANDLE,
	.err = EINVAL,
	.lookups = 0,
};

/*
 * Older userspace: the 24-byte struct. KFD reads gem_handle and flags as 0
 * (whatever follows the 24 bytes in memory) and writes 24 bytes back: a
 * takeover with a VRAM flag and a handle past the 24 bytes is a takeover
 * of handle 0 without flags, up to the lookup.
 */
FIXTURE_VARIANT_ADD(kfd_import, cmd_24_bytes_takeover) {
	.mutation = CMD_24,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_VARIANT_ADD(kfd_import, cmd_24_bytes_dmabuf) {
	.mutation = CMD_24_DMABUF,
	.err = EINVAL,
	.lookups = 1,
};

FIXTURE_SETUP(kfd_import)
{
	self->fd = kfd_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no /dev/kfd: amdgpu with amdkfd not loaded");
	ASSERT_GE(self->fd, 0) TH_LOG("open /dev/kfd: %s", strerror(errno));
	takeover_args(&self->args, 0);
	ASSERT_EQ(0, probe_add()) TH_LOG("cannot add a kprobe on kfd_process_device_data_by_id");
	ASSERT_EQ(0, lookup_hits());
}

FIXTURE_TEARDOWN(kfd_import)
{
	probe_del();
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(kfd_import, errno_and_lookups)
{
	struct kfd_ioctl_import_dmabuf_args *args = &self->args;
	unsigned long cmd = AMDKFD_IOC_IMPORT_DMABUF;
	int ret;

	switch (variant->mutation) {
	case NONE:
		break;
	case WRITABLE:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
		break;
	case ALL_ALLOWED:
		args->flags = ALLOWED_FLAGS;
		break;
	case VA_UNALIGNED:
		args->va_addr += 1;
		break;
	case VA_HALF_PAGE:
		args->va_addr += page_size / 2;
		break;
	case VA_UNALIGNED_FLAGS_OK:
		args->va_addr += page_size - 1;
		args->flags = ALLOWED_FLAGS;
		break;
	case VRAM:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
		break;
	case GTT:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT;
		break;
	case DOORBELL:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL;
		break;
	case MMIO_REMAP:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;
		break;
	case PUBLIC:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC;
		break;
	case AQL:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM;
		break;
	case CONTIGUOUS:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS;
		break;
	case UNDEFINED_FLAG:
		args->flags = 1U << 20;	/* no KFD_IOC_ALLOC_MEM_FLAGS_* */
		break;
	case WRITABLE_AND_VRAM:
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
		break;
	case SECONDARY_MALFORMED:
		args->va_addr += 1;
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | (1U << 20);
		break;
	case SECONDARY:
		break;
	case DMABUF:
		args->dmabuf_fd = self->fd;	/* a descriptor, not a dma-buf */
		args->gem_handle = 0;
		break;
	case DMABUF_FLAGS:
		args->dmabuf_fd = self->fd;
		args->gem_handle = 0;
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
		break;
	case DMABUF_USERPTR_FLAG:
		args->dmabuf_fd = self->fd;
		args->gem_handle = 0;
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
		break;
	case DMABUF_GEM_HANDLE:
		args->dmabuf_fd = self->fd;
		break;
	case CMD_24_DMABUF:
		args->dmabuf_fd = self->fd;
		break;
	case CMD_24:
		break;
	}
	if (variant->mutation == SECONDARY || variant->mutation == SECONDARY_MALFORMED)
		ASSERT_EQ(0, ioctl(self->fd, AMDKFD_IOC_CREATE_PROCESS))
			TH_LOG("AMDKFD_IOC_CREATE_PROCESS: %s", strerror(errno));
	if (variant->mutation == CMD_24 || variant->mutation == CMD_24_DMABUF) {
		args->gem_handle = 7;
		args->flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
		cmd = _IOC(_IOC_READ | _IOC_WRITE, AMDKFD_IOCTL_BASE, IMPORT_NR,
			   offsetof(struct kfd_ioctl_import_dmabuf_args, gem_handle));
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
	if (variant->mutation == CMD_24 || variant->mutation == CMD_24_DMABUF) {
		/* KFD wrote back the 24 bytes it read, not the tail */
		EXPECT_EQ(7, args->gem_handle);
		EXPECT_EQ(KFD_IOC_ALLOC_MEM_FLAGS_VRAM, args->flags);
	}
}

/* whole sets of calls, each counted against the lookup's hits */
FIXTURE(kfd_lookup)
{
	int fd;
};

FIXTURE_SETUP(kfd_lookup)
{
	self->fd = kfd_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no /dev/kfd: amdgpu with amdkfd not loaded");
	ASSERT_GE(self->fd, 0) TH_LOG("open /dev/kfd: %s", strerror(errno));
	ASSERT_EQ(0, probe_add()) TH_LOG("cannot add a kprobe on kfd_process_device_data_by_id");
	ASSERT_EQ(0, lookup_hits());
}

FIXTURE_TEARDOWN(kfd_lookup)
{
	probe_del();
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * one call: -1 with @err, and the lookup's hits are @hits after it (errno
 * is the call's, for the caller's message)
 */
static int call_is(int fd, unsigned long cmd, void *args, int err, long hits)
{
	int ret, e;
	long h;

	errno = 0;
	ret = ioctl(fd, cmd, args);
	e = errno;
	h = lookup_hits();
	errno = e;
	return ret == -1 && e == err && h == hits;
}

/* each of the 128 sets of the allowed flags reaches the lookup once */
TEST_F(kfd_lookup, every_set_of_allowed_flags_reaches_the_lookup)
{
	static const __u32 allowed[] = {
		KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE,
		KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE, KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE,
		KFD_IOC_ALLOC_MEM_FLAGS_COHERENT, KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT,
		KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED,
	};
	const unsigned int n = ARRAY_SIZE(allowed);
	struct kfd_ioctl_import_dmabuf_args args;
	unsigned int set, i, bad = 0;
	long hits = 0;
	__u32 flags;

	for (set = 0; set < 1U << n; set++) {
		flags = 0;
		for (i = 0; i < n; i++)
			if (set & (1U << i))
				flags |= allowed[i];
		takeover_args(&args, flags);
		hits++;
		if (!call_is(self->fd, AMDKFD_IOC_IMPORT_DMABUF, &args, EINVAL, hits)) {
			if (bad++ < 8)
				TH_LOG("flags %#x: %s, the lookup at %ld hits, expected %ld",
				       flags, strerror(errno), lookup_hits(), hits);
			hits = lookup_hits();
		}
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(1L << n, lookup_hits());
}

/*
 * Every other bit of flags, alone and with all the allowed ones, is
 * refused before the lookup, as is an unaligned va_addr at any offset in
 * the page
 */
TEST_F(kfd_lookup, every_other_flag_and_unaligned_va_are_refused_first)
{
	const unsigned long offsets[] = { 1, 8, 0x800, page_size / 2, page_size - 1 };
	struct kfd_ioctl_import_dmabuf_args args;
	unsigned int bit, i, calls = 0, bad = 0;
	__u32 flags;

	for (bit = 0; bit < 32; bit++) {
		if (ALLOWED_FLAGS & (1U << bit))
			continue;
		for (i = 0; i < 2; i++) {
			flags = (1U << bit) | (i ? ALLOWED_FLAGS : 0);
			takeover_args(&args, flags);
			calls++;
			if (!call_is(self->fd, AMDKFD_IOC_IMPORT_DMABUF, &args, EINVAL, 0) &&
			    bad++ < 8)
				TH_LOG("flags %#x: %s, the lookup at %ld hits", flags,
				       strerror(errno), lookup_hits());
		}
	}
	EXPECT_EQ(25 * 2, calls);
	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		takeover_args(&args, KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE);
		args.va_addr += offsets[i];
		if (!call_is(self->fd, AMDKFD_IOC_IMPORT_DMABUF, &args, EINVAL, 0) && bad++ < 8)
			TH_LOG("va_addr %#llx: %s, the lookup at %ld hits",
			       (unsigned long long)args.va_addr, strerror(errno), lookup_hits());
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, lookup_hits());
}

/*
 * 0x29, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH's number before the series
 * dropped it, is AMDKFD_COMMAND_END: no ioctl, in any size or direction
 * (kfd_ioctl(): ENOTTY for a number past its table), and no lookup
 */
TEST_F(kfd_lookup, old_batch_number_is_no_ioctl)
{
	const unsigned int dirs[] = { _IOC_READ | _IOC_WRITE, _IOC_WRITE, _IOC_READ, _IOC_NONE };
	const unsigned int sizes[] = { OLD_BATCH_SIZE, 0, 8, 64 };
	__u64 buf[8] = { GPU_VA, 0, 0, 0, UNKNOWN_GPU_ID };
	unsigned int d, s, bad = 0;
	unsigned long cmd;

	for (d = 0; d < 4; d++)
		for (s = 0; s < 4; s++) {
			cmd = _IOC(dirs[d], AMDKFD_IOCTL_BASE, OLD_BATCH_NR, sizes[s]);
			if (!call_is(self->fd, cmd, buf, ENOTTY, 0) && bad++ < 8)
				TH_LOG("cmd %#lx: %s, the lookup at %ld hits", cmd,
				       strerror(errno), lookup_hits());
		}
	EXPECT_EQ(0, bad);
}

/*
 * The layout: AMDKFD_IOC_IMPORT_DMABUF keeps its number, 0x1D, with a
 * struct of 32 bytes (24 before: gem_handle and flags after dmabuf_fd);
 * no batch ioctl, AMDKFD_COMMAND_END 0x29 after 7.3's AMDKFD_IOC_PROFILER;
 * minor version 24 after 7.3's 23.
 */
TEST(uapi_layout)
{
	EXPECT_EQ(0x1D, IMPORT_NR);
	EXPECT_EQ(32, _IOC_SIZE(AMDKFD_IOC_IMPORT_DMABUF));
	EXPECT_EQ(_IOC_READ | _IOC_WRITE, _IOC_DIR(AMDKFD_IOC_IMPORT_DMABUF));
	EXPECT_EQ(AMDKFD_IOCTL_BASE, _IOC_TYPE(AMDKFD_IOC_IMPORT_DMABUF));
	EXPECT_EQ(32, sizeof(struct kfd_ioctl_import_dmabuf_args));
	EXPECT_EQ(0, offsetof(struct kfd_ioctl_import_dmabuf_args, va_addr));
	EXPECT_EQ(8, offsetof(struct kfd_ioctl_import_dmabuf_args, handle));
	EXPECT_EQ(16, offsetof(struct kfd_ioctl_import_dmabuf_args, gpu_id));
	EXPECT_EQ(20, offsetof(struct kfd_ioctl_import_dmabuf_args, dmabuf_fd));
	EXPECT_EQ(24, offsetof(struct kfd_ioctl_import_dmabuf_args, gem_handle));
	EXPECT_EQ(28, offsetof(struct kfd_ioctl_import_dmabuf_args, flags));
	EXPECT_EQ(0xffffffffU, KFD_INVALID_FD);
	EXPECT_EQ(0x28, _IOC_NR(AMDKFD_IOC_PROFILER));
	EXPECT_EQ(OLD_BATCH_NR, AMDKFD_COMMAND_END);
	EXPECT_EQ(1, KFD_IOCTL_MAJOR_VERSION);
	EXPECT_EQ(24, KFD_IOCTL_MINOR_VERSION);
#ifdef AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH
	TH_LOG("the header still has AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH");
	EXPECT_TRUE(0);
#endif
}

/*
 * Userspace finds the takeover by the KFD version: 1.24 or later (the
 * version this base's header says), and no batch attribute in sysfs
 */
TEST(kfd_version_and_no_batch_attribute)
{
	struct kfd_ioctl_get_version_args v = { 0 };
	int fd = kfd_open();

	if (fd < 0 && errno == ENOENT)
		SKIP(return, "no /dev/kfd: amdgpu with amdkfd not loaded");
	ASSERT_GE(fd, 0) TH_LOG("open /dev/kfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, AMDKFD_IOC_GET_VERSION, &v))
		TH_LOG("AMDKFD_IOC_GET_VERSION: %s", strerror(errno));
	TH_LOG("KFD ioctl version %u.%u", v.major_version, v.minor_version);
	EXPECT_EQ(1, v.major_version);
	EXPECT_LE(24, v.minor_version);
	EXPECT_EQ(KFD_IOCTL_MAJOR_VERSION, v.major_version);
	EXPECT_EQ(KFD_IOCTL_MINOR_VERSION, v.minor_version);
	close(fd);

	EXPECT_EQ(0, access("/sys/class/kfd/kfd", F_OK));
	errno = 0;
	EXPECT_EQ(-1, access(OLD_BATCH_ATTR, F_OK));
	EXPECT_EQ(ENOENT, errno) TH_LOG("%s: %s", OLD_BATCH_ATTR, strerror(errno));
}

TEST_HARNESS_MAIN
