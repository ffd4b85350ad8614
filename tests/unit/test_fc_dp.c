/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fc's data path on real mbufs (EAL with --no-huge), no application:
 * relay (1,0) of NovaCube k=4, n=2 under DOR, each of its ports a ring
 * pair (lib/port), two workers. Host packets received by a worker that
 * does not own the host port wait in the input queue until the owner
 * routes them into an output queue, where they wait for the peer's
 * credits, and leave on the port's ring once a credit frame comes; a
 * full input queue drops and counts; credits run out and come back; a
 * lost credit frame is repaired by the next; a port whose link goes down
 * drops what waits for it, counted, and gives its internal credits back.
 * Then relay 00 of RRect(4,2,1), whose two ports each reach three
 * neighbours through an L2 switch: a link per neighbour, frames told
 * apart by MAC, credits per neighbour, credit frames unicast to each.
 * Every test ends with the mempool at its baseline.
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "test_common.h"
#include "test_eal.h"
#include "dcn_fc_dp.h"
#include "dcn_fwd.h"

/* A test's credit frame (two VCs), or any frame that may be one. */
#define CREDIT_FRAME RTE_MAX(60u, DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_FC_CREDIT_LEN(2))

static struct rte_mempool *mp;
static const struct rte_ether_addr mac0 = { { 0x02, 0, 0, 0, 0, 1 } };

#define IN_QUEUE 64
#define GRANT 51        /* 64 less a 20% reserve */
/* What a lone VC of the fixture's two may send of a link's grant of 51:
 * all but the other's private share (lib/fc/README.md, "One pool a
 * link"). */
#define WIN (GRANT - GRANT / 8)
/* A grant whose lone VC's window is GRANT: 58 - 58 / 8. */
#define GRANT_WIN 58

struct fix {
	struct dcn_topo *t;
	struct dcn_router *r;
	struct dcn_rtable *tb;
	struct dcn_fwd_ctx fwd[2];
	struct dcn_fc_node *fn;
	struct dcn_fc_dp dp;
	struct dcn_fc_worker w[2];
	struct dcn_fc_wnode x[2];
	struct dcn_port port[DCN_FC_MAX_PORTS];
	uint16_t n_ports, host;
	uint32_t node;
	unsigned int base;
	/* the flow-control node as made, to make it again (a restart) */
	struct dcn_fc_conf conf;
	uint8_t kind[DCN_FC_MAX_PORTS];
	uint16_t links[DCN_FC_MAX_PORTS];
};

static struct fix f;
/* Lanes the next fixture's node keeps (RX queues of a port). */
static unsigned int fix_lanes = 1;

static struct dcn_fwd_nbrs sw_nbrs;

/* A neighbour's MAC: named after its vertex and our port behind which it
 * is. */
static struct rte_ether_addr
nbr_mac(const struct dcn_fwd_nbr *e)
{
	struct rte_ether_addr m = { { 0x02, 0x10, 0, (uint8_t)(e->vertex >> 8),
				      (uint8_t)e->vertex, (uint8_t)e->fabric_port } };

	return m;
}

static struct rte_ring *
ring(const char *what, unsigned int i)
{
	char name[32];
	struct rte_ring *r;

	snprintf(name, sizeof(name), "t_%s%u", what, i);
	r = rte_ring_create(name, 1024, 0, 0);
	assert_non_null(r);
	return r;
}

/* The fixture's flow-control node and its data path, made anew: worker
 * 1 owns every port; worker 0 only receives. */
static void
fix_fc_make(void)
{
	unsigned int i;

	f.fn = dcn_fc_node_create("t-dp", f.node, f.n_ports, f.kind, f.links, NULL,
				  &f.conf);
	assert_non_null(f.fn);
	memset(&f.dp, 0, sizeof(f.dp));
	assert_int_equal(dcn_fc_dp_init(&f.dp, f.fn, mp, DCN_FABRIC_ETHERTYPE, 32,
					 8, 1000), 0);
	for (i = 0; i < f.n_ports; i++)
		dcn_fc_dp_set_port(&f.dp, (uint16_t)i, &f.port[i], 1);
}

/* The relay node of spec, as routed by algo, with two workers' contexts
 * and its flow-control node; nb non-NULL: every fabric port is on an L2
 * switch, its neighbours in nb (filled here, each with a MAC of its own),
 * else every fabric port is a cable. */
static void
fix_build(const char *spec, enum dcn_route_algo algo, const char *node,
	  struct dcn_fwd_nbrs *nb)
{
	struct dcn_fc_conf conf = { .in_queue = IN_QUEUE, .out_queue = 64,
				    .reserve_pct = 20, .n_vcs = 2,
				    .n_lanes = fix_lanes };
	uint8_t kind[DCN_FC_MAX_PORTS];
	uint16_t links[DCN_FC_MAX_PORTS];
	int16_t fport[DCN_FC_MAX_PORTS];
	struct dcn_adj a[16];
	unsigned int n, i, k;

	memset(&f, 0, sizeof(f));
	f.base = rte_mempool_in_use_count(mp);
	f.t = topo_or_fail(spec);
	f.r = router_or_fail(f.t, algo);
	f.node = vertex_or_fail(f.t, node);
	f.tb = dcn_rtable_compile(f.r, f.node);
	assert_non_null(f.tb);
	if (nb != NULL) {
		assert_int_equal(dcn_fwd_nbrs_init(nb, f.t, f.node), 0);
		for (i = 0; i <= nb->mask; i++)
			if (nb->slot[i].vertex != DCN_FWD_NBR_EMPTY) {
				struct rte_ether_addr m = nbr_mac(&nb->slot[i]);

				dcn_fwd_nbr_set_mac(&nb->slot[i], &m);
			}
	}
	n = dcn_topo_adj(f.t, f.node, a);
	for (k = 0; k < 2; k++) {
		assert_int_equal(dcn_fwd_init(&f.fwd[k], f.r, f.tb,
					      DCN_FABRIC_ETHERTYPE, 0), 0);
		for (i = 0; i < n; i++)
			assert_int_equal(dcn_fwd_add_port(&f.fwd[k], a[i].port, 0,
							  &mac0), (int)i);
		assert_int_equal(dcn_fwd_add_port(&f.fwd[k], -1, 1, &mac0), (int)n);
		if (nb != NULL) {
			dcn_fwd_set_nbrs(&f.fwd[k], nb);
			dcn_fwd_set_peer_mac(&f.fwd[k], (uint16_t)n, &mac0);
		} else {
			for (i = 0; i <= n; i++)
				dcn_fwd_set_peer_mac(&f.fwd[k], (uint16_t)i, &mac0);
		}
	}
	f.n_ports = (uint16_t)(n + 1);
	f.host = (uint16_t)n;
	for (i = 0; i < f.n_ports; i++) {
		kind[i] = i == f.host ? DCN_FC_PORT_HOST :
			  nb != NULL  ? DCN_FC_PORT_SWITCH : DCN_FC_PORT_CREDIT;
		fport[i] = i == f.host ? -1 : (int16_t)a[i].port;
		links[i] = kind[i] == DCN_FC_PORT_SWITCH ?
				   (uint16_t)dcn_fwd_nbrs_on_port(nb, a[i].port) : 1;
		f.port[i].nb_rxq = f.port[i].nb_txq = 1;
		f.port[i].tx_ring[0] = ring("tx", i);
		f.port[i].rx_ring[0] = ring("rx", i);
	}
	f.conf = conf;
	memcpy(f.kind, kind, sizeof(kind));
	memcpy(f.links, links, sizeof(links));
	fix_fc_make();
	if (nb != NULL)
		assert_int_equal(dcn_fc_dp_bind_nbrs(&f.dp, nb, f.t, fport), 0);
	for (k = 0; k < 2; k++) {
		assert_int_equal(dcn_fc_worker_init(&f.w[k], k, f.fn->n_chans), 0);
		f.x[k].dp = &f.dp;
		f.x[k].w = &f.w[k];
		f.x[k].fwd = &f.fwd[k];
	}
}

/* Relay (1,0) of NovaCube k=4, n=2 under DOR: cables. */
static int
fix_open(void **state)
{
	(void)state;
	fix_lanes = 1;
	fix_build("novacube:k=4,n=2", DCN_ALGO_DOR, "(1,0)", NULL);
	return 0;
}

/* The same with two RX queues a port: worker 1 owns every port and
 * routes lane 0, worker 0 routes lane 1 (it polls queue 1). */
static int
fix_open_lanes(void **state)
{
	unsigned int i;

	(void)state;
	fix_lanes = 2;
	fix_build("novacube:k=4,n=2", DCN_ALGO_DOR, "(1,0)", NULL);
	fix_lanes = 1;
	for (i = 0; i < f.n_ports; i++)
		dcn_fc_dp_set_lane(&f.dp, (uint16_t)i, 1, 0);
	return 0;
}

/* Lanes, and worker 0 a sender of its own on every port (sender 1): it
 * sends what it routes, worker 1 (the owner) what it routes. */
static int
fix_open_senders(void **state)
{
	unsigned int i;

	fix_open_lanes(state);
	for (i = 0; i < f.n_ports; i++)
		assert_int_equal(dcn_fc_dp_set_sender(&f.dp, &f.x[0], (uint16_t)i, 1), 0);
	return 0;
}

static void
drain(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static int
fix_close(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++)
		dcn_fc_worker_fini(&f.w[i]);
	dcn_fc_dp_release(&f.dp);
	dcn_fc_node_free(f.fn);
	for (i = 0; i < f.n_ports; i++) {
		drain(f.port[i].tx_ring[0]);
		drain(f.port[i].rx_ring[0]);
		rte_ring_free(f.port[i].tx_ring[0]);
		rte_ring_free(f.port[i].rx_ring[0]);
	}
	dcn_rtable_free(f.tb);
	dcn_router_free(f.r);
	dcn_topo_free(f.t);
	assert_int_equal(rte_mempool_in_use_count(mp), f.base);
	return 0;
}

/* A host's IPv4/UDP packet to dst, as the host port receives it. */
static struct rte_mbuf *
host_packet(uint32_t dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, 60));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, 60);
	memcpy(p, &mac0, 6);
	memcpy(p + 6, &mac0, 6);
	dcn_fabric_put16(p + 12, DCN_ETHERTYPE_IPV4);
	p[14] = 0x45;
	dcn_fabric_put16(p + 16, 46);
	p[22] = 64;
	p[23] = 17;
	dcn_fabric_put32(p + 26, dcn_topo_addr(f.t, f.node));
	dcn_fabric_put32(p + 30, dst);
	dcn_fabric_put16(p + 34, 1000);
	dcn_fabric_put16(p + 36, 2000);
	return m;
}

/* A broadcast ARP frame. */
static struct rte_mbuf *
arp_frame(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, 60));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0xff, 6);
	memset(p + 6, 0, 54);
	dcn_fabric_put16(p + 12, DCN_ETHERTYPE_ARP);
	return m;
}

/* The local port DOR takes from the relay to dst, and dst's address. */
static uint16_t
out_port_to(const char *dst, uint32_t *addr)
{
	uint32_t v = vertex_or_fail(f.t, dst);
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;

	dcn_route_state_init(f.r, f.node, v, &st);
	assert_int_equal(dcn_route_candidates(f.r, f.node, v, &st, h), 1);
	*addr = dcn_topo_addr(f.t, v);
	return (uint16_t)f.fwd[0].local_of[h[0].port];
}

/* n host packets to addr, received by worker k on the host port. */
static uint16_t
receive_host(unsigned int k, uint32_t addr, unsigned int n)
{
	struct rte_mbuf *m[DCN_FC_BURST_MAX];
	unsigned int i;

	for (i = 0; i < n; i++)
		m[i] = host_packet(addr);
	return dcn_fc_rx(&f.x[k], f.host, m, (uint16_t)n);
}

/* A fabric frame of CREDIT_FRAME bytes, MACs zero: header h, and when cr
 * is not NULL the credit payload cr after it. */
static struct rte_mbuf *
fabric_mbuf(const struct dcn_fabric_hdr *h, const struct dcn_fc_credit *cr)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, CREDIT_FRAME));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, CREDIT_FRAME);
	dcn_fabric_put16(p + 12, DCN_FABRIC_ETHERTYPE);
	dcn_fabric_write_hdr(p + DCN_ETHER_HDR_LEN, h);
	if (cr != NULL)
		dcn_fc_write_credit(p + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, cr);
	return m;
}

/* A credit frame carrying cr, MACs zero. */
static struct rte_mbuf *
credit_mbuf(const struct dcn_fc_credit *cr)
{
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_CREDIT,
				    .len = (uint16_t)DCN_FC_CREDIT_LEN(cr->n_vcs) };

	return fabric_mbuf(&h, cr);
}

/* The credit payload of frame p (Ethernet, fabric header, payload). */
static void
frame_credit(const uint8_t *p, struct dcn_fc_credit *cr)
{
	dcn_fc_read_credit(p + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			   dcn_fabric_get16(p + DCN_ETHER_HDR_LEN + 6), cr);
}

/* The peer behind local port o says, in a credit frame that worker 1
 * receives, that its input queues took arrived[vc] and freed them all,
 * and granted grant. */
static void
credit_word(uint16_t o, uint32_t epoch, uint32_t grant, const uint32_t *arrived)
{
	struct dcn_fc_credit cr = { .epoch = epoch, .grant = grant, .n_vcs = 2,
				    .freed = { arrived[0], arrived[1] },
				    .arrived = { arrived[0], arrived[1] } };
	struct rte_mbuf *m = credit_mbuf(&cr);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	memcpy(p, &mac0, 6);
	memcpy(p + 6, &mac0, 6);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
}

/* The same for VC 0 alone: freed0 arrived and freed. */
static void
credit_from_peer(uint16_t o, uint32_t epoch, uint32_t grant, uint32_t freed0)
{
	const uint32_t arrived[2] = { freed0, 0 };

	credit_word(o, epoch, grant, arrived);
}

static unsigned int
on_wire(uint16_t o)
{
	return rte_ring_count(f.port[o].tx_ring[0]);
}

/*
 * A burst through every step: received by worker 0 into the host port's
 * input queue; routed by the owner into the output queue of (port, VC 0),
 * where it waits, since the peer has granted nothing yet; sent once a
 * credit frame grants room. The input's internal credits come back as
 * the frames leave.
 */
/* Room input in has in output channel out's queue (its lane 0's, with
 * nothing staged), and what the dynamic threshold gives an input that
 * holds used there of a queue holding occ: the model. */
static uint32_t
room_of(const struct dcn_fc_chan *out, const struct dcn_fc_chan *in, uint32_t in_idx,
	uint32_t oc)
{
	return dcn_fc_ic_room(out, out, in, in_idx, oc, 0);
}

static uint32_t
dt_room(const struct dcn_fc_chan *out, uint32_t occ, uint32_t used)
{
	return occ + used < out->out_admit ? (out->out_admit - occ - used + 1) / 2 : 0;
}

/* What a lone input holds at most in an output queue: half of it. */
#define SHARE(out) ((out)->out_admit / 2)

