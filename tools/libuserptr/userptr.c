// SPDX-License-Identifier: GPL-2.0
/*
 * libuserptr: batch userptr registration on /dev/kfd or /dev/userptr_emu.
 *
 * The two devices take the same argument layouts (the emulated device
 * copies amdkfd's), so one registration path serves both: a backend is its
 * ioctl numbers, its gpu_id and how it is opened. Many ranges go in one
 * registration through the device's render node (a GEM userptr with a
 * ranges array, taken over by the compute file), on either device, or
 * with the emulated device's own batch ioctl; amdkfd has none.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>
#include <xf86drm.h>
#include <drm/amdgpu_drm.h>	/* after xf86drm.h: its drm.h */
#include "userptr_emu_uapi.h"
#include "userptr.h"
#include "hsakmt_compat.h"

#define KFD_PATH	"/dev/kfd"
#define EMU_PATH	"/dev/userptr_emu"
#define TOPOLOGY	"/sys/class/kfd/kfd/topology/nodes"
/*
 * The emulated device's batch ioctl (the helper's test entry) exists when
 * its attribute does, which holds the kernel's cap.
 */
#define EMU_BATCH_ATTR	"/sys/class/misc/userptr_emu/userptr_batch_max_ranges"
#define EMU_VA_BASE	0x100000000000ULL
/*
 * The render node's cap: the batch helper's, for amdgpu and the device. A
 * GEM userptr takes a ranges array when it is there (an amdgpu without the
 * series refuses AMDGPU_GEM_USERPTR_RANGES with EINVAL).
 */
#define HELPER_CAP_ATTR	"/sys/module/drm_userptr_batch/parameters/max_ranges"
/* KFD 1.24: AMDKFD_IOC_IMPORT_DMABUF takes a GEM userptr handle */
#define KFD_GEM_MAJOR	1
#define KFD_GEM_MINOR	24

struct upr_dev {
	enum upr_backend backend;
	int fd;
	int drm_fd;		/* kfd: the render-node file the VM was acquired
				 * with; emu: its render node, opened on demand
				 */
	uint32_t gpu_id;
	bool has_batch;
	bool coalesce;
	enum upr_mode mode;
	bool render;		/* GEM userptrs of drm_fd, taken over by fd */
	bool render_ranges;	/* ... each with a ranges array */
	bool kfd_takes_gem;	/* kfd: IMPORT_DMABUF takes a GEM handle */
	bool vm_file;		/* kfd: drm_fd is the file the VM was acquired with */
	unsigned long req_gem;	/* its GEM_USERPTR: amdgpu's layout either way */
	unsigned int cap;
	unsigned int helper_cap;	/* HELPER_CAP_ATTR's, 0 without it */
	uint64_t page_size;
	uint64_t next_va;	/* where the library puts the next allocation */
	unsigned int kfd_minor;
	unsigned long req_alloc, req_batch, req_free;	/* req_batch: emu only */
	char name[64];
};

struct upr_alloc {
	uint64_t va;
	uint64_t size;
	unsigned int nranges;
	unsigned int nhandles;	/* one per allocation ioctl or object taken over */
	bool render;		/* each handle took two ioctls: GEM_USERPTR, takeover */
	bool cpu_reserved;	/* [va, va + size) reserved in the CPU's
				 * address space (upr_hsakmt_register_ranges)
				 */
	uint64_t handles[];
};

static __thread char errmsg[256];

static int fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	return err;
}

const char *upr_errmsg(void)
{
	return errmsg;
}

/* --- the pure parts --- */

