// SPDX-License-Identifier: GPL-2.0
/*
 * amdgpu without an AMD GPU: what the guest must offer for the amdkfd tests
 * and the BPF toolkit once amdgpu is loaded.
 *
 * Built against the UAPI headers of the project's kernel tree, so the KFD
 * version the driver reports must equal the version in those headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>
#include <bpf/btf.h>

#include "kselftest_harness.h"

TEST(kfd_node_is_a_char_device)
{
	struct stat st;

	ASSERT_EQ(0, stat("/dev/kfd", &st)) TH_LOG("/dev/kfd: %s", strerror(errno));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
}

/* 1.24: AMDKFD_IOC_IMPORT_DMABUF takes a GEM userptr over (the series) */
TEST(kfd_get_version_matches_headers)
{
	struct kfd_ioctl_get_version_args args = { 0 };
	int fd;

	fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0) TH_LOG("open /dev/kfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, AMDKFD_IOC_GET_VERSION, &args))
		TH_LOG("AMDKFD_IOC_GET_VERSION: %s", strerror(errno));
	TH_LOG("KFD ioctl version %u.%u", args.major_version, args.minor_version);
	EXPECT_EQ(KFD_IOCTL_MAJOR_VERSION, args.major_version);
	EXPECT_EQ(KFD_IOCTL_MINOR_VERSION, args.minor_version);
	EXPECT_EQ(24, args.minor_version);
	close(fd);
}

TEST(kfd_rejects_unknown_ioctl)
{
	int fd, ret;

	fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	/* one past the last command the headers define */
	ret = ioctl(fd, _IOWR(AMDKFD_IOCTL_BASE, AMDKFD_COMMAND_END, __u64), NULL);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(ENOTTY, errno);
	close(fd);
}

TEST(amdgpu_module_btf)
{
	struct stat st;

	ASSERT_EQ(0, stat("/sys/kernel/btf/amdgpu", &st))
		TH_LOG("no module BTF for amdgpu: BPF probes cannot attach");
	EXPECT_GT(st.st_size, 0);
}

/*
 * kfdtrace and the bpftrace scripts attach to some of these, and the
 * takeover of a GEM userptr and the eviction of a BO of many ranges are
 * the rest: amdgpu's BTF must describe them; the batch ioctl's functions
 * are gone. (libbpf, not a bpftool dump grepped: dumping amdgpu's BTF as
 * text took the debug guest two minutes.) kfd_import_gem_userptr(),
 * static with one caller, is inlined into kfd_ioctl_import_dmabuf() (the
 * test kernel's amdgpu.ko has no symbol of it) and has no BTF of its own.
 */
TEST(amdgpu_btf_describes_the_takeover_functions)
{
	static const char *const fns[] = {
		"kfd_ioctl",
		"kfd_ioctl_import_dmabuf",
		"amdgpu_amdkfd_gpuvm_get_gem_userptr",
		"amdgpu_amdkfd_gpuvm_import_gem_userptr",
		"kfd_mem_evict_userptr_batch",
		"amdgpu_amdkfd_evict_userptr",
		"amdgpu_amdkfd_restore_userptr_worker",
		NULL,
	};
	static const char *const gone[] = {
		"kfd_ioctl_alloc_memory_of_gpu_batch",
		"amdgpu_amdkfd_gpuvm_alloc_memory_of_gpu_batch",
		NULL,
	};
	struct btf *vmlinux, *amdgpu;
	const char *const *fn;
	int missing = 0, left = 0;

	vmlinux = btf__load_vmlinux_btf();
	ASSERT_NE(NULL, vmlinux) TH_LOG("vmlinux BTF: %s", strerror(errno));
	amdgpu = btf__parse_split("/sys/kernel/btf/amdgpu", vmlinux);
	ASSERT_NE(NULL, amdgpu) TH_LOG("amdgpu BTF: %s", strerror(errno));
	for (fn = fns; *fn; fn++) {
		if (btf__find_by_name_kind(amdgpu, *fn, BTF_KIND_FUNC) > 0)
			continue;
		printf("# amdgpu's BTF has no function %s\n", *fn);
		missing++;
	}
	for (fn = gone; *fn; fn++) {
		if (btf__find_by_name_kind(amdgpu, *fn, BTF_KIND_FUNC) < 0)
			continue;
		printf("# amdgpu's BTF still has function %s\n", *fn);
		left++;
	}
	EXPECT_EQ(0, missing);
	EXPECT_EQ(0, left);
	btf__free(amdgpu);
	btf__free(vmlinux);
}

TEST_HARNESS_MAIN
