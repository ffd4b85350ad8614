/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_FC_DP_PRIV_H
#define DCN_FC_DP_PRIV_H

/*
 * What the data path's stages share, inline: channel sets, the reading
 * of a frame's MACs and channel bytes, and the send primitives both the
 * routing pass (cut-through) and the owner's send use. Not installed.
 *
 *   fc_rx.c      receive: a burst sorted into its input channels
 *   fc_route.c   route: passes over an input channel, frames admitted
 *                to output channels under internal credits
 *   fc_send.c    send: an owner's output queues under the peer's credits
 *   fc_credit.c  credit frames: taken from a peer, announced to it
 *   fc_dp.c      set-up of a node's data path and a worker's scratch
 */
#include <string.h>

#include <rte_ring.h>

#include "dcn_fabric.h"
#include "dcn_fc_dp.h"

/* A set of a node's channels, a bit each; a node uses the first
 * chan_words() words. */
#define CHAN_WORDS (DCN_FC_MAX_CHANS / 64)

static inline uint32_t
chan_words(const struct dcn_fc_node *fn)
{
	return (fn->n_chans + 63) >> 6;
}

struct chan_set {
	uint64_t w[CHAN_WORDS];
};

static inline int
cs_has(const struct chan_set *s, uint32_t c)
{
	return s->w[c >> 6] >> (c & 63) & 1;
}

static inline void
cs_add(struct chan_set *s, uint32_t c)
{
	s->w[c >> 6] |= 1ull << (c & 63);
}

/* Is every channel of w (a node's words) in s? */
static inline int
cs_covers(const struct chan_set *s, const uint64_t *w, const struct dcn_fc_node *fn)
{
	uint32_t i, nw = chan_words(fn);

	for (i = 0; i < nw; i++)
		if (w[i] & ~s->w[i])
			return 0;
	return 1;
}

/* The 6 bytes of a MAC at offset off of a frame (at least off + 8
 * long), as a neighbour entry keeps them: first in memory, then zeros. */
#define MAC48 rte_cpu_to_be_64(0xffffffffffff0000ull)

static inline uint64_t
frame_mac(const struct rte_mbuf *m, unsigned int off)
{
	uint64_t v;

	memcpy(&v, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), sizeof(v));
	return v & MAC48;
}

#define DST_MAC 0
#define SRC_MAC 6

/* The link of switch port port whose neighbour has MAC mac, or -1. A
 * switch port has a few links (the servers on its switch less one): a
 * scan of their entries is as quick as a hash. */
static inline int
mac_link(const struct dcn_fc_dp *dp, uint16_t port, uint64_t mac)
{
	const struct dcn_fc_node *fn = dp->fn;
	uint32_t l = fn->port_link[port], end = l + fn->port_links[port];

	if (mac == 0)
		return -1;
	/* By the MAC its frames come from, kept while its link is down:
	 * what a neighbour sent just before is still its link's (arrived,
	 * in its counts), not a stranger's. */
	for (; l < end; l++) {
		const struct dcn_fwd_nbr *e = dp->link[l].nbr;

		if (e != NULL && __atomic_load_n(&e->heard_mac, __ATOMIC_RELAXED) == mac)
			return (int)l;
	}
	return -1;
}

static inline int
to_us(const struct dcn_fc_wnode *x, uint16_t port, const struct rte_mbuf *m)
{
	return rte_is_same_ether_addr(rte_pktmbuf_mtod(m, const struct rte_ether_addr *),
				      &x->fwd->port[port].mac);
}

/* Where a Diamond packet's TTL is: IPv4 straight after Ethernet. */
#define ROUTER_TTL_OFF (DCN_ETHER_HDR_LEN + 8)

/* The index in fn->chan of channel chan of lane lane (lane 0's, the
 * usual, with no multiply). */
static inline uint32_t
lane_chan(const struct dcn_fc_node *fn, uint32_t lane, uint32_t chan)
{
	return lane ? lane * fn->n_chans + chan : chan;
}

/* A channel's count of frames arrived set to arrived, and its copy in
 * the kept state with it: what a credit frame tells the peer
 * (dcn_fc_credit_state) and what outlives a kill. */
static inline void
set_arrived(struct dcn_fc_chan *ch, uint32_t arrived)
{
	__atomic_store_n(&ch->arrived, arrived, __ATOMIC_RELEASE);
	ch->keep->arrived = arrived;
}

