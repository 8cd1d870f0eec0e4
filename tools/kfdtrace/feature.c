// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace feature: what this machine lets kfdtrace trace, and why, as
 * `bpftool feature probe` says what the kernel's BPF offers. One line a
 * feature: its name, live or not live, and the reason; -j writes the same
 * as JSON (jansson, as the recordings). It exits 0 whatever it finds.
 *
 * The probe groups are not probed a second way: each program's answer is
 * record's own plan (probe.c's kt_prog_planned(), the choice record makes
 * before its load: the group wanted, fentry where the kernel attaches one,
 * else a kprobe where ftrace lists the function, the tracepoint in tracefs),
 * so a group said live here is one record loads, and "probes" in the JSON
 * has the shape of a recording's. The rest is what the probes and the
 * tools need around them: the privileges to load BPF, the kernel's BTF,
 * tracefs, fentry and kprobes, the devices, whether KFD takes a GEM
 * userptr over (amdkfd's only way to register many ranges as one: a GEM
 * userptr with ranges on amdgpu's render node, then IMPORT_DMABUF), the
 * emulated device's batch ioctl (its sysfs attribute and cap), cgroup v2
 * for -c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/kfd_ioctl.h>

#include <bpf/btf.h>

#include "main.h"
#include "probe.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

/* the features, in the order they are printed */
enum {
	F_PRIV, F_BTF, F_TRACEFS, F_FENTRY, F_KPROBE,
	F_GROUP,	/* F_GROUP + enum kt_group: the probe groups */
	F_KFD_DEV = F_GROUP + KT_G_NR, F_KFD_TAKEOVER, F_EMU_DEV, F_EMU_BATCH, F_DRM_NODES,
	F_CGROUP,
	F_NR,
};

#define KT_REASON_LEN	512
#define KT_WHY_LEN	160
#define KT_PROGS_MAX	64

struct feature {
	const char *name;
	bool live;
	char reason[KT_REASON_LEN];
};

static struct feature feats[F_NR] = {
	[F_PRIV] = { "privileges" },
	[F_BTF] = { "btf" },
	[F_TRACEFS] = { "tracefs" },
	[F_FENTRY] = { "fentry" },
	[F_KPROBE] = { "kprobe" },
	[F_KFD_DEV] = { "kfd_dev" },
	[F_KFD_TAKEOVER] = { "kfd_takeover" },
	[F_EMU_DEV] = { "emu_dev" },
	[F_EMU_BATCH] = { "emu_batch" },
	[F_DRM_NODES] = { "drm_nodes" },
	[F_CGROUP] = { "cgroup" },
};

/* the programs record would load (the JSON's features.GROUP.programs) */
static bool planned[KT_PROGS_MAX];

#define EMU_BATCH_ATTR	"/sys/class/misc/userptr_emu/userptr_batch_max_ranges"
#define HELPER_CAP	"/sys/module/drm_userptr_batch/parameters/max_ranges"
/* the KFD ioctl version from which IMPORT_DMABUF takes a GEM userptr: 1.24 */
#define KFD_TAKEOVER_MAJOR	1
#define KFD_TAKEOVER_MINOR	24
#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"

/* adds to @f's reason */
static void say(struct feature *f, const char *fmt, ...)
{
	size_t n = strlen(f->reason);
	va_list ap;

	if (n >= sizeof(f->reason) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(f->reason + n, sizeof(f->reason) - n, fmt, ap);
	va_end(ap);
}

/* the module a group's targets come with: its absence is the reason */
static const char *const group_module[KT_G_NR] = {
	[KT_G_HELPER] = "drm_userptr_batch",
	[KT_G_EMU] = "userptr_emu",
	[KT_G_AMDGPU] = "amdgpu",
};

static bool module_loaded(const char *mod)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", mod);
	return !access(path, F_OK);
}

static unsigned long long effective_caps(void)
{
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	if (f)
		fclose(f);
	return caps;
}

/*
 * Tracing programs need bpf_capable() and perfmon_capable(): CAP_BPF and
 * CAP_PERFMON, each implied by CAP_SYS_ADMIN.
 */
static void probe_privileges(struct feature *f)
{
	unsigned long long caps = effective_caps();
	bool admin = caps >> CAP_SYS_ADMIN & 1;
	bool bpf = caps >> CAP_BPF & 1, perfmon = caps >> CAP_PERFMON & 1;

	f->live = (bpf || admin) && (perfmon || admin);
	say(f, "uid %u", (unsigned int)geteuid());
	if (bpf && perfmon)
		say(f, ": CAP_BPF and CAP_PERFMON");
	else if (f->live)
		say(f, ": CAP_SYS_ADMIN");
	else
		say(f, " without CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): %s",
		    "record cannot load its probes");
}

static void probe_btf(struct feature *f)
{
	struct btf *btf = kt_vmlinux_btf();

	f->live = btf;
	if (btf)
		say(f, VMLINUX_BTF ": %u types", btf__type_cnt(btf) - 1);
	else if (access(VMLINUX_BTF, F_OK))
		say(f, "no " VMLINUX_BTF " (CONFIG_DEBUG_INFO_BTF): the CO-RE probes cannot load");
	else
		say(f, VMLINUX_BTF " cannot be read or parsed (-v shows libbpf's error)");
}

static void probe_tracefs(struct feature *f)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
	};
	struct stat st;
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (!stat(paths[i], &st)) {
			f->live = true;
			say(f, "%s", paths[i]);
			return;
		}
		if (!err || errno != ENOENT)
			err = errno;
	}
	say(f, "%s: %s: no tracepoint of the helper or the device can be found", paths[0],
	    strerror(err));
}

