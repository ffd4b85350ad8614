/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building and running the parts of an emulated fabric that a real one
 * has outside dcnfwd: cables (ring pairs, optionally of a limited rate),
 * L2 switches, and hosts.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_emu

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "dcn_port_rss.h"

#include "emu_fabric.h"
#include "emu_hosts.h"
#include "events.h"
#include "links.h"
#include "setup.h"
#include "worker.h"

/* A locally administered MAC that names its owner and port. */
static void
emu_mac(struct rte_ether_addr *m, enum dcnfwd_owner o, uint32_t idx,
	uint16_t local)
{
	m->addr_bytes[0] = 0x02;
	m->addr_bytes[1] = (uint8_t)(1 + o);
	m->addr_bytes[2] = (uint8_t)(idx >> 16);
	m->addr_bytes[3] = (uint8_t)(idx >> 8);
	m->addr_bytes[4] = (uint8_t)idx;
	m->addr_bytes[5] = (uint8_t)local;
}

/* A node's or a host's port has a lane per RX queue (--lanes), each
 * polled by its own worker. */
static void
emu_lanes(const struct dcnfwd *d, struct dcnfwd_port *p)
{
	if (d->emu.lanes > 1)
		p->dp.nb_rxq = p->dp.nb_txq = (uint16_t)d->emu.lanes;
}

/* The end of a cable at (v, port): the port it becomes. */
static int
emu_endpoint(struct dcnfwd *d, uint32_t v, uint16_t port, uint32_t *host_of)
{
	char name[96], vname[DCN_TOPO_NAME_LEN];
	enum dcn_vertex_role role = dcn_topo_role(d->t, v);
	int pi;

	dcn_topo_format_vertex(d->t, v, vname, sizeof(vname));
	snprintf(name, sizeof(name), "%s:%u", vname, port);
	if (dcn_topo_is_router(d->t, v)) {
		/* A Diamond switch port facing a server is a host port. */
		int64_t peer = dcn_topo_port_peer(d->t, v, port);
		int host = peer >= 0 &&
			   dcn_topo_role(d->t, (uint32_t)peer) == DCN_ROLE_SERVER &&
			   !dcn_topo_is_router(d->t, (uint32_t)peer);

		pi = dcnfwd_port_add(d, OWNER_NODE, d->node_of_vertex[v], port, host,
				     name);
	} else if (role == DCN_ROLE_SWITCH) {
		uint32_t s;

		for (s = 0; s < d->n_switches; s++)
			if (d->sw[s].vertex == v)
				break;
		pi = dcnfwd_port_add(d, OWNER_SWITCH, s, port, 0, name);
	} else {
		pi = dcnfwd_port_add(d, OWNER_HOST, host_of[v], port, 1, name);
	}
	if (pi >= 0) {
		struct dcnfwd_port *p = &d->port[pi];

		emu_mac(&p->mac, p->owner, p->owner_idx, p->local);
		if (p->owner == OWNER_NODE)
			d->node[p->owner_idx].mac[p->local] = p->mac;
		if (p->owner != OWNER_SWITCH)
			emu_lanes(d, p);
	}
	return pi;
}

/* The ring a cable end sends into: a switch port's is its egress buffer,
 * of the size set (frames beyond it are dropped and counted as the
 * port's tx_drop); anything else's is the wire, which a sender's port
 * fills no further than its TX ring would. */
static struct rte_ring *
emu_wire(const struct dcnfwd *d, int from, unsigned int id, unsigned int dir)
{
	if (d->port[from].owner == OWNER_SWITCH)
		return dcnfwd_ring_make("cab", id, dir,
					dcnfwd_emu_switch_buffer(d),
					RING_F_SC_DEQ | RING_F_EXACT_SZ, 0);
	return dcnfwd_ring_make("cab", id, dir, DCNFWD_EMU_WIRE_FRAMES, RING_F_SC_DEQ, 0);
}

/* Where port p's owner comes in the order workers are given out: nodes,
 * switches, hosts. */
static unsigned int
emu_seq(const struct dcnfwd *d, const struct dcnfwd_port *p)
{
	return p->owner == OWNER_NODE ? p->owner_idx :
	       p->owner == OWNER_SWITCH ? d->n_nodes + p->owner_idx :
					  d->n_nodes + d->n_switches + p->owner_idx;
}

