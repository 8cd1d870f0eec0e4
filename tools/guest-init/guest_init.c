// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the guest that scripts/vm-run boots: mount what a test needs
 * over the read-only host root, load the modules asked for, run the
 * command, scan for kernel memory leaks, save the command's status and the
 * kernel log to the results directory, and power off.
 *
 * It is a static C program, not a script, because every exec costs the
 * test kernel (KASAN, lockdep, kmemleak) under TCG a second or more: the
 * shell version spent about 20 s of each boot in mount(8), stty(8),
 * sleep(1) and sh(1). Here the only execs are the ones vm-run asked for.
 *
 * It starts in an initramfs (stage one): once the kernel has booted, it
 * says "ready" on a virtio-serial port named vmrun.ctl and waits there for
 * the run's results directory. Nothing before that point depends on the
 * run, so scripts/vm-run may save the guest there and start later runs of
 * the same kernel from the saved state instead of booting. Then it mounts
 * the host's root (9p, tag "hostroot"), moves to it, and goes on as below.
 * After a restore the guest's clock is the one it was saved with and its
 * random state is every restored run's: both are renewed here.
 *
 * Input: DIR (the results directory, a 9p share tagged "results") from the
 * control port, a line. From DIR/guest/, written by vm-run, each a
 * list of NUL-terminated strings: cwd, path (the caller's PATH), keep (host
 * directories the guest's tmpfs mounts must not hide: the tree and the
 * caller's directory), load (modules: a name for modprobe, a path ending
 * in .ko for insmod), cmd (argv) and modroot (where modprobe looks).
 * The command finds DIR in $VM_OUT. Output: DIR/status (the command's exit
 * status, 125 when a module failed to load), DIR/dmesg, DIR/kmemleak.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/random.h>
#include <linux/rtc.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define STATUS_LOAD_FAILED	125
/*
 * kmemleak reports an object only once it is 5 s old (jiffies_min_age),
 * counted in jiffies: wait a tenth more
 */
#define KMEMLEAK_MIN_AGE_NS	5100000000LL

struct strv {
	char *buf;	/* the file's bytes, NUL-terminated strings */
	char **v;	/* pointers into buf, NULL-terminated */
	int n;
};

/*
 * Where the results share is mounted first: DIR itself may be below a
 * directory that gets a tmpfs, and DIR/guest/ says what to keep visible.
 */
#define RESULTS_STASH		"/dev/.vm-results"

/* stage one: the control port's name, and where the host's root goes */
#define CTL_PORT_NAME		"vmrun.ctl"
#define NEWROOT			"/newroot"
#define HOSTROOT_OPTS		"trans=virtio,version=9p2000.L,msize=1048576,cache=loose"

/*
 * Virtio-serial ports are added by a control message after the driver
 * probed, so they may appear after init starts: waits poll every 100 ms,
 * 30 s at most.
 */
#define POLL_TRIES		300
static const struct timespec poll_tick = { 0, 100 * 1000 * 1000 };

/* The read-only host root has no room to write: these get a tmpfs. */
static const char *const tmpfs_dirs[] = {
	"/tmp", "/run", "/var/tmp", "/root", "/var/log",
};

/* the links of /dev that devtmpfs has not got: { link, target } */
static const char *const dev_links[][2] = {
	{ "/dev/fd", "/proc/self/fd" },
	{ "/dev/stdin", "/proc/self/fd/0" },
	{ "/dev/stdout", "/proc/self/fd/1" },
	{ "/dev/stderr", "/proc/self/fd/2" },
};

static const char *out_dir;	/* DIR, as the host and the command know it */
static const char *res_dir = RESULTS_STASH;	/* where the share is now */

/*
 * Stage times go to the kernel log, next to what the kernel says. The
 * device stays open: it is still there once stage one has moved /dev.
 */
static void stage(const char *fmt, ...)
{
	static int fd = -1;
	char msg[512];
	va_list ap;
	int len;

	len = snprintf(msg, sizeof(msg), "vm-run: ");
	va_start(ap, fmt);
	len += vsnprintf(msg + len, sizeof(msg) - len, fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof(msg) - 1)
		len = sizeof(msg) - 2;
	msg[len++] = '\n';
	if (fd < 0)
		fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	/* a failed write has nowhere else to be told */
	if (fd >= 0)
		len = write(fd, msg, len);
}