static void
test_burst_through_queues(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	uint32_t in_idx = f.host * f.fn->n_vcs;

	(void)state;
	assert_int_equal(receive_host(0, addr, 20), 0);
	assert_int_equal(rte_ring_count(in->in_q), 20);
	assert_int_equal(on_wire(o), 0);
	/* Worker 0 owns nothing: routing is the owner's. */
	assert_int_equal(dcn_fc_route(&f.x[1], f.host), 20);
	assert_int_equal(in->freed, 20);
	assert_int_equal(rte_ring_count(in->in_q), 0);
	assert_int_equal(rte_ring_count(out->out_q), 20);
	assert_int_equal(room_of(out, in, in_idx, o * f.fn->n_vcs), dt_room(out, 20, 20));
	/* No credit yet: nothing leaves, the stall is counted. */
	assert_int_equal(dcn_fc_send(&f.x[1], o), 0);
	assert_true(out->stalls > 0);
	credit_from_peer(o, 7, GRANT, 0);
	assert_int_equal(dcn_fc_credits(out), WIN);
	assert_int_equal(dcn_fc_send(&f.x[1], o), 20);
	assert_int_equal(on_wire(o), 20);
	assert_int_equal(f.x[1].st[o].tx, 20);
	assert_int_equal(dcn_fc_credits(out), WIN - 20);
	assert_int_equal(room_of(out, in, in_idx, o * f.fn->n_vcs), SHARE(out));
	assert_int_equal(f.fwd[1].st.encap, 20);
}

/* What a sender does for n frames of input in_idx that left output
 * channel out: give their internal credits back. */
static void
ic_give_back(struct dcn_fc_chan *out, uint32_t in_idx, uint32_t n)
{
	out->ic_returned[in_idx] += n;
}

/*
 * An output queue filled past what it admits (here behind the data
 * path's back, as by frames another worker staged): a routed burst finds
 * no room there and waits in its input's held list, nothing dropped as
 * overflow; it goes once the queue drains.
 */
static void
test_output_full_holds(void **state)
{
	static int filler[4096];
	static void *fill[4096], *got[4096 + 20];
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	uint32_t in_idx = f.host * f.fn->n_vcs, oc = o * f.fn->n_vcs;
	unsigned int nfill, n, i;

	(void)state;
	nfill = rte_ring_free_count(out->out_q) - 5;
	assert_true(nfill <= RTE_DIM(fill));
	assert_true(nfill >= SHARE(out));
	for (i = 0; i < nfill; i++)
		fill[i] = &filler[i];
	assert_int_equal(rte_ring_enqueue_bulk(out->out_q, fill, nfill, NULL), nfill);
	assert_int_equal(receive_host(0, addr, 20), 0);
	dcn_fc_route(&f.x[1], f.host);
	assert_int_equal(f.w[1].overflow, 0);
	assert_int_equal(in->held_n, 20);
	assert_int_equal(rte_ring_count(out->out_q), nfill);
	assert_int_equal(room_of(out, in, in_idx, oc), 0);
	n = rte_ring_dequeue_burst(out->out_q, got, RTE_DIM(got), NULL);
	assert_int_equal(n, nfill);
	dcn_fc_route(&f.x[1], f.host);
	assert_int_equal(in->held_n, 0);
	assert_int_equal(in->freed, 20);
	assert_int_equal(f.w[1].overflow, 0);
	n = rte_ring_dequeue_burst(out->out_q, got, RTE_DIM(got), NULL);
	assert_int_equal(n, 20);
	rte_pktmbuf_free_bulk((struct rte_mbuf **)got, n);
	ic_give_back(out, in_idx, n);
	assert_int_equal(room_of(out, in, in_idx, oc), SHARE(out));
}

/*
 * A host port's burst is one channel's (VC 0) but for its ARP frames,
 * whatever the packets' TOS bytes (mixed DSCP and ECN marks, which a
 * fabric frame's channel word would tell apart), and a runt whose stale
 * bytes 12-13 read ARP is data too. Frames a worker that does not route
 * the port receives wait in the input queue in their order; only the
 * ARP frame comes back to the caller, for the direct path.
 */
static void
test_host_burst_one_chan(void **state)
{
	static const uint8_t tos[] = { 0x00, 0x01, 0x03, 0xb8, 0x70, 0x02 };
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	struct rte_mbuf *m[DCN_FC_BURST_MAX], *sent[2 * DCN_FC_BURST_MAX];
	struct rte_mbuf *got[2 * DCN_FC_BURST_MAX];
	unsigned int i, n = 40, queued = 0; /* 45 in all: within IN_QUEUE */
	uint32_t addr;

	(void)state;
	out_port_to("(2,0)", &addr);
	for (i = 0; i < n; i++) {
		m[i] = host_packet(addr);
		rte_pktmbuf_mtod(m[i], uint8_t *)[15] = tos[i % RTE_DIM(tos)];
		sent[queued++] = m[i];
	}
	assert_int_equal(dcn_fc_rx(&f.x[0], f.host, m, (uint16_t)n), 0);
	/* Then ARP among packets, and the runt. */
	for (i = 0; i < 6; i++)
		m[i] = host_packet(addr);
	rte_pktmbuf_free(m[2]);
	m[2] = arp_frame();
	dcn_fabric_put16(rte_pktmbuf_mtod(m[4], uint8_t *) + 12, DCN_ETHERTYPE_ARP);
	rte_pktmbuf_trim(m[4], rte_pktmbuf_data_len(m[4]) - 10);
	for (i = 0; i < 6; i++)
		if (i != 2)
			sent[queued++] = m[i];
	{
		struct rte_mbuf *arp = m[2];

		assert_int_equal(dcn_fc_rx(&f.x[0], f.host, m, 6), 1);
		assert_ptr_equal(m[0], arp);
		rte_pktmbuf_free(arp);
	}
	assert_int_equal(in->arrived, queued);
	assert_int_equal(rte_ring_dequeue_burst(in->in_q, (void **)got, queued, NULL),
			 queued);
	for (i = 0; i < queued; i++)
		assert_ptr_equal(got[i], sent[i]);
	rte_pktmbuf_free_bulk(got, queued);
}

/*
 * A host port's input queue refuses what does not fit, counted as
 * in_drop, and frees those mbufs; what fits stays queued.
 */
static void
test_full_input_queue(void **state)
{
	uint32_t addr;
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	unsigned int i;

	(void)state;
	out_port_to("(2,0)", &addr);
	for (i = 0; i < 3; i++)
		assert_int_equal(receive_host(0, addr, 32), 0);
	assert_int_equal(rte_ring_count(in->in_q), IN_QUEUE);
	assert_int_equal(f.x[0].st[f.host].in_drop, 3 * 32 - IN_QUEUE);
}

/*
 * With the owner receiving (cut-through), frames beyond the peer's grant
 * wait in the output queue; the peer's next credit frame, freeing what it
 * took, lets the rest go.
 */
static void
test_credits_exhausted_and_returned(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	unsigned int sent = 0, i;

	(void)state;
	credit_from_peer(o, 7, GRANT, 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(receive_host(1, addr, 32), 0);
	sent += dcn_fc_send(&f.x[1], o);
	assert_int_equal(on_wire(o), WIN);
	assert_int_equal(dcn_fc_credits(out), 0);
	assert_int_equal(rte_ring_count(out->out_q), 64 - WIN);
	assert_int_equal(dcn_fc_send(&f.x[1], o), 0);
	/* The peer freed the first 40. */
	credit_from_peer(o, 7, GRANT, 40);
	assert_int_equal(dcn_fc_send(&f.x[1], o), 64 - WIN);
	assert_int_equal(on_wire(o), 64);
	assert_int_equal(dcn_fc_credits(out), WIN - (64 - 40));
	(void)sent;
}

/* Host packets to addr[i % n_addr] numbered from seq (in the UDP source
 * port), received by worker k on the host port as one burst. */
static uint16_t
receive_host_numbered(unsigned int k, const uint32_t *addr, unsigned int n_addr,
		      unsigned int n, uint16_t seq)
{
	struct rte_mbuf *m[DCN_FC_BURST_MAX];
	unsigned int i;

	for (i = 0; i < n; i++) {
		m[i] = host_packet(addr[i % n_addr]);
		dcn_fabric_put16(rte_pktmbuf_mtod(m[i], uint8_t *) + 34,
				 (uint16_t)(seq + i));
	}
	return dcn_fc_rx(&f.x[k], f.host, m, (uint16_t)n);
}

/* Take what port o has sent off its ring, checking that the packets come
 * in the order they were numbered: *next, then step by step. @return how
 * many. */
static unsigned int
wire_in_order(uint16_t o, uint16_t *next, uint16_t step)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&m) == 0) {
		/* encapsulated: the host packet after the fabric header */
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *) +
				   DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;

		assert_int_equal(dcn_fabric_get16(p + 34 - DCN_ETHER_HDR_LEN), *next);
		*next = (uint16_t)(*next + step);
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/*
 * The owner's cut-through sends a burst whole when the peer's credits
 * cover it; what the port does not take (its ring full) waits in the
 * output queue, in order, under the input's share, and leaves later.
 */
static void
test_cut_through_port_full(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr), next = 0;
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	uint32_t in_idx = f.host * f.fn->n_vcs, oc = o * f.fn->n_vcs;
	struct rte_ring *small = rte_ring_create("t_small", 8, 0, 0);
	struct rte_mbuf *fill[2];
	unsigned int seen = 0;

	(void)state;
	assert_non_null(small);
	rte_ring_free(f.port[o].tx_ring[0]);
	f.port[o].tx_ring[0] = small;             /* 7 slots; 2 taken */
	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, fill, 2), 0);
	assert_int_equal(rte_ring_enqueue_bulk(small, (void **)fill, 2, NULL), 2);
	credit_from_peer(o, 7, GRANT, 0);
	assert_int_equal(receive_host_numbered(1, &addr, 1, 20, 0), 0);
	assert_int_equal(in->freed, 20);
	assert_int_equal(on_wire(o), 7);
	assert_int_equal(f.x[1].st[o].tx, 5);
	assert_int_equal(dcn_fc_credits(out), WIN - 5);
	assert_int_equal(rte_ring_count(out->out_q), 15);
	assert_int_equal(room_of(out, in, in_idx, oc), dt_room(out, 15, 15));
	assert_int_equal(rte_ring_dequeue_bulk(small, (void **)fill, 2, NULL), 2);
	rte_pktmbuf_free_bulk(fill, 2);
	while (seen < 20) {
		seen += wire_in_order(o, &next, 1);
		if (seen < 20)
			assert_true(dcn_fc_send(&f.x[1], o) > 0);
	}
	assert_int_equal(dcn_fc_credits(out), WIN - 20);
	assert_int_equal(room_of(out, in, in_idx, oc), SHARE(out));
}

/*
 * A burst for one output beyond the input's share of its queue: what the
 * peer's credits allow goes at once (it takes no room), a share's worth
 * waits in the output queue, the rest is held in the input queue; all of
 * it leaves in order as credits come back.
 */
static void
test_burst_beyond_share(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr), next = 0;
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	uint32_t in_idx = f.host * f.fn->n_vcs, oc = o * f.fn->n_vcs;
	unsigned int seen = 0, rounds = 0;

	(void)state;
	assert_true(SHARE(out) < 60);
	credit_from_peer(o, 7, 4, 0);
	assert_int_equal(receive_host_numbered(1, &addr, 1, 64, 0), 0);
	/* A grant of 4: the lone VC's window is 3 (the other VC's own 1). */
	assert_int_equal(on_wire(o), 3);
	assert_int_equal(rte_ring_count(out->out_q), SHARE(out));
	assert_int_equal(in->held_n, 61 - SHARE(out));
	assert_int_equal(in->freed, 3 + SHARE(out));
	assert_int_equal(room_of(out, in, in_idx, oc), 0);
	while (seen < 64 && rounds++ < 64) {
		seen += wire_in_order(o, &next, 1);
		credit_from_peer(o, 7, 4, seen);
		dcn_fc_route(&f.x[1], f.host);
		dcn_fc_send(&f.x[1], o);
	}
	assert_int_equal(seen, 64);
	assert_int_equal(in->held_n, 0);
	assert_int_equal(in->freed, 64);
	assert_int_equal(room_of(out, in, in_idx, oc), SHARE(out));
}

/*
 * A held list longer than the input's share of its output, and then the
 * peer's credits for all of it: one routing pass sends it all, a share
 * at a time (each share sent at once frees itself), rather than a share
 * a pass, which would keep an input under steady load held for good.
 */
static void
test_held_drains_in_one_pass(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr), next = 0;
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	uint32_t more;

	(void)state;
	/* No credit yet: a share waits in the output queue, the rest is
	 * held; once the share is sent, the input's room is topped up. */
	assert_int_equal(receive_host_numbered(1, &addr, 1, 64, 0), 0);
	assert_int_equal(rte_ring_count(out->out_q), SHARE(out));
	credit_from_peer(o, 7, GRANT, 0);
	dcn_fc_send(&f.x[1], o);
	assert_int_equal(wire_in_order(o, &next, 1), SHARE(out));
	credit_from_peer(o, 7, GRANT, SHARE(out));
	/* As many more as the sender's credits cover in all. */
	more = RTE_MIN(dcn_fc_in_room(in), WIN - dcn_fc_in_depth(in));
	assert_int_equal(receive_host_numbered(1, &addr, 1, (uint16_t)more, 64), 0);
	assert_true(dcn_fc_in_depth(in) > SHARE(out));
	assert_true(dcn_fc_in_depth(in) <= GRANT);
	dcn_fc_route(&f.x[1], f.host);
	assert_int_equal(dcn_fc_in_depth(in), 0);
	assert_int_equal(wire_in_order(o, &next, 1), 64 + more - SHARE(out));
	assert_int_equal(rte_ring_count(out->out_q), 0);
	assert_int_equal(in->freed, 64 + more);
}

/*
 * A burst for two outputs, interleaved: each output's packets leave in
 * their order, the one whose peer has no credit waiting without holding
 * up the other.
 */
static void
test_burst_two_outputs(void **state)
{
	uint32_t addr[2];
	uint16_t o0 = out_port_to("(2,0)", &addr[0]), o1 = out_port_to("(0,0)", &addr[1]);
	struct dcn_fc_chan *out1 = dcn_fc_chan(f.fn, o1, 0);
	uint16_t seq0 = 0, seq1 = 1;

	(void)state;
	assert_int_not_equal(o0, o1);
	credit_from_peer(o0, 7, GRANT, 0);
	assert_int_equal(receive_host_numbered(1, addr, 2, 40, 0), 0);
	/* o0 got the even ones, at once; o1's wait for credit */
	assert_int_equal(on_wire(o0), 20);
	assert_int_equal(on_wire(o1), 0);
	assert_int_equal(rte_ring_count(out1->out_q), 20);
	assert_int_equal(wire_in_order(o0, &seq0, 2), 20);
	credit_from_peer(o1, 7, GRANT, 0);
	assert_int_equal(dcn_fc_send(&f.x[1], o1), 20);
	assert_int_equal(wire_in_order(o1, &seq1, 2), 20);
	assert_int_equal(seq0, 40);
	assert_int_equal(seq1, 41);
}

/*
 * Frames held for two outputs, interleaved, neither with credit: when
 * one output's credit comes, its frames leave in order from among the
 * others' (which keep their place), then the others' when theirs comes.
 */
static void
test_held_two_outputs(void **state)
{
	uint32_t addr[2];
	uint16_t o[2] = { out_port_to("(2,0)", &addr[0]), out_port_to("(0,0)", &addr[1]) };
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	uint32_t in_idx = f.host * f.fn->n_vcs;
	uint16_t next[2] = { 0, 1 };
	unsigned int seen[2] = { 0, 0 }, j, rounds;

	(void)state;
	assert_int_equal(receive_host_numbered(1, addr, 2, 64, 0), 0);
	assert_int_equal(receive_host_numbered(1, addr, 2, 64, 64), 0);
	assert_int_equal(in->held_n, 128 - 2 * SHARE(dcn_fc_chan(f.fn, o[0], 0)));
	for (j = 0; j < 2; j++) {
		credit_from_peer(o[j], 7, GRANT, 0);
		for (rounds = 0; seen[j] < 64 && rounds < 64; rounds++) {
			dcn_fc_send(&f.x[1], o[j]);
			dcn_fc_route(&f.x[1], f.host);
			seen[j] += wire_in_order(o[j], &next[j], 2);
			credit_from_peer(o[j], 7, GRANT, seen[j]);
		}
		assert_int_equal(seen[j], 64);
		assert_int_equal(on_wire(o[1 - j]), 0);
	}
	assert_int_equal(in->held_n, 0);
	for (j = 0; j < 2; j++) {
		struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o[j], 0);

		assert_int_equal(room_of(out, in, in_idx, o[j] * f.fn->n_vcs),
				 SHARE(out));
	}
}

