/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated hosts: a generator a worker and a sink an RX queue. The
 * hosts run on the same workers as the relays, so where their work runs
 * is part of what a run measures. Each worker sends the flows whose
 * frames land in a queue it polls, and each sink is its queue's poller's
 * own. With a lane a worker (--lanes N, N workers), emu_fabric.c spreads
 * every port of a flow to queues of one worker. A flow then never changes
 * cores, from its generator through every relay to its sink, as on
 * servers whose NICs hash alike and pin queue q to one core. So a run
 * with more workers pays no core-to-core traffic for its hosts that the
 * relays beside them would not have.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_emu

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "emu_hosts.h"
#include "worker.h"

int
dcnfwd_emu_poller(const struct dcnfwd *d, uint32_t pi, uint16_t q)
{
	unsigned int i, k;

	for (i = 0; i < d->n_workers; i++)
		for (k = 0; k < d->worker[i].n_rx; k++)
			if (d->worker[i].rx[k].port == pi && d->worker[i].rx[k].queue == q)
				return (int)i;
	return -1;
}

int
dcnfwd_emu_host_sinks(struct dcnfwd_host *h, unsigned int n_queues,
		      unsigned int max_flows)
{
	unsigned int q;

	h->sink = rte_zmalloc("emu-sink", n_queues * sizeof(*h->sink), 0);
	if (h->sink == NULL)
		return -ENOMEM;
	h->n_sinks = n_queues;
	for (q = 0; q < n_queues; q++)
		if (dcn_gen_sink_init(&h->sink[q].sink, max_flows) != 0)
			return -ENOMEM;
	return 0;
}

/* The RX queue of h's node's NIC that frames to destination j of gc land
 * in (m: a scratch buffer), or -1 without a cable. */
static int
queue_of_flow(const struct dcnfwd *d, const struct dcnfwd_host *h,
	      const struct dcn_gen_conf *gc, unsigned int j, struct rte_mbuf *m)
{
	const struct dcnfwd_port *hp = &d->port[h->port];

	if (hp->cable_peer < 0)
		return -1;
	if (hp->dp.tx_spread == NULL)
		return 0;
	dcn_gen_write(gc, m, gc->dst[j], dcn_gen_flow_of(gc, j), 0, 0);
	return (int)dcn_port_spread_queue(hp->dp.tx_spread, m);
}

int
dcnfwd_emu_host_send_setup(struct dcnfwd *d, uint32_t hi, const struct dcn_gen_conf *gc)
{
	struct dcnfwd_host *h = &d->host[hi];
	uint32_t *pick = calloc(gc->n_dst, sizeof(*pick));
	int *worker = calloc(gc->n_dst, sizeof(*worker));
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->mp);
	unsigned int i, j;
	int ret = -ENOMEM;

	h->gen = rte_zmalloc("emu-gen", d->n_workers * sizeof(*h->gen), 0);
	h->queue_of = calloc(gc->n_dst, sizeof(*h->queue_of));
	if (pick == NULL || worker == NULL || m == NULL || h->gen == NULL ||
	    h->queue_of == NULL)
		goto out;
	for (j = 0; j < gc->n_dst; j++) {
		int q = queue_of_flow(d, h, gc, j, m);

		h->queue_of[j] = (uint8_t)(q < 0 ? 0 : q);
		worker[j] = q < 0 ? -1 :
			    dcnfwd_emu_poller(d, (uint32_t)d->port[h->port].cable_peer,
					      (uint16_t)q);
	}
	for (i = 0; i < d->n_workers; i++) {
		struct dcn_gen_conf c = *gc;

		c.n_pick = 0;
		for (j = 0; j < gc->n_dst; j++)
			if (worker[j] == (int)i)
				pick[c.n_pick++] = j;
		if (c.n_pick == 0)
			continue;
		/* Every flow keeps its rate: a worker sends its share. */
		c.pick = pick;
		c.rate_pps = gc->rate_pps * c.n_pick / gc->n_dst;
		c.seed = gc->seed * DCNFWD_MAX_WORKERS + i;
		ret = dcn_gen_init(&h->gen[i].gen, &c, d->tsc_hz);
		if (ret != 0)
			goto out;
		h->gen[i].ready = 1;
		h->gen_ready = 1;
	}
	ret = h->gen_ready ? 0 : -EINVAL;
out:
	rte_pktmbuf_free(m);
	free(pick);
	free(worker);
	return ret;
}

uint64_t
dcnfwd_emu_host_sent(const struct dcnfwd *d, uint32_t hi)
{
	const struct dcnfwd_host *h = &d->host[hi];
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; h->gen != NULL && i < d->n_workers; i++)
		n += __atomic_load_n(&h->gen[i].gen.sent, __ATOMIC_RELAXED);
	return n;
}

uint64_t
dcnfwd_emu_host_rx(const struct dcnfwd *d, uint32_t hi)
{
	const struct dcnfwd_host *h = &d->host[hi];
	uint64_t n = 0;
	unsigned int q;

	for (q = 0; q < h->n_sinks; q++)
		n += __atomic_load_n(&h->sink[q].sink.rx, __ATOMIC_RELAXED);
	return n;
}

/* Frames host oi's generators sent to address addr. */
static uint64_t
sent_to(const struct dcnfwd *d, uint32_t oi, uint32_t addr)
{
	const struct dcnfwd_host *o = &d->host[oi];
	uint64_t n = 0;
	unsigned int i, k;

	for (i = 0; o->gen != NULL && i < d->n_workers; i++) {
		const struct dcn_gen *g = &o->gen[i].gen;

		for (k = 0; o->gen[i].ready && k < g->conf.n_dst; k++)
			if (g->dst[k] == addr)
				n += g->seq[k];
	}
	return n;
}

