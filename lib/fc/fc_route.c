/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route: a pass over one input channel of a lane, by the lane's router.
 * Frames go through the forwarding step and are admitted to their output
 * channels while the input's internal credits there last (sent at once
 * where nothing waits ahead), else held, without blocking the others.
 * The pass's pieces are fc_pass.h, the grouped burst fc_group.h.
 */
#include "fc_group.h"

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

/* Has any output channel that blocked input in_idx room again? */
static inline int
any_room(const struct dcn_fc_wnode *x, const struct dcn_fc_chan *in, uint16_t in_idx)
{
	const struct dcn_fc_node *fn = x->dp->fn;
	uint32_t w, nw = chan_words(fn);

	for (w = 0; w < nw; w++)
		for (uint64_t b = in->held_blocked[w]; b; b &= b - 1) {
			uint32_t oc = w << 6 | (uint32_t)__builtin_ctzll(b);

			if (ic_room(x, in, in_idx, oc) != 0)
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
		if (held != 0 && due == PARK_WAIT && !any_room(x, in, (uint16_t)in_idx)) {
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

void
dcn_fc_trace_note(void *arg, uint16_t out, const struct rte_mbuf *m,
		  uint32_t *queued, uint32_t *credits)
{
	const struct dcn_fc_wnode *x = arg;
	const struct dcn_fc_node *fn = x->dp->fn;
	uint32_t c;

	if (out >= fn->n_ports)
		return;
	c = out_chan(x, m, out);
	if (c == NO_CHAN)
		return;
	*queued = rte_ring_count(out_lane(x, c, out)->out_q) + x->w->stage_n[c];
	*credits = dcn_fc_kind_credited(fn->kind[out]) ?
			   dcn_fc_credits(&fn->chan[c]) : UINT32_MAX;
}
