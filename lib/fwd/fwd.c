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
	c->router_mode = dcn_topo_kind(t) == DCN_TOPO_DIAMOND;
	c->rng = c->node_addr | 1;
	c->host_port = -1;
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
	p->peer_mac = 0;
	memset(&p->peer_mac, 0xff, RTE_ETHER_ADDR_LEN);
	if (fabric_port >= 0)
		c->local_of[fabric_port] = (int16_t)idx;
	else if (c->host_port < 0)
		c->host_port = (int16_t)idx;
	c->n_ports++;
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

static inline void
write_eth(uint8_t *p, const struct dcn_fwd_port *out, const void *dst_mac,
	  uint16_t type)
{
	memcpy(p, dst_mac, RTE_ETHER_ADDR_LEN);
	memcpy(p + RTE_ETHER_ADDR_LEN, &out->mac, RTE_ETHER_ADDR_LEN);
	p[12] = (uint8_t)(type >> 8);
	p[13] = (uint8_t)type;
}

/* Can hop h be taken now? @return its local port, *mac its next hop's
 * MAC, or a negative drop reason. */
static inline int
hop_ready(struct dcn_fwd_ctx *c, const struct dcn_hop *h, uint64_t *mac)
{
	int local;

	if (h->port >= DCN_FWD_MAX_FABRIC_PORTS)
		return -DCN_DROP_NO_ROUTE;
	local = c->local_of[h->port];
	if (local < 0)
		return -DCN_DROP_NO_ROUTE;
	if (unlikely(__atomic_load_n(&c->port_down, __ATOMIC_RELAXED) >> local & 1))
		return -DCN_DROP_LINK_DOWN;
	if (c->port[local].shared) {
		const struct dcn_fwd_nbr *e = c->nbrs != NULL ?
			dcn_fwd_nbr_find(c->nbrs, h->next, h->port) : NULL;

		*mac = e != NULL ? __atomic_load_n(&e->mac, __ATOMIC_ACQUIRE) : 0;
		if (*mac == 0)
			return e != NULL && e->down ? -DCN_DROP_LINK_DOWN :
						      -DCN_DROP_NO_NEIGHBOUR;
	} else {
		*mac = __atomic_load_n(&c->port[local].peer_mac, __ATOMIC_ACQUIRE);
	}
	return local;
}

/*
 * The chosen hop's link is down and the table does not know yet: choose
 * again among the candidates whose links are up, with the same rule. The
 * candidate sets are the precomputed alternates: a node repairs its own
 * failed port before its table is recompiled.
 */
static int
choose_alternate(struct dcn_fwd_ctx *c, const struct dcn_hop *h, unsigned int n,
		 uint32_t draw, unsigned int *pick, uint64_t *mac)
{
	struct dcn_hop live[DCN_ROUTE_MAX_HOPS];
	uint8_t idx[DCN_ROUTE_MAX_HOPS];
	unsigned int k, m = 0;
	uint64_t dummy;

	for (k = 0; k < n && k < DCN_ROUTE_MAX_HOPS; k++)
		if (hop_ready(c, &h[k], &dummy) >= 0) {
			idx[m] = (uint8_t)k;
			live[m++] = h[k];
		}
	if (m == 0)
		return -DCN_DROP_LINK_DOWN;
	k = idx[dcn_route_pick(dcn_router_pick_mode(c->r), live, m, draw)];
	*pick = k;
	return hop_ready(c, &h[k], mac);
}

/* Choose among candidates and advance the packet's state; *mac gets the
 * next hop's MAC (8 readable bytes). @return the local output port, or a
 * negative drop reason. */
static int
choose(struct dcn_fwd_ctx *c, const struct dcn_hop *h, unsigned int n,
       uint32_t hash, struct dcn_route_state *st, uint64_t *mac)
{
	uint32_t draw = hash;
	unsigned int i;
	int local;

	if (c->per_packet)
		draw = (uint32_t)(dcn_rand(&c->rng) >> 32);
	i = dcn_route_pick(dcn_router_pick_mode(c->r), h, n, draw);
	local = hop_ready(c, &h[i], mac);
	if (unlikely(local == -DCN_DROP_LINK_DOWN) && n > 1)
		local = choose_alternate(c, h, n, draw, &i, mac);
	if (local < 0)
		return local;
	if (c->nbr_frames != NULL && c->port[local].shared)
		c->nbr_frames[dcn_fwd_nbr_find(c->nbrs, h[i].next, h[i].port) -
			      c->nbrs->slot]++;
	dcn_route_advance(c->r, c->node, &h[i], st);
	return local;
}

