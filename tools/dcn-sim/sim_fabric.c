/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-sim's fabric: the relays' lib/route tables and lib/fwd step, one
 * context a routing vertex, as a relay builds them, with what its hellos
 * would teach it (its neighbours' MACs) set from the topology; L2
 * switches by MAC; servers. Flow control: sim_fc.c; frames: sim_frame.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dcn_fabric.h"
#include "sim_priv.h"

void
sim_port_mac(struct rte_ether_addr *m, uint32_t v, uint16_t port)
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
		sim_port_mac(&mac, v, (uint16_t)p);
		if (dcn_fwd_add_port(x->fwd, (int)p, sim_faces_host(t, v, (uint16_t)p),
				     &mac) != (int)p)
			goto nomem;
	}
	if (dcn_topo_role(t, v) == DCN_ROLE_SERVER) {
		sim_port_mac(&mac, v, SIM_PORT_HOST);
		x->host_local = (uint16_t)dcn_fwd_add_port(x->fwd, -1, 1, &mac);
	}
	/* What hellos teach: the MAC behind each cable, and of each
	 * neighbour behind a switch (its port on that switch). */
	for (p = 0; p < x->n_ports; p++) {
		uint16_t pp;
		int64_t peer = sim_port_peer(f, v, (uint16_t)p, &pp);

		if (peer < 0 || f->v[peer].kind == SIM_SWITCH)
			continue;
		sim_port_mac(&mac, (uint32_t)peer, pp);
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
		sim_port_mac(&mac, e->vertex, (uint16_t)wp);
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

/* Vertex v's cables, each looked up once. */
static int
peers_setup(struct sim_fabric *f, uint32_t v, struct dcn_adj *a)
{
	struct sim_vertex *x = &f->v[v];
	unsigned int n = dcn_topo_adj(f->t, v, a), p, i;
	unsigned int slots = x->n_ports ? x->n_ports : 1;

	x->peer = malloc(slots * sizeof(*x->peer));
	x->peer_port = calloc(slots, sizeof(*x->peer_port));
	x->down = calloc(slots, sizeof(*x->down));
	if (x->peer == NULL || x->peer_port == NULL || x->down == NULL)
		return -ENOMEM;
	for (p = 0; p < x->n_ports; p++)
		x->peer[p] = -1;
	for (i = 0; i < n; i++) {
		x->peer[a[i].port] = a[i].peer;
		x->peer_port[a[i].port] = a[i].peer_port;
		x->down[a[i].port] = (uint8_t)dcn_topo_failset_link_down(f->fs, v, a[i].port,
									 a[i].peer);
	}
	return 0;
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
		if (x->peer[p] < 0)
			continue;
		sim_port_mac(&mac, (uint32_t)x->peer[p], x->peer_port[p]);
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
	sim_clock_start(f);
	if (fc != NULL) {
		f->fc_on = 1;
		f->fc = *fc;
		if (sim_fc_start(f) != 0)
			goto nomem;
	}
	for (v = 0; v < f->n_vertices; v++) {
		struct sim_vertex *x = &f->v[v];

		x->n_ports = (uint16_t)dcn_topo_ports(f->t, v);
		x->host_local = SIM_NO_HOST;
		if (peers_setup(f, v, a) != 0)
			goto nomem;
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
		    sim_relay_fc_setup(f, v, err, errlen) != 0)
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

		sim_relay_fc_free(x);
		dcn_fwd_nbrs_free(&x->nbrs);
		dcn_rtable_free(x->tb);
		rte_free(x->fwd);
		rte_free(x->cache);
		free(x->port_mac);
		free(x->peer);
		free(x->peer_port);
		free(x->down);
	}
	free(f->v);
	free(f->server_vertex);
	dcn_router_free(f->r);
	dcn_topo_failset_free(f->fs);
	dcn_topo_free(f->t);
	sim_clock_stop();
	if (f->fc_on)
		sim_fc_stop(f);
	rte_mempool_free(f->mp);
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
	const struct sim_vertex *x = &f->v[v];

	if (x->peer[port] < 0 || x->down[port])
		return -1;
	if (peer_port != NULL)
		*peer_port = x->peer_port[port];
	return x->peer[port];
}

int64_t
sim_vertex_by_name(const struct sim_fabric *f, const char *name)
{
	char err[128];

	return dcn_topo_parse_vertex(f->t, name, err, sizeof(err));
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
		return sim_relay_fc_arrive(f, v, local, m, out);
	if (dcn_fwd_burst(x->fwd, local, &m, 1, &o) == 0)
		return 0;
	if (o >= x->fwd->n_ports) {
		/* a control frame, or one parked for queues the simulation
		 * has not got: neither is a data frame's way */
		rte_pktmbuf_free(m);
		return 0;
	}
	out->port = o == x->host_local ? SIM_PORT_HOST : o;
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
	/* the relays' router, whose VCs the queues take (TFR's on Totoro) */
	r = dcn_router_for_failures(t, &rc, NULL, err, sizeof(err));
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
		n = sim_relay_shape(t, v, &nb, kind, links, fport);
		sim_relay_fc_conf(&fcc, fc, dcn_route_vcs(r));
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
