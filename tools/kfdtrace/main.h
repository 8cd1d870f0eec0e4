/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kfdtrace's subcommands share: the options of a trace, the recording
 * itself (record.c) and the command line's helpers (main.c); what record
 * loads where is probe.h's.
 */
#ifndef __KFDTRACE_MAIN_H
#define __KFDTRACE_MAIN_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "report.h"

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

/* an argp option argument that must be a positive int */
int kt_parse_count(const char *arg, struct argp_state *state);

int do_record(int argc, char **argv);
int do_compare(int argc, char **argv);
int do_check(int argc, char **argv);
int do_report(int argc, char **argv);
int do_feature(int argc, char **argv);

#endif /* __KFDTRACE_MAIN_H */
