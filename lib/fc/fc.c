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
	uint32_t n = RTE_MIN(c->n_vcs, (uint32_t)DCN_FC_MAX_VCS), vc;

	dcn_fabric_put32(p, c->epoch);
	dcn_fabric_put32(p + 4, c->grant);
	dcn_fabric_put32(p + 8, c->sent_epoch);
	dcn_fabric_put32(p + 12, c->flags);
	p += 16;
	for (vc = 0; vc < n; vc++) {
		dcn_fabric_put32(p + 4 * vc, c->freed[vc]);
		dcn_fabric_put32(p + 4 * (n + vc), c->arrived[vc]);
		dcn_fabric_put32(p + 4 * (2 * n + vc), c->sent[vc]);
	}
}

void
dcn_fc_read_credit(const uint8_t *p, uint32_t len, struct dcn_fc_credit *c)
{
	uint32_t n, vc;

	/* The arrays' first n_vcs entries only, as dcn_fc_credit_state. */
	if (len < DCN_FC_CREDIT_MIN_LEN) {
		memset(c, 0, offsetof(struct dcn_fc_credit, freed));
		return;
	}
	c->epoch = dcn_fabric_get32(p);
	c->grant = dcn_fabric_get32(p + 4);
	c->sent_epoch = dcn_fabric_get32(p + 8);
	c->flags = dcn_fabric_get32(p + 12);
	/* As many VCs as the three arrays have room for; a sender keeping
	 * more than DCN_FC_MAX_VCS cannot be (the fabric header's VC field). */
	n = RTE_MIN((len - 16) / 12, (uint32_t)DCN_FC_MAX_VCS);
	c->n_vcs = n;
	p += 16;
	for (vc = 0; vc < n; vc++) {
		c->freed[vc] = dcn_fabric_get32(p + 4 * vc);
		c->arrived[vc] = dcn_fabric_get32(p + 4 * (n + vc));
		c->sent[vc] = dcn_fabric_get32(p + 4 * (2 * n + vc));
	}
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

/* A node's queues as conf sizes them: each link's input capacity, the
 * output queue (grown to hold every input's quota) and the quota. */
struct node_shape {
	unsigned int vcs, lanes, reserve, in_queue;
	uint32_t n_links, n_chans, out_cap, quota;
	uint16_t nlinks[DCN_FC_MAX_PORTS];
	uint32_t in_cap[DCN_FC_MAX_LINKS];
};

/* @return 0, or EINVAL (bad sizes, a switch port's share under 2 slots)
 * or ENOSPC (too many links or channels). */
static int
node_shape(struct node_shape *s, const struct dcn_fc_conf *conf, uint16_t n_ports,
	   const uint8_t *kind, const uint16_t *links)
{
	unsigned int min_quota = conf->min_quota ? conf->min_quota : 32;
	uint32_t i, l;

	s->in_queue = conf->in_queue ? conf->in_queue : 512;
	s->out_cap = conf->out_queue ? conf->out_queue : 1024;
	s->reserve = conf->reserve_pct ? conf->reserve_pct : 20;
	s->vcs = conf->n_vcs ? conf->n_vcs : 2;
	s->lanes = conf->n_lanes ? conf->n_lanes : 1;
	s->n_links = 0;
	if (n_ports == 0 || n_ports > DCN_FC_MAX_PORTS || s->vcs > DCN_FC_MAX_VCS ||
	    s->lanes > DCN_FC_MAX_LANES || s->reserve > 90 || s->in_queue < 2 ||
	    s->in_queue > (1u << 20) || s->out_cap > (1u << 22))
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
		if (s->in_queue / nl < 2)
			return EINVAL;
		for (l = 0; l < nl; l++)
			s->in_cap[s->n_links + l] = s->in_queue / nl;
		s->n_links += nl;
	}
	s->n_chans = s->n_links * s->vcs;
	if (s->n_chans > DCN_FC_MAX_CHANS)
		return ENOSPC;
	/* Every input (each lane of each channel) gets an equal share of
	 * each output queue, at least min_quota; the queue grows to hold
	 * all the shares. */
	s->quota = RTE_MAX(s->out_cap / (s->n_chans * s->lanes), min_quota);
	s->out_cap = RTE_MAX(s->out_cap, s->quota * s->n_chans * s->lanes);
	return 0;
}

