/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One node's forwarding step on a burst (see dcn_fwd.h). Frames are single
 * segments; the fabric header goes between the Ethernet header and the
 * host's IPv4 packet, so encapsulation prepends 20 bytes and writes a new
 * Ethernet header over the old one, and decapsulation does the reverse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "dcn_fabric_udp.h"
#include "dcn_fwd.h"

int
dcn_fwd_init(struct dcn_fwd_ctx *c, const struct dcn_router *r,
	     const struct dcn_rtable *tb, uint16_t ethertype, int per_packet)
{
	const struct dcn_topo *t = dcn_router_topo(r);
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->t = t;
	c->r = r;
	c->tb = tb;
	c->node = dcn_rtable_node(tb);
	if (!dcn_topo_is_router(t, c->node))
		return -EINVAL;
	c->node_addr = dcn_topo_addr(t, c->node);
	c->ethertype = ethertype;
	c->per_packet = per_packet;
	c->news_window = rte_get_tsc_hz() * DCN_FWD_NEWS_MS / 1000;
	c->router_mode = dcn_topo_kind(t) == DCN_TOPO_DIAMOND;
	/* Its next hop between switches would travel on VC 64 - TTL. */
	c->router_spent_ttl = (uint8_t)(DCN_FWD_ROUTER_TTL - dcn_route_rule_vcs(r));
	c->rng = c->node_addr | 1;
	c->host_port = -1;
	c->pick = dcn_router_pick_mode(r);
	c->cache_gen = DCN_FWD_GEN_STEP;
	for (i = 0; i < DCN_FWD_MAX_FABRIC_PORTS; i++)
		c->local_of[i] = -1;
	return 0;
}

int
dcn_fwd_nbrs_init(struct dcn_fwd_nbrs *nb, const struct dcn_topo *t,
		  uint32_t node)
{
	unsigned int deg = dcn_topo_max_degree(t);
	struct dcn_adj *a = calloc(deg, sizeof(*a)), *b = calloc(deg, sizeof(*b));
	unsigned int na, nb_, i, j, total = 0;
	uint32_t size = 4;

	memset(nb, 0, sizeof(*nb));
	if (a == NULL || b == NULL)
		goto nomem;
	na = dcn_topo_adj(t, node, a);
	for (i = 0; i < na; i++)
		if (dcn_topo_role(t, a[i].peer) == DCN_ROLE_SWITCH)
			total += dcn_topo_adj(t, a[i].peer, b);
	while (size < 2 * total)
		size <<= 1;
	nb->slot = malloc(size * sizeof(*nb->slot));
	if (nb->slot == NULL)
		goto nomem;
	nb->mask = size - 1;
	for (i = 0; i < size; i++)
		nb->slot[i] = (struct dcn_fwd_nbr){ .vertex = DCN_FWD_NBR_EMPTY };
	for (i = 0; i < na; i++) {
		if (dcn_topo_role(t, a[i].peer) != DCN_ROLE_SWITCH)
			continue;
		nb_ = dcn_topo_adj(t, a[i].peer, b);
		for (j = 0; j < nb_; j++) {
			uint32_t v = b[j].peer, k;

			if (v == node || dcn_fwd_nbr_find(nb, v, a[i].port) != NULL)
				continue;
			k = ((v * 0x9e3779b1u) ^ (a[i].port * 0x85ebca6bu)) & nb->mask;
			while (nb->slot[k].vertex != DCN_FWD_NBR_EMPTY)
				k = (k + 1) & nb->mask;
			nb->slot[k].vertex = v;
			nb->slot[k].fabric_port = a[i].port;
			nb->count++;
		}
	}
	free(a);
	free(b);
	return 0;
nomem:
	free(a);
	free(b);
	return -ENOMEM;
}

void
dcn_fwd_nbrs_free(struct dcn_fwd_nbrs *nb)
{
	free(nb->slot);
	memset(nb, 0, sizeof(*nb));
}

