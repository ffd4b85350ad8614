/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PORA (novacube-pora.md §5) and dimension-order routing (DOR) on the
 * torus, for comparison. Both are computed from coordinates: the compiled
 * table of a node is its coordinates and the lookup is O(n) arithmetic.
 *
 * PORA, as read here (README.md has the reasoning):
 *  - Source step (§5.1.1): every neighbour Y, jump-over included, gets
 *    probability 1/D(Y)^2 normalised (eq. 12), D(Y) the torus distance from
 *    Y to the destination; a neighbour that is the destination is taken.
 *    Regular neighbours along a dimension in which the destination does
 *    not differ are left out: read literally, their quadrant goes round
 *    that whole ring and the packet comes back through the source.
 *  - Taking regular neighbour (i, s) fixes the quadrant: dimension i travels
 *    in direction s, every other dimension in its shorter direction (+ on a
 *    tie). Taking the jump repeats the step at the jump node M with regular
 *    neighbours only; there a neighbour whose quadrant box would hold the
 *    source is left out, so the packet cannot come back through it.
 *  - In the quadrant (§5.1.2) the DOR hop (lowest dimension with distance
 *    left, in the quadrant's direction) is the candidate; the jump-over
 *    link is one too when its far end lies inside the quadrant box and is
 *    closer to the destination than the DOR hop, measured inside the
 *    quadrant. Both then get eq. (12) weights from those distances.
 *    Every hop shortens the in-quadrant distance, so no node is visited
 *    twice and the route is loop- and livelock-free.
 *  - Virtual channels (§5.3): a packet is on VC 0 when it starts a
 *    dimension (and after a jump); crossing the wraparound link of the
 *    dimension it travels in moves it to VC 1 for the rest of that
 *    dimension.
 */
#include <string.h>

#include "route_priv.h"

#define NC_MAX_DIM 6

struct nc_geo {
	unsigned int k, n;
	uint8_t c[NC_MAX_DIM];
	uint8_t d[NC_MAX_DIM];
};

static unsigned int
fwd(unsigned int from, unsigned int to, unsigned int k)
{
	return (to + k - from) % k;
}

static unsigned int
torus_dist(const struct dcn_topo *t, uint32_t a, uint32_t b)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	uint8_t ca[NC_MAX_DIM], cb[NC_MAX_DIM];
	unsigned int i, sum = 0;

	dcn_topo_nc_coords(t, a, ca);
	dcn_topo_nc_coords(t, b, cb);
	for (i = 0; i < p->n; i++) {
		unsigned int f = fwd(ca[i], cb[i], p->k);

		sum += f < p->k - f ? f : p->k - f;
	}
	return sum;
}

/* Shorter direction from a to b in one dimension: 0 up, 1 down; a tie
 * (or no distance) goes up. */
static unsigned int
short_dir(unsigned int a, unsigned int b, unsigned int k)
{
	unsigned int f = fwd(a, b, k);

	return f * 2 > k ? 1 : 0;
}

/* Distance from a to b travelling in direction dir (0 up, 1 down). */
static unsigned int
dir_off(unsigned int a, unsigned int b, unsigned int k, unsigned int dir)
{
	return dir ? fwd(b, a, k) : fwd(a, b, k);
}

/* Quadrant bits when leaving cur on dimension i in direction s. */
static uint8_t
quadrant_of(const struct nc_geo *g, unsigned int i, unsigned int s)
{
	uint8_t q = 0;
	unsigned int j;

	for (j = 0; j < g->n; j++) {
		unsigned int dir = j == i ? s : short_dir(g->c[j], g->d[j], g->k);

		q |= (uint8_t)(dir << j);
	}
	return q;
}

/* Is vertex p inside the quadrant box from c to d? */
static int
in_box(const struct dcn_topo *t, const struct nc_geo *g, uint8_t q,
       uint32_t p)
{
	uint8_t cp[NC_MAX_DIM];
	unsigned int j;

	dcn_topo_nc_coords(t, p, cp);
	for (j = 0; j < g->n; j++) {
		unsigned int dir = (q >> j) & 1;

		if (dir_off(g->c[j], cp[j], g->k, dir) >
		    dir_off(g->c[j], g->d[j], g->k, dir))
			return 0;
	}
	return 1;
}

static void
geo_load(const struct dcn_topo *t, uint32_t cur, uint32_t dst,
	 struct nc_geo *g)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);

	g->k = p->k;
	g->n = p->n;
	dcn_topo_nc_coords(t, cur, g->c);
	dcn_topo_nc_coords(t, dst, g->d);
}

