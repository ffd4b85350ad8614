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

#endif
