// SPDX-License-Identifier: GPL-2.0
/*
 * userptr-virgl: the workload of the batch ioctl's published client,
 * virglrenderer's hsakmt backend. A guest's RAM is one shared memfd
 * mapping, as QEMU's memory backends map it; a blob is N guest pages handed
 * out as a fragmented guest hands them out (random page frames, now and
 * then a run of neighbours), and its iovecs are the blob's runs in blob
 * order (neighbouring frames merged, as the guest's scatterlist merges
 * them). Each blob is registered three ways, beside a reference:
 *
 *   batch       one batch ioctl over the iovecs (the series)
 *   stitch      virglrenderer's fallback without it: every iovec moved next
 *               to the one before with mremap(MREMAP_MAYMOVE | MREMAP_FIXED |
 *               MREMAP_DONTUNMAP), a VMA each, then one contiguous userptr
 *   per-range   one userptr ioctl per iovec
 *   contiguous  the reference: one userptr over a run of N neighbouring
 *               frames of the same guest RAM, touched as the blob's pages
 *               are and apart from them (what the batch is compared with)
 *   gpusvm      (only with -w gpusvm) the iovecs registered in one ioctl
 *               as Xe registers userptrs on 7.3, a drm_gpusvm_pages and a
 *               notifier each, by the bench-only module userptr_gpusvm
 *               (tools/bench/gpusvm): registration and teardown only
 *
 * Measured for each: registration, the first device read of the whole blob
 * (every page checked; the contiguous run read in pieces of the iovecs'
 * sizes), the restore after the guest discards 1 and N/2 of its pages
 * (fallocate(PUNCH_HOLE) on the memfd, as QEMU discards guest RAM) and
 * writes them again, read back and checked, and teardown; the VMAs each way
 * adds; and the ratios batch / contiguous, per-range / batch and stitch /
 * batch of each measure.
 *
 * Guest RAM (--ram, up to 1 TiB: a memfd is not charged to the commit
 * limit, so it needs no MAP_NORESERVE) is written whole, as a running
 * guest's RAM is (--touch all), or only the blob's pages, the contiguous
 * run's and every 64th page (--touch sparse): every 2 MiB of it then still
 * has a page-table page, and 16 GiB of it takes 256 MiB of memory.
 *
 * --backend kfd registers on /dev/kfd, an AMD GPU through amdgpu (the
 * batch ioctl where the kernel has it), instead of the emulated device:
 * the registrations and the teardown are timed, and 1 and N/2 pages are
 * discarded (amdgpu evicts and restores the allocation behind them), but
 * nothing reads through the GPU, so the first access and the restores
 * are not measured ("-"; kfdtrace's amdgpu verdict judges the eviction).
 *
 * --map-limit finds instead the N at which stitching fails under
 * vm.max_map_count, where the batch still registers. --gap-price prices
 * instead the batch's notifiers for the rest of guest RAM: every frame
 * outside the blob discarded (fallocate(PUNCH_HOLE), a call per run of
 * such frames inside each 2 MiB of guest RAM, as QEMU discards what a
 * guest reports free), timed with the batch registered and without any
 * registration, median of the repetitions; the batch must see no eviction.
 *
 *   userptr-virgl -n 4096 -r 5 -o virgl.json
 *   userptr-virgl -n 4096 --huge            # 2 MiB runs of guest pages
 *   userptr-virgl -n 4096 -G 16384 --touch sparse -w batch -w contiguous
 *   userptr-virgl -n 4096 -G 2048 --gap-price -r 5 -o gap.json
 *   userptr-virgl --map-limit               # lower vm.max_map_count first
 *   userptr-virgl --backend kfd -n 4096 -w batch   # on an AMD GPU
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layout.h"
#include "userptr.h"
#include "userptr_emu_uapi.h"

#define PAGE		4096ULL
#define HUGE_RUN	512		/* 4 KiB pages in a 2 MiB run */
#define SPARSE_EVERY	64		/* --touch sparse: every 64th page */
#define MAX_REPS	64
#define TIMEOUT_MS	60000

