// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace's probes: ioctl accounting of amdkfd and the emulated device,
 * per process, at the drivers' ioctl entries where they can be probed,
 * else at the syscalls tracepoints (a call is the device's when its fd is
 * the device's file and its command one the device knows); HMM faults, interval notifier
 * inserts and removes (fentry, or kprobe where fentry is refused); the
 * batch helper's tracepoints (BTF-typed, tp_btf) and the emulated device's
 * (raw tracepoints: their arguments are plain numbers);
 * amdgpu's own userptr eviction and restore functions (kprobes), for
 * kernels without the series. CO-RE: built once against the project
 * kernel's BTF, loaded on any kernel with BTF. Every program but the ioctl
 * ones is optional: the loader disables those whose target is missing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kfdtrace.h"

/* set by the loader before load: trace only the processes in follow */
const volatile bool filter_tgid;

/*
 * Set by the loader before load, for --cgroup: trace only the tasks of
 * this cgroup v2 (its id) or of the cgroups below it (filter_cg_level is
 * its depth below the root). Asked on every call: a task may move.
 */
const volatile __u64 filter_cgid;
const volatile __u32 filter_cg_level;

/*
 * Set by the loader before load: the device numbers (kernel dev_t) of
 * amdkfd's /dev/kfd and the emulated device's misc device, 0 when absent,
 * and the whole command of each ioctl they know, by number (0: none).
 */
const volatile __u32 kfd_dev;
const volatile __u32 emu_dev;
const volatile __u32 kfd_cmds[KT_KFD_NR_END];
const volatile __u32 emu_cmds[KT_EMU_NR_END];

/*
 * Set by the loader before load: the devices whose ioctls are counted at
 * their driver's ioctl entry (kfd_ioctl() in amdgpu, uemu_ioctl() in
 * userptr_emu: fentry/fexit, or a kprobe and kretprobe) and not at the
 * syscalls tracepoints. The tracepoints, where they are attached at all,
 * then leave those devices' files alone, so that no call counts twice.
 */
const volatile bool kfd_at_driver;
const volatile bool emu_at_driver;

/*
 * Set by the loader before load: the DRM nodes of amdgpu and the test
 * device (kernel dev_t, 0 ends the list) and their drivers (enum
 * kt_drm_drv), and whether their calls are counted at drm_ioctl().
 */
const volatile __u32 drm_node_dev[KT_MAX_DRM_NODES];
const volatile __u32 drm_node_drv[KT_MAX_DRM_NODES];
const volatile bool drm_at_driver;

/*
 * The traced processes, by tgid: the loader adds the first, forks of a
 * new process add their children (a new thread shares its process's
 * entry), and the exit of a process's last thread removes it. A hash
 * map, not a flag in task storage set by the loader: it could set one
 * only through a pidfd, and before 6.9 (PIDFD_THREAD) only a process's
 * leader has one, so -p would miss the threads the process already runs.
 * The loader sizes it from the system's pid limit, so that it cannot be
 * full; a fork it cannot add is counted (KT_LOST_FOLLOW). The probes ask
 * it once per task and keep the answer (followed()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);		/* set by the loader */
	__type(key, __u32);
	__type(value, __u8);
} follow SEC(".maps");

/* what a function's entry leaves for its exit, per task */
enum kt_fn {
	KT_FN_HMM,		/* hmm_range_fault() */
	KT_FN_AMDGPU_RESTORE,	/* amdgpu_amdkfd_restore_userptr_worker() */
	KT_NR_FN,
};

/*
 * Task-local rather than a hash map keyed by tid: no bucket lock, no
 * insert and delete per call, and nothing left behind by a task that dies
 * inside a call. A start of 0 means none in progress.
 */
struct kt_task {
	__u64 ioctl_ts;		/* the ioctl of ours in progress */
	__u32 ioctl_class;
	__u32 ioctl_ranges;
	__u32 ioctl_name;	/* its index in ioctl_names + 1, 0 for none */
	__u64 fn_ts[KT_NR_FN];
	__u64 hmm_range;	/* kprobe fallback: hmm_range_fault()'s argument */
	__u64 hmm_count;	/* and hmm_range_fault_many()'s count, 0 for the former */
	__u8 follow;		/* filter_tgid: 0 not asked yet, else KT_FOLLOW_* */
};

enum { KT_FOLLOW_YES = 1, KT_FOLLOW_NO };

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kt_task);
} tasks SEC(".maps");

/* per process and class; a row it cannot add is counted (KT_LOST_ROWS) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KT_MAX_ROWS);
	__type(key, struct kt_ioctl_key);
	__type(value, struct kt_ioctl_stat);
} ioctl_stats SEC(".maps");

/* the devices' calls by ioctl, and their failures by errno (never full) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KT_NR_NAMES);
	__type(key, __u32);
	__type(value, struct kt_name_stat);
} ioctl_names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KT_MAX_ERRNO);
	__type(key, __u32);
	__type(value, __u64);
} ioctl_errno SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KT_NR_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KT_NR_EVENTS);
	__type(key, __u32);
	__type(value, __u64);
} inval_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KT_NR_HISTS);
	__type(key, __u32);
	__type(value, struct kt_hist_val);
} hists SEC(".maps");

/* per batch: time of the first eviction not yet restored */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} evicted_at SEC(".maps");

