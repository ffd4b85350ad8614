/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failover, on the control thread: link liveness per fabric port (and per
 * neighbour behind a switch port), failure announcements as the papers
 * spread them, and each node's table recompiled from what it knows and
 * published by RCU.
 *
 * Detection, three ways: the PMD's link status (an LSC event where the
 * PMD raises one, else polled every 10 ms); the kernel carrier of the
 * interface behind an af_xdp, af_packet or tap port, from rtnetlink
 * (those PMDs report "up" whatever the cable does); and hellos, whose
 * silence for hello_miss intervals takes a link down while its carrier
 * stays up (a dead neighbour). Any frame received on a confirmed link
 * counts as a hello, so a congested cable is not taken for a dead one.
 *
 * Reaction, in two steps: at once, the workers' contexts mark the port (or
 * the neighbour's MAC) down, and lib/fwd picks a live candidate of the
 * same set (the precomputed alternates); then, in the same control tick,
 * the node's table is compiled again from a router that knows the
 * failure, and published. Workers pick it up at their next burst; the old
 * one is freed once every worker has passed a quiescent point after the
 * swap, so no frame is routed by freed memory and none is lost by the
 * swap.
 *
 * Recovery: a link comes back when its carrier is up and hellos from the
 * expected neighbour have kept arriving for the hold-down (lib/link
 * doubles it for a link that flaps).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "dcnfwd.h"

/* Own announcements are sent again this often while they list a failure,
 * in case a copy was lost. */
#define LSA_REFRESH_MS 500
#define CARRIER_POLL_MS 10
#define LSA_TAIL 3
/* linux/if.h's, which net/if.h (needed for if_nametoindex) leaves out */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

static const char *const event_names[] = {
	[EV_LINK_DOWN] = "link_down",
	[EV_LINK_UP] = "link_up", [EV_NBR_DOWN] = "neighbour_down",
	[EV_NBR_UP] = "neighbour_up", [EV_TABLE] = "table",
	[EV_LSA_IN] = "announcement", [EV_CUT] = "cable_cut",
	[EV_REPLUG] = "cable_mended",
};

const char *
dcnfwd_event_name(enum dcnfwd_event_kind k)
{
	return (unsigned int)k < RTE_DIM(event_names) ? event_names[k] : "?";
}

uint64_t
dcnfwd_us_of_tsc(const struct dcnfwd *d, uint64_t tsc)
{
	return tsc / (d->tsc_hz / 1000000);
}

static void
event(struct dcnfwd *d, enum dcnfwd_event_kind kind, uint32_t node, int local,
      uint32_t vertex, uint8_t cause, uint32_t gen)
{
	struct dcnfwd_event *e = &d->ev[d->n_ev % DCNFWD_EVENTS];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	e->tsc = rte_rdtsc();
	e->wall_us = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	e->node = node;
	e->local = (int16_t)local;
	e->vertex = vertex;
	e->kind = (uint8_t)kind;
	e->cause = cause;
	e->gen = gen;
	__atomic_store_n(&d->n_ev, d->n_ev + 1, __ATOMIC_RELEASE);
}

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

/* A server every one of whose cables is down has failed, as far as
 * routing goes: RRect's mirror or standby then answers for it (§5). */
static void
fs_dead_vertices(const struct dcn_topo *t, struct dcn_failset *fs)
{
	uint32_t v, n = dcn_topo_servers(t);
	struct dcn_adj a[DCN_FWD_MAX_FABRIC_PORTS];

	if (dcn_topo_max_degree(t) > DCN_FWD_MAX_FABRIC_PORTS)
		return;
	for (v = 0; v < n; v++)
		if (dcn_topo_is_router(t, v) && dcn_topo_adj(t, v, a) > 0 &&
		    dcn_topo_failset_adj(fs, v, a) == 0)
			dcn_topo_failset_add_vertex(fs, v);
}

/* The links this node itself sees down: its ports, and the neighbours
 * gone silent behind its switch ports. @return how many (at most max). */