/* Bytes 12 to 15 of a frame, as loaded, masked to what
 * in_vc and out_chan read: the EtherType, a fabric header's frame type
 * and VC bits. Frames whose words are equal go to the same channel. */
#define CHAN_BYTES DCN_FWD_CHAN_BYTES

static inline uint32_t
frame_word(const struct rte_mbuf *m)
{
	uint32_t w;

	memcpy(&w, rte_pktmbuf_mtod_offset(m, const uint8_t *, 12), sizeof(w));
	return w;
}

static inline uint32_t
chan_word(const struct rte_mbuf *m)
{
	return frame_word(m) & CHAN_BYTES;
}

/*
 * The loops below read bytes 12 to 15 (and 22, a Diamond packet's TTL) of
 * every frame before they know its length, so as not to branch on each:
 * those bytes are inside the mbuf's data room whatever the frame (a
 * frame starts after the headroom, in a room of at least a full frame),
 * and a frame too short to have them is refused by its length after.
 */
static inline uint8_t
frame_ttl(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const uint8_t *)[ROUTER_TTL_OFF];
}

/* Input channel c (a lane's) of link has freed frames (its router
 * only): a credit frame is due once it has freed a batch since the last. */
static inline void
batch_check(struct dcn_fc_dp *dp, uint16_t link, const struct dcn_fc_chan *c)
{
	if (c->freed - __atomic_load_n(&c->announced, __ATOMIC_RELAXED) >=
	    dp->link[link].batch)
		__atomic_store_n(&dp->link[link].batch_due, 1, __ATOMIC_RELAXED);
}

/* Frames were freed on link (or its batch is due): its port's owner
 * looks at the port's credits on its next pass (dcn_fc_announce). A
 * host port announces nothing: no look. */
static inline void
announce_hint(struct dcn_fc_dp *dp, uint16_t link)
{
	uint16_t port = dp->fn->link_port[link];

	if (dcn_fc_kind_credited(dp->fn->kind[port]))
		__atomic_store_n(&dp->port[port].announce_hint, 1, __ATOMIC_RELEASE);
}

/* The output queue, of channel oc on local port o, that the frames x
 * routes join: its sender's (lane x->sender[o] of the channel). */
static inline struct dcn_fc_chan *
out_lane(const struct dcn_fc_wnode *x, uint32_t oc, uint16_t o)
{
	return dcn_fc_lane(x->dp->fn, oc, x->sender[o]);
}

/* Credits for up to n frames of output channel c on local port o, held
 * until credit_settle: with one sender, what its count allows; with
 * several, claimed from the shared count. */
static inline uint32_t
credit_take(const struct dcn_fc_node *fn, struct dcn_fc_chan *c, uint16_t o, uint32_t n)
{
	if (!dcn_fc_kind_credited(fn->kind[o]))
		return n;
	if (likely(fn->senders[o] == 1))
		return dcn_fc_take(c, n);
	return dcn_fc_claim(c, n);
}

/* Of taken credits, sent were spent: counted (one sender), or the rest
 * given back (several). A port without credits counts what went, one
 * atomic a burst where several send on it. */
static inline void
credit_settle(const struct dcn_fc_node *fn, struct dcn_fc_chan *c, uint16_t o,
	      uint32_t taken, uint32_t sent)
{
	struct dcn_fc_chan *c0 = c - c->vc;

	if (likely(fn->senders[o] == 1)) {
		if (sent)
			dcn_fc_sent(c, sent);
		/* Pool slots taken for frames the port refused are spare. */
		if (unlikely(sent < taken) && dcn_fc_kind_credited(fn->kind[o]))
			__atomic_store_n(&c0->pool_spared, c0->pool_spared + 1,
					 __ATOMIC_RELAXED);
	} else if (dcn_fc_kind_credited(fn->kind[o])) {
		dcn_fc_unclaim(c, taken - sent);
		if (sent < taken)
			__atomic_fetch_add(&c0->pool_spared, 1, __ATOMIC_RELAXED);
	} else if (sent) {
		__atomic_fetch_add(&c->sent, sent, __ATOMIC_RELEASE);
	}
}

/*
 * Has channel c of local port o credits, its own or in its link's pool?
 * Before it says no, the slots other VCs hold and no longer need are
 * taken back, once for each change that can have made some spare (a
 * credit frame, a send the port cut short), not at every pass over a
 * stalled channel, which would look at every VC of the link each time.
 */
