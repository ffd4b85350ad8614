/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The step's decisions by frame kind: the candidates each kind's route
 * gives, the decision from the cache or the table, and the encapsulating,
 * transit (bounces included: README.md) and Diamond router steps.
 * Private to lib/fwd; inline in fwd.c.
 */
#ifndef DCN_FWD_DECIDE_H
#define DCN_FWD_DECIDE_H

#include "fwd_cache.h"

/*
 * Routing, by frame kind: the candidates and the state they start from.
 * @return DCN_DROP_NONE with *n candidates (0: for this node's own host),
 * or the reason to drop.
 */
static enum dcn_drop_reason
encap_route(struct dcn_fwd_ctx *c, const struct dcn_frame_info *fi,
	    struct dcn_route_state *st, struct dcn_hop *scratch,
	    const struct dcn_hop **h, unsigned int *n)
{
	int64_t dst = dcn_topo_vertex_of(c->t, fi->ip_dst);

	*n = 0;
	if (dst < 0 || (uint32_t)dst >= dcn_topo_servers(c->t))
		return DCN_DROP_NOT_IN_FABRIC;
	if ((uint32_t)dst == c->node)
		return c->host_port < 0 ? DCN_DROP_NO_ROUTE : DCN_DROP_NONE;
	dcn_route_state_init(c->r, c->node, (uint32_t)dst, st);
	*n = dcn_rtable_lookup(c->tb, fi->ip_dst, st, scratch, h);
	return *n != 0 ? DCN_DROP_NONE : DCN_DROP_NO_ROUTE;
}

static enum dcn_drop_reason
transit_route(struct dcn_fwd_ctx *c, const struct dcn_frame_info *fi,
	      struct dcn_route_state *st, struct dcn_hop *scratch,
	      const struct dcn_hop **h, unsigned int *n)
{
	*n = 0;
	if (dcn_fabric_state_from_hdr(c->t, &fi->hdr, st) < 0)
		return DCN_DROP_NOT_IN_FABRIC;
	if (st->dst == c->node)
		return c->host_port < 0 ? DCN_DROP_NO_ROUTE : DCN_DROP_NONE;
	if (fi->hdr.ttl <= 1)
		return DCN_DROP_TTL_EXPIRED;
	*n = dcn_rtable_lookup(c->tb, fi->hdr.dst, st, scratch, h);
	return *n != 0 ? DCN_DROP_NONE : DCN_DROP_NO_ROUTE;
}

/* Diamond switch: an IPv4 router by FAR. */
static enum dcn_drop_reason
router_route(struct dcn_fwd_ctx *c, const struct dcn_frame_info *fi,
	     struct dcn_route_state *st, struct dcn_hop *scratch,
	     const struct dcn_hop **h, unsigned int *n)
{
	int64_t v;

	dcn_route_state_init(c->r, c->node, c->node, st);
	*n = dcn_rtable_lookup(c->tb, fi->ip_dst, st, scratch, h);
	if (*n != 0)
		return DCN_DROP_NONE;
	v = dcn_topo_vertex_of(c->t, fi->ip_dst);
	return v < 0 || (uint32_t)v >= dcn_topo_servers(c->t) ?
		       DCN_DROP_NOT_IN_FABRIC : DCN_DROP_NO_ROUTE;
}

/* How a frame's routing is found: one of encap_route, transit_route,
 * router_route. */
typedef enum dcn_drop_reason (*route_fn)(struct dcn_fwd_ctx *c,
					 const struct dcn_frame_info *fi,
					 struct dcn_route_state *st,
					 struct dcn_hop *scratch,
					 const struct dcn_hop **h, unsigned int *n);

/* What is done with one frame. */
struct decision {
	uint8_t action;       /* DCN_FWD_ACT_* */
	int local;            /* the output port (the host port unless
			       * forwarded) */
	uint64_t mac;         /* forward: the next hop's MAC */
	const uint8_t *hdr;   /* forward: the header it leaves with (NULL:
			       * none, the router) */
	uint8_t img[DCN_FABRIC_HDR_LEN]; /* room for a header not cached */
};

