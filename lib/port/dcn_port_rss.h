/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_PORT_RSS_H
#define DCN_PORT_RSS_H

/**
 * @file
 * Receive-side scaling of a port with several RX queues: what the NIC is
 * asked to hash, with which Toeplitz key, and the redirection table
 * (RETA) that spreads the hashes over the queues; and a check, once the
 * port has started, that the PMD took them.
 *
 * The key is the symmetric one (the bytes 0x6d 0x5a over and over, Woo
 * and Park, "Scalable TCP Session Monitoring with Symmetric Receive-side
 * Scaling", 2012): a flow and its reverse hash alike, the same on every
 * NIC, so that a test can compute with rte_softrss where a frame lands.
 * Its 16-bit period leaves no entropy of a UDP source port unused: the
 * 16 shifts of the pattern (odd weight) are independent, so the source
 * port maps one-to-one onto the hash's low 16 bits.
 * The RETA gives entry i to queue i % queues.
 *
 * A NIC hashes only headers it parses: IPv4 addresses, and with TCP or
 * UDP (not a fragment) the ports. A fabric frame of encap = ether (its
 * own EtherType) has no hash (0) and lands in RETA entry 0's queue, every
 * one of them: what encap = udp is for (dcn_fabric_udp.h).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest Toeplitz key a NIC takes (52 bytes on i40e, 40 on most). */
#define DCN_PORT_RSS_KEY_MAX 64
/** RETA entries dcnfwd models and tests with when the PMD gives none. */
#define DCN_PORT_RSS_RETA_DEFAULT 128

/** Fill key (len bytes) with the symmetric pattern. */
void dcn_port_rss_key(uint8_t *key, size_t len);

/** The RETA over nb_rxq queues: entry i to queue i % nb_rxq. */
void dcn_port_rss_reta(uint16_t *reta, unsigned int size, unsigned int nb_rxq);

/** The hash fields asked of a NIC (RTE_ETH_RSS_*): IPv4 addresses, and
 * TCP and UDP ports when not a fragment. */
uint64_t dcn_port_rss_hf(void);

/**
 * What a NIC asked for dcn_port_rss_hf() hashes of frame f (Ethernet
 * first, len bytes): the words rte_softrss takes (host order: source,
 * destination, then source port << 16 | destination port).
 * @return words in tuple: 3 (IPv4 TCP/UDP), 2 (other IPv4), 0 (no hash:
 * not IPv4, as a fabric frame of encap = ether).
 */
unsigned int dcn_port_rss_tuple(const uint8_t *f, uint32_t len, uint32_t tuple[3]);

/**
 * The queue a NIC programmed with key and reta (size entries, a power of
 * two) gives frame f: rte_softrss over its tuple, the RETA at the hash's
 * low bits; a frame without a hash takes entry 0.
 */
unsigned int dcn_port_rss_queue(const uint8_t *f, uint32_t len,
				const uint8_t *key, const uint16_t *reta,
				unsigned int size);

/** What dcn_port_rss_check found. */
enum dcn_port_rss_state {
	DCN_PORT_RSS_OK = 0,       /**< key, fields and RETA as asked */
	DCN_PORT_RSS_NONE,         /**< the PMD hashes nothing (memif, ring) */
	DCN_PORT_RSS_PARTIAL,      /**< it took less than asked (why says) */
};

/**
 * Program the RETA of started ethdev port over its nb_rxq queues and read
 * back key, fields and RETA. @param why  what differs, for the log
 * @return an enum dcn_port_rss_state, or a negative errno.
 */
int dcn_port_rss_check(uint16_t port, uint16_t nb_rxq, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DCN_PORT_RSS_H */
