// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace's kernel probing: the table of the BPF programs
 * (bpf/kfdtrace.bpf.c) with each one's group and target, and whether each
 * loads on this kernel, as record plans its load and feature reports it.
 *
 * Each probe group loads only where its target exists, checked before the
 * load as bcc's libbpf-tools do (fentry_can_attach(), kprobe_exists()):
 * fentry where the kernel attaches a trampoline to the function, else a
 * kprobe where ftrace lists the function, else the group stays off. So a
 * kernel that refuses one kind is not a failed load and a page of libbpf
 * errors; libbpf speaks only with -v.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probe.h"

static const struct kt_prog_info progs[] = {
	{ "kt_fork", KT_G_IOCTL, 0, NULL },
	{ "kt_exit", KT_G_IOCTL, 0, NULL },
	{ "kt_ioctl_enter", KT_G_IOCTL, 0, "sys:ioctl" },
	{ "kt_ioctl_exit", KT_G_IOCTL, 0, "sys:ioctl" },
	{ "kt_kfd_ioctl_fentry", KT_G_IOCTL, 1, "drv:amdgpu:kfd_ioctl" },
	{ "kt_kfd_ioctl_fexit", KT_G_IOCTL, 1, "drv:amdgpu:kfd_ioctl" },
	{ "kt_kfd_ioctl_kprobe", KT_G_IOCTL, 2, "drv:amdgpu:kfd_ioctl" },
	{ "kt_kfd_ioctl_kretprobe", KT_G_IOCTL, 2, "drv:amdgpu:kfd_ioctl" },
	{ "kt_emu_ioctl_fentry", KT_G_IOCTL, 1, "drv:userptr_emu:uemu_ioctl" },
	{ "kt_emu_ioctl_fexit", KT_G_IOCTL, 1, "drv:userptr_emu:uemu_ioctl" },
	{ "kt_emu_ioctl_kprobe", KT_G_IOCTL, 2, "drv:userptr_emu:uemu_ioctl" },
	{ "kt_emu_ioctl_kretprobe", KT_G_IOCTL, 2, "drv:userptr_emu:uemu_ioctl" },
	{ "kt_drm_ioctl_fentry", KT_G_IOCTL, 1, "drv:drm:drm_ioctl" },
	{ "kt_drm_ioctl_fexit", KT_G_IOCTL, 1, "drv:drm:drm_ioctl" },
	{ "kt_drm_ioctl_kprobe", KT_G_IOCTL, 2, "drv:drm:drm_ioctl" },
	{ "kt_drm_ioctl_kretprobe", KT_G_IOCTL, 2, "drv:drm:drm_ioctl" },
	{ "kt_hmm_fentry", KT_G_HMM, 1, "fn:hmm_range_fault" },
	{ "kt_hmm_fexit", KT_G_HMM, 1, "fn:hmm_range_fault" },
	{ "kt_hmm_kprobe", KT_G_HMM, 2, "fn:hmm_range_fault" },
	{ "kt_hmm_kretprobe", KT_G_HMM, 2, "fn:hmm_range_fault" },
	{ "kt_hmm_many_fentry", KT_G_HMM, 1, "fn:hmm_range_fault_many" },
	{ "kt_hmm_many_fexit", KT_G_HMM, 1, "fn:hmm_range_fault_many" },
	{ "kt_hmm_many_kprobe", KT_G_HMM, 2, "fn:hmm_range_fault_many" },
	{ "kt_hmm_many_kretprobe", KT_G_HMM, 2, "fn:hmm_range_fault_many" },
	{ "kt_hmm_read_fentry", KT_G_HMM, 1, "fn:hmm_range_read_many" },
	{ "kt_hmm_read_fexit", KT_G_HMM, 1, "fn:hmm_range_read_many" },
	{ "kt_hmm_read_kprobe", KT_G_HMM, 2, "fn:hmm_range_read_many" },
	{ "kt_hmm_read_kretprobe", KT_G_HMM, 2, "fn:hmm_range_read_many" },
	{ "kt_hmm_unlocked_fentry", KT_G_HMM, 1, "fn:hmm_range_fault_unlocked_timeout" },
	{ "kt_hmm_unlocked_fexit", KT_G_HMM, 1, "fn:hmm_range_fault_unlocked_timeout" },
	{ "kt_hmm_unlocked_kprobe", KT_G_HMM, 2, "fn:hmm_range_fault_unlocked_timeout" },
	{ "kt_hmm_unlocked_kretprobe", KT_G_HMM, 2, "fn:hmm_range_fault_unlocked_timeout" },
	{ "kt_insert_fentry", KT_G_NOTIFIER, 1, "fn:mmu_interval_notifier_insert" },
	{ "kt_remove_fentry", KT_G_NOTIFIER, 1, "fn:mmu_interval_notifier_remove" },
	{ "kt_insert_kprobe", KT_G_NOTIFIER, 2, "fn:mmu_interval_notifier_insert" },
	{ "kt_remove_kprobe", KT_G_NOTIFIER, 2, "fn:mmu_interval_notifier_remove" },
	{ "kt_create", KT_G_HELPER, 0, "tp:drm_userptr/drm_userptr_create" },
	{ "kt_destroy", KT_G_HELPER, 0, "tp:drm_userptr/drm_userptr_destroy" },
	{ "kt_refault", KT_G_HELPER, 0, "tp:drm_userptr/drm_userptr_range_refault" },
	{ "kt_invalidate", KT_G_HELPER, 0, "tp:drm_userptr/drm_userptr_invalidate" },
	{ "kt_invalidate_gap", KT_G_HELPER, 0, "tp:drm_userptr/drm_userptr_invalidate_gap" },
	{ "kt_evict", KT_G_HELPER, 0, "tp:drm_userptr/drm_userptr_evict" },
	{ "kt_restore_end", KT_G_HELPER, 0, "tp:drm_userptr/drm_userptr_restore_end" },
	{ "kt_emu_evict", KT_G_EMU, 0, "tp:userptr_emu/userptr_emu_evict" },
	{ "kt_emu_restore", KT_G_EMU, 0, "tp:userptr_emu/userptr_emu_restore" },
	{ "kt_emu_access", KT_G_EMU, 0, "tp:userptr_emu/userptr_emu_access" },
	{ "kt_amdgpu_evict", KT_G_AMDGPU, 0, "amdgpu:amdgpu_amdkfd_evict_userptr" },
	{ "kt_amdgpu_restore_enter", KT_G_AMDGPU, 0,
	  "amdgpu:amdgpu_amdkfd_restore_userptr_worker" },
	{ "kt_amdgpu_restore_exit", KT_G_AMDGPU, 0,
	  "amdgpu:amdgpu_amdkfd_restore_userptr_worker" },
	{ "kt_amdgpu_quiesce", KT_G_AMDGPU, 0, "amdgpu:kgd2kfd_quiesce_mm" },
	{ "kt_amdgpu_resume", KT_G_AMDGPU, 0, "amdgpu:kgd2kfd_resume_mm" },
};

