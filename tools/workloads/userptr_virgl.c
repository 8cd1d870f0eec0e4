// SPDX-License-Identifier: GPL-2.0
/*
 * userptr-virgl: the workload of the batch ioctl's published client,
 * virglrenderer's hsakmt backend. A guest's RAM is one shared memfd
 * mapping, as QEMU's memory backends map it; a blob is N guest pages handed
 * out as a fragmented guest hands them out (random page frames, now and
 * then a run of neighbours), and its iovecs are the blob's runs in blob
 * order (neighbouring frames merged, as the guest's scatterlist merges
 * them). Each blob is registered three ways:
 *
 *   batch      one batch ioctl over the iovecs (the series)
 *   stitch     virglrenderer's fallback without it: every iovec moved next
 *              to the one before with mremap(MREMAP_MAYMOVE | MREMAP_FIXED |
 *              MREMAP_DONTUNMAP), a VMA each, then one contiguous userptr
 *   per-range  one userptr ioctl per iovec
 *
 * Measured for each: registration, the first device read of the whole blob
 * (every page checked), the restore after the guest discards 1 and N/2 of
 * its pages (fallocate(PUNCH_HOLE) on the memfd, as QEMU discards guest
 * RAM) and writes them again, read back and checked, and teardown; and the
 * VMAs each way adds. --map-limit finds instead the N at which stitching
 * fails under vm.max_map_count, where the batch still registers.
 *
 *   userptr-virgl -n 4096 -r 5 -o virgl.json
 *   userptr-virgl -n 4096 --huge            # 2 MiB runs of guest pages
 *   userptr-virgl --map-limit               # lower vm.max_map_count first
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layout.h"
#include "userptr.h"

#define PAGE		4096ULL
#define HUGE_RUN	512		/* 4 KiB pages in a 2 MiB run */
#define MAX_REPS	64
#define TIMEOUT_MS	60000

enum { BATCH, STITCH, PER_RANGE, NR_WAYS };
static const char *const way_name[NR_WAYS] = { "batch", "stitch", "per-range" };

enum { M_REGISTER, M_ACCESS, M_RESTORE_1, M_RESTORE_HALF, M_TEARDOWN, NR_METRICS };
static const char *const metric_name[NR_METRICS] = {
	"register", "access", "restore_1", "restore_half", "teardown",
};

static struct env {
	unsigned int n;		/* guest pages in a blob */
	unsigned int run_max;	/* longest run of neighbouring frames */
	bool huge;		/* runs of 2 MiB instead */
	uint64_t ram;		/* guest RAM, bytes */
	unsigned int reps;
	unsigned int ways;
	uint64_t seed;
	bool map_limit;
	const char *json;
} env = { .n = 4096, .run_max = 8, .reps = 3, .ways = 7, .seed = 1 };

static double t[NR_WAYS][NR_METRICS][MAX_REPS];
static unsigned int ioctls[NR_WAYS], vmas[NR_WAYS];

/* guest RAM, and the blob: its pages' frames and its iovecs */
static struct guest {
	int memfd;
	char *ram;
	uint64_t frames;
	uint64_t *gfn;		/* blob page -> guest frame */
	struct upr_range *iov;	/* host addresses, blob order */
	unsigned int niov;
} g = { .memfd = -1 };

static uint64_t tag_of(uint64_t gfn, uint64_t gen)
{
	return (gen << 32) + gfn + 1;
}

/* N pages: runs of 1..run_max neighbouring free frames at random places */
static int pick_blob(unsigned int n, uint64_t seed)
{
	unsigned char *used = calloc(g.frames, 1);
	unsigned int got = 0, len, i, tries = 0;
	uint64_t start;

	if (!used)
		return -ENOMEM;
	seed = seed ? seed : 1;
	while (got < n) {
		if (++tries > 100 * n) {
			free(used);
			return -ENOSPC;
		}
		if (env.huge) {
			len = HUGE_RUN;
			start = wl_rng(&seed) % (g.frames / HUGE_RUN) * HUGE_RUN;
		} else {
			for (len = 1; len < env.run_max && wl_rng(&seed) % 4 == 0; len++)
				;
			start = wl_rng(&seed) % (g.frames - len);
		}
		if (len > n - got)
			len = n - got;
		for (i = 0; i < len && !used[start + i]; i++)
			;
		if (i < len)
			continue;
		for (i = 0; i < len; i++) {
			used[start + i] = 1;
			g.gfn[got++] = start + i;
		}
	}
	free(used);
	/* the iovecs: neighbouring frames in blob order merge */
	g.niov = 0;
	for (i = 0; i < n; i++) {
		if (g.niov && g.gfn[i] == g.gfn[i - 1] + 1) {
			g.iov[g.niov - 1].size += PAGE;
			continue;
		}
		g.iov[g.niov].start = (uintptr_t)g.ram + g.gfn[i] * PAGE;
		g.iov[g.niov++].size = PAGE;
	}
	return 0;
}