/* the function of an "fn:NAME" target, NULL for another kind */
static const char *target_fn(const struct kt_prog_info *p)
{
	return p->target && !strncmp(p->target, "fn:", 3) ? p->target + 3 : NULL;
}

/* fentry on each function the probes take, in the table's order */
static void probe_fentry(struct feature *f, bool priv)
{
	const char *yes[16], *no[16], *absent[16];
	unsigned int ny = 0, nn = 0, na = 0, i, j;
	const struct kt_prog_info *p;
	const char *fn;

	if (!priv) {
		say(f, "not asked: a test program's load needs the privileges above");
		return;
	}
	if (!kt_vmlinux_btf()) {
		say(f, "no vmlinux BTF");
		return;
	}
	for (i = 0; (p = kt_prog(i)); i++) {
		const char **list;
		unsigned int *n;

		fn = target_fn(p);
		if (!fn)
			continue;
		for (j = 0; j < ny && strcmp(yes[j], fn); j++)
			;
		if (j < ny)
			continue;
		for (j = 0; j < nn && strcmp(no[j], fn); j++)
			;
		if (j < nn)
			continue;
		for (j = 0; j < na && strcmp(absent[j], fn); j++)
			;
		if (j < na)
			continue;
		if (btf__find_by_name_kind(kt_vmlinux_btf(), fn, BTF_KIND_FUNC) <= 0) {
			list = absent;
			n = &na;
		} else if (kt_fentry_can_attach(fn)) {
			list = yes;
			n = &ny;
		} else {
			list = no;
			n = &nn;
		}
		if (*n < ARRAY_SIZE(yes))
			list[(*n)++] = fn;
	}
	f->live = ny > 0;
	if (ny) {
		say(f, "attaches to");
		for (j = 0; j < ny; j++)
			say(f, "%s %s", j ? "," : "", yes[j]);
	}
	if (nn) {
		say(f, "%srefused on", ny ? "; " : "");
		for (j = 0; j < nn; j++)
			say(f, "%s %s", j ? "," : "", no[j]);
		say(f, kt_kprobes_supported() ? " (a kprobe instead)" :
		    " (and no kprobe instead: the kernel makes none)");
	}
	if (na) {
		say(f, "%snot in vmlinux BTF:", ny || nn ? "; " : "");
		for (j = 0; j < na; j++)
			say(f, "%s %s", j ? "," : "", absent[j]);
	}
}

static void probe_kprobe(struct feature *f)
{
	f->live = kt_kprobes_supported();
	if (f->live)
		say(f, "the kernel makes kprobes (perf's kprobe PMU or kprobe_events)");
	else
		say(f, "the kernel makes no kprobes (CONFIG_KPROBES): %s",
		    "no fallback where fentry is refused, no amdgpu probes");
}

/* the tracepoint system of a "tp:SYS/EVENT" target, @len its length; NULL for another kind */
static const char *target_tp_sys(const struct kt_prog_info *p, size_t *len)
{
	const char *s;

	if (!p->target || strncmp(p->target, "tp:", 3))
		return NULL;
	s = p->target + 3;
	*len = strcspn(s, "/");
	return s;
}

