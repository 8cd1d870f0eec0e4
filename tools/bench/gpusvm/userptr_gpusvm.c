// SPDX-License-Identifier: GPL-2.0
/*
 * userptr_gpusvm: for make bench only, never in the series. N user ranges
 * registered the way Xe registers a userptr on Linux 7.3
 * (drivers/gpu/drm/xe/xe_userptr.c), so that the batch helper is timed
 * against drm_gpusvm's userptr path on the same layouts, not read about:
 *
 *   - a drm_gpusvm in its "simple" mode (no mm, no ops: Xe's userptr-only
 *     GPU SVM), whose notifier lock orders the invalidations;
 *   - per range, a struct drm_gpusvm_pages (drm_gpusvm_init_pages()) and an
 *     mmu_interval_notifier of its own over the range, inserted at
 *     registration as Xe inserts one per userptr VMA;
 *   - per range, drm_gpusvm_get_pages(): a hmm_range_fault_unlocked_timeout()
 *     of the range, its DMA mapping (dma-direct here: the device behind
 *     the DRM device is a faux device with a 64-bit mask and no IOMMU) and
 *     the sequence check under the notifier lock; then, as Xe's bind
 *     commit does, every range checked valid under that lock, and the
 *     invalid ones faulted again;
 *   - the invalidation callback: under the notifier lock for write, the
 *     new sequence and drm_gpusvm_unmap_pages() of the range (Xe also
 *     waits for the VM's fences and invalidates the GPU's TLB: no GPU
 *     here);
 *   - teardown: drm_gpusvm_free_pages() and mmu_interval_notifier_remove()
 *     per range.
 *
 * One ioctl registers all N (an Xe VM_BIND can carry N userptr binds), so
 * the system call is not what differs from the batch: the per-range
 * notifier, fault call, DMA array and check are. The device never reads
 * the pages: registration and teardown are what is timed.
 */
#include <linux/device/faux.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_gpusvm.h>
#include <drm/drm_pagemap.h>

#include "userptr_gpusvm_uapi.h"

/* one userptr as Xe keeps it: its pages and its own notifier */
struct ugs_range {
	struct mmu_interval_notifier notifier;
	struct drm_gpusvm_pages pages;
	unsigned long start, end;
};

struct ugs_alloc {
	struct list_head link;
	u64 handle;
	bool read_only;
	unsigned int n;
	struct ugs_range r[] __counted_by(n);
};

struct ugs_file {
	struct mutex lock;	/* allocs, next_handle */
	struct list_head allocs;
	u64 next_handle;
};

static struct {
	struct faux_device *faux;
	struct drm_device *drm;
	struct drm_gpusvm gpusvm;
} ugs;

static const struct drm_driver ugs_driver = {
	.name = "userptr_gpusvm",
	.desc = "bench: userptrs the way Xe registers them",
	.major = 1,
};

static unsigned long ugs_npages(const struct ugs_range *r)
{
	return (r->end - r->start) >> PAGE_SHIFT;
}

/* as xe_vma_userptr_invalidate(), less the GPU's fences and TLB */
static bool ugs_invalidate(struct mmu_interval_notifier *mni,
			   const struct mmu_notifier_range *range,
			   unsigned long cur_seq)
{
	struct ugs_range *r = container_of(mni, struct ugs_range, notifier);
	struct drm_gpusvm_ctx ctx = { .in_notifier = 1 };

	if (!mmu_notifier_range_blockable(range))
		return false;
	down_write(&ugs.gpusvm.notifier_lock);
	mmu_interval_set_seq(mni, cur_seq);
	drm_gpusvm_unmap_pages(&ugs.gpusvm, &r->pages, ugs_npages(r), &ctx);
	up_write(&ugs.gpusvm.notifier_lock);
	return true;
}

static const struct mmu_interval_notifier_ops ugs_notifier_ops = {
	.invalidate = ugs_invalidate,
};

/* the first @inserted ranges have a notifier, the first @n their pages */
static void ugs_free(struct ugs_alloc *a, unsigned int inserted)
{
	unsigned int i;

	for (i = 0; i < inserted; i++) {
		drm_gpusvm_free_pages(&ugs.gpusvm, &a->r[i].pages,
				      ugs_npages(&a->r[i]));
		mmu_interval_notifier_remove(&a->r[i].notifier);
	}
	kvfree(a);
}

/*
 * Fault every range, then check them all under the notifier lock as Xe's
 * bind commit does, faulting again those an invalidation hit meanwhile.
 */
static int ugs_get_pages(struct ugs_alloc *a)
{
	struct drm_gpusvm_ctx ctx = {
		.read_only = a->read_only,
		.allow_mixed = 1,
	};
	unsigned int i, invalid;
	int ret;

	for (i = 0; i < a->n; i++) {
		ret = drm_gpusvm_get_pages(&ugs.gpusvm, &a->r[i].pages,
					   current->mm, &a->r[i].notifier,
					   a->r[i].start, a->r[i].end, &ctx);
		if (ret)
			return ret;
	}
	do {
		invalid = 0;
		drm_gpusvm_notifier_lock(&ugs.gpusvm);
		for (i = 0; i < a->n; i++)
			invalid += !drm_gpusvm_pages_valid(&ugs.gpusvm, &a->r[i].pages);
		drm_gpusvm_notifier_unlock(&ugs.gpusvm);
		for (i = 0; invalid && i < a->n; i++) {
			/* (a valid range returns at once: its fast path) */
			ret = drm_gpusvm_get_pages(&ugs.gpusvm, &a->r[i].pages,
						   current->mm, &a->r[i].notifier,
						   a->r[i].start, a->r[i].end, &ctx);
			if (ret)
				return ret;
		}
	} while (invalid);
	return 0;
}

