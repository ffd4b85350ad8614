/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_FWD_H
#define DCN_FWD_H

/**
 * @file
 * The forwarding step of one node, on a burst of mbufs: classify, look up
 * the compiled table, pick a next hop, and rewrite the frame. A host
 * packet is encapsulated at the first relay, a fabric data frame is
 * forwarded or, at its destination, decapsulated to the host port;
 * control frames are handed back for the control thread. Drops are
 * counted per reason and their mbufs freed. No allocation, lock, syscall
 * or log on this path; counters are plain per-context integers.
 */

#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "dcn_fabric.h"
#include "dcn_route.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The clock the data path reads its few times from (a bounce's news
 * window, a parked frame's wait, a credit frame's arrival for repairs):
 * the TSC, or a source a process sets, once, before its data path runs
 * (dcn-sim's simulated time). A relay never sets one. Read on rare paths
 * only: a load and a branch beside the TSC read.
 */
extern uint64_t (*dcn_fwd_clock_source)(void);

static inline uint64_t
dcn_fwd_clock(void)
{
	return likely(dcn_fwd_clock_source == NULL) ? rte_rdtsc() : dcn_fwd_clock_source();
}

/** Read the data path's clock from fn (NULL: the TSC again). */
void dcn_fwd_set_clock(uint64_t (*fn)(void));

#define DCN_FWD_MAX_PORTS 32
#define DCN_FWD_MAX_FABRIC_PORTS 256
/**
 * Diamond: the TTL an edge switch gives a server's packet (before its own
 * hop), so that a switch reads from the TTL how many hops between
 * switches a packet has taken: the VC it travels on (lib/fc/README.md).
 * The packet's own TTL is still checked where it enters (1: dropped as
 * expired); it leaves the fabric with this TTL less its hops.
 */
#define DCN_FWD_ROUTER_TTL 64

/** The VC of a Diamond packet of TTL ttl between switches: hops taken
 * between switches, less one; 0 for a TTL no edge switch set. */
static inline unsigned int
dcn_fwd_router_vc(uint8_t ttl)
{
	return ttl < DCN_FWD_ROUTER_TTL ? DCN_FWD_ROUTER_TTL - 1u - ttl : 0;
}

/** out_port value of a control frame handed back to the caller. */
#define DCN_FWD_CONTROL 0xfffe

/** How long after a change of its routing a relay marks the frames it
 * sends back (dcn_fwd_ctx.news_tsc): longer than a busy fabric takes
 * to spread a failure's news and publish its tables. */
#define DCN_FWD_NEWS_MS 200

/** out_port value of a frame held back (with dcn_fwd_ctx.park): it was
 * sent back here and would go back again, so the tables of the two
 * relays disagree; the caller keeps it, untouched, and steps it again
 * with dcn_fwd_restep() once this relay's table has changed. */
#define DCN_FWD_PARK 0xfffd

/**
 * Neighbours reached through an L2 switch (RRect, LaScaDa, Totoro), keyed
 * by vertex: the next hop's MAC is chosen per packet from here. The keys
 * are fixed when the table is made; only the MACs change, written whole
 * (one 64-bit store) by the control thread as hellos arrive, so workers
 * read them without a lock. A cable port keeps its one peer's MAC in
 * dcn_fwd_port.peer_mac instead.
 */
struct dcn_fwd_nbr {
	uint32_t vertex;    /**< key; DCN_FWD_NBR_EMPTY: a free slot */
	uint16_t fabric_port; /**< key: our port that reaches it */
	uint8_t down;       /**< its hellos stopped (MAC cleared too) */
	uint8_t reserved;
	uint64_t mac;       /**< MAC in its first 6 bytes, where frames for
			     *   it go; 0: not learnt, or its link is down */
	uint64_t heard_mac; /**< the MAC its frames come from, kept while its
			     *   link is down: what it still sends is told
			     *   apart (and counted) as its own */
};

#define DCN_FWD_NBR_EMPTY UINT32_MAX

struct dcn_fwd_nbrs {
	uint32_t mask;      /**< slots - 1, a power of two minus one */
	uint32_t count;
	struct dcn_fwd_nbr *slot;
};

/**
 * Make the neighbour table of node: every routing vertex behind each of
 * its switch ports. @return 0, or -ENOMEM.
 */
int dcn_fwd_nbrs_init(struct dcn_fwd_nbrs *nb, const struct dcn_topo *t,
		      uint32_t node);
void dcn_fwd_nbrs_free(struct dcn_fwd_nbrs *nb);

/**
 * @return the entry of vertex behind topology port fabric_port, or NULL.
 * A vertex may share two switches with the node (RRect, m > 1), with a
 * different MAC on each: the key is the pair.
 */
static inline struct dcn_fwd_nbr *
dcn_fwd_nbr_find(const struct dcn_fwd_nbrs *nb, uint32_t vertex,
		 uint16_t fabric_port)
{
	uint32_t i = ((vertex * 0x9e3779b1u) ^ (fabric_port * 0x85ebca6bu)) &
		     nb->mask;

	if (nb->slot == NULL)
		return NULL;
	for (;; i = (i + 1) & nb->mask) {
		struct dcn_fwd_nbr *e = &nb->slot[i];

		if (e->vertex == vertex && e->fabric_port == fabric_port)
			return e;
		if (e->vertex == DCN_FWD_NBR_EMPTY)
			return NULL;
	}
}

/** Neighbours the table holds behind topology port fabric_port (the
 * links flow control keeps there). */
static inline unsigned int
dcn_fwd_nbrs_on_port(const struct dcn_fwd_nbrs *nb, uint16_t fabric_port)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; nb->slot != NULL && i <= nb->mask; i++)
		n += nb->slot[i].vertex != DCN_FWD_NBR_EMPTY &&
		     nb->slot[i].fabric_port == fabric_port;
	return n;
}

