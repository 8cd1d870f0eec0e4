/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libuserptr with the semantics of libhsakmt's
 * hsaKmtRegisterMemoryRangesWithFlags(), as the libhsakmt change the v2
 * posting names (ROCm/rocm-systems ac21716e, projects/rocr-runtime/
 * libhsakmt: src/memory.c and src/fmm.c) implements it:
 *
 *   HSAKMT_STATUS hsaKmtRegisterMemoryRangesWithFlags(void *MemoryAddress,
 *           HsaMemoryRange *MemoryRanges, HSAuint64 RangesCount,
 *           HsaMemFlags MemFlags);
 *
 * (no size argument: the size is the sum of the ranges; the call
 * virglrenderer's hsakmt backend makes has these four arguments).
 *
 * Arguments: the GPU virtual address of the allocation is MemoryAddress
 * (NULL: one chosen by the library), and the address range
 * [MemoryAddress, + the sum of the sizes) is reserved in the process's CPU
 * address space for as long as the allocation lives, as libhsakmt's SVM
 * aperture does (mmap PROT_NONE, MAP_FIXED_NOREPLACE: the range must be
 * free, which is why virglrenderer unmaps the blob's mapping first).
 * MemoryRanges[0..RangesCount) are iovec-like {base, size} CPU ranges,
 * page aligned, mapped in array order: range i at MemoryAddress + the
 * sizes of ranges 0..i-1. The ranges go to the kernel through the device's
 * render node, in one GEM userptr with a ranges array (amdgpu's
 * DRM_IOCTL_AMDGPU_GEM_USERPTR with AMDGPU_GEM_USERPTR_RANGES, on KFD the
 * render-node file its VM was acquired with), never split (above the
 * kernel's cap the kernel refuses with E2BIG), which the compute file then
 * takes over at MemoryAddress (AMDKFD_IOC_IMPORT_DMABUF with the GEM
 * handle and libhsakmt's mapping flags; the emulated device's IMPORT_GEM):
 * whatever upr_open()'s mode, and on the emulated device without its own
 * batch ioctl too. A refused takeover closes the GEM handle.
 *
 * Fallback: none inside the call, as in libhsakmt. A kernel whose GEM
 * userptr takes no ranges array (no
 * /sys/module/drm_userptr_batch/parameters/max_ranges, or it holds 0), or
 * whose KFD takes no GEM handle (below 1.24), gets HSAKMT_STATUS_ERROR,
 * the status libhsakmt returns when its ioctl fails there, without an
 * ioctl sent; the message names what is missing. What a libhsakmt user
 * then does is its own: virglrenderer stitches the iovecs with mremap()
 * into one range for hsaKmtRegisterMemoryWithFlags(); with libuserptr,
 * upr_register() registers one range per ioctl.
 *
 * Status (checked in this order; HSAKMT_STATUS values are libhsakmt's),
 * and the errno upr_hsakmt_errno() gives for it:
 *
 *   dev NULL (libhsakmt: KFD not opened)    KERNEL_IO_CHANNEL_NOT_OPENED  -EBADF
 *   allocp NULL (libuserptr's handle)       INVALID_PARAMETER             -EINVAL
 *   MemoryRanges NULL or RangesCount 0      INVALID_PARAMETER             -EINVAL
 *   MemFlags CoarseGrain and ExtendedCoherent
 *                                           INVALID_PARAMETER             -EINVAL
 *   MemFlags HostAccess 0 or NonPaged 1     NOT_SUPPORTED                 -EOPNOTSUPP
 *   RangesCount above 2^32 - 1              ERROR                         -E2BIG
 *   a range or MemoryAddress not page aligned, a range starting at 0 or
 *   of size 0, ranges overlapping           ERROR                         -EINVAL
 *   a range or the sum of sizes wrapping    ERROR                         -EOVERFLOW
 *   no render route with ranges (no helper cap; KFD below 1.24, or the
 *   render-node file of its VM not open in the process)
 *                                           ERROR                         -EOPNOTSUPP
 *   emu: no render node of userptr_emu      ERROR                         -ENODEV
 *   [MemoryAddress, + size) not free        ERROR                         -EEXIST
 *   the kernel's errno, whatever it is (EINVAL, EFAULT, EADDRINUSE,
 *   E2BIG, ENOMEM, EBUSY, EPERM, ENOTTY, ...)
 *                                           ERROR                         that errno
 *   registered                              SUCCESS                       0
 *
 * libhsakmt maps no kernel errno to a status of its own (every failed
 * ioctl is HSAKMT_STATUS_ERROR, as are its own alignment checks), and
 * neither does this: the errno is kept for upr_hsakmt_errno() and
 * upr_errmsg(). libhsakmt returns NOT_SUPPORTED on an APU, which
 * libuserptr's devices are not. A failure leaves nothing registered and
 * nothing reserved. Manual: docs/libuserptr.md.
 */
#ifndef __HSAKMT_COMPAT_H
#define __HSAKMT_COMPAT_H

#include <stdint.h>

#include "userptr.h"

/*
 * libhsakmt's own types, values and layouts (include/hsakmt/hsakmttypes.h),
 * unless that header came first: then its definitions are used.
 */
#ifndef _HSAKMTTYPES_H_
typedef uint32_t HSAuint32;
typedef uint64_t HSAuint64;

typedef enum _HSAKMT_STATUS {
	HSAKMT_STATUS_SUCCESS = 0,
	HSAKMT_STATUS_ERROR = 1,
	HSAKMT_STATUS_DRIVER_MISMATCH = 2,
	HSAKMT_STATUS_INVALID_PARAMETER = 3,
	HSAKMT_STATUS_INVALID_HANDLE = 4,
	HSAKMT_STATUS_INVALID_NODE_UNIT = 5,
	HSAKMT_STATUS_NO_MEMORY = 6,
	HSAKMT_STATUS_BUFFER_TOO_SMALL = 7,
	HSAKMT_STATUS_NOT_IMPLEMENTED = 10,
	HSAKMT_STATUS_NOT_SUPPORTED = 11,
	HSAKMT_STATUS_UNAVAILABLE = 12,
	HSAKMT_STATUS_OUT_OF_RESOURCES = 13,
	HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED = 20,
	HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR = 21,
	HSAKMT_STATUS_KERNEL_ALREADY_OPENED = 22,
	HSAKMT_STATUS_HSAMMU_UNAVAILABLE = 23,
	HSAKMT_STATUS_WAIT_FAILURE = 30,
	HSAKMT_STATUS_WAIT_TIMEOUT = 31,
	HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED = 35,
	HSAKMT_STATUS_MEMORY_NOT_REGISTERED = 36,
	HSAKMT_STATUS_MEMORY_ALIGNMENT = 37,
} HSAKMT_STATUS;

#pragma pack(push, hsakmt_compat_h, 4)
typedef struct _HsaMemoryRange {
	void *MemoryAddress;
	HSAuint64 SizeInBytes;
} HsaMemoryRange;

typedef struct _HsaMemFlags {
	union {
		struct {
			unsigned int NonPaged : 1;
			unsigned int CachePolicy : 2;
			unsigned int ReadOnly : 1;
			unsigned int PageSize : 2;
			unsigned int HostAccess : 1;
			unsigned int NoSubstitute : 1;
			unsigned int GDSMemory : 1;
			unsigned int Scratch : 1;
			unsigned int AtomicAccessFull : 1;
			unsigned int AtomicAccessPartial : 1;
			unsigned int ExecuteAccess : 1;
			unsigned int CoarseGrain : 1;
			unsigned int AQLQueueMemory : 1;
			unsigned int FixedAddress : 1;
			unsigned int NoNUMABind : 1;
			unsigned int Uncached : 1;
			unsigned int NoAddress : 1;
			unsigned int OnlyAddress : 1;
			unsigned int ExtendedCoherent : 1;
			unsigned int GTTAccess : 1;
			unsigned int Contiguous : 1;
			unsigned int ExecuteBlit : 1;
			unsigned int QueueObject : 1;
			unsigned int Reserved : 7;
		} ui32;
		HSAuint32 Value;
	};
} HsaMemFlags;
#pragma pack(pop, hsakmt_compat_h)
#endif /* _HSAKMTTYPES_H_ */

/*
 * hsaKmtRegisterMemoryRangesWithFlags() on dev (opened with upr_open():
 * its backend and discovery; its mode, max_ranges and coalesce do not
 * apply). *allocp is the registration (libhsakmt keeps it by address):
 * upr_unregister() frees it and releases the reserved address range.
 */
HSAKMT_STATUS upr_hsakmt_register_ranges(struct upr_dev *dev, void *MemoryAddress,
					 HsaMemoryRange *MemoryRanges,
					 HSAuint64 RangesCount, HsaMemFlags MemFlags,
					 struct upr_alloc **allocp);

/* the negative errno behind this thread's last upr_hsakmt_*() status, 0 */
int upr_hsakmt_errno(void);

/*
 * The pure parts, for their unit tests: every check made before the device
 * is asked, in the order above (from "MemoryRanges NULL" to the
 * ranges' own checks), and the status of an errno from the kernel.
 */
HSAKMT_STATUS upr_hsakmt_check(const void *MemoryAddress,
			       const HsaMemoryRange *MemoryRanges,
			       HSAuint64 RangesCount, HsaMemFlags MemFlags,
			       uint64_t page_size);
HSAKMT_STATUS upr_hsakmt_status(int err);

#endif /* __HSAKMT_COMPAT_H */
