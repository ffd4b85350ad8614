/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_BENCH_CPU_H
#define DCN_BENCH_CPU_H

/*
 * What the C benches of two threads share: the CPUs this process may
 * use, and a thread pinned to one of them.
 */
#include <pthread.h>
#include <sched.h>

/* Pin the calling thread to CPU cpu. @return 0 or an error number. */
static inline int
bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The first CPUs (at most want) this process may use, into cpu[].
 * @return how many were found. */
static inline int
bench_cpus(int *cpu, int want)
{
	cpu_set_t set;
	int c, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (c = 0; c < CPU_SETSIZE && n < want; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n;
}

#endif /* DCN_BENCH_CPU_H */
