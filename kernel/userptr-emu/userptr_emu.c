// SPDX-License-Identifier: GPL-2.0
/*
 * userptr_emu - an emulated GPU for batch userptr, on the DRM helper.
 *
 * In the spirit of lib/test_hmm.c: a device with a software page table
 * (one struct page pointer per device page, taken from HMM, never pinned)
 * that userspace drives through /dev/userptr_emu. It registers memory the
 * way amdkfd does, one CPU range per allocation or many as one batch, and
 * handles eviction as amdkfd does: an invalidation evicts the allocation
 * (device access to it stops and the invalidated range's page table
 * entries are cleared) and a delayed restore worker re-faults the invalid
 * ranges and commits them; device access to an evicted allocation waits
 * for the restore. So every path of the helper runs without AMD hardware.
 *
 * Fault injection (module parameters, writable at run time) breaks one rule
 * each, so the selftests can show that they catch it:
 *   inject_skip_seq_check     restore maps faulted pages without the
 *                             helper's sequence check (stale pages)
 *   inject_ignore_invalidate  invalidation neither clears the page table
 *                             nor evicts (the device reads stale pages)
 *   inject_never_restore      evicted allocations are never restored
 * and test knobs that break nothing:
 *   restore_delay_ms          delay from an eviction to its restore (as
 *                             AMDGPU_USERPTR_RESTORE_DELAY_MS, default 1)
 *   restore_commit_delay_ms   hold each commit after its faults for up to
 *                             this long, or until the knob is set back to
 *                             0: a test acts inside that window at its own
 *                             pace, then closes it
 *   commits_held (read only)  populates held by restore_commit_delay_ms
 *                             now: a test waits for the window with it
 *   hide_batch (at load)      the device of a kernel without the batch
 *                             ioctl: -ENOTTY, and no discovery attribute
 *
 * Lock order: file->restore_lock, then mmap_lock (taken by the helper's
 * faults), then file->lock (the notifier lock, taken by invalidation).
 * Nothing allocates memory with file->lock held.
 */

#include <linux/delay.h>
#include <linux/device.h>
#include <linux/highmem.h>
#include <linux/interval_tree.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_userptr_batch.h>

#include "userptr_emu_uapi.h"

#define CREATE_TRACE_POINTS
#include "userptr_emu_trace.h"

#define UEMU_ACCESS_TIMEOUT_MS		10000
#define UEMU_BOUNCE_SIZE		SZ_1M

static bool inject_skip_seq_check;
module_param(inject_skip_seq_check, bool, 0644);
MODULE_PARM_DESC(inject_skip_seq_check, "BREAKS CORRECTNESS: restore without the sequence check");

static bool inject_ignore_invalidate;
module_param(inject_ignore_invalidate, bool, 0644);
MODULE_PARM_DESC(inject_ignore_invalidate, "BREAKS CORRECTNESS: ignore invalidations");

static bool inject_never_restore;
module_param(inject_never_restore, bool, 0644);
MODULE_PARM_DESC(inject_never_restore, "BREAKS CORRECTNESS: never restore evicted allocations");

/* as AMDGPU_USERPTR_RESTORE_DELAY_MS: let invalidations settle first */
static unsigned int restore_delay_ms = 1;
module_param(restore_delay_ms, uint, 0644);
MODULE_PARM_DESC(restore_delay_ms, "Delay from an eviction to its restore (default 1)");

static unsigned int restore_commit_delay_ms;
module_param(restore_commit_delay_ms, uint, 0644);
MODULE_PARM_DESC(restore_commit_delay_ms,
		 "Test knob: hold a restore's commit this long, or until set to 0");

static atomic_t uemu_commits_held;

static int commits_held_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&uemu_commits_held));
}

static const struct kernel_param_ops commits_held_ops = {
	.get = commits_held_get,
};
module_param_cb(commits_held, &commits_held_ops, NULL, 0444);
MODULE_PARM_DESC(commits_held,
		 "Test knob: populates held before their commit now (restore_commit_delay_ms)");

/* discovery's test: a device as a kernel without the batch ioctl has it */
static bool hide_batch;
module_param(hide_batch, bool, 0444);
MODULE_PARM_DESC(hide_batch,
		 "Test knob: no batch ioctl (-ENOTTY) and no userptr_batch_max_ranges attribute");

