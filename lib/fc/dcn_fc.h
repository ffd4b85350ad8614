/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_FC_H
#define DCN_FC_H

/**
 * @file
 * Credit-based lossless flow control (NovaCube §6), for one node.
 *
 * Every local port and virtual channel (VC) is a channel with an input
 * queue and an output queue, rte_rings of mbuf pointers laid out in one
 * named memzone per node ("dcn_fc.<node>"), so moving a packet from input
 * to output moves a pointer and a secondary process can read every depth
 * and credit count live.
 *
 * A link is what credits are kept for: a cable port's one peer, or one
 * neighbour behind a port on an L2 switch, which gets its own share of
 * that port's input queue (README.md, "Credits through an L2 switch").
 * A channel is a (link, VC).
 *
 * External credits (§6.1), on fabric links: a sender transmits on
 * (link, VC) only while it holds credits for the downstream input queue.
 * The receiver announces, in credit frames, the absolute count of frames
 * that have left that input queue ("freed"), of frames that reached it
 * ("arrived": freed, or in it now), and the number of slots it grants
 * (its capacity less a reserve for credits in flight, 20% by default).
 * The sender's limit is freed + grant: a lost credit frame costs nothing,
 * since the next one carries the whole state, and a receiver that
 * restarts announces a new epoch, upon which the sender starts over from
 * what the peer holds. A data frame lost on the way (a switch or a
 * kernel queue dropped it) would keep its credit for ever, so each credit
 * frame also carries what its sender has sent toward the peer, counted
 * as the peer counts arrivals: it travels behind those frames, so when
 * the peer takes it, what it has not seen of them was lost, and it frees
 * their slots as if they had come. Where the peer cannot (its credit
 * frames reach another worker than its queues'), frames still missing
 * after repair_ms without a frame sent on the channel were lost, and the
 * sender takes their credits back itself (README.md, "Lost frames").
 *
 * Internal credits (§6.2): an input queue hands a routed packet to an
 * output queue only while its share there is not used up; a packet
 * that cannot go waits in its input queue's held list, and the packets
 * behind it may still go to other outputs: the held list is the "shared
 * virtual input queue" of §6.2 that keeps head-of-line blocking away.
 * The share is a dynamic threshold (what the queue has free), so an
 * output queue's size does not grow with the node's inputs, and an
 * admitted packet always finds its slot.
 *
 * Lanes: a port polled on several RX queues (a NIC's RSS spreading flows
 * over cores) has an input side per queue, a lane, that its poller alone
 * fills and routes from, run to completion: input queue, held list,
 * counters and internal credits of (link, VC, lane). Lane 0 is the
 * channel itself, which also keeps the internal credits' returns and the
 * sender's view of the peer; lane k of channel c is chan[k * n_chans + c].
 * The peer sees one input queue per (link, VC): credit
 * frames carry the sums over lanes, and each lane's queue holds the
 * whole grant (RSS may put every frame of the link on one queue).
 *
 * Senders: lane k of a channel also has an output queue, sender k's,
 * sent on the sender's own TX queue of the port. Sender 0 is the port's
 * owner; with lanes, each other worker with a TX queue of its own on the
 * port may be one too, up to n_lanes (dcn_fc_dp.h). The peer's credits
 * for the (link, VC) stay one count, sent, kept on lane 0: with one
 * sender it is a plain single-writer count; with several, each claims
 * credits for a burst before it sends (dcn_fc_claim: one
 * compare-and-swap a burst) and gives back what the port did not take,
 * so no credit is made or lost, the split follows the senders' loads,
 * and an idle sender holds none.
 *
 * Counters that cross cores are cumulative and have a single writer each
 * (a receiver's freed, a sender's sent, an input's taken, an output's
 * returned), so no atomic read-modify-write is needed on the data path
 * but a burst's claim of credits where a port has several senders.
 */

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/** VCs a node may keep queues for: as many as the fabric header carries. */
#define DCN_FC_MAX_VCS 16
#define DCN_FC_MAX_PORTS 32
/** Links of a node at most: ports, and neighbours behind switch ports. */
#define DCN_FC_MAX_LINKS 128
/** Channels (link, VC) of a node at most. */
#define DCN_FC_MAX_CHANS 1024
/** Lanes (RX queues of a port, each routed by its poller) at most. */
#define DCN_FC_MAX_LANES 16
/** Credit frame payload: epoch, grant, sent_epoch, flags, then freed,
 * arrived and sent of each of n VCs (three arrays of n). */
#define DCN_FC_CREDIT_LEN(n) (16u + 12u * (n))
/** flags: the frame's sender repairs lost frames by the peer's sent[]. */
#define DCN_FC_CREDIT_REPAIRS 1u
/** The shortest credit payload (one VC). */
#define DCN_FC_CREDIT_MIN_LEN DCN_FC_CREDIT_LEN(1)
#define DCN_FC_MZ_PREFIX "dcn_fc."

/** A credit frame's payload: its sender's input queues toward the peer
 * (epoch to arrived), and what it has sent the peer (sent_epoch, sent). */
