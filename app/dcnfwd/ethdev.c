/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node of a configuration file on its DPDK ports: each port probed by
 * its devargs (dcnfwd's XDP program added to net_af_xdp ones), configured
 * with the queues and descriptors the file gives, and started. A port
 * that does not open or start is reported with what can be told of the
 * cause.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_port

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include "dcn_port_rss.h"
#include "ethdev.h"
#include "setup.h"
#include "xdp.h"

/*
 * A TAP port, its PMD's lines below critical unsaid while it is made: it
 * sets up a multiq qdisc for rte_flow, which dcnfwd does not use, and on a
 * kernel without sch_multiq says so in four error lines at every start.
 * A probe that fails is said by the caller, with its errno.
 */
static int
probe_tap_quietly(const char *dev)
{
	int type = rte_log_register("pmd.net.tap"), level = 0, ret;

	if (type >= 0) {
		level = rte_log_get_level((uint32_t)type);
		rte_log_set_level((uint32_t)type, RTE_LOG_CRIT);
	}
	ret = rte_dev_probe(dev);
	if (type >= 0 && level > 0)
		rte_log_set_level((uint32_t)type, (uint32_t)level);
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
	if (strncmp(name, "net_tap", 7) == 0)
		ret = probe_tap_quietly(dev);
	else
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
	    dcn_port_devargs_ifindex(dev) <= 0) {
		const char *s = strstr(dev, "iface=");

		snprintf(buf, len, " (no network interface '%.*s' here: ip link "
			 "lists them)", s ? (int)strcspn(s + 6, ",") : 0,
			 s ? s + 6 : "");
		return buf;
	}
	return "";
}

/*
 * net_af_xdp (DPDK 22.11, built with unaligned chunks) hands the kernel
 * the mbuf pool itself as its UMEM, and gives the kernel's fill ring back
 * one mbuf for each frame it receives, never more. On --no-huge memory
 * (4 KB pages, the pool in pieces) the kernel takes some of those buffers
 * off the fill ring and cannot use them (a chunk across a page it cannot
 * map whole, or outside the one range the PMD registered), so they never
 * come back as frames: each such buffer is a fill-ring entry lost for
 * good, and once the ring holds none the kernel can use, the port
 * receives nothing more, with no error anywhere (rx_missed climbs).
 * Seen at about 5,100 frames of a steady stream. Refused, then.
 */
#define AF_XDP_NO_HUGE_WHY \
	" (on 4 KB pages the kernel discards receive buffers it cannot use, " \
	"the PMD never replaces them, and the port stops receiving for good " \
	"after a few thousand frames): reserve hugepages, or use net_af_packet"

/* net_af_xdp fills each receive queue's fill ring with this many mbufs
 * when the queue is set up (DPDK 22.11). */
#define AF_XDP_FILL_MBUFS 2048u

/* Why a port did not start, where dcnfwd can tell: only a shortage of
 * mbufs is dcnfwd's to name; otherwise the PMD's own messages above say
 * it (an interface held by another XDP program is refused before). */
static const char *
start_hint(const struct dcn_conf_port *cp, unsigned int free_mbufs, char *buf,
	   size_t len)
{
	if (!dcnfwd_is_af_xdp(cp->dev))
		return "";
	if (free_mbufs < AF_XDP_FILL_MBUFS * cp->rxq) {
		snprintf(buf, len, " (net_af_xdp takes %u mbufs per rx queue at "
			 "start and %u were free: raise [queues] mbufs)",
			 AF_XDP_FILL_MBUFS, free_mbufs);
		return buf;
	}
	return " (net_af_xdp's messages above say why)";
}

/* Several RX queues: say whether the NIC spreads frames over them as
 * dcn_port_rss.h asks, and what a fabric of encap = ether gets. */
static void
rss_report(const struct dcnfwd *d, const struct dcnfwd_port *p,
	   const struct dcn_conf_port *cp)
{
	char why[256];
	int st = dcn_port_rss_check(p->dp.ethdev, p->dp.nb_rxq, why, sizeof(why));

	if (st == DCN_PORT_RSS_OK) {
		DCNFWD_LOG(INFO, "port %s: RSS over %u queues (symmetric key, "
			   "IPv4 and ports)\n", cp->name, p->dp.nb_rxq);
		if (!cp->host && d->conf.encap != DCN_ENCAP_UDP &&
		    dcn_topo_kind(d->t) != DCN_TOPO_DIAMOND)
			DCNFWD_LOG(WARNING, "port %s: %u RX queues, but fabric "
				   "frames of encap = ether all land in one: set "
				   "[fabric] encap = udp on every node to spread "
				   "them\n", cp->name, p->dp.nb_rxq);
	} else if (st > 0) {
		DCNFWD_LOG(WARNING, "port %s: RSS over %u queues not as asked: "
			   "%s\n", cp->name, p->dp.nb_rxq, why);
	} else {
		DCNFWD_LOG(WARNING, "port %s: RSS not checked: %s\n", cp->name,
			   strerror(-st));
	}
}