static enum dcn_drop_reason
encap(struct dcn_fwd_ctx *c, struct rte_mbuf *m,
      const struct dcn_frame_info *fi, uint16_t *out)
{
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	const struct dcn_hop *h;
	struct dcn_route_state st;
	struct dcn_fabric_hdr hdr;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	int64_t dst = dcn_topo_vertex_of(c->t, fi->ip_dst);
	unsigned int n;
	uint64_t mac = 0;
	int local;

	if (dst < 0 || (uint32_t)dst >= dcn_topo_servers(c->t))
		return DCN_DROP_NOT_IN_FABRIC;
	if ((uint32_t)dst == c->node) {
		/* For this node's own host: straight back. */
		if (c->host_port < 0)
			return DCN_DROP_NO_ROUTE;
		*out = (uint16_t)c->host_port;
		return DCN_DROP_NONE;
	}
	dcn_route_state_init(c->r, c->node, (uint32_t)dst, &st);
	n = dcn_rtable_lookup(c->tb, fi->ip_dst, &st, scratch, &h);
	if (n == 0)
		return DCN_DROP_NO_ROUTE;
	local = choose(c, h, n, flow_hash(p + fi->l3_off, c->node_addr,
					  fi->ip_dst), &st, &mac);
	if (local < 0)
		return (enum dcn_drop_reason)-local;
	if (dcn_fabric_hdr_from_state(c->t, &st, &hdr) < 0)
		return DCN_DROP_NO_ROUTE;
	/* Drop what follows the IPv4 packet (Ethernet padding). */
	if (rte_pktmbuf_data_len(m) > fi->l3_off + fi->l3_len)
		rte_pktmbuf_trim(m, rte_pktmbuf_data_len(m) - fi->l3_off - fi->l3_len);
	p = (uint8_t *)rte_pktmbuf_prepend(m, DCN_FABRIC_HDR_LEN);
	if (p == NULL)
		return DCN_DROP_BAD_LENGTH;
	hdr.type = DCN_FT_DATA;
	hdr.len = fi->l3_len;
	write_eth(p, &c->port[local], &mac, c->ethertype);
	dcn_fabric_write_hdr(p + DCN_ETHER_HDR_LEN, &hdr);
	*out = (uint16_t)local;
	c->st.encap++;
	return DCN_DROP_NONE;
}

static enum dcn_drop_reason
transit(struct dcn_fwd_ctx *c, struct rte_mbuf *m,
	const struct dcn_frame_info *fi, uint16_t *out)
{
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	const struct dcn_hop *h;
	struct dcn_route_state st;
	struct dcn_fabric_hdr hdr = fi->hdr;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	unsigned int n;
	uint64_t mac = 0;
	int local;

	if (dcn_fabric_state_from_hdr(c->t, &fi->hdr, &st) < 0)
		return DCN_DROP_NOT_IN_FABRIC;
	if (st.dst == c->node) {
		/* Last relay: take the fabric header off, to the host. */
		if (c->host_port < 0)
			return DCN_DROP_NO_ROUTE;
		if (rte_pktmbuf_data_len(m) > fi->l3_off + fi->l3_len)
			rte_pktmbuf_trim(m, rte_pktmbuf_data_len(m) - fi->l3_off -
					 fi->l3_len);
		p = (uint8_t *)rte_pktmbuf_adj(m, DCN_FABRIC_HDR_LEN);
		if (p == NULL)
			return DCN_DROP_BAD_LENGTH;
		{
			uint64_t hm = __atomic_load_n(&c->port[c->host_port].peer_mac,
						      __ATOMIC_ACQUIRE);

			write_eth(p, &c->port[c->host_port], &hm, DCN_ETHERTYPE_IPV4);
		}
		*out = (uint16_t)c->host_port;
		c->st.decap++;
		return DCN_DROP_NONE;
	}
	if (fi->hdr.ttl <= 1)
		return DCN_DROP_TTL_EXPIRED;
	n = dcn_rtable_lookup(c->tb, fi->hdr.dst, &st, scratch, &h);
	if (n == 0)
		return DCN_DROP_NO_ROUTE;
	local = choose(c, h, n, flow_hash(p + fi->l3_off, fi->hdr.src,
					  fi->hdr.dst), &st, &mac);
	if (local < 0)
		return (enum dcn_drop_reason)-local;
	if (dcn_fabric_hdr_from_state(c->t, &st, &hdr) < 0)
		return DCN_DROP_NO_ROUTE;
	hdr.type = DCN_FT_DATA;
	hdr.len = fi->hdr.len;
	write_eth(p, &c->port[local], &mac, c->ethertype);
	dcn_fabric_write_hdr(p + DCN_ETHER_HDR_LEN, &hdr);
	*out = (uint16_t)local;
	c->st.transit++;
	return DCN_DROP_NONE;
}

