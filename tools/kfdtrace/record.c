// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace record: load the probes (bpf/kfdtrace.bpf.c, from the skeleton
 * built into this program), run the command under them or follow a
 * process or the whole system, and report. Which programs load, on what,
 * is probe.c's plan: record loads what it plans.
 */
#define _GNU_SOURCE	/* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ioctl.h>
#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kfdtrace.skel.h"
#include "events.h"
#include "main.h"
#include "probe.h"

/* after the deadline's SIGTERM, the command has this long before SIGKILL */
#define KT_KILL_GRACE_S	5

static struct bpf_link *links[64];
static int nlinks;

/*
 * The device number of a character device from its sysfs "dev" file
 * ("MAJOR:MINOR"), as the kernel keeps it (MKDEV: major << 20 | minor);
 * 0 when it is not there. @text gets "MAJOR:MINOR" or "".
 */
static __u32 sysfs_dev(const char *path, char *text, size_t len)
{
	unsigned int major, minor;
	FILE *f = fopen(path, "r");
	int n = f ? fscanf(f, "%u:%u", &major, &minor) : 0;

	if (f)
		fclose(f);
	text[0] = 0;
	if (n != 2)
		return 0;
	snprintf(text, len, "%u:%u", major, minor);
	return major << 20 | minor;
}

