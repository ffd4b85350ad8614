/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TFR, Totoro fault-tolerant routing (§3.2, §3.3, Alg. 3).
 *
 * A server knows the link states of its broadcast domain (TBD), the
 * Totoro_bcLevel it is in, including the links of the outer servers
 * across its high-level links (their states arrive over the inter-switch,
 * §3.2). dijkstraRouting(target) is a shortest path in that known graph:
 * unweighted, so breadth-first; it finds targets inside the TBD and outer
 * servers. Otherwise the packet takes a proxy: the far end n of a local
 * level-k link (m, n) that can be reached, TRA's choice first (the exit
 * nearest this server, then the one whose far end is the destination,
 * then the lowest number), then the other local links in the same order.
 * At the proxy the field is cleared and the next proxy chosen. The TTL
 * bounds everything. The constraint bcLevel >= log_n(2^K / N) makes every
 * TBD hold a link of every level.
 *
 * Two corrections, each shown by a test against the rule as printed:
 *  - When the destination is inside this TBD but cut off from this server
 *    in it (its intra-switch cable down, say), Alg. 3 has no way out:
 *    lowestCommonLevel is at most bcLevel and no local path leaves towards
 *    it. The packet then goes out over a local level bcLevel+1 link to a
 *    sibling partition and is routed back from there: only when it can
 *    come back, that is when the destination's own level bcLevel+1 link
 *    is up (every sibling partition reaches it across that link's
 *    switch), and only once a packet (the header's jumped bit, PORA's,
 *    marks it); or when this server is the one cut off (its intra-switch
 *    cable down: the way back enters through another server). A
 *    destination with no way in is dropped: sent out, it was sent
 *    straight back, between the same two servers until the TTL ran out
 *    (Totoro(4,4,1): an odd server, which has no level-1 link, with its
 *    intra-switch cable down). The same detour, under the same once-only
 *    rule, when no local level-k link can be reached.
 *  - An outer server is taken as proxy only if its own intra-switch cable
 *    is up (its states reach the TBD over the inter-switch): one that
 *    cannot get into its Totoro_0 would bounce the packet back.
 *
 * One reading, the way around: a server of link level L >= bcLevel + 2 cut
 * off from its Totoro_0 is reached only across its own level-L switch
 * from another Totoro_(L-1), which no relay beyond its TBD can know; the
 * TBD that sees it marks the packet (DCN_TFR_AROUND_OUT, and
 * DCN_TFR_AROUND_IN for that server's own packets into its Totoro_(L-1))
 * and the relays on the way follow the mark (tfr_around_out, tfr_decide;
 * lib/route/README.md, Totoro). With N below 2^K, a Totoro_0 cut off
 * from its larger TBD goes around the same way (tfr_detached,
 * tfr_around_entry). test_single_failures pins it: every single failure
 * of totoro:N=4,n=4,K=2, N=8,n=2,K=3, N=2,n=4,K=2 and N=2,n=2,K=3 loses
 * no connected pair.
 *
 * One reading: TFR is built on TRA (§3.2), so where a TRA route from this
 * server is live as far as it can know (every hop taken inside its TBD up;
 * the hops beyond are other domains' to judge), the packet takes TRA's
 * hops along such routes, and Alg. 3 only where none is. A failure then
 * costs only the routes it breaks: with Alg. 3 alone, whose
 * getLocalPaths takes the exit nearest the server where TRA takes the
 * one that makes the whole path shortest, one failed cable anywhere
 * lengthened every route of Totoro(16,16,2) by about 10% (8.04 links on
 * average against TRA's 7.27). test_tfr_is_tra_where_untouched pins it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_tt.h"

/* TFR search state over the servers of one TBD. */
struct tfr_bfs {
	uint32_t base, size;   /* first server and number of servers */
	uint16_t *dist;        /* 0xffff: unreached */
	uint32_t *first;       /* first hop towards each server */
	uint32_t *queue;
};

static int
tfr_init(struct dcn_router *r, char *err, size_t len)
{
	unsigned int bc = r->conf.bc_level, least;
	struct tt_geo g;

	tt_geo_load(r->t, &g);
	least = least_bc_level(&g);
	if (bc == 0)
		bc = least;
	if (bc < least || bc > g.K) {
		route_err(err, len,
			  "tfr: bcLevel %u breaks bcLevel >= log_n(2^K/N) = %u (and <= K)",
			  bc, least);
		return -EINVAL;
	}
	r->conf.bc_level = bc;
	return 0;
}

static int
tfr_link_up(const struct dcn_router *r, uint32_t s, uint16_t port,
	    uint32_t sw)
{
	return r->fail == NULL ||
	       (!dcn_topo_failset_vertex_down(r->fail, s) &&
		!dcn_topo_failset_link_down(r->fail, s, port, sw));
}

/* Reach y from s across switch sw (y's port port): one BFS step. */
static void
tfr_visit(const struct dcn_router *r, struct tfr_bfs *b, uint32_t src,
	  uint32_t s, uint32_t y, uint16_t port, uint32_t sw, uint32_t *tail)
{
	if (y == s || b->dist[y - b->base] != 0xffff ||
	    !tfr_link_up(r, y, port, sw))
		return;
	b->dist[y - b->base] = (uint16_t)(b->dist[s - b->base] + 1);
	b->first[y - b->base] = s == src ? y : b->first[s - b->base];
	b->queue[(*tail)++] = y;
}

/* Breadth-first search from src over its TBD's known graph. */
static int
tfr_bfs_run(const struct dcn_router *r, const struct tt_geo *g, uint32_t src,
	    struct tfr_bfs *b)
{
	const struct dcn_topo *t = r->t;
	unsigned int bc = r->conf.bc_level;
	uint32_t head = 0, tail = 0, i;

	b->size = g->block[bc];
	b->base = src - src % b->size;
	b->dist = malloc(b->size * sizeof(*b->dist));
	b->first = malloc(b->size * sizeof(*b->first));
	b->queue = malloc(b->size * sizeof(*b->queue));
	if (b->dist == NULL || b->first == NULL || b->queue == NULL)
		return -ENOMEM;
	for (i = 0; i < b->size; i++)
		b->dist[i] = 0xffff;
	if (!rt_up(r, src))
		return 0;
	b->dist[src - b->base] = 0;
	b->first[src - b->base] = src;
	b->queue[tail++] = src;
	while (head < tail) {
		uint32_t s = b->queue[head++];
		struct dcn_adj a[2];
		unsigned int ls = level_of(g, s), w;
		uint32_t t0 = s - s % g->N;

		dcn_topo_adj(t, s, a);
		/* Intra-switch neighbours. */
		if (rt_up(r, a[0].peer) && tfr_link_up(r, s, 0, a[0].peer))
			for (w = 0; w < g->N; w++)
				tfr_visit(r, b, src, s, t0 + w, 0, a[0].peer, &tail);
		/* Inter-switch neighbours inside the TBD. */
		if (ls != 0 && ls <= bc && rt_up(r, a[1].peer) &&
		    tfr_link_up(r, s, 1, a[1].peer))
			for (w = 0; w < g->n; w++)
				tfr_visit(r, b, src, s, dcn_topo_tt_across(t, s, ls, w),
					  1, a[1].peer, &tail);
	}
	return 0;
}

static void
tfr_bfs_free(struct tfr_bfs *b)
{
	free(b->dist);
	free(b->first);
	free(b->queue);
}

static int tfr_cut_off(const struct dcn_router *r, uint32_t s);

/*
 * dijkstraRouting: hop count from src to target over the known graph and
 * the first hop, or 0xffff. Outer targets are reached across the
 * high-level switch of a TBD server.
 */
static unsigned int
tfr_route_to(const struct dcn_router *r, const struct tt_geo *g,
	     const struct tfr_bfs *b, uint32_t src, uint32_t target,
	     uint32_t dst_of_search, struct dcn_hop *hop)
{
	const struct dcn_topo *t = r->t;
	struct dcn_adj a[2];
	uint32_t m, f;
	unsigned int lt;

	if (target >= b->base && target < b->base + b->size) {
		if (b->dist[target - b->base] == 0xffff || target == src)
			return 0xffff;
		f = b->first[target - b->base];
	} else {
		lt = level_of(g, target);
		if (lt <= r->conf.bc_level || !rt_up(r, target))
			return 0xffff;
		if (target != dst_of_search && r->algo == DCN_ALGO_TFR) {
			/* A proxy must be able to get into its Totoro_0. */
			if (tfr_cut_off(r, target))
				return 0xffff;
		}
		m = dcn_topo_tt_across(t, target, lt,
				       (src / g->block[lt - 1]) % g->n);
		if (m < b->base || m >= b->base + b->size ||
		    b->dist[m - b->base] == 0xffff)
			return 0xffff;
		dcn_topo_adj(t, m, a);
		if (!rt_up(r, a[1].peer) || !tfr_link_up(r, m, 1, a[1].peer) ||
		    !tfr_link_up(r, target, 1, a[1].peer))
			return 0xffff;
		f = m == src ? target : b->first[m - b->base];
		if (hop == NULL)
			return b->dist[m - b->base] + 1u;
		dcn_topo_adj(t, src, a);
		/* Across src's own high link, or the first hop towards m:
		 * intra-switch, or (bcLevel >= 1) an inside inter-switch
		 * neighbour. */
		if (f == target || f / g->N != src / g->N)
			*hop = (struct dcn_hop){ f, a[1].peer, 1, 1 };
		else
			*hop = (struct dcn_hop){ f, a[0].peer, 0, 1 };
		return b->dist[m - b->base] + 1u;
	}
	if (hop != NULL) {
		/* The first hop is an intra-switch or an inside inter-switch
		 * neighbour. */
		dcn_topo_adj(t, src, a);
		if (f / g->N == src / g->N)
			*hop = (struct dcn_hop){ f, a[0].peer, 0, 1 };
		else
			*hop = (struct dcn_hop){ f, a[1].peer, 1, 1 };
	}
	return b->dist[target - b->base];
}

/*
 * getLocalPaths: the best reachable far end of this TBD's level-k links
 * into child `child` of the Totoro_k (child == n: any sibling of this
 * server's own), TRA's choice first: fewest hops, then the destination.
 * The links of server skip are left out (DCN_ROUTE_NONE: none).
 */
static uint32_t
tfr_pick_proxy(const struct dcn_router *r, const struct tt_geo *g,
	       const struct tfr_bfs *b, uint32_t cur, uint32_t dst,
	       unsigned int k, unsigned int child, uint32_t skip)
{
	uint32_t step = 1u << k, m, best = DCN_ROUTE_NONE;
	unsigned int c0 = child == g->n ? 0 : child;
	unsigned int c1 = child == g->n ? g->n : child + 1, c;
	unsigned int best_len = 0xffff;

	for (m = b->base + ((step >> 1) - 1 + step - b->base % step) % step;
	     m < b->base + b->size; m += step) {
		for (c = c0; c < c1 && m != skip; c++) {
			uint32_t n = dcn_topo_tt_across(r->t, m, k, c);
			unsigned int len;

			if (n / g->block[k - 1] == cur / g->block[k - 1])
				continue;
			len = tfr_route_to(r, g, b, cur, n, dst, NULL);
			if (len == 0xffff)
				continue;
			if (len < best_len || (len == best_len && n == dst)) {
				best = n;
				best_len = len;
			}
		}
	}
	return best;
}

/* Can a packet sent out of dst's TBD over a level bc+1 link come back to
 * it? Only across dst's own level bc+1 link. */
static int
tfr_reenters(const struct dcn_router *r, const struct tt_geo *g, uint32_t dst)
{
	struct dcn_adj a[2];

	if (level_of(g, dst) != r->conf.bc_level + 1 || !rt_up(r, dst))
		return 0;
	dcn_topo_adj(r->t, dst, a);
	return rt_up(r, a[1].peer) && tfr_link_up(r, dst, 1, a[1].peer);
}

/* Is server s cut off inside its own Totoro_0: its intra-switch cable or
 * that switch down, or no other server there with its cable up (N below
 * 2^K: a Totoro_0 of two servers has one such)? Sent out, its packets
 * come back through another server, since no outer server cut off is
 * taken as a proxy. What a relay beyond s's TBD knows of the others
 * comes from s itself, which announces the peers it no longer hears
 * behind that switch. */
static int
tfr_cut_off(const struct dcn_router *r, uint32_t s)
{
	uint32_t N = dcn_topo_params(r->t)->N, t0 = s - s % N, w;
	struct dcn_adj a[2];

	dcn_topo_adj(r->t, s, a);
	if (!rt_up(r, a[0].peer) || !tfr_link_up(r, s, 0, a[0].peer))
		return 1;
	for (w = t0; w < t0 + N; w++)
		if (w != s && tfr_link_up(r, w, 0, a[0].peer))
			return 0;
	return 1;
}

/* What a packet leaves a server with, beside its hop. */
struct tfr_next {
	uint32_t proxy;
	uint8_t phase, jumped;
};

/* The server of dst's Totoro_0 a way around enters by, and its link
 * level: dst itself when that level is above bcLevel, else the server of
 * highest level there (N below 2^K: a Totoro_0 whose only links into its
 * TBD are of level bcLevel or less, which one cable cut can leave
 * hanging). Of the topology alone: every relay on the way names the
 * same. */
static uint32_t
tfr_around_entry(const struct tt_geo *g, unsigned int bc, uint32_t dst,
		 unsigned int *L)
{
	uint32_t t0 = dst - dst % g->N, e = dst, w;

	if (level_of(g, dst) <= bc)
		for (w = t0; w < t0 + g->N; w++)
			if (level_of(g, w) > level_of(g, e))
				e = w;
	*L = level_of(g, e);
	return e;
}

/* Does dst, out of cur's reach inside its TBD, take the way around
 * (DCN_TFR_AROUND_OUT), as cur knows: dst cut off from its Totoro_0, or
 * that Totoro_0 cut off from cur's TBD, with the link of its entry up
 * (tfr_around_entry: dst itself at level bcLevel + 2 or more, else a
 * server that reaches dst inside the Totoro_0)? Only across the entry's
 * switch, from another Totoro_(L-1), can a packet reach it.
 * @return L, the entry's link level, or 0: no way around. */
static unsigned int
tfr_around_target(const struct dcn_router *r, const struct tt_geo *g,
		  uint32_t cur, uint32_t dst)
{
	unsigned int bc = r->conf.bc_level, L;
	uint32_t e = tfr_around_entry(g, bc, dst, &L);
	struct dcn_adj a[2];

	if (r->algo != DCN_ALGO_TFR || L <= bc || !rt_up(r, dst) || !rt_up(r, e))
		return 0;
	/* dst itself the entry: cut off from its Totoro_0, or that Totoro_0
	 * from cur's TBD (cur not cut off itself: then it is cur's own way
	 * out that failed). */
	if (e == dst && (L < bc + 2 || (!tfr_cut_off(r, dst) && tfr_cut_off(r, cur))))
		return 0;
	if (e != dst) {
		dcn_topo_adj(r->t, dst, a);
		if (tfr_cut_off(r, cur) || !rt_up(r, a[0].peer) ||
		    !tfr_link_up(r, dst, 0, a[0].peer) ||
		    !tfr_link_up(r, e, 0, a[0].peer))
			return 0;
	}
	dcn_topo_adj(r->t, e, a);
	return rt_up(r, a[1].peer) && tfr_link_up(r, e, 1, a[1].peer) ? L : 0;
}

/* Is cur's Totoro_0 cut off from the rest of its TBD (N below 2^K), cur
 * itself not: its search reached no server beyond it? */
static int
tfr_detached(const struct tt_geo *g, const struct tfr_bfs *b, uint32_t cur)
{
	uint32_t t0 = cur - cur % g->N, i;

	if (b->size <= g->N)
		return 0;
	for (i = 0; i < b->size; i++)
		if (b->dist[i] != 0xffff &&
		    (b->base + i < t0 || b->base + i >= t0 + g->N))
			return 0;
	return 1;
}

static int tfr_decide(const struct dcn_router *r, uint32_t cur,
		      const struct dcn_route_state *st, struct dcn_hop *hop,
		      struct tfr_next *o);

/*
 * DCN_TFR_AROUND_OUT with no proxy to go to (e the entry of
 * tfr_around_entry, L its level): inside e's Totoro_(L-1), out of it over
 * a level-L link of this TBD (from dst's own TBD, where the way around
 * began, first over a level bcLevel+1 link to a TBD that has one); in
 * another Totoro_(L-1), to its server y across e's level-L switch, by
 * TRA's hops that are live as far as cur knows, else Alg. 3 towards y,
 * and from y's TBD across to e. TRA between two servers of one
 * Totoro_(L-1) stays inside it, so the packet never comes back into e's
 * but across e's own link.
 */
static int
tfr_around_out(const struct dcn_router *r, const struct tt_geo *g,
	       const struct tfr_bfs *b, uint32_t cur,
	       const struct dcn_route_state *st, struct dcn_hop *hop,
	       struct tfr_next *o)
{
	struct dcn_hop tra[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state toward;
	unsigned int bc = r->conf.bc_level, L;
	uint32_t dst = st->dst, e, best, y;

	e = tfr_around_entry(g, bc, dst, &L);
	if (L <= bc)
		return 0;
	if (cur / g->block[L - 1] == e / g->block[L - 1]) {
		best = tfr_pick_proxy(r, g, b, cur, dst, L, g->n, DCN_ROUTE_NONE);
		if (best == DCN_ROUTE_NONE && cur / g->block[bc] == dst / g->block[bc])
			best = tfr_pick_proxy(r, g, b, cur, dst, bc + 1, g->n,
					      DCN_ROUTE_NONE);
		if (best == DCN_ROUTE_NONE)
			return 0;
		tfr_route_to(r, g, b, cur, best, dst, hop);
		o->proxy = best;
		return 1;
	}
	if (e != dst && tfr_route_to(r, g, b, cur, e, e, hop) != 0xffff)
		return 1;
	y = dcn_topo_tt_across(r->t, e, L, (cur / g->block[L - 1]) % g->n);
	if (y == cur)
		return 0;  /* e's link down after all: tfr_route_to failed */
	if (tra_live_hops(r, cur, y, tra) != 0) {
		*hop = tra[0];
		return 1;
	}
	toward = *st;
	toward.dst = y;
	toward.proxy = DCN_ROUTE_NONE;
	toward.phase = DCN_TFR_ALG3;
	toward.jumped = 1;
	{
		struct tfr_next o2;

		if (!tfr_decide(r, cur, &toward, hop, &o2))
			return 0;
		o->proxy = o2.proxy;
	}
	return 1;
}

/* Alg. 3 lines 5-16: the next hop and what the packet leaves with (its
 * proxy, its phase, and the jumped bit of the way out and back).
 * @return 1 with *hop set, 0 to drop. */
static int
tfr_decide(const struct dcn_router *r, uint32_t cur,
	   const struct dcn_route_state *st, struct dcn_hop *hop,
	   struct tfr_next *o)
{
	const struct dcn_topo *t = r->t;
	uint32_t dst = st->dst, proxy = st->proxy;
	struct tfr_bfs b = { 0, 0, NULL, NULL, NULL };
	unsigned int bc = r->conf.bc_level;
	struct tt_geo g;
	int found = 0;

	tt_geo_load(t, &g);
	if (proxy == cur)
		proxy = DCN_ROUTE_NONE;
	o->proxy = proxy;
	o->phase = r->algo == DCN_ALGO_TFR && st->phase == 0 ? DCN_TFR_ALG3 :
							       st->phase;
	o->jumped = st->jumped;
	if (tfr_bfs_run(r, &g, cur, &b) < 0)
		goto out;
	if (tfr_route_to(r, &g, &b, cur, dst, dst, hop) != 0xffff) {
		found = 1;
	} else if (proxy != DCN_ROUTE_NONE) {
		found = tfr_route_to(r, &g, &b, cur, proxy, dst, hop) != 0xffff;
	} else if (st->phase == DCN_TFR_AROUND_OUT) {
		found = tfr_around_out(r, &g, &b, cur, st, hop, o);
	} else {
		/* getLocalPaths(this, k): level-k links of this TBD, TRA's
		 * choice first. */
		unsigned int k = 0, j, L;
		uint32_t best;

		for (j = g.K; j >= 1; j--)
			if (cur / g.block[j - 1] != dst / g.block[j - 1]) {
				k = j;
				break;
			}
		best = DCN_ROUTE_NONE;
		if (k > bc)
			best = tfr_pick_proxy(r, &g, &b, cur, dst, k,
					      (dst / g.block[k - 1]) % g.n,
					      st->phase == DCN_TFR_AROUND_IN &&
					      level_of(&g, cur) == k ? cur :
					      DCN_ROUTE_NONE);
		if (st->phase == DCN_TFR_AROUND_IN) {
			/* Into the Totoro_(k-1) of the cut-off source by
			 * another level-k link: found, the way around is
			 * over; none from this TBD, to another of this
			 * Totoro_(k-1) first. */
			if (best != DCN_ROUTE_NONE)
				o->phase = DCN_TFR_ALG3;
			else if (k > bc + 1)
				best = tfr_pick_proxy(r, &g, &b, cur, dst, bc + 1, g.n,
						      DCN_ROUTE_NONE);
		} else if (best == DCN_ROUTE_NONE && k <= bc &&
			   st->phase != DCN_TFR_AROUND_OUT &&
			   !tfr_detached(&g, &b, cur) &&
			   (L = tfr_around_target(r, &g, cur, dst)) != 0) {
			/* dst cut off in this TBD, reached only across its
			 * entry's level-L link: the way around. */
			best = tfr_pick_proxy(r, &g, &b, cur, dst, L, g.n,
					      DCN_ROUTE_NONE);
			if (best == DCN_ROUTE_NONE)
				best = tfr_pick_proxy(r, &g, &b, cur, dst, bc + 1, g.n,
						      DCN_ROUTE_NONE);
			if (best != DCN_ROUTE_NONE) {
				o->phase = DCN_TFR_AROUND_OUT;
				o->jumped = 1;
			}
		}
		/* Cut off inside the TBD, or from every local level-k link:
		 * out over a level bcLevel+1 link and back (correction), once,
		 * and where it can come back. */
		if (best == DCN_ROUTE_NONE && r->algo == DCN_ALGO_TFR &&
		    bc < g.K && !st->jumped && tfr_detached(&g, &b, cur)) {
			/* This Totoro_0 cut off from the rest of its TBD: out
			 * over a link of its own above bcLevel, and (for a
			 * destination the TBD's own links lead to) back in by
			 * another: the way around. */
			for (L = bc + 1; L <= g.K && best == DCN_ROUTE_NONE; L++)
				best = tfr_pick_proxy(r, &g, &b, cur, dst, L, g.n,
						      DCN_ROUTE_NONE);
			if (best != DCN_ROUTE_NONE) {
				o->phase = DCN_TFR_AROUND_IN;
				o->jumped = 1;
			}
		}
		if (best == DCN_ROUTE_NONE && r->algo == DCN_ALGO_TFR &&
		    bc < g.K && !st->jumped &&
		    (k > bc || tfr_reenters(r, &g, dst) || tfr_cut_off(r, cur))) {
			best = tfr_pick_proxy(r, &g, &b, cur, dst, bc + 1, g.n,
					      DCN_ROUTE_NONE);
			/* Cut off with no link of that level, only one of
			 * its own higher (N = 2^K: one server a level in each
			 * Totoro_0): out over that one; for a server of its
			 * own Totoro_(L-1), back in by another level-L link
			 * (the way around). */
			L = level_of(&g, cur);
			if (best == DCN_ROUTE_NONE && tfr_cut_off(r, cur) &&
			    L > bc + 1) {
				best = tfr_pick_proxy(r, &g, &b, cur, dst, L, g.n,
						      DCN_ROUTE_NONE);
				if (best != DCN_ROUTE_NONE && L >= bc + 2 &&
				    cur / g.block[L - 1] == dst / g.block[L - 1])
					o->phase = DCN_TFR_AROUND_IN;
			}
			o->jumped |= best != DCN_ROUTE_NONE;
		}
		if (best != DCN_ROUTE_NONE) {
			tfr_route_to(r, &g, &b, cur, best, dst, hop);
			o->proxy = best;
			found = 1;
		}
	}
out:
	tfr_bfs_free(&b);
	return found;
}

static unsigned int
tfr_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	       const struct dcn_route_state *st, struct dcn_hop *out)
{
	struct tfr_next o;
	unsigned int n;

	if (st->phase == 0 &&
	    (st->proxy == DCN_ROUTE_NONE || st->proxy == cur)) {
		n = tra_live_hops(r, cur, dst, out);
		if (n != 0)
			return n;
	}
	return (unsigned int)tfr_decide(r, cur, st, &out[0], &o);
}

static void
tfr_advance(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h,
	    struct dcn_route_state *st)
{
	struct dcn_hop again[DCN_ROUTE_MAX_HOPS];
	struct tfr_next o;

	(void)h;
	if (st->phase == 0 &&
	    (st->proxy == DCN_ROUTE_NONE || st->proxy == cur) &&
	    tra_live_hops(r, cur, st->dst, again) != 0) {
		st->proxy = DCN_ROUTE_NONE;
		return;
	}
	tfr_decide(r, cur, st, &again[0], &o);
	st->proxy = o.proxy;
	st->phase = o.phase;
	st->jumped = o.jumped;
}

/* A compiled table's classes of state (rtable.c): whether Alg. 3 has
 * taken the packet over, whether it made its way out and back, and the
 * two ways around (which always have the jumped bit set). */
#define TFR_CLASSES 6

static unsigned int
tfr_state_class(const struct dcn_route_state *st)
{
	if (st->phase >= DCN_TFR_AROUND_OUT)
		return 2u + st->phase;
	return (st->phase == DCN_TFR_ALG3) | (st->jumped ? 2u : 0u);
}

static void
tfr_class_state(unsigned int cls, struct dcn_route_state *st)
{
	if (cls >= 4) {
		st->phase = (uint8_t)(cls - 2);
		st->jumped = 1;
		return;
	}
	st->phase = cls & 1 ? DCN_TFR_ALG3 : 0;
	st->jumped = (uint8_t)(cls >> 1);
}

/* The hop toward every server as a proxy, for the compiled table: over
 * the TBD's known graph (tfr_route_to), as a proxied packet goes. */
static int
tfr_compile_proxies(struct dcn_rtable *tb, void *dd)
{
	const struct dcn_router *r = tb->r;
	uint32_t ns = dcn_topo_servers(r->t), y;
	struct tfr_bfs b = { 0, 0, NULL, NULL, NULL };
	struct tt_geo g;
	int id = 0;

	tb->proxy_set_of = rtable_index_alloc(ns);
	if (tb->proxy_set_of == NULL)
		return -ENOMEM;
	tt_geo_load(r->t, &g);
	if (tfr_bfs_run(r, &g, tb->node, &b) < 0) {
		tfr_bfs_free(&b);
		return -ENOMEM;
	}
	for (y = 0; y < ns && id >= 0; y++) {
		struct dcn_hop h;

		if (y == tb->node ||
		    tfr_route_to(r, &g, &b, tb->node, y, y, &h) == 0xffff)
			continue;
		id = rtable_add_set(tb, dd, &h, 1);
		if (id >= 0)
			tb->proxy_set_of[y] = (uint16_t)id;
	}
	tfr_bfs_free(&b);
	return id < 0 ? id : 0;
}

const struct route_ops route_tfr_ops = {
	.kind = DCN_TOPO_TOTORO,
	.pick = DCN_PICK_EQUAL,
	.init = tfr_init,
	.candidates = tfr_candidates,
	.advance = tfr_advance,
	.state_classes = TFR_CLASSES,
	.state_class = tfr_state_class,
	.class_state = tfr_class_state,
	.compile_proxies = tfr_compile_proxies,
	.vc_rule = tt_vc_rule,
	.lsa_wants = tt_lsa_wants,
};