static unsigned int
own_down(const struct dcnfwd *d, const struct dcnfwd_node *n, uint32_t *v,
	 uint16_t *port, unsigned int max)
{
	unsigned int k = 0, l;

	for (l = 0; l < n->n_ports && k < max; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];

		if (dcnfwd_port_is_fabric(p) && !dcn_link_usable(&p->link)) {
			v[k] = n->vertex;
			port[k++] = (uint16_t)p->fabric_port;
		}
	}
	for (l = 0; n->nbr_link != NULL && l <= n->nbrs.mask && k < max; l++)
		if (n->nbrs.slot[l].vertex != DCN_FWD_NBR_EMPTY &&
		    !dcn_link_usable(&n->nbr_link[l])) {
			v[k] = n->nbrs.slot[l].vertex;
			port[k++] = n->nbr_vport[l];
		}
	return k;
}

static void
fib_free(struct dcnfwd_fib *f)
{
	if (f == NULL)
		return;
	dcn_rtable_free(f->tb);
	if (f->own_router)
		dcn_router_free(f->r);
	dcn_topo_failset_free(f->fs);
	free(f);
}

/* Retire the old fib: freed once every worker has been quiescent since. */
static void
fib_retire(struct dcnfwd *d, struct dcnfwd_fib *old)
{
	old->rcu_token = rte_rcu_qsbr_start(d->rcu);
	old->next = d->retired;
	d->retired = old;
}

static void
fib_reclaim(struct dcnfwd *d, int wait)
{
	struct dcnfwd_fib **pp = &d->retired;

	while (*pp != NULL) {
		struct dcnfwd_fib *f = *pp;

		if (wait || rte_rcu_qsbr_check(d->rcu, f->rcu_token, false) == 1) {
			*pp = f->next;
			fib_free(f);
		} else {
			pp = &f->next;
		}
	}
}

/* Compile node n's table from what it knows, and publish it. */
static int
rebuild(struct dcnfwd *d, uint32_t ni)
{
	struct dcnfwd_node *n = &d->node[ni];
	struct dcnfwd_fib *f = calloc(1, sizeof(*f)), *old = n->fib;
	uint32_t v[DCN_LINK_LSA_MAX];
	uint16_t port[DCN_LINK_LSA_MAX];
	struct fs_fill fill = { NULL, 0 };
	unsigned int k, own;
	char err[256];

	if (f == NULL)
		return -ENOMEM;
	fill.fs = dcn_topo_failset_create(d->t);
	if (fill.fs == NULL) {
		free(f);
		return -ENOMEM;
	}
	own = own_down(d, n, v, port, DCN_LINK_LSA_MAX);
	for (k = 0; k < own; k++)
		fs_add(v[k], port[k], &fill);
	dcn_link_db_foreach(n->lsdb, fs_add, &fill);
	n->n_down = fill.added;
	if (fill.added == 0) {
		/* Nothing known down: the fault-free router of the process. */
		dcn_topo_failset_free(fill.fs);
		f->r = d->r;
	} else {
		struct dcn_route_conf rc = d->rconf;

		fs_dead_vertices(d->t, fill.fs);
		f->fs = fill.fs;
		rc.fail = fill.fs;
		/* TRA has no failure rule; Totoro's is TFR (§3.2). */
		if (rc.algo == DCN_ALGO_TRA)
			rc.algo = DCN_ALGO_TFR;
		f->r = dcn_router_create_conf(d->t, &rc, err, sizeof(err));
		if (f->r == NULL) {
			DCNFWD_LOG(ERR, "node %s: routing with failures: %s\n",
				   n->name, err);
			fib_free(f);
			return -EINVAL;
		}
		f->own_router = 1;
	}
	f->tb = dcn_rtable_compile(f->r, n->vertex);
	if (f->tb == NULL) {
		fib_free(f);
		return -ENOMEM;
	}
	f->gen = old != NULL ? old->gen + 1 : 1;
	__atomic_store_n(&n->fib, f, __ATOMIC_RELEASE);
	if (old != NULL)
		fib_retire(d, old);
	event(d, EV_TABLE, ni, -1, UINT32_MAX, 0, f->gen);
	return 0;
}

