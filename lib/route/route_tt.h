/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Totoro's geometry and what its two routings share: TRA (route_tra.c)
 * and TFR (route_tfr.c), which is built on it. Private to lib/route.
 */
#ifndef DCN_ROUTE_TT_H
#define DCN_ROUTE_TT_H

#include "route_priv.h"

struct tt_geo {
	unsigned int N, n, K;
	uint32_t block[DCN_TOPO_MAX_DIGITS + 1]; /* N n^j */
};

static inline void
tt_geo_load(const struct dcn_topo *t, struct tt_geo *g)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	unsigned int j;

	g->N = p->N;
	g->n = p->n;
	g->K = p->K;
	for (j = 0; j <= g->K; j++)
		g->block[j] = j == 0 ? p->N : g->block[j - 1] * p->n;
}

/* The least broadcast-domain level the paper allows, log_n(2^K / N): the
 * least bc with N n^bc >= 2^K. */
static inline unsigned int
least_bc_level(const struct tt_geo *g)
{
	unsigned int bc = 0;

	while (bc < g->K && g->block[bc] < (1ull << g->K))
		bc++;
	return bc;
}

/* Link level of a server (Alg. 1 line 10); with N a multiple of 2^K it
 * depends on a_0 alone. */
static inline unsigned int
level_of(const struct tt_geo *g, uint32_t tid)
{
	unsigned int ones = (unsigned int)__builtin_ctz(~tid);

	return ones < g->K ? ones + 1 : 0;
}

/* TRA's candidates at cur (route_tra.c): TFR takes them where a TRA
 * route is live as far as cur knows. */
unsigned int tra_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
			    const struct dcn_route_state *st, struct dcn_hop *out);
/* TRA's hops from cur towards dst on routes live as far as cur knows
 * (TFR takes them where there are any: route_tfr.c); 0 when none is, or
 * TRA does not apply (N not a multiple of 2^K, or tfr-literal). */
unsigned int tra_live_hops(const struct dcn_router *r, uint32_t cur, uint32_t dst,
			   struct dcn_hop *out);
/* Does node keep origin's link-state announcements (its broadcast
 * domain, and the outer servers across its high-level links)? */
int tt_lsa_wants(const struct dcn_router *r, uint32_t node, uint32_t origin);
/* Totoro's VCs (route_ops.vc_rule), TRA's and TFR's alike. */
unsigned int tt_vc_rule(const struct dcn_router *r, int *by_hops);

#endif /* DCN_ROUTE_TT_H */