static inline int
credit_any(const struct dcn_fc_node *fn, struct dcn_fc_chan *c, uint16_t o)
{
	struct dcn_fc_chan *c0 = c - c->vc;
	union dcn_fc_sent_tok w = { .u = __atomic_load_n(&c->sent_tok, __ATOMIC_RELAXED) };
	uint64_t seen;

	if (dcn_fc_own_room(c, w) + dcn_fc_pool_free(c0) > 0)
		return 1;
	seen = __atomic_load_n(&c0->credit_rx, __ATOMIC_RELAXED) +
	       __atomic_load_n(&c0->pool_spared, __ATOMIC_RELAXED);
	if (seen == __atomic_load_n(&c0->pool_looked, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&c0->pool_looked, seen, __ATOMIC_RELAXED);
	dcn_fc_pool_settle(c0, fn->senders[o] > 1);
	w.u = __atomic_load_n(&c->sent_tok, __ATOMIC_RELAXED);
	return dcn_fc_own_room(c, w) + dcn_fc_pool_free(c0) > 0;
}

/* x's output counts in the ledger (dcn_fc_keep_out). */
static inline struct dcn_fc_keep_out *
keep_out(const struct dcn_fc_wnode *x)
{
	return &x->dp->out_keep[x->w->idx];
}

/* n frames of x about to leave its hands (to: a port's send, local
 * port + 1; 0: an output queue's enqueue): in the ledger they are in
 * doubt until ledger_done,
 * which the caller reaches after counting those that went where they
 * went, so that a kill anywhere leaves each counted once, or in doubt.
 * The barriers keep the compiler from moving the counts across the
 * note (the ledger is read by the next incarnation, not by a CPU that
 * runs beside this one). */
static inline struct dcn_fc_keep_out *
ledger_doubt(const struct dcn_fc_wnode *x, uint32_t n, uint32_t to)
{
	struct dcn_fc_keep_out *ko = keep_out(x);

	ko->sending = n;
	ko->sending_to = to;
	rte_compiler_barrier();
	return ko;
}

static inline void
ledger_done(struct dcn_fc_keep_out *ko)
{
	rte_compiler_barrier();
	ko->sending = 0;
}

/* n data frames handed to x's TX queue of local port o, counted in
 * *gone (left, or pass_out, of x's dcn_fc_keep_out) as the port takes
 * them. @return frames the port took. */
static inline uint16_t
ledger_tx(struct dcn_fc_wnode *x, uint16_t o, struct rte_mbuf **m, uint16_t n,
	  uint32_t *gone)
{
	const struct dcn_port *p = x->dp->port[o].port;
	struct dcn_fc_keep_out *ko = ledger_doubt(x, n, (uint32_t)o + 1);
	uint16_t sent;

	dcn_port_lat_note(&x->w->lat, m, n);
	sent = dcn_port_tx(p, dcn_port_txq(p, x->w->idx), m, n);
	*gone += sent;
	ledger_done(ko);
	return sent;
}

/* Send n frames of output channel oc on local port o now, on x's TX
 * queue (x a sender of the port), counted in *gone as ledger_tx does;
 * what the peer has no credit for, or the port does not take, stays with
 * the caller. @return frames sent. */
static inline uint32_t
chan_tx(struct dcn_fc_wnode *x, uint32_t oc, uint16_t o, struct rte_mbuf **m, uint32_t n,
	uint32_t *gone)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_chan *c = &fn->chan[oc];
	uint32_t may, sent;

	if (n == 0)
		return 0;
	may = credit_take(fn, c, o, n);
	if (may == 0) {
		out_lane(x, oc, o)->stalls++;
		return 0;
	}
	sent = ledger_tx(x, o, m, (uint16_t)may, gone);
	credit_settle(fn, c, o, may, sent);
	x->st[o].tx += sent;
	return sent;
}

/* Give input in_idx back its internal credits for n frames that left
 * output c (the one sender of that input's frames there). */
static inline void
ic_return(struct dcn_fc_chan *c, uint16_t in_idx, uint32_t n)
{
	uint32_t *r = &c->ic_returned[in_idx];

	if (n)
		__atomic_store_n(r, *r + n, __ATOMIC_RELEASE);
}

/* The same for queued frames, whose inputs src their mbufs carried: one
 * store per run of frames from the same input. */
static inline void
ic_return_runs(struct dcn_fc_chan *c, const uint16_t *src, uint32_t n)
{
	uint32_t k, run;

	for (k = 0; k < n; k += run) {
		for (run = 1; k + run < n && src[k + run] == src[k]; run++)
			;
		ic_return(c, src[k], run);
	}
}

