/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-sim's fabric: the relays' lib/route tables and lib/fwd step, one
 * context a routing vertex, as a relay builds them, with what its hellos
 * would teach it (its neighbours' MACs) set from the topology.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "dcn_fabric.h"
#include "dcn_fc.h"
#include "dcn_fc_dp.h"
#include "dcn_fwd.h"
#include "dcn_port.h"
#include "dcn_route.h"
#include "dcn_topo.h"
#include "sim_fabric.h"

/* Route cache entries a relay's context keeps: fewer than a relay's
 * 4096 (an entry is 384 bytes: 1.5 MB a node, 1.5 GB for a thousand),
 * still a cache that every step looks in first, as a relay's does. */
#define SIM_CACHE_ENTRIES 256u
/* The stamp's mark in the payload, after the UDP header. */
#define SIM_STAMP_MAGIC 0x6463736du     /* "dcsm" */
#define SIM_HDRS (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + \
		  sizeof(struct rte_udp_hdr))
#define SIM_UDP_PORT 4791

struct sim_vertex {
	enum sim_kind kind;
	uint16_t n_ports;
	uint16_t host_local;      /* a relay's host port, its fwd index */
	char name[DCN_TOPO_NAME_LEN];
	struct dcn_fwd_ctx *fwd;  /* relays */
	struct dcn_rtable *tb;
	struct dcn_fwd_nbrs nbrs;
	void *cache;
	/* switches: the MAC behind each port (of the relay port there) */
	uint64_t *port_mac;
	/* flow control: the node's queues and data path, its ports (a TX
	 * ring each, drained by the simulated wire) and the one worker's
	 * binding to it */
	struct dcn_fc_node *fn;
	struct dcn_fc_dp *dp;
	struct dcn_fc_wnode *x;
	struct dcn_port *port;
	uint16_t n_local;
};

struct sim_fabric {
	struct dcn_topo *t;
	struct dcn_failset *fs;
	struct dcn_router *r;
	struct rte_mempool *mp;
	uint32_t n_vertices, n_servers;
	struct sim_vertex *v;
	uint32_t *server_vertex;
	uint64_t switch_drops;
	/* flow control (fc_on): as the relays keep it */
	int fc_on;
	struct sim_fc_conf fc;
	struct rte_mempool *ctl_mp;
	struct dcn_fc_worker w;
	uint64_t tsc_hz;
};

static void
port_mac(struct rte_ether_addr *m, uint32_t v, uint16_t port)
{
	m->addr_bytes[0] = 0x02;
	m->addr_bytes[1] = (uint8_t)(port >> 8);
	m->addr_bytes[2] = (uint8_t)(v >> 24);
	m->addr_bytes[3] = (uint8_t)(v >> 16);
	m->addr_bytes[4] = (uint8_t)(v >> 8);
	m->addr_bytes[5] = (uint8_t)v;
}

static uint64_t
mac_u64(const struct rte_ether_addr *m)
{
	uint64_t u = 0;

	memcpy(&u, m, RTE_ETHER_ADDR_LEN);
	return u;
}

/* The port of vertex w that faces switch s, or -1. */
static int
port_toward(const struct dcn_topo *t, uint32_t w, uint32_t s, struct dcn_adj *a)
{
	unsigned int n = dcn_topo_adj(t, w, a), i;

	for (i = 0; i < n; i++)
		if (a[i].peer == s)
			return a[i].port;
	return -1;
}

