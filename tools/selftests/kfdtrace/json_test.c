// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace's JSON, without BPF: the reader (jansson) and its dotted paths,
 * each kind of error, nesting too deep for a recursive parser, the UTF-8
 * fix-up of task names, the probe group of each field, and the writer's
 * schema (every key the guest tests and docs/kfdtrace.md name), and
 * record -w's events file written and replayed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../kfdtrace/doc.h"
#include "../../kfdtrace/events.h"
#include "../../kfdtrace/report.h"
#include "kselftest_harness.h"

static char err[256];

TEST(paths_into_objects_and_arrays)
{
	static const char text[] =
		"{\"a\":{\"b\":1.5,\"c\":[10,{\"d\":\"x\\\"y\"}]},\"e\":{},\"t\":true,\"n\":null}";
	json_t *doc = kt_doc_parse(text, err, sizeof(err));

	ASSERT_NE(NULL, doc) TH_LOG("%s", err);
	EXPECT_EQ(1.5, kt_doc_num(doc, "a.b"));
	EXPECT_EQ(10, kt_doc_num(doc, "a.c.0"));
	ASSERT_TRUE(json_is_string(kt_doc_get(doc, "a.c.1.d")));
	EXPECT_STREQ("x\"y", json_string_value(kt_doc_get(doc, "a.c.1.d")));
	EXPECT_EQ(1, kt_doc_num(doc, "t"));
	EXPECT_TRUE(json_is_null(kt_doc_get(doc, "n")));
	EXPECT_TRUE(json_is_object(kt_doc_get(doc, "e")));
	/* what is not there */
	EXPECT_EQ(NULL, kt_doc_get(doc, "a.x"));
	EXPECT_EQ(NULL, kt_doc_get(doc, "a.c.2"));
	EXPECT_EQ(NULL, kt_doc_get(doc, "a.c.x"));
	EXPECT_EQ(NULL, kt_doc_get(doc, "a.c.-1"));
	EXPECT_EQ(NULL, kt_doc_get(doc, "a.b.c"));
	EXPECT_EQ(NULL, kt_doc_get(doc, "a..b"));
	EXPECT_EQ(NULL, kt_doc_get(doc, ""));
	EXPECT_TRUE(isnan(kt_doc_num(doc, "a.c.1.d")));
	json_decref(doc);
}

TEST(escapes)
{
	json_t *doc = kt_doc_parse("{\"s\": \"a\\nb\\u0041\\\\\\u00e9\"}", err, sizeof(err));

	ASSERT_NE(NULL, doc) TH_LOG("%s", err);
	EXPECT_STREQ("a\nbA\\\xc3\xa9", json_string_value(kt_doc_get(doc, "s")));
	json_decref(doc);
}

TEST(errors)
{
	static const char *const bad[] = {
		"{", "{\"a\" 1}", "{\"a\": 1,}", "[1 2]", "{\"a\": \"x}", "{\"a\": \"\\q\"}",
		"{\"a\": nope}", "{} x", "{\"a\": 1]", "[1, ", "",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = 0;
		EXPECT_EQ(NULL, kt_doc_parse(bad[i], err, sizeof(err))) TH_LOG("%s", bad[i]);
		EXPECT_NE(0, err[0]) TH_LOG("no message for %s", bad[i]);
	}
	err[0] = 0;
	EXPECT_EQ(NULL, kt_doc_load("/nonexistent/x.json", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/x.json")) TH_LOG("%s", err);
}

/*
 * A million nested arrays: a parser that recurses once a level (the one
 * before jansson) runs out of stack and the process dies; jansson stops at
 * its depth limit with an error. Nesting under the limit still parses.
 */
TEST(deep_nesting_is_an_error_not_a_crash)
{
	size_t n = 1000000, i;
	char *text = malloc(2 * n + 1);
	json_t *doc;

	ASSERT_NE(NULL, text);
	for (i = 0; i < n; i++) {
		text[i] = '[';
		text[2 * n - 1 - i] = ']';
	}
	text[2 * n] = 0;
	err[0] = 0;
	doc = kt_doc_parse(text, err, sizeof(err));
	EXPECT_EQ(NULL, doc);
	EXPECT_NE(NULL, strstr(err, "depth")) TH_LOG("%s", err);
	json_decref(doc);

	/* 1000 levels: well under the limit */
	n = 1000;
	for (i = 0; i < n; i++) {
		text[i] = '[';
		text[2 * n - 1 - i] = ']';
	}
	text[2 * n] = 0;
	doc = kt_doc_parse(text, err, sizeof(err));
	EXPECT_NE(NULL, doc) TH_LOG("%s", err);
	json_decref(doc);
	free(text);
}

/* task names are bytes: what is not UTF-8 becomes \xNN, the rest stays */
TEST(names_that_are_not_utf8_are_escaped)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "ioctl_mix", "ioctl_mix" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },			/* é */
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\xe2\x82\xac\xf0\x9f\x98\x80" },
		{ "mix\xff", "mix\\xff" },
		{ "a\xe2\x82", "a\\xe2\\x82" },			/* a euro sign cut short */
		{ "\xc0\xaf", "\\xc0\\xaf" },				/* overlong '/' */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },			/* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },		/* above U+10FFFF */
		{ "\x80x", "\\x80x" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s = kt_utf8_escape(cases[i].in, strlen(cases[i].in));
		json_t *js;

		ASSERT_NE(NULL, s);
		EXPECT_STREQ(cases[i].out, s);
		/* and jansson takes it as a string */
		js = json_string(s);
		EXPECT_NE(NULL, js) TH_LOG("case %u", i);
		json_decref(js);
		free(s);
	}
}