enum { BATCH, STITCH, PER_RANGE, CONTIGUOUS, GPUSVM, NR_WAYS };
static const char *const way_name[NR_WAYS] = {
	"batch", "stitch", "per-range", "contiguous", "gpusvm",
};
/* the JSON's names of the ways, as keys of the ratios */
static const char *const way_key[NR_WAYS] = {
	"batch", "stitch", "per_range", "contiguous", "gpusvm",
};

#define DEFAULT_WAYS	((1 << GPUSVM) - 1)	/* gpusvm needs its module */

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
	bool sparse;		/* --touch sparse */
	bool map_limit;
	bool gap_price;
	bool register_only;	/* no reads, no restores: a profile of registration */
	enum upr_backend backend;	/* emu, or kfd (no device reads) */
	const char *json;
} env = { .n = 4096, .run_max = 8, .reps = 3, .ways = DEFAULT_WAYS, .seed = 1,
	  .backend = UPR_BACKEND_EMU };

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
	uint64_t contig;	/* first frame of the contiguous run */
	unsigned int contig_n;	/* its frames, 0 before it is placed */
} g = { .memfd = -1 };

static uint64_t tag_of(uint64_t gfn, uint64_t gen)
{
	return (gen << 32) + gfn + 1;
}

/* the guest frame behind page i of what a way registers */
static uint64_t frame_of(int way, unsigned int i)
{
	return way == CONTIGUOUS ? g.contig + i : g.gfn[i];
}

/*
 * The contiguous reference: a run of n neighbouring frames at a random
 * place (2 MiB aligned with --huge, as the blob's runs are), drawn from a
 * seed of its own, before the blob's pages are picked around it
 */
static void place_contiguous(unsigned int n, uint64_t seed)
{
	seed = ~seed ? ~seed : 1;
	if (env.huge)
		g.contig = wl_rng(&seed) % ((g.frames - n) / HUGE_RUN + 1) * HUGE_RUN;
	else
		g.contig = wl_rng(&seed) % (g.frames - n + 1);
	g.contig_n = n;
}

/*
 * N pages: runs of 1..run_max neighbouring free frames at random places,
 * none in the contiguous run. When the blob and the run fill guest RAM
 * (--ram of twice the blob), the last frames are found by a scan from the
 * random place rather than by chance.
 */
