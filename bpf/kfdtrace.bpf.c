// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace's probes: ioctl accounting of amdkfd and the emulated device,
 * per process, from the syscalls tracepoints. CO-RE: built once against the
 * project kernel's BTF, loaded on any kernel with BTF.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kfdtrace.h"

/* set by the loader before load: trace only the processes in follow */
const volatile bool filter_tgid;

/* the traced processes: the loader adds the first, forks add their children */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KT_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} follow SEC(".maps");

struct ioctl_start {
	__u64 ts;
	__u32 class;
	__u32 ranges;
};

/* per thread: the ioctl in progress */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct ioctl_start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KT_MAX_TGIDS * KT_NR_CLASSES);
	__type(key, struct kt_ioctl_key);
	__type(value, struct kt_ioctl_stat);
} ioctl_stats SEC(".maps");

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	while (v > 1 && r < KT_HIST_SLOTS - 1) {
		v >>= 1;
		r++;
	}
	return r;
}

static __always_inline __u32 read_u32(unsigned long uaddr)
{
	__u32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)uaddr);
	return v;
}

/*
 * The class of an ioctl, or KT_NR_CLASSES for one that is not ours. 'K' is
 * also the console's KD* type, whose old-style numbers carry no size: KFD's
 * always do.
 */
static __always_inline __u32 classify(__u32 cmd, unsigned long arg, __u32 *ranges)
{
	__u32 type = (cmd >> 8) & 0xff, nr = cmd & 0xff;
	__u32 size = (cmd >> 16) & 0x3fff;

	*ranges = 0;
	if (type == KT_KFD_TYPE && size && nr && nr < KT_KFD_NR_END) {
		switch (nr) {
		case KT_KFD_ALLOC:
			if (read_u32(arg + KT_ALLOC_FLAGS_OFF) & KT_FLAG_USERPTR) {
				*ranges = 1;
				return KT_KFD_USERPTR;
			}
			return KT_KFD_ALLOC_OTHER;
		case KT_KFD_ALLOC_BATCH:
			*ranges = read_u32(arg + KT_BATCH_NUM_OFF);
			return KT_KFD_BATCH;
		case KT_KFD_FREE:
			return KT_KFD_FREE_MEM;
		default:
			return KT_KFD_OTHER;
		}
	}
	if (type == KT_EMU_TYPE && size && nr && nr < KT_EMU_NR_END) {
		switch (nr) {
		case KT_EMU_ALLOC:
			*ranges = 1;
			return KT_EMU_USERPTR;
		case KT_EMU_ALLOC_BATCH:
			*ranges = read_u32(arg + KT_BATCH_NUM_OFF);
			return KT_EMU_BATCH;
		case KT_EMU_FREE:
			return KT_EMU_FREE_MEM;
		default:
			return KT_EMU_OTHER;
		}
	}
	return KT_NR_CLASSES;
}

SEC("tracepoint/sched/sched_process_fork")
int kt_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32;
	__u32 child = ctx->child_pid;
	__u8 one = 1;

	if (filter_tgid && bpf_map_lookup_elem(&follow, &parent))
		bpf_map_update_elem(&follow, &child, &one, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_ioctl")
int kt_ioctl_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct ioctl_start st;

	if (filter_tgid && !bpf_map_lookup_elem(&follow, &tgid))
		return 0;
	st.class = classify((__u32)ctx->args[1], ctx->args[2], &st.ranges);
	if (st.class >= KT_NR_CLASSES)
		return 0;
	st.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&starts, &tid, &st, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int kt_ioctl_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct kt_ioctl_key key = { .tgid = id >> 32 };
	struct kt_ioctl_stat *s, zero = {};
	struct ioctl_start *st;
	long ret = ctx->ret;
	__u64 ns;

	st = bpf_map_lookup_elem(&starts, &tid);
	if (!st)
		return 0;
	ns = bpf_ktime_get_ns() - st->ts;
	key.class = st->class;
	s = bpf_map_lookup_elem(&ioctl_stats, &key);
	if (!s) {
		bpf_get_current_comm(zero.comm, sizeof(zero.comm));
		bpf_map_update_elem(&ioctl_stats, &key, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&ioctl_stats, &key);
		if (!s)
			goto out;
	}
	__sync_fetch_and_add(&s->calls, 1);
	if (ret < 0)
		__sync_fetch_and_add(&s->errors, 1);
	else
		__sync_fetch_and_add(&s->ranges, st->ranges);
	__sync_fetch_and_add(&s->ns, ns);
	__sync_fetch_and_add(&s->hist[log2_u64(ns / 1000)], 1);
out:
	bpf_map_delete_elem(&starts, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