/* Is topology port fp of the context's node cabled to an L2 switch? */
static int
port_on_switch(const struct dcn_fwd_ctx *c, int fp)
{
	int64_t peer;

	if (dcn_topo_max_degree(c->t) > DCN_FWD_MAX_FABRIC_PORTS)
		return 0;
	peer = dcn_topo_port_peer(c->t, c->node, (unsigned int)fp);
	return peer >= 0 && dcn_topo_role(c->t, (uint32_t)peer) == DCN_ROLE_SWITCH;
}

int
dcn_fwd_add_port(struct dcn_fwd_ctx *c, int fabric_port, int host,
		 const struct rte_ether_addr *mac)
{
	struct dcn_fwd_port *p;
	uint16_t idx = c->n_ports;

	if (idx == DCN_FWD_MAX_PORTS)
		return -ENOSPC;
	if (fabric_port < -1 || fabric_port >= DCN_FWD_MAX_FABRIC_PORTS ||
	    (fabric_port < 0 && !host) ||
	    (fabric_port >= 0 && c->local_of[fabric_port] >= 0))
		return -EINVAL;
	p = &c->port[idx];
	p->host = (uint8_t)!!host;
	p->fabric_port = (int16_t)fabric_port;
	p->shared = (uint8_t)(fabric_port >= 0 && port_on_switch(c, fabric_port));
	p->mac = *mac;
	memcpy(&p->fabric_eth_tail, mac, RTE_ETHER_ADDR_LEN);
	dcn_fabric_put16((uint8_t *)&p->fabric_eth_tail + RTE_ETHER_ADDR_LEN, c->ethertype);
	p->peer_mac = 0;
	memset(&p->peer_mac, 0xff, RTE_ETHER_ADDR_LEN);
	if (fabric_port >= 0)
		c->local_of[fabric_port] = (int16_t)idx;
	else if (c->host_port < 0)
		c->host_port = (int16_t)idx;
	c->n_ports++;
	dcn_fwd_cache_next_gen(c);
	return idx;
}

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

static inline void
write_eth(uint8_t *p, const struct dcn_fwd_port *out, const void *dst_mac,
	  uint16_t type)
{
	memcpy(p, dst_mac, RTE_ETHER_ADDR_LEN);
	memcpy(p + RTE_ETHER_ADDR_LEN, &out->mac, RTE_ETHER_ADDR_LEN);
	p[12] = (uint8_t)(type >> 8);
	p[13] = (uint8_t)type;
}

/* A fabric frame's Ethernet header out of port out to dst_mac (8 bytes,
 * the last two overwritten), in two 8-byte stores. */
static inline void
write_fabric_eth(uint8_t *p, const struct dcn_fwd_port *out, uint64_t dst_mac)
{
	memcpy(p, &dst_mac, sizeof(dst_mac));
	memcpy(p + RTE_ETHER_ADDR_LEN, &out->fabric_eth_tail, sizeof(out->fabric_eth_tail));
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

/* hdr_image: the hop would take the route past its VCs (DCN_VC_SPENT). */
#define HDR_TOO_LONG (-2)

/* The fabric header a frame in state st leaves with by hop h (length 0).
 * @return 0, -1 when a vertex of the state has no address, or
 * HDR_TOO_LONG. */
static int
hdr_image(const struct dcn_fwd_ctx *c, const struct dcn_route_state *st,
	  const struct dcn_hop *h, uint8_t *img)
{
	struct dcn_route_state s = *st;
	struct dcn_fabric_hdr hdr;

	dcn_route_advance(c->r, c->node, h, &s);
	if (s.vc == DCN_VC_SPENT)
		return HDR_TOO_LONG;
	if (dcn_fabric_hdr_from_state(c->t, &s, &hdr) < 0)
		return -1;
	hdr.type = DCN_FT_DATA;
	hdr.len = 0;
	dcn_fabric_write_hdr(img, &hdr);
	return 0;
}

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

/* Cache keys: the kind of decision in the low byte of k0, which a
 * transit key leaves free (the header's version and type, the same in
 * every data frame): set with a small constant, where one in the top
 * byte took a 64-bit one, loaded for every frame. */
#define KEY_ENCAP 1ull
#define KEY_TRANSIT 2ull
#define KEY_ROUTER 3ull

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

/* Drop what follows the IPv4 packet, which ends at byte l3_end
 * (Ethernet padding). */
static inline void
trim_to(struct rte_mbuf *m, uint32_t l3_end)
{
	if (rte_pktmbuf_data_len(m) > l3_end)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - l3_end));
}

