/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FAR's negative routing tables (diamond-far.md §IV-B): every edge switch
 * learns all link failures (FAR broadcasts them) and builds its NRT from
 * them, one rule per case the paper lists, generalised from k = 4 to k/4
 * cores per position (README.md). route_far.c looks them up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_far.h"

/* NRT under construction: entries are first gathered as (edge, entry). */
struct nrt_build {
	struct dcn_far_entry *e;
	uint32_t *owner;
	uint32_t n, cap;
	int err;
};

static void
nrt_add_typed(struct nrt_build *b, uint32_t edge, uint32_t dest, uint32_t mask,
	      uint32_t next_hop, uint8_t prefix, uint8_t type)
{
	uint32_t i;

	/* The same rule can come from two failures: keep one. */
	for (i = b->n; i-- > 0 && b->owner[i] == edge;)
		if (b->e[i].dest == dest && b->e[i].mask == mask &&
		    b->e[i].next_hop == next_hop)
			return;
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 256;
		struct dcn_far_entry *e = realloc(b->e, cap * sizeof(*e));
		uint32_t *o = realloc(b->owner, cap * sizeof(*o));

		if (e != NULL)
			b->e = e;
		if (o != NULL)
			b->owner = o;
		if (e == NULL || o == NULL) {
			b->err = -ENOMEM;
			return;
		}
		b->cap = cap;
	}
	b->e[b->n] = (struct dcn_far_entry){ dest, mask, next_hop, type, prefix };
	b->owner[b->n++] = edge;
}

static void
nrt_add(struct nrt_build *b, uint32_t edge, uint32_t dest, uint32_t mask,
	uint32_t next_hop, uint8_t prefix)
{
	nrt_add_typed(b, edge, dest, mask, next_hop, prefix, 0);
}

struct fail_walk {
	const struct dcn_topo *t;
	struct nrt_build *b;
	uint64_t *cdown;   /* [position][pod]: cores c with E_(pod)(pos)-C down */
};

/* Record one failed cable, edge-edge rules at once, edge-core into cdown. */
static void
far_fail_cable(const struct fail_walk *w, uint32_t u, uint32_t v)
{
	const struct dcn_topo *t = w->t;
	unsigned int k = dcn_topo_params(t)->k, half = k / 2, q4 = k / 4;
	unsigned int ui, uj, ux, vi, vj, vx, p, j, c;

	dcn_topo_dm_decode(t, u, &ui, &uj, &ux);
	dcn_topo_dm_decode(t, v, &vi, &vj, &vx);
	if (ux >= 2 || vx >= 2)
		return; /* server links: no NRT (§IV-D group 1) */
	if (ux == 0 || vx == 0) {
		/* Edge E_(pod)(pos) - core C_(pos)(c). */
		unsigned int pod = ux == 1 ? ui : vi, pos = ux == 1 ? uj : vj;
		unsigned int core = ux == 0 ? uj : vj;

		w->cdown[(pos - 1) * (k + 1) + pod] |= 1ull << (core - 1);
		return;
	}
	/* Edge-edge E_qa - E_qb inside pod q. */
	{
		unsigned int q = ui, a = uj, b = vj;

		for (p = 1; p <= k; p++) {
			for (j = 1; j <= k; j++) {
				uint32_t e = edge_index(k, p, j);
				int same_a = (j <= half) == (a <= half);

				if (j == a || j == b) {
					unsigned int other = j == a ? b : a;

					if (p == q)
						continue; /* its own cable */
					/* Another pod: its cores would enter pod q
					 * at its own position. */
					for (c = 1; c <= q4; c++)
						nrt_add(w->b, e, far_addr(t, q, other, 0),
							ip4(255, 255, 255, 0),
							far_addr(t, 0, j, c), 24);
				}
				/* The opposite-line edge at b (a): inside pod q it
				 * would cross the cable to reach a (b); from another
				 * pod it enters pod q there. */
				if (same_a)
					nrt_add(w->b, e, far_addr(t, q, a, 0),
						ip4(255, 255, 255, 0),
						far_addr(t, p, b, 1), 24);
				else
					nrt_add(w->b, e, far_addr(t, q, b, 0),
						ip4(255, 255, 255, 0),
						far_addr(t, p, a, 1), 24);
			}
		}
	}
}

static void
far_fail_link_cb(uint32_t v, uint16_t port, void *arg)
{
	const struct fail_walk *w = arg;
	int64_t peer = dcn_topo_port_peer(w->t, v, port);

	if (peer >= 0)
		far_fail_cable(w, v, (uint32_t)peer);
}

/*
 * Build every edge switch's NRT from the failure set (§IV-B):
 *  - a cable in the same pod, E_pa-E_pb: switches on a's line avoid
 *    E_pb for 10.p.a.0/24, those on b's line avoid E_pa for 10.p.b.0/24;
 *  - a cable in another pod q: avoid the next hops entering pod q at b
 *    for 10.q.a.0/24 and at a for 10.q.b.0/24;
 *  - a core cable C_ec-E_qe: every E_pe (p != q) avoids C_ec for
 *    10.q.0.0/16;
 *  - an opposite edge E_pe whose cores cannot carry traffic to pod q
 *    (every core c has E_pe-C_ec or C_ec-E_qe down) is avoided for
 *    10.q.0.0/16, and for 10.0.0.0/8 when all its core cables are down.
 *    With k = 4 (one core a position) these are the paper's two rules.
 *    The 10.0.0.0/8 entry is for inter-pod traffic ("C31 can't forward
 *    any inter-pod packets for E11"): read as a plain /8 it would also
 *    avoid E_pe for its own servers and loop intra-pod packets, so it
 *    does not apply to the switch's own pod;
 *  - a cable of this switch itself: its routes through it are removed
 *    at lookup; a core on the same line that it does not use: nothing.
 * A failed switch counts as all its cables failed.
 */
