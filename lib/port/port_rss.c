/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive-side scaling: the key, fields and RETA dcnfwd gives a NIC, the
 * model of where a frame lands (tests, and emulated cables into a port of
 * several RX queues), and the check that a started port took them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_thash.h>

#include "dcn_fabric.h"
#include "dcn_fabric_udp.h"
#include "dcn_port.h"
#include "dcn_port_rss.h"

void
dcn_port_rss_key(uint8_t *key, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		key[i] = (i & 1) ? 0x5a : 0x6d;
}

void
dcn_port_rss_reta(uint16_t *reta, unsigned int size, unsigned int nb_rxq)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		reta[i] = (uint16_t)(nb_rxq ? i % nb_rxq : 0);
}

uint64_t
dcn_port_rss_hf(void)
{
	return RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 |
	       RTE_ETH_RSS_NONFRAG_IPV4_OTHER | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
	       RTE_ETH_RSS_NONFRAG_IPV4_TCP;
}

unsigned int
dcn_port_rss_tuple(const uint8_t *f, uint32_t len, uint32_t tuple[3])
{
	const uint8_t *ip = f + DCN_ETHER_HDR_LEN;
	uint32_t ihl;

	if (len < DCN_ETHER_HDR_LEN + DCN_IPV4_MIN_HDR || f[12] != 0x08 ||
	    f[13] != 0x00 || (ip[0] >> 4) != 4)
		return 0;
	tuple[0] = dcn_fabric_get32(ip + 12);
	tuple[1] = dcn_fabric_get32(ip + 16);
	ihl = (ip[0] & 0x0fu) * 4u;
	if ((ip[9] != DCN_IPPROTO_TCP && ip[9] != DCN_IPPROTO_UDP) ||
	    dcn_fabric_ipv4_fragment(ip) ||
	    len < DCN_ETHER_HDR_LEN + ihl + 4)
		return 2;
	tuple[2] = dcn_fabric_get32(ip + ihl);
	return 3;
}

unsigned int
dcn_port_rss_queue(const uint8_t *f, uint32_t len, const uint8_t *key,
		   const uint16_t *reta, unsigned int size)
{
	uint32_t tuple[3];
	unsigned int n = dcn_port_rss_tuple(f, len, tuple);
	uint32_t h = n ? rte_softrss(tuple, n, key) : 0;

	return reta[h & (size - 1)];
}

