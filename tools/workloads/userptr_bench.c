// SPDX-License-Identifier: GPL-2.0
/*
 * userptr-bench: the cost of registering a scattered memory layout with a
 * device, in three modes:
 *
 *   per-range   one allocation ioctl per range (userptr as it is today)
 *   batch       one batch ioctl for all ranges (the series)
 *   contiguous  the same sizes back to back in one mapping, one range: the
 *               reference without fragmentation
 *   gpusvm      (only with -m gpusvm) the ranges of the batch's layout
 *               registered in one ioctl as Xe registers userptrs on 7.3,
 *               a drm_gpusvm_pages and a notifier each, through the
 *               bench-only module userptr_gpusvm (tools/bench/gpusvm):
 *               registration and teardown only, the module reads nothing
 *
 * For each it measures registration, the first device access of every
 * range, the restore after invalidating k of the N ranges (MADV_DONTNEED,
 * then a device read of each: the read waits for the restore), and the
 * teardown. Every device read is checked against what the CPU wrote.
 * Prints a table of medians and writes JSON with medians, minima, maxima
 * and the ratios (per-range/batch, batch/contiguous).
 *
 * --gap-probe prices instead what one notifier over many ranges costs the
 * rest of the process: N ranges of a page with a page between neighbours,
 * MADV_DONTNEED of the N gap pages timed with the batch registered over
 * them and without, and the helper's kernel memory per range.
 *
 *   userptr-bench -n 4096 -s 4k -k 1 -k half -r 5 -o results.json
 *   userptr-bench -n 4096 --gap-probe -r 5 -o gaps.json
 *
 * --one-mapping scatters the ranges inside one mapping (a guest's RAM as
 * its host process maps it) instead of over the heap and many mappings.
 *   userptr-bench -n 4096 -s 4k --one-mapping -o guest.json
 *
 * --vma-per-range cuts the contiguous reference's mapping into a VMA per
 * range: one range still, over as many VMAs as the scattered layout's page
 * walk meets, which prices the VMAs apart from the gaps and the ranges.
 *   userptr-bench -n 4096 -s 4k -m batch -m contiguous --vma-per-range
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "layout.h"
#include "userptr.h"
#include "userptr_emu_uapi.h"

#define MAX_REPS	64
#define MAX_KS		4
#define PIECE		(64ULL << 20)
#define TIMEOUT_MS	60000

/*
 * render and render-per-range: the same batch, or a GEM userptr a range,
 * through the device's render node and taken over by its compute file
 * (libuserptr's UPR_MODE_RENDER*): two ioctls per object
 */
enum { PER_RANGE, BATCH, CONTIGUOUS, GPUSVM, RENDER, RENDER_PER_RANGE, NR_MODES };
static const char *const mode_name[NR_MODES] = {
	"per-range", "batch", "contiguous", "gpusvm", "render", "render-per-range"
};

enum { M_REGISTER, M_ACCESS, M_TEARDOWN, M_RESTORE };	/* + k index */
#define NR_METRICS	(M_RESTORE + MAX_KS)

static struct env {
	struct wl_args lay;
	unsigned int reps;
	unsigned int modes;	/* bit per mode */
	int ks[MAX_KS];		/* k, or -1 for N/2 */
	unsigned int nks;
	const char *json;
	enum upr_backend backend;
	bool no_warmup;
	bool gap_probe;
	bool one_mapping;
	bool vma_per_range;
	bool verbose;
} env = {
	.lay = { .n = 4096, .min_n = 1, .size = 4096, .seed = 1 },
	.reps = 3,
	.modes = 7, .backend = UPR_BACKEND_EMU,
};

/* seconds of each metric of each mode, per repetition */
static double t[NR_MODES][NR_METRICS][MAX_REPS];
static unsigned int calls[NR_MODES];
static unsigned int nranges[NR_MODES];
static int vmas[NR_MODES];	/* VMAs holding the ranges' pages */
static uint64_t gpusvm_bytes;	/* kernel memory userptr_gpusvm held */

