/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LaScaDa hierarchical row-based routing (lascada.md §V-A, Alg. 3).
 *
 * The route corrects C_k first, then C_(k-1), ..., C_2, and C_1 last; a
 * step on coordinate l uses only layer-l switches and the cluster switch.
 * Those two layers, with every other coordinate fixed, form a 2-layer
 * LaScaDa of their own (C_l as the cluster, C_1 as the node), so the step
 * is a route inside a 2-layer LaScaDa: direct when the cluster distance is
 * in Omega (up to 3 hops), through intermediate rows otherwise (Alg. 3's
 * 2- and 3-switch cases). By the shift symmetry of matrix L that route
 * only depends on the distance d = C_l' - C_l and the node numbers at both
 * ends, so one table dist2[d][a][b] (BFS over the 2-layer fabric) holds
 * them all.
 *
 * "Given multiple routing paths for a source, the shortest one is
 * selected": the node C_1 at which each step ends is chosen jointly,
 * minimising the whole route (a small dynamic programme over layers, cost
 * J below). Hop by hop, the candidates are the neighbours one hop closer
 * under that cost, so every node on the way agrees with the source's
 * choice. For k = 2 this is exactly the shortest path.
 *
 * Failures (§V-B, Alg. 4), read hop by hop with what a server knows
 * around it: a server forwards on a row-based hop that is up. When none
 * is ("routing failed"), it looks for a new source among the live servers
 * at 1, 2, ... hops (its own cluster is one hop away, the neighbouring
 * clusters beyond), and takes the first, in breadth-first order, that has
 * a live row-based hop (or is the destination), is fewer row-based hops
 * from the destination than itself, and whose route still fits in the
 * hops left. The places where routing fails thus get closer to the
 * destination each time, so detours cannot cycle; a detour may cross a
 * server the packet passed before, and MaxLifeTime bounds the route. The packet carries that server as its proxy and goes there over a
 * live shortest path; from it, row-based routing resumes. MaxLifeTime is
 * the packet's TTL, so every packet ends within it.
 *
 * Reading the search at the source only, with the whole row-based route
 * checked end to end, fails for 41% of the pairs of a 2048-node LaScaDa at
 * 24% link failures (MaxLifeTime 6) against the paper's 10.41%; the local
 * reading recovers most of them (README.md gives the figures).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_priv.h"

#define LS_MAX_N 64
#define LS_DIST_LIMIT (64u << 20)

struct ls_geo {
	unsigned int n, k;
	uint32_t R;
	const uint32_t *l1;
	const uint8_t *dist2;
};

static inline unsigned int
d2(const struct ls_geo *g, uint32_t d, unsigned int a, unsigned int b)
{
	return g->dist2[((size_t)d * g->n + a) * g->n + b];
}

static int
row_init(struct dcn_router *r, char *err, size_t len)
{
	const struct dcn_topo *t = r->t;
	unsigned int n = dcn_topo_params(t)->n;
	uint32_t R = dcn_topo_ls_rows(t);
	const uint32_t *l1 = dcn_topo_ls_l1(t);
	size_t cells = (size_t)R * n, bytes = cells * n;
	uint32_t *queue;
	uint8_t *dist, *seen;
	unsigned int a;

	if (bytes > LS_DIST_LIMIT) {
		route_err(err, len,
			  "lascada: n=%u needs a %zu-byte 2-layer distance table (limit %u)",
			  n, bytes, LS_DIST_LIMIT);
		return -ERANGE;
	}
	dist = malloc(bytes);
	seen = malloc(cells);
	queue = malloc(cells * sizeof(*queue));
	if (dist == NULL || seen == NULL || queue == NULL) {
		free(dist);
		free(seen);
		free(queue);
		return -ENOMEM;
	}
	/* BFS from (row 0, node a) over the 2-layer fabric; cell r*n + c. */
	for (a = 0; a < n; a++) {
		uint32_t head = 0, tail = 0;
		uint8_t *lvl = seen;

		memset(lvl, 0xff, cells);
		lvl[a] = 0;
		queue[tail++] = a;
		while (head < tail) {
			uint32_t cell = queue[head++];
			uint32_t row = cell / n, c = cell % n, c2;

			for (c2 = 0; c2 < n; c2++) {
				uint32_t nb[2];
				unsigned int w;

				if (c2 == c)
					continue;
				nb[0] = row * n + c2; /* cluster switch */
				nb[1] = (uint32_t)(((uint64_t)row + R + l1[c] -
						    l1[c2]) % R) * n + c2;
				for (w = 0; w < 2; w++) {
					if (lvl[nb[w]] != 0xff)
						continue;
					lvl[nb[w]] = (uint8_t)(lvl[cell] + 1);
					queue[tail++] = nb[w];
				}
			}
		}
		{
			uint32_t d, b;

			for (d = 0; d < R; d++)
				for (b = 0; b < n; b++)
					dist[((size_t)d * n + a) * n + b] =
						lvl[d * n + b];
		}
	}
	free(seen);
	free(queue);
	r->u.ls.dist2 = dist;
	return 0;
}

