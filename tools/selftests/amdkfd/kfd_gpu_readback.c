// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU reads a batch back: scripts/hw-check runs these on a machine
 * with an AMD GPU and the HSA runtime (ROCm's, or Debian's
 * libhsa-runtime64-1), each under `kfdtrace record`.
 *
 *   readback.rN.copy         N ranges of 4 KiB scattered in one mapping
 *                            (a guest's pages: a page between neighbours,
 *                            device order shuffled) registered as one
 *                            batch (one GEM userptr with ranges on the
 *                            render node, taken over by KFD: KFD 1.24,
 *                            kfd_render.h) and mapped to the GPU; the
 *                            GPU's DMA engine copies the batch's whole GPU
 *                            VA range to a host buffer, which must hold
 *                            every range's bytes at its device offset
 *   readback.rN.invalidate   ... then every other range's pages dropped
 *                            (MADV_DONTNEED) and written again with a new
 *                            tag: amdgpu evicts the batch and its restore
 *                            worker faults the new pages in, and a second
 *                            copy must hold the new bytes there and the
 *                            old ones elsewhere
 *
 * The runtime is initialised first and acquires the GPU's VM with its own
 * file of the render node; the test then finds that file among the
 * process's descriptors (the one AMDKFD_IOC_ACQUIRE_VM takes again), whose
 * GEM handles are the ones KFD takes over, and registers in that VM at a
 * GPU VA it reserves in the CPU's address space as libhsakmt reserves its
 * own, so that the two never overlap, with libhsakmt's flags for a
 * userptr. The copy is hsa_amd_memory_async_copy() from that VA, which the
 * runtime did not allocate: a DMA engine reads it through the GPU's page
 * tables, the pages the batch put there.
 *
 * KFD_GPU_ID picks the GPU (its gpu_id in the KFD topology; unset or 0:
 * the first GPU agent of the runtime). Without a GPU agent every test is
 * skipped.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <linux/kfd_ioctl.h>

#include "kfd_render.h"
#include "layout.h"
#include "kselftest_harness.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

/* a copy that has not ended in this long has failed */
#define COPY_TIMEOUT_NS	(30ULL * 1000 * 1000 * 1000)
/* the restore worker's delay is a millisecond; give it room */
#define RESTORE_WAIT_US	500000

/* libhsakmt's flags for a userptr of fine-grained host memory */
#define HSAKMT_USERPTR	(KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | \
			 KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE |				 \
			 KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE | KFD_IOC_ALLOC_MEM_FLAGS_COHERENT)

struct gpu {
	hsa_agent_t gpu, cpu;
	hsa_amd_memory_pool_t host;	/* fine-grained system memory */
	uint32_t gpu_id;
	bool have_gpu, have_cpu, have_host;
};

static uint32_t gpu_id_of(hsa_agent_t agent)
{
	char path[96];
	uint32_t node, id = 0;
	FILE *f;

	if (hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_DRIVER_NODE_ID,
			       &node) != HSA_STATUS_SUCCESS)
		return 0;
	snprintf(path, sizeof(path), "/sys/class/kfd/kfd/topology/nodes/%u/gpu_id", node);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%u", &id) != 1)
		id = 0;
	fclose(f);
	return id;
}

static hsa_status_t find_agents(hsa_agent_t agent, void *data)
{
	const char *s = getenv("KFD_GPU_ID");
	uint32_t want = s ? (uint32_t)strtoul(s, NULL, 0) : 0, id;
	struct gpu *g = data;
	hsa_device_type_t type;

	if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS)
		return HSA_STATUS_SUCCESS;
	if (type == HSA_DEVICE_TYPE_CPU && !g->have_cpu) {
		g->cpu = agent;
		g->have_cpu = true;
	} else if (type == HSA_DEVICE_TYPE_GPU && !g->have_gpu) {
		id = gpu_id_of(agent);
		if (id && (!want || id == want)) {
			g->gpu = agent;
			g->gpu_id = id;
			g->have_gpu = true;
		}
	}
	return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_host_pool(hsa_amd_memory_pool_t pool, void *data)
{
	struct gpu *g = data;
	hsa_amd_segment_t segment;
	uint32_t flags;
	bool alloc;

	if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
					 &segment) != HSA_STATUS_SUCCESS ||
	    segment != HSA_AMD_SEGMENT_GLOBAL)
		return HSA_STATUS_SUCCESS;
	if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
					 &alloc) != HSA_STATUS_SUCCESS || !alloc)
		return HSA_STATUS_SUCCESS;
	if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
					 &flags) != HSA_STATUS_SUCCESS ||
	    !(flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED))
		return HSA_STATUS_SUCCESS;
	g->host = pool;
	g->have_host = true;
	return HSA_STATUS_INFO_BREAK;
}