/*
 * A held list worked off a few frames a pass while more arrive behind
 * it, as at a host port under a slow peer: frames leave from its front
 * (its head moves on, nothing behind it is moved), new ones join at its
 * end (the list moved back to the array's start when they would not fit
 * behind it). Every frame leaves once and in order, and the input's room
 * comes back whole.
 */
static void
test_held_list_moves_on(void **state)
{
	enum { TOTAL = 640, STEP = 16, TRICKLE = 3 };
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr), next = 0;
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	unsigned int sent = 0, seen = 0, rounds = 0, moved_on = 0, moved_back = 0;
	uint32_t last_head = 0;

	(void)state;
	credit_from_peer(o, 7, TRICKLE, 0);
	while (seen < TOTAL && rounds++ < 4 * TOTAL) {
		if (sent < TOTAL && dcn_fc_in_room(in) >= STEP) {
			assert_int_equal(receive_host_numbered(1, &addr, 1, STEP,
							       (uint16_t)sent), 0);
			sent += STEP;
		}
		dcn_fc_route(&f.x[1], f.host);
		dcn_fc_send(&f.x[1], o);
		seen += wire_in_order(o, &next, 1);
		credit_from_peer(o, 7, TRICKLE, seen);
		moved_on += in->held_head > last_head;
		moved_back += in->held_n != 0 && in->held_head < last_head;
		last_head = in->held_head;
		assert_true(in->held_n <= in->in_cap);
		assert_true(in->held_head + in->held_n <= DCN_FC_HELD_SLOTS(in->in_cap));
	}
	assert_int_equal(sent, TOTAL);
	assert_int_equal(seen, TOTAL);
	assert_true(moved_on > 0);
	assert_true(moved_back > 0);
	assert_int_equal(in->held_n, 0);
	assert_int_equal(f.x[1].st[f.host].in_drop, 0);
	assert_int_equal(dcn_fc_in_room(in), in->in_cap);
}

/*
 * The credits this relay announces: a credit frame that is lost (the
 * test's drop ratio) is repaired by the next, which carries the whole
 * state (frames freed in total, and arrived: freed or still queued), once
 * the refresh interval has passed.
 */
static void
test_lost_credit_frame_repaired(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *c0 = dcn_fc_chan(f.fn, o, 0);
	struct dcn_fc_credit cr;
	struct rte_mbuf *m = NULL, *q[3];
	uint64_t now = 1000000;
	unsigned int i;

	(void)state;
	/* Frames from the peer on o freed its input queue here (arrived as
	 * the receive step counts them, then freed). */
	__atomic_store_n(&c0->arrived, 40, __ATOMIC_RELEASE);
	__atomic_store_n(&c0->freed, 40, __ATOMIC_RELEASE);
	f.dp.credit_drop_ppm = 1000000;
	dcn_fc_announce(&f.x[1], o, now);
	assert_int_equal(c0->credit_lost, 1);
	assert_int_equal(on_wire(o), 0);
	/* More freed, and no frame is lost any more: the next announcement
	 * carries the total; 3 frames wait in the input queue, arrived and
	 * not freed. */
	__atomic_store_n(&c0->freed, 45, __ATOMIC_RELEASE);
	__atomic_store_n(&c0->arrived, 48, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++) {
		q[i] = rte_pktmbuf_alloc(mp);
		assert_non_null(q[i]);
	}
	assert_int_equal(rte_ring_enqueue_bulk(c0->in_q, (void **)q, 3, NULL), 3);
	f.dp.credit_drop_ppm = 0;
	dcn_fc_announce(&f.x[1], o, now + 1);  /* under a batch, too soon */
	assert_int_equal(on_wire(o), 0);
	dcn_fc_announce(&f.x[1], o, now + 2000);
	assert_int_equal(on_wire(o), 1);
	assert_int_equal(c0->credit_tx, 1);
	assert_int_equal(rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&m), 0);
	frame_credit(rte_pktmbuf_mtod(m, const uint8_t *), &cr);
	assert_int_equal(cr.n_vcs, f.fn->n_vcs);
	assert_int_equal(cr.freed[0], 45);
	assert_int_equal(cr.arrived[0], 48);
	assert_int_equal(cr.grant, GRANT);
	assert_int_equal(cr.epoch, f.fn->epoch);
	rte_pktmbuf_free(m);
}

/* A credit frame from the peer on port o, as credit_from_peer's, with
 * room for a fabric key's trailer; signed with a (NULL: not signed) as
 * (epoch, seq). */
static struct rte_mbuf *
signed_credit(const struct dcn_auth *a, uint32_t epoch, uint32_t seq,
	      uint32_t grant, uint32_t freed0)
{
	static const struct dcn_auth_span span = { .bind_macs = 1, .zero_at = -1 };
	struct dcn_fc_credit cr = { .epoch = 7, .grant = grant, .n_vcs = 2,
				    .freed = { freed0, 0 }, .arrived = { freed0, 0 } };
	struct rte_mbuf *m = credit_mbuf(&cr);
	uint8_t *p;

	assert_non_null(rte_pktmbuf_append(m, DCN_AUTH_TRAILER_LEN));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p + CREDIT_FRAME, 0, DCN_AUTH_TRAILER_LEN);
	memcpy(p, &mac0, 6);
	memcpy(p + 6, &mac0, 6);
	if (a != NULL)
		dcn_auth_sign(a, p, DCN_FC_CREDIT_LEN(2), &span, epoch, seq);
	return m;
}

/*
 * With a fabric key, credits come only from credit frames signed with it
 * and newer than the last taken on the link: one without a trailer, one
 * signed with another key, one whose bound MAC was changed, and a
 * recording of an earlier one are refused, each counted by its reason,
 * and change no credit. The node's own credit frames carry a good tag
 * and a sequence number that grows.
 */
static void
test_signed_credits(void **state)
{
	uint8_t key[DCN_AUTH_KEY_LEN], other[DCN_AUTH_KEY_LEN];
	struct dcn_auth *a, *b;
	uint32_t addr, epoch, seq;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	struct rte_mbuf *m, *old;
	unsigned int i;

	(void)state;
	for (i = 0; i < DCN_AUTH_KEY_LEN; i++) {
		key[i] = (uint8_t)i;
		other[i] = (uint8_t)(i + 1);
	}
	a = dcn_auth_create(key);
	b = dcn_auth_create(other);
	assert_non_null(a);
	assert_non_null(b);
	f.dp.auth = a;
	f.dp.auth_epoch = 500;

	m = signed_credit(NULL, 0, 0, GRANT, 0);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(out->credit_bad_tag, 1);  /* zeros: no tag */
	m = credit_mbuf(&(struct dcn_fc_credit){ .epoch = 7, .grant = GRANT,
						 .n_vcs = 2 });
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(out->credit_unsigned, 1); /* no room for a trailer */
	m = signed_credit(b, 100, 1, GRANT, 0);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(out->credit_bad_tag, 2);
	m = signed_credit(a, 100, 1, GRANT, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[11] ^= 1;   /* another sender */
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(out->credit_bad_tag, 3);
	assert_int_equal(out->credit_rx, 0);
	assert_int_equal(dcn_fc_credits(out), 0);

	/* Good, but of an incarnation the peer's hellos have not proven
	 * yet: held, not taken, its first and its latest (a restart's first
	 * word may be its dead incarnation's last, said once). */
	for (i = 1; i <= 3; i++) {
		m = signed_credit(a, 100, i, GRANT, 0);
		assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	}
	assert_int_equal(out->credit_unproven, 3);
	assert_int_equal(out->credit_rx, 0);
	assert_int_equal(dcn_fc_credits(out), 0);
	assert_int_equal(f.dp.link[o].n_held, 2);
	/* Proven: the held ones are taken first, in order, then the frame
	 * that came. A copy kept to replay later. */
	dcn_fc_dp_set_peer_epoch(&f.dp, o, 100);
	m = signed_credit(a, 100, 4, GRANT, 0);
	old = rte_pktmbuf_copy(m, mp, 0, UINT32_MAX);
	assert_non_null(old);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(out->credit_rx, 3);
	assert_int_equal(f.dp.link[o].n_held, 0);
	assert_int_equal(dcn_fc_credits(out), WIN);
	dcn_fc_sent(out, 30);
	m = signed_credit(a, 100, 5, GRANT, 20);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(dcn_fc_credits(out), WIN - 10);
	/* The recording would give back the 20 freed since: refused. */
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &old, 1), 0);
	assert_int_equal(out->credit_replayed, 1);
	assert_int_equal(dcn_fc_credits(out), WIN - 10);
	/* Another incarnation's, however high its sequence: held, never
	 * taken while the hellos prove the one they do. */
	m = signed_credit(a, 99, 1000, GRANT, 30);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(out->credit_unproven, 4);
	assert_int_equal(out->credit_replayed, 1);
	assert_int_equal(out->credit_rx, 4);
	m = signed_credit(a, 100, 6, GRANT, 20);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, &m, 1), 0);
	assert_int_equal(out->credit_rx, 5);
	assert_int_equal(f.dp.link[o].n_held, 0);
	assert_int_equal(dcn_fc_credits(out), WIN - 10);

	/* This node's own: signed, its sequence growing. */
	for (i = 1; i <= 2; i++) {
		const uint8_t *p;

		__atomic_store_n(&out->freed, 40 * i, __ATOMIC_RELEASE);
		dcn_fc_announce(&f.x[1], o, 1000000 * i);
		assert_int_equal(rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&m), 0);
		p = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_int_equal(dcn_auth_check(a, p, rte_pktmbuf_data_len(m),
						DCN_FC_CREDIT_LEN(f.fn->n_vcs),
						&(struct dcn_auth_span){ 1, -1 },
						&epoch, &seq), DCN_AUTH_OK);
		assert_int_equal(epoch, 500);
		assert_int_equal(seq, i);
		assert_int_equal(dcn_auth_check(b, p, rte_pktmbuf_data_len(m),
						DCN_FC_CREDIT_LEN(f.fn->n_vcs),
						&(struct dcn_auth_span){ 1, -1 },
						&epoch, &seq), DCN_AUTH_BAD_TAG);
		rte_pktmbuf_free(m);
	}
	f.dp.auth = NULL;
	dcn_auth_free(a);
	dcn_auth_free(b);
}

/*
 * A port whose link goes down: what waits in its output queue is dropped,
 * counted as down_drop, and the inputs get their internal credits back.
 */
static void
test_link_down_drops_queued(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	uint32_t in_idx = f.host * f.fn->n_vcs;

	(void)state;
	assert_int_equal(receive_host(1, addr, 16), 0);
	assert_int_equal(rte_ring_count(out->out_q), 16);
	f.port[o].link_down = 1;
	assert_int_equal(dcn_fc_send(&f.x[1], o), 16);
	assert_int_equal(f.x[1].st[o].down_drop, 16);
	assert_int_equal(on_wire(o), 0);
	assert_int_equal(room_of(out, in, in_idx, o * f.fn->n_vcs), SHARE(out));
}

/* A credit frame alone is taken on the spot (credit_from_peer); one among
 * other frames, as a NIC hands a batch over, is taken all the same: the
 * control thread, where the other control frames go, takes no credits. */
static void
test_credit_among_data(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	struct rte_mbuf *m[3];

	(void)state;
	/* A credit frame between two hellos. */
	credit_from_peer(o, 7, GRANT, 0);
	assert_int_equal(dcn_fc_credits(out), WIN);
	{
		struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
					    .type = DCN_FT_HELLO };
		struct dcn_fc_credit cr = { .epoch = 7, .grant = GRANT, .n_vcs = 2,
				    .freed = { 30, 0 }, .arrived = { 30, 0 } };

		m[0] = fabric_mbuf(&h, NULL);
		m[1] = credit_mbuf(&cr);
		m[2] = fabric_mbuf(&h, NULL);
	}
	/* Sent 40 under the first grant; the peer has freed 30 of them. */
	dcn_fc_sent(out, 40);
	assert_int_equal(dcn_fc_credits(out), WIN - 40);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, m, 3), 2);
	assert_int_equal(dcn_fc_credits(out), WIN - 10);
	assert_int_equal(dcn_fc_chan(f.fn, o, 0)->credit_rx, 2);
	rte_pktmbuf_free(m[0]);
	rte_pktmbuf_free(m[1]);
}

/* A frame from the peer on port o: data of VC 0 for addr, or a credit
 * frame whose sent count of VC 0 is sent0 (counted for this node's
 * epoch). */
static struct rte_mbuf *
peer_frame(int credit, uint32_t addr, uint32_t sent0)
{
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_DATA, .ttl = 16, .dst = addr };
	struct dcn_fc_credit cr = { .epoch = 7, .grant = GRANT, .n_vcs = 2,
				    .sent_epoch = f.fn->epoch, .sent = { sent0 } };

	return credit ? credit_mbuf(&cr) : fabric_mbuf(&h, NULL);
}

/* A data frame from the peer behind a cable, from the host of (3,3) to
 * addr, on VC vc, its bounce flag bounced. */
static struct rte_mbuf *
transit_frame_vc(uint32_t addr, int bounced, uint8_t vc)
{
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION, .type = DCN_FT_DATA,
				    .ttl = 16, .len = 46, .bounced = (uint8_t)bounced, .vc = vc,
				    .src = dcn_topo_addr(f.t, vertex_or_fail(f.t, "(3,3)")),
				    .dst = addr };
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, 80));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, 80);
	memcpy(p, &mac0, 6);
	memcpy(p + 6, &mac0, 6);
	dcn_fabric_put16(p + 12, DCN_FABRIC_ETHERTYPE);
	dcn_fabric_write_hdr(p + DCN_ETHER_HDR_LEN, &h);
	p += DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;
	p[0] = 0x45;
	dcn_fabric_put16(p + 2, 46);
	p[8] = 64;
	p[9] = 17;
	dcn_fabric_put32(p + 12, h.src);
	dcn_fabric_put32(p + 16, addr);
	return m;
}

static struct rte_mbuf *
transit_frame(uint32_t addr, int bounced)
{
	return transit_frame_vc(addr, bounced, 0);
}

/* Frames in local port o's output queues, every VC. */
static unsigned int
queued_on(uint16_t o)
{
	unsigned int vc, n = 0;

	for (vc = 0; vc < f.fn->n_vcs; vc++)
		n += rte_ring_count(dcn_fc_chan(f.fn, o, vc)->out_q);
	return n;
}

/*
 * A frame the forwarding step holds back (it bounced here and would go
 * back again: DCN_FWD_PARK) waits in its input's held list, its credit
 * not given back, while frames behind it go on; it is stepped again
 * when the router's table generation changes (held again: the same
 * table) and goes back, marked, once park_wait has passed.
 */
