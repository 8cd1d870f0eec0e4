// SPDX-License-Identifier: GPL-2.0
/*
 * Processes and threads for kfdtrace's follow map (ioctl-mix.test.sh,
 * guest-kfdtrace.sh). Each worker process makes two ioctls on FILE: the
 * amdkfd-numbered AMDKFD_IOC_GET_VERSION and the emulated device's
 * USERPTR_EMU_IOC_STATS (on /dev/null both fail with ENOTTY; on
 * /dev/userptr_emu the first is not the device's and the second is).
 *
 *   follow_load seq N FILE      N workers, one after the other (each a
 *                               process of its own that shares the
 *                               parent's memory, as vfork: a fork's copy
 *                               of the page tables takes 0.15 s in the
 *                               debug guest)
 *   follow_load live N FILE     N workers alive at once, then their ioctls
 *   follow_load threads N FILE  N threads, then one worker, then the
 *                               threads end
 *
 * A tracer that follows what it traces must count 2 N calls (seq, live)
 * or 2 (threads). Exits 0, or 1 when a fork, thread or wait failed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>

#include "userptr_emu_uapi.h"

static int fd;
static int gate[2];	/* the workers or threads wait for its end to close */

static void work(void)
{
	struct kfd_ioctl_get_version_args version = { 0 };
	struct userptr_emu_stats_args stats = { 0 };

	ioctl(fd, AMDKFD_IOC_GET_VERSION, &version);
	ioctl(fd, USERPTR_EMU_IOC_STATS, &stats);
}

/* a worker process: waits for the gate when @wait, works, exits */
static pid_t worker(int wait)
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	if (wait) {
		close(gate[1]);
		/* (EOF when the parent closes its end) */
		while (read(gate[0], &c, 1) > 0)
			;
	}
	work();
	_exit(0);
}

static int work_fn(void *arg)
{
	work();
	_exit(0);
}

/* a worker process sharing the parent's memory: back when it has exited */
static pid_t vfork_worker(void)
{
	static char stack[64 << 10] __attribute__((aligned(16)));

	return clone(work_fn, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
}

static int reap(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status);
}

static void *thread_fn(void *arg)
{
	char c;

	while (read(gate[0], &c, 1) > 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t *threads;
	pthread_attr_t attr;
	pid_t *pids;
	int i, n, failed = 0;

	n = argc == 4 ? atoi(argv[2]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: follow_load seq|live|threads N FILE\n");
		return 2;
	}
	fd = open(argv[3], O_RDWR);
	if (fd < 0 || pipe(gate)) {
		perror(argv[3]);
		return 1;
	}
	pids = calloc(n, sizeof(*pids));
	threads = calloc(n, sizeof(*threads));
	if (!pids || !threads)
		return 1;
	if (!strcmp(argv[1], "seq")) {
		for (i = 0; i < n; i++)
			failed |= reap(vfork_worker());
	} else if (!strcmp(argv[1], "live")) {
		for (i = 0; i < n; i++)
			pids[i] = worker(1);
		close(gate[1]);
		for (i = 0; i < n; i++)
			failed |= pids[i] < 0 || reap(pids[i]);
	} else if (!strcmp(argv[1], "threads")) {
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 << 10);
		for (i = 0; i < n; i++)
			if (pthread_create(&threads[i], &attr, thread_fn, NULL))
				return 1;
		failed |= reap(worker(0));
		close(gate[1]);
		for (i = 0; i < n; i++)
			pthread_join(threads[i], NULL);
	} else {
		fprintf(stderr, "follow_load: %s: not seq, live or threads\n", argv[1]);
		return 2;
	}
	if (failed)
		fprintf(stderr, "follow_load: a worker failed\n");
	return failed;
}
