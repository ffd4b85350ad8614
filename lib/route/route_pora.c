/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PORA (novacube-pora.md §5) and dimension-order routing (DOR) on the
 * torus, for comparison. Both are computed from coordinates: the compiled
 * table of a node is its coordinates and neighbours, and a lookup is O(n)
 * integer arithmetic on the coordinates packed in the address (§7.2, or
 * the fields of a prefix= plan).
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
 *  - Virtual channels (§5.3): crossing the wraparound link of the
 *    dimension it travels in moves a packet to the dateline VC for the
 *    rest of that dimension, as the paper has it; and since PORA's first
 *    hop, its jumps and failure detours break dimension order, which
 *    two VCs do not survive (dcn-topo cdg finds the cycle), a hop out
 *    of order moves it to the next pair of VCs (nc_vc_advance).
 *  - Failures: a neighbour that is down, or behind a cable that is, leaves
 *    the eq. (12) candidates; in the quadrant, when the DOR hop is down the
 *    next dimension with distance left is tried, in the quadrant's
 *    direction. Every hop still shortens the in-quadrant distance, so the
 *    route stays loop- and livelock-free. pora-literal drops the packet
 *    when no live hop is left inside the quadrant (the paper has no rule
 *    for failures). DOR on the torus falls back the same way (next
 *    dimension, shorter direction), which keeps it minimal.
 *  - This project's extension, pora: PORA has no failure rule, and its
 *    §8.4 says failures "unlikely cause disconnections, only longer
 *    paths". So when no live hop is left inside the quadrant, the packet
 *    turns to a detour (DCN_PORA_DETOUR, in the header's phase bits) and
 *    from there on goes over live shortest paths to the destination: the
 *    distance falls at every hop, so no node is visited twice, and every
 *    destination the live fabric still connects is reached. A detour hop
 *    takes the VC above the one the packet came on, so every wait is for
 *    a higher VC than PORA's own hops (ordered below it) or the detour's
 *    hops before; past the header's last VC the route is dropped
 *    (too_long): the hop bound. A relay needs the fabric's failures to
 *    know its live shortest paths: NovaCube's announcements cover the
 *    fabric (dcn_route_lsa_hops). doc/fidelity.md has the figures.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_nc.h"


/* What a node knows of itself: coordinates and neighbours. */
struct nc_ctx {
	const struct dcn_router *r;
	uint32_t self;
	unsigned int k, n;
	int literal;
	const uint32_t *inv;
	uint8_t c[NC_MAX_DIM];
	uint8_t jc[NC_MAX_DIM];
	uint32_t jump;                /* DCN_ROUTE_NONE: no jump link */
	uint32_t nb[2 * NC_MAX_DIM];  /* next vertex per regular port */
	uint8_t field_shift[NC_MAX_DIM]; /* coordinates in an address */
	uint32_t field_mask;
};

static inline unsigned int
fwd(unsigned int from, unsigned int to, unsigned int k)
{
	int f = (int)to - (int)from;

	return (unsigned int)(f < 0 ? f + (int)k : f);
}

static inline unsigned int
ring_dist(unsigned int a, unsigned int b, unsigned int k)
{
	unsigned int f = fwd(a, b, k);

	return f < k - f ? f : k - f;
}

/* Shorter direction from a to b: 0 up, 1 down; a tie goes up. */
static inline unsigned int
short_dir(unsigned int a, unsigned int b, unsigned int k)
{
	return fwd(a, b, k) * 2 > k ? 1 : 0;
}

/* Distance from a to b travelling in direction dir (0 up, 1 down). */
static inline unsigned int
dir_off(unsigned int a, unsigned int b, unsigned int k, unsigned int dir)
{
	return dir ? fwd(b, a, k) : fwd(a, b, k);
}

static void
ctx_load(const struct dcn_router *r, uint32_t v, struct nc_ctx *x)
{
	const struct dcn_topo *t = r->t;
	const struct dcn_topo_params *p = dcn_topo_params(t);
	uint32_t pw = 1;
	unsigned int i;
	int64_t j;

	x->r = r;
	x->self = v;
	x->k = p->k;
	x->n = p->n;
	x->literal = r->algo == DCN_ALGO_PORA_LITERAL;
	x->inv = r->u.nc_inv;
	dcn_topo_nc_coords(t, v, x->c);
	dcn_topo_nc_addr_fields(t, x->field_shift, &x->field_mask);
	for (i = 0; i < x->n; i++) {
		x->nb[2 * i] = x->c[i] + 1u == x->k ? v - x->c[i] * pw : v + pw;
		x->nb[2 * i + 1] = x->c[i] == 0 ? v + (x->k - 1) * pw : v - pw;
		pw *= x->k;
	}
	j = dcn_topo_nc_jump(t, v);
	x->jump = j < 0 ? DCN_ROUTE_NONE : (uint32_t)j;
	if (j >= 0)
		dcn_topo_nc_coords(t, (uint32_t)j, x->jc);
}

/* Quadrant bits when leaving c on dimension i in direction s. */
static uint8_t
quadrant_of(const struct nc_ctx *x, const uint8_t *d, unsigned int i,
	    unsigned int s)
{
	uint8_t q = 0;
	unsigned int j;

	for (j = 0; j < x->n; j++) {
		unsigned int dir = j == i ? s : short_dir(x->c[j], d[j], x->k);

		q |= (uint8_t)(dir << j);
	}
	return q;
}

/* Is p inside the quadrant box from c to d? */
static int
in_box(const struct nc_ctx *x, const uint8_t *d, uint8_t q, const uint8_t *p)
{
	unsigned int j;

	for (j = 0; j < x->n; j++) {
		unsigned int dir = (q >> j) & 1;

		if (dir_off(x->c[j], p[j], x->k, dir) >
		    dir_off(x->c[j], d[j], x->k, dir))
			return 0;
	}
	return 1;
}

/* Eq. (12) in integers: weight_i ~ 1/dist_i^2, summing to
 * DCN_ROUTE_WEIGHT_ONE; a distance of 0 takes everything. */
static unsigned int
eq12(const struct nc_ctx *x, struct dcn_hop *out, const unsigned int *dist,
     unsigned int n)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (dist[i] == 0) {
			out[0] = out[i];
			out[0].weight = DCN_ROUTE_WEIGHT_ONE;
			return 1;
		}
		sum += x->inv[dist[i]];
	}
	for (i = 0; i < n; i++) {
		uint64_t w = (x->inv[dist[i]] * (uint64_t)DCN_ROUTE_WEIGHT_ONE +
			      sum / 2) / sum;

		out[i].weight = (uint16_t)(w ? w : 1);
	}
	return n;
}

