/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FAR on Diamond (diamond-far.md §IV-A, §IV-C).
 *
 * The basic routing table (BRT) of each switch is built as the paper
 * prints it: for edge switch E_pq,
 *   10.p.j.0/24 -> E_pj     for each j of the opposite line (intra-pod),
 *   10.p.0.0/16 -> E_pj     for each j of the opposite line (same line),
 *   10.0.0.0/8  -> C_qc     type 1, each core c of E_pq,
 *   10.0.0.0/8  -> E_pj     type 2, each j of the opposite line,
 *   10.0.j.0/255.0.255.0 -> E_pj   type 3, each j of the opposite line,
 * 9k/4 entries; for core switch C_qc one 10.i.0.0/16 -> E_iq per pod, k
 * entries. Servers on the switch's own ports are reached at layer 2 and
 * need no entry.
 *
 * Lookup: the entries matching the destination with the longest prefix
 * are the candidates (the discontiguous 255.0.255.0 counts as 8); the
 * negative table removes entries (none without failures); among what is
 * left, the best priority wins: intra-pod entries and type 1 first, then
 * type 3, then type 2. A next hop reached by two entries keeps the better.
 *
 * The compiled table indexes the destination by (pod, position), the /24
 * that every BRT entry is a union of, so lookup is one array read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_priv.h"

#define FAR_PRIO_BEST 0

static uint32_t
ip(unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
	return a << 24 | b << 16 | c << 8 | d;
}

unsigned int
dcn_far_brt(const struct dcn_topo *t, uint32_t sw, struct dcn_far_entry *out)
{
	unsigned int k = dcn_topo_params(t)->k, q = k / 4;
	unsigned int i, j, x, p, n = 0, ob;

	dcn_topo_dm_decode(t, sw, &i, &j, &x);
	if (x == 0) {
		/* Core C_ij: one entry per pod, to E_(pod) i. */
		for (p = 1; p <= k; p++)
			out[n++] = (struct dcn_far_entry){
				ip(10, p, 0, 0), ip(255, 255, 0, 0),
				ip(10, p, i, 1), 0, 16 };
		return n;
	}
	if (x != 1)
		return 0;
	ob = j <= k / 2 ? k / 2 + 1 : 1;
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ ip(10, i, p, 0),
						   ip(255, 255, 255, 0),
						   ip(10, i, p, 1), 0, 24 };
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ ip(10, i, 0, 0),
						   ip(255, 255, 0, 0),
						   ip(10, i, p, 1), 0, 16 };
	for (p = 1; p <= q; p++)
		out[n++] = (struct dcn_far_entry){ ip(10, 0, 0, 0),
						   ip(255, 0, 0, 0),
						   ip(10, 0, j, p), 1, 8 };
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ ip(10, 0, 0, 0),
						   ip(255, 0, 0, 0),
						   ip(10, i, p, 1), 2, 8 };
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ ip(10, 0, p, 0),
						   ip(255, 0, 255, 0),
						   ip(10, i, p, 1), 3, 8 };
	return n;
}

/* Priority of an entry type: smaller is better (type 1 > 3 > 2). */
static uint16_t
far_prio(uint8_t type)
{
	switch (type) {
	case 0: return FAR_PRIO_BEST;  /* intra-pod */
	case 1: return FAR_PRIO_BEST;
	case 3: return 1;
	default: return 2;
	}
}

/* Port of switch sw that leads to next-hop switch nh: arithmetic, from
 * the wiring of lib/topo/topo_diamond.c. */
static int
far_port(const struct dcn_topo *t, uint32_t sw, uint32_t nh)
{
	unsigned int k = dcn_topo_params(t)->k;
	unsigned int i, j, x, ni, nj, nx;

	dcn_topo_dm_decode(t, sw, &i, &j, &x);
	dcn_topo_dm_decode(t, nh, &ni, &nj, &nx);
	if (x == 0)                  /* core C_ij -> E_(ni) i */
		return nx == 1 && nj == i ? (int)ni - 1 : -1;
	if (nx == 0)                 /* edge E_ij -> core C_j(nj) */
		return ni == j ? (int)(k / 2 + nj - 1) : -1;
	if (ni != i)
		return -1;
	/* edge -> opposite-line edge of the same pod */
	return (j <= k / 2) == (nj <= k / 2) ? -1
					      : (int)(nj - (nj <= k / 2 ? 1 : k / 2 + 1));
}

/*
 * Candidates of switch sw for destination address dst from its BRT:
 * longest prefix, then the best priority of each next hop.
 */
static unsigned int
far_lookup(const struct dcn_topo *t, uint32_t sw,
	   const struct dcn_far_entry *brt, unsigned int n, uint32_t dst,
	   struct dcn_hop *out)
{
	unsigned int i, j, best = 0, cnt = 0;