static unsigned int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned int n = 0;

	if (f) {
		if (fscanf(f, "%u", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/*
 * The most processes that can be alive at once, so that the follow map
 * cannot be full: no more than pids (pid_max) nor than threads
 * (threads-max, which scales with RAM: some 190000 with 24 GiB, where
 * pid_max is often 4194304 and its hash table's buckets would take 64 MiB).
 */
static __u32 system_process_max(void)
{
	unsigned int pids = read_sysctl("/proc/sys/kernel/pid_max");
	unsigned int threads = read_sysctl("/proc/sys/kernel/threads-max");

	if (!pids)
		pids = 4194304;	/* PID_MAX_LIMIT on 64-bit */
	return threads && threads < pids ? threads : pids;
}

/*
 * --cgroup PATH: the cgroup's id (its inode in cgroup2fs) and its depth
 * below the root of the hierarchy (the mount's root, which is the root's
 * outside a cgroup namespace), for bpf_get_current_ancestor_cgroup_id().
 */
static int cgroup_of(const char *path, __u64 *id, __u32 *level)
{
	struct stat st, up;
	struct statfs sfs;
	char *p, *slash;

	p = realpath(path, NULL);
	if (!p)
		return -errno;
	if (statfs(p, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC || stat(p, &st)) {
		free(p);
		return -ENOTDIR;
	}
	*id = st.st_ino;
	*level = 0;
	while ((slash = strrchr(p, '/')) && slash != p) {
		*slash = 0;
		if (stat(p, &up) || up.st_dev != st.st_dev)
			break;
		(*level)++;
	}
	free(p);
	return 0;
}

/*
 * What the probes are given before the load: the devices' files and
 * commands (a call is the device's only on its file and with a command
 * it knows), the follow map's size. @r gets what the report shows of it.
 */
static void set_rodata(struct kfdtrace_bpf *skel, const struct kt_record_opts *o,
		       int attempt, pid_t tgid, struct kt_run *r)
{
	struct kt_drm_node nodes[KT_MAX_DRM_NODES];
	const struct kt_ioctl_def *d;
	__u32 follow_max = 0;
	int i, n;

	kt_ioctl_plan(o, attempt, r->ioctl_at);
	skel->rodata->kfd_at_driver = r->ioctl_at[KT_IT_KFD] == KT_AT_FENTRY ||
				      r->ioctl_at[KT_IT_KFD] == KT_AT_KPROBE;
	skel->rodata->emu_at_driver = r->ioctl_at[KT_IT_EMU] == KT_AT_FENTRY ||
				      r->ioctl_at[KT_IT_EMU] == KT_AT_KPROBE;
	skel->rodata->drm_at_driver = r->ioctl_at[KT_IT_DRM] == KT_AT_FENTRY ||
				      r->ioctl_at[KT_IT_DRM] == KT_AT_KPROBE;

	skel->rodata->filter_tgid = tgid != 0;
	skel->rodata->filter_cgid = r->cgroup_id;
	skel->rodata->filter_cg_level = r->cgroup_level;
	skel->rodata->kfd_dev = sysfs_dev("/sys/class/kfd/kfd/dev", r->kfd_dev,
					  sizeof(r->kfd_dev));
	skel->rodata->emu_dev = sysfs_dev("/sys/class/misc/userptr_emu/dev", r->emu_dev,
					  sizeof(r->emu_dev));
	for (d = kt_kfd_ioctls; d->name; d++)
		skel->rodata->kfd_cmds[_IOC_NR(d->cmd)] = d->cmd;
	for (d = kt_emu_ioctls; d->name; d++)
		skel->rodata->emu_cmds[_IOC_NR(d->cmd)] = d->cmd;
	n = kt_drm_nodes(nodes, KT_MAX_DRM_NODES, r->drm_dev, sizeof(r->drm_dev));
	for (i = 0; i < n; i++) {
		skel->rodata->drm_node_dev[i] = nodes[i].dev;
		skel->rodata->drm_node_drv[i] = nodes[i].drv;
	}
	/* a map of one entry where nothing is filtered: it is not used */
	if (tgid)
		follow_max = o->debug_follow_max ? o->debug_follow_max : system_process_max();
	bpf_map__set_max_entries(skel->maps.follow, follow_max ? follow_max : 1);
	r->follow_max = follow_max;
	if (o->debug_rows_max)
		bpf_map__set_max_entries(skel->maps.ioctl_stats, o->debug_rows_max);
}

static void permission_hint(int err)
{
	if (err == -EPERM || err == -EACCES)
		fprintf(stderr,
			"kfdtrace: loading BPF programs needs root (or CAP_BPF and CAP_PERFMON)\n");
}

/*
 * Opens and loads the skeleton with every program whose group is wanted
 * and whose target exists (checked before the load). Should the load fail
 * all the same, it is tried again without the HMM and notifier programs,
 * then with the ioctl group alone.
 */
static struct kfdtrace_bpf *open_and_load(const struct kt_record_opts *o, pid_t tgid,
					  struct kt_run *r)
{
	const struct kt_prog_info *pi;
	struct kfdtrace_bpf *skel = NULL;
	int attempt, err = 0;
	unsigned int i;

	for (attempt = 0; attempt < 3; attempt++) {
		skel = kfdtrace_bpf__open();
		if (!skel) {
			fprintf(stderr, "kfdtrace: cannot open the BPF object: %s\n",
				strerror(errno));
			return NULL;
		}
		set_rodata(skel, o, attempt, tgid, r);
		for (i = 0; (pi = kt_prog(i)); i++) {
			struct bpf_program *prog;
			bool on = kt_prog_planned(o, pi, attempt, NULL, 0);

			prog = bpf_object__find_program_by_name(skel->obj, pi->name);
			if (prog)
				bpf_program__set_autoload(prog, on);
		}
		err = kfdtrace_bpf__load(skel);
		if (!err)
			break;
		kfdtrace_bpf__destroy(skel);
		skel = NULL;
		/* (EPERM too: some kernels refuse fentry so, not only non-root) */
		if (kt_verbose)
			fprintf(stderr, "kfdtrace: load attempt %d: %s\n", attempt + 1,
				strerror(-err));
	}
	if (!skel) {
		fprintf(stderr, "kfdtrace: cannot load the probes: %s%s\n", strerror(-err),
			kt_verbose ? "" : " (-v shows libbpf's messages)");
		permission_hint(err);
		return NULL;
	}
	if (tgid) {
		__u32 key = tgid;
		__u8 one = 1;

		if (bpf_map__update_elem(skel->maps.follow, &key, sizeof(key), &one,
					 sizeof(one), BPF_ANY)) {
			fprintf(stderr, "kfdtrace: cannot follow process %d\n", tgid);
			kfdtrace_bpf__destroy(skel);
			return NULL;
		}
	}
	return skel;
}

/* attaches what loaded; a group is live when all its loaded programs are */
static int attach_all(struct kfdtrace_bpf *skel, bool *live)
{
	bool tried[KT_G_NR] = {}, failed[KT_G_NR] = {};
	const struct kt_prog_info *pi;
	unsigned int i;
	int g;

	for (i = 0; (pi = kt_prog(i)); i++) {
		struct bpf_program *p;
		struct bpf_link *l;

		p = bpf_object__find_program_by_name(skel->obj, pi->name);
		if (!p || !bpf_program__autoload(p))
			continue;
		tried[pi->group] = true;
		l = bpf_program__attach(p);
		if (!l || libbpf_get_error(l)) {
			failed[pi->group] = true;
			if (kt_verbose)
				fprintf(stderr, "kfdtrace: cannot attach %s\n", pi->name);
			continue;
		}
		if (nlinks < (int)ARRAY_SIZE(links))
			links[nlinks++] = l;
	}
	for (g = 0; g < KT_G_NR; g++)
		live[g] = tried[g] && !failed[g];
	if (!live[KT_G_IOCTL]) {
		fprintf(stderr, "kfdtrace: cannot attach the ioctl probes\n");
		return -ENOENT;
	}
	fprintf(stderr, "kfdtrace: probes live:");
	for (g = 0; g < KT_G_NR; g++)
		if (live[g])
			fprintf(stderr, " %s", kt_group_names[g]);
	fprintf(stderr, "\n");
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct kt_proc_row *x = a, *y = b;

	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	return (int)x->key.class - (int)y->key.class;
}

static int read_rows(struct kfdtrace_bpf *skel, struct kt_run *r)
{
	int fd = bpf_map__fd(skel->maps.ioctl_stats), n = 0, cap = 0;
	struct kt_ioctl_key key, next, *prev = NULL;
	struct kt_proc_row *rows = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (n == cap) {
			struct kt_proc_row *nr;

			cap = cap ? 2 * cap : 64;
			nr = realloc(rows, cap * sizeof(*rows));
			if (!nr) {
				free(rows);
				return -ENOMEM;
			}
			rows = nr;
		}
		if (!bpf_map_lookup_elem(fd, &next, &rows[n].st)) {
			rows[n].key = next;
			n++;
		}
		key = next;
		prev = &key;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	free(r->rows);
	r->rows = rows;
	r->nrows = n;
	return 0;
}

static void add_stat(struct kt_ioctl_stat *to, const struct kt_ioctl_stat *s)
{
	to->calls += s->calls;
	to->errors += s->errors;
	to->ranges += s->ranges;
	to->ns += s->ns;
	for (int i = 0; i < KT_HIST_SLOTS; i++)
		to->hist[i] += s->hist[i];
}

/* the probes' maps into @r */
static int read_maps(struct kfdtrace_bpf *skel, struct kt_run *r)
{
	int i, err = read_rows(skel, r);
	__u32 k;

	if (err)
		return err;
	memset(r->cls, 0, sizeof(r->cls));
	for (i = 0; i < r->nrows; i++)
		add_stat(&r->cls[r->rows[i].key.class], &r->rows[i].st);
	for (k = 0; k < KT_NR_COUNTS; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &k, &r->counts[k]))
			r->counts[k] = 0;
	for (k = 0; k < KT_NR_EVENTS; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.inval_events), &k, &r->events[k]))
			r->events[k] = 0;
	for (k = 0; k < KT_NR_HISTS; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hists), &k, &r->hists[k]))
			memset(&r->hists[k], 0, sizeof(r->hists[k]));
	for (k = 0; k < KT_NR_NAMES; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.ioctl_names), &k, &r->names[k]))
			memset(&r->names[k], 0, sizeof(r->names[k]));
	for (k = 0; k < KT_MAX_ERRNO; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.ioctl_errno), &k, &r->errnos[k]))
			r->errnos[k] = 0;
	return 0;
}

