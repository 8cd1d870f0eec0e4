// SPDX-License-Identifier: GPL-2.0
/*
 * userptr-pressure: a large registration under memory pressure, and its end
 * by the OOM killer.
 *
 * The amount of memory graphics userptrs already have trouble with is
 * around 256 MiB (the review of the public postings); a batch is meant for
 * hundreds of MiB to GiBs. This registers N scattered ranges (the layout
 * options: -n 4096 -s 64k is 256 MiB) as one allocation, through the render
 * node (a GEM userptr with a ranges array taken over by the compute file,
 * the default) or the device's batch ioctl (-m batch), and then reads them
 * through the device range after range, each read checked against what
 * the CPU holds. A hog process meanwhile locks memory (mlock, so reclaim
 * cannot take it back: it must take the registered pages), by default
 * until half the registration is in swap (-H MIB: that much at once),
 * frees it and lets the worker read every range once, -r
 * times: reclaim pushes the registered pages out to zram swap, each such
 * invalidation evicts the allocation, and the next device read waits for
 * the restore, which faults them back. The worker pauses while the hog
 * locks (see hog()). The ranges
 * hold data zram compresses (a 64-byte block naming the range and the page,
 * repeated), so that a page pushed out frees its room: pages that do not
 * compress take as much room in zram as in RAM, and a guest under TCG then
 * thrashed for tens of minutes. Reported: the reads done in each round
 * (progress), the longest and the median wait of a read (what a restore
 * costs under pressure), evictions and restores, pages swapped out.
 *
 * With --oom, a last phase makes the registering process the OOM killer's
 * choice (oom_score_adj 1000) and the hog grows until the kernel kills it:
 * then the device must hold nothing of it (no allocation, range, mapped
 * page or GEM object left).
 *
 * Exit status: 0 when every read matched, every round read something, no
 * read timed out, an eviction happened, and (--oom) the process was killed
 * and left nothing; 1 otherwise; 2 for usage.
 *
 *   userptr-pressure -n 4096 -s 64k -r 2 --hog-once --oom   # make check
 *   userptr-pressure -n 4096 -s 256k -o p.json   # 1 GiB, make bench
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "layout.h"
#include "userptr.h"
#include "userptr_emu_uapi.h"

#define MAX_SAMPLES	65536
#define MAX_ROUNDS	64
#define HOG_CHUNK	(16ULL << 20)

static const char doc[] =
"A registration under memory pressure: device reads checked while a hog\n"
"pushes the registered pages to swap, and (--oom) its end by the OOM killer.\n"
"Exit status: 0 pass, 1 fail, 2 usage.\n"
"\n"
"USAGE: userptr-pressure [-n N] [-s SIZE | -S MAX] [-m render|batch]\n"
"                        [-H MIB] [-r ROUNDS] [-T TIMEOUT_MS] [-p US] [--oom]\n"
"                        [-o JSON] [-v]\n"
"(default: -n 1024 -s 64k -m render -r 2, -H until half the registration\n"
"is in swap)\n";

enum { OPT_OOM = 1000, OPT_ONCE };

static const struct argp_option opts[] = {
	{ "mode", 'm', "render|batch", 0, "Register through the render node (default) or the batch ioctl" },
	{ "hog", 'H', "MIB", 0, "What the hog locks each round (default: until half the registration is in swap)" },
	{ "rounds", 'r', "N", 0, "Hog rounds (default 2)" },
	{ "timeout", 'T', "MS", 0, "A device read waits this long for a restore (default 300000)" },
	{ "oom", OPT_OOM, NULL, 0, "End with the OOM killer on the registering process" },
	{ "hog-once", OPT_ONCE, NULL, 0, "Lock what is available plus half the registration, no steps after" },
	{ "output", 'o', "FILE", 0, "Write the results as JSON" },
	{ "verbose", 'v', NULL, 0, "A line on stderr per round" },
	{ "pause", 'p', "US", 0, "Pause between two device reads (default 0)" },
	{},
};

static struct env {
	struct wl_args lay;
	enum upr_mode mode;
	uint64_t hog;
	unsigned int rounds;
	unsigned int timeout_ms;
	bool oom;
	bool once;
	bool verbose;
	unsigned int pause_us;
	const char *json;
} env = {
	.lay = { .n = 1024, .min_n = 1, .size = 64 << 10, .seed = 1 },
	.mode = UPR_MODE_RENDER, .rounds = 2, .timeout_ms = 300000,
};

enum phase { P_START, P_PRESSURE, P_OOM, P_STOP };

/* shared by the three processes: the worker's counts outlive its kill */
struct shared {
	volatile int phase;
	volatile int registered;	/* 1 registered, -1 failed */
	volatile int hog_done;		/* the hog has ended */
	volatile unsigned int hog_rounds;
	volatile int hog_busy;		/* 1: the worker pauses; 2: it has */
	volatile unsigned long long hog_max;	/* the most the hog locked, bytes */
	volatile unsigned long reads, mismatches, errors, timeouts;
	volatile unsigned long oom_errors;	/* reads that failed out of memory */
	volatile int first_error;
	volatile unsigned long round_reads[MAX_ROUNDS + 1];
	volatile double register_ms, read_ms_max;
	volatile unsigned long nsamples;
	volatile unsigned long long evictions, restores;
	double samples[MAX_SAMPLES];	/* read waits, ms */
};

