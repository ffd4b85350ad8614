/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_EMU_TYPES_H
#define DCNFWD_EMU_TYPES_H

/*
 * An emulated fabric's hosts and its options.
 */

#include "dcnfwd_limits.h"

/* A share of an emulated host's sending: the flows its node's NIC
 * spreads to the RX queues one worker polls, sent by that worker. */
struct dcnfwd_host_gen {
	struct dcn_gen gen;
	int ready;               /* set up: it has flows to send */
} __rte_cache_aligned;

/* What one RX queue of an emulated host's NIC received. */
struct dcnfwd_host_sink {
	struct dcn_gen_sink sink;
} __rte_cache_aligned;

/*
 * An emulated host on one port. It sends from every worker that polls
 * a queue its frames land in, each worker the flows of its own queues,
 * and receives on each RX queue of its NIC (one, or --lanes), so that
 * with a lane a worker a flow stays on one core from its sender to its
 * sink (emu_fabric.c, emu_spread), as on servers that pin queue q to one
 * core: the emulation's hosts cost its workers no core-to-core traffic
 * that the relays they stand beside would not have.
 */
struct dcnfwd_host {
	uint32_t vertex;         /* the server it stands for */
	uint32_t addr;
	uint32_t port;           /* global port */
	struct dcnfwd_host_gen *gen; /* one a worker */
	uint8_t *queue_of;       /* by destination: the RX queue of its
				  * node's NIC its frames land in */
	int gen_on;              /* workers send while set */
	int gen_ready;           /* some share set up: this host sends */
	struct dcnfwd_host_sink *sink; /* one an RX queue of its port */
	unsigned int n_sinks;
};

/* Emulation's run options (--emulate). */
enum dcnfwd_unplug_mode { UNPLUG_CARRIER = 0, UNPLUG_SILENT, UNPLUG_KILL };

struct dcnfwd_emu_opts {
	double rate;                  /* frames a second per host */
	unsigned int size;            /* frame bytes */
	const char *pattern;          /* uniform, permutation, all-to-one */
	unsigned int pairs;           /* trace pairs instead of traffic */
	unsigned int senders;         /* hosts that send; 0: all */
	double link_rate;             /* emulated cables, frames/s; 0: any */
	unsigned int switch_buffer;   /* an emulated switch port's egress
				       * buffer, frames */
	double wire_loss;             /* % of frames lost on fabric cables */
	unsigned int lanes;           /* RX queues of every node port */
	const char *unplug;           /* what to pull */
	int unplug_mode;              /* enum dcnfwd_unplug_mode */
	double unplug_at, replug_at;
	int replug_set;
	unsigned int flaps;
};

#endif /* DCNFWD_EMU_TYPES_H */