/*
 * --probe-cost: what each attached program cost, from the kernel's BPF
 * run-time statistics (counted only while the fd of bpf_enable_stats() is
 * open). It is the programs' own time: the kprobe, trampoline or
 * tracepoint dispatch around them and the ring buffer's reader are not in
 * it, which is why the overhead benchmark times the workload as well.
 */
static void print_probe_cost(struct kfdtrace_bpf *skel)
{
	const struct kt_prog_info *pi;
	__u64 runs = 0, ns = 0;
	unsigned int i;

	fprintf(stderr, "%-28s %12s %12s %10s\n", "probe", "runs", "total_us", "ns/run");
	for (i = 0; (pi = kt_prog(i)); i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct bpf_program *p;

		p = bpf_object__find_program_by_name(skel->obj, pi->name);
		if (!p || bpf_program__fd(p) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) || !info.run_cnt)
			continue;
		fprintf(stderr, "%-28s %12llu %12.1f %10.0f\n", pi->name,
			(unsigned long long)info.run_cnt, info.run_time_ns / 1e3,
			(double)info.run_time_ns / info.run_cnt);
		runs += info.run_cnt;
		ns += info.run_time_ns;
	}
	fprintf(stderr, "%-28s %12llu %12.1f %10.0f\n", "all", (unsigned long long)runs,
		ns / 1e3, runs ? (double)ns / runs : 0.0);
}