static int guest_ram(void)
{
	uint64_t i;

	g.memfd = memfd_create("guest-ram", MFD_CLOEXEC);
	if (g.memfd < 0 || ftruncate(g.memfd, env.ram))
		return -errno;
	g.ram = mmap(NULL, env.ram, PROT_READ | PROT_WRITE, MAP_SHARED, g.memfd, 0);
	if (g.ram == MAP_FAILED)
		return -errno;
	g.frames = env.ram / PAGE;
	for (i = 0; i < g.frames; i++)
		wl_fill(g.ram + i * PAGE, PAGE, tag_of(i, 0));
	g.gfn = calloc(env.n, sizeof(*g.gfn));
	g.iov = calloc(env.n, sizeof(*g.iov));
	return g.gfn && g.iov ? 0 : -ENOMEM;
}

static unsigned int count_vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned int n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * virglrenderer's fallback: a reservation of the blob's size, each iovec
 * moved over its place in it, the guest's mapping left as it was. Returns
 * the stitched address, or MAP_FAILED with errno and *done iovecs moved.
 */
static char *stitch(unsigned int *done)
{
	uint64_t size = (uint64_t)env.n * PAGE, off = 0;
	char *dst;
	void *p;
	unsigned int i;

	*done = 0;
	dst = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (dst == MAP_FAILED)
		return dst;
	for (i = 0; i < g.niov; i++) {
		p = mremap((void *)(uintptr_t)g.iov[i].start, g.iov[i].size, g.iov[i].size,
			   MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, dst + off);
		if (p == MAP_FAILED) {
			int err = errno;

			munmap(dst, size);
			errno = err;
			return MAP_FAILED;
		}
		off += g.iov[i].size;
		*done = i + 1;
	}
	return dst;
}

/*
 * device read of the blob's pages from..to (within one iovec: per-iovec
 * registrations are allocations of their own), each checked against what
 * the guest's mapping of its frame holds now
 */
static int read_pages(int fd, uint64_t va, char *buf, unsigned int from, unsigned int to)
{
	unsigned int i;
	int ret;

	ret = wl_device_read(fd, va + from * PAGE, buf, (uint64_t)(to - from) * PAGE, TIMEOUT_MS);
	if (ret) {
		fprintf(stderr, "device read of blob pages %u..%u: %s\n", from, to - 1,
			strerror(-ret));
		return ret;
	}
	for (i = from; i < to; i++) {
		if (memcmp(buf + (uint64_t)(i - from) * PAGE, g.ram + g.gfn[i] * PAGE, PAGE)) {
			fprintf(stderr, "blob page %u (frame %llu): the device read other data\n",
				i, (unsigned long long)g.gfn[i]);
			return -EIO;
		}
	}
	return 0;
}

/* the first access: the whole blob, one read per iovec in every way */
static int read_blob(int fd, uint64_t va, char *buf)
{
	unsigned int i, page = 0, n;
	int ret = 0;

	for (i = 0; i < g.niov && !ret; i++) {
		n = g.iov[i].size / PAGE;
		ret = read_pages(fd, va, buf, page, page + n);
		page += n;
	}
	return ret;
}

/*
 * The guest discards k of the blob's pages, spread evenly (QEMU punches
 * them out of the memfd: every mapping of them is invalidated), writes
 * them again, and the device reads each: its read waits for the restore.
 */