static int
relay_setup(struct sim_fabric *f, uint32_t v, struct dcn_adj *a, char *err,
	    size_t errlen)
{
	struct sim_vertex *x = &f->v[v];
	const struct dcn_topo *t = f->t;
	struct rte_ether_addr mac;
	unsigned int p, i;

	x->fwd = rte_zmalloc("sim_fwd", sizeof(*x->fwd), RTE_CACHE_LINE_SIZE);
	x->tb = dcn_rtable_compile(f->r, v);
	x->cache = rte_zmalloc("sim_cache", dcn_fwd_cache_bytes(SIM_CACHE_ENTRIES),
			       RTE_CACHE_LINE_SIZE);
	if (x->fwd == NULL || x->tb == NULL || x->cache == NULL)
		goto nomem;
	if (x->n_ports + 1 > DCN_FWD_MAX_PORTS) {
		snprintf(err, errlen, "%s: %u ports, a relay has at most %u", x->name,
			 x->n_ports, DCN_FWD_MAX_PORTS - 1);
		return -EINVAL;
	}
	if (dcn_fwd_init(x->fwd, f->r, x->tb, DCN_FABRIC_ETHERTYPE, 0) != 0) {
		snprintf(err, errlen, "%s: not a routing vertex", x->name);
		return -EINVAL;
	}
	/* Local port p is topology port p; a Diamond switch's port facing
	 * a server is a host port, as on a relay. */
	for (p = 0; p < x->n_ports; p++) {
		int64_t peer = dcn_topo_port_peer(t, v, (uint16_t)p);
		int host = peer >= 0 && f->v[peer].kind == SIM_HOST;

		port_mac(&mac, v, (uint16_t)p);
		if (dcn_fwd_add_port(x->fwd, (int)p, host, &mac) != (int)p)
			goto nomem;
	}
	if (dcn_topo_role(t, v) == DCN_ROLE_SERVER) {
		port_mac(&mac, v, SIM_PORT_HOST);
		x->host_local = (uint16_t)dcn_fwd_add_port(x->fwd, -1, 1, &mac);
	}
	/* What hellos teach: the MAC behind each cable, and of each
	 * neighbour behind a switch (its port on that switch). */
	for (p = 0; p < x->n_ports; p++) {
		uint16_t pp;
		int64_t peer = sim_port_peer(f, v, (uint16_t)p, &pp);

		if (peer < 0 || f->v[peer].kind == SIM_SWITCH)
			continue;
		port_mac(&mac, (uint32_t)peer, pp);
		dcn_fwd_set_peer_mac(x->fwd, (uint16_t)p, &mac);
	}
	if (dcn_fwd_nbrs_init(&x->nbrs, t, v) != 0)
		goto nomem;
	for (i = 0; x->nbrs.slot != NULL && i <= x->nbrs.mask; i++) {
		struct dcn_fwd_nbr *e = &x->nbrs.slot[i];
		int64_t s;
		int wp;

		if (e->vertex == DCN_FWD_NBR_EMPTY)
			continue;
		s = dcn_topo_port_peer(t, v, e->fabric_port);
		wp = s < 0 ? -1 : port_toward(t, e->vertex, (uint32_t)s, a);
		if (wp < 0 || dcn_topo_failset_link_down(f->fs, e->vertex, (uint16_t)wp,
							 (uint32_t)s) ||
		    dcn_topo_failset_link_down(f->fs, v, e->fabric_port, (uint32_t)s))
			continue;
		port_mac(&mac, e->vertex, (uint16_t)wp);
		dcn_fwd_nbr_set_mac(e, &mac);
	}
	dcn_fwd_set_nbrs(x->fwd, &x->nbrs);
	if (dcn_fwd_set_cache(x->fwd, x->cache, SIM_CACHE_ENTRIES) != 0)
		goto nomem;
	for (p = 0; p < x->n_ports; p++)
		if (sim_port_peer(f, v, (uint16_t)p, NULL) < 0)
			dcn_fwd_set_port_down(x->fwd, (uint16_t)p, 1);
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", x->name);
	return -ENOMEM;
}

/* The simulated clock in the TSC units lib/fc counts time in, from a
 * machine up for a while (SIM_TSC_UP_S): a relay's first look finds
 * every refresh long due, as on a server, and announces its credits at
 * once; from a TSC of 0 the first would wait a refresh interval. */
#define SIM_TSC_UP_S 1000u

static uint64_t
sim_tsc(const struct sim_fabric *f, uint64_t now_ps)
{
	return f->tsc_hz * SIM_TSC_UP_S +
	       (uint64_t)((unsigned __int128)now_ps * f->tsc_hz / 1000000000000ull);
}

/* The data path's clock (dcn_fwd_set_clock): the simulated time of the
 * event being handled, set at each entry below. One simulation a
 * process. */
static uint64_t sim_now_tsc;

static uint64_t
sim_clock(void)
{
	return sim_now_tsc;
}

static void
sim_at(const struct sim_fabric *f, uint64_t now_ps)
{
	sim_now_tsc = sim_tsc(f, now_ps);
}

/* Relay v's local ports as lib/fc sees them (the fwd context's order:
 * its topology ports, then its server's host port): each one's kind,
 * its links (behind a switch, its neighbours in nb) and topology port.
 * @return the ports. */
