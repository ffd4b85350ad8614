/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A forwarding context: set up, and its ports added (dcn_fwd.h).
 */
#include <errno.h>
#include <string.h>

#include "dcn_fwd.h"

uint64_t (*dcn_fwd_clock_source)(void);

void
dcn_fwd_set_clock(uint64_t (*fn)(void))
{
	dcn_fwd_clock_source = fn;
}

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