/* The common case on a relay: entry e forwards by one candidate, over a
 * cable that is up. It is decided as choose decides it, with no draw for
 * one candidate. */
static __rte_always_inline int
one_cable_up(const struct dcn_fwd_ctx *c, const struct dcn_fwd_cache_entry *e)
{
	/* local[0] is a port when one_cable is set (cache_fill): read
	 * unsigned, as the fast path reads it too. */
	return likely(e->one_cable) &&
	       likely(!(__atomic_load_n(&c->port_down, __ATOMIC_RELAXED) >>
			(uint8_t)e->local[0] & 1));
}

/* Decide for a frame from cache entry e, which holds its key's decision
 * (decide's arguments). */
static __rte_always_inline enum dcn_drop_reason
decide_hit(struct dcn_fwd_ctx *c, const struct dcn_fwd_cache_entry *e,
	   int with_hdr, const uint8_t *ip, uint32_t a, uint32_t b,
	   struct decision *d)
{
	struct cand_set s;
	unsigned int i;
	uint64_t mac;
	int local;

	d->action = e->action;
	if (one_cable_up(c, e)) {
		d->local = e->local[0];
		d->mac = __atomic_load_n(&c->port[d->local].peer_mac, __ATOMIC_ACQUIRE);
		d->hdr = with_hdr ? e->hdr[0] : NULL;
		return DCN_DROP_NONE;
	}
	/* Until a candidate is chosen (and for a frame not forwarded): the
	 * host port, no MAC or header to write. */
	d->local = c->host_port;
	d->mac = 0;
	d->hdr = NULL;
	if (e->action != DCN_FWD_ACT_FORWARD)
		return DCN_DROP_NONE;
	s = entry_set(e);
	/* The MAC through a local, not &d->mac: d stays in registers. */
	local = choose(c, &s, frame_draw(c, e->n, ip, a, b), &i, &mac);
	if (local < 0)
		return (enum dcn_drop_reason)-local;
	if (e->no_hdr >> i & 1)
		return e->too_long >> i & 1 ? DCN_DROP_TOO_LONG : DCN_DROP_NO_ROUTE;
	d->mac = mac;
	d->local = local;
	d->hdr = with_hdr ? e->hdr[i] : NULL;
	return DCN_DROP_NONE;
}

/*
 * Decide for a frame: from the cache when the context has one (routing
 * and filling the entry on a miss), else from the table; both end in the
 * same choose. A set too large to cache is routed from the table every
 * time. The key k is what route's answer depends on; a route
 * with no candidates means no_hops (the frame is for this node's host;
 * 0: it has none to mean, no_route); with_hdr: candidates carry the
 * fabric header the frame leaves with. ip, a and b are the flow's, for
 * the draw.
 */
static __rte_always_inline enum dcn_drop_reason
decide(struct dcn_fwd_ctx *c, route_fn route, struct cache_key k,
       uint8_t no_hops, int with_hdr,
       const struct dcn_frame_info *fi, const uint8_t *ip, uint32_t a,
       uint32_t b, struct decision *d)
{
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	struct dcn_fwd_cache_entry *e = NULL;
	const struct dcn_hop *h = NULL;
	struct dcn_route_state st;
	struct cand_set s;
	enum dcn_drop_reason why;
	unsigned int n, i;
	int local, hit = 0;

	d->local = c->host_port;
	if (c->cache != NULL) {
		struct cache_view v = cache_view(c);

		e = cache_probe(&v, &k, &hit);
		if (hit)
			goto cached;
	}
	why = route(c, fi, &st, scratch, &h, &n);
	if (why != DCN_DROP_NONE)
		return why;
	if (n == 0 && !no_hops)
		return DCN_DROP_NO_ROUTE;
	if (e != NULL && cache_fill(c, e, &k, n ? DCN_FWD_ACT_FORWARD : no_hops,
				    &st, h, n, with_hdr) == 0)
		goto cached;
	d->action = n ? DCN_FWD_ACT_FORWARD : no_hops;
	if (n == 0)
		return DCN_DROP_NONE;
	s = (struct cand_set){ h, n, NULL, NULL };
	local = choose(c, &s, frame_draw(c, n, ip, a, b), &i, &d->mac);
	if (local < 0)
		return (enum dcn_drop_reason)-local;
	if (with_hdr) {
		int img = hdr_image(c, &st, &h[i], d->img);

		if (img < 0)
			return img == HDR_TOO_LONG ? DCN_DROP_TOO_LONG : DCN_DROP_NO_ROUTE;
	}
	d->local = local;
	d->hdr = with_hdr ? d->img : NULL;
	return DCN_DROP_NONE;
cached:
	return decide_hit(c, e, with_hdr, ip, a, b, d);
}

