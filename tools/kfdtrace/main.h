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
	char **cmd;		/* the command after "--", NULL for none */
	int out_fd;		/* -o, opened before the run; -1 for none */
	FILE *events;		/* -w, opened before the run; NULL for none */
	/* hidden, for tests: the follow map's and the process table's sizes */
	unsigned int debug_follow_max;
	unsigned int debug_rows_max;
};

/*
 * The hidden options of record and check that shrink the probes' maps
 * (--debug-follow-max N, --debug-rows-max N), so that a test can make
 * them overflow and see the recording incomplete.
 */
enum { KT_OPT_DEBUG_FOLLOW_MAX = 0x200, KT_OPT_DEBUG_ROWS_MAX };
void kt_parse_debug(int key, const char *arg, struct argp_state *state,
		    struct kt_record_opts *o);

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

#endif /* __KFDTRACE_MAIN_H */
