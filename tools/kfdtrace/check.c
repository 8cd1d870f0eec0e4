// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace check: assertions for CI over a recording, or over a command
 * traced on the spot. Each --expect is PATH OP VALUE; one fails when it
 * does not hold, when PATH is not there, or when PATH is counted by a probe
 * group that was not live in the recording (its 0 means "not looked at",
 * not "none happened"). With -- CMD, CMD must also have started and exited
 * with status 0 (--ignore-status drops the status).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "main.h"

/*
 * 1 when @expr does not hold (printed), 0 when it does, -EINVAL if it is
 * malformed; without @doc, only the syntax is checked.
 */
static int check_one(json_t *doc, const char *expr)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">" };
	const char *p = expr, *val, *s = NULL;
	char path[128], *end;
	double want = 0, num = 0;
	size_t len;
	json_t *f;
	int op, group;
	bool ok;

	while (*p == ' ')
		p++;
	len = strcspn(p, " =!<>");
	if (!len || len >= sizeof(path))
		return -EINVAL;
	memcpy(path, p, len);
	path[len] = 0;
	p += len;
	while (*p == ' ')
		p++;
	for (op = 0; op < 6; op++)
		if (!strncmp(p, ops[op], strlen(ops[op])))
			break;
	if (op == 6)
		return -EINVAL;
	p += strlen(ops[op]);
	while (*p == ' ')
		p++;
	val = p;
	if (!*val)
		return -EINVAL;
	if (*val == '"') {
		len = strlen(val);
		if (len < 2 || val[len - 1] != '"' || op > 1)
			return -EINVAL;
	} else {
		want = strtod(val, &end);
		while (*end == ' ')
			end++;
		if (end == val || *end)
			return -EINVAL;
	}
	if (!doc)
		return 0;

	f = kt_doc_get(doc, path);
	if (!f || json_is_null(f)) {
		printf("FAIL %s: no field \"%s\"\n", expr, path);
		return 1;
	}
	if (!kt_field_live(doc, path, &group)) {
		printf("FAIL %s: probe group %s was not live in this run (probes.%s = 0)\n",
		       expr, kt_group_names[group], kt_group_names[group]);
		return 1;
	}
	if (json_is_string(f)) {
		s = json_string_value(f);
	} else if (json_is_number(f) || json_is_boolean(f)) {
		num = json_is_number(f) ? json_number_value(f) : json_is_true(f);
	} else {
		printf("FAIL %s: %s is not a number or a string\n", expr, path);
		return 1;
	}
	if (*val == '"') {
		len = strlen(val);
		ok = s && strlen(s) == len - 2 && !strncmp(s, val + 1, len - 2);
		if (op == 1)
			ok = !ok;
	} else {
		if (s) {
			printf("FAIL %s: %s is a string (\"%s\")\n", expr, path, s);
			return 1;
		}
		if (op == 0)
			ok = num == want;
		else if (op == 1)
			ok = num != want;
		else if (op == 2)
			ok = num <= want;
		else if (op == 3)
			ok = num >= want;
		else if (op == 4)
			ok = num < want;
		else
			ok = num > want;
	}
	if (s)
		printf("%s %s (%s = \"%s\")\n", ok ? "ok  " : "FAIL", expr, path, s);
	else
		printf("%s %s (%s = %.10g)\n", ok ? "ok  " : "FAIL", expr, path, num);
	return ok ? 0 : 1;
}

/* -- CMD: 1 (printed) when it did not start or did not exit with 0 */
static int check_status(const struct kt_run *r, bool ignore_status)
{
	if (r->exec_errno) {
		printf("FAIL the command did not start: %s: %s\n", kt_cmd[0],
		       strerror(r->exec_errno));
		return 1;
	}
	if (ignore_status || !r->status)
		return 0;
	if (r->signal)
		printf("FAIL the command was killed by signal %d (%s), status %d%s\n",
		       r->signal, strsignal(r->signal), r->status,
		       " (--ignore-status to accept)");
	else
		printf("FAIL the command exited with status %d (--ignore-status to accept)\n",
		       r->status);
	return 1;
}

static const char check_doc[] =
"Check assertions over a recording (FILE: record's JSON, or record -w's events,\n"
"replayed) or over CMD, traced on the spot.\n"
"\n"
"EXPR is PATH OP VALUE: PATH a field of the JSON (nested keys joined by '.',\n"
"array elements by their index), OP one of == != < <= > >=, VALUE a number or\n"
"a \"string\" (== and != only). An EXPR fails when it does not hold, when PATH\n"
"is not there, and when PATH is counted by a probe group that was not live in\n"
"the run (probes.GROUP = 0: hmm.*, notifier.*, the helper's batch.*,\n"
"refault.*, invalidate.*, restore.*, evict.ranges, the device's emu.*,\n"
"evict.emu, restore.emu, amdgpu's evict.amdgpu, restore.amdgpu_*).\n"
"\n"
"With -- CMD, CMD must start and exit with status 0, else check fails (a CMD\n"
"that cannot be started fails even with --ignore-status).\n"
"\n"
"A recording whose probes lost map updates or events (lost.total > 0) is\n"
"incomplete: check says INCOMPLETE and exits 1 without judging the EXPRs.\n"
"\n"
"check exits 0 when everything holds, 1 when something does not (each EXPR is\n"
"printed with the value seen) or the recording is incomplete, 2 on a usage\n"
"error, a file that cannot be read or probes that do not load.\n"
"\n"
"Examples:\n"
"  kfdtrace check --expect 'ioctl.batch_alloc == 1' \\\n"
"                 --expect 'ranges.registered >= 4096' batch.json\n"
"  kfdtrace check --expect 'verdict.eviction == \"pass\"' -- ./workload\n";

