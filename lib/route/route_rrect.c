/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RRect digit correction (rrect.md §3.3, Alg. 1-3).
 *
 * Write a server as (a_k, ..., a_1, g, c) with a_0 = c n + g (see
 * lib/topo/topo_rrect.c). A level-0 hop may change g and c, a level-l hop
 * a_l and c. The distance is the number of differing digits among
 * a_k..a_1 and g, or 1 for two members of one sub-group (same digits,
 * other c): Theorem 1's diameter k+1.
 *
 * Hop by hop, every hop that corrects one differing digit is a candidate;
 * when c differs too it may be corrected on this hop or, if another digit
 * is left to correct, on a later one. These are exactly the next hops of
 * RRectRouting over all permutations and address formats (Alg. 1), all of
 * the same length; the flow hash picks one, so a flow keeps its path.
 * The compiled table is the node's digits: lookup is O(k) arithmetic.
 *
 * Failures (§3.3, §5): failed servers are announced to every server, and
 * link failures are known the same way (the failover machinery spreads
 * them). The source then takes the shortest of the k+1 parallel paths of
 * Alg. 2 whose servers, switches and cables are all up, and the packet
 * carries that path's index; every server on it recomputes the same path
 * (Alg. 2 is deterministic here) and forwards to its successor. With no
 * surviving parallel path the packet is not sent.
 *
 * Redundancy (§5, --rrect-mode): a failed server's mirror (or the standby
 * woken for it) "takes over all the tasks" of the failed server, relaying
 * included, and "shares all the features" it had. So a path's servers are
 * each replaced by whoever answers for them (dcn_route_resolve(): the
 * server itself, its mirror, its woken standby, or nobody), and paths run
 * between the identities of their ends (a woken standby routes as the
 * server it stands for). Sub-group members share all k+1 switches, so the
 * replaced path has the same hops and length (Fig. 5: with 01 down,
 * {03,01,31} is {03,05,31}). A sleeping standby answers for nobody and
 * is never on a path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_priv.h"

/* What a server knows of itself, for computing its next hops. */
struct rr_ctx {
	unsigned int n, m, k, mn;
	unsigned int bits0, bitsn;
	uint32_t v;
	uint16_t a[DCN_TOPO_MAX_DIGITS];  /* a[0] = g, a[1..k] */
	uint16_t c;                       /* sub-group index */
	uint32_t place[DCN_TOPO_MAX_DIGITS]; /* vertex step of each digit */
	uint32_t sw[DCN_TOPO_MAX_DIGITS];    /* switch of each level */
	uint32_t *split;                  /* table form: a_0 -> g | c << 16 */
};

static void
rr_digits(const struct rr_ctx *x, uint32_t v, uint16_t *a, uint16_t *c)
{
	unsigned int i;
	uint32_t d0 = v % x->mn;

	a[0] = (uint16_t)(d0 % x->n);
	*c = (uint16_t)(d0 / x->n);
	v /= x->mn;
	for (i = 1; i <= x->k; i++) {
		a[i] = (uint16_t)(v % x->n);
		v /= x->n;
	}
}

static void
rr_ctx_load(const struct dcn_topo *t, uint32_t v, struct rr_ctx *x)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	struct dcn_adj sw[DCN_TOPO_MAX_DIGITS];
	unsigned int l;

	x->n = p->n;
	x->m = p->m;
	x->k = p->k;
	x->mn = p->n * p->m;
	dcn_topo_addr_layout(t, &x->bits0, &x->bitsn);
	x->v = v;
	x->split = NULL;
	rr_digits(x, v, x->a, &x->c);
	dcn_topo_adj(t, v, sw);
	x->place[0] = 1;
	for (l = 0; l <= x->k; l++) {
		x->sw[l] = sw[l].peer;
		if (l >= 1)
			x->place[l] = l == 1 ? x->mn : x->place[l - 1] * x->n;
	}
}

/*
 * Candidates towards destination digits b (b[0] = g) and sub-group index
 * bc, whose vertex is dst.
 */