static inline void
trim_padding(struct rte_mbuf *m, const struct dcn_frame_info *fi)
{
	trim_to(m, (uint32_t)fi->l3_off + fi->l3_len);
}

/* Host packet at its first relay: add the fabric header img leaves with.
 * Inlined by force: a host port's every frame comes here, and with three
 * loops of fwd_burst the compiler stops inlining it by itself (20
 * instructions a frame more). */
static __rte_always_inline enum dcn_drop_reason
emit_encap(struct dcn_fwd_ctx *c, struct rte_mbuf *m,
	   const struct dcn_frame_info *fi, int local, uint64_t mac,
	   const uint8_t *img, uint16_t *out)
{
	uint8_t *p;

	trim_padding(m, fi);
	p = (uint8_t *)rte_pktmbuf_prepend(m, DCN_FABRIC_HDR_LEN);
	if (p == NULL)
		return DCN_DROP_BAD_LENGTH;
	write_fabric_eth(p, &c->port[local], mac);
	memcpy(p + DCN_ETHER_HDR_LEN, img, DCN_FABRIC_HDR_LEN);
	dcn_fabric_put16(p + DCN_ETHER_HDR_LEN + 6, fi->l3_len);
	*out = (uint16_t)local;
	c->st.encap++;
	return DCN_DROP_NONE;
}

/* Fabric frame at p passed on by local port local: new Ethernet header,
 * the routing fields of img (the length stays). */
static __rte_always_inline void
rewrite_transit(struct dcn_fwd_ctx *c, uint8_t *p, int local, uint64_t mac,
		const uint8_t *img)
{
	write_fabric_eth(p, &c->port[local], mac);
	memcpy(p + DCN_ETHER_HDR_LEN, img, 6);
	memcpy(p + DCN_ETHER_HDR_LEN + 8, img + 8, DCN_FABRIC_HDR_LEN - 8);
	c->st.transit++;
}

static inline enum dcn_drop_reason
emit_transit(struct dcn_fwd_ctx *c, struct rte_mbuf *m, int local, uint64_t mac,
	     const uint8_t *img, uint16_t *out)
{
	rewrite_transit(c, rte_pktmbuf_mtod(m, uint8_t *), local, mac, img);
	*out = (uint16_t)local;
	return DCN_DROP_NONE;
}

/* Last relay: take the fabric header off (the IPv4 packet ends at byte
 * l3_end), to the host. */
static enum dcn_drop_reason
emit_decap(struct dcn_fwd_ctx *c, struct rte_mbuf *m, uint32_t l3_end,
	   uint16_t *out)
{
	uint64_t hm = __atomic_load_n(&c->port[c->host_port].peer_mac,
				      __ATOMIC_ACQUIRE);
	uint8_t *p;

	trim_to(m, l3_end);
	p = (uint8_t *)rte_pktmbuf_adj(m, DCN_FABRIC_HDR_LEN);
	if (p == NULL)
		return DCN_DROP_BAD_LENGTH;
	write_eth(p, &c->port[c->host_port], &hm, DCN_ETHERTYPE_IPV4);
	*out = (uint16_t)c->host_port;
	c->st.decap++;
	return DCN_DROP_NONE;
}

/* A Diamond switch passes a packet on, one hop older. One from a server
 * starts at DCN_FWD_ROUTER_TTL, so that every switch reads its hop count
 * between switches, its VC, from the TTL (dcn_fwd_router_vc). */
