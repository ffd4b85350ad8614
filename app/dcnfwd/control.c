/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's share of the data plane: hellos out of every fabric
 * port, and hellos in, which teach each node its neighbours' MACs. A hello
 * from a node the topology does not put behind that port is refused and
 * logged: a miscabled port shows at once and never carries traffic.
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dcnfwd.h"

int
dcnfwd_inject(struct dcnfwd *d, uint32_t port, struct rte_mbuf **m,
	      unsigned int n)
{
	unsigned int q = rte_ring_enqueue_burst(d->port[port].ctl_tx, (void **)m,
						n, NULL);

	if (q < n)
		rte_pktmbuf_free_bulk(&m[q], n - q);
	return (int)q;
}

static struct rte_mbuf *
hello_frame(struct dcnfwd *d, struct dcnfwd_node *n, const struct dcnfwd_port *p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->mp);
	struct dcn_fabric_hdr h = {
		.version = DCN_FABRIC_VERSION,
		.type = DCN_FT_HELLO,
		.ttl = 1,
		.len = DCN_HELLO_LEN,
		.src = n->addr,
	};
	struct dcn_hello hello = {
		.addr = n->addr,
		.port = (uint16_t)p->fabric_port,
		.interval = (uint16_t)d->hello_interval_ms,
		.topo_hash = d->topo_hash,
		.seq = n->hello_seq,
	};
	uint8_t *f;

	if (m == NULL)
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, 60);
	memset(f, 0xff, 6);
	memcpy(f + 6, &p->mac, 6);
	f[12] = (uint8_t)(d->ethertype >> 8);
	f[13] = (uint8_t)d->ethertype;
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	dcn_fabric_write_hello(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &hello);
	return m;
}

void
dcnfwd_send_hellos(struct dcnfwd *d)
{
	unsigned int i, l;

	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		n->hello_seq++;
		for (l = 0; l < n->n_ports; l++) {
			const struct dcnfwd_port *p = &d->port[n->port[l]];
			struct rte_mbuf *m;

			if (!dcnfwd_port_is_fabric(p))
				continue;
			m = hello_frame(d, n, p);
			if (m != NULL)
				dcnfwd_inject(d, n->port[l], &m, 1);
		}
	}
}

/* Is vertex v, on its port vport, where the topology says port p of node
 * n leads? */
static int
expected_neighbour(const struct dcnfwd *d, const struct dcnfwd_node *n,
		   const struct dcnfwd_port *p, uint32_t v, uint16_t vport)
{
	struct dcn_adj a[DCN_FWD_MAX_FABRIC_PORTS], b[DCN_FWD_MAX_FABRIC_PORTS];
	unsigned int na = dcn_topo_adj(d->t, n->vertex, a), nb, i, j;

	for (i = 0; i < na; i++) {
		if (a[i].port != p->fabric_port)
			continue;
		if (dcn_topo_role(d->t, a[i].peer) != DCN_ROLE_SWITCH)
			return a[i].peer == v && a[i].peer_port == vport;
		nb = dcn_topo_adj(d->t, a[i].peer, b);
		for (j = 0; j < nb; j++)
			if (b[j].peer == v && b[j].peer_port == vport && v != n->vertex)
				return 1;
		return 0;
	}
	return 0;
}

static void
refuse(struct dcnfwd_port *p, const char *why, const char *who)
{
	p->hello_refused++;
	/* Log the first and then every power of two: mis-cabling is loud
	 * without flooding the log. */
	if ((p->hello_refused & (p->hello_refused - 1)) == 0)
		DCNFWD_LOG(WARNING, "port %s: hello from %s refused: %s (%lu so "
			   "far)\n", p->name, who, why,
			   (unsigned long)p->hello_refused);
}