/* where the ring buffer's events go: the verdict, and -w's file */
struct kt_sink {
	struct kt_verdict *vd;
	FILE *file;
	int err;		/* the file's first write error */
	__u64 lost;		/* the probes' dropped events, as last marked */
};

static int on_event(void *ctx, void *data, size_t len)
{
	struct kt_sink *k = ctx;

	if (len < sizeof(struct kt_event))
		return 0;
	kt_verdict_event(k->vd, data);
	if (k->file && !k->err)
		k->err = kt_evfile_event(k->file, data);
	return 0;
}

/*
 * -w: a mark in the stream where the probes' count of dropped events grew,
 * so that a replay knows the events around it are not all there
 */
static void mark_lost(struct kfdtrace_bpf *skel, struct kt_sink *k)
{
	__u32 key = KT_EVENTS_LOST;
	__u64 n;

	if (!k->file || k->err ||
	    bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &key, &n) || n <= k->lost)
		return;
	k->lost = n;
	k->err = kt_evfile_lost(k->file, n);
	if (!k->err && fflush(k->file))
		k->err = -errno;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* SIGINT and SIGTERM: counted here, handled (forwarded) by the loop */
static volatile sig_atomic_t nsignals, last_signal, last_from_tty;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	last_signal = sig;
	/* typed at the terminal: the kernel sent it to the whole foreground group */
	last_from_tty = si->si_code == SI_KERNEL;
	nsignals++;
}

/* only there to cut the ring buffer's poll short when the command exits */
static void on_sigchld(int sig)
{
}

static void set_status(struct kt_run *r, int status)
{
	if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->status = 128 + r->signal;
	} else {
		r->signal = 0;
		r->status = WEXITSTATUS(status);
	}
}

/*
 * The command, started once the probes are live: the child waits on @go
 * and reports a failed exec through a close-on-exec pipe (@exec_err).
 */