static int discard_and_read(int fd, uint64_t va, char *buf, unsigned int k)
{
	unsigned int j, i;
	int ret;

	for (j = 0; j < k; j++) {
		i = (unsigned int)((uint64_t)j * env.n / k);
		if (fallocate(g.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      g.gfn[i] * PAGE, PAGE))
			return -errno;
		wl_fill(g.ram + g.gfn[i] * PAGE, PAGE, tag_of(g.gfn[i], 1));
	}
	for (j = 0; j < k; j++) {
		i = (unsigned int)((uint64_t)j * env.n / k);
		ret = read_pages(fd, va, buf, i, i + 1);
		if (ret)
			return ret;
	}
	/* back to the first content, for the next round */
	for (j = 0; j < k; j++) {
		i = (unsigned int)((uint64_t)j * env.n / k);
		wl_fill(g.ram + g.gfn[i] * PAGE, PAGE, tag_of(g.gfn[i], 0));
	}
	return 0;
}

static int run_once(int way, unsigned int rep, char *buf)
{
	struct upr_opts o = {
		.backend = UPR_BACKEND_EMU,
		.mode = way == BATCH ? UPR_MODE_BATCH : UPR_MODE_PER_RANGE,
	};
	struct upr_range one;
	struct upr_alloc *a = NULL;
	struct upr_dev *dev;
	unsigned int v0, moved;
	char *st = NULL;
	double t0;
	int ret, fd;

	ret = upr_open(&dev, &o);
	if (ret) {
		fprintf(stderr, "%s\n", upr_errmsg());
		return ret;
	}
	fd = upr_dev_fd(dev);
	v0 = count_vmas();
	t0 = wl_now();
	if (way == STITCH) {
		st = stitch(&moved);
		if (st == MAP_FAILED) {
			ret = -errno;
			fprintf(stderr, "stitch: mremap of iovec %u of %u: %s\n", moved + 1,
				g.niov, strerror(errno));
			st = NULL;
			goto out;
		}
		one.start = (uintptr_t)st;
		one.size = (uint64_t)env.n * PAGE;
		ret = upr_register(dev, &one, 1, 0, UPR_WRITABLE, &a);
	} else {
		ret = upr_register(dev, g.iov, g.niov, 0, UPR_WRITABLE, &a);
	}
	t[way][M_REGISTER][rep] = wl_now() - t0;
	if (ret) {
		fprintf(stderr, "%s: %s\n", way_name[way], upr_errmsg());
		goto out;
	}
	vmas[way] = count_vmas() - v0;
	ioctls[way] = upr_alloc_calls(a);

	t0 = wl_now();
	ret = read_blob(fd, upr_alloc_va(a), buf);
	t[way][M_ACCESS][rep] = wl_now() - t0;
	if (!ret) {
		t0 = wl_now();
		ret = discard_and_read(fd, upr_alloc_va(a), buf, 1);
		t[way][M_RESTORE_1][rep] = wl_now() - t0;
	}
	if (!ret) {
		t0 = wl_now();
		ret = discard_and_read(fd, upr_alloc_va(a), buf, env.n / 2 ? env.n / 2 : 1);
		t[way][M_RESTORE_HALF][rep] = wl_now() - t0;
	}

	if (ret)
		fprintf(stderr, "%s: the device's reads failed\n", way_name[way]);
	t0 = wl_now();
	if (upr_unregister(dev, a) && !ret) {
		fprintf(stderr, "%s\n", upr_errmsg());
		ret = -EIO;
	}
	if (st && munmap(st, (uint64_t)env.n * PAGE) && !ret)
		ret = -errno;
	st = NULL;
	t[way][M_TEARDOWN][rep] = wl_now() - t0;
out:
	if (st)
		munmap(st, (uint64_t)env.n * PAGE);
	upr_close(dev);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(int way, int m)
{
	double v[MAX_REPS];

	memcpy(v, t[way][m], env.reps * sizeof(v[0]));
	qsort(v, env.reps, sizeof(v[0]), cmp_double);
	return env.reps % 2 ? v[env.reps / 2] : (v[env.reps / 2 - 1] + v[env.reps / 2]) / 2;
}

static bool has(int way)
{
	return env.ways & (1 << way);
}

static void print_table(void)
{
	int w, m;

	printf("blob of %u guest pages (%s runs), %u iovecs, guest RAM %llu MiB; median of %u\n",
	       env.n, env.huge ? "2 MiB" : "4 KiB..", g.niov,
	       (unsigned long long)(env.ram >> 20), env.reps);
	printf("%-10s %7s %5s", "way", "ioctls", "VMAs");
	for (m = 0; m < NR_METRICS; m++)
		printf(" %12s", metric_name[m]);
	printf("   (ms)\n");
	for (w = 0; w < NR_WAYS; w++) {
		if (!has(w))
			continue;
		printf("%-10s %7u %5u", way_name[w], ioctls[w], vmas[w]);
		for (m = 0; m < NR_METRICS; m++)
			printf(" %12.3f", median(w, m) * 1e3);
		printf("\n");
	}
	for (w = STITCH; w < NR_WAYS; w++) {
		if (!has(w) || !has(BATCH))
			continue;
		printf("%s / batch", way_name[w]);
		for (m = 0; m < NR_METRICS; m++)
			printf(" %s %.2f", metric_name[m], median(w, m) / median(BATCH, m));
		printf("\n");
	}
}

static int write_json(void)
{
	FILE *f = fopen(env.json, "w");
	int w, m;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"bench\": \"virgl\",\n  \"n\": %u,\n  \"iovecs\": %u,\n", env.n, g.niov);
	fprintf(f, "  \"runs\": \"%s\",\n  \"reps\": %u,\n  \"ways\": {", env.huge ? "2m" : "4k",
		env.reps);
	for (w = 0; w < NR_WAYS; w++) {
		if (!has(w))
			continue;
		fprintf(f, "%s\n    \"%s\": { \"ioctls\": %u, \"vmas\": %u", w ? "," : "",
			way_name[w], ioctls[w], vmas[w]);
		for (m = 0; m < NR_METRICS; m++)
			fprintf(f, ", \"%s_ms\": %.4f", metric_name[m], median(w, m) * 1e3);
		fprintf(f, " }");
	}
	fprintf(f, "\n  }\n}\n");
	return fclose(f) ? -errno : 0;
}

