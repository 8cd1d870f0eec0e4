// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a synthetic kfdtrace events file (the format of record -w, from
 * the same struct definitions) for the replay tests: what amdgpu and the
 * helper send on a correct eviction and restore, and the same stream with
 * one ordering bug injected for each of amdgpu's rules.
 *
 *   evstream SCENARIO FILE      (evstream -l lists the scenarios)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

#define MM	0xffff888012345000ULL	/* the process */
#define BATCH	7
#define MS	1000000ULL

static FILE *out;
static __u64 now = 1000 * MS;

static void rec(__u32 type, const void *p, __u32 len)
{
	struct kt_evrec h = { .type = type, .len = len };

	if (fwrite(&h, sizeof(h), 1, out) != 1 || fwrite(p, len, 1, out) != 1) {
		perror("evstream");
		exit(2);
	}
}

static void ev(__u32 type, __u64 batch, __u32 index, __s32 ret, __u32 arg)
{
	struct kt_event e = {
		.ts = now, .batch = batch, .type = type, .index = index, .ret = ret,
		.arg = arg,
	};

	/* the helper's events and amdgpu's name the process */
	if (type != KT_EV_EMU_EVICT && type != KT_EV_EMU_RESTORE && type != KT_EV_EMU_ACCESS)
		e.mm = MM;
	now += MS;
	rec(KT_REC_EVENT, &e, sizeof(e));
}

static void lost(__u64 n)
{
	rec(KT_REC_LOST, &n, sizeof(n));
}

/* an invalidation of range @i: the helper's, and amdgpu's quiesce if @quiesce */
static void invalidate(unsigned int i, int quiesce)
{
	ev(KT_EV_INVAL, BATCH, i, 0, 0);
	ev(KT_EV_EVICT, BATCH, i, 0, 0);
	if (quiesce)
		ev(KT_EV_AMDGPU_QUIESCE, 0, 0, 0, 2 /* KFD_QUEUE_EVICTION_TRIGGER_USERPTR */);
}

static void resume(void)
{
	ev(KT_EV_AMDGPU_RESUME, 0, 0, 0, 0);
}

/*
 * The correct order: range 0 invalidated, the queues quiesced, range 0
 * faulted again, the queues resumed; then ranges 1 and 2 invalidated, the
 * second while the queues stand still (no new quiesce), both faulted,
 * resumed; then the batch freed.
 */
static void amdgpu_cycle(const char *bug)
{
	if (!strcmp(bug, "no-quiesce-end")) {
		invalidate(0, 0);	/* and nothing more of it */
		now += 5000 * MS;
		return;
	}
	invalidate(0, strcmp(bug, "no-quiesce"));
	ev(KT_EV_FAULT, BATCH, 0, 0, 0);
	resume();
	if (!strcmp(bug, "never-resumed") || !strcmp(bug, "lost-resume")) {
		invalidate(1, 1);
		ev(KT_EV_FAULT, BATCH, 1, 0, 0);
		if (!strcmp(bug, "lost-resume"))
			lost(1);	/* the resume: the ring buffer was full */
		now += 5000 * MS;
		return;
	}
	if (!strcmp(bug, "resume-unquiesced")) {
		resume();
		return;
	}
	invalidate(1, 1);
	invalidate(2, 0);
	ev(KT_EV_FAULT, BATCH, 1, 0, 0);
	ev(KT_EV_FAULT, BATCH, 2, 0, 0);
	if (!strcmp(bug, "stale-commit"))
		invalidate(2, 0);	/* after its fault, before the commit */
	resume();
	ev(KT_EV_DESTROY, BATCH, 0, 0, 0);
}

/* the emulated device's batch, amdgpu live too: the device's rules alone */
static void emu_cycle(void)
{
	ev(KT_EV_INVAL, BATCH + 1, 0, 0, 0);
	ev(KT_EV_EVICT, BATCH + 1, 0, 0, 0);
	ev(KT_EV_EMU_EVICT, BATCH + 1, 0, 0, 1);
	ev(KT_EV_FAULT, BATCH + 1, 0, 0, 0);
	ev(KT_EV_EMU_RESTORE, BATCH + 1, 0, 0, 0);
	ev(KT_EV_EMU_ACCESS, BATCH + 1, 0, 0, 1);
	now += 5000 * MS;
}

static const char *const scenarios[] = {
	"amdgpu-pass", "emu-pass", "no-quiesce", "no-quiesce-end", "resume-unquiesced",
	"stale-commit", "never-resumed", "lost-resume", "bad-version", "bad-layout", NULL,
};

int main(int argc, char **argv)
{
	struct kt_evfile_hdr h = {
		.version = KT_EVFILE_VERSION,
		.event_size = sizeof(struct kt_event),
		.layout = kt_evfile_layout(),
		.live = 1U << KT_G_IOCTL | 1U << KT_G_HELPER | 1U << KT_G_EMU |
			1U << KT_G_AMDGPU,
	};
	static struct kt_evfile_end end;
	const char *s;
	int i;

	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (i = 0; scenarios[i]; i++)
			printf("%s\n", scenarios[i]);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: evstream SCENARIO FILE (-l: the scenarios)\n");
		return 2;
	}
	s = argv[1];
	for (i = 0; scenarios[i] && strcmp(scenarios[i], s); i++)
		;
	if (!scenarios[i]) {
		fprintf(stderr, "evstream: no scenario %s\n", s);
		return 2;
	}
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 2;
	}
	memcpy(h.magic, KT_EVFILE_MAGIC, sizeof(h.magic));
	if (!strcmp(s, "bad-version"))
		h.version = KT_EVFILE_VERSION + 1;
	if (!strcmp(s, "bad-layout"))
		h.layout ^= 1;
	fwrite(&h, sizeof(h), 1, out);
	if (!strcmp(s, "emu-pass"))
		emu_cycle();
	else
		amdgpu_cycle(s);
	end.end_ns = now;
	end.seconds = (now - 1000 * MS) / 1e9;
	end.status = 0;
	end.stop = KT_STOP_EXIT;
	rec(KT_REC_END, &end, sizeof(end));
	return fclose(out) ? 2 : 0;
}
