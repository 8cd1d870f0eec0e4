// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's two outputs: the text report (the table of processes and
 * ioctl classes, the memory side of each live probe group, latency
 * histograms and the eviction verdict) and the JSON document that
 * `compare` and `check` read (docs/kfdtrace.md lists its fields).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strerrorname_np() */
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

const char *const kt_ioctl_target_names[KT_IT_NR] = {
	[KT_IT_KFD] = "kfd", [KT_IT_EMU] = "emu", [KT_IT_DRM] = "drm",
	[KT_IT_OTHER] = "other_files",
};

const char *const kt_ioctl_at_names[KT_AT_NR] = {
	[KT_AT_SYSCALL] = "syscall", [KT_AT_FENTRY] = "fentry",
	[KT_AT_KPROBE] = "kprobe", [KT_AT_NONE] = "none",
};

const char *const kt_class_names[KT_NR_CLASSES] = {
	[KT_KFD_USERPTR] = "kfd_userptr",
	[KT_KFD_ALLOC_OTHER] = "kfd_alloc_other",
	[KT_KFD_FREE_MEM] = "kfd_free",
	[KT_KFD_OTHER] = "kfd_other",
	[KT_EMU_USERPTR] = "emu_userptr",
	[KT_EMU_BATCH] = "emu_batch",
	[KT_EMU_FREE_MEM] = "emu_free",
	[KT_EMU_OTHER] = "emu_other",
	[KT_NOT_DEVICE] = "not_device",
	[KT_GEM_USERPTR] = "gem_userptr",
	[KT_GEM_BATCH] = "gem_batch",
	[KT_GEM_IMPORT] = "gem_import",
	[KT_GEM_CLOSE] = "gem_close",
	[KT_GEM_OTHER] = "gem_other",
};

/* what each lost.* counts, as the JSON names it */
static const struct {
	const char *name;
	enum kt_count count;
	const char *what;
} lost_kinds[] = {
	{ "follow", KT_LOST_FOLLOW, "forks not followed (the follow map was full)" },
	{ "rows", KT_LOST_ROWS, "calls not in the process table (its map was full)" },
	{ "task", KT_LOST_TASK, "calls or faults not traced (no task storage)" },
	{ "events", KT_EVENTS_LOST, "verdict events dropped (the ring buffer was full)" },
	{ "touched", KT_LOST_TOUCHED, "batches the verdict could not follow (map full)" },
	{ "evicted_at", KT_LOST_EVICTED, "evictions not timed (map full)" },
};

__u64 kt_run_lost(const struct kt_run *r)
{
	__u64 n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lost_kinds); i++)
		n += r->counts[lost_kinds[i].count];
	return n;
}

__u64 kt_doc_lost(json_t *doc)
{
	double v = kt_doc_num(doc, "lost.total");

	return v > 0 ? (__u64)v : 0;
}

/* invalidations by enum mmu_notifier_event */
static const char *const event_names[KT_NR_EVENTS] = {
	"unmap", "clear", "protection_vma", "protection_page", "soft_dirty",
	"release", "migrate", "exclusive",
};

/* "EINVAL" for 22; "E0" for slot 0, the errnos past KT_MAX_ERRNO */
static const char *errno_name(unsigned int e)
{
	static char buf[16];
	const char *n = e ? strerrorname_np(e) : NULL;

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "E%u", e);
	return buf;
}

static const char *const stop_names[] = {
	[KT_STOP_EXIT] = "exit",
	[KT_STOP_DEADLINE] = "deadline",
	[KT_STOP_SIGNAL] = "signal",
};

static void add_stat(struct kt_ioctl_stat *to, const struct kt_ioctl_stat *s)
{
	int i;

	to->calls += s->calls;
	to->errors += s->errors;
	to->ranges += s->ranges;
	to->ns += s->ns;
	for (i = 0; i < KT_HIST_SLOTS; i++)
		to->hist[i] += s->hist[i];
}

