/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One node's forwarding step on a burst (see dcn_fwd.h). Frames are single
 * segments; the fabric header goes between the Ethernet header and the
 * host's IPv4 packet, so encapsulation prepends 20 bytes and writes a new
 * Ethernet header over the old one, and decapsulation does the reverse.
 * This file holds the burst loops and the fast path for cached transit;
 * the decisions are fwd_decide.h, over fwd_cache.h, fwd_choose.h and
 * fwd_rewrite.h.
 */
#include <string.h>

#include <rte_byteorder.h>

#include "dcn_fabric_udp.h"
#include "fwd_decide.h"

static __rte_always_inline uint32_t
load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Of a 4-byte load at frame byte 12: the EtherType and the fabric
 * header's version and type, which transit_fast compares in one step
 * with fast_data_tag(). */
#define TYPE_VERSION_BYTES rte_cpu_to_be_32(0xffffff00u)

/* Of the same load, the VC bits of byte 15: with TYPE_VERSION_BYTES, what
 * a frame of one input channel (DCN_FWD_CHAN_BYTES) shares with the
 * first, and more (the version). */
#define VC_BITS rte_cpu_to_be_32(0x00000071u)

/* Of the same load, the bounce flag of byte 15: a bounced frame takes
 * the full step, which may hold it (transit_bounce). */
#define BOUNCED_BITS rte_cpu_to_be_32(DCN_FABRIC_BOUNCED)

static __rte_always_inline uint32_t
fast_data_tag(const struct dcn_fwd_ctx *c)
{
	return rte_cpu_to_be_32((uint32_t)c->ethertype << 16 |
				(DCN_FABRIC_VERSION << 4 | DCN_FT_DATA) << 8);
}

/* Not decided by transit_fast: take the full step. */
#define FAST_MISS DCN_DROP_MAX

/* Where a fabric frame's IPv4 packet starts. */
#define FAST_L3_OFF (DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN)

/*
 * Transit from the cache, straight from the frame's bytes: a fabric data
 * frame on a cable port whose decision the cache holds is checked as
 * dcn_fabric_classify checks it and then finished as decide finishes a
 * hit, without building its frame info. Anything else (another kind of
 * frame, an IPv4 header with options, a check that fails, a miss) is
 * FAST_MISS, before anything is changed or counted, and takes the full
 * step, which decides the same or names the reason to drop.
 * @return the output port (>= 0), or minus a drop reason or FAST_MISS:
 * a port in a register, where one written through a pointer (as the
 * full step's) would live on the stack for every frame.
 */
static __rte_always_inline int
transit_fast(struct dcn_fwd_ctx *c, const struct cache_view *v, struct rte_mbuf *m,
	     uint16_t in, uint32_t data_tag, const uint32_t tag_mask)
{
	uint8_t *e = rte_pktmbuf_mtod(m, uint8_t *);
	const uint8_t *h = e + DCN_ETHER_HDR_LEN, *ip = e + FAST_L3_OFF;
	uint32_t len = rte_pktmbuf_data_len(m), plen, ip0, l3_len;
	struct dcn_fwd_cache_entry *ce;
	struct cache_key k;
	struct decision d;
	enum dcn_drop_reason why;
	uint16_t out;
	int hit;

	/*
	 * The bytes up to the IPv4 header's first word are read before the
	 * frame's length is known to hold them, so as not to test it
	 * first: they are inside the mbuf's data room whatever the frame
	 * (a frame starts after the headroom, in a room of at least a full
	 * frame). The checks below hold only if it does: an IPv4 length of
	 * at least a header, within the fabric header's length, itself
	 * within the frame. A shorter frame takes the full step, which
	 * names its fault. Of the header's own checks, those on bytes of
	 * the key (a TTL of 0) need no test: the cache holds only keys the
	 * full step took.
	 */
	if (unlikely(m->nb_segs != 1 || (load32(e + 12) & tag_mask) != data_tag))
		return -FAST_MISS;
	/* The IPv4 header's first word: version and length 0x45, then the
	 * lengths. */
	plen = dcn_fabric_get16(h + 6);
	ip0 = load32(ip);
	/* Not rte_be_to_cpu_16: an asm there, which the compiler cannot fold
	 * into the compares. */
	l3_len = __builtin_bswap16((uint16_t)(ip0 >> 16));
	if (unlikely((ip0 & 0xff) != 0x45 || l3_len < DCN_IPV4_MIN_HDR || l3_len > plen ||
		     plen + FAST_L3_OFF > len))
		return -FAST_MISS;
	k = transit_key(h);
	ce = cache_probe(v, &k, &hit);
	if (unlikely(!hit))
		return -FAST_MISS;
	/* The usual hit first, on its own: the flow's addresses, which only
	 * a choice among candidates reads, are then not loaded for it. */
	if (one_cable_up(c, ce)) {
		/* Unsigned, as one_cable_up read it: no sign to test. */
		int local = (uint8_t)ce->local[0];

		rewrite_transit(c, e, local,
				__atomic_load_n(&c->port[local].peer_mac, __ATOMIC_ACQUIRE),
				ce->hdr[0]);
		/* Back to the neighbour it came from (transit_bounce): not
		 * bounced before, or it would not be here. */
		if (unlikely(local == in))
			mark_bounced(c, e);
		return local;
	}
	why = decide_hit(c, ce, 1, ip, dcn_fabric_get32(h + 8), dcn_fabric_get32(h + 12),
			 &d);
	if (why == DCN_DROP_NONE)
		why = transit_emit(c, m, FAST_L3_OFF + l3_len, &d, &out);
	if (why != DCN_DROP_NONE)
		return -(int)why;
	if (unlikely(out == in))
		mark_bounced(c, e);
	return (int)out;
}

