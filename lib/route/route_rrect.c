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
 */
#include <string.h>

#include "route_priv.h"

struct rr_geo {
	unsigned int n, m, k;
	uint16_t a[DCN_TOPO_MAX_DIGITS]; /* a[0] is g, a[1..k] digits */
	unsigned int c;
};

static void
rr_load(const struct dcn_topo *t, uint32_t v, struct rr_geo *g)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	unsigned int i;

	g->n = p->n;
	g->m = p->m;
	g->k = p->k;
	dcn_topo_rr_digits(t, v, d);
	g->a[0] = d[0] % p->n;
	g->c = d[0] / p->n;
	for (i = 1; i <= p->k; i++)
		g->a[i] = d[i];
}

static uint32_t
rr_store(const struct dcn_topo *t, const struct rr_geo *g)
{
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	unsigned int i;

	d[0] = (uint16_t)(g->c * g->n + g->a[0]);
	for (i = 1; i <= g->k; i++)
		d[i] = g->a[i];
	return dcn_topo_rr_vertex(t, d);
}

static unsigned int
rr_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	      const struct dcn_route_state *st, struct dcn_hop *out)
{
	struct dcn_adj sw[DCN_TOPO_MAX_DIGITS];
	struct rr_geo x, y;
	unsigned int l, h = 0, n = 0;

	(void)st;
	rr_load(r->t, cur, &x);
	rr_load(r->t, dst, &y);
	dcn_topo_adj(r->t, cur, sw);
	for (l = 0; l <= x.k; l++)
		h += x.a[l] != y.a[l];
	if (h == 0) {
		/* A mirror in the same sub-group shares every one of the
		 * k+1 switches: one hop through any of them. */
		for (l = 0; l <= x.k; l++)
			out[l] = (struct dcn_hop){ dst, sw[l].peer, (uint16_t)l, 1 };
		return x.k + 1;
	}
	for (l = 0; l <= x.k; l++) {
		struct rr_geo z;

		if (x.a[l] == y.a[l])
			continue;
		z = x;
		z.a[l] = y.a[l];
		z.c = y.c;
		out[n++] = (struct dcn_hop){ rr_store(r->t, &z), sw[l].peer,
					     (uint16_t)l, 1 };
		if (x.c != y.c && h >= 2) {
			z.c = x.c;
			out[n++] = (struct dcn_hop){ rr_store(r->t, &z),
						     sw[l].peer, (uint16_t)l, 1 };
		}
	}
	return n;
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

static int
rr_compile(struct dcn_rtable *tb)
{
	tb->form = DCN_RTABLE_DIGIT;
	return 0;
}

static unsigned int
rr_digit_lookup(const struct dcn_rtable *tb, uint32_t dst,
		const struct dcn_route_state *st, struct dcn_hop *out)
{
	return rr_candidates(tb->r, tb->node, dst, st, out);
}

const struct route_ops route_rrect_ops = {
	.kind = DCN_TOPO_RRECT,
	.pick = DCN_PICK_EQUAL,
	.candidates = rr_candidates,
	.compile = rr_compile,
	.digit_lookup = rr_digit_lookup,
};
