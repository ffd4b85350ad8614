/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the process (setup.h has the order): nodes, ports and queues,
 * flow-control state, workers.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "fib.h"
#include "setup.h"
#include "worker.h"
#include "xdp.h"

#define CTL_TX_RING_SIZE 256
#define CTL_RX_RING_SIZE 4096u

int
dcnfwd_make_router(struct dcnfwd *d)
{
	char err[256];

	/* Per-port arrays (lib/fwd's, the hello checks') hold this many. */
	if (dcn_topo_max_degree(d->t) > DCN_FWD_MAX_FABRIC_PORTS) {
		DCNFWD_LOG(CRIT, "%s: a vertex has more than %u ports\n",
			dcn_topo_spec(d->t), DCN_FWD_MAX_FABRIC_PORTS);
		return -EINVAL;
	}
	/* A relay's router while it knows nothing down (lib/route: TFR on
	 * Totoro, which routes fresh frames as TRA does). */
	d->r = dcn_router_for_failures(d->t, &d->rconf, NULL, err, sizeof(err));
	if (d->r == NULL) {
		DCNFWD_LOG(CRIT, "routing: %s\n", err);
		return -EINVAL;
	}
	/* Queues for every VC the routing's rule uses (lib/route/README.md,
	 * "Virtual channels"), or the fewer the configuration asked for. */
	d->fcc.n_vcs = dcn_route_vcs(d->r);
	d->topo_hash = dcn_fabric_topo_hash(dcn_topo_spec(d->t));
	d->node_of_vertex = malloc(dcn_topo_vertices(d->t) * sizeof(uint32_t));
	if (d->node_of_vertex == NULL)
		return -ENOMEM;
	memset(d->node_of_vertex, 0xff,
	       dcn_topo_vertices(d->t) * sizeof(uint32_t));
	return 0;
}

int
dcnfwd_node_add(struct dcnfwd *d, uint32_t v)
{
	struct dcnfwd_node *n = &d->node[d->n_nodes];

	memset(n, 0, sizeof(*n));
	n->vertex = v;
	n->addr = dcn_topo_addr(d->t, v);
	n->host_local = -1;
	dcn_topo_format_vertex(d->t, v, n->name, sizeof(n->name));
	if (dcnfwd_fib_first(d, n) != 0) {
		DCNFWD_LOG(CRIT, "cannot compile the table of %s\n", n->name);
		return -ENOMEM;
	}
	if (dcn_fwd_nbrs_init(&n->nbrs, d->t, v) != 0)
		return -ENOMEM;
	d->node_of_vertex[v] = d->n_nodes;
	return (int)d->n_nodes++;
}

/*
 * A relay's rings are DPDK's own (rte_ring_create: listed, found by
 * rte_ring_lookup, shown by rte_ring_list_dump, a memzone each). An
 * emulated fabric's come from the heap instead (listed 0): it has a ring
 * per cable direction and per port, and 512 NovaCube nodes need about
 * 7,700 of them, three times DPDK's RTE_MAX_MEMZONE (2,560).
 */
struct rte_ring *
dcnfwd_ring_make(const char *what, unsigned int a, unsigned int b,
		 unsigned int size, unsigned int flags, int listed)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;
	ssize_t bytes;

	snprintf(name, sizeof(name), "dcn_%s_%u_%u", what, a, b);
	if (listed)
		return rte_ring_create(name, size, (int)rte_socket_id(), flags);

	/* The slots rte_ring_create would reserve for size and flags. */
	bytes = rte_ring_get_memsize(flags & RING_F_EXACT_SZ ?
				     rte_align32pow2(size + 1) : size);
	if (bytes < 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	r = rte_zmalloc_socket(NULL, (size_t)bytes, RTE_CACHE_LINE_SIZE,
			       (int)rte_socket_id());
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (rte_ring_init(r, name, size, flags) != 0) {
		rte_free(r);
		return NULL;
	}
	return r;
}

