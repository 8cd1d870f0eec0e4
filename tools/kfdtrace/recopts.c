// SPDX-License-Identifier: GPL-2.0
/*
 * The options of a trace that record and check share, parsed in one
 * place: an argp child of both commands that fills their struct
 * kt_record_opts. An option added here is an option of both. -v and -h
 * are a child of their own, which kfdtrace's line (main.c) takes too.
 */
#include <stdlib.h>
#include <string.h>

#include "main.h"

static const struct argp_option common_opts[] = {
	{ "verbose", 'v', NULL, 0,
	  "Show libbpf's messages and the probes' choices" },
	/* hidden: argp lists its own -? and --help */
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show this help" },
	{},
};

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'v':
		kt_verbose = true;
		break;
	case 'h':
		/* the root argp's help: the command's, or kfdtrace's */
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp kt_common_argp = { common_opts, common_parse };

/* hidden, for tests: shrink the probes' maps so that they overflow */
enum { OPT_DEBUG_FOLLOW_MAX = 0x200, OPT_DEBUG_ROWS_MAX, OPT_DEBUG_IOCTL_AT };

static const struct argp_option recopts[] = {
	{ "duration", 'd', "SECONDS", 0,
	  "Stop after SECONDS (CMD is sent SIGTERM)" },
	{ "cgroup", 'c', "PATH", 0,
	  "Trace only tasks in the cgroup v2 at PATH and below it" },
	{ "all-probes", 'a', NULL, 0,
	  "Probe hmm_range_fault and the notifiers even where the helper's tracepoints are" },
	{ "syscalls", 'S', NULL, 0,
	  "Count every ioctl at the syscalls tracepoints (not_device on every file; slows every syscall on the machine)" },
	{ "debug-follow-max", OPT_DEBUG_FOLLOW_MAX, "N", OPTION_HIDDEN,
	  "Follow at most N processes at a time (tests)" },
	{ "debug-rows-max", OPT_DEBUG_ROWS_MAX, "N", OPTION_HIDDEN,
	  "Keep at most N rows of processes and classes (tests)" },
	{ "debug-ioctl-at", OPT_DEBUG_IOCTL_AT, "kprobe|both|none", OPTION_HIDDEN,
	  "The devices' ioctl entries by kprobe, with the syscalls tracepoints too, or not at all (tests)" },
	{},
};

/* check's words for them: there they act on -- CMD only, not on FILE */
static const struct {
	int key;
	const char *doc;
} cmd_only_docs[] = {
	{ 'd', "-- CMD: stop after SECONDS (CMD is sent SIGTERM)" },
	{ 'c', "-- CMD: trace only tasks in the cgroup v2 at PATH and below it" },
	{ 'a', "-- CMD: probe HMM and the notifiers even where the helper's tracepoints are" },
	{ 'S', "-- CMD: count every ioctl at the syscalls tracepoints, as record -S" },
};

static char *recopts_help(int key, const char *text, void *input)
{
	const struct kt_record_opts *o = input;
	unsigned int i;

	if (!o || !o->cmd_only)
		return (char *)text;
	/* a text other than @text is argp's to free */
	for (i = 0; i < ARRAY_SIZE(cmd_only_docs); i++)
		if (cmd_only_docs[i].key == key)
			return strdup(cmd_only_docs[i].doc);
	return (char *)text;
}

static error_t recopts_parse(int key, char *arg, struct argp_state *state)
{
	struct kt_record_opts *o = state->input;

	switch (key) {
	case 'd':
		o->duration = kt_parse_count(arg, state);
		break;
	case 'c':
		o->cgroup = arg;
		break;
	case 'a':
		o->all_probes = true;
		break;
	case 'S':
		o->syscalls = true;
		break;
	case OPT_DEBUG_FOLLOW_MAX:
		o->debug_follow_max = kt_parse_count(arg, state);
		break;
	case OPT_DEBUG_ROWS_MAX:
		o->debug_rows_max = kt_parse_count(arg, state);
		break;
	case OPT_DEBUG_IOCTL_AT:
		if (!strcmp(arg, "kprobe"))
			o->debug_ioctl_at = KT_DEBUG_AT_KPROBE;
		else if (!strcmp(arg, "both"))
			o->debug_ioctl_at = KT_DEBUG_AT_BOTH;
		else if (!strcmp(arg, "none"))
			o->debug_ioctl_at = KT_DEBUG_AT_NONE;
		else
			argp_error(state, "--debug-ioctl-at: \"%s\" is not kprobe, both or none", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child recopts_children[] = {
	{ &kt_common_argp },
	{},
};

const struct argp kt_recopts_argp = {
	recopts, recopts_parse, NULL, NULL, recopts_children, recopts_help,
};
