/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One recording (what `record` read from the probes' maps at the end of a
 * run) and its two outputs: the text report and the JSON document.
 */
#ifndef __KFDTRACE_REPORT_H
#define __KFDTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/types.h>

#include "kfdtrace.h"
#include "doc.h"
#include "verdict.h"

/* an ioctl the probes count by name (ioctls.c); the tables end with {} */
struct kt_ioctl_def {
	const char *name;
	__u32 cmd;
};

extern const struct kt_ioctl_def kt_kfd_ioctls[];
extern const struct kt_ioctl_def kt_emu_ioctls[];
const struct kt_ioctl_def *kt_drm_ioctls(unsigned int drv);
/* the name of ioctl_names' element @idx, NULL for none */
const char *kt_ioctl_name(unsigned int idx);

struct kt_proc_row {
	struct kt_ioctl_key key;
	struct kt_ioctl_stat st;
};

/*
 * Where a recording's ioctls were counted (JSON ioctl.counted_at.*): each
 * device's at its driver's ioctl entry (fentry/fexit, else a kprobe and
 * kretprobe; the DRM nodes' at drm_ioctl()) or at the syscalls tracepoints, or not at all when it was
 * absent; the 'K' and 'u' numbers on other files (not_device) only at the
 * tracepoints, which are attached only where a device needs them, no
 * device is there, or --syscalls asks.
 */
enum kt_ioctl_target { KT_IT_KFD, KT_IT_EMU, KT_IT_DRM, KT_IT_OTHER, KT_IT_NR };
enum kt_ioctl_at { KT_AT_SYSCALL, KT_AT_FENTRY, KT_AT_KPROBE, KT_AT_NONE, KT_AT_NR };

extern const char *const kt_ioctl_target_names[KT_IT_NR];
extern const char *const kt_ioctl_at_names[KT_AT_NR];

/* why a recording ended (JSON "stop") */
enum kt_stop {
	KT_STOP_EXIT,		/* the command, or -p's process, ended */
	KT_STOP_DEADLINE,	/* -d passed */
	KT_STOP_SIGNAL,		/* SIGINT or SIGTERM to kfdtrace */
};

struct kt_run {
	struct kt_ioctl_stat cls[KT_NR_CLASSES];
	__u64 counts[KT_NR_COUNTS];
	__u64 events[KT_NR_EVENTS];
	struct kt_hist_val hists[KT_NR_HISTS];
	struct kt_name_stat names[KT_NR_NAMES];	/* the devices' calls by ioctl */
	__u64 errnos[KT_MAX_ERRNO];	/* their failures by errno (0: larger) */
	/* the devices' files, "MAJOR:MINOR" (empty: not there at the start) */
	char kfd_dev[16], emu_dev[16];
	/* the DRM nodes counted, "DRIVER MAJOR:MINOR ..." (empty: none) */
	char drm_dev[128];
	__u8 ioctl_at[KT_IT_NR];	/* enum kt_ioctl_at, by enum kt_ioctl_target */
	__u64 follow_max;		/* the follow map's size, 0 without a filter */
	__u64 cgroup_id;		/* --cgroup: its id, 0 for none */
	__u32 cgroup_level;		/* and its depth below the root */
	struct kt_proc_row *rows;	/* one per process and class, by tgid */
	int nrows;
	bool live[KT_G_NR];
	struct kt_verdict verdict;
	double seconds;
	/*
	 * The command's end as a shell reports it: its exit status, or 128 + N
	 * when signal N killed it (signal = N, else 0); 127 when it could not
	 * be started (exec_errno then says why). -1 without a command (-p,
	 * system-wide).
	 */
	int status;
	int signal;
	int exec_errno;
	enum kt_stop stop;
};

extern const char *const kt_class_names[KT_NR_CLASSES];

/* the numbers derived from the counts, named as in the JSON */
struct kt_summary {
	__u64 userptr_alloc, batch_alloc, takeover, other_alloc, free, other, total, errors;
	__u64 registered;
	double per_range, ms;
};

void kt_summarize(const struct kt_run *r, struct kt_summary *s);
/*
 * Updates the probes could not make and events they could not send: a
 * recording with any is incomplete (the verdict and check say so).
 */
__u64 kt_run_lost(const struct kt_run *r);
/* the same, from a recording's JSON ("lost.total"; 0 when absent) */
__u64 kt_doc_lost(json_t *doc);
/* where @r's ioctls of target @t were counted (KT_AT_NONE: an absent device) */
enum kt_ioctl_at kt_ioctl_at_of(const struct kt_run *r, enum kt_ioctl_target t);
void kt_report_print(FILE *f, const struct kt_run *r);
/* the recording as kfdtrace's JSON document; NULL when out of memory */
json_t *kt_report_json(const struct kt_run *r);
/* writes the JSON to @fd (truncated first); 0 or a negative errno */
int kt_report_write(int fd, const struct kt_run *r);

#endif /* __KFDTRACE_REPORT_H */
