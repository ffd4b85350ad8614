/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_BENCH_TIME_H
#define DCN_BENCH_TIME_H

/*
 * What the C benches share to time rounds and sum them up: a monotonic
 * clock in ns, and the median of a round's figures (the array sorted in
 * place, so its first and last entries are then the spread).
 */
#include <stdlib.h>
#include <time.h>

static inline double
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v (n entries) and gives its median. */
static inline double
bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

#endif /* DCN_BENCH_TIME_H */