static int pick_blob(unsigned int n, uint64_t seed)
{
	unsigned char *used = calloc(g.frames, 1);
	unsigned int got = 0, len, i, tries = 0;
	uint64_t start;

	if (!used)
		return -ENOMEM;
	memset(used + g.contig, 1, g.contig_n);
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
			start = wl_rng(&seed) % (g.frames - len + 1);
			if (tries > 10 * n) {
				len = 1;
				while (used[start])
					start = (start + 1) % g.frames;
			}
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

/*
 * Guest RAM: one shared memfd mapping. memfd_create() sets up its shmem
 * file unaccounted (VM_NORESERVE) and a shared mapping is not charged
 * either, so its size is bounded by the address space alone, and only the
 * pages written take memory.
 */
static int guest_ram(void)
{
	g.memfd = memfd_create("guest-ram", MFD_CLOEXEC);
	if (g.memfd < 0 || ftruncate(g.memfd, env.ram))
		return -errno;
	g.ram = mmap(NULL, env.ram, PROT_READ | PROT_WRITE, MAP_SHARED, g.memfd, 0);
	if (g.ram == MAP_FAILED)
		return -errno;
	g.frames = env.ram / PAGE;
	g.gfn = calloc(env.n, sizeof(*g.gfn));
	g.iov = calloc(env.n, sizeof(*g.iov));
	return g.gfn && g.iov ? 0 : -ENOMEM;
}

/* does --touch write this frame, which is none of the blob's or the run's */
static bool touched(uint64_t f)
{
	return !env.sparse || f % SPARSE_EVERY == 0;
}

/*
 * Write guest RAM with each frame's first content: every frame, or with
 * --touch sparse every 64th one, then the blob's and the contiguous run's
 * (blob pages: the first n of g.gfn, 0 before the blob is picked)
 */
static void touch_ram(unsigned int n)
{
	unsigned int i;
	uint64_t f;

	for (f = 0; f < g.frames; f++)
		if (touched(f))
			wl_fill(g.ram + f * PAGE, PAGE, tag_of(f, 0));
	if (!env.sparse)
		return;
	for (i = 0; i < n; i++)
		wl_fill(g.ram + g.gfn[i] * PAGE, PAGE, tag_of(g.gfn[i], 0));
	for (i = 0; i < g.contig_n; i++)
		wl_fill(g.ram + (g.contig + i) * PAGE, PAGE, tag_of(g.contig + i, 0));
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
 * registrations are allocations of their own), or of the contiguous run's,
 * each checked against what the guest's mapping of its frame holds now
 */
static int read_pages(int way, int fd, uint64_t va, char *buf, unsigned int from,
		      unsigned int to)
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
		if (memcmp(buf + (uint64_t)(i - from) * PAGE, g.ram + frame_of(way, i) * PAGE,
			   PAGE)) {
			fprintf(stderr, "%s page %u (frame %llu): the device read other data\n",
				way_name[way], i, (unsigned long long)frame_of(way, i));
			return -EIO;
		}
	}
	return 0;
}

/*
 * the first access: the whole blob, one read per iovec in every way (the
 * contiguous run in pieces of the same sizes)
 */
static int read_blob(int way, int fd, uint64_t va, char *buf)
{
	unsigned int i, page = 0, n;
	int ret = 0;

	for (i = 0; i < g.niov && !ret; i++) {
		n = g.iov[i].size / PAGE;
		ret = read_pages(way, fd, va, buf, page, page + n);
		page += n;
	}
	return ret;
}

/*
 * The guest discards k of the blob's pages, spread evenly (QEMU punches
 * them out of the memfd: every mapping of them is invalidated), writes
 * them again, and the device reads each: its read waits for the restore.
 */
static int discard_and_read(int way, int fd, uint64_t va, char *buf, unsigned int k)
{
	unsigned int j, i;
	uint64_t f;
	int ret;

	for (j = 0; j < k; j++) {
		i = (unsigned int)((uint64_t)j * env.n / k);
		f = frame_of(way, i);
		if (fallocate(g.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      f * PAGE, PAGE))
			return -errno;
		wl_fill(g.ram + f * PAGE, PAGE, tag_of(f, 1));
	}
	/* /dev/kfd: no read through the GPU; amdgpu restores on its own */
	for (j = 0; j < k && env.backend == UPR_BACKEND_EMU; j++) {
		i = (unsigned int)((uint64_t)j * env.n / k);
		ret = read_pages(way, fd, va, buf, i, i + 1);
		if (ret)
			return ret;
	}
	/* back to the first content, for the next round */
	for (j = 0; j < k; j++) {
		f = frame_of(way, (unsigned int)((uint64_t)j * env.n / k));
		wl_fill(g.ram + f * PAGE, PAGE, tag_of(f, 0));
	}
	return 0;
}

/* the gpusvm way: the iovecs; nothing is read (NaN) */
static int run_gpusvm(unsigned int rep)
{
	uint64_t bytes;
	int ret;

	t[GPUSVM][M_ACCESS][rep] = NAN;
	t[GPUSVM][M_RESTORE_1][rep] = NAN;
	t[GPUSVM][M_RESTORE_HALF][rep] = NAN;
	ret = wl_gpusvm_round(g.iov, g.niov, &t[GPUSVM][M_REGISTER][rep],
			      &t[GPUSVM][M_TEARDOWN][rep], &bytes);
	if (!ret)
		ioctls[GPUSVM] = 1;	/* and no VMA: the module maps nothing */
	return ret;
}