static uint32_t
step(const struct dcn_topo *t, const struct nc_geo *g, unsigned int i,
     unsigned int dir)
{
	uint8_t c[NC_MAX_DIM];

	memcpy(c, g->c, sizeof(c));
	c[i] = (uint8_t)(dir ? (c[i] + g->k - 1) % g->k : (c[i] + 1) % g->k);
	return dcn_topo_nc_vertex(t, c);
}

/* Turn distances into eq. (12) weights; a distance of 0 takes all. */
static unsigned int
eq12(struct dcn_hop *out, const unsigned int *dist, unsigned int n,
     double *prob)
{
	double inv[2 * NC_MAX_DIM + 1], sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (dist[i] == 0) {
			out[0] = out[i];
			out[0].weight = DCN_ROUTE_WEIGHT_ONE;
			if (prob != NULL)
				prob[0] = 1.0;
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		inv[i] = 1.0 / ((double)dist[i] * dist[i]);
		sum += inv[i];
	}
	for (i = 0; i < n; i++) {
		double p = inv[i] / sum;

		out[i].weight = (uint16_t)(p * DCN_ROUTE_WEIGHT_ONE + 0.5);
		if (out[i].weight == 0)
			out[i].weight = 1;
		if (prob != NULL)
			prob[i] = p;
	}
	return n;
}

static unsigned int
pora_step1(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	   const struct dcn_route_state *st, struct dcn_hop *out,
	   double *prob)
{
	const struct dcn_topo *t = r->t;
	unsigned int dist[2 * NC_MAX_DIM + 1];
	struct nc_geo g;
	unsigned int i, s, n = 0;

	geo_load(t, cur, dst, &g);
	for (i = 0; i < g.n; i++) {
		if (r->algo == DCN_ALGO_PORA_LITERAL) {
			for (s = 0; s < 2; s++) {
				out[n] = (struct dcn_hop){ step(t, &g, i, s),
							   DCN_ROUTE_NONE,
							   (uint16_t)(2 * i + s), 0 };
				dist[n] = torus_dist(t, out[n].next, dst);
				n++;
			}
			continue;
		}
		/* No first hop along a dimension the destination does not
		 * differ in: its quadrant would go round that whole ring and
		 * back through this node (README.md, "PORA"). */
		if (g.c[i] == g.d[i])
			continue;
		for (s = 0; s < 2; s++) {
			uint32_t y = step(t, &g, i, s);

			if (st->phase == DCN_PORA_JUMPED &&
			    in_box(t, &g, quadrant_of(&g, i, s), st->src))
				continue;
			out[n] = (struct dcn_hop){ y, DCN_ROUTE_NONE,
						   (uint16_t)(2 * i + s), 0 };
			dist[n++] = torus_dist(t, y, dst);
		}
	}
	if (st->phase == DCN_PORA_SOURCE) {
		int64_t j = dcn_topo_nc_jump(t, cur);

		if (j >= 0) {
			out[n] = (struct dcn_hop){ (uint32_t)j, DCN_ROUTE_NONE,
						   (uint16_t)(2 * g.n), 0 };
			dist[n++] = torus_dist(t, (uint32_t)j, dst);
		}
	}
	return eq12(out, dist, n, prob);
}

static unsigned int
pora_quadrant(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	      const struct dcn_route_state *st, struct dcn_hop *out)
{
	const struct dcn_topo *t = r->t;
	unsigned int dist[2], rem[NC_MAX_DIM], qd = 0, i, n = 0;
	struct nc_geo g;
	int64_t j;

	geo_load(t, cur, dst, &g);
	for (i = 0; i < g.n; i++) {
		rem[i] = dir_off(g.c[i], g.d[i], g.k, (st->quadrant >> i) & 1);
		qd += rem[i];
	}
	for (i = 0; i < g.n; i++) {
		if (rem[i] == 0)
			continue;
		out[n] = (struct dcn_hop){ step(t, &g, i, (st->quadrant >> i) & 1),
					   DCN_ROUTE_NONE,
					   (uint16_t)(2 * i + ((st->quadrant >> i) & 1)),
					   0 };
		dist[n++] = qd - 1;
		break;
	}
	j = dcn_topo_nc_jump(t, cur);
	if (j >= 0 && in_box(t, &g, st->quadrant, (uint32_t)j)) {
		uint8_t cj[NC_MAX_DIM];
		unsigned int qj = 0;

		dcn_topo_nc_coords(t, (uint32_t)j, cj);
		for (i = 0; i < g.n; i++)
			qj += dir_off(cj[i], g.d[i], g.k,
				      (st->quadrant >> i) & 1);
		if (qj < qd - 1) {
			out[n] = (struct dcn_hop){ (uint32_t)j, DCN_ROUTE_NONE,
						   (uint16_t)(2 * g.n), 0 };
			dist[n++] = qj;
		}
	}
	return eq12(out, dist, n, NULL);
}

