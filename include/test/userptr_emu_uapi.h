/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * UAPI of the emulated userptr device, /dev/userptr_emu.
 *
 * The allocation ioctls take the arguments of their amdkfd counterparts
 * (AMDKFD_IOC_ALLOC_MEMORY_OF_GPU with KFD_IOC_ALLOC_MEM_FLAGS_USERPTR,
 * AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH), field for field and with the same
 * flag values, so userspace code and tracing serve both. The device adds
 * what a real GPU would do with the memory: reads and writes through its
 * page table, and a query of the eviction state.
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

/* as struct kfd_ioctl_userptr_range */
struct userptr_emu_range {
	__u64 start;		/* CPU address, page aligned */
	__u64 size;		/* bytes, page aligned, not zero */
};

/*
 * As struct kfd_ioctl_alloc_memory_of_gpu_batch_args: num_ranges CPU
 * ranges mapped in order at one device range of total_size bytes; range i
 * starts at va_addr + size[0] + ... + size[i-1].
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
 * at va_addr, inside one allocation. An evicted allocation is waited for,
 * up to timeout_ms (0: 10 s); a range whose CPU mapping is gone fails with
 * EFAULT.
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

#endif /* _USERPTR_EMU_UAPI_H */
