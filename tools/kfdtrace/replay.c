// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace report: a recording's events file (record -w), replayed through
 * the same verdict and report code as the live run, anywhere, as perf
 * report reads perf record's file: the same report, and with -o the same
 * JSON, as record printed and wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "main.h"

static const char report_doc[] =
"Report a recording from its events file (kfdtrace record -w EVENTS): replay\n"
"its events through the eviction verdict and print the report that record\n"
"printed, on any machine (no BPF, no root).\n"
"\n"
"report exits 0 when the file was read (whatever the verdict: kfdtrace check\n"
"judges it), 2 when it cannot be: not an events file, another version or\n"
"event layout, truncated or corrupt.\n"
"\n"
"Examples:\n"
"  kfdtrace record -w run.events -- ./workload\n"
"  kfdtrace report -o run.json run.events\n";

static const struct argp_option report_opts[] = {
	{ "output", 'o', "FILE", 0, "Write the results as JSON to FILE" },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show this help" },
	{},
};

struct report_args {
	const char *file, *out;
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;

	switch (key) {
	case 'o':
		a->out = arg;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "one EVENTS file");
		a->file = arg;
		break;
	case ARGP_KEY_END:
		if (!a->file)
			argp_error(state, "no EVENTS file");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int do_report(int argc, char **argv)
{
	static const struct argp argp = { report_opts, report_parse, "EVENTS", report_doc };
	struct report_args a = {};
	struct kt_run r;
	char err[256];
	int fd, ret = 0;

	if (kt_cmd) {
		fprintf(stderr, "kfdtrace report: reads an EVENTS file, runs no command\n");
		return KT_EXIT_ERROR;
	}
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return KT_EXIT_ERROR;
	if (kt_evfile_replay(a.file, &r, err, sizeof(err))) {
		fprintf(stderr, "kfdtrace report: %s\n", err);
		kt_run_free(&r);
		return KT_EXIT_ERROR;
	}
	kt_report_print(stdout, &r);
	fflush(stdout);
	if (kt_run_lost(&r))
		fprintf(stderr,
			"kfdtrace: INCOMPLETE: the probes lost %llu updates or events (lost.* in the report)\n",
			(unsigned long long)kt_run_lost(&r));
	if (a.out) {
		fd = open(a.out, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		ret = fd < 0 ? -errno : kt_report_write(fd, &r);
		if (fd >= 0 && close(fd) && !ret)
			ret = -errno;
		if (ret)
			fprintf(stderr, "kfdtrace report: %s: %s\n", a.out, strerror(-ret));
	}
	kt_run_free(&r);
	return ret ? KT_EXIT_ERROR : 0;
}