static unsigned int
rr_core(const struct rr_ctx *x, const uint16_t *b, unsigned int bc,
	uint32_t dst, struct dcn_hop *out)
{
	int64_t dc = ((int64_t)bc - x->c) * x->n;
	unsigned int l, h = 0, n = 0;

	for (l = 0; l <= x->k; l++)
		h += x->a[l] != b[l];
	if (h == 0) {
		/* A mirror in the same sub-group shares every one of the
		 * k+1 switches: one hop through any of them. */
		for (l = 0; l <= x->k; l++)
			out[l] = (struct dcn_hop){ dst, x->sw[l], (uint16_t)l, 1 };
		return x->k + 1;
	}
	for (l = 0; l <= x->k; l++) {
		int64_t step;

		if (x->a[l] == b[l])
			continue;
		step = ((int64_t)b[l] - x->a[l]) * x->place[l];
		out[n++] = (struct dcn_hop){ (uint32_t)(x->v + step + dc),
					     x->sw[l], (uint16_t)l, 1 };
		if (dc != 0 && h >= 2)
			out[n++] = (struct dcn_hop){ (uint32_t)(x->v + step),
						     x->sw[l], (uint16_t)l, 1 };
	}
	return n;
}

static unsigned int append(uint32_t *path, unsigned int len, uint32_t v);

/* The hop from server x to its neighbour y on parallel path i. */
static int
rr_path_hop(const struct dcn_topo *t, uint32_t x, uint32_t y, unsigned int i,
	    struct dcn_hop *h)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	uint16_t a[DCN_TOPO_MAX_DIGITS], b[DCN_TOPO_MAX_DIGITS];
	struct dcn_adj sw[DCN_TOPO_MAX_DIGITS];
	unsigned int l, level = 0, diff = 0;

	dcn_topo_rr_digits(t, x, a);
	dcn_topo_rr_digits(t, y, b);
	for (l = 1; l <= p->k; l++)
		if (a[l] != b[l]) {
			level = l;
			diff++;
		}
	if (diff > 1 || (diff == 1 && a[0] % p->n != b[0] % p->n))
		return -1;
	if (diff == 0 && a[0] % p->n == b[0] % p->n)
		level = i; /* mirrors: path i crosses the level-i switch */
	dcn_topo_adj(t, x, sw);
	*h = (struct dcn_hop){ y, sw[level].peer, (uint16_t)level, 1 };
	return 0;
}

/*
 * The k+1 parallel paths from src to dst as the servers that carry them:
 * Alg. 2 between the ends' identities, each server replaced by the one
 * that answers for it (the same one, in no redundancy mode), a server
 * that answers twice in a row (a mirror hop to a failed mirror) once.
 * lens[i] is 0 for a path that somebody's failure leaves unserved.
 */
static unsigned int
rr_served_paths(const struct dcn_router *r, uint32_t src, uint32_t dst,
		uint32_t paths[][DCN_ROUTE_MAX_PATH], unsigned int *lens)
{
	uint32_t raw[DCN_TOPO_MAX_DIGITS][DCN_ROUTE_MAX_PATH];
	unsigned int rlen[DCN_TOPO_MAX_DIGITS], n, i, j;

	n = dcn_rrect_para_paths(r->t, route_rrect_identity(r, src),
				 route_rrect_identity(r, dst), 0, raw, rlen);
	for (i = 0; i < n; i++) {
		unsigned int len = 0;

		for (j = 0; j < rlen[i]; j++) {
			uint32_t v = dcn_route_resolve(r, raw[i][j]);

			if (v == DCN_ROUTE_NONE) {
				len = 0;
				break;
			}
			len = append(paths[i], len, v);
		}
		lens[i] = len;
	}
	return n;
}

static int
rr_path_up(const struct dcn_router *r, const uint32_t *path, unsigned int len,
	   unsigned int i)
{
	unsigned int j;

	if (len == 0)
		return 0;
	for (j = 0; j + 1 < len; j++) {
		struct dcn_hop h;

		if (rr_path_hop(r->t, path[j], path[j + 1], i, &h) < 0 ||
		    !rt_hop_up(r, path[j], &h))
			return 0;
	}
	return 1;
}

/* At the source: the shortest surviving parallel path. */
static void
rr_state_init(const struct dcn_router *r, uint32_t src, uint32_t dst,
	      struct dcn_route_state *st)
{
	uint32_t paths[DCN_TOPO_MAX_DIGITS][DCN_ROUTE_MAX_PATH];
	unsigned int lens[DCN_TOPO_MAX_DIGITS], n, i, best = DCN_PATH_NONE;

	if (r->fail == NULL || src == dst)
		return;
	n = rr_served_paths(r, src, dst, paths, lens);
	for (i = 0; i < n; i++)
		if (rr_path_up(r, paths[i], lens[i], i) &&
		    (best == DCN_PATH_NONE || lens[i] < lens[best]))
			best = i;
	st->path = (uint8_t)best;
}

