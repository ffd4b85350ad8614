/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_FC_DP_H
#define DCN_FC_DP_H

/**
 * @file
 * The flow-control data path of a node's workers (NovaCube §6), on top of
 * the queues and credit state of dcn_fc.h. A node's data frames take
 * three steps:
 *
 *   receive: into the input queue of (link, VC, lane), by the worker that
 *            polls the RX queue (dcn_fc_rx_lane; lane: the RX queue); a
 *            full input queue drops and counts (only a host port, or a
 *            peer that ignores credits, can fill one); credit frames are
 *            taken on the spot;
 *   route:   the lane's router, the worker that polls its RX queue,
 *            routes from the input queue (dcn_fc_route_lane) through the
 *            forwarding step and moves each frame to its output queue
 *            while the input's internal credits there last, else holds
 *            it (without blocking the others): run to completion, each
 *            RX queue's frames on its own core, a flow (one queue, by
 *            RSS) in its order;
 *   send:    the output port's owner sends what the peer has credits for
 *            and the port takes (dcn_fc_send); the rest stays queued; it
 *            also tells the peer what its input queues freed
 *            (dcn_fc_announce).
 *
 * Cut-through: a lane's router routes a burst at once when nothing waits
 * ahead of it, and a sender sends staged frames at once when nothing
 * waits in its output queue; the accounting is the same as if they had
 * been queued.
 *
 * Senders: each worker routes to a port through one of the port's
 * output queues, its sender's (dcn_fc_wnode.sender): sender 0 is the
 * port's owner; a worker with a TX queue of its own on the port may be
 * given its own (dcn_fc_dp_set_sender), and then sends what it routes
 * there itself, so a port's send rate grows with its lanes. A worker
 * without one goes through the owner's queue (a ring many may fill, one
 * empties). A flow is routed by one worker, so it leaves through one
 * queue, in order.
 *
 * Three objects: struct dcn_fc_dp, a node's (shared by its workers);
 * struct dcn_fc_worker, one worker's scratch (any number of nodes); and
 * struct dcn_fc_wnode, a worker's binding to one node with its counters.
 * No allocation but credit frames, no lock, no syscall, no log.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dcn_auth.h"
#include "dcn_fc.h"
#include "dcn_fwd.h"
#include "dcn_port.h"
#include "dcn_port_lat.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Frames one step takes at most (receive, dequeue, send). */
#define DCN_FC_BURST_MAX 64
/** Credit frames: the same state is announced again this many times at the
 * refresh interval, in case one was lost. */
#define DCN_FC_CREDIT_REPEATS 3
/** No worker serves the port. */
#define DCN_FC_NO_OWNER UINT32_MAX

/** One sender of a port: the worker that sends one of its output
 * queues (lane k's of each of the port's channels). A line each: its
 * flag is cleared by its sender alone. */
struct dcn_fc_dp_sender {
	uint32_t worker;
	/** Something may wait in its output queues: set by whoever queues
	 * a frame, cleared by the sender before it looks (as in_waiting). */
	uint32_t out_waiting;
	uint32_t send_turn;      /**< which channel sends first */
} __rte_cache_aligned;

/** A node's port as the data path sends on it. */
struct dcn_fc_dp_port {
	struct dcn_port *port;
	uint32_t owner;          /**< worker that sends output queues 0,
				  *   takes and announces its credits (lane
				  *   0's router) */
	uint32_t lanes;          /**< its lanes in use (RX queues polled) */
	/** The worker that routes each lane (polls that RX queue). */
	uint32_t router[DCN_FC_MAX_LANES];
	/** Its senders, fn->senders[port] of them; sender 0 the owner. */
	struct dcn_fc_dp_sender sender[DCN_FC_MAX_LANES];
	/** The owner's next look at the port's credit announcements
	 * (dcn_fc_announce): the first time a link's refresh falls due. */
	uint64_t announce_look_tsc;
	/** Frames were freed on a link of the port since the owner last
	 * looked: set by the lanes' routers a pass at a time, taken by the
	 * owner as it looks, so that a pass over ports with nothing freed
	 * and no refresh due costs a load and a compare each. */
	uint32_t announce_hint __rte_cache_aligned;
} __rte_cache_aligned;

