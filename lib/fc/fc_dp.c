/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Set-up of a node's flow-control data path and of a worker's scratch.
 * The stages themselves: fc_rx.c, fc_route.c, fc_send.c, fc_credit.c
 * (fc_dp_priv.h says which is which); README.md next to this file has
 * the choices and their reasons.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "dcn_topo.h"

#include "dcn_fc_dp.h"

int
dcn_fc_dp_init(struct dcn_fc_dp *dp, struct dcn_fc_node *fn,
	       struct rte_mempool *mp, uint16_t ethertype, unsigned int burst,
	       unsigned int credit_batch, uint64_t credit_refresh_tsc)
{
	unsigned int i;

	if (fn == NULL || mp == NULL || burst == 0 || burst > DCN_FC_BURST_MAX ||
	    credit_batch == 0)
		return -EINVAL;
	memset(dp, 0, sizeof(*dp));
	dp->fn = fn;
	dp->out_keep = dp->out_here;
	dp->mp = mp;
	dp->ethertype = ethertype;
	dp->burst = (uint16_t)burst;
	dp->credit_batch = credit_batch;
	dp->credit_refresh_tsc = credit_refresh_tsc;
	for (i = 0; i < fn->n_links; i++)
		dp->link[i].batch = dcn_fc_link_batch(credit_batch,
						      fn->chan[i * fn->n_vcs].grant);
	dp->park_wait_tsc = rte_get_tsc_hz() * DCN_FC_PARK_WAIT_MS / 1000;
	for (i = 0; i < DCN_FC_MAX_PORTS; i++) {
		unsigned int k;

		dp->port[i].owner = DCN_FC_NO_OWNER;
		for (k = 0; k < DCN_FC_MAX_LANES; k++)
			dp->port[i].sender[k].worker = DCN_FC_NO_OWNER;
	}
	return 0;
}

int
dcn_fc_dp_set_sender(struct dcn_fc_dp *dp, struct dcn_fc_wnode *x, uint16_t local,
		     uint8_t k)
{
	struct dcn_fc_node *fn = dp->fn;
	struct dcn_fc_dp_sender *s;

	if (local >= fn->n_ports || k == 0 || k >= fn->n_lanes)
		return -EINVAL;
	s = &dp->port[local].sender[k];
	if (s->worker != DCN_FC_NO_OWNER && s->worker != x->w->idx)
		return -EINVAL;
	s->worker = x->w->idx;
	x->sender[local] = k;
	/* The peer's credits are claimed, not counted, from now on. */
	if (fn->senders[local] < k + 1)
		fn->senders[local] = (uint8_t)(k + 1);
	return 0;
}

enum dcn_fc_port_kind
dcn_fc_topo_port_kind(const struct dcn_topo *t, uint32_t v, int fabric_port, int host,
		      int no_credits)
{
	int64_t peer;

	if (host)
		return DCN_FC_PORT_HOST;
	if (no_credits)
		return DCN_FC_PORT_NOCREDIT;
	peer = dcn_topo_port_peer(t, v, (unsigned int)fabric_port);
	if (peer < 0)
		return DCN_FC_PORT_NOCREDIT;
	if (dcn_topo_is_router(t, (uint32_t)peer))
		return DCN_FC_PORT_CREDIT;
	return dcn_topo_role(t, (uint32_t)peer) == DCN_ROLE_SWITCH ?
		       DCN_FC_PORT_SWITCH : DCN_FC_PORT_NOCREDIT;
}

int
dcn_fc_dp_bind_nbrs(struct dcn_fc_dp *dp, const struct dcn_fwd_nbrs *nb,
		    const struct dcn_topo *t, const int16_t *fabric_port)
{
	struct dcn_fc_node *fn = dp->fn;
	uint16_t p;

	for (p = 0; p < fn->n_ports; p++) {
		char pname[sizeof(fn->port_name[0])];
		uint32_t s, k = 0;

		if (fn->kind[p] != DCN_FC_PORT_SWITCH)
			continue;
		memcpy(pname, fn->port_name[p], sizeof(pname));
		if (nb == NULL || nb->slot == NULL)
			return -EINVAL;
		for (s = 0; s <= nb->mask; s++) {
			const struct dcn_fwd_nbr *e = &nb->slot[s];
			char v[DCN_TOPO_NAME_LEN];
			uint16_t l;

			if (e->vertex == DCN_FWD_NBR_EMPTY ||
			    e->fabric_port != fabric_port[p])
				continue;
			if (k == fn->port_links[p])
				return -EINVAL;
			l = (uint16_t)(fn->port_link[p] + k++);
			dp->link[l].nbr = e;
			dcn_topo_format_vertex(t, e->vertex, v, sizeof(v));
			snprintf(fn->link_name[l], sizeof(fn->link_name[l]), "%.24s>%.14s",
				 pname, v);
		}
		if (k != fn->port_links[p])
			return -EINVAL;
	}
	return 0;
}

int
dcn_fc_dp_nbr_link(const struct dcn_fc_dp *dp, const struct dcn_fwd_nbr *e)
{
	uint16_t l;

	for (l = 0; e != NULL && l < dp->fn->n_links; l++)
		if (dp->link[l].nbr == e)
			return l;
	return -1;
}

int
dcn_fc_worker_init(struct dcn_fc_worker *w, uint32_t idx, uint32_t max_chans)
{
	/* The index picks the worker's own output counts (dcn_fc_dp). */
	if (idx >= DCN_FC_MAX_WORKERS)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->idx = idx;
	w->max_chans = max_chans;
	w->stage = rte_zmalloc("dcn_fc_stage", max_chans * sizeof(*w->stage),
			       RTE_CACHE_LINE_SIZE);
	w->stage_n = rte_zmalloc("dcn_fc_stage_n", max_chans * sizeof(*w->stage_n),
				 RTE_CACHE_LINE_SIZE);
	if (w->stage == NULL || w->stage_n == NULL) {
		dcn_fc_worker_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void
dcn_fc_worker_fini(struct dcn_fc_worker *w)
{
	rte_free(w->stage);
	rte_free(w->stage_n);
	w->stage = NULL;
	w->stage_n = NULL;
}
