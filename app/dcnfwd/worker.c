/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop. No allocation but mbufs from the mempool (credit
 * frames, and the emulation's flood copies and generated frames), no
 * lock, no syscall but the idle sleep, no log.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_worker

#include <assert.h>
#include <stddef.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "trace.h"
#include "worker.h"

/* What the control thread writes of a worker lies on lines the worker's
 * own counters do not. */
static_assert(offsetof(struct dcnfwd_worker, loops_seen) / RTE_CACHE_LINE_SIZE !=
	      offsetof(struct dcnfwd_worker, loops) / RTE_CACHE_LINE_SIZE &&
	      offsetof(struct dcnfwd_worker, loops_seen) / RTE_CACHE_LINE_SIZE !=
	      offsetof(struct dcnfwd_worker, busy_tsc) / RTE_CACHE_LINE_SIZE &&
	      offsetof(struct dcnfwd_worker, ctl_posted) / RTE_CACHE_LINE_SIZE !=
	      offsetof(struct dcnfwd_worker, loops_seen_us) / RTE_CACHE_LINE_SIZE,
	      "control-written and worker-written fields share a cache line");

static void
flush_all(struct dcnfwd_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->n_dirty; i++) {
		dcnfwd_txb_flush(w, w->dirty[i]);
		w->txb[w->dirty[i]].listed = 0;
	}
	w->n_dirty = 0;
}

/* The node's table in force, for this loop (lib/fwd tells a new one by
 * its generation). The worker holds the table only until its quiescent
 * point at the loop's end. */
static inline void
wnode_refresh(struct dcnfwd_wnode *wn, const struct dcnfwd_node *n)
{
	const struct dcnfwd_fib *f = __atomic_load_n(&n->fib, __ATOMIC_ACQUIRE);

	dcn_fwd_refresh(wn->fwd, &f->tab);
}

/* Frames of node port pi past the flow-control queues: the forwarding
 * step, then control frames to the control thread and data frames to
 * the buffers (flow control off). */
static inline void
node_rx_direct(struct dcnfwd_worker *w, const struct dcnfwd_port *p, uint32_t pi,
	       struct dcnfwd_wnode *wn, struct rte_mbuf **m, uint16_t n)
{
	struct dcnfwd *d = w->d;
	const struct dcnfwd_node *node = &d->node[p->owner_idx];
	uint16_t out[DCNFWD_MAX_BURST];
	struct rte_mbuf *ctl[DCNFWD_MAX_BURST];
	uint16_t kept, i, nctl = 0;