/*
 * evicted_at's entries: each populate ends in kt_restore_end(), and one
 * at registration has no eviction to look up, so it asks the map only
 * when this is not 0. Changed only with the inserts and deletes that
 * succeeded; the helper's lock orders a batch's eviction before its
 * restore.
 */
__u64 evicted_pending;

/*
 * The batches the verdict must follow event by event: those with an
 * invalidation or an eviction seen. Before its first one, nothing a batch
 * does can break a rule (an untouched range is valid, a fault before any
 * invalidation is older than all of them), so its faults, successful
 * device accesses and free are only counted: the ring buffer carries no
 * event a range for registration, where it cost a reserve, a commit and a
 * copy to the reader each. A fault that checks this map before an
 * invalidation marks it ran before that invalidation's timestamp was
 * taken, which is what the verdict would have concluded from its event.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} touched SEC(".maps");

/* the eviction verdict's ordered events */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/*
 * The helper's batch, as far as the probes read it (module BTF, CO-RE).
 * Its tracepoints are BTF-typed (tp_btf), so these are plain loads: a raw
 * tracepoint's pointer arguments are untyped, and each field read would be
 * a bpf_probe_read_kernel() call, five of them per populate. The verifier
 * takes such a pointer as possibly NULL (6.12), so each is checked once.
 */
struct drm_userptr_batch___kt {
	struct mm_struct *mm;
	__u64 id;
	unsigned int nranges;
} __attribute__((preserve_access_index));

struct drm_userptr_batch_pass___kt {
	unsigned int passes;
	unsigned int faulted;
	unsigned int retries;
	unsigned int windows;
	unsigned int calls;
} __attribute__((preserve_access_index));

#define EBUSY	16
#define EEXIST	17
#define S_IFMT	00170000
#define S_IFCHR	0020000

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	while (v > 1 && r < KT_HIST_SLOTS - 1) {
		v >>= 1;
		r++;
	}
	return r;
}

static __always_inline void count(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &idx);

	if (v)
		__sync_fetch_and_add(v, n);
}

static __always_inline void hist_add(__u32 h, __u64 ns)
{
	struct kt_hist_val *v = bpf_map_lookup_elem(&hists, &h);

	if (v)
		__sync_fetch_and_add(&v->slots[log2_u64(ns / 1000)], 1);
}

static __always_inline struct kt_task *task_state(bool create)
{
	return bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/*
 * Whether the task's process is followed, asked of the map once per task:
 * the answer cannot change afterwards, as the loader adds its process
 * before the probes attach, kt_fork() adds a child before the child runs,
 * and a process is removed only when its last thread exits. This spares
 * a hash lookup on each call traced.
 */
static __always_inline bool followed(struct kt_task *t)
{
	__u32 tgid;

	if (!t->follow) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		t->follow = bpf_map_lookup_elem(&follow, &tgid) ?
			    KT_FOLLOW_YES : KT_FOLLOW_NO;
	}
	return t->follow == KT_FOLLOW_YES;
}

/* the current task is in the cgroup of --cgroup, or there is none */
static __always_inline bool in_cgroup(void)
{
	return !filter_cgid ||
	       bpf_get_current_ancestor_cgroup_id(filter_cg_level) == filter_cgid;
}

/*
 * The current task's state (made if need be) when its process is followed,
 * else NULL. Without a filter every task is followed. State that cannot be
 * made (out of memory, or the storage busy in a nested program) loses
 * what the caller would have traced: counted.
 */
static __always_inline struct kt_task *followed_task(void)
{
	struct kt_task *t = task_state(true);

	if (!t) {
		count(KT_LOST_TASK, 1);
		return NULL;
	}
	return !filter_tgid || followed(t) ? t : NULL;
}

/* the same, and in the cgroup of --cgroup: the task's calls count */
static __always_inline struct kt_task *traced_task(void)
{
	return in_cgroup() ? followed_task() : NULL;
}

/* the same, for probes that need the task's state only to filter */
static __always_inline bool traced(void)
{
	return in_cgroup() && (!filter_tgid || followed_task());
}

/* a function's start, for fn_exit() */
static __always_inline void fn_start(struct kt_task *t, enum kt_fn fn)
{
	if (t)
		t->fn_ts[fn] = bpf_ktime_get_ns();
}

/* ns since the matching fn_start(), 0 when there was none */
static __always_inline __u64 fn_exit(enum kt_fn fn)
{
	struct kt_task *t = task_state(false);
	__u64 ns = 0;

	if (t && t->fn_ts[fn]) {
		ns = bpf_ktime_get_ns() - t->fn_ts[fn];
		t->fn_ts[fn] = 0;
	}
	return ns;
}

static __always_inline void emit_mm(__u32 type, __u64 batch, __u32 index, __s32 ret,
				    __u32 arg, __u64 mm)
{
	struct kt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (!e) {
		count(KT_EVENTS_LOST, 1);
		return;
	}
	e->ts = bpf_ktime_get_ns();
	e->batch = batch;
	e->type = type;
	e->index = index;
	e->ret = ret;
	e->arg = arg;
	e->mm = mm;
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= KT_WAKEUP_BYTES)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(e, flags);
}

static __always_inline void emit(__u32 type, __u64 batch, __u32 index, __s32 ret,
				 __u32 arg)
{
	emit_mm(type, batch, index, ret, arg, 0);
}

