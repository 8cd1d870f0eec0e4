// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace: how many ioctls a GPU memory workload makes to register its
 * userptr ranges, batch vs one range per call, and what the kernel did for
 * them (HMM faults, notifiers, invalidations, evictions, restores, the
 * eviction verdict). Shaped like bpftool: this file parses the global
 * options and dispatches; each subcommand has its file and its options,
 * and recopts.c parses the ones record and check share.
 *
 *   kfdtrace record [OPTIONS] [-- CMD...]       record.c
 *   kfdtrace compare [OPTIONS] BASE.json NEW.json  compare.c
 *   kfdtrace check [OPTIONS] --expect EXPR... (FILE | -- CMD...)  check.c
 *   kfdtrace report [-o FILE.json] EVENTS        replay.c
 *   kfdtrace feature [-a] [-j]                   feature.c
 *
 * report.c writes a recording (text and JSON), doc.c reads the JSON back,
 * verdict.c judges the eviction events, events.c writes and replays
 * record -w's events file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"

bool kt_verbose;
char **kt_cmd;

/* the packages' version, from the Makefile */
const char *argp_program_version = "kfdtrace " KT_VERSION;

int kt_parse_count(const char *arg, struct argp_state *state)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > 0x7fffffff)
		argp_error(state, "%s is not a positive number", arg);
	return (int)v;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *prog;	/* argv[0] the subcommand's argp names in its messages */
} cmds[] = {
	{ "record", do_record, "kfdtrace record" },
	{ "compare", do_compare, "kfdtrace compare" },
	{ "check", do_check, "kfdtrace check" },
	{ "report", do_report, "kfdtrace report" },
	{ "feature", do_feature, "kfdtrace feature" },
};

static const char doc[] =
"Trace userptr registration ioctls of amdkfd and the emulated device.\n"
"\n"
"Commands:\n"
"  record   trace a command (after --), a process (-p) or the system; report\n"
"  compare  two recordings side by side; --threshold gates a regression\n"
"  check    assertions over a recording, or over a command traced on the spot\n"
"  report   the report of record -w's events file, replayed anywhere\n"
"  feature  what this machine lets kfdtrace trace: each probe group live or\n"
"           not and why, privileges, BTF, the devices, cgroup v2 (-j: JSON)\n"
"\n"
"kfdtrace COMMAND -h shows a command's options. kfdtrace(8), made from\n"
"docs/kfdtrace.md, lists the JSON's fields.\n";

/* -v and -h, as record's and check's (recopts.c) */
static const struct argp_child children[] = {
	{ &kt_common_argp },
	{},
};

struct main_args {
	int cmd_index;		/* argv index of the command, 0 before it */
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct main_args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		/* the command: the rest of the line is its own */
		a->cmd_index = state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->cmd_index)
			argp_error(state, "no command (record, compare, check, report, feature)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		NULL, parse_arg, "COMMAND [ARGS...]", doc, children,
	};
	struct main_args a = {};
	unsigned int c;
	int i;

	/* everything after "--" is the command to trace, untouched by argp */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			kt_cmd = &argv[i + 1];
			if (!*kt_cmd) {
				fprintf(stderr, "kfdtrace: no command after --\n");
				return KT_EXIT_ERROR;
			}
			argv[i] = NULL;
			argc = i;
			break;
		}
	}
	argp_err_exit_status = KT_EXIT_ERROR;
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return KT_EXIT_ERROR;
	for (c = 0; c < ARRAY_SIZE(cmds); c++) {
		if (strcmp(argv[a.cmd_index], cmds[c].name))
			continue;
		argv[a.cmd_index] = (char *)cmds[c].prog;
		return cmds[c].fn(argc - a.cmd_index, argv + a.cmd_index);
	}
	fprintf(stderr, "kfdtrace: unknown command \"%s\" (%s)\n", argv[a.cmd_index],
		"record, compare, check, report, feature");
	return KT_EXIT_ERROR;
}
