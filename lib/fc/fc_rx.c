/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive: a burst of one lane sorted into its input channels (the
 * usual burst, one channel's, taken whole), credit frames taken on the
 * spot, the rest (control, malformed) left for the direct path.
 */
#include "fc_dp_priv.h"

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
	 * receive; four frames a turn, so the count and branch of the loop
	 * come a quarter as often. */
#pragma GCC unroll 4
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

/* Are the n frames of a host port's burst all of its one input channel?
 * Every frame is (VC 0) but ARP (in_vc), whatever its IPv4 header, so
 * only the EtherType is read: same_chan's word would take in the TOS
 * byte, and a burst of mixed DSCP or ECN marks would go to the sorting.
 * A frame whose bytes 12-13 read ARP goes there too, where in_chan reads
 * it by its length (a runt's bytes are inside its data room, as the
 * loops of fc_dp_priv.h say). */
static inline int
host_one_chan(struct rte_mbuf *const *m, uint16_t n)
{
	const uint16_t arp = rte_cpu_to_be_16(DCN_ETHERTYPE_ARP);
	uint16_t i, type;
	int any = 0;

#pragma GCC unroll 4
	for (i = 0; i < n; i++) {
		memcpy(&type, rte_pktmbuf_mtod_offset(m[i], const uint8_t *, 12),
		       sizeof(type));
		any |= type == arp;
	}
	return !any;
}

/* Cut-through: may the lane's router, this worker, route frames of
 * channel ch received on lane lane of local port in at once, as if they
 * had been queued and taken? Only with nothing of the channel waiting in
 * its input queue; once frames are held, the rest queues behind them. */
static inline int
cut_through(const struct dcn_fc_wnode *x, uint16_t in, uint16_t lane,
	    const struct dcn_fc_chan *ch)
{
	return x->dp->port[in].router[lane] == x->w->idx && ch->held_n == 0 &&
	       rte_ring_empty(ch->in_q);
}

/* Frames m of one input channel chan, received on lane lane of local
 * port in, into it. */
static inline void
in_burst(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane, uint32_t chan,
	 struct rte_mbuf **m, uint16_t n)
{
	struct dcn_fc_node *fn = x->dp->fn;
	struct dcn_fc_chan *ch = &fn->chan[lane_chan(fn, lane, chan)];
	unsigned int k;

	/* Counted as they come, before any leaves (dcn_fc_credit_state). */
	set_arrived(ch, ch->arrived + n);
	if (cut_through(x, in, lane, ch)) {
		uint16_t done = dcn_fc_route_now(x, in, lane, chan, m, n);

		if (done == n)
			return;
		m += done;
		n = (uint16_t)(n - done);
	}
	k = rte_ring_enqueue_burst(ch->in_q, (void **)m, n, NULL);
	__atomic_store_n(&x->dp->lane[lane].in_waiting[in], 1, __ATOMIC_RELEASE);
	if (unlikely(k < n)) {
		/* Refused: they never arrived. */
		set_arrived(ch, ch->arrived - (n - k));
		x->st[in].in_drop += n - k;
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
}

/* May a burst of n frames of input channel chan, received on lane lane
 * of cable port in, be routed at once by dcn_fc_route_chan_now: the
 * channel's router is this worker, nothing of it waits (in_burst's
 * cut-through), and the burst fits its queue (one routing piece)? Not on
 * a Diamond switch, whose channel is in the TTL, nor on a host or a
 * switch port, whose frames same_chan looks at as before. */
static inline int
chan_now(const struct dcn_fc_wnode *x, uint16_t in, uint16_t lane, uint32_t chan,
	 uint16_t n)
{
	const struct dcn_fc_node *fn = x->dp->fn;
	const struct dcn_fc_chan *ch = &fn->chan[lane_chan(fn, lane, chan)];

	return fn->kind[in] == DCN_FC_PORT_CREDIT && !x->fwd->router_mode &&
	       n <= ch->in_cap && cut_through(x, in, lane, ch);
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
		dcn_fc_take_credit(x, in, m[i]);
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
	/* A cable's usual burst, routed at once: the forwarding step checks
	 * that its frames are of frame 0's channel as it reads them, and
	 * stops at the first that is not, from which on the same is tried
	 * again (a burst of two VCs in turn), then sorted below. Each turn
	 * takes at least frame 0, which is of its own channel. */
	while (c0 >= 0 && chan_now(x, in, lane, (uint32_t)c0, n)) {
		uint16_t t = dcn_fc_route_chan_now(x, in, lane, (uint32_t)c0, m, n);

		if (t == n)
			return 0;
		/* Left at the front, as the caller takes them. */
		memmove(m, m + t, (size_t)(n - t) * sizeof(*m));
		n = (uint16_t)(n - t);
		c0 = in_chan(x, in, m[0]);
	}

	/* The usual burst: data frames of one channel, taken as they are
	 * (no sorting, whose counters would chain one frame to the next). */
	if (c0 >= 0 && (x->fwd->port[in].host ? host_one_chan(m, n) :
			same_chan(m, n, x->fwd->router_mode,
				  fn->kind[in] == DCN_FC_PORT_SWITCH ? SRC_MAC : -1))) {
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
		dcn_fc_take_credit(x, in, cm[i]);
	return no;
}