TEST(probe_group_of_each_field)
{
	static const char text[] =
		"{\"probes\": {\"ioctl\": 1, \"hmm\": 0, \"emu\": 1, \"helper\": 0}}";
	json_t *doc = kt_doc_parse(text, err, sizeof(err));
	int g;

	ASSERT_NE(NULL, doc) TH_LOG("%s", err);
	EXPECT_EQ(KT_G_HMM, kt_field_group("hmm.errors"));
	EXPECT_EQ(KT_G_NOTIFIER, kt_field_group("notifier.insert"));
	EXPECT_EQ(KT_G_HELPER, kt_field_group("invalidate.gap"));
	EXPECT_EQ(KT_G_HELPER, kt_field_group("restore.windows"));
	EXPECT_EQ(KT_G_HELPER, kt_field_group("evict.ranges"));
	EXPECT_EQ(KT_G_EMU, kt_field_group("evict.emu"));
	EXPECT_EQ(KT_G_EMU, kt_field_group("restore.emu"));
	EXPECT_EQ(KT_G_EMU, kt_field_group("emu.evicts"));
	EXPECT_EQ(KT_G_AMDGPU, kt_field_group("restore.amdgpu_works"));
	EXPECT_EQ(KT_G_AMDGPU, kt_field_group("evict.amdgpu"));
	EXPECT_EQ(KT_G_IOCTL, kt_field_group("ioctl.gem_batch.calls"));
	EXPECT_EQ(KT_G_IOCTL, kt_field_group("ioctl.takeover"));
	EXPECT_EQ(KT_G_IOCTL, kt_field_group("ranges.ioctls_per_range"));
	EXPECT_EQ(-1, kt_field_group("verdict.eviction"));
	EXPECT_EQ(-1, kt_field_group("status"));
	EXPECT_EQ(-1, kt_field_group("probes.hmm"));
	EXPECT_EQ(-1, kt_field_group("evict.emulated"));

	EXPECT_FALSE(kt_field_live(doc, "hmm.errors", &g));
	EXPECT_EQ(KT_G_HMM, g);
	EXPECT_FALSE(kt_field_live(doc, "restore.windows", &g));
	EXPECT_TRUE(kt_field_live(doc, "restore.emu", &g));
	EXPECT_TRUE(kt_field_live(doc, "ioctl.total", &g));
	EXPECT_TRUE(kt_field_live(doc, "probes.hmm", &g));
	EXPECT_EQ(-1, g);
	/* a recording that does not say is taken as live */
	EXPECT_TRUE(kt_field_live(doc, "notifier.insert", &g));
	json_decref(doc);
}