static pid_t start_child(char **cmd, int go[2], int exec_err[2])
{
	pid_t child;
	char c;
	int e;

	if (pipe(go) || pipe2(exec_err, O_CLOEXEC))
		return -1;
	child = fork();
	if (child)
		return child;
	/*
	 * kfdtrace's handlers would become the defaults at the exec anyway;
	 * until then a signal must end the child, not set kfdtrace's flag
	 * in its copy. SIGPIPE, which kfdtrace ignores, is the command's.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	close(go[1]);
	close(exec_err[0]);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	close(go[0]);
	execvp(cmd[0], cmd);
	e = errno;
	fprintf(stderr, "kfdtrace: %s: %s\n", cmd[0], strerror(e));
	/* (nothing more to do if the parent cannot be told) */
	if (write(exec_err[1], &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

int kt_record(const struct kt_record_opts *o, struct kt_run *r)
{
	struct kt_sink sink = { .file = o->events };
	struct kfdtrace_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	__u64 end_ns;
	int go[2] = { -1, -1 }, exec_err[2] = { -1, -1 }, stats_fd = -1, err, i;
	int handled = 0, status;
	double start, next, kill_at = 0;
	bool deadline_hit = false;
	struct sigaction sa = {};
	pid_t child = 0;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->stop = KT_STOP_EXIT;
	kt_probe_setup();

	if (o->cgroup) {
		err = cgroup_of(o->cgroup, &r->cgroup_id, &r->cgroup_level);
		if (err) {
			fprintf(stderr, "kfdtrace: --cgroup %s: %s\n", o->cgroup,
				err == -ENOTDIR ? "not a cgroup v2 directory" : strerror(-err));
			return err;
		}
	}
	if (o->pid && kill(o->pid, 0) && errno == ESRCH) {
		fprintf(stderr, "kfdtrace: -p %d: no such process\n", o->pid);
		return -ESRCH;
	}
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGCHLD, on_sigchld);
	/* a command that died before its start must not take kfdtrace along */
	signal(SIGPIPE, SIG_IGN);

	if (o->cmd) {
		child = start_child(o->cmd, go, exec_err);
		if (child < 0) {
			err = -errno;
			fprintf(stderr, "kfdtrace: cannot start %s: %s\n", o->cmd[0],
				strerror(errno));
			goto out_child;
		}
		close(go[0]);
		close(exec_err[1]);
	}

	err = kt_verdict_init(&r->verdict);
	if (err)
		goto out_child;
	skel = open_and_load(o, child ? child : o->pid, r);
	if (!skel) {
		err = -ENOENT;
		goto out_child;
	}
	err = attach_all(skel, r->live);
	if (err)
		goto out_skel;
	r->verdict.amdgpu = r->live[KT_G_AMDGPU];
	sink.vd = &r->verdict;
	if (sink.file) {
		err = kt_evfile_begin(sink.file, r->live);
		if (err) {
			fprintf(stderr, "kfdtrace: writing the events: %s\n", strerror(-err));
			goto out_skel;
		}
	}
	if (o->probe_cost) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			err = stats_fd;
			fprintf(stderr, "kfdtrace: --probe-cost: %s: %s\n",
				"cannot enable BPF run-time statistics", strerror(-err));
			goto out_skel;
		}
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &sink, NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "kfdtrace: cannot open the event ring buffer\n");
		goto out_skel;
	}

	start = now();
	next = start + o->interval;
	/* (fails only if a signal ended the command already: the loop reaps it) */
	if (child && write(go[1], "g", 1) != 1 && kt_verbose)
		fprintf(stderr, "kfdtrace: the command ended before its start\n");
	if (child)
		close(go[1]);
	go[1] = -1;

	for (;;) {
		if (child && waitpid(child, &status, WNOHANG) == child) {
			set_status(r, status);
			child = 0;
			break;
		}
		if (o->pid && kill(o->pid, 0) && errno == ESRCH)
			break;
		if (handled != nsignals) {
			handled = nsignals;
			r->stop = KT_STOP_SIGNAL;
			if (!child)
				break;
			/*
			 * The first goes to the command (unless the terminal
			 * sent it there already), which ends the trace when it
			 * exits; the second kills it.
			 */
			if (handled > 1)
				kill(child, SIGKILL);
			else if (!last_from_tty || getpgid(child) != getpgrp())
				kill(child, last_signal);
		}
		if (o->duration && !deadline_hit && now() - start >= o->duration) {
			deadline_hit = true;
			if (r->stop == KT_STOP_EXIT)
				r->stop = KT_STOP_DEADLINE;
			if (!child)
				break;
			kill(child, SIGTERM);
			kill_at = now() + KT_KILL_GRACE_S;
		}
		if (kill_at && now() >= kill_at) {
			kill(child, SIGKILL);
			kill_at = 0;
		}
		if (o->interval && now() >= next) {
			ring_buffer__consume(rb);
			if (!read_maps(skel, r))
				kt_report_print(stdout, r);
			printf("\n");
			fflush(stdout);
			next += o->interval;
		}
		/*
		 * The probes wake the reader only past KT_WAKEUP_BYTES: a
		 * short poll would wake it (and switch the workload out, on
		 * one CPU) 100 times a second for nothing. SIGCHLD ends the
		 * poll when the command exits.
		 */
		ring_buffer__poll(rb, KT_POLL_MS);
		mark_lost(skel, &sink);
		if (sink.file && !sink.err && fflush(sink.file))
			sink.err = -errno;
	}
	r->seconds = now() - start;
	ring_buffer__consume(rb);
	mark_lost(skel, &sink);
	end_ns = (__u64)(now() * 1e9);
	kt_verdict_finish(&r->verdict, end_ns);
	err = read_maps(skel, r);
	if (err)
		goto out_skel;
	if (sink.file && !sink.err)
		sink.err = kt_evfile_end(sink.file, r, end_ns);
	if (sink.err) {
		fprintf(stderr, "kfdtrace: writing the events: %s\n", strerror(-sink.err));
		err = sink.err;
	}
	if (exec_err[0] >= 0 &&
	    read(exec_err[0], &r->exec_errno, sizeof(r->exec_errno)) != sizeof(r->exec_errno))
		r->exec_errno = 0;
	kt_report_print(stdout, r);
	fflush(stdout);
	if (kt_run_lost(r))
		fprintf(stderr,
			"kfdtrace: INCOMPLETE: the probes lost %llu updates or events (lost.* in the report)\n",
			(unsigned long long)kt_run_lost(r));
	if (stats_fd >= 0)
		print_probe_cost(skel);
	if (o->out_fd >= 0) {
		err = kt_report_write(o->out_fd, r);
		if (err)
			fprintf(stderr, "kfdtrace: writing the JSON: %s\n", strerror(-err));
	}