/* whether program @i is the other flavour of one on the same function that loads */
static bool sibling_planned(unsigned int i, const bool *on)
{
	const struct kt_prog_info *p = kt_prog(i), *q;
	unsigned int j;

	if (!p->flavour || !p->target)
		return false;
	for (j = 0; (q = kt_prog(j)); j++)
		if (on[j] && q->flavour && q->flavour != p->flavour && q->target &&
		    !strcmp(q->target, p->target))
			return true;
	return false;
}

/* the programs of group @g on tracepoints of @sys (@len bytes): how many, how many on */
static unsigned int tp_count(enum kt_group g, const char *sys, size_t len, const bool *on,
			     unsigned int *n_on)
{
	const struct kt_prog_info *q;
	unsigned int j, n = 0;
	const char *qs;
	size_t qlen;

	*n_on = 0;
	for (j = 0; (q = kt_prog(j)); j++) {
		qs = target_tp_sys(q, &qlen);
		if (q->group != g || !qs || qlen != len || strncmp(qs, sys, len))
			continue;
		n++;
		*n_on += on[j];
	}
	return n;
}

/* where record counts the ioctls (kt_ioctl_plan()), for the ioctl group */
static __u8 ioctl_at[KT_IT_NR];

static void say_ioctl_at(struct feature *f)
{
	static const char *const fns[] = { "kfd_ioctl [amdgpu]", "uemu_ioctl [userptr_emu]",
					   "drm_ioctl" };
	int i;

	for (i = KT_IT_KFD; i <= KT_IT_DRM; i++) {
		const char *name = kt_ioctl_target_names[i];

		switch (ioctl_at[i]) {
		case KT_AT_FENTRY:
		case KT_AT_KPROBE:
			say(f, "%s: %s on %s, ", name, ioctl_at[i] == KT_AT_FENTRY ?
			    "fentry/fexit" : "kprobe/kretprobe", fns[i]);
			break;
		case KT_AT_SYSCALL:
			say(f, "%s: syscalls tracepoints, ", name);
			break;
		default:
			say(f, "%s absent, ", name);
		}
	}
	if (ioctl_at[KT_IT_OTHER] == KT_AT_SYSCALL)
		say(f, "other files: syscalls:sys_enter_ioctl, sys_exit_ioctl");
	else
		say(f, "other files not seen (no syscalls tracepoints: -S for them)");
	say(f, "; tp_btf sched_process_fork, sched_process_exit");
}

/*
 * The programs of group @g that load, in words: "fentry on F", "kprobe
 * on F, G", "7 tracepoints SYS" (or "6 of 7": of those the probes take),
 * "kprobe on amdgpu's F"; the ioctl group, always loaded, by its attach
 * points.
 */
static void say_loaded(struct feature *f, enum kt_group g, const bool *on)
{
	static const char *const kinds[] = { "fentry on", "kprobe on", "kprobe on amdgpu's" };
	const struct kt_prog_info *p, *q;
	unsigned int i, j, k, n, of;
	const char *sep = "", *sys, *qs;
	size_t len, qlen;

	if (g == KT_G_IOCTL) {
		say_ioctl_at(f);
		return;
	}
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		const char *ksep = "";

		for (i = 0; (p = kt_prog(i)); i++) {
			bool amdgpu = p->target && !strncmp(p->target, "amdgpu:", 7);
			const char *fn = amdgpu ? p->target + 7 : target_fn(p);

			if (!on[i] || p->group != g || !fn ||
			    k != (amdgpu ? 2 : p->flavour == 1 ? 0 : 1))
				continue;
			/* one fentry/fexit or kprobe/kretprobe pair: one function */
			for (j = 0; j < i; j++) {
				q = kt_prog(j);
				if (on[j] && q->group == g && q->flavour == p->flavour &&
				    !strcmp(q->target, p->target))
					break;
			}
			if (j < i)
				continue;
			say(f, "%s%s %s", *ksep ? ksep : sep, *ksep ? "" : kinds[k], fn);
			ksep = ",";
		}
		if (*ksep)
			sep = "; ";
	}
	/* tracepoints, by system */
	for (i = 0; (p = kt_prog(i)); i++) {
		sys = target_tp_sys(p, &len);
		if (!sys || p->group != g)
			continue;
		for (j = 0; j < i; j++) {
			q = kt_prog(j);
			qs = target_tp_sys(q, &qlen);
			if (q->group == g && qs && qlen == len && !strncmp(qs, sys, len))
				break;
		}
		if (j < i)
			continue;
		of = tp_count(g, sys, len, on, &n);
		if (!n)
			continue;
		if (n == of)
			say(f, "%s%u tracepoints %.*s/*", sep, n, (int)len, sys);
		else
			say(f, "%s%u of %u tracepoints %.*s/*", sep, n, of, (int)len, sys);
		sep = "; ";
	}
}