static int cmp_start(const void *a, const void *b)
{
	const struct upr_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* each range on its own, and their total; not whether they overlap */
static int validate_each(const struct upr_range *ranges, unsigned int n,
			 uint64_t page_size, uint64_t *total)
{
	uint64_t sum = 0;
	unsigned int i;

	if (!n || !ranges)
		return fail(-EINVAL, "no ranges");
	for (i = 0; i < n; i++) {
		const struct upr_range *r = &ranges[i];

		if (!r->start || !r->size)
			return fail(-EINVAL, "range %u: %s is 0", i, r->start ? "size" : "start");
		if ((r->start | r->size) & (page_size - 1))
			return fail(-EINVAL, "range %u: %#llx+%#llx is not page aligned", i,
				    (unsigned long long)r->start, (unsigned long long)r->size);
		if (r->start + r->size < r->start)
			return fail(-EOVERFLOW, "range %u: %#llx+%#llx wraps around", i,
				    (unsigned long long)r->start, (unsigned long long)r->size);
		if (sum + r->size < sum)
			return fail(-EOVERFLOW, "the sizes add up to more than 2^64");
		sum += r->size;
	}
	*total = sum;
	return 0;
}

/* ranges that overlap, found between neighbours in address order */
static int validate_overlap(const struct upr_range *ranges, unsigned int n)
{
	struct upr_range *sorted;
	unsigned int i;

	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return fail(-ENOMEM, "out of memory");
	memcpy(sorted, ranges, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_start);
	for (i = 1; i < n; i++) {
		if (sorted[i - 1].start + sorted[i - 1].size > sorted[i].start) {
			fail(-EINVAL, "ranges %#llx+%#llx and %#llx+%#llx overlap",
			     (unsigned long long)sorted[i - 1].start,
			     (unsigned long long)sorted[i - 1].size,
			     (unsigned long long)sorted[i].start,
			     (unsigned long long)sorted[i].size);
			free(sorted);
			return -EINVAL;
		}
	}
	free(sorted);
	return 0;
}

int upr_validate(const struct upr_range *ranges, unsigned int n,
		 uint64_t page_size, uint64_t *total)
{
	uint64_t sum;
	int ret;

	ret = validate_each(ranges, n, page_size, &sum);
	if (!ret)
		ret = validate_overlap(ranges, n);
	if (!ret && total)
		*total = sum;
	return ret;
}

unsigned int upr_coalesce(struct upr_range *ranges, unsigned int n)
{
	unsigned int i, out = 0;

	for (i = 0; i < n; i++) {
		if (out && ranges[out - 1].start + ranges[out - 1].size == ranges[i].start)
			ranges[out - 1].size += ranges[i].size;
		else
			ranges[out++] = ranges[i];
	}
	return out;
}

unsigned int upr_split_calls(unsigned int n, unsigned int cap)
{
	if (!cap)
		return 0;
	return n / cap + (n % cap != 0);
}

unsigned int upr_split_count(unsigned int n, unsigned int cap, unsigned int i,
			     unsigned int *first)
{
	unsigned int calls = upr_split_calls(n, cap), base, extra;

	if (i >= calls) {
		if (first)
			*first = n;
		return 0;
	}
	/* the first n % calls ioctls take one range more */
	base = n / calls;
	extra = n % calls;
	if (first)
		*first = i * base + (i < extra ? i : extra);
	return base + (i < extra);
}

/* --- devices --- */

/*
 * A cap from a sysfs file: the emulated device's batch ioctl's attribute or
 * the batch helper's parameter; 0 when the file is missing or holds no
 * count (that way in does not exist: one ioctl per range).
 */
static unsigned int batch_cap(const char *attr)
{
	unsigned int cap = 0;
	FILE *f = fopen(attr, "r");

	if (f) {
		if (fscanf(f, "%u", &cap) != 1)
			cap = 0;
		fclose(f);
	}
	return cap;
}

/* the render minor of KFD topology node gpu_id, or of the first GPU */
static int kfd_find_gpu(uint32_t want, uint32_t *gpu_id, int *minor)
{
	char path[320], line[128];
	struct dirent *de;
	DIR *d = opendir(TOPOLOGY);
	int ret = -ENODEV;

	if (!d)
		return fail(-ENODEV, "no KFD topology at %s", TOPOLOGY);
	while ((de = readdir(d)) && ret) {
		unsigned int id = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), TOPOLOGY "/%s/gpu_id", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u", &id) != 1)
			id = 0;
		fclose(f);
		if (!id || (want && id != want))
			continue;
		snprintf(path, sizeof(path), TOPOLOGY "/%s/properties", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "drm_render_minor %d", minor) == 1) {
				*gpu_id = id;
				ret = 0;
				break;
			}
		fclose(f);
	}
	closedir(d);
	if (ret && want)
		return fail(-ENODEV, "no GPU with gpu_id %u in the KFD topology", want);
	if (ret)
		return fail(-ENODEV, "no GPU in the KFD topology (%s)", TOPOLOGY);
	return 0;
}

/*
 * AMDKFD_IOC_ACQUIRE_VM said EBUSY: another file of the GPU's DRM device
 * gave KFD this process's VM first (the HSA runtime's libhsakmt, in the
 * same process). A GEM userptr for the takeover must be that file's: find
 * it among the process's descriptors (ACQUIRE_VM with the very file that
 * acquired the VM succeeds and changes nothing; any other file is EBUSY)
 * and keep a duplicate of it in dev->drm_fd. False when no descriptor of
 * this process is that file any more: the render route is then closed.
 */
static bool kfd_find_vm_file(struct upr_dev *dev)
{
	struct stat ours, st;
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (fstat(dev->drm_fd, &ours))
		return false;
	d = opendir("/proc/self/fd");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		struct kfd_ioctl_acquire_vm_args vm = { .gpu_id = dev->gpu_id };
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		int dup_fd;

		if (*end || end == de->d_name || fd == dirfd(d) || fd == dev->drm_fd ||
		    fd == dev->fd)
			continue;
		/* a node of the same DRM major: render or primary */
		if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
		    major(st.st_rdev) != major(ours.st_rdev))
			continue;
		vm.drm_fd = fd;
		if (ioctl(dev->fd, AMDKFD_IOC_ACQUIRE_VM, &vm))
			continue;
		dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dup_fd < 0)
			break;
		close(dev->drm_fd);
		dev->drm_fd = dup_fd;
		found = true;
	}
	closedir(d);
	return found;
}

