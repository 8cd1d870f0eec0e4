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
};

struct kt_vbatch {
	__u64 id;
	bool used, dead, dev_evicted;
	__u64 dev_evicted_ts;
	unsigned int nranges;
	struct kt_vrange *r;
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

void kt_verdict_event(struct kt_verdict *vd, const struct kt_event *e)
{
	struct kt_vbatch *b = get_batch(vd, e->batch);
	struct kt_vrange *r;

	if (!b)
		return;
	if (!vd->events++)
		vd->first_ts = e->ts;
	switch (e->type) {
	case KT_EV_DESTROY:
		b->dead = true;
		b->dev_evicted = false;
		free(b->r);
		b->r = NULL;
		b->nranges = 0;
		break;
	case KT_EV_FAULT:
		r = get_range(b, e->index);
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
		break;
	case KT_EV_EMU_EVICT:
		vd->evictions++;
		b->dev_evicted = true;
		b->dev_evicted_ts = e->ts;
		for (unsigned int i = 0; i < b->nranges; i++)
			b->r[i].evict_pending = false;
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

void kt_verdict_finish(struct kt_verdict *vd, __u64 now_ns)
{
	unsigned int i;

	for (i = 0; i < vd->nbuckets; i++) {
		struct kt_vbatch *b = &vd->batches[i];

		if (b->used && !b->dead && b->dev_evicted &&
		    now_ns - b->dev_evicted_ts > 1000000000ULL)
			violate(vd, b->dev_evicted_ts, b->id, -1, "restore",
				"still evicted at the end of the trace");
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
}
