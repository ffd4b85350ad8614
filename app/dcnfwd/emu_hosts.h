/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_EMU_HOSTS_H
#define DCNFWD_EMU_HOSTS_H

/*
 * An emulated fabric's hosts (struct dcnfwd_host): what each sends, a
 * share a worker, and what each RX queue of its NIC receives.
 */

#include "dcnfwd.h"

/* The worker that polls RX queue q of port pi, or -1. */
int dcnfwd_emu_poller(const struct dcnfwd *d, uint32_t pi, uint16_t q);

/* Host h's sinks, one an RX queue of its port (of n_queues), each for up
 * to max_flows flows. @return 0 or -ENOMEM. */
int dcnfwd_emu_host_sinks(struct dcnfwd_host *h, unsigned int n_queues,
			  unsigned int max_flows);

/*
 * Host h's sending as gc says, split among the workers: each gets the
 * destinations whose frames h's node's NIC puts in a queue it polls, at
 * their share of gc's rate. Workers must exist. @return 0, -EINVAL or
 * -ENOMEM.
 */
int dcnfwd_emu_host_send_setup(struct dcnfwd *d, uint32_t h,
			       const struct dcn_gen_conf *gc);

/* What host h has sent, and received, so far (any thread). */
uint64_t dcnfwd_emu_host_sent(const struct dcnfwd *d, uint32_t h);
uint64_t dcnfwd_emu_host_rx(const struct dcnfwd *d, uint32_t h);
/* Frames to or from host h that did not arrive: what the other hosts
 * sent it less what it received, and what it sent less what they
 * received from it (after the run). */
uint64_t dcnfwd_emu_host_lost(const struct dcnfwd *d, uint32_t h);
/* What all hosts have sent, and received, so far (any thread). */
void dcnfwd_emu_hosts_totals(const struct dcnfwd *d, uint64_t *sent, uint64_t *rx);

/* The workers of the hosts: an RX handler for host ports and the tick
 * that sends what has fallen due. */
void dcnfwd_emu_host_port_rx(struct dcnfwd_worker *w, uint32_t pi, uint16_t queue,
			     struct rte_mbuf **m, uint16_t n, uint64_t now);
unsigned int dcnfwd_emu_hosts_send(struct dcnfwd_worker *w, uint64_t now);

/* Free what h's sending and sinks hold. */
void dcnfwd_emu_host_fini(struct dcnfwd_host *h, unsigned int n_workers);

#endif /* DCNFWD_EMU_HOSTS_H */