static void
row_fini(struct dcn_router *r)
{
	free(r->u.ls.dist2);
}

/*
 * J_l(b) for b in [0,n): cost of the rest of the route when coordinate l
 * (1-based; l = 1 means only C_1 is left) is next and the packet is at node
 * b. off[l-1] is the cluster distance still to go on coordinate l.
 */
static void
cost_upto(const struct ls_geo *g, const uint32_t *off, unsigned int y0,
	  unsigned int l, unsigned int *J)
{
	unsigned int tmp[LS_MAX_N], b, a, lay;

	for (b = 0; b < g->n; b++)
		J[b] = b != y0;
	for (lay = 2; lay <= l; lay++) {
		uint32_t d = off[lay - 1];

		if (d == 0)
			continue;
		for (a = 0; a < g->n; a++) {
			unsigned int best = ~0u;

			for (b = 0; b < g->n; b++) {
				unsigned int c = d2(g, d, a, b) + J[b];

				if (c < best)
					best = c;
			}
			tmp[a] = best;
		}
		memcpy(J, tmp, g->n * sizeof(*J));
	}
}

static unsigned int
step_cost(const struct ls_geo *g, uint32_t d, unsigned int a,
	  const unsigned int *Jlow)
{
	unsigned int best = ~0u, b;

	if (d == 0)
		return Jlow[a];
	for (b = 0; b < g->n; b++) {
		unsigned int c = d2(g, d, a, b) + Jlow[b];

		if (c < best)
			best = c;
	}
	return best;
}

static unsigned int
row_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	       const struct dcn_route_state *st, struct dcn_hop *out)
{
	const struct dcn_topo *t = r->t;
	struct dcn_adj sw[DCN_TOPO_MAX_DIGITS];
	uint32_t x[DCN_TOPO_MAX_DIGITS], y[DCN_TOPO_MAX_DIGITS];
	uint32_t off[DCN_TOPO_MAX_DIGITS];
	unsigned int Jlow[LS_MAX_N];
	struct ls_geo g;
	unsigned int L, l, c2, here, n = 0;

	(void)st;
	g.n = dcn_topo_params(t)->n;
	g.k = dcn_topo_params(t)->k;
	g.R = dcn_topo_ls_rows(t);
	g.l1 = dcn_topo_ls_l1(t);
	g.dist2 = r->u.ls.dist2;
	dcn_topo_ls_coords(t, cur, x);
	dcn_topo_ls_coords(t, dst, y);
	L = 1;
	for (l = 2; l <= g.k; l++) {
		off[l - 1] = (y[l - 1] + g.R - x[l - 1]) % g.R;
		if (off[l - 1] != 0)
			L = l;
	}
	dcn_topo_adj(t, cur, sw);
	if (L == 1) {
		out[0] = (struct dcn_hop){ dst, sw[0].peer, 0, 1 };
		return 1;
	}
	cost_upto(&g, off, y[0], L - 1, Jlow);
	here = step_cost(&g, off[L - 1], x[0], Jlow);
	for (c2 = 0; c2 < g.n; c2++) {
		uint32_t dnew, cc[DCN_TOPO_MAX_DIGITS];

		if (c2 == x[0])
			continue;
		/* Inside the cluster: same distance left, other node. */
		if (step_cost(&g, off[L - 1], c2, Jlow) + 1 == here) {
			memcpy(cc, x, sizeof(cc));
			cc[0] = c2;
			out[n++] = (struct dcn_hop){ dcn_topo_ls_vertex(t, cc),
						     sw[0].peer, 0, 1 };
		}
		/* Across the layer-L switch: row moves by l1[x0] - l1[c2]. */
		dnew = (uint32_t)(((uint64_t)off[L - 1] + 2 * g.R -
				   (g.l1[x[0]] - 1) + (g.l1[c2] - 1)) % g.R);
		if (step_cost(&g, dnew, c2, Jlow) + 1 == here) {
			memcpy(cc, x, sizeof(cc));
			cc[0] = c2;
			cc[L - 1] = (y[L - 1] + g.R - dnew) % g.R;
			out[n++] = (struct dcn_hop){ dcn_topo_ls_vertex(t, cc),
						     sw[L - 1].peer,
						     (uint16_t)(L - 1), 1 };
		}
	}
	return n;
}

