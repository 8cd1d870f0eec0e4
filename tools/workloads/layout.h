/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory layouts of the workloads: N ranges scattered over the address
 * space as an application's buffers are (malloc and mmap interleaved, no
 * two adjacent), scattered inside one mapping as a guest's pages are in
 * its RAM (a page between neighbours, device order shuffled), or the same
 * sizes back to back in one mapping (the reference without fragmentation),
 * filled with a pattern per range.
 */
#ifndef __LAYOUT_H
#define __LAYOUT_H

#include <argp.h>
#include <stdint.h>

#include "userptr.h"

struct layout {
	unsigned int n;
	struct upr_range *r;	/* device order */
	void **mem;		/* scattered: what to free or unmap per range */
	unsigned char *mapped;	/* scattered: 1 for mmap, 0 for malloc */
	uint64_t *off;		/* device offset of each range */
	void *base;		/* contiguous, one mapping: the mapping */
	uint64_t base_size;	/* its size */
	uint64_t total;
	uint64_t page_size;
};

uint64_t wl_rng(uint64_t *seed);
/*
 * n sizes: all `fixed`, or (fixed 0) powers of two from 4 KiB to max;
 * returns the largest
 */
uint64_t wl_sizes(uint64_t *sizes, unsigned int n, uint64_t fixed, uint64_t max,
		  uint64_t seed);
int wl_scattered(struct layout *l, unsigned int n, const uint64_t *sizes,
		 uint64_t seed);
int wl_one_mapping(struct layout *l, unsigned int n, const uint64_t *sizes,
		   uint64_t seed);
int wl_contiguous(struct layout *l, unsigned int n, const uint64_t *sizes);
void wl_free(struct layout *l);
/*
 * One VMA per range of a contiguous layout (its ranges back to back, so
 * still one device range): the VMAs a scattered layout's page walk meets,
 * without its gaps. 0 or -errno.
 */
int wl_vma_per_range(struct layout *l);
/* how many VMAs hold a page of the layout's ranges, or -errno */
int wl_vmas(const struct layout *l);
/* device offset of range i: the sizes of the ranges before it */
static inline uint64_t wl_offset(const struct layout *l, unsigned int i)
{
	return l->off[i];
}

/*
 * The content of a range at generation tag: fill it, and find the first
 * byte of size that differs from it when p holds the range from offset off
 * (-1: none)
 */
void wl_fill(void *p, uint64_t size, uint64_t tag);
long wl_check(const void *p, uint64_t size, uint64_t tag, uint64_t off);
/* the tag of a range whose pages were dropped: it reads zeros */
#define WL_TAG_ZERO	0

double wl_now(void);
/* the median of @n seconds at @v, which it sorts */
double wl_median(double *v, unsigned int n);

/*
 * The layout options every workload takes (-n, -s, -S, -x), as an argp
 * child parser whose input is a struct wl_args holding the defaults.
 */
struct wl_args {
	unsigned int n;		/* ranges: min_n..65536 */
	unsigned int min_n;
	uint64_t size;		/* of every range, or 0 for a mix */
	uint64_t max_size;	/* of the mix */
	uint64_t seed;
};

extern const struct argp wl_args_argp;

/* --backend's argument, emu or kfd, into *backend; an argp error otherwise */
void wl_backend_arg(const char *arg, enum upr_backend *backend, struct argp_state *state);

/*
 * A device read of size bytes at device address va into buf, in pieces of
 * at most 64 MiB: the emulated device's READ ioctl (a GPU would run a
 * kernel); waits for an evicted allocation up to timeout_ms. 0 or -errno.
 */
int wl_device_read(int fd, uint64_t va, void *buf, uint64_t size,
		   unsigned int timeout_ms);
/* the same, writing buf through the device (its WRITE ioctl) */
int wl_device_write(int fd, uint64_t va, const void *buf, uint64_t size,
		    unsigned int timeout_ms);

/*
 * The gpusvm way of make bench: n ranges registered in one ioctl by the
 * bench-only module userptr_gpusvm (tools/bench/gpusvm), a
 * drm_gpusvm_pages and a notifier each, as Xe registers userptrs, then
 * freed. The registration's and the teardown's seconds in *reg and
 * *teardown, the kernel memory the module held in *bytes. 0, or -errno
 * with a message naming the step.
 */
int wl_gpusvm_round(const struct upr_range *r, unsigned int n, double *reg,
		    double *teardown, uint64_t *bytes);

#endif /* __LAYOUT_H */
