/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link detection, three ways: the PMD's link status (an LSC event where
 * the PMD raises one, else polled every 10 ms); the kernel carrier of the
 * interface behind an af_xdp, af_packet or tap port, from rtnetlink
 * (those PMDs report "up" whatever the cable does); and silence, judged
 * by lib/link from hellos (nbrs.c) and frames in (here), which takes
 * a link down while its carrier stays up (a dead neighbour).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_link

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "dcn_port_kernel.h"
#include "events.h"
#include "links.h"
#include "stats.h"
#include "xdp.h"

#define CARRIER_POLL_MS 10
/* linux/if.h's, which net/if.h (needed for if_nametoindex) leaves out */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

static void
set_port_down(struct dcnfwd *d, struct dcnfwd_node *n, uint32_t ni,
	      struct dcnfwd_port *p, int down)
{
	unsigned int w;

	for (w = 0; w < d->n_workers; w++)
		if (d->worker[w].node[ni] != NULL)
			dcn_fwd_set_port_down(d->worker[w].node[ni]->fwd, p->local,
					      down);
	__atomic_store_n(&p->dp.link_down, (uint8_t)down, __ATOMIC_RELEASE);
	if (!down && n->fc != NULL) {
		/* Credits start over with the peers' next credit frames. */
		uint16_t l = n->fc->port_link[p->local];

		for (w = 0; w < n->fc->port_links[p->local]; w++)
			dcn_fc_link_restart(n->fc, (uint16_t)(l + w));
	}
}

void
dcnfwd_port_event(struct dcnfwd *d, struct dcnfwd_port *p, enum dcn_link_event ev)
{
	struct dcnfwd_node *n = &d->node[p->owner_idx];

	if (ev == DCN_LINK_EV_NONE)
		return;
	set_port_down(d, n, p->owner_idx, p, ev == DCN_LINK_EV_DOWN);
	n->dirty = 1;
	n->lsa_due = 1;
	dcnfwd_event(d, ev == DCN_LINK_EV_DOWN ? EV_LINK_DOWN : EV_LINK_UP,
		     p->owner_idx, p->local, p->peer_vertex, p->link.cause, 0);
	DCNFWD_LOG(NOTICE, "node %s port %s: link %s%s%s\n", n->name, p->name,
		   ev == DCN_LINK_EV_DOWN ? "down" : "up",
		   ev == DCN_LINK_EV_DOWN ? ": " : "",
		   ev == DCN_LINK_EV_DOWN ? dcn_link_cause_name(p->link.cause) : "");
}

void
dcnfwd_carrier(struct dcnfwd *d, struct dcnfwd_port *p, int up, uint64_t us)
{
	if (!dcnfwd_port_is_fabric(p))
		return;
	if (p->link.carrier == (uint8_t)!!up)
		return;
	dcnfwd_port_event(d, p, dcn_link_carrier(&p->link, &d->lconf, up, us));
}

/* --- carrier sources --- */

static int
on_lsc(uint16_t port_id, enum rte_eth_event_type type, void *arg, void *ret)
{
	struct dcnfwd *d = arg;
	unsigned int i;

	(void)type;
	(void)ret;
	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].dp.is_ethdev && d->port[i].dp.ethdev == port_id)
			__atomic_store_n(&d->port[i].lsc_pending, 1, __ATOMIC_RELEASE);
	return 0;
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

/*
 * What the kernel dropped on the way out of interface ifindex, from its
 * own counter (sysfs, of the namespace dcnfwd runs in), or -1. A frame
 * dcnfwd hands to an AF_XDP or packet socket counts as sent; one the
 * kernel then drops (its cable down, the peer's end down) shows only
 * here.
 */
static int64_t
kernel_tx_dropped(int ifindex)
{
	char name[IF_NAMESIZE], path[96];

	if (if_indextoname((unsigned int)ifindex, name) == NULL)
		return -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped", name);
	return dcn_port_sysfs_read(path);
}

/*
 * Once a second: a neighbour in the other wire format, said once (a
 * port's count with encap = udp, which refuses unwrapped fabric frames;
 * a node's with encap = ether, which drops frames in IPv4/UDP to the
 * fabric's port). Its links stay down on both sides: neither takes the
 * other's hellos.
 */