static int run_once(int way, unsigned int rep, char *buf)
{
	struct upr_opts o = {
		.backend = env.backend,
		.mode = way == BATCH ? UPR_MODE_BATCH : UPR_MODE_PER_RANGE,
	};
	struct upr_range one;
	struct upr_alloc *a = NULL;
	struct upr_dev *dev;
	unsigned int v0, moved;
	char *st = NULL;
	double t0;
	int ret, fd;

	if (way == GPUSVM)
		return run_gpusvm(rep);
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
	} else if (way == CONTIGUOUS) {
		one.start = (uintptr_t)g.ram + g.contig * PAGE;
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

	if (env.register_only) {
		t[way][M_ACCESS][rep] = t[way][M_RESTORE_1][rep] =
			t[way][M_RESTORE_HALF][rep] = NAN;
		goto teardown;
	}
	t0 = wl_now();
	if (env.backend == UPR_BACKEND_EMU)
		ret = read_blob(way, fd, upr_alloc_va(a), buf);
	t[way][M_ACCESS][rep] = wl_now() - t0;
	if (!ret) {
		t0 = wl_now();
		ret = discard_and_read(way, fd, upr_alloc_va(a), buf, 1);
		t[way][M_RESTORE_1][rep] = wl_now() - t0;
	}
	if (!ret) {
		t0 = wl_now();
		ret = discard_and_read(way, fd, upr_alloc_va(a), buf,
				       env.n / 2 ? env.n / 2 : 1);
		t[way][M_RESTORE_HALF][rep] = wl_now() - t0;
	}
	if (env.backend != UPR_BACKEND_EMU)
		t[way][M_ACCESS][rep] = t[way][M_RESTORE_1][rep] =
			t[way][M_RESTORE_HALF][rep] = NAN;

	if (ret)
		fprintf(stderr, "%s: %s failed\n", way_name[way],
			env.backend == UPR_BACKEND_EMU ? "the device's reads" : "the discards");
teardown:
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

static double median(int way, int m)
{
	double v[MAX_REPS];

	memcpy(v, t[way][m], env.reps * sizeof(v[0]));
	return wl_median(v, env.reps);
}

static bool has(int way)
{
	return env.ways & (1 << way);
}

/* the ratios reported: of each measure, way [0] over way [1] */
static const int ratio_pair[][2] = {
	{ BATCH, CONTIGUOUS }, { PER_RANGE, BATCH }, { STITCH, BATCH },
	{ GPUSVM, BATCH }, { GPUSVM, CONTIGUOUS },
};
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_RATIOS	ARRAY_SIZE(ratio_pair)

static void print_table(void)
{
	unsigned int r;
	int w, m;

	printf("blob of %u guest pages (%s runs), %u iovecs, guest RAM %llu MiB (%s); median of %u%s\n",
	       env.n, env.huge ? "2 MiB" : "4 KiB..", g.niov,
	       (unsigned long long)(env.ram >> 20),
	       env.sparse ? "blob, run and every 64th page touched" : "touched whole", env.reps,
	       env.backend == UPR_BACKEND_EMU ? "" : "; on /dev/kfd, nothing read back");
	printf("%-10s %7s %5s", "way", "ioctls", "VMAs");
	for (m = 0; m < NR_METRICS; m++)
		printf(" %12s", metric_name[m]);
	printf("   (ms)\n");
	for (w = 0; w < NR_WAYS; w++) {
		if (!has(w))
			continue;
		printf("%-10s %7u %5u", way_name[w], ioctls[w], vmas[w]);
		for (m = 0; m < NR_METRICS; m++) {
			if (isnan(median(w, m)))
				printf(" %12s", "-");
			else
				printf(" %12.3f", median(w, m) * 1e3);
		}
		printf("\n");
	}
	for (r = 0; r < NR_RATIOS; r++) {
		if (!has(ratio_pair[r][0]) || !has(ratio_pair[r][1]))
			continue;
		printf("%s / %s", way_name[ratio_pair[r][0]], way_name[ratio_pair[r][1]]);
		for (m = 0; m < NR_METRICS; m++) {
			if (!isnan(median(ratio_pair[r][0], m)))
				printf(" %s %.2f", metric_name[m],
				       median(ratio_pair[r][0], m) / median(ratio_pair[r][1], m));
		}
		printf("\n");
	}
}

static int write_json(void)
{
	FILE *f = fopen(env.json, "w");
	const char *sep = "";
	unsigned int r;
	int w, m, a, b;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"bench\": \"virgl\",\n  \"n\": %u,\n  \"iovecs\": %u,\n", env.n, g.niov);
	fprintf(f, "  \"runs\": \"%s\",\n  \"ram_mib\": %llu,\n  \"touch\": \"%s\",\n",
		env.huge ? "2m" : "4k", (unsigned long long)(env.ram >> 20),
		env.sparse ? "sparse" : "all");
	fprintf(f, "  \"reps\": %u,\n  \"backend\": \"%s\",\n  \"ways\": {", env.reps,
		env.backend == UPR_BACKEND_EMU ? "emu" : "kfd");
	for (w = 0; w < NR_WAYS; w++) {
		if (!has(w))
			continue;
		fprintf(f, "%s\n    \"%s\": { \"ioctls\": %u, \"vmas\": %u", sep,
			way_name[w], ioctls[w], vmas[w]);
		for (m = 0; m < NR_METRICS; m++) {
			if (isnan(median(w, m)))
				fprintf(f, ", \"%s_ms\": null", metric_name[m]);
			else
				fprintf(f, ", \"%s_ms\": %.4f", metric_name[m], median(w, m) * 1e3);
		}
		fprintf(f, " }");
		sep = ",";
	}
	/* "register_batch_over_contiguous", "access_per_range_over_batch", ... */
	fprintf(f, "\n  },\n  \"ratios\": {");
	sep = "";
	for (r = 0; r < NR_RATIOS; r++) {
		a = ratio_pair[r][0];
		b = ratio_pair[r][1];
		if (!has(a) || !has(b))
			continue;
		for (m = 0; m < NR_METRICS; m++) {
			if (isnan(median(a, m)))
				continue;
			fprintf(f, "%s\n    \"%s_%s_over_%s\": %.4f", sep, metric_name[m],
				way_key[a], way_key[b], median(a, m) / median(b, m));
			sep = ",";
		}
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
		printf("stitching fails at N = %u pages (%u iovecs): mremap of iovec %u: %s ",
		       n, g.niov, moved + 1, strerror(errno));
		printf("(vm.max_map_count = %u, %u VMAs before)\n", limit, count_vmas());
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

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

/* a run of guest frames outside the blob, discarded by one call */
struct extent {
	uint64_t frame, frames;
};

/*
 * Guest RAM outside the blob in the pieces QEMU discards it in when the
 * guest reports it free: each run of frames that are not the blob's,
 * inside each 2 MiB. Returns the count, or 0 with *ext NULL.
 */
static unsigned int outside_blob(struct extent **ext, uint64_t *pages)
{
	unsigned char *in = calloc(g.frames, 1);
	unsigned int n = 0, cap = 0;
	struct extent *e = NULL, *more;
	uint64_t f = 0, end, stop;
	unsigned int i;

	*ext = NULL;
	*pages = 0;
	if (!in)
		return 0;
	for (i = 0; i < env.n; i++)
		in[g.gfn[i]] = 1;
	while (f < g.frames) {
		if (in[f]) {
			f++;
			continue;
		}
		stop = (f / HUGE_RUN + 1) * HUGE_RUN;
		if (stop > g.frames)
			stop = g.frames;
		for (end = f + 1; end < stop && !in[end]; end++)
			;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			more = realloc(e, cap * sizeof(*e));
			if (!more) {
				free(e);
				free(in);
				return 0;
			}
			e = more;
		}
		e[n].frame = f;
		e[n++].frames = end - f;
		*pages += end - f;
		f = end;
	}
	free(in);
	*ext = e;
	return n;
}

/* write guest RAM outside the blob again, as --touch wrote it: untimed */
static int refill(const struct extent *e, unsigned int n)
{
	unsigned int i;
	uint64_t f;

	if (!env.sparse) {
		/* the blob's pages are there already: the others are faulted */
		if (!madvise(g.ram, env.ram, MADV_POPULATE_WRITE))
			return 0;
		if (errno != EINVAL)
			return -errno;
	}
	for (i = 0; i < n; i++)
		for (f = e[i].frame; f < e[i].frame + e[i].frames; f++)
			if (touched(f))
				g.ram[f * PAGE] = 1;
	return 0;
}

/* discard every extent: seconds, or -errno */
static double discard(const struct extent *e, unsigned int n)
{
	double t0 = wl_now();
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fallocate(g.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      e[i].frame * PAGE, e[i].frames * PAGE))
			return -errno;
	return wl_now() - t0;
}