/** Credit frames a link holds while its peer's incarnation is unproven. */
#define DCN_FC_CREDIT_HELD 2

/** A node's link as the data path sends on it. */
struct dcn_fc_dp_link {
	/** Behind a switch port: the neighbour's entry, whose MAC tells its
	 * frames apart and addresses its credit frames; NULL otherwise. */
	const struct dcn_fwd_nbr *nbr;
	/* the port owner's credit announcements */
	uint64_t credit_tsc;     /**< when the last went out */
	uint32_t credit_repeats; /**< same state announced again */
	/** frames freed on the link, all VCs, every lane
	 * (dcn_fc_dp_lane.freed_total), when it was last announced (the
	 * owner's) */
	uint32_t announced_total;
	/** a VC of a lane of the link has freed credit_batch frames since
	 * the last credit frame (set by a router as frames are freed, a
	 * burst at a time, cleared by the owner, so that the look each pass
	 * is one load) */
	uint32_t batch_due;
	/** frames a VC frees before a credit frame is due: credit_batch,
	 * or a quarter of the link's grant if less (a switch port's link
	 * has its share of the port's queue), so that its peer's credits
	 * never wait for the refresh */
	uint32_t batch;
	uint32_t auth_seq;       /**< with a fabric key: the last signed */
	/** with a fabric key: the newest credit frame taken from the peer
	 * (the one worker that takes the link's credits) */
	struct dcn_auth_fresh auth_fresh;
	/** with a fabric key: the peer's incarnation its hellos proved
	 * (written by the control thread, dcn_fc_dp_set_peer_epoch); 0:
	 * none yet. Only its credit frames are taken. */
	uint32_t peer_epoch;
	/** with a fabric key: credit frames of an incarnation its hellos
	 * have not proven yet (a restart's first words, among them the
	 * dead incarnation's last, which no later frame repeats): the first
	 * and the latest, signed by held_epoch, taken in order once it is
	 * proven (the link's credit taker's). */
	struct rte_mbuf *held[DCN_FC_CREDIT_HELD];
	uint32_t held_seq[DCN_FC_CREDIT_HELD];
	uint8_t n_held;
	uint32_t held_epoch;
};

/** What a lane's routers write on every pass: lines of the lane's own,
 * so that the workers of two lanes do not share them. */
struct dcn_fc_dp_lane {
	/** Something may wait in the lane's input queues of a port (held
	 * frames included): set by whoever queues a frame, cleared by the
	 * router before it looks, so that a pass over ports with nothing
	 * queued (the rule while nothing pushes back: cut-through) costs a
	 * load each instead of a look at every channel. */
	uint32_t in_waiting[DCN_FC_MAX_PORTS];
	/** frames freed on each link by the lane, all VCs */
	uint32_t freed_total[DCN_FC_MAX_LINKS];
} __rte_cache_aligned;

/** A node's flow-control data path. */
struct dcn_fc_dp {
	struct dcn_fc_node *fn;
	/** Each worker's output counts, [its idx]: the ledger's, which
	 * outlive a kill (dcn_fc_ledger_attach), or out_here. */
	struct dcn_fc_keep_out *out_keep;
	struct dcn_fc_keep_out out_here[DCN_FC_MAX_WORKERS];
	struct rte_mempool *mp;       /**< credit frames come from here */
	uint16_t ethertype;
	uint16_t burst;               /**< frames a dequeue or send takes */
	uint32_t credit_batch;        /**< announce after this many freed */
	uint64_t credit_refresh_tsc;  /**< and at least this often */
	uint32_t credit_drop_ppm;     /**< testing: credit frames thrown away */
	/** How long a frame held back by the forwarding step (DCN_FWD_PARK)
	 * waits for its router's table to change before it goes back all
	 * the same: longer than a busy relay takes to hear of a failure and
	 * publish its table (DCN_FC_PARK_WAIT_MS). */
	uint64_t park_wait_tsc;
	/** The fabric key: credit frames signed and checked; NULL: none. */
	const struct dcn_auth *auth;
	uint32_t auth_epoch;          /**< this node's incarnation */
	struct dcn_fc_dp_port port[DCN_FC_MAX_PORTS];
	struct dcn_fc_dp_link link[DCN_FC_MAX_LINKS];
	struct dcn_fc_dp_lane lane[DCN_FC_MAX_LANES];
};

