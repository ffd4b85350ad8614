/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FAR's pieces shared by its lookups (route_far.c) and its negative
 * tables (route_far_nrt.c). Private to lib/route.
 */
#ifndef DCN_ROUTE_FAR_H
#define DCN_ROUTE_FAR_H

#include "route_priv.h"

/* A dotted quad: the masks of the paper's tables. */
static inline uint32_t
ip4(unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
	return a << 24 | b << 16 | c << 8 | d;
}

/* The paper's 10.b.c.d in the fabric's own network: a prefix= plan moves
 * the first octet only (Diamond's prefixes are /8 or shorter). */
static inline uint32_t
far_addr(const struct dcn_topo *t, unsigned int b, unsigned int c,
	 unsigned int d)
{
	uint32_t net;
	unsigned int len;

	dcn_topo_prefix(t, &net, &len);
	return net | b << 16 | c << 8 | d;
}

/* Index of edge switch E_ij among the edge switches. */
static inline uint32_t
edge_index(unsigned int k, unsigned int i, unsigned int j)
{
	return (i - 1) * k + (j - 1);
}

/* Every edge switch's NRT from r->fail, into r->u.far (route_far_nrt.c). */
int far_build_nrt(struct dcn_router *r);
/* The NRT of switch sw (empty for cores and when nothing failed). */
const struct dcn_far_entry *far_nrt_of(const struct dcn_router *r, uint32_t sw,
				       unsigned int *n);

#endif /* DCN_ROUTE_FAR_H */
