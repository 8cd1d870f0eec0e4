// SPDX-License-Identifier: GPL-2.0
/*
 * hmm-snapshot: what test_hmm's HMM_DMIRROR_SNAPSHOT of a present range
 * costs, for the mm/hmm patch's targets: a read of N written 4 KiB pages
 * (no THP) that asks no fault, as a driver snapshots a range it mirrors.
 * Under scripts/vm-run --icount the guest's nanoseconds are instructions,
 * so the medians are exact counts (tools/bench/bench-icount.sh runs it).
 *
 *   hmm-snapshot [-n PAGES] [-r REPS] [-d DEVICE] [-m]
 *
 * With -m, test_hmm reads with hmm_range_read_many() first
 * (HMM_DMIRROR_FLAG_READ_MANY), hmm_range_fault() taking what it does
 * not. Prints one JSON object: the read, the pages, each run's time in ns
 * and the median.
 * test_hmm must be loaded (its device-private devices need no memory of
 * their own).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <lib/test_hmm_uapi.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/hmm_dmirror0";
	unsigned long npages = 4096, reps = 5, i, j;
	long page = sysconf(_SC_PAGESIZE);
	struct hmm_dmirror_cmd cmd;
	unsigned char *perm;
	uint64_t *ns, *sorted;
	char *p;
	int fd, opt, many = 0;

	while ((opt = getopt(argc, argv, "n:r:d:m")) != -1) {
		switch (opt) {
		case 'n':
			npages = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			reps = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dev = optarg;
			break;
		case 'm':
			many = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n PAGES] [-r REPS] [-d DEVICE] [-m]\n",
				argv[0]);
			return 2;
		}
	}
	if (!npages || !reps) {
		fprintf(stderr, "hmm-snapshot: PAGES and REPS are at least 1\n");
		return 2;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "hmm-snapshot: %s: %s (is test_hmm loaded?)\n",
			dev, strerror(errno));
		return 1;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.npages = HMM_DMIRROR_FLAG_READ_MANY;
	if (many && ioctl(fd, HMM_DMIRROR_FLAGS, &cmd)) {
		fprintf(stderr, "hmm-snapshot: HMM_DMIRROR_FLAGS: %s\n",
			strerror(errno));
		return 1;
	}
	p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	perm = malloc(npages);
	ns = calloc(reps, sizeof(*ns));
	sorted = calloc(reps, sizeof(*sorted));
	if (p == MAP_FAILED || !perm || !ns || !sorted) {
		fprintf(stderr, "hmm-snapshot: out of memory\n");
		return 1;
	}
	/* PTEs, not a PMD: the per-page read is what is measured */
	if (madvise(p, npages * page, MADV_NOHUGEPAGE))
		perror("hmm-snapshot: madvise(MADV_NOHUGEPAGE)");
	for (i = 0; i < npages; i++)
		p[i * page] = 1;

	/* one run first, not counted: test_hmm's and the caches' first use */
	for (i = 0; i <= reps; i++) {
		uint64_t t;

		memset(&cmd, 0, sizeof(cmd));
		cmd.addr = (uintptr_t)p;
		cmd.ptr = (uintptr_t)perm;
		cmd.npages = npages;
		t = now_ns();
		if (ioctl(fd, HMM_DMIRROR_SNAPSHOT, &cmd)) {
			fprintf(stderr, "hmm-snapshot: HMM_DMIRROR_SNAPSHOT: %s\n",
				strerror(errno));
			return 1;
		}
		t = now_ns() - t;
		if (cmd.cpages != npages) {
			fprintf(stderr, "hmm-snapshot: %llu pages read of %lu\n",
				(unsigned long long)cmd.cpages, npages);
			return 1;
		}
		/* every page read as written, each time */
		for (j = 0; j < npages; j++) {
			if (perm[j] != HMM_DMIRROR_PROT_WRITE) {
				fprintf(stderr, "hmm-snapshot: page %lu read as 0x%x\n",
					j, perm[j]);
				return 1;
			}
		}
		if (i)
			ns[i - 1] = t;
	}
	memcpy(sorted, ns, reps * sizeof(*ns));
	qsort(sorted, reps, sizeof(*sorted), cmp_u64);
	printf("{\"read\": \"%s\", \"pages\": %lu, \"reps\": %lu, \"ns\": [",
	       many ? "hmm_range_read_many" : "hmm_range_fault", npages, reps);
	for (i = 0; i < reps; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)ns[i]);
	printf("], \"median_ns\": %llu}\n", (unsigned long long)sorted[reps / 2]);
	return 0;
}