static int ugs_register(struct ugs_file *f, void __user *argp)
{
	struct userptr_gpusvm_register_args args;
	struct userptr_gpusvm_range ur;
	struct userptr_gpusvm_range __user *uranges;
	struct ugs_alloc *a;
	unsigned int i, inserted = 0;
	unsigned long end;
	int ret;

	if (copy_from_user(&args, argp, sizeof(args)))
		return -EFAULT;
	if (!args.num_ranges || args.num_ranges > USERPTR_GPUSVM_MAX_RANGES ||
	    args.flags & ~USERPTR_GPUSVM_READONLY)
		return -EINVAL;
	a = kvzalloc(struct_size(a, r, args.num_ranges), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->n = args.num_ranges;
	a->read_only = args.flags & USERPTR_GPUSVM_READONLY;
	uranges = u64_to_user_ptr(args.ranges_ptr);

	for (i = 0; i < a->n; i++) {
		struct ugs_range *r = &a->r[i];

		if (copy_from_user(&ur, &uranges[i], sizeof(ur))) {
			ret = -EFAULT;
			goto err;
		}
		if (!ur.size || !PAGE_ALIGNED(ur.start) || !PAGE_ALIGNED(ur.size) ||
		    check_add_overflow(ur.start, ur.size, &end) || end > TASK_SIZE) {
			ret = -EINVAL;
			goto err;
		}
		r->start = ur.start;
		r->end = end;
		drm_gpusvm_init_pages(&r->pages, ugs.drm);
		ret = mmu_interval_notifier_insert(&r->notifier, current->mm,
						   r->start, ur.size,
						   &ugs_notifier_ops);
		if (ret)
			goto err;
		inserted++;
	}
	ret = ugs_get_pages(a);
	if (ret)
		goto err;

	mutex_lock(&f->lock);
	a->handle = ++f->next_handle;
	list_add_tail(&a->link, &f->allocs);
	mutex_unlock(&f->lock);
	args.handle = a->handle;
	/* the ranges' structs and DMA arrays (16 bytes a page) */
	args.bytes = struct_size(a, r, a->n);
	for (i = 0; i < a->n; i++)
		args.bytes += ugs_npages(&a->r[i]) * sizeof(*a->r[i].pages.dma_addr);
	if (copy_to_user(argp, &args, sizeof(args)))
		return -EFAULT;	/* registered: the handle is the file's */
	return 0;
err:
	ugs_free(a, inserted);
	return ret;
}

static int ugs_unregister(struct ugs_file *f, void __user *argp)
{
	struct userptr_gpusvm_free_args args;
	struct ugs_alloc *a, *found = NULL;

	if (copy_from_user(&args, argp, sizeof(args)))
		return -EFAULT;
	mutex_lock(&f->lock);
	list_for_each_entry(a, &f->allocs, link) {
		if (a->handle == args.handle) {
			list_del(&a->link);
			found = a;
			break;
		}
	}
	mutex_unlock(&f->lock);
	if (!found)
		return -ENOENT;
	ugs_free(found, found->n);
	return 0;
}

static long ugs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ugs_file *f = file->private_data;

	switch (cmd) {
	case USERPTR_GPUSVM_IOC_REGISTER:
		return ugs_register(f, (void __user *)arg);
	case USERPTR_GPUSVM_IOC_FREE:
		return ugs_unregister(f, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static int ugs_open(struct inode *inode, struct file *file)
{
	struct ugs_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	INIT_LIST_HEAD(&f->allocs);
	file->private_data = f;
	return 0;
}

static int ugs_release(struct inode *inode, struct file *file)
{
	struct ugs_file *f = file->private_data;
	struct ugs_alloc *a, *next;

	list_for_each_entry_safe(a, next, &f->allocs, link)
		ugs_free(a, a->n);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations ugs_fops = {
	.owner = THIS_MODULE,
	.open = ugs_open,
	.release = ugs_release,
	.unlocked_ioctl = ugs_ioctl,
};

static struct miscdevice ugs_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "userptr_gpusvm",
	.fops = &ugs_fops,
};

static int __init ugs_init(void)
{
	struct device *dev;
	int ret;

	ugs.faux = faux_device_create("userptr_gpusvm", NULL, NULL);
	if (!ugs.faux)
		return -ENODEV;
	dev = &ugs.faux->dev;
	/* dma-direct, as a device without an IOMMU maps system pages */
	dev->dma_mask = &dev->coherent_dma_mask;
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_faux;
	/* never registered: it owns the pages' DMA mappings, as Xe's does */
	ugs.drm = drm_dev_alloc(&ugs_driver, dev);
	if (IS_ERR(ugs.drm)) {
		ret = PTR_ERR(ugs.drm);
		goto err_faux;
	}
	ret = drm_gpusvm_init(&ugs.gpusvm, "userptr_gpusvm (simple)", NULL,
			      0, 0, 0, NULL, NULL, 0);
	if (ret)
		goto err_drm;
	ret = misc_register(&ugs_misc);
	if (ret)
		goto err_gpusvm;
	return 0;
err_gpusvm:
	drm_gpusvm_fini(&ugs.gpusvm);
err_drm:
	drm_dev_put(ugs.drm);
err_faux:
	faux_device_destroy(ugs.faux);
	return ret;
}

static void __exit ugs_exit(void)
{
	misc_deregister(&ugs_misc);
	drm_gpusvm_fini(&ugs.gpusvm);
	drm_dev_put(ugs.drm);
	faux_device_destroy(ugs.faux);
}

module_init(ugs_init);
module_exit(ugs_exit);
MODULE_DESCRIPTION("bench only: user ranges registered as Xe's userptrs, through drm_gpusvm");
MODULE_LICENSE("GPL");
