// SPDX-License-Identifier: GPL-2.0
/* The workloads' memory layouts (see layout.h) */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "userptr_emu_uapi.h"
#include "userptr_gpusvm_uapi.h"
#include "layout.h"

/* ranges up to this size come from malloc, every other one */
#define MALLOC_MAX	(256 << 10)

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double wl_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t wl_rng(uint64_t *s)
{
	/* xorshift64*: the same layout from the same seed */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

uint64_t wl_sizes(uint64_t *sizes, unsigned int n, uint64_t fixed, uint64_t max,
		  uint64_t seed)
{
	unsigned int i, shifts = 0;
	uint64_t largest = 0;

	while ((4096ULL << (shifts + 1)) <= max)
		shifts++;
	seed = seed ? seed : 1;
	for (i = 0; i < n; i++) {
		sizes[i] = fixed ? fixed : 4096ULL << (wl_rng(&seed) % (shifts + 1));
		if (sizes[i] > largest)
			largest = sizes[i];
	}
	return largest;
}

static uint64_t word(uint64_t tag, uint64_t i)
{
	return tag == WL_TAG_ZERO ? 0 : tag ^ (i * 0x9E3779B97F4A7C15ULL);
}

void wl_fill(void *p, uint64_t size, uint64_t tag)
{
	uint64_t *w = p, i;

	for (i = 0; i < size / 8; i++)
		w[i] = word(tag, i);
}

long wl_check(const void *p, uint64_t size, uint64_t tag, uint64_t off)
{
	const uint64_t *w = p;
	uint64_t i;

	for (i = 0; i < size / 8; i++)
		if (w[i] != word(tag, off / 8 + i))
			return i * 8;
	return -1;
}

static int alloc_arrays(struct layout *l, unsigned int n)
{
	memset(l, 0, sizeof(*l));
	l->n = n;
	l->page_size = sysconf(_SC_PAGESIZE);
	l->r = calloc(n, sizeof(*l->r));
	l->mem = calloc(n, sizeof(*l->mem));
	l->mapped = calloc(n, 1);
	l->off = calloc(n, sizeof(*l->off));
	return l->r && l->mem && l->mapped && l->off ? 0 : -ENOMEM;
}

/* the device offsets, once: the workloads look them up per access */
static void set_offsets(struct layout *l)
{
	uint64_t off = 0;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		l->off[i] = off;
		off += l->r[i].size;
	}
}