/** The default of dcn_fc_dp.park_wait_tsc, in ms. */
#define DCN_FC_PARK_WAIT_MS 200

/** One worker's scratch: frames staged per output channel during a pass
 * (a pass routes from one input channel: all staged frames are its). */
struct dcn_fc_worker {
	uint32_t idx;                 /**< owner number, TX queue choice */
	uint32_t max_chans;
	struct rte_mbuf *(*stage)[DCN_FC_BURST_MAX];
	uint16_t *stage_n;
	uint64_t overflow;            /**< output queue refused: a bug */
	/** How long the stamped frames it sends stayed (dcn_port_lat.h). */
	struct dcn_port_lat lat;
};

/** A worker's port counters of one node. */
struct dcn_fc_port_stats {
	uint64_t tx;        /**< data frames sent */
	uint64_t in_drop;   /**< refused by a full input queue */
	uint64_t down_drop; /**< queued for a link that went down */
	uint64_t unknown_src; /**< data on a switch port from no neighbour
			       *   of this node's (not credited: dropped) */
	uint64_t unknown_dst; /**< routed to a MAC no longer a neighbour's */
};

/** A worker's binding to one node. */
struct dcn_fc_wnode {
	struct dcn_fc_dp *dp;
	struct dcn_fc_worker *w;
	struct dcn_fwd_ctx *fwd;      /**< the worker's forwarding context */
	/** Per local port, the sender whose output queues the frames this
	 * worker routes there join (0, the owner's, unless set). */
	uint8_t sender[DCN_FC_MAX_PORTS];
	struct dcn_fc_port_stats st[DCN_FC_MAX_PORTS];
};

/**
 * Set up a node's data path: every port without an owner yet.
 * @return 0, or -EINVAL.
 */
int dcn_fc_dp_init(struct dcn_fc_dp *dp, struct dcn_fc_node *fn,
		   struct rte_mempool *mp, uint16_t ethertype, unsigned int burst,
		   unsigned int credit_batch, uint64_t credit_refresh_tsc);

/** Give local port local, sent and received on p, to worker owner (the
 * router of its lane 0 too). */
static inline void
dcn_fc_dp_set_port(struct dcn_fc_dp *dp, uint16_t local, struct dcn_port *p,
		   uint32_t owner)
{
	dp->port[local].port = p;
	dp->port[local].owner = owner;
	dp->port[local].sender[0].worker = owner;
	dp->port[local].router[0] = owner;
	if (dp->port[local].lanes == 0)
		dp->port[local].lanes = 1;
}

/** Lane lane (< the node's n_lanes) of local port local is routed by
 * worker router, which polls its RX queue. */
static inline void
dcn_fc_dp_set_lane(struct dcn_fc_dp *dp, uint16_t local, uint16_t lane,
		   uint32_t router)
{
	dp->port[local].router[lane] = router;
	if (dp->port[local].lanes < lane + 1u)
		dp->port[local].lanes = lane + 1u;
}

/**
 * Worker x (bound to the node of dp) sends what it routes to local port
 * local itself, as sender k (1 <= k < the node's n_lanes), on its own TX
 * queue of the port: only for a worker that has one no other worker
 * uses. Set up before the workers start.
 * @return 0, or -EINVAL (k out of range, or taken by another worker).
 */