/* every key the JSON had before jansson wrote it, and the new ones */
TEST(writer_keeps_the_schema)
{
	static const char *const keys[] = {
		"kfdtrace", "seconds", "status", "signal", "stop",
		"probes.ioctl", "probes.hmm", "probes.notifier", "probes.helper",
		"probes.emu", "probes.amdgpu",
		"hmm.calls", "hmm.pages", "hmm.ebusy", "hmm.errors", "hmm.p50_us", "hmm.p99_us",
		"notifier.insert", "notifier.remove", "batch.created", "batch.destroyed",
		"refault.ranges", "refault.retries", "refault.errors", "refault.p50_us",
		"refault.p99_us",
		"invalidate.total", "invalidate.gap", "invalidate.unmap", "invalidate.clear",
		"invalidate.protection_vma", "invalidate.protection_page",
		"invalidate.soft_dirty", "invalidate.release", "invalidate.migrate",
		"invalidate.exclusive",
		"evict.ranges", "evict.emu", "evict.amdgpu",
		"restore.count", "restore.errors", "restore.passes", "restore.faulted",
		"restore.retries", "restore.p50_us", "restore.p99_us",
		"restore.evict_to_restore_p50_us", "restore.evict_to_restore_p99_us",
		"restore.evict_to_restore_count", "restore.emu", "restore.amdgpu_works",
		"restore.amdgpu_p99_us", "restore.amdgpu_resumes", "restore.windows",
		"restore.hmm_calls",
		"emu.evicts", "emu.restores", "emu.access", "emu.access_errors",
		"verdict.eviction", "verdict.violations", "verdict.events", "verdict.lost",
		"verdict.evictions", "verdict.restores", "verdict.accesses", "verdict.list",
		"ioctl.userptr_alloc", "ioctl.batch_alloc", "ioctl.other_alloc", "ioctl.free",
		"ioctl.other", "ioctl.total", "ioctl.errors", "ioctl.takeover",
		"ranges.registered", "ranges.ioctls_per_range", "ranges.registration_ms",
		"processes.0.tgid", "processes.0.comm", "processes.0.ioctl",
		"processes.0.calls", "processes.0.errors", "processes.0.ranges",
		"processes.0.ns",
		"ioctl.by_name.AMDKFD_IOC_GET_VERSION.calls",
		"ioctl.by_name.AMDKFD_IOC_IMPORT_DMABUF.errors",
		"ioctl.by_name.DRM_IOCTL_AMDGPU_GEM_USERPTR.calls",
		"ioctl.by_name.USERPTR_EMU_IOC_ALLOC_BATCH.calls",
		"ioctl.by_name.USERPTR_EMU_IOC_STATS.calls", "ioctl.errno.EINVAL",
		"lost.follow", "lost.rows", "lost.task", "lost.events", "lost.touched",
		"lost.evicted_at", "lost.total", "complete",
		"follow.max_entries", "follow.added", "follow.removed",
		"devices.kfd", "devices.emu",
	};
	static const char *const stat_k[] = { "calls", "errors", "ranges", "ns" };
	/*
	 * amdkfd's batches, as it registers them: two GEM userptrs with
	 * ranges on amdgpu's render node, 4096 ranges in all, each taken over
	 * by IMPORT_DMABUF; 4 ioctls for the 4096 ranges
	 */
	struct kt_proc_row rows[] = {
		{ .key = { .tgid = 42, .class = KT_GEM_BATCH },
		  .st = { .calls = 2, .ranges = 4096, .ns = 2000000, .comm = "mix\xff" } },
		{ .key = { .tgid = 42, .class = KT_GEM_IMPORT },
		  .st = { .calls = 2, .ns = 1000000, .comm = "mix\xff" } },
	};
	struct kt_run r = { .rows = rows, .nrows = 2, .status = 130, .signal = 2,
			    .stop = KT_STOP_SIGNAL, .seconds = 1.5 };
	char path[64], *text;
	unsigned int i, j;
	json_t *doc, *back;

	r.cls[KT_GEM_BATCH] = rows[0].st;
	r.cls[KT_GEM_IMPORT] = rows[1].st;
	r.errnos[22] = 3;
	r.live[KT_G_IOCTL] = true;
	r.live[KT_G_EMU] = true;
	doc = kt_report_json(&r);
	ASSERT_NE(NULL, doc);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(path, sizeof(path), "%s", keys[i]);
		EXPECT_NE(NULL, kt_doc_get(doc, path)) TH_LOG("no %s", path);
	}
	for (i = 0; i < KT_NR_CLASSES; i++)
		for (j = 0; j < ARRAY_SIZE(stat_k); j++) {
			snprintf(path, sizeof(path), "ioctl.%s.%s", kt_class_names[i], stat_k[j]);
			EXPECT_NE(NULL, kt_doc_get(doc, path)) TH_LOG("no %s", path);
		}
	/* the values, through a dump and a parse as compare and check see them */
	text = json_dumps(doc, JSON_REAL_PRECISION(15));
	ASSERT_NE(NULL, text);
	back = kt_doc_parse(text, err, sizeof(err));
	ASSERT_NE(NULL, back) TH_LOG("%s", err);
	EXPECT_EQ(130, kt_doc_num(back, "status"));
	EXPECT_EQ(2, kt_doc_num(back, "signal"));
	EXPECT_STREQ("signal", json_string_value(kt_doc_get(back, "stop")));
	EXPECT_EQ(1, kt_doc_num(back, "probes.emu"));
	EXPECT_EQ(0, kt_doc_num(back, "probes.hmm"));
	EXPECT_EQ(2, kt_doc_num(back, "ioctl.gem_batch.calls"));
	EXPECT_EQ(2, kt_doc_num(back, "ioctl.gem_import.calls"));
	EXPECT_EQ(2, kt_doc_num(back, "ioctl.batch_alloc"));
	EXPECT_EQ(0, kt_doc_num(back, "ioctl.userptr_alloc"));
	EXPECT_EQ(2, kt_doc_num(back, "ioctl.takeover"));
	EXPECT_EQ(4, kt_doc_num(back, "ioctl.total"));
	EXPECT_EQ(4096, kt_doc_num(back, "ranges.registered"));
	EXPECT_EQ(4.0 / 4096, kt_doc_num(back, "ranges.ioctls_per_range"));
	EXPECT_EQ(3, kt_doc_num(back, "ranges.registration_ms"));
	EXPECT_STREQ("mix\\xff", json_string_value(kt_doc_get(back, "processes.0.comm")));
	EXPECT_STREQ("gem_batch", json_string_value(kt_doc_get(back, "processes.0.ioctl")));
	EXPECT_STREQ("gem_import", json_string_value(kt_doc_get(back, "processes.1.ioctl")));
	/* amdkfd has no batch ioctl nor class of its own any more */
	EXPECT_EQ(NULL, kt_doc_get(back, "ioctl.kfd_batch"));
	EXPECT_EQ(NULL, kt_doc_get(back, "ioctl.by_name.AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH"));
	EXPECT_STREQ("n/a", json_string_value(kt_doc_get(back, "verdict.eviction")));
	EXPECT_EQ(3, kt_doc_num(back, "ioctl.errno.EINVAL"));
	EXPECT_EQ(NULL, kt_doc_get(back, "ioctl.errno.ENOTTY"));	/* only those seen */
	EXPECT_EQ(0, kt_doc_num(back, "lost.total"));
	EXPECT_EQ(1, kt_doc_num(back, "complete"));
	free(text);
	json_decref(back);
	json_decref(doc);
}

