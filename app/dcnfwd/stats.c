/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Totals over the workers. Each counter has one writer, its worker; the
 * readers here load them relaxed, so a total is a moment's, not a
 * snapshot across counters.
 */
#include <string.h>

#include <rte_mempool.h>

#include "impair.h"
#include "stats.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

void
dcnfwd_loop_totals(const struct dcnfwd *d, struct dcnfwd_loop_totals *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];

		s->loops += LOAD(w->loops);
		s->busy_loops += LOAD(w->busy_loops);
		s->busy_tsc += LOAD(w->busy_tsc);
	}
}

void
dcnfwd_lat_totals(const struct dcnfwd *d, struct dcn_port_lat *h)
{
	unsigned int i, k;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < d->n_workers; i++) {
		const struct dcn_port_lat *l = &d->worker[i].fcw.lat;

		h->count += LOAD(l->count);
		h->sum_ns += LOAD(l->sum_ns);
		for (k = 0; k < DCN_PORT_LAT_BUCKETS; k++)
			h->bucket[k] += LOAD(l->bucket[k]);
	}
}

const struct dcn_fc_port_stats *
dcnfwd_worker_fc_port(const struct dcnfwd *d, unsigned int w, uint32_t port)
{
	const struct dcnfwd_port *pt = &d->port[port];
	const struct dcnfwd_wnode *wn;

	if (pt->owner != OWNER_NODE)
		return NULL;
	wn = d->worker[w].node[pt->owner_idx];
	return wn != NULL && wn->fc.dp != NULL ? &wn->fc.st[pt->local] : NULL;
}

uint64_t
dcnfwd_port_rx(const struct dcnfwd *d, uint32_t port)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < d->n_workers; i++)
		n += LOAD(d->worker[i].pst[port].rx);
	return n;
}

void
dcnfwd_port_totals(const struct dcnfwd *d, uint32_t port,
		   struct dcnfwd_port_stats *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];
		const struct dcnfwd_port_stats *p = &w->pst[port];
		const struct dcn_fc_port_stats *f = dcnfwd_worker_fc_port(d, i, port);

		s->rx += LOAD(p->rx);
		s->tx += LOAD(p->tx);
		s->tx_drop += LOAD(p->tx_drop);
		s->ctl_tx_drop += LOAD(p->ctl_tx_drop);
		if (f != NULL) {
			s->tx += LOAD(f->tx);
			s->in_drop += LOAD(f->in_drop);
			s->down_drop += LOAD(f->down_drop);
			s->nbr_drop += LOAD(f->unknown_src) + LOAD(f->unknown_dst);
		}
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
			const struct dcnfwd_wnode *wn = d->worker[i].node[node];
			const struct dcn_fwd_stats *c;

			if (wn == NULL)
				continue;
			c = &wn->fwd->st;
			s->rx += LOAD(c->rx);
			s->encap += LOAD(c->encap);
			s->transit += LOAD(c->transit);
			s->decap += LOAD(c->decap);
			s->control += LOAD(c->control);
			s->bounced += LOAD(c->bounced);
			s->parked += LOAD(c->parked);
			s->too_long_gone += LOAD(c->too_long_gone);
			for (r = 0; r < DCN_DROP_MAX; r++)
				s->drop[r] += LOAD(c->drop[r]);
		}
	}
}

uint64_t
dcnfwd_node_out_frames(const struct dcnfwd *d, uint32_t node, uint16_t local)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < d->n_workers; i++)
		if (d->worker[i].node[node] != NULL)
			s += LOAD(d->worker[i].node[node]->fwd->out_frames[local]);
	return s;
}

uint64_t
dcnfwd_node_nbr_frames(const struct dcnfwd *d, uint32_t node, uint32_t slot)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_wnode *wn = d->worker[i].node[node];

		if (wn != NULL && wn->fwd->nbr_frames != NULL)
			s += LOAD(wn->fwd->nbr_frames[slot]);
	}
	return s;
}

unsigned int
dcnfwd_mbufs_in_use(const struct dcnfwd *d)
{
	unsigned int n = d->mp != NULL ? rte_mempool_in_use_count(d->mp) : 0, i;

	for (i = 0; i < DCN_NUMA_MAX; i++)
		if (d->mp_socket[i] != NULL && d->mp_socket[i] != d->mp)
			n += rte_mempool_in_use_count(d->mp_socket[i]);
	if (d->ctl_mp != NULL && d->ctl_mp != d->mp)
		n += rte_mempool_in_use_count(d->ctl_mp);
	return n;
}

uint64_t
dcnfwd_port_mismatched(const struct dcnfwd *d, uint32_t port)
{
	const struct dcnfwd_port *p = &d->port[port];
	uint64_t s = 0;
	unsigned int i;

	if (p->owner != OWNER_NODE)
		return 0;
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_wnode *wn = d->worker[i].node[p->owner_idx];

		if (wn != NULL)
			s += LOAD(wn->fwd->in_mismatch[p->local]);
	}
	return s;
}

