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
