/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf/kfdtrace.bpf.c shares with tools/kfdtrace: ioctl classes, map
 * values and ring buffer events.
 */
#ifndef __KFDTRACE_H
#define __KFDTRACE_H

#define KT_HIST_SLOTS	32	/* log2 buckets of microseconds */
/*
 * Rows of the per-process table (map ioctl_stats), one per process and
 * class; allocated as they come. The follow map is sized by the loader
 * from the system's pid limit (/proc/sys/kernel/pid_max).
 */
#define KT_MAX_ROWS	16384
#define KT_MAX_ERRNO	256	/* failed calls by errno; larger ones in slot 0 */

/*
 * The event ring buffer (16 MiB): the probes wake the reader only once
 * KT_WAKEUP_BYTES wait, and it polls every KT_POLL_MS anyway. A wakeup per
 * event (the default when the reader has caught up) is an irq_work, a
 * wakeup and a context switch for each range.
 */
#define KT_WAKEUP_BYTES	(256 << 10)
#define KT_POLL_MS	100

/*
 * ioctl numbers, from the uAPI headers: 'K' is amdkfd, 'u' the emulated
 * device. A call is the device's only when its fd is the device's
 * character device and its whole command (direction, size, type, number)
 * is one the device knows: the loader gives the probes both (kfd_dev,
 * emu_dev, kfd_cmds[], emu_cmds[]). Any other call with these types is
 * KT_NOT_DEVICE.
 */
#define KT_KFD_TYPE		'K'
#define KT_KFD_ALLOC		0x16	/* AMDKFD_IOC_ALLOC_MEMORY_OF_GPU */
#define KT_KFD_FREE		0x17	/* AMDKFD_IOC_FREE_MEMORY_OF_GPU */
#define KT_KFD_IMPORT		0x1d	/* AMDKFD_IOC_IMPORT_DMABUF */
#define KT_KFD_CREATE_PROCESS	0x4b27	/* AMDKFD_IOC_CREATE_PROCESS: no size */
#define KT_KFD_NR_END		0x80
#define KT_EMU_TYPE		'u'
#define KT_EMU_ALLOC		1
#define KT_EMU_ALLOC_BATCH	2
#define KT_EMU_FREE		3
#define KT_EMU_IMPORT_GEM	8
#define KT_EMU_NR_END		0x20

/*
 * The DRM nodes (card* and renderD*) of the drivers whose GEM userptr
 * objects kfdtrace counts, at most KT_MAX_DRM_NODES: the loader gives the
 * probes each node's device number and driver (drm_node_dev[],
 * drm_node_drv[]). drm_ioctl() dispatches on the number alone (it
 * zero-extends or truncates the argument to its own size), so a call is
 * the driver's when its fd is one of its nodes and its type 'd': a
 * driver command (DRM_COMMAND_BASE + 0 .. KT_DRM_NR_CMDS - 1), the core's
 * GEM_CLOSE, or another core command.
 */
#define KT_MAX_DRM_NODES	16
#define KT_DRM_TYPE		'd'
#define KT_DRM_COMMAND_BASE	0x40
#define KT_DRM_NR_CMDS		0x20
#define KT_DRM_GEM_CLOSE	0x09	/* DRM_IOCTL_GEM_CLOSE */
#define KT_DRM_NR_END		(KT_DRM_NR_CMDS + 1)	/* GEM_CLOSE last */

enum kt_drm_drv {
	KT_DRV_NONE,
	KT_DRV_AMDGPU,		/* DRM_AMDGPU_GEM_USERPTR = 0x11 */
	KT_DRV_EMU,		/* the test device's render node: 0x00 */
	KT_NR_DRV,
};

#define KT_AMDGPU_GEM_USERPTR	0x11
#define KT_EMU_GEM_USERPTR	0x00

