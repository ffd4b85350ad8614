/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the step writes into a frame: Ethernet headers, the fabric header
 * a hop leaves with (hdr_image), and the encapsulating, passing on,
 * decapsulating and routing rewrites. Private to lib/fwd; inline in the
 * step.
 */
#ifndef DCN_FWD_REWRITE_H
#define DCN_FWD_REWRITE_H

#include <string.h>

#include <rte_byteorder.h>

#include "dcn_fwd.h"

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

#endif /* DCN_FWD_REWRITE_H */
