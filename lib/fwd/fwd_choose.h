/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Choosing among a route's candidates: a hop's local port and neighbour,
 * whether its link can carry a frame now, and the draw that picks (per
 * flow, or per packet for PORA). Private to lib/fwd; inline in the step.
 */
#ifndef DCN_FWD_CHOOSE_H
#define DCN_FWD_CHOOSE_H

#include <string.h>

#include "dcn_fwd.h"

/* A flow's hash: the addresses and, for TCP and UDP, the ports. */
static inline uint32_t
flow_hash(const uint8_t *ip, uint32_t a, uint32_t b)
{
	uint64_t h = (uint64_t)a << 32 | b;
	unsigned int ihl = (ip[0] & 0x0f) * 4u;

	h ^= (uint64_t)ip[9] << 56;
	if (ip[9] == 6 || ip[9] == 17) {
		uint32_t ports;

		memcpy(&ports, ip + ihl, 4);
		h ^= ports;
	}
	h *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32);
}

/* What picks among n candidates: nothing for one, a per-packet draw
 * (PORA), else the flow's hash (a flow keeps its path). Drawing only when
 * there is a choice keeps cached and uncached routing on the same draws. */
static inline uint32_t
frame_draw(struct dcn_fwd_ctx *c, unsigned int n, const uint8_t *ip,
	   uint32_t a, uint32_t b)
{
	if (n <= 1)
		return 0;
	if (c->per_packet)
		return (uint32_t)(dcn_rand(&c->rng) >> 32);
	return flow_hash(ip, a, b);
}

/* The local port of hop h, or -DCN_DROP_NO_ROUTE when the node has none. */
static inline int
hop_local(const struct dcn_fwd_ctx *c, const struct dcn_hop *h)
{
	if (h->port >= DCN_FWD_MAX_FABRIC_PORTS || c->local_of[h->port] < 0)
		return -DCN_DROP_NO_ROUTE;
	return c->local_of[h->port];
}

/* The neighbour-table slot of hop h out of local port local. */
static inline uint32_t
hop_nbr(const struct dcn_fwd_ctx *c, const struct dcn_hop *h, int local)
{
	const struct dcn_fwd_nbr *e;

	if (!c->port[local].shared)
		return DCN_FWD_NBR_CABLE;
	e = c->nbrs != NULL ? dcn_fwd_nbr_find(c->nbrs, h->next, h->port) : NULL;
	return e != NULL ? (uint32_t)(e - c->nbrs->slot) : DCN_FWD_NBR_UNKNOWN;
}

/* Can a hop out of local port local, to neighbour slot nbr, be taken
 * now? @return local with *mac the next hop's MAC, or -drop reason. */
static inline int
link_ready(const struct dcn_fwd_ctx *c, int local, uint32_t nbr, uint64_t *mac)
{
	const struct dcn_fwd_nbr *e;

	if (local < 0)
		return local;
	if (unlikely(__atomic_load_n(&c->port_down, __ATOMIC_RELAXED) >> local & 1))
		return -DCN_DROP_LINK_DOWN;
	if (nbr == DCN_FWD_NBR_CABLE) {
		*mac = __atomic_load_n(&c->port[local].peer_mac, __ATOMIC_ACQUIRE);
		return local;
	}
	if (nbr == DCN_FWD_NBR_UNKNOWN)
		return -DCN_DROP_NO_NEIGHBOUR;
	e = &c->nbrs->slot[nbr];
	*mac = __atomic_load_n(&e->mac, __ATOMIC_ACQUIRE);
	if (*mac == 0)
		return e->down ? -DCN_DROP_LINK_DOWN : -DCN_DROP_NO_NEIGHBOUR;
	return local;
}

/* Candidates to choose from: a cache entry's (ports and slots known) or
 * the table's (ports and slots looked up). */
struct cand_set {
	const struct dcn_hop *hop;
	unsigned int n;
	const int8_t *local;    /* NULL: from hop */
	const uint32_t *nbr;
};

static inline int
cand_ready(const struct dcn_fwd_ctx *c, const struct cand_set *s, unsigned int k,
	   uint64_t *mac, uint32_t *nbr)
{
	int local;

	if (s->local != NULL) {
		*nbr = s->nbr[k];
		return link_ready(c, s->local[k], *nbr, mac);
	}
	local = hop_local(c, &s->hop[k]);
	if (local < 0)
		return local;
	*nbr = hop_nbr(c, &s->hop[k], local);
	return link_ready(c, local, *nbr, mac);
}

/*
 * Choose among candidates by draw; *pick gets the index, *mac the next
 * hop's MAC (8 readable bytes). When the chosen hop's link is down and the
 * table does not know yet, choose again with the same rule among the
 * candidates whose links are up: a node repairs its own failed port
 * before its table is recompiled. @return the local output port, or a
 * negative drop reason.
 */
static inline int
choose(struct dcn_fwd_ctx *c, const struct cand_set *s, uint32_t draw,
       unsigned int *pick, uint64_t *mac)
{
	unsigned int i = s->n > 1 ? dcn_route_pick(c->pick, s->hop, s->n, draw) : 0;
	uint32_t nbr;
	int local = cand_ready(c, s, i, mac, &nbr);

	if (unlikely(local == -DCN_DROP_LINK_DOWN) && s->n > 1) {
		struct dcn_hop live[DCN_ROUTE_MAX_HOPS];
		uint8_t idx[DCN_ROUTE_MAX_HOPS];
		unsigned int k, m = 0;
		uint64_t unused;
		uint32_t unused_nbr;

		for (k = 0; k < s->n && k < DCN_ROUTE_MAX_HOPS; k++)
			if (cand_ready(c, s, k, &unused, &unused_nbr) >= 0) {
				idx[m] = (uint8_t)k;
				live[m++] = s->hop[k];
			}
		if (m == 0)
			return -DCN_DROP_LINK_DOWN;
		i = idx[dcn_route_pick(c->pick, live, m, draw)];
		local = cand_ready(c, s, i, mac, &nbr);
	}
	if (local < 0)
		return local;
	if (c->nbr_frames != NULL && nbr < DCN_FWD_NBR_UNKNOWN)
		c->nbr_frames[nbr]++;
	*pick = i;
	return local;
}

#endif /* DCN_FWD_CHOOSE_H */
