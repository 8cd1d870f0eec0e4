// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace compare: two recordings side by side, then the two numbers a
 * batch registration is for: registration syscalls per registered range
 * and the time in registration ioctls, base against new. With --threshold
 * PCT it gates CI: it exits 1 when either grew by more than PCT percent.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"

/* one column of the table: the value, or "off"; returns it (NAN if off) */
static double print_cell(json_t *d, const char *key)
{
	double v;

	if (!kt_field_live(d, key, NULL)) {
		printf("%16s ", "off");
		return NAN;
	}
	v = kt_doc_num(d, key);
	printf("%16.6g ", v);
	return v;
}

/*
 * "4096x fewer", "2.50x more", "the same": how @b compares with @a, in the
 * words @less and @more, the larger over the smaller.
 */
static const char *change_words(double a, double b, const char *less, const char *more,
				char *buf, size_t len)
{
	double r;

	if (a == b)
		return "the same";
	r = a > b ? a / b : b / a;
	snprintf(buf, len, r >= 10 ? "%.0fx %s" : "%.2fx %s", r, a > b ? less : more);
	return buf;
}

/*
 * registration ioctls per registered range, as ranges.ioctls_per_range:
 * the takeovers too (the render-node route's second ioctl, amdkfd's batch
 * included: 2/N); NAN when none was registered
 */
static double per_range(json_t *d)
{
	double n = kt_doc_num(d, "ranges.registered");
	double takeover = kt_doc_num(d, "ioctl.takeover");

	if (!(n > 0))
		return NAN;
	/* (a recording from before the render node has no takeover) */
	if (isnan(takeover))
		takeover = 0;
	return (kt_doc_num(d, "ioctl.userptr_alloc") + kt_doc_num(d, "ioctl.batch_alloc") +
		takeover) / n;
}

/* 1 (printed) when @b is more than @pct percent above @a */
static int regressed(const char *what, double a, double b, double pct)
{
	double change = a > 0 ? (b - a) / a * 100 : (b > 0 ? INFINITY : 0);

	if (change <= pct)
		return 0;
	printf("REGRESSION %s: %+.1f%% (threshold %g%%)\n", what, change, pct);
	return 1;
}

/* where @d counted its ioctls, in words: "kfd fentry, emu none, other_files none" */
static const char *counted_at(json_t *d)
{
	static char buf[2][96];
	static int n;
	static const char *const t[] = { "kfd", "emu", "other_files" };
	char *b = buf[n++ % 2], key[48];
	size_t len = 0;
	unsigned int i;
	json_t *v;

	b[0] = 0;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		snprintf(key, sizeof(key), "ioctl.counted_at.%s", t[i]);
		v = kt_doc_get(d, key);
		len += snprintf(b + len, sizeof(buf[0]) - len, "%s%s %s", i ? ", " : "", t[i],
				json_is_string(v) ? json_string_value(v) : "syscall");
		if (len >= sizeof(buf[0]))
			break;
	}
	return b;
}

/*
 * whether @a and @b counted at different places: other files (absent:
 * the tracepoints), or a device both name
 */
static bool counted_differently(json_t *a, json_t *b)
{
	static const char *const keys[] = { "ioctl.counted_at.kfd", "ioctl.counted_at.emu" };
	json_t *x = kt_doc_get(a, "ioctl.counted_at.other_files");
	json_t *y = kt_doc_get(b, "ioctl.counted_at.other_files");
	unsigned int i;

	if (strcmp(json_is_string(x) ? json_string_value(x) : "syscall",
		   json_is_string(y) ? json_string_value(y) : "syscall"))
		return true;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		x = kt_doc_get(a, keys[i]);
		y = kt_doc_get(b, keys[i]);
		if (json_is_string(x) && json_is_string(y) &&
		    strcmp(json_string_value(x), json_string_value(y)))
			return true;
	}
	return false;
}