/*
 * With --lanes: how an emulated port's NIC spreads what it receives over
 * its RX queues (dcn_port_spread), by the RETA dcnfwd gives a real NIC
 * (dcn_port_rss.h), turned by the owner's place s (emu_seq): its queue q
 * is polled by worker s + q (the owners, lane 0's routers, spread over
 * the workers), and the turn puts a flow in queue b - s, so with a lane a
 * worker every port of the flow is on worker b: the flow never changes
 * cores, as on servers whose NICs hash alike and pin queue q to one
 * core. Fabric ports spread a frame by its UDP source port, which is the
 * fabric's entropy of its flow; ports that face hosts spread plain IPv4
 * by that same entropy (by_flow), so a flow is on worker b from its
 * host's NIC on. A frame of encap = ether has no hash, as on a NIC:
 * queue 0.
 */
static void
emu_spread(const struct dcnfwd *d, struct dcnfwd_port *p)
{
	unsigned int i, lanes = p->dp.nb_rxq, turn = emu_seq(d, p) % lanes;

	dcn_port_rss_reta(p->rx_reta, RTE_DIM(p->rx_reta), lanes);
	for (i = 0; i < RTE_DIM(p->rx_reta); i++)
		p->rx_reta[i] = (uint16_t)((p->rx_reta[i] + lanes - turn) % lanes);
	p->rx_spread.reta = p->rx_reta;
	p->rx_spread.reta_size = RTE_DIM(p->rx_reta);
	p->rx_spread.by_flow = p->is_host;
}

/* The rings of a cable from port from to port to: one a RX queue of to,
 * which from's sends are spread over as to's NIC would. */
static int
emu_wires(struct dcnfwd *d, int from, int to, unsigned int id, unsigned int dir)
{
	struct dcn_port *f = &d->port[from].dp, *t = &d->port[to].dp;
	unsigned int q;

	for (q = 0; q < t->nb_rxq; q++) {
		struct rte_ring *r = emu_wire(d, from, id, dir + 2 * q);

		if (r == NULL)
			return -ENOMEM;
		f->tx_ring[q] = r;
		t->rx_ring[q] = r;
	}
	if (t->nb_rxq > 1) {
		emu_spread(d, &d->port[to]);
		f->tx_spread = &d->port[to].rx_spread;
		f->tx_queues = t->nb_rxq;
	}
	return 0;
}

static int
emu_cable(struct dcnfwd *d, int pa, int pb, unsigned int id)
{
	if (pa < 0 || pb < 0)
		return -ENOSPC;
	if (emu_wires(d, pa, pb, id, 0) != 0 || emu_wires(d, pb, pa, id, 1) != 0)
		return -ENOMEM;
	d->port[pa].cable_peer = pb;
	d->port[pb].cable_peer = pa;
	if (d->emu.link_rate > 0) {
		uint64_t per = RTE_MAX((uint64_t)((double)d->tsc_hz / d->emu.link_rate),
				       1ul);

		d->port[pa].dp.rl_per = d->port[pb].dp.rl_per = per;
	}
	/* Lossy cables inside the fabric only: a host's frames are not
	 * credited, so losing them would test nothing. */
	if (d->emu.wire_loss > 0 && d->port[pa].owner != OWNER_HOST &&
	    d->port[pb].owner != OWNER_HOST)
		d->port[pa].dp.loss_ppm = d->port[pb].dp.loss_ppm =
			(uint32_t)(d->emu.wire_loss * 10000);
	return 0;
}

