// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace: how many ioctls a GPU memory workload makes to register its
 * userptr ranges, per process, batch vs one range per call. With a command
 * or -p, that process and the processes it forks are traced.
 *
 *   kfdtrace record [-p PID] [-d SECONDS] [-i SECONDS] [-o FILE.json] [-- CMD...]
 *   kfdtrace compare BASE.json NEW.json
 *   kfdtrace check --expect EXPR... (FILE.json | -- CMD...)
 *
 * The probes are bpf/kfdtrace.bpf.c, loaded from the skeleton built into
 * this program.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kfdtrace.h"
#include "kfdtrace.skel.h"
#include "json.h"
#include "verdict.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const class_names[KT_NR_CLASSES] = {
	[KT_KFD_USERPTR] = "kfd_userptr",
	[KT_KFD_BATCH] = "kfd_batch",
	[KT_KFD_ALLOC_OTHER] = "kfd_alloc_other",
	[KT_KFD_FREE_MEM] = "kfd_free",
	[KT_KFD_OTHER] = "kfd_other",
	[KT_EMU_USERPTR] = "emu_userptr",
	[KT_EMU_BATCH] = "emu_batch",
	[KT_EMU_FREE_MEM] = "emu_free",
	[KT_EMU_OTHER] = "emu_other",
};

/*
 * Probe groups. Only "ioctl" is required; the others are loaded when their
 * target exists here, and each reports whether it went live.
 */
enum group { G_IOCTL, G_HMM, G_NOTIFIER, G_HELPER, G_EMU, G_AMDGPU, G_NR };

static const char *const group_names[G_NR] = {
	"ioctl", "hmm", "notifier", "helper", "emu", "amdgpu",
};

/* a group is live when all its loaded programs attached */
static bool live[G_NR];

static struct kt_verdict verdict;

static int on_event(void *ctx, void *data, size_t len)
{
	if (len >= sizeof(struct kt_event))
		kt_verdict_event(&verdict, data);
	return 0;
}

static const char *const event_names[KT_NR_EVENTS] = {
	"unmap", "clear", "protection_vma", "protection_page", "soft_dirty",
	"release", "migrate", "exclusive",
};

static struct env {
	pid_t pid;
	int duration;
	int interval;
	const char *out;
	const char **expect;
	int nexpect;
	bool verbose;
	bool probe_cost;
	bool all_probes;
	char **cmd;
} env;

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

/* only there to cut the ring buffer's poll short when the command exits */
static void sigchld_handler(int sig)
{
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* the summary of one record: what the report prints and the JSON holds */
struct totals {
	struct kt_ioctl_stat cls[KT_NR_CLASSES];
	__u64 counts[KT_NR_COUNTS];
	__u64 events[KT_NR_EVENTS];
	struct kt_hist_val hists[KT_NR_HISTS];
	double seconds;
	int status;		/* the command's exit status, -1 without one */
};

struct proc_row {
	struct kt_ioctl_key key;
	struct kt_ioctl_stat st;
};

static int row_cmp(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	return (int)x->key.class - (int)y->key.class;
}

static int read_rows(struct kfdtrace_bpf *skel, struct proc_row **rows)
{
	int fd = bpf_map__fd(skel->maps.ioctl_stats), n = 0, cap = 0;
	struct kt_ioctl_key key, next, *prev = NULL;
	struct proc_row *r = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (n == cap) {
			struct proc_row *nr;

			cap = cap ? 2 * cap : 64;
			nr = realloc(r, cap * sizeof(*r));
			if (!nr) {
				free(r);
				return -ENOMEM;
			}
			r = nr;
		}
		if (!bpf_map_lookup_elem(fd, &next, &r[n].st)) {
			r[n].key = next;
			n++;
		}
		key = next;
		prev = &key;
	}
	qsort(r, n, sizeof(*r), row_cmp);
	*rows = r;
	return n;
}

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

static void print_memory(FILE *f, const struct totals *t)
{
	const __u64 *c = t->counts;
	int i;

	if (live[G_HMM])
		fprintf(f,
			"\nhmm_range_fault: %llu calls, %llu pages, %llu -EBUSY, %llu other errors\n",
			(unsigned long long)c[KT_HMM_CALLS], (unsigned long long)c[KT_HMM_PAGES],
			(unsigned long long)c[KT_HMM_EBUSY], (unsigned long long)c[KT_HMM_ERRORS]);
	if (live[G_NOTIFIER])
		fprintf(f, "interval notifiers: %llu inserted, %llu removed\n",
			(unsigned long long)c[KT_NOTIFIER_INSERT],
			(unsigned long long)c[KT_NOTIFIER_REMOVE]);
	if (live[G_HELPER]) {
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
				(unsigned long long)t->events[i]);
		fprintf(f, "), %llu of windows that hit only gaps; %llu ranges evicted; ",
			(unsigned long long)c[KT_INVALIDATE_GAP],
			(unsigned long long)c[KT_EVICT_RANGES]);
		fprintf(f, "%llu restores (%llu failed): %llu window walks, %llu hmm calls\n",
			(unsigned long long)c[KT_RESTORES],
			(unsigned long long)c[KT_RESTORE_ERRORS],
			(unsigned long long)c[KT_RESTORE_WINDOWS],
			(unsigned long long)c[KT_RESTORE_CALLS]);
	}
	if (live[G_EMU])
		fprintf(f,
			"emulated device: %llu evictions, %llu restores, %llu accesses (%llu failed)\n",
			(unsigned long long)c[KT_EMU_EVICTS],
			(unsigned long long)c[KT_EMU_RESTORES],
			(unsigned long long)c[KT_EMU_ACCESS],
			(unsigned long long)c[KT_EMU_ACCESS_ERRORS]);
	if (live[G_AMDGPU])
		fprintf(f, "amdgpu: %llu userptr evictions, %llu restore works, %llu resumes\n",
			(unsigned long long)c[KT_AMDGPU_EVICTS],
			(unsigned long long)c[KT_AMDGPU_RESTORE_WORKS],
			(unsigned long long)c[KT_AMDGPU_RESUMES]);
	if (live[G_HMM])
		print_hist(f, "hmm_range_fault latency", t->hists[KT_H_HMM].slots);
	if (live[G_HELPER]) {
		print_hist(f, "refault latency (a range faulted again, retries included)",
			   t->hists[KT_H_REFAULT].slots);
		print_hist(f, "populate (restore_begin..end) latency",
			   t->hists[KT_H_RESTORE].slots);
		print_hist(f, "first eviction -> restore latency",
			   t->hists[KT_H_EVICT_RESTORE].slots);
	}
	if (live[G_AMDGPU])
		print_hist(f, "amdgpu restore worker latency", t->hists[KT_H_AMDGPU_RESTORE].slots);
}