static void
test_parked_waits_for_table(void **state)
{
	uint32_t addr, other;
	uint16_t o = out_port_to("(2,0)", &addr), o2 = out_port_to("(0,0)", &other);
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, o, 0);
	uint32_t freed = in->freed;
	struct rte_mbuf *m[2];
	uint64_t parked;

	(void)state;
	assert_int_not_equal(o, o2);
	f.fwd[1].park = 1;
	m[0] = transit_frame(addr, 1);
	m[1] = transit_frame(other, 1);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, m, 2), 0);
	dcn_fc_route(&f.x[1], o);
	/* The first held, the second on its way. */
	assert_int_equal(f.fwd[1].st.parked, 1);
	assert_int_equal(in->parked, 1);
	assert_int_equal(in->held_n, 1);
	assert_int_equal(in->freed, freed + 1);
	assert_int_equal(queued_on(o2), 1);
	assert_int_equal(queued_on(o), 0);
	/* Same table, not yet due: not stepped again. */
	dcn_fc_route(&f.x[1], o);
	assert_int_equal(f.fwd[1].st.parked, 1);
	assert_int_equal(in->held_n, 1);
	/* A new table generation: stepped again, held again. */
	f.fwd[1].table_gen++;
	dcn_fc_route(&f.x[1], o);
	parked = f.fwd[1].st.parked;
	assert_int_equal(parked, 2);
	assert_int_equal(in->parked, 1);
	assert_int_equal(in->held_n, 1);
	assert_int_equal(in->freed, freed + 1);
	/* Waited long enough: back it goes, marked; its credit with it. */
	f.dp.park_wait_tsc = 0;
	dcn_fc_route(&f.x[1], o);
	assert_int_equal(f.fwd[1].st.parked, parked);
	assert_int_equal(in->parked, 0);
	assert_int_equal(in->held_n, 0);
	assert_int_equal(in->freed, freed + 2);
	assert_int_equal(queued_on(o), 1);
	assert_int_equal(f.fwd[1].st.bounced, 1);
	f.dp.park_wait_tsc = rte_get_tsc_hz();
}

/*
 * The peer's credit frame counts what it sent and comes behind it: in a
 * burst with data before it, the data is counted first, so nothing that
 * came is taken for lost; what it counts and never came is freed at once
 * (the peer's credits come back), by the worker that keeps the queues.
 */
static void
test_sent_counts_after_data(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *in = dcn_fc_chan(f.fn, o, 0);
	uint32_t before = in->freed + dcn_fc_in_depth(in);
	struct rte_mbuf *m[3];

	(void)state;
	m[0] = peer_frame(0, addr, 0);
	m[1] = peer_frame(0, addr, 0);
	m[2] = peer_frame(1, addr, before + 2);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, m, 3), 0);
	assert_int_equal(in->freed + dcn_fc_in_depth(in), before + 2);
	assert_int_equal(in->lost_in, 0);
	/* 3 more sent, none came */
	m[0] = peer_frame(1, addr, before + 5);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, m, 1), 0);
	assert_int_equal(in->lost_in, 3);
	assert_int_equal(in->freed + dcn_fc_in_depth(in), before + 5);
	/* Taken by a worker that does not keep the queues: no repair. */
	m[0] = peer_frame(1, addr, before + 9);
	assert_int_equal(dcn_fc_rx(&f.x[0], o, m, 1), 0);
	assert_int_equal(in->lost_in, 3);
}

/* n host packets to addr, numbered from first (their UDP source port),
 * received by worker k on its lane (worker 0: lane 1; 1: lane 0). */
static uint16_t
receive_lane(unsigned int k, uint32_t addr, unsigned int first, unsigned int n)
{
	struct rte_mbuf *m[DCN_FC_BURST_MAX];
	unsigned int i;

	for (i = 0; i < n; i++) {
		m[i] = host_packet(addr);
		dcn_fabric_put16(rte_pktmbuf_mtod(m[i], uint8_t *) + 34,
				 (uint16_t)(first + i));
	}
	return dcn_fc_rx_lane(&f.x[k], f.host, (uint16_t)(k == 0), m, (uint16_t)n);
}

/*
 * Run to completion on two lanes: host packets that worker 0 receives on
 * RX queue 1 are routed by worker 0 itself (its lane), at once, and
 * queued for the output port, which worker 1 owns and sends; worker 1's
 * own (lane 0) queue behind them. Each lane's flow keeps its order, each
 * lane gets its internal credits back as its frames leave, and each
 * worker's forwarding step counts its own frames.
 */
static void
test_lanes_run_to_completion(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	uint32_t oc = o * f.fn->n_vcs, in0 = f.host * f.fn->n_vcs;
	uint32_t in1 = f.fn->n_chans + in0;
	struct dcn_fc_chan *lane0 = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *lane1 = dcn_fc_lane(f.fn, in0, 1);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	unsigned int i;

	(void)state;
	assert_int_equal(f.fn->n_lanes, 2);
	assert_int_equal(f.dp.port[f.host].lanes, 2);
	credit_from_peer(o, 7, GRANT, 0);
	assert_int_equal(receive_lane(0, addr, 0, 20), 0);
	/* Routed by worker 0 on the spot: out of its lane, into the output
	 * queue (worker 0 does not send on o). */
	assert_int_equal(lane1->arrived, 20);
	assert_int_equal(lane1->freed, 20);
	assert_int_equal(dcn_fc_in_depth(lane1), 0);
	assert_int_equal(lane0->arrived, 0);
	assert_int_equal(f.fwd[0].st.encap, 20);
	assert_int_equal(f.fwd[1].st.encap, 0);
	assert_int_equal(rte_ring_count(out->out_q), 20);
	assert_int_equal(on_wire(o), 0);
	assert_int_equal(room_of(out, lane1, in1, oc), dt_room(out, 20, 20));
	assert_int_equal(room_of(out, lane0, in0, oc), dt_room(out, 20, 0));
	/* Worker 1's own lane: behind what waits, never ahead of it. */
	assert_int_equal(receive_lane(1, addr, 100, 10), 0);
	assert_int_equal(f.fwd[1].st.encap, 10);
	assert_int_equal(rte_ring_count(out->out_q), 30);
	assert_int_equal(dcn_fc_send(&f.x[1], o), 30);
	for (i = 0; i < 30; i++) {
		struct rte_mbuf *w = NULL;

		assert_int_equal(rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&w), 0);
		/* the host packet's source port, past the fabric header */
		assert_int_equal(dcn_fabric_get16(rte_pktmbuf_mtod(w, uint8_t *) +
						  DCN_FABRIC_HDR_LEN + 34),
				 i < 20 ? i : 100 + i - 20);
		rte_pktmbuf_free(w);
	}
	assert_int_equal(room_of(out, lane1, in1, oc), SHARE(out));
	assert_int_equal(room_of(out, lane0, in0, oc), SHARE(out));
	assert_int_equal(dcn_fc_credits(out), WIN - 30);
}

/*
 * A lane's router alone routes what waits in it: frames held in lane 1
 * (no internal credit left) are not worker 1's to route, and go when
 * worker 0 routes its lane.
 */
static void
test_lanes_route_own(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	uint32_t in0 = f.host * f.fn->n_vcs;
	struct dcn_fc_chan *lane1 = dcn_fc_lane(f.fn, in0, 1);
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	unsigned int quota = SHARE(out), n = 0;

	(void)state;
	/* Worker 1 receives on lane 1 (as a test may): it queues there,
	 * for worker 0 to route. */
	while (n < quota + 8) {
		struct rte_mbuf *m[8];
		unsigned int i;

		for (i = 0; i < 8; i++)
			m[i] = host_packet(addr);
		assert_int_equal(dcn_fc_rx_lane(&f.x[1], f.host, 1, m, 8), 0);
		assert_int_equal(dcn_fc_in_depth(lane1), 8);
		assert_int_equal(dcn_fc_route_lane(&f.x[0], f.host, 1),
				 n < quota ? 8 : 0);
		n += 8;
	}
	/* Lane 1's share of o's queue is used up: 8 held. */
	assert_int_equal(lane1->held_n, 8);
	assert_int_equal(dcn_fc_route_lane(&f.x[1], f.host, 0), 0);
	assert_int_equal(lane1->held_n, 8);
	credit_from_peer(o, 7, GRANT, 0);
	assert_int_equal(dcn_fc_send(&f.x[1], o), quota);
	assert_int_equal(dcn_fc_route_lane(&f.x[0], f.host, 1), 8);
	assert_int_equal(lane1->held_n, 0);
	drain(f.port[o].tx_ring[0]);
}

/*
 * What this relay announces for a port of two lanes: each VC's freed
 * and arrived summed over its lanes, and no repair by the peer's sent
 * counts (frames of two RX queues and the credit frame come in no order
 * with each other): a count that says frames are missing frees nothing,
 * and the flag tells the peer to repair by time.
 */
static void
test_lanes_credit_sums(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	uint32_t c = o * f.fn->n_vcs;
	struct dcn_fc_credit cr;
	struct rte_mbuf *m;

	(void)state;
	dcn_fc_lane(f.fn, c, 0)->arrived = 10;
	dcn_fc_lane(f.fn, c, 0)->freed = 7;
	dcn_fc_lane(f.fn, c, 1)->arrived = 30;
	dcn_fc_lane(f.fn, c, 1)->freed = 30;
	dcn_fc_credit_state(f.fn, (uint16_t)(c / f.fn->n_vcs), &cr);
	assert_int_equal(cr.freed[0], 37);
	assert_int_equal(cr.arrived[0], 40);
	assert_int_equal(dcn_fc_chan_freed(f.fn, c), 37);
	/* The peer says it sent 50: 10 would be missing on one lane. */
	m = peer_frame(1, addr, 50);
	assert_int_equal(dcn_fc_rx_lane(&f.x[1], o, 0, &m, 1), 0);
	assert_int_equal(dcn_fc_chan(f.fn, o, 0)->lost_in, 0);
	dcn_fc_credit_state(f.fn, (uint16_t)(c / f.fn->n_vcs), &cr);
	assert_int_equal(cr.freed[0], 37);
	assert_int_equal(cr.flags & DCN_FC_CREDIT_REPAIRS, 0);
}

/* Take what port o has sent off its ring: by each lane's numbering
 * (below 1000: worker 0's frames, else worker 1's), each lane's in order
 * from next0 and next1, counted in *n0 and *n1. */
static void
wire_per_lane(uint16_t o, unsigned int next0, unsigned int next1, unsigned int *n0,
	      unsigned int *n1)
{
	struct rte_mbuf *w;

	*n0 = *n1 = 0;
	while (rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&w) == 0) {
		unsigned int sp = dcn_fabric_get16(rte_pktmbuf_mtod(w, uint8_t *) +
						   DCN_FABRIC_HDR_LEN + 34);

		if (sp < 1000) {
			assert_int_equal(sp, next0++);
			(*n0)++;
		} else {
			assert_int_equal(sp, next1++);
			(*n1)++;
		}
		rte_pktmbuf_free(w);
	}
}

/*
 * Two senders a port: each worker's lane, routed to completion, leaves
 * by that worker's own send, with nothing through the owner's queue;
 * the peer's grant is shared, never overdrawn: what one took the other
 * cannot, and what waits for credit waits in its own worker's queue,
 * sent by that worker once the peer frees room. At every step the
 * credits claimed are exactly the frames on the wire (none made, none
 * lost, none held by an idle sender), and each lane's frames are in
 * order.
 */
static void
test_senders_share_credits(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	uint32_t oc = o * f.fn->n_vcs, in0 = f.host * f.fn->n_vcs;
	uint32_t in1 = f.fn->n_chans + in0;
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	struct dcn_fc_chan *q1 = dcn_fc_lane(f.fn, oc, 1);
	struct dcn_fc_chan *lane0 = dcn_fc_chan(f.fn, f.host, 0);
	struct dcn_fc_chan *lane1 = dcn_fc_lane(f.fn, in0, 1);
	unsigned int n0, n1, wire = 0;
	struct dcn_fc_credit cr;

	(void)state;
	assert_int_equal(f.fn->senders[o], 2);
	assert_true(dcn_fc_sends_on(&f.x[0], o));
	assert_true(dcn_fc_sends_on(&f.x[1], o));
	credit_from_peer(o, 7, GRANT_WIN, 0);
	/* Worker 0 sends its 40 at once, by itself. */
	assert_int_equal(receive_lane(0, addr, 0, 40), 0);
	assert_int_equal(f.x[0].st[o].tx, 40);
	assert_int_equal(f.x[1].st[o].tx, 0);
	assert_int_equal(rte_ring_count(out->out_q), 0);
	assert_int_equal(rte_ring_count(q1->out_q), 0);
	assert_int_equal(room_of(out, lane1, in1, oc), SHARE(out));
	/* Worker 1 gets what is left of the grant; the rest waits in its
	 * own queue, the owner's. */
	assert_int_equal(receive_lane(1, addr, 1000, 40), 0);
	assert_int_equal(f.x[1].st[o].tx, GRANT - 40);
	assert_int_equal(rte_ring_count(out->out_q), 80 - GRANT);
	assert_int_equal(dcn_fc_credits(out), 0);
	wire_per_lane(o, 0, 1000, &n0, &n1);
	assert_int_equal(n0, 40);
	assert_int_equal(n1, GRANT - 40);
	wire += n0 + n1;
	assert_int_equal(out->sent, wire);
	/* Worker 0 finds no credit: its frames wait in its queue, in order
	 * behind nothing, and it holds no claim. */
	assert_int_equal(receive_lane(0, addr, 40, 10), 0);
	assert_int_equal(rte_ring_count(q1->out_q), 10);
	assert_true(q1->stalls > 0);
	assert_int_equal(out->sent, wire);
	assert_int_equal(dcn_fc_chan_out_depth(f.fn, oc), 80 - GRANT + 10);
	/* The peer frees 30: the two queues take turns at it as their
	 * senders come by, within the grant. */
	credit_from_peer(o, 7, GRANT_WIN, 30);
	assert_int_equal(dcn_fc_send(&f.x[0], o), 10);
	assert_int_equal(dcn_fc_send(&f.x[1], o), 20);
	assert_int_equal(dcn_fc_credits(out), 0);
	wire_per_lane(o, 40, 1000 + GRANT - 40, &n0, &n1);
	assert_int_equal(n0, 10);
	assert_int_equal(n1, 20);
	wire += n0 + n1;
	assert_int_equal(out->sent, wire);
	credit_from_peer(o, 7, GRANT_WIN, 81);
	assert_int_equal(dcn_fc_send(&f.x[1], o), 80 - GRANT - 20);
	wire += 80 - GRANT - 20;
	assert_int_equal(out->sent, wire);
	assert_int_equal(dcn_fc_credits(out), GRANT - (wire - 81));
	assert_int_equal(dcn_fc_chan_out_depth(f.fn, oc), 0);
	/* Every internal credit back, to each lane by its own sender. */
	assert_int_equal(room_of(out, lane1, in1, oc), SHARE(out));
	assert_int_equal(room_of(out, lane0, in0, oc), SHARE(out));
	/* Several senders' frames leave by several TX queues, in no order
	 * with a credit frame: the peer is not told sent counts to repair
	 * by. */
	dcn_fc_credit_state(f.fn, (uint16_t)(oc / f.fn->n_vcs), &cr);
	assert_int_equal(cr.sent_epoch, 0);
	drain(f.port[o].tx_ring[0]);
}

/*
 * A sender whose port takes only part of a burst gives back the credits
 * of the rest: the unsent frames wait in its own queue, and the other
 * sender can spend those credits.
 */