const struct kt_prog_info *kt_prog(unsigned int i)
{
	return i < ARRAY_SIZE(progs) ? &progs[i] : NULL;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (!kt_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* libbpf attaches tracepoints through tracefs: mount it if nobody did */
static void ensure_tracefs(void)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events", &st) ||
	    !stat("/sys/kernel/debug/tracing/events", &st))
		return;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && kt_verbose)
		fprintf(stderr, "kfdtrace: mounting tracefs: %s\n", strerror(errno));
}

void kt_probe_setup(void)
{
	libbpf_set_print(libbpf_print);
	ensure_tracefs();
}

#define AMDGPU_BTF "/sys/kernel/btf/amdgpu"

/*
 * The kernel's BTF, parsed on the first question that needs it. The
 * skeleton's load parses vmlinux BTF anyway; a parse of our own adds about
 * a second to the start-up in the TCG guest (7 to 8 s). With the helper's
 * tracepoints there and no -a, nothing asks; amdgpu's BTF (and vmlinux's
 * under it) is parsed only when amdgpu is loaded.
 */
struct btf *kt_vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		btf = btf__load_vmlinux_btf();	/* NULL on error (libbpf 1.x) */
	}
	return btf;
}

/*
 * A module's BTF, split on vmlinux's (/sys/kernel/btf/MODULE), parsed once
 * per module; NULL when the module is not loaded or has none.
 */