/*
 * one round with the batch registered: refill, time the discard, then
 * check with the device's query of each of its ioctls' allocations that
 * nothing was evicted and every range is valid, and read the blob back
 */
static double gap_round(struct upr_dev *dev, const struct extent *e, unsigned int n,
			char *buf, struct userptr_emu_query_args *sum)
{
	struct userptr_emu_query_args q;
	struct upr_alloc *a;
	unsigned int c;
	double t;
	int ret;

	if (upr_register(dev, g.iov, g.niov, 0, UPR_WRITABLE, &a)) {
		fprintf(stderr, "batch: %s\n", upr_errmsg());
		return -EIO;
	}
	ret = refill(e, n);
	t = ret ? ret : discard(e, n);
	memset(sum, 0, sizeof(*sum));
	for (c = 0; c < upr_alloc_handles(a) && t >= 0; c++) {
		memset(&q, 0, sizeof(q));
		q.handle = upr_alloc_handle(a, c);
		if (ioctl(upr_dev_fd(dev), USERPTR_EMU_IOC_QUERY, &q)) {
			t = -errno;
			break;
		}
		sum->evictions += q.evictions;
		sum->num_ranges += q.num_ranges;
		sum->num_valid += q.num_valid;
		sum->num_windows += q.num_windows;
		sum->helper_bytes += q.helper_bytes;
	}
	if (t >= 0 && read_blob(BATCH, upr_dev_fd(dev), upr_alloc_va(a), buf))
		t = -EIO;
	if (upr_unregister(dev, a) && t >= 0)
		t = -EIO;
	return t;
}

