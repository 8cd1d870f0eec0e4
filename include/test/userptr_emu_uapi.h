/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * UAPI of the emulated userptr device, /dev/userptr_emu.
 *
 * ALLOC takes the arguments of amdkfd's AMDKFD_IOC_ALLOC_MEMORY_OF_GPU
 * with KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, field for field and with the same
 * flag values, so userspace code and tracing serve both. ALLOC_BATCH, many
 * ranges as one allocation, is the helper's own way in for its tests
 * (amdkfd takes many ranges from amdgpu's render node instead). The device
 * adds what a real GPU would do with the memory: reads and writes through
 * its page table, and a query of the eviction state. An mmap() of the
 * device gives memory of its own (a zeroed page at each fault, lost when
 * unmapped) whose faults a test can hold (the fault_hold_ms parameter).
 */
#ifndef _USERPTR_EMU_UAPI_H
#define _USERPTR_EMU_UAPI_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define USERPTR_EMU_GPU_ID		0x4e554d45	/* the one gpu_id: "EMUN" */

/* flags: the values of KFD_IOC_ALLOC_MEM_FLAGS_* */
#define USERPTR_EMU_FLAG_USERPTR	_BITUL(2)	/* required */
#define USERPTR_EMU_FLAG_WRITABLE	_BITUL(31)	/* device may write */

/* as struct kfd_ioctl_alloc_memory_of_gpu_args: one CPU range */
struct userptr_emu_alloc_args {
	__u64 va_addr;		/* in: device address, page aligned */
	__u64 size;		/* in: bytes, page aligned, not zero */
	__u64 handle;		/* out */
	__u64 mmap_offset;	/* in: CPU address of the range */
	__u32 gpu_id;		/* in: USERPTR_EMU_GPU_ID */
	__u32 flags;		/* in: USERPTR_EMU_FLAG_* */
};

/* as struct drm_userptr_range */
struct userptr_emu_range {
	__u64 start;		/* CPU address, page aligned */
	__u64 size;		/* bytes, page aligned, not zero */
};

/*
 * num_ranges CPU ranges mapped in order at one device range of total_size
 * bytes; range i starts at va_addr + size[0] + ... + size[i-1].
 */
struct userptr_emu_alloc_batch_args {
	__u64 va_addr;		/* in: device address, page aligned */
	__u64 total_size;	/* in: the sum of the range sizes */
	__u64 handle;		/* out */
	__u64 ranges_ptr;	/* in: struct userptr_emu_range[num_ranges] */
	__u32 num_ranges;	/* in: 1 .. the helper's max_ranges */
	__u32 gpu_id;		/* in: USERPTR_EMU_GPU_ID */
	__u32 flags;		/* in: USERPTR_EMU_FLAG_* */
	__u32 pad;		/* in: 0 */
};

struct userptr_emu_free_args {
	__u64 handle;		/* in */
};

/*
 * Device read (device -> buffer) or write (buffer -> device) of size bytes
 * at va_addr, inside one allocation, 1 MiB at a time. An evicted allocation
 * is waited for, up to timeout_ms from the call (0: 10 s; ETIMEDOUT then);
 * a fatal signal ends the wait. A range whose CPU mapping is gone fails
 * with EFAULT. A write that fails may have written the MiBs before.
 */
struct userptr_emu_access_args {
	__u64 va_addr;		/* in */
	__u64 size;		/* in: at most USERPTR_EMU_ACCESS_MAX */
	__u64 ptr;		/* in: the user buffer */
	__u32 timeout_ms;	/* in */
	__u32 pad;		/* in: 0 */
};

#define USERPTR_EMU_ACCESS_MAX		(64ULL << 20)

/* the state of one allocation */
struct userptr_emu_query_args {
	__u64 handle;		/* in */
	__u64 valid_ptr;	/* in: 0, or a __u8[num_ranges] that gets
				 * 1 per range the device may use, 0 per
				 * invalid range
				 */
	__u64 va_addr;		/* out */
	__u64 size;		/* out */
	__u64 batch_id;		/* out: the id in the drm_userptr tracepoints */
	__u64 evictions;	/* out: times the allocation was evicted */
	__u64 restores;		/* out: times it was restored */
	__u32 num_ranges;	/* out */
	__u32 num_valid;	/* out */
	__u32 num_failed;	/* out: ranges whose CPU mapping is gone */
	__u32 evicted;		/* out: 1 while evicted */
	__u32 restoring;	/* out: 1 while the restore worker works on it */
	__u32 num_faulted;	/* out: ranges faulted and waiting for commit */
	__u64 range_faults;	/* out: ranges faulted since registration,
				 * registration and every re-fault counted
				 */
	__u32 num_windows;	/* out: the batch's interval notifiers */
	__u32 reserved;		/* out: 0 */
	__u64 helper_bytes;	/* out: kernel memory the helper holds for it */
};

/* what a file and the whole device hold now: for leak checks */
struct userptr_emu_stats_args {
	__u64 file_allocs;	/* out: allocations of this file */
	__u64 file_ranges;	/* out: their ranges */
	__u64 dev_allocs;	/* out: allocations of all files */
	__u64 dev_ranges;	/* out: their ranges */
	__u64 dev_pages;	/* out: pages their page tables map now */
	__u64 dev_windows;	/* out: their interval notifiers */
};

#define USERPTR_EMU_IOC_MAGIC		'u'
#define USERPTR_EMU_IOC_ALLOC \
	_IOWR(USERPTR_EMU_IOC_MAGIC, 0x01, struct userptr_emu_alloc_args)
#define USERPTR_EMU_IOC_ALLOC_BATCH \
	_IOWR(USERPTR_EMU_IOC_MAGIC, 0x02, struct userptr_emu_alloc_batch_args)
#define USERPTR_EMU_IOC_FREE \
	_IOW(USERPTR_EMU_IOC_MAGIC, 0x03, struct userptr_emu_free_args)
#define USERPTR_EMU_IOC_READ \
	_IOW(USERPTR_EMU_IOC_MAGIC, 0x04, struct userptr_emu_access_args)
#define USERPTR_EMU_IOC_WRITE \
	_IOW(USERPTR_EMU_IOC_MAGIC, 0x05, struct userptr_emu_access_args)
#define USERPTR_EMU_IOC_QUERY \
	_IOWR(USERPTR_EMU_IOC_MAGIC, 0x06, struct userptr_emu_query_args)
#define USERPTR_EMU_IOC_STATS \
	_IOR(USERPTR_EMU_IOC_MAGIC, 0x07, struct userptr_emu_stats_args)

/*
 * Take a GEM object of the device's render node (below) over, as amdkfd
 * takes a GEM userptr BO from the render-node file its process gave it:
 * the object leaves the render node (its handle is deleted; it must have
 * no other handle, flink name or dma-buf, else EBUSY, and no new handle of
 * it can be opened from the check on) and becomes an allocation of this
 * file at va_addr, evicted and restored by this file's worker. The
 * render node's jobs that use it are waited for before it moves. The
 * object's memory must be this process's. On error the object stays where
 * it was.
 */
struct userptr_emu_import_gem_args {
	__u64 va_addr;		/* in: device address, page aligned */
	__u64 handle;		/* out: the allocation's handle */
	__u32 gpu_id;		/* in: USERPTR_EMU_GPU_ID */
	__u32 drm_fd;		/* in: a file of the device's DRM nodes */
	__u32 gem_handle;	/* in: a GEM handle of that file */
	__u32 flags;		/* in: 0 */
};

#define USERPTR_EMU_IOC_IMPORT_GEM \
	_IOWR(USERPTR_EMU_IOC_MAGIC, 0x08, struct userptr_emu_import_gem_args)

/*
 * The render node, /dev/dri/renderD* of the DRM driver "userptr_emu": GEM
 * objects backed by user memory through the DRM batch userptr GEM helper,
 * created with the argument layout proposed for amdgpu's
 * DRM_IOCTL_AMDGPU_GEM_USERPTR with a ranges array, and used by "command
 * submission" as amdgpu uses a userptr BO: every range checked at
 * submission, under the notifier lock, and faulted again when an
 * invalidation hit it.
 */

/* flags: the values of AMDGPU_GEM_USERPTR_* */
#define USERPTR_EMU_GEM_READONLY	_BITUL(0)
#define USERPTR_EMU_GEM_ANONONLY	_BITUL(1)	/* refused */
#define USERPTR_EMU_GEM_VALIDATE	_BITUL(2)	/* populate now */
#define USERPTR_EMU_GEM_REGISTER	_BITUL(3)	/* required */
#define USERPTR_EMU_GEM_RANGES		_BITUL(4)	/* ranges[], addr 0 */

struct drm_userptr_emu_gem_userptr {
	__u64 addr;		/* in: CPU address; 0 with RANGES */
	__u64 size;		/* in: bytes; with RANGES their sum */
	__u32 flags;		/* in: USERPTR_EMU_GEM_* */
	__u32 handle;		/* out: GEM handle */
	__u64 ranges;		/* in: struct userptr_emu_range[num_ranges] */
	__u32 num_ranges;	/* in: with RANGES, 1 .. max_ranges; else 0 */
	__u32 pad;		/* in: 0 */
};

/* EXEC flags */
#define USERPTR_EMU_EXEC_WRITE		_BITUL(0)	/* buffer -> object */
#define USERPTR_EMU_EXEC_ASYNC		_BITUL(1)	/* a job, with WRITE */

/*
 * A submission that reads (or writes) size bytes of an object at offset:
 * its pages are checked and, where an invalidation hit them, faulted again
 * first, within the populate's deadline. A range whose CPU mapping is gone
 * fails it with EFAULT (EPERM: a write to a read-only object, or a
 * writable object over a read-only mapping).
 *
 * With ASYNC (and WRITE) the write is a job that runs after the ioctl
 * returned, as a GPU's: its fence is in the file's VM, and fence_fd a
 * sync_file of it (poll it; SYNC_IOC_FILE_INFO's status is 1 once it ran,
 * -ESTALE if it found its pages no longer kept for it, which is a bug).
 */
struct drm_userptr_emu_exec {
	__u64 offset;		/* in: bytes into the object */
	__u64 size;		/* in: at most USERPTR_EMU_ACCESS_MAX */
	__u64 ptr;		/* in: the user buffer */
	__u32 handle;		/* in: GEM handle */
	__u32 flags;		/* in: USERPTR_EMU_EXEC_* */
	__s32 fence_fd;		/* out: with ASYNC */
	__u32 pad;		/* in: 0 */
};

struct drm_userptr_emu_gem_query {
	__u64 valid_ptr;	/* in: 0, or a __u8[num_ranges] as QUERY's */
	__u32 handle;		/* in */
	__u32 num_ranges;	/* out */
	__u64 size;		/* out */
	__u64 batch_id;		/* out: the id in the drm_userptr tracepoints */
	__u64 invalidations;	/* out: invalidations that hit its ranges (one
				 * a window an invalidation overlaps)
				 */
	__u64 populates;	/* out: submissions that had to fault */
	__u32 num_valid;	/* out */
	__u32 num_failed;	/* out */
	__u32 num_windows;	/* out */
	__u32 flags;		/* out: USERPTR_EMU_GEM_READONLY or 0 */
	__u64 restarts;		/* out: submissions that found their pages
				 * stale at the check and started again
				 */
};

/* GEM userptr objects of the whole device now: for leak checks */
struct drm_userptr_emu_stats {
	__u64 objects;		/* out */
	__u64 ranges;		/* out */
	__u64 windows;		/* out */
	__u64 max_ranges;	/* out: the helper's cap */
	__u64 jobs;		/* out: asynchronous jobs not yet let go */
	__u64 stale_jobs;	/* out: jobs that ran on pages no notifier kept
				 * for them (a bug: a GPU would use freed pages)
				 */
	__u64 process_evictions; /* out: an importer's eviction fence
				  * signalled: its whole process evicted
				  */
};

#define USERPTR_EMU_DRM_GEM_USERPTR	0x00
#define USERPTR_EMU_DRM_EXEC		0x01
#define USERPTR_EMU_DRM_GEM_QUERY	0x02
#define USERPTR_EMU_DRM_STATS		0x03

/* DRM_IOWR(DRM_COMMAND_BASE + nr, type), without drm.h */
#define USERPTR_EMU_DRM_IOWR(nr, type)	_IOWR('d', 0x40 + (nr), type)
#define DRM_IOCTL_USERPTR_EMU_GEM_USERPTR \
	USERPTR_EMU_DRM_IOWR(USERPTR_EMU_DRM_GEM_USERPTR, \
			     struct drm_userptr_emu_gem_userptr)
#define DRM_IOCTL_USERPTR_EMU_EXEC \
	USERPTR_EMU_DRM_IOWR(USERPTR_EMU_DRM_EXEC, struct drm_userptr_emu_exec)
#define DRM_IOCTL_USERPTR_EMU_GEM_QUERY \
	USERPTR_EMU_DRM_IOWR(USERPTR_EMU_DRM_GEM_QUERY, \
			     struct drm_userptr_emu_gem_query)
#define DRM_IOCTL_USERPTR_EMU_STATS \
	USERPTR_EMU_DRM_IOWR(USERPTR_EMU_DRM_STATS, struct drm_userptr_emu_stats)

#endif /* _USERPTR_EMU_UAPI_H */
