/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf/kfdtrace.bpf.c shares with tools/kfdtrace: ioctl classes, map
 * values and ring buffer events.
 */
#ifndef __KFDTRACE_H
#define __KFDTRACE_H

#define KT_HIST_SLOTS	32	/* log2 buckets of microseconds */
#define KT_MAX_TGIDS	1024

/*
 * The event ring buffer (16 MiB): the probes wake the reader only once
 * KT_WAKEUP_BYTES wait, and it polls every KT_POLL_MS anyway. A wakeup per
 * event (the default when the reader has caught up) is an irq_work, a
 * wakeup and a context switch for each range.
 */
#define KT_WAKEUP_BYTES	(256 << 10)
#define KT_POLL_MS	100

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

/* counters of the memory side, one array element each (map "counts") */
enum kt_count {
	KT_HMM_CALLS, KT_HMM_PAGES, KT_HMM_EBUSY, KT_HMM_ERRORS,
	KT_NOTIFIER_INSERT, KT_NOTIFIER_REMOVE,
	KT_BATCH_CREATE, KT_BATCH_DESTROY,
	KT_REFAULTS, KT_REFAULT_RETRIES, KT_REFAULT_ERRORS,
	KT_INVALIDATE, KT_EVICT_RANGES,
	KT_RESTORES, KT_RESTORE_ERRORS, KT_RESTORE_PASSES, KT_RESTORE_FAULTED,
	KT_RESTORE_RETRIES, KT_RESTORE_WINDOWS, KT_RESTORE_CALLS,
	KT_INVALIDATE_GAP,
	KT_EMU_EVICTS, KT_EMU_RESTORES, KT_EMU_ACCESS, KT_EMU_ACCESS_ERRORS,
	KT_AMDGPU_EVICTS, KT_AMDGPU_RESTORE_WORKS, KT_AMDGPU_RESUMES,
	KT_EVENTS_LOST,
	KT_NR_COUNTS,
};

/* invalidations by enum mmu_notifier_event (map "inval_events") */
#define KT_NR_EVENTS	16

/* log2(us) histograms (map "hists") */
enum kt_hist {
	KT_H_HMM,		/* one hmm_range_fault() call */
	KT_H_REFAULT,		/* a range faulted again by the helper, retries included */
	KT_H_RESTORE,		/* one populate of the helper (restore_begin..end) */
	KT_H_EVICT_RESTORE,	/* a batch's first eviction to its restore */
	KT_H_AMDGPU_RESTORE,	/* amdgpu_amdkfd_restore_userptr_worker() */
	KT_NR_HISTS,
};

struct kt_hist_val {
	__u64 slots[KT_HIST_SLOTS];
};

/*
 * The ordered event stream of the eviction verdict (ring buffer "events"),
 * of the batches that had an invalidation or eviction (map "touched"), and
 * every failed device access.
 */
enum kt_ev_type {
	KT_EV_DESTROY,
	KT_EV_FAULT,		/* index, ret */
	KT_EV_INVAL,		/* index, arg: mmu_notifier_event */
	KT_EV_EVICT,		/* index: a valid range became invalid */
	KT_EV_EMU_EVICT,	/* index, arg: handle */
	KT_EV_EMU_RESTORE,	/* ret, arg: still evicted */
	KT_EV_EMU_ACCESS,	/* ret, arg: handle */
};

struct kt_event {
	__u64 ts;
	__u64 batch;
	__u32 type;
	__u32 index;
	__s32 ret;
	__u32 arg;
};

#endif /* __KFDTRACE_H */
