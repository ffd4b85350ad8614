/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the process: nodes, ports and workers, from a configuration
 * file (one node on real ports) or from a topology spec (every node of a
 * small instance, cables as ring pairs, L2 switches and hosts emulated).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "dcnfwd.h"

#define EMU_RING_SIZE 1024
#define CTL_TX_RING_SIZE 256
#define CTL_RX_RING_SIZE 4096

static int
make_router(struct dcnfwd *d)
{
	char err[256];

	/* Per-port arrays (lib/fwd's, the hello checks') hold this many. */
	if (dcn_topo_max_degree(d->t) > DCN_FWD_MAX_FABRIC_PORTS) {
		fprintf(stderr, "dcnfwd: %s: a vertex has more than %u ports\n",
			dcn_topo_spec(d->t), DCN_FWD_MAX_FABRIC_PORTS);
		return -EINVAL;
	}
	d->r = dcn_router_create_conf(d->t, &d->rconf, err, sizeof(err));
	if (d->r == NULL) {
		fprintf(stderr, "dcnfwd: routing: %s\n", err);
		return -EINVAL;
	}
	d->topo_hash = dcn_fabric_topo_hash(dcn_topo_spec(d->t));
	d->node_of_vertex = malloc(dcn_topo_vertices(d->t) * sizeof(uint32_t));
	if (d->node_of_vertex == NULL)
		return -ENOMEM;
	memset(d->node_of_vertex, 0xff,
	       dcn_topo_vertices(d->t) * sizeof(uint32_t));
	return 0;
}

static int
node_add(struct dcnfwd *d, uint32_t v)
{
	struct dcnfwd_node *n = &d->node[d->n_nodes];

	memset(n, 0, sizeof(*n));
	n->vertex = v;
	n->addr = dcn_topo_addr(d->t, v);
	n->host_local = -1;
	dcn_topo_format_vertex(d->t, v, n->name, sizeof(n->name));
	n->tb = dcn_rtable_compile(d->r, v);
	if (n->tb == NULL) {
		fprintf(stderr, "dcnfwd: cannot compile the table of %s\n", n->name);
		return -ENOMEM;
	}
	if (dcn_fwd_nbrs_init(&n->nbrs, d->t, v) != 0)
		return -ENOMEM;
	d->node_of_vertex[v] = d->n_nodes;
	return (int)d->n_nodes++;
}

static struct rte_ring *
ring_make(const char *what, unsigned int a, unsigned int b, unsigned int size,
	  unsigned int flags)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "dcn_%s_%u_%u", what, a, b);
	return rte_ring_create(name, size, (int)rte_socket_id(), flags);
}

