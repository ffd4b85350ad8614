/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channel dependency graph of a routing with its VC rule (Dally and
 * Seitz): a channel is a hop between two routing vertices on one VC, the
 * receiver's input queue for that sender and VC, which credits keep from
 * overflowing; a frame holding one channel waits for the next channel of
 * its route. Credit-based flow control cannot deadlock when this graph has
 * no cycle. Every branch of every route (all candidates, the route state
 * advanced along each) from the sources is explored, with the router's
 * failures if it has any; a (node, state, channel) already explored for a
 * pair is not explored again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_priv.h"

#define CDG_DEPTH 64

struct ch_key {
	uint32_t from, to;
	uint8_t vc;
};

struct cdg {
	const struct dcn_router *r;
	/* channels: open addressing on (from, to, vc) */
	struct ch_key *ch;
	uint32_t *ch_slot;     /* slot -> channel id + 1 */
	uint32_t n_ch, ch_cap; /* cap: slots, a power of two */
	/* dependencies: a hash set of (a, b) */
	uint64_t *dep;
	uint64_t n_dep, dep_cap;
	/* explored (node, state, channel) of the pair under way */
	uint64_t *seen;
	uint32_t seen_cap, seen_gen;
	uint32_t *seen_g;
	int err;
	struct dcn_cdg_result *res;
};

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int
grow(void **p, size_t n, size_t size)
{
	void *q = calloc(n, size);

	if (q == NULL)
		return -ENOMEM;
	free(*p);
	*p = q;
	return 0;
}

/* The id of channel (from, to, vc), made if new; -1 when out of memory. */
static int64_t
channel(struct cdg *g, uint32_t from, uint32_t to, uint8_t vc)
{
	uint32_t i;

	if (g->n_ch * 2 >= g->ch_cap) {
		uint32_t old = g->ch_cap, k;
		uint32_t *slots = g->ch_slot;

		g->ch_slot = NULL;
		g->ch_cap = old ? old * 2 : 1024;
		if (grow((void **)&g->ch_slot, g->ch_cap, sizeof(uint32_t)) < 0) {
			g->ch_slot = slots;
			return -1;
		}
		{
			struct ch_key *c = realloc(g->ch, g->ch_cap * sizeof(*c));

			if (c == NULL) {
				free(slots);
				return -1;
			}
			g->ch = c;
		}
		for (k = 0; k < g->n_ch; k++) {
			const struct ch_key *c = &g->ch[k];

			for (i = (uint32_t)mix((uint64_t)c->from << 32 | c->to << 4 | c->vc) &
				 (g->ch_cap - 1);
			     g->ch_slot[i] != 0; i = (i + 1) & (g->ch_cap - 1))
				;
			g->ch_slot[i] = k + 1;
		}
		free(slots);
	}
	for (i = (uint32_t)mix((uint64_t)from << 32 | to << 4 | vc) & (g->ch_cap - 1);
	     g->ch_slot[i] != 0; i = (i + 1) & (g->ch_cap - 1)) {
		const struct ch_key *c = &g->ch[g->ch_slot[i] - 1];

		if (c->from == from && c->to == to && c->vc == vc)
			return g->ch_slot[i] - 1;
	}
	g->ch[g->n_ch] = (struct ch_key){ from, to, vc };
	g->ch_slot[i] = ++g->n_ch;
	return g->n_ch - 1;
}

/* Add dependency a -> b. @return 0, or -ENOMEM. */
static int
depend(struct cdg *g, uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)(a + 1) << 32 | (b + 1), i;

	if (g->n_dep * 2 >= g->dep_cap) {
		uint64_t *old = g->dep, cap = g->dep_cap, k;

		g->dep = NULL;
		g->dep_cap = cap ? cap * 2 : 4096;
		if (grow((void **)&g->dep, g->dep_cap, sizeof(uint64_t)) < 0) {
			g->dep = old;
			return -ENOMEM;
		}
		for (k = 0; k < cap; k++) {
			if (old[k] == 0)
				continue;
			for (i = mix(old[k]) & (g->dep_cap - 1); g->dep[i] != 0;
			     i = (i + 1) & (g->dep_cap - 1))
				;
			g->dep[i] = old[k];
		}
		free(old);
	}
	for (i = mix(key) & (g->dep_cap - 1); g->dep[i] != 0;
	     i = (i + 1) & (g->dep_cap - 1))
		if (g->dep[i] == key)
			return 0;
	g->dep[i] = key;
	g->n_dep++;
	return 0;
}

