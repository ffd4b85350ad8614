/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-sim's frames: a server's IPv4/UDP packet stamped with its flow,
 * sequence, send time and the links it crossed, at its payload's end,
 * where no header the fabric adds or takes off moves it.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "sim_priv.h"

/* The stamp's mark in the payload, after the UDP header. */
#define SIM_STAMP_MAGIC 0x6463736du     /* "dcsm" */
#define SIM_HDRS (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + \
		  sizeof(struct rte_udp_hdr))
#define SIM_UDP_PORT 4791

/* The stamp's bytes: after the UDP header. */
struct sim_stamp_wire {
	uint32_t magic;
	uint32_t flow;
	uint32_t seq;
	uint16_t hops;
	uint16_t pad;
	uint64_t sent_ps;
} __attribute__((packed));

struct rte_mbuf *
sim_frame(struct sim_fabric *f, uint32_t src, uint32_t dst, uint16_t len,
	  const struct sim_stamp *st)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(f->mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct sim_stamp_wire w;
	uint32_t sv = f->server_vertex[src];

	if (m == NULL)
		return NULL;
	if (len < SIM_HDRS + sizeof(w))
		len = SIM_HDRS + sizeof(w);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eh, 0, len);
	/* to whoever is at the other end of the server's NIC */
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	sim_port_mac(&eh->src_addr, sv, SIM_PORT_HOST);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(dcn_topo_addr(f->t, sv));
	ip->dst_addr = rte_cpu_to_be_32(dcn_topo_addr(f->t, f->server_vertex[dst]));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	/* a flow's own source port: the fabric's entropy, as a host's */
	udp->src_port = rte_cpu_to_be_16((uint16_t)(1024 + st->flow % 60000));
	udp->dst_port = rte_cpu_to_be_16(SIM_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN -
						     sizeof(*ip)));
	w.magic = SIM_STAMP_MAGIC;
	w.flow = st->flow;
	w.seq = st->seq;
	w.hops = st->hops;
	w.pad = 0;
	w.sent_ps = st->sent_ps;
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, len - sizeof(w)), &w, sizeof(w));
	return m;
}

/* The stamp is the frame's last bytes: wherever the fabric's headers
 * go on the way (after the Ethernet header, or outer IPv4/UDP ones), the
 * payload's end stays where it was. */
static uint8_t *
stamp_at(const struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_data_len(m);

	if (m->nb_segs != 1 || len < SIM_HDRS + sizeof(struct sim_stamp_wire))
		return NULL;
	return rte_pktmbuf_mtod_offset(m, uint8_t *, len - sizeof(struct sim_stamp_wire));
}

int
sim_frame_stamp(const struct rte_mbuf *m, struct sim_stamp *st)
{
	const uint8_t *p = stamp_at(m);
	struct sim_stamp_wire w;

	if (p == NULL)
		return -1;
	memcpy(&w, p, sizeof(w));
	if (w.magic != SIM_STAMP_MAGIC)
		return -1;
	st->sent_ps = w.sent_ps;
	st->flow = w.flow;
	st->seq = w.seq;
	st->hops = w.hops;
	return 0;
}

void
sim_frame_hop(struct rte_mbuf *m)
{
	uint8_t *p = stamp_at(m);
	struct sim_stamp_wire w;

	if (p == NULL)
		return;
	memcpy(&w, p, sizeof(w));
	if (w.magic != SIM_STAMP_MAGIC)
		return;
	w.hops++;
	memcpy(p, &w, sizeof(w));
}

uint32_t
sim_frame_len(const struct rte_mbuf *m)
{
	return rte_pktmbuf_pkt_len(m);
}

const uint8_t *
sim_frame_data(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const uint8_t *);
}

void
sim_frame_free(struct rte_mbuf *m)
{
	rte_pktmbuf_free(m);
}