/* a lost update of any kind makes the recording and its verdict incomplete */
TEST(losses_make_the_recording_incomplete)
{
	static const enum kt_count kinds[] = {
		KT_LOST_FOLLOW, KT_LOST_ROWS, KT_LOST_TASK, KT_EVENTS_LOST,
		KT_LOST_TOUCHED, KT_LOST_EVICTED,
	};
	unsigned int i;
	json_t *doc;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct kt_run r = { .status = 0 };

		r.verdict.evictions = 1;
		r.verdict.nviolations = 1;	/* not "fail" on partial data either */
		r.verdict.v[0] = (struct kt_violation){ .rule = "evict", .what = "read" };
		r.counts[kinds[i]] = 2;
		EXPECT_EQ(2, kt_run_lost(&r));
		doc = kt_report_json(&r);
		ASSERT_NE(NULL, doc);
		EXPECT_STREQ("incomplete",
			     json_string_value(kt_doc_get(doc, "verdict.eviction")));
		EXPECT_EQ(2, kt_doc_lost(doc));
		EXPECT_EQ(0, kt_doc_num(doc, "complete"));
		json_decref(doc);
	}
}

/* whether @cmd is in kfdtrace's table of amdkfd's or the device's commands */
static bool known_cmd(unsigned int cmd)
{
	const struct kt_ioctl_def *tables[] = { kt_kfd_ioctls, kt_emu_ioctls }, *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tables); i++)
		for (d = tables[i]; d->name; d++)
			if (d->cmd == cmd)
				return true;
	return false;
}