static __u64 calls_of(const struct totals *t, enum kt_class a, enum kt_class b)
{
	return t->cls[a].calls + t->cls[b].calls;
}

/* the derived numbers, named as in the JSON and in check expressions */
struct summary {
	__u64 userptr_alloc, batch_alloc, other_alloc, free, other, total, errors;
	__u64 registered;
	double per_range, ms;
};

static void summarize(const struct totals *t, struct summary *s)
{
	int c;

	memset(s, 0, sizeof(*s));
	s->userptr_alloc = calls_of(t, KT_KFD_USERPTR, KT_EMU_USERPTR);
	s->batch_alloc = calls_of(t, KT_KFD_BATCH, KT_EMU_BATCH);
	s->other_alloc = t->cls[KT_KFD_ALLOC_OTHER].calls;
	s->free = calls_of(t, KT_KFD_FREE_MEM, KT_EMU_FREE_MEM);
	s->other = calls_of(t, KT_KFD_OTHER, KT_EMU_OTHER);
	for (c = 0; c < KT_NR_CLASSES; c++) {
		s->total += t->cls[c].calls;
		s->errors += t->cls[c].errors;
	}
	s->registered = t->cls[KT_KFD_USERPTR].ranges + t->cls[KT_KFD_BATCH].ranges +
			t->cls[KT_EMU_USERPTR].ranges + t->cls[KT_EMU_BATCH].ranges;
	/* registration ioctls per registered range: 1 per range, 1/N batched */
	if (s->registered)
		s->per_range = (double)(s->userptr_alloc + s->batch_alloc) / s->registered;
	s->ms = (t->cls[KT_KFD_USERPTR].ns + t->cls[KT_KFD_BATCH].ns +
		 t->cls[KT_EMU_USERPTR].ns + t->cls[KT_EMU_BATCH].ns) / 1e6;
}

static void print_report(FILE *f, const struct totals *t, const struct proc_row *rows,
			 int n)
{
	struct kt_ioctl_stat reg = {};
	struct summary s;
	int i;

	fprintf(f, "%-8s %-16s %-16s %10s %8s %10s %12s\n", "TGID", "COMM", "IOCTL",
		"CALLS", "ERRORS", "RANGES", "TOTAL_MS");
	for (i = 0; i < n; i++)
		fprintf(f, "%-8u %-16.16s %-16s %10llu %8llu %10llu %12.3f\n",
			rows[i].key.tgid, rows[i].st.comm, class_names[rows[i].key.class],
			(unsigned long long)rows[i].st.calls,
			(unsigned long long)rows[i].st.errors,
			(unsigned long long)rows[i].st.ranges, rows[i].st.ns / 1e6);
	summarize(t, &s);
	fprintf(f, "\n%llu ranges registered by %llu per-range and %llu batch calls",
		(unsigned long long)s.registered, (unsigned long long)s.userptr_alloc,
		(unsigned long long)s.batch_alloc);
	fprintf(f, " (%.4f registration ioctls per range) in %.3f ms; %llu ioctls, %llu failed\n",
		s.per_range, s.ms, (unsigned long long)s.total, (unsigned long long)s.errors);
	for (i = KT_KFD_USERPTR; i <= KT_KFD_BATCH; i++) {
		add_stat(&reg, &t->cls[i]);
		add_stat(&reg, &t->cls[i + KT_EMU_USERPTR]);
	}
	print_hist(f, "registration ioctl latency", reg.hist);
	print_memory(f, t);
	if (live[G_HELPER] || live[G_EMU])
		kt_verdict_print(f, &verdict, t->counts[KT_EVENTS_LOST]);
}

static void json_stat(FILE *f, const char *name, const struct kt_ioctl_stat *s, bool last)
{
	fprintf(f, "\t\t\"%s\": {\"calls\": %llu, \"errors\": %llu, ", name,
		(unsigned long long)s->calls, (unsigned long long)s->errors);
	fprintf(f, "\"ranges\": %llu, \"ns\": %llu}%s\n",
		(unsigned long long)s->ranges, (unsigned long long)s->ns, last ? "" : ",");
}