/* whether an earlier program of @p's group that is off has the same tracepoint system */
static bool tp_said(unsigned int i, const bool *on)
{
	const struct kt_prog_info *p = kt_prog(i), *q;
	const char *sys = NULL, *qs;
	size_t len = 0, qlen;
	unsigned int j;

	sys = target_tp_sys(p, &len);
	for (j = 0; j < i; j++) {
		q = kt_prog(j);
		qs = target_tp_sys(q, &qlen);
		if (!on[j] && q->group == p->group && qs && qlen == len && !strncmp(qs, sys, len))
			return true;
	}
	return false;
}

/* whether a kprobe flavour of @p's function is in the table: its reason is the one said */
static bool has_kprobe_flavour(const struct kt_prog_info *p)
{
	const struct kt_prog_info *q;
	unsigned int j;

	for (j = 0; (q = kt_prog(j)); j++)
		if (q->flavour == 2 && q->target && p->target && !strcmp(q->target, p->target))
			return true;
	return false;
}

/*
 * Why the programs of group @g that do not load stay off (@whys, from
 * record's plan): each reason once, a tracepoint system missing whole as
 * one, and nothing for the other flavour of a function that loads.
 */
static void say_missing(struct feature *f, enum kt_group g, const bool *on,
			char whys[][KT_WHY_LEN], const char *lead)
{
	bool said[KT_PROGS_MAX] = {};
	const struct kt_prog_info *p;
	const char *sys, *sep = lead;
	unsigned int i, j, n, n_on;
	size_t len;

	for (i = 0; i < KT_PROGS_MAX && (p = kt_prog(i)); i++) {
		if (on[i] || p->group != g || sibling_planned(i, on))
			continue;
		/* fentry refused and no kprobe either: the kprobe's reason says both */
		if (p->flavour == 1 && has_kprobe_flavour(p))
			continue;
		sys = target_tp_sys(p, &len);
		if (sys) {
			n = tp_count(g, sys, len, on, &n_on);
			if (!n_on && n > 1) {
				if (!tp_said(i, on))
					say(f, "%sno tracepoints %.*s/*", sep, (int)len, sys);
				sep = ", ";
				continue;
			}
		}
		for (j = 0; j < i; j++)
			if (said[j] && !strcmp(whys[j], whys[i]))
				break;
		if (j < i)
			continue;
		say(f, "%s%s", sep, whys[i]);
		said[i] = true;
		sep = ", ";
	}
}

/*
 * Group @g as record would load it here (with -a as @o says): live when
 * one of its programs loads. @cannot, when set, is why nothing loads at
 * all (no privileges, no BTF).
 */
static void probe_group(struct feature *f, enum kt_group g, const struct kt_record_opts *o,
			const char *cannot)
{
	static char whys[KT_PROGS_MAX][KT_WHY_LEN], whys_a[KT_PROGS_MAX][KT_WHY_LEN];
	struct kt_record_opts all = *o;
	bool on_a[KT_PROGS_MAX] = {};
	const struct kt_prog_info *p;
	bool any = false, any_a = false;
	const char *mod = group_module[g];
	unsigned int i;

	f->name = kt_group_names[g];
	if (cannot) {
		say(f, "%s", cannot);
		return;
	}
	all.all_probes = true;
	if (g == KT_G_IOCTL)
		kt_ioctl_plan(o, 0, ioctl_at);
	for (i = 0; i < KT_PROGS_MAX && (p = kt_prog(i)); i++) {
		if (p->group != g)
			continue;
		planned[i] = kt_prog_planned(o, p, 0, whys[i], sizeof(whys[i]));
		any |= planned[i];
		if (!planned[i] && !o->all_probes) {
			on_a[i] = kt_prog_planned(&all, p, 0, whys_a[i], sizeof(whys_a[i]));
			any_a |= on_a[i];
		}
	}
	f->live = any;
	if (any) {
		say_loaded(f, g, planned);
		/* (the ioctl group's words say where each device is counted) */
		if (g != KT_G_IOCTL)
			say_missing(f, g, planned, whys, "; not: ");
		return;
	}
	if (any_a) {
		/* hmm and notifier where the helper's tracepoints are */
		say(f, "off without -a: the helper's tracepoints count its work; record -a: ");
		say_loaded(f, g, on_a);
		return;
	}
	if (mod && !module_loaded(mod))
		say(f, "%s not loaded: ", mod);
	say_missing(f, g, planned, whys, "");
}