/** Set a neighbour's MAC (control thread). */
static inline void
dcn_fwd_nbr_set_mac(struct dcn_fwd_nbr *e, const struct rte_ether_addr *mac)
{
	uint64_t v = 0;

	memcpy(&v, mac, RTE_ETHER_ADDR_LEN);
	if (v != 0)
		__atomic_store_n(&e->heard_mac, v, __ATOMIC_RELEASE);
	__atomic_store_n(&e->mac, v, __ATOMIC_RELEASE);
}

/** Where a neighbour's frames come from, while frames for it do not go
 * there yet (its link is held down). */
static inline void
dcn_fwd_nbr_set_heard_mac(struct dcn_fwd_nbr *e, const struct rte_ether_addr *mac)
{
	uint64_t v = 0;

	memcpy(&v, mac, RTE_ETHER_ADDR_LEN);
	__atomic_store_n(&e->heard_mac, v, __ATOMIC_RELEASE);
}

/** One local (DPDK) port as the forwarding step sees it. */
struct dcn_fwd_port {
	uint8_t host;                 /**< a host port: plain IPv4 */
	uint8_t shared;               /**< on an L2 switch: many neighbours */
	int16_t fabric_port;          /**< its port number in the topology */
	struct rte_ether_addr mac;    /**< its own MAC */
	/** MAC of the neighbour behind a cable (first 6 bytes), broadcast
	 * until learnt; one 64-bit word so the control thread can change it
	 * under a running worker. */
	uint64_t peer_mac;
	/** Bytes 6 to 13 of a fabric frame it sends: its MAC and the fabric
	 * EtherType (one 8-byte store). */
	uint64_t fabric_eth_tail;
};

/** Candidates a route-cache entry holds; larger sets go uncached. */
#define DCN_FWD_CACHE_HOPS 8

/**
 * One route-cache entry: everything routing decides for a frame before
 * the per-frame pick, for one key. The key is what the decision depends
 * on: a host packet's destination address, or a fabric frame's routing
 * fields (flags, TTL, quadrant, path, last dimension, source,
 * destination, proxy). Each candidate carries its local port and, on a
 * switch port, its neighbour slot, and the fabric header the frame leaves
 * with when that candidate is taken (advanced, TTL included), so a hit
 * costs a hash probe, a pick and a few stores. A key may sit in either of
 * two slots (two probes at most), so that a small set of keys does not
 * keep evicting itself. Link state and MACs are read per frame, as on the
 * uncached path; a table swap empties the cache.
 */
