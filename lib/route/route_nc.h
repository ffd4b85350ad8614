/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What NovaCube's two routings, PORA and DOR (route_pora.c), share with
 * their VC bookkeeping (route_nc_vc.c). Private to lib/route.
 */
#ifndef DCN_ROUTE_NC_H
#define DCN_ROUTE_NC_H

#include "route_priv.h"

#define NC_MAX_DIM 6

/* Does pora turn to a detour where PORA has no live hop? */
static inline int
pora_detours(const struct dcn_router *r)
{
	return r->algo == DCN_ALGO_PORA && r->fail != NULL;
}

/* A hop's VC by the class and dateline rule (route_nc_vc.c). */
void nc_vc_advance(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h,
		   struct dcn_route_state *st);
/* A PORA detour's hop: one VC up. */
void detour_vc_advance(const struct dcn_router *r, struct dcn_route_state *st);
/* NovaCube's VCs (route_ops.vc_rule). */
unsigned int nc_vc_rule(const struct dcn_router *r, int *by_hops);

#endif /* DCN_ROUTE_NC_H */