/* device-wide, for leak checks */
static atomic64_t uemu_allocs, uemu_ranges, uemu_windows, uemu_pages;

struct uemu_file {
	struct mm_struct *mm;
	struct mutex lock;		/* the notifier lock: page tables, state */
	struct mutex restore_lock;	/* one populate at a time */
	struct xarray handles;		/* handle -> struct uemu_alloc */
	struct rb_root_cached va_tree;	/* device address -> allocation */
	struct list_head evicted;	/* allocations waiting for restore */
	struct delayed_work restore_work;
	wait_queue_head_t restored;
	u64 restore_gen;		/* bumped when an allocation changes state */
	u64 nallocs, nranges;
	bool closing;
};

enum uemu_state {
	UEMU_NEW,	/* first populate, not visible yet */
	UEMU_LIVE,
	UEMU_DEAD,	/* freed; references may remain */
};

struct uemu_alloc {
	struct kref ref;
	struct uemu_file *file;
	struct drm_userptr_batch *batch;
	struct interval_tree_node va;	/* [va_addr, va_addr + size - 1] */
	struct list_head evicted_link;	/* on file->evicted */
	struct page **pt;		/* the device page table */
	struct page **staging;		/* filled by faults, mapped at commit */
	u64 evictions, restores;
	u64 range_faults;		/* ranges faulted, re-faults counted */
	u32 handle;
	bool writable;
	enum uemu_state state;
	bool evicted;
	bool restoring;
};

static void uemu_alloc_release(struct kref *ref)
{
	struct uemu_alloc *alloc = container_of(ref, struct uemu_alloc, ref);

	if (alloc->batch) {
		atomic64_sub(alloc->batch->nranges, &uemu_ranges);
		atomic64_sub(alloc->batch->nwindows, &uemu_windows);
		atomic64_dec(&uemu_allocs);
	}
	/* waits for running invalidations: never called under file->lock */
	drm_userptr_batch_destroy(alloc->batch);
	kvfree(alloc->pt);
	kvfree(alloc->staging);
	kfree(alloc);
}

static void uemu_alloc_put(struct uemu_alloc *alloc)
{
	kref_put(&alloc->ref, uemu_alloc_release);
}

static void uemu_clear_range(struct uemu_alloc *alloc,
			     const struct drm_userptr_batch_range *r)
{
	unsigned long i, cleared = 0;

	for (i = r->pgoff; i < r->pgoff + r->npages; i++) {
		if (alloc->pt[i]) {
			alloc->pt[i] = NULL;
			cleared++;
		}
	}
	atomic64_sub(cleared, &uemu_pages);
}

static void uemu_state_changed(struct uemu_file *file)
{
	lockdep_assert_held(&file->lock);
	file->restore_gen++;
	wake_up_all(&file->restored);
}

/* the helper's invalidate hook: file->lock is held */
static void uemu_invalidate(struct drm_userptr_batch *batch, unsigned int index,
			    const struct mmu_notifier_range *range)
{
	struct uemu_alloc *alloc = batch->priv;
	struct uemu_file *file = alloc->file;

	if (READ_ONCE(inject_ignore_invalidate))
		return;
	/* still being created: no page table, nothing mapped yet */
	if (!alloc->pt)
		return;

	/* the device stops using the pages before the CPU may free them */
	uemu_clear_range(alloc, &batch->ranges[index]);
	if (alloc->state != UEMU_LIVE)
		return;		/* a first populate re-checks; a dead one is gone */
	if (!alloc->evicted) {
		alloc->evicted = true;
		alloc->evictions++;
		trace_userptr_emu_evict(batch->id, alloc->handle, index);
	}
	if (list_empty(&alloc->evicted_link))
		list_add_tail(&alloc->evicted_link, &file->evicted);
	if (!file->closing)
		mod_delayed_work(system_wq, &file->restore_work,
				 msecs_to_jiffies(READ_ONCE(restore_delay_ms)));
}

static const struct drm_userptr_batch_ops uemu_batch_ops = {
	.invalidate = uemu_invalidate,
};

/*
 * Deliberately wrong (inject_skip_seq_check): take every faulted range as
 * valid without checking its notifier sequence, as a driver that forgot
 * mmu_interval_read_retry() would.
 */
