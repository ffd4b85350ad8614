/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failover, on the control thread: a node's table compiled again from
 * what it knows and published by RCU (fib.c), when the control tick
 * (tick.c) finds its knowledge changed: its own links (links.c), the
 * neighbours behind its switch ports (nbrs.c), announcements (lsa.c).
 *
 * Reaction, in two steps: at once, the workers' contexts mark the port (or
 * the neighbour's MAC) down, and lib/fwd picks a live candidate of the
 * same set (the precomputed alternates); then, in the same control tick,
 * the node's table is compiled again from a router that knows the
 * failure, and published. Workers pick it up at their next loop; the old
 * one is freed once every worker (and telemetry) has passed a quiescent
 * point after the swap, so no frame is routed by freed memory and none is
 * lost by the swap.
 *
 * Recovery: a link comes back when its carrier is up and hellos from the
 * expected neighbour have kept arriving for the hold-down (lib/link
 * doubles it for a link that flaps).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_link

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "events.h"
#include "failover.h"
#include "fib.h"
#include "links.h"
#include "lsa.h"
#include "setup.h"

/* --- routing state of a node --- */

struct fs_fill {
	struct dcn_failset *fs;
	unsigned int added;
};

static void
fs_add(uint32_t v, uint16_t port, void *arg)
{
	struct fs_fill *f = arg;

	if (dcn_topo_failset_add_link(f->fs, v, port) == 0)
		f->added++;
}

/* Compile node n's table from what it knows, and publish it. */
int
dcnfwd_failover_rebuild(struct dcnfwd *d, uint32_t ni)
{
	struct dcnfwd_node *n = &d->node[ni];
	uint32_t v[DCN_LINK_LSA_MAX];
	uint16_t port[DCN_LINK_LSA_MAX];
	struct fs_fill fill = { NULL, 0 };
	struct dcn_router *r;
	unsigned int k, own;
	char err[256];

	fill.fs = dcn_topo_failset_create(d->t);
	if (fill.fs == NULL)
		return -ENOMEM;
	own = dcnfwd_own_down(d, n, v, port, DCN_LINK_LSA_MAX);
	for (k = 0; k < own; k++)
		fs_add(v[k], port[k], &fill);
	dcn_link_db_foreach(n->lsdb, fs_add, &fill);
	n->n_down = fill.added;
	if (fill.added == 0) {
		/* Nothing known down: the fault-free router of the process. */
		dcn_topo_failset_free(fill.fs);
		return dcnfwd_fib_publish(d, ni, d->r, 0, NULL);
	}
	r = dcn_router_for_failures(d->t, &d->rconf, fill.fs, err, sizeof(err));
	if (r == NULL) {
		DCNFWD_LOG(ERR, "node %s: routing with failures: %s\n", n->name, err);
		dcn_topo_failset_free(fill.fs);
		return -EINVAL;
	}
	return dcnfwd_fib_publish(d, ni, r, 1, fill.fs);
}

/* --- setup and the control tick --- */

int
dcnfwd_failover_setup(struct dcnfwd *d)
{
	uint64_t us = dcnfwd_us_of_tsc(d, rte_rdtsc());
	unsigned int i, l;

	d->lconf.hello_us = (uint64_t)d->hello_interval_ms * 1000;
	dcn_link_conf_defaults(&d->lconf);
	d->lsa_hops = dcn_route_lsa_hops(d->r);
	/* Silence counts from the first tick: until then no hello could be
	 * sent or taken (workers and the run loop are still starting). */
	d->last_tick_us = us;
	if (dcnfwd_fib_setup(d) != 0)
		return -ENOMEM;
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		n->lsdb = dcn_link_db_create(dcn_topo_vertices(d->t));
		if (n->lsdb != NULL && d->auth != NULL)
			dcn_link_db_ordered(n->lsdb);
		if (n->lsdb == NULL)
			return -ENOMEM;
		if (n->nbrs.slot != NULL) {
			n->nbr_link = calloc(n->nbrs.mask + 1, sizeof(*n->nbr_link));
			n->nbr_vport = calloc(n->nbrs.mask + 1, sizeof(*n->nbr_vport));
			n->nbr_mac = calloc(n->nbrs.mask + 1, sizeof(*n->nbr_mac));
			n->nbr_guard = calloc(n->nbrs.mask + 1, sizeof(*n->nbr_guard));
			if (n->nbr_link == NULL || n->nbr_vport == NULL ||
			    n->nbr_mac == NULL || n->nbr_guard == NULL)
				return -ENOMEM;
			for (l = 0; l <= n->nbrs.mask; l++) {
				const struct dcn_fwd_nbr *e = &n->nbrs.slot[l];
				int64_t sw;
				struct dcn_adj a[DCN_FWD_MAX_FABRIC_PORTS];
				unsigned int k, deg;

				dcn_link_init(&n->nbr_link[l], &d->lconf, us);
				if (e->vertex == DCN_FWD_NBR_EMPTY)
					continue;
				/* Its port on the switch we share, for naming
				 * its cable before its first hello. */
				sw = dcn_topo_port_peer(d->t, n->vertex, e->fabric_port);
				deg = dcn_topo_adj(d->t, e->vertex, a);
				for (k = 0; k < deg; k++)
					if ((int64_t)a[k].peer == sw)
						n->nbr_vport[l] = a[k].port;
			}
		}
	}
	dcnfwd_links_setup(d, us);
	return 0;
}

void
dcnfwd_failover_teardown(struct dcnfwd *d)
{
	unsigned int i;

	dcnfwd_links_teardown(d);
	for (i = 0; d->node != NULL && i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		dcn_link_db_free(n->lsdb);
		n->lsdb = NULL;
		free(n->nbr_link);
		free(n->nbr_vport);
		free(n->nbr_mac);
		free(n->nbr_guard);
		n->nbr_mac = NULL;
		n->nbr_guard = NULL;
		n->nbr_link = NULL;
		n->nbr_vport = NULL;
	}
	dcnfwd_fib_teardown(d);
}