/*
 * Whether the render-node route is open on this kernel, with a ranges array
 * when @ranges: 0, or -EOPNOTSUPP with a message naming what is missing.
 * KFD takes a GEM userptr over from KFD 1.24 on, from the file its VM was
 * acquired with; a GEM userptr takes ranges where the batch helper is.
 */
static int render_check(struct upr_dev *dev, bool ranges)
{
	if (dev->backend == UPR_BACKEND_KFD && !dev->kfd_takes_gem)
		return fail(-EOPNOTSUPP,
			    "%s: AMDKFD_IOC_IMPORT_DMABUF takes no GEM userptr handle (KFD 1.%u, below 1.%u)",
			    dev->name, dev->kfd_minor, KFD_GEM_MINOR);
	if (dev->backend == UPR_BACKEND_KFD && !dev->vm_file)
		return fail(-EOPNOTSUPP,
			    "%s: its VM was acquired with a render-node file this process has not open (AMDKFD_IOC_ACQUIRE_VM: EBUSY)",
			    dev->name);
	if (ranges && !dev->helper_cap)
		return fail(-EOPNOTSUPP,
			    "%s: its GEM userptr takes no ranges array (%s missing or 0)",
			    dev->name, HELPER_CAP_ATTR);
	return 0;
}

static int kfd_open(struct upr_dev *dev, uint32_t want_gpu)
{
	struct kfd_ioctl_get_version_args ver = { 0 };
	struct kfd_process_device_apertures ap[16];
	struct kfd_ioctl_get_process_apertures_new_args apa = {
		.kfd_process_device_apertures_ptr = (uintptr_t)ap,
		.num_of_nodes = 16,
	};
	struct kfd_ioctl_acquire_vm_args vm = { 0 };
	char path[64];
	unsigned int i;
	int minor, ret;

	dev->fd = open(KFD_PATH, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		ret = -errno;
		/*
		 * Since 7.x, KFD refuses to open without a GPU node (EINVAL):
		 * the topology says why
		 */
		if (ret == -EINVAL && kfd_find_gpu(want_gpu, &dev->gpu_id, &minor))
			return -ENODEV;
		return fail(ret, "open %s: %s", KFD_PATH, strerror(-ret));
	}
	if (ioctl(dev->fd, AMDKFD_IOC_GET_VERSION, &ver))
		return fail(-errno, "KFD version: %s", strerror(errno));
	ret = kfd_find_gpu(want_gpu, &dev->gpu_id, &minor);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
	dev->drm_fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->drm_fd < 0)
		return fail(-errno, "open %s: %s", path, strerror(errno));
	vm.drm_fd = dev->drm_fd;
	vm.gpu_id = dev->gpu_id;
	/*
	 * EBUSY: another file of the render node acquired this process's VM
	 * on the GPU first (the HSA runtime's libhsakmt, in the same
	 * process): the process has one VM per GPU all the same, and the
	 * batch goes to it. That runtime manages the GPUVM aperture, so give
	 * addresses it cannot hold (upr_hsakmt_register_ranges() reserves
	 * them in the CPU's address space, as libhsakmt reserves its own).
	 * The render-node route then needs that file (kfd_find_vm_file()).
	 */
	if (ioctl(dev->fd, AMDKFD_IOC_ACQUIRE_VM, &vm)) {
		if (errno != EBUSY)
			return fail(-errno, "acquire the VM of gpu_id %u: %s", dev->gpu_id,
				    strerror(errno));
		dev->vm_file = kfd_find_vm_file(dev);
	} else {
		dev->vm_file = true;
	}
	if (ioctl(dev->fd, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &apa))
		return fail(-errno, "GPUVM apertures: %s", strerror(errno));
	for (i = 0; i < apa.num_of_nodes && i < 16; i++)
		if (ap[i].gpu_id == dev->gpu_id)
			dev->next_va = ap[i].gpuvm_base;
	if (!dev->next_va)
		return fail(-ENODEV, "no GPUVM aperture for gpu_id %u", dev->gpu_id);
	dev->kfd_takes_gem = ver.major_version > KFD_GEM_MAJOR ||
			     (ver.major_version == KFD_GEM_MAJOR &&
			      ver.minor_version >= KFD_GEM_MINOR);
	dev->kfd_minor = ver.minor_version;
	dev->helper_cap = batch_cap(HELPER_CAP_ATTR);
	dev->req_alloc = AMDKFD_IOC_ALLOC_MEMORY_OF_GPU;
	dev->req_free = AMDKFD_IOC_FREE_MEMORY_OF_GPU;
	dev->req_gem = DRM_IOCTL_AMDGPU_GEM_USERPTR;
	snprintf(dev->name, sizeof(dev->name), "kfd %u.%u gpu_id %u",
		 ver.major_version, ver.minor_version, dev->gpu_id);
	/* no batch ioctl: many ranges go through the render node (route()) */
	dev->cap = 0;
	return 0;
}