static void
encap_mismatch_poll(struct dcnfwd *d)
{
	unsigned int i;

	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		uint64_t n;

		if (p->dp.udp == NULL || p->mismatch_said)
			continue;
		n = dcn_port_udp_refused(p->dp.udp, DCN_UDP_REFUSE_ETHER_FORMAT);
		if (n == 0)
			continue;
		p->mismatch_said = 1;
		DCNFWD_LOG(WARNING, "node %s port %s: %lu fabric frames in the ether "
			   "wire format refused (encap_mismatch): this node's encap "
			   "is udp; every node of a fabric must use one format, and "
			   "links to a node in the other stay down\n",
			   d->node[p->owner_idx].name, p->name, (unsigned long)n);
	}
	if (d->conf.encap == DCN_ENCAP_UDP)
		return;
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];
		struct dcn_fwd_stats s;

		if (n->mismatch_said)
			continue;
		dcnfwd_node_totals(d, i, &s);
		if (s.drop[DCN_DROP_ENCAP_MISMATCH] == 0)
			continue;
		n->mismatch_said = 1;
		DCNFWD_LOG(WARNING, "node %s: %lu frames in IPv4/UDP to the fabric's "
			   "port %u dropped (encap_mismatch): a neighbour's encap is "
			   "udp, this node's ether; every node of a fabric must use "
			   "one format, and links to a node in the other stay down\n",
			   n->name, (unsigned long)s.drop[DCN_DROP_ENCAP_MISMATCH],
			   d->conf.udp_port);
	}
}

/* Once a second: what each port lost outside dcnfwd since dcnfwd
 * started (the first reading is the base): frames the PMD missed on
 * receive (its ring full: imissed; a packet socket's ring full, which
 * net_af_packet does not report), and frames the kernel dropped after
 * dcnfwd sent them into a kernel-backed port. */
static void
kernel_drops_poll(struct dcnfwd *d, uint64_t now)
{
	unsigned int i;

	if (now < d->next_kernel_poll)
		return;
	d->next_kernel_poll = now + d->tsc_hz;
	encap_mismatch_poll(d);
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		struct rte_eth_stats es;
		int64_t v;

		if (p->is_af_packet && p->ifindex > 0)
			p->packet_missed += dcn_port_packet_rx_drops(p->ifindex);
		if (p->dp.is_ethdev && rte_eth_stats_get(p->dp.ethdev, &es) == 0) {
			if (!p->missed_known) {
				p->missed_base = es.imissed;
				p->missed_known = 1;
			}
			if (es.imissed >= p->missed_base)
				__atomic_store_n(&p->rx_missed, es.imissed - p->missed_base +
						 p->packet_missed, __ATOMIC_RELAXED);
			__atomic_store_n(&p->rx_bytes, es.ibytes, __ATOMIC_RELAXED);
			__atomic_store_n(&p->tx_bytes, es.obytes, __ATOMIC_RELAXED);
		}
		if (p->ifindex <= 0)
			continue;
		v = kernel_tx_dropped(p->ifindex);
		if (v < 0)
			continue;
		if (!p->kernel_tx_known) {
			p->kernel_tx_base = (uint64_t)v;
			p->kernel_tx_known = 1;
		}
		if ((uint64_t)v >= p->kernel_tx_base)
			__atomic_store_n(&p->kernel_tx_dropped,
					 (uint64_t)v - p->kernel_tx_base, __ATOMIC_RELAXED);
	}
}

void
dcnfwd_kernel_drops_final(struct dcnfwd *d)
{
	d->next_kernel_poll = 0;
	kernel_drops_poll(d, 1);
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
					dcnfwd_carrier(d, &d->port[i], up, us);
		}
	}
}