static inline int
mac_is_ours(const struct rte_mbuf *m, const struct dcn_fwd_port *p)
{
	return rte_is_same_ether_addr(rte_pktmbuf_mtod(m, const struct rte_ether_addr *),
				      &p->mac);
}

/* The step for one frame; router_mode is a constant in each of the two
 * bodies below, so a fabric relay and a Diamond switch each run a loop
 * without the other's branches, bound once per burst. */
static __rte_always_inline enum dcn_drop_reason
fwd_one(struct dcn_fwd_ctx *c, const struct dcn_fwd_port *ip, struct rte_mbuf *m,
	uint16_t *out, const int router_mode)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dcn_frame_info fi;
	int as_host;

	if (m->nb_segs != 1)
		return DCN_DROP_BAD_LENGTH;
	/* A Diamond switch takes IPv4 on every port, and fabric control
	 * (hellos) on its switch-facing ones. */
	as_host = ip->host || (router_mode && rte_pktmbuf_data_len(m) >= 14 &&
			       (e[12] << 8 | e[13]) != c->ethertype);
	dcn_fabric_classify(e, rte_pktmbuf_data_len(m), as_host, c->ethertype, &fi);
	switch (fi.cls) {
	case DCN_FC_FABRIC_DATA:
		if (router_mode)
			return DCN_DROP_BAD_TYPE;
		if (ip->shared && !mac_is_ours(m, ip))
			return DCN_DROP_NOT_OUR_MAC;
		return transit(c, m, &fi, ip, out);
	case DCN_FC_HOST_IPV4:
		return router_mode ? route_ipv4(c, m, &fi, (int)(ip - c->port), out) :
				     encap(c, m, &fi, out);
	case DCN_FC_FABRIC_CONTROL:
		*out = DCN_FWD_CONTROL;
		c->st.control++;
		return DCN_DROP_NONE;
	case DCN_FC_OTHER:
		/* A host's ARP is for the control thread, which answers
		 * for fabric addresses. */
		if (ip->host && (e[12] << 8 | e[13]) == DCN_ETHERTYPE_ARP) {
			*out = DCN_FWD_CONTROL;
			c->st.control++;
			return DCN_DROP_NONE;
		}
		return DCN_DROP_UNKNOWN_ETHERTYPE;
	default:
		if (fi.reason == DCN_DROP_UNKNOWN_ETHERTYPE && c->udp_port != 0 &&
		    dcn_fabric_udp_check(e, rte_pktmbuf_data_len(m), c->udp_port) ==
			    DCN_UDP_FABRIC) {
			c->in_mismatch[ip - c->port]++;
			return DCN_DROP_ENCAP_MISMATCH;
		}
		return fi.reason;
	}
}

/* A drop counted under its reason; a loop's (too_long) also apart when
 * the frame was for a destination known gone (dcn_fwd_ctx.gone_dst). */
static inline void
count_drop(struct dcn_fwd_ctx *c, enum dcn_drop_reason why, const struct rte_mbuf *m)
{
	uint32_t gone;

	c->st.drop[why]++;
	if (likely(why != DCN_DROP_TOO_LONG))
		return;
	gone = __atomic_load_n(&c->gone_dst, __ATOMIC_RELAXED);
	if (gone != 0 && rte_pktmbuf_data_len(m) >= FAST_L3_OFF &&
	    dcn_fabric_get32(rte_pktmbuf_mtod(m, const uint8_t *) + DCN_ETHER_HDR_LEN + 12) ==
		    gone)
		c->st.too_long_gone++;
}

