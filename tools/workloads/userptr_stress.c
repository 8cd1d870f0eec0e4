// SPDX-License-Identifier: GPL-2.0
/*
 * userptr-stress: eviction storms under device reads that check the data.
 *
 * N scattered ranges are registered as one batch on the emulated device.
 * Mutator threads pick a range and change what backs it, the ways an
 * application or the kernel do: MADV_DONTNEED, MADV_PAGEOUT, mremap of new
 * memory onto it, fork and copy-on-write, munmap and a new mapping,
 * mprotect to read-only and back, MADV_DONTNEED twice 5 ms apart (the
 * second while the restore the first set off may be about to commit), or
 * a plain CPU write; each change but the last invalidates the range and
 * evicts the batch. Or they write a
 * range through the device and check that the CPU sees it. Reader threads
 * meanwhile read random ranges through the device, and a churn thread
 * (-b) registers, checks and frees small batches of its own on a second
 * open of the device. Every read is compared with what the CPU holds: a
 * read of old pages after an invalidation is a stale read. At the end
 * both opens of the device must hold nothing. The exit status says
 * whether anything failed.
 *
 * With -P each thread is pinned to a CPU of its own, in turn, so that on a
 * machine with several the invalidations, the device's accesses, its
 * restore worker and the registrations run at the same instant.
 *
 *   userptr-stress -n 256 -d 30 -t 2          # 30 s, two readers
 *   userptr-stress -i 1000 -a dontneed,fork   # 1000 changes of two kinds
 *   userptr-stress -d 60 -m 2 -t 2 -b -P      # the race test, 4+ CPUs
 */
#include <argp.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
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
#define MAX_MUTATORS	16
#define CHURN_RANGES	8

enum action {
	A_DONTNEED, A_PAGEOUT, A_MREMAP, A_FORK, A_MUNMAP, A_WRITE, A_MPROTECT,
	A_DEVWRITE, A_REDROP, NR_ACTIONS
};

static const char *const action_name[NR_ACTIONS] = {
	"dontneed", "pageout", "mremap", "fork", "munmap", "write", "mprotect",
	"devwrite", "redrop",
};

/* the actions of the default set: the first six, as before -a grew */
#define DEFAULT_ACTIONS	((1 << A_MPROTECT) - 1)