/* Hops of the row-based route from x to d (all of them have this length). */
static unsigned int
row_len(const struct dcn_router *r, uint32_t x, uint32_t d)
{
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	unsigned int len = 0;

	memset(&st, 0, sizeof(st));
	while (x != d && len < 255) {
		if (row_candidates(r, x, d, &st, h) == 0)
			return 255;
		x = h[0].next;
		len++;
	}
	return len;
}

/* Live row-based hops of x towards d. */
static unsigned int
row_live_hops(const struct dcn_router *r, uint32_t x, uint32_t d,
	      struct dcn_hop *out)
{
	struct dcn_route_state st;

	memset(&st, 0, sizeof(st));
	return rt_filter_up(r, x, out, row_candidates(r, x, d, &st, out));
}

/*
 * Breadth-first server hops from src over the live fabric, up to limit.
 * dist has one byte per server (0xff: beyond); queue receives the servers
 * reached, in order. @return how many.
 */
static uint32_t
live_server_bfs(const struct dcn_router *r, uint32_t src, unsigned int limit,
		uint8_t *dist, uint32_t *queue)
{
	const struct dcn_topo *t = r->t;
	struct dcn_adj a[DCN_TOPO_MAX_DIGITS], s[64];
	uint32_t head = 0, tail = 0;

	memset(dist, 0xff, dcn_topo_servers(t));
	if (!rt_up(r, src) || dcn_topo_max_degree(t) > 64)
		return 0;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t x = queue[head++];
		unsigned int n, i, j, m;

		if (dist[x] >= limit)
			continue;
		n = dcn_topo_failset_adj(r->fail, x, a);
		for (i = 0; i < n; i++) {
			m = dcn_topo_failset_adj(r->fail, a[i].peer, s);
			for (j = 0; j < m; j++) {
				uint32_t y = s[j].peer;

				if (dist[y] != 0xff)
					continue;
				dist[y] = (uint8_t)(dist[x] + 1);
				queue[tail++] = y;
			}
		}
	}
	return tail;
}

/* Hops from cur one step closer to target over live shortest paths. */
static unsigned int
toward(const struct dcn_router *r, uint32_t cur, const uint8_t *dist,
       struct dcn_hop *out)
{
	struct dcn_adj a[DCN_TOPO_MAX_DIGITS], s[64];
	uint32_t ns = dcn_topo_servers(r->t);
	unsigned int n = 0, i, j, m, q;

	if (dist[cur] == 0xff || dist[cur] == 0)
		return 0;
	m = dcn_topo_failset_adj(r->fail, cur, a);
	for (i = 0; i < m && n < DCN_ROUTE_MAX_HOPS; i++) {
		q = dcn_topo_failset_adj(r->fail, a[i].peer, s);
		for (j = 0; j < q && n < DCN_ROUTE_MAX_HOPS; j++)
			if (s[j].peer < ns && dist[s[j].peer] + 1 == dist[cur])
				out[n++] = (struct dcn_hop){ s[j].peer, a[i].peer,
							     a[i].port, 1 };
	}
	return n;
}

/*
 * The decision at cur (Alg. 4): the hops to take, and the proxy the packet
 * leaves with. @return number of hops.
 */
static unsigned int
row_decide(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	   const struct dcn_route_state *st, struct dcn_hop *out,
	   uint32_t *proxy)
{
	uint32_t ns = dcn_topo_servers(r->t), *queue, reached, i;
	unsigned int n = 0, left = st->ttl, here;
	uint8_t *dist;

	*proxy = st->proxy == cur ? DCN_ROUTE_NONE : st->proxy;
	if (*proxy == DCN_ROUTE_NONE) {
		n = row_live_hops(r, cur, dst, out);
		if (n != 0 || left <= 1)
			return n;
	}
	dist = malloc(ns);
	queue = malloc((size_t)ns * sizeof(*queue));
	if (dist == NULL || queue == NULL)
		goto out;
	if (*proxy != DCN_ROUTE_NONE) {
		live_server_bfs(r, *proxy, left, dist, queue);
		n = toward(r, cur, dist, out);
		goto out;
	}
	/* Routing failed here: a new source within reach, strictly closer
	 * by row-based hops, so the places where routing fails get closer to
	 * the destination every time and detours cannot loop. */
	here = row_len(r, cur, dst);
	reached = live_server_bfs(r, cur, left - 1, dist, queue);
	for (i = 1; i < reached; i++) {
		uint32_t y = queue[i];
		struct dcn_hop tmp[DCN_ROUTE_MAX_HOPS];
		unsigned int len = row_len(r, y, dst);

		if (len >= here || dist[y] + len > left ||
		    (y != dst && row_live_hops(r, y, dst, tmp) == 0))
			continue;
		live_server_bfs(r, y, dist[y], dist, queue);
		n = toward(r, cur, dist, out);
		if (n != 0)
			*proxy = y;
		break;
	}
out:
	free(dist);
	free(queue);
	return n;
}

