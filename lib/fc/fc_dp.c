/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow-control data path: receive into input queues, route into
 * output queues under internal credits, send under external credits,
 * announce credits. dcn_fc_dp.h has the steps; README.md next to this
 * file has the choices and their reasons.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_random.h>

#include "dcn_topo.h"

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

int
dcn_fc_dp_init(struct dcn_fc_dp *dp, struct dcn_fc_node *fn,
	       struct rte_mempool *mp, uint16_t ethertype, unsigned int burst,
	       unsigned int credit_batch, uint64_t credit_refresh_tsc)
{
	unsigned int i;

	if (fn == NULL || mp == NULL || burst == 0 || burst > DCN_FC_BURST_MAX ||
	    credit_batch == 0)
		return -EINVAL;
	memset(dp, 0, sizeof(*dp));
	dp->fn = fn;
	dp->mp = mp;
	dp->ethertype = ethertype;
	dp->burst = (uint16_t)burst;
	dp->credit_batch = credit_batch;
	dp->credit_refresh_tsc = credit_refresh_tsc;
	for (i = 0; i < DCN_FC_MAX_PORTS; i++)
		dp->port[i].owner = DCN_FC_NO_OWNER;
	return 0;
}

int
dcn_fc_dp_bind_nbrs(struct dcn_fc_dp *dp, const struct dcn_fwd_nbrs *nb,
		    const struct dcn_topo *t, const int16_t *fabric_port)
{
	struct dcn_fc_node *fn = dp->fn;
	uint16_t p;

	for (p = 0; p < fn->n_ports; p++) {
		char pname[sizeof(fn->port_name[0])];
		uint32_t s, k = 0;

		if (fn->kind[p] != DCN_FC_PORT_SWITCH)
			continue;
		memcpy(pname, fn->port_name[p], sizeof(pname));
		if (nb == NULL || nb->slot == NULL)
			return -EINVAL;
		for (s = 0; s <= nb->mask; s++) {
			const struct dcn_fwd_nbr *e = &nb->slot[s];
			char v[DCN_TOPO_NAME_LEN];
			uint16_t l;

			if (e->vertex == DCN_FWD_NBR_EMPTY ||
			    e->fabric_port != fabric_port[p])
				continue;
			if (k == fn->port_links[p])
				return -EINVAL;
			l = (uint16_t)(fn->port_link[p] + k++);
			dp->link[l].nbr = e;
			dcn_topo_format_vertex(t, e->vertex, v, sizeof(v));
			snprintf(fn->link_name[l], sizeof(fn->link_name[l]), "%.24s>%.14s",
				 pname, v);
		}
		if (k != fn->port_links[p])
			return -EINVAL;
	}
	return 0;
}

int
dcn_fc_dp_nbr_link(const struct dcn_fc_dp *dp, const struct dcn_fwd_nbr *e)
{
	uint16_t l;

	for (l = 0; e != NULL && l < dp->fn->n_links; l++)
		if (dp->link[l].nbr == e)
			return l;
	return -1;
}