static struct env {
	struct wl_args lay;
	unsigned int readers;
	unsigned int mutators;
	bool churn;
	bool pin;
	double duration;
	unsigned long iterations;
	unsigned int actions;	/* bit per action */
	unsigned int timeout_ms;
	bool verbose;
} env = {
	.lay = { .n = 64, .min_n = 2, .size = 64 << 10, .seed = 1 },
	.readers = 1, .mutators = 1,
	.iterations = 500, .actions = DEFAULT_ACTIONS, .timeout_ms = 60000,
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
static atomic_ulong reads, stale, errors, faults, changes, churns;
static atomic_ulong done[NR_ACTIONS];
static unsigned int acts[NR_ACTIONS], nact;
static struct upr_dev *churn_dev;
static struct layout churn_l;
static double t0;
/* every thread has made its mappings and buffers: the run starts */
static pthread_barrier_t start;
/*
 * Held by a change that leaves a hole in the address space (munmap, then
 * a new mapping at the same place) and by one that maps new memory
 * anywhere: a mapping made meanwhile could land in the hole, and the new
 * fixed mapping would then replace it. Nothing else maps once the run
 * has started.
 */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

static const char doc[] =
"Eviction storms on a batch registration while device reads check the data.\n"
"Stops at the first stale read or error. Exit status: 0 none, 1 one, 2 usage.\n"
"\n"
"USAGE: userptr-stress [-n N] [-s SIZE | -S MAX] [-d SECONDS | -i ITERATIONS]\n"
"                      [-t READERS] [-m MUTATORS] [-b] [-P] [-a ACTION,...]\n"
"                      [-T TIMEOUT_MS]\n"
"(default: -n 64 -s 64k -i 500 -t 1 -m 1)\n"
"\n"
"ACTIONS: dontneed, pageout, mremap, fork, munmap, write (the default set),\n"
"mprotect, devwrite, redrop, or all\n";

static const struct argp_option opts[] = {
	{ "duration", 'd', "SECONDS", 0, "Run this long" },
	{ "iterations", 'i', "N", 0, "Or this many changes (default 500)" },
	{ "threads", 't', "READERS", 0, "Reader threads (default 1)" },
	{ "mutators", 'm', "N", 0, "Threads that change ranges (default 1)" },
	{ "churn", 'b', NULL, 0, "A thread that registers and frees batches of its own" },
	{ "pin", 'P', NULL, 0, "Pin each thread to a CPU, in turn" },
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
	case 'm':
		env.mutators = strtoul(arg, NULL, 0);
		if (!env.mutators || env.mutators > MAX_MUTATORS)
			argp_error(state, "1 to %d mutators", MAX_MUTATORS);
		break;
	case 'b':
		env.churn = true;
		break;
	case 'P':
		env.pin = true;
		break;
	case 'a':
		env.actions = 0;
		for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (!strcmp(tok, "all")) {
				env.actions = (1 << NR_ACTIONS) - 1;
				continue;
			}
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

/*
 * Thread k of the run on the k-th CPU this process may use, in turn, with
 * -P: on a machine with as many CPUs as threads, each runs on its own.
 */
static void pin(unsigned int k)
{
	cpu_set_t allowed, one;
	unsigned int cpu, n = 0, want;

	if (!env.pin || sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	want = k % CPU_COUNT(&allowed);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || n++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
		return;
	}
}

struct thread_arg {
	unsigned int cpu;	/* the thread's turn for pin() */
	uint64_t seed;
};

static void *reader(void *arg)
{
	const struct thread_arg *ta = arg;
	uint64_t seed = ta->seed;
	void *buf;

	pin(ta->cpu);
	buf = malloc(max_size);
	pthread_barrier_wait(&start);
	if (!buf) {
		fprintf(stderr, "%s: no memory\n", __func__);
		atomic_fetch_add(&errors, 1);
		return NULL;
	}
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

/*
 * Change what backs range i; its new content is st[i].tag. buf holds a
 * range (the thread's own, allocated before the run).
 */
static int change(unsigned int i, enum action a, uint64_t newtag, void *buf)
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
		pthread_mutex_lock(&map_lock);
		q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pthread_mutex_unlock(&map_lock);
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
		pthread_mutex_lock(&map_lock);
		if (munmap(p, size)) {
			pthread_mutex_unlock(&map_lock);
			return -errno;
		}
		st[i].may_fault = true;
		/* gone: the device must refuse it, never read the old pages */
		gone_read(i);
		/* new memory in the hole, for the allocator that owns it */
		q = mmap(p, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		pthread_mutex_unlock(&map_lock);
		if (q != p)
			return -errno;
		wl_fill(p, size, newtag);
		st[i].tag = newtag;
		return 0;
	case A_WRITE:
		/* same pages: no invalidation, the device sees it at once */
		wl_fill(p, size, newtag);
		st[i].tag = newtag;
		return 0;
	case A_MPROTECT:
		/*
		 * Read-only and back, content kept: a restore between the two
		 * cannot fault the range for write (the batch is writable), and
		 * must retry once it is writable again, never keep the error
		 */
		if (mprotect(p, size, PROT_READ))
			return -errno;
		sched_yield();
		if (mprotect(p, size, PROT_READ | PROT_WRITE))
			return -errno;
		return 0;
	case A_REDROP:
		/*
		 * Dropped, and dropped again while the restore the first drop
		 * set off may be between its faults and its commit (it starts
		 * 1 ms after the eviction): the pages it faulted are freed
		 * under it, and only the commit's sequence check keeps the
		 * device from mapping them. Then new data.
		 */
		if (madvise(p, size, MADV_DONTNEED))
			return -errno;
		usleep(5000);
		if (madvise(p, size, MADV_DONTNEED))
			return -errno;
		wl_fill(p, size, newtag);
		st[i].tag = newtag;
		return 0;
	case A_DEVWRITE: {
		/* through the device: the CPU must see it at once */
		long bad;
		int ret;

		wl_fill(buf, size, newtag);
		ret = wl_device_write(fd, va + wl_offset(&l, i), buf, size, env.timeout_ms);
		if (ret == -EFAULT && st[i].may_fault)
			return 0;
		if (ret)
			return ret;
		st[i].tag = newtag;
		bad = wl_check(p, size, newtag, 0);
		if (bad >= 0) {
			fprintf(stderr, "devwrite: range %u at byte %ld: %s\n", i, bad,
				"the CPU does not see the device's write");
			atomic_fetch_add(&stale, 1);
		}
		return 0;
	}
	default:
		return -EINVAL;
	}
}

static bool budget_left(void)
{
	if (atomic_load(&stale) || atomic_load(&errors))
		return false;	/* the first failure is the one to look at */
	if (env.iterations)
		return atomic_fetch_add(&changes, 1) < env.iterations;
	return wl_now() - t0 < env.duration;
}

/* a range's tags are unique across threads: each takes its own series */
static void *mutator(void *arg)
{
	const struct thread_arg *ta = arg;
	uint64_t seed = ta->seed, tag = (uint64_t)(ta->cpu + 1) << 40;
	void *buf, *scratch;
	unsigned int i;
	int ret;

	pin(ta->cpu);
	buf = malloc(max_size);
	scratch = malloc(max_size);
	pthread_barrier_wait(&start);
	while (buf && scratch && budget_left()) {
		enum action act = acts[wl_rng(&seed) % nact];

		i = wl_rng(&seed) % env.lay.n;
		pthread_mutex_lock(&st[i].lock);
		ret = change(i, act, ++tag, scratch);
		if (ret) {
			fprintf(stderr, "%s of range %u: %s\n", action_name[act], i,
				strerror(-ret));
			atomic_fetch_add(&errors, 1);
		} else {
			atomic_fetch_add(&done[act], 1);
			verify(i, buf, "mutator");
		}
		pthread_mutex_unlock(&st[i].lock);
		if (env.verbose)
			fprintf(stderr, "%s range %u\n", action_name[act], i);
	}
	if (!buf || !scratch) {
		fprintf(stderr, "%s: no memory\n", __func__);
		atomic_fetch_add(&errors, 1);
	}
	free(buf);
	free(scratch);
	atomic_store(&stop, true);
	return NULL;
}

/*
 * Batches of CHURN_RANGES ranges of its own registered, read back and
 * freed over and over, on a second open of the device, while the main
 * batch is invalidated and restored: registration and teardown racing the
 * other file's notifiers and restore worker in the same address space.
 */
static void *churn(void *arg)
{
	const struct thread_arg *ta = arg;
	const struct layout *cl = &churn_l;
	struct upr_alloc *a;
	uint64_t tag = 1;
	unsigned int i;
	void *buf;
	int cfd, ret = 0;

	pin(ta->cpu);
	buf = malloc(16 << 10);
	pthread_barrier_wait(&start);
	if (!buf) {
		fprintf(stderr, "%s: no memory\n", __func__);
		atomic_fetch_add(&errors, 1);
		return NULL;
	}
	cfd = upr_dev_fd(churn_dev);
	while (!atomic_load(&stop)) {
		for (i = 0; i < cl->n; i++)
			wl_fill((void *)(uintptr_t)cl->r[i].start, cl->r[i].size, tag + i);
		ret = upr_register(churn_dev, cl->r, cl->n, 0, UPR_WRITABLE, &a);
		if (ret) {
			fprintf(stderr, "%s: register: %s\n", __func__, upr_errmsg());
			atomic_fetch_add(&errors, 1);
			break;
		}
		for (i = 0; i < cl->n && !ret; i++) {
			ret = wl_device_read(cfd, upr_alloc_va(a) + wl_offset(cl, i), buf,
					     cl->r[i].size, env.timeout_ms);
			atomic_fetch_add(&reads, 1);
			if (ret) {
				fprintf(stderr, "%s: device read of range %u: %s\n", __func__, i,
					strerror(-ret));
				atomic_fetch_add(&errors, 1);
			} else if (wl_check(buf, cl->r[i].size, tag + i, 0) >= 0) {
				fprintf(stderr, "%s: STALE READ: range %u\n", __func__, i);
				atomic_fetch_add(&stale, 1);
				ret = -EIO;
			}
		}
		if (upr_unregister(churn_dev, a)) {
			fprintf(stderr, "%s: unregister: %s\n", __func__, upr_errmsg());
			atomic_fetch_add(&errors, 1);
			break;
		}
		atomic_fetch_add(&churns, 1);
		tag += cl->n;
		if (ret)
			break;
	}
	free(buf);
	return NULL;
}

/* nothing left behind by the open fd: 0, or 1 counted as an error */
static int leaks(int dfd, const char *what)
{
	struct userptr_emu_stats_args s = { 0 };

	if (ioctl(dfd, USERPTR_EMU_IOC_STATS, &s) || s.file_allocs || s.file_ranges) {
		fprintf(stderr, "%s: %llu allocations, %llu ranges left\n", what,
			(unsigned long long)s.file_allocs, (unsigned long long)s.file_ranges);
		atomic_fetch_add(&errors, 1);
		return 1;
	}
	return 0;
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
	struct thread_arg ta[MAX_READERS + MAX_MUTATORS + 1];
	pthread_t th[MAX_READERS + MAX_MUTATORS + 1];
	struct userptr_emu_query_args q = { 0 };
	unsigned int i, nth = 0, cpu = 0;
	struct upr_alloc *a;
	struct upr_dev *dev;
	unsigned long changed;
	uint64_t *sizes;
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
	if (!ret && env.churn)
		ret = upr_open(&churn_dev, &o);
	if (ret) {
		fprintf(stderr, "%s\n", upr_errmsg());
		return 1;
	}
	if (env.churn) {
		uint64_t csizes[CHURN_RANGES];

		wl_sizes(csizes, CHURN_RANGES, 16 << 10, 0, env.lay.seed + 200);
		ret = wl_scattered(&churn_l, CHURN_RANGES, csizes, env.lay.seed + 200);
		if (ret) {
			fprintf(stderr, "churn layout: %s\n", strerror(-ret));
			return 1;
		}
	}
	pthread_barrier_init(&start, NULL,
			     env.mutators + env.readers + env.churn + 1);
	fd = upr_dev_fd(dev);
	va = upr_alloc_va(a);

	/* mutators first: with -P and as many CPUs, each has one to itself */
	t0 = wl_now();
	for (i = 0; i < env.mutators; i++, nth++) {
		ta[nth] = (struct thread_arg){ cpu++, (env.lay.seed ^ 0x5eed) + i };
		pthread_create(&th[nth], NULL, mutator, &ta[nth]);
	}
	for (i = 0; i < env.readers; i++, nth++) {
		ta[nth] = (struct thread_arg){ cpu++, env.lay.seed + 100 + i };
		pthread_create(&th[nth], NULL, reader, &ta[nth]);
	}
	if (env.churn) {
		ta[nth] = (struct thread_arg){ cpu++, env.lay.seed + 200 };
		pthread_create(&th[nth], NULL, churn, &ta[nth]);
		nth++;
	}
	pthread_barrier_wait(&start);
	/* the mutators end the run (the budget); the others then stop */
	for (i = 0; i < env.mutators; i++)
		pthread_join(th[i], NULL);
	atomic_store(&stop, true);
	for (i = env.mutators; i < nth; i++)
		pthread_join(th[i], NULL);
	/* a last look at every range, unless it failed already */
	for (i = 0; i < env.lay.n && !atomic_load(&stale) && !atomic_load(&errors); i++)
		verify(i, buf, "final");
	query(upr_alloc_handle(a, 0), &q);
	if (upr_unregister(dev, a)) {
		fprintf(stderr, "%s\n", upr_errmsg());
		atomic_fetch_add(&errors, 1);
	}
	/* nothing left behind by either file */
	leaks(fd, "after unregister");
	upr_close(dev);
	if (churn_dev) {
		leaks(upr_dev_fd(churn_dev), "churn, after its last free");
		upr_close(churn_dev);
		wl_free(&churn_l);
	}

	for (i = 0, changed = 0; i < NR_ACTIONS; i++)
		changed += atomic_load(&done[i]);
	printf("userptr-stress: %u ranges, %lu changes in %.1f s:", env.lay.n, changed,
	       wl_now() - t0);
	for (i = 0; i < NR_ACTIONS; i++)
		if (env.actions & (1 << i))
			printf(" %s %lu", action_name[i], atomic_load(&done[i]));
	printf("\n  device reads %lu (%lu refused after munmap), evictions %llu, restores %llu",
	       atomic_load(&reads), atomic_load(&faults), (unsigned long long)q.evictions,
	       (unsigned long long)q.restores);
	if (env.churn)
		printf(", batches registered and freed %lu", atomic_load(&churns));
	printf("\n  threads: %u mutators, %u readers%s%s\n", env.mutators, env.readers,
	       env.churn ? ", churn" : "", env.pin ? ", pinned to CPUs in turn" : "");
	printf("  stale reads %lu, errors %lu: %s\n", atomic_load(&stale), atomic_load(&errors),
	       atomic_load(&stale) || atomic_load(&errors) ? "FAIL" : "PASS");
	wl_free(&l);
	free(buf);
	free(sizes);
	free(st);
	return atomic_load(&stale) || atomic_load(&errors) ? 1 : 0;
}