static __rte_always_inline enum dcn_drop_reason
encap(struct dcn_fwd_ctx *c, struct rte_mbuf *m,
      const struct dcn_frame_info *fi, uint16_t *out)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, fi->l3_off);
	struct decision d;
	enum dcn_drop_reason why;

	why = decide(c, encap_route, (struct cache_key){ KEY_ENCAP, fi->ip_dst, 0 },
		     DCN_FWD_ACT_OWN, 1, fi, ip, c->node_addr, fi->ip_dst, &d);
	if (why != DCN_DROP_NONE)
		return why;
	if (d.action == DCN_FWD_ACT_OWN) {
		/* For this node's own host: straight back, as it came. */
		*out = (uint16_t)d.local;
		return DCN_DROP_NONE;
	}
	return emit_encap(c, m, fi, d.local, d.mac, d.hdr, out);
}

/* A transit decision's cache key: the fabric header's bytes at h that
 * transit_route's answer depends on, as loaded (only compared and
 * hashed): flags and VC (byte 1: the header a frame leaves with carries
 * the VC after this hop), TTL, quadrant, path and last dimension in k0,
 * under KEY_TRANSIT; source and destination in k1; proxy in k2g. */

/* Header bytes 1 to 5 of a little-endian load. */
#define TRANSIT_K0_BYTES 0x0000ffffffffff00ull

static __rte_always_inline struct cache_key
transit_key(const uint8_t *h)
{
	struct cache_key k;
	uint64_t w0;
	uint32_t proxy;

	memcpy(&w0, h, sizeof(w0));
	memcpy(&k.k1, h + 8, sizeof(k.k1));
	memcpy(&proxy, h + 16, sizeof(proxy));
	k.k0 = KEY_TRANSIT | (rte_le_to_cpu_64(w0) & TRANSIT_K0_BYTES);
	k.k2g = proxy;
	return k;
}

/* A transit frame with its decision d: decapsulated (its IPv4 packet
 * ends at byte l3_end) or passed on. */
static __rte_always_inline enum dcn_drop_reason
transit_emit(struct dcn_fwd_ctx *c, struct rte_mbuf *m, uint32_t l3_end,
	     const struct decision *d, uint16_t *out)
{
	if (d->action == DCN_FWD_ACT_DECAP)
		return emit_decap(c, m, l3_end, out);
	return emit_transit(c, m, d->local, d->mac, d->hdr, out);
}

/* Frame e, its header written, goes back where it came from: marked
 * while this relay's news is fresh (dcn_fwd_ctx.news_tsc). */
static inline void
mark_bounced(struct dcn_fwd_ctx *c, uint8_t *e)
{
	c->st.bounced++;
	if (dcn_fwd_clock() - __atomic_load_n(&c->news_tsc, __ATOMIC_RELAXED) < c->news_window)
		e[DCN_ETHER_HDR_LEN + 1] |= DCN_FABRIC_BOUNCED;
}

