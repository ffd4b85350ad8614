/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_WORKER_TYPES_H
#define DCNFWD_WORKER_TYPES_H

/*
 * A worker core: its RX queues, its bindings to the nodes it serves, its
 * TX buffers and counters.
 */

#include "dcnfwd_port.h"

struct dcnfwd_txbuf {
	uint16_t n;
	uint16_t listed;         /* on the worker's dirty list */
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
};

struct dcnfwd_worker;

/* What a worker does with a burst from RX queue queue of port pi. */
typedef void (*dcnfwd_rx_fn)(struct dcnfwd_worker *w, uint32_t pi, uint16_t queue,
			     struct rte_mbuf **m, uint16_t n, uint64_t now);

struct dcnfwd_rxq {
	uint32_t port;
	uint16_t queue;
	dcnfwd_rx_fn rx;
	/* Flow control on a host port: this queue's input channel. No more
	 * is read than it has room for (worker.c). */
	const struct dcn_fc_chan *host_in;
};

/* A worker's share of one node: its forwarding context (its table
 * refreshed every loop), and its binding to the node's flow control. */
struct dcnfwd_wnode {
	struct dcn_fwd_ctx *fwd;
	struct dcn_fc_wnode fc;          /* fc.dp NULL: flow control off */
} __rte_cache_aligned;

struct dcnfwd_worker {
	struct dcnfwd *d;
	unsigned int lcore;
	unsigned int idx;
	unsigned int n_rx;
	struct dcnfwd_rxq *rx;
	/* per rx[] entry: when this worker last emptied that queue (TSC;
	 * 0: not yet), after handing on what it read. Silence on a port
	 * counts only up to then (dcn_link_tick_read). */
	uint64_t *rx_read_tsc;
	struct dcnfwd_wnode **node;       /* per node; NULL: not served */
	uint32_t *served;                 /* nodes it serves */
	unsigned int n_served;
	/* The trace its nodes' steps write (trace.c), and the request it
	 * was last armed by (dcnfwd_trace_req.gen). */
	struct dcn_fwd_trace trace;
	uint32_t trace_gen;
	struct dcnfwd_port_stats *pst;    /* per global port */
	struct dcnfwd_txbuf *txb;         /* per global port */
	uint32_t *ctl_ports;              /* ports whose ctl_tx it drains */
	unsigned int n_ctl_ports;
	uint64_t ctl_drained;             /* ctl_posted when it last drained */
	uint8_t ctl_more;                 /* a ring had more than a burst */
	uint32_t *dirty;                  /* ports with frames in txb */
	unsigned int n_dirty;
	/* flow control: node ports whose output queues and credits this
	 * worker serves (it also sends their control frames), and the
	 * lanes (a node port's RX queue) whose input queues it routes */
	uint32_t *fc_ports;
	unsigned int n_fc_ports;
	/* node ports it sends its own routed frames on, not their owner */
	uint32_t *fc_sends;
	unsigned int n_fc_sends;
	struct dcnfwd_fc_lane {
		uint32_t port;
		uint16_t lane;
	} *fc_lanes;
	unsigned int n_fc_lanes;
	/* the same, as the loop reads them (built when set-up is done): the
	 * lanes, then the ports, then the sends, each with its node's
	 * context and the flag its step looks at first, so that a pass over
	 * idle ports costs a load or two each */
	struct dcnfwd_fc_slot {
		struct dcn_fc_wnode *x;
		const uint32_t *waiting;           /* route or send flag */
		const struct dcn_fc_dp_port *port; /* ports: announce look */
		uint16_t local, lane;
	} *fc_slot;
	struct dcn_fc_worker fcw;
	/* once a loop, after the bursts (emulation: hosts that send) */
	unsigned int (*tick)(struct dcnfwd_worker *w, uint64_t now);
	uint32_t *hosts;                  /* emulated hosts it sends for */
	unsigned int n_hosts;
	uint64_t sw_forwarded, sw_flooded;
	/* an emulated switch's frames lost inside it: runts, and flood
	 * copies no mbuf was left for */
	uint64_t sw_dropped;
	uint64_t ctl_drop;                /* control ring full */
	uint64_t fc_stray;                /* data frame off flow control: a bug */
	uint64_t idle_sleeps;
	uint64_t idle_sleep_us;           /* the sleeps' lengths asked, summed */
	uint64_t loops;
	uint64_t busy_loops;              /* loops that moved frames */
	uint64_t busy_tsc;                /* TSC cycles those took */
	uint64_t lat_stamp_tsc;           /* when it last stamped a frame */
	uint32_t lat_bursts;              /* bursts received since */
	/* control thread: loops at its last tick (a worker that stops looping
	 * was not scheduled, and its ports' silence is not the neighbours').
	 * A line of its own: written every tick, it must not take from the
	 * worker the line of the counters it writes every loop. */
	uint64_t loops_seen __rte_cache_aligned;
	uint64_t loops_seen_us;           /* when loops_seen last moved */
	/* control thread: frames it has put on the ctl_tx of ports this
	 * worker drains (a line of its own: the worker reads it every loop
	 * instead of polling each ring) */
	uint64_t ctl_posted __rte_cache_aligned;
} __rte_cache_aligned;

#endif /* DCNFWD_WORKER_TYPES_H */
