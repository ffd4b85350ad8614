/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every routing algorithm uses: errors, a packet's first state, the
 * port towards a neighbour, live distances over the cables up. A leaf:
 * it calls no algorithm and no part of route.c, so the algorithms and
 * route.c both build on it without a circle.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "route_priv.h"

void
route_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

void
dcn_route_state_init(const struct dcn_router *r, uint32_t src, uint32_t dst,
		     struct dcn_route_state *st)
{
	memset(st, 0, sizeof(*st));
	st->src = src;
	st->dst = dst;
	st->proxy = DCN_ROUTE_NONE;
	st->phase = DCN_PORA_SOURCE;
	st->last_dim = 0xff;
	st->path = DCN_PATH_ANY;
	st->ttl = (uint8_t)(r->conf.ttl > 255 ? 255 : r->conf.ttl);
	if (r->vc_hops)
		st->vc = DCN_VC_NONE;
	if (r->ops->state_init != NULL)
		r->ops->state_init(r, src, dst, st);
}

int
route_port_to(const struct dcn_topo *t, uint32_t cur, uint32_t peer)
{
	struct dcn_adj adj[256];
	unsigned int n, i;

	if (dcn_topo_max_degree(t) > 256)
		return -1;
	n = dcn_topo_adj(t, cur, adj);
	for (i = 0; i < n; i++)
		if (adj[i].peer == peer)
			return adj[i].port;
	return -1;
}

struct route_live {
	uint8_t *dist;   /* [target row][vertex] */
	uint32_t *row;   /* vertex -> row + 1, 0: none yet */
	uint32_t rows, cap;
};

void
route_live_bfs(const struct dcn_router *r, uint32_t v, uint8_t *dist,
	       uint32_t *queue)
{
	uint32_t nv = dcn_topo_vertices(r->t), head = 0, tail = 0;
	struct dcn_adj a[256];

	memset(dist, 0xff, nv);
	if (!rt_up(r, v) || dcn_topo_max_degree(r->t) > 256)
		return;
	dist[v] = 0;
	queue[tail++] = v;
	while (head < tail) {
		uint32_t x = queue[head++];
		unsigned int n, i;

		if (dist[x] >= 0xfe)
			continue;
		n = r->fail != NULL ? dcn_topo_failset_adj(r->fail, x, a) :
				      dcn_topo_adj(r->t, x, a);
		for (i = 0; i < n; i++)
			if (dist[a[i].peer] == 0xff) {
				dist[a[i].peer] = (uint8_t)(dist[x] + 1);
				queue[tail++] = a[i].peer;
			}
	}
}

/* Targets kept at once: beyond, rows are built again (a walk asks about
 * one destination at a time). */
#define LIVE_ROWS_MAX 4096

unsigned int
route_live_dist(const struct dcn_router *r, uint32_t v, uint32_t target)
{
	struct dcn_router *w = (struct dcn_router *)r;
	uint32_t nv = dcn_topo_vertices(r->t), *queue, row;
	struct route_live *L = w->live;

	if (L == NULL) {
		L = calloc(1, sizeof(*L));
		if (L == NULL)
			return 0xff;
		L->row = calloc(nv, sizeof(*L->row));
		L->cap = (uint32_t)(((size_t)64 << 20) / nv);   /* 64 MB at most */
		if (L->cap > LIVE_ROWS_MAX)
			L->cap = LIVE_ROWS_MAX;
		if (L->cap == 0)
			L->cap = 1;
		L->dist = malloc((size_t)L->cap * nv);
		if (L->row == NULL || L->dist == NULL) {
			free(L->row);
			free(L->dist);
			free(L);
			return 0xff;
		}
		w->live = L;
	}
	if (L->row[target] != 0)
		return L->dist[(size_t)(L->row[target] - 1) * nv + v];
	if (L->rows == L->cap) {
		/* Full: start over. */
		memset(L->row, 0, nv * sizeof(*L->row));
		L->rows = 0;
	}
	queue = malloc(nv * sizeof(*queue));
	if (queue == NULL)
		return 0xff;
	row = L->rows++;
	route_live_bfs(r, target, L->dist + (size_t)row * nv, queue);
	free(queue);
	L->row[target] = row + 1;
	return L->dist[(size_t)row * nv + v];
}

void
route_live_free(struct dcn_router *r)
{
	if (r->live == NULL)
		return;
	free(r->live->dist);
	free(r->live->row);
	free(r->live);
	r->live = NULL;
}