/*
 * --gap-price: the batch's notifiers span the blob's frames and the guest
 * pages between them, whose every invalidation then calls them to find no
 * range hit. Every frame outside the blob discarded (written again,
 * untimed, before each round): without any registration and with the
 * batch, after an untimed round of each, interleaved per repetition; the
 * batch must see no eviction, keep every range valid and read back right.
 */
static int gap_price(char *buf)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU, .mode = UPR_MODE_BATCH };
	double without[MAX_REPS], with[MAX_REPS], mn, mw;
	struct userptr_emu_query_args q = {}, qr;
	uint64_t evictions = 0, pages;
	unsigned int n, rep, i, bad = 0;
	struct upr_dev *dev;
	struct extent *e;
	int ret = 0;
	FILE *f;

	n = outside_blob(&e, &pages);
	if (!e)
		return -ENOMEM;
	if (upr_open(&dev, &o)) {
		fprintf(stderr, "%s\n", upr_errmsg());
		free(e);
		return -ENODEV;
	}
	/* rep 0: the untimed round, overwritten by the first timed one */
	for (rep = 0; rep <= env.reps && !ret; rep++) {
		i = rep ? rep - 1 : 0;
		ret = refill(e, n);
		without[i] = ret ? ret : discard(e, n);
		with[i] = gap_round(dev, e, n, buf, &qr);
		if (without[i] < 0 || with[i] < 0) {
			ret = -EIO;
			break;
		}
		evictions += qr.evictions;
		bad += qr.num_ranges - qr.num_valid;
		q = qr;
	}
	upr_close(dev);
	free(e);
	if (ret) {
		fprintf(stderr, "gap price: a discard, the batch or its read failed\n");
		return ret;
	}
	mn = wl_median(without, env.reps) * 1e3;
	mw = wl_median(with, env.reps) * 1e3;
	printf("blob of %u guest pages, %u iovecs, guest RAM %llu MiB (%s); median of %u\n",
	       env.n, g.niov, (unsigned long long)(env.ram >> 20),
	       env.sparse ? "sparse" : "touched whole", env.reps);
	printf("%llu MiB outside the blob discarded in %u calls: %.2f ms without a registration, ",
	       (unsigned long long)(pages >> 8), n, mn);
	printf("%.2f ms with the batch (%u notifiers), %.2fx; %llu evictions, %u ranges invalid\n",
	       mw, q.num_windows, mw / mn, (unsigned long long)evictions, bad);
	if (env.json) {
		f = fopen(env.json, "w");
		if (!f)
			return -errno;
		fprintf(f, "{\n  \"bench\": \"virgl-gap-price\",\n  \"n\": %u,\n"
			"  \"iovecs\": %u,\n  \"ram_mib\": %llu,\n  \"touch\": \"%s\",\n"
			"  \"reps\": %u,\n", env.n, g.niov, (unsigned long long)(env.ram >> 20),
			env.sparse ? "sparse" : "all", env.reps);
		fprintf(f, "  \"discards\": %u,\n  \"discarded_pages\": %llu,\n", n,
			(unsigned long long)pages);
		fprintf(f, "  \"without_ms\": %.4f,\n  \"with_batch_ms\": %.4f,\n"
			"  \"ratio\": %.4f,\n", mn, mw, mw / mn);
		fprintf(f, "  \"windows\": %u,\n  \"evictions\": %llu,\n"
			"  \"invalid_ranges\": %u,\n  \"helper_bytes\": %llu\n}\n",
			q.num_windows, (unsigned long long)evictions, bad,
			(unsigned long long)q.helper_bytes);
		if (fclose(f))
			return -errno;
	}
	return evictions || bad ? -EIO : 0;
}

