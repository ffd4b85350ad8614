/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes drawn at random (PORA's eq. 12), taken exactly: a walk is a
 * Markov chain over (node, route state), and every hop shortens the
 * in-quadrant distance, so the chain has no cycle. The distribution of the
 * length still to go, from each (node, state), is computed once and
 * memoised: the expectation over every draw, where walking samples it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_priv.h"

struct ex_val {
	double p[DCN_METRICS_HIST];  /* delivered with this many to go */
	double e[3];                 /* sum of p x length, by unit */
	uint32_t mx[3];              /* longest with p > 0, by unit */
};

struct ex_slot {
	uint64_t k0, k1;
	uint32_t gen;                /* valid while it is the memo's */
	uint8_t busy;                /* being solved: a cycle, if found */
	struct ex_val v;
};

static struct ex_slot *
ex_find(struct ex_memo *x, uint32_t cur, const struct dcn_route_state *st,
	int *hit)
{
	uint64_t k0 = cur | (uint64_t)st->proxy << 32;
	uint64_t k1 = st->phase | (uint64_t)st->quadrant << 8 |
		      (uint64_t)st->vc << 16 | (uint64_t)st->last_dim << 24 |
		      (uint64_t)st->jumped << 32 | (uint64_t)st->path << 40;
	uint32_t i = (uint32_t)((k0 * 0x9e3779b97f4a7c15ull ^ k1 * 0xc2b2ae3d27d4eb4full) >>
				40) & (EX_MEMO - 1), probes;

	for (probes = 0; probes < 64; probes++, i = (i + 1) & (EX_MEMO - 1)) {
		struct ex_slot *e = &x->slot[i];

		if (e->gen != x->gen) {
			e->gen = x->gen;
			e->k0 = k0;
			e->k1 = k1;
			e->busy = 1;
			*hit = 0;
			return e;
		}
		if (e->k0 == k0 && e->k1 == k1) {
			*hit = 1;
			return e;
		}
	}
	x->full = 1;
	return NULL;
}

static void
ex_solve(struct ex_memo *x, uint32_t cur, uint32_t dst,
	 const struct dcn_route_state *st, unsigned int depth, struct ex_val *out)
{
	const struct dcn_router *r = x->r;
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct ex_slot *slot;
	unsigned int n, i, j, u;
	uint64_t wsum = 0;
	int hit;

	memset(out, 0, sizeof(*out));
	if (cur == dst) {
		out->p[0] = 1;
		return;
	}
	if (depth >= EX_DEPTH || st->ttl == 0 || x->full)
		return;
	slot = ex_find(x, cur, st, &hit);
	if (slot == NULL)
		return;
	if (hit) {
		if (slot->busy)
			x->full = 1;   /* not a chain without cycles: walk it */
		else
			*out = slot->v;
		return;
	}
	n = dcn_route_candidates(r, cur, dst, st, h);
	for (i = 0; i < n; i++)
		wsum += h[i].weight;
	for (i = 0; i < n; i++) {
		struct dcn_route_state next = *st;
		struct dcn_path_len l = { 0, 0, 0 };
		double w = wsum ? (double)h[i].weight / (double)wsum : 1.0 / n;
		uint32_t lv[3], shift, got = 0;
		struct ex_val sub;

		if (w == 0)
			continue;
		dcn_route_advance(r, cur, &h[i], &next);
		dcn_route_hop_len(dcn_router_topo(r), &h[i], &l);
		lv[0] = l.links;
		lv[1] = l.server_hops;
		lv[2] = l.switches;
		shift = lv[x->unit];
		ex_solve(x, h[i].next, dst, &next, depth + 1, &sub);
		for (j = 0; j + shift < DCN_METRICS_HIST; j++)
			if (sub.p[j] > 0) {
				out->p[j + shift] += w * sub.p[j];
				got = 1;
			}
		if (!got)
			continue;
		for (u = 0; u < 3; u++) {
			double ps = 0;

			for (j = 0; j < DCN_METRICS_HIST; j++)
				ps += sub.p[j];
			out->e[u] += w * (sub.e[u] + lv[u] * ps);
			if (sub.mx[u] + lv[u] > out->mx[u])
				out->mx[u] = sub.mx[u] + lv[u];
		}
	}
	slot->v = *out;
	slot->busy = 0;
}

/* The route a -> b, exactly, into the routed figures. @return 0, or -1
 * when the chain has more states than the memo holds. */
int
ex_pair(struct ex_memo *x, uint32_t a, uint32_t b, struct dcn_path_stats *s,
	struct acc *ac, double *count)
{
	struct dcn_route_state st;
	struct ex_val v;
	double pd = 0, sq = 0;
	unsigned int j, u;

	x->gen++;
	dcn_route_state_init(x->r, a, b, &st);
	ex_solve(x, a, b, &st, 0, &v);
	if (x->full)
		return -1;
	for (j = 0; j < DCN_METRICS_HIST; j++) {
		pd += v.p[j];
		sq += v.p[j] * j * j;
		s->hist[j] += v.p[j];
	}
	s->pairs++;
	if (pd < 1 - 1e-9)
		s->unreachable++;   /* nothing failed: a route that can drop */
	for (u = 0; u < 3; u++) {
		ac->sum[u] += v.e[u];
		if (v.mx[u] > s->max[u])
			s->max[u] = v.mx[u];
	}
	ac->sumsq += sq;
	*count += pd;
	return 0;
}

int
ex_memo_init(struct ex_memo *x)
{
	x->slot = calloc(EX_MEMO, sizeof(*x->slot));
	return x->slot != NULL ? 0 : -ENOMEM;
}

void
ex_memo_fini(struct ex_memo *x)
{
	free(x->slot);
	x->slot = NULL;
}