struct dcn_fwd_cache_entry {
	/* First cache line: all that a one-candidate forward out of a cable
	 * reads (key, generation, its port and its header). */
	uint64_t k0;          /**< kind, flags, TTL, quadrant, path, last dim */
	uint64_t k1;          /**< source and destination addresses */
	/** The proxy address (low half) and the generation the entry is
	 * valid in (high half): one compare checks both. */
	uint64_t k2g;
	uint8_t action;       /**< DCN_FWD_ACT_* */
	uint8_t n;            /**< candidates */
	uint8_t no_hdr;       /**< bit k: candidate k leaves no header: drop */
	uint8_t one_cable;    /**< forward by the only candidate, a cable
			       * port with a header: nothing to pick */
	uint8_t too_long;     /**< bit k: candidate k's hop would spend the
			       * route's VCs (DCN_VC_SPENT): drop */
	uint8_t reserved[3];
	int8_t local[DCN_FWD_CACHE_HOPS]; /**< local port, or -drop reason */
	uint8_t hdr[DCN_FWD_CACHE_HOPS][DCN_FABRIC_HDR_LEN];
	uint32_t nbr[DCN_FWD_CACHE_HOPS]; /**< neighbour slot, or a DCN_FWD_NBR_* */
	struct dcn_hop hop[DCN_FWD_CACHE_HOPS];
} __rte_cache_aligned;

/** What a new generation adds to dcn_fwd_ctx.cache_gen (lib/fwd's own
 * arithmetic: see dcn_fwd_cache_next_gen). */
#define DCN_FWD_GEN_STEP (1ull << 32)

/** Route-cache actions. */
#define DCN_FWD_ACT_FORWARD 1 /**< pick a candidate, rewrite, send */
#define DCN_FWD_ACT_DECAP 2   /**< last relay: to the host port */
#define DCN_FWD_ACT_OWN 3     /**< a host packet for this node's host */

/** dcn_fwd_cache_entry.nbr of a cable port (peer MAC in the port). */
#define DCN_FWD_NBR_CABLE UINT32_MAX
/** dcn_fwd_cache_entry.nbr of a switch neighbour the table lacks. */
#define DCN_FWD_NBR_UNKNOWN (UINT32_MAX - 1)

/** Counters of one context (one worker). */
struct dcn_fwd_stats {
	uint64_t rx;
	uint64_t encap;       /**< host packets sent into the fabric */
	uint64_t transit;     /**< fabric frames passed on */
	uint64_t decap;       /**< fabric frames delivered to the host */
	uint64_t control;     /**< control frames handed back */
	uint64_t bounced;     /**< sent back to the neighbour they came from */
	uint64_t parked;      /**< held back as DCN_FWD_PARK (each time) */
	/** of drop[DCN_DROP_TOO_LONG], frames for gone_dst */
	uint64_t too_long_gone;
	uint64_t drop[DCN_DROP_MAX];
};

/** Candidates a trace record lists at most. */
#define DCN_FWD_TRACE_CANDS 8
/** Frames of a flow one trace follows at most. */
#define DCN_FWD_TRACE_FRAMES 64

/** out of a trace record whose frame was dropped (why says why). */
#define DCN_FWD_TRACE_DROPPED 0xffff

/** One hop of a traced frame: what a node's step did with it. */
struct dcn_fwd_trace_rec {
	uint64_t tsc;
	uint32_t node;          /**< the node's vertex */
	uint32_t frame;         /**< the host packet's key (dcn_fwd_frame_key):
				 *   one frame's hops share it */
	uint16_t in;            /**< local port it came in by */
	uint16_t out;           /**< local port it left by, DCN_FWD_PARK,
				 *   or DCN_FWD_TRACE_DROPPED */
	uint8_t cls;            /**< enum dcn_frame_class */
	uint8_t why;            /**< enum dcn_drop_reason when dropped */
	uint8_t vc_in, vc_out;  /**< fabric header's VC in and out (0xff: none) */
	uint8_t ttl_in;
	uint8_t bounced_in, bounced_out;
	uint8_t n_cand;         /**< candidates of its route here */
	uint8_t pick;           /**< the one taken (index), 0xff: none */
	uint16_t cand_port[DCN_FWD_TRACE_CANDS]; /**< their topology ports */
	uint32_t cand_next[DCN_FWD_TRACE_CANDS]; /**< their next vertices */
	uint32_t proxy_in, proxy_out; /**< proxy addresses, 0: none */
	uint32_t queued;        /**< flow control: frames in the output
				 *   channel's queue as it went, UINT32_MAX:
				 *   not known */
	uint32_t credits;       /**< and the peer's credits there */
};

/**
 * A trace of one flow (VPP's trace, for one flow): the next frames of
 * the flow from src to dst (host IPv4 addresses), DCN_FWD_TRACE_FRAMES
 * at most, followed through every context that has this trace (in an
 * emulation, every node a worker serves): each hop's classification,
 * candidates and pick, VC, proxy, output port or drop reason, and flow
 * control's queue and credits where the hook gives them. A context with
 * a trace takes the full step for every frame of a burst; without one a
 * burst pays a test.
 */