struct dcn_fc_credit {
	uint32_t epoch;                 /**< receiver's incarnation */
	uint32_t grant;                 /**< slots granted per VC */
	/** the peer's epoch that sent[] counts in; 0: none yet */
	uint32_t sent_epoch;
	uint32_t flags;                 /**< DCN_FC_CREDIT_REPAIRS */
	uint32_t n_vcs;                 /**< entries of each array */
	uint32_t freed[DCN_FC_MAX_VCS]; /**< frames that left each input queue */
	/** frames that reached each input queue: freed, or in it now */
	uint32_t arrived[DCN_FC_MAX_VCS];
	/** frames sent toward the peer on each VC, as the peer counts
	 * arrivals (the sender's sent less its base) */
	uint32_t sent[DCN_FC_MAX_VCS];
};

/** Write c's payload: DCN_FC_CREDIT_LEN(c->n_vcs) bytes. */
void dcn_fc_write_credit(uint8_t *p, const struct dcn_fc_credit *c);
/** Read a payload of len bytes (at least DCN_FC_CREDIT_MIN_LEN): the VCs
 * it has room for, at most DCN_FC_MAX_VCS (c->n_vcs; the arrays' entries
 * beyond are not written). A shorter payload reads as all zero, n_vcs 0. */
void dcn_fc_read_credit(const uint8_t *p, uint32_t len, struct dcn_fc_credit *c);

/** How a channel's port is treated. */
enum dcn_fc_port_kind {
	DCN_FC_PORT_CREDIT = 0, /**< point-to-point fabric port: credits */
	DCN_FC_PORT_HOST,       /**< host port: overload dropped at ingress */
	DCN_FC_PORT_NOCREDIT,   /**< queues without credits (a port
				 *   configured so) */
	DCN_FC_PORT_SWITCH,     /**< on an L2 switch: a link per neighbour,
				 *   credits per link, frames told apart by
				 *   MAC (README.md) */
};

/** Does a port of this kind carry credits? */
static inline int
dcn_fc_kind_credited(uint8_t kind)
{
	return kind == DCN_FC_PORT_CREDIT || kind == DCN_FC_PORT_SWITCH;
}

/** An input channel's counts as its ledger keeps them (dcn_fc_ledger_attach). */
struct dcn_fc_keep {
	uint32_t arrived;
	uint32_t freed;
};

/** An output channel's count as its ledger keeps it: what it sent, as
 * the peer counts arrivals (sent less base), and in which of the peer's
 * epochs; with the peer's next word, the next incarnation tells how many
 * frames a kill caught in a send had left (dcn_fc_ledger_settle). */
struct dcn_fc_keep_tx {
	uint32_t sent;
	uint32_t base;
	uint32_t peer_epoch;
};

/** Workers a node's data path may have (dcn_fc_worker_init). */
#define DCN_FC_MAX_WORKERS 32

/** A worker's output counts as its node's ledger keeps them. */
struct dcn_fc_keep_out {
	/** Frames it queued for output. */
	uint32_t queued;
	/** Frames it took off output queues (sent, or dropped for a link
	 * that went down). */
	uint32_t left;
	/** Its routing pass under way: the input channel (lane * n_chans +
	 * chan), and the frames of it that went on (sent or queued) while
	 * the input's freed count is not yet written: the pass writes it at
	 * its end, and clears pass_out after. */
	uint32_t pass_chan;
	uint32_t pass_out;
	/** Frames handed to a port or an output queue and not yet counted
	 * where they went: a kill while the port's send call runs (AF_XDP
	 * wakes the kernel, which sends before the call returns) leaves
	 * them sent or not, which only the peer can tell. Cleared once they
	 * are counted. */
	uint32_t sending;
	/** Where: the local port + 1, or 0 for an output queue (which dies
	 * with the process: those frames are lost, not in doubt). */
	uint32_t sending_to;
};

struct dcn_fc_ledger;

/** held_oc of a frame the forwarding step held back (DCN_FWD_PARK). */
#define DCN_FC_PARKED UINT16_MAX

/** One (link, VC) of a node. Lives in the node's memzone. */
struct dcn_fc_chan {
	/* Set up once, then read by every worker: a line of their own, so
	 * that the counters below, written on every pass, do not take it
	 * from the readers' caches. */
	struct rte_ring *in_q;     /**< received, not yet routed */
	/** Routed, waiting for internal credits: held[held_head] onwards,
	 * held_n of them, in DCN_FC_HELD_SLOTS(in_cap) slots. Frames leave
	 * from the front; a head index, not a move of the rest, so that a
	 * pass over a long list that frees a few costs what it frees. */
	struct rte_mbuf **held;
	/** Output channel of each held frame (DCN_FC_PARKED: none yet): a
	 * pass over the list reads these, not the mbufs, so waiting frames
	 * stay out of the cache. */
	uint16_t *held_oc;
	uint32_t *ic_taken;        /**< per output channel: slots taken there */
	/* output side: out_q on every lane (sender k's queue); the rest
	 * lane 0's only, for the channel */
	struct rte_ring *out_q;    /**< routed, waiting for the wire */
	uint32_t *ic_returned;     /**< per input channel: slots given back
				    *   (by the one sender of its frames) */
	uint32_t in_cap;           /**< in_q plus held never exceed this */
	uint32_t grant;            /**< credits offered upstream */
	uint32_t out_cap;          /**< out_q's slots: out_admit, and room
				    *   for what other workers have staged */
	uint32_t out_admit;        /**< frames admitted to out_q at most */
	uint16_t vc;               /**< the channel's VC: VC 0's is this - vc */
	uint16_t link_vcs;         /**< VCs of its link (the node's) */

