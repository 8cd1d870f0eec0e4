// SPDX-License-Identifier: GPL-2.0
/*
 * userptr-stress: eviction storms under device reads that check the data.
 *
 * N scattered ranges are registered as one batch on the emulated device.
 * The main thread picks a range and changes what backs it, the ways an
 * application or the kernel do: MADV_DONTNEED, MADV_PAGEOUT, mremap of new
 * memory onto it, fork and copy-on-write, munmap, or a plain CPU write;
 * each change but the last invalidates the range and evicts the batch.
 * Reader threads meanwhile read random ranges through the device. Every
 * read is compared with what the CPU holds: a read of old pages after an
 * invalidation is a stale read. The exit status says whether one occurred.
 *
 *   userptr-stress -n 256 -d 30 -t 2          # 30 s, two readers
 *   userptr-stress -i 1000 -a dontneed,fork   # 1000 changes of two kinds
 */
#include <argp.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layout.h"
#include "userptr.h"
#include "userptr_emu_uapi.h"

#define MAX_READERS	16

enum action { A_DONTNEED, A_PAGEOUT, A_MREMAP, A_FORK, A_MUNMAP, A_WRITE, NR_ACTIONS };
static const char *const action_name[NR_ACTIONS] = {
	"dontneed", "pageout", "mremap", "fork", "munmap", "write",
};

static struct env {
	struct wl_args lay;
	unsigned int readers;
	double duration;
	unsigned long iterations;
	unsigned int actions;	/* bit per action */
	unsigned int timeout_ms;
	bool verbose;
} env = {
	.lay = { .n = 64, .min_n = 2, .size = 64 << 10, .seed = 1 },
	.readers = 1,
	.iterations = 500, .actions = (1 << NR_ACTIONS) - 1, .timeout_ms = 60000,
};

struct range_state {
	pthread_mutex_t lock;
	uint64_t tag;		/* what the range holds: the pattern of tag */
	bool may_fault;		/* was unmapped: the device may refuse it */
};

static struct layout l;
static struct range_state *st;
static uint64_t max_size;	/* of the ranges: what a read buffer holds */
static uint64_t va;
static int fd;
static atomic_bool stop;
static atomic_ulong reads, stale, errors, faults;
static unsigned long done[NR_ACTIONS];

static const char doc[] =
"Eviction storms on a batch registration while device reads check the data.\n"
"Stops at the first stale read or error. Exit status: 0 none, 1 one, 2 usage.\n"
"\n"
"USAGE: userptr-stress [-n N] [-s SIZE | -S MAX] [-d SECONDS | -i ITERATIONS]\n"
"                      [-t READERS] [-a ACTION,...] [-T TIMEOUT_MS]\n"
"(default: -n 64 -s 64k -i 500)\n"
"\n"
"ACTIONS: dontneed, pageout, mremap, fork, munmap, write (default all)\n";

static const struct argp_option opts[] = {
	{ "duration", 'd', "SECONDS", 0, "Run this long" },
	{ "iterations", 'i', "N", 0, "Or this many changes (default 500)" },
	{ "threads", 't', "READERS", 0, "Reader threads (default 1)" },
	{ "actions", 'a', "LIST", 0, "Comma-separated actions to use" },
	{ "timeout", 'T', "MS", 0, "A device read waits this long for a restore (default 60000)" },
	{ "verbose", 'v', NULL, 0, "Log every change" },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *tok, *save;
	unsigned int i;

	switch (key) {
	case 'd':
		env.duration = strtod(arg, NULL);
		if (env.duration <= 0)
			argp_error(state, "bad duration '%s'", arg);
		break;
	case 'i':
		env.iterations = strtoul(arg, NULL, 0);
		if (!env.iterations)
			argp_error(state, "bad iteration count '%s'", arg);
		break;
	case 't':
		env.readers = strtoul(arg, NULL, 0);
		if (env.readers > MAX_READERS)
			argp_error(state, "at most %d readers", MAX_READERS);
		break;
	case 'a':
		env.actions = 0;
		for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (i = 0; i < NR_ACTIONS; i++)
				if (!strcmp(tok, action_name[i]))
					break;
			if (i == NR_ACTIONS)
				argp_error(state, "unknown action '%s'", tok);
			env.actions |= 1 << i;
		}
		break;
	case 'T':
		env.timeout_ms = strtoul(arg, NULL, 0);
		if (!env.timeout_ms)
			argp_error(state, "bad timeout '%s'", arg);
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

static void *rptr(unsigned int i)
{
	return (void *)(uintptr_t)l.r[i].start;
}

/*
 * Device read of range i, held locked, compared with its tag. EFAULT is
 * right for a range that was unmapped; any other error counts.
 */
static int verify(unsigned int i, void *buf, const char *who)
{
	long bad;
	int ret;

	ret = wl_device_read(fd, va + wl_offset(&l, i), buf, l.r[i].size, env.timeout_ms);
	atomic_fetch_add(&reads, 1);
	if (ret == -EFAULT && st[i].may_fault) {
		atomic_fetch_add(&faults, 1);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "%s: device read of range %u: %s\n", who, i, strerror(-ret));
		atomic_fetch_add(&errors, 1);
		return ret;
	}
	bad = wl_check(buf, l.r[i].size, st[i].tag, 0);
	if (bad >= 0) {
		fprintf(stderr, "%s: STALE READ: range %u at byte %ld differs from the CPU's\n",
			who, i, bad);
		atomic_fetch_add(&stale, 1);
		return -EIO;
	}
	return 0;
}