uint64_t
dcn_fc_frames_max(const struct dcn_fc_conf *conf, uint16_t n_ports,
		  const uint8_t *kind, const uint16_t *links)
{
	struct node_shape s;
	uint64_t n = 0;
	uint32_t l;

	if (node_shape(&s, conf, n_ports, kind, links) != 0)
		return 0;
	for (l = 0; l < s.n_links; l++)
		n += (uint64_t)s.vcs * s.lanes * (s.in_cap[l] + s.out_cap);
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
	const uint32_t out_cap = shape.out_cap, quota = shape.quota;
	const uint32_t *in_cap = shape.in_cap;
	const uint16_t *nlinks = shape.nlinks;

	if (err != 0) {
		rte_errno = err;
		return NULL;
	}
	head = RTE_ALIGN_CEIL(sizeof(*fn) + lanes * n_chans * sizeof(struct dcn_fc_chan),
			      RTE_CACHE_LINE_SIZE);
	size = head;
	/* Every lane an input side and a sender's output queue; lane 0
	 * also the returns of internal credits. */
	for (l = 0; l < n_links; l++)
		size += vcs * (lanes * in_bytes(in_cap[l], n_chans) +
			       out_bytes(out_cap, n_chans * lanes) +
			       (lanes - 1) * ring_bytes(out_cap));
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
		c->grant = RTE_MAX(1u, cap * (100 - reserve) / 100);
		c->out_q = (struct rte_ring *)p;
		snprintf(rn, sizeof(rn), "%s.o%u", id, i);
		/* Inputs on any worker fill it; its sender sends what the
		 * port takes and leaves the rest (peek dequeue: SC). */
		if (rte_ring_init(c->out_q, rn, out_cap, RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
			goto fail;
		p += ring_bytes(out_cap);
		c->out_cap = out_cap;
		c->keep = &c->keep_here;
		c->keep_tx = &c->keep_tx_here;
		if (i >= n_chans)
			continue;
		c->ic_returned = (uint32_t *)p;
		p += RTE_ALIGN_CEIL(n_chans * lanes * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
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

/*
 * Lost frames. The peer's arrived count tells what reached its input
 * queue, but not when: a frame may still be on the wire or in a switch.
 * Once the sender has sent nothing more on the channel for repair_tsc,
 * every frame it sent has had that long to arrive, so those still
 * missing from a credit frame received then were lost (dropped by a
 * switch or a kernel queue on the way), and their credits come back.
 * A channel that keeps sending is not repaired until it pauses; one that
 * lost its whole grant pauses by force, so it never stalls for good.
 * missing is in the peer's count: sent less base.
 */
static void
repair_lost(struct dcn_fc_node *fn, struct dcn_fc_chan *c, uint32_t sent,
	    uint32_t arrived, uint64_t now)
{
	int32_t missing = (int32_t)(sent - c->base - arrived);

	if (missing <= 0) {
		c->probe_tsc = 0;
		return;
	}
	if (c->probe_tsc == 0 || sent != c->probe_sent) {
		c->probe_sent = sent;
		c->probe_tsc = now | 1;
		return;
	}
	if ((int64_t)(now - c->probe_tsc) < (int64_t)fn->repair_tsc)
		return;
	c->base += (uint32_t)missing;
	c->lost += (uint32_t)missing;
	c->probe_tsc = 0;
}

/* Frames the peer counts as arrived beyond what was sent since c's base:
 * sent before the base was set, written off as gone, and come after all.
 * More than a queue's worth cannot have been on the way: none then. */
static inline uint32_t
arrived_late(const struct dcn_fc_node *fn, const struct dcn_fc_chan *c,
	     uint32_t sent, uint32_t arrived)
{
	int32_t late = (int32_t)(arrived - (sent - c->base));

	return late > 0 && late <= (int32_t)fn->max_credit ? (uint32_t)late : 0;
}

/* Of late frames, those the peer's last restart wrote off are not lost
 * with it after all. */
static inline void
take_back(struct dcn_fc_chan *c, uint32_t late)
{
	uint32_t back = RTE_MIN(late, c->restart_pending);

	c->restart_pending -= back;
	c->lost_restart -= back;
}

void
dcn_fc_credit_rx(struct dcn_fc_node *fn, uint16_t link,
		 const struct dcn_fc_credit *cr, uint64_t now)
{
	const unsigned int n_vcs = fn->n_vcs;
	struct dcn_fc_chan *c;
	unsigned int vc;
	uint32_t lg;
	int clamped = 0, as_before;

	/* A peer that keeps other VCs than this node is misconfigured; its
	 * credits are not taken (senders stall, nothing overflows). */
	if (link >= fn->n_links)
		return;
	if (cr->n_vcs < fn->n_vcs) {
		fn->chan[link * fn->n_vcs].credit_few_vcs++;
		return;
	}
	/* The link's generation once for all its VCs: a change during the
	 * frame is taken by the next. */
	lg = __atomic_load_n(&fn->link_gen[link], __ATOMIC_ACQUIRE);
	/* Every word taken leaves the grant, the epoch and the generation
	 * in each VC's channel: VC 0's tell whether they are as they were
	 * for all. */
	c = dcn_fc_chan(fn, link, 0);
	as_before = cr->grant == c->peer_grant && cr->epoch == c->peer_epoch &&
		    lg == c->link_gen_seen;
	/* A link's channels are its VCs', one after the other. */
	for (vc = 0; vc < n_vcs; vc++, c++) {
		uint32_t sent = __atomic_load_n(&c->sent, __ATOMIC_ACQUIRE);
		uint32_t limit;

		/* A VC nothing has moved on since the last word, which left
		 * it settled: the word would write what is there (see
		 * word_settled). Most of a credit frame's VCs on a relay,
		 * which carries a flow on one or two. */
		if (as_before && c->word_settled && sent == c->sent_at_word &&
		    cr->arrived[vc] == c->peer_arrived && cr->freed[vc] == c->peer_freed) {
			clamped |= c->word_clamped;
			continue;
		}

		/* First word from this incarnation of the peer, or since the
		 * link came back: what it has not counted as arrived is gone;
		 * what it holds (arrived less freed) still takes room. A
		 * peer that repairs lost frames itself does so for those
		 * lost while the link was down too: only its restart starts
		 * the count over (twice repaired would be credit it has not
		 * got). */
		if (!c->peer_known || cr->epoch != c->peer_epoch ||
		    (lg != c->link_gen_seen && !(cr->flags & DCN_FC_CREDIT_REPAIRS))) {
			if (c->peer_known && cr->epoch != c->peer_epoch) {
				/* The peer restarted: what its last
				 * incarnation held, or what was on the way to
				 * it and its next has not counted, is lost
				 * with it. (A link that came back writes off
				 * too; those frames are counted where they
				 * were dropped.) */
				int32_t gone = (int32_t)(sent - c->base - c->peer_freed -
							 cr->arrived[vc]);

				c->epoch_changes++;
				c->restart_pending = gone > 0 ? (uint32_t)gone : 0;
				c->lost_restart += c->restart_pending;
			} else if (c->peer_known) {
				/* The link came back. Frames written off at
				 * the peer's last restart that have come since
				 * are taken back, as the next word would have;
				 * frames that come after the new base were
				 * never written off, and must not take back
				 * what was. */
				take_back(c, arrived_late(fn, c, sent, cr->arrived[vc]));
				c->restart_pending = 0;
				c->epoch_changes++;
			}
			c->base = sent - cr->arrived[vc];
			c->peer_epoch = cr->epoch;
			c->peer_known = 1;
			c->link_gen_seen = lg;
			c->probe_tsc = 0;
		} else {
			/* More arrived than sent since the base: frames that
			 * were still on the way when the base was set (sent
			 * before the peer's first word of a new epoch, or of a
			 * link come back) were written off as gone, and came.
			 * They hold the peer's room like any other: taken off
			 * the base, or the grant would count them twice. */
			uint32_t late = arrived_late(fn, c, sent, cr->arrived[vc]);

			c->base -= late;
			c->late += late;
			take_back(c, late);
			if (!(cr->flags & DCN_FC_CREDIT_REPAIRS)) {
				repair_lost(fn, c, sent, cr->arrived[vc], now);
			} else {
				c->probe_tsc = 0;
				c->link_gen_seen = lg;
			}
		}
		c->keep_tx->base = c->base;
		c->keep_tx->peer_epoch = c->peer_epoch;
		c->peer_grant = cr->grant;
		c->peer_freed = cr->freed[vc];
		/* No peer has more room than an input queue: a grant or a
		 * freed count beyond it (a broken or forged credit frame)
		 * gives no more, and is counted. */
		limit = c->base + cr->freed[vc] + cr->grant;
		c->word_clamped = (int32_t)(limit - sent) > (int32_t)fn->max_credit;
		if (c->word_clamped) {
			limit = sent + fn->max_credit;
			clamped = 1;
		}
		__atomic_store_n(&c->limit, limit, __ATOMIC_RELEASE);
		c->peer_arrived = cr->arrived[vc];
		c->sent_at_word = sent;
		/* Nothing missing: no probe for lost frames either. */
		c->word_settled = (int32_t)(sent - c->base - cr->arrived[vc]) <= 0;
	}
	if (clamped)
		dcn_fc_chan(fn, link, 0)->credit_clamped++;
	dcn_fc_chan(fn, link, 0)->credit_rx++;
}

uint32_t
dcn_fc_credit_sent(struct dcn_fc_node *fn, uint16_t link,
		   const struct dcn_fc_credit *cr)
{
	uint32_t repaired = 0;
	unsigned int vc;

	if (link >= fn->n_links || cr->n_vcs < fn->n_vcs ||
	    cr->sent_epoch != fn->epoch)
		return 0;
	for (vc = 0; vc < fn->n_vcs; vc++) {
		struct dcn_fc_chan *c = dcn_fc_chan(fn, link, vc);
		int32_t missing = (int32_t)(cr->sent[vc] - c->arrived);

		/* Fewer missing than none: frames the peer counted as
		 * arrived when it started over, or frames that came after
		 * this count; nothing to repair. */
		if (missing <= 0)
			continue;
		c->lost_in += (uint32_t)missing;
		repaired += (uint32_t)missing;
		__atomic_store_n(&c->arrived, c->arrived + (uint32_t)missing,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&c->freed, c->freed + (uint32_t)missing,
				 __ATOMIC_RELEASE);
		c->keep->arrived = c->arrived;
		c->keep->freed = c->freed;
	}
	dcn_fc_chan(fn, link, 0)->repairs = 1;
	return repaired;
}

void
dcn_fc_credit_state(const struct dcn_fc_node *fn, uint16_t link,
		    struct dcn_fc_credit *cr)
{
	unsigned int vc;

	const struct dcn_fc_chan *c0 = &fn->chan[link * fn->n_vcs];

	/* The arrays' first n_vcs entries only: all a credit frame carries
	 * (the rest would be a memset of every VC's room per frame). */
	cr->epoch = fn->epoch;
	cr->n_vcs = fn->n_vcs;
	cr->grant = c0->grant;
	cr->flags = c0->repairs ? DCN_FC_CREDIT_REPAIRS : 0;
	/* What this node sent, as the peer counts: valid in the peer's
	 * epoch its base was set in. Not with several senders: their
	 * frames leave by several TX queues, in no order with this frame,
	 * and sent counts claims not yet on the wire; the peer would free
	 * slots of frames still on the way (it repairs by time instead). */
	cr->sent_epoch = c0->peer_known && fn->senders[fn->link_port[link]] == 1 ?
				 c0->peer_epoch : 0;
	/* Sums over the lanes. Each lane counts arrivals as it takes
	 * frames in and frees them after: freed read before arrived never
	 * exceeds it, whatever a lane's worker does meanwhile (which only
	 * makes arrived newer). */
	for (vc = 0; vc < fn->n_vcs; vc++) {
		uint32_t idx = link * fn->n_vcs + vc, arrived, k;
		const struct dcn_fc_chan *c = &fn->chan[idx];

		cr->freed[vc] = __atomic_load_n(&c->freed, __ATOMIC_ACQUIRE);
		arrived = __atomic_load_n(&c->arrived, __ATOMIC_ACQUIRE);
		for (k = 1; k < fn->n_lanes; k++) {
			const struct dcn_fc_chan *l = dcn_fc_lane(fn, idx, k);

			cr->freed[vc] += __atomic_load_n(&l->freed, __ATOMIC_ACQUIRE);
		}
		for (k = 1; k < fn->n_lanes; k++)
			arrived += __atomic_load_n(&dcn_fc_lane(fn, idx, k)->arrived,
						   __ATOMIC_ACQUIRE);
		cr->arrived[vc] = arrived;
		cr->sent[vc] = __atomic_load_n(&c->sent, __ATOMIC_RELAXED) - c->base;
	}
}

void
dcn_fc_announce_credit(struct dcn_fc_node *fn, uint16_t link, uint8_t *p)
{
	struct dcn_fc_chan *c = &fn->chan[link * fn->n_vcs];
	uint32_t n = fn->n_vcs, vc, k;

	if (fn->n_lanes != 1) {
		struct dcn_fc_credit cr;

		/* Each lane's batch counts from what it had freed by now. */
		dcn_fc_credit_state(fn, link, &cr);
		for (vc = 0; vc < n; vc++)
			for (k = 0; k < fn->n_lanes; k++) {
				struct dcn_fc_chan *l = dcn_fc_lane(fn, link * n + vc, k);

				__atomic_store_n(&l->announced,
						 __atomic_load_n(&l->freed, __ATOMIC_ACQUIRE),
						 __ATOMIC_RELAXED);
			}
		dcn_fc_write_credit(p, &cr);
		return;
	}
	/* One lane: dcn_fc_credit_state's reads, in its order (freed before
	 * arrived), written as dcn_fc_write_credit lays them out, in one
	 * pass over the VCs: a credit frame a batch is most of what flow
	 * control costs a forwarded frame. */
	dcn_fabric_put32(p, fn->epoch);
	dcn_fabric_put32(p + 4, c->grant);
	dcn_fabric_put32(p + 8, c->peer_known && fn->senders[fn->link_port[link]] == 1 ?
					c->peer_epoch : 0);
	dcn_fabric_put32(p + 12, c->repairs ? DCN_FC_CREDIT_REPAIRS : 0);
	p += 16;
	/* The three arrays' words for a VC, read before any is written (a
	 * byte store may alias the channel, which would make every field
	 * be read again). */
	for (vc = 0; vc < n; vc++, c++, p += 4) {
		uint32_t freed = __atomic_load_n(&c->freed, __ATOMIC_ACQUIRE);
		uint32_t arrived = __atomic_load_n(&c->arrived, __ATOMIC_ACQUIRE);
		uint32_t sent = __atomic_load_n(&c->sent, __ATOMIC_RELAXED) - c->base;

		c->announced = freed;
		dcn_fabric_put32(p, freed);
		dcn_fabric_put32(p + 4 * n, arrived);
		dcn_fabric_put32(p + 8 * n, sent);
	}
}