int
dcnfwd_port_add(struct dcnfwd *d, enum dcnfwd_owner owner, uint32_t owner_idx,
		int fabric_port, int is_host, const char *name)
{
	struct dcnfwd_port *p;
	uint32_t pi = d->n_ports;

	if (pi == d->max_ports)
		return -ENOSPC;
	p = &d->port[pi];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->owner = owner;
	p->socket = -1;
	p->owner_idx = owner_idx;
	p->fabric_port = (int16_t)fabric_port;
	p->is_host = (uint8_t)is_host;
	p->dp.nb_rxq = p->dp.nb_txq = 1;
	p->peer_vertex = UINT32_MAX;
	p->fc_owner = UINT32_MAX;
	p->cable_peer = -1;
	p->ctl_tx = dcnfwd_ring_make("ctl", pi, 0, CTL_TX_RING_SIZE,
				     RING_F_SP_ENQ | RING_F_SC_DEQ, d->emulate == NULL);
	if (p->ctl_tx == NULL)
		return -ENOMEM;
	if (owner == OWNER_NODE) {
		struct dcnfwd_node *n = &d->node[owner_idx];

		if (n->n_ports == DCN_FWD_MAX_PORTS)
			return -ENOSPC;
		p->local = n->n_ports;
		n->port[n->n_ports++] = pi;
		if (fabric_port < 0 && n->host_local < 0)
			n->host_local = p->local;
	} else if (owner == OWNER_SWITCH) {
		struct dcnfwd_switch *s = &d->sw[owner_idx];

		p->local = s->n_ports;
		s->port[s->n_ports++] = pi;
	} else {
		d->host[owner_idx].port = pi;
	}
	d->n_ports++;
	return (int)pi;
}

int
dcnfwd_alloc_tables(struct dcnfwd *d, unsigned int nodes, unsigned int ports)
{
	d->node = calloc(nodes ? nodes : 1, sizeof(*d->node));
	d->port = calloc(ports, sizeof(*d->port));
	d->max_ports = ports;
	/* Every fabric port brings a hello an interval: room for eight
	 * intervals of all of them, should this thread fall behind. */
	d->ctl_rx = dcnfwd_ring_make("ctlrx", 0, 0,
				     RTE_MAX(CTL_RX_RING_SIZE,
					     rte_align32pow2(8 * ports)),
				     RING_F_SC_DEQ, d->emulate == NULL);
	if (d->node == NULL || d->port == NULL || d->ctl_rx == NULL)
		return -ENOMEM;
	return 0;
}


unsigned int
dcnfwd_workers_planned(const struct dcnfwd *d)
{
	unsigned int lcore, n = 0;

	if (d->conf_file != NULL)
		return d->conf.n_workers;
	RTE_LCORE_FOREACH_WORKER(lcore)
		n++;
	return RTE_MIN(n, (unsigned int)DCNFWD_MAX_WORKERS);
}