static void print_hist(FILE *f, const char *title, const __u64 *hist)
{
	int i, first = -1, last = -1;
	__u64 max = 0;

	for (i = 0; i < KT_HIST_SLOTS; i++) {
		if (!hist[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (hist[i] > max)
			max = hist[i];
	}
	if (first < 0)
		return;
	fprintf(f, "\n%s\n%22s : %-8s |%-40s|\n", title, "usecs", "count", "distribution");
	for (i = first; i <= last; i++) {
		__u64 lo = i ? 1ULL << i : 0, hi = (1ULL << (i + 1)) - 1;
		int w = (int)(hist[i] * 40 / max);

		fprintf(f, "%10llu -> %-9llu : %-8llu |%-*.*s%*s|\n",
			(unsigned long long)lo, (unsigned long long)hi,
			(unsigned long long)hist[i], w, w,
			"****************************************", 40 - w, "");
	}
}

static void print_memory(FILE *f, const struct kt_run *r)
{
	const __u64 *c = r->counts;
	int i;

	if (r->live[KT_G_HMM])
		fprintf(f,
			"\nhmm_range_fault: %llu calls, %llu pages, %llu -EBUSY, %llu other errors\n",
			(unsigned long long)c[KT_HMM_CALLS], (unsigned long long)c[KT_HMM_PAGES],
			(unsigned long long)c[KT_HMM_EBUSY], (unsigned long long)c[KT_HMM_ERRORS]);
	if (r->live[KT_G_NOTIFIER])
		fprintf(f, "interval notifiers: %llu inserted, %llu removed\n",
			(unsigned long long)c[KT_NOTIFIER_INSERT],
			(unsigned long long)c[KT_NOTIFIER_REMOVE]);
	if (r->live[KT_G_HELPER]) {
		fprintf(f,
			"batches: %llu created, %llu destroyed; %llu ranges faulted, %llu of them again after an invalidation (%llu retries, %llu failed)\n",
			(unsigned long long)c[KT_BATCH_CREATE],
			(unsigned long long)c[KT_BATCH_DESTROY],
			(unsigned long long)c[KT_RESTORE_FAULTED],
			(unsigned long long)c[KT_REFAULTS],
			(unsigned long long)c[KT_REFAULT_RETRIES],
			(unsigned long long)c[KT_REFAULT_ERRORS]);
		fprintf(f, "invalidations: %llu (", (unsigned long long)c[KT_INVALIDATE]);
		for (i = 0; i < KT_NR_EVENTS && event_names[i]; i++)
			fprintf(f, "%s%s %llu", i ? ", " : "", event_names[i],
				(unsigned long long)r->events[i]);
		fprintf(f, "), %llu of windows that hit only gaps; %llu ranges evicted; ",
			(unsigned long long)c[KT_INVALIDATE_GAP],
			(unsigned long long)c[KT_EVICT_RANGES]);
		fprintf(f, "%llu restores (%llu failed): %llu window walks, %llu hmm calls\n",
			(unsigned long long)c[KT_RESTORES],
			(unsigned long long)c[KT_RESTORE_ERRORS],
			(unsigned long long)c[KT_RESTORE_WINDOWS],
			(unsigned long long)c[KT_RESTORE_CALLS]);
	}
	if (r->live[KT_G_EMU])
		fprintf(f,
			"emulated device: %llu evictions, %llu restores, %llu accesses (%llu failed)\n",
			(unsigned long long)c[KT_EMU_EVICTS],
			(unsigned long long)c[KT_EMU_RESTORES],
			(unsigned long long)c[KT_EMU_ACCESS],
			(unsigned long long)c[KT_EMU_ACCESS_ERRORS]);
	if (r->live[KT_G_AMDGPU])
		fprintf(f, "amdgpu: %llu userptr evictions, %llu restore works, %llu resumes\n",
			(unsigned long long)c[KT_AMDGPU_EVICTS],
			(unsigned long long)c[KT_AMDGPU_RESTORE_WORKS],
			(unsigned long long)c[KT_AMDGPU_RESUMES]);
	if (r->live[KT_G_HMM])
		print_hist(f, "hmm_range_fault latency", r->hists[KT_H_HMM].slots);
	if (r->live[KT_G_HELPER]) {
		print_hist(f, "refault latency (a range faulted again, retries included)",
			   r->hists[KT_H_REFAULT].slots);
		print_hist(f, "populate (restore_begin..end) latency",
			   r->hists[KT_H_RESTORE].slots);
		print_hist(f, "first eviction -> restore latency",
			   r->hists[KT_H_EVICT_RESTORE].slots);
	}
	if (r->live[KT_G_AMDGPU])
		print_hist(f, "amdgpu restore worker latency", r->hists[KT_H_AMDGPU_RESTORE].slots);
}

/* the devices' ioctls by name and their failures by errno, those seen */
static void print_names(FILE *f, const struct kt_run *r)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < KT_NR_NAMES; i++) {
		if (!r->names[i].calls || !kt_ioctl_name(i))
			continue;
		if (!any)
			fprintf(f, "\n%-40s %10s %8s\n", "IOCTL", "CALLS", "ERRORS");
		any = true;
		fprintf(f, "%-40s %10llu %8llu\n", kt_ioctl_name(i),
			(unsigned long long)r->names[i].calls,
			(unsigned long long)r->names[i].errors);
	}
	for (i = 0, any = false; i < KT_MAX_ERRNO; i++) {
		if (!r->errnos[i])
			continue;
		fprintf(f, "%s%s %llu", any ? ", " : "failed by errno: ", errno_name(i),
			(unsigned long long)r->errnos[i]);
		any = true;
	}
	if (any)
		fprintf(f, "\n");
}