out_skel:
	if (stats_fd >= 0)
		close(stats_fd);
	ring_buffer__free(rb);
	for (i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	kfdtrace_bpf__destroy(skel);
out_child:
	if (go[1] >= 0)
		close(go[1]);
	if (exec_err[0] >= 0)
		close(exec_err[0]);
	if (child > 0) {
		/* not started, or the probes failed: it must not run untraced */
		kill(child, SIGKILL);
		if (waitpid(child, &status, 0) == child)
			set_status(r, status);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return err;
}

void kt_run_free(struct kt_run *r)
{
	free(r->rows);
	r->rows = NULL;
	kt_verdict_free(&r->verdict);
}

static const char record_doc[] =
"Trace userptr registration ioctls of amdkfd and the emulated device, and what\n"
"the kernel did for them: of CMD and the processes it forks, of PID and its\n"
"forks (-p), or of the whole system (neither).\n"
"\n"
"The trace ends when CMD (or PID) exits, at -d, or on SIGINT/SIGTERM. CMD is\n"
"sent that SIGINT/SIGTERM (a second one kills it) and the trace goes on until\n"
"it exits; at -d it is sent SIGTERM, and SIGKILL 5 s later if it is still\n"
"there. The JSON's \"status\" is CMD's exit status, or 128+N when signal N\n"
"ended it (\"signal\" is N), and \"stop\" says why the trace ended (exit,\n"
"deadline, signal). kfdtrace record exits with CMD's status (0 without CMD),\n"
"2 when it cannot trace.\n"
"\n"
"Examples:\n"
"  kfdtrace record -o batch.json -- ./workload --batch\n"
"  kfdtrace record -d 10 -p 1234\n"
"  kfdtrace record -w run.events -- ./workload; kfdtrace report run.events\n";

/* record's own; -d, -c, -a, -v, -h are kt_recopts_argp's, shared with check */
static const struct argp_option record_opts[] = {
	{ "pid", 'p', "PID", 0, "Trace this process and its forks" },
	{ "interval", 'i', "SECONDS", 0, "Print the report every SECONDS while tracing" },
	{ "output", 'o', "FILE", 0, "Write the results as JSON to FILE" },
	{ "write-events", 'w', "EVENTS", 0,
	  "Write every event to EVENTS as the run goes, for kfdtrace report" },
	{ "probe-cost", 'C', NULL, 0, "Print each probe's runs and run time (stderr)" },
	{},
};

static const struct argp_child record_children[] = {
	{ &kt_recopts_argp },
	{},
};

struct record_args {
	struct kt_record_opts o;
	const char *out;
	const char *events;
};

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->o;
		break;
	case 'p':
		a->o.pid = kt_parse_count(arg, state);
		break;
	case 'i':
		a->o.interval = kt_parse_count(arg, state);
		break;
	case 'o':
		a->out = arg;
		break;
	case 'w':
		a->events = arg;
		break;
	case 'C':
		a->o.probe_cost = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state,
			   "\"%s\" is not an option; a command to trace goes after \"--\": kfdtrace record [OPTIONS] -- %s ...",
			   arg, arg);
		break;
	case ARGP_KEY_END:
		if (a->o.pid && a->o.cmd)
			argp_error(state, "-p and a command exclude each other");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * -o FILE is opened (created if need be, not yet truncated) before the
 * trace, so that a path that cannot be written fails at once, not after
 * the whole run; a file created here is removed if no JSON is written.
 */