int
dcnfwd_emu_build(struct dcnfwd *d, const char *spec)
{
	char err[256];
	uint32_t V, v, *host_of = NULL;
	unsigned int routers = 0, switches = 0, hosts = 0, ports = 0, cable = 0;
	struct dcn_adj *a;
	int ret = -ENOMEM;

	d->t = dcn_topo_create(spec, err, sizeof(err));
	if (d->t == NULL) {
		DCNFWD_LOG(CRIT, "--emulate %s: %s\n", spec, err);
		return -EINVAL;
	}
	V = dcn_topo_vertices(d->t);
	if (V > 4096) {
		DCNFWD_LOG(CRIT, "--emulate %s: too large to emulate in one "
			"process (at most 4096 vertices)\n", spec);
		return -EINVAL;
	}
	a = calloc(dcn_topo_max_degree(d->t), sizeof(*a));
	host_of = calloc(V, sizeof(*host_of));
	if (a == NULL || host_of == NULL)
		goto out;
	for (v = 0; v < V; v++) {
		ports += dcn_topo_ports(d->t, v);
		if (dcn_topo_is_router(d->t, v))
			routers++;
		else if (dcn_topo_role(d->t, v) == DCN_ROLE_SWITCH)
			switches++;
		if (dcn_topo_role(d->t, v) == DCN_ROLE_SERVER) {
			host_of[v] = hosts++;
			ports += 2; /* the host's NIC and, maybe, a node's host port */
		}
	}
	ret = dcnfwd_make_router(d);
	if (ret == 0)
		ret = dcnfwd_alloc_tables(d, routers, ports);
	if (ret == 0) {
		d->sw = calloc(switches ? switches : 1, sizeof(*d->sw));
		d->host = calloc(hosts ? hosts : 1, sizeof(*d->host));
		if (d->sw == NULL || d->host == NULL)
			ret = -ENOMEM;
	}
	if (ret == 0)
		/* Flow control keeps frames queued rather than dropped. */
		ret = dcnfwd_make_mempool(d, d->fc_on ? 65535 : 32767);
	if (ret != 0)
		goto out;
	d->n_hosts = hosts;
	for (v = 0; v < V && ret == 0; v++) {
		if (dcn_topo_is_router(d->t, v)) {
			ret = dcnfwd_node_add(d, v) < 0 ? -ENOMEM : 0;
		} else if (dcn_topo_role(d->t, v) == DCN_ROLE_SWITCH) {
			struct dcnfwd_switch *s = &d->sw[d->n_switches++];

			s->vertex = v;
			s->port = calloc(dcn_topo_ports(d->t, v), sizeof(uint32_t));
			if (s->port == NULL)
				ret = -ENOMEM;
		}
		if (dcn_topo_role(d->t, v) == DCN_ROLE_SERVER) {
			struct dcnfwd_host *h = &d->host[host_of[v]];

			h->vertex = v;
			h->addr = dcn_topo_addr(d->t, v);
			if (dcnfwd_emu_host_sinks(h, RTE_MAX(d->emu.lanes, 1u),
						  4 * hosts) != 0)
				ret = -ENOMEM;
		}
	}
	/* Cables, each once, from its lower end. */
	for (v = 0; v < V && ret == 0; v++) {
		unsigned int n = dcn_topo_adj(d->t, v, a), i;

		for (i = 0; i < n && ret == 0; i++) {
			int pa, pb;

			if (a[i].peer < v)
				continue;
			pa = emu_endpoint(d, v, a[i].port, host_of);
			pb = emu_endpoint(d, a[i].peer, a[i].peer_port, host_of);
			ret = emu_cable(d, pa, pb, cable++);
		}
	}
	/* A routing server's own host, behind its host port. */
	for (v = 0; v < V && ret == 0; v++) {
		char vname[DCN_TOPO_NAME_LEN], name[96];
		int pa, pb;

		if (!dcn_topo_is_router(d->t, v) ||
		    dcn_topo_role(d->t, v) != DCN_ROLE_SERVER)
			continue;
		dcn_topo_format_vertex(d->t, v, vname, sizeof(vname));
		snprintf(name, sizeof(name), "%s:host", vname);
		pa = dcnfwd_port_add(d, OWNER_NODE, d->node_of_vertex[v], -1, 1, name);
		snprintf(name, sizeof(name), "host-%s", vname);
		pb = dcnfwd_port_add(d, OWNER_HOST, host_of[v], -1, 1, name);
		if (pa >= 0 && pb >= 0) {
			struct dcnfwd_port *p = &d->port[pa];

			emu_mac(&p->mac, OWNER_NODE, p->owner_idx, p->local);
			d->node[p->owner_idx].mac[p->local] = p->mac;
			emu_lanes(d, p);
			emu_lanes(d, &d->port[pb]);
			emu_mac(&d->port[pb].mac, OWNER_HOST, host_of[v], 0);
		}
		ret = emu_cable(d, pa, pb, cable++);
	}
out:
	free(a);
	free(host_of);
	if (ret == 0)
		printf("dcnfwd: emulating %s: %u nodes, %u L2 switches, %u hosts, "
		       "%u ports\n", dcn_topo_spec(d->t), d->n_nodes,
		       d->n_switches, d->n_hosts, d->n_ports);
	return ret;
}