/* loud: a recording with losses is partial, whatever it shows */
static void print_lost(FILE *f, const struct kt_run *r)
{
	unsigned int i;

	if (!kt_run_lost(r))
		return;
	fprintf(f, "\n%s\n",
		"INCOMPLETE: the probes lost updates or events; the counts above are partial:");
	for (i = 0; i < ARRAY_SIZE(lost_kinds); i++)
		if (r->counts[lost_kinds[i].count])
			fprintf(f, "  lost.%s = %llu: %s\n", lost_kinds[i].name,
				(unsigned long long)r->counts[lost_kinds[i].count],
				lost_kinds[i].what);
	if (r->counts[KT_LOST_FOLLOW])
		fprintf(f, "  (the follow map holds %llu processes at a time)\n",
			(unsigned long long)r->follow_max);
}

static __u64 calls_of(const struct kt_run *r, enum kt_class a, enum kt_class b,
		      enum kt_class c)
{
	return r->cls[a].calls + r->cls[b].calls + r->cls[c].calls;
}

/*
 * The registration classes: an allocation of one range on amdkfd or the
 * device, the device's batch, a GEM userptr of one range or a batch on a
 * DRM node, and the takeover of a GEM userptr by the compute file (its
 * second step there). amdkfd has no batch ioctl of its own: its batch is
 * a GEM userptr with ranges on amdgpu's render node (gem_batch) taken
 * over by IMPORT_DMABUF (gem_import), as the device's through IMPORT_GEM.
 */
static const enum kt_class reg_classes[] = {
	KT_KFD_USERPTR, KT_EMU_USERPTR, KT_EMU_BATCH,
	KT_GEM_USERPTR, KT_GEM_BATCH, KT_GEM_IMPORT,
};

void kt_summarize(const struct kt_run *r, struct kt_summary *s)
{
	__u64 ns = 0;
	unsigned int i;
	int c;

	memset(s, 0, sizeof(*s));
	s->userptr_alloc = calls_of(r, KT_KFD_USERPTR, KT_EMU_USERPTR, KT_GEM_USERPTR);
	s->batch_alloc = r->cls[KT_EMU_BATCH].calls + r->cls[KT_GEM_BATCH].calls;
	s->takeover = r->cls[KT_GEM_IMPORT].calls;
	s->other_alloc = r->cls[KT_KFD_ALLOC_OTHER].calls;
	s->free = calls_of(r, KT_KFD_FREE_MEM, KT_EMU_FREE_MEM, KT_GEM_CLOSE);
	s->other = calls_of(r, KT_KFD_OTHER, KT_EMU_OTHER, KT_GEM_OTHER) +
		   r->cls[KT_NOT_DEVICE].calls;
	for (c = 0; c < KT_NR_CLASSES; c++) {
		s->total += r->cls[c].calls;
		s->errors += r->cls[c].errors;
	}
	for (i = 0; i < ARRAY_SIZE(reg_classes); i++) {
		s->registered += r->cls[reg_classes[i]].ranges;
		ns += r->cls[reg_classes[i]].ns;
	}
	/*
	 * registration ioctls per registered range: 1 per range, 1/N
	 * batched; through a DRM node and a takeover, 2 per object
	 */
	if (s->registered)
		s->per_range = (double)(s->userptr_alloc + s->batch_alloc + s->takeover) /
			       s->registered;
	s->ms = ns / 1e6;
}

