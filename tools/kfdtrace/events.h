/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfdtrace's events file (record -w FILE, report FILE): every event of the
 * probes' ring buffer as it came, then what the probes' maps held at the
 * end, so that the same report, JSON and verdict can be made anywhere.
 *
 *   header   struct kt_evfile_hdr
 *   records  struct kt_evrec, then len bytes:
 *            KT_REC_EVENT  a struct kt_event
 *            KT_REC_LOST   a __u64: events the ring buffer dropped so far
 *            KT_REC_END    a struct kt_evfile_end, then nrows struct
 *                          kt_proc_row; the last record
 *
 * Host byte order and struct layout: the header's version, event size
 * and layout id (kt_evfile_layout()) must match the reader's.
 */
#ifndef __KFDTRACE_EVENTS_H
#define __KFDTRACE_EVENTS_H

#include <stdio.h>

#include <linux/types.h>

#include "report.h"

#define KT_EVFILE_MAGIC		"KFDTREVT"
#define KT_EVFILE_VERSION	1

struct kt_evfile_hdr {
	char magic[8];
	__u32 version;
	__u32 event_size;	/* sizeof(struct kt_event) */
	__u32 layout;		/* kt_evfile_layout() */
	__u32 live;		/* the probe groups live in the run, bit per group */
};

enum kt_rec_type {
	KT_REC_EVENT = 1,
	KT_REC_LOST,
	KT_REC_END,
};

struct kt_evrec {
	__u32 type;
	__u32 len;
};

struct kt_evfile_end {
	__u64 counts[KT_NR_COUNTS];
	__u64 events[KT_NR_EVENTS];
	struct kt_hist_val hists[KT_NR_HISTS];
	struct kt_name_stat names[KT_NR_NAMES];
	__u64 errnos[KT_MAX_ERRNO];
	char kfd_dev[16], emu_dev[16], drm_dev[128];
	__u64 follow_max;
	__u64 end_ns;		/* the end of the trace, bpf_ktime_get_ns()'s clock */
	double seconds;
	__s32 status, signal, exec_errno, stop;
	__u32 nrows;
	/*
	 * Where the ioctls were counted: 2 bits an enum kt_ioctl_target, its
	 * enum kt_ioctl_at; 0 (all at the syscalls tracepoints) in the files
	 * of the kfdtrace before driver-entry counting, which it read as.
	 */
	__u32 ioctl_at;
};

/* the shape of what the file holds: a change in any of it is another layout */
static inline __u32 kt_evfile_layout(void)
{
	const __u32 v[] = {
		sizeof(struct kt_event), sizeof(struct kt_evfile_end),
		sizeof(struct kt_proc_row), KT_NR_COUNTS, KT_NR_EVENTS, KT_NR_HISTS,
		KT_HIST_SLOTS, KT_NR_NAMES, KT_MAX_ERRNO, KT_NR_CLASSES, KT_G_NR,
		KT_EV_AMDGPU_RESUME,
	};
	__u32 h = 2166136261u;	/* FNV-1a */
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		h = (h ^ v[i]) * 16777619u;
	return h;
}

/* writer: NULL (the reason printed) when @path cannot be created */
FILE *kt_evfile_create(const char *path);
/* the header, once the probe groups are live; 0 or a negative errno */
int kt_evfile_begin(FILE *f, const bool *live);
int kt_evfile_event(FILE *f, const struct kt_event *e);
int kt_evfile_lost(FILE *f, __u64 lost);
int kt_evfile_end(FILE *f, const struct kt_run *r, __u64 end_ns);

/* whether @path starts with the events file's magic */
bool kt_evfile_is(const char *path);
/*
 * Replays @path into @r (zeroed first): the events through the verdict,
 * the end record's counts. 0, or -1 with the reason in @err.
 */
int kt_evfile_replay(const char *path, struct kt_run *r, char *err, size_t len);

#endif /* __KFDTRACE_EVENTS_H */
