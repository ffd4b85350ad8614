/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failover, on the control thread: a node's table compiled again from
 * what it knows and published by RCU, and the liveness of the neighbours
 * behind its switch ports (its own ports' is links.c's).
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
static int
rebuild(struct dcnfwd *d, uint32_t ni)
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

static void
nbr_event(struct dcnfwd *d, uint32_t ni, uint32_t slot, enum dcn_link_event ev)
{
	struct dcnfwd_node *n = &d->node[ni];
	struct dcn_fwd_nbr *e = &n->nbrs.slot[slot];

	if (ev == DCN_LINK_EV_NONE)
		return;
	if (ev == DCN_LINK_EV_DOWN) {
		/* Down first, then no MAC: a worker that sees no MAC knows
		 * why, and picks another candidate. */
		__atomic_store_n(&e->down, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&e->mac, 0, __ATOMIC_RELEASE);
	} else if (n->nbr_mac[slot] != 0) {
		/* Back up: credits start over with its next credit frame
		 * (what it sent while down was lost), then the MAC of its
		 * last hello, then not down. */
		int link = n->fcdp != NULL ? dcn_fc_dp_nbr_link(n->fcdp, e) : -1;

		if (link >= 0)
			dcn_fc_link_restart(n->fc, (uint16_t)link);
		__atomic_store_n(&e->mac, n->nbr_mac[slot], __ATOMIC_RELEASE);
		__atomic_store_n(&e->down, 0, __ATOMIC_RELEASE);
	}
	n->dirty = 1;
	n->lsa_due = 1;
	dcnfwd_event(d, ev == DCN_LINK_EV_DOWN ? EV_NBR_DOWN : EV_NBR_UP, ni, -1,
		     e->vertex, n->nbr_link[slot].cause, 0);
}

void
dcnfwd_failover_hello(struct dcnfwd *d, struct dcnfwd_port *p, uint32_t v,
		      uint16_t vport, const struct rte_ether_addr *mac,
		      uint64_t now)
{
	struct dcnfwd_node *n = &d->node[p->owner_idx];
	uint64_t us = dcnfwd_us_of_tsc(d, now);

	dcnfwd_port_event(d, p, dcn_link_hello(&p->link, &d->lconf, us));
	if (n->nbr_link != NULL) {
		struct dcn_fwd_nbr *e = dcn_fwd_nbr_find(&n->nbrs, v,
							 (uint16_t)p->fabric_port);

		if (e != NULL) {
			uint32_t slot = (uint32_t)(e - n->nbrs.slot);

			n->nbr_vport[slot] = vport;
			n->nbr_mac[slot] = 0;
			memcpy(&n->nbr_mac[slot], mac, RTE_ETHER_ADDR_LEN);
			nbr_event(d, p->owner_idx, slot,
				  dcn_link_hello(&n->nbr_link[slot], &d->lconf, us));
		}
	}
}

/* May the neighbour in this slot be used (its MAC handed to workers)? */
int
dcnfwd_nbr_usable(const struct dcnfwd_node *n, uint32_t slot)
{
	return n->nbr_link == NULL || dcn_link_usable(&n->nbr_link[slot]);
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

/* This thread could neither send nor take hellos for us microseconds,
 * up to now. */
static void
observer_away(struct dcnfwd *d, uint64_t us, uint64_t now)
{
	unsigned int i, l;

	for (i = 0; i < d->n_ports; i++)
		if (dcnfwd_port_is_fabric(&d->port[i]))
			dcn_link_observer_away(&d->port[i].link, us, now);
	for (i = 0; i < d->n_nodes; i++)
		for (l = 0; d->node[i].nbr_link != NULL && l <= d->node[i].nbrs.mask; l++)
			dcn_link_observer_away(&d->node[i].nbr_link[l], us,
					       now);
}

/* When the switch port that reaches neighbour slot of node n was last
 * read to empty (us), or now where no port is found. */
static uint64_t
nbr_read_us(const struct dcnfwd *d, const struct dcnfwd_node *n, uint32_t slot,
	    uint64_t now)
{
	uint16_t fp = n->nbrs.slot[slot].fabric_port;
	unsigned int l;

	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];

		if (dcnfwd_port_is_fabric(p) && p->fabric_port == fp)
			return p->read_us;
	}
	return now;
}

void
dcnfwd_failover_tick(struct dcnfwd *d, uint64_t now)
{
	uint64_t us = dcnfwd_us_of_tsc(d, now);
	unsigned int i, l;
	int away = 0;

	if (d->rcu == NULL)
		return;
	/* The observer is this thread, which sends and takes hellos, and the
	 * workers, which carry them. Ticks come every millisecond or so: a
	 * longer gap is this thread away (compiling tables, or not
	 * scheduled); a worker that has not looped for longer than its
	 * longest idle sleep (twice, and a millisecond) was not scheduled
	 * either. Either way the gap is nobody's silence. */
	for (i = 0; i < d->n_workers; i++) {
		struct dcnfwd_worker *w = &d->worker[i];
		uint64_t loops = __atomic_load_n(&w->loops, __ATOMIC_RELAXED);

		if (loops != w->loops_seen) {
			w->loops_seen = loops;
			w->loops_seen_us = us;
		} else if (us - w->loops_seen_us > 2ull * d->idle_sleep_us + 1000) {
			away = 1;
		}
	}
	if (us - d->last_tick_us > d->lconf.hello_us || away)
		observer_away(d, us - d->last_tick_us, us);
	d->last_tick_us = us;
	dcnfwd_links_tick(d, now, us);
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		for (l = 0; n->nbr_link != NULL && l <= n->nbrs.mask; l++)
			if (n->nbrs.slot[l].vertex != DCN_FWD_NBR_EMPTY)
				nbr_event(d, i, l,
					  dcn_link_tick_read(&n->nbr_link[l], &d->lconf,
							     us, nbr_read_us(d, n, l, us)));
	}
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		dcnfwd_lsa_age(d, n, now);
		if (n->dirty) {
			n->dirty = 0;
			if (rebuild(d, i) != 0)
				n->dirty = 1; /* try again next tick */
		}
		if (d->lsa_hops > 0 &&
		    (n->lsa_due || (n->lsa_refresh_tsc && now >= n->lsa_refresh_tsc)))
			dcnfwd_lsa_originate(d, n, now);
	}
	dcnfwd_fib_reclaim(d);
}