static int uemu_commit_unchecked(struct drm_userptr_batch *batch)
{
	unsigned int k;

	for_each_set_bit(k, batch->faulted, batch->nranges) {
		__clear_bit(k, batch->faulted);
		/*
		 * The hit it ignores is cleared too: the helper keeps no hit
		 * bit on a valid range (its snapshot would never queue the
		 * range again to clear it), so that the switch turned off
		 * leaves a batch the real commit can take back.
		 */
		__clear_bit(k, batch->hit);
		if (!__test_and_set_bit(k, batch->valid))
			batch->ninvalid--;
	}
	return bitmap_weight(batch->failed, batch->nranges);
}

/* map @n staged pages from @first on: how many of them were not mapped */
static unsigned long uemu_map_pages(struct uemu_alloc *alloc, unsigned long first,
				    unsigned long n)
{
	unsigned long i, mapped = 0;

	for (i = first; i < first + n; i++) {
		if (!alloc->pt[i])
			mapped++;
		alloc->pt[i] = alloc->staging[i];
	}
	return mapped;
}

/*
 * Map the faulted pages of the valid ranges: file->lock is held. When all
 * are valid, as after every populate that no invalidation raced, the whole
 * staging array is mapped in one loop, as a GPU maps a BO's page array,
 * without a visit per range.
 */
static void uemu_map_valid(struct uemu_alloc *alloc)
{
	struct drm_userptr_batch *batch = alloc->batch;
	const struct drm_userptr_batch_range *range;
	unsigned long mapped = 0;
	unsigned int k;

	if (!batch->ninvalid) {
		mapped = uemu_map_pages(alloc, 0, batch->npages);
	} else {
		for_each_set_bit(k, batch->valid, batch->nranges) {
			range = &batch->ranges[drm_userptr_batch_index(batch, k)];
			mapped += uemu_map_pages(alloc, range->pgoff, range->npages);
		}
	}
	atomic64_add(mapped, &uemu_pages);
}

/*
 * restore_commit_delay_ms: polled rather than slept, so that the window is
 * as long as the test needs, however slow the machine, and no longer.
 */
static void uemu_commit_hold(unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	atomic_inc(&uemu_commits_held);
	while (READ_ONCE(restore_commit_delay_ms) && time_before(jiffies, end))
		msleep(20);
	atomic_dec(&uemu_commits_held);
}

/*
 * Fault what is invalid and commit it, the sequence the helper documents.
 * Return: the number of ranges whose CPU mapping is gone, or a negative
 * errno.
 */
static int uemu_populate(struct uemu_alloc *alloc)
{
	struct drm_userptr_batch *batch = alloc->batch;
	struct uemu_file *file = alloc->file;
	struct drm_userptr_batch_pass pass;
	unsigned int delay;
	int ret;

	lockdep_assert_held(&file->restore_lock);
	drm_userptr_batch_begin(batch, &pass, 0);
	do {
		ret = drm_userptr_batch_get_pages(batch, &pass, alloc->staging);
		if (ret < 0)
			break;
		delay = READ_ONCE(restore_commit_delay_ms);
		if (delay)
			uemu_commit_hold(delay);

		mutex_lock(&file->lock);
		if (READ_ONCE(inject_skip_seq_check))
			ret = uemu_commit_unchecked(batch);
		else
			ret = drm_userptr_batch_commit(batch, &pass);
		if (ret >= 0 && alloc->state != UEMU_DEAD)
			uemu_map_valid(alloc);
		mutex_unlock(&file->lock);
	} while (ret == -EAGAIN);
	mutex_lock(&file->lock);
	alloc->range_faults += pass.faulted;
	mutex_unlock(&file->lock);
	drm_userptr_batch_end(batch, &pass, ret);
	return ret;
}

