// SPDX-License-Identifier: GPL-2.0
/*
 * A program outside the tree, built against an installed libuserptr with
 * `pkg-config --cflags --libs libuserptr` (host/install, guest/install).
 *
 * upr_example            the library's pure parts, no device
 * upr_example N          also register N scattered pages on the emulated
 *                        device as one allocation, then free it
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <userptr.h>
#include <hsakmt_compat.h>

static int pure_parts(void)
{
	struct upr_range r[3] = {
		{ 0x10000, 0x1000 }, { 0x11000, 0x1000 }, { 0x20000, 0x2000 },
	};
	uint64_t total = 0;

	if (upr_validate(r, 3, 4096, &total) || total != 0x4000) {
		fprintf(stderr, "upr_validate: %s\n", upr_errmsg());
		return 1;
	}
	if (upr_coalesce(r, 3) != 2 || upr_split_calls(8192, 4096) != 2) {
		fprintf(stderr, "upr_coalesce or upr_split_calls\n");
		return 1;
	}
	if (upr_hsakmt_status(-ENOMEM) != HSAKMT_STATUS_ERROR ||
	    upr_hsakmt_status(0) != HSAKMT_STATUS_SUCCESS) {
		fprintf(stderr, "upr_hsakmt_status\n");
		return 1;
	}
	printf("libuserptr: pure parts ok\n");
	return 0;
}

static int register_pages(unsigned int n)
{
	struct upr_opts o = { .backend = UPR_BACKEND_EMU };
	long page = sysconf(_SC_PAGESIZE);
	struct upr_range *r;
	struct upr_alloc *al;
	struct upr_dev *dev;
	unsigned int i;
	char *p;

	/* every other page of one mapping: n ranges no coalescing joins */
	p = mmap(NULL, 2 * n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r = calloc(n, sizeof(*r));
	if (p == MAP_FAILED || !r)
		return 1;
	for (i = 0; i < n; i++) {
		p[2 * i * page] = (char)i;
		r[i].start = (uintptr_t)(p + 2 * i * page);
		r[i].size = page;
	}
	if (upr_open(&dev, &o)) {
		fprintf(stderr, "upr_open: %s\n", upr_errmsg());
		return 1;
	}
	if (upr_register(dev, r, n, 0, UPR_WRITABLE, &al)) {
		fprintf(stderr, "upr_register: %s\n", upr_errmsg());
		upr_close(dev);
		return 1;
	}
	printf("%u ranges at %#llx in %u ioctl(s) on %s\n", upr_alloc_ranges(al),
	       (unsigned long long)upr_alloc_va(al), upr_alloc_calls(al),
	       upr_dev_name(dev));
	if (upr_unregister(dev, al)) {
		fprintf(stderr, "upr_unregister: %s\n", upr_errmsg());
		upr_close(dev);
		return 1;
	}
	upr_close(dev);
	free(r);
	munmap(p, 2 * n * page);
	return 0;
}

int main(int argc, char **argv)
{
	if (pure_parts())
		return 1;
	if (argc > 1)
		return register_pages((unsigned int)strtoul(argv[1], NULL, 0));
	return 0;
}
