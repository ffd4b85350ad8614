/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * core-rtt: how long a cache line takes to go from one CPU to another
 * and back, now. Two threads, one a CPU, hand a counter to each other
 * through one line: each waits for the other's increment, then makes its
 * own. A round trip is the line moving twice.
 *
 * Every frame that crosses workers, and every credit two senders share,
 * pays this. On a virtual machine it is not steady: this machine's two
 * CPUs showed about 80 ns in some phases and about 380 ns in others,
 * tens of seconds each (CPUs of one core complex, then of two), while a
 * compute loop ran at the same rate on both in either. So benches of
 * several workers (tools/bench/scaling.py) take it each round, beside
 * their own figures. Measured, never asserted.
 *
 *   core-rtt [SECONDS [CPU_A CPU_B]]   (default 0.2 s, the first two CPUs)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_cpu.h"
#include "bench_time.h"

static volatile unsigned long line __attribute__((aligned(64)));
static volatile int stop;

/* The far end: turns an odd count even. */
static void *
far_end(void *arg)
{
	if (bench_pin(*(int *)arg) != 0)
		return NULL;
	while (!stop) {
		unsigned long v = line;

		if (v & 1)
			line = v + 1;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.2, start, el;
	unsigned long trips = 0;
	int cpu[2], a, b;
	pthread_t t;

	if (argc > 3) {
		cpu[0] = atoi(argv[2]);
		cpu[1] = atoi(argv[3]);
	} else if (bench_cpus(cpu, 2) != 2) {
		fprintf(stderr, "core-rtt: needs two CPUs\n");
		return 77;
	}
	a = cpu[0];
	b = cpu[1];
	if (seconds <= 0 || bench_pin(a) != 0 ||
	    pthread_create(&t, NULL, far_end, &b) != 0) {
		fprintf(stderr, "core-rtt: cannot run on CPUs %d and %d\n", a, b);
		return 1;
	}
	start = bench_now_ns();
	do {
		unsigned int i;

		for (i = 0; i < 1000; i++) {
			unsigned long v = line;

			/* even: ours to make odd; wait while the far end has it */
			while (v & 1)
				v = line;
			line = v + 1;
		}
		trips += 1000;
		el = bench_now_ns() - start;
	} while (el < seconds * 1e9);
	stop = 1;
	line = line | 1;
	pthread_join(t, NULL);
	printf("core-to-core round trip: %.0f ns (CPUs %d and %d, %lu trips)\n",
	       el / (double)trips, a, b, trips);
	return 0;
}