enum kt_ioctl_at kt_ioctl_at_of(const struct kt_run *r, enum kt_ioctl_target t)
{
	/* (an events file of an older kfdtrace says syscall for an absent device) */
	if ((t == KT_IT_KFD && !r->kfd_dev[0]) || (t == KT_IT_EMU && !r->emu_dev[0]) ||
	    (t == KT_IT_DRM && !r->drm_dev[0]) || r->ioctl_at[t] >= KT_AT_NR)
		return KT_AT_NONE;
	return r->ioctl_at[t];
}

/* where target @t's ioctls were counted, in the report's words */
static const char *at_words(const struct kt_run *r, enum kt_ioctl_target t)
{
	static const char *const dev_words[KT_IT_NR][KT_AT_NR] = {
		[KT_IT_KFD] = { "syscall tracepoints", "fentry/fexit on kfd_ioctl",
				"kprobe/kretprobe on kfd_ioctl", "absent" },
		[KT_IT_EMU] = { "syscall tracepoints", "fentry/fexit on uemu_ioctl",
				"kprobe/kretprobe on uemu_ioctl", "absent" },
		[KT_IT_DRM] = { "syscall tracepoints", "fentry/fexit on drm_ioctl",
				"kprobe/kretprobe on drm_ioctl", "absent" },
		[KT_IT_OTHER] = { "syscall tracepoints", "?", "?", "not seen" },
	};

	return dev_words[t][kt_ioctl_at_of(r, t)];
}

void kt_report_print(FILE *f, const struct kt_run *r)
{
	struct kt_ioctl_stat reg = {};
	struct kt_summary s;
	unsigned int j;
	int i;

	fprintf(f, "%-8s %-16s %-16s %10s %8s %10s %12s\n", "TGID", "COMM", "IOCTL",
		"CALLS", "ERRORS", "RANGES", "TOTAL_MS");
	for (i = 0; i < r->nrows; i++) {
		const struct kt_proc_row *p = &r->rows[i];

		fprintf(f, "%-8u %-16.16s %-16s %10llu %8llu %10llu %12.3f\n",
			p->key.tgid, p->st.comm, kt_class_names[p->key.class],
			(unsigned long long)p->st.calls, (unsigned long long)p->st.errors,
			(unsigned long long)p->st.ranges, p->st.ns / 1e6);
	}
	kt_summarize(r, &s);
	fprintf(f, "\n%llu ranges registered by %llu per-range and %llu batch calls",
		(unsigned long long)s.registered, (unsigned long long)s.userptr_alloc,
		(unsigned long long)s.batch_alloc);
	if (s.takeover)
		fprintf(f, " and %llu takeovers of GEM userptrs",
			(unsigned long long)s.takeover);
	fprintf(f, " (%.4f registration ioctls per range) in %.3f ms; %llu ioctls, %llu failed\n",
		s.per_range, s.ms, (unsigned long long)s.total, (unsigned long long)s.errors);
	for (j = 0; j < ARRAY_SIZE(reg_classes); j++)
		add_stat(&reg, &r->cls[reg_classes[j]]);
	if (kt_ioctl_at_of(r, KT_IT_OTHER) == KT_AT_SYSCALL)
		fprintf(f,
			"%llu calls with amdkfd's or the device's numbers were not theirs (not_device: another file, or a command the device does not know); devices: kfd %s, emu %s\n",
			(unsigned long long)r->cls[KT_NOT_DEVICE].calls,
			r->kfd_dev[0] ? r->kfd_dev : "absent",
			r->emu_dev[0] ? r->emu_dev : "absent");
	else
		fprintf(f,
			"%llu calls on the devices' files were not commands they know (not_device; other files are not seen at the drivers' entries: -S sees them); devices: kfd %s, emu %s\n",
			(unsigned long long)r->cls[KT_NOT_DEVICE].calls,
			r->kfd_dev[0] ? r->kfd_dev : "absent",
			r->emu_dev[0] ? r->emu_dev : "absent");
	if (r->drm_dev[0])
		fprintf(f, "DRM nodes: %s\n", r->drm_dev);
	fprintf(f, "ioctls counted at: kfd %s, emu %s, DRM nodes %s, other files %s\n",
		at_words(r, KT_IT_KFD), at_words(r, KT_IT_EMU), at_words(r, KT_IT_DRM),
		at_words(r, KT_IT_OTHER));
	print_names(f, r);
	print_hist(f, "registration ioctl latency", reg.hist);
	print_memory(f, r);
	if (r->live[KT_G_HELPER] || r->live[KT_G_EMU])
		kt_verdict_print(f, &r->verdict, kt_run_lost(r));
	print_lost(f, r);
}