/* the process of a batch, for amdgpu's rules (quiesce and resume take an mm) */
static __always_inline __u64 batch_mm(const struct drm_userptr_batch___kt *batch)
{
	return (__u64)(unsigned long)BPF_CORE_READ(batch, mm);
}

/*
 * Before the event that touches it. A batch that cannot be followed (the
 * map is full) is a lost event, and false: keep no other state of it.
 */
static __always_inline bool touch(__u64 batch)
{
	__u8 one = 1;

	if (!bpf_map_update_elem(&touched, &batch, &one, BPF_ANY))
		return true;
	count(KT_LOST_TOUCHED, 1);
	return false;
}

static __always_inline bool is_touched(__u64 batch)
{
	return bpf_map_lookup_elem(&touched, &batch);
}

static __always_inline __u32 read_u32(unsigned long uaddr)
{
	__u32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)uaddr);
	return v;
}

/*
 * a 'K' or 'u' number with a size, which all of KFD's and the device's have
 * but 7.3's AMDKFD_IOC_CREATE_PROCESS: the console's 'K' ioctls (KDGETLED
 * and the like, 0x4b2f on) have none and are not candidates
 */
static __always_inline bool candidate(__u32 cmd)
{
	__u32 type = (cmd >> 8) & 0xff;

	if (cmd == KT_KFD_CREATE_PROCESS)
		return true;
	/* (DRM's on the DRM nodes only: classify() leaves the others alone) */
	if (type == KT_DRM_TYPE)
		return drm_node_dev[0];
	return (cmd >> 16) & 0x3fff && (type == KT_KFD_TYPE || type == KT_EMU_TYPE);
}

/* the driver of DRM node @rdev (enum kt_drm_drv), KT_DRV_NONE when not ours */
static __always_inline __u32 drm_drv_of(__u32 rdev)
{
	int i;

	for (i = 0; i < KT_MAX_DRM_NODES && drm_node_dev[i]; i++)
		if (drm_node_dev[i] == rdev)
			return drm_node_drv[i];
	return KT_DRV_NONE;
}

/*
 * The class of a DRM command @nr on a node of driver @drv (*name as
 * classify()'s): its GEM_USERPTR comes back as KT_GEM_USERPTR, the flags
 * in the user's arguments tell a batch (ranges_of()).
 */
static __always_inline __u32 classify_drm(__u32 nr, __u32 drv, __u32 *name)
{
	__u32 base = KT_DRM_NAMES + (drv - 1) * KT_DRM_NR_END, userptr;

	if (nr == KT_DRM_GEM_CLOSE) {
		*name = base + KT_DRM_NR_CMDS + 1;
		return KT_GEM_CLOSE;
	}
	if (nr < KT_DRM_COMMAND_BASE || nr >= KT_DRM_COMMAND_BASE + KT_DRM_NR_CMDS)
		return KT_GEM_OTHER;
	nr -= KT_DRM_COMMAND_BASE;
	*name = base + nr + 1;
	userptr = drv == KT_DRV_AMDGPU ? KT_AMDGPU_GEM_USERPTR : KT_EMU_GEM_USERPTR;
	return nr == userptr ? KT_GEM_USERPTR : KT_GEM_OTHER;
}

/*
 * The device number of the character device that @fd of the current task
 * is, 0 for none: task->files->fdt->fd[fd]->f_inode (CO-RE reads).
 */
static __always_inline __u32 fd_rdev(long fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct file **fds, *file = NULL;
	struct fdtable *fdt;
	struct inode *inode;

	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), fds + fd) || !file)
		return 0;
	inode = BPF_CORE_READ(file, f_inode);
	if (!inode || (BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFCHR)
		return 0;
	return BPF_CORE_READ(inode, i_rdev);
}

/*
 * The class of a candidate() call on the file @rdev: amdkfd's or the
 * device's when the file is the device and it knows the whole command
 * (*name: its ioctl_names index + 1), else KT_NOT_DEVICE. KFD's
 * ALLOC_MEMORY_OF_GPU comes back as KT_KFD_USERPTR: its flags, in the
 * user's arguments, tell (ranges_of()).
 */
static __always_inline __u32 classify(__u32 cmd, __u32 rdev, __u32 *name)
{
	__u32 type = (cmd >> 8) & 0xff, nr = cmd & 0xff, drv;

	*name = 0;
	/* a DRM call on another driver's node is not counted (KT_NR_CLASSES) */
	if (type == KT_DRM_TYPE) {
		drv = rdev ? drm_drv_of(rdev) : KT_DRV_NONE;
		return drv ? classify_drm(nr, drv, name) : KT_NR_CLASSES;
	}
	if (!rdev)
		return KT_NOT_DEVICE;
	if (rdev == kfd_dev && type == KT_KFD_TYPE && nr < KT_KFD_NR_END &&
	    kfd_cmds[nr] == cmd) {
		*name = nr + 1;
		switch (nr) {
		case KT_KFD_ALLOC:
			return KT_KFD_USERPTR;
		case KT_KFD_FREE:
			return KT_KFD_FREE_MEM;
		default:
			return KT_KFD_OTHER;
		}
	}
	if (rdev == emu_dev && type == KT_EMU_TYPE && nr < KT_EMU_NR_END &&
	    emu_cmds[nr] == cmd) {
		*name = KT_KFD_NR_END + nr + 1;
		switch (nr) {
		case KT_EMU_ALLOC:
			return KT_EMU_USERPTR;
		case KT_EMU_ALLOC_BATCH:
			return KT_EMU_BATCH;
		case KT_EMU_FREE:
			return KT_EMU_FREE_MEM;
		case KT_EMU_IMPORT_GEM:
			return KT_GEM_IMPORT;
		default:
			return KT_EMU_OTHER;
		}
	}
	return KT_NOT_DEVICE;
}

