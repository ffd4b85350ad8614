/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow-control state of a node in one memzone, credit frames, and the
 * sender's credit arithmetic. Which ports carry credits, and why, is in
 * README.md next to this file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf_dyn.h>
#include <rte_memzone.h>
#include <rte_random.h>

#include "dcn_fabric.h"
#include "dcn_fc.h"

int dcn_fc_mbuf_offset = -1;

void
dcn_fc_write_credit(uint8_t *p, const struct dcn_fc_credit *c)
{
	uint32_t vc;

	dcn_fabric_put32(p, c->epoch);
	dcn_fabric_put32(p + 4, c->grant);
	for (vc = 0; vc < c->n_vcs && vc < DCN_FC_MAX_VCS; vc++)
		dcn_fabric_put32(p + 8 + 4 * vc, c->freed[vc]);
}

void
dcn_fc_read_credit(const uint8_t *p, uint32_t len, struct dcn_fc_credit *c)
{
	uint32_t vc;

	memset(c, 0, sizeof(*c));
	if (len < DCN_FC_CREDIT_MIN_LEN)
		return;
	c->epoch = dcn_fabric_get32(p);
	c->grant = dcn_fabric_get32(p + 4);
	c->n_vcs = RTE_MIN((len - 8) / 4, (uint32_t)DCN_FC_MAX_VCS);
	for (vc = 0; vc < c->n_vcs; vc++)
		c->freed[vc] = dcn_fabric_get32(p + 8 + 4 * vc);
}

int
dcn_fc_mbuf_register(void)
{
	static const struct rte_mbuf_dynfield f = {
		.name = "dcn_fc_chan",
		.size = sizeof(uint32_t),
		.align = __alignof__(uint32_t),
	};

	if (dcn_fc_mbuf_offset < 0)
		dcn_fc_mbuf_offset = rte_mbuf_dynfield_register(&f);
	return dcn_fc_mbuf_offset < 0 ? -1 : 0;
}

static size_t
ring_bytes(uint32_t cap)
{
	return RTE_ALIGN_CEIL(rte_ring_get_memsize(rte_align32pow2(cap + 1)),
			      RTE_CACHE_LINE_SIZE);
}

