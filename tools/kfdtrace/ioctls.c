// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls kfdtrace counts as amdkfd's and the emulated device's: their
 * names and whole commands, from the uAPI headers of the project's kernel
 * (AMDKFD_COMMAND_START..END) and of the device. The probes count a call
 * as the device's only when its fd is the device and its command is one
 * of these (bpf/kfdtrace.bpf.c, classify()). On the DRM nodes of amdgpu
 * and of the test device, by number only, as drm_ioctl() dispatches.
 */
#include <stddef.h>

#include <linux/kfd_ioctl.h>
#include <drm/amdgpu_drm.h>

#include "userptr_emu_uapi.h"
#include "report.h"

/* the probes classify by these numbers (bpf/kfdtrace.h): the header's */
_Static_assert(_IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU) == KT_KFD_ALLOC, "KT_KFD_ALLOC");
_Static_assert(_IOC_NR(AMDKFD_IOC_FREE_MEMORY_OF_GPU) == KT_KFD_FREE, "KT_KFD_FREE");
_Static_assert(offsetof(struct kfd_ioctl_alloc_memory_of_gpu_args, flags) == KT_ALLOC_FLAGS_OFF &&
	       KFD_IOC_ALLOC_MEM_FLAGS_USERPTR == KT_FLAG_USERPTR, "KT_ALLOC_FLAGS_OFF");
_Static_assert(_IOC_NR(AMDKFD_IOC_IMPORT_DMABUF) == KT_KFD_IMPORT, "KT_KFD_IMPORT");
_Static_assert(offsetof(struct kfd_ioctl_import_dmabuf_args, dmabuf_fd) == KT_IMPORT_FD_OFF &&
	       KFD_INVALID_FD == KT_INVALID_FD, "KT_IMPORT_FD_OFF");
_Static_assert(_IOC_NR(USERPTR_EMU_IOC_ALLOC) == KT_EMU_ALLOC, "KT_EMU_ALLOC");
_Static_assert(_IOC_NR(USERPTR_EMU_IOC_ALLOC_BATCH) == KT_EMU_ALLOC_BATCH, "KT_EMU_ALLOC_BATCH");
_Static_assert(offsetof(struct userptr_emu_alloc_batch_args, num_ranges) == KT_BATCH_NUM_OFF,
	       "KT_BATCH_NUM_OFF");
_Static_assert(_IOC_NR(USERPTR_EMU_IOC_FREE) == KT_EMU_FREE, "KT_EMU_FREE");
_Static_assert(_IOC_NR(USERPTR_EMU_IOC_IMPORT_GEM) == KT_EMU_IMPORT_GEM, "KT_EMU_IMPORT_GEM");
_Static_assert(AMDKFD_COMMAND_END <= KT_KFD_NR_END, "KT_KFD_NR_END");
_Static_assert(AMDKFD_IOC_CREATE_PROCESS == KT_KFD_CREATE_PROCESS, "KT_KFD_CREATE_PROCESS");
_Static_assert(DRM_AMDGPU_GEM_USERPTR == KT_AMDGPU_GEM_USERPTR, "KT_AMDGPU_GEM_USERPTR");
_Static_assert(USERPTR_EMU_DRM_GEM_USERPTR == KT_EMU_GEM_USERPTR, "KT_EMU_GEM_USERPTR");
_Static_assert(_IOC_NR(DRM_IOCTL_GEM_CLOSE) == KT_DRM_GEM_CLOSE, "KT_DRM_GEM_CLOSE");
_Static_assert(DRM_COMMAND_BASE == KT_DRM_COMMAND_BASE, "KT_DRM_COMMAND_BASE");
_Static_assert(AMDGPU_GEM_USERPTR_RANGES == KT_GEM_FLAG_RANGES, "KT_GEM_FLAG_RANGES");
_Static_assert(offsetof(struct drm_amdgpu_gem_userptr, flags) == KT_GEM_FLAGS_OFF &&
	       offsetof(struct drm_amdgpu_gem_userptr, num_ranges) == KT_GEM_NUM_RANGES_OFF &&
	       offsetof(struct drm_userptr_emu_gem_userptr, flags) == KT_GEM_FLAGS_OFF &&
	       offsetof(struct drm_userptr_emu_gem_userptr, num_ranges) == KT_GEM_NUM_RANGES_OFF,
	       "KT_GEM_*_OFF");

#define KFD(n)	{ "AMDKFD_IOC_" #n, AMDKFD_IOC_##n }
#define EMU(n)	{ "USERPTR_EMU_IOC_" #n, USERPTR_EMU_IOC_##n }

