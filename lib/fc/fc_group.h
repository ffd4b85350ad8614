/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A relay's usual burst, routed in runs of frames alike (fc_route.c):
 * each run's output channel worked out once, and a burst whose frames
 * all go at once sent whole. Private to lib/fc.
 */
#ifndef DCN_FC_GROUP_H
#define DCN_FC_GROUP_H

#include "fc_pass.h"

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

		if (fn->link_port[c / fn->n_vcs] != o || w->stage_n[c] != 0 ||
		    !rte_ring_empty(out_lane(x, c, o)->out_q))
			return -1;
	}
	/* The peer's credits, each channel's frames taken (pool slots
	 * with them) before any goes; a channel short leaves the burst to
	 * the frame-by-frame way (slots it took stay its VC's, spare). */
	if (dcn_fc_kind_credited(fn->kind[o])) {
		if (unlikely(fn->senders[o] > 1)) {
			if (!claim_groups(fn, gs))
				return -1;
		} else {
			for (g = 0; g < gs->ng; g++)
				if (dcn_fc_take(&fn->chan[gs->oc[g]], gs->cnt[g]) < gs->cnt[g])
					return -1;
		}
	}
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

#endif /* DCN_FC_GROUP_H */