/*
 * bpf/bpftrace/kfd_ioctl.bt lists amdkfd's and the device's commands by
 * value: the same as kfdtrace's table, none more (a command the uAPI no
 * longer has, as amdkfd's batch ioctl 0xc0304b29); the path is found from
 * this program's, build/bin/ in the tree
 */
TEST(bpftrace_view_knows_the_same_commands)
{
	const struct kt_ioctl_def *tables[] = { kt_kfd_ioctls, kt_emu_ioctls }, *d;
	char exe[4096], path[4200], want[16], *text = NULL, *p, *end;
	unsigned int i, n = 0, type, seen = 0;
	unsigned long v;
	size_t len = 0;
	ssize_t e;
	FILE *f;

	e = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, e);
	exe[e] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/../../bpf/bpftrace/kfd_ioctl.bt", exe);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	ASSERT_LT(0, getdelim(&text, &len, 0, f));
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(tables); i++)
		for (d = tables[i]; d->name; d++, n++) {
			snprintf(want, sizeof(want), "0x%08x", d->cmd);
			EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s (%s)", d->name, want);
		}
	/* 7.3: 40 of amdkfd's (CREATE_PROCESS and PROFILER too), 8 of the device's */
	EXPECT_EQ(48, n);
	/* every whole 'K' or 'u' command the view names is one of them */
	for (p = text; (p = strstr(p, "0x")); p = end) {
		v = strtoul(p, &end, 16);
		if (end - p != 10)
			continue;
		type = v >> 8 & 0xff;
		if (type != 'K' && type != 'u')
			continue;
		seen++;
		EXPECT_TRUE(known_cmd(v)) TH_LOG("kfd_ioctl.bt names 0x%08lx, not a command", v);
	}
	EXPECT_LE(n, seen);
	free(text);
}

/* the verdict's violations, as check reads them (verdict.list.N.*) */
TEST(writer_lists_violations)
{
	struct kt_run r = { .status = 0 };
	json_t *doc;

	r.verdict.nviolations = 2;
	r.verdict.evictions = 1;
	r.verdict.first_ts = 1000000000;
	r.verdict.v[0] = (struct kt_violation){ .ts = 2500000000ULL, .batch = 7, .range = 3,
						.rule = "evict", .what = "read while invalid" };
	r.verdict.v[1] = (struct kt_violation){ .ts = 3000000000ULL, .batch = 7, .range = -1,
						.rule = "restore", .what = "still evicted" };
	doc = kt_report_json(&r);
	ASSERT_NE(NULL, doc);
	EXPECT_STREQ("fail", json_string_value(kt_doc_get(doc, "verdict.eviction")));
	EXPECT_EQ(2, kt_doc_num(doc, "verdict.violations"));
	EXPECT_EQ(1.5, kt_doc_num(doc, "verdict.list.0.t_s"));
	EXPECT_EQ(7, kt_doc_num(doc, "verdict.list.0.batch"));
	EXPECT_EQ(3, kt_doc_num(doc, "verdict.list.0.range"));
	EXPECT_STREQ("evict", json_string_value(kt_doc_get(doc, "verdict.list.0.rule")));
	EXPECT_STREQ("read while invalid",
		     json_string_value(kt_doc_get(doc, "verdict.list.0.what")));
	EXPECT_EQ(-1, kt_doc_num(doc, "verdict.list.1.range"));
	EXPECT_EQ(NULL, kt_doc_get(doc, "verdict.list.2"));
	json_decref(doc);
}

/*
 * record -w's file, written as record writes it and replayed as report
 * does: the maps and rows come back, the events go through the verdict,
 * a lost-events mark makes the replay incomplete
 */
