/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf/kfdtrace.bpf.c shares with tools/kfdtrace: ioctl classes, map
 * values and ring buffer events.
 */
#ifndef __KFDTRACE_H
#define __KFDTRACE_H

#define KT_HIST_SLOTS	32	/* log2 buckets of microseconds */
#define KT_MAX_TGIDS	1024

/* ioctl numbers, from the uAPI headers: 'K' is amdkfd, 'u' the emulated device */
#define KT_KFD_TYPE		'K'
#define KT_KFD_ALLOC		0x16	/* AMDKFD_IOC_ALLOC_MEMORY_OF_GPU */
#define KT_KFD_FREE		0x17	/* AMDKFD_IOC_FREE_MEMORY_OF_GPU */
#define KT_KFD_ALLOC_BATCH	0x28	/* AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH */
#define KT_KFD_NR_END		0x80
#define KT_EMU_TYPE		'u'
#define KT_EMU_ALLOC		1
#define KT_EMU_ALLOC_BATCH	2
#define KT_EMU_FREE		3
#define KT_EMU_NR_END		0x20

/* byte offsets in the argument structs (the same for both devices) */
#define KT_ALLOC_FLAGS_OFF	36	/* kfd_ioctl_alloc_memory_of_gpu_args.flags */
#define KT_BATCH_NUM_OFF	32	/* ..._batch_args.num_ranges */
#define KT_FLAG_USERPTR		0x4U	/* KFD_IOC_ALLOC_MEM_FLAGS_USERPTR */

enum kt_class {
	KT_KFD_USERPTR,		/* ALLOC_MEMORY_OF_GPU with the USERPTR flag */
	KT_KFD_BATCH,		/* ALLOC_MEMORY_OF_GPU_BATCH */
	KT_KFD_ALLOC_OTHER,	/* ALLOC_MEMORY_OF_GPU of VRAM, GTT, ... */
	KT_KFD_FREE_MEM,
	KT_KFD_OTHER,
	KT_EMU_USERPTR,
	KT_EMU_BATCH,
	KT_EMU_FREE_MEM,
	KT_EMU_OTHER,
	KT_NR_CLASSES,
};

struct kt_ioctl_key {
	__u32 tgid;
	__u32 class;
};

struct kt_ioctl_stat {
	__u64 calls;
	__u64 errors;
	__u64 ranges;		/* ranges registered by calls that succeeded */
	__u64 ns;		/* time in the ioctl, all calls */
	__u64 hist[KT_HIST_SLOTS];	/* latency, log2(us) */
	char comm[16];
};

#endif /* __KFDTRACE_H */
