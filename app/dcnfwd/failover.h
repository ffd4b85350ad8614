/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_FAILOVER_H
#define DCNFWD_FAILOVER_H

/* What a node knows of failures, turned into its table: compiled again
 * and published under RCU whenever that knowledge changes. */

#include "dcnfwd.h"

int dcnfwd_failover_setup(struct dcnfwd *d);
void dcnfwd_failover_teardown(struct dcnfwd *d);
/* Links aged, tables rebuilt, announcements sent (the control tick). */
void dcnfwd_failover_tick(struct dcnfwd *d, uint64_t now);
/* A hello from vertex v (its port vport, its MAC) on port p. */
void dcnfwd_failover_hello(struct dcnfwd *d, struct dcnfwd_port *p,
			   uint32_t v, uint16_t vport,
			   const struct rte_ether_addr *mac, uint64_t now);
/* May the neighbour in this slot be used (its MAC handed to workers)? */
int dcnfwd_nbr_usable(const struct dcnfwd_node *n, uint32_t slot);

#endif /* DCNFWD_FAILOVER_H */