const struct kt_ioctl_def kt_kfd_ioctls[] = {
	KFD(GET_VERSION),
	KFD(CREATE_QUEUE),
	KFD(DESTROY_QUEUE),
	KFD(SET_MEMORY_POLICY),
	KFD(GET_CLOCK_COUNTERS),
	KFD(GET_PROCESS_APERTURES),
	KFD(UPDATE_QUEUE),
	KFD(CREATE_EVENT),
	KFD(DESTROY_EVENT),
	KFD(SET_EVENT),
	KFD(RESET_EVENT),
	KFD(WAIT_EVENTS),
	KFD(DBG_REGISTER_DEPRECATED),
	KFD(DBG_UNREGISTER_DEPRECATED),
	KFD(DBG_ADDRESS_WATCH_DEPRECATED),
	KFD(DBG_WAVE_CONTROL_DEPRECATED),
	KFD(SET_SCRATCH_BACKING_VA),
	KFD(GET_TILE_CONFIG),
	KFD(SET_TRAP_HANDLER),
	KFD(GET_PROCESS_APERTURES_NEW),
	KFD(ACQUIRE_VM),
	KFD(ALLOC_MEMORY_OF_GPU),
	KFD(FREE_MEMORY_OF_GPU),
	KFD(MAP_MEMORY_TO_GPU),
	KFD(UNMAP_MEMORY_FROM_GPU),
	KFD(SET_CU_MASK),
	KFD(GET_QUEUE_WAVE_STATE),
	KFD(GET_DMABUF_INFO),
	KFD(IMPORT_DMABUF),
	KFD(ALLOC_QUEUE_GWS),
	KFD(SMI_EVENTS),
	KFD(SVM),
	KFD(SET_XNACK_MODE),
	KFD(CRIU_OP),
	KFD(AVAILABLE_MEMORY),
	KFD(EXPORT_DMABUF),
	KFD(RUNTIME_ENABLE),
	KFD(DBG_TRAP),
	KFD(CREATE_PROCESS),
	KFD(PROFILER),
	{}
};

const struct kt_ioctl_def kt_emu_ioctls[] = {
	EMU(ALLOC), EMU(ALLOC_BATCH), EMU(FREE), EMU(READ), EMU(WRITE), EMU(QUERY), EMU(STATS),
	EMU(IMPORT_GEM),
	{}
};

#define AMDGPU(n)	{ "DRM_IOCTL_AMDGPU_" #n, DRM_IOCTL_AMDGPU_##n }
#define EMU_DRM(n)	{ "DRM_IOCTL_USERPTR_EMU_" #n, DRM_IOCTL_USERPTR_EMU_##n }

/* the DRM drivers' commands, by enum kt_drm_drv */
const struct kt_ioctl_def kt_amdgpu_ioctls[] = {
	AMDGPU(GEM_CREATE), AMDGPU(GEM_MMAP), AMDGPU(CTX), AMDGPU(BO_LIST), AMDGPU(CS),
	AMDGPU(INFO), AMDGPU(GEM_METADATA), AMDGPU(GEM_WAIT_IDLE), AMDGPU(GEM_VA),
	AMDGPU(WAIT_CS), AMDGPU(GEM_OP), AMDGPU(GEM_USERPTR), AMDGPU(WAIT_FENCES), AMDGPU(VM),
	AMDGPU(FENCE_TO_HANDLE), AMDGPU(SCHED), AMDGPU(USERQ), AMDGPU(USERQ_SIGNAL),
	AMDGPU(USERQ_WAIT), AMDGPU(GEM_LIST_HANDLES), AMDGPU(PROC_OPTIONS),
	{ "DRM_IOCTL_GEM_CLOSE(amdgpu)", DRM_IOCTL_GEM_CLOSE },
	{}
};

const struct kt_ioctl_def kt_emu_drm_ioctls[] = {
	EMU_DRM(GEM_USERPTR), EMU_DRM(EXEC), EMU_DRM(GEM_QUERY), EMU_DRM(STATS),
	{ "DRM_IOCTL_GEM_CLOSE(userptr_emu)", DRM_IOCTL_GEM_CLOSE },
	{}
};

/* the names of driver @drv's DRM commands, NULL for none */
const struct kt_ioctl_def *kt_drm_ioctls(unsigned int drv)
{
	return drv == KT_DRV_AMDGPU ? kt_amdgpu_ioctls :
	       drv == KT_DRV_EMU ? kt_emu_drm_ioctls : NULL;
}

/* the ioctl_names index of DRM command @cmd of driver @drv (GEM_CLOSE last) */
static unsigned int drm_slot(unsigned int drv, unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	return KT_DRM_NAMES + (drv - 1) * KT_DRM_NR_END +
	       (nr == KT_DRM_GEM_CLOSE ? KT_DRM_NR_CMDS : nr - KT_DRM_COMMAND_BASE);
}

const char *kt_ioctl_name(unsigned int idx)
{
	const struct kt_ioctl_def *d;
	unsigned int drv;

	for (d = kt_kfd_ioctls; d->name; d++)
		if (_IOC_NR(d->cmd) == idx)
			return d->name;
	for (d = kt_emu_ioctls; d->name; d++)
		if (KT_KFD_NR_END + _IOC_NR(d->cmd) == idx)
			return d->name;
	for (drv = KT_DRV_AMDGPU; drv < KT_NR_DRV; drv++)
		for (d = kt_drm_ioctls(drv); d->name; d++)
			if (drm_slot(drv, d->cmd) == idx)
				return d->name;
	return NULL;
}