/*
 * --map-limit: blobs of 16, 32, ... pages until stitching one fails (each
 * iovec is a VMA), then the batch of that same blob, which needs none
 */
static int map_limit(void)
{
	unsigned int n, moved, limit = 0, max = env.n;
	struct upr_opts o = { .backend = UPR_BACKEND_EMU, .mode = UPR_MODE_BATCH };
	struct upr_alloc *a;
	struct upr_dev *dev;
	FILE *f;
	char *st;
	int ret;

	f = fopen("/proc/sys/vm/max_map_count", "r");
	if (!f || fscanf(f, "%u", &limit) != 1)
		limit = 0;
	if (f)
		fclose(f);
	for (n = 16; n <= max; n *= 2) {
		ret = pick_blob(n, env.seed + n);
		if (ret)
			return ret;
		env.n = n;
		st = stitch(&moved);
		if (st != MAP_FAILED) {
			munmap(st, (uint64_t)n * PAGE);
			continue;
		}
		printf("stitching fails at N = %u pages (%u iovecs): mremap of iovec %u: %s"
		       " (vm.max_map_count = %u, %u VMAs before)\n",
		       n, g.niov, moved + 1, strerror(errno), limit, count_vmas());
		ret = upr_open(&dev, &o);
		if (ret) {
			fprintf(stderr, "%s\n", upr_errmsg());
			return ret;
		}
		ret = upr_register(dev, g.iov, g.niov, 0, UPR_WRITABLE, &a);
		if (ret)
			fprintf(stderr, "batch: %s\n", upr_errmsg());
		else
			printf("the batch of the same %u iovecs registers: %u ioctl, 0 VMAs\n",
			       g.niov, upr_alloc_calls(a));
		if (!ret)
			ret = upr_unregister(dev, a);
		upr_close(dev);
		return ret;
	}
	printf("stitching did not fail up to N = %u pages (vm.max_map_count = %u)\n",
	       max, limit);
	return -EAGAIN;
}

