/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The eviction-correctness verdict: rules checked over the ordered events
 * of the batch helper, the emulated device and amdgpu (see verdict.c).
 */
#ifndef __KFDTRACE_VERDICT_H
#define __KFDTRACE_VERDICT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>
#include <linux/types.h>

#include "kfdtrace.h"

#define KT_MAX_VIOLATIONS	64	/* kept for the report; all are counted */

struct kt_violation {
	__u64 ts;
	__u64 batch;
	int range;		/* -1: the batch */
	const char *rule;
	char what[96];
};

struct kt_vproc;

struct kt_verdict {
	struct kt_vbatch *batches;	/* open hash by batch id */
	unsigned int nbuckets, nbatches;
	/* amdgpu's probes were live: its rules apply (set before the events) */
	bool amdgpu;
	struct kt_vproc *procs;		/* amdgpu's processes, by mm */
	unsigned int nprocs;
	__u64 events, evictions, restores, accesses, first_ts;
	__u64 nviolations;
	struct kt_violation v[KT_MAX_VIOLATIONS];
};

int kt_verdict_init(struct kt_verdict *vd);
void kt_verdict_event(struct kt_verdict *vd, const struct kt_event *e);
/* end of the trace at @now_ns: what is still evicted then */
void kt_verdict_finish(struct kt_verdict *vd, __u64 now_ns);
/*
 * "pass", "fail", "n/a" when no device eviction was seen, or "incomplete"
 * when the probes lost updates or events (@lost: kt_run_lost())
 */
const char *kt_verdict_result(const struct kt_verdict *vd, __u64 lost);
void kt_verdict_print(FILE *f, const struct kt_verdict *vd, __u64 lost);
/* the verdict as the JSON's "verdict" object; NULL when out of memory */
json_t *kt_verdict_json(const struct kt_verdict *vd, __u64 lost);
void kt_verdict_free(struct kt_verdict *vd);

#endif /* __KFDTRACE_VERDICT_H */
