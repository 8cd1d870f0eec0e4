// SPDX-License-Identifier: GPL-2.0
/*
 * The eviction-correctness verdict, from the ordered events of the batch
 * helper (drm_userptr_*) and the emulated device (userptr_emu_*). For each
 * batch it follows, per range, the last fault, the last invalidation and
 * whether an eviction of the range is still unanswered, and, for the
 * device, whether it has evicted the batch. The rules:
 *
 *  evict     the device never reads or writes a batch while one of its
 *            ranges was invalidated (a valid range became invalid) and has
 *            been neither faulted again nor answered by the device's
 *            eviction of the batch;
 *  quiesce   no device access succeeds between the device's eviction of a
 *            batch and its restore;
 *  commit    a restore that makes the batch usable again maps no range
 *            whose last invalidation came after its last fault: the commit
 *            must have seen that range's sequence move (a range whose last
 *            fault failed is not mapped: its CPU mapping is gone);
 *  restore   an access never times out waiting for a restore, and at the
 *            end no live batch is still evicted (one evicted less than a
 *            second before the end is in flight, not counted).
 *
 * amdgpu (its probes live) stops a process's queues on the first
 * eviction of its userptr BOs (kgd2kfd_quiesce_mm(), from the helper's
 * invalidate callback for a batch) and starts them again once its restore
 * worker has faulted and committed them (kgd2kfd_resume_mm()); its device
 * accesses cannot be seen, so its rules are over the process (mm), the
 * queues standing for the accesses:
 *
 *  evict     a range that became invalid while its process's queues ran
 *            gets amdgpu's quiesce of that process before the range is
 *            faulted again or the trace ends (one evicted less than a
 *            second before the end is in flight);
 *  quiesce   the queues resume only after a quiesce (once the process's
 *            state is known: a resume before any quiesce seen may answer
 *            one from before the trace);
 *  commit    when the queues resume (the last quiesce answered), no range
 *            of the process's batches has its last invalidation after its
 *            last fault (not failed): it would run on stale pages;
 *  restore   at the end no process with a live batch has been quiesced for
 *            more than a second.
 *
 * The emulated device's batches (those it evicted) are its rules' alone.
 * A freed batch (destroy) drops its state: freed and unmapped ranges are
 * not expected to be restored.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

struct kt_vrange {
	__u64 fault_ts, inval_ts;
	bool fault_failed;	/* the last fault failed: the range stays unmapped */
	bool evict_pending;
	bool amd_pending;	/* evicted while its process ran: amdgpu must quiesce */
	__u64 amd_evict_ts;
};

struct kt_vbatch {
	__u64 id;
	bool used, dead, dev_evicted;
	bool emu;		/* the emulated device's: not judged by amdgpu's rules */
	__u64 dev_evicted_ts;
	__u64 mm;		/* its process, 0 when not known */
	unsigned int nranges;
	struct kt_vrange *r;
};

/* amdgpu's view of a process: its queues stopped (depth) or running */
struct kt_vproc {
	__u64 mm;
	unsigned int depth;	/* quiesces not yet resumed */
	bool known;		/* a quiesce seen: a resume at depth 0 is wrong */
	__u64 quiesce_ts;	/* the quiesce that stopped the queues */
};

int kt_verdict_init(struct kt_verdict *vd)
{
	memset(vd, 0, sizeof(*vd));
	vd->nbuckets = 1024;
	vd->batches = calloc(vd->nbuckets, sizeof(*vd->batches));
	return vd->batches ? 0 : -ENOMEM;
}

static struct kt_vbatch *slot(struct kt_vbatch *tab, unsigned int n, __u64 id)
{
	unsigned int i = (unsigned int)(id * 0x9e3779b97f4a7c15ULL >> 40) & (n - 1);

	while (tab[i].used && tab[i].id != id)
		i = (i + 1) & (n - 1);
	return &tab[i];
}

static struct kt_vbatch *get_batch(struct kt_verdict *vd, __u64 id)
{
	struct kt_vbatch *b;
	unsigned int i;

