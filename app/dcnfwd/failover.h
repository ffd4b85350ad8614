/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_FAILOVER_H
#define DCNFWD_FAILOVER_H

/* What a node knows of failures, turned into its table: compiled again
 * and published under RCU whenever that knowledge changes. */

#include "dcnfwd.h"

int dcnfwd_failover_setup(struct dcnfwd *d);
void dcnfwd_failover_teardown(struct dcnfwd *d);
/* Compile node ni's table from what it knows, and publish it: 0, or an
 * error (tried again at the next tick). */
int dcnfwd_failover_rebuild(struct dcnfwd *d, uint32_t ni);

#endif /* DCNFWD_FAILOVER_H */
