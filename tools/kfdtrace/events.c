// SPDX-License-Identifier: GPL-2.0
/*
 * kfdtrace's events file: written by record -w as the run goes (each ring
 * buffer event, a lost-events mark whenever the probes' count of dropped
 * events grows, the maps at the end), read back by report and check, which
 * replay it through the same verdict and report code as the live run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

FILE *kt_evfile_create(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		fprintf(stderr, "kfdtrace: %s: %s\n", path, strerror(errno));
	return f;
}

static int put(FILE *f, __u32 type, const void *a, __u32 alen, const void *b, __u32 blen)
{
	struct kt_evrec h = { .type = type, .len = alen + blen };

	if (fwrite(&h, sizeof(h), 1, f) != 1 || (alen && fwrite(a, alen, 1, f) != 1) ||
	    (blen && fwrite(b, blen, 1, f) != 1))
		return -EIO;
	return 0;
}

int kt_evfile_begin(FILE *f, const bool *live)
{
	struct kt_evfile_hdr h = {
		.version = KT_EVFILE_VERSION,
		.event_size = sizeof(struct kt_event),
		.layout = kt_evfile_layout(),
	};
	int g;

	memcpy(h.magic, KT_EVFILE_MAGIC, sizeof(h.magic));
	for (g = 0; g < KT_G_NR; g++)
		if (live[g])
			h.live |= 1U << g;
	return fwrite(&h, sizeof(h), 1, f) == 1 ? 0 : -EIO;
}

int kt_evfile_event(FILE *f, const struct kt_event *e)
{
	return put(f, KT_REC_EVENT, e, sizeof(*e), NULL, 0);
}

int kt_evfile_lost(FILE *f, __u64 lost)
{
	return put(f, KT_REC_LOST, &lost, sizeof(lost), NULL, 0);
}

int kt_evfile_end(FILE *f, const struct kt_run *r, __u64 end_ns)
{
	struct kt_evfile_end *e = calloc(1, sizeof(*e));
	int err, i;

	if (!e)
		return -ENOMEM;
	memcpy(e->counts, r->counts, sizeof(e->counts));
	memcpy(e->events, r->events, sizeof(e->events));
	memcpy(e->hists, r->hists, sizeof(e->hists));
	memcpy(e->names, r->names, sizeof(e->names));
	memcpy(e->errnos, r->errnos, sizeof(e->errnos));
	memcpy(e->kfd_dev, r->kfd_dev, sizeof(e->kfd_dev));
	memcpy(e->emu_dev, r->emu_dev, sizeof(e->emu_dev));
	memcpy(e->drm_dev, r->drm_dev, sizeof(e->drm_dev));
	e->follow_max = r->follow_max;
	e->end_ns = end_ns;
	e->seconds = r->seconds;
	e->status = r->status;
	e->signal = r->signal;
	e->exec_errno = r->exec_errno;
	e->stop = r->stop;
	e->nrows = r->nrows;
	for (i = 0; i < KT_IT_NR; i++)
		e->ioctl_at |= (__u32)(r->ioctl_at[i] & 3) << (2 * i);
	err = put(f, KT_REC_END, e, sizeof(*e), r->rows, r->nrows * sizeof(*r->rows));
	free(e);
	if (!err && fflush(f))
		err = -errno;
	return err;
}

bool kt_evfile_is(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "re");
	bool is = f && fread(magic, sizeof(magic), 1, f) == 1 &&
		  !memcmp(magic, KT_EVFILE_MAGIC, sizeof(magic));

	if (f)
		fclose(f);
	return is;
}

static int end_record(struct kt_run *r, const void *buf, __u32 len, __u64 *end_ns)
{
	const struct kt_evfile_end *e = buf;
	int at;

	if (len < sizeof(*e) || (len - sizeof(*e)) / sizeof(*r->rows) != e->nrows ||
	    (len - sizeof(*e)) % sizeof(*r->rows) || e->stop < KT_STOP_EXIT ||
	    e->stop > KT_STOP_SIGNAL)
		return -1;
	memcpy(r->counts, e->counts, sizeof(r->counts));
	memcpy(r->events, e->events, sizeof(r->events));
	memcpy(r->hists, e->hists, sizeof(r->hists));
	memcpy(r->names, e->names, sizeof(r->names));
	memcpy(r->errnos, e->errnos, sizeof(r->errnos));
	memcpy(r->kfd_dev, e->kfd_dev, sizeof(r->kfd_dev));
	memcpy(r->emu_dev, e->emu_dev, sizeof(r->emu_dev));
	memcpy(r->drm_dev, e->drm_dev, sizeof(r->drm_dev));
	r->kfd_dev[sizeof(r->kfd_dev) - 1] = 0;
	r->emu_dev[sizeof(r->emu_dev) - 1] = 0;
	r->drm_dev[sizeof(r->drm_dev) - 1] = 0;
	r->follow_max = e->follow_max;
	for (at = 0; at < KT_IT_NR; at++)
		r->ioctl_at[at] = e->ioctl_at >> (2 * at) & 3;
	r->seconds = e->seconds;
	r->status = e->status;
	r->signal = e->signal;
	r->exec_errno = e->exec_errno;
	r->stop = e->stop;
	*end_ns = e->end_ns;
	if (e->nrows) {
		r->rows = malloc(e->nrows * sizeof(*r->rows));
		if (!r->rows)
			return -1;
		memcpy(r->rows, e + 1, e->nrows * sizeof(*r->rows));
	}
	r->nrows = e->nrows;
	/* the classes' sums, as record makes them from the rows */
	for (__u32 i = 0; i < e->nrows; i++) {
		const struct kt_ioctl_stat *s = &r->rows[i].st;
		struct kt_ioctl_stat *c;

		if (r->rows[i].key.class >= KT_NR_CLASSES)
			return -1;
		c = &r->cls[r->rows[i].key.class];
		c->calls += s->calls;
		c->errors += s->errors;
		c->ranges += s->ranges;
		c->ns += s->ns;
		for (int j = 0; j < KT_HIST_SLOTS; j++)
			c->hist[j] += s->hist[j];
	}
	return 0;
}

