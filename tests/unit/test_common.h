/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_TEST_COMMON_H
#define DCN_TEST_COMMON_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dcn_metrics.h"
#include "dcn_route.h"
#include "dcn_topo.h"

/* Doubles compared with a tolerance, printing both on failure. */
#define assert_near(a, b, eps)                                              \
	do {                                                                \
		double a_ = (a), b_ = (b);                                  \
		if (!(fabs(a_ - b_) <= (eps)))                              \
			fail_msg("%s = %.6f, expected %.6f +- %g", #a, a_,  \
				 b_, (double)(eps));                        \
	} while (0)

static inline struct dcn_topo *
topo_or_fail(const char *spec)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_topo *t = dcn_topo_create(spec, err, sizeof(err));

	if (t == NULL)
		fail_msg("%s: %s", spec, err);
	return t;
}

static inline struct dcn_router *
router_or_fail(const struct dcn_topo *t, enum dcn_route_algo algo)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_router *r = dcn_router_create(t, algo, err, sizeof(err));

	if (r == NULL)
		fail_msg("%s: %s", dcn_topo_spec(t), err);
	return r;
}

static inline uint32_t
vertex_or_fail(const struct dcn_topo *t, const char *name)
{
	char err[DCN_TOPO_ERR_LEN];
	int64_t v = dcn_topo_parse_vertex(t, name, err, sizeof(err));

	if (v < 0)
		fail_msg("%s", err);
	return (uint32_t)v;
}

/* Node v's compiled table answers every destination as its router does. */
static inline void
expect_table_matches(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo *t = dcn_router_topo(r);
	struct dcn_hop a[DCN_ROUTE_MAX_HOPS], scratch[DCN_ROUTE_MAX_HOPS];
	struct dcn_rtable *tb = dcn_rtable_compile(r, v);
	struct dcn_route_state st;
	const struct dcn_hop *b;
	uint32_t d;

	if (tb == NULL)
		fail_msg("%s: cannot compile #%u", dcn_topo_spec(t), v);
	assert_int_equal(dcn_rtable_node(tb), v);
	assert_true(dcn_rtable_bytes(tb) > 0);
	for (d = 0; d < dcn_topo_servers(t); d++) {
		unsigned int n, m;

		dcn_route_state_init(r, v, d, &st);
		n = dcn_route_candidates(r, v, d, &st, a);
		m = dcn_rtable_lookup(tb, dcn_topo_addr(t, d), &st, scratch, &b);
		if (n != m || (n && memcmp(a, b, n * sizeof(*a)) != 0))
			fail_msg("%s: table of #%u differs for #%u (%u vs %u)",
				 dcn_topo_spec(t), v, d, m, n);
	}
	/* Not a server of the fabric: no route. */
	dcn_route_state_init(r, v, 0, &st);
	assert_int_equal(dcn_rtable_lookup(tb, 0x0b000001, &st, scratch, &b), 0);
	assert_int_equal(dcn_rtable_lookup(tb, 0x0affffff, &st, scratch, &b), 0);
	dcn_rtable_free(tb);
}

#endif