/* the upper bound (us) of the log2 bucket holding the pct-th percentile */
static double percentile(const struct kt_hist_val *h, double pct)
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
			return (double)((1ULL << (i + 1)) - 1);
	}
	return 0;
}

/* "name": {"a": 1, "b": 2}, from parallel arrays */
static void json_obj(FILE *f, const char *name, const char *const *keys, const double *vals,
		     int n, bool last)
{
	int i;

	fprintf(f, "\t\"%s\": {", name);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\": %.10g", i ? ", " : "", keys[i], vals[i]);
	fprintf(f, "}%s\n", last ? "" : ",");
}

static void json_memory(FILE *f, const struct totals *t)
{
	const __u64 *c = t->counts;
	const struct kt_hist_val *h = t->hists;
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
	double v[16];
	__u64 n = 0;
	int i;

	for (i = 0; i < G_NR; i++)
		v[i] = live[i];
	json_obj(f, "probes", group_names, v, G_NR, false);
	v[0] = c[KT_HMM_CALLS];
	v[1] = c[KT_HMM_PAGES];
	v[2] = c[KT_HMM_EBUSY];
	v[3] = c[KT_HMM_ERRORS];
	v[4] = percentile(&h[KT_H_HMM], 50);
	v[5] = percentile(&h[KT_H_HMM], 99);
	json_obj(f, "hmm", hmm_k, v, 6, false);
	v[0] = c[KT_NOTIFIER_INSERT];
	v[1] = c[KT_NOTIFIER_REMOVE];
	json_obj(f, "notifier", notif_k, v, 2, false);
	v[0] = c[KT_BATCH_CREATE];
	v[1] = c[KT_BATCH_DESTROY];
	json_obj(f, "batch", batch_k, v, 2, false);
	v[0] = c[KT_REFAULTS];
	v[1] = c[KT_REFAULT_RETRIES];
	v[2] = c[KT_REFAULT_ERRORS];
	v[3] = percentile(&h[KT_H_REFAULT], 50);
	v[4] = percentile(&h[KT_H_REFAULT], 99);
	json_obj(f, "refault", refault_k, v, 5, false);
	fprintf(f, "\t\"invalidate\": {\"total\": %llu, \"gap\": %llu",
		(unsigned long long)c[KT_INVALIDATE],
		(unsigned long long)c[KT_INVALIDATE_GAP]);
	for (i = 0; i < KT_NR_EVENTS; i++)
		if (event_names[i])
			fprintf(f, ", \"%s\": %llu", event_names[i],
				(unsigned long long)t->events[i]);
	fprintf(f, "},\n");
	v[0] = c[KT_EVICT_RANGES];
	v[1] = c[KT_EMU_EVICTS];
	v[2] = c[KT_AMDGPU_EVICTS];
	json_obj(f, "evict", evict_k, v, 3, false);
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
	json_obj(f, "restore", restore_k, v, 16, false);
	v[0] = c[KT_EMU_EVICTS];
	v[1] = c[KT_EMU_RESTORES];
	v[2] = c[KT_EMU_ACCESS];
	v[3] = c[KT_EMU_ACCESS_ERRORS];
	json_obj(f, "emu", emu_k, v, 4, false);
}

static void json_u64(FILE *f, const char *name, __u64 v)
{
	fprintf(f, "\t\t\"%s\": %llu,\n", name, (unsigned long long)v);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int write_json(const char *path, const struct totals *t, const struct proc_row *rows,
		      int n)
{
	FILE *f = fopen(path, "w");
	struct summary s;
	int c, i;

	if (!f) {
		fprintf(stderr, "kfdtrace: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	summarize(t, &s);
	fprintf(f, "{\n\t\"kfdtrace\": 1,\n\t\"seconds\": %.6f,\n\t\"status\": %d,\n",
		t->seconds, t->status);
	json_memory(f, t);
	kt_verdict_json(f, &verdict, t->counts[KT_EVENTS_LOST]);
	fprintf(f, "\t\"ioctl\": {\n");
	json_u64(f, "userptr_alloc", s.userptr_alloc);
	json_u64(f, "batch_alloc", s.batch_alloc);
	json_u64(f, "other_alloc", s.other_alloc);
	json_u64(f, "free", s.free);
	json_u64(f, "other", s.other);
	json_u64(f, "total", s.total);
	json_u64(f, "errors", s.errors);
	for (c = 0; c < KT_NR_CLASSES; c++)
		json_stat(f, class_names[c], &t->cls[c], c == KT_NR_CLASSES - 1);
	fprintf(f, "\t},\n\t\"ranges\": {\"registered\": %llu, ",
		(unsigned long long)s.registered);
	fprintf(f, "\"ioctls_per_range\": %.9g, \"registration_ms\": %.6f},\n",
		s.per_range, s.ms);
	fprintf(f, "\t\"processes\": [");
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\n\t\t{\"tgid\": %u, \"comm\": ", i ? "," : "", rows[i].key.tgid);
		json_string(f, rows[i].st.comm);
		fprintf(f, ", \"ioctl\": \"%s\", \"calls\": %llu, \"errors\": %llu, ",
			class_names[rows[i].key.class], (unsigned long long)rows[i].st.calls,
			(unsigned long long)rows[i].st.errors);
		fprintf(f, "\"ranges\": %llu, \"ns\": %llu}",
			(unsigned long long)rows[i].st.ranges, (unsigned long long)rows[i].st.ns);
	}
	fprintf(f, "\n\t]\n}\n");
	if (fclose(f)) {
		fprintf(stderr, "kfdtrace: %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* libbpf attaches tracepoints through tracefs: mount it if nobody did */
static void ensure_tracefs(void)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events", &st) ||
	    !stat("/sys/kernel/debug/tracing/events", &st))
		return;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && env.verbose)
		fprintf(stderr, "kfdtrace: mounting tracefs: %s\n", strerror(errno));
}

static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int totals_from(struct kfdtrace_bpf *skel, struct totals *t,
		       struct proc_row **rows)
{
	int i, n = read_rows(skel, rows);
	__u32 k;

	if (n < 0)
		return n;
	memset(t->cls, 0, sizeof(t->cls));
	for (i = 0; i < n; i++)
		add_stat(&t->cls[(*rows)[i].key.class], &(*rows)[i].st);
	for (k = 0; k < KT_NR_COUNTS; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &k, &t->counts[k]))
			t->counts[k] = 0;
	for (k = 0; k < KT_NR_EVENTS; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.inval_events), &k, &t->events[k]))
			t->events[k] = 0;
	for (k = 0; k < KT_NR_HISTS; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hists), &k, &t->hists[k]))
			memset(&t->hists[k], 0, sizeof(t->hists[k]));
	return n;
}