	/* input side: written by the lane's router (and receiver) */
	uint32_t held_n __rte_cache_aligned;
	uint32_t held_head;
	uint32_t freed;            /**< frames that left the input queue */
	/** frames that reached the input queue: freed, or in it now (the
	 * receiving worker's count, so that another lane's announcer reads
	 * it whole, never a frame between the queue and freed) */
	uint32_t arrived;
	uint32_t announced;        /**< freed in the last credit frame */
	/** Held frames the forwarding step held back (DCN_FWD_PARK, their
	 * held_oc DCN_FC_PARKED): stepped again once the router's table
	 * generation is no longer park_gen, or park_wait after park_tsc. */
	uint32_t parked;
	uint32_t park_gen;
	uint64_t park_tsc;
	/** arrived and freed written again here as they change: the
	 * node's ledger slot, which outlives a kill (dcn_fc_ledger_attach),
	 * or keep_here */
	struct dcn_fc_keep *keep;
	struct dcn_fc_keep keep_here;
	/** Output channels that blocked the last pass that left frames
	 * held (a superset of the held frames' ones), a bit each: while
	 * none of them has room, a pass skips the held list instead of
	 * walking it. Stale while nothing is held. */
	uint64_t held_blocked[DCN_FC_MAX_CHANS / 64];

	/** The senders' one shared line. sent: frames sent on this (link,
	 * VC); with several senders, claimed (sent, or about to be). tok:
	 * slots of the link's shared pool this VC holds (README.md, "One
	 * pool a link"), at least what it sent past its own limit. One
	 * word, so that several senders change both in one
	 * compare-and-swap. */
	union {
		struct {
			uint32_t sent;
			uint32_t tok;
		};
		uint64_t sent_tok;
	} __rte_cache_aligned;
	/* sender's view of the peer, written by the credit-frame receiver */
	uint32_t limit;            /**< sent may grow up to this on the
				    *   VC's own slots (its private share) */
	/** The link's shared pool (VC 0's channel): its slots, from the
	 * peer's grant (the credit-frame receiver's), and those the VCs
	 * hold (tok's sum; the senders'). */
	uint32_t shared;
	uint32_t shared_held;
	/** Sends the port cut short, leaving the VC pool slots it took and
	 * did not use (the senders'), and credit_rx plus that when the
	 * senders last took spare slots back for a stalled channel. */
	uint32_t pool_spared;
	uint64_t pool_looked;
	uint32_t base;             /**< sent when the peer's epoch began, less
				    *   its freed then */
	uint32_t peer_epoch;
	uint32_t peer_grant;
	uint8_t peer_known;        /**< a credit frame has arrived */
	/** sent, base and peer_epoch written again as they change: the
	 * ledger's slot (lane 0's channels), or keep_tx_here */
	struct dcn_fc_keep_tx *keep_tx;
	struct dcn_fc_keep_tx keep_tx_here;
	uint32_t link_gen_seen;    /**< the node's link_gen[link] last based on */
	/* lost-frame repair: sent when frames were first seen missing, and
	 * when (probe_tsc 0: none missing) */
	uint32_t probe_sent;
	uint64_t probe_tsc;
	uint64_t lost;             /**< frames sent that never arrived, whose
				    *   credits this sender took back */
	uint64_t lost_in;          /**< frames the peer sent that never
				    *   arrived, freed as if they had */
	uint64_t late;             /**< frames a new base wrote off as gone
				    *   that arrived after all */
	uint32_t peer_freed;       /**< the peer's freed in its last word */
	uint32_t peer_arrived;     /**< the peer's arrived in its last word */
	uint32_t sent_at_word;     /**< sent when that word was taken */
	/** That word left nothing missing on this channel (so no probe
	 * for lost frames). The same word again, with sent, the grant,
	 * the epoch and the link's generation as they were, then changes
	 * nothing (frames it counted late were taken off the base once),
	 * and dcn_fc_credit_rx passes the channel over. */
	uint8_t word_settled;
	uint8_t word_clamped;      /**< that word's limit was cut to max_credit */
	/** Frames lost to the peer's restarts: sent to its last
	 * incarnation and neither freed by it (as its last word said) nor
	 * counted by the next (those that arrive late are taken back).
	 * Exact when the peer's next incarnation spoke the dead one's last
	 * word (its ledger, dcn_fc_ledger_attach); else what the dead one
	 * forwarded after its last word is in it too: an upper bound, by
	 * at most a credit interval's frames. */
	uint64_t lost_restart;
	uint32_t restart_pending;  /**< of lost_restart, still to be
				    *   taken back should they arrive */
	/** This node repaired by the peer's sent counts the last time it
	 * could (the peer's credit frame came to the port's owner). VC 0
	 * channel. */
	uint8_t repairs;
	uint64_t stalls;           /**< sends that found no credit (this
				    *   lane's sender) */
	uint64_t credit_rx;        /**< credit frames taken (VC 0 channel) */
	uint64_t credit_tx;        /**< credit frames sent (VC 0 channel) */
	uint64_t credit_lost;      /**< credit frames not sent (VC 0 channel) */
	uint64_t credit_few_vcs;   /**< credit frames refused: fewer VCs than
				    *   this node keeps (VC 0 channel) */
	uint64_t credit_unknown;   /**< credit frames refused behind a switch
				    *   port: from no known neighbour (the
				    *   port's first link, VC 0 channel) */
	uint64_t epoch_changes;
	uint64_t credit_clamped;   /**< credit frames that offered more than an
				    *   input queue holds, cut to it (VC 0
				    *   channel) */
	/* With a fabric key, credit frames refused (VC 0 channel): */
	uint64_t credit_unsigned;  /**< too short for a trailer */
	uint64_t credit_bad_tag;   /**< written without the key, or changed */
	uint64_t credit_replayed;  /**< signed, but heard before */
	uint64_t credit_unproven;  /**< signed by an incarnation of the peer
				    *   its hellos have not proven (yet: a
				    *   restart's first; or a recording) */
} __rte_cache_aligned;