int
dcnfwd_workers_create(struct dcnfwd *d, unsigned int n)
{
	unsigned int lcore, i = 0;

	d->n_workers = n;
	d->worker = rte_zmalloc("dcn_workers", n * sizeof(*d->worker),
				RTE_CACHE_LINE_SIZE);
	if (d->worker == NULL)
		return -ENOMEM;
	/* A configuration names each worker's lcore, enabled or not (the
	 * check below names a missing one); else EAL's workers in order. */
	if (d->conf_file != NULL) {
		for (i = 0; i < n; i++)
			d->worker[i].lcore = d->conf.worker[i].lcore;
	} else {
		RTE_LCORE_FOREACH_WORKER(lcore) {
			if (i == n)
				break;
			d->worker[i++].lcore = lcore;
		}
	}
	for (i = 0; i < n; i++) {
		struct dcnfwd_worker *w = &d->worker[i];
		int socket;

		if (d->conf_file != NULL && !rte_lcore_is_enabled(w->lcore)) {
			DCNFWD_LOG(CRIT, "%s: [worker] lcore %u is not in "
				"EAL's lcore list (-l)\n", d->conf.file, w->lcore);
			return -EINVAL;
		}
		if (d->conf_file != NULL && w->lcore == rte_get_main_lcore()) {
			DCNFWD_LOG(CRIT, "%s: [worker] lcore %u is the main "
				"lcore, which runs the control thread\n",
				d->conf.file, w->lcore);
			return -EINVAL;
		}
		/* What the worker writes for every frame, on its own node. */
		socket = (int)rte_lcore_to_socket_id(w->lcore);
		w->d = d;
		w->idx = i;
		w->rx = calloc(d->n_ports * DCN_CONF_MAX_QUEUES, sizeof(*w->rx));
		w->rx_read_tsc = calloc(d->n_ports * DCN_CONF_MAX_QUEUES,
					sizeof(*w->rx_read_tsc));
		w->node = calloc(d->n_nodes, sizeof(*w->node));
		w->served = calloc(d->n_nodes, sizeof(*w->served));
		w->pst = rte_zmalloc_socket("dcn_pst", d->n_ports * sizeof(*w->pst),
					    RTE_CACHE_LINE_SIZE, socket);
		w->txb = rte_zmalloc_socket("dcn_txb", d->n_ports * sizeof(*w->txb),
					    RTE_CACHE_LINE_SIZE, socket);
		w->dirty = calloc(d->n_ports, sizeof(*w->dirty));
		w->ctl_ports = calloc(d->n_ports, sizeof(*w->ctl_ports));
		w->fc_ports = calloc(d->n_ports, sizeof(*w->fc_ports));
		w->fc_sends = calloc(d->n_ports, sizeof(*w->fc_sends));
		w->fc_lanes = calloc(d->n_ports * DCN_CONF_MAX_QUEUES,
				     sizeof(*w->fc_lanes));
		w->fc_slot = calloc(d->n_ports * (DCN_CONF_MAX_QUEUES + 2),
				    sizeof(*w->fc_slot));
		if (w->rx == NULL || w->rx_read_tsc == NULL || w->node == NULL || w->served == NULL ||
		    w->pst == NULL || w->txb == NULL || w->dirty == NULL ||
		    w->ctl_ports == NULL || w->fc_ports == NULL || w->fc_sends == NULL ||
		    w->fc_lanes == NULL || w->fc_slot == NULL)
			return -ENOMEM;
		if (d->fc_on &&
		    dcn_fc_worker_init(&w->fcw, i, DCN_FC_MAX_CHANS) != 0)
			return -ENOMEM;
	}
	return 0;
}

/* Worker w's share of node ni: a forwarding context on the node's table
 * in force, its ports and neighbours, a route cache. */
static int
wnode_make(struct dcnfwd *d, struct dcnfwd_worker *w, uint32_t ni)
{
	const struct dcnfwd_node *n = &d->node[ni];
	/* The worker's per-frame state, on its own node. */
	int socket = (int)rte_lcore_to_socket_id(w->lcore);
	struct dcnfwd_wnode *wn = rte_zmalloc_socket("dcn_wnode", sizeof(*wn),
						     RTE_CACHE_LINE_SIZE, socket);
	struct dcn_fwd_ctx *c = rte_zmalloc_socket("dcn_fwd_ctx", sizeof(*c),
						   RTE_CACHE_LINE_SIZE, socket);
	uint16_t l;

	w->node[ni] = wn;
	if (wn == NULL || c == NULL) {
		rte_free(c);
		return -ENOMEM;
	}
	wn->fwd = c;
	if (dcn_fwd_init(c, n->fib->tab.r, n->fib->tab.tb, d->ethertype,
			 d->per_packet) != 0)
		return -EINVAL;
	/* ether format: a neighbour's frames in udp are told apart */
	if (d->conf.encap != DCN_ENCAP_UDP)
		c->udp_port = (uint16_t)d->conf.udp_port;
	dcn_fwd_refresh(c, &n->fib->tab);
	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *lp = &d->port[n->port[l]];

		if (dcn_fwd_add_port(c, lp->fabric_port, lp->is_host,
				     &n->mac[l]) != l)
			return -EINVAL;
	}
	dcn_fwd_set_nbrs(c, &n->nbrs);
	if (d->route_cache != 0) {
		void *mem = rte_malloc_socket("dcn_route_cache",
					      dcn_fwd_cache_bytes(d->route_cache),
					      RTE_CACHE_LINE_SIZE, socket);

		if (mem == NULL)
			return -ENOMEM;
		dcn_fwd_set_cache(c, mem, d->route_cache);
	}
	if (n->nbrs.slot != NULL) {
		c->nbr_frames = rte_zmalloc_socket("dcn_nbr_frames",
						   (n->nbrs.mask + 1) * sizeof(uint64_t),
						   RTE_CACHE_LINE_SIZE, socket);
		if (c->nbr_frames == NULL)
			return -ENOMEM;
	}
	w->served[w->n_served++] = ni;
	return 0;
}