static const char *hsa_err(hsa_status_t st)
{
	const char *s = NULL;

	hsa_status_string(st, &s);
	return s ? s : "unknown HSA status";
}

FIXTURE(readback)
{
	struct gpu g;
	struct layout l;
	uint64_t *sizes;
	uint64_t *tag;		/* each range's tag, device order */
	struct kfd_render kr;
	void *va;		/* the batch's GPU VA, reserved in the CPU's */
	uint64_t handle;	/* its KFD BO */
	bool mapped, hsa;
	void *dst;		/* the GPU's copy */
};

FIXTURE_VARIANT(readback)
{
	unsigned int n;
};

FIXTURE_VARIANT_ADD(readback, r1) { 1 };
FIXTURE_VARIANT_ADD(readback, r64) { 64 };
FIXTURE_VARIANT_ADD(readback, r4096) { 4096 };

FIXTURE_SETUP(readback)
{
	hsa_status_t st;
	unsigned int i;
	int ret;

	/* self comes zeroed from the harness: the teardown frees what is set */
	self->kr.kfd = -1;
	self->kr.drm = -1;
	st = hsa_init();
	self->hsa = st == HSA_STATUS_SUCCESS;
	if (!self->hsa)
		SKIP(return, "the HSA runtime does not start: %s", hsa_err(st));
	hsa_iterate_agents(find_agents, &self->g);
	if (!self->g.have_gpu || !self->g.have_cpu)
		SKIP(return, "no GPU agent%s in the HSA runtime",
		     getenv("KFD_GPU_ID") ? " with KFD_GPU_ID's gpu_id" : "");
	hsa_amd_agent_iterate_memory_pools(self->g.cpu, find_host_pool, &self->g);
	ASSERT_TRUE(self->g.have_host) TH_LOG("no fine-grained system memory pool");

	self->sizes = calloc(variant->n, sizeof(*self->sizes));
	self->tag = calloc(variant->n, sizeof(*self->tag));
	ASSERT_NE(NULL, self->sizes);
	ASSERT_NE(NULL, self->tag);
	wl_sizes(self->sizes, variant->n, 4096, 0, 11);
	ASSERT_EQ(0, wl_one_mapping(&self->l, variant->n, self->sizes, 11));
	for (i = 0; i < self->l.n; i++) {
		self->tag[i] = i + 1;
		wl_fill((void *)(uintptr_t)self->l.r[i].start, self->l.r[i].size, self->tag[i]);
	}

	/* after hsa_init(): the runtime holds the VM and its render-node file */
	ASSERT_EQ(0, kfd_render_open(&self->kr, self->g.gpu_id)) TH_LOG("%s", self->kr.why);
	ASSERT_FALSE(self->kr.own_drm)
		TH_LOG("the runtime acquired no VM for gpu_id %u", self->g.gpu_id);
	ASSERT_LE(variant->n, self->kr.cap);
	self->va = mmap(NULL, self->l.total, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->va)
		TH_LOG("reserve %#llx bytes: %s", (unsigned long long)self->l.total,
		       strerror(errno));
	static_assert(sizeof(*self->l.r) == sizeof(struct drm_amdgpu_gem_userptr_range),
		      "ranges");
	ret = kfd_render_register(&self->kr,
				  (const struct drm_amdgpu_gem_userptr_range *)self->l.r,
				  variant->n, (uintptr_t)self->va, HSAKMT_USERPTR, &self->handle);
	ASSERT_EQ(0, ret) TH_LOG("%s", self->kr.why);
	ASSERT_EQ(0, kfd_render_map(&self->kr, self->handle, true))
		TH_LOG("map to gpu_id %u", self->g.gpu_id);
	self->mapped = true;

	st = hsa_amd_memory_pool_allocate(self->g.host, self->l.total, 0, &self->dst);
	ASSERT_EQ(HSA_STATUS_SUCCESS, st) TH_LOG("%s", hsa_err(st));
	st = hsa_amd_agents_allow_access(1, &self->g.gpu, NULL, self->dst);
	ASSERT_EQ(HSA_STATUS_SUCCESS, st) TH_LOG("%s", hsa_err(st));
	TH_LOG("KFD %u.%u, gpu_id %u, %u ranges at GPU VA %p", self->kr.kfd_major,
	       self->kr.kfd_minor, self->g.gpu_id, variant->n, self->va);
}