static void do_mount(const char *src, const char *dst, const char *type,
		     unsigned long flags, const char *data, int optional)
{
	mkdir(dst, 0755);	/* only /dev is writable: /dev/pts, /dev/shm */
	if (mount(src, dst, type, flags, data) && !optional)
		stage("mounting %s on %s failed: %s", type, dst, strerror(errno));
}

static char *path_in_out(const char *name)
{
	static char p[4096];

	snprintf(p, sizeof(p), "%s/%s", res_dir, name);
	return p;
}

/* mkdir -p: the directories a moved mount needs inside a fresh tmpfs */
static int mkdir_p(const char *path)
{
	char p[4096];
	size_t i;

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* @path is strictly below directory @dir */
static int below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/' && path[n + 1];
}

/* Read DIR/guest/NAME, a list of NUL-terminated strings. */
static int read_strv(const char *name, struct strv *s)
{
	char rel[64];
	size_t cap = 4096, len = 0;
	size_t i, o;
	ssize_t r;
	int fd;

	snprintf(rel, sizeof(rel), "guest/%s", name);
	fd = open(path_in_out(rel), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	s->buf = malloc(cap);
	while (s->buf && (r = read(fd, s->buf + len, cap - len)) > 0) {
		len += r;
		if (len == cap)
			s->buf = realloc(s->buf, cap *= 2);
	}
	close(fd);
	if (!s->buf)
		return -ENOMEM;
	if (len && s->buf[len - 1])	/* vm-run ends each string */
		return -EINVAL;
	s->n = 0;
	for (o = 0; o < len; o += strlen(s->buf + o) + 1)
		s->n++;
	s->v = calloc(s->n + 1, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	for (o = 0, i = 0; o < len; o += strlen(s->buf + o) + 1)
		s->v[i++] = s->buf + o;
	return 0;
}

/* @keep->v[i] is inside another directory of @keep (or a repeat of one) */
static int covered(const struct strv *keep, int i)
{
	int j;

	for (j = 0; j < keep->n; j++)
		if (j != i && (below(keep->v[i], keep->v[j]) ||
			       (j < i && !strcmp(keep->v[i], keep->v[j]))))
			return 1;
	return 0;
}

/*
 * A tmpfs on @dir that leaves the host directories of @keep below it in
 * sight: each is bind-mounted aside, then moved onto the same path inside
 * the new tmpfs. This is what lets a tree cloned under /tmp (mktemp -d)
 * run its tests.
 */
static void mount_tmpfs_keeping(const char *dir, const struct strv *keep)
{
	char stash[64];
	int i;

	for (i = 0; i < keep->n; i++) {
		if (!below(keep->v[i], dir) || covered(keep, i))
			continue;
		snprintf(stash, sizeof(stash), "/dev/.vm-keep%d", i);
		mkdir(stash, 0755);
		if (mount(keep->v[i], stash, NULL, MS_BIND | MS_REC, NULL))
			stage("binding %s aside failed: %s", keep->v[i], strerror(errno));
	}
	do_mount("tmpfs", dir, "tmpfs", 0, NULL, 0);
	for (i = 0; i < keep->n; i++) {
		if (!below(keep->v[i], dir) || covered(keep, i))
			continue;
		snprintf(stash, sizeof(stash), "/dev/.vm-keep%d", i);
		if (mkdir_p(keep->v[i]) ||
		    mount(stash, keep->v[i], NULL, MS_MOVE, NULL))
			stage("keeping %s in sight failed: %s", keep->v[i], strerror(errno));
		rmdir(stash);
	}
}

/*
 * Wait for @pid, reaping whatever else exits meanwhile: PID 1 inherits
 * every orphan. Returns the exit status the shell would report.
 */
static int wait_for(pid_t pid)
{
	int ws;
	pid_t p;

	for (;;) {
		p = waitpid(-1, &ws, 0);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			return 127;
		}
		if (p != pid)
			continue;
		if (WIFEXITED(ws))
			return WEXITSTATUS(ws);
		return 128 + WTERMSIG(ws);
	}
}

static int spawn(char *const argv[], const char *cwd)
{
	pid_t pid = fork();

	if (pid < 0)
		return 127;
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (cwd && chdir(cwd)) {
			fprintf(stderr, "vm-run: cd %s: %s\n", cwd, strerror(errno));
			_exit(126);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "vm-run: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	return wait_for(pid);
}

/* Returns 0, or the errno of the open or write that failed. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0) {
		err = errno;
		stage("writing %s failed: %s", path, strerror(err));
	}
	close(fd);
	return err;
}

/*
 * One kmemleak scan, written by a child: a scan stops, silently, when its
 * writer has a signal pending (scan_should_stop()), and PID 1 is sent
 * SIGCHLD by every orphan it reaps. Returns the write's errno: EPERM when
 * kmemleak is off (vm-run --no-kmemleak boots with kmemleak=off).
 */
static int kmemleak_scan(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(write_file("/sys/kernel/debug/kmemleak", "scan"));
	if (pid < 0)
		return errno;
	return wait_for(pid);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t r;
	int in, o;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return;
	o = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (o >= 0 && (r = read(in, buf, sizeof(buf))) > 0)
		if (write(o, buf, r) != r)
			break;
	close(in);
	if (o >= 0)
		close(o);
}

/*
 * kmemleak reports an unreferenced object on the second scan that finds it
 * (the first records its checksum) and only once it is 5 s old: scan, wait
 * until 5 s have passed since the command ended, so that its last
 * allocations are old enough, and scan again. Called when the command
 * has ended.
 */
static void scan_for_leaks(void)
{
	struct timespec t0;
	long long ns;

	if (access("/sys/kernel/debug/kmemleak", F_OK))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	stage("kmemleak scan");
	if (kmemleak_scan() == EPERM) {
		stage("kmemleak is off: no leak scan");
		return;
	}
	ns = t0.tv_nsec + KMEMLEAK_MIN_AGE_NS;
	t0.tv_sec += ns / 1000000000;
	t0.tv_nsec = ns % 1000000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t0, NULL) == EINTR)
		;
	stage("kmemleak second scan");
	kmemleak_scan();
	copy_file("/sys/kernel/debug/kmemleak", path_in_out("kmemleak"));
}

