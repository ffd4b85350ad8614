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

/* How long the sampled frames stayed (dcn_port_lat.h), all workers. */
void dcnfwd_lat_totals(const struct dcnfwd *d, struct dcn_port_lat *h);

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

/*
 * The ledger of loss: every way a frame leaves a node other than by
 * delivery, beside the forwarding step's reasons (DCN_DROP_REASONS in
 * lib/fabric, all of them FABRIC). _(ID, name, class, what). The
 * classes: FABRIC, lost inside the fabric (fabric_drops); INGRESS, a
 * host's frame refused on its way in; CONTROL, a control frame its ring
 * refused; REPAIRED, a data frame lost on a cable, its credits taken
 * back; RESTART, lost with a neighbour that was killed, or queued by
 * this relay's last incarnation. One line a reason: the ledger's
 * counters (dcnfwd_drops.loss), /dcn/stats "loss", the exporter's
 * dcnfwd_losses_total, the exit report and the emulation's balance all
 * come from this list (tests/integration/loss_ledger.py checks them).
 */
#define DCNFWD_LOSSES(_)                                                    \
	_(PORT_FULL, "port_full", FABRIC,                                      \
	  "a node port's TX ring or a fabric port's input queue was full")     \
	_(SWITCH, "switch_full", FABRIC,                                       \
	  "an emulated switch: egress full, a runt, a flood copy without an mbuf") \
	_(WIRE, "wire", FABRIC,                                                \
	  "lost on a lossy cable: emulated (--wire-loss), or impaired (/dcn/impair)") \
	_(LINK_WENT_DOWN, "link_went_down", FABRIC,                            \
	  "queued for a link that went down")                                  \
	_(NO_NEIGHBOUR, "no_neighbour_behind_switch", FABRIC,                  \
	  "from or to no neighbour behind a switch port")                      \
	_(QUEUE_OVERFLOW, "queue_overflow", FABRIC,                            \
	  "an output queue refused, or a routed frame with no input queue")    \
	_(HOST_IN, "host_in_full", INGRESS,                                    \
	  "a host's frame refused by a full host port or input queue")         \
	_(CONTROL_RING, "control_ring", CONTROL,                               \
	  "a control frame the control ring refused")                          \
	_(LOST_REPAIRED, "lost_repaired", REPAIRED,                            \
	  "a data frame lost on a credited cable, its credits taken back")     \
	_(LOST_TO_RESTART, "lost_to_restart", RESTART,                         \
	  "lost with a neighbour that was killed, or queued at this relay's kill")

enum dcnfwd_loss_class {
	DCNFWD_LOSS_FABRIC,
	DCNFWD_LOSS_INGRESS,
	DCNFWD_LOSS_CONTROL,
	DCNFWD_LOSS_REPAIRED,
	DCNFWD_LOSS_RESTART,
};

enum dcnfwd_loss {
#define DCNFWD_LOSS_ENUM(id, name, cls, desc) DCNFWD_LOSS_##id,
	DCNFWD_LOSSES(DCNFWD_LOSS_ENUM)
#undef DCNFWD_LOSS_ENUM
	DCNFWD_LOSS_MAX,
};

/* A ledger reason's name ("port_full"), class and description. */
const char *dcnfwd_loss_name(enum dcnfwd_loss l);
enum dcnfwd_loss_class dcnfwd_loss_class(enum dcnfwd_loss l);
const char *dcnfwd_loss_desc(enum dcnfwd_loss l);

/* Losses summed over the process, by the ledger, and what goes with
 * them. */
struct dcnfwd_drops {
	uint64_t loss[DCNFWD_LOSS_MAX];
	/* the forwarding step's reasons (by_reason[0] unused) */
	uint64_t by_reason[DCN_DROP_MAX];
	uint64_t fabric;      /* every FABRIC loss and step reason */
	uint64_t ingress_read; /* of HOST_IN, read from a host port and
				* then refused by its full input queue */
	uint64_t restart_in_doubt; /* of LOST_TO_RESTART, those this relay's
				    * last incarnation was handing to a port
				    * when it was killed that no peer has
				    * settled: some may have left */
	uint64_t restart_doubt_left; /* of LOST_TO_RESTART, those it was
				      * handing to a port that its peer
				      * counted as arrived: not lost */
	uint64_t credit_tx, credit_lost, stalls;
	uint64_t credit_refused; /* credit frames refused whatever the key:
				  * fewer VCs, or an unknown sender */
};
void dcnfwd_drop_totals(const struct dcnfwd *d, struct dcnfwd_drops *dr);

/* The control thread's frames that never left: not made (no control
 * mbuf), not handed to a port (its control ring full), or refused by
 * the port. */
uint64_t dcnfwd_control_unsent(const struct dcnfwd *d);

#endif /* DCNFWD_STATS_H */