static void uemu_restore_worker(struct work_struct *work)
{
	struct uemu_file *file = container_of(to_delayed_work(work),
					      struct uemu_file, restore_work);
	struct uemu_alloc *alloc;
	bool again = false;
	int ret;

	if (READ_ONCE(inject_never_restore))
		return;

	mutex_lock(&file->restore_lock);
	for (;;) {
		mutex_lock(&file->lock);
		alloc = list_first_entry_or_null(&file->evicted,
						 struct uemu_alloc, evicted_link);
		if (alloc) {
			list_del_init(&alloc->evicted_link);
			alloc->restoring = true;
			kref_get(&alloc->ref);
		}
		mutex_unlock(&file->lock);
		if (!alloc)
			break;

		ret = uemu_populate(alloc);

		mutex_lock(&file->lock);
		alloc->restoring = false;
		if (ret >= 0 && ret == alloc->batch->ninvalid) {
			/* valid but for ranges whose CPU mapping is gone */
			alloc->evicted = false;
			alloc->restores++;
		} else if (ret != -ESRCH && alloc->state == UEMU_LIVE &&
			   list_empty(&alloc->evicted_link)) {
			/* out of time, or invalidated after the commit: later */
			list_add_tail(&alloc->evicted_link, &file->evicted);
			again = true;
		}
		trace_userptr_emu_restore(alloc->batch->id, alloc->handle, ret,
					  alloc->evicted);
		uemu_state_changed(file);
		mutex_unlock(&file->lock);
		uemu_alloc_put(alloc);
	}
	mutex_unlock(&file->restore_lock);

	if (again && !READ_ONCE(file->closing))
		mod_delayed_work(system_wq, &file->restore_work,
				 msecs_to_jiffies(READ_ONCE(restore_delay_ms)));
}

/* take an allocation out of the file: file->lock held, the caller puts it */
static void uemu_unpublish(struct uemu_file *file, struct uemu_alloc *alloc)
{
	unsigned int i;

	lockdep_assert_held(&file->lock);
	alloc->state = UEMU_DEAD;
	xa_erase(&file->handles, alloc->handle);
	interval_tree_remove(&alloc->va, &file->va_tree);
	list_del_init(&alloc->evicted_link);
	for (i = 0; i < alloc->batch->nranges; i++)
		uemu_clear_range(alloc, &alloc->batch->ranges[i]);
	file->nallocs--;
	file->nranges -= alloc->batch->nranges;
	uemu_state_changed(file);
}

static struct uemu_alloc *uemu_lookup_handle(struct uemu_file *file, u64 handle)
{
	struct uemu_alloc *alloc;

	lockdep_assert_held(&file->lock);
	if (handle > U32_MAX)
		return NULL;
	alloc = xa_load(&file->handles, handle);
	return alloc && alloc->state == UEMU_LIVE ? alloc : NULL;
}

/*
 * A new allocation of a prepared batch, which it takes over (on error too):
 * registering it inserts the helper's notifiers; the device page table
 * follows, sized from the batch. Nothing is faulted yet.
 */
static struct uemu_alloc *uemu_alloc_create(struct uemu_file *file,
					    struct drm_userptr_batch *batch,
					    u32 flags)
{
	struct uemu_alloc *alloc;
	struct page **pt;
	int ret;

	alloc = kzalloc(sizeof(*alloc), GFP_KERNEL);
	if (!alloc) {
		drm_userptr_batch_destroy(batch);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&alloc->ref);
	INIT_LIST_HEAD(&alloc->evicted_link);
	alloc->file = file;
	alloc->writable = flags & USERPTR_EMU_FLAG_WRITABLE;
	alloc->batch = batch;

	/*
	 * From here on the notifiers can call uemu_invalidate() at any time;
	 * until the page table is in place it has nothing to clear.
	 */
	ret = drm_userptr_batch_register(batch, file->mm,
					 alloc->writable ? 0 :
					 DRM_USERPTR_BATCH_READONLY,
					 &file->lock, &uemu_batch_ops, alloc);
	if (ret) {
		drm_userptr_batch_destroy(batch);
		kfree(alloc);
		return ERR_PTR(ret);
	}
	atomic64_inc(&uemu_allocs);
	atomic64_add(batch->nranges, &uemu_ranges);
	atomic64_add(batch->nwindows, &uemu_windows);

	pt = kvcalloc(batch->npages, sizeof(*pt), GFP_KERNEL);
	/*
	 * Not zeroed: get_pages writes the entries of every range it faults
	 * (NULL for one that fails), and only the entries of valid ranges are
	 * ever mapped from it. Zeroing it was a seventh of registering 16
	 * ranges of 2 MiB, a page cleared per 512 pages registered.
	 */
	alloc->staging = kvmalloc_array(batch->npages, sizeof(*alloc->staging),
					GFP_KERNEL);
	if (!pt || !alloc->staging) {
		kvfree(pt);
		ret = -ENOMEM;
		goto out_put;
	}
	mutex_lock(&file->lock);
	alloc->pt = pt;
	mutex_unlock(&file->lock);
	return alloc;

out_put:
	uemu_alloc_put(alloc);
	return ERR_PTR(ret);
}