/* Is m of the input channel whose channel bytes are chan_word? */
static inline int
of_chan(const struct rte_mbuf *m, uint32_t chan_word)
{
	return rte_pktmbuf_data_len(m) >= DCN_FWD_CHAN_MIN_LEN &&
	       (load32(rte_pktmbuf_mtod(m, const uint8_t *) + 12) & DCN_FWD_CHAN_BYTES) ==
		       chan_word;
}

/* Frame m of a burst: kept at pkts[*keep] with its port, or dropped
 * (counted, freed). fast, router_mode and chan are constants in each
 * loop below, so that each runs without the others' branches. With chan
 * (a burst of one input channel, dcn_fwd_burst_chan), a frame the fast
 * path did not take is first checked to be of the channel; @return 0
 * when it is not, and it was left untouched; else 1. */
static __rte_always_inline int
fwd_frame(struct dcn_fwd_ctx *c, const struct dcn_fwd_port *ip, uint16_t in,
	  const struct cache_view *v, struct rte_mbuf *m, struct rte_mbuf **pkts,
	  uint16_t *out_port, uint16_t *keep, uint32_t data_tag, uint32_t chan_word,
	  const int fast, const int router_mode, const int chan)
{
	enum dcn_drop_reason why = FAST_MISS;
	uint16_t out;

	if (fast) {
		/* Of one channel, the fast path's check takes the VC too:
		 * a frame it passes is of the channel. */
		int port = transit_fast(c, v, m, in, data_tag,
					chan ? TYPE_VERSION_BYTES | VC_BITS | BOUNCED_BITS :
					       TYPE_VERSION_BYTES | BOUNCED_BITS);

		if (likely(port >= 0)) {
			/* Always a port of the node: no control frame here. */
			c->out_frames[port]++;
			pkts[*keep] = m;
			out_port[(*keep)++] = (uint16_t)port;
			return 1;
		}
		why = (enum dcn_drop_reason)-port;
	}
	if (chan && why == FAST_MISS && !of_chan(m, chan_word))
		return 0;
	out = 0;
	if (why == FAST_MISS)
		why = fwd_one(c, ip, m, &out, router_mode);
	if (unlikely(why != DCN_DROP_NONE)) {
		count_drop(c, why, m);
		rte_pktmbuf_free(m);
		return 1;
	}
	if (out < DCN_FWD_MAX_PORTS)
		c->out_frames[out]++;
	pkts[*keep] = m;
	out_port[(*keep)++] = out;
	return 1;
}

/* The burst step; with chan, over the frames of one input channel up to
 * the first of another (*taken: the frames before it). */
static __rte_always_inline uint16_t
fwd_burst(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
	  uint16_t n, uint16_t *out_port, uint32_t chan_word, uint16_t *taken,
	  const int fast, const int router_mode, const int chan)
{
	const struct dcn_fwd_port *ip = &c->port[in];
	const uint32_t data_tag = chan ? fast_data_tag(c) | (chan_word & VC_BITS) :
					 fast_data_tag(c);
	const struct cache_view v = cache_view(c);
	struct rte_mbuf **p = pkts, **end = pkts + n;
	uint16_t keep = 0;

	/* Kept frames are written back at pkts[keep], keep <= p - pkts:
	 * the next frame is read before. No prefetch here: the caller's
	 * (dcn_fwd_prefetch), unless it has read the headers already. By
	 * pointer: an index kept for the end (*taken) costs a register,
	 * which the frame's step has none to spare for. */
	for (; p != end; p++)
		if (!fwd_frame(c, ip, in, &v, *p, pkts, out_port, &keep, data_tag, chan_word,
			       fast, router_mode, chan))
			break;
	c->st.rx += (uint64_t)(p - pkts);
	if (chan)
		*taken = (uint16_t)(p - pkts);
	return keep;
}

/* --- the trace (dcn_fwd_trace): the full step, each frame of the
 * traced flow written down --- */

/* A host packet's key, the same at every hop (no relay changes the
 * packet inside a fabric frame): a hash of its IPv4 id and the first 24
 * bytes from its transport header on (ports, a TCP sequence number, a
 * generator's stamp), as far as the packet goes. */
static uint32_t
frame_key(const uint8_t *ip, uint32_t l3_len)
{
	uint32_t h = 2166136261u, ihl = (ip[0] & 0x0fu) * 4u, k, end;

	h = (h ^ ip[4]) * 16777619u;
	h = (h ^ ip[5]) * 16777619u;
	end = RTE_MIN(l3_len, ihl + 24);
	for (k = ihl; k < end; k++)
		h = (h ^ ip[k]) * 16777619u;
	return h;
}