static const char doc[] =
"Register a scattered layout of N ranges per range, as a batch and as one\n"
"contiguous range; time registration, first access, restore and teardown.\n"
"\n"
"USAGE: userptr-bench [-n N] [-s SIZE | -S MAX] [-k K]... [-r REPS] [-o FILE]\n"
"(default: -n 4096 -s 4k)\n"
"\n"
"EXAMPLES:\n"
"    userptr-bench -n 4096 -s 4k -k 1 -k half    # 4096 x 4 KiB\n"
"    userptr-bench -n 64 -S 1g --seed 7           # sizes 4 KiB..1 GiB\n";

static const struct argp_option opts[] = {
	{ "invalidate", 'k', "K", 0,
	  "Restore after invalidating K ranges ('half': N/2); repeatable" },
	{ "reps", 'r', "REPS", 0, "Repetitions (default 3)" },
	{ "mode", 'm', "MODE", 0,
	  "per-range, batch, contiguous, gpusvm, render or render-per-range; repeatable (default the first three)" },
	{ "output", 'o', "FILE", 0, "Write the results as JSON" },
	{ "backend", 'b', "DEV", 0, "emu (default) or kfd; restore and access need emu" },
	{ "no-warmup", 'W', NULL, 0,
	  "No untimed first round (tracing: the ioctls are then the run's alone)" },
	{ "one-mapping", 'M', NULL, 0,
	  "Scatter the ranges in one mapping, a page between neighbours (a guest's RAM)" },
	{ "vma-per-range", 'V', NULL, 0,
	  "Cut the contiguous mode's mapping into a VMA per range (still one range)" },
	{ "gap-probe", 'g', NULL, 0,
	  "Time MADV_DONTNEED of gap pages with and without a batch over them" },
	{ "verbose", 'v', NULL, 0, "Every repetition's times" },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static bool modes_given;
	unsigned int i;

	switch (key) {
	case 'k':
		if (env.nks == MAX_KS)
			argp_error(state, "at most %d -k", MAX_KS);
		env.ks[env.nks++] = strcmp(arg, "half") ? (int)strtoul(arg, NULL, 0) : -1;
		if (!env.ks[env.nks - 1])
			argp_error(state, "bad k '%s'", arg);
		break;
	case 'r':
		env.reps = strtoul(arg, NULL, 0);
		if (!env.reps || env.reps > MAX_REPS)
			argp_error(state, "reps: 1..%d", MAX_REPS);
		break;
	case 'm':
		if (!modes_given)
			env.modes = 0;
		modes_given = true;
		for (i = 0; i < NR_MODES; i++)
			if (!strcmp(arg, mode_name[i]))
				env.modes |= 1 << i;
		if (!env.modes)
			argp_error(state, "unknown mode '%s'", arg);
		break;
	case 'o':
		env.json = arg;
		break;
	case 'b':
		wl_backend_arg(arg, &env.backend, state);
		break;
	case 'W':
		env.no_warmup = true;
		break;
	case 'g':
		env.gap_probe = true;
		break;
	case 'M':
		env.one_mapping = true;
		break;
	case 'V':
		env.vma_per_range = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env.lay;
		break;
	case ARGP_KEY_ARG:
		argp_usage(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static unsigned int k_of(unsigned int i)
{
	unsigned int k = env.ks[i] < 0 ? env.lay.n / 2 : (unsigned int)env.ks[i];

	if (!k)
		k = 1;
	return k < env.lay.n ? k : env.lay.n;
}

/* device read of range i, checked against tag (its content) */
static int read_range(int fd, const struct layout *l, uint64_t va, unsigned int i,
		      uint64_t tag, void *buf)
{
	uint64_t off, n, base = va + wl_offset(l, i);
	int ret;

	for (off = 0; off < l->r[i].size; off += n) {
		n = l->r[i].size - off < PIECE ? l->r[i].size - off : PIECE;
		ret = wl_device_read(fd, base + off, buf, n, TIMEOUT_MS);
		if (ret) {
			fprintf(stderr, "device read of range %u: %s\n", i, strerror(-ret));
			return ret;
		}
		if (wl_check(buf, n, tag, off) >= 0) {
			fprintf(stderr, "range %u: the device read other data\n", i);
			return -EIO;
		}
	}
	return 0;
}

/* ranges to invalidate: k of n, spread evenly */
static unsigned int pick(unsigned int j, unsigned int k)
{
	return (unsigned int)((unsigned long long)j * env.lay.n / k);
}

/* the gpusvm mode: the batch's layout, timed as the other modes are */
static int run_gpusvm(const struct layout *l, unsigned int rep)
{
	int ret;

	ret = wl_gpusvm_round(l->r, l->n, &t[GPUSVM][M_REGISTER][rep],
			      &t[GPUSVM][M_TEARDOWN][rep], &gpusvm_bytes);
	if (ret)
		return ret;
	calls[GPUSVM] = 1;
	nranges[GPUSVM] = l->n;
	if (!rep)
		vmas[GPUSVM] = wl_vmas(l);
	return 0;
}

static int run_once(int mode, unsigned int rep,
		    const uint64_t *sizes, void *buf)
{
	struct upr_opts o = {
		.backend = env.backend,
		.mode = mode == PER_RANGE ? UPR_MODE_PER_RANGE :
			mode == RENDER ? UPR_MODE_RENDER :
			mode == RENDER_PER_RANGE ? UPR_MODE_RENDER_PER_RANGE : UPR_MODE_BATCH,
		.coalesce = mode == CONTIGUOUS,	/* back to back: one range */
	};
	struct upr_alloc *a = NULL;
	struct upr_dev *dev;
	struct layout l;
	unsigned int i, j, kk;
	double t0;
	int ret, fd;

	if (mode == CONTIGUOUS) {
		ret = wl_contiguous(&l, env.lay.n, sizes);
		if (!ret && env.vma_per_range) {
			ret = wl_vma_per_range(&l);
			if (ret)
				wl_free(&l);
		}
	} else if (env.one_mapping) {
		ret = wl_one_mapping(&l, env.lay.n, sizes, env.lay.seed);
	} else {
		ret = wl_scattered(&l, env.lay.n, sizes, env.lay.seed);
	}
	if (ret) {
		fprintf(stderr, "layout of %u ranges: %s\n", env.lay.n, strerror(-ret));
		return ret;
	}
	if (mode == GPUSVM) {
		ret = run_gpusvm(&l, rep);
		wl_free(&l);
		return ret;
	}
	ret = upr_open(&dev, &o);
	if (ret) {
		fprintf(stderr, "%s\n", upr_errmsg());
		wl_free(&l);
		return ret;
	}
	fd = upr_dev_fd(dev);

	t0 = wl_now();
	ret = upr_register(dev, l.r, l.n, 0, UPR_WRITABLE, &a);
	t[mode][M_REGISTER][rep] = wl_now() - t0;
	if (ret) {
		fprintf(stderr, "%s: %s\n", mode_name[mode], upr_errmsg());
		goto out;
	}
	calls[mode] = upr_alloc_calls(a);
	nranges[mode] = upr_alloc_ranges(a);
	/* every repetition builds the same layout: read its VMAs once */
	if (!rep)
		vmas[mode] = wl_vmas(&l);

	/* only the emulated device can read: a GPU would need a queue */
	if (upr_dev_backend(dev) != UPR_BACKEND_EMU)
		goto teardown;
	/* first access: every range once, the same reads in every mode */
	t0 = wl_now();
	for (i = 0; i < l.n && !ret; i++)
		ret = read_range(fd, &l, upr_alloc_va(a), i, i + 1, buf);
	t[mode][M_ACCESS][rep] = wl_now() - t0;

	/* restore: drop the pages of k ranges, read them: zeros now */
	for (j = 0; j < env.nks && !ret; j++) {
		unsigned int k = k_of(j);

		t0 = wl_now();
		for (kk = 0; kk < k && !ret; kk++) {
			i = pick(kk, k);
			if (madvise((void *)(uintptr_t)l.r[i].start, l.r[i].size, MADV_DONTNEED))
				ret = -errno;
		}
		for (kk = 0; kk < k && !ret; kk++) {
			i = pick(kk, k);
			ret = read_range(fd, &l, upr_alloc_va(a), i, WL_TAG_ZERO, buf);
		}
		t[mode][M_RESTORE + j][rep] = wl_now() - t0;
		/* the next k starts from the original content */
		for (kk = 0; kk < k; kk++) {
			i = pick(kk, k);
			wl_fill((void *)(uintptr_t)l.r[i].start, l.r[i].size, i + 1);
		}
	}

teardown:
	t0 = wl_now();
	if (upr_unregister(dev, a) && !ret) {
		fprintf(stderr, "%s\n", upr_errmsg());
		ret = -EIO;
	}
	t[mode][M_TEARDOWN][rep] = wl_now() - t0;
out:
	upr_close(dev);
	wl_free(&l);
	return ret;
}

struct stat3 {
	double med, min, max;	/* microseconds */
};

static struct stat3 stats(int mode, int metric)
{
	double v[MAX_REPS];
	unsigned int n = env.reps;
	struct stat3 s;

	memcpy(v, t[mode][metric], n * sizeof(v[0]));
	s.med = wl_median(v, n) * 1e6;
	s.min = v[0] * 1e6;
	s.max = v[n - 1] * 1e6;
	return s;
}

static int nr_metrics(void)
{
	return M_RESTORE + env.nks;
}

static const char *metric_name(int m, char *buf, size_t size)
{
	static const char *const names[] = { "register", "access", "teardown" };

	if (m < M_RESTORE)
		return names[m];
	snprintf(buf, size, "restore_k%u", k_of(m - M_RESTORE));
	return buf;
}

static double ratio(int a, int b, int metric)
{
	double d = stats(b, metric).med;

	return d > 0 ? stats(a, metric).med / d : 0;
}

static bool has(int mode)
{
	return env.modes & (1 << mode);
}

/* the gpusvm mode registers and frees: the module reads nothing */
static bool measured(int mode, int metric)
{
	return mode != GPUSVM || metric == M_REGISTER || metric == M_TEARDOWN;
}

static void print_table(void)
{
	char name[32];
	int mode, m;

	printf("%u ranges of %s, seed %llu, median of %u (ms)\n", env.lay.n,
	       env.lay.size ? "fixed size" : "mixed sizes",
	       (unsigned long long)env.lay.seed, env.reps);
	printf("%-16s %6s %6s", "mode", "ioctls", "VMAs");
	for (m = 0; m < nr_metrics(); m++)
		printf(" %13s", metric_name(m, name, sizeof(name)));
	printf("\n");
	for (mode = 0; mode < NR_MODES; mode++) {
		if (!has(mode))
			continue;
		printf("%-16s %6u %6d", mode_name[mode], calls[mode], vmas[mode]);
		for (m = 0; m < nr_metrics(); m++)
			if (measured(mode, m))
				printf(" %13.3f", stats(mode, m).med / 1e3);
			else
				printf(" %13s", "-");
		printf("\n");
	}
	if (has(PER_RANGE) && has(BATCH))
		printf("registration per-range/batch: %.2fx, ioctls %u -> %u\n",
		       ratio(PER_RANGE, BATCH, M_REGISTER), calls[PER_RANGE], calls[BATCH]);
	if (has(BATCH) && has(CONTIGUOUS))
		printf("registration batch/contiguous: %.2fx\n",
		       ratio(BATCH, CONTIGUOUS, M_REGISTER));
	if (has(GPUSVM) && has(BATCH))
		printf("registration gpusvm/batch: %.2fx, %.1f bytes a range held\n",
		       ratio(GPUSVM, BATCH, M_REGISTER), (double)gpusvm_bytes / env.lay.n);
	if (has(RENDER) && has(BATCH))
		printf("registration render/batch: %.2fx, ioctls %u -> %u\n",
		       ratio(RENDER, BATCH, M_REGISTER), calls[RENDER], calls[BATCH]);
	if (has(RENDER_PER_RANGE) && has(RENDER))
		printf("registration render-per-range/render: %.2fx, ioctls %u -> %u\n",
		       ratio(RENDER_PER_RANGE, RENDER, M_REGISTER), calls[RENDER_PER_RANGE],
		       calls[RENDER]);
}

static int write_json(const char *path, const char *device)
{
	struct utsname u;
	char name[32];
	int mode, m, written = 0;	/* modes written: a comma before the next */
	unsigned int r;
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	uname(&u);
	fprintf(f, "{\n  \"bench\": \"userptr-bench\",\n  \"kernel\": \"%s\",\n", u.release);
	/* the device's restore worker and the workload share them */
	fprintf(f, "  \"cpus\": %ld,\n", sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(f, "  \"device\": \"%s\",\n  \"n\": %u,\n  \"size\": %llu,\n", device,
		env.lay.n, (unsigned long long)env.lay.size);
	fprintf(f, "  \"layout\": \"%s\",\n", env.one_mapping ? "one-mapping" : "scattered");
	fprintf(f, "  \"contiguous_vma_per_range\": %s,\n", env.vma_per_range ? "true" : "false");
	fprintf(f, "  \"max_size\": %llu,\n  \"seed\": %llu,\n  \"reps\": %u,\n",
		(unsigned long long)env.lay.max_size, (unsigned long long)env.lay.seed, env.reps);
	fprintf(f, "  \"k\": [");
	for (m = 0; m < (int)env.nks; m++)
		fprintf(f, "%s%u", m ? ", " : "", k_of(m));
	fprintf(f, "],\n  \"modes\": {");
	for (mode = 0; mode < NR_MODES; mode++) {
		if (!has(mode))
			continue;
		fprintf(f, "%s\n    \"%s\": {\n      \"ioctls\": %u,\n      \"ranges\": %u,\n",
			written++ ? "," : "", mode_name[mode], calls[mode], nranges[mode]);
		fprintf(f, "      \"vmas\": %d,\n", vmas[mode]);
		fprintf(f, "      \"syscalls_per_range\": %.6f", (double)calls[mode] / env.lay.n);
		if (mode == GPUSVM)
			fprintf(f, ",\n      \"kernel_bytes\": %llu",
				(unsigned long long)gpusvm_bytes);
		for (m = 0; m < nr_metrics(); m++) {
			struct stat3 s = stats(mode, m);

			if (!measured(mode, m))
				continue;
			fprintf(f, ",\n      \"%s\": { \"median_us\": %.1f, ",
				metric_name(m, name, sizeof(name)), s.med);
			fprintf(f, "\"min_us\": %.1f, \"max_us\": %.1f, \"us\": [", s.min, s.max);
			for (r = 0; r < env.reps; r++)
				fprintf(f, "%s%.1f", r ? ", " : "", t[mode][m][r] * 1e6);
			fprintf(f, "] }");
		}
		fprintf(f, "\n    }");
	}
	fprintf(f, "\n  },\n  \"ratios\": {");
	m = 0;
	if (has(PER_RANGE) && has(BATCH)) {
		fprintf(f, "\n    \"register_per_range_over_batch\": %.4f,",
			ratio(PER_RANGE, BATCH, M_REGISTER));
		fprintf(f, "\n    \"teardown_per_range_over_batch\": %.4f",
			ratio(PER_RANGE, BATCH, M_TEARDOWN));
		m = 1;
	}
	if (has(BATCH) && has(CONTIGUOUS)) {
		fprintf(f, "%s\n    \"register_batch_over_contiguous\": %.4f,", m ? "," : "",
			ratio(BATCH, CONTIGUOUS, M_REGISTER));
		fprintf(f, "\n    \"access_batch_over_contiguous\": %.4f",
			ratio(BATCH, CONTIGUOUS, M_ACCESS));
		m = 1;
	}
	if (has(GPUSVM) && has(BATCH))
		fprintf(f, "%s\n    \"register_gpusvm_over_batch\": %.4f", m++ ? "," : "",
			ratio(GPUSVM, BATCH, M_REGISTER));
	if (has(GPUSVM) && has(CONTIGUOUS))
		fprintf(f, "%s\n    \"register_gpusvm_over_contiguous\": %.4f", m++ ? "," : "",
			ratio(GPUSVM, CONTIGUOUS, M_REGISTER));
	if (has(RENDER) && has(BATCH))
		fprintf(f, "%s\n    \"register_render_over_batch\": %.4f", m++ ? "," : "",
			ratio(RENDER, BATCH, M_REGISTER));
	if (has(RENDER_PER_RANGE) && has(RENDER))
		fprintf(f, "%s\n    \"register_render_per_range_over_render\": %.4f",
			m++ ? "," : "", ratio(RENDER_PER_RANGE, RENDER, M_REGISTER));
	fprintf(f, "\n  }\n}\n");
	return fclose(f) ? -errno : 0;
}

/* write every gap page, then time MADV_DONTNEED of each: seconds */
static double drop_gaps(char *base, unsigned int n, long page)
{
	unsigned int i;
	double t0;

	for (i = 0; i < n; i++)
		base[(2 * i + 1) * page] = 1;
	t0 = wl_now();
	for (i = 0; i < n; i++)
		if (madvise(base + (2 * i + 1) * page, page, MADV_DONTNEED))
			return -1;
	return wl_now() - t0;
}

#define WINDOW_GAP	"/sys/module/drm_userptr_batch/parameters/window_gap_kb"

/* set the helper's window_gap_kb, keeping the old value in old: 0 or -1 */
static int window_gap(const char *value, char *old, size_t size)
{
	FILE *f = fopen(WINDOW_GAP, "r+");
	int ret = 0;

	if (!f)
		return -1;
	if (old && !fgets(old, size, f))
		ret = -1;
	if (!ret && (fseek(f, 0, SEEK_SET) || fputs(value, f) < 0))
		ret = -1;
	return fclose(f) ? -1 : ret;
}

/* register the batch, drop the gap pages, check and unregister: seconds */
static double gap_round(struct upr_dev *dev, const struct upr_range *r, char *base,
			unsigned int n, long page, struct userptr_emu_query_args *q)
{
	struct upr_alloc *a;
	double t;
	int ret;

	if (upr_register(dev, r, n, 0, UPR_WRITABLE, &a)) {
		fprintf(stderr, "batch: %s\n", upr_errmsg());
		return -1;
	}
	t = drop_gaps(base, n, page);
	q->handle = upr_alloc_handle(a, 0);
	ret = ioctl(upr_dev_fd(dev), USERPTR_EMU_IOC_QUERY, q);
	if (upr_unregister(dev, a) || ret)
		return -1;
	/* a gap evicted: the notifier is imprecise */
	return q->evictions || q->num_valid != n ? -1 : t;
}

/*
 * The price of a window's notifier over gaps: N one-page ranges with a
 * page between neighbours, one batch over them. Every invalidation of a
 * gap page now calls the batch's notifier, which must find that it hits
 * no range and do nothing else. Times MADV_DONTNEED of the N gap pages
 * without a batch, with a batch of a notifier per range (window_gap_kb=0:
 * the mm has notifiers, none over a gap) and with one over them,
 * interleaved per repetition; checks that no batch saw an eviction and
 * reads the helper's memory per range.
 */
static int gap_probe(void)
{
	unsigned int n = env.lay.n, i, rep;
	long page = sysconf(_SC_PAGESIZE);
	double without[MAX_REPS], with[MAX_REPS], each[MAX_REPS], mw, mn, me = -1;
	struct userptr_emu_query_args qe = {};
	char old[32] = "";
	struct upr_opts o = { .backend = UPR_BACKEND_EMU, .mode = UPR_MODE_BATCH };
	struct userptr_emu_query_args q = {};
	struct upr_range *r;
	struct upr_dev *dev;
	char *base;
	FILE *f;
	int ret = 0;

	r = calloc(n, sizeof(*r));
	base = mmap(NULL, 2 * n * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!r || base == MAP_FAILED)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r[i].start = (uintptr_t)base + 2ULL * i * page;
		r[i].size = page;
		wl_fill(base + 2ULL * i * page, page, i + 1);
	}
	if (upr_open(&dev, &o)) {
		fprintf(stderr, "%s\n", upr_errmsg());
		return -ENODEV;
	}
	/* root in the guest: a notifier per range too; elsewhere without */
	if (window_gap("0", old, sizeof(old)) || window_gap(old, NULL, 0))
		old[0] = 0;
	for (rep = 0; rep < env.reps && !ret; rep++) {
		without[rep] = drop_gaps(base, n, page);
		if (old[0]) {
			window_gap("0", NULL, 0);
			each[rep] = gap_round(dev, r, base, n, page, &qe);
			window_gap(old, NULL, 0);
			if (each[rep] < 0)
				ret = -EIO;
		}
		with[rep] = gap_round(dev, r, base, n, page, &q);
		if (without[rep] < 0 || with[rep] < 0)
			ret = -EIO;
	}
	upr_close(dev);
	munmap(base, 2 * n * page);
	free(r);
	if (ret) {
		fprintf(stderr, "gap probe: %s (evictions %llu)\n", strerror(-ret),
			(unsigned long long)q.evictions);
		return ret;
	}
	mn = wl_median(without, env.reps) * 1e6;
	mw = wl_median(with, env.reps) * 1e6;
	if (old[0])
		me = wl_median(each, env.reps) * 1e6;
	printf("%u gap pages: MADV_DONTNEED without a batch %.1f us, ", n, mn);
	if (old[0])
		printf("with %u notifiers of one range each %.1f us, ", qe.num_windows, me);
	printf("with %u over them %.1f us (%.2fx); ", q.num_windows, mw, mw / mn);
	printf("%.1f bytes of helper memory per range\n", (double)q.helper_bytes / n);
	if (!env.json)
		return 0;
	f = fopen(env.json, "w");
	if (!f)
		return -errno;
	fprintf(f, "{\n  \"bench\": \"gap-probe\",\n  \"n\": %u,\n  \"reps\": %u,\n", n, env.reps);
	fprintf(f, "  \"without_batch_us\": %.1f,\n  \"with_batch_us\": %.1f,\n", mn, mw);
	fprintf(f, "  \"ratio\": %.4f,\n  \"windows\": %u,\n", mw / mn, q.num_windows);
	fprintf(f, "  \"per_range_notifiers_us\": %.1f,\n  \"per_range_notifiers\": %u,\n",
		me, qe.num_windows);
	fprintf(f, "  \"helper_bytes\": %llu,\n  \"helper_bytes_per_range\": %.1f\n}\n",
		(unsigned long long)q.helper_bytes, (double)q.helper_bytes / n);
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &wl_args_argp, 0, "Layout:", 1 },
		{},
	};
	static const struct argp argp = { opts, parse_arg, NULL, doc, children };
	uint64_t *sizes, maxsz;
	char device[64] = "";
	unsigned int rep;
	int mode, ret = 0;
	void *buf;

	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (env.gap_probe)
		return gap_probe() ? 1 : 0;
	if (!env.nks)
		env.ks[env.nks++] = 1;
	sizes = calloc(env.lay.n, sizeof(*sizes));
	if (!sizes)
		return 1;
	maxsz = wl_sizes(sizes, env.lay.n, env.lay.size, env.lay.max_size, env.lay.seed);
	buf = malloc(maxsz < PIECE ? maxsz : PIECE);
	if (!buf)
		return 1;
	/*
	 * One untimed round first: the process's first interval notifier
	 * sets up its mm's notifier state, and caches start cold; that
	 * belongs to no mode. Then the modes interleaved per repetition,
	 * so drift hits them alike.
	 */
	for (mode = 0; mode < NR_MODES && !ret && !env.no_warmup; mode++)
		if (has(mode))
			ret = run_once(mode, 0, sizes, buf);
	for (rep = 0; rep < env.reps && !ret; rep++) {
		for (mode = 0; mode < NR_MODES && !ret; mode++) {
			if (!has(mode))
				continue;
			ret = run_once(mode, rep, sizes, buf);
			if (!ret && env.verbose)
				fprintf(stderr,
					"%u %s: register %.3f, access %.3f, teardown %.3f ms\n",
					rep, mode_name[mode], t[mode][M_REGISTER][rep] * 1e3,
					t[mode][M_ACCESS][rep] * 1e3,
					t[mode][M_TEARDOWN][rep] * 1e3);
		}
	}
	if (!ret) {
		struct upr_dev *dev;
		struct upr_opts o = { .backend = env.backend };

		if (!upr_open(&dev, &o)) {
			snprintf(device, sizeof(device), "%s", upr_dev_name(dev));
			upr_close(dev);
		}
		print_table();
		if (env.json)
			ret = write_json(env.json, device);
	}
	free(buf);
	free(sizes);
	return ret ? 1 : 0;
}