#define KT_EVREC_MAX	(64U << 20)	/* no record is near this: garbage */

int kt_evfile_replay(const char *path, struct kt_run *r, char *err, size_t errlen)
{
	struct kt_evfile_hdr h;
	struct kt_evrec rec;
	__u64 lost = 0, end_ns = 0, nrec = 0;
	bool ended = false;
	void *buf = NULL;
	long off;
	FILE *f;
	int g, ret = -1;

	memset(r, 0, sizeof(*r));
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (kt_verdict_init(&r->verdict)) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, KT_EVFILE_MAGIC, sizeof(h.magic))) {
		snprintf(err, errlen, "%s: not a kfdtrace events file (record -w writes them)",
			 path);
		goto out;
	}
	if (h.version != KT_EVFILE_VERSION) {
		snprintf(err, errlen,
			 "%s: events file version %u; this kfdtrace reads version %u", path,
			 h.version, KT_EVFILE_VERSION);
		goto out;
	}
	if (h.event_size != sizeof(struct kt_event) || h.layout != kt_evfile_layout()) {
		snprintf(err, errlen,
			 "%s: recorded with another event layout (event size %u, layout %08x; this kfdtrace: %zu, %08x)",
			 path, h.event_size, h.layout, sizeof(struct kt_event),
			 kt_evfile_layout());
		goto out;
	}
	for (g = 0; g < KT_G_NR; g++)
		r->live[g] = h.live >> g & 1;
	r->verdict.amdgpu = r->live[KT_G_AMDGPU];
	for (;;) {
		off = ftell(f);
		if (fread(&rec, sizeof(rec), 1, f) != 1)
			break;
		if (ended) {
			snprintf(err, errlen, "%s: data after the end record, at byte %ld", path,
				 off);
			goto out;
		}
		if (rec.len > KT_EVREC_MAX ||
		    (rec.type == KT_REC_EVENT && rec.len != sizeof(struct kt_event)) ||
		    (rec.type == KT_REC_LOST && rec.len != sizeof(__u64)) ||
		    (rec.type != KT_REC_EVENT && rec.type != KT_REC_LOST &&
		     rec.type != KT_REC_END)) {
			snprintf(err, errlen,
				 "%s: corrupt record at byte %ld (type %u, %u bytes)", path, off,
				 rec.type, rec.len);
			goto out;
		}
		free(buf);
		buf = malloc(rec.len ? rec.len : 1);
		if (!buf) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto out;
		}
		if (rec.len && fread(buf, rec.len, 1, f) != 1) {
			snprintf(err, errlen, "%s: truncated at byte %ld, in a record of %u bytes",
				 path, off, rec.len);
			goto out;
		}
		nrec++;
		if (rec.type == KT_REC_EVENT) {
			kt_verdict_event(&r->verdict, buf);
		} else if (rec.type == KT_REC_LOST) {
			memcpy(&end_ns, buf, sizeof(end_ns));
			if (end_ns > lost)
				lost = end_ns;
		} else {
			if (end_record(r, buf, rec.len, &end_ns)) {
				snprintf(err, errlen, "%s: corrupt end record at byte %ld", path,
					 off);
				goto out;
			}
			ended = true;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!ended) {
		snprintf(err, errlen,
			 "%s: truncated: no end record after %llu records (the recording was cut short, or this is not the whole file)",
			 path, (unsigned long long)nrec);
		goto out;
	}
	/* a mark the end record's count does not cover still counts */
	if (lost > r->counts[KT_EVENTS_LOST])
		r->counts[KT_EVENTS_LOST] = lost;
	kt_verdict_finish(&r->verdict, end_ns);
	ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}