/* Is the frame of fi (its IPv4 header at ip) one the trace follows? A
 * frame of the flow not seen yet is taken while there is room. */
static int
trace_wants(struct dcn_fwd_trace *tr, const struct dcn_frame_info *fi,
	    const uint8_t *ip)
{
	uint32_t id = frame_key(ip, fi->l3_len), i;

	if (fi->ip_src != tr->src || fi->ip_dst != tr->dst || tr->n >= tr->cap)
		return 0;
	for (i = 0; i < tr->n_ids; i++)
		if (tr->ids[i] == id)
			return 1;
	if (tr->n_ids >= tr->frames)
		return 0;
	tr->ids[tr->n_ids++] = id;
	return 1;
}

/* What a traced frame was on its way in: classification, header,
 * candidates. */
static void
trace_in(struct dcn_fwd_ctx *c, const struct dcn_frame_info *fi, const uint8_t *ip,
	 uint16_t in, struct dcn_fwd_trace_rec *r)
{
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	const struct dcn_hop *h = NULL;
	struct dcn_route_state st;
	unsigned int n = 0, k;
	int fabric = fi->cls == DCN_FC_FABRIC_DATA;

	memset(r, 0, sizeof(*r));
	r->tsc = dcn_fwd_clock();
	r->node = c->node;
	r->frame = frame_key(ip, fi->l3_len);
	r->in = in;
	r->cls = (uint8_t)fi->cls;
	r->vc_in = fabric ? fi->hdr.vc : 0xff;
	r->vc_out = 0xff;
	r->ttl_in = fabric ? fi->hdr.ttl : ip[8];
	r->bounced_in = fabric && fi->hdr.bounced;
	r->proxy_in = fabric ? fi->hdr.proxy : 0;
	r->pick = 0xff;
	r->queued = UINT32_MAX;
	if (fabric)
		transit_route(c, fi, &st, scratch, &h, &n);
	else if (c->router_mode)
		router_route(c, fi, &st, scratch, &h, &n);
	else
		encap_route(c, fi, &st, scratch, &h, &n);
	r->n_cand = (uint8_t)RTE_MIN(n, (unsigned int)DCN_FWD_TRACE_CANDS);
	for (k = 0; k < r->n_cand; k++) {
		r->cand_port[k] = h[k].port;
		r->cand_next[k] = h[k].next;
	}
}

/* What became of it: dropped (why), held, or out of a port with its new
 * header, and flow control's view of that port. */
static void
trace_out(struct dcn_fwd_ctx *c, const uint64_t *drops, int kept, uint16_t out,
	  const struct rte_mbuf *m, struct dcn_fwd_trace_rec *r)
{
	unsigned int k;

	if (!kept) {
		r->out = DCN_FWD_TRACE_DROPPED;
		for (k = 1; k < DCN_DROP_MAX; k++)
			if (c->st.drop[k] != drops[k])
				r->why = (uint8_t)k;
		return;
	}
	r->out = out;
	if (out >= c->n_ports)
		return;
	for (k = 0; k < r->n_cand; k++)
		if (r->cand_port[k] < DCN_FWD_MAX_FABRIC_PORTS &&
		    c->local_of[r->cand_port[k]] == out)
			r->pick = (uint8_t)k;
	if (!c->port[out].host && rte_pktmbuf_data_len(m) >= FAST_L3_OFF &&
	    dcn_fabric_get16(rte_pktmbuf_mtod(m, const uint8_t *) + 12) == c->ethertype) {
		struct dcn_fabric_hdr h;

		dcn_fabric_read_hdr(rte_pktmbuf_mtod(m, const uint8_t *) + DCN_ETHER_HDR_LEN,
				    &h);
		r->vc_out = h.vc;
		r->bounced_out = h.bounced;
		r->proxy_out = h.proxy;
	}
	if (c->trace->fc_note != NULL)
		c->trace->fc_note(c->trace_fc, out, m, &r->queued, &r->credits);
}

/* The burst step with a trace: every frame by the full step (which
 * decides as the fast path does), those of the traced flow written
 * down. */