int
dcnfwd_worker_add_rxq(struct dcnfwd *d, struct dcnfwd_worker *w, uint32_t pi,
		      uint16_t q, dcnfwd_rx_fn rx)
{
	const struct dcnfwd_port *p = &d->port[pi];

	w->rx[w->n_rx].port = pi;
	w->rx[w->n_rx].queue = q;
	w->rx[w->n_rx++].rx = rx;
	if (p->owner == OWNER_NODE && w->node[p->owner_idx] == NULL)
		return wnode_make(d, w, p->owner_idx);
	return 0;
}

int
dcnfwd_workers_from_conf(struct dcnfwd *d)
{
	unsigned int i, k;
	int ret;

	for (i = 0; i < d->n_workers; i++) {
		const struct dcn_conf_worker *cw = &d->conf.worker[i];
		int ls = (int)rte_lcore_to_socket_id(d->worker[i].lcore);

		for (k = 0; k < cw->n_rx; k++) {
			const struct dcnfwd_port *p = &d->port[cw->rx[k].port];

			ret = dcnfwd_worker_add_rxq(d, &d->worker[i], cw->rx[k].port,
						    cw->rx[k].queue, dcnfwd_node_rx);
			if (ret != 0)
				return ret;
			/* It works; every frame crosses between sockets. */
			if (p->socket >= 0 && ls != p->socket && cw->rx[k].queue == 0)
				DCNFWD_LOG(WARNING, "worker %u on lcore %u (NUMA node "
					   "%d) polls port %s, of node %d: its frames "
					   "cross between sockets; give it an lcore of "
					   "node %d\n", i, d->worker[i].lcore, ls,
					   p->name, p->socket, p->socket);
		}
	}
	/* A worker that polls nothing only holds its lcore: say so. */
	for (i = 0; i < d->n_workers; i++)
		if (d->worker[i].n_rx == 0)
			DCNFWD_LOG(WARNING, "worker %u polls nothing\n", i);
	return 0;
}

/*
 * Several senders on port i (lib/fc/README.md, "Several senders a
 * port"): with lanes, each worker that routes for the port's node, after
 * the owner, sends what it routes there itself, on its own TX queue,
 * while there are lanes (and fc_senders allows). Only where every worker
 * has a TX queue of its own on the port (an emulated cable's rings take
 * any number of senders); elsewhere the owner sends all.
 */
static int
give_senders(struct dcnfwd *d, unsigned int i)
{
	struct dcnfwd_port *p = &d->port[i];
	struct dcn_fc_dp *dp;
	unsigned int wi, k = 1, most;

	if (p->owner != OWNER_NODE || p->fc_owner == UINT32_MAX)
		return 0;
	dp = d->node[p->owner_idx].fcdp;
	most = d->fc_senders ? RTE_MIN(d->fc_senders, dp->fn->n_lanes) : dp->fn->n_lanes;
	if (most < 2 || (p->dp.is_ethdev && p->dp.nb_txq < d->n_workers))
		return 0;
	for (wi = 0; wi < d->n_workers && k < most; wi++) {
		struct dcnfwd_worker *w = &d->worker[wi];

		/* A worker has the node's context once it polls one of
		 * its ports (dcnfwd_worker_add_rxq): it routes lanes of it. */
		if (wi == p->fc_owner || w->node[p->owner_idx] == NULL)
			continue;
		if (dcn_fc_dp_set_sender(dp, &w->node[p->owner_idx]->fc, p->local,
					 (uint8_t)k++) != 0)
			return -1;
		w->fc_sends[w->n_fc_sends++] = i;
	}
	if (k > 1)
		DCNFWD_LOG(INFO, "port %s: %u senders\n", p->name, k);
	return 0;
}