static const struct {
	const char *name, *desc;
	enum dcnfwd_loss_class cls;
} losses[DCNFWD_LOSS_MAX] = {
#define DCNFWD_LOSS_ROW(id, nm, c, d) \
	[DCNFWD_LOSS_##id] = { .name = nm, .desc = d, .cls = DCNFWD_LOSS_##c },
	DCNFWD_LOSSES(DCNFWD_LOSS_ROW)
#undef DCNFWD_LOSS_ROW
};

const char *
dcnfwd_loss_name(enum dcnfwd_loss l)
{
	return l < DCNFWD_LOSS_MAX ? losses[l].name : "?";
}

enum dcnfwd_loss_class
dcnfwd_loss_class(enum dcnfwd_loss l)
{
	return l < DCNFWD_LOSS_MAX ? losses[l].cls : DCNFWD_LOSS_FABRIC;
}

const char *
dcnfwd_loss_desc(enum dcnfwd_loss l)
{
	return l < DCNFWD_LOSS_MAX ? losses[l].desc : "?";
}

void
dcnfwd_drop_totals(const struct dcnfwd *d, struct dcnfwd_drops *dr)
{
	uint64_t *loss = dr->loss;
	struct dcn_fwd_stats s;
	unsigned int i, r;

	memset(dr, 0, sizeof(*dr));
	for (i = 0; i < d->n_ports; i++) {
		const struct dcnfwd_port *p = &d->port[i];
		struct dcnfwd_port_stats ps;

		dcnfwd_port_totals(d, i, &ps);
		if (p->owner == OWNER_HOST) {
			/* the host's NIC could not send into its cable */
			loss[DCNFWD_LOSS_HOST_IN] += ps.tx_drop;
		} else if (p->owner == OWNER_NODE && p->is_host) {
			loss[DCNFWD_LOSS_HOST_IN] += ps.in_drop;
			dr->ingress_read += ps.in_drop;
			/* crossed the fabric, lost at its last port */
			loss[DCNFWD_LOSS_PORT_FULL] += ps.tx_drop;
		} else if (p->owner == OWNER_SWITCH) {
			loss[DCNFWD_LOSS_SWITCH] += ps.tx_drop;
			loss[DCNFWD_LOSS_PORT_FULL] += ps.in_drop;
		} else {
			loss[DCNFWD_LOSS_PORT_FULL] += ps.tx_drop + ps.in_drop;
		}
		loss[DCNFWD_LOSS_LINK_WENT_DOWN] += ps.down_drop;
		loss[DCNFWD_LOSS_NO_NEIGHBOUR] += ps.nbr_drop;
		loss[DCNFWD_LOSS_WIRE] += LOAD(p->dp.lost) + dcnfwd_impair_dropped(p);
	}
	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &s);
	for (r = 1; r < DCN_DROP_MAX; r++) {
		dr->fabric += s.drop[r];
		dr->by_reason[r] = s.drop[r];
	}
	for (i = 0; i < d->n_workers; i++) {
		loss[DCNFWD_LOSS_QUEUE_OVERFLOW] += LOAD(d->worker[i].fcw.overflow) +
						    LOAD(d->worker[i].fc_stray);
		loss[DCNFWD_LOSS_SWITCH] += LOAD(d->worker[i].sw_dropped);
		loss[DCNFWD_LOSS_CONTROL_RING] += LOAD(d->worker[i].ctl_drop);
	}
	for (i = 0; i < d->n_nodes; i++) {
		const struct dcn_fc_node *fn = d->node[i].fc;
		unsigned int c;

		if (fn != NULL) {
			uint64_t left = LOAD(fn->in_doubt_left);

			loss[DCNFWD_LOSS_LOST_TO_RESTART] += fn->lost_queued_at_restart;
			dr->restart_in_doubt += fn->in_doubt_at_restart - left -
						LOAD(fn->in_doubt_lost);
			dr->restart_doubt_left += left;
		}
		for (c = 0; fn != NULL && c < fn->n_chans; c++) {
			dr->credit_tx += fn->chan[c].credit_tx;
			dr->credit_lost += fn->chan[c].credit_lost;
			dr->credit_refused += fn->chan[c].credit_few_vcs +
					      fn->chan[c].credit_unknown;
			dr->stalls += dcn_fc_chan_stalls(fn, c);
			/* each repaired once: by its receiver, or by
			 * its sender where the receiver cannot */
			loss[DCNFWD_LOSS_LOST_REPAIRED] += fn->chan[c].lost +
							   fn->chan[c].lost_in;
			loss[DCNFWD_LOSS_LOST_TO_RESTART] += fn->chan[c].lost_restart;
		}
	}
	for (r = 0; r < DCNFWD_LOSS_MAX; r++)
		if (losses[r].cls == DCNFWD_LOSS_FABRIC)
			dr->fabric += loss[r];
}

uint64_t
dcnfwd_control_unsent(const struct dcnfwd *d)
{
	uint64_t n = LOAD(d->ctl_no_mbuf) + LOAD(d->ctl_ring_full);
	unsigned int i;

	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port_stats ps;

		dcnfwd_port_totals(d, i, &ps);
		n += ps.ctl_tx_drop;
	}
	return n;
}
