/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Credit frames: taken from a peer (its input queues freed room), and
 * announced to a peer (ours did).
 */
#include <rte_cycles.h>
#include <rte_random.h>

#include "fc_dp_priv.h"

/* Credit frames are bound to the two stations of their link: one cannot
 * be taken from another sender, or sent to another receiver. */
static const struct dcn_auth_span credit_span = { .bind_macs = 1, .zero_at = -1 };

/* What a fabric key says of a credit frame. */
enum credit_auth { CREDIT_TAKE, CREDIT_REFUSED, CREDIT_UNPROVEN };

/*
 * With a fabric key: is credit frame m, which names link, signed with the
 * key, by the peer's incarnation its hellos proved? A refusal is counted
 * on the link's VC 0 channel; so is a frame of an incarnation not (yet)
 * proven, which the caller may hold.
 */
static enum credit_auth
credit_signed(struct dcn_fc_dp *dp, uint16_t link, const struct rte_mbuf *m,
	      uint32_t *epoch, uint32_t *seq)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dcn_fc_chan *c0 = dcn_fc_chan(dp->fn, link, 0);

	switch (dcn_auth_check(dp->auth, f, rte_pktmbuf_data_len(m),
			       dcn_fabric_get16(f + DCN_ETHER_HDR_LEN + 6),
			       &credit_span, epoch, seq)) {
	case DCN_AUTH_OK:
		break;
	case DCN_AUTH_MISSING:
		c0->credit_unsigned++;
		return CREDIT_REFUSED;
	default:
		c0->credit_bad_tag++;
		return CREDIT_REFUSED;
	}
	if (*epoch != __atomic_load_n(&dp->link[link].peer_epoch, __ATOMIC_ACQUIRE)) {
		c0->credit_unproven++;
		return CREDIT_UNPROVEN;
	}
	return CREDIT_TAKE;
}

/* Is (epoch, seq) newer than the last credit frame taken on link? (A
 * recording would give back credit the peer's queue no longer has, or
 * take away what it has.) */
static int
credit_fresh(struct dcn_fc_dp *dp, uint16_t link, uint32_t epoch, uint32_t seq)
{
	if (dcn_auth_fresh_take(&dp->link[link].auth_fresh, epoch, seq))
		return 1;
	dcn_fc_chan(dp->fn, link, 0)->credit_replayed++;
	return 0;
}

/* Drop what link holds. */
static void
held_drop(struct dcn_fc_dp_link *lk)
{
	rte_pktmbuf_free_bulk(lk->held, lk->n_held);
	lk->n_held = 0;
}

/* Keep credit frame m of an unproven incarnation epoch on link: the
 * first of that incarnation, and its latest (credit words are absolute:
 * a later one says all an earlier one did, but for the first, which may
 * be the dead incarnation's last word). */
static void
held_keep(struct dcn_fc_dp_link *lk, uint32_t epoch, uint32_t seq, struct rte_mbuf *m)
{
	unsigned int k = lk->n_held;

	if (k != 0 && lk->held_epoch != epoch) {
		held_drop(lk);
		k = 0;
	}
	lk->held_epoch = epoch;
	if (k == DCN_FC_CREDIT_HELD)
		rte_pktmbuf_free(lk->held[--k]);
	lk->held[k] = m;
	lk->held_seq[k] = seq;
	lk->n_held = (uint8_t)(k + 1);
}

void
dcn_fc_dp_release(struct dcn_fc_dp *dp)
{
	unsigned int l;

	for (l = 0; l < DCN_FC_MAX_LINKS; l++)
		held_drop(&dp->link[l]);
}

/* Frames the peer's count showed lost were freed on link (rare: a lost
 * frame; a port of one lane); which VCs is not said, so each is looked
 * at. */
static void
credit_repaired(struct dcn_fc_dp *dp, uint16_t link, uint32_t repaired)
{
	const struct dcn_fc_node *fn = dp->fn;
	unsigned int vc;

	if (repaired == 0)
		return;
	dp->lane[0].freed_total[link] += repaired;
	for (vc = 0; vc < fn->n_vcs; vc++)
		batch_check(dp, link, &fn->chan[link * fn->n_vcs + vc]);
	announce_hint(dp, link);
}