static uint16_t
relay_shape(const struct dcn_topo *t, uint32_t v, const struct dcn_fwd_nbrs *nb,
	    uint8_t *kind, uint16_t *links, int16_t *fport)
{
	uint16_t l, n = (uint16_t)dcn_topo_ports(t, v);

	for (l = 0; l < n; l++) {
		int64_t peer = dcn_topo_port_peer(t, v, l);
		/* a Diamond switch's port facing a server is a host port */
		int host = peer >= 0 && !dcn_topo_is_router(t, (uint32_t)peer) &&
			   dcn_topo_role(t, (uint32_t)peer) == DCN_ROLE_SERVER;

		fport[l] = (int16_t)l;
		kind[l] = (uint8_t)dcn_fc_topo_port_kind(t, v, l, host, 0);
		links[l] = kind[l] == DCN_FC_PORT_SWITCH ?
				   (uint16_t)dcn_fwd_nbrs_on_port(nb, l) : 1;
		if (links[l] == 0) {
			kind[l] = DCN_FC_PORT_NOCREDIT;
			links[l] = 1;
		}
	}
	if (dcn_topo_role(t, v) == DCN_ROLE_SERVER) {
		fport[n] = -1;
		kind[n] = DCN_FC_PORT_HOST;
		links[n++] = 1;
	}
	return n;
}

static void
relay_fc_conf(struct dcn_fc_conf *fcc, const struct sim_fc_conf *fc, unsigned int vcs)
{
	memset(fcc, 0, sizeof(*fcc));
	fcc->in_queue = fc->in_queue;
	fcc->out_queue = fc->out_queue;
	fcc->reserve_pct = fc->reserve_pct;
	fcc->n_vcs = vcs;
	fcc->n_lanes = 1;
	fcc->stagers = 1;
}

/* Relay v's flow control, as a relay's start makes it (app/dcnfwd's
 * fc_setup.c): a node of its ports' kinds, a data path whose one worker
 * owns every port, and ports that are TX rings the wire drains and
 * nothing to receive from (frames are handed to the step). */
