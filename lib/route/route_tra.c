/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Totoro routing algorithm, TRA (totoro.md §3.1, Alg. 2).
 *
 * From src to dst in different Totoro_(k-1)s of one Totoro_k, TRA takes a
 * level-k link (m, n) between the two children and recurses on (src, m)
 * and (n, dst); getNearestPath picks that link.
 *
 * Reading of "nearest level-k path": the level-k link whose whole path is
 * shortest. Taking instead the exit m nearest to src and breaking ties
 * afterwards gives a mean of 8.25 links for Totoro(24,24,2), while
 * Table 3 prints 7.61; the whole-path reading gives 7.61 (README.md).
 *
 * With every Totoro_0 holding servers of every link level (N a multiple
 * of 2^K, true of all the paper's configurations), the whole recursion has
 * a closed form. Let delta be the set of levels j >= 1 where the Totoro_0
 * numbers of src and dst differ (digits a_1..a_K). A TRA path crosses
 * each level in delta once, in any order (lower levels can be crossed on
 * either side of a higher one), and needs one intra-switch hop before
 * each crossing and one after the last, except that:
 *   - src saves the first hop when its own link level is in delta;
 *   - dst saves the last when its link level is in delta: the previous
 *     Totoro_0 has an exit with dst's offset, whose far end is dst;
 *   - with one crossing, both savings need src and dst to have the same
 *     offset a_0; with several, they need different link levels.
 * So len = 2|delta| + 1 - savings (1 inside one Totoro_0).
 *
 * Hop by hop, the candidates are the neighbours one hop closer under that
 * length: the far end of this server's own link when its level is in
 * delta, and the servers of its Totoro_0. The flow hash picks one; every
 * node agrees, so the packet follows a shortest TRA path. FLAT table.
 */
#include <errno.h>
#include <string.h>

#include "route_priv.h"

struct tt_geo {
	unsigned int N, n, K;
	uint32_t block[DCN_TOPO_MAX_DIGITS + 1]; /* N n^j */
};

static void
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

/* Link level of a server (Alg. 1 line 10); with N a multiple of 2^K it
 * depends on a_0 alone. */
static inline unsigned int
level_of(const struct tt_geo *g, uint32_t tid)
{
	unsigned int ones = (unsigned int)__builtin_ctz(~tid);

	return ones < g->K ? ones + 1 : 0;
}

/* Levels whose digit differs, as a bit mask (bit j for level j). */
static inline unsigned int
delta_of(const struct tt_geo *g, uint32_t a, uint32_t b)
{
	unsigned int j, mask = 0;

	a /= g->N;
	b /= g->N;
	for (j = 1; j <= g->K; j++) {
		if (a % g->n != b % g->n)
			mask |= 1u << j;
		a /= g->n;
		b /= g->n;
	}
	return mask;
}

/* TRA length from the level set delta and the end servers' link levels
 * (lx, ld) and whether their offsets a_0 are equal. */
static inline unsigned int
tra_len_of(unsigned int delta, unsigned int lx, unsigned int ld, int same_a0)
{
	unsigned int cnt, sx, sd, save;

	if (delta == 0)
		return 1;
	cnt = (unsigned int)__builtin_popcount(delta);
	sx = lx != 0 && (delta >> lx & 1);
	sd = ld != 0 && (delta >> ld & 1);
	save = sx + sd;
	if (sx && sd) {
		if (cnt == 1 && !same_a0)
			save = 1;
		else if (cnt > 1 && lx == ld)
			save = 1;
	}
	return 2 * cnt + 1 - save;
}

static unsigned int
tra_len(const struct tt_geo *g, uint32_t x, uint32_t d)
{
	if (x == d)
		return 0;
	return tra_len_of(delta_of(g, x, d), level_of(g, x), level_of(g, d),
			  x % g->N == d % g->N);
}

static int
tra_init(struct dcn_router *r, char *err, size_t len)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);

	if (p->N % (1u << p->K) != 0) {
		route_err(err, len,
			  "tra: N=%u must be a multiple of 2^K=%u so that every Totoro_0 has servers of every link level",
			  p->N, 1u << p->K);
		return -EINVAL;
	}
	return 0;
}

static unsigned int
tra_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	       const struct dcn_route_state *st, struct dcn_hop *out)
{
	const struct dcn_topo *t = r->t;
	struct dcn_adj a[2];
	struct tt_geo g;
	unsigned int h, lc, ld, delta, n = 0;
	uint32_t base, y, d0;

	(void)st;
	tt_geo_load(t, &g);
	h = tra_len(&g, cur, dst);
	dcn_topo_adj(t, cur, a);
	delta = delta_of(&g, cur, dst);
	lc = level_of(&g, cur);
	ld = level_of(&g, dst);
	d0 = dst % g.N;
	if (lc != 0 && (delta >> lc & 1)) {
		y = dcn_topo_tt_across(t, cur, lc,
				       (dst / g.block[lc - 1]) % g.n);
		if (tra_len(&g, y, dst) + 1 == h)
			out[n++] = (struct dcn_hop){ y, a[1].peer, 1, 1 };
	}
	/* Servers of this Totoro_0 share its digit differences. */
	base = cur - cur % g.N;
	for (y = base; y < base + g.N && n < DCN_ROUTE_MAX_HOPS; y++) {
		unsigned int len;

		if (y == cur)
			continue;
		len = y == dst ? 0 : tra_len_of(delta, level_of(&g, y), ld,
						y - base == d0);
		if (len + 1 == h)
			out[n++] = (struct dcn_hop){ y, a[0].peer, 0, 1 };
	}
	return n;
}

const struct route_ops route_tra_ops = {
	.kind = DCN_TOPO_TOTORO,
	.pick = DCN_PICK_EQUAL,
	.init = tra_init,
	.candidates = tra_candidates,
};