/* Credit frame m of link, taken: the peer's counts read (m is the
 * caller's to free). */
static void
credit_apply(struct dcn_fc_wnode *x, uint16_t local, uint16_t link,
	     const struct rte_mbuf *m)
{
	struct dcn_fc_node *fn = x->dp->fn;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dcn_fc_credit cr;

	dcn_fc_read_credit(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			   dcn_fabric_get16(f + DCN_ETHER_HDR_LEN + 6), &cr);
	/* The peer's sent counts, read against the input queues by the one
	 * worker that keeps them (between its passes): a port of one lane.
	 * Frames of several lanes come in on several RX queues, in no order
	 * with the credit frame: the peer then repairs by time (README.md). */
	if (x->dp->port[local].owner == x->w->idx && x->dp->port[local].lanes == 1) {
		credit_repaired(x->dp, link, dcn_fc_credit_sent(fn, link, &cr));
		/* A kill's send settled by what the peer counts: the port's
		 * one sender wrote the sent counts. */
		if (unlikely(fn->ledger != NULL) && fn->senders[local] == 1)
			dcn_fc_ledger_settle(fn, link, &cr);
	}
	dcn_fc_credit_rx(fn, link, &cr, dcn_fwd_clock());
}

/* A credit frame: the peer's input queues have room again. Only a
 * cable's peer, or a neighbour behind a switch port, can speak for the
 * input queue of its link; behind a switch, its source MAC names it, and
 * one unicast to another node (flooded by the switch) is not for us. */
void
dcn_fc_take_credit(struct dcn_fc_wnode *x, uint16_t local, struct rte_mbuf *m)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_dp_link *lk;
	uint32_t epoch, seq;
	unsigned int k;
	int link = -1;

	if (fn->kind[local] == DCN_FC_PORT_CREDIT) {
		link = fn->port_link[local];
	} else if (fn->kind[local] == DCN_FC_PORT_SWITCH && to_us(x, local, m)) {
		link = mac_link(x->dp, local, frame_mac(m, SRC_MAC));
		if (link < 0)
			fn->chan[dcn_fc_port_chan0(fn, local)].credit_unknown++;
	}
	if (link < 0 || x->dp->auth == NULL) {
		if (link >= 0)
			credit_apply(x, local, (uint16_t)link, m);
		rte_pktmbuf_free(m);
		return;
	}
	lk = &x->dp->link[link];
	switch (credit_signed(x->dp, (uint16_t)link, m, &epoch, &seq)) {
	case CREDIT_UNPROVEN:
		held_keep(lk, epoch, seq, m);
		return;
	case CREDIT_TAKE:
		/* Proven since: what it said while unproven comes first, in
		 * its order, each as fresh as any. */
		for (k = 0; lk->held_epoch == epoch && k < lk->n_held; k++)
			if (credit_fresh(x->dp, (uint16_t)link, epoch, lk->held_seq[k]))
				credit_apply(x, local, (uint16_t)link, lk->held[k]);
		held_drop(lk);
		if (credit_fresh(x->dp, (uint16_t)link, epoch, seq))
			credit_apply(x, local, (uint16_t)link, m);
		break;
	default:
		break;
	}
	rte_pktmbuf_free(m);
}

/* How long after its last credit frame link is due again by the clock:
 * a refresh interval while its state changes (changed: frames freed
 * since) or is being repeated, then 100 intervals. */
static inline uint64_t
link_refresh(const struct dcn_fc_dp *dp, const struct dcn_fc_dp_link *lk, int changed)
{
	return changed || lk->credit_repeats < DCN_FC_CREDIT_REPEATS ?
		       dp->credit_refresh_tsc : 100 * dp->credit_refresh_tsc;
}

