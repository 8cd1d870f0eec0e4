// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls kfdtrace counts as amdkfd's and the emulated device's: their
 * names and whole commands, from the uAPI headers of the project's kernel
 * (AMDKFD_COMMAND_START..END) and of the device. The probes count a call
 * as the device's only when its fd is the device and its command is one
 * of these (bpf/kfdtrace.bpf.c, classify()).
 */
#include <linux/kfd_ioctl.h>

#include "userptr_emu_uapi.h"
#include "report.h"

/* the probes classify by these numbers (bpf/kfdtrace.h): the header's */
_Static_assert(_IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU) == KT_KFD_ALLOC, "KT_KFD_ALLOC");
_Static_assert(_IOC_NR(AMDKFD_IOC_FREE_MEMORY_OF_GPU) == KT_KFD_FREE, "KT_KFD_FREE");
_Static_assert(_IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH) == KT_KFD_ALLOC_BATCH,
	       "KT_KFD_ALLOC_BATCH");
_Static_assert(AMDKFD_COMMAND_END <= KT_KFD_NR_END, "KT_KFD_NR_END");
_Static_assert(AMDKFD_IOC_CREATE_PROCESS == KT_KFD_CREATE_PROCESS, "KT_KFD_CREATE_PROCESS");

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
	KFD(ALLOC_MEMORY_OF_GPU_BATCH),
	{}
};

const struct kt_ioctl_def kt_emu_ioctls[] = {
	EMU(ALLOC), EMU(ALLOC_BATCH), EMU(FREE), EMU(READ), EMU(WRITE), EMU(QUERY), EMU(STATS),
	EMU(IMPORT_GEM),
	{}
};

const char *kt_ioctl_name(unsigned int idx)
{
	const struct kt_ioctl_def *d;

	for (d = kt_kfd_ioctls; d->name; d++)
		if (_IOC_NR(d->cmd) == idx)
			return d->name;
	for (d = kt_emu_ioctls; d->name; d++)
		if (KT_KFD_NR_END + _IOC_NR(d->cmd) == idx)
			return d->name;
	return NULL;
}