int
dcn_fc_worker_init(struct dcn_fc_worker *w, uint32_t idx, uint32_t max_chans)
{
	memset(w, 0, sizeof(*w));
	w->idx = idx;
	w->max_chans = max_chans;
	w->stage = rte_zmalloc("dcn_fc_stage", max_chans * sizeof(*w->stage),
			       RTE_CACHE_LINE_SIZE);
	w->stage_n = rte_zmalloc("dcn_fc_stage_n", max_chans * sizeof(*w->stage_n),
				 RTE_CACHE_LINE_SIZE);
	if (w->stage == NULL || w->stage_n == NULL) {
		dcn_fc_worker_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void
dcn_fc_worker_fini(struct dcn_fc_worker *w)
{
	rte_free(w->stage);
	rte_free(w->stage_n);
	w->stage = NULL;
	w->stage_n = NULL;
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

/* Credit frames are bound to the two stations of their link: one cannot
 * be taken from another sender, or sent to another receiver. */
static const struct dcn_auth_span credit_span = { .bind_macs = 1, .zero_at = -1 };

/*
 * With a fabric key: is credit frame m, which names link, signed with the
 * key and newer than the last taken on the link? (A recording would give
 * back credit the peer's queue no longer has, or take away what it has.)
 * A refusal is counted on the link's VC 0 channel.
 */
static int
credit_signed(struct dcn_fc_dp *dp, uint16_t link, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dcn_fc_chan *c0 = dcn_fc_chan(dp->fn, link, 0);
	uint32_t epoch, seq;

	switch (dcn_auth_check(dp->auth, f, rte_pktmbuf_data_len(m),
			       dcn_fabric_get16(f + DCN_ETHER_HDR_LEN + 6),
			       &credit_span, &epoch, &seq)) {
	case DCN_AUTH_OK:
		break;
	case DCN_AUTH_MISSING:
		c0->credit_unsigned++;
		return 0;
	default:
		c0->credit_bad_tag++;
		return 0;
	}
	if (!dcn_auth_fresh_take(&dp->link[link].auth_fresh, epoch, seq)) {
		c0->credit_replayed++;
		return 0;
	}
	return 1;
}

/* Input channel c (a lane's) of link has freed frames (its router
 * only): a credit frame is due once it has freed a batch since the last. */
static inline void
batch_check(struct dcn_fc_dp *dp, uint16_t link, const struct dcn_fc_chan *c)
{
	if (c->freed - __atomic_load_n(&c->announced, __ATOMIC_RELAXED) >=
	    dp->credit_batch)
		__atomic_store_n(&dp->link[link].batch_due, 1, __ATOMIC_RELAXED);
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
	dp->link[link].freed_total[0] += repaired;
	for (vc = 0; vc < fn->n_vcs; vc++)
		batch_check(dp, link, &fn->chan[link * fn->n_vcs + vc]);
}

/* A credit frame: the peer's input queues have room again. Only a
 * cable's peer, or a neighbour behind a switch port, can speak for the
 * input queue of its link; behind a switch, its source MAC names it, and
 * one unicast to another node (flooded by the switch) is not for us. */
static inline void
take_credit(struct dcn_fc_wnode *x, uint16_t local, struct rte_mbuf *m)
{
	struct dcn_fc_node *fn = x->dp->fn;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dcn_fc_credit cr;
	int link = -1;

	if (fn->kind[local] == DCN_FC_PORT_CREDIT) {
		link = fn->port_link[local];
	} else if (fn->kind[local] == DCN_FC_PORT_SWITCH && to_us(x, local, m)) {
		link = mac_link(x->dp, local, frame_mac(m, SRC_MAC));
		if (link < 0)
			fn->chan[dcn_fc_port_chan0(fn, local)].credit_unknown++;
	}
	if (link >= 0 && x->dp->auth != NULL && !credit_signed(x->dp, (uint16_t)link, m))
		link = -1;
	if (link >= 0) {
		dcn_fc_read_credit(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
				   dcn_fabric_get16(f + DCN_ETHER_HDR_LEN + 6), &cr);
		/* The peer's sent counts, read against the input queues by
		 * the one worker that keeps them (between its passes): a
		 * port of one lane. Frames of several lanes come in on
		 * several RX queues, in no order with the credit frame: the
		 * peer then repairs by time (README.md). */
		if (x->dp->port[local].owner == x->w->idx &&
		    x->dp->port[local].lanes == 1)
			credit_repaired(x->dp, (uint16_t)link,
					dcn_fc_credit_sent(fn, (uint16_t)link, &cr));
		dcn_fc_credit_rx(fn, (uint16_t)link, &cr, rte_rdtsc());
	}
	rte_pktmbuf_free(m);
}

/* Where a Diamond packet's TTL is: IPv4 straight after Ethernet. */
#define ROUTER_TTL_OFF (DCN_ETHER_HDR_LEN + 8)

/* The VC of a frame that goes into an input queue, or -1 when it is not
 * a data frame (control and malformed frames go the direct way). */
static inline int
in_vc(const struct dcn_fc_wnode *x, uint16_t in, const struct rte_mbuf *m)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;

	if (x->fwd->port[in].host)
		return rte_pktmbuf_data_len(m) >= DCN_ETHER_HDR_LEN &&
		       (e[12] << 8 | e[13]) == DCN_ETHERTYPE_ARP ? -1 : 0;
	if (rte_pktmbuf_data_len(m) < DCN_ETHER_HDR_LEN + 2)
		return -1;
	type = (uint16_t)(e[12] << 8 | e[13]);
	if (type == x->dp->ethertype)
		return (e[14] & 0x0f) == DCN_FT_DATA ?
			       (int)dcn_fc_vc(x->dp->fn, dcn_fabric_vc_of(e[15])) : -1;
	if (!x->fwd->router_mode || type != DCN_ETHERTYPE_IPV4)
		return -1;
	/* Diamond: the hop count the TTL tells (too short to have one: the
	 * forwarding step drops it, from whichever queue). */
	return rte_pktmbuf_data_len(m) > ROUTER_TTL_OFF ?
		       (int)dcn_fc_vc(x->dp->fn, dcn_fwd_router_vc(e[ROUTER_TTL_OFF])) : 0;
}

/* in_chan: a data frame on a switch port from none of its neighbours. */
#define IN_UNKNOWN (-2)

/* The input channel of a frame received on local port in; -1 when it is
 * not a data frame for this node (the direct path takes it: control
 * frames, malformed ones, and on a switch port data for another MAC,
 * which the forwarding step drops as such), IN_UNKNOWN when it is data
 * from no neighbour: not credited, it cannot be queued. */
static inline int
in_chan(const struct dcn_fc_wnode *x, uint16_t in, const struct rte_mbuf *m)
{
	const struct dcn_fc_node *fn = x->dp->fn;
	int vc = in_vc(x, in, m), link;

	if (vc < 0)
		return -1;
	if (fn->kind[in] != DCN_FC_PORT_SWITCH)
		return fn->port_link[in] * fn->n_vcs + vc;
	/* A data frame: at least 16 bytes, both MACs readable as words. */
	if (!to_us(x, in, m))
		return -1;
	link = mac_link(x->dp, in, frame_mac(m, SRC_MAC));
	return link < 0 ? IN_UNKNOWN : link * fn->n_vcs + vc;
}

/* Bytes 12 to 15 of a frame, as loaded, masked to what
 * in_vc and out_chan read: the EtherType, a fabric header's frame type
 * and VC bits. Frames whose words are equal go to the same channel. */
#define CHAN_BYTES rte_cpu_to_be_32(0xffff0f71u)

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

/* Have the n frames of m all frame 0's channel key, which they are long
 * enough to have, and when mac is not -1 (a switch port, where the link
 * is a MAC's) its MAC at offset mac? */
static inline int
same_chan(struct rte_mbuf *const *m, uint16_t n, int router, int mac)
{
	uint32_t w0 = frame_word(m[0]), diff = 0;
	uint16_t min = router ? ROUTER_TTL_OFF + 1 : 16, len = UINT16_MAX, i;
	uint64_t mac0;

	/* The differences and the shortest length gathered, then looked at
	 * once: the loop is the only per-frame work of the usual burst's
	 * receive. */
	for (i = 0; i < n; i++) {
		diff |= frame_word(m[i]) ^ w0;
		len = RTE_MIN(len, rte_pktmbuf_data_len(m[i]));
	}
	if ((diff & CHAN_BYTES) != 0 || len < min)
		return 0;
	if (router) {
		uint8_t t0 = frame_ttl(m[0]);

		for (i = 1; i < n; i++)
			diff |= (uint32_t)(frame_ttl(m[i]) ^ t0);
		if (diff != 0)
			return 0;
	}
	if (mac < 0)
		return 1;
	mac0 = frame_mac(m[0], (unsigned int)mac);
	for (i = 1; i < n; i++)
		if (frame_mac(m[i], (unsigned int)mac) != mac0)
			return 0;
	return 1;
}

/* Send n frames of output channel c on local port o now; what the peer
 * has no credit for, or the port does not take, stays with the caller.
 * @return frames sent. */
static inline uint32_t
chan_tx(struct dcn_fc_wnode *x, struct dcn_fc_chan *c, uint16_t o,
	struct rte_mbuf **m, uint32_t n)
{
	const struct dcn_port *p = x->dp->port[o].port;
	uint32_t sent;

	if (dcn_fc_kind_credited(x->dp->fn->kind[o])) {
		uint32_t cr = dcn_fc_credits(c);

		if (cr < n) {
			if (cr == 0) {
				c->stalls++;
				return 0;
			}
			n = cr;
		}
	}
	sent = dcn_port_tx(p, dcn_port_txq(p, x->w->idx), m, (uint16_t)n);
	if (sent) {
		dcn_fc_sent(c, sent);
		x->st[o].tx += sent;
	}
	return sent;
}

/* Give input in_idx back its internal credits for n frames that left
 * output c (the output's owner only). */
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

	/* Cut-through: the output's owner with nothing queued ahead sends
	 * at once and gives the internal credits straight back. */
	if (x->dp->port[o].owner == x->w->idx && rte_ring_empty(c->out_q)) {
		k = chan_tx(x, c, o, m, n);
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
	k = rte_ring_enqueue_burst(c->out_q, (void **)m, n, NULL);
	__atomic_store_n(&x->dp->port[o].out_waiting, 1, __ATOMIC_RELEASE);
	if (unlikely(k < n)) {
		x->w->overflow += n - k;
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
pass_init(struct pass *ps, const struct dcn_fc_node *fn, uint32_t lane,
	  uint32_t chan)
{
	uint32_t nw = chan_words(fn);

	ps->done = 0;
	ps->in_idx = (uint16_t)(lane ? lane * fn->n_chans + chan : chan);
	ps->lane = (uint16_t)lane;
	ps->link = (uint16_t)(chan / fn->n_vcs);
	memset(ps->blocked.w, 0, nw * sizeof(uint64_t));
	memset(ps->touched.w, 0, nw * sizeof(uint64_t));
}

/* Stage m for output channel oc if the pass's input in has room there. */
static inline int
admit(struct dcn_fc_wnode *x, struct dcn_fc_chan *in, uint32_t oc,
      struct rte_mbuf *m, struct pass *ps)
{
	struct dcn_fc_worker *w = x->w;

	if (cs_has(&ps->blocked, oc) ||
	    dcn_fc_ic_room(&x->dp->fn->chan[oc], in, ps->in_idx, oc) == 0) {
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
 * output's owner with nothing queued or staged ahead first sends at
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

	if (unlikely(room < k) && w->stage_n[c] == 0) {
		uint16_t o = fn->link_port[c / fn->n_vcs];

		if (x->dp->port[o].owner == w->idx && rte_ring_empty(ch->out_q)) {
			uint32_t sent = chan_tx(x, ch, o, s, k);

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
	held = in->held_n;
	for (j = adm; j < k; j++) {
		in->held_oc[held] = (uint16_t)c;
		in->held[held++] = s[j];
	}
	__atomic_store_n(&in->held_n, held, __ATOMIC_RELAXED);
	cs_add(&ps->blocked, c);
	return k - adm;
}

/* A routed frame's channel key: what out_chan reads of it but the MAC.
 * The forwarding step has checked that it has those bytes. */
static inline uint64_t
routed_key(const struct rte_mbuf *m, int router)
{
	return chan_word(m) | (router ? (uint64_t)frame_ttl(m) << 32 : 0);
}

/* Output channels route_grouped follows in one burst; a burst spread
 * over more goes frame by frame. */
#define GROUPS 8

/* A grouped burst: its runs of frames alike, run r being frames
 * [start[r], start[r + 1]) of group grp[r], and its groups' output
 * channels and frame counts. Runs, not a group per frame: a burst of
 * one flow is one run, and costs the grouping nothing per frame. */
struct groups {
	uint32_t ng, nr;
	uint32_t oc[GROUPS], cnt[GROUPS];
	uint16_t start[DCN_FC_BURST_MAX + 1];
	uint8_t grp[DCN_FC_BURST_MAX];
};

/*
 * Send a grouped burst whole, when frame by frame would send each of its
 * frames at once: all its channels on one port this worker owns, nothing
 * queued or staged ahead in any, and the peer's credits enough for each
 * channel's frames. One call to the port for several channels; a frame
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
	const struct dcn_port *p;

	if (x->dp->port[o].owner != w->idx)
		return -1;
	for (g = 0; g < gs->ng; g++) {
		uint32_t c = gs->oc[g];
		struct dcn_fc_chan *ch = &fn->chan[c];

		if (fn->link_port[c / fn->n_vcs] != o || w->stage_n[c] != 0 ||
		    !rte_ring_empty(ch->out_q) ||
		    (dcn_fc_kind_credited(fn->kind[o]) && dcn_fc_credits(ch) < gs->cnt[g]))
			return -1;
	}
	p = x->dp->port[o].port;
	sent = dcn_port_tx(p, dcn_port_txq(p, w->idx), m, (uint16_t)n);
	x->st[o].tx += sent;
	for (r = gs->nr; r-- > 0 && gs->start[r + 1] > sent;)
		left[gs->grp[r]] += gs->start[r + 1] - RTE_MAX(gs->start[r], sent);
	for (g = 0; g < gs->ng; g++)
		if (gs->cnt[g] != left[g])
			dcn_fc_sent(&fn->chan[gs->oc[g]], gs->cnt[g] - left[g]);
	return (int)sent;
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
	struct dcn_fc_node *fn = x->dp->fn;
	int router = x->fwd->router_mode, again = 1;
	struct rte_mbuf *grouped[DCN_FC_BURST_MAX], **dst[GROUPS];
	struct groups gs;
	uint32_t held = 0, g, i, r;
	uint64_t last_key = UINT64_MAX;
	uint16_t last_o = DCN_FWD_CONTROL;
	int sent;

	gs.ng = 0;
	gs.nr = 0;
	for (i = 0; i < n; i++) {
		uint64_t key = routed_key(m[i], router);
		uint32_t c;

		if (likely(!again && out[i] == last_o && key == last_key))
			continue;
		if (unlikely(out[i] == DCN_FWD_CONTROL))
			return 0;
		c = out_chan(x, m[i], out[i]);
		if (unlikely(c == NO_CHAN))
			return 0;
		for (g = 0; g < gs.ng && gs.oc[g] != c; g++)
			;
		if (g == gs.ng) {
			if (gs.ng == GROUPS || cs_has(&ps->blocked, c))
				return 0;
			gs.oc[gs.ng] = c;
			gs.cnt[gs.ng++] = 0;
		}
		gs.start[gs.nr] = (uint16_t)i;
		gs.grp[gs.nr++] = (uint8_t)g;
		last_o = out[i];
		last_key = key;
		again = fn->kind[last_o] == DCN_FC_PORT_SWITCH;
	}
	gs.start[gs.nr] = n;
	for (r = 0; r < gs.nr; r++)
		gs.cnt[gs.grp[r]] += gs.start[r + 1] - gs.start[r];
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

/* Route a burst taken from the pass's input channel, received on local
 * port in; frames that cannot move yet join the held list. */
static inline void
route_burst(struct dcn_fc_wnode *x, uint16_t in, struct rte_mbuf **m, uint16_t n,
	    struct pass *ps)
{
	struct dcn_fc_chan *ch = &x->dp->fn->chan[ps->in_idx];
	uint16_t out[DCN_FC_BURST_MAX];
	uint32_t held = ch->held_n;
	uint16_t kept, i;

	kept = dcn_fwd_burst(x->fwd, in, m, n, out);
	ps->done += n - kept; /* dropped, counted by reason */
	if (kept == 0)
		return;
	i = 0;
	if (held == 0) {
		i = route_grouped(x, ch, m, out, kept, ps);
		if (i == kept)
			return;
	}
	/* Frame by frame: behind held frames (which go first to their
	 * outputs), or what route_grouped leaves (nothing held by it). */
	for (; i < kept; i++) {
		uint32_t oc;

		if (unlikely(out[i] == DCN_FWD_CONTROL)) {
			rte_pktmbuf_free(m[i]);
			ps->done++;
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
			ch->held_oc[held] = (uint16_t)oc;
			ch->held[held++] = m[i];
		}
	}
	__atomic_store_n(&ch->held_n, held, __ATOMIC_RELAXED);
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
		uint32_t *ft = &x->dp->link[link].freed_total[lane];

		__atomic_store_n(&in->freed, in->freed + ps->done, __ATOMIC_RELEASE);
		__atomic_store_n(ft, *ft + ps->done, __ATOMIC_RELAXED);
		batch_check(x->dp, (uint16_t)link, in);
	}
	/* The held list's blocked outputs, for the next pass's check; read
	 * only while frames are held, and every pass that leaves some held
	 * ends here. */
	if (in->held_n != 0) {
		memcpy(in->held_blocked, ps->blocked.w, nw * sizeof(uint64_t));
		__atomic_store_n(&x->dp->port[fn->link_port[link]].in_waiting[lane], 1,
				 __ATOMIC_RELEASE);
	}
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

/* Frames m of one input channel chan, received on lane lane of local
 * port in, into it. */
static inline void
in_burst(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane, uint32_t chan,
	 struct rte_mbuf **m, uint16_t n)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_chan *ch = &fn->chan[lane ? lane * fn->n_chans + chan : chan];
	unsigned int k;

	/* Counted as they come, before any leaves (dcn_fc_credit_state). */
	__atomic_store_n(&ch->arrived, ch->arrived + n, __ATOMIC_RELEASE);
	/* Cut-through: the lane's router, with nothing waiting in the input
	 * queue, routes the burst as if it had been queued and taken at
	 * once: in pieces of at most the queue's size, as dcn_fc_route takes
	 * them (what cannot move yet is held, and the held list has room for
	 * one queue's worth); once a piece leaves frames held, the rest
	 * queues behind them. */
	if (x->dp->port[in].router[lane] == x->w->idx && ch->held_n == 0 &&
	    rte_ring_empty(ch->in_q)) {
		struct pass ps;
		uint16_t piece;

		pass_init(&ps, fn, lane, chan);
		do {
			piece = (uint16_t)RTE_MIN(n, ch->in_cap);
			route_burst(x, in, m, piece, &ps);
			m += piece;
			n -= piece;
		} while (n != 0 && ch->held_n == 0);
		pass_end(x, ch, &ps);
		if (n == 0)
			return;
	}
	k = rte_ring_enqueue_burst(ch->in_q, (void **)m, n, NULL);
	__atomic_store_n(&x->dp->port[in].in_waiting[lane], 1, __ATOMIC_RELEASE);
	if (unlikely(k < n)) {
		/* Refused: they never arrived. */
		__atomic_store_n(&ch->arrived, ch->arrived - (n - k), __ATOMIC_RELEASE);
		x->st[in].in_drop += n - k;
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
}

/* Is m a credit frame, by the checks dcn_fabric_classify makes of one
 * (single segment, EtherType, version and type, payload within the
 * frame), long enough for take_credit to read? */
static inline int
is_credit(uint16_t ethertype, const struct rte_mbuf *m)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);

	return m->nb_segs == 1 &&
	       len >= DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_FC_CREDIT_MIN_LEN &&
	       dcn_fabric_get16(e + 12) == ethertype &&
	       e[DCN_ETHER_HDR_LEN] == (DCN_FABRIC_VERSION << 4 | DCN_FT_CREDIT) &&
	       dcn_fabric_get16(e + DCN_ETHER_HDR_LEN + 6) >= DCN_FC_CREDIT_MIN_LEN &&
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
#define CREDIT_BURST 2

static inline int
take_credits(struct dcn_fc_wnode *x, uint16_t in, struct rte_mbuf **m,
	     uint16_t n)
{
	struct dcn_fc_node *fn = x->dp->fn;
	uint16_t i;

	if (n > CREDIT_BURST || !dcn_fc_kind_credited(fn->kind[in]))
		return 0;
	for (i = 0; i < n; i++)
		if (!is_credit(x->dp->ethertype, m[i]))
			return 0;
	x->fwd->st.rx += n;
	x->fwd->st.control += n;
	for (i = 0; i < n; i++)
		take_credit(x, in, m[i]);
	return 1;
}

uint16_t
dcn_fc_rx_lane(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane,
	       struct rte_mbuf **m, uint16_t n)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct rte_mbuf *dm[DCN_FC_BURST_MAX], *g[DCN_FC_BURST_MAX];
	struct rte_mbuf *cm[DCN_FC_BURST_MAX];
	int32_t dch[DCN_FC_BURST_MAX];
	uint16_t nd = 0, no = 0, nc = 0, i, j, k;
	int c0;

	if (!x->fwd->port[in].host && take_credits(x, in, m, n))
		return 0;
	c0 = in_chan(x, in, m[0]);

	/* The usual burst: data frames of one channel, taken as they are
	 * (no sorting, whose counters would chain one frame to the next). */
	if (c0 >= 0 && same_chan(m, n, x->fwd->router_mode,
				 fn->kind[in] == DCN_FC_PORT_SWITCH ? SRC_MAC : -1)) {
		in_burst(x, in, lane, (uint32_t)c0, m, n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		int c = i == 0 ? c0 : in_chan(x, in, m[i]);

		if (c >= 0) {
			dm[nd] = m[i];
			dch[nd++] = c;
		} else if (c == IN_UNKNOWN) {
			x->st[in].unknown_src++;
			rte_pktmbuf_free(m[i]);
		} else if (!x->fwd->port[in].host &&
			   is_credit(x->dp->ethertype, m[i])) {
			/* Among data or hellos (a NIC hands over what came
			 * in one batch): taken here too, never left for the
			 * control thread, which does not take credits; after
			 * the data, which its sent counts may count. */
			cm[nc++] = m[i];
		} else {
			m[no++] = m[i]; /* no <= i: only frames already read */
		}
	}
	/* Each channel's frames in their order, channels in the order of
	 * their first frame. */
	for (i = 0; i < nd; i++) {
		int32_t c = dch[i];

		if (c < 0)
			continue;
		for (j = i, k = 0; j < nd; j++)
			if (dch[j] == c) {
				g[k++] = dm[j];
				dch[j] = -1;
			}
		in_burst(x, in, lane, (uint32_t)c, g, k);
	}
	x->fwd->st.rx += nc;
	x->fwd->st.control += nc;
	for (i = 0; i < nc; i++)
		take_credit(x, in, cm[i]);
	return no;
}

/* Bursts one routing pass may take from an input queue. */
#define ROUTE_BURSTS 4

unsigned int
dcn_fc_route_waiting(struct dcn_fc_wnode *x, uint16_t local, uint16_t lane)
{
	struct dcn_fc_node *fn = x->dp->fn;
	uint32_t chan = dcn_fc_port_chan0(fn, local);
	uint32_t end = dcn_fc_port_chan_end(fn, local);
	uint32_t *waiting = &x->dp->port[local].in_waiting[lane];
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
		uint32_t held = in->held_n, i, k, r;
		uint16_t n;

		if (held == 0 && rte_ring_empty(in->in_q))
			continue;
		pass_init(&ps, fn, lane, chan);
		if (held != 0 && !any_room(fn, in, in_idx)) {
			/* No held frame can move: later frames for the same
			 * outputs stay behind them, the rest may go. */
			memcpy(ps.blocked.w, in->held_blocked,
			       chan_words(fn) * sizeof(uint64_t));
		} else {
			/* Held frames first, in order. Every held frame's
			 * output is in held_blocked: once all of those are
			 * blocked again, the rest stays as it is, unread (a
			 * relay under backpressure holds hundreds). */
			for (i = 0, k = 0; i < held; i++) {
				uint32_t oc = in->held_oc[i];

				if (cs_has(&ps.blocked, oc) ||
				    !admit(x, in, oc, in->held[i], &ps)) {
					if (cs_covers(&ps.blocked, in->held_blocked, fn)) {
						if (k != i) {
							memmove(&in->held[k], &in->held[i],
								(held - i) * sizeof(in->held[0]));
							memmove(&in->held_oc[k], &in->held_oc[i],
								(held - i) * sizeof(in->held_oc[0]));
						}
						k += held - i;
						break;
					}
					in->held_oc[k] = (uint16_t)oc;
					in->held[k++] = in->held[i];
				}
			}
			in->held_n = k;
		}
		/* A backlog drains faster than a burst a loop, which is what
		 * arrives: the queue empties and cut-through resumes. */
		for (r = 0; r < ROUTE_BURSTS; r++) {
			n = (uint16_t)RTE_MIN(burst, in->in_cap - in->held_n);
			n = n ? (uint16_t)rte_ring_dequeue_burst(in->in_q, (void **)m,
								 n, NULL) : 0;
			if (n == 0)
				break;
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

/* The port's link is down: what waits for it will not go. Drop it,
 * counted, and give the inputs their internal credits back, so frames
 * routed elsewhere since are not held up. */
static unsigned int
flush_down(struct dcn_fc_wnode *x, uint16_t local)
{
	struct dcn_fc_node *fn = x->dp->fn;
	uint32_t ci = dcn_fc_port_chan0(fn, local);
	uint32_t end = dcn_fc_port_chan_end(fn, local);
	unsigned int total = 0;

	for (; ci < end; ci++) {
		struct dcn_fc_chan *c = &fn->chan[ci];
		struct rte_mbuf *m[DCN_FC_BURST_MAX];
		uint16_t src[DCN_FC_BURST_MAX];
		uint32_t n, k;

		while ((n = rte_ring_dequeue_burst(c->out_q, (void **)m,
						   DCN_FC_BURST_MAX, NULL)) > 0) {
			for (k = 0; k < n; k++)
				src[k] = (uint16_t)*DCN_FC_MBUF_FIELD(m[k]);
			rte_pktmbuf_free_bulk(m, n);
			ic_return_runs(c, src, n);
			x->st[local].down_drop += n;
			total += n;
		}
	}
	return total;
}

unsigned int
dcn_fc_send_waiting(struct dcn_fc_wnode *x, uint16_t local)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_dp_port *pp = &x->dp->port[local];
	uint32_t first = dcn_fc_port_chan0(fn, local);
	uint32_t count = dcn_fc_port_chan_end(fn, local) - first, i, k0;
	unsigned int total = 0, left = 0;

	/* Cleared before the look, as dcn_fc_route_waiting does. */
	__atomic_store_n(&pp->out_waiting, 0, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&pp->port->link_down, __ATOMIC_ACQUIRE)))
		return flush_down(x, local);
	/* Take turns at which channel goes first, so none starves the
	 * others. */
	k0 = pp->send_turn < count ? pp->send_turn : 0;
	pp->send_turn = k0 + 1;
	for (i = 0; i < count; i++, k0 = k0 + 1 < count ? k0 + 1 : 0) {
		struct dcn_fc_chan *c = &fn->chan[first + k0];
		struct rte_mbuf *m[DCN_FC_BURST_MAX];
		uint16_t src[DCN_FC_BURST_MAX];
		uint32_t n, sent, k;

		if (rte_ring_empty(c->out_q))
			continue;
		/* No credit: counted as chan_tx would, without a look at the
		 * frames (a stalled channel is looked at every pass). */
		if (dcn_fc_kind_credited(fn->kind[local]) && dcn_fc_credits(c) == 0) {
			c->stalls++;
			left = 1;
			continue;
		}
		n = rte_ring_dequeue_burst_start(c->out_q, (void **)m, x->dp->burst,
						 NULL);
		for (k = 0; k < n; k++)
			src[k] = (uint16_t)*DCN_FC_MBUF_FIELD(m[k]);
		sent = chan_tx(x, c, local, m, n);
		/* What was not sent stays at the queue's head. */
		rte_ring_dequeue_finish(c->out_q, sent);
		ic_return_runs(c, src, sent);
		total += sent;
		left |= !rte_ring_empty(c->out_q);
	}
	if (left)
		__atomic_store_n(&pp->out_waiting, 1, __ATOMIC_RELAXED);
	return total;
}

/* One link's credit frame, when due (dcn_fc_announce has found that
 * something may be). */
void
dcn_fc_announce_link(struct dcn_fc_wnode *x, uint16_t local, uint16_t link,
		     uint64_t now)
{
	struct dcn_fc_dp *dp = x->dp;
	struct dcn_fc_node *fn = dp->fn;
	struct dcn_fc_dp_port *pp = &dp->port[local];
	struct dcn_fc_dp_link *lk = &dp->link[link];
	const struct dcn_fwd_port *fp = &x->fwd->port[local];
	struct dcn_fc_chan *c0 = dcn_fc_chan(fn, link, 0);
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_CREDIT,
				    .len = (uint16_t)DCN_FC_CREDIT_LEN(fn->n_vcs) };
	uint32_t flen = RTE_MAX((uint32_t)(RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN),
				(uint32_t)(DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + h.len +
					   (dp->auth != NULL ? DCN_AUTH_TRAILER_LEN : 0)));
	struct dcn_fc_credit cr;
	struct rte_mbuf *m;
	unsigned int vc;
	uint64_t mac;
	uint64_t since = now - lk->credit_tsc;
	/* What the freeing of frames has noted: a VC's batch (batch_due),
	 * and any VC's change (frames freed on the link at all). */
	uint32_t freed_total = dcn_fc_link_freed(dp, link);
	int due = __atomic_load_n(&lk->batch_due, __ATOMIC_RELAXED) != 0;
	int changed = freed_total != lk->announced_total;
	uint8_t *f;

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
	/* A new state goes out at once after a batch, or within a refresh
	 * interval; then it is repeated a few times, in case a frame was
	 * lost, and after that only every 100 intervals. */
	if (!due && since >= dp->credit_refresh_tsc)
		due = changed || lk->credit_repeats < DCN_FC_CREDIT_REPEATS ||
		      since >= 100 * dp->credit_refresh_tsc;
	if (!due)
		return;
	lk->credit_tsc = now;
	lk->credit_repeats = changed ? 0 : lk->credit_repeats + 1;
	lk->announced_total = freed_total;
	__atomic_store_n(&lk->batch_due, 0, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	dcn_fc_credit_state(fn, link, &cr);
	/* Each lane's batch counts from what it had freed by now (one lane:
	 * what was announced). */
	for (vc = 0; vc < fn->n_vcs; vc++) {
		uint32_t idx = link * fn->n_vcs + vc, k;

		if (fn->n_lanes == 1) {
			fn->chan[idx].announced = cr.freed[vc];
			continue;
		}
		for (k = 0; k < fn->n_lanes; k++) {
			struct dcn_fc_chan *c = dcn_fc_lane(fn, idx, k);

			__atomic_store_n(&c->announced,
					 __atomic_load_n(&c->freed, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELAXED);
		}
	}
	if (unlikely(dp->credit_drop_ppm) &&
	    (uint32_t)(rte_rand() % 1000000) < dp->credit_drop_ppm) {
		c0->credit_lost++;
		return;
	}
	m = rte_pktmbuf_alloc(dp->mp);
	if (m == NULL) {
		c0->credit_lost++;
		return;
	}
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)flen);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		c0->credit_lost++;
		return;
	}
	memset(f, 0, flen);
	memcpy(f, &mac, RTE_ETHER_ADDR_LEN);
	memcpy(f + RTE_ETHER_ADDR_LEN, &fp->mac, RTE_ETHER_ADDR_LEN);
	dcn_fabric_put16(f + 12, dp->ethertype);
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	dcn_fc_write_credit(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &cr);
	if (dp->auth != NULL)
		dcn_auth_sign(dp->auth, f, h.len, &credit_span, dp->auth_epoch,
			      ++lk->auth_seq);
	if (dcn_port_tx(pp->port, dcn_port_txq(pp->port, x->w->idx), &m, 1) == 1) {
		c0->credit_tx++;
	} else {
		rte_pktmbuf_free(m);
		c0->credit_lost++;
	}
}