/* Step 1 (at the source, or at the jump node). dist receives the eq. (12)
 * distances of the candidates before weighting. */
static unsigned int
pora_step1(const struct dcn_router *r, const struct nc_ctx *x,
	   const uint8_t *d, const struct dcn_route_state *st,
	   struct dcn_hop *out, unsigned int *dist)
{
	unsigned int base[NC_MAX_DIM], total = 0, i, s, n = 0;
	uint8_t src[NC_MAX_DIM];

	for (i = 0; i < x->n; i++) {
		base[i] = ring_dist(x->c[i], d[i], x->k);
		total += base[i];
	}
	if (st->phase == DCN_PORA_JUMPED && !x->literal)
		dcn_topo_nc_coords(r->t, st->src, src);
	for (i = 0; i < x->n; i++) {
		if (x->c[i] == d[i] && !x->literal)
			continue;
		for (s = 0; s < 2; s++) {
			unsigned int y = s ? (x->c[i] + x->k - 1) % x->k
					   : (x->c[i] + 1) % x->k;

			if (st->phase == DCN_PORA_JUMPED && !x->literal &&
			    in_box(x, d, quadrant_of(x, d, i, s), src))
				continue;
			out[n] = (struct dcn_hop){ x->nb[2 * i + s], DCN_ROUTE_NONE,
						   (uint16_t)(2 * i + s), 0 };
			if (!rt_hop_up(x->r, x->self, &out[n]))
				continue;
			dist[n++] = total - base[i] + ring_dist(y, d[i], x->k);
		}
	}
	if (st->phase == DCN_PORA_SOURCE && x->jump != DCN_ROUTE_NONE) {
		unsigned int dj = 0;

		for (i = 0; i < x->n; i++)
			dj += ring_dist(x->jc[i], d[i], x->k);
		out[n] = (struct dcn_hop){ x->jump, DCN_ROUTE_NONE,
					   (uint16_t)(2 * x->n), 0 };
		if (rt_hop_up(x->r, x->self, &out[n]))
			dist[n++] = dj;
	}
	return n;
}