struct prog_info {
	const char *name;	/* BPF program */
	enum group group;
	int flavour;		/* 0 any, 1 fentry, 2 kprobe */
	const char *target;	/* what must exist: see target_exists() */
};

static const struct prog_info progs[] = {
	{ "kt_fork", G_IOCTL, 0, NULL },
	{ "kt_ioctl_enter", G_IOCTL, 0, NULL },
	{ "kt_ioctl_exit", G_IOCTL, 0, NULL },
	{ "kt_hmm_fentry", G_HMM, 1, "fn:hmm_range_fault" },
	{ "kt_hmm_fexit", G_HMM, 1, "fn:hmm_range_fault" },
	{ "kt_hmm_kprobe", G_HMM, 2, "fn:hmm_range_fault" },
	{ "kt_hmm_kretprobe", G_HMM, 2, "fn:hmm_range_fault" },
	{ "kt_insert_fentry", G_NOTIFIER, 1, "fn:mmu_interval_notifier_insert" },
	{ "kt_remove_fentry", G_NOTIFIER, 1, "fn:mmu_interval_notifier_remove" },
	{ "kt_insert_kprobe", G_NOTIFIER, 2, "fn:mmu_interval_notifier_insert" },
	{ "kt_remove_kprobe", G_NOTIFIER, 2, "fn:mmu_interval_notifier_remove" },
	{ "kt_create", G_HELPER, 0, "tp:drm_userptr/drm_userptr_create" },
	{ "kt_destroy", G_HELPER, 0, "tp:drm_userptr/drm_userptr_destroy" },
	{ "kt_refault", G_HELPER, 0, "tp:drm_userptr/drm_userptr_range_refault" },
	{ "kt_invalidate", G_HELPER, 0, "tp:drm_userptr/drm_userptr_invalidate" },
	{ "kt_invalidate_gap", G_HELPER, 0, "tp:drm_userptr/drm_userptr_invalidate_gap" },
	{ "kt_evict", G_HELPER, 0, "tp:drm_userptr/drm_userptr_evict" },
	{ "kt_restore_end", G_HELPER, 0, "tp:drm_userptr/drm_userptr_restore_end" },
	{ "kt_emu_evict", G_EMU, 0, "tp:userptr_emu/userptr_emu_evict" },
	{ "kt_emu_restore", G_EMU, 0, "tp:userptr_emu/userptr_emu_restore" },
	{ "kt_emu_access", G_EMU, 0, "tp:userptr_emu/userptr_emu_access" },
	{ "kt_amdgpu_evict", G_AMDGPU, 0, "amdgpu:amdgpu_amdkfd_evict_userptr" },
	{ "kt_amdgpu_restore_enter", G_AMDGPU, 0, "amdgpu:amdgpu_amdkfd_restore_userptr_worker" },
	{ "kt_amdgpu_restore_exit", G_AMDGPU, 0, "amdgpu:amdgpu_amdkfd_restore_userptr_worker" },
	{ "kt_amdgpu_resume", G_AMDGPU, 0, "amdgpu:kgd2kfd_resume_mm" },
};

static struct bpf_link *links[64];
static int nlinks;

#define AMDGPU_BTF "/sys/kernel/btf/amdgpu"

/*
 * The kernel's BTF, parsed on the first question that needs it. The
 * skeleton's load parses vmlinux BTF anyway; a parse of our own adds about
 * a second to the start-up in the TCG guest (7 to 8 s). With the helper's
 * tracepoints there and no -a, nothing asks; amdgpu's BTF (and vmlinux's
 * under it) is parsed only when amdgpu is loaded.
 */
static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		btf = btf__load_vmlinux_btf();	/* NULL on error (libbpf 1.x) */
	}
	return btf;
}

static struct btf *amdgpu_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		if (!access(AMDGPU_BTF, R_OK) && vmlinux_btf())
			btf = btf__parse_split(AMDGPU_BTF, vmlinux_btf());
	}
	return btf;
}

static bool btf_has_func(struct btf *btf, const char *fn)
{
	return btf && btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) > 0;
}