static void probe_dev(struct feature *f, const char *dev, const char *absent)
{
	struct stat st;
	int fd;

	if (stat(dev, &st)) {
		if (errno == ENOENT)
			say(f, "no %s (%s)", dev, absent);
		else
			say(f, "%s: %s", dev, strerror(errno));
		return;
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		say(f, "%s (%u:%u) does not open read-write: %s", dev, major(st.st_rdev),
		    minor(st.st_rdev), strerror(errno));
		return;
	}
	close(fd);
	f->live = true;
	say(f, "%s (%u:%u) opens read-write", dev, major(st.st_rdev), minor(st.st_rdev));
}

/* the DRM nodes whose GEM userptr commands record counts */
static void probe_drm(struct feature *f)
{
	struct kt_drm_node nodes[KT_MAX_DRM_NODES];
	char desc[128];

	f->live = kt_drm_nodes(nodes, KT_MAX_DRM_NODES, desc, sizeof(desc)) > 0;
	if (f->live)
		say(f, "%s: their GEM userptr commands counted", desc);
	else
		say(f, "no DRM node of amdgpu or userptr_emu (no GPU, or its render node does not open)");
}

/* reads an unsigned number from sysfs file @path into @v; 0, or -1 (errno set) */
static int read_uint(const char *path, unsigned int *v)
{
	FILE *fp = fopen(path, "r");
	int n;

	if (!fp)
		return -1;
	n = fscanf(fp, "%u", v);
	fclose(fp);
	if (n != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * amdkfd's batch: a GEM userptr with AMDGPU_GEM_USERPTR_RANGES on amdgpu's
 * render node, taken over by AMDKFD_IOC_IMPORT_DMABUF with dmabuf_fd
 * KFD_INVALID_FD, which KFD takes from 1.24 on (AMDKFD_IOC_GET_VERSION on
 * /dev/kfd, opened as kfd_dev opens it); the reason adds the most ranges
 * one GEM userptr takes, the batch helper's cap
 */
static void probe_kfd_takeover(struct feature *f)
{
	struct kfd_ioctl_get_version_args v = {};
	unsigned int cap;
	struct stat st;
	int fd, err;

	if (stat("/dev/kfd", &st)) {
		if (errno == ENOENT)
			say(f, "no /dev/kfd (amdgpu with amdkfd not loaded)");
		else
			say(f, "/dev/kfd: %s", strerror(errno));
		return;
	}
	fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		say(f, "/dev/kfd does not open read-write (%s): its version cannot be asked",
		    strerror(errno));
		return;
	}
	err = ioctl(fd, AMDKFD_IOC_GET_VERSION, &v) ? errno : 0;
	close(fd);
	if (err) {
		say(f, "AMDKFD_IOC_GET_VERSION on /dev/kfd: %s", strerror(err));
		return;
	}
	f->live = v.major_version == KFD_TAKEOVER_MAJOR &&
		  v.minor_version >= KFD_TAKEOVER_MINOR;
	if (!f->live) {
		say(f,
		    "KFD %u.%u: IMPORT_DMABUF takes no GEM userptr before 1.24 (the series, kernel/patches, is not in this kernel): one ioctl a range",
		    v.major_version, v.minor_version);
		return;
	}
	say(f, "KFD %u.%u: IMPORT_DMABUF takes over a GEM userptr of the render node (gem_import)",
	    v.major_version, v.minor_version);
	if (!read_uint(HELPER_CAP, &cap))
		say(f, "; GEM_USERPTR with AMDGPU_GEM_USERPTR_RANGES: %u ranges at most (%s)",
		    cap, HELPER_CAP);
	else if (errno == ENOENT)
		say(f, "; no %s (drm_userptr_batch not loaded): GEM_USERPTR of one range",
		    HELPER_CAP);
	else
		say(f, "; %s: %s", HELPER_CAP, strerror(errno));
}

/* the batch ioctl exists when its device's sysfs attribute does, which holds the cap */
static void probe_batch(struct feature *f, const char *attr, const char *dev_dir,
			const char *absent, const char *none)
{
	FILE *fp = fopen(attr, "r");
	unsigned int cap;
	int n;

	if (fp) {
		n = fscanf(fp, "%u", &cap);
		fclose(fp);
		f->live = n == 1;
		if (f->live)
			say(f, "%u ranges a call at most (%s)", cap, attr);
		else
			say(f, "%s does not hold a number", attr);
	} else if (errno != ENOENT) {
		say(f, "%s: %s", attr, strerror(errno));
	} else if (access(dev_dir, F_OK)) {
		say(f, "no %s (%s)", dev_dir, absent);
	} else {
		say(f, "no %s: %s", attr, none);
	}
}

/* -c CGROUP takes a directory of cgroup v2, mounted anywhere */
static void probe_cgroup(struct feature *f)
{
	char line[512], dir[256], type[64];
	FILE *fp = fopen("/sys/fs/cgroup/cgroup.controllers", "r");

	if (fp) {
		f->live = true;
		if (!fgets(line, sizeof(line), fp))
			line[0] = 0;
		fclose(fp);
		line[strcspn(line, "\n")] = 0;
		say(f, "cgroup v2 at /sys/fs/cgroup (controllers: %s)", *line ? line : "none");
		return;
	}
	fp = fopen("/proc/mounts", "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%*s %255s %63s", dir, type) == 2 && !strcmp(type, "cgroup2")) {
			f->live = true;
			say(f, "cgroup v2 at %s (not at /sys/fs/cgroup)", dir);
			break;
		}
	}
	if (fp)
		fclose(fp);
	if (!f->live)
		say(f, "no cgroup v2 mounted (no %s): -c CGROUP needs one",
		    "/sys/fs/cgroup/cgroup.controllers");
}

