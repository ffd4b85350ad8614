/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop: receive a burst, hand it to its owner (a node's
 * forwarding step, an emulated switch, or an emulated host's sink), buffer
 * what goes out per port, and flush the buffers when full or when the
 * drain timer fires. With flow control on, a node's frames go through its
 * input and output queues instead (see "Flow control" below). No
 * allocation but mbufs from the mempool (credit frames, and the
 * emulation's flood copies and generated frames), no lock, no syscall but
 * the idle sleep, no log.
 */
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_random.h>

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

/* A credit frame: the peer's input queues have room again. */
static inline int
take_credit(struct dcnfwd *d, const struct dcnfwd_port *p, struct rte_mbuf *m)
{
	struct dcn_fc_node *fn = d->node[p->owner_idx].fc;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dcn_fc_credit cr;

	if (fn == NULL || p->is_host || (f[DCN_ETHER_HDR_LEN] & 0x0f) != DCN_FT_CREDIT)
		return 0;
	/* Only a cable's peer can speak for the input queue behind it. */
	if (fn->kind[p->local] == DCN_FC_PORT_CREDIT &&
	    rte_pktmbuf_data_len(m) >= DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN +
					       DCN_FC_CREDIT_LEN) {
		dcn_fc_read_credit(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &cr);
		dcn_fc_credit_rx(fn, p->local, &cr);
	}
	rte_pktmbuf_free(m);
	return 1;
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

	kept = dcn_fwd_burst(dcnfwd_node_ctx(c, node), p->local, m, n, out);
	for (i = 0; i < kept; i++) {
		if (unlikely(out[i] == DCN_FWD_CONTROL)) {
			if (take_credit(d, p, m[i]))
				continue;
			m[i]->port = (uint16_t)pi;
			ctl[nctl++] = m[i];
			continue;
		}
		if (unlikely(node->fc != NULL)) {
			/* Not a queued frame, yet routed: cannot happen, as
			 * every data frame goes through an input queue. */
			rte_pktmbuf_free(m[i]);
			w->fc_overflow++;
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

/*
 * Flow control. A node's data frames take three steps:
 *   receive: into the input queue of (port, VC), by whichever worker polls
 *            the RX queue; a full input queue drops and counts (only a host
 *            port, or a peer that ignores credits, can fill one);
 *   route:   the port's owner routes from the input queue and moves each
 *            frame to its output queue while the input's internal credits
 *            there last, else holds it (without blocking the others);
 *   send:    the output port's owner sends what the peer has credits for
 *            and the port takes; the rest stays queued.
 */

/* The VC of a frame that goes into an input queue, or -1 when it is not
 * a data frame (control and malformed frames go the direct way). */
static inline int
fc_in_vc(const struct dcnfwd *d, const struct dcnfwd_port *p,
	 const struct dcn_fwd_ctx *c, const struct rte_mbuf *m)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;

	if (p->is_host)
		return rte_pktmbuf_data_len(m) >= DCN_ETHER_HDR_LEN &&
		       (e[12] << 8 | e[13]) == DCN_ETHERTYPE_ARP ? -1 : 0;
	if (rte_pktmbuf_data_len(m) < DCN_ETHER_HDR_LEN + 2)
		return -1;
	type = (uint16_t)(e[12] << 8 | e[13]);
	if (type == d->ethertype)
		return (e[14] & 0x0f) == DCN_FT_DATA ? e[15] & 1 : -1;
	return c->router_mode && type == DCN_ETHERTYPE_IPV4 ? 0 : -1;
}

/* Bytes 12 to 15 of a frame (at least 16 long), as loaded, masked to what
 * fc_in_vc and fc_out_chan read: the EtherType, a fabric header's frame
 * type and VC bit. Frames whose words are equal go to the same channel. */
#define FC_CHAN_BYTES rte_cpu_to_be_32(0xffff0f01u)

static inline uint32_t
fc_chan_word(const struct rte_mbuf *m)
{
	uint32_t w;

	memcpy(&w, rte_pktmbuf_mtod_offset(m, const uint8_t *, 12), sizeof(w));
	return w & FC_CHAN_BYTES;
}

/* Are the n frames of m each at least 16 bytes long, with frame 0's
 * channel word? */
static inline int
fc_same_chan(struct rte_mbuf *const *m, uint16_t n)
{
	uint32_t w0;
	uint16_t i;

	if (rte_pktmbuf_data_len(m[0]) < 16)
		return 0;
	w0 = fc_chan_word(m[0]);
	for (i = 1; i < n; i++)
		if (rte_pktmbuf_data_len(m[i]) < 16 || fc_chan_word(m[i]) != w0)
			return 0;
	return 1;
}

/* Send n frames of output channel c on port p now; what the peer has no
 * credit for, or the port does not take, stays with the caller.
 * @return frames sent. */
static inline uint32_t
fc_tx(struct dcnfwd_worker *w, struct dcn_fc_node *fn, struct dcn_fc_chan *c,
      const struct dcnfwd_port *p, uint32_t pi, struct rte_mbuf **m, uint32_t n)
{
	uint32_t sent;

	if (fn->kind[p->local] == DCN_FC_PORT_CREDIT) {
		uint32_t cr = dcn_fc_credits(c);

		if (cr < n) {
			if (cr == 0) {
				c->stalls++;
				return 0;
			}
			n = cr;
		}
	}
	sent = port_tx(p, (uint16_t)(w->idx % p->nb_txq), m, (uint16_t)n);
	if (sent) {
		dcn_fc_sent(c, sent);
		w->pst[pi].tx += sent;
	}
	return sent;
}

/* Give internal credits back to the inputs of sent frames, one store per
 * run of frames from the same input (the output's owner only); src NULL:
 * all from input one_src. */
static inline void
fc_return(struct dcn_fc_chan *c, const uint16_t *src, uint16_t one_src, uint32_t n)
{
	uint32_t k, run;

	if (src == NULL) {
		uint32_t *r = &c->ic_returned[one_src];

		if (n)
			__atomic_store_n(r, *r + n, __ATOMIC_RELEASE);
		return;
	}
	for (k = 0; k < n; k += run) {
		uint32_t *r = &c->ic_returned[src[k]];

		for (run = 1; k + run < n && src[k + run] == src[k]; run++)
			;
		__atomic_store_n(r, *r + run, __ATOMIC_RELEASE);
	}
}

/* Frames m, admitted to output channel oc from inputs src (NULL: all from
 * one_src), leave or join its queue. */
static inline void
fc_out(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_node *node,
       uint32_t oc, struct rte_mbuf **m, uint32_t n, const uint16_t *src,
       uint16_t one_src)
{
	struct dcn_fc_node *fn = node->fc;
	struct dcn_fc_chan *c = &fn->chan[oc];
	uint32_t pi = node->port[oc / fn->n_vcs], k = 0;
	const struct dcnfwd_port *p = &d->port[pi];

	/* Cut-through: the output's owner with nothing queued ahead sends
	 * at once and gives the internal credits straight back. */
	if (p->fc_owner == w->idx && rte_ring_empty(c->out_q)) {
		k = fc_tx(w, fn, c, p, pi, m, n);
		fc_return(c, src, one_src, k);
		if (k == n)
			return;
	}
	/* Frames that wait carry their input, for the credits' return. */
	for (uint32_t i = k; i < n; i++)
		*DCN_FC_MBUF_FIELD(m[i]) = (src != NULL ? src[i] : one_src) | oc << 16;
	/* Internal credits keep the sum of shares within the queue. */
	n -= k;
	m += k;
	k = rte_ring_enqueue_burst(c->out_q, (void **)m, n, NULL);
	if (unlikely(k < n)) {
		w->fc_overflow += n - k;
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
}

static inline void
fc_stage_flush(struct dcnfwd *d, struct dcnfwd_worker *w,
	       const struct dcnfwd_node *node, uint32_t oc)
{
	uint32_t n = w->stage_n[oc];

	if (n == 0)
		return;
	w->stage_n[oc] = 0;
	fc_out(d, w, node, oc, w->stage[oc], n, w->stage_src[oc], 0);
}

/* One routing pass over an input channel. */
struct fc_pass {
	uint64_t blocked;   /* output channels full for this input */
	uint64_t touched;   /* output channels with staged frames */
	uint32_t done;      /* frames that left the input queue */
};

/* Stage m for output channel oc if input in_idx has room there. */
static inline int
fc_admit(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_node *node,
	 struct dcn_fc_chan *in, uint32_t in_idx, uint32_t oc, struct rte_mbuf *m,
	 struct fc_pass *ps)
{
	struct dcn_fc_node *fn = node->fc;

	if ((ps->blocked >> oc & 1) ||
	    dcn_fc_ic_room(&fn->chan[oc], in, in_idx, oc) == 0) {
		/* Later frames for the same output stay behind this one. */
		ps->blocked |= 1ull << oc;
		return 0;
	}
	__atomic_store_n(&in->ic_taken[oc], in->ic_taken[oc] + 1, __ATOMIC_RELAXED);
	w->stage_src[oc][w->stage_n[oc]] = (uint16_t)in_idx;
	w->stage[oc][w->stage_n[oc]++] = m;
	ps->touched |= 1ull << oc;
	ps->done++;
	if (w->stage_n[oc] == DCNFWD_MAX_BURST)
		fc_stage_flush(d, w, node, oc);
	return 1;
}

/* The output channel of a routed frame m for local output port o. */
static inline uint32_t
fc_out_chan(const struct dcnfwd *d, const struct dcn_fc_node *fn,
	    const struct rte_mbuf *m, uint16_t o)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t vco = 0;

	/* A fabric frame's VC is in its rewritten header. */
	if (fn->kind[o] != DCN_FC_PORT_HOST &&
	    (uint16_t)(e[12] << 8 | e[13]) == d->ethertype)
		vco = e[15] & 1;
	return o * fn->n_vcs + (vco & (fn->n_vcs - 1u));
}

/*
 * A relay's usual burst: every frame routed to one output channel, with
 * nothing held or staged ahead of it there and room for all. It is
 * admitted in one step and goes out as staged frames would at the pass's
 * end (it is the same order). @return 0 when the burst is not such, and
 * nothing was done.
 */
static inline int
fc_route_uniform(struct dcnfwd *d, struct dcnfwd_worker *w,
		 const struct dcnfwd_node *node, struct dcn_fc_chan *in,
		 uint32_t in_idx, struct rte_mbuf **m, const uint16_t *out,
		 uint16_t n, struct fc_pass *ps)
{
	struct dcn_fc_node *fn = node->fc;
	uint32_t oc;
	uint16_t i;

	if (out[0] == DCN_FWD_CONTROL || in->held_n != 0)
		return 0;
	oc = fc_out_chan(d, fn, m[0], out[0]);
	if ((ps->blocked >> oc & 1) || w->stage_n[oc] != 0)
		return 0;
	for (i = 1; i < n; i++)
		if (out[i] != out[0])
			return 0;
	if (!fc_same_chan(m, n))
		return 0;
	if (dcn_fc_ic_room(&fn->chan[oc], in, in_idx, oc) < n)
		return 0;
	__atomic_store_n(&in->ic_taken[oc], in->ic_taken[oc] + n, __ATOMIC_RELAXED);
	ps->done += n;
	fc_out(d, w, node, oc, m, n, NULL, (uint16_t)in_idx);
	return 1;
}

/* Route a burst taken from input channel in_idx of port p; frames that
 * cannot move yet join the held list. */
static inline void
fc_route_burst(struct dcnfwd *d, struct dcnfwd_worker *w,
	       const struct dcnfwd_port *p, uint32_t in_idx, struct rte_mbuf **m,
	       uint16_t n, struct fc_pass *ps)
{
	const struct dcnfwd_node *node = &d->node[p->owner_idx];
	struct dcn_fc_node *fn = node->fc;
	struct dcn_fc_chan *in = &fn->chan[in_idx];
	uint16_t out[DCNFWD_MAX_BURST];
	uint32_t held = in->held_n;
	uint16_t kept, i;

	kept = dcn_fwd_burst(dcnfwd_node_ctx(w->ctx[p->owner_idx], node), p->local,
			     m, n, out);
	ps->done += n - kept; /* dropped, counted by reason */
	if (kept != 0 && fc_route_uniform(d, w, node, in, in_idx, m, out, kept, ps))
		return;
	for (i = 0; i < kept; i++) {
		uint32_t oc;

		if (unlikely(out[i] == DCN_FWD_CONTROL)) {
			rte_pktmbuf_free(m[i]);
			ps->done++;
			continue;
		}
		oc = fc_out_chan(d, fn, m[i], out[i]);
		if (!fc_admit(d, w, node, in, in_idx, oc, m[i], ps)) {
			in->held_oc[held] = (uint16_t)oc;
			in->held[held++] = m[i];
		}
	}
	__atomic_store_n(&in->held_n, held, __ATOMIC_RELAXED);
}

static inline void
fc_pass_end(struct dcnfwd *d, struct dcnfwd_worker *w,
	    const struct dcnfwd_node *node, struct dcn_fc_chan *in,
	    struct fc_pass *ps)
{
	while (ps->touched) {
		fc_stage_flush(d, w, node, (uint32_t)__builtin_ctzll(ps->touched));
		ps->touched &= ps->touched - 1;
	}
	if (ps->done)
		__atomic_store_n(&in->freed, in->freed + ps->done, __ATOMIC_RELEASE);
	in->held_blocked = ps->blocked;
}

/* Has any output channel in mask room for input in_idx again? */
static inline int
fc_any_room(const struct dcn_fc_node *fn, const struct dcn_fc_chan *in,
	    uint32_t in_idx, uint64_t mask)
{
	for (; mask; mask &= mask - 1) {
		uint32_t oc = (uint32_t)__builtin_ctzll(mask);

		if (dcn_fc_ic_room(&fn->chan[oc], in, in_idx, oc) != 0)
			return 1;
	}
	return 0;
}

/* Frames m of one VC, received on port p, into their input channel. */
static inline void
fc_in_burst(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_port *p,
	    uint32_t pi, unsigned int vc, struct rte_mbuf **m, uint16_t n)
{
	const struct dcnfwd_node *node = &d->node[p->owner_idx];
	struct dcn_fc_node *fn = node->fc;
	uint32_t in_idx = p->local * fn->n_vcs + vc;
	struct dcn_fc_chan *in = &fn->chan[in_idx];
	unsigned int k;

	/* Cut-through: the port's owner, with nothing waiting in the input
	 * queue, routes the burst as if it had been queued and taken at
	 * once: in pieces of at most the queue's size, as fc_route takes
	 * them (what cannot move yet is held, and the held list has room for
	 * one queue's worth); once a piece leaves frames held, the rest
	 * queues behind them. */
	if (p->fc_owner == w->idx && in->held_n == 0 && rte_ring_empty(in->in_q)) {
		struct fc_pass ps = { 0, 0, 0 };
		uint16_t piece;

		do {
			piece = (uint16_t)RTE_MIN(n, in->in_cap);
			fc_route_burst(d, w, p, in_idx, m, piece, &ps);
			m += piece;
			n -= piece;
		} while (n != 0 && in->held_n == 0);
		fc_pass_end(d, w, node, in, &ps);
		if (n == 0)
			return;
	}
	k = rte_ring_enqueue_burst(in->in_q, (void **)m, n, NULL);
	if (unlikely(k < n)) {
		w->pst[pi].in_drop += n - k;
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
}

/* Is m a credit frame, by the checks dcn_fabric_classify makes of one
 * (single segment, EtherType, version and type, payload within the
 * frame), long enough for take_credit to read? */
static inline int
fc_is_credit(const struct dcnfwd *d, const struct rte_mbuf *m)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);

	return m->nb_segs == 1 &&
	       len >= DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_FC_CREDIT_LEN &&
	       dcn_fabric_get16(e + 12) == d->ethertype &&
	       e[DCN_ETHER_HDR_LEN] == (DCN_FABRIC_VERSION << 4 | DCN_FT_CREDIT) &&
	       dcn_fabric_get16(e + DCN_ETHER_HDR_LEN + 6) <=
		       len - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN;
}

/*
 * A cable's peer sends a credit frame every credit_batch frames or so,
 * and it arrives alone, between data bursts on the other cables. Such a
 * small burst of credit frames is taken here, counted as the forwarding
 * step counts control frames, without that step's full classification
 * (which cost more than the credit itself). @return 0 when the burst is
 * not such, and nothing was done.
 */
#define FC_CREDIT_BURST 2

static inline int
fc_take_credits(struct dcnfwd *d, struct dcnfwd_worker *w,
		const struct dcnfwd_port *p, struct rte_mbuf **m, uint16_t n)
{
	struct dcn_fc_node *fn = d->node[p->owner_idx].fc;
	struct dcn_fwd_ctx *c = w->ctx[p->owner_idx];
	uint16_t i;

	if (n > FC_CREDIT_BURST || fn->kind[p->local] != DCN_FC_PORT_CREDIT)
		return 0;
	for (i = 0; i < n; i++)
		if (!fc_is_credit(d, m[i]))
			return 0;
	c->st.rx += n;
	c->st.control += n;
	for (i = 0; i < n; i++)
		take_credit(d, p, m[i]);
	return 1;
}

static inline void
fc_node_rx(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_port *p,
	   uint32_t pi, struct rte_mbuf **m, uint16_t n)
{
	const struct dcnfwd_node *node = &d->node[p->owner_idx];
	struct dcn_fc_node *fn = node->fc;
	const struct dcn_fwd_ctx *c = w->ctx[p->owner_idx];
	struct rte_mbuf *q[DCN_FC_MAX_VCS][DCNFWD_MAX_BURST];
	struct rte_mbuf *other[DCNFWD_MAX_BURST];
	uint16_t nq[DCN_FC_MAX_VCS] = { 0 }, no = 0, i;
	unsigned int vc;
	int v0;

	if (!p->is_host && fc_take_credits(d, w, p, m, n))
		return;
	v0 = fc_in_vc(d, p, c, m[0]);

	/* The usual burst: data frames of one VC, taken as they are (no
	 * sorting, whose counters would chain one frame to the next). */
	if (v0 >= 0 && fc_same_chan(m, n)) {
		fc_in_burst(d, w, p, pi, (unsigned int)v0 & (fn->n_vcs - 1), m, n);
		return;
	}
	for (i = 0; i < n; i++) {
		int v = fc_in_vc(d, p, c, m[i]);

		if (v < 0)
			other[no++] = m[i];
		else
			q[v & (fn->n_vcs - 1)][nq[v & (fn->n_vcs - 1)]++] = m[i];
	}
	for (vc = 0; vc < fn->n_vcs; vc++)
		if (nq[vc] != 0)
			fc_in_burst(d, w, p, pi, vc, q[vc], nq[vc]);
	if (no)
		node_rx(d, w, p, pi, other, no);
}

/* Bursts one routing pass may take from an input queue. */
#define FC_ROUTE_BURSTS 4

/* Route from the input queues of one port (its owner). @return frames
 * that left them. */
static inline unsigned int
fc_route(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_port *p)
{
	const struct dcnfwd_node *node = &d->node[p->owner_idx];
	struct dcn_fc_node *fn = node->fc;
	unsigned int vc, total = 0;

	for (vc = 0; vc < fn->n_vcs; vc++) {
		uint32_t in_idx = p->local * fn->n_vcs + vc;
		struct dcn_fc_chan *in = &fn->chan[in_idx];
		struct rte_mbuf *m[DCNFWD_MAX_BURST];
		struct fc_pass ps = { 0, 0, 0 };
		uint32_t held = in->held_n, i, k, r;
		uint16_t n;

		if (held == 0 && rte_ring_empty(in->in_q))
			continue;
		if (held != 0 && !fc_any_room(fn, in, in_idx, in->held_blocked)) {
			/* No held frame can move: later frames for the same
			 * outputs stay behind them, the rest may go. */
			ps.blocked = in->held_blocked;
		} else {
			/* Held frames first, in order. */
			for (i = 0, k = 0; i < held; i++) {
				uint32_t oc = in->held_oc[i];

				if ((ps.blocked >> oc & 1) ||
				    !fc_admit(d, w, node, in, in_idx, oc, in->held[i],
					      &ps)) {
					in->held_oc[k] = (uint16_t)oc;
					in->held[k++] = in->held[i];
				}
			}
			in->held_n = k;
		}
		/* A backlog drains faster than a burst a loop, which is what
		 * arrives: the queue empties and cut-through resumes. */
		for (r = 0; r < FC_ROUTE_BURSTS; r++) {
			n = (uint16_t)RTE_MIN(d->burst, in->in_cap - in->held_n);
			n = n ? (uint16_t)rte_ring_dequeue_burst(in->in_q, (void **)m,
								 n, NULL) : 0;
			if (n == 0)
				break;
			fc_route_burst(d, w, p, in_idx, m, n, &ps);
			if (n < d->burst)
				break;
		}
		fc_pass_end(d, w, node, in, &ps);
		total += ps.done;
	}
	return total;
}

/* The port's link is down: what waits for it will not go. Drop it,
 * counted, and give the inputs their internal credits back, so frames
 * routed elsewhere since are not held up. */
static unsigned int
fc_flush_down(struct dcnfwd *d, struct dcnfwd_worker *w,
	      const struct dcnfwd_port *p, uint32_t pi)
{
	struct dcn_fc_node *fn = d->node[p->owner_idx].fc;
	unsigned int vc, total = 0;

	for (vc = 0; vc < fn->n_vcs; vc++) {
		struct dcn_fc_chan *c = dcn_fc_chan(fn, p->local, vc);
		struct rte_mbuf *m[DCNFWD_MAX_BURST];
		uint16_t src[DCNFWD_MAX_BURST];
		uint32_t n, k;

		while ((n = rte_ring_dequeue_burst(c->out_q, (void **)m,
						   DCNFWD_MAX_BURST, NULL)) > 0) {
			for (k = 0; k < n; k++)
				src[k] = (uint16_t)*DCN_FC_MBUF_FIELD(m[k]);
			rte_pktmbuf_free_bulk(m, n);
			fc_return(c, src, 0, n);
			w->pst[pi].down_drop += n;
			total += n;
		}
	}
	return total;
}

/* Send from the output queues of one port what credits and the port
 * allow (its owner). @return frames sent. */
static inline unsigned int
fc_send(struct dcnfwd *d, struct dcnfwd_worker *w, const struct dcnfwd_port *p,
	uint32_t pi)
{
	struct dcn_fc_node *fn = d->node[p->owner_idx].fc;
	unsigned int i, total = 0;

	if (unlikely(__atomic_load_n(&p->link_down, __ATOMIC_ACQUIRE)))
		return fc_flush_down(d, w, p, pi);
	/* Alternate which VC goes first, so neither starves the other. */
	for (i = 0; i < fn->n_vcs; i++) {
		unsigned int vc = (unsigned int)(i + w->loops) & (fn->n_vcs - 1u);
		struct dcn_fc_chan *c = dcn_fc_chan(fn, p->local, vc);
		struct rte_mbuf *m[DCNFWD_MAX_BURST];
		uint16_t src[DCNFWD_MAX_BURST];
		uint32_t n, sent, k;

		if (rte_ring_empty(c->out_q))
			continue;
		n = rte_ring_dequeue_burst_start(c->out_q, (void **)m, d->burst, NULL);
		for (k = 0; k < n; k++)
			src[k] = (uint16_t)*DCN_FC_MBUF_FIELD(m[k]);
		sent = fc_tx(w, fn, c, p, pi, m, n);
		/* What was not sent stays at the queue's head. */
		rte_ring_dequeue_finish(c->out_q, sent);
		fc_return(c, src, 0, sent);
		total += sent;
	}
	return total;
}

/* Tell the peer behind a cable how much its input queues here have
 * freed: after every credit_batch frames, and at least every refresh
 * interval so that a lost credit frame is repaired. */
static inline void
fc_announce(struct dcnfwd *d, struct dcnfwd_worker *w, struct dcnfwd_port *p,
	    uint64_t now)
{
	struct dcn_fc_node *fn = d->node[p->owner_idx].fc;
	const struct dcn_fwd_ctx *c = w->ctx[p->owner_idx];
	struct dcn_fc_chan *c0 = dcn_fc_chan(fn, p->local, 0);
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_CREDIT,
				    .len = DCN_FC_CREDIT_LEN };
	struct dcn_fc_credit cr;
	struct rte_mbuf *m;
	unsigned int vc;
	uint64_t mac;
	uint64_t since = now - p->credit_tsc;
	int due = 0, changed = 0;
	uint8_t *f;

	if (fn->kind[p->local] != DCN_FC_PORT_CREDIT)
		return;
	for (vc = 0; vc < fn->n_vcs; vc++) {
		const struct dcn_fc_chan *ch = dcn_fc_chan(fn, p->local, vc);

		changed |= ch->freed != ch->announced;
		due |= ch->freed - ch->announced >= d->credit_batch;
	}
	/* A new state goes out at once after a batch, or within a refresh
	 * interval; then it is repeated a few times, in case a frame was
	 * lost, and after that only every 100 intervals. */
	if (!due && since >= d->credit_refresh_tsc)
		due = changed || p->credit_repeats < DCNFWD_CREDIT_REPEATS ||
		      since >= 100 * d->credit_refresh_tsc;
	if (!due)
		return;
	p->credit_tsc = now;
	p->credit_repeats = changed ? 0 : p->credit_repeats + 1;
	dcn_fc_credit_state(fn, p->local, &cr);
	for (vc = 0; vc < fn->n_vcs; vc++)
		dcn_fc_chan(fn, p->local, vc)->announced = cr.freed[vc];
	if (unlikely(d->credit_drop_ppm) &&
	    (uint32_t)(rte_rand() % 1000000) < d->credit_drop_ppm) {
		c0->credit_lost++;
		return;
	}
	m = rte_pktmbuf_alloc(d->mp);
	if (m == NULL) {
		c0->credit_lost++;
		return;
	}
	f = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	memset(f, 0, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	/* The cable's peer, or everyone on it until a hello names the peer. */
	mac = __atomic_load_n(&c->port[p->local].peer_mac, __ATOMIC_ACQUIRE);
	if (mac == 0)
		mac = UINT64_MAX;
	memcpy(f, &mac, RTE_ETHER_ADDR_LEN);
	memcpy(f + RTE_ETHER_ADDR_LEN, &c->port[p->local].mac, RTE_ETHER_ADDR_LEN);
	f[12] = (uint8_t)(d->ethertype >> 8);
	f[13] = (uint8_t)d->ethertype;
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	dcn_fc_write_credit(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &cr);
	if (port_tx(p, (uint16_t)(w->idx % p->nb_txq), &m, 1) == 1) {
		c0->credit_tx++;
	} else {
		rte_pktmbuf_free(m);
		c0->credit_lost++;
	}
}

static inline unsigned int
fc_service(struct dcnfwd *d, struct dcnfwd_worker *w, uint64_t now)
{
	unsigned int i, work = 0;

	for (i = 0; i < w->n_fc_ports; i++)
		work += fc_route(d, w, &d->port[w->fc_ports[i]]);
	for (i = 0; i < w->n_fc_ports; i++) {
		uint32_t pi = w->fc_ports[i];

		work += fc_send(d, w, &d->port[pi], pi);
		fc_announce(d, w, &d->port[pi], now);
	}
	return work;
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
	uint64_t last_drain = rte_rdtsc(), loop_start = last_drain;
	unsigned int idle = 0, busy = 0;

	DCNFWD_LOG(INFO, "worker %u on lcore %u polls %u queues\n", w->idx,
		   w->lcore, w->n_rx);
	/* Tables are swapped under RCU: this worker reports a quiescent
	 * state after every loop, when it holds no table pointer. */
	rte_rcu_qsbr_thread_register(d->rcu, w->idx);
	rte_rcu_qsbr_thread_online(d->rcu, w->idx);
	while (!__atomic_load_n(&dcnfwd_quit, __ATOMIC_RELAXED)) {
		uint64_t now = rte_rdtsc();
		unsigned int i, work = 0;

		/* The last loop's time, when it had work (the clock read
		 * here serves both). */
		if (busy)
			w->busy_tsc += now - loop_start;
		loop_start = now;
		for (i = 0; i < w->n_rx; i++) {
			uint32_t pi = w->rx[i].port;
			struct dcnfwd_port *p = &d->port[pi];
			uint16_t n = port_rx(p, w->rx[i].queue, m, d->burst, now);

			if (n == 0)
				continue;
			work += n;
			w->pst[pi].rx += n;
			switch (p->owner) {
			case OWNER_NODE:
				if (d->fc_on)
					fc_node_rx(d, w, p, pi, m, n);
				else
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
		if (w->n_fc_ports)
			work += fc_service(d, w, now);
		if (now - last_drain >= d->drain_tsc || work == 0) {
			flush_all(d, w);
			last_drain = now;
		}
		w->loops++;
		busy = work != 0;
		w->busy_loops += busy;
		rte_rcu_qsbr_quiescent(d->rcu, w->idx);
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
	rte_rcu_qsbr_thread_offline(d->rcu, w->idx);
	rte_rcu_qsbr_thread_unregister(d->rcu, w->idx);
	return 0;
}

void
dcnfwd_loop_totals(const struct dcnfwd *d, struct dcnfwd_loop_totals *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];

		s->loops += __atomic_load_n(&w->loops, __ATOMIC_RELAXED);
		s->busy_loops += __atomic_load_n(&w->busy_loops, __ATOMIC_RELAXED);
		s->busy_tsc += __atomic_load_n(&w->busy_tsc, __ATOMIC_RELAXED);
	}
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
		s->in_drop += __atomic_load_n(&p->in_drop, __ATOMIC_RELAXED);
		s->down_drop += __atomic_load_n(&p->down_drop, __ATOMIC_RELAXED);
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

void
dcnfwd_drop_totals(const struct dcnfwd *d, struct dcnfwd_drops *dr)
{
	struct dcn_fwd_stats s;
	unsigned int i, r;

	memset(dr, 0, sizeof(*dr));
	for (i = 0; i < d->n_ports; i++) {
		const struct dcnfwd_port *p = &d->port[i];
		struct dcnfwd_port_stats ps;

		dcnfwd_port_totals(d, i, &ps);
		if (p->owner == OWNER_HOST) {
			/* the host's NIC could not send into its cable */
			dr->ingress += ps.tx_drop;
		} else if (p->owner == OWNER_NODE && p->is_host) {
			dr->ingress += ps.in_drop;
			dr->fabric += ps.tx_drop; /* crossed the fabric, lost */
		} else {
			dr->fabric += ps.tx_drop + ps.in_drop;
		}
		dr->fabric += ps.down_drop;
	}
	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &s);
	for (r = 1; r < DCN_DROP_MAX; r++)
		dr->fabric += s.drop[r];
	for (i = 0; i < d->n_workers; i++) {
		dr->fabric += __atomic_load_n(&d->worker[i].fc_overflow, __ATOMIC_RELAXED);
		dr->control += __atomic_load_n(&d->worker[i].ctl_drop, __ATOMIC_RELAXED);
	}
	for (i = 0; i < d->n_nodes; i++) {
		const struct dcn_fc_node *fn = d->node[i].fc;
		unsigned int c;

		for (c = 0; fn != NULL && c < fn->n_chans; c++) {
			dr->credit_tx += fn->chan[c].credit_tx;
			dr->credit_lost += fn->chan[c].credit_lost;
			dr->stalls += fn->chan[c].stalls;
		}
	}
}
