// SPDX-License-Identifier: GPL-2.0
/*
 * A known mix of amdkfd- and userptr_emu-numbered ioctls, on FILE
 * (default /dev/null, where each fails harmlessly with ENOTTY), for
 * kfdtrace's tests: on /dev/null none is the devices' (not_device), on
 * /dev/userptr_emu the emulated device's are, on /dev/kfd amdkfd's (host
 * and guest tests). amdkfd's registrations: three userptrs of one range
 * and the takeover of a GEM userptr (IMPORT_DMABUF with dmabuf_fd
 * KFD_INVALID_FD), the second step of amdkfd's batch; the device's: six
 * userptrs and seven batches. The counts are fixed here and in the tests;
 * two ioctls of other types must not be counted. No stdio: strace -c must
 * see exactly these.
 *
 *   ioctl_mix [FILE]
 */
#include <fcntl.h>
#include <linux/kd.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>

#include "userptr_emu_uapi.h"

static void repeat(int fd, int n, unsigned long cmd, void *arg)
{
	while (n--)
		ioctl(fd, cmd, arg);
}

int main(int argc, char **argv)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args alloc = { .size = 4096 };
	struct userptr_emu_alloc_batch_args batch = { .num_ranges = 4096 };
	struct kfd_ioctl_import_dmabuf_args import = { .dmabuf_fd = KFD_INVALID_FD };
	struct kfd_ioctl_free_memory_of_gpu_args free_args = { 0 };
	struct kfd_ioctl_get_version_args version = { 0 };
	struct termios tio;
	char led;
	int fd = open(argc > 1 ? argv[1] : "/dev/null", O_RDWR);

	if (fd < 0)
		return 1;
	alloc.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
	repeat(fd, 3, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &alloc);	/* kfd_userptr */
	alloc.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT;
	repeat(fd, 2, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &alloc);	/* kfd_alloc_other */
	repeat(fd, 1, AMDKFD_IOC_IMPORT_DMABUF, &import);	/* gem_import */
	repeat(fd, 4, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &free_args);	/* kfd_free */
	repeat(fd, 5, AMDKFD_IOC_GET_VERSION, &version);	/* kfd_other */
	alloc.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
	repeat(fd, 6, USERPTR_EMU_IOC_ALLOC, &alloc);		/* emu_userptr */
	repeat(fd, 7, USERPTR_EMU_IOC_ALLOC_BATCH, &batch);	/* emu_batch */
	/* not ours: a tty ioctl and the console's 'K' KDGETLED */
	ioctl(fd, TCGETS, &tio);
	ioctl(fd, KDGETLED, &led);
	close(fd);
	return 0;
}