/*
 * The ranges a call of *class (ioctl_names index + 1 @name) asks to
 * register, from the user's arguments; a KFD allocation without the
 * USERPTR flag becomes KT_KFD_ALLOC_OTHER, a KFD import of a GEM handle
 * KT_GEM_IMPORT, a GEM_USERPTR with a ranges array KT_GEM_BATCH. Read
 * only for the processes followed.
 */
static __always_inline __u32 ranges_of(__u32 *class, __u32 name, unsigned long arg)
{
	switch (*class) {
	case KT_KFD_OTHER:
		if (name == KT_KFD_IMPORT + 1 &&
		    read_u32(arg + KT_IMPORT_FD_OFF) == KT_INVALID_FD)
			*class = KT_GEM_IMPORT;
		return 0;
	case KT_KFD_USERPTR:
		if (read_u32(arg + KT_ALLOC_FLAGS_OFF) & KT_FLAG_USERPTR)
			return 1;
		*class = KT_KFD_ALLOC_OTHER;
		return 0;
	case KT_EMU_USERPTR:
		return 1;
	case KT_GEM_USERPTR:
		if (!(read_u32(arg + KT_GEM_FLAGS_OFF) & KT_GEM_FLAG_RANGES))
			return 1;
		*class = KT_GEM_BATCH;
		return read_u32(arg + KT_GEM_NUM_RANGES_OFF);
	case KT_EMU_BATCH:
		return read_u32(arg + KT_BATCH_NUM_OFF);
	default:
		return 0;
	}
}

/*
 * A new process forked by a followed one is followed; a new thread is
 * already, by its process's entry (tgid). BTF-typed: the child's task
 * tells a thread from a process.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(kt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid;
	__u8 one = 1;

	if (!filter_tgid || !child)
		return 0;
	tgid = child->tgid;
	/* descent, not the cgroup: a child may move into it later */
	if (child->pid != tgid || !followed_task())
		return 0;
	if (bpf_map_update_elem(&follow, &tgid, &one, BPF_ANY))
		count(KT_LOST_FOLLOW, 1);
	else
		count(KT_FOLLOW_ADDED, 1);
	return 0;
}

/*
 * The exit of a process's last thread removes it from follow (do_exit()
 * has counted the thread out of signal->live before the tracepoint), so
 * that the map holds the processes alive, and a pid used again is not
 * followed unless a followed process forks it.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(kt_exit, struct task_struct *p)
{
	__u32 tgid;

	if (!filter_tgid || !p || BPF_CORE_READ(p, signal, live.counter))
		return 0;
	tgid = p->tgid;
	if (!bpf_map_delete_elem(&follow, &tgid))
		count(KT_FOLLOW_REMOVED, 1);
	return 0;
}

/* a call of class @class (ioctl_names index + 1 @name) begins, for ioctl_end() */
static __always_inline void ioctl_begin(struct kt_task *t, __u32 class, __u32 name,
					unsigned long arg)
{
	t->ioctl_ranges = ranges_of(&class, name, arg);
	t->ioctl_class = class;
	t->ioctl_name = name;
	t->ioctl_ts = bpf_ktime_get_ns();
}

/*
 * The fallback: every ioctl of every task on the machine enters and
 * leaves through here while the tracepoints are attached (the syscall
 * slow path), so it is attached only where a device's driver entry
 * cannot be probed, or no device is there (not_device is then the only
 * thing to count), or --syscalls asks for it. A device counted at its
 * driver's entry is left to those programs.
 */
SEC("tracepoint/syscalls/sys_enter_ioctl")
int kt_ioctl_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 cmd = ctx->args[1], class, name, rdev = 0;
	struct kt_task *t;

	if (!candidate(cmd))
		return 0;
	t = traced_task();
	if (!t)
		return 0;
	if (kfd_dev || emu_dev || drm_node_dev[0])
		rdev = fd_rdev(ctx->args[0]);
	/*
	 * (A call is counted once either way: the task has one slot, which
	 * the driver's exit clears before the syscall's; this spares the
	 * work and keeps the time the driver's.)
	 */
	if (rdev && ((kfd_at_driver && rdev == kfd_dev) || (emu_at_driver && rdev == emu_dev)))
		return 0;
	class = classify(cmd, rdev, &name);
	if (class == KT_NR_CLASSES ||
	    (drm_at_driver && class >= KT_GEM_USERPTR && class <= KT_GEM_OTHER))
		return 0;
	ioctl_begin(t, class, name, ctx->args[2]);
	return 0;
}

/* the devices' calls by ioctl, and their failures by errno */
static __always_inline void count_name(__u32 name, long ret)
{
	__u32 idx = name - 1, err = -ret;
	struct kt_name_stat *n;
	__u64 *e;

	n = bpf_map_lookup_elem(&ioctl_names, &idx);
	if (n) {
		__sync_fetch_and_add(&n->calls, 1);
		if (ret < 0)
			__sync_fetch_and_add(&n->errors, 1);
	}
	if (ret >= 0)
		return;
	if (err >= KT_MAX_ERRNO)
		err = 0;
	e = bpf_map_lookup_elem(&ioctl_errno, &err);
	if (e)
		__sync_fetch_and_add(e, 1);
}