/** A node's flow-control state: the memzone's head. */
struct dcn_fc_node {
	char name[64];             /**< the node, for views */
	uint32_t vertex;
	uint32_t epoch;            /**< this incarnation, announced to peers */
	/** The most credit a peer may give on a (link, VC): the configured
	 * input queue, which every node of a fabric shares. */
	uint32_t max_credit;
	/** Frames missing this long, with nothing sent after them, were lost
	 * (TSC cycles). */
	uint64_t repair_tsc;
	uint16_t n_ports;
	uint16_t n_vcs;
	uint16_t n_links;
	uint16_t n_lanes;          /**< input sides of each channel */
	uint32_t n_chans;          /**< n_links * n_vcs */
	uint8_t kind[DCN_FC_MAX_PORTS];      /**< enum dcn_fc_port_kind */
	char port_name[DCN_FC_MAX_PORTS][24];
	uint16_t port_link[DCN_FC_MAX_PORTS];  /**< a port's first link */
	uint16_t port_links[DCN_FC_MAX_PORTS]; /**< and how many it has */
	/** Senders of a port (1: its owner alone; more: credits claimed
	 * a burst at a time, dcn_fc_claim). */
	uint8_t senders[DCN_FC_MAX_PORTS];
	uint16_t link_port[DCN_FC_MAX_LINKS];
	/** A link's name for views: its port's, and behind a switch the
	 * neighbour's after a '>' (set by whoever knows the neighbours). */
	char link_name[DCN_FC_MAX_LINKS][40];
	/** Bumped by the control thread when a link comes back (its port's
	 * carrier, or a neighbour's hellos behind a switch): frames lost
	 * while it was down were never freed by the peer, so the next credit
	 * frame starts the count over, as for a new epoch. */
	uint32_t link_gen[DCN_FC_MAX_LINKS];
	const struct rte_memzone *mz;
	/** The counts kept for the next incarnation, and the last word of
	 * the one before (dcn_fc_ledger_attach); NULL: none. */
	struct dcn_fc_ledger *ledger;
	/** Frames the last incarnation had queued for output when it was
	 * killed, as its ledger says: freed from their input queues, so no
	 * neighbour counts them; lost with it. */
	uint64_t lost_queued_at_restart;
	/** Of the frames counted lost with the last incarnation, those it
	 * was handing to a port when it was killed: some may have left
	 * (dcn_fc_keep_out.sending). */
	uint64_t in_doubt_at_restart;
	/** Of those, the ones the port's peers counted as arrived (they
	 * left: counted lost, and were not), and the ones they did not
	 * (lost indeed), as each peer's first word came
	 * (dcn_fc_ledger_settle); the rest stay in doubt (a host port, a
	 * port of several senders or lanes, a peer that restarted too). */
	uint64_t in_doubt_left;
	uint64_t in_doubt_lost;
	/** [lane * n_chans + link * n_vcs + vc] */
	struct dcn_fc_chan chan[];
};

/** Sizes; zero fields take the defaults. */
struct dcn_fc_conf {
	unsigned int in_queue;     /**< input queue slots of a port (shared
				    *   by its links); default 512 */
	unsigned int out_queue;    /**< frames an output queue (a sender's
				    *   of a channel) admits; default 512 */
	unsigned int reserve_pct;  /**< reserve for credits in flight, 0..90;
				    *   default 20 */
	unsigned int n_vcs;        /**< 1..DCN_FC_MAX_VCS; default 2 (the
				    *   application takes its routing's) */
	/** Workers that route the node's frames (each stages at most a
	 * burst a channel ahead of its output queue, which has room for
	 * the others'); default: its ports times lanes. */
	unsigned int stagers;
	/** Frames still missing this long after the sender's last frame on a
	 * channel were lost: longer than a frame can take to reach the
	 * peer's queue (switch buffers included); default 500 ms. */
	unsigned int repair_ms;
	/** Lanes: the most RX queues of a port; default 1. */
	unsigned int n_lanes;
	/** The NUMA node of the memzone, plus one (where the node's ports
	 * are, dcn_port_numa.h); 0: the calling lcore's. */
	unsigned int socket1;
};

