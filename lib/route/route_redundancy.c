/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RRect's redundancy (§5): which server answers for an address, mirrors
 * and standbys. Used by route.c's walks, RRect's routing and the channel
 * dependency graph alike; calls none of them.
 */
#include "route_priv.h"

/* RRect redundancy: sub-group members of v are a_0 = c n + g, c in [0,m). */
static uint32_t
rrect_member(const struct dcn_router *r, uint32_t v, unsigned int c)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	uint32_t mn = p->m * p->n, a0 = v % mn;

	return v - a0 + c * p->n + a0 % p->n;
}

/* Standby c_s of v's sub-group is awake when fewer live standbys come
 * before it than working members have failed. @return 1 if awake. */
static int
rrect_standby_awake(const struct dcn_router *r, uint32_t s)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	unsigned int alpha = r->conf.rrect_alpha, c, failed = 0, before = 0;
	unsigned int cs = s % (p->m * p->n) / p->n;

	for (c = 0; c < alpha; c++)
		failed += !rt_up(r, rrect_member(r, s, c));
	for (c = alpha; c < cs; c++)
		before += rt_up(r, rrect_member(r, s, c));
	return before < failed;
}

int
dcn_route_is_address(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p;

	if (r->conf.rrect_mode != DCN_RRECT_STANDBY)
		return 1;
	p = dcn_topo_params(r->t);
	return v % (p->m * p->n) / p->n < r->conf.rrect_alpha;
}

int
dcn_route_server_up(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p;

	if (!rt_up(r, v))
		return 0;
	if (r->conf.rrect_mode != DCN_RRECT_STANDBY)
		return 1;
	p = dcn_topo_params(r->t);
	if (v % (p->m * p->n) / p->n < r->conf.rrect_alpha)
		return 1;
	return rrect_standby_awake(r, v);
}

uint32_t
route_rrect_identity(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p;
	unsigned int alpha = r->conf.rrect_alpha, cv, c, rank = 0;

	if (r->conf.rrect_mode != DCN_RRECT_STANDBY || !rt_up(r, v))
		return v;
	p = dcn_topo_params(r->t);
	cv = v % (p->m * p->n) / p->n;
	if (cv < alpha || !rrect_standby_awake(r, v))
		return v;
	/* The rank-th live standby takes over the rank-th failed working
	 * member (dcn_route_resolve): the inverse. */
	for (c = alpha; c < cv; c++)
		rank += rt_up(r, rrect_member(r, v, c));
	for (c = 0; c < alpha; c++)
		if (!rt_up(r, rrect_member(r, v, c)) && rank-- == 0)
			return rrect_member(r, v, c);
	return v;
}

uint32_t
dcn_route_resolve(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	unsigned int c0, i, failed = 0, alpha = r->conf.rrect_alpha;

	if (rt_up(r, v))
		return dcn_route_server_up(r, v) ? v : DCN_ROUTE_NONE;
	switch (r->conf.rrect_mode) {
	case DCN_RRECT_MIRROR:
		/* The next live member of the sub-group answers. */
		c0 = v % (p->m * p->n) / p->n;
		for (i = 1; i < p->m; i++) {
			uint32_t w = rrect_member(r, v, (c0 + i) % p->m);

			if (rt_up(r, w))
				return w;
		}
		return DCN_ROUTE_NONE;
	case DCN_RRECT_STANDBY:
		/* The i-th failed working member is taken over by the i-th
		 * live standby. */
		c0 = v % (p->m * p->n) / p->n;
		if (c0 >= alpha)
			return DCN_ROUTE_NONE;
		for (i = 0; i < c0; i++)
			failed += !rt_up(r, rrect_member(r, v, i));
		for (i = alpha; i < p->m; i++) {
			uint32_t w = rrect_member(r, v, i);

			if (!rt_up(r, w))
				continue;
			if (failed-- == 0)
				return w;
		}
		/* No standby awake for it: with alpha > 1 the working members
		 * of a sub-group are mirrors to each other, and "a mirror of
		 * the failed server can do the failover" (§5, last
		 * paragraph): the next live one stands in. A standby comes
		 * first, as the paper would under load. */
		for (i = 1; i < alpha; i++) {
			uint32_t w = rrect_member(r, v, (c0 + i) % alpha);

			if (rt_up(r, w))
				return w;
		}
		return DCN_ROUTE_NONE;
	default:
		return DCN_ROUTE_NONE;
	}
}
