/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compiled per-node tables. A FLAT table maps every destination server to
 * one of a few distinct candidate sets (a node of a 1M-server fabric has
 * only tens of them), so it costs two bytes per destination plus the sets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_priv.h"

struct dedup {
	uint32_t cap;     /* power of two */
	uint32_t used;
	uint32_t *slot;   /* set id + 1, 0 = empty */
	uint64_t *key;    /* hash of the set in that slot */
};

uint16_t *
rtable_index_alloc(uint32_t n)
{
	uint16_t *index = malloc((size_t)n * sizeof(*index));
	uint32_t i;

	for (i = 0; index != NULL && i < n; i++)
		index[i] = RT_NO_SET;
	return index;
}

int
rtable_nearest_sets(struct dcn_rtable *tb, void *dedup,
		    const struct dcn_hop *nb, unsigned int n_nb,
		    const uint8_t *dist, size_t stride, uint32_t n_dst,
		    uint32_t skip, uint16_t *index)
{
	uint32_t y;
	int id = 0;

	for (y = 0; y < n_dst && id >= 0; y++) {
		struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
		unsigned int best = 0xff, cnt = 0, i;

		if (y == skip)
			continue;
		for (i = 0; i < n_nb; i++)
			if (dist[i * stride + y] < best)
				best = dist[i * stride + y];
		if (best == 0xff)
			continue;
		for (i = 0; i < n_nb; i++)
			if (dist[i * stride + y] == best)
				h[cnt++] = nb[i];
		id = rtable_add_set(tb, dedup, h, cnt);
		if (id >= 0)
			index[y] = (uint16_t)id;
	}
	return id < 0 ? id : 0;
}

void *
rtable_dedup_create(void)
{
	struct dedup *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	d->cap = 1024;
	d->slot = calloc(d->cap, sizeof(*d->slot));
	d->key = calloc(d->cap, sizeof(*d->key));
	if (d->slot == NULL || d->key == NULL) {
		rtable_dedup_free(d);
		return NULL;
	}
	return d;
}

void
rtable_dedup_free(void *p)
{
	struct dedup *d = p;

	if (d == NULL)
		return;
	free(d->slot);
	free(d->key);
	free(d);
}