/* May frames x routes to output channel oc on local port o go out now,
 * by x? Only their queue's sender sends, and only with nothing queued
 * ahead of them. */
static inline int
sends_now(const struct dcn_fc_wnode *x, uint32_t oc, uint16_t o)
{
	return dcn_fc_sends_on(x, o) && rte_ring_empty(out_lane(x, oc, o)->out_q);
}

/* Frames m of input in_idx, admitted to output channel oc, leave or join
 * its queue. */
static inline void
out_frames(struct dcn_fc_wnode *x, uint32_t oc, struct rte_mbuf **m, uint32_t n,
	   uint16_t in_idx)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_chan *c = &fn->chan[oc];
	uint16_t o = fn->link_port[oc / fn->n_vcs];
	uint32_t k = 0, tag = in_idx | oc << 16;
	struct dcn_fc_keep_out *ko;

	/* Cut-through: the queue's sender with nothing queued ahead sends
	 * at once and gives the internal credits straight back. */
	if (sends_now(x, oc, o)) {
		k = chan_tx(x, oc, o, m, n, &keep_out(x)->pass_out);
		ic_return(c, in_idx, k);
		if (k == n)
			return;
	}
	/* Frames that wait carry their input, for the credits' return. */
	for (uint32_t i = k; i < n; i++)
		*DCN_FC_MBUF_FIELD(m[i]) = tag;
	/* Internal credits keep the sum of shares within the queue. */
	n -= k;
	m += k;
	ko = ledger_doubt(x, n, 0);
	k = rte_ring_enqueue_burst(out_lane(x, oc, o)->out_q, (void **)m, n, NULL);
	ko->queued += k;
	ko->pass_out += k;
	ledger_done(ko);
	__atomic_store_n(&x->dp->port[o].sender[x->sender[o]].out_waiting, 1,
			 __ATOMIC_RELEASE);
	if (unlikely(k < n)) {
		/* Never queued: their share goes back, or the input's room
		 * at this output would shrink for good. */
		x->w->overflow += n - k;
		ic_return(c, in_idx, n - k);
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
}

static inline void
stage_flush(struct dcn_fc_wnode *x, uint32_t oc, uint16_t in_idx)
{
	struct dcn_fc_worker *w = x->w;
	uint32_t n = w->stage_n[oc];

	if (n == 0)
		return;
	w->stage_n[oc] = 0;
	out_frames(x, oc, w->stage[oc], n, in_idx);
}

/* Where the next of add more held frames of input in goes: behind the
 * held ones, the list moved to the array's start first when they would
 * not fit behind it (held frames and the input queue never exceed
 * in_cap, half the array's slots). */
static inline uint32_t
held_end(struct dcn_fc_chan *in, uint32_t add)
{
	uint32_t h = in->held_head, n = in->held_n;

	if (unlikely(h + n + add > DCN_FC_HELD_SLOTS(in->in_cap))) {
		memmove(in->held, &in->held[h], n * sizeof(in->held[0]));
		memmove(in->held_oc, &in->held_oc[h], n * sizeof(in->held_oc[0]));
		in->held_head = 0;
		h = 0;
	}
	return h + n;
}

/* fc_credit.c: credit frame m, received on local port local, taken
 * (its sender's link found, its signature checked) and freed. */
void dcn_fc_take_credit(struct dcn_fc_wnode *x, uint16_t local, struct rte_mbuf *m);

/* fc_route.c: the cut-through of fc_rx.c. The lane's router, with
 * nothing waiting in input channel chan of lane lane of local port in,
 * routes frames m at once, as if they had been queued and taken
 * straight away. @return frames dealt with: all, or fewer once some are
 * held (the rest must queue behind them). */
uint16_t dcn_fc_route_now(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane,
			  uint32_t chan, struct rte_mbuf **m, uint16_t n);

/* fc_route.c: the cut-through of a burst not yet counted, whose frame 0
 * is of input channel chan (with the conditions of dcn_fc_route_now, and
 * n at most the channel's queue): its first frames of that channel are
 * counted as arrived and routed at once, as dcn_fc_route_now routes
 * them, the forwarding step checking their channel as it goes
 * (dcn_fwd_burst_chan). @return frames taken, a prefix of m: the next
 * (of another channel, or too short to have one) and those after it are
 * untouched, at m[return] onwards. */
uint16_t dcn_fc_route_chan_now(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane,
			       uint32_t chan, struct rte_mbuf **m, uint16_t n);

#endif /* DCN_FC_DP_PRIV_H */