/*
 * Populate a new allocation and publish it at device address va_addr.
 * Consumes the caller's reference: on error the allocation is gone.
 */
static int uemu_alloc_publish(struct uemu_file *file, struct uemu_alloc *alloc,
			      u64 va_addr, u64 *handle)
{
	unsigned int i, first, nranges = alloc->batch->nranges;
	u64 last;
	int ret;

	if (check_add_overflow(va_addr, drm_userptr_batch_size(alloc->batch) - 1,
			       &last)) {
		ret = -EOVERFLOW;
		goto out_put;
	}
	alloc->va.start = va_addr;
	alloc->va.last = last;

	/* the handle exists from here, but lookups see only live allocations */
	ret = xa_alloc(&file->handles, &alloc->handle, alloc, xa_limit_31b,
		       GFP_KERNEL);
	if (ret)
		goto out_put;

	mutex_lock(&file->restore_lock);
	ret = uemu_populate(alloc);
	if (ret > 0) {
		/*
		 * Registering memory that is not mapped fails, as in amdkfd,
		 * with the error of the first range that failed in the order
		 * given (the bits are in address order).
		 */
		first = nranges;
		for_each_set_bit(i, alloc->batch->failed, nranges) {
			if (drm_userptr_batch_index(alloc->batch, i) < first) {
				first = drm_userptr_batch_index(alloc->batch, i);
				ret = drm_userptr_batch_error(alloc->batch, i);
			}
		}
	}
	mutex_lock(&file->lock);
	if (!ret && interval_tree_iter_first(&file->va_tree, alloc->va.start,
					     alloc->va.last))
		ret = -EADDRINUSE;
	if (ret) {
		alloc->state = UEMU_DEAD;
		for (i = 0; i < nranges; i++)
			uemu_clear_range(alloc, &alloc->batch->ranges[i]);
		xa_erase(&file->handles, alloc->handle);
		mutex_unlock(&file->lock);
		mutex_unlock(&file->restore_lock);
		goto out_put;
	}
	alloc->state = UEMU_LIVE;
	interval_tree_insert(&alloc->va, &file->va_tree);
	file->nallocs++;
	file->nranges += nranges;
	if (alloc->batch->ninvalid) {
		/* invalidated between the commit and now */
		alloc->evicted = true;
		alloc->evictions++;
		list_add_tail(&alloc->evicted_link, &file->evicted);
		mod_delayed_work(system_wq, &file->restore_work,
				 msecs_to_jiffies(READ_ONCE(restore_delay_ms)));
	}
	*handle = alloc->handle;
	mutex_unlock(&file->lock);
	mutex_unlock(&file->restore_lock);
	return 0;

out_put:
	uemu_alloc_put(alloc);
	return ret;
}

static int uemu_check_alloc_args(u64 va_addr, u32 flags)
{
	if (flags & ~(USERPTR_EMU_FLAG_USERPTR | USERPTR_EMU_FLAG_WRITABLE))
		return -EINVAL;
	if (!(flags & USERPTR_EMU_FLAG_USERPTR))
		return -EINVAL;
	if (!PAGE_ALIGNED(va_addr))
		return -EINVAL;
	return 0;
}

/*
 * The tail both alloc ioctls share, once their arguments are checked and
 * @batch is prepared: @size against the batch's, the device lookup (after
 * the arguments, as in amdkfd), then registration and a handle. Takes
 * @batch in every case.
 */
static int uemu_alloc_install(struct uemu_file *file,
			      struct drm_userptr_batch *batch, u64 size,
			      u32 gpu_id, u64 va_addr, u32 flags, u64 *handle)
{
	struct uemu_alloc *alloc;

	if (size != drm_userptr_batch_size(batch) ||
	    gpu_id != USERPTR_EMU_GPU_ID) {
		drm_userptr_batch_destroy(batch);
		return -EINVAL;
	}
	alloc = uemu_alloc_create(file, batch, flags);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	return uemu_alloc_publish(file, alloc, va_addr, handle);
}