/* --- announcements --- */

static struct rte_mbuf *
lsa_frame(struct dcnfwd *d, const struct dcnfwd_port *p,
	  const struct dcn_link_lsa *a)
{
	struct dcn_fabric_hdr h = {
		.version = DCN_FABRIC_VERSION,
		.type = DCN_FT_LINKSTATE,
		.ttl = 1,
		.len = (uint16_t)DCN_LINK_LSA_LEN(a->n),
		.src = a->origin,
	};
	struct rte_mbuf *m = dcnfwd_ctl_frame(d, p, NULL, d->ethertype,
					      DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN +
					      DCN_LINK_LSA_LEN(a->n));
	uint8_t *f;

	if (m == NULL)
		return NULL;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	dcn_link_lsa_write(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			   rte_pktmbuf_data_len(m) - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN,
			   a);
	return m;
}

/* Out of every fabric port of node n but the one it came in on. */
static unsigned int
lsa_flood(struct dcnfwd *d, struct dcnfwd_node *n, const struct dcn_link_lsa *a,
	  int except_local)
{
	unsigned int l, sent = 0;

	for (l = 0; l < n->n_ports; l++) {
		struct dcnfwd_port *p = &d->port[n->port[l]];
		struct rte_mbuf *m;

		if (!dcnfwd_port_is_fabric(p) || (int)l == except_local)
			continue;
		m = lsa_frame(d, p, a);
		if (m != NULL && dcnfwd_inject(d, n->port[l], &m, 1) == 1)
			sent++;
	}
	return sent;
}

static void
lsa_originate(struct dcnfwd *d, struct dcnfwd_node *n, uint64_t now)
{
	struct dcn_link_lsa a;
	uint32_t v[DCN_LINK_LSA_MAX];
	uint16_t port[DCN_LINK_LSA_MAX];
	unsigned int k;

	memset(&a, 0, sizeof(a));
	a.origin = n->addr;
	a.epoch = d->epoch;
	a.seq = ++n->lsa_seq;
	a.hops = (uint8_t)d->lsa_hops;
	a.n = (uint8_t)own_down(d, n, v, port, DCN_LINK_LSA_MAX);
	for (k = 0; k < a.n; k++) {
		a.link[k].addr = dcn_topo_addr(d->t, v[k]);
		a.link[k].port = port[k];
	}
	n->lsa_tx += lsa_flood(d, n, &a, -1);
	n->lsa_due = 0;
	/* Sent again while it lists a failure, and a few times after the
	 * last one clears; then quiet. */
	if (a.n > 0)
		n->lsa_tail = LSA_TAIL;
	else if (n->lsa_tail > 0)
		n->lsa_tail--;
	n->lsa_refresh_tsc = a.n > 0 || n->lsa_tail > 0 ?
			     now + LSA_REFRESH_MS * d->tsc_hz / 1000 : 0;
}

