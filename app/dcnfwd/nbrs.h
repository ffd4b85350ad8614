/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_NBRS_H
#define DCNFWD_NBRS_H

/* The neighbours behind a node's switch ports, alive or not by their
 * hellos (nbrs.c). */

#include "dcnfwd.h"

/* A hello from vertex v (its port vport, its MAC) on port p: the port's
 * link and, behind a switch, that neighbour's. */
void dcnfwd_nbr_hello(struct dcnfwd *d, struct dcnfwd_port *p, uint32_t v,
		      uint16_t vport, const struct rte_ether_addr *mac, uint64_t now);
/* May the neighbour in this slot be used (its MAC handed to workers)? */
int dcnfwd_nbr_usable(const struct dcnfwd_node *n, uint32_t slot);
/* Every neighbour aged at us (the control tick). */
void dcnfwd_nbrs_tick(struct dcnfwd *d, uint64_t us);

#endif /* DCNFWD_NBRS_H */