static void
test_senders_port_full(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	uint32_t oc = o * f.fn->n_vcs;
	struct dcn_fc_chan *out = dcn_fc_chan(f.fn, o, 0);
	struct dcn_fc_chan *q1 = dcn_fc_lane(f.fn, oc, 1);
	struct rte_ring *tx = f.port[o].tx_ring[0];
	unsigned int room = rte_ring_free_count(tx), n0, n1;
	struct rte_mbuf *filler[DCN_FC_BURST_MAX];

	(void)state;
	credit_from_peer(o, 7, GRANT, 0);
	/* Leave the port room for 5. */
	while (room > 5) {
		unsigned int k = RTE_MIN(room - 5, (unsigned int)DCN_FC_BURST_MAX);

		assert_int_equal(rte_pktmbuf_alloc_bulk(mp, filler, k), 0);
		assert_int_equal(rte_ring_enqueue_burst(tx, (void **)filler, k, NULL), k);
		room -= k;
	}
	assert_int_equal(receive_lane(0, addr, 0, 20), 0);
	assert_int_equal(f.x[0].st[o].tx, 5);
	assert_int_equal(out->sent, 5);
	assert_int_equal(dcn_fc_credits(out), WIN - 5);
	assert_int_equal(rte_ring_count(q1->out_q), 15);
	drain(tx);
	/* Worker 1 spends what worker 0 gave back. */
	assert_int_equal(receive_lane(1, addr, 1000, WIN - 5), 0);
	assert_int_equal(f.x[1].st[o].tx, WIN - 5);
	assert_int_equal(dcn_fc_credits(out), 0);
	assert_int_equal(dcn_fc_send(&f.x[0], o), 0);
	credit_from_peer(o, 7, GRANT, GRANT);
	assert_int_equal(dcn_fc_send(&f.x[0], o), 15);
	assert_int_equal(out->sent, WIN + 15);
	wire_per_lane(o, 5, 1000, &n0, &n1);
	assert_int_equal(n0, 15);
	assert_int_equal(n1, WIN - 5);
}

/* Two threads claim and give back credits of one channel as senders
 * do, at once: together they spend exactly the grant, never more. */
struct claimer {
	struct dcn_fc_chan *c;
	uint32_t seed, spent, rounds;
};

static void *
claim_loop(void *arg)
{
	struct claimer *cl = arg;

	for (;;) {
		uint32_t want, got, keep;

		cl->seed = cl->seed * 1103515245u + 12345u;
		want = 1 + (cl->seed >> 16) % 32;
		got = dcn_fc_claim(cl->c, want);
		if (got == 0)
			break;
		keep = (cl->seed >> 8) % (got + 1);
		/* What the port did not take: back. */
		dcn_fc_unclaim(cl->c, got - keep);
		cl->spent += keep;
		cl->rounds++;
	}
	return NULL;
}

static void
test_senders_claims_race(void **state)
{
	struct dcn_fc_chan c;
	struct claimer cl[2];
	pthread_t th[2];
	unsigned int i, round;

	(void)state;
	for (round = 0; round < 50; round++) {
		memset(&c, 0, sizeof(c));
		c.sent = 0xfffff000u + round; /* wraps past zero */
		c.limit = c.sent + 200000;
		for (i = 0; i < 2; i++) {
			cl[i] = (struct claimer){ .c = &c, .seed = round * 2 + i + 1 };
			assert_int_equal(pthread_create(&th[i], NULL, claim_loop, &cl[i]), 0);
		}
		for (i = 0; i < 2; i++)
			assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(cl[0].spent + cl[1].spent, 200000);
		assert_int_equal(c.sent, c.limit);
		assert_int_equal(dcn_fc_credits(&c), 0);
	}
}

/* Two threads claim and give back credits of a link's four VCs as
 * senders do, at once, each on VCs at random: the link's pool is
 * shared under compare-and-swaps. Together they spend exactly every
 * VC's own share and the pool, never more, and no VC sent past its
 * limit by more than the pool slots it holds. */
#define POOL_VCS 4
#define POOL_OWN 1000
#define POOL_SHARED 50000

struct pool_claimer {
	struct dcn_fc_chan *c;
	uint32_t seed, spent;
};

static void *
pool_claim_loop(void *arg)
{
	struct pool_claimer *cl = arg;
	unsigned int dry = 0;

	while (dry < 4 * POOL_VCS) {
		uint32_t want, got, keep, vc;

		cl->seed = cl->seed * 1103515245u + 12345u;
		vc = (cl->seed >> 4) % POOL_VCS;
		want = 1 + (cl->seed >> 16) % 32;
		got = dcn_fc_claim(&cl->c[vc], want);
		dry = got == 0 ? dry + 1 : 0;
		keep = (cl->seed >> 8) % (got + 1);
		dcn_fc_unclaim(&cl->c[vc], got - keep);
		cl->spent += keep;
	}
	return NULL;
}

static void
test_pool_claims_race(void **state)
{
	static struct dcn_fc_chan c[POOL_VCS];
	struct pool_claimer cl[2];
	pthread_t th[2];
	uint32_t start[POOL_VCS], total;
	unsigned int i, vc, round;

	(void)state;
	for (round = 0; round < 20; round++) {
		memset(c, 0, sizeof(c));
		for (vc = 0; vc < POOL_VCS; vc++) {
			c[vc].vc = (uint16_t)vc;
			c[vc].link_vcs = POOL_VCS;
			c[vc].sent = 0xffffff00u * vc + round; /* some wrap */
			c[vc].limit = c[vc].sent + POOL_OWN;
			start[vc] = c[vc].sent;
		}
		c[0].shared = POOL_SHARED;
		for (i = 0; i < 2; i++) {
			cl[i] = (struct pool_claimer){ .c = c, .seed = round * 2 + i + 1 };
			assert_int_equal(pthread_create(&th[i], NULL, pool_claim_loop, &cl[i]), 0);
		}
		for (i = 0; i < 2; i++)
			assert_int_equal(pthread_join(th[i], NULL), 0);
		for (total = 0, vc = 0; vc < POOL_VCS; vc++) {
			int32_t past = (int32_t)(c[vc].sent - c[vc].limit);

			total += c[vc].sent - start[vc];
			assert_true(past <= (int32_t)c[vc].tok);
		}
		assert_int_equal(cl[0].spent + cl[1].spent, total);
		assert_int_equal(total, POOL_VCS * POOL_OWN + POOL_SHARED);
		assert_true(c[0].shared_held <= POOL_SHARED);
	}
}

/* n data frames of VC vc from the peer on port o, for addr, received
 * and routed by worker 1 (the owner): they leave the input queue. */
static void
peer_data(uint16_t o, uint32_t addr, uint8_t vc, unsigned int n)
{
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_DATA, .ttl = 16, .dst = addr,
				    .vc = vc };
	struct rte_mbuf *m[DCN_FC_BURST_MAX];
	unsigned int i;

	for (i = 0; i < n; i++)
		m[i] = fabric_mbuf(&h, NULL);
	assert_int_equal(dcn_fc_rx(&f.x[1], o, m, (uint16_t)n), 0);
}

/*
 * Two VCs of one output link share its grant (lib/fc/README.md, "One
 * pool a link"), whichever way their frames leave: 40 host packets on
 * VC 0 go through at once in one burst, taking pool slots past VC 0's
 * own share; 20 transit frames that leave on VC 1 then get VC 1's own
 * share and what the pool has left, the rest waits. What the link sent
 * is the grant, not more; once the peer frees it all, VC 1's queue
 * goes and every slot is back.
 */
static void
test_pool_two_vcs(void **state)
{
	uint32_t addr, addr_in, arrived[2];
	uint16_t o = out_port_to("(2,0)", &addr), i = out_port_to("(0,0)", &addr_in);
	struct dcn_fc_chan *c0 = dcn_fc_chan(f.fn, o, 0), *c1 = dcn_fc_chan(f.fn, o, 1);
	const uint32_t own = dcn_fc_private(GRANT, 2);
	struct rte_mbuf *m[20];
	unsigned int k;
	uint64_t looked;

	(void)state;
	credit_from_peer(o, 7, GRANT, 0);
	assert_int_equal(receive_host_numbered(1, &addr, 1, 40, 0), 0);
	assert_int_equal(c0->sent, 40);
	assert_int_equal(on_wire(o), 40);
	for (k = 0; k < 20; k++)
		m[k] = transit_frame_vc(addr, 0, 1);
	assert_int_equal(dcn_fc_rx(&f.x[1], i, m, 20), 0);
	dcn_fc_route(&f.x[1], i);
	assert_int_equal(c1->sent, GRANT - 40);
	assert_true(c1->sent >= own);
	assert_int_equal(on_wire(o), GRANT);
	assert_int_equal(rte_ring_count(c1->out_q), 20 - (GRANT - 40));
	assert_int_equal(dcn_fc_credits(c0), 0);
	assert_int_equal(dcn_fc_credits(c1), 0);
	drain(f.port[o].tx_ring[0]);
	/* Stalled, VC 1's queue looks for spare pool slots once after a
	 * change (a credit frame, a send cut short), not every pass. */
	assert_int_equal(dcn_fc_send(&f.x[1], o), 0);
	looked = c0->pool_looked;
	assert_int_equal(looked, c0->credit_rx + c0->pool_spared);
	for (k = 0; k < 3; k++)
		assert_int_equal(dcn_fc_send(&f.x[1], o), 0);
	assert_int_equal(c0->pool_looked, looked);
	/* The peer frees all: VC 1's queue goes, the slots come back. */
	arrived[0] = 40;
	arrived[1] = GRANT - 40;
	credit_word(o, 7, GRANT, arrived);
	assert_int_equal(dcn_fc_send(&f.x[1], o), 20 - (GRANT - 40));
	arrived[1] = 20;
	credit_word(o, 7, GRANT, arrived);
	assert_int_equal(dcn_fc_credits(c0), WIN);
	assert_int_equal(dcn_fc_credits(c1), WIN);
	drain(f.port[o].tx_ring[0]);
}

/*
 * When a credit frame goes out at once: after credit_batch frames freed
 * on one VC of the link (8 here), as the papers' per-VC queues are
 * credited; the same number spread over two VCs waits for the refresh
 * interval (the sender still has half a batch of credit on each).
 */
static void
test_credit_batch_per_vc(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *c0 = dcn_fc_chan(f.fn, o, 0);
	struct dcn_fc_chan *c1 = dcn_fc_chan(f.fn, o, 1);
	uint64_t t = 1000000;
	uint32_t tx0, freed0 = c0->freed, freed1 = c1->freed;

	(void)state;
	dcn_fc_announce(&f.x[1], o, t);    /* the first state */
	tx0 = c0->credit_tx;
	peer_data(o, addr, 0, 4);
	peer_data(o, addr, 1, 4);
	assert_int_equal(c0->freed - freed0, 4);
	assert_int_equal(c1->freed - freed1, 4);
	dcn_fc_announce(&f.x[1], o, t + 1);
	assert_int_equal(c0->credit_tx, tx0);
	peer_data(o, addr, 0, 4);
	dcn_fc_announce(&f.x[1], o, t + 2);
	assert_int_equal(c0->credit_tx, tx0 + 1);
	/* Announced: the next batch counts from there. */
	peer_data(o, addr, 1, 3);
	dcn_fc_announce(&f.x[1], o, t + 3);
	assert_int_equal(c0->credit_tx, tx0 + 1);
	/* Past the refresh interval what changed goes out. */
	dcn_fc_announce(&f.x[1], o, t + 2 + 1000);
	assert_int_equal(c0->credit_tx, tx0 + 2);
}

/*
 * A pass looks at a port's credits only when one may be due: after
 * frames were freed there (the routers' hint, set as they route), or at
 * the next refresh of one of its links. A state changed without routing
 * (a counter stored here) waits for that refresh; once the same state
 * has gone out its repeats, the next look is 100 intervals on.
 */
static void
test_announce_looks_when_due(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct dcn_fc_chan *c0 = dcn_fc_chan(f.fn, o, 0);
	const struct dcn_fc_dp_port *pp = &f.dp.port[o];
	uint64_t t = 1000000, refresh = f.dp.credit_refresh_tsc;
	unsigned int i;

	(void)state;
	/* The first look: the state goes out, the next look a refresh on. */
	dcn_fc_announce(&f.x[1], o, t);
	assert_int_equal(on_wire(o), 1);
	assert_int_equal(pp->announce_look_tsc, t + refresh);
	/* Changed behind the routers' back: no look before the refresh. */
	__atomic_store_n(&c0->arrived, 5, __ATOMIC_RELEASE);
	__atomic_store_n(&c0->freed, 5, __ATOMIC_RELEASE);
	dcn_fc_announce(&f.x[1], o, t + refresh - 1);
	assert_int_equal(on_wire(o), 1);
	dcn_fc_announce(&f.x[1], o, t + refresh);
	assert_int_equal(on_wire(o), 2);
	/* Frames routed set the hint: a look on the next pass, where a
	 * batch (8) goes out at once, before the refresh. */
	t += refresh;
	peer_data(o, addr, 0, 8);
	assert_int_equal(pp->announce_hint, 1);
	dcn_fc_announce(&f.x[1], o, t + 1);
	assert_int_equal(pp->announce_hint, 0);
	assert_int_equal(on_wire(o), 3);
	/* The same state again at each refresh, its repeats; then the
	 * next look is 100 intervals after the last. */
	t += 1;
	for (i = 1; i <= DCN_FC_CREDIT_REPEATS; i++) {
		dcn_fc_announce(&f.x[1], o, t + i * refresh - 1);
		assert_int_equal(on_wire(o), 3 + i - 1);
		dcn_fc_announce(&f.x[1], o, t + i * refresh);
		assert_int_equal(on_wire(o), 3 + i);
	}
	assert_int_equal(pp->announce_look_tsc,
			 t + (DCN_FC_CREDIT_REPEATS + 100) * refresh);
	dcn_fc_announce(&f.x[1], o, t + (DCN_FC_CREDIT_REPEATS + 100) * refresh);
	assert_int_equal(on_wire(o), 4 + DCN_FC_CREDIT_REPEATS);
}

/* Control frames are left for the caller's direct path, in order. */
static void
test_control_left_to_caller(void **state)
{
	uint32_t addr;
	uint16_t o = out_port_to("(2,0)", &addr);
	struct rte_mbuf *m[3];
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_HELLO, .len = 0 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		h.ttl = (uint8_t)i;
		m[i] = fabric_mbuf(&h, NULL);
	}
	assert_int_equal(dcn_fc_rx(&f.x[1], o, m, 3), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rte_pktmbuf_mtod(m[i], uint8_t *)[16], i);
		rte_pktmbuf_free(m[i]);
	}
}

/* --- every kind of frame in one burst ------------------------------- */

enum mix_kind { MIX_TRANSIT, MIX_LOCAL, MIX_HELLO, MIX_CREDIT, MIX_BAD, MIX_ARP,
		MIX_KINDS };

/* A data frame from src (the peer's side) for dst: an IPv4/UDP packet
 * from src to dst inside, numbered seq (its IPv4 identification). */
static struct rte_mbuf *
data_frame(uint32_t src, uint32_t dst, uint16_t seq, uint8_t version)
{
	struct dcn_fabric_hdr h = { .version = version, .type = DCN_FT_DATA,
				    .ttl = 16, .src = src, .dst = dst, .len = 46 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint16_t len = DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + 46;
	uint8_t *p, *ip;

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, len));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, len);
	memcpy(p, &mac0, 6);
	dcn_fabric_put16(p + 12, DCN_FABRIC_ETHERTYPE);
	dcn_fabric_write_hdr(p + DCN_ETHER_HDR_LEN, &h);
	ip = p + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;
	ip[0] = 0x45;
	dcn_fabric_put16(ip + 2, 46);
	dcn_fabric_put16(ip + 4, seq);
	ip[8] = 64;
	ip[9] = 17;
	dcn_fabric_put32(ip + 12, src);
	dcn_fabric_put32(ip + 16, dst);
	dcn_fabric_put16(ip + 10, rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip));
	return m;
}