static size_t
chan_bytes(uint32_t in_cap, uint32_t out_cap, uint32_t n_chans)
{
	return ring_bytes(in_cap) + ring_bytes(out_cap) +
	       RTE_ALIGN_CEIL(in_cap * sizeof(void *), RTE_CACHE_LINE_SIZE) +
	       RTE_ALIGN_CEIL(in_cap * sizeof(uint16_t), RTE_CACHE_LINE_SIZE) +
	       2 * RTE_ALIGN_CEIL(n_chans * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
}

struct dcn_fc_node *
dcn_fc_node_create(const char *id, uint32_t vertex, uint16_t n_ports,
		   const uint8_t *kind, const uint16_t *links,
		   const char *const *names, const struct dcn_fc_conf *conf)
{
	unsigned int in_queue = conf->in_queue ? conf->in_queue : 512;
	unsigned int out_cap = conf->out_queue ? conf->out_queue : 1024;
	unsigned int reserve = conf->reserve_pct ? conf->reserve_pct : 20;
	unsigned int vcs = conf->n_vcs ? conf->n_vcs : 2;
	unsigned int min_quota = conf->min_quota ? conf->min_quota : 32;
	uint32_t in_cap[DCN_FC_MAX_LINKS];
	uint16_t nlinks[DCN_FC_MAX_PORTS];
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct dcn_fc_node *fn;
	uint32_t n_chans, n_links = 0, quota, i, l;
	size_t head, size;
	uint8_t *mem, *p;

	if (n_ports == 0 || n_ports > DCN_FC_MAX_PORTS || vcs > DCN_FC_MAX_VCS ||
	    reserve > 90 || in_queue < 2 || in_queue > (1u << 20) ||
	    out_cap > (1u << 22)) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* A switch port's neighbours share its input queue evenly: what
	 * they may send together is bounded by the port's queue, whatever
	 * their number (README.md). */
	for (i = 0; i < n_ports; i++) {
		uint32_t nl = kind[i] == DCN_FC_PORT_SWITCH && links != NULL &&
				      links[i] > 0 ? links[i] : 1;

		nlinks[i] = (uint16_t)nl;

		if (n_links + nl > DCN_FC_MAX_LINKS) {
			rte_errno = ENOSPC;
			return NULL;
		}
		if (in_queue / nl < 2) {
			rte_errno = EINVAL;
			return NULL;
		}
		for (l = 0; l < nl; l++)
			in_cap[n_links + l] = in_queue / nl;
		n_links += nl;
	}
	n_chans = n_links * vcs;
	if (n_chans > DCN_FC_MAX_CHANS) {
		rte_errno = ENOSPC;
		return NULL;
	}
	/* Every input gets an equal share of each output queue, at least
	 * min_quota; the queue grows to hold all the shares. */
	quota = RTE_MAX(out_cap / n_chans, min_quota);
	out_cap = RTE_MAX(out_cap, quota * n_chans);
	head = RTE_ALIGN_CEIL(sizeof(*fn) + n_chans * sizeof(struct dcn_fc_chan),
			      RTE_CACHE_LINE_SIZE);
	size = head;
	for (l = 0; l < n_links; l++)
		size += vcs * chan_bytes(in_cap[l], out_cap, n_chans);
	snprintf(mzname, sizeof(mzname), DCN_FC_MZ_PREFIX "%s", id);
	mz = rte_memzone_reserve_aligned(mzname, size, (int)rte_socket_id(), 0,
					 RTE_CACHE_LINE_SIZE);
	if (mz == NULL)
		return NULL;
	mem = mz->addr;
	memset(mem, 0, size);
	fn = (struct dcn_fc_node *)mem;
	snprintf(fn->name, sizeof(fn->name), "%s", id);
	fn->vertex = vertex;
	/* Any nonzero value that differs from the last incarnation's. */
	fn->epoch = (uint32_t)rte_rand() | 1;
	fn->n_ports = n_ports;
	fn->n_vcs = (uint16_t)vcs;
	fn->n_links = (uint16_t)n_links;
	fn->n_chans = n_chans;
	fn->mz = mz;
	for (i = 0, l = 0; i < n_ports; i++) {
		uint32_t k;

		fn->kind[i] = kind[i];
		snprintf(fn->port_name[i], sizeof(fn->port_name[i]), "%s",
			 names != NULL && names[i] != NULL ? names[i] : "");
		fn->port_link[i] = (uint16_t)l;
		fn->port_links[i] = nlinks[i];
		for (k = 0; k < fn->port_links[i]; k++, l++) {
			fn->link_port[l] = (uint16_t)i;
			snprintf(fn->link_name[l], sizeof(fn->link_name[l]), "%s",
				 fn->port_name[i]);
		}
	}
	p = mem + head;
	for (i = 0; i < n_chans; i++) {
		struct dcn_fc_chan *c = &fn->chan[i];
		uint32_t cap = in_cap[i / vcs];
		char rn[RTE_RING_NAMESIZE];

		c->in_q = (struct rte_ring *)p;
		snprintf(rn, sizeof(rn), "%s.i%u", id, i);
		/* Several RX queues of a port may fill it; its owner drains. */
		if (rte_ring_init(c->in_q, rn, cap, RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
			goto fail;
		p += ring_bytes(cap);
		c->out_q = (struct rte_ring *)p;
		snprintf(rn, sizeof(rn), "%s.o%u", id, i);
		/* Inputs on any worker fill it; the owner sends what the
		 * port takes and leaves the rest (peek dequeue: SC). */
		if (rte_ring_init(c->out_q, rn, out_cap, RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
			goto fail;
		p += ring_bytes(out_cap);
		c->held = (struct rte_mbuf **)p;
		p += RTE_ALIGN_CEIL(cap * sizeof(void *), RTE_CACHE_LINE_SIZE);
		c->held_oc = (uint16_t *)p;
		p += RTE_ALIGN_CEIL(cap * sizeof(uint16_t), RTE_CACHE_LINE_SIZE);
		c->ic_taken = (uint32_t *)p;
		p += RTE_ALIGN_CEIL(n_chans * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
		c->ic_returned = (uint32_t *)p;
		p += RTE_ALIGN_CEIL(n_chans * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
		c->in_cap = cap;
		c->grant = RTE_MAX(1u, cap * (100 - reserve) / 100);
		c->out_cap = out_cap;
		c->quota = quota;
	}
	return fn;
fail:
	rte_memzone_free(mz);
	rte_errno = EINVAL;
	return NULL;
}

void
dcn_fc_node_free(struct dcn_fc_node *fn)
{
	struct rte_mbuf *m;
	uint32_t i, k;

	if (fn == NULL)
		return;
	for (i = 0; i < fn->n_chans; i++) {
		struct dcn_fc_chan *c = &fn->chan[i];

		while (rte_ring_dequeue(c->in_q, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (rte_ring_dequeue(c->out_q, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		for (k = 0; k < c->held_n; k++)
			rte_pktmbuf_free(c->held[k]);
		c->held_n = 0;
	}
	rte_memzone_free(fn->mz);
}

struct dcn_fc_node *
dcn_fc_node_lookup(const char *id)
{
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	snprintf(mzname, sizeof(mzname), DCN_FC_MZ_PREFIX "%s", id);
	mz = rte_memzone_lookup(mzname);
	return mz != NULL ? mz->addr : NULL;
}

void
dcn_fc_credit_rx(struct dcn_fc_node *fn, uint16_t link,
		 const struct dcn_fc_credit *cr)
{
	unsigned int vc;

	/* A peer that keeps other VCs than this node is misconfigured; its
	 * credits are not taken (senders stall, nothing overflows). */
	if (link >= fn->n_links)
		return;
	if (cr->n_vcs < fn->n_vcs) {
		fn->chan[link * fn->n_vcs].credit_bad++;
		return;
	}
	for (vc = 0; vc < fn->n_vcs; vc++) {
		struct dcn_fc_chan *c = dcn_fc_chan(fn, link, vc);
		uint32_t sent = __atomic_load_n(&c->sent, __ATOMIC_ACQUIRE);
		uint32_t lg = __atomic_load_n(&fn->link_gen[link], __ATOMIC_ACQUIRE);

		if (!c->peer_known || cr->epoch != c->peer_epoch ||
		    lg != c->link_gen_seen) {
			/* First word from this incarnation of the peer: its
			 * input queue is as empty as its freed count says. */
			if (c->peer_known)
				c->epoch_changes++;
			c->base = sent - cr->freed[vc];
			c->peer_epoch = cr->epoch;
			c->peer_known = 1;
			c->link_gen_seen = lg;
		}
		c->peer_grant = cr->grant;
		__atomic_store_n(&c->limit, c->base + cr->freed[vc] + cr->grant,
				 __ATOMIC_RELEASE);
	}
	dcn_fc_chan(fn, link, 0)->credit_rx++;
}

void
dcn_fc_credit_state(const struct dcn_fc_node *fn, uint16_t link,
		    struct dcn_fc_credit *cr)
{
	unsigned int vc;

	memset(cr, 0, sizeof(*cr));
	cr->epoch = fn->epoch;
	cr->n_vcs = fn->n_vcs;
	cr->grant = fn->chan[link * fn->n_vcs].grant;
	for (vc = 0; vc < fn->n_vcs; vc++)
		cr->freed[vc] = __atomic_load_n(&fn->chan[link * fn->n_vcs + vc].freed,
						__ATOMIC_RELAXED);
}
