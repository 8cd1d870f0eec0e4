/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The bench-only module userptr_gpusvm (tools/bench/gpusvm): N user ranges
 * registered as Xe registers a userptr on Linux 7.3, one drm_gpusvm_pages
 * and one mmu_interval_notifier a range, in one call, as an Xe VM_BIND of
 * N userptr binds would. For make bench only: never in the series.
 */
#ifndef _USERPTR_GPUSVM_UAPI_H
#define _USERPTR_GPUSVM_UAPI_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/* the layout of struct userptr_emu_range and struct upr_range */
struct userptr_gpusvm_range {
	__u64 start;		/* CPU address, page aligned */
	__u64 size;		/* bytes, page aligned, not zero */
};

#define USERPTR_GPUSVM_READONLY		_BITUL(0)
#define USERPTR_GPUSVM_MAX_RANGES	65536

struct userptr_gpusvm_register_args {
	__u64 ranges_ptr;	/* in: struct userptr_gpusvm_range[num_ranges] */
	__u64 handle;		/* out */
	__u32 num_ranges;	/* in: 1 .. USERPTR_GPUSVM_MAX_RANGES */
	__u32 flags;		/* in: USERPTR_GPUSVM_READONLY or 0 */
	__u64 bytes;		/* out: kernel memory held for the ranges */
};

struct userptr_gpusvm_free_args {
	__u64 handle;		/* in */
};

#define USERPTR_GPUSVM_IOC_MAGIC	'g'
#define USERPTR_GPUSVM_IOC_REGISTER \
	_IOWR(USERPTR_GPUSVM_IOC_MAGIC, 0x01, struct userptr_gpusvm_register_args)
#define USERPTR_GPUSVM_IOC_FREE \
	_IOW(USERPTR_GPUSVM_IOC_MAGIC, 0x02, struct userptr_gpusvm_free_args)

#endif /* _USERPTR_GPUSVM_UAPI_H */
