/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop: receive a burst, hand it to its owner (a node's
 * forwarding step, an emulated switch, or an emulated host's sink), buffer
 * what goes out per port, and flush the buffers when full or when the
 * drain timer fires. No allocation (except the emulation's flood copies and
 * generated frames, from the mempool), no lock, no syscall but the idle
 * sleep, no log.
 */
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "dcnfwd.h"

static inline void
txb_flush(struct dcnfwd *d, struct dcnfwd_worker *w, uint32_t pi)
{
	struct dcnfwd_txbuf *b = &w->txb[pi];
	const struct dcnfwd_port *p = &d->port[pi];
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = port_tx(p, (uint16_t)(w->idx % p->nb_txq), b->m, b->n);
	w->pst[pi].tx += sent;
	if (unlikely(sent < b->n)) {
		/* Dropped and counted: there are no credits to hold them yet. */
		w->pst[pi].tx_drop += b->n - sent;
		rte_pktmbuf_free_bulk(&b->m[sent], b->n - sent);
	}
	b->n = 0;
}

static inline void
txb_add(struct dcnfwd *d, struct dcnfwd_worker *w, uint32_t pi,
	struct rte_mbuf *m)
{
	struct dcnfwd_txbuf *b = &w->txb[pi];

	if (!b->listed) {
		b->listed = 1;
		w->dirty[w->n_dirty++] = pi;
	}
	b->m[b->n++] = m;
	if (b->n == d->burst)
		txb_flush(d, w, pi);
}

static void
flush_all(struct dcnfwd *d, struct dcnfwd_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->n_dirty; i++) {
		txb_flush(d, w, w->dirty[i]);
		w->txb[w->dirty[i]].listed = 0;
	}
	w->n_dirty = 0;
}

static inline void
node_rx(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_port *p,
	uint32_t pi, struct rte_mbuf **m, uint16_t n)
{
	const struct dcnfwd_node *node = &d->node[p->owner_idx];
	struct dcn_fwd_ctx *c = w->ctx[p->owner_idx];
	uint16_t out[DCNFWD_MAX_BURST];
	struct rte_mbuf *ctl[DCNFWD_MAX_BURST];
	uint16_t kept, i, nctl = 0;

	kept = dcn_fwd_burst(c, p->local, m, n, out);
	for (i = 0; i < kept; i++) {
		if (unlikely(out[i] == DCN_FWD_CONTROL)) {
			m[i]->port = (uint16_t)pi;
			ctl[nctl++] = m[i];
			continue;
		}
		txb_add(d, w, node->port[out[i]], m[i]);
	}
	if (nctl) {
		unsigned int q = rte_ring_enqueue_burst(d->ctl_rx, (void **)ctl,
							nctl, NULL);

		if (q < nctl) {
			w->ctl_drop += nctl - q;
			rte_pktmbuf_free_bulk(&ctl[q], nctl - q);
		}
	}
}

/* An emulated learning switch: learn the source, forward to the known
 * port or flood (broadcast, multicast, unknown unicast). */
static inline void
switch_rx(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_port *p,
	  struct rte_mbuf **m, uint16_t n)
{
	struct dcnfwd_switch *s = &d->sw[p->owner_idx];
	uint16_t i;

	for (i = 0; i < n; i++) {
		const uint8_t *e = rte_pktmbuf_mtod(m[i], const uint8_t *);
		uint64_t dst = 0, src = 0;
		int out = -1;
		uint32_t k;

		if (rte_pktmbuf_data_len(m[i]) < 14) {
			rte_pktmbuf_free(m[i]);
			continue;
		}
		memcpy(&dst, e, 6);
		memcpy(&src, e + 6, 6);
		for (k = 0; k < s->n_macs; k++) {
			if (s->mac[k] == src)
				break;
		}
		if (k == s->n_macs && k < DCNFWD_MAX_SW_MACS) {
			s->mac[k] = src;
			s->n_macs++;
		}
		if (k < DCNFWD_MAX_SW_MACS)
			s->mac_port[k] = p->local;
		if (!(e[0] & 1)) {
			for (k = 0; k < s->n_macs; k++)
				if (s->mac[k] == dst) {
					out = s->mac_port[k];
					break;
				}
		}
		if (out >= 0) {
			if (out != p->local)
				txb_add(d, w, s->port[out], m[i]);
			else
				rte_pktmbuf_free(m[i]);
			w->sw_forwarded++;
			continue;
		}
		for (k = 0; k < s->n_ports; k++) {
			struct rte_mbuf *c;

			if (k == p->local)
				continue;
			c = rte_pktmbuf_copy(m[i], d->mp, 0, UINT32_MAX);
			if (c != NULL)
				txb_add(d, w, s->port[k], c);
		}
		w->sw_flooded++;
		rte_pktmbuf_free(m[i]);
	}
}