/* fn:NAME in vmlinux BTF, tp:SYS/EVENT in tracefs, amdgpu:NAME in its BTF */
static bool target_exists(const char *t)
{
	char path[256];
	struct stat st;

	if (!t)
		return true;
	if (!strncmp(t, "fn:", 3))
		return btf_has_func(vmlinux_btf(), t + 3);
	if (!strncmp(t, "amdgpu:", 7))
		return btf_has_func(amdgpu_btf(), t + 7);
	if (!strncmp(t, "tp:", 3)) {
		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", t + 3);
		if (!stat(path, &st))
			return true;
		snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s", t + 3);
		return !stat(path, &st);
	}
	return false;
}

/*
 * The HMM and notifier probes run per call: three trampolines for each
 * range registered one by one. Where the helper's tracepoints exist they
 * already count a batch's faulted ranges, windows and hmm_range_fault()
 * calls (restore_end) and time each range faulted again (range_refault),
 * and create reports a batch's notifiers (windows), so these load on
 * request (-a) only, to time each hmm_range_fault() call and to prove the
 * notifier count;
 * without the helper (a kernel without the series) they are the only view
 * of faults and notifiers, and load by default.
 */
static bool group_wanted(enum group g)
{
	if (g != G_HMM && g != G_NOTIFIER)
		return true;
	return env.all_probes || !target_exists("tp:drm_userptr/drm_userptr_create");
}

/*
 * Opens and loads the skeleton with every program whose target exists and
 * whose group is wanted: HMM and notifier programs as fentry first, as
 * kprobes if the kernel refuses that, and without them if it refuses both.
 */
static struct kfdtrace_bpf *open_and_load(pid_t tgid)
{
	struct kfdtrace_bpf *skel;
	unsigned int i;
	int flavour, err = 0;

	for (flavour = 1; flavour <= 3; flavour++) {
		skel = kfdtrace_bpf__open();
		if (!skel) {
			fprintf(stderr, "kfdtrace: cannot open the BPF object: %s\n",
				strerror(errno));
			return NULL;
		}
		skel->rodata->filter_tgid = tgid != 0;
		for (i = 0; i < ARRAY_SIZE(progs); i++) {
			struct bpf_program *p;
			bool on = group_wanted(progs[i].group) &&
				  target_exists(progs[i].target) &&
				  (!progs[i].flavour || progs[i].flavour == flavour);

			p = bpf_object__find_program_by_name(skel->obj, progs[i].name);
			if (p)
				bpf_program__set_autoload(p, on);
		}
		err = kfdtrace_bpf__load(skel);
		if (!err)
			break;
		if (env.verbose)
			fprintf(stderr, "kfdtrace: load with probe flavour %d: %s\n",
				flavour, strerror(-err));
		kfdtrace_bpf__destroy(skel);
		skel = NULL;
	}
	if (!skel) {
		fprintf(stderr, "kfdtrace: cannot load the probes: %s\n", strerror(-err));
		return NULL;
	}
	if (tgid) {
		__u32 key = tgid;
		__u8 one = 1;

		if (bpf_map__update_elem(skel->maps.follow, &key, sizeof(key), &one,
					 sizeof(one), BPF_ANY)) {
			kfdtrace_bpf__destroy(skel);
			return NULL;
		}
	}
	return skel;
}

/* attaches what loaded; a group is live when all its loaded programs are */
static int attach_all(struct kfdtrace_bpf *skel, bool quiet)
{
	bool tried[G_NR] = {}, failed[G_NR] = {};
	unsigned int i;
	int g;

	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		struct bpf_program *p;
		struct bpf_link *l;

		p = bpf_object__find_program_by_name(skel->obj, progs[i].name);
		if (!p || !bpf_program__autoload(p))
			continue;
		tried[progs[i].group] = true;
		l = bpf_program__attach(p);
		if (!l || libbpf_get_error(l)) {
			failed[progs[i].group] = true;
			if (env.verbose)
				fprintf(stderr, "kfdtrace: cannot attach %s\n", progs[i].name);
			continue;
		}
		if (nlinks < (int)ARRAY_SIZE(links))
			links[nlinks++] = l;
	}
	for (g = 0; g < G_NR; g++)
		live[g] = tried[g] && !failed[g];
	if (!live[G_IOCTL]) {
		fprintf(stderr, "kfdtrace: cannot attach the ioctl probes\n");
		return -ENOENT;
	}
	if (!quiet) {
		fprintf(stderr, "kfdtrace: probes live:");
		for (g = 0; g < G_NR; g++)
			if (live[g])
				fprintf(stderr, " %s", group_names[g]);
		fprintf(stderr, "\n");
	}
	return 0;
}

/*
 * --probe-cost: what each attached program cost, from the kernel's BPF
 * run-time statistics (counted only while the fd of bpf_enable_stats() is
 * open). It is the programs' own time: the kprobe, trampoline or
 * tracepoint dispatch around them and the ring buffer's reader are not in
 * it, which is why the overhead benchmark times the workload as well.
 */
static void print_probe_cost(struct kfdtrace_bpf *skel)
{
	__u64 runs = 0, ns = 0;
	unsigned int i;

	fprintf(stderr, "%-28s %12s %12s %10s\n", "probe", "runs", "total_us", "ns/run");
	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct bpf_program *p;

		p = bpf_object__find_program_by_name(skel->obj, progs[i].name);
		if (!p || bpf_program__fd(p) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) || !info.run_cnt)
			continue;
		fprintf(stderr, "%-28s %12llu %12.1f %10.0f\n", progs[i].name,
			(unsigned long long)info.run_cnt, info.run_time_ns / 1e3,
			(double)info.run_time_ns / info.run_cnt);
		runs += info.run_cnt;
		ns += info.run_time_ns;
	}
	fprintf(stderr, "%-28s %12llu %12.1f %10.0f\n", "all", (unsigned long long)runs,
		ns / 1e3, runs ? (double)ns / runs : 0.0);
}