static struct btf *module_btf(const char *mod)
{
	static struct {
		char name[32];
		struct btf *btf;
	} cache[4];
	static unsigned int ncache;
	struct btf *btf = NULL;
	char path[96];
	unsigned int i;

	for (i = 0; i < ncache; i++)
		if (!strcmp(cache[i].name, mod))
			return cache[i].btf;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	if (!access(path, R_OK) && kt_vmlinux_btf())
		btf = btf__parse_split(path, kt_vmlinux_btf());
	if (ncache < ARRAY_SIZE(cache)) {
		snprintf(cache[ncache].name, sizeof(cache[ncache].name), "%s", mod);
		cache[ncache++].btf = btf;
	}
	return btf;
}

static struct btf *amdgpu_btf(void)
{
	return module_btf("amdgpu");
}

static bool btf_has_func(struct btf *btf, const char *fn)
{
	return btf && btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) > 0;
}

/*
 * The kernel's BTF object of module @mod (an fd to close), as the attach
 * of a tracing program to one of its functions needs; -1 for none.
 */
static int module_btf_fd(const char *mod)
{
	__u32 id = 0;
	int fd;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = "";

		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(name, mod))
			return fd;
		close(fd);
	}
	return -1;
}

/*
 * Whether the kernel attaches an fentry program to @fn, of vmlinux (@mod
 * NULL) or of module @mod: a two-instruction tracing program loaded
 * against the function's BTF and attached for a moment, as libbpf-tools'
 * fentry_can_attach() (which only loads it; some kernels refuse only at
 * the attach).
 */
static bool fentry_can_attach_in(const char *mod, const char *fn)
{
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static struct {
		const char *fn;
		bool ok;
	} cache[8];
	static unsigned int ncache;

	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf = mod ? module_btf(mod) : kt_vmlinux_btf();
	int id, prog, link = -1, obj = -1, err = 0;
	const char *step = "not in BTF";	/* where it failed, for -v */
	unsigned int i;

	for (i = 0; i < ncache; i++)
		if (!strcmp(cache[i].fn, fn))
			return cache[i].ok;
	id = btf ? btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) : -1;
	if (id > 0 && mod) {
		obj = module_btf_fd(mod);
		if (obj < 0)
			id = -1;
		opts.attach_btf_obj_fd = obj;
	}
	if (id > 0) {
		opts.attach_btf_id = id;
		step = "load";
		prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "kt_can_fentry", "GPL", insns,
				     ARRAY_SIZE(insns), &opts);
		err = errno;
		if (prog >= 0) {
			step = "attach";
			link = bpf_raw_tracepoint_open(NULL, prog);
			err = errno;
			close(prog);
		}
		if (link >= 0)
			close(link);
	}
	if (obj >= 0)
		close(obj);
	if (kt_verbose) {
		char res[128] = "yes";

		if (link < 0)	/* (err is set by the load or the attach only) */
			snprintf(res, sizeof(res), "no (%s%s%s)", step, err ? ": " : "",
				 err ? strerror(err) : "");
		fprintf(stderr, "kfdtrace: fentry on %s%s%s%s: %s\n", fn, mod ? " [" : "",
			mod ? mod : "", mod ? "]" : "", res);
	}
	if (ncache < ARRAY_SIZE(cache)) {
		cache[ncache].fn = fn;
		cache[ncache++].ok = link >= 0;
	}
	return link >= 0;
}