static void *reader(void *arg)
{
	uint64_t seed = (uintptr_t)arg;
	void *buf = malloc(max_size);

	if (!buf)
		return NULL;
	while (!atomic_load(&stop)) {
		unsigned int i = wl_rng(&seed) % env.lay.n;

		pthread_mutex_lock(&st[i].lock);
		verify(i, buf, "reader");
		pthread_mutex_unlock(&st[i].lock);
	}
	free(buf);
	return NULL;
}

/* range i was unmapped: a device read must fail with EFAULT */
static void gone_read(unsigned int i)
{
	void *buf = malloc(l.r[i].size);
	int ret = -ENOMEM;

	if (buf)
		ret = wl_device_read(fd, va + wl_offset(&l, i), buf, l.r[i].size,
				     env.timeout_ms);
	free(buf);
	atomic_fetch_add(&reads, 1);
	if (ret != -EFAULT) {
		fprintf(stderr, "range %u unmapped, device read gave %s\n",
			i, ret ? strerror(-ret) : "data");
		atomic_fetch_add(ret ? &errors : &stale, 1);
	}
}

/* change what backs range i; its new content is st[i].tag */
static int change(unsigned int i, enum action a, uint64_t newtag)
{
	uint64_t size = l.r[i].size;
	void *p = rptr(i), *q;
	pid_t pid;
	int status;

	switch (a) {
	case A_DONTNEED:
		if (madvise(p, size, MADV_DONTNEED))
			return -errno;
		st[i].tag = WL_TAG_ZERO;
		return 0;
	case A_PAGEOUT:
		/* content kept; EINVAL before 5.4, nothing to check then */
		if (madvise(p, size, MADV_PAGEOUT) && errno != EINVAL)
			return -errno;
		return 0;
	case A_MREMAP:
		q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			return -errno;
		wl_fill(q, size, newtag);
		if (mremap(q, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, p) != p)
			return -errno;
		st[i].tag = newtag;
		st[i].may_fault = false;
		return 0;
	case A_FORK:
		pid = fork();
		if (pid < 0)
			return -errno;
		if (!pid) {
			wl_fill(p, size, ~newtag);	/* the child's copy */
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return -ECHILD;
		wl_fill(p, size, newtag);	/* copy on write: new pages */
		st[i].tag = newtag;
		return 0;
	case A_MUNMAP:
		if (munmap(p, size))
			return -errno;
		st[i].may_fault = true;
		/* gone: the device must refuse it, never read the old pages */
		gone_read(i);
		/* new memory in the hole, for the allocator that owns it */
		if (mmap(p, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
			return -errno;
		wl_fill(p, size, newtag);
		st[i].tag = newtag;
		return 0;
	case A_WRITE:
		/* same pages: no invalidation, the device sees it at once */
		wl_fill(p, size, newtag);
		st[i].tag = newtag;
		return 0;
	default:
		return -EINVAL;
	}
}

static int query(uint64_t handle, struct userptr_emu_query_args *q)
{
	memset(q, 0, sizeof(*q));
	q->handle = handle;
	return ioctl(fd, USERPTR_EMU_IOC_QUERY, q) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &wl_args_argp, 0, "Layout:", 1 },
		{},
	};
	static const struct argp argp = { opts, parse_arg, NULL, doc, children };
	struct upr_opts o = { .backend = UPR_BACKEND_EMU, .mode = UPR_MODE_BATCH };
	struct userptr_emu_query_args q = { 0 };
	struct userptr_emu_stats_args s = { 0 };
	pthread_t th[MAX_READERS];
	struct upr_alloc *a;
	struct upr_dev *dev;
	uint64_t *sizes, seed, tag;
	unsigned long it = 0;
	unsigned int i, nact = 0, acts[NR_ACTIONS];
	double t0;
	void *buf;
	int ret;

	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (env.duration)
		env.iterations = 0;
	for (i = 0; i < NR_ACTIONS; i++)
		if (env.actions & (1 << i))
			acts[nact++] = i;
	sizes = calloc(env.lay.n, sizeof(*sizes));
	st = calloc(env.lay.n, sizeof(*st));
	if (!sizes || !st)
		return 1;
	max_size = wl_sizes(sizes, env.lay.n, env.lay.size, env.lay.max_size, env.lay.seed);
	for (i = 0; i < env.lay.n; i++) {
		pthread_mutex_init(&st[i].lock, NULL);
		st[i].tag = i + 1;
	}
	buf = malloc(max_size);
	ret = wl_scattered(&l, env.lay.n, sizes, env.lay.seed);
	if (ret || !buf) {
		fprintf(stderr, "layout: %s\n", strerror(ret ? -ret : ENOMEM));
		return 1;
	}
	ret = upr_open(&dev, &o);
	if (!ret)
		ret = upr_register(dev, l.r, l.n, 0, UPR_WRITABLE, &a);
	if (ret) {
		fprintf(stderr, "%s\n", upr_errmsg());
		return 1;
	}
	fd = upr_dev_fd(dev);
	va = upr_alloc_va(a);

	for (i = 0; i < env.readers; i++)
		pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)(env.lay.seed + 100 + i));
	seed = env.lay.seed ^ 0x5eed;
	tag = env.lay.n + 1;
	t0 = wl_now();
	while (env.iterations ? it < env.iterations : wl_now() - t0 < env.duration) {
		enum action act = acts[wl_rng(&seed) % nact];

		i = wl_rng(&seed) % env.lay.n;
		pthread_mutex_lock(&st[i].lock);
		ret = change(i, act, ++tag);
		if (ret) {
			fprintf(stderr, "%s of range %u: %s\n", action_name[act], i,
				strerror(-ret));
			atomic_fetch_add(&errors, 1);
		} else {
			done[act]++;
			verify(i, buf, "main");
		}
		pthread_mutex_unlock(&st[i].lock);
		if (env.verbose)
			fprintf(stderr, "%lu: %s range %u\n", it, action_name[act], i);
		it++;
		/* the first failure is the one to look at */
		if (atomic_load(&stale) || atomic_load(&errors))
			break;
	}
	atomic_store(&stop, true);
	for (i = 0; i < env.readers; i++)
		pthread_join(th[i], NULL);
	/* a last look at every range, unless it failed already */
	for (i = 0; i < env.lay.n && !atomic_load(&stale) && !atomic_load(&errors); i++)
		verify(i, buf, "final");
	query(upr_alloc_handle(a, 0), &q);
	if (upr_unregister(dev, a)) {
		fprintf(stderr, "%s\n", upr_errmsg());
		atomic_fetch_add(&errors, 1);
	}
	/* nothing left behind by this file */
	if (ioctl(fd, USERPTR_EMU_IOC_STATS, &s) || s.file_allocs || s.file_ranges) {
		fprintf(stderr, "after unregister: %llu allocations, %llu ranges left\n",
			(unsigned long long)s.file_allocs, (unsigned long long)s.file_ranges);
		atomic_fetch_add(&errors, 1);
	}
	upr_close(dev);

	printf("userptr-stress: %u ranges, %lu changes in %.1f s:", env.lay.n, it, wl_now() - t0);
	for (i = 0; i < NR_ACTIONS; i++)
		if (env.actions & (1 << i))
			printf(" %s %lu", action_name[i], done[i]);
	printf("\n  device reads %lu (%lu refused after munmap), evictions %llu, restores %llu\n",
	       atomic_load(&reads), atomic_load(&faults), (unsigned long long)q.evictions,
	       (unsigned long long)q.restores);
	printf("  stale reads %lu, errors %lu: %s\n", atomic_load(&stale), atomic_load(&errors),
	       atomic_load(&stale) || atomic_load(&errors) ? "FAIL" : "PASS");
	wl_free(&l);
	free(buf);
	free(sizes);
	free(st);
	return atomic_load(&stale) || atomic_load(&errors) ? 1 : 0;
}
