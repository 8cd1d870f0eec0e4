/* SPDX-License-Identifier: GPL-2.0 */
/*
 * amdkfd's batch userptr on a real AMD GPU as the series gives it (KFD
 * 1.24), for the GPU tests (kfd_gpu_tests.c, kfd_gpu_readback.c): the
 * ioctls themselves, not libuserptr's.
 *
 * Many CPU ranges become one GEM userptr on amdgpu's render node
 * (DRM_IOCTL_AMDGPU_GEM_USERPTR with AMDGPU_GEM_USERPTR_RANGES, at most
 * the batch helper's drm_userptr_batch.max_ranges), created on the
 * render-node file the process gave AMDKFD_IOC_ACQUIRE_VM; KFD takes it
 * over at a GPU VA (AMDKFD_IOC_IMPORT_DMABUF with dmabuf_fd KFD_INVALID_FD,
 * its gem_handle and the mapping flags) and deletes its render-node
 * handle; AMDKFD_IOC_FREE_MEMORY_OF_GPU frees it as any KFD BO.
 *
 * A process has one such file per GPU: when a runtime in the process (the
 * HSA runtime's libhsakmt) acquired the VM first, kfd_render_open() finds
 * its file among the process's descriptors (ACQUIRE_VM of the acquired
 * file again succeeds, of another fails with EBUSY) and creates the GEM
 * userptrs there.
 */
#ifndef __KFD_RENDER_H
#define __KFD_RENDER_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/amdgpu_drm.h>
#include <linux/kfd_ioctl.h>

#define KFD_RENDER_TOPOLOGY	"/sys/class/kfd/kfd/topology/nodes"
#define KFD_RENDER_CAP		"/sys/module/drm_userptr_batch/parameters/max_ranges"
/* the DRM character devices' major */
#define KFD_RENDER_DRM_MAJOR	226

struct kfd_render {
	int kfd;		/* /dev/kfd */
	int drm;		/* the render-node file of the process's VM */
	bool own_drm;		/* opened here: kfd_render_close() closes it */
	uint32_t gpu_id;
	int minor;		/* the render node's */
	uint32_t kfd_major, kfd_minor;
	unsigned int cap;	/* ranges a GEM userptr takes at most */
	uint64_t gpuvm_base, gpuvm_limit;
	uint64_t next_va;		/* kfd_render_va()'s next address */
	char why[256];		/* what failed */
};

static inline int kfd_render_fail(struct kfd_render *kr, int err, const char *what)
{
	snprintf(kr->why, sizeof(kr->why), "%s: %s", what, strerror(-err));
	return err;
}

/* an ioctl of the render node, restarted as libdrm's drmIoctl() restarts */
static inline int kfd_render_drm_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, req, arg);
	while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

/* the render minor of topology node gpu_id @want, or of the first GPU */
static inline int kfd_render_find_gpu(struct kfd_render *kr, uint32_t want)
{
	char path[PATH_MAX], line[128];
	struct dirent *de;
	DIR *d = opendir(KFD_RENDER_TOPOLOGY);
	bool found = false;

	if (!d)
		return kfd_render_fail(kr, -ENODEV, "no KFD topology");
	while (!found && (de = readdir(d))) {
		unsigned int id = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), KFD_RENDER_TOPOLOGY "/%s/gpu_id", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u", &id) != 1)
			id = 0;
		fclose(f);
		if (!id || (want && id != want))
			continue;
		snprintf(path, sizeof(path), KFD_RENDER_TOPOLOGY "/%s/properties", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f))
			if (sscanf(line, "drm_render_minor %d", &kr->minor) == 1) {
				kr->gpu_id = id;
				found = true;
			}
		fclose(f);
	}
	closedir(d);
	if (!found)
		return kfd_render_fail(kr, -ENODEV, want ? "no such gpu_id in the KFD topology" :
					 "no GPU in the KFD topology");
	return 0;
}

static inline int kfd_render_acquire(struct kfd_render *kr, int drm)
{
	struct kfd_ioctl_acquire_vm_args vm = { .drm_fd = drm, .gpu_id = kr->gpu_id };

	return ioctl(kr->kfd, AMDKFD_IOC_ACQUIRE_VM, &vm) ? -errno : 0;
}