static int
start_ethdev(struct dcnfwd *d, struct dcnfwd_port *p,
	     const struct dcn_conf_port *cp)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info info;
	uint8_t rss_key[DCN_PORT_RSS_KEY_MAX];
	uint16_t q, rxd = (uint16_t)d->conf.rx_desc, txd = (uint16_t)d->conf.tx_desc;
	unsigned int in_use;
	int ret, home;

	memset(&ec, 0, sizeof(ec));
	ret = rte_eth_dev_info_get(p->dp.ethdev, &info);
	if (ret != 0)
		return ret;
	p->dp.nb_rxq = cp->rxq;
	p->dp.nb_txq = (uint16_t)RTE_MAX((unsigned int)cp->txq, d->conf.n_workers);
	if (p->dp.nb_rxq > info.max_rx_queues || p->dp.nb_txq > info.max_tx_queues) {
		DCNFWD_LOG(CRIT, "%s: port [port.%s] has %u rx / %u tx "
			"queues at most; asked %u / %u (tx: one per worker)\n",
			d->conf.file, cp->name, info.max_rx_queues,
			info.max_tx_queues, p->dp.nb_rxq, p->dp.nb_txq);
		return -EINVAL;
	}
	if (p->dp.nb_rxq > 1) {
		/* The fields, key and RETA of dcn_port_rss.h: frames of
		 * encap = udp spread by their flows. */
		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec.rx_adv_conf.rss_conf.rss_hf =
			dcn_port_rss_hf() & info.flow_type_rss_offloads;
		if (info.hash_key_size > 0 && info.hash_key_size <= sizeof(rss_key)) {
			dcn_port_rss_key(rss_key, info.hash_key_size);
			ec.rx_adv_conf.rss_conf.rss_key = rss_key;
			ec.rx_adv_conf.rss_conf.rss_key_len = info.hash_key_size;
		}
	}
	/* Carrier by interrupt where the PMD raises one (links.c takes the
	 * event; its 10 ms poll stays as the net). Not for the PMDs over a
	 * kernel interface, whose carrier comes from rtnetlink. */
	if (info.dev_flags != NULL && (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) &&
	    strcmp(info.driver_name, "net_af_xdp") != 0 &&
	    strcmp(info.driver_name, "net_af_packet") != 0 &&
	    strcmp(info.driver_name, "net_tap") != 0) {
		ec.intr_conf.lsc = 1;
		p->lsc_intr = 1;
	}
	ret = rte_eth_dev_configure(p->dp.ethdev, p->dp.nb_rxq, p->dp.nb_txq, &ec);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->dp.ethdev, &rxd, &txd);
	in_use = rte_mempool_in_use_count(p->rx_mp);	/* net_af_xdp: below */
	/* The port's rings and mbufs on its own node (dcn_port_numa.h). */
	home = dcn_numa_home(p->socket, (int)rte_socket_id());
	for (q = 0; q < p->dp.nb_rxq && ret == 0; q++)
		ret = rte_eth_rx_queue_setup(p->dp.ethdev, q, rxd, home, NULL,
					     p->rx_mp);
	for (q = 0; q < p->dp.nb_txq && ret == 0; q++)
		ret = rte_eth_tx_queue_setup(p->dp.ethdev, q, txd, home, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(p->dp.ethdev);
	/* Only this thread takes mbufs while ports start. */
	if (ret == 0 && dcnfwd_is_af_xdp(cp->dev))
		p->pmd_kept_mbufs = rte_mempool_in_use_count(p->rx_mp) - in_use;
	if (ret == 0)
		ret = rte_eth_macaddr_get(p->dp.ethdev, &p->mac);
	if (ret == 0 && p->dp.nb_rxq > 1)
		rss_report(d, p, cp);
	return ret;
}