static unsigned int
pora_quadrant(const struct nc_ctx *x, const uint8_t *d,
	      const struct dcn_route_state *st, struct dcn_hop *out)
{
	unsigned int dist[2], rem[NC_MAX_DIM], qd = 0, i, n = 0;

	for (i = 0; i < x->n; i++) {
		rem[i] = dir_off(x->c[i], d[i], x->k, (st->quadrant >> i) & 1);
		qd += rem[i];
	}
	for (i = 0; i < x->n; i++) {
		unsigned int dir = (st->quadrant >> i) & 1;

		if (rem[i] == 0)
			continue;
		out[n] = (struct dcn_hop){ x->nb[2 * i + dir], DCN_ROUTE_NONE,
					   (uint16_t)(2 * i + dir), 0 };
		if (!rt_hop_up(x->r, x->self, &out[n]))
			continue; /* fall back to the next dimension */
		dist[n++] = qd - 1;
		break;
	}
	if (x->jump != DCN_ROUTE_NONE && in_box(x, d, st->quadrant, x->jc)) {
		unsigned int qj = 0;

		for (i = 0; i < x->n; i++)
			qj += dir_off(x->jc[i], d[i], x->k,
				      (st->quadrant >> i) & 1);
		if (qj < qd - 1) {
			out[n] = (struct dcn_hop){ x->jump, DCN_ROUTE_NONE,
						   (uint16_t)(2 * x->n), 0 };
			if (rt_hop_up(x->r, x->self, &out[n]))
				dist[n++] = qj;
		}
	}
	return eq12(x, out, dist, n);
}

static unsigned int
pora_core(const struct dcn_router *r, const struct nc_ctx *x,
	  const uint8_t *d, const struct dcn_route_state *st,
	  struct dcn_hop *out)
{
	unsigned int dist[2 * NC_MAX_DIM + 1], n;

	if (st->phase == DCN_PORA_QUADRANT)
		return pora_quadrant(x, d, st, out);
	n = pora_step1(r, x, d, st, out, dist);
	return eq12(x, out, dist, n);
}

/* The model's detour hops: live distances from the router's cache. */
static unsigned int
detour_model(const struct dcn_router *r, const struct nc_ctx *x, uint32_t dst,
	     struct dcn_hop *out)
{
	unsigned int p, n = 0, here = route_live_dist(r, x->self, dst);

	if (here == 0xff || here == 0)
		return 0;
	for (p = 0; p <= 2 * x->n; p++) {
		uint32_t y = p < 2 * x->n ? x->nb[p] : x->jump;

		if (y == DCN_ROUTE_NONE || route_live_dist(r, y, dst) + 1u != here)
			continue;
		out[n] = (struct dcn_hop){ y, DCN_ROUTE_NONE, (uint16_t)p,
					   DCN_ROUTE_WEIGHT_ONE };
		if (rt_hop_up(r, x->self, &out[n]))
			n++;
	}
	return n;
}

static unsigned int
pora_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
		const struct dcn_route_state *st, struct dcn_hop *out)
{
	struct nc_ctx x;
	uint8_t d[NC_MAX_DIM];
	unsigned int n = 0;

	ctx_load(r, cur, &x);
	dcn_topo_nc_coords(r->t, dst, d);
	if (st->phase != DCN_PORA_DETOUR)
		n = pora_core(r, &x, d, st, out);
	if (n == 0 && pora_detours(r))
		n = detour_model(r, &x, dst, out);
	return n;
}

unsigned int
dcn_pora_source_probs(const struct dcn_router *r, uint32_t src, uint32_t dst,
		      struct dcn_hop *hops, double *prob)
{
	unsigned int dist[2 * NC_MAX_DIM + 1], n, i;
	struct dcn_route_state st;
	struct nc_ctx x;
	uint8_t d[NC_MAX_DIM];
	double sum = 0;