static int emu_open(struct upr_dev *dev)
{
	dev->fd = open(EMU_PATH, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		return fail(-errno, "open %s: %s", EMU_PATH, strerror(errno));
	dev->gpu_id = USERPTR_EMU_GPU_ID;
	dev->cap = batch_cap(EMU_BATCH_ATTR);
	dev->helper_cap = batch_cap(HELPER_CAP_ATTR);
	dev->next_va = EMU_VA_BASE;
	dev->req_alloc = USERPTR_EMU_IOC_ALLOC;
	dev->req_batch = USERPTR_EMU_IOC_ALLOC_BATCH;
	dev->req_free = USERPTR_EMU_IOC_FREE;
	dev->req_gem = DRM_IOCTL_USERPTR_EMU_GEM_USERPTR;
	snprintf(dev->name, sizeof(dev->name), "userptr_emu");
	return 0;
}

/*
 * The render node of the device's DRM driver @driver, read-write in
 * dev->drm_fd: each /dev/dri/renderD* asked its driver (libdrm's
 * drmGetVersion(); not drmOpenByName(), which as root creates the nodes
 * it does not find).
 */
static int render_open(struct upr_dev *dev, const char *driver)
{
	char path[300];
	struct dirent *de;
	DIR *d = opendir("/dev/dri");

	while (d && (de = readdir(d))) {
		drmVersionPtr v;
		bool ours;
		int fd;

		if (strncmp(de->d_name, "renderD", 7))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		ours = v && !strcmp(v->name, driver);
		drmFreeVersion(v);
		if (ours) {
			closedir(d);
			dev->drm_fd = fd;
			return 0;
		}
		close(fd);
	}
	if (d)
		closedir(d);
	return fail(-ENODEV, "no render node of %s in /dev/dri", driver);
}

/*
 * The render-node route, with a ranges array per GEM userptr when @ranges
 * (the batch helper's cap), else a GEM userptr per range: the device's
 * render node (KFD: the file its VM was acquired with).
 */
static int render_route(struct upr_dev *dev, bool ranges)
{
	int ret;

	ret = render_check(dev, ranges);
	if (!ret && dev->drm_fd < 0)
		ret = render_open(dev, "userptr_emu");
	if (ret)
		return ret;
	dev->render = true;
	dev->render_ranges = ranges;
	dev->cap = ranges ? dev->helper_cap : 0;
	snprintf(dev->name + strlen(dev->name), sizeof(dev->name) - strlen(dev->name),
		 " via its render node");
	return 0;
}

/*
 * The way the mode takes. Many ranges in one registration: the emulated
 * device's batch ioctl, or on KFD, which has none, the render node.
 */
static int route(struct upr_dev *dev)
{
	char why[sizeof(errmsg)];
	int ret;

	switch (dev->mode) {
	case UPR_MODE_RENDER:
	case UPR_MODE_RENDER_PER_RANGE:
		return render_route(dev, dev->mode == UPR_MODE_RENDER);
	case UPR_MODE_AUTO:
	case UPR_MODE_BATCH:
		if (dev->backend == UPR_BACKEND_EMU) {
			if (dev->mode == UPR_MODE_BATCH && !dev->cap)
				return fail(-EOPNOTSUPP, "%s has no batch userptr ioctl (no %s)",
					    dev->name, EMU_BATCH_ATTR);
			return 0;
		}
		ret = render_route(dev, true);
		if (!ret || dev->mode == UPR_MODE_AUTO)
			return 0;	/* AUTO without it: one ioctl per range */
		/* copied: fail() writes the buffer it would read */
		snprintf(why, sizeof(why), "%s", errmsg);
		return fail(ret, "KFD has no batch ioctl, UPR_MODE_BATCH takes its render node: %s",
			    why);
	default:
		return 0;
	}
}

static void dev_reset(struct upr_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	if (dev->drm_fd >= 0)
		close(dev->drm_fd);
	dev->fd = -1;
	dev->drm_fd = -1;
}

int upr_open(struct upr_dev **devp, const struct upr_opts *opts)
{
	static const struct upr_opts defaults;
	struct upr_dev *dev;
	int ret;

	if (!opts)
		opts = &defaults;
	if (opts->backend > UPR_BACKEND_EMU || opts->mode > UPR_MODE_RENDER_PER_RANGE)
		return fail(-EINVAL, "unknown backend or mode");
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return fail(-ENOMEM, "out of memory");
	dev->fd = -1;
	dev->drm_fd = -1;
	dev->page_size = sysconf(_SC_PAGESIZE);
	dev->mode = opts->mode;
	dev->coalesce = opts->coalesce;
	switch (opts->backend) {
	case UPR_BACKEND_KFD:
		dev->backend = UPR_BACKEND_KFD;
		ret = kfd_open(dev, opts->gpu_id);
		break;
	case UPR_BACKEND_EMU:
		dev->backend = UPR_BACKEND_EMU;
		ret = emu_open(dev);
		break;
	default:
		/* a real GPU first; /dev/kfd without one is not a device */
		dev->backend = UPR_BACKEND_KFD;
		ret = kfd_open(dev, opts->gpu_id);
		if (ret) {
			char why[sizeof(errmsg)], why_emu[sizeof(errmsg)];

			snprintf(why, sizeof(why), "%s", errmsg);
			dev_reset(dev);
			dev->backend = UPR_BACKEND_EMU;
			ret = emu_open(dev);
			if (ret) {
				/* copied too: fail() writes the buffer it would read */
				snprintf(why_emu, sizeof(why_emu), "%s", errmsg);
				fail(ret, "no device: %s; %s", why, why_emu);
			}
		}
	}
	if (!ret)
		ret = route(dev);
	if (ret) {
		dev_reset(dev);
		free(dev);
		return ret;
	}
	dev->has_batch = dev->cap > 0;
	if (!dev->has_batch)
		dev->cap = 1;
	if (opts->max_ranges && opts->max_ranges < dev->cap)
		dev->cap = opts->max_ranges;
	*devp = dev;
	return 0;
}

void upr_close(struct upr_dev *dev)
{
	if (!dev)
		return;
	dev_reset(dev);
	free(dev);
}

int upr_dev_fd(const struct upr_dev *dev)
{
	return dev->fd;
}

enum upr_backend upr_dev_backend(const struct upr_dev *dev)
{
	return dev->backend;
}

bool upr_dev_has_batch(const struct upr_dev *dev)
{
	return dev->has_batch;
}

unsigned int upr_dev_max_ranges(const struct upr_dev *dev)
{
	return dev->cap;
}

const char *upr_dev_name(const struct upr_dev *dev)
{
	return dev->name;
}

/* --- registration --- */

static int do_free(struct upr_dev *dev, uint64_t handle)
{
	struct kfd_ioctl_free_memory_of_gpu_args a = { .handle = handle };

	return ioctl(dev->fd, dev->req_free, &a) ? -errno : 0;
}

static int do_alloc(struct upr_dev *dev, const struct upr_range *r, uint64_t va,
		    uint32_t flags, uint64_t *handle)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a = {
		.va_addr = va,
		.size = r->size,
		.mmap_offset = r->start,
		.gpu_id = dev->gpu_id,
		.flags = flags | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR,
	};

	if (ioctl(dev->fd, dev->req_alloc, &a))
		return -errno;
	*handle = a.handle;
	return 0;
}