/**
 * The most frames a node of this shape holds in its queues: every lane's
 * input side and every sender's output queue full, as under backpressure
 * (its data mbuf pool must hold them, and the ports' descriptors). The
 * arguments as for dcn_fc_node_create. @return frames, or 0 for a shape
 * dcn_fc_node_create refuses.
 */
uint64_t dcn_fc_frames_max(const struct dcn_fc_conf *conf, uint16_t n_ports,
			   const uint8_t *kind, const uint16_t *links);

/** The bytes of the memzone dcn_fc_node_create makes for a node of this
 * shape (the arguments as for it), 0 for a shape it refuses: what a
 * process of many nodes must give EAL. */
uint64_t dcn_fc_node_bytes(const struct dcn_fc_conf *conf, uint16_t n_ports,
			   const uint8_t *kind, const uint16_t *links);

/**
 * Make a node's state in memzone "dcn_fc.<id>". Links are numbered port
 * by port; a switch port's links split its input queue evenly.
 * @param kind       per local port, enum dcn_fc_port_kind
 * @param links      per local port, the neighbours behind a switch port
 *                   (its links; other ports have one); NULL: one each
 * @param names      per local port, a name for views (may be NULL)
 * @return the state, or NULL with rte_errno set: EINVAL (bad sizes, or a
 * switch port whose share of the input queue would be under 2 slots),
 * ENOSPC (over DCN_FC_MAX_LINKS links or DCN_FC_MAX_CHANS channels),
 * ENOMEM (no memory for the memzone), EMFILE (no memzone left), EEXIST.
 */
struct dcn_fc_node *dcn_fc_node_create(const char *id, uint32_t vertex,
				       uint16_t n_ports, const uint8_t *kind,
				       const uint16_t *links,
				       const char *const *names,
				       const struct dcn_fc_conf *conf);
/** Free a node's state; mbufs still queued are freed. */
void dcn_fc_node_free(struct dcn_fc_node *fn);

/** Find a node's state (a secondary process). */
struct dcn_fc_node *dcn_fc_node_lookup(const char *id);

/**
 * The ledger: a node's input counts (arrived and freed of every lane of
 * every channel) and its workers' output counts (dcn_fc_keep_out)
 * written again, as they change, into a file mapped shared, which keeps
 * them when the process is killed. Its next incarnation reads them: as
 * the last word of the one before, on each link, ahead of its own first
 * credit frame, a credit frame in the old epoch with the counts the old
 * one had at its death, so that the neighbour writes off exactly what
 * the dead one never freed, not also what it forwarded after its last
 * credit frame; and what the dead one had queued for output, freed from
 * its inputs, as lost_queued_at_restart (README.md, "A peer killed,
 * counted"). The file is reset to this incarnation's counts. dp's node
 * (dp->fn) is the one kept, from dp's set-up on.
 *
 * @param path  a file of this node alone (made 0600 if absent)
 * @return links with a last word to send (0: none found, or the file's
 * node had other links, VCs or an unreadable head), or a negative errno
 * (no ledger then: the node runs as without one).
 */
struct dcn_fc_dp;
int dcn_fc_ledger_attach(struct dcn_fc_dp *dp, const char *path);
/** Stop keeping (the file stays, for the next incarnation). */
void dcn_fc_ledger_detach(struct dcn_fc_node *fn);
/**
 * The last word still to send on link: @return 1 and the word in cr
 * (the old epoch, its final freed and arrived counts, the flag that
 * nothing is to be repaired by time from it, nothing sent), or 0.
 */
int dcn_fc_ledger_word(const struct dcn_fc_node *fn, uint16_t link,
		       struct dcn_fc_credit *cr);
/** The last word of link went out: none again. */
void dcn_fc_ledger_word_sent(struct dcn_fc_node *fn, uint16_t link);
/**
 * A credit word cr from link's peer, before dcn_fc_credit_rx takes it:
 * the peer's first since this incarnation began settles the frames the
 * dead one was handing to link's port as it was killed. Those the peer
 * counts as arrived beyond what the dead one had sent left
 * (in_doubt_left); once every link of the port has spoken, the rest
 * were lost (in_doubt_lost). A peer in another epoch than the dead one
 * knew (it restarted too) settles nothing. This incarnation cannot have
 * sent on the link before that word (no credits), so the count is the
 * dead one's alone. Only the port's one receiver calls it (a port of one
 * lane and one sender: with several, the sent counts are claims).
 */
void dcn_fc_ledger_settle(struct dcn_fc_node *fn, uint16_t link,
			  const struct dcn_fc_credit *cr);

/** A frame's VC as a channel of fn: VCs beyond the node's share its last
 * (vcs = 1 merges them all, for experiments). */
static inline unsigned int
dcn_fc_vc(const struct dcn_fc_node *fn, unsigned int vc)
{
	return vc < fn->n_vcs ? vc : fn->n_vcs - 1u;
}

