/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_FIB_H
#define DCNFWD_FIB_H

/*
 * A node's table, from its compilation to its release: the one place a
 * table is published. Workers take a published table with
 * dcn_fwd_refresh (lib/fwd), by its generation; a replaced one goes on
 * DPDK's RCU defer queue and is freed once every reader (the workers,
 * telemetry) has been quiescent since.
 */

#include "dcnfwd.h"

/* The readers' RCU variable and the defer queue (before the workers). */
int dcnfwd_fib_setup(struct dcnfwd *d);
/* Every retired table freed, then the queue and the RCU variable (once
 * the workers have stopped). */
void dcnfwd_fib_teardown(struct dcnfwd *d);
/* Node n's first table: the fault-free router's, generation 1. */
int dcnfwd_fib_first(struct dcnfwd *d, struct dcnfwd_node *n);
/* Compile node ni's table from router r (its own when own_router, with
 * the failures fs it knows, both then the table's), publish it under the
 * next generation and retire the one it replaces. r and fs are freed on
 * failure too. @return 0 or -errno. */
int dcnfwd_fib_publish(struct dcnfwd *d, uint32_t ni, struct dcn_router *r,
		       int own_router, struct dcn_failset *fs);
/* Free the retired tables every reader has passed (the control tick). */
void dcnfwd_fib_reclaim(struct dcnfwd *d);
/* Free a table: its rtable, its router if its own, its failure set. */
void dcnfwd_fib_free(struct dcnfwd_fib *f);

#endif /* DCNFWD_FIB_H */