/* The numbers (data_frame's seq) of what port o sent, in order; @return
 * how many. */
static unsigned int
wire_numbers(uint16_t o, uint32_t *seq, unsigned int max)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&m) == 0) {
		assert_true(n < max);
		seq[n++] = dcn_fabric_get16(rte_pktmbuf_mtod(m, uint8_t *) +
					    DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + 4);
		rte_pktmbuf_free(m);
	}
	return n;
}

/* Every credit frame port o has put on its wire, in order, taken by up
 * (a neighbour's state, its link 0; NULL: none) at now; the rest freed.
 * @return the credit frames, their epochs in epoch[] (room for 4). */
static unsigned int
credits_to(struct dcn_fc_node *up, uint16_t o, uint64_t now, uint32_t *epoch)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&m) == 0) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		struct dcn_fc_credit cr;

		if ((p[DCN_ETHER_HDR_LEN] & 0x0f) == DCN_FT_CREDIT) {
			frame_credit(p, &cr);
			if (up != NULL)
				dcn_fc_credit_rx(up, 0, &cr, now);
			assert_true(n < 4);
			epoch[n++] = cr.epoch;
		}
		rte_pktmbuf_free(m);
	}
	return n;
}

/* n data frames of VC 0 to addr from the peer on port o, received by
 * worker k; the host port's output sent and counted in *delivered. */
static void
data_from_peer(unsigned int k, uint16_t o, uint32_t near_addr, uint32_t addr,
	       unsigned int n, unsigned int *delivered)
{
	struct rte_mbuf *m[DCN_FC_BURST_MAX];
	unsigned int i;

	assert_true(n <= DCN_FC_BURST_MAX);
	for (i = 0; i < n; i++)
		m[i] = data_frame(near_addr, addr, (uint16_t)i, DCN_FABRIC_VERSION);
	assert_int_equal(dcn_fc_rx(&f.x[k], o, m, (uint16_t)n), 0);
	dcn_fc_send_waiting(&f.x[1], f.host);
	*delivered += on_wire(f.host);
	drain(f.port[f.host].tx_ring[0]);
}

/* The upstream neighbour of the kill tests: its one cable link's
 * state (2 VCs), which takes the relay's credit frames. */
static struct dcn_fc_node *
upstream(const char *id, uint32_t vertex)
{
	const struct dcn_fc_conf conf = { .in_queue = IN_QUEUE, .n_vcs = 2 };
	const uint8_t kind = DCN_FC_PORT_CREDIT;
	struct dcn_fc_node *up = dcn_fc_node_create(id, vertex, 1, &kind, NULL, NULL, &conf);

	assert_non_null(up);
	return up;
}

static uint64_t
ledger_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Killed and started again, twelve times, with the ledger: each start
 * speaks its dead predecessor's last word before its own first, and
 * the neighbour counts as lost with each incarnation exactly the frames
 * it sent that the dead one never freed: those on the way, in its input
 * queue, held for an output that had no room, not the ones it delivered
 * after its last credit frame (without the last word the neighbour
 * would count those too). Random counts each cycle: frames delivered
 * before and after the last credit frame, held, queued and never
 * routed, lost on the way.
 */
static void
test_last_word_after_kill(void **state)
{
	uint32_t self = dcn_topo_addr(f.t, f.node), near, far, last = 0, epoch[4];
	uint16_t o = out_port_to("(2,0)", &near);
	uint16_t out = out_port_to("(1,1)", &far);
	struct dcn_fc_node *up = upstream("t-up", 99);
	struct dcn_fc_chan *uc;
	uint64_t now = 1000000, rng = 0x2545f4914f6cdd1dull, exact = 0, bound = 0;
	uint64_t lost_inside = 0, all_lost = 0;
	unsigned int cycle;
	char path[64];

	(void)state;
	assert_int_not_equal(o, out);
	uc = dcn_fc_chan(up, 0, 0);
	snprintf(path, sizeof(path), "/tmp/dcn-test-ledger.%d", (int)getpid());
	unlink(path);
	assert_int_equal(dcn_fc_ledger_attach(&f.dp, path), 0);
	for (cycle = 0; cycle <= 12; cycle++) {
		unsigned int before = 1 + ledger_rand(&rng) % 40;
		unsigned int held = ledger_rand(&rng) % 50;
		unsigned int after = 1 + ledger_rand(&rng) % 20;
		unsigned int queued = ledger_rand(&rng) % 8;
		unsigned int on_way = ledger_rand(&rng) % 5;
		unsigned int delivered = 0, told, out_queued;
		uint32_t sent0;

		/* It speaks: after a start, the dead one's word first. */
		dcn_fc_announce(&f.x[1], o, now += 5000);
		assert_int_equal(credits_to(up, o, now, epoch), cycle ? 2 : 1);
		assert_int_equal(epoch[cycle ? 1 : 0], f.fn->epoch);
		if (cycle) {
			assert_int_equal(epoch[0], last);
			assert_int_equal(uc->lost_restart, exact);
			assert_true(exact < bound);
		}
		if (cycle == 12)
			break;
		/* The neighbour sends; not all arrive. */
		sent0 = uc->sent;
		dcn_fc_sent(uc, before + held + after + queued + on_way);
		data_from_peer(1, o, near, self, before, &delivered);
		data_from_peer(1, o, near, far, held, &delivered);
		dcn_fc_route_waiting(&f.x[1], o, 0);
		dcn_fc_announce(&f.x[1], o, now += 5000);
		credits_to(up, o, now, epoch);
		told = uc->peer_freed;
		data_from_peer(1, o, near, self, after, &delivered);
		dcn_fc_route_waiting(&f.x[1], o, 0);
		data_from_peer(0, o, near, self, queued, &delivered);
		/* Killed: what it never freed is lost with it. What it
		 * freed went to its host, or to the output with no room
		 * (its queue there, freed from the input: not the
		 * neighbour's to count). */
		assert_int_equal(delivered, before + after);
		out_queued = rte_ring_count(dcn_fc_chan(f.fn, out, 0)->out_q);
		exact += uc->sent - sent0 - delivered - out_queued;
		bound += uc->sent - sent0 - told;
		last = f.fn->epoch;
		dcn_fc_node_free(f.fn);
		fix_fc_make();
		assert_int_equal(dcn_fc_ledger_attach(&f.dp, path), 1);
		/* What it had queued for output, its next one counts. */
		assert_int_equal(f.fn->lost_queued_at_restart, out_queued);
		lost_inside += out_queued;
		all_lost += uc->sent - sent0 - delivered;
	}
	/* Every frame sent and not delivered counted once. */
	assert_int_equal(uc->lost_restart + lost_inside, all_lost);
	dcn_fc_node_free(up);
	unlink(path);
}

/* The ledger file as a kill at the snap.at-th send on a port would
 * leave it (a TX callback, run as the port's send begins), and what that
 * send put on the wire before the kill: the first snap.take frames (a
 * port takes a prefix), or all; later sends take nothing (0: no kill). */
static struct {
	char path[64];
	unsigned int calls, at, n, take;
	uint8_t bytes[1 << 16];
	ssize_t len;
	const struct rte_eth_rxtx_callback *cb;
} snap;

static uint16_t
snap_ledger(uint16_t port, uint16_t q, struct rte_mbuf **m, uint16_t n, void *arg)
{
	int fd;

	(void)port;
	(void)q;
	(void)m;
	(void)arg;
	if (snap.at == 0 || ++snap.calls < snap.at)
		return n;
	/* After the kill, nothing more leaves. */
	if (snap.calls > snap.at)
		return 0;
	fd = open(snap.path, O_RDONLY);
	assert_true(fd >= 0);
	snap.len = pread(fd, snap.bytes, sizeof(snap.bytes), 0);
	assert_true(snap.len > 0 && snap.len < (ssize_t)sizeof(snap.bytes));
	close(fd);
	snap.n = n;
	return (uint16_t)RTE_MIN(n, snap.take);
}

/* The fixture's port o made an ethdev (name) on its own rings, with the
 * snapshot hook; the ledger's file named after it. @return its port id. */
static uint16_t
snap_port_open(uint16_t o, const char *name)
{
	struct rte_ring *tx = f.port[o].tx_ring[0], *rx = f.port[o].rx_ring[0];
	struct rte_eth_conf ec = { 0 };
	int id = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);

	snprintf(snap.path, sizeof(snap.path), "/tmp/dcn-test-ledger-%s.%d", name,
		 (int)getpid());

	assert_true(id >= 0);
	assert_int_equal(rte_eth_dev_configure((uint16_t)id, 1, 1, &ec), 0);
	assert_int_equal(rte_eth_rx_queue_setup((uint16_t)id, 0, 64, 0, NULL, mp), 0);
	assert_int_equal(rte_eth_tx_queue_setup((uint16_t)id, 0, 64, 0, NULL), 0);
	assert_int_equal(rte_eth_dev_start((uint16_t)id), 0);
	snap.cb = rte_eth_add_tx_callback((uint16_t)id, 0, snap_ledger, NULL);
	assert_non_null(snap.cb);
	f.port[o].is_ethdev = 1;
	f.port[o].ethdev = (uint16_t)id;
	snap.take = UINT16_MAX;
	return (uint16_t)id;
}

static void
snap_port_close(uint16_t o, uint16_t id)
{
	f.port[o].is_ethdev = 0;
	rte_eth_remove_tx_callback(id, 0, snap.cb);
	assert_int_equal(rte_eth_dev_stop(id), 0);
	assert_int_equal(rte_eth_dev_close(id), 0);
}

/* The dead one's ledger, as the snapshot kept it, in place of the file:
 * the node made again, as a kill -9 and a start make it. @return the
 * start's links with a last word. */
static int
restart_from_snap(void)
{
	int fd;

	snap.at = 0;
	dcn_fc_node_free(f.fn);
	fd = open(snap.path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, snap.bytes, (size_t)snap.len, 0), snap.len);
	close(fd);
	fix_fc_make();
	return dcn_fc_ledger_attach(&f.dp, snap.path);
}

/*
 * Killed while a routing pass sends, as AF_XDP's send lets a kill land:
 * the kernel sends the frames, the process dies as the call returns, and
 * nothing after it runs. In one pass, b frames go to output "far" (sent
 * cut-through when its peer has granted credits, else queued) and then
 * a frames to the host port; the ledger is taken as the host's send
 * begins. The pass's input freed count is not written yet then: the
 * frames that went on before are in the ledger's pass count, and the
 * last word says them freed, so the neighbour writes off only the a
 * frames being sent, which the next incarnation says are in doubt. The
 * balance: counted = lost + in doubt, frame for frame, both ways (far
 * sending and far queued). Fails without the pass count (the b frames
 * counted by the neighbour too).
 */
static void
test_kill_in_a_send(void **state)
{
	uint32_t self = dcn_topo_addr(f.t, f.node), near, far, epoch[4];
	uint16_t o = out_port_to("(2,0)", &near);
	uint16_t out = out_port_to("(1,1)", &far);
	struct rte_ring *host_tx = f.port[f.host].tx_ring[0];
	uint64_t now = 1000000;
	unsigned int credited;
	uint16_t id;

	(void)state;
	assert_int_not_equal(o, out);
	id = snap_port_open(f.host, "t_host_snap");

	for (credited = 0; credited <= 1; credited++) {
		struct dcn_fc_node *up = upstream("t-up-s", 98);
		struct dcn_fc_chan *uc = dcn_fc_chan(up, 0, 0);
		unsigned int a = 5 + credited, b = 7 - credited, delivered = 0, i;
		struct rte_mbuf *m[DCN_FC_BURST_MAX];
		uint32_t sent0;

		unlink(snap.path);
		assert_int_equal(dcn_fc_ledger_attach(&f.dp, snap.path), 0);
		if (credited)
			credit_from_peer(out, 1, GRANT, 0);
		/* It speaks first: the neighbour's count starts at a base. */
		dcn_fc_announce(&f.x[1], o, now += 5000);
		assert_int_equal(credits_to(up, o, now, epoch), 1);
		sent0 = uc->sent;
		/* One burst, queued by worker 0, routed by worker 1 in one
		 * pass: the far frames first in it, the host's after. */
		dcn_fc_sent(uc, a + b);
		for (i = 0; i < b + a; i++)
			m[i] = data_frame(near, i < b ? far : self, (uint16_t)i,
					  DCN_FABRIC_VERSION);
		assert_int_equal(dcn_fc_rx(&f.x[0], o, m, (uint16_t)(a + b)), 0);
		snap.calls = 0;
		snap.at = 1;
		dcn_fc_route_waiting(&f.x[1], o, 0);
		assert_int_equal(snap.n, a);
		delivered = on_wire(f.host);
		assert_int_equal(delivered, a);
		assert_int_equal(on_wire(out), credited ? b : 0);
		drain(host_tx);
		drain(f.port[out].tx_ring[0]);
		/* Killed there: the next incarnation starts on that ledger. */
		assert_int_equal(restart_from_snap(), 1);
		dcn_fc_announce(&f.x[1], o, now += 5000);
		assert_int_equal(credits_to(up, o, now, epoch), 2);
		/* The frames being sent: counted by the neighbour, in doubt. */
		assert_int_equal(uc->lost_restart, a);
		assert_int_equal(f.fn->in_doubt_at_restart, a);
		/* The far frames: sent, or queued and lost with it. */
		assert_int_equal(f.fn->lost_queued_at_restart, credited ? 0 : b);
		assert_int_equal(uc->lost_restart + f.fn->lost_queued_at_restart -
					 f.fn->in_doubt_at_restart,
				 uc->sent - sent0 - delivered - (credited ? b : 0));
		/* A host port's send no peer settles: still in doubt. */
		assert_int_equal(f.fn->in_doubt_left + f.fn->in_doubt_lost, 0);
		dcn_fc_ledger_detach(f.fn);
		dcn_fc_node_free(up);
	}
	snap_port_close(f.host, id);
	unlink(snap.path);
}

/* Data frames on port o's wire, taken off it and freed, per VC into
 * n[2]; credit frames dropped. */
static void
data_off_wire(uint16_t o, uint32_t *n)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(f.port[o].tx_ring[0], (void **)&m) == 0) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		struct dcn_fabric_hdr h;

		dcn_fabric_read_hdr(p + DCN_ETHER_HDR_LEN, &h);
		if (h.type == DCN_FT_DATA) {
			assert_true(h.vc < 2);
			n[h.vc]++;
		}
		rte_pktmbuf_free(m);
	}
}

/*
 * Killed while a routing pass sends on a fabric cable, the port having
 * taken a prefix of the frames (none, some, all): the next incarnation
 * counts them in doubt, and the far peer's first word settles them:
 * what it counts as arrived beyond what the dead one had counted sent
 * left, the rest was lost. The balance is then exact: the upstream
 * neighbour's write-off, less those that left, is what never arrived.
 * A far peer that restarted as well (another epoch) settles nothing:
 * they stay in doubt. Fails without the ledger's sent counts (every
 * frame stays in doubt) or with a wrong base (the earlier frames taken
 * for the killed send's).
 */