/* Diamond switch: an IPv4 router by FAR. */
static enum dcn_drop_reason
route_ipv4(struct dcn_fwd_ctx *c, struct rte_mbuf *m,
	   const struct dcn_frame_info *fi, uint16_t *out)
{
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	const struct dcn_hop *h;
	struct dcn_route_state st;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = p + fi->l3_off;
	unsigned int n;
	uint64_t mac = 0;
	int local;

	if (ip[8] <= 1)
		return DCN_DROP_TTL_EXPIRED;
	dcn_route_state_init(c->r, c->node, c->node, &st);
	n = dcn_rtable_lookup(c->tb, fi->ip_dst, &st, scratch, &h);
	if (n == 0) {
		int64_t v = dcn_topo_vertex_of(c->t, fi->ip_dst);

		return v < 0 || (uint32_t)v >= dcn_topo_servers(c->t) ?
			       DCN_DROP_NOT_IN_FABRIC : DCN_DROP_NO_ROUTE;
	}
	local = choose(c, h, n, flow_hash(ip, fi->ip_src, fi->ip_dst), &st, &mac);
	if (local < 0)
		return (enum dcn_drop_reason)-local;
	dcn_ipv4_dec_ttl(ip);
	write_eth(p, &c->port[local], &mac, DCN_ETHERTYPE_IPV4);
	*out = (uint16_t)local;
	c->st.transit++;
	return DCN_DROP_NONE;
}

static inline int
mac_is_ours(const struct rte_mbuf *m, const struct dcn_fwd_port *p)
{
	return rte_is_same_ether_addr(rte_pktmbuf_mtod(m, const struct rte_ether_addr *),
				      &p->mac);
}

uint16_t
dcn_fwd_burst(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
	      uint16_t n, uint16_t *out_port)
{
	const struct dcn_fwd_port *ip = &c->port[in];
	uint16_t i, keep = 0;

	c->st.rx += n;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct dcn_frame_info fi;
		enum dcn_drop_reason why;
		uint16_t out = 0;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (m->nb_segs != 1) {
			why = DCN_DROP_BAD_LENGTH;
		} else {
			const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
			/* A Diamond switch takes IPv4 on every port, and
			 * fabric control (hellos) on its switch-facing ones. */
			int as_host = ip->host ||
				      (c->router_mode && rte_pktmbuf_data_len(m) >= 14 &&
				       (e[12] << 8 | e[13]) != c->ethertype);

			dcn_fabric_classify(e, rte_pktmbuf_data_len(m), as_host,
					    c->ethertype, &fi);
			switch (fi.cls) {
			case DCN_FC_FABRIC_DATA:
				if (c->router_mode)
					why = DCN_DROP_BAD_TYPE;
				else if (ip->shared && !mac_is_ours(m, ip))
					why = DCN_DROP_NOT_OUR_MAC;
				else
					why = transit(c, m, &fi, &out);
				break;
			case DCN_FC_HOST_IPV4:
				why = c->router_mode ? route_ipv4(c, m, &fi, &out)
						     : encap(c, m, &fi, &out);
				break;
			case DCN_FC_FABRIC_CONTROL:
				out = DCN_FWD_CONTROL;
				c->st.control++;
				why = DCN_DROP_NONE;
				break;
			case DCN_FC_OTHER:
				/* A host's ARP is for the control thread,
				 * which answers for fabric addresses. */
				if (ip->host && (e[12] << 8 | e[13]) == DCN_ETHERTYPE_ARP) {
					out = DCN_FWD_CONTROL;
					c->st.control++;
					why = DCN_DROP_NONE;
				} else {
					why = DCN_DROP_UNKNOWN_ETHERTYPE;
				}
				break;
			default:
				why = fi.reason;
				break;
			}
		}
		if (why != DCN_DROP_NONE) {
			c->st.drop[why]++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (out < DCN_FWD_MAX_PORTS)
			c->out_frames[out]++;
		pkts[keep] = m;
		out_port[keep++] = out;
	}
	return keep;
}