static inline enum dcn_drop_reason
emit_router(struct dcn_fwd_ctx *c, struct rte_mbuf *m,
	    const struct dcn_frame_info *fi, int local, uint64_t mac,
	    int from_server, uint16_t *out)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	if (from_server)
		dcn_ipv4_set_ttl(p + fi->l3_off, DCN_FWD_ROUTER_TTL - 1);
	else
		dcn_ipv4_dec_ttl(p + fi->l3_off);
	write_eth(p, &c->port[local], &mac, DCN_ETHERTYPE_IPV4);
	*out = (uint16_t)local;
	c->st.transit++;
	return DCN_DROP_NONE;
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
	if (rte_rdtsc() - __atomic_load_n(&c->news_tsc, __ATOMIC_RELAXED) < c->news_window)
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

static __rte_always_inline uint32_t
load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Of a 4-byte load at frame byte 12: the EtherType and the fabric
 * header's version and type, which transit_fast compares in one step
 * with fast_data_tag(). */
#define TYPE_VERSION_BYTES rte_cpu_to_be_32(0xffffff00u)

/* Of the same load, the VC bits of byte 15: with TYPE_VERSION_BYTES, what
 * a frame of one input channel (DCN_FWD_CHAN_BYTES) shares with the
 * first, and more (the version). */
#define VC_BITS rte_cpu_to_be_32(0x00000071u)

/* Of the same load, the bounce flag of byte 15: a bounced frame takes
 * the full step, which may hold it (transit_bounce). */
#define BOUNCED_BITS rte_cpu_to_be_32(DCN_FABRIC_BOUNCED)

static __rte_always_inline uint32_t
fast_data_tag(const struct dcn_fwd_ctx *c)
{
	return rte_cpu_to_be_32((uint32_t)c->ethertype << 16 |
				(DCN_FABRIC_VERSION << 4 | DCN_FT_DATA) << 8);
}

/* Not decided by transit_fast: take the full step. */
#define FAST_MISS DCN_DROP_MAX

/* Where a fabric frame's IPv4 packet starts. */
#define FAST_L3_OFF (DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN)

/*
 * Transit from the cache, straight from the frame's bytes: a fabric data
 * frame on a cable port whose decision the cache holds is checked as
 * dcn_fabric_classify checks it and then finished as decide finishes a
 * hit, without building its frame info. Anything else (another kind of
 * frame, an IPv4 header with options, a check that fails, a miss) is
 * FAST_MISS, before anything is changed or counted, and takes the full
 * step, which decides the same or names the reason to drop.
 * @return the output port (>= 0), or minus a drop reason or FAST_MISS:
 * a port in a register, where one written through a pointer (as the
 * full step's) would live on the stack for every frame.
 */
