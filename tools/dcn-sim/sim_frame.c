/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-sim's frames: a server's IPv4/UDP packet stamped with its flow,
 * sequence, send time and the links it crossed, at its payload's end,
 * where no header the fabric adds or takes off moves it.
 */
#include <string.h>

#include <rte_mbuf.h>

#include "dcn_gen.h"
#include "sim_priv.h"

/* The stamp's mark in the payload, after the UDP header. */
#define SIM_STAMP_MAGIC 0x6463736du     /* "dcsm" */
/* Before the stamp: the headers and dcn-gen's own stamp (12 bytes). */
#define SIM_HDRS (DCN_GEN_HDRS + 12)

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
sim_frame(struct sim_fabric *f, uint32_t src, uint32_t dst, uint16_t len, uint16_t sport,
	  const struct sim_stamp *st)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(f->mp);
	struct sim_stamp_wire w;
	struct dcn_gen_conf gc;
	uint32_t sv = f->server_vertex[src];

	if (m == NULL)
		return NULL;
	if (len < SIM_HDRS + sizeof(w))
		len = SIM_HDRS + sizeof(w);
	/* The frame a host's dcn-gen, and the emulation's hosts, send: to
	 * whoever is at the other end of the server's NIC, the flow its
	 * UDP source port (what the relays hash a flow's route by). */
	memset(&gc, 0, sizeof(gc));
	gc.src_addr = dcn_topo_addr(f->t, sv);
	gc.frame_len = len;
	sim_port_mac(&gc.src_mac, sv, SIM_PORT_HOST);
	memset(&gc.dst_mac, 0xff, sizeof(gc.dst_mac));
	dcn_gen_write(&gc, m, dcn_topo_addr(f->t, f->server_vertex[dst]), sport, st->seq,
		      st->sent_ps);
	if (rte_pktmbuf_data_len(m) != len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
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

