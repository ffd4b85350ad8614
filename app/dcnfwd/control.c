/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's share of the data plane: hellos out of every fabric
 * port, and hellos in, which teach each node its neighbours' MACs. A hello
 * from a node the topology does not put behind that port is refused and
 * logged: a miscabled port shows at once and never carries traffic. On
 * host ports, ARP: the node answers for the fabric's addresses and learns
 * its host's MAC.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_ctl

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "control.h"
#include "ctl_io.h"
#include "failover.h"
#include "nbrs.h"
#include "tick.h"
#include "hello_auth.h"
#include "links.h"
#include "lsa.h"

/* Hellos are bound to the station that sends them: another cannot
 * speak for it with a recorded one. */
static const struct dcn_auth_span hello_span = { .bind_macs = 1, .zero_at = -1 };

static struct rte_mbuf *
hello_frame(struct dcnfwd *d, struct dcnfwd_node *n, const struct dcnfwd_port *p)
{
	struct dcn_hello_echo echo[DCN_HELLO_ECHO_MAX];
	unsigned int n_echo = dcnfwd_hello_echoes(d, n, p, echo), k;
	uint16_t len = (uint16_t)(DCN_HELLO_LEN + n_echo * DCN_HELLO_ECHO_LEN);
	struct rte_mbuf *m = dcnfwd_ctl_frame(d, p, NULL, d->ethertype,
					      dcnfwd_ctl_len(d, len));
	struct dcn_fabric_hdr h = {
		.version = DCN_FABRIC_VERSION,
		.type = DCN_FT_HELLO,
		.ttl = 1,
		.len = len,
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
	f = rte_pktmbuf_mtod(m, uint8_t *);
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	dcn_fabric_write_hello(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &hello);
	for (k = 0; k < n_echo; k++)
		dcn_fabric_write_hello_echo(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN +
					    DCN_HELLO_LEN + k * DCN_HELLO_ECHO_LEN, &echo[k]);
	if (d->auth != NULL)
		dcn_auth_sign(d->auth, f, len, &hello_span, d->epoch, n->hello_seq);
	return m;
}

static void
send_hellos(struct dcnfwd *d)
{
	unsigned int i, l;

	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		n->hello_seq++;
		for (l = 0; l < n->n_ports; l++) {
			const struct dcnfwd_port *p = &d->port[n->port[l]];
			struct rte_mbuf *m;

			/* A port facing a tester (hellos = no) neither
			 * needs ours nor should count them as traffic. */
			if (!dcnfwd_port_is_fabric(p) || p->no_hellos)
				continue;
			/* The worker has not yet sent what came before (a
			 * long loop, a busy port): a second hello behind
			 * the first would tell the neighbour nothing more. */
			if (rte_ring_count(p->ctl_tx) != 0) {
				d->hellos_held++;
				continue;
			}
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

/* Who a hello says it is from, as far as it was read: named only for a
 * log line, which few hellos need (a name is an snprintf a hello, and
 * every port hears one every few ms). */
struct hello_from {
	const struct dcnfwd *d;
	int known;               /* addr read */
	uint32_t addr;
	int64_t vertex;          /* -1: not a vertex (yet) */
};

static const char *
who_of(const struct hello_from *h, char *buf, size_t size)
{
	if (h->vertex >= 0)
		dcn_topo_format_vertex(h->d->t, (uint32_t)h->vertex, buf, size);
	else if (h->known)
		dcn_topo_format_addr(h->addr, buf, size);
	else
		snprintf(buf, size, "?");
	return buf;
}

static void
refuse(struct dcnfwd_port *p, const char *why, const struct hello_from *h)
{
	char who[DCN_TOPO_NAME_LEN];

	p->hello_refused++;
	/* Log the first and then every power of two: mis-cabling is loud
	 * without flooding the log. */
	if ((p->hello_refused & (p->hello_refused - 1)) == 0)
		DCNFWD_LOG(WARNING, "port %s: hello from %s refused: %s (%lu so "
			   "far)\n", p->name, who_of(h, who, sizeof(who)), why,
			   (unsigned long)p->hello_refused);
}

/*
 * May a hello from mac speak for the neighbour g guards? Its first MAC is
 * learnt at once. Another is taken only once the one in force has been
 * silent for the hold-down (a NIC swapped, a relay moved), counted and
 * logged: a port that claims a live neighbour's name does not draw its
 * frames, however often it says so. (Proof of who speaks is the fabric
 * key's; this is the sanity kept without one.)
 *
 * The hold-down here is the link's, but never less than the link's dead
 * interval nor than DCNFWD_MAC_HOLD_MIN_US: a live neighbour's hellos can
 * pause for longer than 100 ms on a loaded machine (seen under CI), and a
 * rogue repeating a name waits for exactly such a pause. A real change of
 * MAC (a server's NIC replaced) takes far longer than a second anyway.
 */
#define DCNFWD_MAC_HOLD_MIN_US 1000000

static int
mac_guard_pass(struct dcnfwd *d, struct dcnfwd_port *p,
	       struct dcnfwd_mac_guard *g, const struct rte_ether_addr *mac,
	       const struct hello_from *h, uint64_t now)
{
	uint64_t dead_us = d->lconf.hello_us * d->lconf.miss;
	uint64_t hold_us = RTE_MAX(d->lconf.holddown_us, dead_us);
	uint64_t m = 0, hold;
	char was[RTE_ETHER_ADDR_FMT_SIZE], is[RTE_ETHER_ADDR_FMT_SIZE];
	char who[DCN_TOPO_NAME_LEN];

	hold_us = RTE_MAX(hold_us, (uint64_t)DCNFWD_MAC_HOLD_MIN_US);
	hold = hold_us * d->tsc_hz / 1000000;
	memcpy(&m, mac, RTE_ETHER_ADDR_LEN);
	if (g->mac == 0 || g->mac == m) {
		g->mac = m;
		g->seen_tsc = now;
		return 1;
	}
	rte_ether_format_addr(was, sizeof(was), (const struct rte_ether_addr *)&g->mac);
	rte_ether_format_addr(is, sizeof(is), mac);
	who_of(h, who, sizeof(who));
	if (now - g->seen_tsc < hold) {
		p->hello_mac_refused++;
		if ((p->hello_mac_refused & (p->hello_mac_refused - 1)) == 0)
			DCNFWD_LOG(WARNING, "port %s: hello for %s from %s refused: "
				   "%s speaks for it (%lu so far)\n", p->name, who,
				   is, was, (unsigned long)p->hello_mac_refused);
		return 0;
	}
	p->peer_mac_changes++;
	DCNFWD_LOG(WARNING, "port %s: %s now speaks from %s (was %s, silent for "
		   "the hold-down)\n", p->name, who, is, was);
	g->mac = m;
	g->seen_tsc = now;
	return 1;
}

/* Tell every worker's context the MAC behind port p (a cable's peer, or
 * a host port's host); a MAC already known is not written again. */
static void
set_peer_mac(struct dcnfwd *d, const struct dcnfwd_port *p,
	     const struct rte_ether_addr *mac)
{
	unsigned int w;

	for (w = 0; w < d->n_workers; w++) {
		struct dcn_fwd_ctx *c;
		uint64_t cur;

		if (d->worker[w].node[p->owner_idx] == NULL)
			continue;
		c = d->worker[w].node[p->owner_idx]->fwd;
		cur = __atomic_load_n(&c->port[p->local].peer_mac, __ATOMIC_RELAXED);
		if (memcmp(&cur, mac, 6) != 0)
			dcn_fwd_set_peer_mac(c, p->local, mac);
	}
}

/* With a fabric key, a neighbour's new incarnation not yet proven: a
 * hello at once (at most one a hello interval), which it echoes in its
 * next. */
static void
answer_unproven(struct dcnfwd *d, struct dcnfwd_node *n, struct dcnfwd_port *p,
		uint64_t now)
{
	struct rte_mbuf *m;

	if (now - p->unproven_answered_tsc < d->lconf.hello_us * d->tsc_hz / 1000000 ||
	    rte_ring_count(p->ctl_tx) != 0)
		return;
	p->unproven_answered_tsc = now;
	/* A sequence of its own: every hello of an incarnation is newer
	 * than the last, or its receivers refuse it as a replay. */
	n->hello_seq++;
	m = hello_frame(d, n, p);
	if (m != NULL)
		dcnfwd_inject(d, (uint32_t)(p - d->port), &m, 1);
}

static void
hello_rx(struct dcnfwd *d, struct dcnfwd_port *p, const uint8_t *f,
	 uint32_t len, uint64_t now)
{
	struct dcnfwd_node *n;
	struct dcn_hello h;
	struct rte_ether_addr mac;
	struct hello_from who = { .d = d, .vertex = -1 };
	uint32_t epoch = 0, seq = 0;
	int64_t v;

	if (!dcnfwd_port_is_fabric(p))
		return;
	n = &d->node[p->owner_idx];
	if (len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_HELLO_LEN) {
		refuse(p, "too short", &who);
		return;
	}
	/* Before anything is read from it: what a key-less writer says is
	 * not even a miscabling report. */
	if (!dcnfwd_auth_check(d, p, f, len, &hello_span, &epoch, &seq))
		return;
	dcn_fabric_read_hello(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &h);
	who.known = 1;
	who.addr = h.addr;
	if (h.topo_hash != d->topo_hash) {
		refuse(p, "another topology", &who);
		return;
	}
	v = dcn_topo_vertex_of(d->t, h.addr);
	if (v < 0 || !dcn_topo_is_router(d->t, (uint32_t)v)) {
		refuse(p, "not a node of this fabric", &who);
		return;
	}
	who.vertex = v;
	if (!expected_neighbour(d, n, p, (uint32_t)v, h.port)) {
		refuse(p, "the topology puts another node behind this port", &who);
		return;
	}
	memcpy(&mac, f + 6, 6);
	if (!rte_is_unicast_ether_addr(&mac) || rte_is_zero_ether_addr(&mac)) {
		refuse(p, "its source MAC is not unicast", &who);
		return;
	}
	{
		struct dcn_fwd_nbr *e = n->nbr_guard == NULL ? NULL :
			dcn_fwd_nbr_find(&n->nbrs, (uint32_t)v,
					 (uint16_t)p->fabric_port);
		struct dcnfwd_mac_guard *g = e != NULL ?
			&n->nbr_guard[e - n->nbrs.slot] : &p->peer_guard;

		/* A recording would keep a dead neighbour alive, and an old
		 * one must not pass for a new incarnation. */
		if (d->auth != NULL) {
			int fresh = dcnfwd_hello_fresh(d, n, p, g, f, &h, epoch, seq);

			if (fresh < 0)
				answer_unproven(d, n, p, now);
			if (fresh <= 0)
				return;
		}
		if (!mac_guard_pass(d, p, g, &mac, &who, now))
			return;
	}
	p->hello_rx++;
	/* encap = udp: where frames to this MAC are addressed. */
	if (p->dp.udp != NULL)
		dcn_port_udp_learn(p->dp.udp, f + 6, h.addr);
	p->peer_vertex = (uint32_t)v;
	p->peer_seen_tsc = now;
	dcnfwd_nbr_hello(d, p, (uint32_t)v, h.port, &mac, now);
	{
		struct dcn_fwd_nbr *e = dcn_fwd_nbr_find(&n->nbrs, (uint32_t)v,
							 (uint16_t)p->fabric_port);

		if (e != NULL) {
			uint64_t cur = __atomic_load_n(&e->mac, __ATOMIC_RELAXED);
			uint64_t heard = __atomic_load_n(&e->heard_mac, __ATOMIC_RELAXED);

			/* Its frames are its own at once, link up or not
			 * (flow control counts them on its link). */
			if (memcmp(&heard, &mac, 6) != 0)
				dcn_fwd_nbr_set_heard_mac(e, &mac);
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
	set_peer_mac(d, p, &mac);
}

/* Tell every worker's context the MAC of the host behind host port p. */
static void
learn_host_mac(struct dcnfwd *d, struct dcnfwd_port *p,
	       const struct rte_ether_addr *mac)
{
	p->host_mac_known = 1;
	set_peer_mac(d, p, mac);
}

/* The address of the host behind host port p: a relay's own (it is the
 * server), or, for a Diamond switch, that of the server on the port. */
static uint32_t
host_addr(const struct dcnfwd *d, const struct dcnfwd_port *p)
{
	const struct dcnfwd_node *n = &d->node[p->owner_idx];
	int64_t peer;

	if (p->fabric_port < 0)
		return n->addr;
	peer = dcn_topo_port_peer(d->t, n->vertex, (unsigned int)p->fabric_port);
	return peer < 0 ? 0 : dcn_topo_addr(d->t, (uint32_t)peer);
}

/* An ARP request (dst NULL: broadcast) or reply (op 2, to dst). */
static struct rte_mbuf *
arp_frame(struct dcnfwd *d, const struct dcnfwd_port *p, uint16_t op,
	  const struct rte_ether_addr *dst, uint32_t spa, uint32_t tpa)
{
	struct rte_mbuf *m = dcnfwd_ctl_frame(d, p, dst, DCN_ETHERTYPE_ARP, 60);
	uint8_t *r;

	if (m == NULL)
		return NULL;
	r = rte_pktmbuf_mtod(m, uint8_t *);
	dcn_fabric_put16(r + 14, 1);
	dcn_fabric_put16(r + 16, DCN_ETHERTYPE_IPV4);
	r[18] = 6;
	r[19] = 4;
	dcn_fabric_put16(r + 20, op);
	memcpy(r + 22, &p->mac, 6);                  /* sha: this port */
	dcn_fabric_put32(r + 28, spa);
	if (op == 2)
		memcpy(r + 32, dst, 6);              /* tha */
	dcn_fabric_put32(r + 38, tpa);
	return m;
}

/*
 * Until a host port knows its host's MAC, ask with an ARP probe (sender
 * address 0, RFC 5227), which a host answers without learning anything
 * from it. Without the MAC, frames for the host go to
 * broadcast, which a kernel takes for ICMP but drops for TCP.
 */
static void
host_arp_probe(struct dcnfwd *d, uint64_t now)
{
	unsigned int i;

	if (now < d->next_arp_probe)
		return;
	/* Once a second three times, then every 10 s: a host that does not
	 * answer (a traffic generator) is not flooded. */
	d->arp_probes++;
	d->next_arp_probe = now + d->tsc_hz * (d->arp_probes < 3 ? 1 : 10);
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		uint32_t addr;
		struct rte_mbuf *m;

		if (p->owner != OWNER_NODE || !p->is_host || !p->dp.is_ethdev ||
		    p->host_mac_known)
			continue;
		addr = host_addr(d, p);
		m = addr ? arp_frame(d, p, 1, NULL, 0, addr) : NULL;
		if (m != NULL)
			dcnfwd_inject(d, i, &m, 1);
	}
}

/*
 * ARP from a host port (a kernel's TAP interface, or a server's NIC): the
 * node answers for every other host address of the fabric, as the host's
 * gateway to all of them, so the host needs no static neighbours; and the
 * requester's MAC becomes where decapsulated frames go (until then they
 * go to broadcast, which a host takes as well). Requests for the host's
 * own address (duplicate detection) and for outside the fabric get no
 * answer.
 */
static void
arp_rx(struct dcnfwd *d, struct dcnfwd_port *p, uint16_t pi, const uint8_t *f,
       uint32_t len)
{
	const uint8_t *a = f + DCN_ETHER_HDR_LEN;
	struct rte_ether_addr sha;
	uint32_t spa, tpa;
	struct rte_mbuf *m;
	int64_t v;

	if (p->owner != OWNER_NODE || !p->is_host || len < DCN_ETHER_HDR_LEN + 28)
		return;
	/* Ethernet/IPv4: htype 1, ptype 0x0800, hlen 6, plen 4 */
	if (dcn_fabric_get16(a) != 1 || dcn_fabric_get16(a + 2) != DCN_ETHERTYPE_IPV4 ||
	    a[4] != 6 || a[5] != 4)
		return;
	memcpy(&sha, a + 8, 6);
	spa = dcn_fabric_get32(a + 14);
	tpa = dcn_fabric_get32(a + 24);
	if (!rte_is_unicast_ether_addr(&sha))
		return;
	if (dcn_fabric_get16(a + 6) == 2) {
		/* The answer to our probe (dcnfwd_host_arp_probe). */
		if (spa == host_addr(d, p))
			learn_host_mac(d, p, &sha);
		return;
	}
	if (dcn_fabric_get16(a + 6) != 1)
		return;
	learn_host_mac(d, p, &sha);
	v = dcn_topo_vertex_of(d->t, tpa);
	if (tpa == spa || v < 0 || (uint32_t)v >= dcn_topo_servers(d->t))
		return;
	m = arp_frame(d, p, 2, &sha, tpa, spa);
	if (m == NULL)
		return;
	p->arp_replies++;
	dcnfwd_inject(d, pi, &m, 1);
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
			if ((f[12] << 8 | f[13]) == DCN_ETHERTYPE_ARP) {
				arp_rx(d, &d->port[m[i]->port], m[i]->port, f, len);
				continue;
			}
			switch (f[DCN_ETHER_HDR_LEN] & 0x0f) {
			case DCN_FT_HELLO:
				hello_rx(d, &d->port[m[i]->port], f, len, now);
				break;
			case DCN_FT_LINKSTATE:
				dcnfwd_lsa_rx(d, m[i]->port, f, len);
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

void
dcnfwd_control_tick(struct dcnfwd *d)
{
	uint64_t now = rte_rdtsc();

	if (now >= d->next_hello) {
		send_hellos(d);
		d->next_hello = now + d->hello_interval_ms * d->tsc_hz / 1000;
	}
	dcnfwd_links_read_times(d);
	dcnfwd_control_poll(d, now);
	host_arp_probe(d, now);
	dcnfwd_tick(d, now);
}
