/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_STATS_H
#define DCNFWD_STATS_H

/* Counters summed over the workers (each keeps its own, written by it
 * alone): for telemetry, the live figures, failover and the reports. */

#include "dcnfwd.h"

/* Worker w's flow-control counters of port (global), or NULL: not a
 * node's port, or none kept there by w. */
const struct dcn_fc_port_stats *dcnfwd_worker_fc_port(const struct dcnfwd *d,
						      unsigned int w, uint32_t port);

/* Frames port received, every worker's (the control thread's tick reads
 * it for signs of life: one counter, not the totals). */
uint64_t dcnfwd_port_rx(const struct dcnfwd *d, uint32_t port);
/* A port's counters, all workers (flow control's included). */
void dcnfwd_port_totals(const struct dcnfwd *d, uint32_t port,
			struct dcnfwd_port_stats *s);

/* Worker loops of all workers: all of them, those that moved frames, and
 * the TSC cycles those took. */
struct dcnfwd_loop_totals {
	uint64_t loops, busy_loops, busy_tsc;
};
void dcnfwd_loop_totals(const struct dcnfwd *d, struct dcnfwd_loop_totals *s);

/* node: one node, or DCNFWD_ALL_NODES for the sum of all */
#define DCNFWD_ALL_NODES UINT32_MAX
void dcnfwd_node_totals(const struct dcnfwd *d, uint32_t node,
			struct dcn_fwd_stats *s);
/* Frames of port (global) dropped by the forwarding step for the other
 * wire format (encap = ether, IPv4/UDP to the fabric's port), all
 * workers. */
uint64_t dcnfwd_port_mismatched(const struct dcnfwd *d, uint32_t port);
/* Data frames a node sent out of local port local, all workers. */
uint64_t dcnfwd_node_out_frames(const struct dcnfwd *d, uint32_t node,
				uint16_t local);
/* Data frames a node sent to neighbour-table slot slot, all workers. */
uint64_t dcnfwd_node_nbr_frames(const struct dcnfwd *d, uint32_t node,
				uint32_t slot);

/* Mbufs out of every pool of the process (data by NUMA node, control). */
unsigned int dcnfwd_mbufs_in_use(const struct dcnfwd *d);

/* Drops by where they happened. */
struct dcnfwd_drops {
	uint64_t fabric;      /* inside the fabric: ports, queues, reasons */
	uint64_t sw;          /* of those, an emulated switch's: egress full,
			       * a runt, a flood copy without an mbuf */
	uint64_t wire;        /* of those, lost on emulated lossy cables */
	uint64_t ingress;     /* host traffic refused on its way in */
	uint64_t ingress_read; /* of those, read from a host port and then
				* refused by its full input queue */
	uint64_t control;     /* control frames the control ring refused */
	uint64_t credit_tx, credit_lost, stalls;
	uint64_t credit_refused; /* credit frames refused whatever the key:
				  * fewer VCs, or an unknown sender */
	uint64_t lost_repaired; /* data frames that never reached a peer,
				 * their credits given back */
	uint64_t lost_restart;  /* data frames lost with a peer that was
				 * killed (its new incarnation's first word),
				 * and those this relay's last incarnation had
				 * queued for output (its ledger) */
	uint64_t restart_in_doubt; /* of lost_restart, those this relay's
				    * last incarnation was handing to a port
				    * when it was killed that no peer has
				    * settled: some may have left */
	uint64_t restart_doubt_left; /* of lost_restart, those it was
				      * handing to a port that its peer
				      * counted as arrived: not lost */
	/* fabric's parts, for a report by reason: the forwarding step's
	 * reasons (by_reason[0] unused), then the ports' and queues' */
	uint64_t by_reason[DCN_DROP_MAX];
	uint64_t port_full;     /* a fabric port's TX or input queue full */
	uint64_t link_went_down; /* queued for a link that went down */
	uint64_t no_neighbour;  /* behind a switch port, no such neighbour */
	uint64_t queue_overflow; /* flow control's queues, and strays */
};
void dcnfwd_drop_totals(const struct dcnfwd *d, struct dcnfwd_drops *dr);

/* The control thread's frames that never left: not made (no control
 * mbuf), not handed to a port (its control ring full), or refused by
 * the port. */
uint64_t dcnfwd_control_unsent(const struct dcnfwd *d);

#endif /* DCNFWD_STATS_H */