/*
 * The render-node file of the VM: one of the process's own files of the
 * GPU's render node that ACQUIRE_VM takes (the one acquired before, or the
 * first when none was), else a new one
 */
static inline int kfd_render_find_drm(struct kfd_render *kr)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	struct stat st;
	int fd, ret;

	while (d && (de = readdir(d))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == dirfd(d) || fstat(fd, &st) ||
		    !S_ISCHR(st.st_mode) || major(st.st_rdev) != KFD_RENDER_DRM_MAJOR ||
		    (int)minor(st.st_rdev) != kr->minor)
			continue;
		if (!kfd_render_acquire(kr, fd)) {
			kr->drm = fd;
			closedir(d);
			return 0;
		}
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "/dev/dri/renderD%d", kr->minor);
	kr->drm = open(path, O_RDWR | O_CLOEXEC);
	if (kr->drm < 0)
		return kfd_render_fail(kr, -errno, "open the render node");
	kr->own_drm = true;
	ret = kfd_render_acquire(kr, kr->drm);
	if (ret == -EBUSY)
		return kfd_render_fail(kr, ret,
				       "ACQUIRE_VM: the VM is another file's, not one of this process's descriptors");
	return ret ? kfd_render_fail(kr, ret, "ACQUIRE_VM") : 0;
}

static inline void kfd_render_close(struct kfd_render *kr)
{
	if (kr->own_drm && kr->drm >= 0)
		close(kr->drm);
	if (kr->kfd >= 0)
		close(kr->kfd);
	kr->drm = -1;
	kr->kfd = -1;
}

/*
 * /dev/kfd, gpu_id @want_gpu_id (0: the first GPU) and its VM's render-node
 * file; 0, or a negative errno and kr->why. -EOPNOTSUPP: KFD before 1.24,
 * or no batch helper (its GEM userptr takes no ranges)
 */
static inline int kfd_render_open(struct kfd_render *kr, uint32_t want_gpu_id)
{
	struct kfd_ioctl_get_version_args ver = { 0 };
	struct kfd_process_device_apertures ap[16];
	struct kfd_ioctl_get_process_apertures_new_args apa = {
		.kfd_process_device_apertures_ptr = (uintptr_t)ap,
		.num_of_nodes = 16,
	};
	unsigned int i;
	FILE *f;
	int ret;

	memset(kr, 0, sizeof(*kr));
	kr->drm = -1;
	kr->kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (kr->kfd < 0)
		return kfd_render_fail(kr, -errno, "open /dev/kfd");
	if (ioctl(kr->kfd, AMDKFD_IOC_GET_VERSION, &ver))
		return kfd_render_fail(kr, -errno, "AMDKFD_IOC_GET_VERSION");
	kr->kfd_major = ver.major_version;
	kr->kfd_minor = ver.minor_version;
	if (ver.major_version != 1 || ver.minor_version < 24) {
		snprintf(kr->why, sizeof(kr->why),
			 "KFD %u.%u: IMPORT_DMABUF takes a GEM userptr from 1.24 on",
			 ver.major_version, ver.minor_version);
		return -EOPNOTSUPP;
	}
	f = fopen(KFD_RENDER_CAP, "r");
	if (f) {
		if (fscanf(f, "%u", &kr->cap) != 1)
			kr->cap = 0;
		fclose(f);
	}
	if (!kr->cap)
		return kfd_render_fail(kr, -EOPNOTSUPP, "no " KFD_RENDER_CAP);
	ret = kfd_render_find_gpu(kr, want_gpu_id);
	if (!ret)
		ret = kfd_render_find_drm(kr);
	if (ret)
		return ret;
	if (ioctl(kr->kfd, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &apa))
		return kfd_render_fail(kr, -errno, "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW");
	for (i = 0; i < apa.num_of_nodes && i < 16; i++)
		if (ap[i].gpu_id == kr->gpu_id) {
			kr->gpuvm_base = ap[i].gpuvm_base;
			kr->gpuvm_limit = ap[i].gpuvm_limit;
		}
	if (!kr->gpuvm_base)
		return kfd_render_fail(kr, -ENODEV, "no GPUVM aperture for the gpu_id");
	kr->next_va = kr->gpuvm_base;
	return 0;
}

