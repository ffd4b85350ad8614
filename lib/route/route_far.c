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
 *
 * Failures (§IV-B): every edge switch learns all link failures (FAR
 * broadcasts them) and builds its negative routing table (NRT) from them,
 * one rule per case the paper lists; the rules are generalised from k = 4
 * to k/4 cores per position (README.md). A failed cable of the switch
 * itself takes its routes out of the BRT ("just remove routes related to
 * the failed link from the BRT"), so the longest match is over what is
 * left: E11 to 10.1.3.x with E11-E13 down falls from the /24 (E13) to the
 * /16 and goes round through E14. Then a next hop is avoided when any NRT
 * entry matching the destination names it (no longest prefix), and with
 * nothing applicable the packet is dropped (§IV-C), as printed: there is
 * no falling back to a shorter prefix, which for a destination in the
 * switch's own pod would reach the inter-pod /8 entries, whose core sends
 * it straight back (E11 <-> C11 until the TTL ends).
 *
 * One correction, "far" (the opposite-core rule, README.md): the printed
 * 10.0.0.0/8 entry that avoids an opposite edge with no working core is
 * for inter-pod traffic and does not apply to the switch's own pod;
 * "far-literal" applies it to every destination, as printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_far.h"

#define FAR_PRIO_BEST 0
/* Largest BRT: 9k/4 entries at k = 252. */
#define FAR_BRT_MAX 576

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
				far_addr(t, p, 0, 0), ip4(255, 255, 0, 0),
				far_addr(t, p, i, 1), 0, 16 };
		return n;
	}
	if (x != 1)
		return 0;
	ob = j <= k / 2 ? k / 2 + 1 : 1;
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ far_addr(t, i, p, 0),
						   ip4(255, 255, 255, 0),
						   far_addr(t, i, p, 1), 0, 24 };
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ far_addr(t, i, 0, 0),
						   ip4(255, 255, 0, 0),
						   far_addr(t, i, p, 1), 0, 16 };
	for (p = 1; p <= q; p++)
		out[n++] = (struct dcn_far_entry){ far_addr(t, 0, 0, 0),
						   ip4(255, 0, 0, 0),
						   far_addr(t, 0, j, p), 1, 8 };
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ far_addr(t, 0, 0, 0),
						   ip4(255, 0, 0, 0),
						   far_addr(t, i, p, 1), 2, 8 };
	for (p = ob; p < ob + k / 2; p++)
		out[n++] = (struct dcn_far_entry){ far_addr(t, 0, p, 0),
						   ip4(255, 0, 255, 0),
						   far_addr(t, i, p, 1), 3, 8 };
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

/* Does an NRT entry name next_hop for dst? Entries that avoid an
 * opposite edge for all inter-pod traffic (printed 10.0.0.0/8) do not
 * apply to own_pod (0: they apply everywhere, as printed). */
static int
nrt_avoids(const struct dcn_far_entry *nrt, unsigned int n, uint32_t dst,
	   uint32_t next_hop, unsigned int own_pod)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((dst & nrt[i].mask) == nrt[i].dest &&
		    nrt[i].next_hop == next_hop &&
		    !(nrt[i].type == DCN_FAR_INTERPOD &&
		      ((dst >> 16) & 0xff) == own_pod))
			return 1;
	return 0;
}

/*
 * Candidates of switch sw for destination address dst: the longest prefix
 * among the BRT entries whose next hop sw's own cable reaches (the rest
 * are out of the BRT), minus the NRT, then the best priority of each next
 * hop. own_pod_exempt: the inter-pod /8 NRT entries spare sw's own pod.
 */
static unsigned int
far_lookup(const struct dcn_router *r, uint32_t sw,
	   const struct far_brt_hop *brt, unsigned int n, uint32_t dst,
	   const struct dcn_far_entry *nrt, unsigned int nn, int own_pod_exempt,
	   struct dcn_hop *out)
{
	const struct dcn_topo *t = r->t;
	struct dcn_hop hop[FAR_BRT_MAX];
	unsigned int i, j, cnt = 0, pod, pos, x, best = 0;