static uint64_t
set_hash(const struct dcn_hop *hops, unsigned int n)
{
	const uint8_t *b = (const uint8_t *)hops;
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	size_t i;

	for (i = 0; i < n * sizeof(*hops); i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static int
dedup_grow(struct dedup *d)
{
	uint32_t ncap = d->cap * 2, i;
	uint32_t *slot = calloc(ncap, sizeof(*slot));
	uint64_t *key = calloc(ncap, sizeof(*key));

	if (slot == NULL || key == NULL) {
		free(slot);
		free(key);
		return -ENOMEM;
	}
	for (i = 0; i < d->cap; i++) {
		uint32_t j;

		if (d->slot[i] == 0)
			continue;
		for (j = (uint32_t)d->key[i] & (ncap - 1); slot[j] != 0;
		     j = (j + 1) & (ncap - 1))
			;
		slot[j] = d->slot[i];
		key[j] = d->key[i];
	}
	free(d->slot);
	free(d->key);
	d->slot = slot;
	d->key = key;
	d->cap = ncap;
	return 0;
}

int
rtable_add_set(struct dcn_rtable *tb, void *dd, const struct dcn_hop *hops,
	       unsigned int n)
{
	struct dedup *d = dd;
	uint64_t h = set_hash(hops, n);
	uint32_t j, id;

	for (j = (uint32_t)h & (d->cap - 1); d->slot[j] != 0;
	     j = (j + 1) & (d->cap - 1)) {
		id = d->slot[j] - 1;
		if (d->key[j] == h && tb->set_cnt[id] == n &&
		    memcmp(tb->pool + tb->set_off[id], hops,
			   n * sizeof(*hops)) == 0)
			return (int)id;
	}
	if (tb->n_sets >= RT_NO_SET)
		return -ENOSPC;
	if ((tb->n_sets & (tb->n_sets - 1)) == 0) {
		/* Grow the set arrays at powers of two. */
		uint32_t cap = tb->n_sets ? tb->n_sets * 2 : 16;
		uint32_t *off = realloc(tb->set_off, cap * sizeof(*off));
		uint8_t *cnt;

		if (off == NULL)
			return -ENOMEM;
		tb->set_off = off;
		cnt = realloc(tb->set_cnt, cap * sizeof(*cnt));
		if (cnt == NULL)
			return -ENOMEM;
		tb->set_cnt = cnt;
	}
	{
		struct dcn_hop *pool = realloc(tb->pool, (tb->pool_len + n + 1) *
							  sizeof(*pool));

		if (pool == NULL)
			return -ENOMEM;
		tb->pool = pool;
	}
	id = tb->n_sets++;
	tb->set_off[id] = tb->pool_len;
	tb->set_cnt[id] = (uint8_t)n;
	memcpy(tb->pool + tb->pool_len, hops, n * sizeof(*hops));
	tb->pool_len += n;
	d->slot[j] = id + 1;
	d->key[j] = h;
	if (++d->used * 2 > d->cap && dedup_grow(d) < 0)
		return -ENOMEM;
	return (int)id;
}

/* The state classes of a table's router (route_ops.state_classes): with
 * nothing failed too, for the frames a relay that knows a failure put in
 * a state of their own (TFR's Alg. 3) reach relays that know none. */
static unsigned int
flat_classes(const struct dcn_rtable *tb)
{
	return tb->r->ops->state_classes > 1 ? tb->r->ops->state_classes : 1;
}

static int
flat_compile(struct dcn_rtable *tb)
{
	const struct dcn_topo *t = tb->r->t;
	struct dcn_hop hops[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	uint32_t d, ns = dcn_topo_servers(t);
	unsigned int cls, classes = flat_classes(tb);
	void *dd;
	int id = 0;

	tb->form = DCN_RTABLE_FLAT;
	tb->n_index = ns * classes;
	tb->set_of = malloc((size_t)tb->n_index * sizeof(*tb->set_of));
	dd = rtable_dedup_create();
	if (tb->set_of == NULL || dd == NULL) {
		rtable_dedup_free(dd);
		return -ENOMEM;
	}
	for (cls = 0; cls < classes && id >= 0; cls++) {
		for (d = 0; d < ns; d++) {
			uint16_t *slot = &tb->set_of[cls * ns + d];
			unsigned int n;

			*slot = RT_NO_SET;
			if (d == tb->node)
				continue;
			dcn_route_state_init(tb->r, tb->node, d, &st);
			if (classes > 1)
				tb->r->ops->class_state(cls, &st);
			n = tb->r->ops->candidates(tb->r, tb->node, d, &st, hops);
			if (n == 0)
				continue;
			id = rtable_add_set(tb, dd, hops, n);
			if (id < 0)
				break;
			*slot = (uint16_t)id;
		}
	}
	if (id >= 0 && tb->r->ops->compile_proxies != NULL)
		id = tb->r->ops->compile_proxies(tb, dd);
	rtable_dedup_free(dd);
	return id < 0 ? id : 0;
}

struct dcn_rtable *
dcn_rtable_compile(const struct dcn_router *r, uint32_t node)
{
	struct dcn_rtable *tb;
	int ret;

	if (node >= dcn_topo_vertices(r->t) || !dcn_topo_is_router(r->t, node)) {
		errno = EINVAL;
		return NULL;
	}
	tb = calloc(1, sizeof(*tb));
	if (tb == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	tb->r = r;
	tb->node = node;
	ret = r->ops->compile != NULL ? r->ops->compile(tb) : flat_compile(tb);
	if (ret < 0) {
		dcn_rtable_free(tb);
		errno = -ret;
		return NULL;
	}
	/* Trim the pool to what it holds. */
	if (tb->pool_len != 0) {
		struct dcn_hop *p = realloc(tb->pool,
					    tb->pool_len * sizeof(*tb->pool));

		if (p != NULL)
			tb->pool = p;
	}
	return tb;
}

void
dcn_rtable_free(struct dcn_rtable *tb)
{
	if (tb == NULL)
		return;
	free(tb->set_of);
	free(tb->proxy_set_of);
	free(tb->set_off);
	free(tb->set_cnt);
	free(tb->pool);
	if (tb->priv_free != NULL)
		tb->priv_free(tb->priv);
	else
		free(tb->priv);
	free(tb);
}

unsigned int
dcn_rtable_lookup(const struct dcn_rtable *tb, uint32_t dst_addr,
		  const struct dcn_route_state *st, struct dcn_hop *scratch,
		  const struct dcn_hop **hops)
{
	const struct dcn_topo *t = tb->r->t;
	uint32_t idx;
	int64_t v;

	if (tb->form == DCN_RTABLE_CLASS) {
		/* Diamond: 10.i.j.x (the first octet the plan's), by pod and
		 * position. */
		unsigned int i = (dst_addr >> 16) & 0xff;
		unsigned int j = (dst_addr >> 8) & 0xff, x = dst_addr & 0xff;
		unsigned int k = tb->class_k;

		if ((dst_addr >> 24) != tb->class_octet || i == 0 || i > k || j == 0 ||
		    j > k || x < 2 || x > k / 4 + 1)
			return 0;
		idx = (i - 1) * k + (j - 1);
		if (tb->set_of[idx] == RT_NO_SET)
			idx = k * k + x - 2;
	} else {
		v = dcn_topo_vertex_of(t, dst_addr);
		if (v < 0 || (uint32_t)v >= dcn_topo_servers(t) ||
		    (uint32_t)v == tb->node)
			return 0;
		if (tb->form == DCN_RTABLE_DIGIT) {
			*hops = scratch;
			return tb->r->ops->digit_lookup(tb, (uint32_t)v, dst_addr,
							st, scratch);
		}
		idx = (uint32_t)v;
		/* A packet on a detour goes to its proxy first (LaScaDa's
		 * MaxLifeTime detours, Totoro's TFR): by its destination alone
		 * the node would send it back the way it came. By the
		 * router's own rule for proxies where it has one. */
		if (st->proxy != DCN_ROUTE_NONE && st->proxy != tb->node &&
		    st->proxy < dcn_topo_servers(t)) {
			idx = st->proxy;
			if (tb->proxy_set_of != NULL) {
				uint16_t set = tb->proxy_set_of[idx];

				if (set == RT_NO_SET)
					return 0;
				*hops = tb->pool + tb->set_off[set];
				return tb->set_cnt[set];
			}
		}
	}
	if (tb->form == DCN_RTABLE_FLAT && tb->n_index > dcn_topo_servers(t))
		idx += tb->r->ops->state_class(st) * dcn_topo_servers(t);
	if (tb->set_of[idx] == RT_NO_SET)
		return 0;
	*hops = tb->pool + tb->set_off[tb->set_of[idx]];
	return tb->set_cnt[tb->set_of[idx]];
}

enum dcn_rtable_form
dcn_rtable_form(const struct dcn_rtable *tb)
{
	return tb->form;
}

size_t
dcn_rtable_bytes(const struct dcn_rtable *tb)
{
	return sizeof(*tb) + (size_t)tb->n_index * sizeof(*tb->set_of) +
	       (tb->proxy_set_of != NULL ?
		(size_t)dcn_topo_servers(tb->r->t) * sizeof(*tb->proxy_set_of) : 0) +
	       (size_t)tb->n_sets * (sizeof(*tb->set_off) +
				     sizeof(*tb->set_cnt)) +
	       (size_t)tb->pool_len * sizeof(*tb->pool) + tb->priv_bytes;
}

uint32_t
dcn_rtable_sets(const struct dcn_rtable *tb)
{
	return tb->n_sets;
}

uint32_t
dcn_rtable_node(const struct dcn_rtable *tb)
{
	return tb->node;
}