int
far_build_nrt(struct dcn_router *r)
{
	const struct dcn_topo *t = r->t;
	unsigned int k = dcn_topo_params(t)->k, half = k / 2, q4 = k / 4;
	uint64_t full = q4 == 64 ? ~0ull : (1ull << q4) - 1;
	struct nrt_build b = { NULL, NULL, 0, 0, 0 };
	struct fail_walk w = { t, &b, NULL };
	uint32_t nedge = k * k, v, i;
	struct route_far *far = &r->u.far;
	struct dcn_adj *adj;
	unsigned int e, p, q, j;

	w.cdown = calloc((size_t)k * (k + 1), sizeof(*w.cdown));
	adj = malloc(k * sizeof(*adj));
	if (w.cdown == NULL || adj == NULL) {
		free(w.cdown);
		free(adj);
		return -ENOMEM;
	}
	dcn_topo_failset_foreach_link(r->fail, far_fail_link_cb, &w);
	for (v = dcn_topo_servers(t); v < dcn_topo_vertices(t); v++) {
		unsigned int n;

		if (!dcn_topo_failset_vertex_down(r->fail, v))
			continue;
		n = dcn_topo_adj(t, v, adj);
		for (i = 0; i < n; i++)
			if (dcn_topo_role(t, adj[i].peer) != DCN_ROLE_SERVER)
				far_fail_cable(&w, v, adj[i].peer);
	}
	for (e = 1; e <= k; e++) {
		uint64_t *cd = &w.cdown[(e - 1) * (k + 1)];

		for (q = 1; q <= k; q++) {
			uint32_t c;

			/* Users of C_ec avoid it for pod q. */
			for (c = 1; c <= q4; c++) {
				if (!(cd[q] >> (c - 1) & 1))
					continue;
				for (p = 1; p <= k; p++)
					if (p != q)
						nrt_add(&b, edge_index(k, p, e),
							far_addr(t, q, 0, 0),
							ip4(255, 255, 0, 0),
							far_addr(t, 0, e, c), 16);
			}
		}
		/* Opposite-line users of E_pe. */
		for (p = 1; p <= k; p++) {
			unsigned int ob = e <= half ? half + 1 : 1;

			if (cd[p] == full) {
				for (j = ob; j < ob + half; j++)
					nrt_add_typed(&b, edge_index(k, p, j),
						      far_addr(t, 0, 0, 0),
						      ip4(255, 0, 0, 0),
						      far_addr(t, p, e, 1), 8,
						      DCN_FAR_INTERPOD);
				continue;
			}
			for (q = 1; q <= k; q++) {
				if (q == p || (cd[p] | cd[q]) != full)
					continue;
				for (j = ob; j < ob + half; j++)
					nrt_add(&b, edge_index(k, p, j),
						far_addr(t, q, 0, 0),
						ip4(255, 255, 0, 0),
						far_addr(t, p, e, 1), 16);
			}
		}
	}
	free(w.cdown);
	free(adj);
	if (b.err < 0) {
		free(b.e);
		free(b.owner);
		return b.err;
	}
	/* Group by edge switch (counting sort). */
	far->off = calloc(nedge + 1, sizeof(*far->off));
	far->cnt = calloc(nedge, sizeof(*far->cnt));
	far->nrt = malloc((b.n ? b.n : 1) * sizeof(*far->nrt));
	if (far->off == NULL || far->cnt == NULL || far->nrt == NULL) {
		free(b.e);
		free(b.owner);
		return -ENOMEM;
	}
	for (i = 0; i < b.n; i++)
		far->off[b.owner[i] + 1]++;
	for (i = 0; i < nedge; i++)
		far->off[i + 1] += far->off[i];
	for (i = 0; i < b.n; i++) {
		uint32_t o = b.owner[i];

		far->nrt[far->off[o] + far->cnt[o]++] = b.e[i];
	}
	far->n = b.n;
	free(b.e);
	free(b.owner);
	return 0;
}

/* NRT of switch sw (empty for cores and when nothing failed). */
const struct dcn_far_entry *
far_nrt_of(const struct dcn_router *r, uint32_t sw, unsigned int *n)
{
	unsigned int i, j, x, k = dcn_topo_params(r->t)->k;
	uint32_t e;

	*n = 0;
	if (r->fail == NULL || r->u.far.off == NULL)
		return NULL;
	dcn_topo_dm_decode(r->t, sw, &i, &j, &x);
	if (x != 1)
		return NULL;
	e = edge_index(k, i, j);
	*n = r->u.far.cnt[e];
	return r->u.far.nrt + r->u.far.off[e];
}

unsigned int
dcn_far_nrt(const struct dcn_router *r, uint32_t sw, struct dcn_far_entry *out,
	    unsigned int max)
{
	unsigned int n, i;
	const struct dcn_far_entry *e;

	if (dcn_topo_kind(r->t) != DCN_TOPO_DIAMOND)
		return 0;
	e = far_nrt_of(r, sw, &n);
	for (i = 0; i < n && i < max; i++)
		out[i] = e[i];
	return n;
}