/* byte offsets in the argument structs */
#define KT_ALLOC_FLAGS_OFF	36	/* kfd_ioctl_alloc_memory_of_gpu_args.flags */
#define KT_BATCH_NUM_OFF	32	/* userptr_emu_alloc_batch_args.num_ranges */
#define KT_FLAG_USERPTR		0x4U	/* KFD_IOC_ALLOC_MEM_FLAGS_USERPTR */
#define KT_IMPORT_FD_OFF	20	/* kfd_ioctl_import_dmabuf_args.dmabuf_fd */
#define KT_INVALID_FD		0xffffffffU	/* KFD_INVALID_FD: a GEM handle */
/* drm_amdgpu_gem_userptr, which the test device's render node shares */
#define KT_GEM_FLAGS_OFF	16
#define KT_GEM_NUM_RANGES_OFF	32
#define KT_GEM_FLAG_RANGES	0x10U	/* AMDGPU_GEM_USERPTR_RANGES */

enum kt_class {
	KT_KFD_USERPTR,		/* ALLOC_MEMORY_OF_GPU with the USERPTR flag */
	KT_KFD_ALLOC_OTHER,	/* ALLOC_MEMORY_OF_GPU of VRAM, GTT, ... */
	KT_KFD_FREE_MEM,
	KT_KFD_OTHER,
	KT_EMU_USERPTR,
	KT_EMU_BATCH,		/* the device's ALLOC_BATCH (the helper's test entry) */
	KT_EMU_FREE_MEM,
	KT_EMU_OTHER,
	KT_NOT_DEVICE,		/* a 'K' or 'u' number, not a known ioctl of the file's device */
	/* on a DRM node of amdgpu or the test device (KT_MAX_DRM_NODES) */
	KT_GEM_USERPTR,		/* GEM_USERPTR of one range */
	KT_GEM_BATCH,		/* GEM_USERPTR with a ranges array */
	/*
	 * a GEM userptr taken over by the compute device's file: amdkfd's
	 * IMPORT_DMABUF with dmabuf_fd KFD_INVALID_FD, the device's IMPORT_GEM.
	 * amdkfd's only batch: KT_GEM_BATCH on amdgpu's render node, then this.
	 */
	KT_GEM_IMPORT,
	KT_GEM_CLOSE,		/* DRM_IOCTL_GEM_CLOSE */
	KT_GEM_OTHER,		/* any other DRM command */
	KT_NR_CLASSES,
};

/*
 * Calls by ioctl (map "ioctl_names"): amdkfd's at their number, the
 * emulated device's at KT_KFD_NR_END + number, then each DRM driver's
 * commands at KT_DRM_NAMES + (driver - 1) * KT_DRM_NR_END + number -
 * DRM_COMMAND_BASE, its GEM_CLOSE after them.
 */
#define KT_DRM_NAMES	(KT_KFD_NR_END + KT_EMU_NR_END)
#define KT_NR_NAMES	(KT_DRM_NAMES + (KT_NR_DRV - 1) * KT_DRM_NR_END)

struct kt_name_stat {
	__u64 calls;
	__u64 errors;
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
	KT_EVENTS_LOST,		/* ring buffer full: an event not sent */
	/* the follow map: processes added and removed at their exit */
	KT_FOLLOW_ADDED, KT_FOLLOW_REMOVED,
	/* failed map updates: each makes the recording incomplete */
	KT_LOST_FOLLOW,		/* a fork not followed: the follow map was full */
	KT_LOST_ROWS,		/* a call not in the per-process table: ioctl_stats full */
	KT_LOST_TASK,		/* no task storage: a call or fault not traced */
	KT_LOST_TOUCHED,	/* a batch the verdict could not follow: touched full */
	KT_LOST_EVICTED,	/* an eviction not timed: evicted_at full */
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
	KT_EV_AMDGPU_QUIESCE,	/* mm, arg: trigger (kgd2kfd_quiesce_mm()) */
	KT_EV_AMDGPU_RESUME,	/* mm (kgd2kfd_resume_mm()) */
};

struct kt_event {
	__u64 ts;
	__u64 batch;
	__u32 type;
	__u32 index;
	__s32 ret;
	__u32 arg;
	__u64 mm;	/* the process (its mm_struct): the helper's and amdgpu's events */
};

#endif /* __KFDTRACE_H */
