/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VC bookkeeping shared by PORA and DOR (README.md, "Virtual channels").
 * A frame's VC is 2 * class + dateline bit. Channels are ordered by
 * (class, dimension, dateline bit, position along the direction of
 * travel), the jump-over link counting as dimension n. Within a class a
 * frame moves to higher dimensions only, in one direction per dimension,
 * and crosses a dimension's dateline at most once (a quadrant spans less
 * than a ring), so every hop takes a higher channel. A hop that would go
 * lower (the first hop out of dimension order, a turn back after a jump
 * or a failure's detour) starts the next class. The classes end at
 * r->vcs / 2; dcn-topo cdg shows the graph acyclic within them. A route
 * that needs one more is spent (DCN_VC_SPENT), unless fewer VCs were
 * asked for than the rule's (conf.vcs), which merge into the last class.
 */
#include "route_nc.h"

/* The VCs of PORA's own classes: n + 3 pairs (pora-literal, DOR); pora
 * with failures keeps PORA in the three pairs it needs without them, and
 * its detours take the VCs above. */
static unsigned int
pora_class_vcs(const struct dcn_router *r)
{
	unsigned int v = pora_detours(r) ? 6 : 2 * (dcn_topo_params(r->t)->n + 3);

	return v < r->vcs ? v : r->vcs;
}

/* A detour hop: the first VC above PORA's classes, then one more each
 * hop (spent past the last). PORA's channels are ordered by (class,
 * dimension, dateline bit, position), within which the VC can fall, so
 * detour hops must wait only for channels above all of them. */
void
detour_vc_advance(const struct dcn_router *r, struct dcn_route_state *st)
{
	unsigned int base = pora_class_vcs(r);
	unsigned int v = st->vc == DCN_VC_NONE || st->vc < base ? base : st->vc + 1u;

	if (st->vc == DCN_VC_SPENT)
		return;
	st->vc = v < r->vcs ? (uint8_t)v :
		 r->vcs < r->rule_vcs ? (uint8_t)(r->vcs - 1) : DCN_VC_SPENT;
}

void
nc_vc_advance(const struct dcn_router *r, uint32_t cur,
	      const struct dcn_hop *h, struct dcn_route_state *st)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	unsigned int classes = pora_class_vcs(r) / 2 ? pora_class_vcs(r) / 2 : 1;
	unsigned int cls = st->vc / 2, bit = st->vc & 1;
	unsigned int dim, dir;
	uint8_t c[NC_MAX_DIM];

	if (st->vc == DCN_VC_SPENT)
		return;
	if (h->port == 2 * p->n) {
		dim = p->n;
		dir = 0;
	} else {
		dim = h->port / 2u;
		dir = h->port % 2u;
	}
	if (st->last_dim != 0xff) {
		unsigned int ld = st->last_dim / 2u, lr = st->last_dim % 2u;

		if (dim < ld || (dim == ld && (dir != lr || dim == p->n))) {
			if (cls + 1 < classes) {
				cls++;
			} else if (pora_detours(r)) {
				/* Past PORA's classes: the hop is a detour's
				 * first (it has a VC above them all), and the
				 * packet goes on as one. */
				st->phase = DCN_PORA_DETOUR;
				detour_vc_advance(r, st);
				return;
			} else if (r->vcs >= r->rule_vcs) {
				/* past the last class: a loop (DCN_VC_SPENT) */
				st->vc = DCN_VC_SPENT;
				return;
			}
			bit = 0;
		} else if (dim != ld) {
			bit = 0;
		}
	}
	if (dim < p->n) {
		dcn_topo_nc_coords(r->t, cur, c);
		if ((dir == 0 && c[dim] == p->k - 1) || (dir == 1 && c[dim] == 0))
			bit = 1; /* crossed the dateline of this dimension */
	} else {
		st->jumped = 1;
	}
	st->vc = (uint8_t)(2 * cls + (r->vcs > 1 ? bit : 0));
	st->last_dim = (uint8_t)(2 * dim + dir);
}

/*
 * VCs: the paper's dateline (§5.3) in pairs, one pair per break of
 * dimension order (nc_vc_advance): PORA takes three pairs without
 * failures, n + 3 pairs cover the detours of failures in the
 * configurations dcn-topo cdg was run on (tests/cli/cdg.py), and PORA's
 * detours round failures (above) take one VC a hop above where they
 * begin: every VC the header has. The advance sets the VC.
 */
unsigned int
nc_vc_rule(const struct dcn_router *r, int *by_hops)
{
	*by_hops = 0;
	if (r->algo == DCN_ALGO_PORA)
		return DCN_ROUTE_MAX_VCS;
	return 2 * (dcn_topo_params(r->t)->n + 3);
}