/* An emulated learning switch: learn the source, forward to the known
 * port or flood (broadcast, multicast, unknown unicast). */
static void
switch_rx(struct dcnfwd_worker *w, uint32_t pi, uint16_t queue, struct rte_mbuf **m,
	  uint16_t n, uint64_t now)
{
	struct dcnfwd *d = w->d;
	const struct dcnfwd_port *p = &d->port[pi];
	struct dcnfwd_switch *s = &d->sw[p->owner_idx];
	uint16_t i;

	(void)queue;
	(void)now;
	for (i = 0; i < n; i++) {
		const uint8_t *e = rte_pktmbuf_mtod(m[i], const uint8_t *);
		uint64_t dst = 0, src = 0;
		int out = -1;
		uint32_t k;

		if (rte_pktmbuf_data_len(m[i]) < 14) {
			rte_pktmbuf_free(m[i]);
			w->sw_dropped++;
			continue;
		}
		memcpy(&dst, e, 6);
		memcpy(&src, e + 6, 6);
		for (k = 0; k < s->n_macs; k++) {
			if (s->mac[k] == src)
				break;
		}
		if (k == s->n_macs && k < DCNFWD_MAX_SW_MACS) {
			s->mac[k] = src;
			s->n_macs++;
		}
		if (k < DCNFWD_MAX_SW_MACS)
			s->mac_port[k] = p->local;
		if (!(e[0] & 1)) {
			for (k = 0; k < s->n_macs; k++)
				if (s->mac[k] == dst) {
					out = s->mac_port[k];
					break;
				}
		}
		if (out >= 0) {
			if (out != p->local)
				dcnfwd_txb_add(w, s->port[out], m[i]);
			else
				rte_pktmbuf_free(m[i]);
			w->sw_forwarded++;
			continue;
		}
		for (k = 0; k < s->n_ports; k++) {
			struct rte_mbuf *c;

			if (k == p->local)
				continue;
			c = rte_pktmbuf_copy(m[i], m[i]->pool, 0, UINT32_MAX);
			if (c != NULL)
				dcnfwd_txb_add(w, s->port[k], c);
			else
				w->sw_dropped++;   /* no mbuf for this port's copy */
		}
		w->sw_flooded++;
		rte_pktmbuf_free(m[i]);
	}
}

void
dcnfwd_emu_cut(struct dcnfwd *d, uint32_t pi, int cut, int carrier_event)
{
	struct dcnfwd_port *a = &d->port[pi];
	struct dcnfwd_port *b = a->cable_peer >= 0 ? &d->port[a->cable_peer] : NULL;
	uint64_t us = dcnfwd_us_of_tsc(d, rte_rdtsc());

	__atomic_store_n(&a->dp.cut, (uint8_t)cut, __ATOMIC_RELEASE);
	if (b != NULL)
		__atomic_store_n(&b->dp.cut, (uint8_t)cut, __ATOMIC_RELEASE);
	dcnfwd_event(d, cut ? EV_CUT : EV_REPLUG,
		     a->owner == OWNER_NODE ? a->owner_idx : UINT32_MAX, a->local,
		     UINT32_MAX, 0, 0);
	if (!carrier_event)
		return;
	dcnfwd_carrier(d, a, !cut, us);
	if (b != NULL)
		dcnfwd_carrier(d, b, !cut, us);
}

/* Say so when a switch port's buffer cannot hold what the grants of the
 * relay behind it let its neighbours have in flight toward it (every VC's
 * input queue granted in full): frames may then be lost in the switch,
 * flow control or not (lib/fc/README.md, "Credits through an L2
 * switch"). */