/*
 * Loads and attaches the probes, runs CMD (or follows PID, or the whole
 * system) until it ends, -d passes or SIGINT, and fills *t. Returns 0 or
 * a negative errno; the report goes to stdout, the JSON to -o.
 */
static int record(struct totals *t, bool quiet)
{
	struct kfdtrace_bpf *skel;
	struct ring_buffer *rb = NULL;
	struct proc_row *rows = NULL;
	int go[2] = { -1, -1 }, stats_fd = -1, n, err, i;
	pid_t child = 0;
	double start, next;

	libbpf_set_print(libbpf_print);
	ensure_tracefs();
	t->status = -1;

	if (env.cmd) {
		if (pipe(go))
			return -errno;
		child = fork();
		if (child < 0)
			return -errno;
		if (!child) {
			char c;

			close(go[1]);
			/* start only once the probes are live */
			if (read(go[0], &c, 1) != 1)
				_exit(127);
			close(go[0]);
			execvp(env.cmd[0], env.cmd);
			fprintf(stderr, "kfdtrace: %s: %s\n", env.cmd[0], strerror(errno));
			_exit(127);
		}
		close(go[0]);
	}

	skel = open_and_load(child ? child : env.pid);
	if (!skel) {
		err = -ENOENT;
		goto out_child;
	}
	err = attach_all(skel, quiet);
	if (err)
		goto out_skel;
	err = kt_verdict_init(&verdict);
	if (err)
		goto out_skel;
	if (env.probe_cost) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			err = stats_fd;
			fprintf(stderr, "kfdtrace: --probe-cost: %s: %s\n",
				"cannot enable BPF run-time statistics", strerror(-err));
			goto out_skel;
		}
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "kfdtrace: cannot open the event ring buffer\n");
		goto out_skel;
	}

	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	signal(SIGCHLD, sigchld_handler);
	start = now();
	next = start + env.interval;
	if (child && write(go[1], "g", 1) != 1) {
		err = -EPIPE;
		goto out_skel;
	}
	if (child)
		close(go[1]);
	go[1] = -1;

	while (!exiting) {
		int status;

		if (child && waitpid(child, &status, WNOHANG) == child) {
			t->status = exit_status(status);
			child = 0;
			break;
		}
		if (env.pid && kill(env.pid, 0) && errno == ESRCH)
			break;
		if (env.duration && now() - start >= env.duration)
			break;
		if (env.interval && now() >= next) {
			ring_buffer__consume(rb);
			n = totals_from(skel, t, &rows);
			if (n >= 0)
				print_report(stdout, t, rows, n);
			free(rows);
			rows = NULL;
			printf("\n");
			fflush(stdout);
			next += env.interval;
		}
		/*
		 * The probes wake the reader only past KT_WAKEUP_BYTES: a
		 * short poll would wake it (and switch the workload out, on
		 * one CPU) 100 times a second for nothing. SIGCHLD ends the
		 * poll when the command exits.
		 */
		ring_buffer__poll(rb, KT_POLL_MS);
	}
	t->seconds = now() - start;
	ring_buffer__consume(rb);
	kt_verdict_finish(&verdict, (__u64)(now() * 1e9));
	n = totals_from(skel, t, &rows);
	if (n < 0) {
		err = n;
		goto out_skel;
	}
	if (!quiet)
		print_report(stdout, t, rows, n);
	if (stats_fd >= 0)
		print_probe_cost(skel);
	if (env.out)
		err = write_json(env.out, t, rows, n);
	free(rows);
out_skel:
	if (stats_fd >= 0)
		close(stats_fd);
	ring_buffer__free(rb);
	kt_verdict_free(&verdict);
	for (i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	kfdtrace_bpf__destroy(skel);
out_child:
	if (go[1] >= 0)
		close(go[1]);
	if (child > 0) {
		int status;

		/* interrupted: the command goes on without the probes */
		if (waitpid(child, &status, exiting ? WNOHANG : 0) == child)
			t->status = exit_status(status);
	}
	return err;
}

/* check: PATH OP VALUE over the JSON; see the usage text */
static int check_one(const struct kt_doc *doc, const char *expr)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">" };
	char path[128], *end;
	const char *p = expr, *val;
	const struct kt_field *f;
	size_t len;
	double want;
	bool ok;
	int op;

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

	f = kt_doc_get(doc, path);
	if (!f) {
		printf("FAIL %s: no field \"%s\"\n", expr, path);
		return 1;
	}
	if (*val == '"') {
		len = strlen(val);
		if (len < 2 || val[len - 1] != '"' || op > 1)
			return -EINVAL;
		ok = f->is_str && strlen(f->str) == len - 2 && !strncmp(f->str, val + 1, len - 2);
		if (op == 1)
			ok = !ok;
	} else {
		want = strtod(val, &end);
		while (*end == ' ')
			end++;
		if (end == val || *end)
			return -EINVAL;
		if (f->is_str) {
			printf("FAIL %s: %s is a string (\"%s\")\n", expr, path, f->str);
			return 1;
		}
		if (op == 0)
			ok = f->num == want;
		else if (op == 1)
			ok = f->num != want;
		else if (op == 2)
			ok = f->num <= want;
		else if (op == 3)
			ok = f->num >= want;
		else if (op == 4)
			ok = f->num < want;
		else
			ok = f->num > want;
	}
	if (f->is_str)
		printf("%s %s (%s = \"%s\")\n", ok ? "ok  " : "FAIL", expr, path, f->str);
	else
		printf("%s %s (%s = %.10g)\n", ok ? "ok  " : "FAIL", expr, path, f->num);
	return ok ? 0 : 1;
}

