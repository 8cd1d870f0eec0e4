/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libuserptr: register many CPU ranges as one device allocation at one
 * contiguous device (GPU) virtual address range, the semantics of
 * libhsakmt's hsaKmtRegisterMemoryRangesWithFlags() (exactly, with its
 * arguments and HSAKMT_STATUS values: hsakmt_compat.h).
 *
 * Backends: /dev/kfd (an AMD GPU: many ranges through its render node, a
 * GEM userptr with a ranges array taken over by KFD, when KFD is 1.24 or
 * later and /sys/module/drm_userptr_batch/parameters/max_ranges exists;
 * otherwise one userptr AMDKFD_IOC_ALLOC_MEMORY_OF_GPU per range: amdkfd
 * has no batch ioctl) and /dev/userptr_emu (the emulated device, same
 * argument layouts, with a batch ioctl of its own when
 * /sys/class/misc/userptr_emu/userptr_batch_max_ranges exists), each
 * directly or through its render node (enum upr_mode). Manual:
 * docs/libuserptr.md.
 *
 * Every function that can fail returns 0 or a negative errno and leaves a
 * message for upr_errmsg(); a failed registration leaves nothing
 * registered.
 */
#ifndef __USERPTR_H
#define __USERPTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* one CPU range: the layout of struct drm_amdgpu_gem_userptr_range */
struct upr_range {
	uint64_t start;
	uint64_t size;
};

enum upr_backend {
	UPR_BACKEND_AUTO,	/* /dev/kfd with a GPU, else /dev/userptr_emu */
	UPR_BACKEND_KFD,
	UPR_BACKEND_EMU,
};

/*
 * The render-node route (the design amdkfd's maintainers asked for): each
 * allocation is a GEM userptr of the device's render node (amdgpu's
 * DRM_IOCTL_AMDGPU_GEM_USERPTR, with AMDGPU_GEM_USERPTR_RANGES for many
 * ranges), taken over by the compute file at its device address (KFD's
 * AMDKFD_IOC_IMPORT_DMABUF with a GEM handle, the device's IMPORT_GEM):
 * two ioctls per allocation, the same semantics.
 *
 * amdkfd has no batch ioctl: on /dev/kfd, AUTO and BATCH are RENDER when
 * the kernel has it (KFD 1.24 and the batch helper's cap), AUTO is
 * PER_RANGE otherwise and BATCH fails with -EOPNOTSUPP, its message naming
 * what is missing. On /dev/userptr_emu they use the device's batch ioctl.
 */
enum upr_mode {
	UPR_MODE_AUTO,		/* many ranges an ioctl when the device can */
	UPR_MODE_BATCH,		/* many ranges an ioctl only: -EOPNOTSUPP without */
	UPR_MODE_PER_RANGE,	/* one allocation ioctl per range */
	UPR_MODE_RENDER,	/* a batch GEM userptr per allocation */
	UPR_MODE_RENDER_PER_RANGE,	/* a GEM userptr per range */
};

struct upr_opts {
	enum upr_backend backend;
	enum upr_mode mode;
	unsigned int max_ranges;	/* ranges per batch ioctl: 0 for the
					 * kernel's cap, else at most that
					 */
	bool coalesce;			/* merge ranges adjacent in CPU and
					 * device order before registering
					 */
	uint32_t gpu_id;		/* kfd: 0 for the first GPU */
};

/*
 * flags of upr_register(), the values of KFD_IOC_ALLOC_MEM_FLAGS_*; through
 * the render node, a GEM userptr without UPR_WRITABLE is READONLY
 */
#define UPR_WRITABLE	(1U << 31)
#define UPR_EXECUTABLE	(1U << 30)

struct upr_dev;
struct upr_alloc;

int upr_open(struct upr_dev **devp, const struct upr_opts *opts);
void upr_close(struct upr_dev *dev);

/*
 * Register ranges[0..n) as one allocation at device address va (page
 * aligned; 0 to let the library choose): range i at va + the sizes of
 * ranges 0..i-1. Above the cap the batch is split into the fewest ioctls,
 * at consecutive device addresses.
 */
int upr_register(struct upr_dev *dev, const struct upr_range *ranges,
		 unsigned int n, uint64_t va, uint32_t flags,
		 struct upr_alloc **allocp);
/* free every ioctl's allocation of a; a is freed even on error */
int upr_unregister(struct upr_dev *dev, struct upr_alloc *a);

/* what a registration is */
uint64_t upr_alloc_va(const struct upr_alloc *a);
uint64_t upr_alloc_size(const struct upr_alloc *a);
unsigned int upr_alloc_ranges(const struct upr_alloc *a);	/* after coalescing */
unsigned int upr_alloc_calls(const struct upr_alloc *a);	/* ioctls it took */
/* its handles (one per allocation ioctl, or per GEM object taken over) */
unsigned int upr_alloc_handles(const struct upr_alloc *a);
uint64_t upr_alloc_handle(const struct upr_alloc *a, unsigned int call);

/* what the device is */
int upr_dev_fd(const struct upr_dev *dev);
enum upr_backend upr_dev_backend(const struct upr_dev *dev);
/*
 * many ranges an ioctl: emu's batch ioctl (whatever the mode), or on kfd
 * the render node with a ranges array (the mode takes it)
 */
bool upr_dev_has_batch(const struct upr_dev *dev);
unsigned int upr_dev_max_ranges(const struct upr_dev *dev);
const char *upr_dev_name(const struct upr_dev *dev);

/* the message of this thread's last failure */
const char *upr_errmsg(void);

/*
 * The pure parts, exported for their unit tests and for callers that
 * prepare ranges themselves.
 */
/* -EINVAL (not page aligned, size or start 0, overlap) or -EOVERFLOW */
int upr_validate(const struct upr_range *ranges, unsigned int n,
		 uint64_t page_size, uint64_t *total);
/* merge r[i] into r[i - 1] when r[i - 1] ends where r[i] starts: the
 * device layout is unchanged; returns the new count
 */
unsigned int upr_coalesce(struct upr_range *ranges, unsigned int n);
/* the fewest batch ioctls for n ranges at cap ranges each, and the
 * ranges of ioctl i among them (sizes differ by at most one)
 */
unsigned int upr_split_calls(unsigned int n, unsigned int cap);
unsigned int upr_split_count(unsigned int n, unsigned int cap, unsigned int i,
			     unsigned int *first);

#endif /* __USERPTR_H */