static void
emu_check_switch_buffers(const struct dcnfwd *d)
{
	unsigned int i, worst = 0, worst_node = 0, worst_port = 0;

	for (i = 0; i < d->n_nodes; i++) {
		struct dcn_fc_node *fn = d->node[i].fc;
		uint16_t p, l;

		for (p = 0; fn != NULL && p < fn->n_ports; p++) {
			unsigned int bound = 0;

			if (fn->kind[p] != DCN_FC_PORT_SWITCH)
				continue;
			for (l = 0; l < fn->port_links[p]; l++)
				bound += dcn_fc_link_bound(
					dcn_fc_chan(fn, (uint16_t)(fn->port_link[p] + l), 0)->grant,
					fn->n_vcs);
			if (bound > worst) {
				worst = bound;
				worst_node = i;
				worst_port = p;
			}
		}
	}
	if (worst > dcnfwd_emu_switch_buffer(d))
		DCNFWD_LOG(WARNING, "node %s port %s: its neighbours "
			"may have %u frames in flight toward it, more than an "
			"emulated switch port holds (--switch-buffer %u): frames may "
			"be lost in the switch\n", d->node[worst_node].name,
			d->node[worst_node].fc->port_name[worst_port], worst,
			dcnfwd_emu_switch_buffer(d));
}

int
dcnfwd_emu_workers(struct dcnfwd *d)
{
	emu_check_switch_buffers(d);
	unsigned int n = dcnfwd_workers_planned(d), i;
	uint32_t pi;
	int ret;

	if (n == 0) {
		DCNFWD_LOG(CRIT, "give EAL at least two lcores (-l 0-1): "
			"one for control, one or more workers\n");
		return -EINVAL;
	}
	ret = dcnfwd_workers_create(d, n);
	if (ret != 0)
		return ret;
	for (i = 0; i < d->n_workers; i++) {
		d->worker[i].hosts = calloc(d->n_hosts + 1, sizeof(uint32_t));
		if (d->worker[i].hosts == NULL)
			return -ENOMEM;
	}
	/* Every port of an owner on one worker, owners spread; with lanes,
	 * a port's RX queue q on the next worker but q (emu_spread says
	 * why). */
	for (pi = 0; pi < d->n_ports; pi++) {
		const struct dcnfwd_port *p = &d->port[pi];
		unsigned int seq = emu_seq(d, p);
		uint16_t q;

		for (q = 0; q < p->dp.nb_rxq; q++) {
			ret = dcnfwd_worker_add_rxq(d, &d->worker[(seq + q) % d->n_workers],
						    pi, q,
						    p->owner == OWNER_NODE ? dcnfwd_node_rx :
						    p->owner == OWNER_SWITCH ? switch_rx :
						    dcnfwd_emu_host_port_rx);
			if (ret != 0)
				return ret;
		}
	}
	/* A host sends from each worker that polls a queue of its node's
	 * port (emu_hosts.c): what its node's NIC puts there. */
	for (pi = 0; pi < d->n_ports; pi++) {
		const struct dcnfwd_port *p = &d->port[pi];
		uint16_t q;

		if (p->owner != OWNER_HOST || p->cable_peer < 0)
			continue;
		for (q = 0; q < d->port[p->cable_peer].dp.nb_rxq; q++) {
			int k = dcnfwd_emu_poller(d, (uint32_t)p->cable_peer, q);
			struct dcnfwd_worker *w = &d->worker[k < 0 ? 0 : k];

			if (w->n_hosts == 0 || w->hosts[w->n_hosts - 1] != p->owner_idx)
				w->hosts[w->n_hosts++] = p->owner_idx;
			w->tick = dcnfwd_emu_hosts_send;
		}
	}
	return 0;
}

void
dcnfwd_emu_teardown(struct dcnfwd *d)
{
	unsigned int i;

	for (i = 0; d->sw != NULL && i < d->n_switches; i++)
		free(d->sw[i].port);
	for (i = 0; d->host != NULL && i < d->n_hosts; i++)
		dcnfwd_emu_host_fini(&d->host[i], d->n_workers);
	free(d->sw);
	free(d->host);
	d->sw = NULL;
	d->host = NULL;
}
