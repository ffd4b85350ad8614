/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_WORKER_H
#define DCNFWD_WORKER_H

/*
 * The worker loop: receive a burst from each RX queue it polls and hand it
 * to the queue's handler (a node's forwarding step, or in emulation a
 * switch or a host), buffer what goes out per port, and flush the buffers
 * when full or when the drain timer fires. With flow control on, a node's
 * data frames go through lib/fc's queues instead of the buffers.
 */

#include "dcnfwd.h"

/* An lcore's loop; arg is its struct dcnfwd_worker. */
int dcnfwd_worker_main(void *arg);

/* The handler of a node port's RX queue. */
void dcnfwd_node_rx(struct dcnfwd_worker *w, uint32_t pi, uint16_t queue,
		    struct rte_mbuf **m, uint16_t n, uint64_t now);

/* Send n frames of m on port pi (w's TX queue), counted; what the port
 * refuses is freed (nothing holds it on these paths). @return frames
 * refused, for the caller to count where they belong. */
static inline uint16_t
dcnfwd_port_send(struct dcnfwd_worker *w, uint32_t pi, struct rte_mbuf **m, uint16_t n)
{
	const struct dcn_port *p = &w->d->port[pi].dp;
	uint16_t sent;

	dcn_port_lat_note(&w->fcw.lat, m, n);
	sent = dcn_port_tx(p, dcn_port_txq(p, w->idx), m, n);

	w->pst[pi].tx += sent;
	if (unlikely(sent < n))
		rte_pktmbuf_free_bulk(&m[sent], n - sent);
	return (uint16_t)(n - sent);
}

/* Send what the buffer of port pi holds. */
static inline void
dcnfwd_txb_flush(struct dcnfwd_worker *w, uint32_t pi)
{
	struct dcnfwd_txbuf *b = &w->txb[pi];

	if (b->n == 0)
		return;
	w->pst[pi].tx_drop += dcnfwd_port_send(w, pi, b->m, b->n);
	b->n = 0;
}

/* Buffer m for port pi; a full buffer goes at once. */
static inline void
dcnfwd_txb_add(struct dcnfwd_worker *w, uint32_t pi, struct rte_mbuf *m)
{
	struct dcnfwd_txbuf *b = &w->txb[pi];

	if (!b->listed) {
		b->listed = 1;
		w->dirty[w->n_dirty++] = pi;
	}
	b->m[b->n++] = m;
	if (b->n == w->d->burst)
		dcnfwd_txb_flush(w, pi);
}

#endif /* DCNFWD_WORKER_H */