static int cmd_check(const char *file)
{
	char err[256], tmp[] = "/tmp/kfdtrace-check-XXXXXX";
	struct kt_doc doc;
	int i, ret, failed = 0;

	if (!env.nexpect) {
		fprintf(stderr, "kfdtrace check: no --expect\n");
		return 2;
	}
	if (!file) {
		struct totals t = {};
		int fd = mkstemp(tmp);

		if (fd < 0)
			return 2;
		close(fd);
		env.out = tmp;
		ret = record(&t, false);
		if (ret) {
			unlink(tmp);
			return 2;
		}
		file = tmp;
	}
	ret = kt_json_load(file, &doc, err, sizeof(err));
	if (file == tmp)
		unlink(tmp);
	if (ret) {
		fprintf(stderr, "kfdtrace check: %s\n", err);
		return 2;
	}
	for (i = 0; i < env.nexpect; i++) {
		ret = check_one(&doc, env.expect[i]);
		if (ret < 0) {
			fprintf(stderr, "kfdtrace check: cannot parse \"%s\" (PATH OP VALUE)\n",
				env.expect[i]);
			kt_doc_free(&doc);
			return 2;
		}
		failed += ret;
	}
	kt_doc_free(&doc);
	return failed ? 1 : 0;
}

static double num_of(const struct kt_doc *d, const char *key)
{
	const struct kt_field *f = kt_doc_get(d, key);

	return f && !f->is_str ? f->num : NAN;
}

/*
 * A field of a probe group that was not live in that run (hmm.calls when
 * probes.hmm is 0, as without -a where the helper traces): "off" in the
 * table, not a 0 that reads as "none happened". The group is the key's
 * first part; keys with no group of that name are never off.
 */
static bool field_off(const struct kt_doc *d, const char *key)
{
	const char *dot = strchr(key, '.');
	char probe[48];

	if (!dot)
		return false;
	snprintf(probe, sizeof(probe), "probes.%.*s", (int)(dot - key), key);
	return num_of(d, probe) == 0;
}

/* one column of compare's table: the value, or "off"; returns it (NAN if off) */
static double print_cell(const struct kt_doc *d, const char *key)
{
	double v;

	if (field_off(d, key)) {
		printf("%16s ", "off");
		return NAN;
	}
	v = num_of(d, key);
	printf("%16.6g ", v);
	return v;
}

static int cmd_compare(const char *a, const char *b)
{
	static const char *const keys[] = {
		"ranges.registered", "ioctl.userptr_alloc", "ioctl.batch_alloc",
		"ranges.ioctls_per_range", "ioctl.total", "ioctl.errors",
		"ranges.registration_ms", "hmm.calls", "restore.faulted", "refault.ranges",
		"refault.p99_us", "notifier.insert",
		"invalidate.total", "evict.emu", "evict.amdgpu",
		"restore.evict_to_restore_p50_us", "restore.evict_to_restore_p99_us",
		"verdict.eviction", "verdict.violations", "seconds",
	};
	double pa, pb, ra, rb;
	struct kt_doc da, db;
	char err[256];
	unsigned int i;

	if (kt_json_load(a, &da, err, sizeof(err))) {
		fprintf(stderr, "kfdtrace compare: %s\n", err);
		return 2;
	}
	if (kt_json_load(b, &db, err, sizeof(err))) {
		fprintf(stderr, "kfdtrace compare: %s\n", err);
		kt_doc_free(&da);
		return 2;
	}
	printf("%-32s %16s %16s %10s\n", "", "BASE", "NEW", "BASE/NEW");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct kt_field *x = kt_doc_get(&da, keys[i]);
		const struct kt_field *y = kt_doc_get(&db, keys[i]);
		double vx, vy;

		if ((x && x->is_str) || (y && y->is_str)) {
			printf("%-32s %16s %16s %10s\n", keys[i], x && x->is_str ? x->str : "-",
			       y && y->is_str ? y->str : "-", "-");
			continue;
		}
		printf("%-32s ", keys[i]);
		vx = print_cell(&da, keys[i]);
		vy = print_cell(&db, keys[i]);
		if (vy != 0 && !isnan(vx) && !isnan(vy))
			printf("%10.2f\n", vx / vy);
		else
			printf("%10s\n", "-");
	}
	/* the two numbers the comparison is for, from the counts */
	pa = (num_of(&da, "ioctl.userptr_alloc") + num_of(&da, "ioctl.batch_alloc")) /
	     num_of(&da, "ranges.registered");
	pb = (num_of(&db, "ioctl.userptr_alloc") + num_of(&db, "ioctl.batch_alloc")) /
	     num_of(&db, "ranges.registered");
	ra = num_of(&da, "ranges.registration_ms");
	rb = num_of(&db, "ranges.registration_ms");
	/* (no range registered: no ratio, rather than inf and nan) */
	if (pa > 0 && pb > 0 && isfinite(pa) && isfinite(pb))
		printf("registration syscalls per range: %.6g -> %.6g (%.0fx fewer)\n",
		       pa, pb, pa / pb);
	if (ra > 0 && rb > 0)
		printf("time in registration ioctls: %.1f ms -> %.1f ms (%.2fx)\n",
		       ra, rb, ra / rb);
	kt_doc_free(&da);
	kt_doc_free(&db);
	return 0;
}