/*
 * The hops toward every server as a proxy, for the compiled table: over
 * live shortest paths, as toward() takes them. Breadth-first from each
 * live neighbour of the node (in toward()'s order: by switch, then by
 * server) gives its distance to every server; the neighbours that are
 * nearest a server are the hops toward it.
 */
static int
row_compile_proxies(struct dcn_rtable *tb, void *dd)
{
	const struct dcn_router *r = tb->r;
	uint32_t ns = dcn_topo_servers(r->t), *queue = NULL;
	struct dcn_adj a[DCN_TOPO_MAX_DIGITS], s[64];
	struct dcn_hop nb[DCN_ROUTE_MAX_HOPS];
	uint8_t *dist = NULL;
	unsigned int n = 0, i, j, m, k;
	int id = 0;

	/* Nothing failed: a detour's proxy is reached as any server is, by
	 * the table's own hops toward it (dcn_rtable_lookup). */
	if (r->fail == NULL)
		return 0;
	tb->proxy_set_of = rtable_index_alloc(ns);
	if (tb->proxy_set_of == NULL)
		return -ENOMEM;
	if (!rt_up(r, tb->node) || dcn_topo_max_degree(r->t) > 64)
		return 0;
	m = dcn_topo_failset_adj(r->fail, tb->node, a);
	for (i = 0; i < m; i++) {
		k = dcn_topo_failset_adj(r->fail, a[i].peer, s);
		for (j = 0; j < k && n < DCN_ROUTE_MAX_HOPS; j++)
			if (s[j].peer < ns && s[j].peer != tb->node)
				nb[n++] = (struct dcn_hop){ s[j].peer, a[i].peer,
							    a[i].port, 1 };
	}
	if (n == 0)
		return 0;
	dist = malloc((size_t)n * ns);
	queue = malloc((size_t)ns * sizeof(*queue));
	if (dist == NULL || queue == NULL) {
		id = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		live_server_bfs(r, nb[i].next, 0xfe, dist + (size_t)i * ns, queue);
	id = rtable_nearest_sets(tb, dd, nb, n, dist, ns, ns, tb->node,
				 tb->proxy_set_of);
out:
	free(dist);
	free(queue);
	return id < 0 ? id : 0;
}

static unsigned int
row_ft_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
		  const struct dcn_route_state *st, struct dcn_hop *out)
{
	uint32_t proxy;

	if (r->fail == NULL)
		return row_candidates(r, cur, dst, st, out);
	return row_decide(r, cur, dst, st, out, &proxy);
}

static void
row_state_init(const struct dcn_router *r, uint32_t src, uint32_t dst,
	       struct dcn_route_state *st)
{
	(void)src;
	(void)dst;
	if (r->conf.max_life != 0)
		st->ttl = (uint8_t)(r->conf.max_life > 255 ? 255 : r->conf.max_life);
}

static void
row_advance(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h,
	    struct dcn_route_state *st)
{
	struct dcn_hop tmp[DCN_ROUTE_MAX_HOPS];
	uint32_t proxy;

	if (r->fail == NULL)
		return;
	row_decide(r, cur, st->dst, st, tmp, &proxy);
	st->proxy = proxy == h->next ? DCN_ROUTE_NONE : proxy;
}

/* VCs by hop count: Alg. 4 bounds a route by MaxLifeTime (every VC the
 * header has when none is given). */
static unsigned int
row_vc_rule(const struct dcn_router *r, int *by_hops)
{
	*by_hops = 1;
	return r->conf.max_life ? r->conf.max_life : DCN_ROUTE_MAX_VCS;
}

const struct route_ops route_row_ops = {
	.kind = DCN_TOPO_LASCADA,
	.pick = DCN_PICK_EQUAL,
	.init = row_init,
	.fini = row_fini,
	.state_init = row_state_init,
	.candidates = row_ft_candidates,
	.advance = row_advance,
	.compile_proxies = row_compile_proxies,
	.vc_rule = row_vc_rule,
};