bool kt_fentry_can_attach(const char *fn)
{
	return fentry_can_attach_in(NULL, fn);
}

/* a kprobe can be made at all: perf's kprobe PMU, else tracefs' kprobe_events */
bool kt_kprobes_supported(void)
{
	static const char *const paths[] = {
		"/sys/bus/event_source/devices/kprobe/type",
		"/sys/kernel/tracing/kprobe_events",
		"/sys/kernel/debug/tracing/kprobe_events",
	};
	static int known = -1;
	struct stat st;
	unsigned int i;

	for (i = 0; known < 0 && i < ARRAY_SIZE(paths); i++)
		if (!stat(paths[i], &st))
			known = 1;
	if (known < 0) {
		known = 0;
		if (kt_verbose)
			fprintf(stderr, "kfdtrace: this kernel makes no kprobes\n");
	}
	return known;
}

/* @line of available_filter_functions ("name", "name [module]") names @fn */
static bool ftrace_line_is(const char *line, const char *fn, size_t len)
{
	return !strncmp(line, fn, len) &&
	       (line[len] == '\n' || line[len] == ' ' || line[len] == '\t');
}

/* @line of /proc/kallsyms ("addr t name [module]") names a function @fn */
static bool kallsyms_line_is(const char *line, const char *fn, size_t len)
{
	const char *p = strchr(line, ' ');

	if (!p || (p[1] != 't' && p[1] != 'T') || p[2] != ' ')
		return false;
	return ftrace_line_is(p + 3, fn, len);
}

/*
 * Whether @fn can take a kprobe, as libbpf-tools' kprobe_exists(): the
 * kernel makes kprobes, and ftrace lists the function in
 * available_filter_functions ("name" or "name [module]"), or, where that
 * cannot be read, /proc/kallsyms has it.
 */
static bool kprobe_exists(const char *fn)
{
	static const char *const files[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	bool (*match)(const char *line, const char *fn, size_t len) = ftrace_line_is;
	size_t len = strlen(fn);
	bool found = false;
	char line[512];
	unsigned int i;
	FILE *f = NULL;

	if (!kt_kprobes_supported())
		return false;
	for (i = 0; !f && i < ARRAY_SIZE(files); i++)
		f = fopen(files[i], "r");
	if (!f) {
		f = fopen("/proc/kallsyms", "r");
		match = kallsyms_line_is;
	}
	if (!f)
		return true;	/* the attach decides */
	while (!found && fgets(line, sizeof(line), f))
		found = match(line, fn, len);
	fclose(f);
	if (kt_verbose)
		fprintf(stderr, "kfdtrace: kprobe on %s: %s\n", fn, found ? "yes" : "no");
	return found;
}

static bool tracepoint_exists(const char *tp)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", tp);
	if (!stat(path, &st))
		return true;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s", tp);
	return !stat(path, &st);
}

/* the driver (enum kt_drm_drv) of DRM driver name @name */
static __u32 drm_drv_named(const char *name)
{
	if (!strcmp(name, "amdgpu"))
		return KT_DRV_AMDGPU;
	if (!strcmp(name, "userptr_emu"))
		return KT_DRV_EMU;
	return KT_DRV_NONE;
}

static const char *const drm_drv_names[KT_NR_DRV] = {
	[KT_DRV_AMDGPU] = "amdgpu", [KT_DRV_EMU] = "userptr_emu",
};

/*
 * The nodes of /sys/class/drm (card* and renderD*) whose device is the
 * device of a render node of ours: its driver named by DRM_IOCTL_VERSION
 * (libdrm), which a render node answers to anyone; the primary node is
 * never opened (its first opener would be master). Scanned once.
 */