/* group @g's programs that record would load, as a JSON array */
static json_t *json_programs(enum kt_group g)
{
	const struct kt_prog_info *p;
	json_t *a = json_array();
	unsigned int i;
	int err = !a;

	for (i = 0; a && i < KT_PROGS_MAX && (p = kt_prog(i)); i++)
		if (p->group == g && planned[i] && feats[F_GROUP + g].live)
			err |= json_array_append_new(a, json_string(p->name));
	if (err) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* features.ioctl.counted_at: as a recording's ioctl.counted_at */
static json_t *json_counted_at(void)
{
	json_t *o = json_object();
	int i, err = !o;

	for (i = 0; o && i < KT_IT_NR; i++)
		err |= json_object_set_new(o, kt_ioctl_target_names[i],
					   json_string(kt_ioctl_at_names[ioctl_at[i]]));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* the features as JSON on stdout; 0 or KT_EXIT_ERROR */
static int print_json(bool all_probes)
{
	json_t *root = json_object(), *fs = json_object(), *pr = json_object(), *o;
	int err = !root || !fs || !pr;
	unsigned int i;
	int g;

	for (i = 0; !err && i < F_NR; i++) {
		o = json_object();
		err |= json_object_set_new(fs, feats[i].name, o);
		if (err)
			break;
		err |= json_object_set_new(o, "live", json_boolean(feats[i].live));
		err |= json_object_set_new(o, "reason", json_string(feats[i].reason));
		if (i >= F_GROUP && i < F_GROUP + KT_G_NR)
			err |= json_object_set_new(o, "programs", json_programs(i - F_GROUP));
		if (i == F_GROUP + KT_G_IOCTL && feats[i].live)
			err |= json_object_set_new(o, "counted_at", json_counted_at());
	}
	/* as a recording's "probes" */
	for (g = 0; !err && g < KT_G_NR; g++)
		err |= json_object_set_new(pr, kt_group_names[g],
					   json_integer(feats[F_GROUP + g].live));
	if (!err) {
		err |= json_object_set_new(root, "kfdtrace_feature", json_integer(1));
		err |= json_object_set_new(root, "all_probes", json_boolean(all_probes));
		err |= json_object_set_new(root, "features", fs);
		err |= json_object_set_new(root, "probes", pr);
		fs = NULL;
		pr = NULL;
		err |= json_dumpf(root, stdout, JSON_INDENT(2)) || putchar('\n') == EOF;
	}
	json_decref(fs);
	json_decref(pr);
	json_decref(root);
	if (err)
		fprintf(stderr, "kfdtrace feature: cannot write the JSON\n");
	return err ? KT_EXIT_ERROR : 0;
}

static const char feature_doc[] =
"What this machine lets kfdtrace trace: each probe group of record (as record\n"
"would load it: fentry or a kprobe, or off, and why) and what the probes and\n"
"the tools need around them (privileges, kernel BTF, tracefs, fentry, kprobes,\n"
"/dev/kfd and whether its IMPORT_DMABUF takes a GEM userptr over (KFD 1.24:\n"
"amdkfd's batch, from amdgpu's render node), the emulated device and its\n"
"batch ioctl's cap, the DRM nodes, cgroup v2). One line a feature: name, live\n"
"or not live, reason.\n"
"Exits 0 whatever it finds.\n"
"\n"
"Examples:\n"
"  kfdtrace feature\n"
"  kfdtrace feature -a -j | jq .probes\n";

static const struct argp_option feature_opts[] = {
	{ "json", 'j', NULL, 0, "Write the features as JSON" },
	{ "all-probes", 'a', NULL, 0,
	  "As record -a: HMM and the notifiers even where the helper's tracepoints are" },
	{ "syscalls", 'S', NULL, 0,
	  "As record -S: every ioctl at the syscalls tracepoints" },
	{},
};

static const struct argp_child feature_children[] = {
	{ &kt_common_argp },
	{},
};

struct feature_args {
	bool json;
	bool all_probes;
	bool syscalls;
};

static error_t feature_parse(int key, char *arg, struct argp_state *state)
{
	struct feature_args *a = state->input;

	switch (key) {
	case 'j':
		a->json = true;
		break;
	case 'a':
		a->all_probes = true;
		break;
	case 'S':
		a->syscalls = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "feature takes no argument (\"%s\")", arg);
		break;
	case ARGP_KEY_END:
		if (kt_cmd)
			argp_error(state, "feature takes no command");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int do_feature(int argc, char **argv)
{
	static const struct argp argp = {
		feature_opts, feature_parse, NULL, feature_doc, feature_children,
	};
	struct feature_args a = {};
	struct kt_record_opts o = { .out_fd = -1 };
	const char *cannot = NULL;
	unsigned int i;
	int g;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return KT_EXIT_ERROR;
	o.all_probes = a.all_probes;
	o.syscalls = a.syscalls;
	probe_privileges(&feats[F_PRIV]);
	/* as record starts: libbpf quiet without -v, tracefs mounted if need be */
	kt_probe_setup();
	probe_btf(&feats[F_BTF]);
	probe_tracefs(&feats[F_TRACEFS]);
	probe_fentry(&feats[F_FENTRY], feats[F_PRIV].live);
	probe_kprobe(&feats[F_KPROBE]);
	if (!feats[F_PRIV].live)
		cannot = "record cannot load BPF programs without root (or CAP_BPF, CAP_PERFMON)";
	else if (!feats[F_BTF].live)
		cannot = "no vmlinux BTF: the CO-RE probes cannot load";
	for (g = 0; g < KT_G_NR; g++)
		probe_group(&feats[F_GROUP + g], g, &o, cannot);
	probe_dev(&feats[F_KFD_DEV], "/dev/kfd", "amdgpu with amdkfd not loaded");
	probe_kfd_takeover(&feats[F_KFD_TAKEOVER]);
	probe_dev(&feats[F_EMU_DEV], "/dev/userptr_emu", "userptr_emu not loaded");
	probe_batch(&feats[F_EMU_BATCH], EMU_BATCH_ATTR, "/sys/class/misc/userptr_emu",
		    "userptr_emu not loaded",
		    "the device has no batch ioctl (loaded with hide_batch=1): one ioctl a range");
	probe_drm(&feats[F_DRM_NODES]);
	probe_cgroup(&feats[F_CGROUP]);

	if (a.json)
		return print_json(a.all_probes);
	for (i = 0; i < F_NR; i++)
		printf("%-12s %-9s %s\n", feats[i].name, feats[i].live ? "live" : "not live",
		       feats[i].reason);
	return 0;
}