_Static_assert(sizeof(struct drm_amdgpu_gem_userptr) ==
	       sizeof(struct drm_userptr_emu_gem_userptr) &&
	       offsetof(struct drm_amdgpu_gem_userptr, num_ranges) ==
	       offsetof(struct drm_userptr_emu_gem_userptr, num_ranges) &&
	       AMDGPU_GEM_USERPTR_RANGES == USERPTR_EMU_GEM_RANGES &&
	       AMDGPU_GEM_USERPTR_REGISTER == USERPTR_EMU_GEM_REGISTER &&
	       AMDGPU_GEM_USERPTR_READONLY == USERPTR_EMU_GEM_READONLY,
	       "the device's GEM_USERPTR is not amdgpu's layout");

/*
 * A GEM userptr of @n ranges at @r on the render node (with the ranges
 * array when @ranges, else of the one range @r), read-only without
 * KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE in @flags, then taken over by the
 * compute file at @va: KFD maps it with @flags (its
 * KFD_IOC_ALLOC_MEM_FLAGS_* mapping flags), the emulated device takes
 * none (the object's READONLY says whether it may write). The GEM handle
 * is closed when the takeover fails (on success the takeover deleted it).
 */
static int do_render(struct upr_dev *dev, const struct upr_range *r, unsigned int n,
		     bool ranges, uint64_t va, uint64_t size, uint32_t flags,
		     uint64_t *handle)
{
	struct drm_amdgpu_gem_userptr g = {
		.size = size,
		.flags = AMDGPU_GEM_USERPTR_REGISTER |
			 (flags & KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE ?
			  0 : AMDGPU_GEM_USERPTR_READONLY),
	};
	int ret;

	if (ranges) {
		g.flags |= AMDGPU_GEM_USERPTR_RANGES;
		g.ranges = (uintptr_t)r;
		g.num_ranges = n;
	} else {
		g.addr = r->start;
	}
	if (drmIoctl(dev->drm_fd, dev->req_gem, &g))
		return -errno;
	if (dev->backend == UPR_BACKEND_KFD) {
		struct kfd_ioctl_import_dmabuf_args a = {
			.va_addr = va, .gpu_id = dev->gpu_id,
			.dmabuf_fd = KFD_INVALID_FD, .gem_handle = g.handle,
			.flags = flags,
		};

		ret = ioctl(dev->fd, AMDKFD_IOC_IMPORT_DMABUF, &a) ? -errno : 0;
		*handle = a.handle;
	} else {
		struct userptr_emu_import_gem_args a = {
			.va_addr = va, .gpu_id = dev->gpu_id,
			.drm_fd = dev->drm_fd, .gem_handle = g.handle,
		};

		ret = ioctl(dev->fd, USERPTR_EMU_IOC_IMPORT_GEM, &a) ? -errno : 0;
		*handle = a.handle;
	}
	if (ret)
		drmCloseBufferHandle(dev->drm_fd, g.handle);
	return ret;
}