	if (src == dst || (r->algo != DCN_ALGO_PORA &&
			   r->algo != DCN_ALGO_PORA_LITERAL))
		return 0;
	dcn_route_state_init(r, src, dst, &st);
	ctx_load(r, src, &x);
	dcn_topo_nc_coords(r->t, dst, d);
	n = pora_step1(r, &x, d, &st, hops, dist);
	for (i = 0; i < n; i++) {
		if (dist[i] == 0) {
			hops[0] = hops[i];
			hops[0].weight = DCN_ROUTE_WEIGHT_ONE;
			prob[0] = 1.0;
			return 1;
		}
		sum += 1.0 / ((double)dist[i] * dist[i]);
	}
	for (i = 0; i < n; i++)
		prob[i] = 1.0 / ((double)dist[i] * dist[i]) / sum;
	eq12(&x, hops, dist, n);
	return n;
}

static void
pora_advance(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h,
	     struct dcn_route_state *st)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);

	if (pora_detours(r) && st->phase != DCN_PORA_DETOUR) {
		/* Is this hop PORA's, or the first of a detour? */
		struct dcn_hop tmp[2 * NC_MAX_DIM + 1];
		struct nc_ctx x;
		uint8_t d[NC_MAX_DIM];

		ctx_load(r, cur, &x);
		dcn_topo_nc_coords(r->t, st->dst, d);
		if (pora_core(r, &x, d, st, tmp) == 0)
			st->phase = DCN_PORA_DETOUR;
	}
	if (st->phase == DCN_PORA_DETOUR) {
		detour_vc_advance(r, st);
		return;
	}
	if (st->phase != DCN_PORA_QUADRANT) {
		if (h->port == 2 * p->n) {
			st->phase = DCN_PORA_JUMPED;
		} else {
			struct nc_ctx x;
			uint8_t d[NC_MAX_DIM];

			ctx_load(r, cur, &x);
			dcn_topo_nc_coords(r->t, st->dst, d);
			st->quadrant = quadrant_of(&x, d, h->port / 2, h->port % 2);
			st->phase = DCN_PORA_QUADRANT;
		}
	}
	nc_vc_advance(r, cur, h, st);
}

static unsigned int
dor_core(const struct nc_ctx *x, const uint8_t *d, struct dcn_hop *out)
{
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		if (x->c[i] != d[i]) {
			unsigned int dir = short_dir(x->c[i], d[i], x->k);

			out[0] = (struct dcn_hop){ x->nb[2 * i + dir], DCN_ROUTE_NONE,
						   (uint16_t)(2 * i + dir),
						   DCN_ROUTE_WEIGHT_ONE };
			if (rt_hop_up(x->r, x->self, &out[0]))
				return 1;
		}
	}
	return 0;
}

static unsigned int
dor_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	       const struct dcn_route_state *st, struct dcn_hop *out)
{
	struct nc_ctx x;
	uint8_t d[NC_MAX_DIM];

	(void)st;
	ctx_load(r, cur, &x);
	dcn_topo_nc_coords(r->t, dst, d);
	return dor_core(&x, d, out);
}

static void
dor_advance(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h,
	    struct dcn_route_state *st)
{
	nc_vc_advance(r, cur, h, st);
}

static int
nc_init(struct dcn_router *r, char *err, size_t len)
{
	unsigned int d;

	(void)err;
	(void)len;
	r->u.nc_inv[0] = 0;
	for (d = 1; d < NC_INV_MAX; d++)
		r->u.nc_inv[d] = (1u << 30) / (d * d);
	return 0;
}

/*
 * pora with failures: each destination's detour hops (detour_model's),
 * as FLAT sets beside the DIGIT form: from a breadth-first search from
 * each live neighbour over the live fabric, the neighbours nearest each
 * destination.
 */