static inline unsigned int
hosts_send(struct dcnfwd *d, struct dcnfwd_worker *w, uint64_t now)
{
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
	unsigned int i, j, total = 0;

	for (i = 0; i < w->n_hosts; i++) {
		struct dcnfwd_host *h = &d->host[w->hosts[i]];
		unsigned int n;

		if (!__atomic_load_n(&h->gen_on, __ATOMIC_ACQUIRE))
			continue;
		n = dcn_gen_due(&h->gen, now, d->burst);
		if (n == 0 || rte_pktmbuf_alloc_bulk(d->mp, m, n) != 0)
			continue;
		dcn_gen_build(&h->gen, m, n, now);
		for (j = 0; j < n; j++)
			txb_add(d, w, h->port, m[j]);
		total += n;
	}
	return total;
}

static inline unsigned int
drain_control(struct dcnfwd *d, struct dcnfwd_worker *w)
{
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
	unsigned int i, j, n, total = 0;

	for (i = 0; i < w->n_ctl_ports; i++) {
		uint32_t pi = w->ctl_ports[i];

		n = rte_ring_dequeue_burst(d->port[pi].ctl_tx, (void **)m,
					   d->burst, NULL);
		for (j = 0; j < n; j++)
			txb_add(d, w, pi, m[j]);
		total += n;
	}
	return total;
}

int
dcnfwd_worker_main(void *arg)
{
	struct dcnfwd_worker *w = arg;
	struct dcnfwd *d = &dcnfwd_g;
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
	uint64_t last_drain = rte_rdtsc();
	unsigned int idle = 0;

	DCNFWD_LOG(INFO, "worker %u on lcore %u polls %u queues\n", w->idx,
		   w->lcore, w->n_rx);
	while (!__atomic_load_n(&dcnfwd_quit, __ATOMIC_RELAXED)) {
		uint64_t now = rte_rdtsc();
		unsigned int i, work = 0;

		for (i = 0; i < w->n_rx; i++) {
			uint32_t pi = w->rx[i].port;
			const struct dcnfwd_port *p = &d->port[pi];
			uint16_t n = port_rx(p, w->rx[i].queue, m, d->burst);

			if (n == 0)
				continue;
			work += n;
			w->pst[pi].rx += n;
			switch (p->owner) {
			case OWNER_NODE:
				node_rx(d, w, p, pi, m, n);
				break;
			case OWNER_SWITCH:
				switch_rx(d, w, p, m, n);
				break;
			case OWNER_HOST:
				dcn_gen_sink_rx(&d->host[p->owner_idx].sink, m, n,
						now);
				rte_pktmbuf_free_bulk(m, n);
				break;
			}
		}
		if (w->n_hosts)
			work += hosts_send(d, w, now);
		work += drain_control(d, w);
		if (now - last_drain >= d->drain_tsc || work == 0) {
			flush_all(d, w);
			last_drain = now;
		}
		w->loops++;
		if (work) {
			idle = 0;
			continue;
		}
		if (!d->backoff)
			continue;
		/* Idle: spin a little, then pause, then sleep a little longer
		 * each time up to 100 us, so idle relays leave the CPU alone. */
		if (++idle < 64)
			continue;
		if (idle < 1024) {
			rte_pause();
			continue;
		}
		w->idle_sleeps++;
		rte_delay_us_sleep(RTE_MIN((idle - 1023) * 2u, 100u));
	}
	flush_all(d, w);
	return 0;
}

void
dcnfwd_port_totals(const struct dcnfwd *d, uint32_t port,
		   struct dcnfwd_port_stats *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_port_stats *p = &d->worker[i].pst[port];

		s->rx += __atomic_load_n(&p->rx, __ATOMIC_RELAXED);
		s->tx += __atomic_load_n(&p->tx, __ATOMIC_RELAXED);
		s->tx_drop += __atomic_load_n(&p->tx_drop, __ATOMIC_RELAXED);
	}
}

void
dcnfwd_node_totals(const struct dcnfwd *d, uint32_t node,
		   struct dcn_fwd_stats *s)
{
	uint32_t first = node == DCNFWD_ALL_NODES ? 0 : node;
	uint32_t last = node == DCNFWD_ALL_NODES ? d->n_nodes : node + 1;
	unsigned int i, r;

	memset(s, 0, sizeof(*s));
	for (node = first; node < last; node++) {
		for (i = 0; i < d->n_workers; i++) {
			const struct dcn_fwd_ctx *c = d->worker[i].ctx[node];

			if (c == NULL)
				continue;
			s->rx += c->st.rx;
			s->encap += c->st.encap;
			s->transit += c->st.transit;
			s->decap += c->st.decap;
			s->control += c->st.control;
			for (r = 0; r < DCN_DROP_MAX; r++)
				s->drop[r] += c->st.drop[r];
		}
	}
}

uint64_t
dcnfwd_node_out_frames(const struct dcnfwd *d, uint32_t node, uint16_t local)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < d->n_workers; i++)
		if (d->worker[i].ctx[node] != NULL)
			s += __atomic_load_n(&d->worker[i].ctx[node]->out_frames[local],
					     __ATOMIC_RELAXED);
	return s;
}

uint64_t
dcnfwd_node_nbr_frames(const struct dcnfwd *d, uint32_t node, uint32_t slot)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < d->n_workers; i++) {
		const struct dcn_fwd_ctx *c = d->worker[i].ctx[node];

		if (c != NULL && c->nbr_frames != NULL)
			s += __atomic_load_n(&c->nbr_frames[slot], __ATOMIC_RELAXED);
	}
	return s;
}