/* a GPU VA for @size bytes in the GPUVM aperture, a page after the last */
static inline uint64_t kfd_render_va(struct kfd_render *kr, uint64_t size)
{
	uint64_t va = kr->next_va;

	kr->next_va += (size + 2 * 4096 - 1) & ~4095ULL;
	return va;
}

/*
 * A GEM userptr of ranges @r[0..@n) (@gem_flags: AMDGPU_GEM_USERPTR_* on
 * top of REGISTER and RANGES) in *@gem
 */
static inline int kfd_render_gem(struct kfd_render *kr,
				 const struct drm_amdgpu_gem_userptr_range *r,
				 unsigned int n, uint32_t gem_flags, uint32_t *gem)
{
	struct drm_amdgpu_gem_userptr g = {
		.flags = AMDGPU_GEM_USERPTR_REGISTER | AMDGPU_GEM_USERPTR_RANGES | gem_flags,
		.ranges = (uintptr_t)r,
		.num_ranges = n,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		g.size += r[i].size;
	ret = kfd_render_drm_ioctl(kr->drm, DRM_IOCTL_AMDGPU_GEM_USERPTR, &g);
	if (ret)
		return kfd_render_fail(kr, ret, "GEM_USERPTR with AMDGPU_GEM_USERPTR_RANGES");
	*gem = g.handle;
	return 0;
}

/* KFD's takeover of GEM handle @gem at @va with @flags: its KFD handle */
static inline int kfd_render_takeover(struct kfd_render *kr, uint32_t gem, uint64_t va,
				      uint32_t flags, uint64_t *handle)
{
	struct kfd_ioctl_import_dmabuf_args a = {
		.va_addr = va,
		.gpu_id = kr->gpu_id,
		.dmabuf_fd = KFD_INVALID_FD,
		.gem_handle = gem,
		.flags = flags,
	};

	if (ioctl(kr->kfd, AMDKFD_IOC_IMPORT_DMABUF, &a))
		return kfd_render_fail(kr, -errno, "IMPORT_DMABUF of the GEM handle");
	*handle = a.handle;
	return 0;
}

/* a render-node GEM handle closed: 0, -EINVAL when it is not there */
static inline int kfd_render_gem_close(struct kfd_render *kr, uint32_t gem)
{
	struct drm_gem_close c = { .handle = gem };

	return kfd_render_drm_ioctl(kr->drm, DRM_IOCTL_GEM_CLOSE, &c);
}

/*
 * Ranges @r[0..@n) as one KFD BO at @va: a GEM userptr, taken over with
 * @flags (KFD_IOC_ALLOC_MEM_FLAGS_*). On failure the GEM handle is closed
 */
static inline int kfd_render_register(struct kfd_render *kr,
				      const struct drm_amdgpu_gem_userptr_range *r,
				      unsigned int n, uint64_t va, uint32_t flags, uint64_t *handle)
{
	uint32_t gem;
	int ret;

	ret = kfd_render_gem(kr, r, n, flags & KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE ? 0 :
			     AMDGPU_GEM_USERPTR_READONLY, &gem);
	if (ret)
		return ret;
	ret = kfd_render_takeover(kr, gem, va, flags, handle);
	if (ret)
		kfd_render_gem_close(kr, gem);
	return ret;
}

static inline int kfd_render_free(struct kfd_render *kr, uint64_t handle)
{
	struct kfd_ioctl_free_memory_of_gpu_args a = { .handle = handle };

	return ioctl(kr->kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a) ? -errno : 0;
}

/* map (or, !map, unmap) a KFD BO on the GPU */
static inline int kfd_render_map(struct kfd_render *kr, uint64_t handle, bool map)
{
	uint32_t gpu_id = kr->gpu_id;
	struct kfd_ioctl_map_memory_to_gpu_args m = {
		.handle = handle,
		.device_ids_array_ptr = (uintptr_t)&gpu_id,
		.n_devices = 1,
	};
	struct kfd_ioctl_unmap_memory_from_gpu_args u = {
		.handle = handle,
		.device_ids_array_ptr = (uintptr_t)&gpu_id,
		.n_devices = 1,
	};
	int ret;

	ret = map ? ioctl(kr->kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &m) :
		    ioctl(kr->kfd, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &u);
	if (ret)
		return -errno;
	return (map ? m.n_success : u.n_success) == 1 ? 0 : -EIO;
}

#endif /* __KFD_RENDER_H */