_Static_assert(sizeof(struct upr_range) == sizeof(struct userptr_emu_range) &&
	       sizeof(struct upr_range) == sizeof(struct drm_amdgpu_gem_userptr_range) &&
	       offsetof(struct upr_range, size) ==
	       offsetof(struct drm_amdgpu_gem_userptr_range, size) &&
	       UPR_WRITABLE == (uint32_t)KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE &&
	       UPR_WRITABLE == (uint32_t)USERPTR_EMU_FLAG_WRITABLE &&
	       UPR_EXECUTABLE == (uint32_t)KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE,
	       "struct upr_range or the flags are not the kernel's");

/* the emulated device's batch ioctl; amdkfd has none */
static int do_batch(struct upr_dev *dev, const struct upr_range *r, unsigned int n,
		    uint64_t va, uint64_t size, uint32_t flags, uint64_t *handle)
{
	struct userptr_emu_alloc_batch_args a = {
		.va_addr = va,
		.total_size = size,
		.ranges_ptr = (uintptr_t)r,
		.num_ranges = n,
		.gpu_id = dev->gpu_id,
		.flags = flags | USERPTR_EMU_FLAG_USERPTR,
	};

	if (ioctl(dev->fd, dev->req_batch, &a))
		return -errno;
	*handle = a.handle;
	return 0;
}

int upr_register(struct upr_dev *dev, const struct upr_range *ranges,
		 unsigned int n, uint64_t va, uint32_t flags,
		 struct upr_alloc **allocp)
{
	struct upr_range *r = (struct upr_range *)ranges, *copy = NULL;
	unsigned int i, calls, first, cnt;
	bool batch = dev->has_batch && dev->mode != UPR_MODE_PER_RANGE;
	struct upr_alloc *a;
	uint64_t total, off;
	int ret;

	ret = validate_each(ranges, n, dev->page_size, &total);
	if (ret)
		return ret;
	if (va & (dev->page_size - 1))
		return fail(-EINVAL, "device address %#llx is not page aligned",
			    (unsigned long long)va);
	if (va && va + total < va)
		return fail(-EOVERFLOW, "device range %#llx+%#llx wraps around",
			    (unsigned long long)va, (unsigned long long)total);
	if (flags & ~(UPR_WRITABLE | UPR_EXECUTABLE))
		return fail(-EINVAL, "unknown flags %#x", flags & ~(UPR_WRITABLE | UPR_EXECUTABLE));
	if (dev->coalesce) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return fail(-ENOMEM, "out of memory");
		memcpy(copy, ranges, n * sizeof(*copy));
		n = upr_coalesce(copy, n);
		r = copy;
	}
	calls = batch ? upr_split_calls(n, dev->cap) : n;
	/*
	 * Overlap: the kernel finds it within one batch ioctl (-EINVAL), so a
	 * single ioctl leaves the check to it, and sorting is done once, not
	 * twice (in userspace, with a comparison callback, it cost more than
	 * the kernel's whole registration of thousands of ranges). Ranges
	 * spread over several ioctls are checked here, as no ioctl sees them
	 * all.
	 */
	if (calls > 1) {
		ret = validate_overlap(r, n);
		if (ret) {
			free(copy);
			return ret;
		}
	}
	a = calloc(1, sizeof(*a) + calls * sizeof(a->handles[0]));
	if (!a) {
		free(copy);
		return fail(-ENOMEM, "out of memory");
	}
	a->va = va ? va : dev->next_va;
	a->render = dev->render;
	a->size = total;
	a->nranges = n;
	off = 0;
	for (i = 0; i < calls; i++) {
		uint64_t size = 0;
		unsigned int j;

		if (batch) {
			cnt = upr_split_count(n, dev->cap, i, &first);
			for (j = first; j < first + cnt; j++)
				size += r[j].size;
		} else {
			first = i;
			cnt = 1;
			size = r[i].size;
		}
		if (dev->render)
			ret = do_render(dev, &r[first], cnt, dev->render_ranges, a->va + off,
					size, flags, &a->handles[i]);
		else if (batch)
			ret = do_batch(dev, &r[first], cnt, a->va + off, size, flags,
				       &a->handles[i]);
		else
			ret = do_alloc(dev, &r[i], a->va + off, flags, &a->handles[i]);
		/* the kernel refused one batch: name the overlap if it was one */
		if (ret == -EINVAL && calls == 1 && validate_overlap(r, n)) {
			free(a);
			free(copy);
			return -EINVAL;
		}
		if (ret) {
			fail(ret, "%s of range%s %u%s at device %#llx: %s",
			     dev->render ? "GEM userptr and takeover" : batch ? "batch ioctl" : "ioctl",
			     cnt > 1 ? "s" : "", first,
			     cnt > 1 ? "..." : "", (unsigned long long)(a->va + off),
			     strerror(-ret));
			/* leave nothing registered */
			while (i--)
				do_free(dev, a->handles[i]);
			free(a);
			free(copy);
			return ret;
		}
		a->nhandles++;
		off += size;
	}
	free(copy);
	/* the next default address leaves a page between allocations */
	if (a->va + total + dev->page_size > dev->next_va)
		dev->next_va = a->va + total + dev->page_size;
	*allocp = a;
	return 0;
}