static void
hello_rx(struct dcnfwd *d, struct dcnfwd_port *p, const uint8_t *f,
	 uint32_t len, uint64_t now)
{
	struct dcnfwd_node *n;
	struct dcn_hello h;
	struct rte_ether_addr mac;
	char who[DCN_TOPO_NAME_LEN] = "?";
	int64_t v;
	unsigned int w;

	if (!dcnfwd_port_is_fabric(p))
		return;
	n = &d->node[p->owner_idx];
	if (len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_HELLO_LEN) {
		refuse(p, "too short", who);
		return;
	}
	dcn_fabric_read_hello(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &h);
	dcn_topo_format_addr(h.addr, who, sizeof(who));
	if (h.topo_hash != d->topo_hash) {
		refuse(p, "another topology", who);
		return;
	}
	v = dcn_topo_vertex_of(d->t, h.addr);
	if (v < 0 || !dcn_topo_is_router(d->t, (uint32_t)v)) {
		refuse(p, "not a node of this fabric", who);
		return;
	}
	dcn_topo_format_vertex(d->t, (uint32_t)v, who, sizeof(who));
	if (!expected_neighbour(d, n, p, (uint32_t)v, h.port)) {
		refuse(p, "the topology puts another node behind this port", who);
		return;
	}
	memcpy(&mac, f + 6, 6);
	p->hello_rx++;
	p->peer_vertex = (uint32_t)v;
	p->peer_seen_tsc = now;
	dcnfwd_failover_hello(d, p, (uint32_t)v, h.port, &mac, now);
	{
		struct dcn_fwd_nbr *e = dcn_fwd_nbr_find(&n->nbrs, (uint32_t)v,
							 (uint16_t)p->fabric_port);

		if (e != NULL) {
			uint64_t cur = __atomic_load_n(&e->mac, __ATOMIC_RELAXED);

			/* A neighbour held down gets its MAC back only when
			 * its hold-down is over. */
			if (!dcnfwd_nbr_usable(n, (uint32_t)(e - n->nbrs.slot)))
				return;
			if (memcmp(&cur, &mac, 6) != 0)
				dcn_fwd_nbr_set_mac(e, &mac);
			if (e->down)
				__atomic_store_n(&e->down, 0, __ATOMIC_RELEASE);
			return;
		}
	}
	for (w = 0; w < d->n_workers; w++) {
		struct dcn_fwd_ctx *c = d->worker[w].ctx[p->owner_idx];
		uint64_t cur;

		if (c == NULL)
			continue;
		cur = __atomic_load_n(&c->port[p->local].peer_mac, __ATOMIC_RELAXED);
		if (memcmp(&cur, &mac, 6) != 0)
			dcn_fwd_set_peer_mac(c, p->local, &mac);
	}
}

void
dcnfwd_control_poll(struct dcnfwd *d, uint64_t now)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	while ((n = rte_ring_dequeue_burst(d->ctl_rx, (void **)m, 64, NULL)) > 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m[i]);

			if (m[i]->port >= d->n_ports ||
			    len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN)
				continue;
			switch (f[DCN_ETHER_HDR_LEN] & 0x0f) {
			case DCN_FT_HELLO:
				hello_rx(d, &d->port[m[i]->port], f, len, now);
				break;
			case DCN_FT_LINKSTATE:
				dcnfwd_failover_lsa_rx(d, m[i]->port, f, len);
				break;
			default:
				break;
			}
		}
		rte_pktmbuf_free_bulk(m, n);
	}
}

int
dcnfwd_neighbours_ready(const struct dcnfwd *d)
{
	unsigned int i, l;

	for (i = 0; i < d->n_nodes; i++) {
		const struct dcnfwd_node *n = &d->node[i];

		for (l = 0; l < n->n_ports; l++) {
			const struct dcnfwd_port *p = &d->port[n->port[l]];

			if (dcnfwd_port_is_fabric(p) &&
			    p->peer_vertex == UINT32_MAX)
				return 0;
		}
		for (l = 0; n->nbrs.slot != NULL && l <= n->nbrs.mask; l++)
			if (n->nbrs.slot[l].vertex != DCN_FWD_NBR_EMPTY &&
			    n->nbrs.slot[l].mac == 0)
				return 0;
	}
	return 1;
}