int
dcnfwd_workers_finish(struct dcnfwd *d)
{
	unsigned int i, k, ni;

	/* Each port's control frames go out through the worker that polls
	 * its RX queue 0, else the first that polls it (any worker owns a
	 * TX queue of every port); it also sends the port's flow-control
	 * output queues and announces its credits. Each RX queue's poller
	 * routes that queue's lane (lib/fc/README.md, "lanes"). With one RX
	 * queue, the credit frames reach the worker that keeps the input
	 * queues, in order with the data before them, as lost-frame repair
	 * by count needs. */
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		unsigned int wi, found = 0, first = UINT_MAX, q0 = UINT_MAX;

		for (wi = 0; wi < d->n_workers; wi++)
			for (k = 0; k < d->worker[wi].n_rx; k++) {
				const struct dcnfwd_rxq *r = &d->worker[wi].rx[k];

				if (r->port != i)
					continue;
				first = RTE_MIN(first, wi);
				if (r->queue == 0)
					q0 = RTE_MIN(q0, wi);
			}
		found = first != UINT_MAX;
		wi = q0 != UINT_MAX ? q0 : found ? first : 0;
		d->worker[wi].ctl_ports[d->worker[wi].n_ctl_ports++] = i;
		p->ctl_worker = wi;
		/* The same worker sends the port's output queues; each RX
		 * queue's poller routes its lane of the input queues. */
		if (d->fc_on && p->owner == OWNER_NODE && found) {
			struct dcn_fc_dp *dp = d->node[p->owner_idx].fcdp;

			d->worker[wi].fc_ports[d->worker[wi].n_fc_ports++] = i;
			p->fc_owner = wi;
			dcn_fc_dp_set_port(dp, p->local, &p->dp, wi);
			for (wi = 0; wi < d->n_workers; wi++)
				for (k = 0; k < d->worker[wi].n_rx; k++) {
					struct dcnfwd_worker *w = &d->worker[wi];

					if (w->rx[k].port != i)
						continue;
					dcn_fc_dp_set_lane(dp, p->local, w->rx[k].queue, wi);
					/* Read no further than the input
					 * queue's room where the port counts
					 * what it then leaves (a NIC's
					 * imissed, a TAP's tx_dropped, a packet
					 * socket's drops, a ring's refusals);
					 * an AF_XDP socket's full ring is
					 * counted nowhere dcnfwd reads, so
					 * there what does not fit is read and
					 * counted as in_drop. */
					if (dp->fn->kind[p->local] == DCN_FC_PORT_HOST &&
					    !dcnfwd_is_af_xdp(p->dev))
						w->rx[k].host_in = dcn_fc_lane(
							dp->fn, dcn_fc_port_chan0(dp->fn, p->local),
							w->rx[k].queue);
					w->fc_lanes[w->n_fc_lanes].port = i;
					w->fc_lanes[w->n_fc_lanes++].lane = w->rx[k].queue;
				}
		}
	}
	for (i = 0; d->fc_on && i < d->n_workers; i++) {
		struct dcnfwd_worker *w = &d->worker[i];

		for (ni = 0; ni < d->n_nodes; ni++) {
			struct dcnfwd_wnode *wn = w->node[ni];

			if (wn == NULL)
				continue;
			wn->fc.dp = d->node[ni].fcdp;
			wn->fc.w = &w->fcw;
			wn->fc.fwd = wn->fwd;
			/* Flow control's queues keep what bounces twice. */
			wn->fwd->park = 1;
		}
	}
	for (i = 0; d->fc_on && i < d->n_ports; i++)
		if (give_senders(d, i) != 0)
			return -EINVAL;
	return 0;
}