static __rte_always_inline int
transit_fast(struct dcn_fwd_ctx *c, const struct cache_view *v, struct rte_mbuf *m,
	     uint16_t in, uint32_t data_tag, const uint32_t tag_mask)
{
	uint8_t *e = rte_pktmbuf_mtod(m, uint8_t *);
	const uint8_t *h = e + DCN_ETHER_HDR_LEN, *ip = e + FAST_L3_OFF;
	uint32_t len = rte_pktmbuf_data_len(m), plen, ip0, l3_len;
	struct dcn_fwd_cache_entry *ce;
	struct cache_key k;
	struct decision d;
	enum dcn_drop_reason why;
	uint16_t out;
	int hit;

	/*
	 * The bytes up to the IPv4 header's first word are read before the
	 * frame's length is known to hold them, so as not to test it
	 * first: they are inside the mbuf's data room whatever the frame
	 * (a frame starts after the headroom, in a room of at least a full
	 * frame). The checks below hold only if it does: an IPv4 length of
	 * at least a header, within the fabric header's length, itself
	 * within the frame. A shorter frame takes the full step, which
	 * names its fault. Of the header's own checks, those on bytes of
	 * the key (a TTL of 0) need no test: the cache holds only keys the
	 * full step took.
	 */
	if (unlikely(m->nb_segs != 1 || (load32(e + 12) & tag_mask) != data_tag))
		return -FAST_MISS;
	/* The IPv4 header's first word: version and length 0x45, then the
	 * lengths. */
	plen = dcn_fabric_get16(h + 6);
	ip0 = load32(ip);
	/* Not rte_be_to_cpu_16: an asm there, which the compiler cannot fold
	 * into the compares. */
	l3_len = __builtin_bswap16((uint16_t)(ip0 >> 16));
	if (unlikely((ip0 & 0xff) != 0x45 || l3_len < DCN_IPV4_MIN_HDR || l3_len > plen ||
		     plen + FAST_L3_OFF > len))
		return -FAST_MISS;
	k = transit_key(h);
	ce = cache_probe(v, &k, &hit);
	if (unlikely(!hit))
		return -FAST_MISS;
	/* The usual hit first, on its own: the flow's addresses, which only
	 * a choice among candidates reads, are then not loaded for it. */
	if (one_cable_up(c, ce)) {
		/* Unsigned, as one_cable_up read it: no sign to test. */
		int local = (uint8_t)ce->local[0];

		rewrite_transit(c, e, local,
				__atomic_load_n(&c->port[local].peer_mac, __ATOMIC_ACQUIRE),
				ce->hdr[0]);
		/* Back to the neighbour it came from (transit_bounce): not
		 * bounced before, or it would not be here. */
		if (unlikely(local == in))
			mark_bounced(c, e);
		return local;
	}
	why = decide_hit(c, ce, 1, ip, dcn_fabric_get32(h + 8), dcn_fabric_get32(h + 12),
			 &d);
	if (why == DCN_DROP_NONE)
		why = transit_emit(c, m, FAST_L3_OFF + l3_len, &d, &out);
	if (why != DCN_DROP_NONE)
		return -(int)why;
	if (unlikely(out == in))
		mark_bounced(c, e);
	return (int)out;
}

static inline int
mac_is_ours(const struct rte_mbuf *m, const struct dcn_fwd_port *p)
{
	return rte_is_same_ether_addr(rte_pktmbuf_mtod(m, const struct rte_ether_addr *),
				      &p->mac);
}

/* The step for one frame; router_mode is a constant in each of the two
 * bodies below, so a fabric relay and a Diamond switch each run a loop
 * without the other's branches, bound once per burst. */
static __rte_always_inline enum dcn_drop_reason
fwd_one(struct dcn_fwd_ctx *c, const struct dcn_fwd_port *ip, struct rte_mbuf *m,
	uint16_t *out, const int router_mode)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dcn_frame_info fi;
	int as_host;

	if (m->nb_segs != 1)
		return DCN_DROP_BAD_LENGTH;
	/* A Diamond switch takes IPv4 on every port, and fabric control
	 * (hellos) on its switch-facing ones. */
	as_host = ip->host || (router_mode && rte_pktmbuf_data_len(m) >= 14 &&
			       (e[12] << 8 | e[13]) != c->ethertype);
	dcn_fabric_classify(e, rte_pktmbuf_data_len(m), as_host, c->ethertype, &fi);
	switch (fi.cls) {
	case DCN_FC_FABRIC_DATA:
		if (router_mode)
			return DCN_DROP_BAD_TYPE;
		if (ip->shared && !mac_is_ours(m, ip))
			return DCN_DROP_NOT_OUR_MAC;
		return transit(c, m, &fi, ip, out);
	case DCN_FC_HOST_IPV4:
		return router_mode ? route_ipv4(c, m, &fi, (int)(ip - c->port), out) :
				     encap(c, m, &fi, out);
	case DCN_FC_FABRIC_CONTROL:
		*out = DCN_FWD_CONTROL;
		c->st.control++;
		return DCN_DROP_NONE;
	case DCN_FC_OTHER:
		/* A host's ARP is for the control thread, which answers
		 * for fabric addresses. */
		if (ip->host && (e[12] << 8 | e[13]) == DCN_ETHERTYPE_ARP) {
			*out = DCN_FWD_CONTROL;
			c->st.control++;
			return DCN_DROP_NONE;
		}
		return DCN_DROP_UNKNOWN_ETHERTYPE;
	default:
		if (fi.reason == DCN_DROP_UNKNOWN_ETHERTYPE && c->udp_port != 0 &&
		    dcn_fabric_udp_check(e, rte_pktmbuf_data_len(m), c->udp_port) ==
			    DCN_UDP_FABRIC) {
			c->in_mismatch[ip - c->port]++;
			return DCN_DROP_ENCAP_MISMATCH;
		}
		return fi.reason;
	}
}

