/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A routing pass over one input channel of a lane (fc_route.c): its
 * state, the admission of routed frames to output channels while the
 * input's internal credits there last, and the parked frames the
 * forwarding step held back (lib/fwd/README.md, "Bounces"). Private to
 * lib/fc.
 */
#ifndef DCN_FC_PASS_H
#define DCN_FC_PASS_H

#include <rte_cycles.h>

#include "fc_dp_priv.h"

/* One routing pass over an input channel (a lane's). */
struct pass {
	uint32_t done;           /* frames that left the input queue */
	uint16_t in_idx;         /* the input channel: lane * n_chans + chan */
	uint16_t lane;
	uint16_t link;           /* the channel's link */
	struct chan_set blocked; /* output channels full for this input */
	struct chan_set touched; /* output channels with staged frames */
};

/* A pass over lane lane of channel chan. Only the node's words of the
 * sets are cleared, and read. */
static inline void
pass_init(struct dcn_fc_wnode *x, struct pass *ps, uint32_t lane, uint32_t chan)
{
	const struct dcn_fc_node *fn = x->dp->fn;
	uint32_t nw = chan_words(fn);

	ps->done = 0;
	ps->in_idx = (uint16_t)lane_chan(fn, lane, chan);
	/* Before any frame of the pass goes on (pass_out is 0 between
	 * passes). */
	keep_out(x)->pass_chan = ps->in_idx;
	ps->lane = (uint16_t)lane;
	ps->link = (uint16_t)(chan / fn->n_vcs);
	memset(ps->blocked.w, 0, nw * sizeof(uint64_t));
	memset(ps->touched.w, 0, nw * sizeof(uint64_t));
}

/* Room input in (in_idx) has in output channel oc, for frames x routes:
 * in the queue they join, with those x has staged for it. */
static inline uint32_t
ic_room(const struct dcn_fc_wnode *x, const struct dcn_fc_chan *in, uint16_t in_idx,
	uint32_t oc)
{
	const struct dcn_fc_node *fn = x->dp->fn;

	return dcn_fc_ic_room(&fn->chan[oc], out_lane(x, oc, fn->link_port[oc / fn->n_vcs]),
			      in, in_idx, oc, x->w->stage_n[oc]);
}

/*
 * The input's share of output channel oc is all staged: where nothing
 * waits ahead of the staged frames (this worker sends them, its output
 * queue is empty), they go now, and what goes frees its share
 * again. Without this a pass would move at most a share of frames from
 * an input to an output, and a held list, once there, would never
 * drain faster than a share a pass. @return the share has room again.
 */
static inline int
stage_sent(struct dcn_fc_wnode *x, uint32_t oc, struct dcn_fc_chan *in,
	   uint16_t in_idx)
{
	struct dcn_fc_node *fn = x->dp->fn;
	uint16_t o = fn->link_port[oc / fn->n_vcs];

	if (x->w->stage_n[oc] == 0 || !sends_now(x, oc, o))
		return 0;
	stage_flush(x, oc, in_idx);
	return ic_room(x, in, in_idx, oc) != 0;
}

/* Stage m for output channel oc if the pass's input in has room there. */
static inline int
admit(struct dcn_fc_wnode *x, struct dcn_fc_chan *in, uint32_t oc,
      struct rte_mbuf *m, struct pass *ps)
{
	struct dcn_fc_worker *w = x->w;

	if (cs_has(&ps->blocked, oc) ||
	    (ic_room(x, in, ps->in_idx, oc) == 0 &&
	     !stage_sent(x, oc, in, ps->in_idx))) {
		/* Later frames for the same output stay behind this one. */
		cs_add(&ps->blocked, oc);
		return 0;
	}
	__atomic_store_n(&in->ic_taken[oc], in->ic_taken[oc] + 1, __ATOMIC_RELAXED);
	w->stage[oc][w->stage_n[oc]++] = m;
	cs_add(&ps->touched, oc);
	ps->done++;
	if (w->stage_n[oc] == DCN_FC_BURST_MAX)
		stage_flush(x, oc, ps->in_idx);
	return 1;
}

/* out_chan: the next hop's MAC is no neighbour's any more. */
#define NO_CHAN UINT32_MAX

/* The output channel of a routed frame m for local output port o. */
static inline uint32_t
out_chan(const struct dcn_fc_wnode *x, const struct rte_mbuf *m, uint16_t o)
{
	const struct dcn_fc_node *fn = x->dp->fn;
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t vco = 0;
	int link;

	/* A fabric frame's VC is in its rewritten header; a Diamond
	 * packet's in its TTL, which this hop has set. */
	if (fn->kind[o] == DCN_FC_PORT_HOST)
		return fn->port_link[o] * fn->n_vcs;
	if ((uint16_t)(e[12] << 8 | e[13]) == x->dp->ethertype)
		vco = dcn_fc_vc(fn, dcn_fabric_vc_of(e[15]));
	else if (x->fwd->router_mode && rte_pktmbuf_data_len(m) > ROUTER_TTL_OFF)
		vco = dcn_fc_vc(fn, dcn_fwd_router_vc(e[ROUTER_TTL_OFF]));
	if (fn->kind[o] != DCN_FC_PORT_SWITCH)
		return fn->port_link[o] * fn->n_vcs + vco;
	/* Behind a switch: the link of the MAC the forwarding step chose
	 * (the switch delivers by it), read again as the step read it; a
	 * neighbour that went down in between has none. */
	link = mac_link(x->dp, o, frame_mac(m, DST_MAC));
	return link < 0 ? NO_CHAN : (uint32_t)link * fn->n_vcs + vco;
}