static int uemu_ioctl_alloc(struct uemu_file *file, void __user *uarg)
{
	struct userptr_emu_alloc_args args;
	struct drm_userptr_batch *batch;
	struct drm_userptr_range range;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	ret = uemu_check_alloc_args(args.va_addr, args.flags);
	if (ret)
		return ret;
	range.start = args.mmap_offset;
	range.size = args.size;
	batch = drm_userptr_batch_prepare(&range, 1);
	if (IS_ERR(batch))
		return PTR_ERR(batch);
	ret = uemu_alloc_install(file, batch, args.size, args.gpu_id,
				 args.va_addr, args.flags, &args.handle);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

static int uemu_ioctl_alloc_batch(struct uemu_file *file, void __user *uarg)
{
	struct userptr_emu_alloc_batch_args args;
	struct drm_userptr_batch *batch;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.pad)
		return -EINVAL;
	ret = uemu_check_alloc_args(args.va_addr, args.flags);
	if (ret)
		return ret;
	BUILD_BUG_ON(sizeof(struct userptr_emu_range) !=
		     sizeof(struct drm_userptr_range));
	/*
	 * The helper checks the count, then reads and checks each range once
	 * as it lays out the batch: no copy of the array, one sort.
	 */
	batch = drm_userptr_batch_prepare_user(u64_to_user_ptr(args.ranges_ptr),
					       args.num_ranges);
	if (IS_ERR(batch))
		return PTR_ERR(batch);
	ret = uemu_alloc_install(file, batch, args.total_size, args.gpu_id,
				 args.va_addr, args.flags, &args.handle);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

static int uemu_ioctl_free(struct uemu_file *file, void __user *uarg)
{
	struct userptr_emu_free_args args;
	struct uemu_alloc *alloc;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	mutex_lock(&file->lock);
	alloc = uemu_lookup_handle(file, args.handle);
	if (alloc)
		uemu_unpublish(file, alloc);
	mutex_unlock(&file->lock);
	if (!alloc)
		return -EINVAL;
	uemu_alloc_put(alloc);
	return 0;
}

/*
 * One chunk of a device access, through the device page table, with
 * file->lock held: as a GPU, the device waits while the allocation is
 * evicted and faults on pages it has no mapping for.
 */
static int uemu_access_chunk(struct uemu_file *file, u64 va, void *buf,
			     size_t len, bool write, unsigned long deadline)
{
	struct interval_tree_node *node;
	struct uemu_alloc *alloc;
	unsigned long pgoff;
	size_t done, n;
	long left;
	u64 gen;
	int ret = 0;

	mutex_lock(&file->lock);
again:
	node = interval_tree_iter_first(&file->va_tree, va, va + len - 1);
	if (!node || node->start > va || node->last < va + len - 1) {
		mutex_unlock(&file->lock);
		return -EFAULT;	/* not inside one allocation */
	}
	alloc = container_of(node, struct uemu_alloc, va);
	if (write && !alloc->writable) {
		ret = -EPERM;
		goto out;
	}
	if (alloc->evicted) {
		u64 id = alloc->batch->id;
		u32 handle = alloc->handle;

		gen = file->restore_gen;
		mutex_unlock(&file->lock);
		left = (long)(deadline - jiffies);
		if (left <= 0 ||
		    !wait_event_timeout(file->restored,
					READ_ONCE(file->restore_gen) != gen, left)) {
			/* no restore in time: tracing sees that too */
			trace_userptr_emu_access(id, handle, va, len, write,
						 -ETIMEDOUT);
			return -ETIMEDOUT;
		}
		mutex_lock(&file->lock);
		goto again;	/* it may have been freed meanwhile */
	}

	for (done = 0; done < len; done += n) {
		u64 off = va + done - alloc->va.start;
		struct page *page;
		void *kaddr;

		pgoff = off >> PAGE_SHIFT;
		n = min_t(size_t, len - done, PAGE_SIZE - offset_in_page(off));
		page = alloc->pt[pgoff];
		if (!page) {
			ret = -EFAULT;	/* the CPU mapping of the range is gone */
			break;
		}
		kaddr = kmap_local_page(page);
		if (write)
			memcpy(kaddr + offset_in_page(off), buf + done, n);
		else
			memcpy(buf + done, kaddr + offset_in_page(off), n);
		kunmap_local(kaddr);
	}
out:
	trace_userptr_emu_access(alloc->batch->id, alloc->handle, va, len,
				 write, ret);
	mutex_unlock(&file->lock);
	return ret;
}

static int uemu_ioctl_access(struct uemu_file *file, void __user *uarg,
			     bool write)
{
	struct userptr_emu_access_args args;
	unsigned long deadline;
	size_t done, n;
	void *bounce;
	u64 end;
	int ret = 0;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.pad || !args.size || args.size > USERPTR_EMU_ACCESS_MAX ||
	    check_add_overflow(args.va_addr, args.size, &end))
		return -EINVAL;
	deadline = jiffies + msecs_to_jiffies(args.timeout_ms ?: UEMU_ACCESS_TIMEOUT_MS);

	/* user memory is copied outside file->lock: its faults may invalidate */
	bounce = kvmalloc(min_t(u64, args.size, UEMU_BOUNCE_SIZE), GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	for (done = 0; done < args.size; done += n) {
		void __user *ptr = u64_to_user_ptr(args.ptr + done);

		n = min_t(u64, args.size - done, UEMU_BOUNCE_SIZE);
		if (write && copy_from_user(bounce, ptr, n)) {
			ret = -EFAULT;
			break;
		}
		ret = uemu_access_chunk(file, args.va_addr + done, bounce, n,
					write, deadline);
		if (ret)
			break;
		if (!write && copy_to_user(ptr, bounce, n)) {
			ret = -EFAULT;
			break;
		}
	}
	kvfree(bounce);
	return ret;
}

static int uemu_ioctl_query(struct uemu_file *file, void __user *uarg)
{
	struct userptr_emu_query_args args;
	struct drm_userptr_batch *batch;
	struct uemu_alloc *alloc;
	unsigned int i, nranges;
	u8 *valid = NULL;
	int ret = 0;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;

	/* sized under the lock, filled under it after the allocation */
	mutex_lock(&file->lock);
	alloc = uemu_lookup_handle(file, args.handle);
	nranges = alloc ? alloc->batch->nranges : 0;
	mutex_unlock(&file->lock);
	if (!alloc)
		return -EINVAL;
	if (args.valid_ptr) {
		valid = kvmalloc(nranges, GFP_KERNEL);
		if (!valid)
			return -ENOMEM;
	}

	mutex_lock(&file->lock);
	alloc = uemu_lookup_handle(file, args.handle);
	if (!alloc || alloc->batch->nranges != nranges) {
		ret = -EINVAL;
		goto out_unlock;
	}
	batch = alloc->batch;
	args.va_addr = alloc->va.start;
	args.size = drm_userptr_batch_size(batch);
	args.batch_id = batch->id;
	args.evictions = alloc->evictions;
	args.restores = alloc->restores;
	args.num_ranges = nranges;
	args.num_valid = nranges - batch->ninvalid;
	args.num_failed = 0;
	args.num_faulted = 0;
	for (i = 0; i < nranges; i++) {
		bool v = test_bit(i, batch->valid);

		/* bit i is the range at position i of the address order */
		if (valid)
			valid[drm_userptr_batch_index(batch, i)] = v;
		if (!v && test_bit(i, batch->failed))
			args.num_failed++;
	}
	/* written by a running restore without the lock: a snapshot */
	for (i = 0; i < BITS_TO_LONGS(nranges); i++)
		args.num_faulted += hweight_long(READ_ONCE(batch->faulted[i]));
	args.evicted = alloc->evicted;
	args.restoring = alloc->restoring;
	args.range_faults = alloc->range_faults;
	args.num_windows = batch->nwindows;
	args.helper_bytes = drm_userptr_batch_footprint(batch);
	args.reserved = 0;
out_unlock:
	mutex_unlock(&file->lock);

	if (!ret && valid && copy_to_user(u64_to_user_ptr(args.valid_ptr), valid, nranges))
		ret = -EFAULT;
	if (!ret && copy_to_user(uarg, &args, sizeof(args)))
		ret = -EFAULT;
	kvfree(valid);
	return ret;
}

static int uemu_ioctl_stats(struct uemu_file *file, void __user *uarg)
{
	struct userptr_emu_stats_args args = {};

	mutex_lock(&file->lock);
	args.file_allocs = file->nallocs;
	args.file_ranges = file->nranges;
	mutex_unlock(&file->lock);
	args.dev_allocs = atomic64_read(&uemu_allocs);
	args.dev_ranges = atomic64_read(&uemu_ranges);
	args.dev_pages = atomic64_read(&uemu_pages);
	args.dev_windows = atomic64_read(&uemu_windows);
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

static long uemu_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct uemu_file *file = filp->private_data;
	void __user *uarg = (void __user *)arg;

	/* as /dev/kfd: the file serves the address space that opened it */
	if (current->mm != file->mm)
		return -EBADF;

	switch (cmd) {
	case USERPTR_EMU_IOC_ALLOC:
		return uemu_ioctl_alloc(file, uarg);
	case USERPTR_EMU_IOC_ALLOC_BATCH:
		if (hide_batch)
			return -ENOTTY;
		return uemu_ioctl_alloc_batch(file, uarg);
	case USERPTR_EMU_IOC_FREE:
		return uemu_ioctl_free(file, uarg);
	case USERPTR_EMU_IOC_READ:
		return uemu_ioctl_access(file, uarg, false);
	case USERPTR_EMU_IOC_WRITE:
		return uemu_ioctl_access(file, uarg, true);
	case USERPTR_EMU_IOC_QUERY:
		return uemu_ioctl_query(file, uarg);
	case USERPTR_EMU_IOC_STATS:
		return uemu_ioctl_stats(file, uarg);
	default:
		return -ENOTTY;
	}
}

static int uemu_open(struct inode *inode, struct file *filp)
{
	struct uemu_file *file;

	if (!current->mm)
		return -EINVAL;
	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	file->mm = current->mm;
	mmgrab(file->mm);
	mutex_init(&file->lock);
	mutex_init(&file->restore_lock);
	xa_init_flags(&file->handles, XA_FLAGS_ALLOC1);
	file->va_tree = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&file->evicted);
	INIT_DELAYED_WORK(&file->restore_work, uemu_restore_worker);
	init_waitqueue_head(&file->restored);
	filp->private_data = file;
	return 0;
}