/* A credit frame's Ethernet and fabric headers, for payload_len bytes. */
static void
credit_headers(uint8_t *f, uint64_t dst_mac, const struct rte_ether_addr *src_mac,
	       uint16_t ethertype, uint16_t payload_len)
{
	uint8_t *h = f + DCN_ETHER_HDR_LEN;

	memcpy(f, &dst_mac, RTE_ETHER_ADDR_LEN);
	memcpy(f + RTE_ETHER_ADDR_LEN, src_mac, RTE_ETHER_ADDR_LEN);
	dcn_fabric_put16(f + 12, ethertype);
	/* No VC, TTL or addresses: a credit frame goes one hop. */
	memset(h, 0, DCN_FABRIC_HDR_LEN);
	h[0] = DCN_FABRIC_VERSION << 4 | DCN_FT_CREDIT;
	dcn_fabric_put16(h + 6, payload_len);
}

/* A credit frame of link to mac, its headers and padding written, its
 * payload (at *payload) not; NULL, counted, with no mbuf. */
static struct rte_mbuf *
credit_frame(struct dcn_fc_wnode *x, uint16_t local, uint16_t link, uint64_t mac,
	     uint8_t **payload)
{
	const struct dcn_fc_dp *dp = x->dp;
	uint16_t plen = (uint16_t)DCN_FC_CREDIT_LEN(dp->fn->n_vcs);
	uint32_t used = DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + plen;
	uint32_t flen = RTE_MAX((uint32_t)(RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN),
				used + (dp->auth != NULL ? DCN_AUTH_TRAILER_LEN : 0));
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp->mp);
	uint8_t *f = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)flen) : NULL;

	if (f == NULL) {
		rte_pktmbuf_free(m);
		dcn_fc_chan(dp->fn, link, 0)->credit_lost++;
		return NULL;
	}
	credit_headers(f, mac, &x->fwd->port[local].mac, dp->ethertype, plen);
	/* Padding (and the trailer's room, written by the signature). */
	memset(f + used, 0, flen - used);
	*payload = f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;
	return m;
}

/* Credit frame m of link, its payload written, signed and sent (or lost
 * on purpose, credit_drop_ppm). @return 0 when the port refused it
 * (freed, counted). */
static int
credit_send(struct dcn_fc_wnode *x, uint16_t local, uint16_t link, struct rte_mbuf *m)
{
	struct dcn_fc_dp *dp = x->dp;
	struct dcn_fc_chan *c0 = dcn_fc_chan(dp->fn, link, 0);
	struct dcn_port *port = dp->port[local].port;

	/* A frame lost on the wire, made to order: built and announced,
	 * never sent. */
	if (unlikely(dp->credit_drop_ppm) &&
	    (uint32_t)(rte_rand() % 1000000) < dp->credit_drop_ppm) {
		rte_pktmbuf_free(m);
		c0->credit_lost++;
		return 1;
	}
	if (dp->auth != NULL)
		dcn_auth_sign(dp->auth, rte_pktmbuf_mtod(m, uint8_t *),
			      (uint16_t)DCN_FC_CREDIT_LEN(dp->fn->n_vcs), &credit_span,
			      dp->auth_epoch, ++dp->link[link].auth_seq);
	if (dcn_port_tx(port, dcn_port_txq(port, x->w->idx), &m, 1) == 1) {
		c0->credit_tx++;
		return 1;
	}
	rte_pktmbuf_free(m);
	c0->credit_lost++;
	return 0;
}

/* A killed incarnation's last word on link (dcn_fc_ledger_attach), sent
 * ahead of any word of this one, which would end the old epoch for the
 * neighbour. @return 0 while it is still to go: nothing newer may. */
static int
last_word_sent(struct dcn_fc_wnode *x, uint16_t local, uint16_t link, uint64_t mac)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_credit cr;
	struct rte_mbuf *m;
	uint8_t *p;

	if (!dcn_fc_ledger_word(fn, link, &cr))
		return 1;
	m = credit_frame(x, local, link, mac, &p);
	if (m == NULL)
		return 0;
	dcn_fc_write_credit(p, &cr);
	if (!credit_send(x, local, link, m))
		return 0;
	dcn_fc_ledger_word_sent(fn, link);
	return 1;
}