int dcn_fc_dp_set_sender(struct dcn_fc_dp *dp, struct dcn_fc_wnode *x, uint16_t local,
			 uint8_t k);

/**
 * The kind of vertex v's port at fabric_port in topology t: credits run
 * on every hop between routing vertices, whose routes cannot wait in a
 * cycle with their VC rule: a cable's one peer (DCN_FC_PORT_CREDIT), or
 * each neighbour behind an L2 switch (DCN_FC_PORT_SWITCH); a host port
 * (host) takes no credits, nor a port asked to (no_credits), nor one
 * with nothing routing behind it. A relay's rule, a configuration
 * check's and a simulation's alike.
 */
enum dcn_fc_port_kind dcn_fc_topo_port_kind(const struct dcn_topo *t, uint32_t v,
					    int fabric_port, int host, int no_credits);

/**
 * Bind a node's switch ports to their neighbours in table nb (the one
 * the forwarding step reads MACs from): each switch port's links, as
 * many as dcn_fwd_nbrs_on_port counts, in the table's order; and name
 * the links after the neighbours (vertices of t).
 * @param fabric_port  per local port, its topology port number
 * @return 0, or -EINVAL when the counts disagree with the node's.
 */
int dcn_fc_dp_bind_nbrs(struct dcn_fc_dp *dp, const struct dcn_fwd_nbrs *nb,
			const struct dcn_topo *t, const int16_t *fabric_port);

/** The link of a neighbour-table entry, or -1 (control path). */
int dcn_fc_dp_nbr_link(const struct dcn_fc_dp *dp, const struct dcn_fwd_nbr *e);

/** Free what the data path still holds (credit frames waiting for their
 * peer's proof), before the structure is freed. */
void dcn_fc_dp_release(struct dcn_fc_dp *dp);

/** With a fabric key: link takes credit frames of the peer's incarnation
 * epoch only, from now on (the control thread, once the peer's hellos
 * proved it: lib/auth's dcn_auth_peer_take). */
static inline void
dcn_fc_dp_set_peer_epoch(struct dcn_fc_dp *dp, uint16_t link, uint32_t epoch)
{
	__atomic_store_n(&dp->link[link].peer_epoch, epoch, __ATOMIC_RELEASE);
}

/**
 * A worker's scratch for nodes of at most max_chans channels.
 * @return 0, or -ENOMEM.
 */
int dcn_fc_worker_init(struct dcn_fc_worker *w, uint32_t idx, uint32_t max_chans);
void dcn_fc_worker_fini(struct dcn_fc_worker *w);

/**
 * A burst received on lane lane (its RX queue) of local port in: credit
 * frames are taken, data frames go into their input queue (or, by the
 * lane's router, are routed at once).
 * @return n_other: m[0..n_other) are the frames that are neither (control
 * frames, ARP, malformed ones), left for the caller's direct path.
 */
uint16_t dcn_fc_rx_lane(struct dcn_fc_wnode *x, uint16_t in, uint16_t lane,
			struct rte_mbuf **m, uint16_t n);

/** dcn_fc_rx_lane on lane 0. */
static inline uint16_t
dcn_fc_rx(struct dcn_fc_wnode *x, uint16_t in, struct rte_mbuf **m, uint16_t n)
{
	return dcn_fc_rx_lane(x, in, 0, m, n);
}

/* The three steps below are called for every port on every pass of a
 * worker's loop; most find nothing to do. That look is inline (a load or
 * two), the work out of line. */
/**
 * A traced frame m leaving by local port out (dcn_fwd_trace.fc_note;
 * arg: its struct dcn_fc_wnode): the frames queued or staged in its
 * output channel, and the peer's credits there (UINT32_MAX on a port
 * without credits). Leaves both as they are for a frame with no channel.
 */
void dcn_fc_trace_note(void *arg, uint16_t out, const struct rte_mbuf *m,
		       uint32_t *queued, uint32_t *credits);

