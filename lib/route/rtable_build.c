/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building a compiled table's candidate sets: each distinct set stored
 * once (a hash of its hops), the index from destination (or proxy) to
 * set, and the shortest-path sets of detours. A leaf, as route_common.c:
 * the algorithms' compile hooks and rtable.c's compile both use it.
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

