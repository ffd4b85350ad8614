/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_SETUP_H
#define DCNFWD_SETUP_H

/*
 * Building the process: the router, nodes (each with its first table),
 * ports (ethdevs from a configuration, or ring cables built by the
 * emulation), the mempool, flow-control queues, and workers with the RX
 * queues they poll. In order:
 *
 *   dcnfwd_setup_from_conf (ethdev.c) or the emulation's build
 *   dcnfwd_setup_encap
 *   dcnfwd_setup_fc
 *   dcnfwd_workers_create, then RX queues (dcnfwd_workers_from_conf or the
 *   emulation's), then dcnfwd_workers_finish
 */

#include "dcnfwd.h"

int dcnfwd_make_router(struct dcnfwd *d);
int dcnfwd_alloc_tables(struct dcnfwd *d, unsigned int nodes, unsigned int ports);
int dcnfwd_make_mempool(struct dcnfwd *d, unsigned int mbufs);
/* The per-lcore cache of a data pool of mbufs mbufs. */
unsigned int dcnfwd_pool_cache(unsigned int mbufs);
/* The pool of a port of NUMA node socket (-1: the main lcore's): made
 * there, of mbufs mbufs, the first time a port of that node asks. NULL:
 * no memory there. */
struct rte_mempool *dcnfwd_port_pool(struct dcnfwd *d, int socket,
				     unsigned int mbufs);
/* The control frames' pool, sized by the ports: after they are added. */
int dcnfwd_make_ctl_pool(struct dcnfwd *d);
/* A routing node for vertex v. @return its index, or -errno. */
int dcnfwd_node_add(struct dcnfwd *d, uint32_t v);
/* A port of owner (node, switch or host owner_idx). @return its global
 * index, or -errno. */
int dcnfwd_port_add(struct dcnfwd *d, enum dcnfwd_owner owner,
		    uint32_t owner_idx, int fabric_port, int is_host,
		    const char *name);
/* A ring named dcn_WHAT_A_B: DPDK's own when listed, else from the heap
 * (an emulated fabric's many; setup.c says why). */
struct rte_ring *dcnfwd_ring_make(const char *what, unsigned int a,
				  unsigned int b, unsigned int size,
				  unsigned int flags, int listed);

/* encap = udp: the outer headers' state of every node's fabric port
 * (encap.c); dcnfwd_encap_free undoes it for one. */
int dcnfwd_setup_encap(struct dcnfwd *d);
void dcnfwd_encap_free(struct dcnfwd_port *p);

/* Flow-control queues and data path of every node (when on; fc_setup.c). */
int dcnfwd_setup_fc(struct dcnfwd *d);
/* A node's input queue slots per port: input_queue, or for 0 the
 * default of where its ports are (behind_switch: any port meets its
 * neighbours behind an L2 switch). */
unsigned int dcnfwd_fc_in_queue(unsigned int input_queue, int emulated,
				int behind_switch);
/* The credit batch used beside in_queue: credit_batch, cut to a quarter
 * of the grant. */
unsigned int dcnfwd_fc_credit_batch(unsigned int credit_batch, unsigned int in_queue,
				    unsigned int reserve_pct);
struct dcn_conf;
/* --check-config's flow-control lines for configuration c of topology t,
 * whose routing uses vcs VCs: the queues, and whether [queues] mbufs
 * holds them full. */
void dcnfwd_fc_check_line(const struct dcn_conf *c, const struct dcn_topo *t,
			  unsigned int vcs);

/* The workers the process will run: a configuration's [worker.NAME]
 * sections, or the emulation's EAL worker lcores (at most
 * DCNFWD_MAX_WORKERS). Known before they are made: the flow-control
 * queues are sized by it (dcnfwd_setup_fc). */
unsigned int dcnfwd_workers_planned(const struct dcnfwd *d);
/* n workers on the EAL worker lcores (a configuration's own). */
int dcnfwd_workers_create(struct dcnfwd *d, unsigned int n);
/* Worker w polls RX queue q of port pi with handler rx. */
int dcnfwd_worker_add_rxq(struct dcnfwd *d, struct dcnfwd_worker *w,
			  uint32_t pi, uint16_t q, dcnfwd_rx_fn rx);
/* The RX queues of a configuration's [worker.NAME] sections. */
int dcnfwd_workers_from_conf(struct dcnfwd *d);
/* Who sends each port's control frames and serves its flow-control
 * queues: the first worker that polls it. */
int dcnfwd_workers_finish(struct dcnfwd *d);

/* Undo all of it (what the emulation added is its own to undo first). */
void dcnfwd_teardown(struct dcnfwd *d);

#endif /* DCNFWD_SETUP_H */