static int
port_add(struct dcnfwd *d, enum dcnfwd_owner owner, uint32_t owner_idx,
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
	p->owner_idx = owner_idx;
	p->fabric_port = (int16_t)fabric_port;
	p->is_host = (uint8_t)is_host;
	p->nb_rxq = p->nb_txq = 1;
	p->peer_vertex = UINT32_MAX;
	p->fc_owner = UINT32_MAX;
	p->cable_peer = -1;
	p->ctl_tx = ring_make("ctl", pi, 0, CTL_TX_RING_SIZE,
			      RING_F_SP_ENQ | RING_F_SC_DEQ);
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

static int
alloc_tables(struct dcnfwd *d, unsigned int nodes, unsigned int switches,
	     unsigned int hosts, unsigned int ports)
{
	d->node = calloc(nodes ? nodes : 1, sizeof(*d->node));
	d->sw = calloc(switches ? switches : 1, sizeof(*d->sw));
	d->host = calloc(hosts ? hosts : 1, sizeof(*d->host));
	d->port = calloc(ports, sizeof(*d->port));
	d->max_ports = ports;
	d->ctl_rx = rte_ring_create("dcn_ctl_rx", CTL_RX_RING_SIZE,
				    (int)rte_socket_id(), RING_F_SC_DEQ);
	if (d->node == NULL || d->sw == NULL || d->host == NULL ||
	    d->port == NULL || d->ctl_rx == NULL)
		return -ENOMEM;
	return 0;
}

static int
make_mempool(struct dcnfwd *d, unsigned int mbufs)
{
	/* The largest per-lcore cache: a worker whose queues grow and
	 * shrink takes back the mbufs it just freed (warm), instead of
	 * going to the pool's ring, which hands out the coldest. */
	d->mp = rte_pktmbuf_pool_create("dcn_mbufs", mbufs,
					RTE_MIN((unsigned int)RTE_MEMPOOL_CACHE_MAX_SIZE, mbufs / 4), 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					(int)rte_socket_id());
	if (d->mp == NULL) {
		fprintf(stderr, "dcnfwd: cannot create a pool of %u mbufs: %s "
			"(give EAL more memory, e.g. -m 1024)\n", mbufs,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

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

		pi = port_add(d, OWNER_NODE, d->node_of_vertex[v], port, host, name);
	} else if (role == DCN_ROLE_SWITCH) {
		uint32_t s;

		for (s = 0; s < d->n_switches; s++)
			if (d->sw[s].vertex == v)
				break;
		pi = port_add(d, OWNER_SWITCH, s, port, 0, name);
	} else {
		pi = port_add(d, OWNER_HOST, host_of[v], port, 1, name);
	}
	if (pi >= 0) {
		struct dcnfwd_port *p = &d->port[pi];

		emu_mac(&p->mac, p->owner, p->owner_idx, p->local);
		if (p->owner == OWNER_NODE)
			d->node[p->owner_idx].mac[p->local] = p->mac;
	}
	return pi;
}

static int
emu_cable(struct dcnfwd *d, int pa, int pb, unsigned int id)
{
	struct rte_ring *ab, *ba;

	if (pa < 0 || pb < 0)
		return -ENOSPC;
	ab = ring_make("cab", id, 0, EMU_RING_SIZE,
		       RING_F_SC_DEQ);
	ba = ring_make("cab", id, 1, EMU_RING_SIZE,
		       RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		return -ENOMEM;
	d->port[pa].tx_ring = ab;
	d->port[pb].rx_ring = ab;
	d->port[pb].tx_ring = ba;
	d->port[pa].rx_ring = ba;
	d->port[pa].cable_peer = pb;
	d->port[pb].cable_peer = pa;
	if (d->link_rate > 0) {
		uint64_t per = RTE_MAX((uint64_t)((double)d->tsc_hz / d->link_rate), 1ul);

		d->port[pa].rl_per = d->port[pb].rl_per = per;
	}
	return 0;
}

int
dcnfwd_setup_emulation(struct dcnfwd *d, const char *spec)
{
	char err[256];
	uint32_t V, v, *host_of = NULL;
	unsigned int routers = 0, switches = 0, hosts = 0, ports = 0, cable = 0;
	struct dcn_adj *a;
	int ret = -ENOMEM;

	d->t = dcn_topo_create(spec, err, sizeof(err));
	if (d->t == NULL) {
		fprintf(stderr, "dcnfwd: --emulate %s: %s\n", spec, err);
		return -EINVAL;
	}
	V = dcn_topo_vertices(d->t);
	if (V > 4096) {
		fprintf(stderr, "dcnfwd: --emulate %s: too large to emulate in one "
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
	ret = make_router(d);
	if (ret == 0)
		ret = alloc_tables(d, routers, switches, hosts, ports);
	if (ret == 0)
		/* Flow control keeps frames queued rather than dropped. */
		ret = make_mempool(d, d->fc_on ? 65535 : 32767);
	if (ret != 0)
		goto out;
	d->n_hosts = hosts;
	for (v = 0; v < V && ret == 0; v++) {
		if (dcn_topo_is_router(d->t, v)) {
			ret = node_add(d, v) < 0 ? -ENOMEM : 0;
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
			if (dcn_gen_sink_init(&h->sink, 4 * hosts) != 0)
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
		pa = port_add(d, OWNER_NODE, d->node_of_vertex[v], -1, 1, name);
		snprintf(name, sizeof(name), "host-%s", vname);
		pb = port_add(d, OWNER_HOST, host_of[v], -1, 1, name);
		if (pa >= 0 && pb >= 0) {
			struct dcnfwd_port *p = &d->port[pa];

			emu_mac(&p->mac, OWNER_NODE, p->owner_idx, p->local);
			d->node[p->owner_idx].mac[p->local] = p->mac;
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

/* "net_memif0,socket=/x" names the device "net_memif0". */
static int
probe_port(const char *dev, uint16_t *port_id)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	const char *comma = strchr(dev, ',');
	size_t len = comma ? (size_t)(comma - dev) : strlen(dev);
	int ret;

	if (len >= sizeof(name))
		return -ENAMETOOLONG;
	memcpy(name, dev, len);
	name[len] = '\0';
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	ret = rte_dev_probe(dev);
	if (ret < 0)
		return ret;
	return rte_eth_dev_get_port_by_name(name, port_id);
}

/* Why a device did not open, as far as can be told from its name. */
static const char *
probe_hint(const char *dev, char *buf, size_t len)
{
	static const char *const vdevs[] = { "net_af_xdp", "net_af_packet",
		"net_memif", "net_tap", "net_ring", "net_null", "net_pcap",
		"net_vhost", "net_virtio_user", NULL };
	unsigned int i;

	if (isxdigit((unsigned char)dev[0]) && strchr(dev, ':') != NULL &&
	    strncmp(dev, "net_", 4) != 0) {
		snprintf(buf, len, " (a NIC: is it bound to vfio-pci or "
			 "uio_pci_generic (dpdk-devbind.py --status), and not "
			 "left out by EAL's -a/-b or --no-pci?)");
		return buf;
	}
	for (i = 0; vdevs[i] != NULL; i++)
		if (strncmp(dev, vdevs[i], strlen(vdevs[i])) == 0)
			break;
	if (vdevs[i] == NULL) {
		snprintf(buf, len, " (no DPDK driver has that name: a virtual "
			 "device is a driver name and a number, such as net_memif0, "
			 "net_af_xdp0 or net_tap0; a NIC is its PCI address)");
		return buf;
	}
	if ((!strncmp(dev, "net_af_xdp", 10) || !strncmp(dev, "net_af_packet", 13)) &&
	    dcnfwd_kernel_ifindex(dev) <= 0) {
		const char *s = strstr(dev, "iface=");

		snprintf(buf, len, " (no network interface '%.*s' here: ip link "
			 "lists them)", s ? (int)strcspn(s + 6, ",") : 0,
			 s ? s + 6 : "");
		return buf;
	}
	return "";
}

static int
start_ethdev(struct dcnfwd *d, struct dcnfwd_port *p,
	     const struct dcn_conf_port *cp)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info info;
	uint16_t q, rxd = (uint16_t)d->conf.rx_desc, txd = (uint16_t)d->conf.tx_desc;
	int ret;

	memset(&ec, 0, sizeof(ec));
	ret = rte_eth_dev_info_get(p->ethdev, &info);
	if (ret != 0)
		return ret;
	p->nb_rxq = cp->rxq;
	p->nb_txq = (uint16_t)RTE_MAX((unsigned int)cp->txq, d->n_workers);
	if (p->nb_rxq > info.max_rx_queues || p->nb_txq > info.max_tx_queues) {
		fprintf(stderr, "dcnfwd: %s: port [port.%s] has %u rx / %u tx "
			"queues at most; asked %u / %u (tx: one per worker)\n",
			d->conf.file, cp->name, info.max_rx_queues,
			info.max_tx_queues, p->nb_rxq, p->nb_txq);
		return -EINVAL;
	}
	if (p->nb_rxq > 1) {
		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec.rx_adv_conf.rss_conf.rss_hf =
			RTE_ETH_RSS_IP & info.flow_type_rss_offloads;
	}
	ret = rte_eth_dev_configure(p->ethdev, p->nb_rxq, p->nb_txq, &ec);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->ethdev, &rxd, &txd);
	for (q = 0; q < p->nb_rxq && ret == 0; q++)
		ret = rte_eth_rx_queue_setup(p->ethdev, q, rxd,
					     rte_eth_dev_socket_id(p->ethdev),
					     NULL, d->mp);
	for (q = 0; q < p->nb_txq && ret == 0; q++)
		ret = rte_eth_tx_queue_setup(p->ethdev, q, txd,
					     rte_eth_dev_socket_id(p->ethdev),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(p->ethdev);
	if (ret == 0)
		ret = rte_eth_macaddr_get(p->ethdev, &p->mac);
	return ret;
}

int
dcnfwd_setup_from_conf(struct dcnfwd *d)
{
	struct dcn_conf *c = &d->conf;
	char devargs[DCN_CONF_DEV_LEN + PATH_MAX];
	unsigned int i;
	int ret, ni;

	ret = make_router(d);
	if (ret == 0)
		ret = alloc_tables(d, 1, 0, 0, c->n_ports);
	if (ret == 0)
		ret = make_mempool(d, c->mbufs);
	if (ret != 0)
		return ret;
	ni = node_add(d, c->node);
	if (ni < 0)
		return ni;
	d->n_workers = c->n_workers;
	for (i = 0; i < c->n_ports; i++) {
		const struct dcn_conf_port *cp = &c->port[i];
		struct dcnfwd_port *p;
		int pi = port_add(d, OWNER_NODE, (uint32_t)ni, cp->fabric_port,
				  cp->host, cp->name);

		if (pi < 0)
			return pi;
		p = &d->port[pi];
		p->is_ethdev = 1;
		p->no_hellos = (uint8_t)!cp->hellos;
		p->no_credits = (uint8_t)!cp->credits;
		ret = probe_port(dcnfwd_xdp_devargs(d, cp->dev, devargs,
						    sizeof(devargs)), &p->ethdev);
		if (ret != 0) {
			char hint[256];

			fprintf(stderr, "dcnfwd: %s: [port.%s] dev: cannot open '%s': "
				"%s%s\n", c->file, cp->name, cp->dev, strerror(-ret),
				probe_hint(cp->dev, hint, sizeof(hint)));
			return ret;
		}
		ret = start_ethdev(d, p, cp);
		if (ret != 0) {
			fprintf(stderr, "dcnfwd: %s: [port.%s]: cannot start '%s': "
				"%s%s\n", c->file, cp->name, cp->dev,
				strerror(ret < 0 ? -ret : ret),
				strncmp(cp->dev, "net_af_xdp", 10) == 0 ?
				" (net_af_xdp takes 2048 mbufs per rx queue at "
				"start: is [queues] mbufs enough?)" : "");
			return ret < 0 ? ret : -ret;
		}
		d->node[ni].mac[p->local] = p->mac;
		dcnfwd_xdp_port_start(d, p, cp->dev);
	}
	return 0;
}

/* Give worker w the rx queue (pi, q), and its owner's context. */
static int
worker_take(struct dcnfwd *d, struct dcnfwd_worker *w, uint32_t pi, uint16_t q)
{
	struct dcnfwd_port *p = &d->port[pi];

	w->rx[w->n_rx].port = pi;
	w->rx[w->n_rx++].queue = q;
	if (p->owner == OWNER_HOST) {
		w->hosts[w->n_hosts++] = p->owner_idx;
	} else if (p->owner == OWNER_NODE && w->ctx[p->owner_idx] == NULL) {
		const struct dcnfwd_node *n = &d->node[p->owner_idx];
		struct dcn_fwd_ctx *c = rte_zmalloc("dcn_fwd_ctx", sizeof(*c),
						    RTE_CACHE_LINE_SIZE);
		uint16_t l;

		if (c == NULL)
			return -ENOMEM;
		if (dcn_fwd_init(c, d->r, n->tb, d->ethertype, d->per_packet) != 0)
			return -EINVAL;
		for (l = 0; l < n->n_ports; l++) {
			const struct dcnfwd_port *lp = &d->port[n->port[l]];

			if (dcn_fwd_add_port(c, lp->fabric_port, lp->is_host,
					     &n->mac[l]) != l)
				return -EINVAL;
		}
		dcn_fwd_set_nbrs(c, &n->nbrs);
		if (d->route_cache != 0) {
			void *mem = rte_malloc("dcn_route_cache",
					       dcn_fwd_cache_bytes(d->route_cache),
					       RTE_CACHE_LINE_SIZE);

			if (mem == NULL)
				return -ENOMEM;
			dcn_fwd_set_cache(c, mem, d->route_cache);
		}
		if (n->nbrs.slot != NULL) {
			c->nbr_frames = rte_zmalloc("dcn_nbr_frames",
						    (n->nbrs.mask + 1) * sizeof(uint64_t),
						    RTE_CACHE_LINE_SIZE);
			if (c->nbr_frames == NULL)
				return -ENOMEM;
		}
		w->ctx[p->owner_idx] = c;
	}
	return 0;
}

int
dcnfwd_setup_workers(struct dcnfwd *d)
{
	unsigned int lcore, i, n = 0;
	int ret;

	if (d->conf_file == NULL) {
		RTE_LCORE_FOREACH_WORKER(lcore)
			n++;
		if (n == 0) {
			fprintf(stderr, "dcnfwd: give EAL at least two lcores "
				"(-l 0-1): one for control, one or more workers\n");
			return -EINVAL;
		}
		d->n_workers = RTE_MIN(n, (unsigned int)DCNFWD_MAX_WORKERS);
	}
	d->worker = rte_zmalloc("dcn_workers", d->n_workers * sizeof(*d->worker),
				RTE_CACHE_LINE_SIZE);
	if (d->worker == NULL)
		return -ENOMEM;
	i = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (i == d->n_workers)
			break;
		d->worker[i].lcore = d->conf_file ? d->conf.worker[i].lcore : lcore;
		i++;
	}
	for (i = 0; i < d->n_workers; i++) {
		struct dcnfwd_worker *w = &d->worker[i];

		w->idx = i;
		w->rx = calloc(d->n_ports * DCN_CONF_MAX_QUEUES, sizeof(*w->rx));
		w->ctx = calloc(d->n_nodes, sizeof(*w->ctx));
		w->pst = rte_zmalloc("dcn_pst", d->n_ports * sizeof(*w->pst),
				     RTE_CACHE_LINE_SIZE);
		w->txb = rte_zmalloc("dcn_txb", d->n_ports * sizeof(*w->txb),
				     RTE_CACHE_LINE_SIZE);
		w->dirty = calloc(d->n_ports, sizeof(*w->dirty));
		w->hosts = calloc(d->n_hosts + 1, sizeof(*w->hosts));
		w->ctl_ports = calloc(d->n_ports, sizeof(*w->ctl_ports));
		w->fc_ports = calloc(d->n_ports, sizeof(*w->fc_ports));
		w->stage = rte_zmalloc("dcn_fc_stage", DCNFWD_FC_CHANS *
				       sizeof(*w->stage), RTE_CACHE_LINE_SIZE);
		w->stage_src = rte_zmalloc("dcn_fc_stage_src", DCNFWD_FC_CHANS *
					   sizeof(*w->stage_src), RTE_CACHE_LINE_SIZE);
		w->stage_n = rte_zmalloc("dcn_fc_stage_n", DCNFWD_FC_CHANS *
					 sizeof(*w->stage_n), RTE_CACHE_LINE_SIZE);
		if (w->rx == NULL || w->ctx == NULL || w->pst == NULL ||
		    w->txb == NULL || w->dirty == NULL || w->hosts == NULL ||
		    w->ctl_ports == NULL || w->fc_ports == NULL ||
		    w->stage == NULL || w->stage_src == NULL || w->stage_n == NULL)
			return -ENOMEM;
		if (d->conf_file != NULL && !rte_lcore_is_enabled(w->lcore)) {
			fprintf(stderr, "dcnfwd: %s: [worker] lcore %u is not in "
				"EAL's lcore list (-l)\n", d->conf.file, w->lcore);
			return -EINVAL;
		}
		if (d->conf_file != NULL && w->lcore == rte_get_main_lcore()) {
			fprintf(stderr, "dcnfwd: %s: [worker] lcore %u is the main "
				"lcore, which runs the control thread\n",
				d->conf.file, w->lcore);
			return -EINVAL;
		}
	}
	if (d->conf_file != NULL) {
		for (i = 0; i < d->n_workers; i++) {
			const struct dcn_conf_worker *cw = &d->conf.worker[i];
			unsigned int k;

			for (k = 0; k < cw->n_rx; k++) {
				ret = worker_take(d, &d->worker[i], cw->rx[k].port,
						  cw->rx[k].queue);
				if (ret != 0)
					return ret;
			}
		}
		/* A worker that polls nothing only holds its lcore: say so. */
		for (i = 0; i < d->n_workers; i++)
			if (d->worker[i].n_rx == 0)
				DCNFWD_LOG(WARNING, "worker %u polls nothing\n", i);
	} else {
		/* Every port of an owner on one worker, owners spread. */
		uint32_t pi;

		for (pi = 0; pi < d->n_ports; pi++) {
			const struct dcnfwd_port *p = &d->port[pi];
			unsigned int seq = p->owner == OWNER_NODE ? p->owner_idx :
					   p->owner == OWNER_SWITCH ?
						   d->n_nodes + p->owner_idx :
						   d->n_nodes + d->n_switches +
							   p->owner_idx;

			ret = worker_take(d, &d->worker[seq % d->n_workers], pi, 0);
			if (ret != 0)
				return ret;
		}
	}
	/* Each port's control frames go out through the first worker that
	 * polls it (any worker owns a TX queue of every port). */
	for (i = 0; i < d->n_ports; i++) {
		unsigned int k, wi, found = 0;

		for (wi = 0; wi < d->n_workers && !found; wi++)
			for (k = 0; k < d->worker[wi].n_rx; k++)
				if (d->worker[wi].rx[k].port == i) {
					found = 1;
					break;
				}
		wi = found ? wi - 1 : 0;
		d->worker[wi].ctl_ports[d->worker[wi].n_ctl_ports++] = i;
		/* The same worker serves the port's flow-control queues. */
		if (d->fc_on && d->port[i].owner == OWNER_NODE && found) {
			d->worker[wi].fc_ports[d->worker[wi].n_fc_ports++] = i;
			d->port[i].fc_owner = wi;
		}
	}
	return 0;
}

/* Credits run on cables between routing vertices (dcnfwd to dcnfwd) of a
 * fabric whose routes, with the VC rule, cannot wait in a cycle: NovaCube.
 * Ports behind an L2 switch, and Diamond's plain-IPv4 links (no VC field
 * for a dateline), get queues without credits (lib/fc/README.md). */
static enum dcn_fc_port_kind
fc_port_kind(const struct dcnfwd *d, uint32_t v, const struct dcnfwd_port *p)
{
	int64_t peer;

	if (p->is_host)
		return DCN_FC_PORT_HOST;
	if (p->no_credits || dcn_topo_kind(d->t) == DCN_TOPO_DIAMOND)
		return DCN_FC_PORT_NOCREDIT;
	peer = dcn_topo_port_peer(d->t, v, (unsigned int)p->fabric_port);
	return peer >= 0 && dcn_topo_is_router(d->t, (uint32_t)peer) ?
		       DCN_FC_PORT_CREDIT : DCN_FC_PORT_NOCREDIT;
}

/* Flow-control queues of every node, in memzones "dcn_fc.<node index>". */
int
dcnfwd_setup_fc(struct dcnfwd *d)
{
	unsigned int i, l;

	if (!d->fc_on)
		return 0;
	if (dcn_fc_mbuf_register() != 0) {
		fprintf(stderr, "dcnfwd: cannot register the mbuf field of flow "
			"control: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];
		uint8_t kind[DCN_FWD_MAX_PORTS];
		const char *names[DCN_FWD_MAX_PORTS];
		char id[16];

		for (l = 0; l < n->n_ports; l++) {
			const struct dcnfwd_port *p = &d->port[n->port[l]];

			kind[l] = (uint8_t)fc_port_kind(d, n->vertex, p);
			names[l] = p->name;
		}
		snprintf(id, sizeof(id), "%u", i);
		n->fc = dcn_fc_node_create(id, n->vertex, n->n_ports, kind, names,
					   &d->fcc);
		if (n->fc == NULL) {
			fprintf(stderr, "dcnfwd: node %s: cannot make its flow-control "
				"queues: %s\n", n->name, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		snprintf(n->fc->name, sizeof(n->fc->name), "%s", n->name);
	}
	return 0;
}

void
dcnfwd_teardown(struct dcnfwd *d)
{
	unsigned int i;

	dcnfwd_failover_teardown(d);
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		struct rte_mbuf *m;

		if (p->is_ethdev) {
			rte_eth_dev_stop(p->ethdev);
			rte_eth_dev_close(p->ethdev);
			dcnfwd_xdp_port_stop(p);
		}
		while (p->ctl_tx && rte_ring_dequeue(p->ctl_tx, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		/* Each cable ring is some port's rx ring exactly once. */
		while (p->rx_ring && rte_ring_dequeue(p->rx_ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(p->ctl_tx);
		rte_ring_free(p->rx_ring);
	}
	if (d->ctl_rx != NULL) {
		struct rte_mbuf *m;

		while (rte_ring_dequeue(d->ctl_rx, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(d->ctl_rx);
	}
	for (i = 0; d->worker && i < d->n_workers; i++) {
		struct dcnfwd_worker *w = &d->worker[i];
		unsigned int k;

		for (k = 0; w->ctx && k < d->n_nodes; k++) {
			if (w->ctx[k] != NULL) {
				rte_free(w->ctx[k]->nbr_frames);
				rte_free(w->ctx[k]->cache);
			}
			rte_free(w->ctx[k]);
		}
		free(w->rx);
		free(w->ctx);
		rte_free(w->pst);
		rte_free(w->txb);
		free(w->dirty);
		free(w->hosts);
		free(w->ctl_ports);
		free(w->fc_ports);
		rte_free(w->stage);
		rte_free(w->stage_src);
		rte_free(w->stage_n);
	}
	rte_free(d->worker);
	for (i = 0; i < d->n_nodes; i++) {
		dcn_fc_node_free(d->node[i].fc);
		dcn_rtable_free(d->node[i].tb);
		dcn_fwd_nbrs_free(&d->node[i].nbrs);
	}
	for (i = 0; i < d->n_switches; i++)
		free(d->sw[i].port);
	for (i = 0; i < d->n_hosts; i++) {
		dcn_gen_fini(&d->host[i].gen);
		dcn_gen_sink_fini(&d->host[i].sink);
	}
	/* Every mbuf is home now: what is not was leaked. */
	if (d->mp != NULL)
		d->mbufs_leaked = rte_mempool_in_use_count(d->mp);
	rte_mempool_free(d->mp);
	free(d->node);
	free(d->sw);
	free(d->host);
	free(d->port);
	free(d->node_of_vertex);
	dcn_router_free(d->r);
	dcn_topo_free(d->t);
}
