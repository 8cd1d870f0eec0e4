/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kfdtrace's subcommands share: the options of a trace, the recording
 * itself (record.c) and the command line's helpers (main.c).
 */
#ifndef __KFDTRACE_MAIN_H
#define __KFDTRACE_MAIN_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "report.h"

struct btf;

/* exit status of a usage error, a file that cannot be read, probes that do not load */
#define KT_EXIT_ERROR	2

extern bool kt_verbose;		/* -v: libbpf's messages, probe choices */

struct kt_record_opts {
	pid_t pid;		/* -p: this process and its forks */
	int duration;		/* -d: seconds, 0 for none */
	int interval;		/* -i: seconds between reports, 0 for none */
	bool probe_cost;	/* -C */
	const char *cgroup;	/* -c: a cgroup v2 directory, NULL for none */
	bool all_probes;	/* -a */
	bool syscalls;		/* -S: every ioctl at the syscalls tracepoints */
	bool cmd_only;		/* check: -d, -c, -a apply to -- CMD only */
	char **cmd;		/* the command after "--", NULL for none */
	int out_fd;		/* -o, opened before the run; -1 for none */
	FILE *events;		/* -w, opened before the run; NULL for none */
	/* hidden, for tests: the follow map's and the process table's sizes */
	unsigned int debug_follow_max;
	unsigned int debug_rows_max;
	/*
	 * hidden, for tests: the devices' ioctl entries taken by kprobes
	 * instead of fentry (KT_DEBUG_AT_KPROBE), taken as planned with the
	 * syscalls tracepoints too (KT_DEBUG_AT_BOTH: their skip of the
	 * devices' files), or taken for unattachable (KT_DEBUG_AT_NONE: the
	 * fallback where neither attaches)
	 */
	int debug_ioctl_at;
};

enum { KT_DEBUG_AT_PLAN, KT_DEBUG_AT_KPROBE, KT_DEBUG_AT_BOTH, KT_DEBUG_AT_NONE };

/*
 * The options of a trace that record and check share (recopts.c): -d,
 * -c, -a, the hidden --debug-follow-max N and --debug-rows-max N (a test
 * makes the probes' maps overflow), and -v, -h (kt_common_argp). An argp
 * child of both commands, whose input is their struct kt_record_opts
 * (state->child_inputs[0], set at ARGP_KEY_INIT).
 */
extern const struct argp kt_recopts_argp;
/* -v and -h: also kfdtrace's own, before the command */
extern const struct argp kt_common_argp;

/* the command after "--" (main.c cuts it off before the options are parsed) */
extern char **kt_cmd;

/*
 * Runs a trace: loads and attaches the probes, starts the command (or
 * follows -p's process, or the whole system), stops when it ends, at -d or
 * on SIGINT/SIGTERM (forwarded to the command), prints the report on
 * stdout and fills @r. Returns 0 or a negative errno (the reason printed).
 */
int kt_record(const struct kt_record_opts *o, struct kt_run *r);
void kt_run_free(struct kt_run *r);

/*
 * The probes' BPF programs as record loads them (record.c's table): each
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

/* before the probe checks, as record does: libbpf quiet without -v, tracefs mounted */
void kt_probe_setup(void);

/* the checks the plan is made of: the kernel's BTF (NULL: none), fentry, kprobes */
struct btf *kt_vmlinux_btf(void);
bool kt_fentry_can_attach(const char *fn);
bool kt_kprobes_supported(void);

/* an argp option argument that must be a positive int */
int kt_parse_count(const char *arg, struct argp_state *state);

int do_record(int argc, char **argv);
int do_compare(int argc, char **argv);
int do_check(int argc, char **argv);
int do_report(int argc, char **argv);
int do_feature(int argc, char **argv);

#endif /* __KFDTRACE_MAIN_H */