static int open_output(const char *path, bool *created)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "kfdtrace: %s: %s\n", path, strerror(errno));
	return fd;
}

int do_record(int argc, char **argv)
{
	static const struct argp argp = {
		record_opts, record_parse, "[-- CMD [ARGS...]]", record_doc,
		record_children,
	};
	struct record_args a = { .o = { .out_fd = -1, .cmd = kt_cmd } };
	bool created = false, ev_created = false;
	struct kt_run r;
	int err;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return KT_EXIT_ERROR;
	if (a.out) {
		a.o.out_fd = open_output(a.out, &created);
		if (a.o.out_fd < 0)
			return KT_EXIT_ERROR;
	}
	if (a.events) {
		/* as -o: a file created here is removed if the run fails */
		ev_created = access(a.events, F_OK) != 0;
		a.o.events = kt_evfile_create(a.events);
		if (!a.o.events) {
			if (a.o.out_fd >= 0)
				close(a.o.out_fd);
			if (created)
				unlink(a.out);
			return KT_EXIT_ERROR;
		}
	}
	err = kt_record(&a.o, &r);
	if (a.o.out_fd >= 0 && close(a.o.out_fd) && !err) {
		fprintf(stderr, "kfdtrace: %s: %s\n", a.out, strerror(errno));
		err = -EIO;
	}
	if (a.o.events && fclose(a.o.events) && !err) {
		fprintf(stderr, "kfdtrace: %s: %s\n", a.events, strerror(errno));
		err = -EIO;
	}
	if (err && created)
		unlink(a.out);
	if (err && ev_created)
		unlink(a.events);
	kt_run_free(&r);
	if (err)
		return KT_EXIT_ERROR;
	return a.o.cmd ? r.status : 0;
}