static unsigned int
pora_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
		const struct dcn_route_state *st, struct dcn_hop *out)
{
	if (st->phase == DCN_PORA_QUADRANT)
		return pora_quadrant(r, cur, dst, st, out);
	return pora_step1(r, cur, dst, st, out, NULL);
}

unsigned int
dcn_pora_source_probs(const struct dcn_router *r, uint32_t src, uint32_t dst,
		      struct dcn_hop *hops, double *prob)
{
	struct dcn_route_state st;

	if (src == dst || (r->algo != DCN_ALGO_PORA &&
			   r->algo != DCN_ALGO_PORA_LITERAL))
		return 0;
	dcn_route_state_init(r, src, dst, &st);
	return pora_step1(r, src, dst, &st, hops, prob);
}

/* VC bookkeeping shared by PORA and DOR. */
static void
nc_vc_advance(const struct dcn_topo *t, uint32_t cur,
	      const struct dcn_hop *h, struct dcn_route_state *st)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	unsigned int i, dir;
	uint8_t c[NC_MAX_DIM];

	if (h->port == 2 * p->n) {
		st->vc = 0;
		st->last_dim = 0xff;
		st->jumped = 1;
		return;
	}
	i = h->port / 2;
	dir = h->port % 2;
	if (i != st->last_dim)
		st->vc = 0;
	dcn_topo_nc_coords(t, cur, c);
	if ((dir == 0 && c[i] == p->k - 1) || (dir == 1 && c[i] == 0))
		st->vc = 1; /* crossed the dateline of dimension i */
	st->last_dim = (uint8_t)i;
}

static void
pora_advance(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h,
	     struct dcn_route_state *st)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);

	if (st->phase != DCN_PORA_QUADRANT) {
		if (h->port == 2 * p->n) {
			st->phase = DCN_PORA_JUMPED;
		} else {
			struct nc_geo g;

			geo_load(r->t, cur, st->dst, &g);
			st->quadrant = quadrant_of(&g, h->port / 2, h->port % 2);
			st->phase = DCN_PORA_QUADRANT;
		}
	}
	nc_vc_advance(r->t, cur, h, st);
}

static unsigned int
dor_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	       const struct dcn_route_state *st, struct dcn_hop *out)
{
	struct nc_geo g;
	unsigned int i;

	(void)st;
	geo_load(r->t, cur, dst, &g);
	for (i = 0; i < g.n; i++) {
		if (g.c[i] != g.d[i]) {
			unsigned int dir = short_dir(g.c[i], g.d[i], g.k);

			out[0] = (struct dcn_hop){ step(r->t, &g, i, dir),
						   DCN_ROUTE_NONE,
						   (uint16_t)(2 * i + dir),
						   DCN_ROUTE_WEIGHT_ONE };
			return 1;
		}
	}
	return 0;
}

static void
dor_advance(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h,
	    struct dcn_route_state *st)
{
	nc_vc_advance(r->t, cur, h, st);
}

/* The compiled form of a node is its coordinates: computed lookups. */
static int
nc_compile(struct dcn_rtable *tb)
{
	tb->form = DCN_RTABLE_DIGIT;
	return 0;
}

static unsigned int
nc_digit_lookup(const struct dcn_rtable *tb, uint32_t dst,
		const struct dcn_route_state *st, struct dcn_hop *out)
{
	return tb->r->ops->candidates(tb->r, tb->node, dst, st, out);
}

const struct route_ops route_pora_ops = {
	.kind = DCN_TOPO_NOVACUBE,
	.pick = DCN_PICK_WEIGHTED,
	.candidates = pora_candidates,
	.advance = pora_advance,
	.compile = nc_compile,
	.digit_lookup = nc_digit_lookup,
};

/* The same, without the two corrections: for showing why they exist. */
const struct route_ops route_pora_literal_ops = {
	.kind = DCN_TOPO_NOVACUBE,
	.pick = DCN_PICK_WEIGHTED,
	.candidates = pora_candidates,
	.advance = pora_advance,
	.compile = nc_compile,
	.digit_lookup = nc_digit_lookup,
};

const struct route_ops route_dor_ops = {
	.kind = DCN_TOPO_TORUS,
	.pick = DCN_PICK_EQUAL,
	.candidates = dor_candidates,
	.advance = dor_advance,
	.compile = nc_compile,
	.digit_lookup = nc_digit_lookup,
};