int kt_drm_nodes(struct kt_drm_node *nodes, int max, char *desc, size_t len)
{
	static struct kt_drm_node found[KT_MAX_DRM_NODES];
	static char real[KT_MAX_DRM_NODES][256];
	static char text[128];
	static int nfound = -1;
	char path[300], *dev;
	struct dirent *de;
	int pass, i, n;
	DIR *d;

	if (nfound < 0) {
		nfound = 0;
		d = opendir("/sys/class/drm");
		/* render nodes first, to learn the drivers; then the primaries */
		for (pass = 0; d && pass < 2; pass++) {
			rewinddir(d);
			while ((de = readdir(d)) && nfound < KT_MAX_DRM_NODES) {
				unsigned int major, minor;
				drmVersionPtr v;
				__u32 drv = KT_DRV_NONE;
				FILE *f;
				int fd;

				if (strncmp(de->d_name, pass ? "card" : "renderD",
					    pass ? 4 : 7) || strchr(de->d_name, '-'))
					continue;
				snprintf(path, sizeof(path), "/sys/class/drm/%s/device",
					 de->d_name);
				dev = realpath(path, NULL);
				if (!dev)
					continue;
				if (!pass) {
					snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
					fd = open(path, O_RDWR | O_CLOEXEC);
					v = fd >= 0 ? drmGetVersion(fd) : NULL;
					if (v)
						drv = drm_drv_named(v->name);
					drmFreeVersion(v);
					if (fd >= 0)
						close(fd);
				} else {
					for (i = 0; i < nfound; i++)
						if (!strcmp(real[i], dev))
							drv = found[i].drv;
				}
				snprintf(path, sizeof(path), "/sys/class/drm/%s/dev", de->d_name);
				f = fopen(path, "r");
				n = f ? fscanf(f, "%u:%u", &major, &minor) : 0;
				if (f)
					fclose(f);
				if (drv && n == 2) {
					found[nfound].dev = major << 20 | minor;
					found[nfound].drv = drv;
					snprintf(real[nfound], sizeof(real[0]), "%s", dev);
					n = strlen(text);
					snprintf(text + n, sizeof(text) - n, "%s%s %u:%u",
						 n ? ", " : "", drm_drv_names[drv], major, minor);
					nfound++;
				}
				free(dev);
			}
		}
		if (d)
			closedir(d);
	}
	for (i = 0; i < nfound && i < max; i++)
		nodes[i] = found[i];
	if (desc)
		snprintf(desc, len, "%s", text);
	return i;
}

/* drm_ioctl()'s module: drm, or vmlinux (NULL) where DRM is built in */
static const char *drm_module(void)
{
	return access("/sys/kernel/btf/drm", F_OK) ? NULL : "drm";
}

/*
 * each device's ioctl entry: its module, function and sysfs "dev" file
 * (the DRM nodes: kt_drm_nodes())
 */
static const struct {
	const char *mod, *fn, *dev;
} ioctl_entries[] = {
	[KT_IT_KFD] = { "amdgpu", "kfd_ioctl", "/sys/class/kfd/kfd/dev" },
	[KT_IT_EMU] = { "userptr_emu", "uemu_ioctl", "/sys/class/misc/userptr_emu/dev" },
	[KT_IT_DRM] = { "drm", "drm_ioctl", "/sys/class/drm" },
};

static bool ioctl_target_there(int i)
{
	struct kt_drm_node node;

	if (i == KT_IT_DRM)
		return kt_drm_nodes(&node, 1, NULL, 0) > 0;
	return !access(ioctl_entries[i].dev, F_OK);
}