static uint16_t
fwd_burst_traced(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		 uint16_t n, uint16_t *out_port)
{
	const struct dcn_fwd_port *ip = &c->port[in];
	struct dcn_fwd_trace *tr = c->trace;
	const struct cache_view v = cache_view(c);
	uint64_t drops[DCN_DROP_MAX];
	uint16_t keep = 0, i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(m);
		struct dcn_fwd_trace_rec r;
		struct dcn_frame_info fi;
		uint16_t k0 = keep;
		int as_host, traced;

		as_host = ip->host || (c->router_mode && len >= 14 &&
				       (e[12] << 8 | e[13]) != c->ethertype);
		dcn_fabric_classify(e, len, as_host, c->ethertype, &fi);
		traced = m->nb_segs == 1 &&
			 (fi.cls == DCN_FC_FABRIC_DATA || fi.cls == DCN_FC_HOST_IPV4) &&
			 trace_wants(tr, &fi, e + fi.l3_off);
		if (traced) {
			trace_in(c, &fi, e + fi.l3_off, in, &r);
			memcpy(drops, c->st.drop, sizeof(drops));
		}
		if (c->router_mode)
			fwd_frame(c, ip, in, &v, m, pkts, out_port, &keep, 0, 0, 0, 1, 0);
		else
			fwd_frame(c, ip, in, &v, m, pkts, out_port, &keep, 0, 0, 0, 0, 0);
		if (!traced)
			continue;
		trace_out(c, drops, keep != k0, keep != k0 ? out_port[k0] : 0,
			  keep != k0 ? pkts[k0] : NULL, &r);
		tr->rec[tr->n] = r;
		__atomic_store_n(&tr->n, tr->n + 1, __ATOMIC_RELEASE);
	}
	c->st.rx += n;
	return keep;
}

/* A relay's cable port with a route cache: transit frames may be decided
 * from the cache without the full step (a shared port checks MACs
 * first). */
static uint16_t
fwd_burst_cable(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		uint16_t n, uint16_t *out_port)
{
	return fwd_burst(c, in, pkts, n, out_port, 0, NULL, 1, 0, 0);
}

static uint16_t
fwd_burst_cable_chan(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		     uint16_t n, uint16_t *out_port, uint32_t chan_word, uint16_t *taken)
{
	return fwd_burst(c, in, pkts, n, out_port, chan_word, taken, 1, 0, 1);
}

static uint16_t
fwd_burst_relay(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		uint16_t n, uint16_t *out_port)
{
	return fwd_burst(c, in, pkts, n, out_port, 0, NULL, 0, 0, 0);
}

static uint16_t
fwd_burst_router(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		 uint16_t n, uint16_t *out_port)
{
	return fwd_burst(c, in, pkts, n, out_port, 0, NULL, 0, 1, 0);
}

/* Does a burst on port ip of a relay take the fast path (a cable with a
 * route cache)? */
static inline int
cable_with_cache(const struct dcn_fwd_ctx *c, const struct dcn_fwd_port *ip)
{
	return !c->router_mode && !ip->host && !ip->shared && c->cache != NULL;
}

uint16_t
dcn_fwd_burst(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
	      uint16_t n, uint16_t *out_port)
{
	const struct dcn_fwd_port *ip = &c->port[in];

	if (unlikely(c->trace != NULL))
		return fwd_burst_traced(c, in, pkts, n, out_port);
	if (c->router_mode)
		return fwd_burst_router(c, in, pkts, n, out_port);
	if (cable_with_cache(c, ip))
		return fwd_burst_cable(c, in, pkts, n, out_port);
	return fwd_burst_relay(c, in, pkts, n, out_port);
}

uint16_t
dcn_fwd_burst_chan(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf **pkts,
		   uint16_t n, uint16_t *out_port, uint32_t chan_word, uint16_t *taken)
{
	const struct dcn_fwd_port *ip = &c->port[in];
	uint16_t i;

	chan_word &= DCN_FWD_CHAN_BYTES;
	/* A fabric data frame's channel on a cable port with a cache: the
	 * fast path checks it with the rest. */
	if (likely(c->trace == NULL) && cable_with_cache(c, ip) &&
	    ((chan_word ^ fast_data_tag(c)) & DCN_FWD_CHAN_BYTES & TYPE_VERSION_BYTES) == 0)
		return fwd_burst_cable_chan(c, in, pkts, n, out_port, chan_word, taken);
	/* Anything else: the channel's frames first found, then forwarded. */
	for (i = 0; i < n && of_chan(pkts[i], chan_word); i++)
		;
	*taken = i;
	return dcn_fwd_burst(c, in, pkts, i, out_port);
}

int
dcn_fwd_restep(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf *m, uint16_t *out,
	       int may_park)
{
	enum dcn_drop_reason why;
	uint16_t o = 0;

	c->park_off = (uint8_t)!may_park;
	why = fwd_one(c, &c->port[in], m, &o, 0);
	c->park_off = 0;
	if (unlikely(why != DCN_DROP_NONE)) {
		count_drop(c, why, m);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (o < DCN_FWD_MAX_PORTS)
		c->out_frames[o]++;
	*out = o;
	return 1;
}