/* The kernel log as dmesg(1) prints it: the "<level>" prefixes dropped. */
static void save_dmesg(const char *to)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *line, *end;
	FILE *f;
	int len;

	if (size <= 0)
		return;
	buf = malloc(size + 1);
	f = fopen(to, "we");
	if (!buf || !f)
		goto out;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (len < 0)
		goto out;
	buf[len] = '\0';
	for (line = buf; *line; line = end) {
		end = strchrnul(line, '\n');
		if (*end)
			end++;
		if (line[0] == '<') {
			char *gt = strchr(line, '>');

			if (gt && gt < end)
				line = gt + 1;
		}
		fwrite(line, 1, end - line, f);
	}
out:
	if (f)
		fclose(f);
	free(buf);
}

/* The control port's device (/dev/vportNpM) in @dev, found by its name. */
static int find_ctl_port(char *dev, size_t len)
{
	char path[300], name[64];
	struct dirent *e;
	int found = 0, fd;
	ssize_t r;
	DIR *d;

	d = opendir("/sys/class/virtio-ports");
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = read(fd, name, sizeof(name) - 1);
		close(fd);
		if (r <= 0)
			continue;
		name[r] = '\0';
		name[strcspn(name, "\n")] = '\0';
		if (!strcmp(name, CTL_PORT_NAME)) {
			snprintf(dev, len, "/dev/%s", e->d_name);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Stage one: say "ready" on the control port and wait for a line, the
 * results directory; answer "ok". Returns the line, or NULL.
 */
static const char *wait_for_run(void)
{
	static char line[4096];
	char dev[300];
	size_t len = 0;
	ssize_t r;
	int fd = -1, i;

	mkdir("/dev", 0755);
	mkdir("/sys", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) ||
	    mount("sysfs", "/sys", "sysfs", 0, NULL))
		return NULL;
	for (i = 0; i < POLL_TRIES && fd < 0; i++) {
		if (find_ctl_port(dev, sizeof(dev)))
			fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			nanosleep(&poll_tick, NULL);
	}
	umount("/sys");
	if (fd < 0) {
		stage("no control port named %s", CTL_PORT_NAME);
		return NULL;
	}
	if (write(fd, "ready\n", 6) != 6)
		stage("writing to the control port failed: %s", strerror(errno));
	/* a saved guest is saved here: what follows runs once per run */
	while (len < sizeof(line) - 1 && !memchr(line, '\n', len)) {
		r = read(fd, line + len, sizeof(line) - 1 - len);
		if (r > 0)
			len += r;
		else if (r == 0 || errno == EINTR)
			nanosleep(&poll_tick, NULL);	/* the host is not connected yet */
		else
			break;
		line[len] = '\0';
	}
	if (!memchr(line, '\n', len)) {
		stage("no results directory from the control port");
		close(fd);
		return NULL;
	}
	line[strcspn(line, "\n")] = '\0';
	if (write(fd, "ok\n", 3) != 3)
		stage("writing to the control port failed: %s", strerror(errno));
	close(fd);
	return line;
}

/* Stage one's end: the host's root, read-only, becomes the root. */
static int enter_hostroot(void)
{
	mkdir(NEWROOT, 0755);
	if (mount("hostroot", NEWROOT, "9p", MS_RDONLY, HOSTROOT_OPTS) ||
	    mount("/dev", NEWROOT "/dev", NULL, MS_MOVE, NULL) ||
	    chdir(NEWROOT) || mount(".", "/", NULL, MS_MOVE, NULL) ||
	    chroot(".") || chdir("/")) {
		stage("mounting the host's root failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A guest started from a saved state has the clock it was saved with,
 * and the random state every other start from it has. The RTC (QEMU's,
 * on the host's clock) gives the time, to the second, and a reseed of the
 * kernel's generator from the CPU's (RDRAND) makes its output this run's.
 * A booted guest is within a second of the RTC already: left alone.
 */
static void renew_clock_and_random(void)
{
	struct timespec now;
	struct rtc_time rt;
	struct tm tm = { 0 };
	time_t rtc;
	int fd;

	fd = open("/dev/rtc0", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !ioctl(fd, RTC_RD_TIME, &rt)) {
		tm.tm_sec = rt.tm_sec;
		tm.tm_min = rt.tm_min;
		tm.tm_hour = rt.tm_hour;
		tm.tm_mday = rt.tm_mday;
		tm.tm_mon = rt.tm_mon;
		tm.tm_year = rt.tm_year;
		rtc = timegm(&tm);
		clock_gettime(CLOCK_REALTIME, &now);
		if (rtc > now.tv_sec + 1 || rtc < now.tv_sec - 1) {
			stage("clock set from the RTC: %lld s later",
			      (long long)(rtc - now.tv_sec));
			now.tv_sec = rtc;
			now.tv_nsec = 0;
			clock_settime(CLOCK_REALTIME, &now);
		}
	}
	if (fd >= 0)
		close(fd);
	fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, RNDRESEEDCRNG))
		stage("reseeding the random generator failed: %s", strerror(errno));
	else
		stage("random generator reseeded");
	if (fd >= 0)
		close(fd);
}

/*
 * CMD's output goes to the host's stdout through the virtio console. Its
 * port is added by a control message after the driver probed, so hvc0 may
 * appear after init starts: wait for it rather than lose the output.
 */
static void setup_stdio(void)
{
	struct termios t;
	int fd = -1, i;

	for (i = 0; i < POLL_TRIES; i++) {
		fd = open("/dev/hvc0", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			break;
		nanosleep(&poll_tick, NULL);
	}
	if (i > 0)
		stage("waited %d x 100 ms for /dev/hvc0", i);
	if (fd < 0) {
		stage("no /dev/hvc0: the command's output goes to the console log");
		fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
	} else if (!tcgetattr(fd, &t)) {
		/* a tty: no "\r" added before each "\n", the output is CMD's own */
		t.c_oflag &= ~ONLCR;
		tcsetattr(fd, TCSANOW, &t);
	}
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
}

int main(void)
{
	struct strv cwd = { 0 }, path = { 0 }, keep = { 0 }, load = { 0 };
	struct strv cmd = { 0 }, modroot = { 0 };
	char status_s[16], *modprobe_opts;
	int status = 0, i;
	size_t n;

	out_dir = wait_for_run();
	if (!out_dir || enter_hostroot())
		goto off;
	renew_clock_and_random();

	stage("mounting proc, sysfs, results, tmpfs, debugfs, tracefs");
	do_mount("proc", "/proc", "proc", 0, NULL, 0);
	do_mount("sysfs", "/sys", "sysfs", 0, NULL, 0);
	do_mount("devpts", "/dev/pts", "devpts", 0, NULL, 0);
	do_mount("tmpfs", "/dev/shm", "tmpfs", 0, NULL, 0);
	do_mount("results", RESULTS_STASH, "9p", 0,
		 "trans=virtio,version=9p2000.L,msize=1048576", 0);
	if (read_strv("cwd", &cwd) || cwd.n != 1 || read_strv("path", &path) ||
	    path.n != 1 || read_strv("keep", &keep) ||
	    read_strv("load", &load) || read_strv("cmd", &cmd) || cmd.n < 1 ||
	    read_strv("modroot", &modroot) || modroot.n != 1) {
		stage("%s/guest/ is missing or malformed", out_dir);
		status = STATUS_LOAD_FAILED;
		goto save;
	}
	for (i = 0; i < (int)ARRAY_SIZE(tmpfs_dirs); i++)
		mount_tmpfs_keeping(tmpfs_dirs[i], &keep);
	do_mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL, 0);
	do_mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL, 1);
	/*
	 * Not bpffs: nothing here pins, and its first mount asks for the
	 * bpf_preload module, two execs of modprobe (4 s on the test kernel).
	 */
	/*
	 * What udev would provide: bash's <(...) needs /dev/fd, and the
	 * kselftest runner writes its output to /dev/stdout.
	 */
	for (i = 0; i < (int)ARRAY_SIZE(dev_links); i++)
		if (symlink(dev_links[i][1], dev_links[i][0]) && errno != EEXIST)
			stage("%s: %s", dev_links[i][0], strerror(errno));
	/* the results at DIR, where the command looks for them */
	if (mkdir_p(out_dir) || mount(RESULTS_STASH, out_dir, NULL, MS_MOVE, NULL)) {
		stage("moving the results to %s failed: %s", out_dir, strerror(errno));
		status = STATUS_LOAD_FAILED;
		goto save;
	}
	res_dir = out_dir;
	sethostname("guest", 5);

	/*
	 * The read-only root has no /lib/modules for this kernel, and no
	 * place to mount one: modprobe takes the build's modroot from
	 * MODPROBE_OPTIONS, without a wrapper script's exec (a second or
	 * more each). The kernel's own module requests get an environment
	 * of their own: vm-run wrote a wrapper for those.
	 */
	write_file("/proc/sys/kernel/modprobe", path_in_out("guest/modprobe"));
	n = strlen(modroot.v[0]) + 4;
	modprobe_opts = malloc(n);
	if (!modprobe_opts)
		goto off;
	snprintf(modprobe_opts, n, "-d %s", modroot.v[0]);
	setenv("MODPROBE_OPTIONS", modprobe_opts, 1);
	setenv("VM_OUT", out_dir, 1);
	setenv("PATH", path.v[0], 1);
	setenv("HOME", "/root", 1);
	setenv("TERM", "dumb", 1);

	setup_stdio();

	for (i = 0; i < load.n && !status; i++) {
		const char *m = load.v[i];
		size_t len = strlen(m);
		int ko = len > 3 && !strcmp(m + len - 3, ".ko");
		char *argv[] = { ko ? "insmod" : "modprobe", load.v[i], NULL };

		if (spawn(argv, cwd.v[0])) {
			printf("vm-run: loading %s failed\n", m);
			fflush(stdout);
			status = STATUS_LOAD_FAILED;
		}
	}
	if (!status) {
		stage("running the command");
		status = spawn(cmd.v, cwd.v[0]);
		stage("command exited %d", status);
	}

save:
	scan_for_leaks();
	stage("powering off");
	save_dmesg(path_in_out("dmesg"));
	snprintf(status_s, sizeof(status_s), "%d\n", status);
	write_file(path_in_out("status"), status_s);
	sync();
	umount(res_dir);
off:
	sync();
	reboot(RB_POWER_OFF);
	/* PID 1 must not exit: that would panic before the power went off */
	for (;;)
		pause();
}