struct dcn_fwd_trace {
	uint32_t src, dst;
	uint32_t frames;        /**< frames to follow */
	uint32_t n_ids;         /**< of them, seen so far (keys below) */
	uint32_t ids[DCN_FWD_TRACE_FRAMES];
	uint32_t n, cap;        /**< records written, room */
	struct dcn_fwd_trace_rec *rec;
	/** Flow control's view of a frame leaving by local port out (its
	 * output channel's queue and credits), called with the context's
	 * trace_fc; NULL: none. */
	void (*fc_note)(void *arg, uint16_t out, const struct rte_mbuf *m,
			uint32_t *queued, uint32_t *credits);
};

/** A node's forwarding context; one per worker. */
struct dcn_fwd_ctx {
	const struct dcn_topo *t;
	const struct dcn_router *r;
	const struct dcn_rtable *tb;
	uint32_t node;
	uint32_t node_addr;
	uint16_t ethertype;
	/** The fabric's UDP port (ether format only; 0: not checked): a
	 * frame in IPv4/UDP to it on a fabric port is a neighbour in the
	 * other wire format, dropped as DCN_DROP_ENCAP_MISMATCH. */
	uint16_t udp_port;
	int per_packet;         /**< draw per packet (PORA) instead of hash */
	int router_mode;        /**< Diamond: plain IPv4 router, no fabric header */
	/** Diamond: a packet from a switch with a TTL this low or lower
	 * would leave on a VC past the rule's (DCN_VC_SPENT). */
	uint8_t router_spent_ttl;
	/** 1: a frame that bounced here and would bounce back comes out as
	 * DCN_FWD_PARK (a caller with queues to keep it in: flow control);
	 * 0: it goes back (without flow control the fabric is not lossless
	 * anyway, and its hop limit ends a lasting loop). */
	uint8_t park;
	uint8_t park_off;       /**< dcn_fwd_restep's: park not allowed */
	/** When this relay's routing last changed (a table, a port down or
	 * up); 0: never. A frame it sends back within news_window of that
	 * is marked bounced: the relay knows what its neighbour may not
	 * yet. Later, a bounce is the routing's own (Totoro's way out and
	 * back, a detour under two failures) and the frame is not marked,
	 * so that no frame of a settled fabric is ever held. */
	uint64_t news_tsc;
	uint64_t news_window;   /**< DCN_FWD_NEWS_MS, in TSC cycles */
	/** The trace this context writes to, NULL: none (set between
	 * bursts by the worker that owns the context). */
	struct dcn_fwd_trace *trace;
	void *trace_fc;         /**< the fc_note hook's argument */
	/** A destination known gone (an emulation's killed relay): its
	 * frames that the relays pass round until they hear of it are
	 * counted apart when they end as too_long; 0: none. */
	uint32_t gone_dst;
	uint64_t rng;
	uint16_t n_ports;
	int16_t host_port;      /**< local port delivering to the host, -1 */
	struct dcn_fwd_port port[DCN_FWD_MAX_PORTS];
	int16_t local_of[DCN_FWD_MAX_FABRIC_PORTS]; /**< topology port -> local */
	const struct dcn_fwd_nbrs *nbrs; /**< shared by the node's workers */
	/** Local ports whose link is down (bit per port), written by the
	 * control thread: hops over them are replaced by a live candidate
	 * until the recompiled table arrives. */
	uint32_t port_down;
	/** Frames sent to each neighbour-table slot (this worker's count),
	 * NULL: not counted; mask + 1 entries. */
	uint64_t *nbr_frames;
	/** Frames sent per local output port (the path a flow takes). */
	uint64_t out_frames[DCN_FWD_MAX_PORTS];
	/** Frames dropped as DCN_DROP_ENCAP_MISMATCH per local input port:
	 * a port's frames in, less these, are its neighbour's signs of life
	 * (a neighbour in the other format is not heard). */
	uint64_t in_mismatch[DCN_FWD_MAX_PORTS];
	struct dcn_fwd_stats st;
	enum dcn_pick_mode pick;   /**< the router's, bound with the table */
	/** Route cache (dcn_fwd_set_cache), NULL: every frame is routed
	 * from the table. */
	struct dcn_fwd_cache_entry *cache;
	uint32_t cache_mask;       /**< entries - 1 */
	uint32_t cache_shift;      /**< 64 - log2(entries): a hash's top bits */
	/** Entries of another generation are void; kept in the high half,
	 * where an entry's k2g holds it (DCN_FWD_GEN_STEP a generation; its
	 * low half stays 0: a lookup ORs it over the proxy address).
	 * Changed only by dcn_fwd_cache_next_gen. */
	uint64_t cache_gen;
	uint64_t cache_miss;       /**< lookups that had to route */
	uint32_t table_gen;        /**< dcn_fwd_table.gen of c->tb; 0: none */
};