/* Is m of the input channel whose channel bytes are chan_word? */
static inline int
of_chan(const struct rte_mbuf *m, uint32_t chan_word)
{
	return rte_pktmbuf_data_len(m) >= DCN_FWD_CHAN_MIN_LEN &&
	       (load32(rte_pktmbuf_mtod(m, const uint8_t *) + 12) & DCN_FWD_CHAN_BYTES) ==
		       chan_word;
}

/* Frame m of a burst: kept at pkts[*keep] with its port, or dropped
 * (counted, freed). fast, router_mode and chan are constants in each
 * loop below, so that each runs without the others' branches. With chan
 * (a burst of one input channel, dcn_fwd_burst_chan), a frame the fast
 * path did not take is first checked to be of the channel; @return 0
 * when it is not, and it was left untouched; else 1. */
static __rte_always_inline int
fwd_frame(struct dcn_fwd_ctx *c, const struct dcn_fwd_port *ip, uint16_t in,
	  const struct cache_view *v, struct rte_mbuf *m, struct rte_mbuf **pkts,
	  uint16_t *out_port, uint16_t *keep, uint32_t data_tag, uint32_t chan_word,
	  const int fast, const int router_mode, const int chan)
{
	enum dcn_drop_reason why = FAST_MISS;
	uint16_t out;

	if (fast) {
		/* Of one channel, the fast path's check takes the VC too:
		 * a frame it passes is of the channel. */
		int port = transit_fast(c, v, m, in, data_tag,
					chan ? TYPE_VERSION_BYTES | VC_BITS | BOUNCED_BITS :
					       TYPE_VERSION_BYTES | BOUNCED_BITS);

		if (likely(port >= 0)) {
			/* Always a port of the node: no control frame here. */
			c->out_frames[port]++;
			pkts[*keep] = m;
			out_port[(*keep)++] = (uint16_t)port;
			return 1;
		}
		why = (enum dcn_drop_reason)-port;
	}
	if (chan && why == FAST_MISS && !of_chan(m, chan_word))
		return 0;
	out = 0;
	if (why == FAST_MISS)
		why = fwd_one(c, ip, m, &out, router_mode);
	if (unlikely(why != DCN_DROP_NONE)) {
		c->st.drop[why]++;
		rte_pktmbuf_free(m);
		return 1;
	}
	if (out < DCN_FWD_MAX_PORTS)
		c->out_frames[out]++;
	pkts[*keep] = m;
	out_port[(*keep)++] = out;
	return 1;
}

/* The burst step; with chan, over the frames of one input channel up to
 * the first of another (*taken: the frames before it). */