void
dcnfwd_failover_lsa_rx(struct dcnfwd *d, uint32_t pi, const uint8_t *f,
		       uint32_t len)
{
	struct dcnfwd_port *p = &d->port[pi];
	struct dcnfwd_node *n;
	struct dcn_link_lsa a;
	uint32_t v[DCN_LINK_LSA_MAX];
	uint16_t port[DCN_LINK_LSA_MAX];
	unsigned int k, nv = 0;
	int64_t origin;
	int ret;

	/* Announcements are taken from fabric ports only, never from a
	 * host port. */
	if (!dcnfwd_port_is_fabric(p))
		return;
	n = &d->node[p->owner_idx];
	if (len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN ||
	    dcn_link_lsa_read(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			      len - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN, &a) != 0) {
		n->lsa_refused++;
		return;
	}
	origin = dcn_topo_vertex_of(d->t, a.origin);
	if (origin < 0 || !dcn_topo_is_router(d->t, (uint32_t)origin) ||
	    (uint32_t)origin == n->vertex) {
		if ((uint32_t)origin != n->vertex)
			n->lsa_refused++;
		return;
	}
	if (!dcn_route_lsa_wants(d->r, n->vertex, (uint32_t)origin)) {
		n->lsa_refused++;
		return;
	}
	for (k = 0; k < a.n; k++) {
		int64_t x = dcn_topo_vertex_of(d->t, a.link[k].addr);

		if (x < 0)
			continue;
		v[nv] = (uint32_t)x;
		port[nv++] = a.link[k].port;
	}
	ret = dcn_link_db_accept(n->lsdb, (uint32_t)origin, a.epoch, a.seq, nv,
				 v, port);
	if (ret <= 0) {
		n->lsa_dup++;
		return;
	}
	n->lsa_rx++;
	if (ret == 1) {
		n->dirty = 1;
		event(d, EV_LSA_IN, p->owner_idx, p->local, (uint32_t)origin, 0, 0);
	}
	if (a.hops > 1) {
		a.hops--;
		n->lsa_relayed += lsa_flood(d, n, &a, p->local);
	}
}

/* --- link events --- */

static void
set_port_down(struct dcnfwd *d, struct dcnfwd_node *n, uint32_t ni,
	      struct dcnfwd_port *p, int down)
{
	unsigned int w;

	for (w = 0; w < d->n_workers; w++)
		if (d->worker[w].ctx[ni] != NULL)
			dcn_fwd_set_port_down(d->worker[w].ctx[ni], p->local, down);
	__atomic_store_n(&p->link_down, (uint8_t)down, __ATOMIC_RELEASE);
	if (!down && n->fc != NULL)
		/* Credits start over with the peer's next credit frame. */
		__atomic_store_n(&n->fc->link_gen[p->local],
				 n->fc->link_gen[p->local] + 1, __ATOMIC_RELEASE);
}

static void
port_event(struct dcnfwd *d, struct dcnfwd_port *p, enum dcn_link_event ev)
{
	struct dcnfwd_node *n = &d->node[p->owner_idx];

	if (ev == DCN_LINK_EV_NONE)
		return;
	set_port_down(d, n, p->owner_idx, p, ev == DCN_LINK_EV_DOWN);
	n->dirty = 1;
	n->lsa_due = 1;
	event(d, ev == DCN_LINK_EV_DOWN ? EV_LINK_DOWN : EV_LINK_UP, p->owner_idx,
	      p->local, p->peer_vertex, p->link.cause, 0);
	DCNFWD_LOG(NOTICE, "node %s port %s: link %s%s%s\n", n->name, p->name,
		   ev == DCN_LINK_EV_DOWN ? "down" : "up",
		   ev == DCN_LINK_EV_DOWN ? ": " : "",
		   ev == DCN_LINK_EV_DOWN ? dcn_link_cause_name(p->link.cause) : "");
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
		/* Back up: the MAC of its last hello, then not down. */
		__atomic_store_n(&e->mac, n->nbr_mac[slot], __ATOMIC_RELEASE);
		__atomic_store_n(&e->down, 0, __ATOMIC_RELEASE);
	}
	n->dirty = 1;
	n->lsa_due = 1;
	event(d, ev == DCN_LINK_EV_DOWN ? EV_NBR_DOWN : EV_NBR_UP, ni, -1,
	      e->vertex, n->nbr_link[slot].cause, 0);
}