static const char doc[] =
"A virgl-style blob of N guest pages registered as one batch, stitched with\n"
"mremap(MREMAP_DONTUNMAP) into one userptr, and one userptr per iovec.\n"
"\n"
"USAGE: userptr-virgl [-n N] [--huge] [-r REPS] [-o FILE] | --map-limit\n";

static const struct argp_option opts[] = {
	{ "pages", 'n', "N", 0, "Guest pages in the blob (default 4096; up to N with --map-limit)" },
	{ "run-max", 'R', "PAGES", 0, "Longest run of neighbouring frames (default 8)" },
	{ "huge", 'H', NULL, 0, "Runs of 2 MiB (N a multiple of 512)" },
	{ "ram", 'G', "MIB", 0, "Guest RAM (default: 4 times the blob, at least 64 MiB)" },
	{ "reps", 'r', "REPS", 0, "Repetitions (default 3)" },
	{ "way", 'w', "WAY", 0, "batch, stitch or per-range; repeatable (default all)" },
	{ "seed", 's', "SEED", 0, "Seed of the page picks (default 1)" },
	{ "map-limit", 'L', NULL, 0, "Find the N at which stitching hits vm.max_map_count" },
	{ "output", 'o', "FILE", 0, "Write the results as JSON" },
	{},
};

static unsigned long number(const char *arg, unsigned long min, unsigned long max,
			    struct argp_state *state)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || *end || end == arg || v < min || v > max)
		argp_error(state, "'%s' is not a number from %lu to %lu", arg, min, max);
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static bool ways_given;
	int w;

	switch (key) {
	case 'n':
		env.n = number(arg, 2, 1 << 20, state);
		break;
	case 'R':
		env.run_max = number(arg, 1, 4096, state);
		break;
	case 'H':
		env.huge = true;
		break;
	case 'G':
		env.ram = (uint64_t)number(arg, 16, 1 << 20, state) << 20;
		break;
	case 'r':
		env.reps = number(arg, 1, MAX_REPS, state);
		break;
	case 'w':
		if (!ways_given)
			env.ways = 0;
		ways_given = true;
		for (w = 0; w < NR_WAYS; w++)
			if (!strcmp(arg, way_name[w]))
				env.ways |= 1 << w;
		if (!env.ways)
			argp_error(state, "unknown way '%s' (batch, stitch or per-range)", arg);
		break;
	case 's':
		env.seed = number(arg, 0, ~0UL, state);
		break;
	case 'L':
		env.map_limit = true;
		break;
	case 'o':
		env.json = arg;
		break;
	case ARGP_KEY_ARG:
		argp_usage(state);
		break;
	case ARGP_KEY_END:
		if (env.huge && env.n % HUGE_RUN)
			argp_error(state, "--huge takes N a multiple of %d", HUGE_RUN);
		if (!env.ram) {
			env.ram = 4ULL * env.n * PAGE;
			if (env.ram < (64ULL << 20))
				env.ram = 64ULL << 20;
		}
		if (env.ram < 2ULL * env.n * PAGE)
			argp_error(state, "--ram must hold twice the blob (%u MiB)",
				   (unsigned int)((2ULL * env.n * PAGE) >> 20));
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc };
	unsigned int rep;
	int w, ret;
	char *buf;

	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	ret = guest_ram();
	if (ret) {
		fprintf(stderr, "guest RAM of %llu MiB: %s\n",
			(unsigned long long)(env.ram >> 20), strerror(-ret));
		return 1;
	}
	if (env.map_limit)
		return map_limit() ? 1 : 0;
	ret = pick_blob(env.n, env.seed);
	buf = malloc((uint64_t)env.n * PAGE);
	if (ret || !buf) {
		fprintf(stderr, "blob of %u pages: %s\n", env.n, strerror(ret ? -ret : ENOMEM));
		return 1;
	}
	/* an untimed round first, then the ways interleaved per repetition */
	for (w = 0; w < NR_WAYS && !ret; w++)
		if (has(w))
			ret = run_once(w, 0, buf);
	for (rep = 0; rep < env.reps && !ret; rep++)
		for (w = 0; w < NR_WAYS && !ret; w++)
			if (has(w))
				ret = run_once(w, rep, buf);
	if (!ret) {
		print_table();
		if (env.json)
			ret = write_json();
	}
	free(buf);
	return ret ? 1 : 0;
}