/**
 * Set up a context. Ports are added with dcn_fwd_add_port().
 * @return 0, or -EINVAL when node is not a routing vertex of the table.
 */
int dcn_fwd_init(struct dcn_fwd_ctx *c, const struct dcn_router *r,
		 const struct dcn_rtable *tb, uint16_t ethertype, int per_packet);

/**
 * Add local port index c->n_ports.
 * @param fabric_port  its topology port number, or -1 for a host port
 * @param host         1: plain IPv4 (a host port; in Diamond, a server port)
 * @return the local index, or -EINVAL / -ENOSPC.
 */
int dcn_fwd_add_port(struct dcn_fwd_ctx *c, int fabric_port, int host,
		     const struct rte_ether_addr *mac);

/** Set the MAC behind local port idx (control thread). */
static inline void
dcn_fwd_set_peer_mac(struct dcn_fwd_ctx *c, uint16_t idx,
		     const struct rte_ether_addr *mac)
{
	uint64_t v = 0;

	memcpy(&v, mac, RTE_ETHER_ADDR_LEN);
	__atomic_store_n(&c->port[idx].peer_mac, v, __ATOMIC_RELEASE);
}

/** Mark local port idx down (1) or up (0) (control thread). */
static inline void
dcn_fwd_set_port_down(struct dcn_fwd_ctx *c, uint16_t idx, int down)
{
	uint32_t m = __atomic_load_n(&c->port_down, __ATOMIC_RELAXED);

	m = down ? m | 1u << idx : m & ~(1u << idx);
	__atomic_store_n(&c->news_tsc, dcn_fwd_clock(), __ATOMIC_RELAXED);
	__atomic_store_n(&c->port_down, m, __ATOMIC_RELEASE);
}

/**
 * A node's table as its publisher hands it to the workers (by RCU): a
 * router, the table compiled from it, and the generation of this
 * publication. Every publication has a new generation, even when its
 * table sits where a freed one was: workers tell tables apart by it, not
 * by their addresses.
 */
struct dcn_fwd_table {
	struct dcn_router *r;
	struct dcn_rtable *tb;
	uint32_t gen;           /**< never 0 */
};

/** The route cache's next generation (the only way it changes): entries
 * of earlier ones are void. On its wrap, after 2^32 generations, the
 * cache is emptied, so that no entry of a generation 2^32 back reads as
 * current. */
void dcn_fwd_cache_next_gen(struct dcn_fwd_ctx *c);

/** Route by table t from now on unless it is the generation in use (the
 * worker that owns the context, between bursts). A new generation
 * empties the route cache. */
static inline void
dcn_fwd_refresh(struct dcn_fwd_ctx *c, const struct dcn_fwd_table *t)
{
	if (likely(c->table_gen == t->gen))
		return;
	c->r = t->r;
	c->tb = t->tb;
	c->table_gen = t->gen;
	__atomic_store_n(&c->news_tsc, dcn_fwd_clock(), __ATOMIC_RELAXED);
	c->pick = dcn_router_pick_mode(t->r);
	dcn_fwd_cache_next_gen(c);
}

/** Use a neighbour table (made with dcn_fwd_nbrs_init) for switch ports. */
static inline void
dcn_fwd_set_nbrs(struct dcn_fwd_ctx *c, const struct dcn_fwd_nbrs *nb)
{
	c->nbrs = nb;
	dcn_fwd_cache_next_gen(c);
}

/** @return bytes a route cache of entries entries needs (a power of two). */
static inline size_t
dcn_fwd_cache_bytes(uint32_t entries)
{
	return (size_t)entries * sizeof(struct dcn_fwd_cache_entry);
}

/**
 * Give the context a route cache: mem, dcn_fwd_cache_bytes(entries) bytes
 * (the caller's, zeroed or not), entries a power of two; NULL or 0 entries:
 * none. @return 0, or -EINVAL.
 */
int dcn_fwd_set_cache(struct dcn_fwd_ctx *c, void *mem, uint32_t entries);