int
dcn_port_rss_check(uint16_t port, uint16_t nb_rxq, char *why, size_t len)
{
	struct rte_eth_dev_info info;
	struct rte_eth_rss_reta_entry64 conf[RTE_ETH_RSS_RETA_SIZE_512 /
					     RTE_ETH_RETA_GROUP_SIZE];
	uint16_t want[RTE_ETH_RSS_RETA_SIZE_512];
	uint8_t key[DCN_PORT_RSS_KEY_MAX], asked[DCN_PORT_RSS_KEY_MAX];
	struct rte_eth_rss_conf rc = { .rss_key = key,
				       .rss_key_len = sizeof(key) };
	unsigned int i, size;
	int ret;

	why[0] = '\0';
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (info.flow_type_rss_offloads == 0 || info.reta_size == 0) {
		snprintf(why, len, "the driver (%s) does not hash: a frame's "
			 "queue is the sender's choice (memif) or queue 0",
			 info.driver_name);
		return DCN_PORT_RSS_NONE;
	}
	size = info.reta_size;
	if (size > RTE_DIM(want)) {
		snprintf(why, len, "a RETA of %u entries (dcnfwd programs 512 at "
			 "most)", size);
		return DCN_PORT_RSS_PARTIAL;
	}
	dcn_port_rss_reta(want, size, nb_rxq);
	memset(conf, 0, sizeof(conf));
	for (i = 0; i < size; i++) {
		conf[i / RTE_ETH_RETA_GROUP_SIZE].mask |=
			1ull << (i % RTE_ETH_RETA_GROUP_SIZE);
		conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			want[i];
	}
	ret = rte_eth_dev_rss_reta_update(port, conf, (uint16_t)size);
	if (ret != 0) {
		snprintf(why, len, "the RETA was refused (%s)", strerror(-ret));
		return DCN_PORT_RSS_PARTIAL;
	}
	memset(conf, 0, sizeof(conf));
	for (i = 0; i < size; i++)
		conf[i / RTE_ETH_RETA_GROUP_SIZE].mask |=
			1ull << (i % RTE_ETH_RETA_GROUP_SIZE);
	ret = rte_eth_dev_rss_reta_query(port, conf, (uint16_t)size);
	for (i = 0; ret == 0 && i < size; i++)
		if (conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] !=
		    want[i]) {
			snprintf(why, len, "RETA entry %u reads queue %u, not %u", i,
				 conf[i / RTE_ETH_RETA_GROUP_SIZE]
					 .reta[i % RTE_ETH_RETA_GROUP_SIZE], want[i]);
			return DCN_PORT_RSS_PARTIAL;
		}
	if (ret == 0)
		ret = rte_eth_dev_rss_hash_conf_get(port, &rc);
	if (ret != 0) {
		snprintf(why, len, "the RSS setup cannot be read back (%s)",
			 strerror(-ret));
		return DCN_PORT_RSS_PARTIAL;
	}
	if ((rc.rss_hf & dcn_port_rss_hf() & info.flow_type_rss_offloads) !=
	    (dcn_port_rss_hf() & info.flow_type_rss_offloads) ||
	    !(rc.rss_hf & RTE_ETH_RSS_NONFRAG_IPV4_UDP)) {
		snprintf(why, len, "it hashes fields 0x%" PRIx64 ", without IPv4/UDP "
			 "ports (encap = udp frames would not spread)", rc.rss_hf);
		return DCN_PORT_RSS_PARTIAL;
	}
	dcn_port_rss_key(asked, RTE_MIN(rc.rss_key_len, (uint8_t)sizeof(asked)));
	if (rc.rss_key_len > 0 && memcmp(key, asked, rc.rss_key_len) != 0) {
		snprintf(why, len, "its Toeplitz key is not the one asked");
		return DCN_PORT_RSS_PARTIAL;
	}
	return DCN_PORT_RSS_OK;
}

/* The peer's RX queue of frame m, as its emulated NIC spreads it: inline
 * for the sends, which ask it of every frame. */
static inline unsigned int
spread_queue(const struct dcn_port_spread *s, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = f + DCN_ETHER_HDR_LEN;
	uint16_t key;

	if (rte_pktmbuf_data_len(m) < DCN_UDP_SPORT_OFF + 4 || f[12] != 0x08 ||
	    f[13] != 0x00 || ip[0] != 0x45)
		return s->reta[0];
	if (s->by_flow)
		key = dcn_fabric_udp_ipv4_entropy(ip);
	else if (ip[9] == DCN_IPPROTO_UDP)
		key = dcn_fabric_get16(f + DCN_UDP_SPORT_OFF);
	else
		return s->reta[0];
	return s->reta[key & (s->reta_size - 1)];
}

unsigned int
dcn_port_spread_queue(const struct dcn_port_spread *s, const struct rte_mbuf *m)
{
	return spread_queue(s, m);
}

uint16_t
dcn_port_tx_spread(const struct dcn_port *p, struct rte_mbuf **m, uint16_t n)
{
	const struct dcn_port_spread *s = p->tx_spread;
	unsigned int q = n ? spread_queue(s, m[0]) : 0;
	uint16_t i = 0;

	/* Runs of frames for one queue, a burst each. */
	while (i < n) {
		unsigned int next = q, put;
		uint16_t run = 1;

		while (i + run < n && (next = spread_queue(s, m[i + run])) == q)
			run++;
		put = rte_ring_enqueue_burst(p->tx_ring[q], (void **)&m[i], run, NULL);
		i = (uint16_t)(i + put);
		if (put < run)
			break;
		q = next;
	}
	return i;
}
