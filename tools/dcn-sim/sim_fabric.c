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
#include <rte_udp.h>

#include "dcn_fabric.h"
#include "dcn_fwd.h"
#include "dcn_route.h"
#include "dcn_topo.h"
#include "sim_fabric.h"

/* Route cache entries a relay's context keeps (a relay's default). */
#define SIM_CACHE_ENTRIES 4096u
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

struct sim_fabric *
sim_fabric_create(const char *spec, const char *fail_links, char *err, size_t errlen)
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
	f->mp = rte_pktmbuf_pool_create(name, 131071, 256, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (f->v == NULL || f->server_vertex == NULL || a == NULL || f->mp == NULL)
		goto nomem;
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

unsigned int
sim_arrive(struct sim_fabric *f, uint32_t v, uint16_t in, struct rte_mbuf *m,
	   struct sim_out *out)
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