/* the call ioctl_begin() began returns @ret: counted by process, class, name and errno */
static __always_inline void ioctl_end(long ret)
{
	struct kt_ioctl_key key = { .tgid = bpf_get_current_pid_tgid() >> 32 };
	struct kt_ioctl_stat *s, zero = {};
	struct kt_task *t = task_state(false);
	__u64 ns;

	if (!t || !t->ioctl_ts)
		return;
	ns = bpf_ktime_get_ns() - t->ioctl_ts;
	t->ioctl_ts = 0;
	key.class = t->ioctl_class;
	if (t->ioctl_name)
		count_name(t->ioctl_name, ret);
	s = bpf_map_lookup_elem(&ioctl_stats, &key);
	if (!s) {
		bpf_get_current_comm(zero.comm, sizeof(zero.comm));
		bpf_map_update_elem(&ioctl_stats, &key, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&ioctl_stats, &key);
		if (!s) {
			count(KT_LOST_ROWS, 1);
			return;
		}
	}
	__sync_fetch_and_add(&s->calls, 1);
	if (ret < 0)
		__sync_fetch_and_add(&s->errors, 1);
	else
		__sync_fetch_and_add(&s->ranges, t->ioctl_ranges);
	__sync_fetch_and_add(&s->ns, ns);
	__sync_fetch_and_add(&s->hist[log2_u64(ns / 1000)], 1);
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int kt_ioctl_exit(struct trace_event_raw_sys_exit *ctx)
{
	ioctl_end(ctx->ret);
	return 0;
}

/*
 * The devices' ioctls at their drivers' entry: only the calls on the
 * device's own file come here, so the file is known without a look at
 * the caller's fd table, and no other task's syscalls pay anything. What
 * the VFS answers before the driver (a bad fd, an LSM's refusal) and the
 * 'K' and 'u' numbers on other files (not_device at the tracepoints) are
 * not seen. The time is the driver's, not the syscall's.
 */
static __always_inline void drv_enter(__u32 cmd, unsigned long arg, __u32 rdev)
{
	struct kt_task *t;
	__u32 class, name;

	if (!candidate(cmd))
		return;
	class = classify(cmd, rdev, &name);
	if (class == KT_NR_CLASSES)
		return;
	t = traced_task();
	if (!t)
		return;
	ioctl_begin(t, class, name, arg);
}

SEC("fentry/kfd_ioctl")
int BPF_PROG(kt_kfd_ioctl_fentry, struct file *filp, unsigned int cmd, unsigned long arg)
{
	drv_enter(cmd, arg, kfd_dev);
	return 0;
}

SEC("fexit/kfd_ioctl")
int BPF_PROG(kt_kfd_ioctl_fexit, struct file *filp, unsigned int cmd, unsigned long arg,
	     long ret)
{
	ioctl_end(ret);
	return 0;
}

SEC("kprobe/kfd_ioctl")
int BPF_KPROBE(kt_kfd_ioctl_kprobe, struct file *filp, unsigned int cmd, unsigned long arg)
{
	drv_enter(cmd, arg, kfd_dev);
	return 0;
}

SEC("kretprobe/kfd_ioctl")
int BPF_KRETPROBE(kt_kfd_ioctl_kretprobe, long ret)
{
	ioctl_end(ret);
	return 0;
}

SEC("fentry/uemu_ioctl")
int BPF_PROG(kt_emu_ioctl_fentry, struct file *filp, unsigned int cmd, unsigned long arg)
{
	drv_enter(cmd, arg, emu_dev);
	return 0;
}

SEC("fexit/uemu_ioctl")
int BPF_PROG(kt_emu_ioctl_fexit, struct file *filp, unsigned int cmd, unsigned long arg,
	     long ret)
{
	ioctl_end(ret);
	return 0;
}

SEC("kprobe/uemu_ioctl")
int BPF_KPROBE(kt_emu_ioctl_kprobe, struct file *filp, unsigned int cmd, unsigned long arg)
{
	drv_enter(cmd, arg, emu_dev);
	return 0;
}

SEC("kretprobe/uemu_ioctl")
int BPF_KRETPROBE(kt_emu_ioctl_kretprobe, long ret)
{
	ioctl_end(ret);
	return 0;
}

/*
 * Every DRM driver's ioctls pass drm_ioctl() (amdgpu's through
 * amdgpu_drm_ioctl()): those on other nodes than ours leave at
 * classify(), before the task's state is looked up.
 */
static __always_inline __u32 file_rdev(struct file *filp)
{
	return BPF_CORE_READ(filp, f_inode, i_rdev);
}

SEC("fentry/drm_ioctl")
int BPF_PROG(kt_drm_ioctl_fentry, struct file *filp, unsigned int cmd, unsigned long arg)
{
	drv_enter(cmd, arg, file_rdev(filp));
	return 0;
}

SEC("fexit/drm_ioctl")
int BPF_PROG(kt_drm_ioctl_fexit, struct file *filp, unsigned int cmd, unsigned long arg,
	     long ret)
{
	ioctl_end(ret);
	return 0;
}

SEC("kprobe/drm_ioctl")
int BPF_KPROBE(kt_drm_ioctl_kprobe, struct file *filp, unsigned int cmd, unsigned long arg)
{
	drv_enter(cmd, arg, file_rdev(filp));
	return 0;
}

SEC("kretprobe/drm_ioctl")
int BPF_KRETPROBE(kt_drm_ioctl_kretprobe, long ret)
{
	ioctl_end(ret);
	return 0;
}

/*
 * HMM and interval notifiers, for every process when nothing is filtered
 * (the helper faults from workers too), else for the traced ones.
 */
/*
 * The pages of hmm_range_fault_many()'s @count ranges (the helper gives it
 * at most 256, DRM_USERPTR_READ_RUNS), or of hmm_range_fault()'s one range
 * when @count is 0.
 */
#define KT_HMM_MANY_MAX	256

static __always_inline __u64 hmm_pages(struct hmm_range *range, __u64 count)
{
	__u64 pages = 0, i, size = bpf_core_type_size(struct hmm_range);
	struct hmm_range *r;

	if (!count)
		count = 1;
	for (i = 0; i < KT_HMM_MANY_MAX && i < count; i++) {
		r = (struct hmm_range *)((char *)range + i * size);
		pages += (BPF_CORE_READ(r, end) - BPF_CORE_READ(r, start)) >> 12;
	}
	return pages;
}

/* the end of an HMM call of @pages pages that returned @ret (< 0: an error) */
static __always_inline void hmm_account(__u64 pages, long ret)
{
	__u64 ns = fn_exit(KT_FN_HMM);

	count(KT_HMM_CALLS, 1);
	count(KT_HMM_PAGES, pages);
	if (ret == -EBUSY)
		count(KT_HMM_EBUSY, 1);
	else if (ret)
		count(KT_HMM_ERRORS, 1);
	if (ns)
		hist_add(KT_H_HMM, ns);
}

static __always_inline void hmm_done(struct hmm_range *range, __u64 nr, long ret)
{
	hmm_account(hmm_pages(range, nr), ret);
}

SEC("fentry/hmm_range_fault")
int BPF_PROG(kt_hmm_fentry, struct hmm_range *range)
{
	fn_start(traced_task(), KT_FN_HMM);
	return 0;
}

SEC("fexit/hmm_range_fault")
int BPF_PROG(kt_hmm_fexit, struct hmm_range *range, int ret)
{
	if (traced())
		hmm_done(range, 0, ret);
	return 0;
}

/*
 * The kprobe fallback of both calls: the entry keeps the argument (and
 * hmm_range_fault_many()'s count, 0 for hmm_range_fault()) for the return.
 */
static __always_inline void hmm_kprobe(struct hmm_range *range, __u64 nr)
{
	struct kt_task *t = traced_task();

	fn_start(t, KT_FN_HMM);
	if (t) {
		t->hmm_range = (__u64)range;
		t->hmm_count = nr;
	}
}

/*
 * hmm_range_read_many() (the series' read of present pages in the caller's
 * order): a call, and the pages it read, which it returns (or -EBUSY).
 */
static __always_inline void hmm_read_done(long ret)
{
	hmm_account(ret > 0 ? ret : 0, ret < 0 ? ret : 0);
}

/* hmm_count of a hmm_range_read_many() call: its return is its pages */
#define KT_HMM_READ	(~0ULL)

static __always_inline void hmm_kretprobe(long ret)
{
	struct kt_task *t = task_state(false);

	if (!t || !t->hmm_range)
		return;
	if (t->hmm_count == KT_HMM_READ)
		hmm_read_done(ret);
	else
		hmm_done((struct hmm_range *)t->hmm_range, t->hmm_count, ret);
	t->hmm_range = 0;
}

SEC("kprobe/hmm_range_fault")
int BPF_KPROBE(kt_hmm_kprobe, struct hmm_range *range)
{
	hmm_kprobe(range, 0);
	return 0;
}

SEC("kretprobe/hmm_range_fault")
int BPF_KRETPROBE(kt_hmm_kretprobe, int ret)
{
	hmm_kretprobe(ret);
	return 0;
}

/* hmm_range_fault_many(): a call, its ranges' pages, as hmm_range_fault() */
SEC("fentry/hmm_range_fault_many")
int BPF_PROG(kt_hmm_many_fentry, struct hmm_range *ranges, unsigned long nr)
{
	fn_start(traced_task(), KT_FN_HMM);
	return 0;
}

SEC("fexit/hmm_range_fault_many")
int BPF_PROG(kt_hmm_many_fexit, struct hmm_range *ranges, unsigned long nr, int ret)
{
	if (traced())
		hmm_done(ranges, nr ?: 1, ret);
	return 0;
}

SEC("kprobe/hmm_range_fault_many")
int BPF_KPROBE(kt_hmm_many_kprobe, struct hmm_range *ranges, unsigned long nr)
{
	hmm_kprobe(ranges, nr ?: 1);
	return 0;
}

SEC("kretprobe/hmm_range_fault_many")
int BPF_KRETPROBE(kt_hmm_many_kretprobe, int ret)
{
	hmm_kretprobe(ret);
	return 0;
}

SEC("fentry/hmm_range_read_many")
int BPF_PROG(kt_hmm_read_fentry, void *rm)
{
	fn_start(traced_task(), KT_FN_HMM);
	return 0;
}

SEC("fexit/hmm_range_read_many")
int BPF_PROG(kt_hmm_read_fexit, void *rm, long ret)
{
	if (traced())
		hmm_read_done(ret);
	return 0;
}

SEC("kprobe/hmm_range_read_many")
int BPF_KPROBE(kt_hmm_read_kprobe, void *rm)
{
	hmm_kprobe((struct hmm_range *)rm, KT_HMM_READ);
	return 0;
}

SEC("kretprobe/hmm_range_read_many")
int BPF_KRETPROBE(kt_hmm_read_kretprobe, long ret)
{
	hmm_kretprobe(ret);
	return 0;
}

/*
 * hmm_range_fault_unlocked_timeout() (7.3 on: drm_gpusvm's faults, Xe's
 * userptr): a call and its range's pages, as hmm_range_fault(). It takes
 * the mmap lock itself and lets a fault handler drop it; it calls neither
 * of the above, so no fault is counted twice.
 */
SEC("fentry/hmm_range_fault_unlocked_timeout")
int BPF_PROG(kt_hmm_unlocked_fentry, struct hmm_range *range)
{
	fn_start(traced_task(), KT_FN_HMM);
	return 0;
}

SEC("fexit/hmm_range_fault_unlocked_timeout")
int BPF_PROG(kt_hmm_unlocked_fexit, struct hmm_range *range, unsigned long timeout, int ret)
{
	if (traced())
		hmm_done(range, 0, ret);
	return 0;
}

SEC("kprobe/hmm_range_fault_unlocked_timeout")
int BPF_KPROBE(kt_hmm_unlocked_kprobe, struct hmm_range *range)
{
	hmm_kprobe(range, 0);
	return 0;
}

SEC("kretprobe/hmm_range_fault_unlocked_timeout")
int BPF_KRETPROBE(kt_hmm_unlocked_kretprobe, int ret)
{
	hmm_kretprobe(ret);
	return 0;
}

SEC("fentry/mmu_interval_notifier_insert")
int BPF_PROG(kt_insert_fentry)
{
	if (traced())
		count(KT_NOTIFIER_INSERT, 1);
	return 0;
}

SEC("fentry/mmu_interval_notifier_remove")
int BPF_PROG(kt_remove_fentry)
{
	if (traced())
		count(KT_NOTIFIER_REMOVE, 1);
	return 0;
}

SEC("kprobe/mmu_interval_notifier_insert")
int BPF_KPROBE(kt_insert_kprobe)
{
	if (traced())
		count(KT_NOTIFIER_INSERT, 1);
	return 0;
}

SEC("kprobe/mmu_interval_notifier_remove")
int BPF_KPROBE(kt_remove_kprobe)
{
	if (traced())
		count(KT_NOTIFIER_REMOVE, 1);
	return 0;
}

/*
 * The batch helper's tracepoints (module drm_userptr_batch). Invalidation
 * and restore run in other tasks than the workload (reclaim, the restore
 * worker): they are counted whatever the filter.
 */
SEC("tp_btf/drm_userptr_create")
int BPF_PROG(kt_create, const struct drm_userptr_batch___kt *batch, int tgid)
{
	count(KT_BATCH_CREATE, 1);
	return 0;
}

SEC("tp_btf/drm_userptr_destroy")
int BPF_PROG(kt_destroy, const struct drm_userptr_batch___kt *batch)
{
	__u64 id;

	count(KT_BATCH_DESTROY, 1);
	if (!batch)
		return 0;
	id = batch->id;
	if (!is_touched(id))
		return 0;
	if (!bpf_map_delete_elem(&evicted_at, &id))
		__sync_fetch_and_add(&evicted_pending, -1);
	bpf_map_delete_elem(&touched, &id);
	emit_mm(KT_EV_DESTROY, id, 0, 0, 0, batch_mm(batch));
	return 0;
}

/*
 * A range faulted again after an invalidation. A batch's first faults, at
 * registration, have no tracepoint of their own (restore_end counts them),
 * so that registering a batch runs no program per range.
 */
SEC("tp_btf/drm_userptr_range_refault")
int BPF_PROG(kt_refault, const struct drm_userptr_batch___kt *batch,
	     unsigned int index, unsigned int retries, int ret, __u64 ns)
{
	count(KT_REFAULTS, 1);
	if (retries)
		count(KT_REFAULT_RETRIES, retries);
	if (ret)
		count(KT_REFAULT_ERRORS, 1);
	hist_add(KT_H_REFAULT, ns);
	if (batch && is_touched(batch->id))
		emit_mm(KT_EV_FAULT, batch->id, index, ret, 0, batch_mm(batch));
	return 0;
}

SEC("tp_btf/drm_userptr_invalidate")
int BPF_PROG(kt_invalidate, const struct drm_userptr_batch___kt *batch,
	     unsigned int index, const struct mmu_notifier_range *range)
{
	__u32 ev;
	__u64 id, *v;

	count(KT_INVALIDATE, 1);
	if (!batch || !range)
		return 0;
	ev = range->event;
	id = batch->id;
	touch(id);
	emit_mm(KT_EV_INVAL, id, index, 0, ev, batch_mm(batch));
	if (ev < KT_NR_EVENTS) {
		v = bpf_map_lookup_elem(&inval_events, &ev);
		if (v)
			__sync_fetch_and_add(v, 1);
	}
	return 0;
}

/* an invalidation of a window that hit only gaps: ignored by the helper */
SEC("tp_btf/drm_userptr_invalidate_gap")
int BPF_PROG(kt_invalidate_gap, const struct drm_userptr_batch___kt *batch,
	     const struct mmu_notifier_range *range)
{
	count(KT_INVALIDATE_GAP, 1);
	return 0;
}

SEC("tp_btf/drm_userptr_evict")
int BPF_PROG(kt_evict, const struct drm_userptr_batch___kt *batch,
	     unsigned int index)
{
	__u64 id, ts = bpf_ktime_get_ns();
	long err;

	count(KT_EVICT_RANGES, 1);
	if (!batch)
		return 0;
	id = batch->id;
	/* kt_destroy() drops evicted_at only of a batch in touched */
	if (touch(id)) {
		/* (-EEXIST: the batch's first eviction is timed already) */
		err = bpf_map_update_elem(&evicted_at, &id, &ts, BPF_NOEXIST);
		if (!err)
			__sync_fetch_and_add(&evicted_pending, 1);
		else if (err != -EEXIST)
			count(KT_LOST_EVICTED, 1);
	}
	emit_mm(KT_EV_EVICT, id, index, 0, 0, batch_mm(batch));
	return 0;
}

SEC("tp_btf/drm_userptr_restore_end")
int BPF_PROG(kt_restore_end, const struct drm_userptr_batch___kt *batch,
	     const struct drm_userptr_batch_pass___kt *p, int ret, __u64 ns)
{
	__u64 id, *ts;

	/* no event: the device's restore is what the verdict checks */
	count(KT_RESTORES, 1);
	if (ret < 0)
		count(KT_RESTORE_ERRORS, 1);
	hist_add(KT_H_RESTORE, ns);
	if (!batch || !p)
		return 0;
	count(KT_RESTORE_PASSES, p->passes);
	count(KT_RESTORE_FAULTED, p->faulted);
	count(KT_RESTORE_RETRIES, p->retries);
	count(KT_RESTORE_WINDOWS, p->windows);
	count(KT_RESTORE_CALLS, p->calls);
	if (!evicted_pending)
		return 0;
	id = batch->id;
	ts = bpf_map_lookup_elem(&evicted_at, &id);
	if (ts && !ret) {
		hist_add(KT_H_EVICT_RESTORE, bpf_ktime_get_ns() - *ts);
		if (!bpf_map_delete_elem(&evicted_at, &id))
			__sync_fetch_and_add(&evicted_pending, -1);
	}
	return 0;
}

/* the emulated device's tracepoints (module userptr_emu) */
SEC("raw_tp/userptr_emu_evict")
int BPF_PROG(kt_emu_evict, __u64 batch, __u32 handle, unsigned int index)
{
	count(KT_EMU_EVICTS, 1);
	touch(batch);
	emit(KT_EV_EMU_EVICT, batch, index, 0, handle);
	return 0;
}

SEC("raw_tp/userptr_emu_restore")
int BPF_PROG(kt_emu_restore, __u64 batch, __u32 handle, int ret, bool evicted)
{
	count(KT_EMU_RESTORES, 1);
	emit(KT_EV_EMU_RESTORE, batch, 0, ret, evicted);
	return 0;
}

SEC("raw_tp/userptr_emu_access")
int BPF_PROG(kt_emu_access, __u64 batch, __u32 handle, __u64 va, __u64 len,
	     bool write, int ret)
{
	count(KT_EMU_ACCESS, 1);
	if (ret)
		count(KT_EMU_ACCESS_ERRORS, 1);
	/* a failed access may be a restore that timed out: always seen */
	if (ret || is_touched(batch))
		emit(KT_EV_EMU_ACCESS, batch, 0, ret, handle);
	return 0;
}

/* amdgpu's userptr eviction and restore, on kernels with or without the series */
SEC("kprobe/amdgpu_amdkfd_evict_userptr")
int BPF_KPROBE(kt_amdgpu_evict)
{
	count(KT_AMDGPU_EVICTS, 1);
	return 0;
}

SEC("kprobe/amdgpu_amdkfd_restore_userptr_worker")
int BPF_KPROBE(kt_amdgpu_restore_enter)
{
	fn_start(task_state(true), KT_FN_AMDGPU_RESTORE);
	return 0;
}

SEC("kretprobe/amdgpu_amdkfd_restore_userptr_worker")
int BPF_KRETPROBE(kt_amdgpu_restore_exit)
{
	__u64 ns = fn_exit(KT_FN_AMDGPU_RESTORE);

	count(KT_AMDGPU_RESTORE_WORKS, 1);
	if (ns)
		hist_add(KT_H_AMDGPU_RESTORE, ns);
	return 0;
}

/*
 * The eviction verdict's amdgpu events: the process's queues stopped
 * (quiesce, on a userptr BO's first eviction, batch or not) and started
 * again (resume, at the end of a restore), by process (mm). Rare: always
 * sent.
 */
SEC("kprobe/kgd2kfd_quiesce_mm")
int BPF_KPROBE(kt_amdgpu_quiesce, struct mm_struct *mm, __u32 trigger)
{
	emit_mm(KT_EV_AMDGPU_QUIESCE, 0, 0, 0, trigger, (__u64)(unsigned long)mm);
	return 0;
}

SEC("kprobe/kgd2kfd_resume_mm")
int BPF_KPROBE(kt_amdgpu_resume, struct mm_struct *mm)
{
	count(KT_AMDGPU_RESUMES, 1);
	emit_mm(KT_EV_AMDGPU_RESUME, 0, 0, 0, 0, (__u64)(unsigned long)mm);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