void kt_ioctl_plan(const struct kt_record_opts *o, int attempt, __u8 at[KT_IT_NR])
{
	static __u8 cached[KT_IT_NR];
	static int cached_for = -1;
	int key = (attempt * 2 + o->syscalls) * 4 + o->debug_ioctl_at, i;
	bool any_dev = false, any_syscall = false;
	struct btf *btf;

	if (key == cached_for) {
		memcpy(at, cached, KT_IT_NR);
		return;
	}
	for (i = KT_IT_KFD; i <= KT_IT_DRM; i++) {
		const char *fn = ioctl_entries[i].fn, *mod = ioctl_entries[i].mod;

		if (!ioctl_target_there(i)) {
			at[i] = KT_AT_NONE;
			continue;
		}
		any_dev = true;
		if (i == KT_IT_DRM)
			mod = drm_module();
		btf = mod ? module_btf(mod) : kt_vmlinux_btf();
		if (o->syscalls || attempt >= 1 || o->debug_ioctl_at == KT_DEBUG_AT_NONE)
			at[i] = KT_AT_SYSCALL;
		else if (o->debug_ioctl_at != KT_DEBUG_AT_KPROBE && btf_has_func(btf, fn) &&
			 fentry_can_attach_in(mod, fn))
			at[i] = KT_AT_FENTRY;
		else if (kprobe_exists(fn))
			at[i] = KT_AT_KPROBE;
		else
			at[i] = KT_AT_SYSCALL;
		any_syscall |= at[i] == KT_AT_SYSCALL;
	}
	at[KT_IT_OTHER] = any_syscall || !any_dev || o->syscalls ||
			  o->debug_ioctl_at == KT_DEBUG_AT_BOTH ? KT_AT_SYSCALL : KT_AT_NONE;
	memcpy(cached, at, KT_IT_NR);
	cached_for = key;
}

/*
 * The ioctl group's counting programs as kt_ioctl_plan() places them: a
 * device's entry pair of the flavour planned for it, the syscalls
 * tracepoints where KT_IT_OTHER is counted.
 */
static bool ioctl_prog_planned(const struct kt_record_opts *o, const struct kt_prog_info *p,
			       int attempt, char *why, size_t len)
{
	const char *t = p->target;
	__u8 at[KT_IT_NR];
	int i;

	kt_ioctl_plan(o, attempt, at);
	if (!strncmp(t, "sys:", 4)) {
		if (at[KT_IT_OTHER] == KT_AT_SYSCALL) {
			snprintf(why, len, "syscalls:sys_enter_ioctl, sys_exit_ioctl%s",
				 o->syscalls ? " (-S)" : at[KT_IT_KFD] == KT_AT_SYSCALL ||
				 at[KT_IT_EMU] == KT_AT_SYSCALL ||
				 at[KT_IT_DRM] == KT_AT_SYSCALL ? "" : " (no device)");
			return true;
		}
		snprintf(why, len, "no syscalls tracepoints: every device counted at its driver");
		return false;
	}
	/* "drv:MODULE:FUNCTION" */
	for (i = KT_IT_KFD; i <= KT_IT_DRM; i++)
		if (!strcmp(strrchr(t, ':') + 1, ioctl_entries[i].fn))
			break;
	if (i > KT_IT_DRM) {
		snprintf(why, len, "unknown target %s", t);
		return false;
	}
	switch (at[i]) {
	case KT_AT_FENTRY:
	case KT_AT_KPROBE:
		snprintf(why, len, "%s on %s [%s]", kt_ioctl_at_names[at[i]],
			 ioctl_entries[i].fn, i == KT_IT_DRM && !drm_module() ? "vmlinux" :
			 ioctl_entries[i].mod);
		return p->flavour == (at[i] == KT_AT_FENTRY ? 1 : 2);
	case KT_AT_SYSCALL:
		snprintf(why, len, "%s at the syscalls tracepoints%s", kt_ioctl_target_names[i],
			 o->syscalls ? " (-S)" : attempt ? "" : ": neither fentry nor kprobe on its entry");
		return false;
	default:
		snprintf(why, len, i == KT_IT_DRM ? "no DRM node of amdgpu or userptr_emu" :
			 "no %s", ioctl_entries[i].dev);
		return false;
	}
}