/* Has (cur, st, cin) been explored for this pair? Marks it. */
static int
explored(struct cdg *g, uint32_t cur, const struct dcn_route_state *st,
	 int64_t cin)
{
	uint64_t k = mix((uint64_t)cur << 32 ^ (uint64_t)st->proxy ^
			 (uint64_t)(cin + 1) << 20) ^
		     mix((uint64_t)st->phase | (uint64_t)st->quadrant << 8 |
			 (uint64_t)st->vc << 16 | (uint64_t)st->last_dim << 24 |
			 (uint64_t)st->jumped << 32 | (uint64_t)st->path << 40);
	uint32_t i, probes;

	if (k == 0)
		k = 1;
	for (i = (uint32_t)k & (g->seen_cap - 1), probes = 0; probes < g->seen_cap;
	     i = (i + 1) & (g->seen_cap - 1), probes++) {
		if (g->seen_g[i] != g->seen_gen) {
			g->seen_g[i] = g->seen_gen;
			g->seen[i] = k;
			return 0;
		}
		if (g->seen[i] == k)
			return 1;
	}
	return 0; /* full: explore again rather than miss a dependency */
}

static void
explore(struct cdg *g, uint32_t cur, uint32_t dst, const struct dcn_route_state *st,
	int64_t cin, unsigned int hops, unsigned int depth)
{
	const struct dcn_router *r = g->r;
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	enum dcn_pick_mode mode = dcn_router_pick_mode(r);
	unsigned int n, i;
	uint16_t best = UINT16_MAX;

	if (cur == dst) {
		g->res->routes++;
		if (hops > g->res->longest)
			g->res->longest = hops;
		return;
	}
	if (depth >= CDG_DEPTH || st->ttl == 0 || g->err ||
	    explored(g, cur, st, cin))
		return;
	n = dcn_route_candidates(r, cur, dst, st, h);
	for (i = 0; i < n; i++)
		if (h[i].weight < best)
			best = h[i].weight;
	for (i = 0; i < n && !g->err; i++) {
		struct dcn_route_state next = *st;
		int64_t c = -1;
		unsigned int nh = hops;

		if (h[i].weight == 0 && mode == DCN_PICK_WEIGHTED && n > 1)
			continue;   /* never drawn */
		if (mode == DCN_PICK_PRIORITY && h[i].weight != best)
			continue;   /* FAR: only the best priority is taken */
		dcn_route_advance(r, cur, &h[i], &next);
		if (next.vc == DCN_VC_SPENT) {
			g->res->spent++;   /* dropped there: no channel */
			continue;
		}
		if (dcn_topo_is_router(r->t, cur) && dcn_topo_is_router(r->t, h[i].next)) {
			c = channel(g, cur, h[i].next, next.vc);
			nh++;
			if (c < 0 || (cin >= 0 && depend(g, (uint32_t)cin, (uint32_t)c) < 0)) {
				g->err = -ENOMEM;
				return;
			}
			if (next.vc != DCN_VC_NONE && next.vc + 1u > g->res->vcs_used)
				g->res->vcs_used = next.vc + 1u;
		}
		explore(g, h[i].next, dst, &next, c, nh, depth + 1);
	}
}

