/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The route cache's memory and generations (dcn_fwd.h); its lookups are
 * fwd_cache.h, inline in the step.
 */
#include <errno.h>
#include <string.h>

#include "dcn_fwd.h"

int
dcn_fwd_set_cache(struct dcn_fwd_ctx *c, void *mem, uint32_t entries)
{
	if (mem != NULL && (entries == 0 || (entries & (entries - 1)) != 0))
		return -EINVAL;
	c->cache = entries != 0 ? mem : NULL;
	c->cache_mask = c->cache != NULL ? entries - 1 : 0;
	/* 64 - log2(entries), a power of two (64 with no cache). */
	c->cache_shift = c->cache != NULL ? 64u - (uint32_t)__builtin_ctz(entries) : 64u;
	if (c->cache != NULL)
		memset(c->cache, 0, dcn_fwd_cache_bytes(entries));
	dcn_fwd_cache_next_gen(c);
	return 0;
}

void
dcn_fwd_cache_next_gen(struct dcn_fwd_ctx *c)
{
	c->cache_gen += DCN_FWD_GEN_STEP;
	if (likely(c->cache_gen != 0))
		return;
	/* Wrapped: generation 0 is what an empty entry holds. */
	if (c->cache != NULL)
		memset(c->cache, 0, dcn_fwd_cache_bytes(c->cache_mask + 1));
	c->cache_gen = DCN_FWD_GEN_STEP;
}