static unsigned int
rr_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	      const struct dcn_route_state *st, struct dcn_hop *out)
{
	uint16_t b[DCN_TOPO_MAX_DIGITS], bc;
	struct rr_ctx x;

	if (st->path != DCN_PATH_ANY) {
		uint32_t paths[DCN_TOPO_MAX_DIGITS][DCN_ROUTE_MAX_PATH];
		unsigned int lens[DCN_TOPO_MAX_DIGITS], j, i = st->path;

		/* The index arrives in a header: never trust it. */
		if (i > dcn_topo_params(r->t)->k)
			return 0;
		rr_served_paths(r, st->src, dst, paths, lens);
		for (j = 0; j + 1 < lens[i]; j++)
			if (paths[i][j] == cur)
				break;
		if (j + 1 >= lens[i] ||
		    rr_path_hop(r->t, cur, paths[i][j + 1], i, &out[0]) < 0)
			return 0;
		return rt_filter_up(r, cur, out, 1);
	}
	rr_ctx_load(r->t, cur, &x);
	rr_digits(&x, dst, b, &bc);
	return rr_core(&x, b, bc, dst, out);
}

/* Digits of v in the paper's array form: A[0] = a_0, A[i] = a_i. */
static void
rr_array(const struct dcn_topo *t, uint32_t v, unsigned int *A)
{
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	unsigned int i;

	dcn_topo_rr_digits(t, v, d);
	for (i = 0; i <= dcn_topo_params(t)->k; i++)
		A[i] = d[i];
}

/* Server of an array in the format that carries the offset on idx. */
static uint32_t
rr_from_format(const struct dcn_topo *t, const unsigned int *tmp,
	       unsigned int idx)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	unsigned int i, off = tmp[idx] / p->n * p->n;

	for (i = 0; i <= p->k; i++)
		d[i] = (uint16_t)tmp[i];
	if (off != 0) {
		/* Change the address format back (Alg. 1 lines 21-24). */
		d[0] = (uint16_t)(d[0] + off);
		d[idx] = (uint16_t)(d[idx] - off);
	}
	return dcn_topo_rr_vertex(t, d);
}

static unsigned int
append(uint32_t *path, unsigned int len, uint32_t v)
{
	if (len == 0 || path[len - 1] != v)
		path[len++] = v;
	return len;
}

/*
 * Alg. 1 lines 5-15: reduce both ends to the format that puts the
 * sub-group offset on digit idx. @return idx, or -1 for two mirrors.
 */
static int
rr_formats(const struct dcn_topo *t, unsigned int *A, unsigned int *B,
	   int idx)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	unsigned int so = A[0] / p->n * p->n, dof = B[0] / p->n * p->n;
	unsigned int i;

	A[0] -= so;
	B[0] -= dof;
	if (idx < 0) {
		if (A[0] != B[0]) {
			idx = 0;
		} else {
			/* "randomly choose a position with A[idx] != A'[idx]":
			 * the lowest one, so paths are reproducible. */
			for (i = 1; i <= p->k; i++)
				if (A[i] != B[i])
					break;
			if (i > p->k)
				return -1;
			idx = (int)i;
		}
	}
	A[idx] += so;
	B[idx] += dof;
	return idx;
}

unsigned int
dcn_rrect_route(const struct dcn_topo *t, uint32_t src, uint32_t dst,
		const unsigned int *perm, int idx, uint32_t *path)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	unsigned int A[DCN_TOPO_MAX_DIGITS], B[DCN_TOPO_MAX_DIGITS];
	unsigned int tmp[DCN_TOPO_MAX_DIGITS];
	unsigned int i, len = 0;

	len = append(path, len, src);
	if (src == dst)
		return len;
	rr_array(t, src, A);
	rr_array(t, dst, B);
	idx = rr_formats(t, A, B, idx);
	if (idx < 0)
		return append(path, len, dst);
	memcpy(tmp, A, sizeof(tmp));
	for (i = 0; i <= p->k; i++) {
		tmp[perm[i]] = B[perm[i]];
		len = append(path, len, rr_from_format(t, tmp, (unsigned int)idx));
	}
	return len;
}