/* A cycle of the dependency graph into res, if there is one. */
static int
find_cycle(struct cdg *g)
{
	uint32_t n = g->n_ch, *head = calloc(n + 1, sizeof(uint32_t));
	uint32_t *adj = malloc((g->n_dep ? g->n_dep : 1) * sizeof(uint32_t));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t *it = calloc(n ? n : 1, sizeof(uint32_t));
	uint8_t *color = calloc(n ? n : 1, 1);
	uint64_t i;
	uint32_t s;
	int ret = 0;

	if (head == NULL || adj == NULL || stack == NULL || it == NULL || color == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < g->dep_cap; i++)
		if (g->dep[i] != 0)
			head[(g->dep[i] >> 32) - 1 + 1]++;
	for (s = 0; s < n; s++)
		head[s + 1] += head[s];
	{
		uint32_t *fill = calloc(n ? n : 1, sizeof(uint32_t));

		if (fill == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < g->dep_cap; i++)
			if (g->dep[i] != 0) {
				uint32_t a = (uint32_t)(g->dep[i] >> 32) - 1;

				adj[head[a] + fill[a]++] = (uint32_t)(g->dep[i] & 0xffffffffu) - 1;
			}
		free(fill);
	}
	/* Iterative depth-first search; grey on the stack. */
	for (s = 0; s < n && g->res->cycle_len == 0; s++) {
		uint32_t sp = 0;

		if (color[s] != 0)
			continue;
		stack[sp++] = s;
		color[s] = 1;
		it[s] = head[s];
		while (sp > 0) {
			uint32_t v = stack[sp - 1];

			if (it[v] < head[v + 1]) {
				uint32_t w = adj[it[v]++];

				if (color[w] == 1) {
					/* Back edge: the cycle is the stack from w. */
					uint32_t k = sp - 1, j, len;

					while (stack[k] != w)
						k--;
					len = sp - k;
					for (j = 0; j < len && j < DCN_CDG_CYCLE_MAX; j++) {
						const struct ch_key *c = &g->ch[stack[k + j]];

						g->res->cycle[j].from = c->from;
						g->res->cycle[j].to = c->to;
						g->res->cycle[j].vc = c->vc;
					}
					g->res->cycle_len = len;
					break;
				}
				if (color[w] == 0) {
					color[w] = 1;
					it[w] = head[w];
					stack[sp++] = w;
				}
			} else {
				color[v] = 2;
				sp--;
			}
		}
	}
out:
	free(head);
	free(adj);
	free(stack);
	free(it);
	free(color);
	return ret;
}

int
dcn_route_cdg(const struct dcn_router *r, uint32_t sample, uint64_t seed,
	      struct dcn_cdg_result *res)
{
	const struct dcn_topo *t = r->t;
	uint32_t ns = dcn_topo_servers(t), s, d, cnt = 0;
	struct cdg g;
	uint64_t rng = seed ? seed : 1;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&g, 0, sizeof(g));
	g.r = r;
	g.res = res;
	g.seen_cap = 1u << 16;
	g.seen = calloc(g.seen_cap, sizeof(*g.seen));
	g.seen_g = calloc(g.seen_cap, sizeof(*g.seen_g));
	if (g.seen == NULL || g.seen_g == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	res->vcs = dcn_route_vcs(r);
	for (s = 0; s < ns && !g.err; s++) {
		if (sample != 0 && sample < ns &&
		    dcn_rand(&rng) % ns >= sample)
			continue;
		if (!dcn_route_server_up(r, s))
			continue;
		cnt++;
		for (d = 0; d < ns && !g.err; d++) {
			struct dcn_route_state st;
			uint32_t dd;

			if (d == s || !dcn_route_server_up(r, d))
				continue;
			dd = dcn_route_resolve(r, d);
			if (dd == DCN_ROUTE_NONE)
				continue;
			g.seen_gen++;
			dcn_route_state_init(r, s, dd, &st);
			explore(&g, s, dd, &st, -1, 0, 0);
		}
	}
	res->sources = cnt;
	res->channels = g.n_ch;
	res->deps = g.n_dep;
	ret = g.err;
	if (ret == 0)
		ret = find_cycle(&g);
out:
	free(g.ch);
	free(g.ch_slot);
	free(g.dep);
	free(g.seen);
	free(g.seen_g);
	return ret;
}