static void
ethdev_carrier(struct dcnfwd *d, struct dcnfwd_port *p, uint64_t us)
{
	struct rte_eth_link l;

	if (rte_eth_link_get_nowait(p->dp.ethdev, &l) == 0)
		dcnfwd_carrier(d, p, l.link_status == RTE_ETH_LINK_UP, us);
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

void
dcnfwd_links_setup(struct dcnfwd *d, uint64_t us)
{
	unsigned int i, nl_ports = 0;

	d->nl_fd = -1;
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		struct rte_eth_dev_info info;

		dcn_link_init(&p->link, &d->lconf, us);
		if (!p->dp.is_ethdev) {
			p->carrier_src = p->owner == OWNER_NODE && p->dp.rx_ring[0] != NULL ?
					 CARRIER_EMULATED : CARRIER_NONE;
			continue;
		}
		p->carrier_src = CARRIER_ETHDEV;
		if (rte_eth_dev_info_get(p->dp.ethdev, &info) == 0 &&
		    (!strcmp(info.driver_name, "net_af_xdp") ||
		     !strcmp(info.driver_name, "net_af_packet") ||
		     !strcmp(info.driver_name, "net_tap"))) {
			p->ifindex = dcn_port_devargs_ifindex(p->dev);
			p->is_af_packet = !strcmp(info.driver_name, "net_af_packet");
			if (p->ifindex > 0) {
				/* drops before dcnfwd started are not its */
				if (p->is_af_packet)
					dcn_port_packet_rx_drops(p->ifindex);
				p->carrier_src = CARRIER_NETLINK;
				nl_ports++;
			}
		}
		if (p->carrier_src == CARRIER_ETHDEV)
			rte_eth_dev_callback_register(p->dp.ethdev,
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
			dcnfwd_carrier(d, &d->port[i],
				       kernel_carrier(d->port[i].ifindex), us);
	kernel_drops_poll(d, rte_rdtsc());
}

void
dcnfwd_links_teardown(struct dcnfwd *d)
{
	unsigned int i;

	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].carrier_src == CARRIER_ETHDEV)
			rte_eth_dev_callback_unregister(d->port[i].dp.ethdev,
							RTE_ETH_EVENT_INTR_LSC,
							on_lsc, d);
	if (d->nl_fd >= 0)
		close(d->nl_fd);
	d->nl_fd = -1;
}

void
dcnfwd_links_read_times(struct dcnfwd *d)
{
	unsigned int i, j;

	for (i = 0; i < d->n_ports; i++)
		d->port[i].read_us = UINT64_MAX;
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];

		for (j = 0; j < w->n_rx; j++) {
			struct dcnfwd_port *p = &d->port[w->rx[j].port];
			uint64_t t = __atomic_load_n(&w->rx_read_tsc[j],
						     __ATOMIC_ACQUIRE);
			uint64_t us = t ? dcnfwd_us_of_tsc(d, t) : 0;

			if (us < p->read_us)
				p->read_us = us;
		}
	}
	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].read_us == UINT64_MAX)
			d->port[i].read_us = 0;
}

void
dcnfwd_links_tick(struct dcnfwd *d, uint64_t now, uint64_t us)
{
	int poll_ethdev = now >= d->next_carrier_poll;
	unsigned int i;

	if (d->nl_fd >= 0)
		netlink_read(d, us);
	kernel_drops_poll(d, now);
	if (poll_ethdev)
		d->next_carrier_poll = now + CARRIER_POLL_MS * d->tsc_hz / 1000;
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		uint64_t rx;
		enum dcn_link_event ev;

		if (!dcnfwd_port_is_fabric(p))
			continue;
		if (p->carrier_src == CARRIER_ETHDEV &&
		    (poll_ethdev || __atomic_exchange_n(&p->lsc_pending, 0,
							__ATOMIC_ACQ_REL)))
			ethdev_carrier(d, p, us);
		/* Frames in are a sign of life; those in the other wire
		 * format are not (the neighbour is not heard). */
		rx = dcnfwd_port_rx(d, i) - dcnfwd_port_mismatched(d, i);
		if (rx != p->rx_seen) {
			p->rx_seen = rx;
			dcn_link_alive(&p->link, us);
			/* Down for silence, yet its frames came within a
			 * silence's time after: its hellos were late, not
			 * missing (a neighbour that died and came back
			 * takes longer). */
			if (p->silence_unheard != 0 &&
			    p->link.state == DCN_LINK_DOWN &&
			    p->link.cause == DCN_LINK_CAUSE_HELLO_MISS &&
			    us - p->link.since <= d->lconf.hello_us * d->lconf.miss)
				p->silence_heard++;
			p->silence_unheard = 0;
		}
		/* A tester sends no hellos: its carrier speaks for it
		 * (hold-down included, after a replug). */
		if (p->no_hellos && p->link.carrier)
			dcnfwd_port_event(d, p, dcn_link_hello(&p->link, &d->lconf, us));
		ev = dcn_link_tick_read(&p->link, &d->lconf, us, p->read_us);
		if (ev == DCN_LINK_EV_DOWN)
			p->silence_unheard = 1;
		dcnfwd_port_event(d, p, ev);
	}
}