const char *argp_program_version = "kfdtrace 0.1";
static const char doc[] =
"Trace userptr registration ioctls of amdkfd and the emulated device.\n"
"\n"
"  kfdtrace record [-a] [-p PID] [-d SECONDS] [-i SECONDS] [-o FILE.json] [-c] [-- CMD...]\n"
"  kfdtrace compare BASE.json NEW.json\n"
"  kfdtrace check [-a] --expect EXPR... (FILE.json | -- CMD...)\n"
"\n"
"EXPR is PATH OP VALUE: PATH a field of the JSON (nested keys joined by\n"
"'.', array elements by their index), OP one of == != < <= > >=, VALUE a\n"
"number or a \"string\" (== and != only). Fields: ioctl.userptr_alloc,\n"
"ioctl.batch_alloc, ioctl.other_alloc, ioctl.free, ioctl.other,\n"
"ioctl.total, ioctl.errors, ioctl.CLASS.{calls,errors,ranges,ns} (CLASS:\n"
"kfd_userptr, kfd_batch, kfd_alloc_other, kfd_free, kfd_other, emu_userptr,\n"
"emu_batch, emu_free, emu_other), ranges.registered,\n"
"ranges.ioctls_per_range, ranges.registration_ms, seconds, status (the\n"
"command's exit status).\n"
"\n"
"check exits 0 when every EXPR holds, 1 when one does not (each is printed\n"
"with the value it saw), 2 on a usage or load error.\n"
"\n"
"Examples:\n"
"  kfdtrace record -o batch.json -- ./workload --batch\n"
"  kfdtrace check --expect 'ioctl.batch_alloc == 1' \\\n"
"                 --expect 'ranges.registered >= 4096' batch.json\n";

static const struct argp_option opts[] = {
	{ "pid", 'p', "PID", 0, "Trace this process only" },
	{ "duration", 'd', "SECONDS", 0, "Stop after this long" },
	{ "interval", 'i', "SECONDS", 0, "Print the report every SECONDS while tracing" },
	{ "output", 'o', "FILE", 0, "Write the results as JSON to FILE" },
	{ "expect", 'e', "EXPR", 0, "check: an assertion (repeatable)" },
	{ "verbose", 'v', NULL, 0, "Show libbpf's debug output" },
	{ "probe-cost", 'c', NULL, 0, "record: print each probe's runs and run time (stderr)" },
	{ "all-probes", 'a', NULL, 0,
	  "Probe hmm_range_fault and the notifiers even where the helper's tracepoints are" },
	{},
};

static int parse_count(const char *arg, struct argp_state *state)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > 0x7fffffff)
		argp_error(state, "%s is not a positive number", arg);
	return (int)v;
}

static const char **args;
static int nargs;

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		env.pid = parse_count(arg, state);
		break;
	case 'd':
		env.duration = parse_count(arg, state);
		break;
	case 'i':
		env.interval = parse_count(arg, state);
		break;
	case 'o':
		env.out = arg;
		break;
	case 'e':
		env.expect = realloc(env.expect, (env.nexpect + 1) * sizeof(*env.expect));
		if (!env.expect)
			argp_failure(state, 2, ENOMEM, "--expect");
		env.expect[env.nexpect++] = arg;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'c':
		env.probe_cost = true;
		break;
	case 'a':
		env.all_probes = true;
		break;
	case ARGP_KEY_ARG:
		args = realloc(args, (nargs + 1) * sizeof(*args));
		if (!args)
			argp_failure(state, 2, ENOMEM, "arguments");
		args[nargs++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, "record|compare|check [ARGS...]", doc };
	int dashdash = 0, i, err;
	struct totals t = {};
	const char *verb;

	/* everything after "--" is the command, untouched by argp */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	}
	if (dashdash) {
		env.cmd = &argv[dashdash + 1];
		if (!*env.cmd) {
			fprintf(stderr, "kfdtrace: no command after --\n");
			return 2;
		}
		argc = dashdash;
	}
	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (!nargs) {
		argp_help(&argp, stderr, ARGP_HELP_STD_USAGE, "kfdtrace");
		return 2;
	}
	verb = args[0];
	if (!strcmp(verb, "record")) {
		if (nargs != 1 || (env.cmd && env.pid)) {
			fprintf(stderr, "kfdtrace record: -p and a command exclude each other\n");
			return 2;
		}
		err = record(&t, false);
		if (err)
			return 2;
		return env.cmd ? t.status : 0;
	}
	if (!strcmp(verb, "compare")) {
		if (nargs != 3 || env.cmd) {
			fprintf(stderr, "kfdtrace compare: BASE.json NEW.json\n");
			return 2;
		}
		return cmd_compare(args[1], args[2]);
	}
	if (!strcmp(verb, "check")) {
		if (nargs > 2 || (nargs == 2 && env.cmd) || (nargs == 1 && !env.cmd)) {
			fprintf(stderr, "kfdtrace check: FILE.json or -- CMD, not both\n");
			return 2;
		}
		return cmd_check(nargs == 2 ? args[1] : NULL);
	}
	fprintf(stderr, "kfdtrace: unknown command \"%s\" (record, compare, check)\n", verb);
	return 2;
}