int upr_unregister(struct upr_dev *dev, struct upr_alloc *a)
{
	unsigned int i;
	int ret = 0, err;

	if (!a)
		return 0;
	for (i = 0; i < a->nhandles; i++) {
		err = do_free(dev, a->handles[i]);
		if (err && !ret)
			ret = fail(err, "free of handle %#llx: %s",
				   (unsigned long long)a->handles[i], strerror(-err));
	}
	/* as libhsakmt: the BO goes before the address range */
	if (a->cpu_reserved)
		munmap((void *)(uintptr_t)a->va, a->size);
	free(a);
	return ret;
}

uint64_t upr_alloc_va(const struct upr_alloc *a)
{
	return a->va;
}

uint64_t upr_alloc_size(const struct upr_alloc *a)
{
	return a->size;
}

unsigned int upr_alloc_ranges(const struct upr_alloc *a)
{
	return a->nranges;
}

unsigned int upr_alloc_calls(const struct upr_alloc *a)
{
	return a->nhandles * (a->render ? 2 : 1);
}

unsigned int upr_alloc_handles(const struct upr_alloc *a)
{
	return a->nhandles;
}

uint64_t upr_alloc_handle(const struct upr_alloc *a, unsigned int call)
{
	return call < a->nhandles ? a->handles[call] : 0;
}

/* --- libhsakmt's hsaKmtRegisterMemoryRangesWithFlags() (hsakmt_compat.h) --- */

_Static_assert(sizeof(HsaMemoryRange) == sizeof(struct upr_range) &&
	       offsetof(HsaMemoryRange, MemoryAddress) == offsetof(struct upr_range, start) &&
	       offsetof(HsaMemoryRange, SizeInBytes) == offsetof(struct upr_range, size),
	       "HsaMemoryRange is not struct upr_range");
_Static_assert(sizeof(HsaMemFlags) == sizeof(uint32_t), "HsaMemFlags is not 32 bits");

static __thread int hsakmt_err;

static HSAKMT_STATUS hsakmt_ret(HSAKMT_STATUS status, int err)
{
	hsakmt_err = err;
	return status;
}

int upr_hsakmt_errno(void)
{
	return hsakmt_err;
}