int
dcnfwd_setup_from_conf(struct dcnfwd *d)
{
	struct dcn_conf *c = &d->conf;
	char devargs[DCN_CONF_DEV_LEN + PATH_MAX];
	unsigned int i;
	int ret, ni;

	ret = dcnfwd_make_router(d);
	if (ret == 0)
		ret = dcnfwd_alloc_tables(d, 1, c->n_ports);
	if (ret == 0)
		ret = dcnfwd_make_mempool(d, c->mbufs);
	if (ret != 0)
		return ret;
	ni = dcnfwd_node_add(d, c->node);
	if (ni < 0)
		return ni;
	for (i = 0; i < c->n_ports; i++) {
		const struct dcn_conf_port *cp = &c->port[i];
		struct dcnfwd_port *p;
		const char *dev;
		unsigned int free_mbufs;
		int pi = dcnfwd_port_add(d, OWNER_NODE, (uint32_t)ni, cp->fabric_port,
					 cp->host, cp->name);

		if (pi < 0)
			return pi;
		p = &d->port[pi];
		snprintf(p->dev, sizeof(p->dev), "%s", cp->dev);
		p->no_hellos = (uint8_t)!cp->hellos;
		p->no_credits = (uint8_t)!cp->credits;
		if (dcnfwd_is_af_xdp(cp->dev) && !rte_eal_has_hugepages()) {
			DCNFWD_LOG(CRIT, "%s: [port.%s] dev: %s needs "
				"hugepages, and EAL runs with --no-huge%s\n",
				c->file, cp->name, cp->dev, AF_XDP_NO_HUGE_WHY);
			return -EINVAL;
		}
		dev = dcnfwd_xdp_devargs(d, cp->dev, devargs, sizeof(devargs));
		ret = dcnfwd_xdp_claim(c->file, cp->name, dev);
		if (ret != 0)
			return ret;
		ret = probe_port(dev, &p->dp.ethdev);
		if (ret != 0) {
			char hint[256];

			DCNFWD_LOG(CRIT, "%s: [port.%s] dev: cannot open '%s': "
				"%s%s\n", c->file, cp->name, cp->dev, strerror(-ret),
				probe_hint(cp->dev, hint, sizeof(hint)));
			return ret;
		}
		/* Only a device that opened is this port's to stop and close:
		 * ethdev 0 of a port that never did may be another's. */
		p->dp.is_ethdev = 1;
		/* Its NUMA node: the PCI device's, or the NIC's behind a
		 * kernel interface (a vdev's ethdev says none). */
		p->socket = rte_eth_dev_socket_id(p->dp.ethdev);
		if (p->socket < 0)
			p->socket = dcn_numa_of_dev("/sys", cp->dev);
		p->rx_mp = dcnfwd_port_pool(d, p->socket, c->mbufs);
		if (p->rx_mp == NULL)
			return -ENOMEM;
		free_mbufs = rte_mempool_avail_count(p->rx_mp);
		ret = start_ethdev(d, p, cp);
		if (ret != 0) {
			char hint[160];

			DCNFWD_LOG(CRIT, "%s: [port.%s]: cannot start '%s': "
				"%s%s\n", c->file, cp->name, cp->dev,
				strerror(ret < 0 ? -ret : ret),
				start_hint(cp, free_mbufs, hint, sizeof(hint)));
			return ret < 0 ? ret : -ret;
		}
		d->node[ni].mac[p->local] = p->mac;
		dcnfwd_xdp_port_start(d, p, cp->dev);
	}
	return 0;
}

/*
 * DPDK's net_memif unmaps a link's shared rings in its interrupt thread as
 * soon as the peer leaves, with nothing that waits for a receive or send
 * already under way on them: a peer's worker caught inside one (a CPU
 * shared with other processes takes it off for milliseconds) faults. A
 * fabric of memif relays stopped at once (SIGTERM to every one) is safe
 * when each relay's workers stop before any of them closes a ring, so a
 * relay with memif ports keeps them open, idle, for a while after its own
 * workers stopped (stop them some tens of ms apart: two ends that close
 * a link at the same moment race in the driver too). A peer that goes on
 * running still polls when this one leaves; doc/failover.md says what
 * that means for unplug tests.
 */
#define MEMIF_SETTLE_MS 100

void
dcnfwd_memif_settle(const struct dcnfwd *d)
{
	unsigned int i;

	for (i = 0; i < d->n_ports; i++) {
		struct rte_eth_dev_info info;

		if (d->port[i].dp.is_ethdev &&
		    rte_eth_dev_info_get(d->port[i].dp.ethdev, &info) == 0 &&
		    strcmp(info.driver_name, "net_memif") == 0) {
			rte_delay_us_sleep(MEMIF_SETTLE_MS * 1000);
			return;
		}
	}
}
