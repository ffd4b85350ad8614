/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route: a pass over one input channel of a lane, by the lane's router.
 * Frames go through the forwarding step and are admitted to their output
 * channels while the input's internal credits there last (sent at once
 * where nothing waits ahead), else held, without blocking the others.
 */
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
	struct dcn_fc_chan *ch = &fn->chan[oc];
	uint16_t o = fn->link_port[oc / fn->n_vcs];

	if (x->w->stage_n[oc] == 0 || !sends_now(x, oc, o))
		return 0;
	stage_flush(x, oc, in_idx);
	return dcn_fc_ic_room(ch, in, in_idx, oc) != 0;
}

/* Stage m for output channel oc if the pass's input in has room there. */
static inline int
admit(struct dcn_fc_wnode *x, struct dcn_fc_chan *in, uint32_t oc,
      struct rte_mbuf *m, struct pass *ps)
{
	struct dcn_fc_worker *w = x->w;

	if (cs_has(&ps->blocked, oc) ||
	    (dcn_fc_ic_room(&x->dp->fn->chan[oc], in, ps->in_idx, oc) == 0 &&
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
	struct dcn_fc_chan *ch = &fn->chan[c];
	uint32_t room = dcn_fc_ic_room(ch, in, ps->in_idx, c), adm, held, j;

	if (unlikely(room < k) && stage_sent(x, c, in, ps->in_idx))
		room = dcn_fc_ic_room(ch, in, ps->in_idx, c);
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

/* A routed frame's run key: its output port o and what out_chan reads
 * of it but the MAC (the TTL only for a Diamond switch). The forwarding
 * step has checked that it has those bytes. Never RUN_NONE: o is below
 * 2^16. */
static inline uint64_t
routed_key(const struct rte_mbuf *m, uint16_t o, int router)
{
	return chan_word(m) | (router ? (uint64_t)frame_ttl(m) << 32 : 0) |
	       (uint64_t)o << 40;
}

/* group_runs' last key when the next frame starts a run whatever its
 * key: the first, and every frame after one behind a switch port. */
#define RUN_NONE UINT64_MAX

/* Output channels route_grouped follows in one burst; a burst spread
 * over more goes frame by frame. */
#define GROUPS 8

/* A grouped burst: its runs of frames alike, run r being frames
 * [start[r], start[r + 1]) of group grp[r], and its groups' output
 * channels, frame counts and last run keys (RUN_NONE behind a switch
 * port). Runs, not a group per frame: a burst of one flow is one run,
 * and costs the grouping nothing per frame. */
struct groups {
	uint32_t ng, nr;
	uint32_t oc[GROUPS], cnt[GROUPS];
	uint64_t key[GROUPS];
	uint16_t start[DCN_FC_BURST_MAX + 1];
	uint8_t grp[DCN_FC_BURST_MAX];
};

/* Claim the peer's credits for every group's frames (a port of several
 * senders), or none. @return all were claimed. */
static inline int
claim_groups(struct dcn_fc_node *fn, const struct groups *gs)
{
	uint32_t g;

	for (g = 0; g < gs->ng; g++) {
		struct dcn_fc_chan *ch = &fn->chan[gs->oc[g]];
		uint32_t got = dcn_fc_claim(ch, gs->cnt[g]);

		if (got < gs->cnt[g]) {
			dcn_fc_unclaim(ch, got);
			while (g-- > 0)
				dcn_fc_unclaim(&fn->chan[gs->oc[g]], gs->cnt[g]);
			return 0;
		}
	}
	return 1;
}

/*
 * Send a grouped burst whole, when frame by frame would send each of its
 * frames at once: all its channels on one port this worker sends on,
 * nothing queued or staged ahead in any, and the peer's credits enough
 * for each channel's frames. One call to the port for several channels; a frame
 * sent at once takes no room in the queue. The port takes a prefix of the
 * burst, so what it refuses (a full ring) is the tail of each channel's
 * frames, which the caller then routes frame by frame, in order.
 * @return frames sent, or -1 when the burst is not such (nothing done).
 */
static inline int
burst_through(struct dcn_fc_wnode *x, struct rte_mbuf **m, uint32_t n,
	      const struct groups *gs)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_worker *w = x->w;
	uint16_t o = fn->link_port[gs->oc[0] / fn->n_vcs];
	uint32_t left[GROUPS] = { 0 }, sent, g, r;

	if (!dcn_fc_sends_on(x, o))
		return -1;
	for (g = 0; g < gs->ng; g++) {
		uint32_t c = gs->oc[g];
		struct dcn_fc_chan *ch = &fn->chan[c];

		if (fn->link_port[c / fn->n_vcs] != o || w->stage_n[c] != 0 ||
		    !rte_ring_empty(out_lane(x, c, o)->out_q) ||
		    (dcn_fc_kind_credited(fn->kind[o]) && dcn_fc_credits(ch) < gs->cnt[g]))
			return -1;
	}
	/* Another sender may have spent them since the look. */
	if (unlikely(fn->senders[o] > 1) && dcn_fc_kind_credited(fn->kind[o]) &&
	    !claim_groups(fn, gs))
		return -1;
	sent = ledger_tx(x, o, m, (uint16_t)n, &keep_out(x)->pass_out);
	x->st[o].tx += sent;
	for (r = gs->nr; r-- > 0 && gs->start[r + 1] > sent;)
		left[gs->grp[r]] += gs->start[r + 1] - RTE_MAX(gs->start[r], sent);
	for (g = 0; g < gs->ng; g++)
		credit_settle(fn, &fn->chan[gs->oc[g]], o, gs->cnt[g], gs->cnt[g] - left[g]);
	return (int)sent;
}

/*
 * The runs of a burst for route_grouped (below) into gs. @return 0
 * when the burst is not such. router (a Diamond switch, whose channel key
 * has the TTL) is a constant in each of the two calls: the loop is the
 * per-frame work of a routed burst.
 */
static __rte_always_inline int
group_runs(struct dcn_fc_wnode *x, struct rte_mbuf **m, const uint16_t *out,
	   uint16_t n, struct pass *ps, struct groups *gs, const int router)
{
	struct dcn_fc_node *fn = x->dp->fn;
	uint64_t last_key = RUN_NONE;
	uint32_t g = 0, i, run_start = 0;

	gs->ng = 0;
	gs->nr = 0;
	gs->cnt[0] = 0;
	for (i = 0; i < n; i++) {
		uint64_t key = routed_key(m[i], out[i], router);
		uint32_t c;

		if (likely(key == last_key))
			continue;
		/* The run before ends here: its frames to its group. */
		gs->cnt[g] += i - run_start;
		run_start = i;
		/* A key met before in the burst (flows of a few VCs take
		 * turns): its group, the channel not worked out again. */
		for (g = 0; g < gs->ng && gs->key[g] != key; g++)
			;
		if (g == gs->ng) {
			/* A control frame, or one held back. */
			if (unlikely(out[i] >= DCN_FWD_PARK))
				return 0;
			c = out_chan(x, m[i], out[i]);
			if (unlikely(c == NO_CHAN))
				return 0;
			/* Keys alike but for a VC the node merges share a
			 * channel, which is one group. */
			for (g = 0; g < gs->ng && gs->oc[g] != c; g++)
				;
			if (g == gs->ng) {
				if (gs->ng == GROUPS || cs_has(&ps->blocked, c))
					return 0;
				gs->oc[gs->ng] = c;
				gs->cnt[gs->ng++] = 0;
			}
			/* Behind a switch port the MAC decides: a run a
			 * frame, and no key stands for its channel. */
			if (fn->kind[out[i]] == DCN_FC_PORT_SWITCH)
				key = RUN_NONE;
			gs->key[g] = key;
		}
		gs->start[gs->nr] = (uint16_t)i;
		gs->grp[gs->nr++] = (uint8_t)g;
		last_key = key;
	}
	gs->start[gs->nr] = n;
	gs->cnt[g] += n - run_start;
	return 1;
}

/*
 * A relay's usual burst, nothing held ahead of it: each frame's output
 * channel is worked out once per run of frames alike (the same output
 * port and channel key; behind a switch port, where the MAC decides,
 * every frame), and each channel's frames are placed together, in their
 * order, with one look at the input's room there. The same as frame by
 * frame, for frames of one input and distinct outputs do not wait for
 * each other. @return the frames dealt with: all, or a prefix sent
 * whole, or none when the burst is not such (a control frame, an unknown
 * next hop, more than GROUPS channels, one blocked); the caller routes
 * the rest frame by frame.
 */
static inline uint16_t
route_grouped(struct dcn_fc_wnode *x, struct dcn_fc_chan *in, struct rte_mbuf **m,
	      const uint16_t *out, uint16_t n, struct pass *ps)
{
	struct rte_mbuf *grouped[DCN_FC_BURST_MAX], **dst[GROUPS];
	struct groups gs;
	uint32_t held = 0, g, i, r;
	int sent;

	if (!(x->fwd->router_mode ? group_runs(x, m, out, n, ps, &gs, 1) :
				    group_runs(x, m, out, n, ps, &gs, 0)))
		return 0;
	sent = burst_through(x, m, n, &gs);
	if (sent >= 0) {
		ps->done += (uint32_t)sent;
		return (uint16_t)sent;
	}
	if (gs.ng == 1) {
		held = place(x, in, gs.oc[0], m, n, ps);
	} else {
		for (g = 0, i = 0; g < gs.ng; i += gs.cnt[g++])
			dst[g] = &grouped[i];
		for (r = 0; r < gs.nr; r++)
			for (i = gs.start[r]; i < gs.start[r + 1]; i++)
				*dst[gs.grp[r]]++ = m[i];
		for (g = 0, i = 0; g < gs.ng; i += gs.cnt[g++])
			held += place(x, in, gs.oc[g], &grouped[i], gs.cnt[g], ps);
	}
	ps->done += n - held;
	return n;
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
		in->park_tsc = rte_rdtsc();
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
	return rte_rdtsc() - in->park_tsc >= x->dp->park_wait_tsc ? PARK_GO : PARK_WAIT;
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

/* Send or hold the kept frames m of the pass's input channel, with
 * their output ports out, as the forwarding step left them: frames
 * that cannot move yet join the held list. */
static inline void
route_kept(struct dcn_fc_wnode *x, struct rte_mbuf **m, const uint16_t *out,
	   uint16_t kept, struct pass *ps)
{
	struct dcn_fc_chan *ch = &x->dp->fn->chan[ps->in_idx];
	uint32_t at, first;
	uint16_t i;

	i = 0;
	if (ch->held_n == 0) {
		i = route_grouped(x, ch, m, out, kept, ps);
		if (i == kept)
			return;
	}
	/* Frame by frame: behind held frames (which go first to their
	 * outputs), or what route_grouped leaves (nothing held by it). */
	first = at = held_end(ch, kept - i);
	for (; i < kept; i++) {
		uint32_t oc;

		if (unlikely(out[i] == DCN_FWD_CONTROL)) {
			rte_pktmbuf_free(m[i]);
			ps->done++;
			continue;
		}
		if (unlikely(out[i] == DCN_FWD_PARK)) {
			park(x, ch);
			ch->held_oc[at] = DCN_FC_PARKED;
			ch->held[at++] = m[i];
			continue;
		}
		oc = out_chan(x, m[i], out[i]);
		if (unlikely(oc == NO_CHAN)) {
			x->st[out[i]].unknown_dst++;
			rte_pktmbuf_free(m[i]);
			ps->done++;
			continue;
		}
		if (!admit(x, ch, oc, m[i], ps)) {
			ch->held_oc[at] = (uint16_t)oc;
			ch->held[at++] = m[i];
		}
	}
	__atomic_store_n(&ch->held_n, ch->held_n + (at - first), __ATOMIC_RELAXED);
}

/* Route a burst taken from the pass's input channel, received on local
 * port in. */
static inline void
route_burst(struct dcn_fc_wnode *x, uint16_t in, struct rte_mbuf **m, uint16_t n,
	    struct pass *ps)
{
	uint16_t out[DCN_FC_BURST_MAX];
	uint16_t kept;

	kept = dcn_fwd_burst(x->fwd, in, m, n, out);
	ps->done += n - kept; /* dropped, counted by reason */
	if (kept != 0)
		route_kept(x, m, out, kept, ps);
}

static inline void
pass_end(struct dcn_fc_wnode *x, struct dcn_fc_chan *in, struct pass *ps)
{
	const struct dcn_fc_node *fn = x->dp->fn;
	uint32_t w, nw = chan_words(fn), lane = ps->lane, link = ps->link;

	for (w = 0; w < nw; w++)
		for (uint64_t b = ps->touched.w[w]; b; b &= b - 1)
			stage_flush(x, w << 6 | (uint32_t)__builtin_ctzll(b), ps->in_idx);
	if (ps->done) {
		uint32_t *ft = &x->dp->lane[lane].freed_total[link];

		__atomic_store_n(&in->freed, in->freed + ps->done, __ATOMIC_RELEASE);
		in->keep->freed = in->freed;
		/* The pass's frames that went on are in the freed count
		 * now, not to be added to it again. */
		rte_compiler_barrier();
		keep_out(x)->pass_out = 0;
		__atomic_store_n(ft, *ft + ps->done, __ATOMIC_RELAXED);
		batch_check(x->dp, (uint16_t)link, in);
		announce_hint(x->dp, (uint16_t)link);
	}
	/* The held list's blocked outputs, for the next pass's check; read
	 * only while frames are held, and every pass that leaves some held
	 * ends here. */
	if (in->held_n != 0) {
		memcpy(in->held_blocked, ps->blocked.w, nw * sizeof(uint64_t));
		__atomic_store_n(&x->dp->lane[lane].in_waiting[fn->link_port[link]], 1,
				 __ATOMIC_RELEASE);
	}
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

/* Has any output channel that blocked input in_idx room again? */
static inline int
any_room(const struct dcn_fc_node *fn, const struct dcn_fc_chan *in,
	 uint32_t in_idx)
{
	uint32_t w, nw = chan_words(fn);

	for (w = 0; w < nw; w++)
		for (uint64_t b = in->held_blocked[w]; b; b &= b - 1) {
			uint32_t oc = w << 6 | (uint32_t)__builtin_ctzll(b);

			if (dcn_fc_ic_room(&fn->chan[oc], in, in_idx, oc) != 0)
				return 1;
		}
	return 0;
}

uint16_t
dcn_fc_route_now(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane, uint32_t chan,
		 struct rte_mbuf **m, uint16_t n)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_chan *ch = &fn->chan[lane_chan(fn, lane, chan)];
	uint16_t done = 0, piece;
	struct pass ps;

	/* In pieces of at most the queue's size, as dcn_fc_route_waiting
	 * takes them (what cannot move yet is held, and the held list has
	 * room for one queue's worth). */
	pass_init(x, &ps, lane, chan);
	do {
		piece = (uint16_t)RTE_MIN((uint32_t)(n - done), ch->in_cap);
		route_burst(x, in, m + done, piece, &ps);
		done = (uint16_t)(done + piece);
	} while (done != n && ch->held_n == 0);
	pass_end(x, ch, &ps);
	return done;
}

uint16_t
dcn_fc_route_chan_now(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane, uint32_t chan,
		      struct rte_mbuf **m, uint16_t n)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_chan *ch = &fn->chan[lane_chan(fn, lane, chan)];
	uint16_t out[DCN_FC_BURST_MAX];
	uint16_t kept, taken;
	struct pass ps;

	pass_init(x, &ps, lane, chan);
	kept = dcn_fwd_burst_chan(x->fwd, in, m, n, out, frame_word(m[0]), &taken);
	/* Counted as they come, before any leaves (dcn_fc_credit_state):
	 * the step sends none, and what it dropped is freed at pass_end. */
	set_arrived(ch, ch->arrived + taken);
	ps.done += taken - kept; /* dropped, counted by reason */
	if (kept != 0)
		route_kept(x, m, out, kept, &ps);
	pass_end(x, ch, &ps);
	return taken;
}

/* Bursts one routing pass may take from an input queue. */
#define ROUTE_BURSTS 4

unsigned int
dcn_fc_route_waiting(struct dcn_fc_wnode *x, uint16_t local, uint16_t lane)
{
	struct dcn_fc_node *fn = x->dp->fn;
	uint32_t chan = dcn_fc_port_chan0(fn, local);
	uint32_t end = dcn_fc_port_chan_end(fn, local);
	uint32_t *waiting = &x->dp->lane[lane].in_waiting[local];
	unsigned int total = 0;
	uint16_t burst = x->dp->burst;

	/* Cleared before the look: a frame queued after it sets it again
	 * for the next pass. */
	__atomic_store_n(waiting, 0, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (; chan < end; chan++) {
		uint32_t in_idx = lane * fn->n_chans + chan;
		struct dcn_fc_chan *in = &fn->chan[in_idx];
		struct rte_mbuf *m[DCN_FC_BURST_MAX];
		struct pass ps;
		uint32_t held = in->held_n, head, i, k, r;
		uint16_t n;
		int due;

		if (held == 0 && rte_ring_empty(in->in_q))
			continue;
		pass_init(x, &ps, lane, chan);
		due = park_due(x, in);
		if (held != 0 && due == PARK_WAIT && !any_room(fn, in, in_idx)) {
			/* No held frame can move: later frames for the same
			 * outputs stay behind them, the rest may go. */
			memcpy(ps.blocked.w, in->held_blocked,
			       chan_words(fn) * sizeof(uint64_t));
		} else {
			/* Held frames first, in order. Every held frame's
			 * output is in held_blocked: once all of those are
			 * blocked again, the rest stays as it is, unread (a
			 * relay under backpressure holds hundreds). */
			uint32_t last = in->held_head + held;

			/* Parked frames due count again as they park again. */
			if (due != PARK_WAIT)
				in->parked = 0;
			head = in->held_head;
			for (i = head, k = head; i < last; i++) {
				uint32_t oc = in->held_oc[i];

				if (unlikely(oc == DCN_FC_PARKED)) {
					oc = unpark(x, in, local, in->held[i], due, &ps);
					if (oc == UNPARK_GONE)
						continue;
					if (oc == DCN_FC_PARKED) {
						in->held_oc[k] = DCN_FC_PARKED;
						in->held[k++] = in->held[i];
						continue;
					}
				}
				if (cs_has(&ps.blocked, oc) ||
				    !admit(x, in, oc, in->held[i], &ps)) {
					if (cs_covers(&ps.blocked, in->held_blocked, fn)) {
						/* The rest stays where it is; the
						 * frames kept before it, if any left
						 * between, move up to it. */
						uint32_t kept = k - head;

						if (k != i && kept != 0) {
							memmove(&in->held[i - kept], &in->held[head],
								kept * sizeof(in->held[0]));
							memmove(&in->held_oc[i - kept],
								&in->held_oc[head],
								kept * sizeof(in->held_oc[0]));
						}
						head = i - kept;
						k = last;
						if (due != PARK_WAIT)
							in->parked += parked_in(in, i, last);
						break;
					}
					in->held_oc[k] = (uint16_t)oc;
					in->held[k++] = in->held[i];
				}
			}
			in->held_n = k - head;
			in->held_head = in->held_n != 0 ? head : 0;
		}
		/* A backlog drains faster than a burst a loop, which is what
		 * arrives: the queue empties and cut-through resumes. */
		for (r = 0; r < ROUTE_BURSTS; r++) {
			n = (uint16_t)RTE_MIN(burst, in->in_cap - in->held_n);
			n = n ? (uint16_t)rte_ring_dequeue_burst(in->in_q, (void **)m,
								 n, NULL) : 0;
			if (n == 0)
				break;
			/* Read on receive, maybe long ago. */
			dcn_fwd_prefetch(m, n);
			route_burst(x, local, m, n, &ps);
			if (n < burst)
				break;
		}
		pass_end(x, in, &ps);
		total += ps.done;
		/* Left in the ring (more than a pass takes): look again. */
		if (!rte_ring_empty(in->in_q))
			__atomic_store_n(waiting, 1, __ATOMIC_RELAXED);
	}
	return total;
}