/* libhsakmt: a failed ioctl is HSAKMT_STATUS_ERROR, whatever its errno */
HSAKMT_STATUS upr_hsakmt_status(int err)
{
	return err ? HSAKMT_STATUS_ERROR : HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS upr_hsakmt_check(const void *MemoryAddress,
			       const HsaMemoryRange *MemoryRanges,
			       HSAuint64 RangesCount, HsaMemFlags MemFlags,
			       uint64_t page_size)
{
	int ret;

	/* hsaKmtRegisterMemoryRangesWithFlagsCtx()'s checks, in its order */
	if (!MemoryRanges || !RangesCount)
		return hsakmt_ret(HSAKMT_STATUS_INVALID_PARAMETER,
				  fail(-EINVAL, "no ranges"));
	if (MemFlags.ui32.CoarseGrain && MemFlags.ui32.ExtendedCoherent)
		return hsakmt_ret(HSAKMT_STATUS_INVALID_PARAMETER,
				  fail(-EINVAL, "CoarseGrain and ExtendedCoherent together"));
	if (MemFlags.ui32.HostAccess != 1 || MemFlags.ui32.NonPaged == 1)
		return hsakmt_ret(HSAKMT_STATUS_NOT_SUPPORTED,
				  fail(-EOPNOTSUPP, "not ordinary paged host memory: %s",
				       MemFlags.ui32.NonPaged ? "NonPaged" : "no HostAccess"));
	/* then the fmm's: what it and the kernel refuse is ERROR */
	if (RangesCount > UINT32_MAX)
		return hsakmt_ret(HSAKMT_STATUS_ERROR,
				  fail(-E2BIG, "%llu ranges do not fit the ioctl",
				       (unsigned long long)RangesCount));
	if ((uintptr_t)MemoryAddress & (page_size - 1))
		return hsakmt_ret(HSAKMT_STATUS_ERROR,
				  fail(-EINVAL, "MemoryAddress %p is not page aligned",
				       MemoryAddress));
	ret = upr_validate((const struct upr_range *)MemoryRanges, RangesCount, page_size, NULL);
	return hsakmt_ret(upr_hsakmt_status(ret), ret);
}

HSAKMT_STATUS upr_hsakmt_register_ranges(struct upr_dev *dev, void *MemoryAddress,
					 HsaMemoryRange *MemoryRanges,
					 HSAuint64 RangesCount, HsaMemFlags MemFlags,
					 struct upr_alloc **allocp)
{
	const struct upr_range *r = (const struct upr_range *)MemoryRanges;
	uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
	HSAKMT_STATUS status;
	struct upr_alloc *a;
	uint64_t total = 0;
	unsigned int i;
	void *mem;
	int ret;

	if (!dev)
		return hsakmt_ret(HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
				  fail(-EBADF, "no device (upr_open() first)"));
	if (!allocp)
		return hsakmt_ret(HSAKMT_STATUS_INVALID_PARAMETER,
				  fail(-EINVAL, "no allocp for the registration"));
	status = upr_hsakmt_check(MemoryAddress, MemoryRanges, RangesCount, MemFlags,
				  dev->page_size);
	if (status != HSAKMT_STATUS_SUCCESS)
		return status;
	/*
	 * The render node with a ranges array, whatever the device's mode:
	 * nothing sent and nothing reserved when this kernel lacks it
	 */
	ret = render_check(dev, true);
	if (!ret && dev->drm_fd < 0)
		ret = render_open(dev, "userptr_emu");
	if (ret)
		return hsakmt_ret(HSAKMT_STATUS_ERROR, ret);
	for (i = 0; i < RangesCount; i++)
		total += r[i].size;
	/* the GPU VA range, held in the CPU's address space as libhsakmt's
	 * SVM aperture holds it: at MemoryAddress, or where mmap puts it
	 */
	mem = mmap(MemoryAddress, total, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		   (MemoryAddress ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (mem == MAP_FAILED || (MemoryAddress && mem != MemoryAddress)) {
		ret = mem == MAP_FAILED ? -errno : -EEXIST;
		if (mem != MAP_FAILED)
			munmap(mem, total);
		return hsakmt_ret(HSAKMT_STATUS_ERROR,
				  fail(ret, "address range %p+%#llx: %s", MemoryAddress,
				       (unsigned long long)total, strerror(-ret)));
	}
	a = calloc(1, sizeof(*a) + sizeof(a->handles[0]));
	if (!a) {
		munmap(mem, total);
		return hsakmt_ret(HSAKMT_STATUS_ERROR, fail(-ENOMEM, "out of memory"));
	}
	/*
	 * libhsakmt's flags, the takeover's on KFD; the emulated device's
	 * object is writable (not READONLY), its takeover takes no flag
	 */
	if (dev->backend == UPR_BACKEND_KFD)
		flags |= KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE |
			 KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE |
			 (MemFlags.ui32.CoarseGrain ? 0 : KFD_IOC_ALLOC_MEM_FLAGS_COHERENT) |
			 (MemFlags.ui32.ExtendedCoherent ?
			  KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT : 0);
	/*
	 * one GEM userptr for all the ranges, as libhsakmt's one ioctl: no
	 * split at the cap; then its takeover (the handle closed if refused)
	 */
	ret = do_render(dev, r, RangesCount, true, (uintptr_t)mem, total, flags,
			&a->handles[0]);
	if (ret) {
		fail(ret, "GEM userptr of %llu ranges and its takeover at %p: %s",
		     (unsigned long long)RangesCount, mem, strerror(-ret));
		munmap(mem, total);
		free(a);
		return hsakmt_ret(upr_hsakmt_status(ret), ret);
	}
	a->va = (uintptr_t)mem;
	a->size = total;
	a->nranges = RangesCount;
	a->nhandles = 1;
	a->render = true;
	a->cpu_reserved = true;
	*allocp = a;
	return hsakmt_ret(HSAKMT_STATUS_SUCCESS, 0);
}