void
dcnfwd_failover_hello(struct dcnfwd *d, struct dcnfwd_port *p, uint32_t v,
		      uint16_t vport, const struct rte_ether_addr *mac,
		      uint64_t now)
{
	struct dcnfwd_node *n = &d->node[p->owner_idx];
	uint64_t us = dcnfwd_us_of_tsc(d, now);

	port_event(d, p, dcn_link_hello(&p->link, &d->lconf, us));
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

static void
carrier(struct dcnfwd *d, struct dcnfwd_port *p, int up, uint64_t us)
{
	if (!dcnfwd_port_is_fabric(p))
		return;
	if (p->link.carrier == (uint8_t)!!up)
		return;
	port_event(d, p, dcn_link_carrier(&p->link, &d->lconf, up, us));
}

void
dcnfwd_emu_cut(struct dcnfwd *d, uint32_t pi, int cut, int carrier_event)
{
	struct dcnfwd_port *a = &d->port[pi];
	struct dcnfwd_port *b = a->cable_peer >= 0 ? &d->port[a->cable_peer] : NULL;
	uint64_t us = dcnfwd_us_of_tsc(d, rte_rdtsc());

	__atomic_store_n(&a->cut, (uint8_t)cut, __ATOMIC_RELEASE);
	if (b != NULL)
		__atomic_store_n(&b->cut, (uint8_t)cut, __ATOMIC_RELEASE);
	event(d, cut ? EV_CUT : EV_REPLUG,
	      a->owner == OWNER_NODE ? a->owner_idx : UINT32_MAX, a->local,
	      UINT32_MAX, 0, 0);
	if (!carrier_event)
		return;
	carrier(d, a, !cut, us);
	if (b != NULL)
		carrier(d, b, !cut, us);
}

/* --- carrier sources --- */

static void
lsc_callback_port(struct dcnfwd *d, uint16_t port_id)
{
	unsigned int i;

	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].is_ethdev && d->port[i].ethdev == port_id)
			__atomic_store_n(&d->port[i].lsc_pending, 1, __ATOMIC_RELEASE);
}

static int
on_lsc(uint16_t port_id, enum rte_eth_event_type type, void *arg, void *ret)
{
	(void)type;
	(void)ret;
	lsc_callback_port(arg, port_id);
	return 0;
}

/* The kernel interface a PMD sits on: "iface=NAME" of its devargs. */
int
dcnfwd_kernel_ifindex(const char *devargs)
{
	const char *s = strstr(devargs, "iface=");
	char name[IF_NAMESIZE];
	size_t k = 0;

	if (s == NULL)
		return 0;
	for (s += 6; *s && *s != ',' && k + 1 < sizeof(name); s++)
		name[k++] = *s;
	name[k] = '\0';
	return (int)if_nametoindex(name);
}

static int
kernel_carrier(int ifindex)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), up = 1;

	if (fd < 0)
		return 1;
	memset(&ifr, 0, sizeof(ifr));
	if (if_indextoname((unsigned int)ifindex, ifr.ifr_name) != NULL &&
	    ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	close(fd);
	return up;
}

static int
netlink_open(void)
{
	struct sockaddr_nl sa;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_ROUTE);

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	sa.nl_groups = RTMGRP_LINK;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
netlink_read(struct dcnfwd *d, uint64_t us)
{
	char buf[8192] __rte_aligned(4);
	ssize_t len;

	while ((len = recv(d->nl_fd, buf, sizeof(buf), 0)) > 0) {
		struct nlmsghdr *h;

		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			const struct ifinfomsg *ifi;
			unsigned int i;
			int up;

			if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
				continue;
			ifi = NLMSG_DATA(h);
			up = h->nlmsg_type == RTM_NEWLINK &&
			     (ifi->ifi_flags & IFF_UP) && (ifi->ifi_flags & IFF_LOWER_UP);
			for (i = 0; i < d->n_ports; i++)
				if (d->port[i].carrier_src == CARRIER_NETLINK &&
				    d->port[i].ifindex == ifi->ifi_index)
					carrier(d, &d->port[i], up, us);
		}
	}
}

static void
ethdev_carrier(struct dcnfwd *d, struct dcnfwd_port *p, uint64_t us)
{
	struct rte_eth_link l;

	if (rte_eth_link_get_nowait(p->ethdev, &l) == 0)
		carrier(d, p, l.link_status == RTE_ETH_LINK_UP, us);
}