	kept = dcn_fwd_burst(wn->fwd, p->local, m, n, out);
	for (i = 0; i < kept; i++) {
		if (unlikely(out[i] == DCN_FWD_CONTROL)) {
			m[i]->port = (uint16_t)pi;
			ctl[nctl++] = m[i];
			continue;
		}
		if (unlikely(wn->fc.dp != NULL)) {
			/* Not a queued frame, yet routed: cannot happen, as
			 * every data frame goes through an input queue. */
			rte_pktmbuf_free(m[i]);
			w->fc_stray++;
			continue;
		}
		dcnfwd_txb_add(w, node->port[out[i]], m[i]);
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

void
dcnfwd_node_rx(struct dcnfwd_worker *w, uint32_t pi, uint16_t queue,
	       struct rte_mbuf **m, uint16_t n, uint64_t now)
{
	const struct dcnfwd_port *p = &w->d->port[pi];
	struct dcnfwd_wnode *wn = w->node[p->owner_idx];

	(void)now;
	/* Flow control: each RX queue is a lane, routed by its poller,
	 * which reads each frame in turn as it takes it (no prefetch:
	 * dcn_fwd_burst_chan in dcn_fwd.h says why). */
	if (wn->fc.dp != NULL) {
		n = dcn_fc_rx_lane(&wn->fc, p->local, queue, m, n);
		if (n == 0)
			return;
	} else {
		dcn_fwd_prefetch(m, n);
	}
	node_rx_direct(w, p, pi, wn, m, n);
}

/* w's flow-control steps as its loop reads them (dcnfwd_fc_slot): its
 * lanes, ports and sends are all given out before workers start. */
static void
fc_slots_build(struct dcnfwd *d, struct dcnfwd_worker *w)
{
	struct dcnfwd_fc_slot *s = w->fc_slot;
	unsigned int i;

	for (i = 0; i < w->n_fc_lanes; i++, s++) {
		const struct dcnfwd_port *p = &d->port[w->fc_lanes[i].port];

		s->x = &w->node[p->owner_idx]->fc;
		s->local = p->local;
		s->lane = w->fc_lanes[i].lane;
		s->waiting = dcn_fc_route_flag(s->x, s->local, s->lane);
	}
	for (i = 0; i < w->n_fc_ports + w->n_fc_sends; i++, s++) {
		uint32_t pi = i < w->n_fc_ports ? w->fc_ports[i] :
						   w->fc_sends[i - w->n_fc_ports];
		const struct dcnfwd_port *p = &d->port[pi];

		s->x = &w->node[p->owner_idx]->fc;
		s->local = p->local;
		s->waiting = dcn_fc_send_flag(s->x, s->local);
		s->port = i < w->n_fc_ports ? &s->x->dp->port[s->local] : NULL;
	}
}

/* Flow control: route from the input queues of the lanes this worker
 * polls, then send from the output queues of the ports it serves and
 * announce their credits, and from its own output queues of the ports
 * it is another sender of. */
static inline unsigned int
fc_service(struct dcnfwd_worker *w, uint64_t now)
{
	const struct dcnfwd_fc_slot *s = w->fc_slot;
	unsigned int i, work = 0;

	for (i = 0; i < w->n_fc_lanes; i++, s++)
		if (__atomic_load_n(s->waiting, __ATOMIC_ACQUIRE))
			work += dcn_fc_route_waiting(s->x, s->local, s->lane);
	for (i = 0; i < w->n_fc_ports + w->n_fc_sends; i++, s++) {
		if (__atomic_load_n(s->waiting, __ATOMIC_ACQUIRE))
			work += dcn_fc_send_waiting(s->x, s->local);
		/* The ports it serves announce; the others it only sends on. */
		if (s->port != NULL && dcn_fc_announce_due(s->port, now))
			dcn_fc_announce_port(s->x, s->local, now);
	}
	return work;
}

/* The control thread's frames for the ports this worker drains: their
 * rings are looked at only when it has posted some since the last look
 * (or a ring had more than a burst), not every loop. */
static inline unsigned int
drain_control(struct dcnfwd_worker *w)
{
	struct dcnfwd *d = w->d;
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
	uint64_t posted = __atomic_load_n(&w->ctl_posted, __ATOMIC_ACQUIRE);
	unsigned int i, n, total = 0;

	if (posted == w->ctl_drained && !w->ctl_more)
		return 0;
	w->ctl_drained = posted;
	w->ctl_more = 0;
	for (i = 0; i < w->n_ctl_ports; i++) {
		uint32_t pi = w->ctl_ports[i];

		n = rte_ring_dequeue_burst(d->port[pi].ctl_tx, (void **)m,
					   d->burst, NULL);
		if (n == 0)
			continue;
		/* Sent at once, ahead of buffered data (a hello is not late
		 * for it), and a refusal counted apart: the relay's own
		 * frames (an ARP probe to a host not there yet) are no loss
		 * of the fabric's. */
		w->pst[pi].ctl_tx_drop += dcnfwd_port_send(w, pi, m, (uint16_t)n);
		total += n;
		w->ctl_more |= n == d->burst;
	}
	return total;
}

int
dcnfwd_worker_main(void *arg)
{
	struct dcnfwd_worker *w = arg;
	struct dcnfwd *d = w->d;
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
	uint64_t last_drain = rte_rdtsc(), loop_start = last_drain;
	uint64_t idle_since = last_drain;
	unsigned int sleep_us = 0, busy = 0;

	DCNFWD_LOG(INFO, "worker %u on lcore %u polls %u queues\n", w->idx,
		   w->lcore, w->n_rx);
	/* Tables are swapped under RCU: this worker reports a quiescent
	 * state after every loop, when it holds no table pointer. */
	rte_rcu_qsbr_thread_register(d->rcu, w->idx);
	rte_rcu_qsbr_thread_online(d->rcu, w->idx);
	/* Frames posted before the rings were given out to workers. */
	w->ctl_more = 1;
	if (d->fc_on)
		fc_slots_build(d, w);
	while (!dcnfwd_quitting(d)) {
		uint64_t now = rte_rdtsc();
		unsigned int i, work = 0;

		/* The last loop's time, when it had work (the clock read
		 * here serves both). */
		if (busy)
			w->busy_tsc += now - loop_start;
		loop_start = now;
		for (i = 0; i < w->n_served; i++)
			wnode_refresh(w->node[w->served[i]], &d->node[w->served[i]]);
		if (unlikely(__atomic_load_n(&d->trace->gen, __ATOMIC_RELAXED) !=
			     w->trace_gen))
			dcnfwd_trace_take(w);
		for (i = 0; i < w->n_rx; i++) {
			const struct dcnfwd_rxq *q = &w->rx[i];
			uint16_t want = (uint16_t)d->burst, n;

			/* A host port has no credits to hold its sender back:
			 * what its input queue has no room for is left in the
			 * port's ring, where the port drops it (counted as the
			 * port's missed frames, or by the kernel or the sender),
			 * rather than read only to be dropped here. */
			if (q->host_in != NULL) {
				want = (uint16_t)RTE_MIN(want, dcn_fc_in_room(q->host_in));
				if (want == 0)
					continue;
			}
			n = dcn_port_rx(&d->port[q->port].dp, q->queue, m, want, now);
			if (n != 0) {
				/* One frame now and then carries the time it
				 * came (dcn_port_lat.h): at most one burst in
				 * DCNFWD_LAT_GAP_BURSTS, and one every
				 * DCNFWD_LAT_GAP_US (however slowly the worker
				 * runs, under a profiler too, a sample costs a
				 * small share of its sends). */
				if (unlikely(++w->lat_bursts >= DCNFWD_LAT_GAP_BURSTS &&
					     now - w->lat_stamp_tsc >= d->lat_gap_tsc)) {
					dcn_port_lat_stamp(m[0], now);
					w->lat_stamp_tsc = now;
					w->lat_bursts = 0;
				}
				work += n;
				w->pst[q->port].rx += n;
				q->rx(w, q->port, q->queue, m, n, now);
			}
			/* Less than asked: the queue was emptied. Stored
			 * after the burst's control frames went on to the
			 * control ring, so a reader of this time finds them
			 * there. */
			if (n < want)
				__atomic_store_n(&w->rx_read_tsc[i], now,
						 __ATOMIC_RELEASE);
		}
		if (w->tick != NULL)
			work += w->tick(w, now);
		work += drain_control(w);
		if (w->n_fc_ports || w->n_fc_lanes)
			work += fc_service(w, now);
		if (now - last_drain >= d->drain_tsc || work == 0) {
			flush_all(w);
			last_drain = now;
		}
		w->loops++;
		busy = work != 0;
		w->busy_loops += busy;
		rte_rcu_qsbr_quiescent(d->rcu, w->idx);
		if (work) {
			idle_since = now;
			sleep_us = 0;
			continue;
		}
		if (!d->backoff)
			continue;
		/* Idle: poll on for a while (DCNFWD_IDLE_SPIN_US, by the
		 * clock: an empty poll of a kernel-backed port is a system
		 * call, so a count of polls would be a hundred times longer
		 * there than on a NIC or memif), then sleep, from an eighth of
		 * idle_sleep_us twice as long each time up to it: a wake-up is
		 * what an idle relay costs, and hellos come every few ms. */
		if (now - idle_since < d->idle_spin_tsc) {
			rte_pause();
			continue;
		}
		sleep_us = sleep_us ? RTE_MIN(2 * sleep_us, d->idle_sleep_us) :
				      (d->idle_sleep_us + 7) / 8;
		w->idle_sleeps++;
		w->idle_sleep_us += sleep_us;
		rte_delay_us_sleep(sleep_us);
	}
	flush_all(w);
	rte_rcu_qsbr_thread_offline(d->rcu, w->idx);
	rte_rcu_qsbr_thread_unregister(d->rcu, w->idx);
	return 0;
}