/*
 * k frames of the pass's input, routed to output channel c, in their
 * order: staged as far as the input's room in c goes (its share of the
 * queue), the rest held, c then blocked for the pass. Past the room, the
 * output queue's sender with nothing queued or staged ahead first sends at
 * once what the peer's credits allow: frames sent at once take no room
 * (as if queued and taken straight away). @return frames held.
 */
static inline uint32_t
place(struct dcn_fc_wnode *x, struct dcn_fc_chan *in, uint32_t c,
      struct rte_mbuf **s, uint32_t k, struct pass *ps)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_worker *w = x->w;
	uint32_t room = ic_room(x, in, ps->in_idx, c), adm, held, j;

	if (unlikely(room < k) && stage_sent(x, c, in, ps->in_idx))
		room = ic_room(x, in, ps->in_idx, c);
	if (unlikely(room < k) && w->stage_n[c] == 0) {
		uint16_t o = fn->link_port[c / fn->n_vcs];

		if (sends_now(x, c, o)) {
			uint32_t sent = chan_tx(x, c, o, s, k, &keep_out(x)->pass_out);

			s += sent;
			k -= sent;
		}
	}
	adm = RTE_MIN(room, k);
	if (adm != 0) {
		__atomic_store_n(&in->ic_taken[c], in->ic_taken[c] + adm,
				 __ATOMIC_RELAXED);
		if (w->stage_n[c] + adm > DCN_FC_BURST_MAX)
			stage_flush(x, c, ps->in_idx);
		memcpy(&w->stage[c][w->stage_n[c]], s, adm * sizeof(*s));
		w->stage_n[c] = (uint16_t)(w->stage_n[c] + adm);
		cs_add(&ps->touched, c);
	}
	if (likely(adm == k))
		return 0;
	held = held_end(in, k - adm);
	for (j = adm; j < k; j++) {
		in->held_oc[held] = (uint16_t)c;
		in->held[held++] = s[j];
	}
	__atomic_store_n(&in->held_n, in->held_n + (k - adm), __ATOMIC_RELAXED);
	cs_add(&ps->blocked, c);
	return k - adm;
}

/*
 * Parked frames: the forwarding step held them back (DCN_FWD_PARK), as
 * they would go back to the relay that just sent them back, whose table
 * disagrees with this one's. They wait in the held list, as frames of
 * their input queue (their credits not given back: the sender is held
 * back too), until this relay's table changes, or park_wait passes, and
 * are then stepped again. A frame that bounces between two relays thus
 * waits for the news to arrive instead of spending its VCs.
 */
static inline void
park(struct dcn_fc_wnode *x, struct dcn_fc_chan *in)
{
	if (in->parked++ == 0) {
		in->park_gen = x->fwd->table_gen;
		in->park_tsc = dcn_fwd_clock();
	}
}

/* park_due: not yet; again, with the new table (may be held again);
 * again, and they go whatever the table says (waited long enough). */
#define PARK_WAIT 0
#define PARK_AGAIN 1
#define PARK_GO 2

static inline int
park_due(const struct dcn_fc_wnode *x, const struct dcn_fc_chan *in)
{
	if (likely(in->parked == 0))
		return PARK_WAIT;
	if (x->fwd->table_gen != in->park_gen)
		return PARK_AGAIN;
	return dcn_fwd_clock() - in->park_tsc >= x->dp->park_wait_tsc ? PARK_GO : PARK_WAIT;
}

/* unpark: the frame was dropped, or sent on, by its new step. */
#define UNPARK_GONE UINT32_MAX

/* Step parked frame m (received on local port local) again, due as
 * park_due says. @return its output channel, DCN_FC_PARKED when it is
 * still held back, or UNPARK_GONE. */
static uint32_t
unpark(struct dcn_fc_wnode *x, struct dcn_fc_chan *in, uint16_t local,
       struct rte_mbuf *m, int due, struct pass *ps)
{
	uint16_t o;
	uint32_t oc;

	if (due == PARK_WAIT)
		return DCN_FC_PARKED;
	if (!dcn_fwd_restep(x->fwd, local, m, &o, due == PARK_AGAIN)) {
		ps->done++;
		return UNPARK_GONE;
	}
	if (o == DCN_FWD_PARK) {
		park(x, in);
		return DCN_FC_PARKED;
	}
	oc = o == DCN_FWD_CONTROL ? NO_CHAN : out_chan(x, m, o);
	if (unlikely(oc == NO_CHAN)) {
		if (o < DCN_FC_MAX_PORTS)
			x->st[o].unknown_dst++;
		rte_pktmbuf_free(m);
		ps->done++;
		return UNPARK_GONE;
	}
	return oc;
}

/* Parked frames of the held list from slot i to last (unread). */
static uint32_t
parked_in(const struct dcn_fc_chan *in, uint32_t i, uint32_t last)
{
	uint32_t n = 0;

	for (; i < last; i++)
		n += in->held_oc[i] == DCN_FC_PARKED;
	return n;
}

#endif /* DCN_FC_PASS_H */
