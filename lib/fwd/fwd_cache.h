/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The route cache's lookups: a decision's key, the two slots it may be
 * in, a probe and a fill (from a route, with the candidates' headers).
 * Private to lib/fwd; inline in the step.
 */
#ifndef DCN_FWD_CACHE_H
#define DCN_FWD_CACHE_H

#include "fwd_choose.h"
#include "fwd_rewrite.h"

/* Cache keys: the kind of decision in the low byte of k0, which a
 * transit key leaves free (the header's version and type, the same in
 * every data frame): set with a small constant, where one in the top
 * byte took a 64-bit one, loaded for every frame. */
#define KEY_ENCAP 1ull
#define KEY_TRANSIT 2ull
#define KEY_ROUTER 3ull

/* A decision's cache key (decide): k0 and k1, and k2g with the proxy
 * address in its low half (the context's generation joins it in the
 * high half in cache_probe). */
struct cache_key {
	uint64_t k0, k1, k2g;
};

static inline int
entry_holds(const struct dcn_fwd_cache_entry *e, const struct cache_key *k)
{
	return e->k0 == k->k0 && e->k1 == k->k1 && e->k2g == k->k2g;
}

/* Multiply-shift: the product's top bits depend on every bit of the key
 * (keys often differ in a few bits: neighbouring addresses, one TTL),
 * and they are the first slot. The second, looked at only when the
 * first holds another key, mixes the halves and takes the middle. */
static inline uint64_t
cache_hash(const struct cache_key *k)
{
	return (k->k0 ^ k->k1 ^ k->k2g) * 0x9e3779b97f4a7c15ull;
}

/* What a lookup reads of the context's cache, read once a burst by the
 * fast path: a frame's bytes are written between lookups, and such
 * stores may alias any field of the context, so the compiler would read
 * each again for every frame. Valid for a burst: these change only
 * between bursts (dcn_fwd_refresh and the like). */
struct cache_view {
	struct dcn_fwd_cache_entry *entry;
	uint64_t gen;
	uint32_t mask;
	uint32_t shift_less1; /* cache_shift - 1: 63 - log2(entries) */
};

static __rte_always_inline struct cache_view
cache_view(const struct dcn_fwd_ctx *c)
{
	/* The generation's high half alone, whatever wrote the low one:
	 * cache_probe ORs it over the proxy address. Once a burst. */
	return (struct cache_view){ c->cache, c->cache_gen & ~(DCN_FWD_GEN_STEP - 1),
				    c->cache_mask, c->cache_shift - 1 };
}

/*
 * A key has two slots: with one, a few keys of even a small set share a
 * slot and miss on every frame (31 destinations in 256 slots: 13% of
 * frames).
 */
static inline struct dcn_fwd_cache_entry *
cache_slot(const struct cache_view *v, uint64_t h, int second)
{
	if (second) {
		h ^= h >> 29;
		return &v->entry[(uint32_t)(h * 0xbf58476d1ce4e5b9ull >> 32) & v->mask];
	}
	/* The top log2(entries) bits, with no mask: a shift of 64 (one
	 * entry) being undefined in C, one bit goes first, then the rest. */
	return &v->entry[(h >> 1) >> v->shift_less1];
}

/* The entry holding key k's decision (*hit 1), or the one to fill (*hit
 * 0); k->k2g gets the generation. */
static inline struct dcn_fwd_cache_entry *
cache_probe(const struct cache_view *v, struct cache_key *k, int *hit)
{
	struct dcn_fwd_cache_entry *e1, *e2;
	uint64_t h;

	k->k2g = (uint32_t)k->k2g | v->gen;
	h = cache_hash(k);
	e1 = cache_slot(v, h, 0);
	*hit = 1;
	if (likely(entry_holds(e1, k)))
		return e1;
	e2 = cache_slot(v, h, 1);
	if (entry_holds(e2, k))
		return e2;
	/* A miss fills a slot that holds nothing valid, else the first. */
	*hit = 0;
	return (e1->k2g >> 32) == (v->gen >> 32) && (e2->k2g >> 32) != (v->gen >> 32) ?
		       e2 : e1;
}

/* Store a decision in e. @return 0, or -1 when it has too many
 * candidates to cache (e is left void). */
static int
cache_fill(struct dcn_fwd_ctx *c, struct dcn_fwd_cache_entry *e,
	   const struct cache_key *key, uint8_t action,
	   const struct dcn_route_state *st, const struct dcn_hop *h,
	   unsigned int n, int with_hdr)
{
	unsigned int k;

	c->cache_miss++;
	e->k2g = 0;
	e->one_cable = 0;
	if (n > DCN_FWD_CACHE_HOPS)
		return -1;
	e->action = action;
	e->n = (uint8_t)n;
	e->no_hdr = 0;
	e->too_long = 0;
	for (k = 0; k < n; k++) {
		int local = hop_local(c, &h[k]), img;

		e->hop[k] = h[k];
		e->local[k] = (int8_t)local;
		e->nbr[k] = local >= 0 ? hop_nbr(c, &h[k], local) : DCN_FWD_NBR_UNKNOWN;
		img = with_hdr ? hdr_image(c, st, &h[k], e->hdr[k]) : 0;
		if (img < 0)
			e->no_hdr |= (uint8_t)(1u << k);
		if (img == HDR_TOO_LONG)
			e->too_long |= (uint8_t)(1u << k);
	}
	e->one_cable = (uint8_t)(action == DCN_FWD_ACT_FORWARD && n == 1 &&
				 e->local[0] >= 0 && e->nbr[0] == DCN_FWD_NBR_CABLE &&
				 !(e->no_hdr & 1));
	e->k0 = key->k0;
	e->k1 = key->k1;
	e->k2g = key->k2g;
	return 0;
}

static inline struct cand_set
entry_set(const struct dcn_fwd_cache_entry *e)
{
	return (struct cand_set){ e->hop, e->n, e->local, e->nbr };
}

#endif /* DCN_FWD_CACHE_H */
