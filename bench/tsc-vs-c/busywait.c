/*
 * The C side of bench/tsc-vs-c: the same job as rtbox's tsc probe, written for this
 * benchmark. Busy-waits a sweep of lengths on the TSC (calibrated against
 * CLOCK_MONOTONIC) and measures each overshoot with CLOCK_MONOTONIC.
 *   busywait FROM_US TO_US STEP_US WAITS
 * Prints: min_ns avg_ns max_ns waits tsc_hz
 * Scheduling and CPU come from the caller (chrt, taskset).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t tsc_now(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double calibrate(void)
{
	int64_t t0 = mono_ns();
	uint64_t c0 = tsc_now();
	while (mono_ns() - t0 < 100000000LL)
		;
	uint64_t c1 = tsc_now();
	int64_t t1 = mono_ns();
	return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s FROM_US TO_US STEP_US WAITS\n", argv[0]);
		return 2;
	}
	long from = atol(argv[1]), to = atol(argv[2]), step = atol(argv[3]);
	long waits = atol(argv[4]);
	if (from < 1 || to < from || step < 1 || waits < 1) {
		fprintf(stderr, "bad sweep %ld..%ld step %ld, %ld waits\n", from, to, step, waits);
		return 2;
	}
	double hz = calibrate();
	int64_t min = INT64_MAX, max = 0, sum = 0;
	long us = from;
	for (long n = 0; n < waits; n++) {
		int64_t wait_ns = us * 1000LL;
		uint64_t ticks = (uint64_t)(wait_ns * hz / 1e9);
		int64_t t0 = mono_ns();
		uint64_t target = tsc_now() + ticks;
		while (tsc_now() < target)
			;
		int64_t t1 = mono_ns();
		int64_t over = t1 - t0 - wait_ns;
		if (over < 0)
			over = 0;
		if (over < min)
			min = over;
		if (over > max)
			max = over;
		sum += over;
		us = us + step > to ? from : us + step;
	}
	printf("%lld %.1f %lld %ld %.0f\n", (long long)min, (double)sum / waits, (long long)max, waits, hz);
	return 0;
}