/* the upper bound (us) of the log2 bucket holding the pct-th percentile */
static __u64 percentile(const struct kt_hist_val *h, double pct)
{
	__u64 total = 0, sum = 0;
	int i;

	for (i = 0; i < KT_HIST_SLOTS; i++)
		total += h->slots[i];
	if (!total)
		return 0;
	for (i = 0; i < KT_HIST_SLOTS; i++) {
		sum += h->slots[i];
		if (sum * 100.0 >= pct * total)
			return (1ULL << (i + 1)) - 1;
	}
	return 0;
}

/*
 * Members are added with set(): it takes the value's reference, a NULL
 * value (jansson out of memory) included, and returns non-zero on failure;
 * the callers OR the results and give up once at the end.
 */
static int set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v);
}

static json_t *u64(__u64 v)
{
	return json_integer((json_int_t)v);
}

/* a time or ratio, rounded to @decimals places: the JSON stays readable */
static json_t *real(double v, int decimals)
{
	double scale = pow(10, decimals);

	return json_real(round(v * scale) / scale);
}

/* {"KEY": N, ...} from parallel arrays */
static json_t *obj_u64(const char *const *keys, const __u64 *vals, int n)
{
	json_t *o = json_object();
	int i, err = !o;

	for (i = 0; o && i < n; i++)
		err |= set(o, keys[i], u64(vals[i]));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *ioctl_stat(const struct kt_ioctl_stat *st)
{
	static const char *const k[] = { "calls", "errors", "ranges", "ns" };
	__u64 v[] = { st->calls, st->errors, st->ranges, st->ns };

	return obj_u64(k, v, 4);
}

static int json_memory(json_t *root, const struct kt_run *r)
{
	const __u64 *c = r->counts;
	const struct kt_hist_val *h = r->hists;
	static const char *const hmm_k[] = { "calls", "pages", "ebusy", "errors",
					     "p50_us", "p99_us" };
	static const char *const notif_k[] = { "insert", "remove" };
	static const char *const batch_k[] = { "created", "destroyed" };
	static const char *const refault_k[] = { "ranges", "retries", "errors", "p50_us",
						 "p99_us" };
	static const char *const evict_k[] = { "ranges", "emu", "amdgpu" };
	static const char *const restore_k[] = {
		"count", "errors", "passes", "faulted", "retries", "p50_us", "p99_us",
		"evict_to_restore_p50_us", "evict_to_restore_p99_us",
		"evict_to_restore_count", "emu", "amdgpu_works", "amdgpu_p99_us",
		"amdgpu_resumes", "windows", "hmm_calls",
	};
	static const char *const emu_k[] = { "evicts", "restores", "access",
					     "access_errors" };
	json_t *inval;
	__u64 v[16], n = 0;
	int i, err = 0;

	for (i = 0; i < KT_G_NR; i++)
		v[i] = r->live[i];
	err |= set(root, "probes", obj_u64(kt_group_names, v, KT_G_NR));
	v[0] = c[KT_HMM_CALLS];
	v[1] = c[KT_HMM_PAGES];
	v[2] = c[KT_HMM_EBUSY];
	v[3] = c[KT_HMM_ERRORS];
	v[4] = percentile(&h[KT_H_HMM], 50);
	v[5] = percentile(&h[KT_H_HMM], 99);
	err |= set(root, "hmm", obj_u64(hmm_k, v, 6));
	v[0] = c[KT_NOTIFIER_INSERT];
	v[1] = c[KT_NOTIFIER_REMOVE];
	err |= set(root, "notifier", obj_u64(notif_k, v, 2));
	v[0] = c[KT_BATCH_CREATE];
	v[1] = c[KT_BATCH_DESTROY];
	err |= set(root, "batch", obj_u64(batch_k, v, 2));
	v[0] = c[KT_REFAULTS];
	v[1] = c[KT_REFAULT_RETRIES];
	v[2] = c[KT_REFAULT_ERRORS];
	v[3] = percentile(&h[KT_H_REFAULT], 50);
	v[4] = percentile(&h[KT_H_REFAULT], 99);
	err |= set(root, "refault", obj_u64(refault_k, v, 5));
	inval = json_object();
	err |= set(root, "invalidate", inval);
	if (inval) {
		err |= set(inval, "total", u64(c[KT_INVALIDATE]));
		err |= set(inval, "gap", u64(c[KT_INVALIDATE_GAP]));
		for (i = 0; i < KT_NR_EVENTS; i++)
			if (event_names[i])
				err |= set(inval, event_names[i], u64(r->events[i]));
	}
	v[0] = c[KT_EVICT_RANGES];
	v[1] = c[KT_EMU_EVICTS];
	v[2] = c[KT_AMDGPU_EVICTS];
	err |= set(root, "evict", obj_u64(evict_k, v, 3));
	for (i = 0; i < KT_HIST_SLOTS; i++)
		n += h[KT_H_EVICT_RESTORE].slots[i];
	v[0] = c[KT_RESTORES];
	v[1] = c[KT_RESTORE_ERRORS];
	v[2] = c[KT_RESTORE_PASSES];
	v[3] = c[KT_RESTORE_FAULTED];
	v[4] = c[KT_RESTORE_RETRIES];
	v[5] = percentile(&h[KT_H_RESTORE], 50);
	v[6] = percentile(&h[KT_H_RESTORE], 99);
	v[7] = percentile(&h[KT_H_EVICT_RESTORE], 50);
	v[8] = percentile(&h[KT_H_EVICT_RESTORE], 99);
	v[9] = n;
	v[10] = c[KT_EMU_RESTORES];
	v[11] = c[KT_AMDGPU_RESTORE_WORKS];
	v[12] = percentile(&h[KT_H_AMDGPU_RESTORE], 99);
	v[13] = c[KT_AMDGPU_RESUMES];
	v[14] = c[KT_RESTORE_WINDOWS];
	v[15] = c[KT_RESTORE_CALLS];
	err |= set(root, "restore", obj_u64(restore_k, v, 16));
	v[0] = c[KT_EMU_EVICTS];
	v[1] = c[KT_EMU_RESTORES];
	v[2] = c[KT_EMU_ACCESS];
	v[3] = c[KT_EMU_ACCESS_ERRORS];
	err |= set(root, "emu", obj_u64(emu_k, v, 4));
	return err;
}

/*
 * ioctl.by_name.NAME.{calls,errors}, every ioctl of both devices (0 when
 * not called); ioctl.errno.ENAME, the errnos seen
 */
static int json_names(json_t *io, const struct kt_run *r)
{
	static const char *const k[] = { "calls", "errors" };
	json_t *names = json_object(), *errs = json_object();
	int err = set(io, "by_name", names) | set(io, "errno", errs);
	unsigned int i;
	__u64 v[2];

	for (i = 0; names && i < KT_NR_NAMES; i++) {
		if (!kt_ioctl_name(i))
			continue;
		v[0] = r->names[i].calls;
		v[1] = r->names[i].errors;
		err |= set(names, kt_ioctl_name(i), obj_u64(k, v, 2));
	}
	for (i = 0; errs && i < KT_MAX_ERRNO; i++)
		if (r->errnos[i])
			err |= set(errs, errno_name(i), u64(r->errnos[i]));
	return err;
}

/* lost.KIND and lost.total; follow.{max_entries,added,removed}; devices.* */
static int json_lost(json_t *root, const struct kt_run *r)
{
	static const char *const follow_k[] = { "max_entries", "added", "removed" };
	json_t *lost = json_object(), *dev;
	int err = set(root, "lost", lost);
	unsigned int i;
	__u64 v[3];

	for (i = 0; lost && i < ARRAY_SIZE(lost_kinds); i++)
		err |= set(lost, lost_kinds[i].name, u64(r->counts[lost_kinds[i].count]));
	if (lost)
		err |= set(lost, "total", u64(kt_run_lost(r)));
	err |= set(root, "complete", json_boolean(!kt_run_lost(r)));
	v[0] = r->follow_max;
	v[1] = r->counts[KT_FOLLOW_ADDED];
	v[2] = r->counts[KT_FOLLOW_REMOVED];
	err |= set(root, "follow", obj_u64(follow_k, v, 3));
	dev = json_pack("{s:s, s:s, s:s}", "kfd", r->kfd_dev, "emu", r->emu_dev,
			"drm", r->drm_dev);
	err |= set(root, "devices", dev);
	return err;
}

static int json_ioctl(json_t *root, const struct kt_run *r)
{
	static const char *const sum_k[] = { "userptr_alloc", "batch_alloc", "other_alloc",
					     "free", "other", "total", "errors", "takeover" };
	json_t *io, *ranges, *at;
	struct kt_summary s;
	int c, err = 0;
	__u64 sums[8];

	kt_summarize(r, &s);
	sums[0] = s.userptr_alloc;
	sums[1] = s.batch_alloc;
	sums[2] = s.other_alloc;
	sums[3] = s.free;
	sums[4] = s.other;
	sums[5] = s.total;
	sums[6] = s.errors;
	sums[7] = s.takeover;
	io = obj_u64(sum_k, sums, 8);
	err |= set(root, "ioctl", io);
	for (c = 0; io && c < KT_NR_CLASSES; c++)
		err |= set(io, kt_class_names[c], ioctl_stat(&r->cls[c]));
	err |= json_names(io, r);
	at = json_object();
	err |= set(io, "counted_at", at);
	for (c = 0; at && c < KT_IT_NR; c++)
		err |= set(at, kt_ioctl_target_names[c],
			   json_string(kt_ioctl_at_names[kt_ioctl_at_of(r, c)]));
	ranges = json_object();
	err |= set(root, "ranges", ranges);
	if (ranges) {
		err |= set(ranges, "registered", u64(s.registered));
		err |= set(ranges, "ioctls_per_range", json_real(s.per_range));
		err |= set(ranges, "registration_ms", real(s.ms, 6));
	}
	return err;
}

static int json_processes(json_t *root, const struct kt_run *r)
{
	json_t *procs = json_array(), *p;
	int i, err = 0;

	err |= set(root, "processes", procs);
	for (i = 0; procs && i < r->nrows; i++) {
		const struct kt_proc_row *row = &r->rows[i];
		/* a task's name is bytes: it may be cut inside a character */
		char *comm = kt_utf8_escape(row->st.comm,
					    strnlen(row->st.comm, sizeof(row->st.comm)));

		p = json_object();
		err |= json_array_append_new(procs, p);
		if (!p || !comm) {
			free(comm);
			return -1;
		}
		err |= set(p, "tgid", u64(row->key.tgid));
		err |= set(p, "comm", json_string(comm));
		err |= set(p, "ioctl", json_string(kt_class_names[row->key.class]));
		err |= set(p, "calls", u64(row->st.calls));
		err |= set(p, "errors", u64(row->st.errors));
		err |= set(p, "ranges", u64(row->st.ranges));
		err |= set(p, "ns", u64(row->st.ns));
		free(comm);
	}
	return err;
}

json_t *kt_report_json(const struct kt_run *r)
{
	json_t *root = json_object();
	int err = !root;

	if (root) {
		err |= set(root, "kfdtrace", json_integer(1));
		err |= set(root, "seconds", real(r->seconds, 6));
		err |= set(root, "status", json_integer(r->status));
		err |= set(root, "signal", json_integer(r->signal));
		err |= set(root, "stop", json_string(stop_names[r->stop]));
		err |= json_memory(root, r);
		err |= set(root, "verdict", kt_verdict_json(&r->verdict, kt_run_lost(r)));
		err |= json_lost(root, r);
		err |= json_ioctl(root, r);
		err |= json_processes(root, r);
	}
	if (err) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int kt_report_write(int fd, const struct kt_run *r)
{
	json_t *root = kt_report_json(r);
	int err = 0;

	if (!root)
		return -ENOMEM;
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		err = -errno;
	else if (json_dumpfd(root, fd, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) ||
		 write(fd, "\n", 1) != 1)
		err = -EIO;
	json_decref(root);
	return err;
}
