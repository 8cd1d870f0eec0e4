/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfdtrace's kernel probing (probe.c): which of the BPF programs record
 * loads, on what, on this kernel. record loads what it plans; feature
 * reports the same plan, so the two never disagree.
 */
#ifndef __KFDTRACE_PROBE_H
#define __KFDTRACE_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

#include "main.h"

struct btf;

/*
 * The probes' BPF programs as record loads them (probe.c's table): each
 * program's group, its flavour (0 any, 1 fentry, 2 kprobe: of a pair on
 * one function, one flavour loads) and its target, which must exist:
 * "fn:NAME" (vmlinux BTF), "tp:SYS/EVENT" (tracefs), "amdgpu:NAME"
 * (amdgpu's BTF, a kprobe), "drv:MODULE:NAME" (a device's ioctl entry in
 * its module, planned by kt_ioctl_plan()), "sys:ioctl" (the syscalls
 * tracepoints, likewise), NULL for none.
 */
struct kt_prog_info {
	const char *name;
	enum kt_group group;
	int flavour;
	const char *target;
};

/* the table's @i-th program; NULL past its end */
const struct kt_prog_info *kt_prog(unsigned int i);

/*
 * Whether record loads program @p at load attempt @attempt (0 the first;
 * then without the HMM and notifier programs, then the ioctl group alone):
 * its group is wanted (hmm and notifier only with -a where the helper's
 * tracepoints are) and its target exists here (fentry where the kernel
 * attaches one, else a kprobe, checked as record checks them before the
 * load). @why (@len bytes; NULL for none) gets the reason in words. The
 * answer is record's own choice, which `kfdtrace feature` reports.
 */
bool kt_prog_planned(const struct kt_record_opts *o, const struct kt_prog_info *p,
		     int attempt, char *why, size_t len);

/*
 * Where record counts the ioctls at load attempt @attempt (@at, by enum
 * kt_ioctl_target): a device that is there at its driver's ioctl entry,
 * fentry where the kernel attaches one to the function in its module's
 * BTF, else a kprobe where ftrace lists it, else (and with -S, and at the
 * load's retries) at the syscalls tracepoints; an absent device nowhere.
 * The tracepoints, which put every syscall of every task on the slow
 * path, are attached (KT_IT_OTHER: not_device on every file) only when a
 * device needs them, no device is there, or -S. Computed once per attempt.
 */
void kt_ioctl_plan(const struct kt_record_opts *o, int attempt, __u8 at[KT_IT_NR]);

/*
 * The DRM nodes (card* and renderD*) of amdgpu and the test device, at
 * most @max into @nodes, their count returned; @desc (@len bytes, NULL
 * for none) gets "DRIVER MAJOR:MINOR, ...". Scanned once per run.
 */
struct kt_drm_node {
	__u32 dev;	/* the kernel's dev_t: major << 20 | minor */
	__u32 drv;	/* enum kt_drm_drv */
};

int kt_drm_nodes(struct kt_drm_node *nodes, int max, char *desc, size_t len);

/* before the probe checks, as record does: libbpf quiet without -v, tracefs mounted */
void kt_probe_setup(void);

/* the checks the plan is made of: the kernel's BTF (NULL: none), fentry, kprobes */
struct btf *kt_vmlinux_btf(void);
bool kt_fentry_can_attach(const char *fn);
bool kt_kprobes_supported(void);

#endif /* __KFDTRACE_PROBE_H */