	dcn_topo_dm_decode(t, sw, &pod, &pos, &x);
	for (i = 0; i < n; i++) {
		hop[i].next = DCN_ROUTE_NONE;
		if ((dst & brt[i].e.mask) != brt[i].e.dest || brt[i].port < 0)
			continue;
		hop[i] = (struct dcn_hop){ brt[i].nh, DCN_ROUTE_NONE,
					   (uint16_t)brt[i].port,
					   far_prio(brt[i].e.type) };
		if (!rt_hop_up(r, sw, &hop[i])) {
			hop[i].next = DCN_ROUTE_NONE;
			continue;
		}
		if (brt[i].e.prefix > best)
			best = brt[i].e.prefix;
	}
	for (i = 0; i < n; i++) {
		if (hop[i].next == DCN_ROUTE_NONE || brt[i].e.prefix != best ||
		    nrt_avoids(nrt, nn, dst, brt[i].e.next_hop,
			       own_pod_exempt ? pod : 0))
			continue;
		for (j = 0; j < cnt; j++)
			if (out[j].next == hop[i].next)
				break;
		if (j < cnt) {
			if (hop[i].weight < out[j].weight)
				out[j].weight = hop[i].weight;
		} else if (cnt < DCN_ROUTE_MAX_HOPS) {
			out[cnt++] = hop[i];
		}
	}
	return cnt;
}

/* Switch sw's BRT with next hops resolved, into buf (or the router's
 * own copy). @return the entries, *n their number. */
static const struct far_brt_hop *
far_brt_of(const struct dcn_router *r, uint32_t sw, struct far_brt_hop *buf,
	   unsigned int *n)
{
	const struct dcn_topo *t = r->t;
	struct dcn_far_entry e[FAR_BRT_MAX];
	uint32_t i = sw - dcn_topo_servers(t);
	unsigned int k;

	if (r->u.far.brt != NULL) {
		*n = r->u.far.brt_off[i + 1] - r->u.far.brt_off[i];
		return r->u.far.brt + r->u.far.brt_off[i];
	}
	*n = dcn_far_brt(t, sw, e);
	for (k = 0; k < *n; k++) {
		int64_t nh = dcn_topo_vertex_of(t, e[k].next_hop);

		buf[k].e = e[k];
		buf[k].nh = nh < 0 ? DCN_ROUTE_NONE : (uint32_t)nh;
		buf[k].port = nh < 0 ? -1 : far_port(t, sw, (uint32_t)nh);
	}
	return buf;
}

/* Keep every switch's resolved BRT: lookups under failures read it for
 * their neighbours too. Only for fabrics where that is a few MB. */
static int
far_keep_brts(struct dcn_router *r)
{
	const struct dcn_topo *t = r->t;
	uint32_t ns = dcn_topo_servers(t), nsw = dcn_topo_vertices(t) - ns, i;
	unsigned int k = dcn_topo_params(t)->k, n, j;
	struct far_brt_hop buf[FAR_BRT_MAX];
	const struct far_brt_hop *b;

	if (k > 64)
		return 0;
	r->u.far.brt_off = malloc((nsw + 1) * sizeof(*r->u.far.brt_off));
	r->u.far.brt = malloc((size_t)nsw * (9 * k / 4) * sizeof(*r->u.far.brt));
	if (r->u.far.brt_off == NULL || r->u.far.brt == NULL) {
		free(r->u.far.brt_off);
		free(r->u.far.brt);
		r->u.far.brt_off = NULL;
		r->u.far.brt = NULL;
		return -ENOMEM;
	}
	r->u.far.brt_off[0] = 0;
	for (i = 0; i < nsw; i++) {
		struct far_brt_hop *keep = r->u.far.brt;

		r->u.far.brt = NULL;     /* build this one from scratch */
		b = far_brt_of(r, ns + i, buf, &n);
		r->u.far.brt = keep;
		for (j = 0; j < n; j++)
			r->u.far.brt[r->u.far.brt_off[i] + j] = b[j];
		r->u.far.brt_off[i + 1] = r->u.far.brt_off[i] + n;
	}
	return 0;
}

static int
far_init(struct dcn_router *r, char *err, size_t len)
{
	int ret;

	(void)err;
	(void)len;
	if (r->fail == NULL)
		return 0;
	ret = far_build_nrt(r);
	if (ret == 0)
		ret = far_keep_brts(r);
	if (ret == 0 && dcn_topo_params(r->t)->k <= 64) {
		unsigned int k = dcn_topo_params(r->t)->k;
		uint32_t nsw = dcn_topo_vertices(r->t) - dcn_topo_servers(r->t);

		r->u.far.dist = malloc((size_t)k * k * nsw);
		r->u.far.dist_done = calloc((size_t)k * k, 1);
		if (r->u.far.dist == NULL || r->u.far.dist_done == NULL)
			ret = -ENOMEM;
	}
	return ret;
}