static int
relay_fc_setup(struct sim_fabric *f, uint32_t v, char *err, size_t errlen)
{
	struct sim_vertex *x = &f->v[v];
	uint8_t kind[DCN_FWD_MAX_PORTS];
	uint16_t links[DCN_FWD_MAX_PORTS];
	int16_t fport[DCN_FWD_MAX_PORTS];
	struct dcn_fc_conf fcc;
	char id[32];
	unsigned int l;

	x->n_local = relay_shape(f->t, v, &x->nbrs, kind, links, fport);
	relay_fc_conf(&fcc, &f->fc, dcn_route_vcs(f->r));
	snprintf(id, sizeof(id), "sim%u", v);
	x->fn = dcn_fc_node_create(id, v, x->n_local, kind, links, NULL, &fcc);
	if (x->fn == NULL) {
		snprintf(err, errlen, "%s: its flow-control queues: %s", x->name,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	x->dp = rte_zmalloc("sim_fc_dp", sizeof(*x->dp), RTE_CACHE_LINE_SIZE);
	x->x = rte_zmalloc("sim_fc_x", sizeof(*x->x), RTE_CACHE_LINE_SIZE);
	x->port = rte_zmalloc("sim_ports", x->n_local * sizeof(*x->port), RTE_CACHE_LINE_SIZE);
	if (x->dp == NULL || x->x == NULL || x->port == NULL ||
	    dcn_fc_dp_init(x->dp, x->fn, f->ctl_mp, DCN_FABRIC_ETHERTYPE, 32,
			   dcn_fc_link_batch(f->fc.credit_batch,
					     dcn_fc_link_grant(fcc.in_queue, fcc.reserve_pct)),
			   (uint64_t)(f->fc.credit_refresh_us * (double)f->tsc_hz / 1e6)) != 0)
		goto nomem;
	for (l = 0; l < x->n_local; l++) {
		struct dcn_port *p = &x->port[l];
		char rn[RTE_RING_NAMESIZE];

		snprintf(rn, sizeof(rn), "sim%u.%u", v, l);
		p->nb_rxq = p->nb_txq = 1;
		/* From the heap, not a memzone each: a large fabric's
		 * thousands of rings would pass RTE_MAX_MEMZONE. */
		p->tx_ring[0] = rte_zmalloc(rn, (size_t)rte_ring_get_memsize_elem(
						sizeof(void *), rte_align32pow2(f->fc.tx_ring + 1)),
					    RTE_CACHE_LINE_SIZE);
		if (p->tx_ring[0] == NULL ||
		    rte_ring_init(p->tx_ring[0], rn, f->fc.tx_ring,
				  RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
			goto nomem;
		p->rx_ring[0] = p->tx_ring[0];  /* never read: frames are handed over */
		dcn_fc_dp_set_port(x->dp, (uint16_t)l, p, 0);
	}
	if (dcn_fc_dp_bind_nbrs(x->dp, &x->nbrs, f->t, fport) != 0) {
		snprintf(err, errlen, "%s: its switch ports' neighbours do not match its "
			 "flow-control links", x->name);
		return -EINVAL;
	}
	x->x->dp = x->dp;
	x->x->w = &f->w;
	x->x->fwd = x->fwd;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory for flow control", x->name);
	return -ENOMEM;
}

/* A switch's table: behind each port, the MAC of the relay port there. */
static int
switch_setup(struct sim_fabric *f, uint32_t v)
{
	struct sim_vertex *x = &f->v[v];
	struct rte_ether_addr mac;
	unsigned int p;

	x->port_mac = calloc(x->n_ports ? x->n_ports : 1, sizeof(uint64_t));
	if (x->port_mac == NULL)
		return -ENOMEM;
	for (p = 0; p < x->n_ports; p++) {
		uint16_t pp;
		int64_t peer = dcn_topo_port_peer(f->t, v, (uint16_t)p);

		if (peer < 0)
			continue;
		pp = 0;
		(void)sim_port_peer(f, v, (uint16_t)p, &pp);
		port_mac(&mac, (uint32_t)peer, pp);
		x->port_mac[p] = mac_u64(&mac);
	}
	return 0;
}

/* An mbuf's room: a frame of mtu bytes of IPv4 with its Ethernet
 * header and the fabric's (outer IPv4/UDP ones included), and the
 * headroom. */
#define SIM_MBUF_ROOM(mtu) (RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL((mtu) + 128, 64))
/* Frames a fabric's pool holds: what its relays' queues take when every
 * input queue is full and each output queue holds as much again (its
 * frames have left an input), 64 Ki at least, 2 Mi at most. A pool run
 * dry stops the servers' sending (counted), never a relay's. */
#define SIM_FRAMES_MIN 65535u
#define SIM_FRAMES_MAX (2u << 20)

static unsigned int
sim_frames(const struct dcn_topo *t, const struct sim_fc_conf *fc)
{
	uint64_t n = 0;
	uint32_t v;

	for (v = 0; v < dcn_topo_vertices(t); v++)
		if (dcn_topo_is_router(t, v))
			n += 2ull * (dcn_topo_ports(t, v) + 1) * (fc != NULL ? fc->in_queue : 512);
	if (n < SIM_FRAMES_MIN)
		n = SIM_FRAMES_MIN;
	return (unsigned int)(n < SIM_FRAMES_MAX ? n : SIM_FRAMES_MAX);
}

struct sim_fabric *
sim_fabric_create(const char *spec, const char *fail_links, unsigned int mtu,
		  const struct sim_fc_conf *fc, char *err, size_t errlen)
{
	struct sim_fabric *f = calloc(1, sizeof(*f));
	struct dcn_route_conf rc;
	struct dcn_adj *a = NULL;
	char name[64];
	uint32_t v;

	if (f == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->t = dcn_topo_create(spec, err, errlen);
	if (f->t == NULL)
		goto fail;
	f->fs = dcn_topo_failset_create(f->t);
	if (f->fs == NULL)
		goto nomem;
	if (fail_links != NULL && *fail_links &&
	    dcn_topo_failset_parse(f->fs, DCN_FAIL_LINKS, fail_links, err, errlen) < 0)
		goto fail;
	memset(&rc, 0, sizeof(rc));
	f->r = dcn_router_for_failures(f->t, &rc, f->fs, err, errlen);
	if (f->r == NULL)
		goto fail;
	f->n_vertices = dcn_topo_vertices(f->t);
	f->v = calloc(f->n_vertices, sizeof(*f->v));
	f->server_vertex = calloc(f->n_vertices, sizeof(uint32_t));
	a = calloc(dcn_topo_max_degree(f->t) + 1, sizeof(*a));
	snprintf(name, sizeof(name), "sim_mbufs_%p", (void *)f);
	f->mp = rte_pktmbuf_pool_create(name, sim_frames(f->t, fc), 256, 0,
					(uint16_t)SIM_MBUF_ROOM(mtu), SOCKET_ID_ANY);
	if (f->v == NULL || f->server_vertex == NULL || a == NULL || f->mp == NULL)
		goto nomem;
	f->tsc_hz = rte_get_tsc_hz();
	sim_at(f, 0);
	dcn_fwd_set_clock(sim_clock);
	if (fc != NULL) {
		f->fc_on = 1;
		f->fc = *fc;
		snprintf(name, sizeof(name), "sim_ctl_%p", (void *)f);
		f->ctl_mp = rte_pktmbuf_pool_create(name, 16383, 256, 0,
						    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
		if (f->ctl_mp == NULL || dcn_fc_worker_init(&f->w, 0, DCN_FC_MAX_CHANS) != 0 ||
		    dcn_fc_mbuf_register() != 0)
			goto nomem;
	}
	for (v = 0; v < f->n_vertices; v++) {
		struct sim_vertex *x = &f->v[v];

		x->n_ports = (uint16_t)dcn_topo_ports(f->t, v);
		dcn_topo_format_vertex(f->t, v, x->name, sizeof(x->name));
		if (dcn_topo_is_router(f->t, v))
			x->kind = SIM_RELAY;
		else if (dcn_topo_role(f->t, v) == DCN_ROLE_SERVER)
			x->kind = SIM_HOST;
		else
			x->kind = SIM_SWITCH;
		if (dcn_topo_role(f->t, v) == DCN_ROLE_SERVER)
			f->server_vertex[f->n_servers++] = v;
	}
	for (v = 0; v < f->n_vertices; v++) {
		if (f->v[v].kind == SIM_RELAY && relay_setup(f, v, a, err, errlen) != 0)
			goto fail;
		if (f->v[v].kind == SIM_RELAY && f->fc_on &&
		    relay_fc_setup(f, v, err, errlen) != 0)
			goto fail;
		if (f->v[v].kind == SIM_SWITCH && switch_setup(f, v) != 0)
			goto nomem;
	}
	free(a);
	return f;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	free(a);
	sim_fabric_free(f);
	return NULL;
}

void
sim_fabric_free(struct sim_fabric *f)
{
	uint32_t v;

	if (f == NULL)
		return;
	for (v = 0; f->v != NULL && v < f->n_vertices; v++) {
		struct sim_vertex *x = &f->v[v];

		if (x->port != NULL)
			for (unsigned int l = 0; l < x->n_local; l++)
				if (x->port[l].tx_ring[0] != NULL) {
					struct rte_mbuf *m;

					while (rte_ring_dequeue(x->port[l].tx_ring[0],
								(void **)&m) == 0)
						rte_pktmbuf_free(m);
					rte_free(x->port[l].tx_ring[0]);
				}
		if (x->dp != NULL)
			dcn_fc_dp_release(x->dp);
		dcn_fc_node_free(x->fn);
		rte_free(x->dp);
		rte_free(x->x);
		rte_free(x->port);
		dcn_fwd_nbrs_free(&x->nbrs);
		dcn_rtable_free(x->tb);
		rte_free(x->fwd);
		rte_free(x->cache);
		free(x->port_mac);
	}
	free(f->v);
	free(f->server_vertex);
	dcn_router_free(f->r);
	dcn_topo_failset_free(f->fs);
	dcn_topo_free(f->t);
	dcn_fwd_set_clock(NULL);
	if (f->fc_on)
		dcn_fc_worker_fini(&f->w);
	rte_mempool_free(f->mp);
	rte_mempool_free(f->ctl_mp);
	free(f);
}

const char *
sim_fabric_spec(const struct sim_fabric *f)
{
	return dcn_topo_spec(f->t);
}

uint32_t
sim_vertices(const struct sim_fabric *f)
{
	return f->n_vertices;
}

enum sim_kind
sim_vertex_kind(const struct sim_fabric *f, uint32_t v)
{
	return f->v[v].kind;
}

unsigned int
sim_vertex_ports(const struct sim_fabric *f, uint32_t v)
{
	return f->v[v].n_ports;
}

const char *
sim_vertex_name(const struct sim_fabric *f, uint32_t v)
{
	return f->v[v].name;
}

int64_t
sim_port_peer(const struct sim_fabric *f, uint32_t v, uint16_t port,
	      uint16_t *peer_port)
{
	int64_t peer = dcn_topo_port_peer(f->t, v, port);
	struct dcn_adj a[DCN_FWD_MAX_FABRIC_PORTS];
	unsigned int n, i;

	if (peer < 0 || dcn_topo_failset_link_down(f->fs, v, port, (uint32_t)peer))
		return -1;
	if (peer_port != NULL) {
		n = dcn_topo_adj(f->t, v, a);
		for (i = 0; i < n; i++)
			if (a[i].port == port)
				*peer_port = a[i].peer_port;
	}
	return peer;
}

uint32_t
sim_servers(const struct sim_fabric *f)
{
	return f->n_servers;
}

uint32_t
sim_server_vertex(const struct sim_fabric *f, uint32_t s)
{
	return f->server_vertex[s];
}

/* The stamp's bytes: after the UDP header. */
struct sim_stamp_wire {
	uint32_t magic;
	uint32_t flow;
	uint32_t seq;
	uint16_t hops;
	uint16_t pad;
	uint64_t sent_ps;
} __attribute__((packed));

struct rte_mbuf *
sim_frame(struct sim_fabric *f, uint32_t src, uint32_t dst, uint16_t len,
	  const struct sim_stamp *st)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(f->mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct sim_stamp_wire w;
	uint32_t sv = f->server_vertex[src];

	if (m == NULL)
		return NULL;
	if (len < SIM_HDRS + sizeof(w))
		len = SIM_HDRS + sizeof(w);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eh, 0, len);
	/* to whoever is at the other end of the server's NIC */
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	port_mac(&eh->src_addr, sv, SIM_PORT_HOST);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(dcn_topo_addr(f->t, sv));
	ip->dst_addr = rte_cpu_to_be_32(dcn_topo_addr(f->t, f->server_vertex[dst]));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	/* a flow's own source port: the fabric's entropy, as a host's */
	udp->src_port = rte_cpu_to_be_16((uint16_t)(1024 + st->flow % 60000));
	udp->dst_port = rte_cpu_to_be_16(SIM_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN -
						     sizeof(*ip)));
	w.magic = SIM_STAMP_MAGIC;
	w.flow = st->flow;
	w.seq = st->seq;
	w.hops = st->hops;
	w.pad = 0;
	w.sent_ps = st->sent_ps;
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, len - sizeof(w)), &w, sizeof(w));
	return m;
}

/* The stamp is the frame's last bytes: wherever the fabric's headers
 * go on the way (after the Ethernet header, or outer IPv4/UDP ones), the
 * payload's end stays where it was. */
static uint8_t *
stamp_at(const struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_data_len(m);

	if (m->nb_segs != 1 || len < SIM_HDRS + sizeof(struct sim_stamp_wire))
		return NULL;
	return rte_pktmbuf_mtod_offset(m, uint8_t *, len - sizeof(struct sim_stamp_wire));
}

int
sim_frame_stamp(const struct rte_mbuf *m, struct sim_stamp *st)
{
	const uint8_t *p = stamp_at(m);
	struct sim_stamp_wire w;

	if (p == NULL)
		return -1;
	memcpy(&w, p, sizeof(w));
	if (w.magic != SIM_STAMP_MAGIC)
		return -1;
	st->sent_ps = w.sent_ps;
	st->flow = w.flow;
	st->seq = w.seq;
	st->hops = w.hops;
	return 0;
}

void
sim_frame_hop(struct rte_mbuf *m)
{
	uint8_t *p = stamp_at(m);
	struct sim_stamp_wire w;

	if (p == NULL)
		return;
	memcpy(&w, p, sizeof(w));
	if (w.magic != SIM_STAMP_MAGIC)
		return;
	w.hops++;
	memcpy(p, &w, sizeof(w));
}

uint32_t
sim_frame_len(const struct rte_mbuf *m)
{
	return rte_pktmbuf_pkt_len(m);
}

void
sim_frame_free(struct rte_mbuf *m)
{
	rte_pktmbuf_free(m);
}

/* An L2 switch: to the port behind which the destination MAC is; a
 * frame for none is dropped (a relay's frames are unicast to a
 * neighbour it knows). */
static unsigned int
switch_arrive(struct sim_fabric *f, struct sim_vertex *x, uint16_t in,
	      struct rte_mbuf *m, struct sim_out *out)
{
	uint64_t dst = 0;
	unsigned int p;

	if (rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN) {
		memcpy(&dst, rte_pktmbuf_mtod(m, const void *), RTE_ETHER_ADDR_LEN);
		for (p = 0; p < x->n_ports; p++)
			if (x->port_mac[p] == dst && p != in) {
				out->port = (uint16_t)p;
				out->m = m;
				return 1;
			}
	}
	f->switch_drops++;
	rte_pktmbuf_free(m);
	return 0;
}

/* The server's frames a relay delivered: its host port's TX ring. */
static unsigned int
drain_host(struct sim_vertex *x, struct sim_out *out)
{
	struct rte_mbuf *m[SIM_OUT_MAX];
	unsigned int n, i;

	if (x->host_local >= x->n_local || x->host_local < x->n_ports)
		return 0;
	n = rte_ring_dequeue_burst(x->port[x->host_local].tx_ring[0], (void **)m,
				   SIM_OUT_MAX, NULL);
	for (i = 0; i < n; i++) {
		out[i].port = SIM_PORT_HOST;
		out[i].m = m[i];
	}
	return n;
}

/* One pass of a relay worker's loop over the node's ports, as
 * app/dcnfwd/worker.c's fc_service: route what waits in the input
 * queues, send what waits in the output queues, announce credits when
 * due. */
static void
relay_pass(struct sim_fabric *f, struct sim_vertex *x, uint64_t now_ps)
{
	uint64_t now = sim_tsc(f, now_ps);
	uint16_t l;

	sim_now_tsc = now;
	for (l = 0; l < x->n_local; l++)
		if (__atomic_load_n(dcn_fc_route_flag(x->x, l, 0), __ATOMIC_ACQUIRE))
			dcn_fc_route_waiting(x->x, l, 0);
	for (l = 0; l < x->n_local; l++) {
		dcn_fc_send(x->x, l);
		if (dcn_fc_announce_due(&x->dp->port[l], now))
			dcn_fc_announce_port(x->x, l, now);
	}
}

static unsigned int
relay_fc_arrive(struct sim_fabric *f, uint32_t v, uint16_t local, struct rte_mbuf *m,
		uint64_t now_ps, struct sim_out *out)
{
	struct sim_vertex *x = &f->v[v];
	uint16_t n;

	sim_at(f, now_ps);
	n = dcn_fc_rx_lane(x->x, local, 0, &m, 1);

	/* neither data nor credits (a control frame, a malformed one):
	 * the relay's control path, which the simulation has not got */
	if (n != 0)
		rte_pktmbuf_free(m);
	relay_pass(f, x, now_ps);
	return drain_host(x, out);
}

unsigned int
sim_arrive(struct sim_fabric *f, uint32_t v, uint16_t in, struct rte_mbuf *m,
	   uint64_t now_ps, struct sim_out *out)
{
	struct sim_vertex *x = &f->v[v];
	uint16_t local, o;

	switch (x->kind) {
	case SIM_SWITCH:
		return switch_arrive(f, x, in, m, out);
	case SIM_HOST:
		/* its own frame leaves by its NIC; another is for it */
		out->port = in == SIM_PORT_HOST ? 0 : SIM_PORT_HOST;
		out->m = m;
		return 1;
	case SIM_RELAY:
		break;
	}
	local = in == SIM_PORT_HOST ? x->host_local : in;
	sim_at(f, now_ps);
	if (f->fc_on)
		return relay_fc_arrive(f, v, local, m, now_ps, out);
	if (dcn_fwd_burst(x->fwd, local, &m, 1, &o) == 0)
		return 0;
	if (o >= x->fwd->n_ports) {
		/* a control frame, or one parked for queues the simulation
		 * has not got: neither is a data frame's way */
		rte_pktmbuf_free(m);
		return 0;
	}
	out->port = o == x->host_local && dcn_topo_role(f->t, v) == DCN_ROLE_SERVER ?
			    SIM_PORT_HOST : o;
	out->m = m;
	return 1;
}

unsigned int
sim_drop_reasons(void)
{
	return DCN_DROP_MAX;
}

uint64_t
sim_drops(const struct sim_fabric *f, unsigned int r)
{
	uint64_t n = 0;
	uint32_t v;

	for (v = 0; v < f->n_vertices; v++)
		if (f->v[v].fwd != NULL)
			n += f->v[v].fwd->st.drop[r];
	return n;
}

const char *
sim_drop_name(unsigned int r)
{
	return dcn_drop_name((enum dcn_drop_reason)r);
}

uint64_t
sim_switch_drops(const struct sim_fabric *f)
{
	return f->switch_drops;
}

int
sim_queued_relay(const struct sim_fabric *f, uint32_t v)
{
	return f->fc_on && f->v[v].kind == SIM_RELAY;
}

unsigned int
sim_tick(struct sim_fabric *f, uint32_t v, uint64_t now_ps, struct sim_out *out)
{
	struct sim_vertex *x = &f->v[v];

	if (!sim_queued_relay(f, v))
		return 0;
	relay_pass(f, x, now_ps);
	return drain_host(x, out);
}

uint64_t
sim_queued(const struct sim_fabric *f, uint32_t v)
{
	const struct dcn_fc_node *fn = f->v[v].fn;
	uint64_t n = 0;
	uint32_t c;

	for (c = 0; fn != NULL && c < fn->n_chans; c++)
		n += dcn_fc_chan_in_depth(fn, c) + dcn_fc_chan_out_depth(fn, c);
	return n;
}

struct rte_mbuf *
sim_port_pull(struct sim_fabric *f, uint32_t v, uint16_t port, uint64_t now_ps)
{
	struct sim_vertex *x = &f->v[v];
	struct rte_ring *r = x->port[port].tx_ring[0];
	struct rte_mbuf *m;

	if (rte_ring_dequeue(r, (void **)&m) == 0)
		return m;
	/* The NIC took its ring's last frame: the sender may give it more
	 * (a relay's worker would, on its next pass). */
	sim_at(f, now_ps);
	dcn_fc_send_waiting(x->x, port);
	return rte_ring_dequeue(r, (void **)&m) == 0 ? m : NULL;
}

unsigned int
sim_port_waiting(const struct sim_fabric *f, uint32_t v, uint16_t port)
{
	return rte_ring_count(f->v[v].port[port].tx_ring[0]);
}

uint64_t
sim_fc_refused(const struct sim_fabric *f)
{
	uint64_t n = 0;
	uint32_t v;
	uint16_t l;

	for (v = 0; v < f->n_vertices; v++)
		for (l = 0; f->v[v].x != NULL && l < f->v[v].n_local; l++)
			n += f->v[v].x->st[l].in_drop;
	return n;
}

uint64_t
sim_fc_stalls(const struct sim_fabric *f)
{
	uint64_t n = 0;
	uint32_t v, c;

	for (v = 0; v < f->n_vertices; v++)
		for (c = 0; f->v[v].fn != NULL && c < f->v[v].fn->n_chans; c++)
			n += dcn_fc_chan_stalls(f->v[v].fn, c);
	return n;
}

uint64_t
sim_fc_credit_frames(const struct sim_fabric *f)
{
	uint64_t n = 0;
	uint32_t v, c;

	for (v = 0; v < f->n_vertices; v++)
		for (c = 0; f->v[v].fn != NULL && c < f->v[v].fn->n_chans; c++)
			n += f->v[v].fn->chan[c].credit_tx;
	return n;
}

unsigned int
sim_memory_mb(const char *spec, unsigned int mtu, const struct sim_fc_conf *fc)
{
	char err[256];
	struct dcn_topo *t = dcn_topo_create(spec, err, sizeof(err));
	struct dcn_route_conf rc;
	struct dcn_router *r;
	uint64_t bytes = 0;
	uint32_t v;

	if (t == NULL)
		return 0;
	memset(&rc, 0, sizeof(rc));
	r = dcn_router_create_conf(t, &rc, err, sizeof(err));
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		uint8_t kind[DCN_FWD_MAX_PORTS];
		uint16_t links[DCN_FWD_MAX_PORTS];
		int16_t fport[DCN_FWD_MAX_PORTS];
		struct dcn_fwd_nbrs nb;
		struct dcn_fc_conf fcc;
		uint16_t n;

		if (!dcn_topo_is_router(t, v) || dcn_topo_ports(t, v) + 1 > DCN_FWD_MAX_PORTS)
			continue;
		/* its context, route cache and data path */
		bytes += dcn_fwd_cache_bytes(SIM_CACHE_ENTRIES) + sizeof(struct dcn_fwd_ctx) +
			 8192;
		if (fc == NULL || r == NULL || dcn_fwd_nbrs_init(&nb, t, v) != 0)
			continue;
		n = relay_shape(t, v, &nb, kind, links, fport);
		relay_fc_conf(&fcc, fc, dcn_route_vcs(r));
		/* its queues, their TX rings and the data path */
		bytes += dcn_fc_node_bytes(&fcc, n, kind, links) + sizeof(struct dcn_fc_dp) +
			 n * (rte_ring_get_memsize(rte_align32pow2(fc->tx_ring + 1)) + 256);
		dcn_fwd_nbrs_free(&nb);
	}
	dcn_router_free(r);
	/* and the frames' and credit frames' pools */
	bytes += (uint64_t)sim_frames(t, fc) * (SIM_MBUF_ROOM(mtu) + sizeof(struct rte_mbuf) + 64) +
		 16384ull * 2400;
	dcn_topo_free(t);
	return (unsigned int)(bytes * 9 / 8 / (1u << 20)) + 256;
}