/* Frames host oi received from address addr. */
static uint64_t
received_from(const struct dcnfwd *d, uint32_t oi, uint32_t addr)
{
	const struct dcnfwd_host *o = &d->host[oi];
	uint64_t n = 0;
	unsigned int q, k;

	for (q = 0; q < o->n_sinks; q++) {
		const struct dcn_gen_sink *s = &o->sink[q].sink;

		for (k = 0; s->flow != NULL && k <= s->mask; k++)
			if (s->flow[k].src == addr)
				n += s->flow[k].rx;
	}
	return n;
}

uint64_t
dcnfwd_emu_host_lost(const struct dcnfwd *d, uint32_t hi)
{
	uint32_t addr = d->host[hi].addr, oi;
	uint64_t to = 0, from = 0, sent = dcnfwd_emu_host_sent(d, hi);

	for (oi = 0; oi < d->n_hosts; oi++) {
		if (oi == hi)
			continue;
		to += sent_to(d, oi, addr);
		from += received_from(d, oi, addr);
	}
	to -= RTE_MIN(to, dcnfwd_emu_host_rx(d, hi));
	return to + sent - RTE_MIN(from, sent);
}

void
dcnfwd_emu_hosts_totals(const struct dcnfwd *d, uint64_t *sent, uint64_t *rx)
{
	uint32_t i;

	*sent = 0;
	*rx = 0;
	for (i = 0; i < d->n_hosts; i++) {
		*sent += dcnfwd_emu_host_sent(d, i);
		*rx += dcnfwd_emu_host_rx(d, i);
	}
}

void
dcnfwd_emu_host_port_rx(struct dcnfwd_worker *w, uint32_t pi, uint16_t queue,
			struct rte_mbuf **m, uint16_t n, uint64_t now)
{
	struct dcnfwd_host *h = &w->d->host[w->d->port[pi].owner_idx];

	dcn_gen_sink_rx(&h->sink[queue].sink, m, n, now);
	rte_pktmbuf_free_bulk(m, n);
}

/*
 * Of the n frames due from generator g of host port hp, pick those its
 * node's NIC has room for (the ring of the RX queue each one's flow is
 * spread to) into pick[]; the others are skipped, counted as sent and
 * as the host port's drops, as they were when built and refused, but not
 * built. A NIC drops what its full queue cannot take at no cost to any
 * core; here the workers stand in for the hosts too, and building frames
 * only to drop them charged them for it: the more a configuration
 * overloads its ingress, the more of its cores went to the hosts.
 * @return frames picked.
 */
static unsigned int
host_admit(struct dcnfwd_worker *w, const struct dcnfwd_host *h, struct dcn_gen *g,
	   unsigned int *pick, unsigned int n)
{
	const struct dcn_port *hp = &w->d->port[h->port].dp;
	unsigned int room[DCN_PORT_RING_QUEUES];
	unsigned int i, q, k = 0, nq = hp->tx_spread != NULL ? hp->tx_queues : 1;

	if (hp->cut) {
		/* the frames leave and are lost on the cable */
		for (i = 0; i < n; i++)
			pick[i] = dcn_gen_pick(g);
		return n;
	}
	for (q = 0; q < nq; q++)
		room[q] = rte_ring_free_count(hp->tx_ring[q]);
	for (i = 0; i < n; i++) {
		unsigned int dst = dcn_gen_pick(g);

		q = nq == 1 ? 0 : h->queue_of[dst];
		if (room[q] == 0) {
			dcn_gen_skip(g, dst);
			w->pst[h->port].tx_drop++;
			continue;
		}
		room[q]--;
		pick[k++] = dst;
	}
	return k;
}

unsigned int
dcnfwd_emu_hosts_send(struct dcnfwd_worker *w, uint64_t now)
{
	struct dcnfwd *d = w->d;
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
	unsigned int pick[DCNFWD_MAX_BURST];
	unsigned int i, j, total = 0;

	for (i = 0; i < w->n_hosts; i++) {
		struct dcnfwd_host *h = &d->host[w->hosts[i]];
		struct dcn_gen *g;
		unsigned int n, k;

		if (!__atomic_load_n(&h->gen_on, __ATOMIC_ACQUIRE) || !h->gen[w->idx].ready)
			continue;
		g = &h->gen[w->idx].gen;
		n = dcn_gen_due(g, now, d->burst);
		if (n == 0)
			continue;
		total += n;
		k = host_admit(w, h, g, pick, n);
		/* A pool run dry holds the host back: what it picked is not
		 * sent (the pattern moved on, no sequence number is spent). */
		if (k == 0 || rte_pktmbuf_alloc_bulk(d->mp, m, k) != 0)
			continue;
		for (j = 0; j < k; j++)
			dcn_gen_put(g, m[j], pick[j], now);
		w->pst[h->port].tx_drop += dcnfwd_port_send(w, h->port, m, (uint16_t)k);
	}
	return total;
}

void
dcnfwd_emu_host_fini(struct dcnfwd_host *h, unsigned int n_workers)
{
	unsigned int i;

	for (i = 0; h->gen != NULL && i < n_workers; i++)
		dcn_gen_fini(&h->gen[i].gen);
	for (i = 0; i < h->n_sinks; i++)
		dcn_gen_sink_fini(&h->sink[i].sink);
	rte_free(h->gen);
	rte_free(h->sink);
	free(h->queue_of);
	h->queue_of = NULL;
	h->gen = NULL;
	h->sink = NULL;
	h->n_sinks = 0;
}