static int
nc_compile_detours(struct dcn_rtable *tb, const struct nc_ctx *x)
{
	const struct dcn_router *r = tb->r;
	uint32_t nv = dcn_topo_vertices(r->t), ns = dcn_topo_servers(r->t);
	struct dcn_hop nb[2 * NC_MAX_DIM + 1];
	uint8_t *dist = NULL;
	uint32_t *queue = NULL;
	unsigned int p, n = 0, i;
	void *dd = rtable_dedup_create();
	int id = 0;

	tb->n_index = ns;
	tb->set_of = rtable_index_alloc(ns);
	if (tb->set_of == NULL || dd == NULL) {
		id = -ENOMEM;
		goto out;
	}
	for (p = 0; p <= 2 * x->n; p++) {
		uint32_t y = p < 2 * x->n ? x->nb[p] : x->jump;

		if (y == DCN_ROUTE_NONE)
			continue;
		nb[n] = (struct dcn_hop){ y, DCN_ROUTE_NONE, (uint16_t)p,
					  DCN_ROUTE_WEIGHT_ONE };
		if (rt_hop_up(r, x->self, &nb[n]))
			n++;
	}
	dist = malloc((size_t)(n ? n : 1) * nv);
	queue = malloc((size_t)nv * sizeof(*queue));
	if (dist == NULL || queue == NULL) {
		id = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		route_live_bfs(r, nb[i].next, dist + (size_t)i * nv, queue);
	id = rtable_nearest_sets(tb, dd, nb, n, dist, nv, ns, x->self, tb->set_of);
out:
	rtable_dedup_free(dd);
	free(dist);
	free(queue);
	return id < 0 ? id : 0;
}

/* The compiled form: the node's coordinates and neighbours (and pora's
 * detours under failures). */
static int
nc_compile(struct dcn_rtable *tb)
{
	struct nc_ctx *x = malloc(sizeof(*x));

	if (x == NULL)
		return -ENOMEM;
	ctx_load(tb->r, tb->node, x);
	tb->priv = x;
	tb->priv_bytes = sizeof(*x);
	tb->form = DCN_RTABLE_DIGIT;
	return pora_detours(tb->r) ? nc_compile_detours(tb, x) : 0;
}

/* Coordinates straight from the address fields (§7.2's, or a prefix=
 * plan's). */
static inline void
addr_coords(const struct nc_ctx *x, uint32_t addr, uint8_t *d)
{
	unsigned int i;

	for (i = 0; i < x->n; i++)
		d[i] = (uint8_t)((addr >> x->field_shift[i]) & x->field_mask);
}

static unsigned int
pora_digit_lookup(const struct dcn_rtable *tb, uint32_t dst, uint32_t addr,
		  const struct dcn_route_state *st, struct dcn_hop *out)
{
	const struct nc_ctx *x = tb->priv;
	uint8_t d[NC_MAX_DIM];
	unsigned int n = 0, set;

	addr_coords(x, addr, d);
	if (st->phase != DCN_PORA_DETOUR)
		n = pora_core(tb->r, x, d, st, out);
	if (n != 0 || tb->set_of == NULL || (set = tb->set_of[dst]) == RT_NO_SET)
		return n;
	n = tb->set_cnt[set];
	memcpy(out, tb->pool + tb->set_off[set], n * sizeof(*out));
	return n;
}

static unsigned int
dor_digit_lookup(const struct dcn_rtable *tb, uint32_t dst, uint32_t addr,
		 const struct dcn_route_state *st, struct dcn_hop *out)
{
	const struct nc_ctx *x = tb->priv;
	uint8_t d[NC_MAX_DIM];

	(void)dst;
	(void)st;
	addr_coords(x, addr, d);
	return dor_core(x, d, out);
}

/* PORA as printed, and DOR, repair at the relay that sees a failure: no
 * announcement travels. PORA with its corrections hears the fabric's. */
static unsigned int
nc_lsa_hops(const struct dcn_router *r)
{
	return r->algo == DCN_ALGO_PORA ? 255 : 0;
}

static int
nc_lsa_wants(const struct dcn_router *r, uint32_t node, uint32_t origin)
{
	return r->algo == DCN_ALGO_PORA || node == origin;
}

const struct route_ops route_pora_ops = {
	.kind = DCN_TOPO_NOVACUBE,
	.pick = DCN_PICK_WEIGHTED,
	.init = nc_init,
	.candidates = pora_candidates,
	.advance = pora_advance,
	.compile = nc_compile,
	.digit_lookup = pora_digit_lookup,
	.vc_rule = nc_vc_rule,
	.lsa_hops = nc_lsa_hops,
	.lsa_wants = nc_lsa_wants,
};

const struct route_ops route_dor_ops = {
	.kind = DCN_TOPO_TORUS,
	.pick = DCN_PICK_EQUAL,
	.init = nc_init,
	.candidates = dor_candidates,
	.advance = dor_advance,
	.compile = nc_compile,
	.digit_lookup = dor_digit_lookup,
	.vc_rule = nc_vc_rule,
	.lsa_hops = nc_lsa_hops,
	.lsa_wants = nc_lsa_wants,
};
