/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sender's credit arithmetic: what a peer's credit frame grants and
 * repairs (frames lost on the way, or written off by a new epoch), what
 * a node has sent, and what its own credit frames announce. The state
 * these work on is fc_node.c's; which ports carry credits, and why, is
 * in README.md next to this file.
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

/* Pool slots channel u holds and no longer needs: beyond what it sent
 * past its limit. */
static inline uint32_t
spare_of(const struct dcn_fc_chan *u, union dcn_fc_sent_tok w)
{
	int32_t past = (int32_t)(w.sent - __atomic_load_n(&u->limit, __ATOMIC_ACQUIRE));
	uint32_t need = past > 0 ? (uint32_t)past : 0;

	return w.tok > need ? w.tok - need : 0;
}

uint32_t
dcn_fc_pool_spare(const struct dcn_fc_chan *c0, const struct dcn_fc_chan *skip)
{
	uint32_t n = 0, vc;

	for (vc = 0; vc < c0->link_vcs; vc++) {
		const struct dcn_fc_chan *u = c0 + vc;
		union dcn_fc_sent_tok w;

		if (u == skip)
			continue;
		w.u = __atomic_load_n(&u->sent_tok, __ATOMIC_RELAXED);
		n += spare_of(u, w);
	}
	return n;
}

/*
 * A limit read a little late only makes a VC keep more than it needs
 * (limits grow as the peer frees). One that came down (the peer started
 * over, its grant fell) can leave a VC past its limit by more than it
 * holds: the pool then lends more than its slots until those frames are
 * freed; the input queue's reserve holds them, as it holds the frames in
 * flight at a restart.
 */
void
dcn_fc_pool_settle(struct dcn_fc_chan *c0, int several)
{
	uint32_t vc, back = 0;

	for (vc = 0; vc < c0->link_vcs; vc++) {
		struct dcn_fc_chan *u = c0 + vc;
		union dcn_fc_sent_tok w = { .u = __atomic_load_n(&u->sent_tok,
								 __ATOMIC_RELAXED) }, nw;
		uint32_t spare;

		do {
			spare = spare_of(u, w);
			if (spare == 0)
				break;
			nw.sent = w.sent;
			nw.tok = w.tok - spare;
			if (!several) {
				__atomic_store_n(&u->sent_tok, nw.u, __ATOMIC_RELEASE);
				break;
			}
		} while (!__atomic_compare_exchange_n(&u->sent_tok, &w.u, nw.u, 0,
						      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
		back += spare;
	}
	if (back == 0)
		return;
	if (several)
		__atomic_fetch_sub(&c0->shared_held, back, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&c0->shared_held, c0->shared_held - back, __ATOMIC_RELEASE);
}

uint32_t
dcn_fc_take_pool(struct dcn_fc_chan *c, uint32_t n, int32_t own)
{
	struct dcn_fc_chan *c0 = c - c->vc;
	uint32_t need = (uint32_t)((int32_t)n - own), got;
	int32_t may;

	if ((uint32_t)dcn_fc_pool_free(c0) < need) {
		/* Settling may take back this VC's own spare slots too. */
		dcn_fc_pool_settle(c0, 0);
		/* The second look also sees a credit frame another core
		 * (a lane's poller) applied since the first: the limit may
		 * now cover the whole burst, and the pool is not needed. */
		own = dcn_fc_own_room(c, (union dcn_fc_sent_tok){ .u = c->sent_tok });
		if (own >= (int32_t)n)
			return n;
		need = (uint32_t)((int32_t)n - own);
	}
	got = RTE_MIN(need, (uint32_t)dcn_fc_pool_free(c0));
	if (got != 0) {
		__atomic_store_n(&c->tok, c->tok + got, __ATOMIC_RELAXED);
		__atomic_store_n(&c0->shared_held, c0->shared_held + got, __ATOMIC_RELEASE);
	}
	may = own + (int32_t)got;
	return may > 0 ? (uint32_t)may : 0;
}

/* Take up to need of the pool's free slots, one compare-and-swap.
 * @return slots taken. */
static uint32_t
pool_reserve(struct dcn_fc_chan *c0, uint32_t need)
{
	uint32_t h = __atomic_load_n(&c0->shared_held, __ATOMIC_RELAXED), got;

	do {
		int32_t f = (int32_t)(__atomic_load_n(&c0->shared, __ATOMIC_ACQUIRE) - h);

		if (f <= 0)
			return 0;
		got = RTE_MIN(need, (uint32_t)f);
	} while (!__atomic_compare_exchange_n(&c0->shared_held, &h, h + got, 0,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return got;
}

uint32_t
dcn_fc_claim_pool(struct dcn_fc_chan *c, uint32_t want)
{
	struct dcn_fc_chan *c0 = c - c->vc;
	union dcn_fc_sent_tok w = { .u = __atomic_load_n(&c->sent_tok, __ATOMIC_RELAXED) }, nw;
	int settled = 0;

	for (;;) {
		int32_t own = dcn_fc_own_room(c, w), may;
		uint32_t got = 0;

		if (own < (int32_t)want) {
			uint32_t need = (uint32_t)((int32_t)want - own);

			got = pool_reserve(c0, need);
			if (got < need && !settled) {
				__atomic_fetch_sub(&c0->shared_held, got, __ATOMIC_RELEASE);
				dcn_fc_pool_settle(c0, 1);
				settled = 1;
				w.u = __atomic_load_n(&c->sent_tok, __ATOMIC_RELAXED);
				continue;
			}
		}
		may = RTE_MIN(own + (int32_t)got, (int32_t)want);
		nw.sent = w.sent + (may > 0 ? (uint32_t)may : 0);
		nw.tok = w.tok + got;
		if (__atomic_compare_exchange_n(&c->sent_tok, &w.u, nw.u, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return may > 0 ? (uint32_t)may : 0;
		/* Another sender moved the word: the slots go back, and
		 * the look starts over from what it wrote. */
		if (got != 0)
			__atomic_fetch_sub(&c0->shared_held, got, __ATOMIC_RELEASE);
	}
}

void
dcn_fc_credit_rx(struct dcn_fc_node *fn, uint16_t link,
		 const struct dcn_fc_credit *cr, uint64_t now)
{
	const unsigned int n_vcs = fn->n_vcs;
	struct dcn_fc_chan *c;
	unsigned int vc;
	uint32_t lg, grant, own, pool;
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
	grant = cr->grant;
	if (grant > fn->max_credit) {
		grant = fn->max_credit;
		clamped = 1;
	}
	own = dcn_fc_private(grant, n_vcs);
	pool = dcn_fc_shared(grant, n_vcs);
	__atomic_store_n(&c->shared, pool, __ATOMIC_RELEASE);
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
		 * gives no more, and is counted. The VC's own share of the
		 * link's grant is its limit; the rest is the link's pool. */
		limit = c->base + cr->freed[vc] + own;
		c->word_clamped = (int32_t)(limit - sent) > (int32_t)(fn->max_credit - pool);
		if (c->word_clamped) {
			limit = sent + fn->max_credit - pool;
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