static void
far_fini(struct dcn_router *r)
{
	free(r->u.far.off);
	free(r->u.far.cnt);
	free(r->u.far.nrt);
	free(r->u.far.brt_off);
	free(r->u.far.brt);
	free(r->u.far.dist);
	free(r->u.far.dist_done);
}

/* FAR as printed at switch or server cur: the BRT's longest prefix
 * minus the NRT. */
static unsigned int
far_printed(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	    struct dcn_hop *out)
{
	const struct dcn_topo *t = r->t;
	const struct dcn_far_entry *nrt;
	struct far_brt_hop buf[FAR_BRT_MAX];
	const struct far_brt_hop *brt;
	unsigned int nn, nbrt;
	struct dcn_adj a[1];
	unsigned int i, j, x, di, dj, dx;

	dcn_topo_dm_decode(t, cur, &i, &j, &x);
	if (x >= 2) {
		/* A server hands everything to its edge switch. */
		dcn_topo_adj(t, cur, a);
		out[0] = (struct dcn_hop){ a[0].peer, DCN_ROUTE_NONE, 0,
					   FAR_PRIO_BEST };
		return rt_filter_up(r, cur, out, 1);
	}
	dcn_topo_dm_decode(t, dst, &di, &dj, &dx);
	if (x == 1 && di == i && dj == j) {
		/* Attached server: layer-2 delivery, no BRT entry. */
		unsigned int k = dcn_topo_params(t)->k;

		out[0] = (struct dcn_hop){ dst, DCN_ROUTE_NONE,
					   (uint16_t)(k / 2 + k / 4 + dx - 2),
					   FAR_PRIO_BEST };
		return rt_filter_up(r, cur, out, 1);
	}
	nrt = far_nrt_of(r, cur, &nn);
	brt = far_brt_of(r, cur, buf, &nbrt);
	return far_lookup(r, cur, brt, nbrt, dcn_topo_addr(t, dst), nrt, nn,
			  r->algo == DCN_ALGO_FAR, out);
}

static int
far_is_switch(const struct dcn_router *r, uint32_t v)
{
	return v >= dcn_topo_servers(r->t);
}

/* Breadth-first over the live cables between switches, from switch
 * from: dist[switch - servers] in hops, 0xff where it cannot reach. */
static void
far_switch_bfs(const struct dcn_router *r, uint32_t from, uint8_t *dist,
	       uint32_t *queue)
{
	const struct dcn_topo *t = r->t;
	uint32_t ns = dcn_topo_servers(t), nsw = dcn_topo_vertices(t) - ns;
	uint32_t head = 0, tail = 0;
	struct dcn_adj a[256];

	memset(dist, 0xff, nsw);
	if (!rt_up(r, from))
		return;
	dist[from - ns] = 0;
	queue[tail++] = from;
	while (head < tail) {
		uint32_t v = queue[head++];
		unsigned int n = dcn_topo_failset_adj(r->fail, v, a), i;

		if (dist[v - ns] >= 0xfe)
			continue;
		for (i = 0; i < n; i++) {
			uint32_t p = a[i].peer;

			if (p < ns || dist[p - ns] != 0xff)
				continue;
			dist[p - ns] = (uint8_t)(dist[v - ns] + 1);
			queue[tail++] = p;
		}
	}
}

/* Live switch hops from switch v to edge switch e (0xff: none). */
static unsigned int
far_dist(const struct dcn_router *r, uint32_t v, uint32_t e)
{
	const struct dcn_topo *t = r->t;
	uint32_t ns = dcn_topo_servers(t), nsw = dcn_topo_vertices(t) - ns;
	struct route_far *far = (struct route_far *)&r->u.far;
	unsigned int i, j, x, k = dcn_topo_params(t)->k;
	uint32_t row, *queue;
	uint8_t *dist;

	dcn_topo_dm_decode(t, e, &i, &j, &x);
	row = edge_index(k, i, j);
	if (far->dist != NULL) {
		/* A cache the router fills as it is asked: lookups of one
		 * router come from one thread (its control thread, or a
		 * tool). */
		if (!far->dist_done[row]) {
			queue = malloc(nsw * sizeof(*queue));
			if (queue == NULL)
				return 0xff;
			far_switch_bfs(r, e, far->dist + (size_t)row * nsw, queue);
			free(queue);
			far->dist_done[row] = 1;
		}
		return far->dist[(size_t)row * nsw + v - ns];
	}
	dist = malloc(nsw);
	queue = malloc(nsw * sizeof(*queue));
	if (dist == NULL || queue == NULL) {
		free(dist);
		free(queue);
		return 0xff;
	}
	far_switch_bfs(r, e, dist, queue);
	x = dist[v - ns];
	free(dist);
	free(queue);
	return x;
}