static const char doc[] =
"A virgl-style blob of N guest pages registered as one batch, stitched with\n"
"mremap(MREMAP_DONTUNMAP) into one userptr, and one userptr per iovec,\n"
"beside one userptr over N neighbouring guest frames.\n"
"\n"
"USAGE: userptr-virgl [-n N] [--huge] [-G MIB] [--touch all|sparse] [-r REPS]\n"
"                     [-w WAY]... [--backend emu|kfd] [-o FILE]\n"
"                     | --gap-price | --map-limit\n";

static const struct argp_option opts[] = {
	{ "pages", 'n', "N", 0, "Guest pages in the blob (default 4096; up to N with --map-limit)" },
	{ "run-max", 'R', "PAGES", 0, "Longest run of neighbouring frames (default 8)" },
	{ "huge", 'H', NULL, 0, "Runs of 2 MiB (N a multiple of 512)" },
	{ "ram", 'G', "MIB", 0,
	  "Guest RAM, up to 1 TiB (default: 4 times the blob, at least 64 MiB)" },
	{ "touch", 'T', "HOW", 0,
	  "all: write every guest page (default); sparse: the blob's, the contiguous run's and every 64th" },
	{ "reps", 'r', "REPS", 0, "Repetitions (default 3)" },
	{ "way", 'w', "WAY", 0,
	  "batch, stitch, per-range or contiguous; repeatable (default all)" },
	{ "seed", 's', "SEED", 0, "Seed of the page picks (default 1)" },
	{ "gap-price", 'P', NULL, 0,
	  "Time discarding guest RAM outside the blob with the batch registered and without" },
	{ "map-limit", 'L', NULL, 0, "Find the N at which stitching hits vm.max_map_count" },
	{ "backend", 'b', "DEV", 0,
	  "emu: /dev/userptr_emu, every page read back (default); kfd: /dev/kfd, an AMD GPU" },
	{ "output", 'o', "FILE", 0, "Write the results as JSON" },
	{ "register-only", 'O', NULL, 0,
	  "Register and free each way's blob, nothing between (no reads, no restores): for profiles" },
	{},
};