void
dcnfwd_control_wait(struct dcnfwd *d, unsigned int timeout_us)
{
	if (d->nl_fd >= 0) {
		struct pollfd pf = { .fd = d->nl_fd, .events = POLLIN };

		/* A carrier event wakes the control thread at once. */
		poll(&pf, 1, (int)((timeout_us + 999) / 1000));
		return;
	}
	rte_delay_us_sleep(timeout_us);
}

/* --- setup and the control tick --- */

int
dcnfwd_failover_setup(struct dcnfwd *d)
{
	uint64_t us = dcnfwd_us_of_tsc(d, rte_rdtsc());
	unsigned int i, l, nl_ports = 0;
	size_t sz;

	d->lconf.hello_us = (uint64_t)d->hello_interval_ms * 1000;
	dcn_link_conf_defaults(&d->lconf);
	d->lsa_hops = dcn_route_lsa_hops(d->r);
	d->epoch = (uint32_t)rte_rand() | 1;
	d->nl_fd = -1;
	/* Silence counts from the first tick: until then no hello could be
	 * sent or taken (workers and the run loop are still starting). */
	d->last_tick_us = us;
	/* Readers: the workers, and telemetry (thread id n_workers). */
	sz = rte_rcu_qsbr_get_memsize(d->n_workers + 1);
	d->rcu = rte_zmalloc("dcn_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (d->rcu == NULL || rte_rcu_qsbr_init(d->rcu, d->n_workers + 1) != 0)
		return -ENOMEM;
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];
		struct dcnfwd_fib *f = calloc(1, sizeof(*f));

		if (f == NULL)
			return -ENOMEM;
		f->r = d->r;
		f->tb = n->tb;
		f->gen = 1;
		n->tb = NULL; /* owned by the fib from now on */
		n->fib = f;
		n->lsdb = dcn_link_db_create(dcn_topo_vertices(d->t));
		if (n->lsdb == NULL)
			return -ENOMEM;
		if (n->nbrs.slot != NULL) {
			n->nbr_link = calloc(n->nbrs.mask + 1, sizeof(*n->nbr_link));
			n->nbr_vport = calloc(n->nbrs.mask + 1, sizeof(*n->nbr_vport));
			n->nbr_mac = calloc(n->nbrs.mask + 1, sizeof(*n->nbr_mac));
			if (n->nbr_link == NULL || n->nbr_vport == NULL ||
			    n->nbr_mac == NULL)
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
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		struct rte_eth_dev_info info;

		dcn_link_init(&p->link, &d->lconf, us);
		if (!p->is_ethdev) {
			p->carrier_src = p->owner == OWNER_NODE && p->rx_ring != NULL ?
					 CARRIER_EMULATED : CARRIER_NONE;
			continue;
		}
		p->carrier_src = CARRIER_ETHDEV;
		if (rte_eth_dev_info_get(p->ethdev, &info) == 0 &&
		    (!strcmp(info.driver_name, "net_af_xdp") ||
		     !strcmp(info.driver_name, "net_af_packet") ||
		     !strcmp(info.driver_name, "net_tap"))) {
			p->ifindex = dcnfwd_kernel_ifindex(d->conf.port[i].dev);
			if (p->ifindex > 0) {
				p->carrier_src = CARRIER_NETLINK;
				nl_ports++;
			}
		}
		if (p->carrier_src == CARRIER_ETHDEV)
			rte_eth_dev_callback_register(p->ethdev,
						      RTE_ETH_EVENT_INTR_LSC,
						      on_lsc, d);
	}
	if (nl_ports) {
		d->nl_fd = netlink_open();
		if (d->nl_fd < 0)
			DCNFWD_LOG(WARNING, "rtnetlink: %s; kernel carrier is "
				   "not watched, hellos only\n", strerror(errno));
	}
	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].carrier_src == CARRIER_NETLINK)
			carrier(d, &d->port[i], kernel_carrier(d->port[i].ifindex), us);
	return 0;
}