/** Channel (link, vc). A cable or host port's one link is
 * fn->port_link[port]. */
static inline struct dcn_fc_chan *
dcn_fc_chan(struct dcn_fc_node *fn, uint16_t link, unsigned int vc)
{
	return &fn->chan[link * fn->n_vcs + dcn_fc_vc(fn, vc)];
}

/** Channels of local port port: [dcn_fc_port_chan0, dcn_fc_port_chan_end),
 * its links one after the other, each VC by VC. */
static inline uint32_t
dcn_fc_port_chan0(const struct dcn_fc_node *fn, uint16_t port)
{
	return (uint32_t)fn->port_link[port] * fn->n_vcs;
}

static inline uint32_t
dcn_fc_port_chan_end(const struct dcn_fc_node *fn, uint16_t port)
{
	return ((uint32_t)fn->port_link[port] + fn->port_links[port]) * fn->n_vcs;
}

/** The neighbour a link behind a switch port leads to, as named in its
 * link_name; NULL for a cable's or a host port's link. */
static inline const char *
dcn_fc_link_neighbour(const struct dcn_fc_node *fn, uint16_t link)
{
	const char *gt = strchr(fn->link_name[link], '>');

	return gt != NULL ? gt + 1 : NULL;
}

/** Start a link's credits over with the peer's next credit frame (the
 * control thread, when the link comes back). */
static inline void
dcn_fc_link_restart(struct dcn_fc_node *fn, uint16_t link)
{
	__atomic_store_n(&fn->link_gen[link], fn->link_gen[link] + 1,
			 __ATOMIC_RELEASE);
}

/*
 * One pool a link (README.md): the peer's grant is the link's, not each
 * VC's. Each VC has a private share of it, its own limit; the rest is a
 * pool the link's VCs share, a VC holding slots of it (tok) for what it
 * sends past its limit. So what a link's peer holds for it is at most
 * the grant, whatever its VCs, and every VC can always send on its own
 * share, which keeps the VCs' deadlock freedom.
 */

/** A link's input slots on a port of in_queue slots with n_links links
 * (several behind a switch, which share the port's queue evenly). */
static inline uint32_t
dcn_fc_link_in_cap(uint32_t in_queue, uint32_t n_links)
{
	return in_queue / n_links;
}

/** What a link of in_cap input slots grants its peer: all but the
 * reserve (reserve_pct percent, for frames in flight at a restart), at
 * least 1. */
static inline uint32_t
dcn_fc_link_grant(uint32_t in_cap, unsigned int reserve_pct)
{
	uint32_t g = in_cap * (100 - reserve_pct) / 100;

	return g != 0 ? g : 1;
}

/** Frames a VC of a link granted grant slots frees before a credit frame
 * is due: the node's credit_batch, at most a quarter of the grant (a
 * batch the peer cannot fill would bring credits back only on the
 * refresh timer), at least 1. */
static inline uint32_t
dcn_fc_link_batch(uint32_t credit_batch, uint32_t grant)
{
	uint32_t quarter = grant / 4 != 0 ? grant / 4 : 1;

	return credit_batch < quarter ? credit_batch : quarter;
}

/** A VC's private share of a link's grant of grant slots over n_vcs
 * VCs: a quarter of an even split, at least 1. */
static inline uint32_t
dcn_fc_private(uint32_t grant, uint32_t n_vcs)
{
	uint32_t p = grant / (4 * n_vcs);

	return p != 0 ? p : 1;
}

/** The link's shared pool: the grant less every VC's private share. */
static inline uint32_t
dcn_fc_shared(uint32_t grant, uint32_t n_vcs)
{
	uint32_t own = n_vcs * dcn_fc_private(grant, n_vcs);

	return grant > own ? grant - own : 0;
}

/** The most frames a link's peer holds for it at a grant of grant
 * slots over n_vcs VCs. */
static inline uint32_t
dcn_fc_link_bound(uint32_t grant, uint32_t n_vcs)
{
	return n_vcs * dcn_fc_private(grant, n_vcs) + dcn_fc_shared(grant, n_vcs);
}

/** What one VC alone may send of a link's grant of grant slots over
 * n_vcs VCs (the others keeping their own shares): the credits of a
 * channel whose link has nothing in flight. */
static inline uint32_t
dcn_fc_alone(uint32_t grant, uint32_t n_vcs)
{
	return dcn_fc_private(grant, n_vcs) + dcn_fc_shared(grant, n_vcs);
}

/** A sender's word of a channel, as loaded. */
union dcn_fc_sent_tok {
	struct {
		uint32_t sent;
		uint32_t tok;
	};
	uint64_t u;
};

/** What channel c may send on its own share and its pool slots (less
 * than 0: it sent past them, by a limit that came down). */
static inline int32_t
dcn_fc_own_room(const struct dcn_fc_chan *c, union dcn_fc_sent_tok w)
{
	return (int32_t)(__atomic_load_n(&c->limit, __ATOMIC_ACQUIRE) + w.tok - w.sent);
}

