/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send: each sender of a port (its owner, and with lanes any worker
 * given its own output queues there) sends its output queues, each in
 * turn, as far as the peer's credits and the port allow; a port whose
 * link is down has its queues dropped, counted.
 */
#include "fc_dp_priv.h"

/* The port's link is down: what waits for it will not go. Drop it,
 * counted, and give the inputs their internal credits back, so frames
 * routed elsewhere since are not held up. */
static unsigned int
flush_down(struct dcn_fc_wnode *x, uint16_t local)
{
	struct dcn_fc_node *fn = x->dp->fn;
	uint32_t ci = dcn_fc_port_chan0(fn, local);
	uint32_t end = dcn_fc_port_chan_end(fn, local);
	unsigned int total = 0;

	for (; ci < end; ci++) {
		struct dcn_fc_chan *c = &fn->chan[ci];
		struct rte_ring *q = out_lane(x, ci, local)->out_q;
		struct rte_mbuf *m[DCN_FC_BURST_MAX];
		uint16_t src[DCN_FC_BURST_MAX];
		uint32_t n, k;

		while ((n = rte_ring_dequeue_burst(q, (void **)m,
						   DCN_FC_BURST_MAX, NULL)) > 0) {
			for (k = 0; k < n; k++)
				src[k] = (uint16_t)*DCN_FC_MBUF_FIELD(m[k]);
			rte_pktmbuf_free_bulk(m, n);
			ic_return_runs(c, src, n);
			keep_out(x)->left += n;
			x->st[local].down_drop += n;
			total += n;
		}
	}
	return total;
}

/* Bursts one pass may send from an output queue: more than the one burst
 * a pass routes in, so that a backlog drains, the queue empties and
 * cut-through resumes (a queue that only kept pace would never empty,
 * and every frame behind it would go through it). */
#define SEND_BURSTS 4

unsigned int
dcn_fc_send_waiting(struct dcn_fc_wnode *x, uint16_t local)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_dp_port *pp = &x->dp->port[local];
	struct dcn_fc_dp_sender *sd = &pp->sender[x->sender[local]];
	uint32_t first = dcn_fc_port_chan0(fn, local);
	uint32_t count = dcn_fc_port_chan_end(fn, local) - first, i, k0;
	unsigned int total = 0, left = 0;

	/* Cleared before the look, as dcn_fc_route_waiting does. */
	__atomic_store_n(&sd->out_waiting, 0, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&pp->port->link_down, __ATOMIC_ACQUIRE)))
		return flush_down(x, local);
	/* Take turns at which channel goes first, so none starves the
	 * others. */
	k0 = sd->send_turn < count ? sd->send_turn : 0;
	sd->send_turn = k0 + 1;
	for (i = 0; i < count; i++, k0 = k0 + 1 < count ? k0 + 1 : 0) {
		uint32_t oc = first + k0;
		struct dcn_fc_chan *c = &fn->chan[oc], *q = out_lane(x, oc, local);
		struct rte_mbuf *m[DCN_FC_BURST_MAX];
		uint16_t src[DCN_FC_BURST_MAX];
		uint32_t n, sent, k, b;

		if (rte_ring_empty(q->out_q))
			continue;
		/* No credit: counted as chan_tx would, without a look at the
		 * frames (a stalled channel is looked at every pass). */
		if (dcn_fc_kind_credited(fn->kind[local]) && !credit_any(fn, c, local)) {
			q->stalls++;
			left = 1;
			continue;
		}
		for (b = 0; b < SEND_BURSTS; b++) {
			n = rte_ring_dequeue_burst_start(q->out_q, (void **)m,
							 x->dp->burst, NULL);
			for (k = 0; k < n; k++)
				src[k] = (uint16_t)*DCN_FC_MBUF_FIELD(m[k]);
			sent = chan_tx(x, oc, local, m, n, &keep_out(x)->left);
			/* What was not sent stays at the queue's head. */
			rte_ring_dequeue_finish(q->out_q, sent);
			ic_return_runs(c, src, sent);
			total += sent;
			/* Short: the queue emptied, or credits or the port
			 * ran out. */
			if (sent < x->dp->burst)
				break;
		}
		left |= !rte_ring_empty(q->out_q);
	}
	if (left)
		__atomic_store_n(&sd->out_waiting, 1, __ATOMIC_RELAXED);
	return total;
}