static int compare_runs(json_t *da, json_t *db, double threshold)
{
	static const char *const keys[] = {
		"ranges.registered", "ioctl.userptr_alloc", "ioctl.batch_alloc",
		"ioctl.takeover", "ranges.ioctls_per_range", "ioctl.total", "ioctl.errors",
		"ioctl.not_device.calls", "ioctl.counted_at.kfd", "ioctl.counted_at.emu",
		"ioctl.counted_at.other_files", "ranges.registration_ms", "hmm.calls", "restore.faulted", "refault.ranges",
		"refault.p99_us", "notifier.insert",
		"invalidate.total", "evict.emu", "evict.amdgpu",
		"restore.evict_to_restore_p50_us", "restore.evict_to_restore_p99_us",
		"verdict.eviction", "verdict.violations", "seconds",
	};
	double pa, pb, ra, rb;
	char buf[64];
	unsigned int i;
	int bad = 0;

	printf("%-32s %16s %16s %10s\n", "", "BASE", "NEW", "BASE/NEW");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		json_t *x = kt_doc_get(da, keys[i]), *y = kt_doc_get(db, keys[i]);
		double vx, vy;

		if (json_is_string(x) || json_is_string(y)) {
			printf("%-32s %16s %16s %10s\n", keys[i],
			       json_is_string(x) ? json_string_value(x) : "-",
			       json_is_string(y) ? json_string_value(y) : "-", "-");
			continue;
		}
		printf("%-32s ", keys[i]);
		vx = print_cell(da, keys[i]);
		vy = print_cell(db, keys[i]);
		if (vy != 0 && !isnan(vx) && !isnan(vy))
			printf("%10.2f\n", vx / vy);
		else
			printf("%10s\n", "-");
	}
	/*
	 * Calls counted at a driver's entry and at the syscalls tracepoints
	 * are the same calls, but not_device and the times are not the same
	 * numbers: say so (a recording without counted_at counted at the
	 * tracepoints)
	 */
	if (counted_differently(da, db))
		printf("note: BASE and NEW counted the ioctls at different places (%s; %s): %s\n",
		       counted_at(da), counted_at(db),
		       "not_device on other files and the time in the calls differ in meaning");
	/* the two numbers the comparison is for, from the counts */
	pa = per_range(da);
	pb = per_range(db);
	ra = kt_doc_num(da, "ranges.registration_ms");
	rb = kt_doc_num(db, "ranges.registration_ms");
	/* (no range registered: no ratio, rather than inf and nan) */
	if (pa > 0 && pb > 0)
		printf("registration syscalls per range: %.6g -> %.6g (%s)\n", pa, pb,
		       change_words(pa, pb, "fewer", "more", buf, sizeof(buf)));
	if (ra > 0 && rb > 0)
		printf("time in registration ioctls: %.1f ms -> %.1f ms (%s)\n", ra, rb,
		       change_words(ra, rb, "less", "more", buf, sizeof(buf)));
	if (isnan(threshold))
		return 0;
	if (!(pa > 0)) {
		fprintf(stderr, "kfdtrace compare: BASE registered no range: nothing to gate on\n");
		return KT_EXIT_ERROR;
	}
	if (!(pb > 0)) {
		printf("REGRESSION NEW registered no range (BASE %.0f)\n",
		       kt_doc_num(da, "ranges.registered"));
		return 1;
	}
	bad |= regressed("registration syscalls per range", pa, pb, threshold);
	bad |= regressed("time in registration ioctls", ra, rb, threshold);
	return bad;
}

static const char compare_doc[] =
"Compare two recordings: a table of the main fields, BASE beside NEW with\n"
"their ratio (a field of a probe group that was not live in a run reads\n"
"\"off\"), then registration syscalls per registered range and the time in\n"
"registration ioctls, BASE -> NEW.\n"
"\n"
"With --threshold PCT, compare exits 1 when NEW regresses: when either of\n"
"those two numbers is more than PCT percent above BASE's, or NEW registered\n"
"no range (each printed as a REGRESSION line); 2 when BASE registered none.\n"
"Without it, compare exits 0. Both exit 2 on a usage error or a file that\n"
"cannot be read.\n"
"\n"
"Example:\n"
"  kfdtrace compare --threshold 10 main.json pr.json\n";

static const struct argp_option compare_opts[] = {
	{ "threshold", 't', "PCT", 0,
	  "Exit 1 when NEW regresses by more than PCT% (see above)" },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show this help" },
	{},
};

struct compare_args {
	const char *file[2];
	int nfiles;
	double threshold;
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;
	char *end;

	switch (key) {
	case 't':
		errno = 0;
		a->threshold = strtod(arg, &end);
		if (errno || end == arg || *end || !(a->threshold >= 0) || isinf(a->threshold))
			argp_error(state, "--threshold %s: not a percentage >= 0", arg);
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (a->nfiles == 2)
			argp_error(state, "two files: BASE.json NEW.json");
		a->file[a->nfiles++] = arg;
		break;
	case ARGP_KEY_END:
		if (a->nfiles != 2)
			argp_error(state, "two files: BASE.json NEW.json");
		if (kt_cmd)
			argp_error(state, "no command (--) to compare");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int do_compare(int argc, char **argv)
{
	static const struct argp argp = {
		compare_opts, compare_parse, "BASE.json NEW.json", compare_doc,
	};
	struct compare_args a = { .threshold = NAN };
	json_t *da, *db;
	char err[256];
	int ret;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return KT_EXIT_ERROR;
	da = kt_doc_load(a.file[0], err, sizeof(err));
	if (!da) {
		fprintf(stderr, "kfdtrace compare: %s\n", err);
		return KT_EXIT_ERROR;
	}
	db = kt_doc_load(a.file[1], err, sizeof(err));
	if (!db) {
		fprintf(stderr, "kfdtrace compare: %s\n", err);
		json_decref(da);
		return KT_EXIT_ERROR;
	}
	ret = compare_runs(da, db, a.threshold);
	json_decref(da);
	json_decref(db);
	return ret;
}