static int uemu_release(struct inode *inode, struct file *filp)
{
	struct uemu_file *file = filp->private_data;
	struct uemu_alloc *alloc, *tmp;
	unsigned long index;
	LIST_HEAD(dead);

	mutex_lock(&file->lock);
	file->closing = true;
	mutex_unlock(&file->lock);
	cancel_delayed_work_sync(&file->restore_work);

	/* no ioctl runs any more: every allocation holds just its handle's reference */
	mutex_lock(&file->lock);
	xa_for_each(&file->handles, index, alloc) {
		uemu_unpublish(file, alloc);
		list_add_tail(&alloc->evicted_link, &dead);
	}
	mutex_unlock(&file->lock);
	list_for_each_entry_safe(alloc, tmp, &dead, evicted_link) {
		list_del_init(&alloc->evicted_link);
		uemu_alloc_put(alloc);
	}
	xa_destroy(&file->handles);
	mmdrop(file->mm);
	kfree(file);
	return 0;
}

static const struct file_operations uemu_fops = {
	.owner = THIS_MODULE,
	.open = uemu_open,
	.release = uemu_release,
	.unlocked_ioctl = uemu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/*
 * /sys/class/misc/userptr_emu/userptr_batch_max_ranges, as amdkfd's
 * /sys/class/kfd/kfd/userptr_batch_max_ranges: the batch ioctl exists when
 * the file does, and the file holds the helper's cap.
 */
static ssize_t userptr_batch_max_ranges_show(struct device *dev,
					     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", drm_userptr_batch_max_ranges());
}
static DEVICE_ATTR_RO(userptr_batch_max_ranges);

static umode_t uemu_attr_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	return hide_batch ? 0 : attr->mode;
}

static struct attribute *uemu_attrs[] = {
	&dev_attr_userptr_batch_max_ranges.attr,
	NULL,
};

static const struct attribute_group uemu_group = {
	.attrs = uemu_attrs,
	.is_visible = uemu_attr_visible,
};
__ATTRIBUTE_GROUPS(uemu);

static struct miscdevice uemu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "userptr_emu",
	.fops = &uemu_fops,
	.mode = 0666,
	.groups = uemu_groups,
};

module_misc_device(uemu_misc);

MODULE_DESCRIPTION("Emulated GPU for batch userptr on the DRM helper");
MODULE_LICENSE("GPL");