void
dcnfwd_failover_teardown(struct dcnfwd *d)
{
	unsigned int i;

	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].carrier_src == CARRIER_ETHDEV)
			rte_eth_dev_callback_unregister(d->port[i].ethdev,
							RTE_ETH_EVENT_INTR_LSC,
							on_lsc, d);
	if (d->rcu != NULL)
		fib_reclaim(d, 1);
	for (i = 0; d->node != NULL && i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		fib_free(n->fib);
		n->fib = NULL;
		dcn_link_db_free(n->lsdb);
		n->lsdb = NULL;
		free(n->nbr_link);
		free(n->nbr_vport);
		free(n->nbr_mac);
		n->nbr_mac = NULL;
		n->nbr_link = NULL;
		n->nbr_vport = NULL;
	}
	if (d->nl_fd >= 0)
		close(d->nl_fd);
	d->nl_fd = -1;
	rte_free(d->rcu);
	d->rcu = NULL;
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

void
dcnfwd_failover_tick(struct dcnfwd *d, uint64_t now)
{
	uint64_t us = dcnfwd_us_of_tsc(d, now);
	int poll_ethdev = now >= d->next_carrier_poll;
	unsigned int i, l;
	int away = 0;

	if (d->rcu == NULL)
		return;
	/* The observer is this thread, which sends and takes hellos, and the
	 * workers, which carry them. Ticks come every millisecond or so: a
	 * longer gap is this thread away (compiling tables, or not
	 * scheduled); a worker that has not looped since the last tick was
	 * not scheduled either. Either way the gap is nobody's silence. */
	for (i = 0; i < d->n_workers; i++) {
		struct dcnfwd_worker *w = &d->worker[i];
		uint64_t loops = __atomic_load_n(&w->loops, __ATOMIC_RELAXED);

		away |= loops == w->loops_seen;
		w->loops_seen = loops;
	}
	if (us - d->last_tick_us > d->lconf.hello_us || away)
		observer_away(d, us - d->last_tick_us, us);
	d->last_tick_us = us;
	if (d->nl_fd >= 0)
		netlink_read(d, us);
	if (poll_ethdev)
		d->next_carrier_poll = now + CARRIER_POLL_MS * d->tsc_hz / 1000;
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		struct dcnfwd_port_stats ps;

		if (!dcnfwd_port_is_fabric(p))
			continue;
		if (p->carrier_src == CARRIER_ETHDEV &&
		    (poll_ethdev || __atomic_exchange_n(&p->lsc_pending, 0,
							__ATOMIC_ACQ_REL)))
			ethdev_carrier(d, p, us);
		/* Frames in are a sign of life. */
		dcnfwd_port_totals(d, i, &ps);
		if (ps.rx != p->rx_seen) {
			p->rx_seen = ps.rx;
			dcn_link_alive(&p->link, us);
		}
		/* A tester sends no hellos: its carrier speaks for it
		 * (hold-down included, after a replug). */
		if (p->no_hellos && p->link.carrier)
			port_event(d, p, dcn_link_hello(&p->link, &d->lconf, us));
		port_event(d, p, dcn_link_tick(&p->link, &d->lconf, us));
	}
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		for (l = 0; n->nbr_link != NULL && l <= n->nbrs.mask; l++)
			if (n->nbrs.slot[l].vertex != DCN_FWD_NBR_EMPTY)
				nbr_event(d, i, l, dcn_link_tick(&n->nbr_link[l],
								 &d->lconf, us));
	}
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		if (n->dirty) {
			n->dirty = 0;
			if (rebuild(d, i) != 0)
				n->dirty = 1; /* try again next tick */
		}
		if (d->lsa_hops > 0 &&
		    (n->lsa_due || (n->lsa_refresh_tsc && now >= n->lsa_refresh_tsc)))
			lsa_originate(d, n, now);
	}
	fib_reclaim(d, 0);
}