static void
test_kill_in_a_fabric_send(void **state)
{
	static const unsigned int take[] = { 0, 3, 9, 9 };
	uint32_t near, far, epoch[4];
	uint16_t o = out_port_to("(2,0)", &near);
	uint16_t out = out_port_to("(1,1)", &far);
	uint64_t now = 1000000;
	unsigned int t;
	uint16_t id;

	(void)state;
	assert_int_not_equal(o, out);
	id = snap_port_open(out, "t_far_snap");
	for (t = 0; t < RTE_DIM(take); t++) {
		struct dcn_fc_node *up = upstream("t-up-f", 97);
		struct dcn_fc_chan *uc = dcn_fc_chan(up, 0, 0);
		const unsigned int before = 11, a = 9;
		/* A far peer of its own each round: its counts start at 0. */
		uint32_t far_rx[2] = { 0, 0 }, far_epoch = 7 + 2 * t, sent0;
		struct rte_mbuf *m[DCN_FC_BURST_MAX];
		unsigned int i;

		unlink(snap.path);
		assert_int_equal(dcn_fc_ledger_attach(&f.dp, snap.path), 0);
		/* The far peer's word first, then frames through to it. */
		credit_word(out, far_epoch, GRANT, far_rx);
		dcn_fc_announce(&f.x[1], o, now += 5000);
		assert_int_equal(credits_to(up, o, now, epoch), 1);
		sent0 = uc->sent;
		dcn_fc_sent(uc, before + a);
		for (i = 0; i < before; i++)
			m[i] = data_frame(near, far, (uint16_t)i, DCN_FABRIC_VERSION);
		assert_int_equal(dcn_fc_rx(&f.x[0], o, m, (uint16_t)before), 0);
		dcn_fc_route_waiting(&f.x[1], o, 0);
		data_off_wire(out, far_rx);
		assert_int_equal(far_rx[0] + far_rx[1], before);
		/* The next burst: killed in its send, the port taking the
		 * first take[t]. */
		for (i = 0; i < a; i++)
			m[i] = data_frame(near, far, (uint16_t)(before + i),
					  DCN_FABRIC_VERSION);
		assert_int_equal(dcn_fc_rx(&f.x[0], o, m, (uint16_t)a), 0);
		snap.calls = 0;
		snap.at = 1;
		snap.take = take[t];
		dcn_fc_route_waiting(&f.x[1], o, 0);
		assert_int_equal(snap.n, a);
		data_off_wire(out, far_rx);
		assert_int_equal(far_rx[0] + far_rx[1], before + take[t]);
		assert_int_equal(restart_from_snap(), 1);
		assert_int_equal(f.fn->in_doubt_at_restart, a);
		/* The upstream neighbour writes off all a: never freed. */
		dcn_fc_announce(&f.x[1], o, now += 5000);
		assert_int_equal(credits_to(up, o, now, epoch), 2);
		assert_int_equal(uc->lost_restart, a);
		/* The far peer's first word to the new one settles them. */
		if (t == 3)
			far_epoch += 100;
		credit_word(out, far_epoch, GRANT, far_rx);
		if (t == 3) {
			assert_int_equal(f.fn->in_doubt_left + f.fn->in_doubt_lost, 0);
		} else {
			assert_int_equal(f.fn->in_doubt_left, take[t]);
			assert_int_equal(f.fn->in_doubt_lost, a - take[t]);
			assert_int_equal(uc->lost_restart - f.fn->in_doubt_left,
					 uc->sent - sent0 - (far_rx[0] + far_rx[1]));
		}
		/* Once: the next word settles nothing more. */
		credit_word(out, far_epoch, GRANT, far_rx);
		assert_int_equal(f.fn->in_doubt_left, t == 3 ? 0 : take[t]);
		data_off_wire(out, far_rx);
		drain(f.port[o].tx_ring[0]);
		dcn_fc_ledger_detach(f.fn);
		dcn_fc_node_free(up);
	}
	snap_port_close(out, id);
	unlink(snap.path);
}

/*
 * A ledger is read only when it is the node's own: a file of garbage, a
 * file kept by another vertex, and one cut short give no last word (and
 * are made this node's); a path that cannot be opened leaves the node
 * running without one, its counts kept in its channels.
 */
static void
test_ledger_not_ours(void **state)
{
	uint32_t near, self = dcn_topo_addr(f.t, f.node), epoch[4];
	uint16_t o = out_port_to("(2,0)", &near);
	unsigned int delivered = 0;
	char path[64];
	FILE *fp;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/dcn-test-ledger-x.%d", (int)getpid());
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("not a ledger at all, but long enough to hold a head or two.....", fp);
	fclose(fp);
	assert_int_equal(dcn_fc_ledger_attach(&f.dp, path), 0);
	assert_int_equal(dcn_fc_ledger_attach(&f.dp, path), -EEXIST);
	data_from_peer(1, o, near, self, 5, &delivered);
	assert_int_equal(delivered, 5);
	/* Kept by another vertex. */
	dcn_fc_node_free(f.fn);
	f.node++;
	fix_fc_make();
	assert_int_equal(dcn_fc_ledger_attach(&f.dp, path), 0);
	dcn_fc_announce(&f.x[1], o, 5000);
	assert_int_equal(credits_to(NULL, o, 5000, epoch), 1);
	assert_int_equal(epoch[0], f.fn->epoch);
	/* Its own, cut short. */
	data_from_peer(1, o, near, self, 5, &delivered);
	dcn_fc_node_free(f.fn);
	fix_fc_make();
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 40), 0);
	close(fd);
	assert_int_equal(dcn_fc_ledger_attach(&f.dp, path), 0);
	f.node--;
	/* Nowhere to keep it. */
	dcn_fc_node_free(f.fn);
	fix_fc_make();
	assert_int_equal(dcn_fc_ledger_attach(&f.dp, "/nonexistent-dir/ledger"), -ENOENT);
	assert_null(f.fn->ledger);
	assert_ptr_equal(dcn_fc_chan(f.fn, o, 0)->keep, &dcn_fc_chan(f.fn, o, 0)->keep_here);
	assert_ptr_equal(f.dp.out_keep, f.dp.out_here);
	data_from_peer(1, o, near, self, 3, &delivered);
	assert_int_equal(dcn_fc_chan(f.fn, o, 0)->keep_here.freed, 3);
	unlink(path);
}

/*
 * Bursts of 1 to 64 frames received on a cable, of every kind mixed:
 * transit data, data for this relay's host, hellos, the peer's credit
 * frames, data of an unknown header version, ARP; then bursts of transit
 * frames alone and of local frames alone (the usual burst's own path).
 * Each frame ends where its kind says, once: transit frames on the
 * output cable in their order, local ones on the host port, hellos and
 * ARP back to the caller in their order, credit frames taken, the bad
 * ones dropped and counted; nothing stays queued, no mbuf is lost.
 */
static void
test_mixed_bursts(void **state)
{
	uint32_t far, near;
	uint16_t o = out_port_to("(2,0)", &far), in = out_port_to("(0,0)", &near);
	uint32_t self = dcn_topo_addr(f.t, f.node), seen_o = 0;
	uint16_t seq = 1;
	struct dcn_fc_chan *c_in = dcn_fc_chan(f.fn, in, 0);
	const struct dcn_fwd_stats *st = &f.fwd[1].st;
	unsigned int pattern, n, i, k;

	(void)state;
	assert_int_not_equal(o, in);
	for (pattern = 0; pattern < 3; pattern++)
		for (n = 1; n <= DCN_FC_BURST_MAX; n++) {
			struct rte_mbuf *m[DCN_FC_BURST_MAX], *other[DCN_FC_BURST_MAX];
			uint32_t sent_t[DCN_FC_BURST_MAX], got[DCN_FC_BURST_MAX];
			unsigned int count[MIX_KINDS] = { 0 }, n_other = 0, n_t = 0, got_n;
			uint64_t bad0 = st->drop[DCN_DROP_BAD_VERSION];
			uint64_t credit0 = c_in->credit_rx;
			uint16_t left;

			credit_from_peer(o, 7, GRANT, seen_o);
			for (i = 0; i < n; i++) {
				enum mix_kind kd = pattern == 1 ? MIX_TRANSIT :
						   pattern == 2 ? MIX_LOCAL :
						   (enum mix_kind)((i * 5 + n) % MIX_KINDS);
				struct dcn_fabric_hdr hh = { .version = DCN_FABRIC_VERSION,
							     .type = DCN_FT_HELLO };
				struct dcn_fc_credit cr = { .epoch = 9, .grant = GRANT,
							    .n_vcs = 2 };

				switch (kd) {
				case MIX_TRANSIT:
					sent_t[n_t++] = seq;
					m[i] = data_frame(near, far, seq++, DCN_FABRIC_VERSION);
					break;
				case MIX_LOCAL:
					m[i] = data_frame(near, self, seq++, DCN_FABRIC_VERSION);
					break;
				case MIX_HELLO:
					m[i] = other[n_other++] = fabric_mbuf(&hh, NULL);
					break;
				case MIX_CREDIT:
					m[i] = credit_mbuf(&cr);
					break;
				case MIX_BAD:
					m[i] = data_frame(near, far, seq++, 15);
					break;
				default:
					m[i] = other[n_other++] = arp_frame();
					break;
				}
				count[kd]++;
			}
			left = dcn_fc_rx(&f.x[1], in, m, (uint16_t)n);
			assert_int_equal(left, n_other);
			for (k = 0; k < left; k++) {
				assert_ptr_equal(m[k], other[k]);
				rte_pktmbuf_free(m[k]);
			}
			/* More transit frames than the grant wait for the
			 * peer's next credit frame. */
			for (k = 0, got_n = 0; k < 4 && got_n < n_t; k++) {
				dcn_fc_route(&f.x[1], in);
				dcn_fc_send(&f.x[1], o);
				dcn_fc_send(&f.x[1], f.host);
				got_n += wire_numbers(o, &got[got_n], DCN_FC_BURST_MAX - got_n);
				credit_from_peer(o, 7, GRANT, seen_o + got_n);
			}
			assert_int_equal(got_n, n_t);
			for (k = 0; k < n_t; k++)
				assert_int_equal(got[k], sent_t[k]);
			seen_o += n_t;
			assert_int_equal(rte_ring_count(f.port[f.host].tx_ring[0]),
					 count[MIX_LOCAL]);
			drain(f.port[f.host].tx_ring[0]);
			assert_int_equal(st->drop[DCN_DROP_BAD_VERSION] - bad0, count[MIX_BAD]);
			assert_int_equal(c_in->credit_rx - credit0, count[MIX_CREDIT]);
			for (k = 0; k < f.fn->n_chans; k++) {
				assert_int_equal(dcn_fc_in_depth(&f.fn->chan[k]), 0);
				assert_int_equal(rte_ring_count(f.fn->chan[k].out_q), 0);
			}
		}
}

/*
 * A cable's burst whose frames change channel part-way (VC 0, then VC 1,
 * a runt among them): routed at once, the forwarding step checking each
 * frame's channel as it reads it (dcn_fwd_burst_chan), it stops at the
 * first of another channel, and the rest is sorted as before. Each input
 * channel counts its own frames as arrived, every frame leaves once, each
 * VC's in its order, and the runt goes back to the caller untouched.
 */
static struct dcn_fwd_cache_entry chan_cache[64];

static void
test_burst_changes_channel(void **state)
{
	uint32_t far, near;
	uint16_t o = out_port_to("(2,0)", &far), in = out_port_to("(0,0)", &near);
	const uint32_t no_arrivals[2] = { 0, 0 };
	struct dcn_fc_chan *c_in0 = dcn_fc_chan(f.fn, in, 0), *c_in1 = dcn_fc_chan(f.fn, in, 1);
	uint32_t a0 = c_in0->arrived, a1 = c_in1->arrived, got[64], last[2] = { 0, 0 };
	uint32_t sent_o[2] = { 0, 0 };
	uint64_t misses = 0;
	struct rte_mbuf *m[40], *runt = NULL;
	unsigned int i, k, got_n = 0, round;
	uint16_t seq = 1;

	(void)state;
	/* With a route cache, as a relay runs: the forwarding step's fast
	 * path checks the channel with the rest of a data frame. Two
	 * rounds, the second from the cache. */
	assert_int_equal(dcn_fwd_set_cache(&f.fwd[1], chan_cache, RTE_DIM(chan_cache)), 0);
	credit_word(o, 7, GRANT, no_arrivals);
	for (round = 0; round < 2; round++) {
	for (i = 0; i < 40; i++) {
		if (i == 25) {
			/* Too short for a channel, whatever the bytes past
			 * its end say (those of a frame of VC 1 here). */
			m[i] = runt = data_frame(near, far, 0, DCN_FABRIC_VERSION);
			rte_pktmbuf_mtod(runt, uint8_t *)[DCN_ETHER_HDR_LEN + 1] |= 1;
			rte_pktmbuf_trim(runt, (uint16_t)(rte_pktmbuf_data_len(runt) - 12));
			continue;
		}
		m[i] = data_frame(near, far, seq++, DCN_FABRIC_VERSION);
		/* VC 1: bit 0 of the header's byte 1. */
		if (i >= 15)
			rte_pktmbuf_mtod(m[i], uint8_t *)[DCN_ETHER_HDR_LEN + 1] |= 1;
	}
	assert_int_equal(dcn_fc_rx(&f.x[1], in, m, 40), 1);
	assert_ptr_equal(m[0], runt);
	assert_int_equal(rte_pktmbuf_data_len(runt), 12);
	rte_pktmbuf_free(runt);
	assert_int_equal(c_in0->arrived - a0, 15);
	assert_int_equal(c_in1->arrived - a1, 24);
	a0 = c_in0->arrived;
	a1 = c_in1->arrived;
	for (k = 0, got_n = 0; k < 4 && got_n < 39; k++) {
		dcn_fc_route(&f.x[1], in);
		dcn_fc_send(&f.x[1], o);
		got_n += wire_numbers(o, &got[got_n], 64 - got_n);
		/* The peer frees all that came. */
		sent_o[0] = dcn_fc_chan(f.fn, o, 0)->sent;
		sent_o[1] = dcn_fc_chan(f.fn, o, 1)->sent;
		credit_word(o, 7, GRANT, sent_o);
	}
	assert_int_equal(got_n, 39);
	for (i = 0; i < got_n; i++) {
		unsigned int vc = (got[i] - 1) % 39 >= 15;

		assert_true(got[i] > last[vc]);
		last[vc] = got[i];
	}
	for (k = 0; k < f.fn->n_chans; k++)
		assert_int_equal(dcn_fc_in_depth(&f.fn->chan[k]), 0);
	/* The second round from the cache alone. */
	if (round == 0)
		misses = f.fwd[1].cache_miss;
	}
	assert_true(misses > 0);
	assert_int_equal(f.fwd[1].cache_miss, misses);
	dcn_fwd_set_cache(&f.fwd[1], NULL, 0);
}

/* --- a relay behind L2 switches: RRect(4,2,1), relay 00, whose two
 * switches have 8 ports --- */

#define SW_LINKS 7                  /* neighbours behind each switch */
#define SW_SHARE (IN_QUEUE / SW_LINKS)
#define SW_GRANT (SW_SHARE * 80 / 100)

static int
sw_open(void **state)
{
	(void)state;
	fix_build("rrect:n=4,m=2,k=1", DCN_ALGO_RRECT, "00", &sw_nbrs);
	return 0;
}

static int
sw_close(void **state)
{
	fix_close(state);
	dcn_fwd_nbrs_free(&sw_nbrs);
	return 0;
}

/* The neighbour-table entry of vertex name behind local port 0. */
static const struct dcn_fwd_nbr *
sw_nbr(const char *name)
{
	const struct dcn_fwd_nbr *e =
		dcn_fwd_nbr_find(&sw_nbrs, vertex_or_fail(f.t, name),
				 (uint16_t)f.fwd[0].port[0].fabric_port);

	assert_non_null(e);
	return e;
}