/**
 * Forward a burst received on local port in.
 *
 * @param pkts      the burst; on return its first (return value) entries
 *                  are the frames to send or hand back, in order
 * @param out_port  receives each kept frame's local output port, or
 *                  DCN_FWD_CONTROL for a control frame
 * @return number of frames kept; the others were dropped (counted under
 *         their reason) and freed.
 *
 * A data frame on a switch port must be unicast to the port's own MAC (an
 * L2 switch floods unknown unicast); the next hop behind a switch port
 * needs its MAC in the neighbour table, else the frame is dropped as
 * no_neighbour rather than flooded to every server on the switch.
 *
 * With a route cache, a fabric data frame on a cable port whose decision
 * is cached is read straight from its header bytes (the checks of
 * dcn_fabric_classify, then the cached decision); every other frame takes
 * the full step. Both drop the same frames under the same reasons.
 *
 * It does not prefetch the frames' headers: a caller that has not read
 * them calls dcn_fwd_prefetch() first. Flow control has, on receive (it
 * reads every frame's channel bytes), and pays no second look; on a
 * cable's cut-through it reads none before dcn_fwd_burst_chan(), below.
 */
uint16_t dcn_fwd_burst(struct dcn_fwd_ctx *c, uint16_t in,
		       struct rte_mbuf **pkts, uint16_t n, uint16_t *out_port);

/** Of a 4-byte load at a frame's byte 12, the bytes that tell the input
 * channel a frame is of: the EtherType, a fabric header's frame type and
 * its VC bits (the version, its other bits, are not). */
#define DCN_FWD_CHAN_BYTES rte_cpu_to_be_32(0xffff0f71u)

/** The bytes a frame needs for its channel bytes to be its own. */
#define DCN_FWD_CHAN_MIN_LEN 16

/**
 * Start trace tr over: the next frames of the flow src -> dst, at most
 * frames (<= DCN_FWD_TRACE_FRAMES), into its records (cap of them).
 */
static inline void
dcn_fwd_trace_arm(struct dcn_fwd_trace *tr, uint32_t src, uint32_t dst,
		  uint32_t frames)
{
	tr->src = src;
	tr->dst = dst;
	tr->frames = frames < DCN_FWD_TRACE_FRAMES ? frames : DCN_FWD_TRACE_FRAMES;
	tr->n_ids = 0;
	tr->n = 0;
}

/**
 * Step again a frame that came out as DCN_FWD_PARK, received on local
 * port in, as dcn_fwd_burst() does (not counted again as received).
 * @param may_park  0: a frame that would bounce again goes back all the
 *                  same (its holder waited long enough: the tables do
 *                  not change)
 * @return 1 with its port in *out (DCN_FWD_PARK again: still held), or
 *         0 when it was dropped (counted, freed).
 */
int dcn_fwd_restep(struct dcn_fwd_ctx *c, uint16_t in, struct rte_mbuf *m,
		   uint16_t *out, int may_park);

/**
 * dcn_fwd_burst() over a burst's first frames of one input channel, for
 * a caller that counts frames by channel as they arrive (flow control):
 * the frames are taken in order while their channel bytes
 * (DCN_FWD_CHAN_BYTES of the load at byte 12) are chan_word's and they
 * are long enough to have them; the first that is not, and those after
 * it, are left untouched at pkts[*taken] onwards.
 *
 * On a cable port with a route cache, the fast path's check of a fabric
 * data frame takes the channel with it, so that the frames' channel
 * costs no look of its own; elsewhere they are looked at first.
 *
 * Nor does it prefetch: a driver that copies frames into mbufs (memif,
 * a packet socket) has just brought them in, and on a NIC that writes
 * them by DMA each frame's first load depends on nothing the frame
 * before computes, so the core issues it while that frame's some 90
 * instructions still run. A caller whose frames sit far ahead calls
 * dcn_fwd_prefetch() itself.
 *
 * @return frames kept, at pkts[0] onwards, with their ports; the others
 *         of the *taken were dropped (counted, freed), as
 *         dcn_fwd_burst's.
 */
uint16_t dcn_fwd_burst_chan(struct dcn_fwd_ctx *c, uint16_t in,
			    struct rte_mbuf **pkts, uint16_t n, uint16_t *out_port,
			    uint32_t chan_word, uint16_t *taken);

/**
 * Bring the first cache line of each of n frames (every header the
 * forwarding step reads) towards the core, before dcn_fwd_burst() on
 * frames nothing has read yet: their misses then overlap.
 */
static inline void
dcn_fwd_prefetch(struct rte_mbuf *const *pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_FWD_H */