/* One link's credit frame, when due. */
static void
announce_link(struct dcn_fc_wnode *x, uint16_t local, uint16_t link, uint64_t now)
{
	struct dcn_fc_dp *dp = x->dp;
	struct dcn_fc_node *fn = dp->fn;
	struct dcn_fc_dp_link *lk = &dp->link[link];
	const struct dcn_fwd_port *fp = &x->fwd->port[local];
	struct rte_mbuf *m;
	uint64_t mac;
	uint64_t since = now - lk->credit_tsc;
	/* What the freeing of frames has noted: a VC's batch (batch_due),
	 * and any VC's change (frames freed on the link at all). */
	uint32_t freed_total = dcn_fc_link_freed(dp, link);
	int due = __atomic_load_n(&lk->batch_due, __ATOMIC_RELAXED) != 0;
	int changed = freed_total != lk->announced_total;
	uint8_t *p;

	/* The cable's peer, or everyone on it until a hello names the peer;
	 * behind a switch, the neighbour alone (a frame to all would speak
	 * for every link of the segment): none until its MAC is known. */
	if (lk->nbr != NULL) {
		mac = __atomic_load_n(&lk->nbr->mac, __ATOMIC_ACQUIRE);
		if (mac == 0)
			return;
	} else {
		mac = __atomic_load_n(&fp->peer_mac, __ATOMIC_ACQUIRE);
		if (mac == 0)
			mac = UINT64_MAX;
	}
	if (unlikely(fn->ledger != NULL) && !last_word_sent(x, local, link, mac))
		return;
	/* A new state goes out at once after a batch, or within a refresh
	 * interval; then it is repeated a few times, in case a frame was
	 * lost, and after that only every 100 intervals. */
	if (!due)
		due = since >= link_refresh(dp, lk, changed);
	if (!due)
		return;
	lk->credit_tsc = now;
	lk->credit_repeats = changed ? 0 : lk->credit_repeats + 1;
	lk->announced_total = freed_total;
	__atomic_store_n(&lk->batch_due, 0, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* With no mbuf, the state is not noted as announced: the next
	 * frame a VC frees finds its batch still due and brings the look
	 * back on the next pass; with none freed, the refresh an interval
	 * on tries again. */
	m = credit_frame(x, local, link, mac, &p);
	if (m == NULL)
		return;
	dcn_fc_announce_credit(fn, link, p);
	credit_send(x, local, link, m);
}

/* When link's credits need a look next, after one at now: when the
 * clock makes it due (frames freed before then set the port's hint); a
 * frame due that could not go (no peer MAC yet), an interval on. */
static uint64_t
link_next_look(const struct dcn_fc_dp *dp, uint16_t link, uint64_t now)
{
	const struct dcn_fc_dp_link *lk = &dp->link[link];
	int changed = dcn_fc_link_freed(dp, link) != lk->announced_total ||
		      __atomic_load_n(&lk->batch_due, __ATOMIC_RELAXED) != 0;
	uint64_t at = lk->credit_tsc + link_refresh(dp, lk, changed);

	return at > now ? at : now + dp->credit_refresh_tsc;
}

void
dcn_fc_announce_port(struct dcn_fc_wnode *x, uint16_t local, uint64_t now)
{
	struct dcn_fc_dp *dp = x->dp;
	const struct dcn_fc_node *fn = dp->fn;
	struct dcn_fc_dp_port *pp = &dp->port[local];
	uint16_t l, end = (uint16_t)(fn->port_link[local] + fn->port_links[local]);
	uint64_t look = UINT64_MAX;

	/* Taken before the links are read, and with it what the routers
	 * wrote before setting it: frames freed after set it again. */
	__atomic_exchange_n(&pp->announce_hint, 0, __ATOMIC_ACQ_REL);
	if (dcn_fc_kind_credited(fn->kind[local]))
		for (l = fn->port_link[local]; l < end; l++) {
			announce_link(x, local, l, now);
			look = RTE_MIN(look, link_next_look(dp, l, now));
		}
	pp->announce_look_tsc = look;
}

