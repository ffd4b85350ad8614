/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the routed figures (metrics.c) share with the exact expectation
 * of randomly drawn routes (metrics_exact.c). Private to lib/metrics.
 */
#ifndef DCN_METRICS_PRIV_H
#define DCN_METRICS_PRIV_H

#include "dcn_metrics.h"

/* Running sums for one dcn_path_stats; per source too, as sampled
 * sources are the sampling unit (their pairs are not independent). */
struct acc {
	double sum[3];
	double sumsq;
	double src_sum, src_cnt;     /* this source's, paper unit */
	double means, means_sq, n_means; /* over the sources done */
};

/*
 * Routes drawn at random (PORA's eq. 12), taken exactly: a walk is a
 * Markov chain over (node, route state), and every hop shortens the
 * in-quadrant distance, so the chain has no cycle. The distribution of the
 * length still to go, from each (node, state), is computed once and
 * memoised: the expectation over every draw, where walking samples it.
 */
#define EX_MEMO (1u << 16)
#define EX_DEPTH 64

struct ex_memo {
	const struct dcn_router *r;
	enum dcn_unit unit;
	struct ex_slot *slot;
	uint32_t gen;
	int full;                    /* more states than slots: give up */
};

/* The memo's slots (its router and unit set): 0, or -ENOMEM. */
int ex_memo_init(struct ex_memo *x);
void ex_memo_fini(struct ex_memo *x);
/* The route a -> b, exactly, into the routed figures. @return 0, or -1
 * when the chain has more states than the memo holds. */
int ex_pair(struct ex_memo *x, uint32_t a, uint32_t b, struct dcn_path_stats *s,
	    struct acc *ac, double *count);

#endif /* DCN_METRICS_PRIV_H */