	if (2 * (vd->nbatches + 1) > vd->nbuckets) {
		unsigned int n = 2 * vd->nbuckets;
		struct kt_vbatch *tab = calloc(n, sizeof(*tab));

		if (!tab)
			return NULL;
		for (i = 0; i < vd->nbuckets; i++)
			if (vd->batches[i].used)
				*slot(tab, n, vd->batches[i].id) = vd->batches[i];
		free(vd->batches);
		vd->batches = tab;
		vd->nbuckets = n;
	}
	b = slot(vd->batches, vd->nbuckets, id);
	if (!b->used) {
		memset(b, 0, sizeof(*b));
		b->used = true;
		b->id = id;
		vd->nbatches++;
	}
	return b;
}

/* range @index of @b, growing the array for batches created before tracing */
static struct kt_vrange *get_range(struct kt_vbatch *b, unsigned int index)
{
	if (index >= b->nranges) {
		unsigned int n = index + 1 > 2 * b->nranges ? index + 1 : 2 * b->nranges;
		struct kt_vrange *r = realloc(b->r, n * sizeof(*r));

		if (!r)
			return NULL;
		memset(r + b->nranges, 0, (n - b->nranges) * sizeof(*r));
		b->r = r;
		b->nranges = n;
	}
	return &b->r[index];
}

static struct kt_vproc *get_proc(struct kt_verdict *vd, __u64 mm)
{
	struct kt_vproc *p;
	unsigned int i;