unsigned int dcn_fc_route_waiting(struct dcn_fc_wnode *x, uint16_t local,
				  uint16_t lane);
unsigned int dcn_fc_send_waiting(struct dcn_fc_wnode *x, uint16_t local);
void dcn_fc_announce_port(struct dcn_fc_wnode *x, uint16_t local, uint64_t now);

/** The flag dcn_fc_route_lane looks at first (a lane's in_waiting of
 * the port): a worker's loop may keep its address at hand. */
static inline const uint32_t *
dcn_fc_route_flag(const struct dcn_fc_wnode *x, uint16_t local, uint16_t lane)
{
	return &x->dp->lane[lane].in_waiting[local];
}

/** Route from the input queues of a lane of local port (its router
 * only). @return frames that left them. */
static inline unsigned int
dcn_fc_route_lane(struct dcn_fc_wnode *x, uint16_t local, uint16_t lane)
{
	if (!__atomic_load_n(dcn_fc_route_flag(x, local, lane), __ATOMIC_ACQUIRE))
		return 0;
	return dcn_fc_route_waiting(x, local, lane);
}

/** dcn_fc_route_lane on lane 0. */
static inline unsigned int
dcn_fc_route(struct dcn_fc_wnode *x, uint16_t local)
{
	return dcn_fc_route_lane(x, local, 0);
}

/** Frames freed on a link, every lane. */
static inline uint32_t
dcn_fc_link_freed(const struct dcn_fc_dp *dp, uint16_t link)
{
	uint32_t n, k;

	n = __atomic_load_n(&dp->lane[0].freed_total[link], __ATOMIC_RELAXED);
	for (k = 1; k < dp->fn->n_lanes; k++)
		n += __atomic_load_n(&dp->lane[k].freed_total[link], __ATOMIC_RELAXED);
	return n;
}

/** Is worker x a sender of local port local (its owner, or a sender
 * of its own there)? */
static inline int
dcn_fc_sends_on(const struct dcn_fc_wnode *x, uint16_t local)
{
	return x->dp->port[local].sender[x->sender[local]].worker == x->w->idx;
}

/** The flag dcn_fc_send looks at first (x's sender's out_waiting of
 * the port; x's sender of it is set before workers start). */
static inline const uint32_t *
dcn_fc_send_flag(const struct dcn_fc_wnode *x, uint16_t local)
{
	return &x->dp->port[local].sender[x->sender[local]].out_waiting;
}

/**
 * Send from x's output queues of local port (its sender's) what credits
 * and the port allow (a sender of the port only, dcn_fc_sends_on); on a
 * port whose link is down, drop (counted) what waits. @return frames sent
 * or dropped.
 */
static inline unsigned int
dcn_fc_send(struct dcn_fc_wnode *x, uint16_t local)
{
	if (!__atomic_load_n(dcn_fc_send_flag(x, local), __ATOMIC_ACQUIRE))
		return 0;
	return dcn_fc_send_waiting(x, local);
}

/** Is a look at port pp's credits due at now (dcn_fc_announce)? */
static inline int
dcn_fc_announce_due(const struct dcn_fc_dp_port *pp, uint64_t now)
{
	return now >= pp->announce_look_tsc ||
	       __atomic_load_n(&pp->announce_hint, __ATOMIC_RELAXED) != 0;
}

/**
 * Tell the peers of a credited port (its cable's, or each neighbour
 * behind its switch, unicast) how much their input queues here have
 * freed (its owner only): after every credit_batch frames, and at least
 * every refresh interval while it changes, so that a lost credit frame
 * is repaired. Looked at only when frames were freed on the port or a
 * link's refresh is due.
 */
static inline void
dcn_fc_announce(struct dcn_fc_wnode *x, uint16_t local, uint64_t now)
{
	if (dcn_fc_announce_due(&x->dp->port[local], now))
		dcn_fc_announce_port(x, local, now);
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_FC_DP_H */