/** Pool slots VC 0's channel c0 of a link has free. */
static inline int32_t
dcn_fc_pool_free(const struct dcn_fc_chan *c0)
{
	int32_t f = (int32_t)(__atomic_load_n(&c0->shared, __ATOMIC_ACQUIRE) -
			      __atomic_load_n(&c0->shared_held, __ATOMIC_ACQUIRE));

	return f > 0 ? f : 0;
}

/** Pool slots the link's VCs but skip hold and no longer need (they
 * sent that far past their limits no more): what dcn_fc_pool_settle
 * would give back. */
uint32_t dcn_fc_pool_spare(const struct dcn_fc_chan *c0, const struct dcn_fc_chan *skip);

/** Give the pool the slots its VCs no longer need (the link's one
 * sender: plain stores; several: compare-and-swap). */
void dcn_fc_pool_settle(struct dcn_fc_chan *c0, int several);

/** Credits a sender holds: how many more frames the peer will take on
 * channel c, its own share's, its pool slots and the pool's free ones,
 * and those other VCs hold and no longer need. */
static inline uint32_t
dcn_fc_credits(const struct dcn_fc_chan *c)
{
	const struct dcn_fc_chan *c0 = c - c->vc;
	union dcn_fc_sent_tok w = { .u = __atomic_load_n(&c->sent_tok, __ATOMIC_RELAXED) };
	int32_t n = dcn_fc_own_room(c, w) + dcn_fc_pool_free(c0);

	/* Slots other VCs hold: some may be spare. */
	if (__atomic_load_n(&c0->shared_held, __ATOMIC_RELAXED) != w.tok)
		n += (int32_t)dcn_fc_pool_spare(c0, c);
	return n > 0 ? (uint32_t)n : 0;
}

/** Count frames sent (the channel's sender only). */
static inline void
dcn_fc_sent(struct dcn_fc_chan *c, uint32_t n)
{
	__atomic_store_n(&c->sent, c->sent + n, __ATOMIC_RELEASE);
	c->keep_tx->sent = c->sent;
}

/** The channel's one sender takes credits for up to n frames: on its own
 * share, else from the pool. Counted by dcn_fc_sent. @return frames it
 * may send. */
uint32_t dcn_fc_take_pool(struct dcn_fc_chan *c, uint32_t n, int32_t own);

static inline uint32_t
dcn_fc_take(struct dcn_fc_chan *c, uint32_t n)
{
	union dcn_fc_sent_tok w = { .u = c->sent_tok };
	int32_t own = dcn_fc_own_room(c, w);

	if (likely(own >= (int32_t)n))
		return n;
	return dcn_fc_take_pool(c, n, own);
}

/** Several senders: the pool's part of dcn_fc_claim. */
uint32_t dcn_fc_claim_pool(struct dcn_fc_chan *c, uint32_t want);

/**
 * One of several senders of a channel claims credits for up to want
 * frames: counted in sent at once, so no other sender can spend them.
 * @return frames claimed (0: none left).
 */