	for (i = 0; i < vd->nprocs; i++)
		if (vd->procs[i].mm == mm)
			return &vd->procs[i];
	p = realloc(vd->procs, (vd->nprocs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	vd->procs = p;
	p = &p[vd->nprocs++];
	memset(p, 0, sizeof(*p));
	p->mm = mm;
	return p;
}

static void violate(struct kt_verdict *vd, __u64 ts, __u64 batch, int range,
		    const char *rule, const char *what)
{
	struct kt_violation *v;

	if (vd->nviolations < KT_MAX_VIOLATIONS) {
		v = &vd->v[vd->nviolations];
		v->ts = ts;
		v->batch = batch;
		v->range = range;
		v->rule = rule;
		snprintf(v->what, sizeof(v->what), "%s", what);
	}
	vd->nviolations++;
}

static void on_access(struct kt_verdict *vd, struct kt_vbatch *b, const struct kt_event *e)
{
	unsigned int i;

	vd->accesses++;
	if (e->ret == -ETIMEDOUT) {
		violate(vd, e->ts, b->id, -1, "restore",
			"a device access timed out waiting for the restore");
		return;
	}
	if (e->ret)
		return;
	if (b->dev_evicted) {
		violate(vd, e->ts, b->id, -1, "quiesce",
			"a device access succeeded while the batch was evicted");
		return;
	}
	for (i = 0; i < b->nranges; i++) {
		if (!b->r[i].evict_pending)
			continue;
		violate(vd, e->ts, b->id, i, "evict",
			"a device access after the range's invalidation, with no eviction and no new fault");
		b->r[i].evict_pending = false;	/* once per invalidation */
	}
}

static void on_restore(struct kt_verdict *vd, struct kt_vbatch *b, const struct kt_event *e)
{
	unsigned int i;

	vd->restores++;
	if (e->ret < 0 || e->arg)	/* failed, or still evicted: tried again later */
		return;
	for (i = 0; i < b->nranges; i++) {
		struct kt_vrange *r = &b->r[i];

		if (!r->fault_failed && r->inval_ts > r->fault_ts) {
			violate(vd, e->ts, b->id, i, "commit",
				"restored with pages faulted before the range's last invalidation");
		}
	}
	b->dev_evicted = false;
}

/* a batch amdgpu's rules judge: amdgpu live, its process known, not the device's */
static bool amd_batch(const struct kt_verdict *vd, const struct kt_vbatch *b)
{
	return vd->amdgpu && b->mm && !b->emu && !b->dead;
}

/* a range evicted while its process ran, and never quiesced: once each */
static void amd_unanswered(struct kt_verdict *vd, struct kt_vbatch *b, unsigned int i,
			   __u64 ts, const char *when)
{
	char what[96];

	if (!b->r[i].amd_pending)
		return;
	b->r[i].amd_pending = false;
	snprintf(what, sizeof(what),
		 "amdgpu did not quiesce the process after the range's eviction, %s", when);
	violate(vd, ts, b->id, i, "evict", what);
}

static void on_quiesce(struct kt_verdict *vd, const struct kt_event *e)
{
	struct kt_vproc *p = get_proc(vd, e->mm);
	unsigned int i, j;

	vd->evictions++;
	if (!p)
		return;
	if (!p->depth++)
		p->quiesce_ts = e->ts;
	p->known = true;
	for (i = 0; i < vd->nbuckets; i++) {
		struct kt_vbatch *b = &vd->batches[i];

		if (b->used && b->mm == e->mm)
			for (j = 0; j < b->nranges; j++)
				b->r[j].amd_pending = false;
	}
}

static void on_resume(struct kt_verdict *vd, const struct kt_event *e)
{
	struct kt_vproc *p = get_proc(vd, e->mm);
	unsigned int i, j;

	vd->restores++;
	if (!p)
		return;
	if (!p->depth) {
		if (p->known)
			violate(vd, e->ts, 0, -1, "quiesce",
				"amdgpu resumed a process whose queues were not quiesced");
		p->known = true;
		return;
	}
	if (--p->depth)
		return;
	for (i = 0; i < vd->nbuckets; i++) {
		struct kt_vbatch *b = &vd->batches[i];

		if (!b->used || b->mm != e->mm || !amd_batch(vd, b))
			continue;
		for (j = 0; j < b->nranges; j++) {
			struct kt_vrange *r = &b->r[j];

			if (!r->fault_failed && r->inval_ts > r->fault_ts)
				violate(vd, e->ts, b->id, j, "commit",
					"amdgpu resumed the queues with pages faulted before the range's last invalidation");
		}
	}
}

/* whether amdgpu has @b's process quiesced */
static bool amd_quiesced(struct kt_verdict *vd, const struct kt_vbatch *b)
{
	unsigned int i;

	for (i = 0; i < vd->nprocs; i++)
		if (vd->procs[i].mm == b->mm)
			return vd->procs[i].depth > 0;
	return false;
}

void kt_verdict_event(struct kt_verdict *vd, const struct kt_event *e)
{
	struct kt_vbatch *b;
	struct kt_vrange *r;

	if (!vd->events++)
		vd->first_ts = e->ts;
	if (e->type == KT_EV_AMDGPU_QUIESCE) {
		on_quiesce(vd, e);
		return;
	}
	if (e->type == KT_EV_AMDGPU_RESUME) {
		on_resume(vd, e);
		return;
	}
	b = get_batch(vd, e->batch);
	if (!b)
		return;
	if (e->mm && !b->dead)
		b->mm = e->mm;
	switch (e->type) {
	case KT_EV_DESTROY:
		b->dead = true;
		b->dev_evicted = false;
		b->mm = 0;
		free(b->r);
		b->r = NULL;
		b->nranges = 0;
		break;
	case KT_EV_FAULT:
		r = get_range(b, e->index);
		if (r && amd_batch(vd, b))
			amd_unanswered(vd, b, e->index, e->ts, "before it was faulted again");
		if (r) {
			r->fault_ts = e->ts;
			r->fault_failed = e->ret != 0;
			r->evict_pending = false;
		}
		break;
	case KT_EV_INVAL:
		r = get_range(b, e->index);
		if (r)
			r->inval_ts = e->ts;
		break;
	case KT_EV_EVICT:
		r = get_range(b, e->index);
		if (r && !b->dev_evicted)
			r->evict_pending = true;
		if (r && amd_batch(vd, b) && !amd_quiesced(vd, b) && !r->amd_pending) {
			r->amd_pending = true;
			r->amd_evict_ts = e->ts;
		}
		break;
	case KT_EV_EMU_EVICT:
		vd->evictions++;
		b->dev_evicted = true;
		b->dev_evicted_ts = e->ts;
		b->emu = true;
		for (unsigned int i = 0; i < b->nranges; i++) {
			b->r[i].evict_pending = false;
			b->r[i].amd_pending = false;
		}
		break;
	case KT_EV_EMU_RESTORE:
		on_restore(vd, b, e);
		break;
	case KT_EV_EMU_ACCESS:
		on_access(vd, b, e);
		break;
	default:
		break;
	}
}

#define KT_IN_FLIGHT_NS	1000000000ULL	/* an eviction this close to the end */

void kt_verdict_finish(struct kt_verdict *vd, __u64 now_ns)
{
	unsigned int i, j;

	for (i = 0; i < vd->nbuckets; i++) {
		struct kt_vbatch *b = &vd->batches[i];

		if (b->used && !b->dead && b->dev_evicted &&
		    now_ns - b->dev_evicted_ts > KT_IN_FLIGHT_NS)
			violate(vd, b->dev_evicted_ts, b->id, -1, "restore",
				"still evicted at the end of the trace");
		if (!b->used || !amd_batch(vd, b))
			continue;
		for (j = 0; j < b->nranges; j++)
			if (b->r[j].amd_pending &&
			    now_ns - b->r[j].amd_evict_ts > KT_IN_FLIGHT_NS)
				amd_unanswered(vd, b, j, b->r[j].amd_evict_ts,
					       "by the end of the trace");
	}
	for (i = 0; i < vd->nprocs; i++) {
		struct kt_vproc *p = &vd->procs[i];
		bool live = false;

		if (!p->depth || now_ns - p->quiesce_ts <= KT_IN_FLIGHT_NS)
			continue;
		for (j = 0; j < vd->nbuckets && !live; j++)
			live = vd->batches[j].used && amd_batch(vd, &vd->batches[j]) &&
			       vd->batches[j].mm == p->mm;
		if (live)
			violate(vd, p->quiesce_ts, 0, -1, "restore",
				"amdgpu's queues of a process with live batches still quiesced at the end of the trace");
	}
}

const char *kt_verdict_result(const struct kt_verdict *vd, __u64 lost)
{
	if (lost)
		return "incomplete";
	if (vd->nviolations)
		return "fail";
	if (!vd->evictions)
		return "n/a";
	return "pass";
}

void kt_verdict_print(FILE *f, const struct kt_verdict *vd, __u64 lost)
{
	__u64 i;

	fprintf(f,
		"\neviction verdict: %s (%llu events, %llu device evictions, %llu restores, %llu accesses, %llu violations",
		kt_verdict_result(vd, lost), (unsigned long long)vd->events,
		(unsigned long long)vd->evictions, (unsigned long long)vd->restores,
		(unsigned long long)vd->accesses, (unsigned long long)vd->nviolations);
	if (lost)
		fprintf(f, ", %llu updates or events lost: lost.*", (unsigned long long)lost);
	fprintf(f, ")\n");
	/* a lost event (a restore, say) may be all that makes these violations */
	if (lost && vd->nviolations)
		fprintf(f, "  not judged, seen on partial data:\n");
	for (i = 0; i < vd->nviolations && i < KT_MAX_VIOLATIONS; i++) {
		const struct kt_violation *v = &vd->v[i];

		fprintf(f, "  %12.6f s  batch %llu", (v->ts - vd->first_ts) / 1e9,
			(unsigned long long)v->batch);
		if (v->range >= 0)
			fprintf(f, " range %d", v->range);
		fprintf(f, "  [%s] %s\n", v->rule, v->what);
	}
}

json_t *kt_verdict_json(const struct kt_verdict *vd, __u64 lost)
{
	json_t *o, *list, *v;
	int err = 0;
	__u64 i;

	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
		      "eviction", kt_verdict_result(vd, lost),
		      "violations", (json_int_t)vd->nviolations,
		      "events", (json_int_t)vd->events, "lost", (json_int_t)lost,
		      "evictions", (json_int_t)vd->evictions,
		      "restores", (json_int_t)vd->restores,
		      "accesses", (json_int_t)vd->accesses);
	list = json_array();
	if (!o || json_object_set_new(o, "list", list)) {
		json_decref(o);
		return NULL;
	}
	for (i = 0; i < vd->nviolations && i < KT_MAX_VIOLATIONS; i++) {
		const struct kt_violation *x = &vd->v[i];

		v = json_pack("{s:f, s:I, s:i, s:s, s:s}",
			      "t_s", round((x->ts - vd->first_ts) / 1e3) / 1e6,
			      "batch", (json_int_t)x->batch, "range", x->range,
			      "rule", x->rule, "what", x->what);
		err |= json_array_append_new(list, v);
	}
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

void kt_verdict_free(struct kt_verdict *vd)
{
	unsigned int i;

	for (i = 0; i < vd->nbuckets; i++)
		free(vd->batches[i].r);
	free(vd->batches);
	vd->batches = NULL;
	free(vd->procs);
	vd->procs = NULL;
	vd->nprocs = 0;
}
