// SPDX-License-Identifier: GPL-2.0
/*
 * Print the host's TSC rate in kHz, for the guest's tsc_early_khz=.
 *
 * Under TCG the guest's TSC is the host's, so its rate is known here. The
 * guest would otherwise calibrate it against the emulated PIT, which TCG
 * does not keep in step with real time: that calibration fails now and
 * then, and a microvm guest that cannot calibrate its TSC hangs.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

#define SPAN_NS		100000000LL	/* long enough for 10 ppm */
#define TRIES		5

static int64_t ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

/*
 * One TSC reading and the time it was taken, as tight as the two reads
 * allow: the pair with the shortest gap of a few is kept.
 */
static void sample(uint64_t *tsc, int64_t *t)
{
	struct timespec a, b;
	int64_t best = INT64_MAX;
	uint64_t c;
	int i;

	for (i = 0; i < TRIES; i++) {
		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		c = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		if (ns(&b) - ns(&a) < best) {
			best = ns(&b) - ns(&a);
			*tsc = c;
			*t = (ns(&a) + ns(&b)) / 2;
		}
	}
}

int main(void)
{
	struct timespec span = { 0, SPAN_NS };
	uint64_t c0, c1;
	int64_t t0, t1;

	sample(&c0, &t0);
	nanosleep(&span, NULL);
	sample(&c1, &t1);
	if (t1 <= t0 || c1 <= c0) {
		fprintf(stderr, "host-tsc-khz: the TSC or the clock did not advance\n");
		return 1;
	}
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000ULL / (t1 - t0)));
	return 0;
}