TEST(events_file_round_trip)
{
	static const bool live[KT_G_NR] = { [KT_G_IOCTL] = true, [KT_G_HELPER] = true,
					    [KT_G_AMDGPU] = true };
	struct kt_proc_row row = { .key = { .tgid = 42, .class = KT_GEM_BATCH },
				   .st = { .calls = 3, .ranges = 4096, .comm = "bench" } };
	struct kt_event e = { .ts = 1000, .batch = 7, .type = KT_EV_EVICT, .mm = 99 };
	struct kt_run r = { .status = 3, .stop = KT_STOP_SIGNAL, .seconds = 1.5,
			    .rows = &row, .nrows = 1 };
	char path[] = "/tmp/kfdtrace-evXXXXXX";
	struct kt_run back;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	ASSERT_NE(NULL, f);
	r.counts[KT_AMDGPU_RESUMES] = 5;
	snprintf(r.kfd_dev, sizeof(r.kfd_dev), "226:0");
	snprintf(r.emu_dev, sizeof(r.emu_dev), "10:258");
	/* where the ioctls were counted: every value of each target survives */
	r.ioctl_at[KT_IT_KFD] = KT_AT_KPROBE;
	r.ioctl_at[KT_IT_EMU] = KT_AT_FENTRY;
	r.ioctl_at[KT_IT_OTHER] = KT_AT_NONE;
	ASSERT_EQ(0, kt_evfile_begin(f, live));
	ASSERT_EQ(0, kt_evfile_event(f, &e));
	e.type = KT_EV_AMDGPU_QUIESCE;
	e.ts += 10;
	ASSERT_EQ(0, kt_evfile_event(f, &e));
	ASSERT_EQ(0, kt_evfile_lost(f, 2));
	ASSERT_EQ(0, kt_evfile_end(f, &r, 5000));
	ASSERT_EQ(0, fclose(f));
	EXPECT_TRUE(kt_evfile_is(path));
	ASSERT_EQ(0, kt_evfile_replay(path, &back, err, sizeof(err)));
	EXPECT_EQ(3, back.status);
	EXPECT_EQ(KT_STOP_SIGNAL, back.stop);
	EXPECT_EQ(1.5, back.seconds);
	EXPECT_STREQ("226:0", back.kfd_dev);
	EXPECT_EQ(KT_AT_KPROBE, kt_ioctl_at_of(&back, KT_IT_KFD));
	EXPECT_EQ(KT_AT_FENTRY, kt_ioctl_at_of(&back, KT_IT_EMU));
	EXPECT_EQ(KT_AT_NONE, kt_ioctl_at_of(&back, KT_IT_OTHER));
	EXPECT_EQ(5, back.counts[KT_AMDGPU_RESUMES]);
	EXPECT_EQ(2, back.counts[KT_EVENTS_LOST]);	/* the mark */
	ASSERT_EQ(1, back.nrows);
	EXPECT_EQ(42, back.rows[0].key.tgid);
	EXPECT_EQ(4096, back.cls[KT_GEM_BATCH].ranges);	/* summed as record does */
	EXPECT_TRUE(back.live[KT_G_AMDGPU]);
	EXPECT_FALSE(back.live[KT_G_EMU]);
	EXPECT_EQ(2, back.verdict.events);
	EXPECT_EQ(1, back.verdict.evictions);
	EXPECT_STREQ("incomplete", kt_verdict_result(&back.verdict, kt_run_lost(&back)));
	free(back.rows);
	kt_verdict_free(&back.verdict);
	/* the syscalls tracepoints for all, and a device absent */
	r.ioctl_at[KT_IT_KFD] = KT_AT_SYSCALL;
	r.ioctl_at[KT_IT_EMU] = KT_AT_NONE;
	r.ioctl_at[KT_IT_OTHER] = KT_AT_SYSCALL;
	r.emu_dev[0] = 0;
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, kt_evfile_begin(f, live));
	ASSERT_EQ(0, kt_evfile_end(f, &r, 5000));
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, kt_evfile_replay(path, &back, err, sizeof(err)));
	EXPECT_EQ(KT_AT_SYSCALL, kt_ioctl_at_of(&back, KT_IT_KFD));
	EXPECT_EQ(KT_AT_NONE, kt_ioctl_at_of(&back, KT_IT_EMU));
	EXPECT_EQ(KT_AT_SYSCALL, kt_ioctl_at_of(&back, KT_IT_OTHER));
	free(back.rows);
	kt_verdict_free(&back.verdict);
	unlink(path);
}

TEST_HARNESS_MAIN