/* A fabric frame of type type from src to dst, as a switch delivers it
 * on port 0. */
static struct rte_mbuf *
sw_frame(const struct rte_ether_addr *src, const struct rte_ether_addr *dst,
	 uint8_t type)
{
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION, .type = type };
	struct rte_mbuf *m = fabric_mbuf(&h, NULL);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	return m;
}

static struct rte_mbuf *
sw_credit(const struct rte_ether_addr *src, const struct rte_ether_addr *dst,
	  uint32_t grant, uint32_t freed0)
{
	struct dcn_fc_credit cr = { .epoch = 9, .grant = grant, .n_vcs = 2,
				    .freed = { freed0, 0 }, .arrived = { freed0, 0 } };
	struct rte_mbuf *m = credit_mbuf(&cr);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	return m;
}

/* A switch port has a link per neighbour, each with an equal share of the
 * port's input queue; the links are named after the neighbours. */
static void
test_switch_links(void **state)
{
	uint16_t l = f.fn->port_link[0];
	unsigned int k;

	(void)state;
	assert_int_equal(f.fn->n_links, 2 * SW_LINKS + 1);
	assert_int_equal(f.fn->port_links[0], SW_LINKS);
	assert_int_equal(f.fn->port_links[f.host], 1);
	for (k = 0; k < SW_LINKS; k++) {
		const struct dcn_fc_chan *c = dcn_fc_chan(f.fn, (uint16_t)(l + k), 1);

		assert_int_equal(c->in_cap, SW_SHARE);
		assert_int_equal(c->grant, SW_GRANT);
		/* A credit frame once a VC has freed a quarter of the
		 * link's grant (1 here), not the node's batch of 8, which
		 * the link's peer could never send: its credits would come
		 * back only on the refresh. */
		assert_int_equal(f.dp.link[l + k].batch, 1);
		assert_non_null(dcn_fc_link_neighbour(f.fn, (uint16_t)(l + k)));
		assert_int_equal(f.fn->link_port[l + k], 0);
	}
	/* The host port's link, its whole queue granted: the batch of 8. */
	assert_int_equal(f.dp.link[f.fn->port_link[f.host]].batch, 8);
	assert_int_equal(dcn_fc_dp_nbr_link(&f.dp, sw_nbr("02")) >= l, 1);
	assert_string_equal(dcn_fc_link_neighbour(f.fn, (uint16_t)dcn_fc_dp_nbr_link(
						  &f.dp, sw_nbr("02"))), "02");
}

/* Received data goes to the link of its source MAC, in that neighbour's
 * share; data from a MAC no neighbour has is dropped and counted (it
 * holds no credit, so it could overflow the shares); data for another
 * MAC (flooded by the switch) is left to the forwarding step, which
 * drops it as such. */
static void
test_switch_rx_by_source(void **state)
{
	struct rte_ether_addr a = nbr_mac(sw_nbr("01")), b = nbr_mac(sw_nbr("03"));
	struct rte_ether_addr stranger = { { 0x02, 0x77, 0, 0, 0, 1 } };
	uint16_t la = (uint16_t)dcn_fc_dp_nbr_link(&f.dp, sw_nbr("01"));
	uint16_t lb = (uint16_t)dcn_fc_dp_nbr_link(&f.dp, sw_nbr("03"));
	struct rte_mbuf *m[6];
	unsigned int i;

	(void)state;
	m[0] = sw_frame(&a, &mac0, DCN_FT_DATA);
	m[1] = sw_frame(&b, &mac0, DCN_FT_DATA);
	m[2] = sw_frame(&a, &mac0, DCN_FT_DATA);
	m[3] = sw_frame(&stranger, &mac0, DCN_FT_DATA);
	m[4] = sw_frame(&a, &b, DCN_FT_DATA);
	m[5] = sw_frame(&b, &mac0, DCN_FT_DATA);
	/* Worker 0 owns nothing: frames wait in their input queues. */
	assert_int_equal(dcn_fc_rx(&f.x[0], 0, m, 6), 1);
	assert_int_equal(rte_ring_count(dcn_fc_chan(f.fn, la, 0)->in_q), 2);
	assert_int_equal(rte_ring_count(dcn_fc_chan(f.fn, lb, 0)->in_q), 2);
	assert_int_equal(f.x[0].st[0].unknown_src, 1);
	/* The one left over is the frame for b's MAC. */
	assert_int_equal(memcmp(rte_pktmbuf_mtod(m[0], uint8_t *), &b, 6), 0);
	rte_pktmbuf_free(m[0]);
	/* a's link goes down (no MAC to send to), and what a sent before
	 * still arrives: a's own, on a's link, counted as arrived there (its
	 * credit frames count it as sent), not a stranger's. */
	__atomic_store_n(&((struct dcn_fwd_nbr *)(uintptr_t)sw_nbr("01"))->mac, 0,
			 __ATOMIC_RELEASE);
	m[0] = sw_frame(&a, &mac0, DCN_FT_DATA);
	assert_int_equal(dcn_fc_rx(&f.x[0], 0, m, 1), 0);
	assert_int_equal(rte_ring_count(dcn_fc_chan(f.fn, la, 0)->in_q), 3);
	assert_int_equal(f.x[0].st[0].unknown_src, 1);
	for (i = 0; i < f.fn->n_chans; i++)
		drain(f.fn->chan[i].in_q);
}

/* A credit frame from a neighbour grants its link alone; one addressed to
 * another node (flooded) is not ours to take; one from no neighbour is
 * refused and counted. Routed frames then leave for a neighbour only
 * within its credits, while frames for another neighbour of the same
 * port go on. */
static void
test_switch_credits_per_neighbour(void **state)
{
	const struct dcn_fwd_nbr *ea = sw_nbr("01"), *eb = sw_nbr("02");
	struct rte_ether_addr a = nbr_mac(ea), b = nbr_mac(eb);
	struct rte_ether_addr stranger = { { 0x02, 0x77, 0, 0, 0, 1 } };
	uint16_t la = (uint16_t)dcn_fc_dp_nbr_link(&f.dp, ea);
	uint16_t lb = (uint16_t)dcn_fc_dp_nbr_link(&f.dp, eb);
	uint16_t l0 = f.fn->port_link[0];
	struct rte_mbuf *m[3];
	struct dcn_fc_chan *out_a, *out_b;

	(void)state;
	m[0] = sw_credit(&a, &b, 10, 0);        /* flooded: for b */
	m[1] = sw_credit(&stranger, &mac0, 10, 0);
	assert_int_equal(dcn_fc_rx(&f.x[1], 0, m, 2), 0);
	assert_int_equal(dcn_fc_chan(f.fn, la, 0)->peer_known, 0);
	assert_int_equal(dcn_fc_chan(f.fn, l0, 0)->credit_unknown, 1);
	/* A grant of 11: VC 0 alone may send 10 of it (VC 1 keeps 1). */
	m[0] = sw_credit(&a, &mac0, 11, 0);
	assert_int_equal(dcn_fc_rx(&f.x[1], 0, m, 1), 0);
	out_a = dcn_fc_chan(f.fn, la, 0);
	out_b = dcn_fc_chan(f.fn, lb, 0);
	assert_int_equal(dcn_fc_credits(out_a), 10);
	assert_int_equal(dcn_fc_credits(out_b), 0);
	/* 20 host packets to 01, 20 to 02: one hop each, over the switch
	 * of port 0 (VC 0: no relay hop taken yet). */
	assert_int_equal(receive_host(1, dcn_topo_addr(f.t, ea->vertex), 20), 0);
	assert_int_equal(receive_host(1, dcn_topo_addr(f.t, eb->vertex), 20), 0);
	dcn_fc_send(&f.x[1], 0);
	assert_int_equal(out_a->sent, 10);
	assert_int_equal(out_b->sent, 0);
	assert_int_equal(rte_ring_count(out_a->out_q), 10);
	assert_int_equal(rte_ring_count(out_b->out_q), 20);
	m[0] = sw_credit(&b, &mac0, 30, 0);
	assert_int_equal(dcn_fc_rx(&f.x[1], 0, m, 1), 0);
	dcn_fc_send(&f.x[1], 0);
	assert_int_equal(out_b->sent, 20);
	assert_int_equal(out_a->sent, 10);
	assert_int_equal(on_wire(0), 30);
	{
		struct rte_mbuf *w[30];
		unsigned int i, to_a = 0, to_b = 0;

		assert_int_equal(rte_ring_dequeue_bulk(f.port[0].tx_ring[0], (void **)w,
						       30, NULL), 30);
		for (i = 0; i < 30; i++) {
			to_a += memcmp(rte_pktmbuf_mtod(w[i], uint8_t *), &a, 6) == 0;
			to_b += memcmp(rte_pktmbuf_mtod(w[i], uint8_t *), &b, 6) == 0;
		}
		assert_int_equal(to_a, 10);
		assert_int_equal(to_b, 20);
		rte_pktmbuf_free_bulk(w, 30);
	}
}

/* One burst to two neighbours behind the same switch port, in turns:
 * every frame has the same output port and channel key, and yet its
 * link is its MAC's. Each link is charged its own frames, and each
 * neighbour's credits hold its own (a key met before stands for no
 * channel behind a switch). */
static void
test_switch_burst_in_turns(void **state)
{
	const struct dcn_fwd_nbr *ea = sw_nbr("01"), *eb = sw_nbr("02");
	struct rte_ether_addr a = nbr_mac(ea), b = nbr_mac(eb);
	uint16_t la = (uint16_t)dcn_fc_dp_nbr_link(&f.dp, ea);
	uint16_t lb = (uint16_t)dcn_fc_dp_nbr_link(&f.dp, eb);
	const uint32_t to[2] = { dcn_topo_addr(f.t, ea->vertex),
				 dcn_topo_addr(f.t, eb->vertex) };
	struct dcn_fc_chan *out_a = dcn_fc_chan(f.fn, la, 0);
	struct dcn_fc_chan *out_b = dcn_fc_chan(f.fn, lb, 0);
	struct rte_mbuf *m[2], *w[40];
	unsigned int i, to_a = 0, to_b = 0;

	(void)state;
	/* Grants of 7 and 30: VC 0 alone may send 6 and 27. */
	m[0] = sw_credit(&a, &mac0, 7, 0);
	m[1] = sw_credit(&b, &mac0, 30, 0);
	assert_int_equal(dcn_fc_rx(&f.x[1], 0, m, 2), 0);
	assert_int_equal(receive_host_numbered(1, to, 2, 40, 1), 0);
	dcn_fc_send(&f.x[1], 0);
	assert_int_equal(out_a->sent, 6);
	assert_int_equal(out_b->sent, 20);
	assert_int_equal(rte_ring_count(out_a->out_q), 14);
	assert_int_equal(rte_ring_count(out_b->out_q), 0);
	assert_int_equal(on_wire(0), 26);
	assert_int_equal(rte_ring_dequeue_bulk(f.port[0].tx_ring[0], (void **)w, 26, NULL),
			 26);
	for (i = 0; i < 26; i++) {
		to_a += memcmp(rte_pktmbuf_mtod(w[i], uint8_t *), &a, 6) == 0;
		to_b += memcmp(rte_pktmbuf_mtod(w[i], uint8_t *), &b, 6) == 0;
	}
	assert_int_equal(to_a, 6);
	assert_int_equal(to_b, 20);
	rte_pktmbuf_free_bulk(w, 26);
}

/* Credit frames go to each neighbour alone, addressed to its MAC, with
 * that link's freed counts; a neighbour whose MAC is not known yet gets
 * none (a broadcast would speak for every link on the switch). */
static void
test_switch_announce_unicast(void **state)
{
	const struct dcn_fwd_nbr *ea = sw_nbr("01"), *ec = sw_nbr("03");
	struct rte_ether_addr a = nbr_mac(ea);
	uint16_t la = (uint16_t)dcn_fc_dp_nbr_link(&f.dp, ea);
	struct rte_ether_addr none = { { 0 } };
	struct rte_mbuf *m[2 * SW_LINKS];
	struct dcn_fc_credit cr;
	unsigned int n, i, to_a = 0;

	(void)state;
	dcn_fwd_nbr_set_mac((struct dcn_fwd_nbr *)(uintptr_t)ec, &none);
	__atomic_store_n(&dcn_fc_chan(f.fn, la, 1)->freed, 12, __ATOMIC_RELEASE);
	dcn_fc_announce(&f.x[1], 0, 1000000);
	n = rte_ring_dequeue_burst(f.port[0].tx_ring[0], (void **)m, 2 * SW_LINKS, NULL);
	assert_int_equal(n, SW_LINKS - 1);
	for (i = 0; i < n; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);

		assert_false(p[0] & 1);
		if (memcmp(p, &a, 6) != 0)
			continue;
		to_a++;
		frame_credit(p, &cr);
		assert_int_equal(cr.freed[1], 12);
		assert_int_equal(cr.grant, SW_GRANT);
	}
	assert_int_equal(to_a, 1);
	rte_pktmbuf_free_bulk(m, n);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_output_full_holds,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_burst_through_queues,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_host_burst_one_chan,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_full_input_queue,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_cut_through_port_full,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_burst_beyond_share,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_burst_two_outputs,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_held_two_outputs,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_held_drains_in_one_pass,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_held_list_moves_on,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_credits_exhausted_and_returned,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_kill_in_a_fabric_send, fix_open,
						fix_close),
		cmocka_unit_test_setup_teardown(test_kill_in_a_send, fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_last_word_after_kill, fix_open,
						fix_close),
		cmocka_unit_test_setup_teardown(test_ledger_not_ours, fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_lost_credit_frame_repaired,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_signed_credits,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_link_down_drops_queued,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_control_left_to_caller,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_mixed_bursts, fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_burst_changes_channel, fix_open,
						fix_close),
		cmocka_unit_test_setup_teardown(test_parked_waits_for_table, fix_open,
						fix_close),
		cmocka_unit_test_setup_teardown(test_sent_counts_after_data,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_credit_batch_per_vc,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_pool_two_vcs, fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_announce_looks_when_due,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_credit_among_data,
						fix_open, fix_close),
		cmocka_unit_test_setup_teardown(test_lanes_run_to_completion,
						fix_open_lanes, fix_close),
		cmocka_unit_test_setup_teardown(test_lanes_route_own,
						fix_open_lanes, fix_close),
		cmocka_unit_test_setup_teardown(test_lanes_credit_sums,
						fix_open_lanes, fix_close),
		cmocka_unit_test_setup_teardown(test_senders_share_credits,
						fix_open_senders, fix_close),
		cmocka_unit_test_setup_teardown(test_senders_port_full,
						fix_open_senders, fix_close),
		cmocka_unit_test(test_senders_claims_race),
		cmocka_unit_test(test_pool_claims_race),
		cmocka_unit_test_setup_teardown(test_switch_links, sw_open, sw_close),
		cmocka_unit_test_setup_teardown(test_switch_rx_by_source,
						sw_open, sw_close),
		cmocka_unit_test_setup_teardown(test_switch_credits_per_neighbour,
						sw_open, sw_close),
		cmocka_unit_test_setup_teardown(test_switch_announce_unicast,
						sw_open, sw_close),
		cmocka_unit_test_setup_teardown(test_switch_burst_in_turns,
						sw_open, sw_close),
	};
	int ret;

	(void)argc;
	ret = test_eal_start(argv[0], "fc_dp", 4095, &mp);
	if (ret != 0)
		return ret;
	if (dcn_fc_mbuf_register() != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	test_eal_stop(mp);
	return ret;
}