static __rte_always_inline uint16_t
fwd_burst(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
	  uint16_t n, uint16_t *out_port, uint32_t chan_word, uint16_t *taken,
	  const int fast, const int router_mode, const int chan)
{
	const struct dcn_fwd_port *ip = &c->port[in];
	const uint32_t data_tag = chan ? fast_data_tag(c) | (chan_word & VC_BITS) :
					 fast_data_tag(c);
	const struct cache_view v = cache_view(c);
	struct rte_mbuf **p = pkts, **end = pkts + n;
	uint16_t keep = 0;

	/* Kept frames are written back at pkts[keep], keep <= p - pkts:
	 * the next frame is read before. No prefetch here: the caller's
	 * (dcn_fwd_prefetch), unless it has read the headers already. By
	 * pointer: an index kept for the end (*taken) costs a register,
	 * which the frame's step has none to spare for. */
	for (; p != end; p++)
		if (!fwd_frame(c, ip, in, &v, *p, pkts, out_port, &keep, data_tag, chan_word,
			       fast, router_mode, chan))
			break;
	c->st.rx += (uint64_t)(p - pkts);
	if (chan)
		*taken = (uint16_t)(p - pkts);
	return keep;
}

/* A relay's cable port with a route cache: transit frames may be decided
 * from the cache without the full step (a shared port checks MACs
 * first). */
static uint16_t
fwd_burst_cable(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		uint16_t n, uint16_t *out_port)
{
	return fwd_burst(c, in, pkts, n, out_port, 0, NULL, 1, 0, 0);
}

static uint16_t
fwd_burst_cable_chan(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		     uint16_t n, uint16_t *out_port, uint32_t chan_word, uint16_t *taken)
{
	return fwd_burst(c, in, pkts, n, out_port, chan_word, taken, 1, 0, 1);
}

static uint16_t
fwd_burst_relay(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		uint16_t n, uint16_t *out_port)
{
	return fwd_burst(c, in, pkts, n, out_port, 0, NULL, 0, 0, 0);
}

static uint16_t
fwd_burst_router(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		 uint16_t n, uint16_t *out_port)
{
	return fwd_burst(c, in, pkts, n, out_port, 0, NULL, 0, 1, 0);
}

/* Does a burst on port ip of a relay take the fast path (a cable with a
 * route cache)? */
static inline int
cable_with_cache(const struct dcn_fwd_ctx *c, const struct dcn_fwd_port *ip)
{
	return !c->router_mode && !ip->host && !ip->shared && c->cache != NULL;
}

uint16_t
dcn_fwd_burst(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
	      uint16_t n, uint16_t *out_port)
{
	const struct dcn_fwd_port *ip = &c->port[in];

	if (c->router_mode)
		return fwd_burst_router(c, in, pkts, n, out_port);
	if (cable_with_cache(c, ip))
		return fwd_burst_cable(c, in, pkts, n, out_port);
	return fwd_burst_relay(c, in, pkts, n, out_port);
}

uint16_t
dcn_fwd_burst_chan(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		   uint16_t n, uint16_t *out_port, uint32_t chan_word, uint16_t *taken)
{
	const struct dcn_fwd_port *ip = &c->port[in];
	uint16_t i;

	chan_word &= DCN_FWD_CHAN_BYTES;
	/* A fabric data frame's channel on a cable port with a cache: the
	 * fast path checks it with the rest. */
	if (cable_with_cache(c, ip) &&
	    ((chan_word ^ fast_data_tag(c)) & DCN_FWD_CHAN_BYTES & TYPE_VERSION_BYTES) == 0)
		return fwd_burst_cable_chan(c, in, pkts, n, out_port, chan_word, taken);
	/* Anything else: the channel's frames first found, then forwarded. */
	for (i = 0; i < n && of_chan(pkts[i], chan_word); i++)
		;
	*taken = i;
	return dcn_fwd_burst(c, in, pkts, i, out_port);
}

int
dcn_fwd_restep(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf *m, uint16_t *out,
	       int may_park)
{
	enum dcn_drop_reason why;
	uint16_t o = 0;

	c->park_off = (uint8_t)!may_park;
	why = fwd_one(c, &c->port[in], m, &o, 0);
	c->park_off = 0;
	if (unlikely(why != DCN_DROP_NONE)) {
		c->st.drop[why]++;
		rte_pktmbuf_free(m);
		return 0;
	}
	if (o < DCN_FWD_MAX_PORTS)
		c->out_frames[o]++;
	*out = o;
	return 1;
}