FIXTURE_TEARDOWN(readback)
{
	if (self->dst)
		hsa_amd_memory_pool_free(self->dst);
	if (self->mapped)
		kfd_render_map(&self->kr, self->handle, false);
	if (self->handle)
		kfd_render_free(&self->kr, self->handle);
	if (self->va && self->va != MAP_FAILED)
		munmap(self->va, self->l.total);
	kfd_render_close(&self->kr);
	if (self->sizes)
		wl_free(&self->l);
	free(self->sizes);
	free(self->tag);
	if (self->hsa)
		hsa_shut_down();
}

/*
 * The GPU's DMA engine copies the batch's GPU VA range to the host buffer.
 * Return: 0, or the HSA status of what failed: HSA_STATUS_ERROR when the
 * copy failed on the way (the runtime sets the signal below 0), 1 when it
 * did not end in time.
 */
static int gpu_copy(struct gpu *g, void *dst, uint64_t va, uint64_t size)
{
	hsa_signal_value_t v;
	hsa_signal_t done;
	hsa_status_t st;

	memset(dst, 0xa5, size);
	st = hsa_signal_create(1, 0, NULL, &done);
	if (st != HSA_STATUS_SUCCESS)
		return st;
	st = hsa_amd_memory_async_copy(dst, g->cpu, (const void *)(uintptr_t)va, g->gpu,
				       size, 0, NULL, done);
	if (st == HSA_STATUS_SUCCESS) {
		v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1,
					      COPY_TIMEOUT_NS, HSA_WAIT_STATE_BLOCKED);
		st = v == 0 ? HSA_STATUS_SUCCESS : v < 0 ? HSA_STATUS_ERROR : 1;
	}
	hsa_signal_destroy(done);
	return st;
}

/* ranges whose bytes in the copy are not their tag's: logged, counted */
static unsigned int copy_bad(struct __test_metadata *_metadata, const struct layout *l,
			     const uint64_t *tag, const void *dst)
{
	unsigned int i, bad = 0;
	long at;

	for (i = 0; i < l->n; i++) {
		at = wl_check((const char *)dst + wl_offset(l, i), l->r[i].size,
			      tag[i], 0);
		if (at < 0)
			continue;
		if (bad++ < 8)
			TH_LOG("range %u (device offset %#llx): byte %ld differs from tag %llu",
			       i, (unsigned long long)wl_offset(l, i), at,
			       (unsigned long long)tag[i]);
	}
	return bad;
}

TEST_F(readback, copy)
{
	ASSERT_EQ(0, gpu_copy(&self->g, self->dst, (uintptr_t)self->va, self->l.total));
	EXPECT_EQ(0, copy_bad(_metadata, &self->l, self->tag, self->dst));
}

TEST_F(readback, invalidate)
{
	const struct upr_range *r;
	unsigned int i;

	ASSERT_EQ(0, gpu_copy(&self->g, self->dst, (uintptr_t)self->va, self->l.total));
	ASSERT_EQ(0, copy_bad(_metadata, &self->l, self->tag, self->dst));
	for (i = 0; i < self->l.n; i += 2) {
		r = &self->l.r[i];
		madvise((void *)(uintptr_t)r->start, r->size, MADV_DONTNEED);
		self->tag[i] += 1000000;
		wl_fill((void *)(uintptr_t)r->start, r->size, self->tag[i]);
	}
	/* the restore worker runs; a copy queued before it waits for it */
	usleep(RESTORE_WAIT_US);
	ASSERT_EQ(0, gpu_copy(&self->g, self->dst, (uintptr_t)self->va, self->l.total));
	EXPECT_EQ(0, copy_bad(_metadata, &self->l, self->tag, self->dst));
}

TEST_HARNESS_MAIN