static inline uint32_t
dcn_fc_claim(struct dcn_fc_chan *c, uint32_t want)
{
	union dcn_fc_sent_tok w = { .u = __atomic_load_n(&c->sent_tok, __ATOMIC_RELAXED) }, nw;

	do {
		if (dcn_fc_own_room(c, w) < (int32_t)want)
			return dcn_fc_claim_pool(c, want);
		nw.sent = w.sent + want;
		nw.tok = w.tok;
	} while (!__atomic_compare_exchange_n(&c->sent_tok, &w.u, nw.u, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return want;
}

/** Give back claimed credits of n frames the port did not take (the
 * pool slots they held stay the VC's until settled). */
static inline void
dcn_fc_unclaim(struct dcn_fc_chan *c, uint32_t n)
{
	union dcn_fc_sent_tok w = { .u = __atomic_load_n(&c->sent_tok, __ATOMIC_RELAXED) }, nw;

	if (n == 0)
		return;
	do {
		nw.sent = w.sent - n;
		nw.tok = w.tok;
	} while (!__atomic_compare_exchange_n(&c->sent_tok, &w.u, nw.u, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
}

/**
 * Take a credit frame for link, received at TSC now: update the sender's
 * limit of each VC. A new epoch (the peer restarted), or the link's
 * link_gen moved on (the link came back), starts over from what the peer
 * holds (a full grant less its queue). Frames missing from the peer's
 * arrived count for fn->repair_tsc while nothing more was sent on the
 * channel were lost: their credits come back, counted in lost.
 */
void dcn_fc_credit_rx(struct dcn_fc_node *fn, uint16_t link,
		      const struct dcn_fc_credit *cr, uint64_t now);

/**
 * Frames of link's peer lost on the way: cr's sent counts, taken by the
 * worker that keeps link's input queues (its only lane), after every
 * frame that came before cr (the credit frame travels behind the frames
 * it counts), say how many the peer sent; those neither queued nor freed
 * never came.
 * They are freed as if they had (counted in lost_in), so the peer gets
 * their credits back. A count made in another epoch of this node is
 * ignored.
 * @return the frames so freed.
 */
uint32_t dcn_fc_credit_sent(struct dcn_fc_node *fn, uint16_t link,
			    const struct dcn_fc_credit *cr);

/** The credit frame a link's receiver would send now (the arrays' first
 * n_vcs entries). */
void dcn_fc_credit_state(const struct dcn_fc_node *fn, uint16_t link,
			 struct dcn_fc_credit *cr);

/**
 * The credit frame a link's receiver sends now: its payload
 * (DCN_FC_CREDIT_LEN(n_vcs) bytes) written at p, as dcn_fc_credit_state
 * then dcn_fc_write_credit would, and each VC's freed count (each
 * lane's) noted as announced, from which its next batch counts. The
 * announcing worker's step.
 */
void dcn_fc_announce_credit(struct dcn_fc_node *fn, uint16_t link, uint8_t *p);

/**
 * Room input channel in has in output channel out (internal credits),
 * as a dynamic threshold (Choudhury and Hahne, the rule of shared-buffer
 * switches): an input may hold in an output queue at most what the
 * queue has free, so k busy inputs hold at most 1/(k + 1) of it each, a
 * lone one half, and the queue never holds more than out_admit however
 * many inputs the node has (README.md, "Internal credits"). Each frame
 * admitted takes a slot from the free ones too: of free - used, half
 * (rounded up) may come now, as if admitted one by one.
 * @param q      the output queue the caller's frames join (its
 *               sender's lane of out; out itself with one sender)
 * @param staged the caller's frames staged for out, not in q yet
 */
static inline uint32_t
dcn_fc_ic_room(const struct dcn_fc_chan *out, const struct dcn_fc_chan *q,
	       const struct dcn_fc_chan *in, uint32_t in_idx, uint32_t out_idx,
	       uint32_t staged)
{
	uint32_t used = in->ic_taken[out_idx] -
			__atomic_load_n(&out->ic_returned[in_idx], __ATOMIC_ACQUIRE);
	uint32_t occ = rte_ring_count(q->out_q) + staged;
	uint32_t free = occ < out->out_admit ? out->out_admit - occ : 0;

	return used < free ? (free - used + 1) / 2 : 0;
}

/** Slots of a held list of an input side of in_cap: twice what it
 * holds at most, so that moving it back to the start (when frames would
 * not fit behind it) is needed only once its head has moved on by
 * nearly a queue's worth, and costs at most one move of each frame. */
#define DCN_FC_HELD_SLOTS(in_cap) (2 * (in_cap))

/** Frames waiting in a channel's input side (ring and held list), of
 * one lane. */
static inline uint32_t
dcn_fc_in_depth(const struct dcn_fc_chan *c)
{
	return rte_ring_count(c->in_q) + __atomic_load_n(&c->held_n, __ATOMIC_RELAXED);
}

/** Frames a channel's input side, of one lane, can still take. */
static inline uint32_t
dcn_fc_in_room(const struct dcn_fc_chan *c)
{
	uint32_t depth = dcn_fc_in_depth(c);

	return depth < c->in_cap ? c->in_cap - depth : 0;
}

/** Lane lane of channel idx: its input side. */
static inline struct dcn_fc_chan *
dcn_fc_lane(const struct dcn_fc_node *fn, uint32_t idx, unsigned int lane)
{
	return (struct dcn_fc_chan *)&fn->chan[lane * fn->n_chans + idx];
}

/** Frames waiting in channel idx's input side, every lane. */
static inline uint32_t
dcn_fc_chan_in_depth(const struct dcn_fc_node *fn, uint32_t idx)
{
	uint32_t n = 0, k;

	for (k = 0; k < fn->n_lanes; k++)
		n += dcn_fc_in_depth(dcn_fc_lane(fn, idx, k));
	return n;
}

/** Frames that left channel idx's input side, every lane. */
static inline uint32_t
dcn_fc_chan_freed(const struct dcn_fc_node *fn, uint32_t idx)
{
	uint32_t n = 0, k;

	for (k = 0; k < fn->n_lanes; k++)
		n += __atomic_load_n(&dcn_fc_lane(fn, idx, k)->freed, __ATOMIC_ACQUIRE);
	return n;
}

/** Frames waiting in channel idx's output queues, every sender's. */
static inline uint32_t
dcn_fc_chan_out_depth(const struct dcn_fc_node *fn, uint32_t idx)
{
	uint32_t n = 0, k;

	for (k = 0; k < fn->n_lanes; k++)
		n += rte_ring_count(dcn_fc_lane(fn, idx, k)->out_q);
	return n;
}

/** Sends of channel idx that found no credit, every sender's. */
static inline uint64_t
dcn_fc_chan_stalls(const struct dcn_fc_node *fn, uint32_t idx)
{
	uint64_t n = 0;
	uint32_t k;

	for (k = 0; k < fn->n_lanes; k++)
		n += dcn_fc_lane(fn, idx, k)->stalls;
	return n;
}

/** The mbuf field that carries a queued packet's input and output channel. */
extern int dcn_fc_mbuf_offset;
#define DCN_FC_MBUF_FIELD(m) RTE_MBUF_DYNFIELD((m), dcn_fc_mbuf_offset, uint32_t *)

/** Register the mbuf field; call once after EAL init. @return 0 or -1. */
int dcn_fc_mbuf_register(void);

#ifdef __cplusplus
}
#endif

#endif /* DCN_FC_H */