static struct shared *sh;

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'm':
		if (!strcmp(arg, "render"))
			env.mode = UPR_MODE_RENDER;
		else if (!strcmp(arg, "batch"))
			env.mode = UPR_MODE_BATCH;
		else
			argp_error(state, "mode is render or batch, not '%s'", arg);
		break;
	case 'H':
		env.hog = strtoull(arg, NULL, 0) << 20;
		if (!env.hog)
			argp_error(state, "bad hog size '%s'", arg);
		break;
	case 'r':
		env.rounds = strtoul(arg, NULL, 0);
		if (!env.rounds || env.rounds > MAX_ROUNDS)
			argp_error(state, "1 to %d rounds", MAX_ROUNDS);
		break;
	case 'T':
		env.timeout_ms = strtoul(arg, NULL, 0);
		if (!env.timeout_ms)
			argp_error(state, "bad timeout '%s'", arg);
		break;
	case OPT_OOM:
		env.oom = true;
		break;
	case OPT_ONCE:
		env.once = true;
		break;
	case 'o':
		env.json = arg;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'p':
		env.pause_us = strtoul(arg, NULL, 0);
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

/* a /proc/meminfo, /proc/vmstat or /proc/PID/status value ("Key: N" or "key N"), or 0 */
static unsigned long long proc_value(const char *file, const char *key)
{
	unsigned long long v = 0;
	size_t len = strlen(key);
	char line[256];
	FILE *f = fopen(file, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && (line[len] == ':' || line[len] == ' ')) {
			v = strtoull(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * A page's pattern: a 64-byte block naming the range (@tag) and the page,
 * repeated. A wrong page (another range's, another page of the range, or
 * a page the kernel reused) does not match; zram stores it in a few bytes.
 */
static uint64_t pword(uint64_t tag, uint64_t page, uint64_t j)
{
	return tag << 40 ^ page << 8 ^ (j & 7);
}

static void fill_pages(void *p, uint64_t size, uint64_t tag)
{
	uint64_t *w = p, j;

	for (j = 0; j < size / 8; j++)
		w[j] = pword(tag, j / 512, j);
}

/* the first wrong word's index, or -1 */
static long check_pages(const void *p, uint64_t size, uint64_t tag)
{
	const uint64_t *w = p;
	uint64_t j;

	for (j = 0; j < size / 8; j++)
		if (w[j] != pword(tag, j / 512, j))
			return j;
	return -1;
}

/* memory the kernel cannot reclaim: locked, populated */
static void *hog_lock(uint64_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* until the worker has read @n more ranges, or the phase has changed */
static void hog_wait_reads(unsigned long n, int phase)
{
	unsigned long start = sh->reads;

	while (sh->phase == phase && sh->reads - start < n)
		usleep(10000);
}

/* a process's swapped-out memory in bytes (VmSwap), or 0 */
static unsigned long long vm_swap(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return proc_value(path, "VmSwap") << 10;
}

/*
 * Push half the registration out: with -H, lock that much; by default lock
 * what is available plus @want, then (unless --hog-once) HOG_CHUNK after
 * HOG_CHUNK until the worker has @want bytes in swap (what the kernel
 * reclaims first, the page cache, free memory, differs from one guest to
 * the next: the first lock alone pushed nothing out of a 4 GiB guest at 64
 * and 256 MiB; chunks alone made a 1 GiB guest under KASAN thrash for over
 * 40 minutes). The device's restore worker faults pages back in
 * meanwhile (it restores without waiting for a read), but only into what
 * the hog leaves: the worker's share of swap grows as the hog does, and
 * reaches @want while the worker still has half its registration in RAM,
 * short of the OOM killer. Each chunk stays locked until hog_free().
 */
struct hog_chunks {
	void *p[4096];
	uint64_t size[4096];
	unsigned int n;
	unsigned long long bytes;
};

static int hog_push(struct hog_chunks *h, pid_t worker, unsigned long long want)
{
	/*
	 * first what is available and @want more at once (one reclaim, which
	 * pushes the registration out unless the page cache is large), then
	 * HOG_CHUNK at a time
	 */
	uint64_t size = env.hog ? env.hog :
		(proc_value("/proc/meminfo", "MemAvailable") << 10) + want;

	h->n = 0;
	h->bytes = 0;
	do {
		if (h->n == 4096)
			return -ENOMEM;
		h->p[h->n] = hog_lock(size);
		if (!h->p[h->n])
			return -ENOMEM;
		h->size[h->n++] = size;
		h->bytes += size;
		size = HOG_CHUNK;
	} while (!env.hog && !env.once && vm_swap(worker) < want);
	if (h->bytes > sh->hog_max)
		sh->hog_max = h->bytes;
	return 0;
}

static void hog_free(struct hog_chunks *h)
{
	while (h->n--)
		munmap(h->p[h->n], h->size[h->n]);
}

/*
 * The hog: lock memory until half the registration is out (reclaim pushes
 * registered pages out while it gets it), free it, and let the worker read
 * every range once (each read of an evicted range waits for its restore),
 * round after round; in the OOM phase lock a chunk more at a time while the
 * worker lives, never to free it. The worker pauses while the hog locks: a
 * registration is restored whole, and a restore racing the hog's reclaim
 * of the pages it faults only ends once the hog has what it asked for,
 * which under TCG with KASAN took longer than make check has (the OOM phase
 * has them race, until the kernel kills the worker).
 */
static void hog(pid_t worker, unsigned int n, unsigned long long want)
{
	static struct hog_chunks h;

	while (sh->phase == P_START)
		usleep(10000);
	while (sh->phase == P_PRESSURE && sh->hog_rounds < env.rounds) {
		sh->hog_busy = 1;
		while (sh->hog_busy != 2 && sh->phase == P_PRESSURE)
			usleep(1000);
		if (hog_push(&h, worker, want))
			_exit(1);
		hog_free(&h);
		sh->hog_busy = 0;
		hog_wait_reads(n, P_PRESSURE);
		__atomic_add_fetch(&sh->hog_rounds, 1, __ATOMIC_SEQ_CST);
		if (env.verbose)
			fprintf(stderr, "userptr-pressure: hog round %u done, %lu reads, %llu evictions\n",
				sh->hog_rounds, sh->reads, sh->evictions);
	}
	while (sh->phase == P_PRESSURE)
		usleep(10000);
	/* the OOM phase: grow until the worker is gone (the kernel's choice) */
	while (sh->phase == P_OOM && !kill(worker, 0))
		if (!hog_lock(HOG_CHUNK))
			break;
	sh->hog_done = 1;
	_exit(0);
}

static int query(int fd, uint64_t handle, struct userptr_emu_query_args *q)
{
	memset(q, 0, sizeof(*q));
	q->handle = handle;
	return ioctl(fd, USERPTR_EMU_IOC_QUERY, q) ? -errno : 0;
}

static void record_error(int err)
{
	if (!sh->errors++)
		sh->first_error = err;
}

/*
 * The worker: register, then read every range in turn through the device
 * and check it, until told to stop or killed.
 */
static void worker(const struct layout *l, uint64_t max_size)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU, .mode = env.mode };
	struct userptr_emu_query_args q;
	unsigned int i, round;
	bool oom, adjusted = false;
	struct upr_alloc *a;
	struct upr_dev *dev;
	uint64_t va, handle;
	double t, ms;
	void *buf;
	int fd, ret;

	/* the layout holds each range's pattern (tag i + 1) */
	buf = malloc(max_size);
	t = wl_now();
	ret = buf ? upr_open(&dev, &o) : -ENOMEM;
	if (!ret)
		ret = upr_register(dev, l->r, l->n, 0, UPR_WRITABLE, &a);
	if (ret) {
		fprintf(stderr, "userptr-pressure: %s\n", upr_errmsg());
		sh->registered = -1;
		_exit(1);
	}
	sh->register_ms = (wl_now() - t) * 1e3;
	fd = upr_dev_fd(dev);
	va = upr_alloc_va(a);
	handle = upr_alloc_handle(a, 0);
	sh->registered = 1;

	for (i = 0; sh->phase != P_STOP; i = (i + 1) % l->n) {
		if (sh->hog_busy) {
			sh->hog_busy = 2;
			while (sh->hog_busy && sh->phase != P_STOP)
				usleep(1000);
		}
		oom = sh->phase == P_OOM;
		if (oom && !adjusted) {
			ret = write_file("/proc/self/oom_score_adj", "1000");
			if (ret)
				record_error(-ret);
			adjusted = true;
		}
		t = wl_now();
		ret = wl_device_read(fd, va + wl_offset(l, i), buf, l->r[i].size,
				     env.timeout_ms);
		ms = (wl_now() - t) * 1e3;
		/* out of memory, a read may fail: it must not read wrong data */
		if (ret && oom)
			sh->oom_errors++;
		else if (ret == -ETIMEDOUT)
			sh->timeouts++;
		else if (ret)
			record_error(-ret);
		if (!ret && check_pages(buf, l->r[i].size, i + 1) >= 0)
			sh->mismatches++;
		sh->reads++;
		round = sh->hog_rounds;
		sh->round_reads[round < MAX_ROUNDS ? round : MAX_ROUNDS]++;
		if (ms > sh->read_ms_max)
			sh->read_ms_max = ms;
		if (sh->nsamples < MAX_SAMPLES)
			sh->samples[sh->nsamples++] = ms;
		if (!(sh->reads % 64) && !query(fd, handle, &q)) {
			sh->evictions = q.evictions;
			sh->restores = q.restores;
		}
		/* on one CPU, leave the hog some of it */
		if (env.pause_us)
			usleep(env.pause_us);
	}
	if (!query(fd, handle, &q)) {
		sh->evictions = q.evictions;
		sh->restores = q.restores;
	}
	if (upr_unregister(dev, a))
		record_error(EIO);
	upr_close(dev);
	free(buf);
	_exit(0);
}

/*
 * The device's render node, for its count of GEM objects, or -1: each
 * render node asked its driver through libdrm, as libuserptr finds it
 */
static int render_open(void)
{
	char path[64];
	drmVersionPtr v;
	int i, fd;

	for (i = 128; i < 192; i++) {
		snprintf(path, sizeof(path), "/dev/dri/renderD%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, "userptr_emu")) {
			drmFreeVersion(v);
			return fd;
		}
		drmFreeVersion(v);
		close(fd);
	}
	return -1;
}

/* what the device still holds, device-wide: 0 when nothing */
static unsigned long long leftovers(char *what, size_t len)
{
	struct userptr_emu_stats_args s = { 0 };
	struct drm_userptr_emu_stats g = { 0 };
	int fd = open("/dev/userptr_emu", O_RDWR | O_CLOEXEC), rfd;

	if (fd < 0 || ioctl(fd, USERPTR_EMU_IOC_STATS, &s)) {
		snprintf(what, len, "no device stats: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	rfd = render_open();
	if (rfd >= 0) {
		ioctl(rfd, DRM_IOCTL_USERPTR_EMU_STATS, &g);
		close(rfd);
	}
	snprintf(what, len, "allocations %llu, ranges %llu, mapped pages %llu, GEM objects %llu",
		 (unsigned long long)s.dev_allocs, (unsigned long long)s.dev_ranges,
		 (unsigned long long)s.dev_pages, (unsigned long long)g.objects);
	return s.dev_allocs + s.dev_ranges + s.dev_pages + g.objects;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &wl_args_argp, 0, "Layout:", 1 },
		{},
	};
	static const struct argp argp = { opts, parse_arg, NULL, doc, children };
	unsigned long long swapped0, swapped, left = 0, kills0 = 0, kills = 0;
	bool killed = false, progress = true, hog_lost = false, pass;
	pid_t wpid, hpid;
	uint64_t *sizes, max_size;
	char what[160] = "";
	double median = 0, t0, secs;
	struct layout l;
	unsigned int i;
	int status;
	FILE *f;

	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sizes = calloc(env.lay.n, sizeof(*sizes));
	if (sh == MAP_FAILED || !sizes)
		return 1;
	max_size = wl_sizes(sizes, env.lay.n, env.lay.size, env.lay.max_size, env.lay.seed);
	if (wl_scattered(&l, env.lay.n, sizes, env.lay.seed)) {
		fprintf(stderr, "userptr-pressure: no layout\n");
		return 1;
	}
	for (i = 0; i < l.n; i++)
		fill_pages((void *)(uintptr_t)l.r[i].start, l.r[i].size, i + 1);
	swapped0 = proc_value("/proc/vmstat", "pswpout");
	t0 = wl_now();

	wpid = fork();
	if (!wpid)
		worker(&l, max_size);
	while (!sh->registered)
		usleep(10000);
	if (sh->registered < 0) {
		waitpid(wpid, NULL, 0);
		return 1;
	}
	hpid = fork();
	if (!hpid)
		hog(wpid, l.n, l.total / 2);
	sh->phase = P_PRESSURE;
	while (sh->hog_rounds < env.rounds && !sh->hog_done &&
	       waitpid(wpid, &status, WNOHANG) == 0) {
		if (waitpid(hpid, NULL, WNOHANG) == hpid) {
			/* the hog is gone (killed): no round can end */
			fprintf(stderr, "userptr-pressure: the hog ended in round %u\n",
				sh->hog_rounds + 1);
			hog_lost = true;
			break;
		}
		usleep(100000);
	}
	if (env.oom && !hog_lost) {
		if (env.verbose)
			fprintf(stderr, "userptr-pressure: the OOM phase\n");
		kills0 = proc_value("/proc/vmstat", "oom_kill");
		sh->phase = P_OOM;
		waitpid(wpid, &status, 0);
		killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	} else {
		sh->phase = P_STOP;
		waitpid(wpid, &status, 0);
	}
	sh->phase = P_STOP;
	if (!hog_lost)
		waitpid(hpid, NULL, 0);
	if (env.oom && !hog_lost)
		kills = proc_value("/proc/vmstat", "oom_kill") - kills0;
	swapped = proc_value("/proc/vmstat", "pswpout") - swapped0;
	/* the dead process's files are closed before its parent can reap it */
	left = leftovers(what, sizeof(what));

	for (i = 0; i < env.rounds; i++)
		if (!sh->round_reads[i])
			progress = false;
	qsort(sh->samples, sh->nsamples, sizeof(double), cmp_double);
	if (sh->nsamples)
		median = sh->samples[sh->nsamples / 2];
	pass = !hog_lost && !sh->mismatches && !sh->errors && !sh->timeouts && progress &&
	       sh->evictions && (!env.oom || (killed && !left)) &&
	       (env.oom || (WIFEXITED(status) && !WEXITSTATUS(status) && !left));

	secs = wl_now() - t0;
	printf("userptr-pressure: %u ranges, %llu MiB through the %s, hog %llu MiB x %u%s, %.1f s\n",
	       l.n, (unsigned long long)(l.total >> 20),
	       env.mode == UPR_MODE_RENDER ? "render node" : "batch ioctl",
	       sh->hog_max >> 20, env.rounds,
	       env.oom ? ", then the OOM killer" : "", secs);
	printf("  registered in %.1f ms; device reads %lu (per round:", sh->register_ms, sh->reads);
	for (i = 0; i <= env.rounds && i <= MAX_ROUNDS; i++)
		printf(" %lu", sh->round_reads[i]);
	printf("), wait max %.1f ms, median %.3f ms\n", sh->read_ms_max, median);
	printf("  evictions %llu, restores %llu, pages swapped out %llu\n",
	       sh->evictions, sh->restores, swapped);
	printf("  mismatches %lu, errors %lu%s%s, timeouts %lu\n", sh->mismatches, sh->errors,
	       sh->errors ? ", first: " : "", sh->errors ? strerror(sh->first_error) : "",
	       sh->timeouts);
	if (env.oom)
		printf("  the OOM killer %s the registering process (reads refused out of memory: %lu), %llu kill%s in all\n",
		       killed ? "killed" : "did not kill", sh->oom_errors, kills,
		       kills == 1 ? "" : "s");
	printf("  left on the device: %s\n", what);
	printf("  %s\n", pass ? "PASS" : "FAIL");

	if (env.json && (f = fopen(env.json, "w"))) {
		fprintf(f, "{\n  \"bench\": \"pressure\",\n  \"mode\": \"%s\",\n  \"ranges\": %u,\n",
			env.mode == UPR_MODE_RENDER ? "render" : "batch", l.n);
		fprintf(f, "  \"registered_mib\": %llu,\n  \"hog_mib\": %llu,\n  \"rounds\": %u,\n",
			(unsigned long long)(l.total >> 20), sh->hog_max >> 20,
			env.rounds);
		fprintf(f, "  \"register_ms\": %.3f,\n  \"reads\": %lu,\n  \"round_reads\": [",
			sh->register_ms, sh->reads);
		for (i = 0; i <= env.rounds && i <= MAX_ROUNDS; i++)
			fprintf(f, "%s%lu", i ? ", " : "", sh->round_reads[i]);
		fprintf(f, "],\n  \"seconds\": %.1f,\n  \"read_ms_max\": %.3f,\n",
			secs, sh->read_ms_max);
		fprintf(f, "  \"read_ms_median\": %.4f,\n  \"evictions\": %llu,\n  \"restores\": %llu,\n",
			median, sh->evictions, sh->restores);
		fprintf(f, "  \"swapped_pages\": %llu,\n  \"mismatches\": %lu,\n  \"errors\": %lu,\n",
			swapped, sh->mismatches, sh->errors);
		fprintf(f, "  \"timeouts\": %lu,\n  \"oom\": %s,\n  \"oom_killed\": %s,\n",
			sh->timeouts, env.oom ? "true" : "false", killed ? "true" : "false");
		fprintf(f, "  \"oom_kills\": %llu,\n", kills);
		fprintf(f, "  \"leftovers\": %llu,\n  \"pass\": %s\n}\n", left, pass ? "true" : "false");
		fclose(f);
	}
	wl_free(&l);
	free(sizes);
	return pass ? 0 : 1;
}