static int cmp_start(const void *a, const void *b)
{
	const struct upr_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* what makes the layout scattered: no range touches another */
static int check_scattered(const struct layout *l)
{
	struct upr_range *s = malloc(l->n * sizeof(*s));
	unsigned int i;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	memcpy(s, l->r, l->n * sizeof(*s));
	qsort(s, l->n, sizeof(*s), cmp_start);
	for (i = 1; i < l->n; i++)
		if (s[i - 1].start + s[i - 1].size >= s[i].start) {
			fprintf(stderr, "layout: ranges at %#llx and %#llx touch\n",
				(unsigned long long)s[i - 1].start,
				(unsigned long long)s[i].start);
			ret = -EAGAIN;
			break;
		}
	free(s);
	return ret;
}

/* a random order of n: index i of the address order holds range order[i] */
static unsigned int *shuffled(unsigned int n, uint64_t seed)
{
	unsigned int *order = calloc(n, sizeof(*order)), i, j, t;

	if (!order)
		return NULL;
	for (i = 0; i < n; i++)
		order[i] = i;
	seed = seed ? seed : 1;
	for (i = n - 1; i > 0; i--) {
		j = wl_rng(&seed) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	return order;
}

int wl_scattered(struct layout *l, unsigned int n, const uint64_t *sizes,
		 uint64_t seed)
{
	unsigned int *order, i;
	int ret = alloc_arrays(l, n);

	/* allocated in a shuffled order, so address order is not device order */
	order = shuffled(n, seed);
	if (ret || !order) {
		free(order);
		wl_free(l);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		unsigned int k = order[i];
		uint64_t size = sizes[k];
		void *p;

		if (i % 2 == 0 && size <= MALLOC_MAX) {
			if (posix_memalign(&p, l->page_size, size))
				p = NULL;
		} else {
			/* a PROT_NONE page after it keeps the next mmap away */
			p = mmap(NULL, size + l->page_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				p = NULL;
			else if (mprotect((char *)p + size, l->page_size, PROT_NONE))
				p = NULL;
			l->mapped[k] = 1;
		}
		if (!p) {
			free(order);
			wl_free(l);
			return -ENOMEM;
		}
		l->mem[k] = p;
		l->r[k].start = (uintptr_t)p;
		l->r[k].size = size;
		l->total += size;
		wl_fill(p, size, k + 1);
	}
	free(order);
	set_offsets(l);
	ret = check_scattered(l);
	if (ret)
		wl_free(l);
	return ret;
}

int wl_one_mapping(struct layout *l, unsigned int n, const uint64_t *sizes,
		   uint64_t seed)
{
	unsigned int *order, i;
	char *p;

	if (alloc_arrays(l, n)) {
		wl_free(l);
		return -ENOMEM;
	}
	order = shuffled(n, seed);
	for (i = 0; i < n; i++) {
		l->total += sizes[i];
		l->base_size += sizes[i] + l->page_size;
	}
	l->base = mmap(NULL, l->base_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!order || l->base == MAP_FAILED) {
		if (l->base == MAP_FAILED)
			l->base = NULL;
		free(order);
		wl_free(l);
		return -ENOMEM;
	}
	/* in address order, each range then a page of the mapping not in any */
	p = l->base;
	for (i = 0; i < n; i++) {
		unsigned int k = order[i];

		l->r[k].start = (uintptr_t)p;
		l->r[k].size = sizes[k];
		wl_fill(p, sizes[k], k + 1);
		p += sizes[k] + l->page_size;
	}
	free(order);
	set_offsets(l);
	return 0;
}

int wl_contiguous(struct layout *l, unsigned int n, const uint64_t *sizes)
{
	unsigned int i;
	char *p;

	if (alloc_arrays(l, n)) {
		wl_free(l);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		l->total += sizes[i];
	l->base = mmap(NULL, l->total, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (l->base == MAP_FAILED) {
		l->base = NULL;
		wl_free(l);
		return -ENOMEM;
	}
	l->base_size = l->total;
	p = l->base;
	for (i = 0; i < n; i++) {
		l->r[i].start = (uintptr_t)p;
		l->r[i].size = sizes[i];
		wl_fill(p, sizes[i], i + 1);
		p += sizes[i];
	}
	set_offsets(l);
	return 0;
}

int wl_vma_per_range(struct layout *l)
{
	unsigned int i;

	/* VMAs whose flags differ do not merge: every other one differs */
	for (i = 1; i < l->n; i += 2)
		if (madvise((void *)(uintptr_t)l->r[i].start, l->r[i].size, MADV_DONTFORK))
			return -errno;
	return 0;
}

int wl_vmas(const struct layout *l)
{
	struct upr_range *s = malloc(l->n * sizeof(*s));
	unsigned long lo, hi;
	unsigned int i = 0;
	int count = 0;
	FILE *f;

	if (!s)
		return -ENOMEM;
	f = fopen("/proc/self/maps", "r");
	if (!f) {
		free(s);
		return -errno;
	}
	memcpy(s, l->r, l->n * sizeof(*s));
	qsort(s, l->n, sizeof(*s), cmp_start);
	/* both in address order: a VMA counts when a range's page is in it */
	while (fscanf(f, "%lx-%lx%*[^\n]\n", &lo, &hi) == 2 && i < l->n) {
		while (i < l->n && s[i].start + s[i].size <= lo)
			i++;
		if (i < l->n && s[i].start < hi)
			count++;
	}
	fclose(f);
	free(s);
	return count;
}

void wl_free(struct layout *l)
{
	unsigned int i;

	for (i = 0; l->mem && i < l->n; i++) {
		if (!l->mem[i])
			continue;
		if (l->mapped[i])
			munmap(l->mem[i], l->r[i].size + l->page_size);
		else
			free(l->mem[i]);
	}
	if (l->base)
		munmap(l->base, l->base_size);
	free(l->r);
	free(l->mem);
	free(l->mapped);
	free(l->off);
	memset(l, 0, sizeof(*l));
}

static int device_access(int fd, unsigned long cmd, uint64_t va, void *buf,
			 uint64_t size, unsigned int timeout_ms)
{
	struct userptr_emu_access_args a = { .timeout_ms = timeout_ms };
	uint64_t done, n;

	for (done = 0; done < size; done += n) {
		n = size - done < USERPTR_EMU_ACCESS_MAX ? size - done : USERPTR_EMU_ACCESS_MAX;
		a.va_addr = va + done;
		a.ptr = (uintptr_t)buf + done;
		a.size = n;
		if (ioctl(fd, cmd, &a))
			return -errno;
	}
	return 0;
}

int wl_device_read(int fd, uint64_t va, void *buf, uint64_t size,
		   unsigned int timeout_ms)
{
	return device_access(fd, USERPTR_EMU_IOC_READ, va, buf, size, timeout_ms);
}

int wl_device_write(int fd, uint64_t va, const void *buf, uint64_t size,
		    unsigned int timeout_ms)
{
	return device_access(fd, USERPTR_EMU_IOC_WRITE, va, (void *)buf, size, timeout_ms);
}

/* "64k", "2m", "1g" or bytes, a multiple of 4 KiB: argp's error if not */
static uint64_t arg_size(const char *s, struct argp_state *state)
{
	unsigned int shift = 0;
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift)
		end++;
	if (errno || *end || !v || v > (UINT64_MAX >> shift) || (v << shift) % 4096)
		argp_error(state, "bad size '%s': a multiple of 4 KiB, suffix k, m or g", s);
	return v << shift;
}

static const struct argp_option wl_args_opts[] = {
	{ "count", 'n', "N", 0, "Ranges (at most 65536)" },
	{ "size", 's', "SIZE", 0, "Size of every range (k, m, g suffixes)" },
	{ "mix", 'S', "MAX", 0, "Sizes: powers of two from 4 KiB to MAX" },
	{ "seed", 'x', "SEED", 0, "Seed of the layout and the sizes (default 1)" },
	{},
};

static error_t wl_args_parse(int key, char *arg, struct argp_state *state)
{
	struct wl_args *a = state->input;

	switch (key) {
	case 'n':
		a->n = strtoul(arg, NULL, 0);
		if (a->n < a->min_n || a->n > 65536)
			argp_error(state, "bad count '%s' (%u..65536)", arg, a->min_n);
		break;
	case 's':
		a->size = arg_size(arg, state);
		break;
	case 'S':
		a->size = 0;
		a->max_size = arg_size(arg, state);
		break;
	case 'x':
		a->seed = strtoull(arg, NULL, 0);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp wl_args_argp = { wl_args_opts, wl_args_parse };

void wl_backend_arg(const char *arg, enum upr_backend *backend, struct argp_state *state)
{
	if (!strcmp(arg, "emu"))
		*backend = UPR_BACKEND_EMU;
	else if (!strcmp(arg, "kfd"))
		*backend = UPR_BACKEND_KFD;
	else
		argp_error(state, "unknown backend '%s' (emu or kfd)", arg);
}

int wl_gpusvm_round(const struct upr_range *r, unsigned int n, double *reg,
		    double *teardown, uint64_t *bytes)
{
	struct userptr_gpusvm_register_args args = {
		.ranges_ptr = (uintptr_t)r,
		.num_ranges = n,
	};
	struct userptr_gpusvm_free_args fr;
	double t0;
	int fd, ret = 0;

	fd = open("/dev/userptr_gpusvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "/dev/userptr_gpusvm: %s (load tools/bench/gpusvm's userptr_gpusvm)\n",
			strerror(errno));
		return ret;
	}
	t0 = wl_now();
	if (ioctl(fd, USERPTR_GPUSVM_IOC_REGISTER, &args))
		ret = -errno;
	*reg = wl_now() - t0;
	if (ret) {
		fprintf(stderr, "gpusvm: registration: %s\n", strerror(-ret));
		goto out;
	}
	*bytes = args.bytes;
	fr.handle = args.handle;
	t0 = wl_now();
	if (ioctl(fd, USERPTR_GPUSVM_IOC_FREE, &fr))
		ret = -errno;
	*teardown = wl_now() - t0;
	if (ret)
		fprintf(stderr, "gpusvm: free: %s\n", strerror(-ret));
out:
	close(fd);
	return ret;
}
