/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A node's flow-control state in one memzone (dcn_fc.<id>): its shape
 * (links, VCs, lanes, queue sizes and shares), the rings and counters
 * laid out in it, made, found again by a secondary process, freed; and
 * the mbuf field flow control keeps in a frame.
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
#include "dcn_fc_dp.h"

int dcn_fc_mbuf_offset = -1;

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

/* An input side: its queue, held list and internal credits taken. */
static size_t
in_bytes(uint32_t in_cap, uint32_t n_chans)
{
	uint32_t held = DCN_FC_HELD_SLOTS(in_cap);

	return ring_bytes(in_cap) +
	       RTE_ALIGN_CEIL(held * sizeof(void *), RTE_CACHE_LINE_SIZE) +
	       RTE_ALIGN_CEIL(held * sizeof(uint16_t), RTE_CACHE_LINE_SIZE) +
	       RTE_ALIGN_CEIL(n_chans * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
}

/* An output side: its queue and the credits given back to each input
 * (every lane's). */
static size_t
out_bytes(uint32_t out_cap, uint32_t n_inputs)
{
	return ring_bytes(out_cap) +
	       RTE_ALIGN_CEIL(n_inputs * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
}

/* A node's queues as conf sizes them: each link's input capacity, what
 * an output queue admits, and its slots (those and a burst staged by
 * each other worker that routes into it). */
struct node_shape {
	unsigned int vcs, lanes, reserve, in_queue;
	uint32_t n_links, n_chans, out_cap, out_admit;
	uint16_t nlinks[DCN_FC_MAX_PORTS];
	uint32_t in_cap[DCN_FC_MAX_LINKS];
};

/* @return 0, or EINVAL (bad sizes, a switch port's share under 2 slots)
 * or ENOSPC (too many links or channels). */
static int
node_shape(struct node_shape *s, const struct dcn_fc_conf *conf, uint16_t n_ports,
	   const uint8_t *kind, const uint16_t *links)
{
	uint32_t i, l, stagers;

	s->in_queue = conf->in_queue ? conf->in_queue : 512;
	s->out_admit = conf->out_queue ? conf->out_queue : 512;
	s->reserve = conf->reserve_pct ? conf->reserve_pct : 20;
	s->vcs = conf->n_vcs ? conf->n_vcs : 2;
	s->lanes = conf->n_lanes ? conf->n_lanes : 1;
	s->n_links = 0;
	if (n_ports == 0 || n_ports > DCN_FC_MAX_PORTS || s->vcs > DCN_FC_MAX_VCS ||
	    s->lanes > DCN_FC_MAX_LANES || s->reserve > 90 || s->in_queue < 2 ||
	    s->in_queue > (1u << 20) || s->out_admit > (1u << 22) ||
	    conf->stagers > DCN_FC_MAX_WORKERS)
		return EINVAL;
	/* A switch port's neighbours share its input queue evenly: what
	 * they may send together is bounded by the port's queue, whatever
	 * their number (README.md). */
	for (i = 0; i < n_ports; i++) {
		uint32_t nl = kind[i] == DCN_FC_PORT_SWITCH && links != NULL &&
				      links[i] > 0 ? links[i] : 1;

		s->nlinks[i] = (uint16_t)nl;
		if (s->n_links + nl > DCN_FC_MAX_LINKS)
			return ENOSPC;
		if (dcn_fc_link_in_cap(s->in_queue, nl) < 2)
			return EINVAL;
		for (l = 0; l < nl; l++)
			s->in_cap[s->n_links + l] = dcn_fc_link_in_cap(s->in_queue, nl);
		s->n_links += nl;
	}
	s->n_chans = s->n_links * s->vcs;
	if (s->n_chans > DCN_FC_MAX_CHANS)
		return ENOSPC;
	/* A worker checks an output queue's room with its own staged
	 * frames counted, not the others' (at most a burst each): the
	 * queue has slots for those too, so a flush never finds it full.
	 * Its size does not depend on the node's inputs: their shares are
	 * dynamic thresholds (dcn_fc_ic_room). */
	stagers = conf->stagers ? conf->stagers :
				  RTE_MIN(n_ports * s->lanes, (uint32_t)DCN_FC_MAX_WORKERS);
	s->out_cap = s->out_admit + (stagers - 1) * DCN_FC_BURST_MAX;
	return 0;
}

/* The node's header: itself and every lane's channels. */
static size_t
node_head_bytes(const struct node_shape *s)
{
	return RTE_ALIGN_CEIL(sizeof(struct dcn_fc_node) +
			      s->lanes * s->n_chans * sizeof(struct dcn_fc_chan),
			      RTE_CACHE_LINE_SIZE);
}

/* The node's memzone: its header, and every lane an input side and a
 * sender's output queue; lane 0 also the returns of internal credits. */
static size_t
node_bytes(const struct node_shape *s)
{
	size_t size = node_head_bytes(s);
	uint32_t l;

	for (l = 0; l < s->n_links; l++)
		size += s->vcs * (s->lanes * in_bytes(s->in_cap[l], s->n_chans) +
				  out_bytes(s->out_cap, s->n_chans * s->lanes) +
				  (s->lanes - 1) * ring_bytes(s->out_cap));
	return size;
}

uint64_t
dcn_fc_node_bytes(const struct dcn_fc_conf *conf, uint16_t n_ports, const uint8_t *kind,
		  const uint16_t *links)
{
	struct node_shape s;

	return node_shape(&s, conf, n_ports, kind, links) != 0 ? 0 : node_bytes(&s);
}

uint64_t
dcn_fc_frames_max(const struct dcn_fc_conf *conf, uint16_t n_ports,
		  const uint8_t *kind, const uint16_t *links)
{
	struct node_shape s;
	uint64_t n = 0;
	uint32_t i, l, k;

	if (node_shape(&s, conf, n_ports, kind, links) != 0)
		return 0;
	for (i = 0, l = 0; i < n_ports; i++)
		for (k = 0; k < s.nlinks[i]; k++, l++) {
			uint32_t grant = dcn_fc_link_grant(s.in_cap[l], s.reserve);

			switch (kind[i]) {
			case DCN_FC_PORT_CREDIT:
			case DCN_FC_PORT_SWITCH:
				/* The peer holds to the link's grant over
				 * every VC and lane (its reserve for frames
				 * in flight at a restart), and routes take
				 * any VC out. */
				n += RTE_MAX(s.in_cap[l], dcn_fc_link_bound(grant, s.vcs)) +
				     (uint64_t)s.vcs * s.lanes * s.out_cap;
				break;
			case DCN_FC_PORT_HOST:
				/* Packets in and out on VC 0, each lane's
				 * queue read no further than its room. */
				n += (uint64_t)s.lanes * (s.in_cap[l] + s.out_cap);
				break;
			default:
				/* No credits: every VC's queues, each lane's
				 * up to its room. */
				n += (uint64_t)s.vcs * s.lanes * (s.in_cap[l] + s.out_cap);
				break;
			}
		}
	return n;
}

struct dcn_fc_node *
dcn_fc_node_create(const char *id, uint32_t vertex, uint16_t n_ports,
		   const uint8_t *kind, const uint16_t *links,
		   const char *const *names, const struct dcn_fc_conf *conf)
{
	struct node_shape shape;
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct dcn_fc_node *fn;
	size_t head, size;
	uint8_t *mem, *p;
	uint32_t i, l;
	int err = node_shape(&shape, conf, n_ports, kind, links);
	const unsigned int vcs = shape.vcs, lanes = shape.lanes, reserve = shape.reserve;
	const uint32_t n_links = shape.n_links, n_chans = shape.n_chans;
	const uint32_t out_cap = shape.out_cap, out_admit = shape.out_admit;
	const uint32_t *in_cap = shape.in_cap;
	const uint16_t *nlinks = shape.nlinks;

	if (err != 0) {
		rte_errno = err;
		return NULL;
	}
	head = node_head_bytes(&shape);
	size = node_bytes(&shape);
	snprintf(mzname, sizeof(mzname), DCN_FC_MZ_PREFIX "%s", id);
	mz = rte_memzone_reserve_aligned(mzname, size, conf->socket1 ?
					 (int)conf->socket1 - 1 : (int)rte_socket_id(),
					 0, RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		/* ENOSPC already means too many links here: out of
		 * memzones (RTE_MAX_MEMZONE) says so by its own code. */
		if (rte_errno == ENOSPC)
			rte_errno = EMFILE;
		return NULL;
	}
	mem = mz->addr;
	memset(mem, 0, size);
	fn = (struct dcn_fc_node *)mem;
	snprintf(fn->name, sizeof(fn->name), "%s", id);
	fn->vertex = vertex;
	/* Any nonzero value that differs from the last incarnation's. */
	fn->epoch = (uint32_t)rte_rand() | 1;
	fn->max_credit = shape.in_queue;
	fn->repair_tsc = rte_get_tsc_hz() / 1000 *
			 (conf->repair_ms ? conf->repair_ms : 500);
	fn->n_ports = n_ports;
	fn->n_vcs = (uint16_t)vcs;
	fn->n_links = (uint16_t)n_links;
	fn->n_lanes = (uint16_t)lanes;
	fn->n_chans = n_chans;
	fn->mz = mz;
	for (i = 0, l = 0; i < n_ports; i++) {
		uint32_t k;

		fn->kind[i] = kind[i];
		snprintf(fn->port_name[i], sizeof(fn->port_name[i]), "%s",
			 names != NULL && names[i] != NULL ? names[i] : "");
		fn->port_link[i] = (uint16_t)l;
		fn->port_links[i] = nlinks[i];
		fn->senders[i] = 1;
		for (k = 0; k < fn->port_links[i]; k++, l++) {
			fn->link_port[l] = (uint16_t)i;
			snprintf(fn->link_name[l], sizeof(fn->link_name[l]), "%s",
				 fn->port_name[i]);
		}
	}
	p = mem + head;
	for (i = 0; i < lanes * n_chans; i++) {
		struct dcn_fc_chan *c = &fn->chan[i];
		uint32_t cap = in_cap[(i % n_chans) / vcs];
		char rn[RTE_RING_NAMESIZE];

		c->in_q = (struct rte_ring *)p;
		snprintf(rn, sizeof(rn), "%s.i%u", id, i);
		/* Filled by its lane's poller alone (a lane is one RX
		 * queue, which one thread polls; a test's workers take turns
		 * in one thread); drained by the lane's router. In the node's
		 * memzone, beside the credits, for dcn-fcview and a restart
		 * to read. */
		if (rte_ring_init(c->in_q, rn, cap,
				  RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
			goto fail;
		p += ring_bytes(cap);
		c->held = (struct rte_mbuf **)p;
		p += RTE_ALIGN_CEIL(DCN_FC_HELD_SLOTS(cap) * sizeof(void *),
				    RTE_CACHE_LINE_SIZE);
		c->held_oc = (uint16_t *)p;
		p += RTE_ALIGN_CEIL(DCN_FC_HELD_SLOTS(cap) * sizeof(uint16_t),
				    RTE_CACHE_LINE_SIZE);
		c->ic_taken = (uint32_t *)p;
		p += RTE_ALIGN_CEIL(n_chans * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
		c->in_cap = cap;
		c->grant = dcn_fc_link_grant(cap, reserve);
		c->vc = (uint16_t)((i % n_chans) % vcs);
		c->link_vcs = (uint16_t)vcs;
		c->out_q = (struct rte_ring *)p;
		snprintf(rn, sizeof(rn), "%s.o%u", id, i);
		/* Inputs on any worker fill it; its sender sends what the
		 * port takes and leaves the rest (peek dequeue: SC). */
		if (rte_ring_init(c->out_q, rn, out_cap, RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
			goto fail;
		p += ring_bytes(out_cap);
		c->out_cap = out_cap;
		c->out_admit = out_admit;
		c->keep = &c->keep_here;
		c->keep_tx = &c->keep_tx_here;
		if (i >= n_chans)
			continue;
		c->ic_returned = (uint32_t *)p;
		p += RTE_ALIGN_CEIL(n_chans * lanes * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
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
	dcn_fc_ledger_detach(fn);
	for (i = 0; i < fn->n_lanes * fn->n_chans; i++) {
		struct dcn_fc_chan *c = &fn->chan[i];

		while (rte_ring_dequeue(c->in_q, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (c->out_q != NULL && rte_ring_dequeue(c->out_q, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		for (k = 0; k < c->held_n; k++)
			rte_pktmbuf_free(c->held[c->held_head + k]);
		c->held_n = 0;
		c->held_head = 0;
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