	for (i = 0; i < n; i++)
		if ((dst & brt[i].mask) == brt[i].dest && brt[i].prefix > best)
			best = brt[i].prefix;
	for (i = 0; i < n; i++) {
		int64_t nh;
		int port;
		uint16_t prio;

		if ((dst & brt[i].mask) != brt[i].dest || brt[i].prefix != best)
			continue;
		prio = far_prio(brt[i].type);
		nh = dcn_topo_vertex_of(t, brt[i].next_hop);
		for (j = 0; j < cnt; j++)
			if (out[j].next == (uint32_t)nh)
				break;
		if (j < cnt) {
			if (prio < out[j].weight)
				out[j].weight = prio;
			continue;
		}
		port = nh < 0 ? -1 : far_port(t, sw, (uint32_t)nh);
		if (port < 0 || cnt == DCN_ROUTE_MAX_HOPS)
			continue;
		out[cnt++] = (struct dcn_hop){ (uint32_t)nh, DCN_ROUTE_NONE,
					       (uint16_t)port, prio };
	}
	return cnt;
}

/* Largest BRT: 9k/4 entries at k = 252. */
#define FAR_BRT_MAX 576

/* At switch or server cur; brt is cur's BRT when the caller has it. */
static unsigned int
far_next(const struct dcn_topo *t, uint32_t cur, uint32_t dst,
	 const struct dcn_far_entry *brt, unsigned int nbrt,
	 struct dcn_hop *out)
{
	struct dcn_adj a[1];
	unsigned int i, j, x, di, dj, dx;

	dcn_topo_dm_decode(t, cur, &i, &j, &x);
	if (x >= 2) {
		/* A server hands everything to its edge switch. */
		dcn_topo_adj(t, cur, a);
		out[0] = (struct dcn_hop){ a[0].peer, DCN_ROUTE_NONE, 0,
					   FAR_PRIO_BEST };
		return 1;
	}
	dcn_topo_dm_decode(t, dst, &di, &dj, &dx);
	if (x == 1 && di == i && dj == j) {
		/* Attached server: layer-2 delivery, no BRT entry. */
		unsigned int k = dcn_topo_params(t)->k;

		out[0] = (struct dcn_hop){ dst, DCN_ROUTE_NONE,
					   (uint16_t)(k / 2 + k / 4 + dx - 2),
					   FAR_PRIO_BEST };
		return 1;
	}
	return far_lookup(t, cur, brt, nbrt, dcn_topo_addr(t, dst), out);
}

static unsigned int
far_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	       const struct dcn_route_state *st, struct dcn_hop *out)
{
	struct dcn_far_entry brt[FAR_BRT_MAX];
	unsigned int n = dcn_far_brt(r->t, cur, brt);

	(void)st;
	return far_next(r->t, cur, dst, brt, n, out);
}

/*
 * Compile: one candidate set per destination /24 (pod i, position j) and
 * one per server of this switch. Index (i-1) k + (j-1), then k^2 + x - 2.
 */
static int
far_compile(struct dcn_rtable *tb)
{
	const struct dcn_topo *t = tb->r->t;
	struct dcn_hop hops[DCN_ROUTE_MAX_HOPS];
	struct dcn_far_entry *brt;
	unsigned int k = dcn_topo_params(t)->k, q = k / 4, nbrt;
	unsigned int i, j, x, pi, pj, px;
	void *dd;
	int id = 0;

	dcn_topo_dm_decode(t, tb->node, &pi, &pj, &px);
	if (px >= 2)
		return -EINVAL;
	tb->form = DCN_RTABLE_CLASS;
	tb->class_k = k;
	tb->n_index = k * k + q;
	tb->set_of = malloc(tb->n_index * sizeof(*tb->set_of));
	brt = malloc(FAR_BRT_MAX * sizeof(*brt));
	dd = rtable_dedup_create();
	if (tb->set_of == NULL || dd == NULL || brt == NULL) {
		rtable_dedup_free(dd);
		free(brt);
		return -ENOMEM;
	}
	nbrt = dcn_far_brt(t, tb->node, brt);
	for (i = 0; i < tb->n_index; i++)
		tb->set_of[i] = RT_NO_SET;
	for (i = 1; i <= k; i++) {
		for (j = 1; j <= k; j++) {
			uint32_t d = dcn_topo_dm_server(t, i, j, 2);
			unsigned int n;

			if (px == 1 && i == pi && j == pj)
				continue;
			n = far_next(t, tb->node, d, brt, nbrt, hops);
			id = rtable_add_set(tb, dd, hops, n);
			if (id < 0)
				goto fail;
			tb->set_of[(i - 1) * k + (j - 1)] = (uint16_t)id;
		}
	}
	if (px == 1) {
		for (x = 2; x <= q + 1; x++) {
			uint32_t d = dcn_topo_dm_server(t, pi, pj, x);
			unsigned int n;

			n = far_next(t, tb->node, d, brt, nbrt, hops);
			id = rtable_add_set(tb, dd, hops, n);
			if (id < 0)
				goto fail;
			tb->set_of[k * k + x - 2] = (uint16_t)id;
		}
	}
	rtable_dedup_free(dd);
	free(brt);
	return 0;
fail:
	rtable_dedup_free(dd);
	free(brt);
	return id;
}

const struct route_ops route_far_ops = {
	.kind = DCN_TOPO_DIAMOND,
	.pick = DCN_PICK_PRIORITY,
	.candidates = far_candidates,
	.compile = far_compile,
};