/*
 * A frame whose hop goes back to the neighbour it came from: a relay
 * that knows what that neighbour does not yet (a failure), or by the
 * routing itself (Totoro's way out and back). The frame leaves marked
 * bounced. Bounced here already, it would go back and forth between two
 * relays whose tables disagree until its VCs ran out: with c->park it is
 * held instead (DCN_FWD_PARK, untouched) until this relay's table
 * changes. Behind a switch, back out of the port is back to the sender
 * only when the MAC is its.
 */
static __rte_noinline enum dcn_drop_reason
transit_bounce(struct dcn_fwd_ctx *c, struct rte_mbuf *m, const struct dcn_fwd_port *ip,
	       uint32_t l3_end, const struct decision *d, uint16_t *out)
{
	uint8_t *e = rte_pktmbuf_mtod(m, uint8_t *);
	uint64_t sender = 0;

	if (ip->shared) {
		memcpy(&sender, e + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);
		if (sender != d->mac)
			return transit_emit(c, m, l3_end, d, out);
	}
	if ((e[DCN_ETHER_HDR_LEN + 1] & DCN_FABRIC_BOUNCED) && c->park && !c->park_off) {
		*out = DCN_FWD_PARK;
		c->st.parked++;
		return DCN_DROP_NONE;
	}
	emit_transit(c, m, d->local, d->mac, d->hdr, out);
	mark_bounced(c, e);
	return DCN_DROP_NONE;
}

static __rte_always_inline enum dcn_drop_reason
transit(struct dcn_fwd_ctx *c, struct rte_mbuf *m, const struct dcn_frame_info *fi,
	const struct dcn_fwd_port *ip, uint16_t *out)
{
	const struct dcn_fabric_hdr *fh = &fi->hdr;
	const uint8_t *ip4 = rte_pktmbuf_mtod_offset(m, const uint8_t *, fi->l3_off);
	struct cache_key k = transit_key(rte_pktmbuf_mtod_offset(m, const uint8_t *,
								 DCN_ETHER_HDR_LEN));
	uint32_t l3_end = (uint32_t)fi->l3_off + fi->l3_len;
	struct decision d;
	enum dcn_drop_reason why;

	why = decide(c, transit_route, k, DCN_FWD_ACT_DECAP, 1, fi, ip4, fh->src, fh->dst,
		     &d);
	if (why != DCN_DROP_NONE)
		return why;
	/* Only a forwarded frame can go back: the host port is never the
	 * port a fabric frame came in on. */
	if (unlikely(&c->port[d.local] == ip))
		return transit_bounce(c, m, ip, l3_end, &d, out);
	return transit_emit(c, m, l3_end, &d, out);
}

/*
 * A Diamond switch routes plain IPv4. FAR never sends a packet back to the
 * switch it came from: core to edge goes to the pod's own servers or on
 * across the pod, edge to edge never back. A decision that would (tables
 * that do not agree yet while news of a failure spreads) is a loop, and
 * dropped as one rather than bounced until the TTL ends.
 */
static __rte_always_inline enum dcn_drop_reason
route_ipv4(struct dcn_fwd_ctx *c, struct rte_mbuf *m,
	   const struct dcn_frame_info *fi, int in, uint16_t *out)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, fi->l3_off);
	struct decision d;
	enum dcn_drop_reason why;

	if (ip[8] <= 1)
		return DCN_DROP_TTL_EXPIRED;
	why = decide(c, router_route, (struct cache_key){ KEY_ROUTER, fi->ip_dst, 0 }, 0, 0,
		     fi, ip, fi->ip_src, fi->ip_dst, &d);
	if (why != DCN_DROP_NONE)
		return why;
	if (unlikely(d.local == in))
		return DCN_DROP_LOOP;
	/* Past its VCs between switches: a loop of tables that disagree
	 * (DCN_VC_SPENT), dropped before it can hold queues in a cycle. */
	if (unlikely(ip[8] <= c->router_spent_ttl) && !c->port[in].host &&
	    !c->port[d.local].host)
		return DCN_DROP_TOO_LONG;
	return emit_router(c, m, fi, d.local, d.mac, c->port[in].host, out);
}

#endif /* DCN_FWD_DECIDE_H */