/*
 * The hops of switch or server cur. In "far", under failures, FAR's hops
 * that bring the packet closer to the destination's edge switch (in live
 * switch hops), and when none does, the live hops that do. FAR's routes
 * are shortest when nothing failed, so they are unchanged then; under
 * failures its tables as printed can send a packet back where it came
 * from (an edge that lost its cables to the opposite line of its pod:
 * removing those routes leaves it the inter-pod /8, whose core sends the
 * packet straight back) or round a longer cycle. With the distance
 * falling at every hop, no route visits a switch twice, and every
 * destination the live switches reach is delivered (README.md, "FAR").
 * "far-literal" keeps the tables as printed.
 */
static unsigned int
far_next(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	 struct dcn_hop *out)
{
	const struct dcn_topo *t = r->t;
	unsigned int n = far_printed(r, cur, dst, out), m = 0, i, here, na;
	unsigned int di, dj, dx;
	struct dcn_adj a[256];
	uint32_t e;

	if (r->algo != DCN_ALGO_FAR || r->fail == NULL || !far_is_switch(r, cur))
		return n;
	dcn_topo_dm_decode(t, dst, &di, &dj, &dx);
	e = dcn_topo_dm_edge(t, di, dj);
	if (e == cur)
		return n;                     /* its own server */
	here = far_dist(r, cur, e);
	if (here == 0xff)
		return 0;
	for (i = 0; i < n; i++)
		if (far_is_switch(r, out[i].next) && far_dist(r, out[i].next, e) < here)
			out[m++] = out[i];
	if (m != 0)
		return m;
	na = dcn_topo_failset_adj(r->fail, cur, a);
	for (i = 0; i < na && m < DCN_ROUTE_MAX_HOPS; i++)
		if (far_is_switch(r, a[i].peer) && far_dist(r, a[i].peer, e) + 1 == here)
			out[m++] = (struct dcn_hop){ a[i].peer, DCN_ROUTE_NONE,
						     a[i].port, FAR_PRIO_BEST };
	return m;
}

static unsigned int
far_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	       const struct dcn_route_state *st, struct dcn_hop *out)
{
	(void)st;
	return far_next(r, cur, dst, out);
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
	unsigned int k = dcn_topo_params(t)->k, q = k / 4;
	unsigned int i, j, x, pi, pj, px;
	void *dd;
	int id = 0;

	dcn_topo_dm_decode(t, tb->node, &pi, &pj, &px);
	if (px >= 2)
		return -EINVAL;
	tb->form = DCN_RTABLE_CLASS;
	tb->class_k = k;
	tb->class_octet = far_addr(t, 0, 0, 0) >> 24;
	tb->n_index = k * k + q;
	tb->set_of = rtable_index_alloc(tb->n_index);
	dd = rtable_dedup_create();
	if (tb->set_of == NULL || dd == NULL) {
		rtable_dedup_free(dd);
		return -ENOMEM;
	}
	for (i = 1; i <= k; i++) {
		for (j = 1; j <= k; j++) {
			uint32_t d = dcn_topo_dm_server(t, i, j, 2);
			unsigned int n;

			if (px == 1 && i == pi && j == pj)
				continue;
			n = far_next(tb->r, tb->node, d, hops);
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

			n = far_next(tb->r, tb->node, d, hops);
			id = rtable_add_set(tb, dd, hops, n);
			if (id < 0)
				goto fail;
			tb->set_of[k * k + x - 2] = (uint16_t)id;
		}
	}
	rtable_dedup_free(dd);
	return 0;
fail:
	rtable_dedup_free(dd);
	return id;
}

/* VCs by hop count: 4 switch hops fault-free; FAR's detours round
 * failures go over live switch hops, which under random failures of up
 * to 30% of the links took at most 9 on Diamond k=4 and 7 on k=8
 * (tests/cli/cdg.py). */
static unsigned int
far_vc_rule(const struct dcn_router *r, int *by_hops)
{
	(void)r;
	*by_hops = 1;
	return 12;
}

const struct route_ops route_far_ops = {
	.kind = DCN_TOPO_DIAMOND,
	.pick = DCN_PICK_PRIORITY,
	.init = far_init,
	.fini = far_fini,
	.candidates = far_candidates,
	.compile = far_compile,
	.vc_rule = far_vc_rule,
};