static void
ring_drain_free(struct rte_ring *r)
{
	struct rte_mbuf *m;

	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	/* dcnfwd_ring_make's: DPDK's (a memzone of its own) or the heap's */
	if (r->memzone != NULL)
		rte_ring_free(r);
	else
		rte_free(r);
}

static void
worker_free(struct dcnfwd *d, struct dcnfwd_worker *w)
{
	unsigned int k;

	for (k = 0; w->node && k < d->n_nodes; k++) {
		struct dcnfwd_wnode *wn = w->node[k];

		if (wn == NULL)
			continue;
		if (wn->fwd != NULL) {
			rte_free(wn->fwd->nbr_frames);
			rte_free(wn->fwd->cache);
		}
		rte_free(wn->fwd);
		rte_free(wn);
	}
	free(w->rx);
	free(w->rx_read_tsc);
	free(w->node);
	free(w->served);
	rte_free(w->pst);
	rte_free(w->txb);
	free(w->dirty);
	free(w->ctl_ports);
	free(w->fc_ports);
	free(w->fc_sends);
	free(w->fc_lanes);
	free(w->fc_slot);
	free(w->hosts);
	dcn_fc_worker_fini(&w->fcw);
}

void
dcnfwd_teardown(struct dcnfwd *d)
{
	unsigned int i, k;

	dcn_auth_free(d->auth);
	d->auth = NULL;
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];

		if (p->dp.is_ethdev) {
			if (p->pmd_kept_mbufs)
				dcnfwd_xdp_reap_tx(d, p);
			rte_eth_dev_stop(p->dp.ethdev);
			rte_eth_dev_close(p->dp.ethdev);
			dcnfwd_xdp_port_stop(p);
		}
		dcnfwd_encap_free(p);
		dcn_port_impair_free(p->dp.impair);
		p->dp.impair = NULL;
		ring_drain_free(p->ctl_tx);
		/* Each cable ring is some port's rx ring exactly once. */
		for (k = 0; k < DCN_PORT_RING_QUEUES; k++)
			ring_drain_free(p->dp.rx_ring[k]);
	}
	ring_drain_free(d->ctl_rx);
	for (i = 0; d->worker && i < d->n_workers; i++)
		worker_free(d, &d->worker[i]);
	rte_free(d->worker);
	for (i = 0; i < d->n_nodes; i++) {
		dcn_fc_node_free(d->node[i].fc);
		if (d->node[i].fcdp != NULL)
			dcn_fc_dp_release(d->node[i].fcdp);
		rte_free(d->node[i].fcdp);
		dcnfwd_fib_free(d->node[i].fib);
		dcn_fwd_nbrs_free(&d->node[i].nbrs);
	}
	/* Every mbuf is home now but those net_af_xdp keeps: what else is
	 * out was leaked. */
	for (i = 0; i < d->n_ports; i++)
		d->mbufs_pmd_kept += d->port[i].pmd_kept_mbufs;
	if (d->mp != NULL) {
		unsigned int out = rte_mempool_in_use_count(d->mp);

		for (i = 0; i < DCN_NUMA_MAX; i++)
			if (d->mp_socket[i] != NULL && d->mp_socket[i] != d->mp)
				out += rte_mempool_in_use_count(d->mp_socket[i]);
		d->mbufs_leaked = out > d->mbufs_pmd_kept ? out - d->mbufs_pmd_kept : 0;
	}
	if (d->ctl_mp != NULL && d->ctl_mp != d->mp)
		d->mbufs_leaked += rte_mempool_in_use_count(d->ctl_mp);
	for (i = 0; i < DCN_NUMA_MAX; i++)
		if (d->mp_socket[i] != d->mp)
			rte_mempool_free(d->mp_socket[i]);
	if (d->ctl_mp != d->mp)
		rte_mempool_free(d->ctl_mp);
	rte_mempool_free(d->mp);
	free(d->node);
	free(d->port);
	free(d->node_of_vertex);
	dcn_router_free(d->r);
	dcn_topo_free(d->t);
}