static unsigned long num_arg(const char *arg, unsigned long min, unsigned long max,
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
	int w, found = 0;

	switch (key) {
	case 'n':
		env.n = num_arg(arg, 2, 1 << 20, state);
		break;
	case 'R':
		env.run_max = num_arg(arg, 1, 4096, state);
		break;
	case 'H':
		env.huge = true;
		break;
	case 'O':
		env.register_only = true;
		break;
	case 'G':
		env.ram = (uint64_t)num_arg(arg, 16, 1 << 20, state) << 20;
		break;
	case 'r':
		env.reps = num_arg(arg, 1, MAX_REPS, state);
		break;
	case 'w':
		if (!ways_given)
			env.ways = 0;
		ways_given = true;
		for (w = 0; w < NR_WAYS; w++)
			if (!strcmp(arg, way_name[w]))
				found = 1 << w;
		if (!found)
			argp_error(state,
				   "unknown way '%s' (batch, stitch, per-range, contiguous or gpusvm)",
				   arg);
		env.ways |= found;
		break;
	case 'T':
		if (!strcmp(arg, "sparse"))
			env.sparse = true;
		else if (!strcmp(arg, "all"))
			env.sparse = false;
		else
			argp_error(state, "unknown --touch '%s' (all or sparse)", arg);
		break;
	case 'P':
		env.gap_price = true;
		break;
	case 's':
		env.seed = num_arg(arg, 0, ~0UL, state);
		break;
	case 'L':
		env.map_limit = true;
		break;
	case 'b':
		wl_backend_arg(arg, &env.backend, state);
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
		if (env.gap_price && env.map_limit)
			argp_error(state, "--gap-price and --map-limit exclude each other");
		if (env.backend != UPR_BACKEND_EMU && (env.gap_price || env.map_limit))
			argp_error(state, "--gap-price and --map-limit read the emulated device: --backend emu");
		if (!env.ram) {
			env.ram = 4ULL * env.n * PAGE;
			if (env.ram < (64ULL << 20))
				env.ram = 64ULL << 20;
		}
		/* the blob and the contiguous run, whose N frames it never shares */
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
	if (env.map_limit) {
		touch_ram(0);
		return map_limit() ? 1 : 0;
	}
	/* the run first, the blob around it: the same blob with any -w */
	place_contiguous(env.n, env.seed);
	ret = pick_blob(env.n, env.seed);
	buf = malloc((uint64_t)env.n * PAGE);
	if (ret || !buf) {
		fprintf(stderr, "blob of %u pages: %s\n", env.n, strerror(ret ? -ret : ENOMEM));
		return 1;
	}
	touch_ram(env.n);
	if (env.gap_price) {
		ret = gap_price(buf);
		free(buf);
		return ret ? 1 : 0;
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