/*
 * Whether program @p can load and attach here: fn:NAME in vmlinux BTF, as
 * fentry (flavour 1) where the kernel takes it, as a kprobe (flavour 2)
 * only where it does not and ftrace lists the function; tp:SYS/EVENT in
 * tracefs; amdgpu:NAME (kprobes) in amdgpu's BTF and ftrace. @why (@len
 * bytes) gets the answer in words.
 */
static bool target_exists(const struct kt_record_opts *o, const struct kt_prog_info *p,
			  int attempt, char *why, size_t len)
{
	const char *t = p->target;
	bool ok;

	if (!t) {
		snprintf(why, len, "always");
		return true;
	}
	if (!strncmp(t, "fn:", 3)) {
		t += 3;
		if (!kt_vmlinux_btf()) {
			snprintf(why, len, "no vmlinux BTF");
			return false;
		}
		if (!btf_has_func(kt_vmlinux_btf(), t)) {
			snprintf(why, len, "no %s in vmlinux BTF", t);
			return false;
		}
		if (kt_fentry_can_attach(t)) {
			snprintf(why, len, "fentry on %s", t);
			return p->flavour == 1;
		}
		if (p->flavour == 1) {
			snprintf(why, len, "the kernel refuses fentry on %s", t);
			return false;
		}
		ok = kprobe_exists(t);
		snprintf(why, len, ok ? "kprobe on %s (no fentry)" :
			 "neither fentry nor kprobe on %s", t);
		return ok;
	}
	if (!strncmp(t, "amdgpu:", 7)) {
		t += 7;
		if (!amdgpu_btf()) {
			snprintf(why, len, "no amdgpu BTF (%s)", AMDGPU_BTF);
			return false;
		}
		if (!btf_has_func(amdgpu_btf(), t)) {
			snprintf(why, len, "no %s in amdgpu's BTF", t);
			return false;
		}
		ok = kprobe_exists(t);
		snprintf(why, len, ok ? "kprobe on %s [amdgpu]" : "no kprobe on %s [amdgpu]", t);
		return ok;
	}
	if (!strncmp(t, "drv:", 4) || !strncmp(t, "sys:", 4))
		return ioctl_prog_planned(o, p, attempt, why, len);
	if (!strncmp(t, "tp:", 3)) {
		ok = tracepoint_exists(t + 3);
		snprintf(why, len, ok ? "tracepoint %s" : "no tracepoint %s", t + 3);
		return ok;
	}
	snprintf(why, len, "unknown target %s", t);
	return false;
}

/*
 * The HMM and notifier probes run per call: three trampolines for each
 * range registered one by one. Where the helper's tracepoints exist they
 * already count a batch's faulted ranges, windows and hmm_range_fault()
 * calls (restore_end) and time each range faulted again (range_refault),
 * and create reports a batch's notifiers (windows), so these load on
 * request (-a) only, to time each hmm_range_fault() call and to prove the
 * notifier count; without the helper (a kernel without the series) they
 * are the only view of faults and notifiers, and load by default.
 */
static bool group_wanted(const struct kt_record_opts *o, enum kt_group g)
{
	if (g != KT_G_HMM && g != KT_G_NOTIFIER)
		return true;
	return o->all_probes || !tracepoint_exists("drm_userptr/drm_userptr_create");
}

bool kt_prog_planned(const struct kt_record_opts *o, const struct kt_prog_info *p,
		     int attempt, char *why, size_t len)
{
	char none[1];

	if (!why || !len) {
		why = none;
		len = sizeof(none);
	}
	if (!group_wanted(o, p->group)) {
		snprintf(why, len, "off without -a where the helper's tracepoints are");
		return false;
	}
	if ((attempt >= 1 && p->flavour) || (attempt >= 2 && p->group != KT_G_IOCTL)) {
		snprintf(why, len, "left out at load attempt %d", attempt + 1);
		return false;
	}
	return target_exists(o, p, attempt, why, len);
}