unsigned int
dcn_rrect_para_paths(const struct dcn_topo *t, uint32_t src, uint32_t dst,
		     uint64_t seed, uint32_t paths[][DCN_ROUTE_MAX_PATH],
		     unsigned int *lens)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	unsigned int A[DCN_TOPO_MAX_DIGITS], B[DCN_TOPO_MAX_DIGITS];
	unsigned int perm[DCN_TOPO_MAX_DIGITS], tmp[DCN_TOPO_MAX_DIGITS];
	unsigned int K1 = p->k + 1, i, j, len;
	int idx;

	rr_array(t, src, A);
	rr_array(t, dst, B);
	idx = rr_formats(t, A, B, -1);
	for (i = 0; i < K1; i++) {
		len = append(paths[i], 0, src);
		if (idx < 0) {
			/* Mirrors: the direct hop, then detours by level. */
			lens[i] = append(paths[i], len, dst);
			continue;
		}
		memcpy(tmp, A, sizeof(tmp));
		if (A[i] != B[i]) {
			/* DirectRouting: correct i, i-1, ..., i-k (mod k+1). */
			for (j = 0; j < K1; j++)
				perm[j] = (i + K1 - j) % K1;
		} else {
			/* IndirRouting: first move digit i to a value other
			 * than both ends', correct it back last. */
			unsigned int v = 0;

			if (seed != 0) {
				uint64_t s = seed + i;

				do {
					v = (unsigned int)(dcn_rand(&s) % p->n);
				} while (v == A[i]);
			} else {
				while (v == A[i])
					v++;
			}
			tmp[i] = v;
			len = append(paths[i], len,
				     rr_from_format(t, tmp, (unsigned int)idx));
			for (j = 0; j < K1; j++)
				perm[j] = (i + 2 * K1 - 1 - j) % K1;
		}
		for (j = 0; j < K1; j++) {
			tmp[perm[j]] = B[perm[j]];
			len = append(paths[i], len,
				     rr_from_format(t, tmp, (unsigned int)idx));
		}
		lens[i] = len;
	}
	return K1;
}

static void
rr_priv_free(void *p)
{
	struct rr_ctx *x = p;

	free(x->split);
	free(x);
}

static int
rr_compile(struct dcn_rtable *tb)
{
	struct rr_ctx *x = malloc(sizeof(*x));
	unsigned int i;

	if (x == NULL)
		return -ENOMEM;
	rr_ctx_load(tb->r->t, tb->node, x);
	x->split = malloc(x->mn * sizeof(*x->split));
	if (x->split == NULL) {
		free(x);
		return -ENOMEM;
	}
	for (i = 0; i < x->mn; i++)
		x->split[i] = i % x->n | (i / x->n) << 16;
	tb->priv = x;
	tb->priv_bytes = sizeof(*x) + x->mn * sizeof(*x->split);
	tb->priv_free = rr_priv_free;
	tb->form = DCN_RTABLE_DIGIT;
	return 0;
}

/* Digits straight from the packed address: no division. */
static unsigned int
rr_digit_lookup(const struct dcn_rtable *tb, uint32_t dst, uint32_t addr,
		const struct dcn_route_state *st, struct dcn_hop *out)
{
	const struct rr_ctx *x = tb->priv;
	uint16_t b[DCN_TOPO_MAX_DIGITS];
	unsigned int l;
	uint32_t s;

	if (st->path != DCN_PATH_ANY)
		return rr_candidates(tb->r, tb->node, dst, st, out);
	s = x->split[addr & ((1u << x->bits0) - 1)];
	b[0] = (uint16_t)(s & 0xffff);
	addr >>= x->bits0;
	for (l = 1; l <= x->k; l++) {
		b[l] = (uint16_t)(addr & ((1u << x->bitsn) - 1));
		addr >>= x->bitsn;
	}
	return rr_core(x, b, s >> 16, dst, out);
}

/* VCs by hop count: k + 1 hops, one more for an indirect parallel path
 * (Alg. 2). */
static unsigned int
rr_vc_rule(const struct dcn_router *r, int *by_hops)
{
	*by_hops = 1;
	return dcn_topo_params(r->t)->k + 2;
}

const struct route_ops route_rrect_ops = {
	.kind = DCN_TOPO_RRECT,
	.pick = DCN_PICK_EQUAL,
	.state_init = rr_state_init,
	.candidates = rr_candidates,
	.compile = rr_compile,
	.digit_lookup = rr_digit_lookup,
	.vc_rule = rr_vc_rule,
};