enum { OPT_IGNORE_STATUS = 0x100 };

static const struct argp_option check_opts[] = {
	{ "expect", 'e', "EXPR", 0, "An assertion (repeatable)" },
	{ "ignore-status", OPT_IGNORE_STATUS, NULL, 0,
	  "-- CMD: do not fail when CMD exits non-zero or is killed" },
	{},
};

/* -d, -c, -a, -v, -h: shared with record (recopts.c), for -- CMD */
static const struct argp_child check_children[] = {
	{ &kt_recopts_argp },
	{},
};

struct check_args {
	struct kt_record_opts o;
	const char **expect;
	int nexpect;
	const char *file;
	bool ignore_status;
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct check_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->o;
		break;
	case 'e':
		a->expect = realloc(a->expect, (a->nexpect + 1) * sizeof(*a->expect));
		if (!a->expect)
			argp_failure(state, KT_EXIT_ERROR, ENOMEM, "--expect");
		a->expect[a->nexpect++] = arg;
		break;
	case OPT_IGNORE_STATUS:
		a->ignore_status = true;
		break;
	case ARGP_KEY_ARG:
		if (a->file || a->o.cmd)
			argp_error(state, "FILE (JSON or EVENTS) or -- CMD, not both");
		a->file = arg;
		break;
	case ARGP_KEY_END:
		if (!a->file && !a->o.cmd)
			argp_error(state, "no FILE (JSON or EVENTS) and no -- CMD");
		if (!a->nexpect)
			argp_error(state, "no --expect");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int do_check(int argc, char **argv)
{
	static const struct argp argp = {
		check_opts, check_parse,
		"--expect EXPR... (FILE.json | EVENTS | -- CMD [ARGS...])", check_doc,
		check_children,
	};
	struct check_args a = {
		.o = { .out_fd = -1, .cmd = kt_cmd, .cmd_only = true },
	};
	int i, ret = 0, failed = 0;
	struct kt_run r = {};
	char err[256];
	__u64 lost;
	json_t *doc;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return KT_EXIT_ERROR;
	/* a malformed EXPR is a usage error, found before any trace */
	for (i = 0; i < a.nexpect; i++) {
		if (check_one(NULL, a.expect[i]) < 0) {
			fprintf(stderr, "kfdtrace check: cannot parse \"%s\" (PATH OP VALUE)\n",
				a.expect[i]);
			free(a.expect);
			return KT_EXIT_ERROR;
		}
	}
	if (a.file && kt_evfile_is(a.file)) {
		/* record -w's events: replayed as report does */
		err[0] = 0;
		doc = NULL;
		if (kt_evfile_replay(a.file, &r, err, sizeof(err)))
			fprintf(stderr, "kfdtrace check: %s\n", err);
		else
			doc = kt_report_json(&r);
		if (!doc && !err[0])
			fprintf(stderr, "kfdtrace check: out of memory\n");
	} else if (a.file) {
		doc = kt_doc_load(a.file, err, sizeof(err));
		if (!doc)
			fprintf(stderr, "kfdtrace check: %s\n", err);
	} else {
		ret = kt_record(&a.o, &r);
		doc = ret ? NULL : kt_report_json(&r);
		if (!ret && !doc)
			fprintf(stderr, "kfdtrace check: out of memory\n");
	}
	if (!doc) {
		kt_run_free(&r);
		free(a.expect);
		return KT_EXIT_ERROR;
	}
	lost = kt_doc_lost(doc);
	if (lost) {
		/* partial data: no assertion holds or fails on it */
		printf("%s%llu%s\n", "INCOMPLETE: the recording lost ", (unsigned long long)lost,
		       " updates or events (lost.total), the assertions are not judged:");
		for (i = 0; i < a.nexpect; i++)
			printf("  %s\n", a.expect[i]);
		failed = 1;
	}
	for (i = 0; !lost && i < a.nexpect; i++)
		failed += check_one(doc, a.expect[i]);
	if (!a.file)
		failed += check_status(&r, a.ignore_status);
	json_decref(doc);
	kt_run_free(&r);
	free(a.expect);
	return failed ? 1 : 0;
}
