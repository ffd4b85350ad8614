/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_PORT_H
#define DCN_PORT_H

/**
 * @file
 * A port as the data path sends and receives on it: a DPDK ethdev (any
 * PMD), or an emulated cable end, a pair of rte_rings. An emulated fabric
 * needs hundreds of ports and an ethdev each would run into
 * RTE_MAX_ETHPORTS; both kinds look the same to a worker and to the
 * flow-control data path.
 *
 * An emulated cable may have a rate (frames a second, as a real link
 * has), may be cut (frames sent on it vanish, as on a pulled cable), and
 * may lose frames at random (as a congested kernel queue or switch does:
 * a test of what flow control does about frames lost on the way).
 */

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "dcn_port_impair.h"
#include "dcn_port_udp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** RX queues an emulated cable's end may have. */
#define DCN_PORT_RING_QUEUES 16

/** How an emulated cable's receiving NIC spreads frames over its RX
 * queues (its RSS): an IPv4/UDP frame (encap = udp) by its UDP source
 * port, the flow's entropy (dcn_fabric_udp.h), through a redirection
 * table of reta_size entries (a power of two); any other frame to entry
 * 0's queue, as a NIC that hashes nothing of it. Not the Toeplitz hash a
 * NIC computes: as steady for a flow, and cheap, so that the emulation
 * does not charge the senders a NIC's work. */
struct dcn_port_spread {
	const uint16_t *reta;
	unsigned int reta_size;
	/** A host-facing NIC: plain IPv4 frames by the fabric's entropy of
	 * their flow (dcn_fabric_udp_ipv4_entropy: the UDP source port the
	 * fabric will give them, or gave them), so that a flow lands in the
	 * same lane index at a host port as on every fabric port. */
	uint8_t by_flow;
};

/** The RX queue s puts frame m in. */
unsigned int dcn_port_spread_queue(const struct dcn_port_spread *s,
				   const struct rte_mbuf *m);

struct dcn_port {
	uint8_t is_ethdev;
	uint16_t ethdev;
	uint16_t nb_rxq, nb_txq;
	/** Emulated cable: the ring of each RX queue, and the rings of the
	 * peer's (tx_ring[0] alone unless tx_spread) */
	struct rte_ring *rx_ring[DCN_PORT_RING_QUEUES];
	struct rte_ring *tx_ring[DCN_PORT_RING_QUEUES];
	/** The peer has tx_queues RX queues, spread as tx_spread says;
	 * NULL: one. */
	const struct dcn_port_spread *tx_spread;
	uint16_t tx_queues;
	/** Emulated cable of limited rate: the receiving end takes a frame
	 * per rl_per TSC cycles; rl_next is the link's virtual clock. Only
	 * the port's one poller touches them. */
	uint64_t rl_per;
	uint64_t rl_next;
	volatile uint8_t cut;        /**< emulated cable cut: frames vanish */
	/** Emulated cable losing frames (testing): parts per million of
	 * what arrives, lost at random and counted (by the poller) in lost. */
	uint32_t loss_ppm;
	uint64_t lost;
	/** The control thread saw the link go down: what waits to be sent
	 * on it will not go. */
	volatile uint8_t link_down;
	/** A fabric port of an encap = udp fabric: the outer headers come
	 * off on receive and go on on send (dcn_port_udp.h); NULL: none. */
	struct dcn_port_udp *udp;
	/** A slow, late or lossy cable into the port (the lab's; set once,
	 * then its settings changed in place: dcn_port_impair.h); NULL:
	 * none. */
	struct dcn_port_impair *impair;
};

/* An emulated lossy cable: frames of m[0..n) lost at random, the rest
 * kept in order. @return frames kept. */
static inline uint16_t
dcn_port_lose(struct dcn_port *p, struct rte_mbuf **m, uint16_t n)
{
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		if ((uint32_t)(rte_rand() % 1000000) < p->loss_ppm) {
			rte_pktmbuf_free(m[i]);
			p->lost++;
		} else {
			m[k++] = m[i];
		}
	}
	return k;
}

/** Receive up to n frames from queue q; now is the TSC (rate limit). */
static inline uint16_t
dcn_port_rx_raw(struct dcn_port *p, uint16_t q, struct rte_mbuf **m, uint16_t n,
	    uint64_t now)
{
	if (p->is_ethdev)
		return rte_eth_rx_burst(p->ethdev, q, m, n);
	if (p->rl_per) {
		/* A cable of limited rate: what the clock allows, in bursts
		 * of up to n after an idle spell. */
		uint64_t floor = now - (uint64_t)n * p->rl_per;
		uint64_t t = (int64_t)(p->rl_next - floor) > 0 ? p->rl_next : floor;
		uint64_t allow = (int64_t)(now - t) > 0 ? (now - t) / p->rl_per : 0;

		if (allow < n)
			n = (uint16_t)allow;
		if (n == 0)
			return 0;
		n = (uint16_t)rte_ring_dequeue_burst(p->rx_ring[0], (void **)m, n, NULL);
		p->rl_next = t + n * p->rl_per;
	} else {
		/* Most polls of an emulated fabric's cables find nothing:
		 * two loads tell, where a dequeue takes a score. */
		if (rte_ring_empty(p->rx_ring[q]))
			return 0;
		n = (uint16_t)rte_ring_dequeue_burst(p->rx_ring[q], (void **)m, n, NULL);
	}
	return unlikely(p->loss_ppm) ? dcn_port_lose(p, m, n) : n;
}

/** Receive up to n frames from queue q, in the ether format; now is the
 * TSC (rate limit). */
static inline uint16_t
dcn_port_rx(struct dcn_port *p, uint16_t q, struct rte_mbuf **m, uint16_t n,
	    uint64_t now)
{
	struct dcn_port_impair *im = __atomic_load_n(&p->impair, __ATOMIC_ACQUIRE);
	uint16_t room = n;

	n = dcn_port_rx_raw(p, q, m, n, now);
	if (unlikely(im != NULL))
		n = dcn_port_impair_rx(im, q, m, n, room, now);
	if (p->udp != NULL && n != 0)
		n = dcn_port_udp_unwrap(p->udp, q, m, n);
	return n;
}

/** An emulated cable into a port of several RX queues: each frame into
 * its queue's ring, in order, up to the first a ring refuses.
 * @return frames taken. */
uint16_t dcn_port_tx_spread(const struct dcn_port *p, struct rte_mbuf **m, uint16_t n);

static inline uint16_t
dcn_port_tx_raw(const struct dcn_port *p, uint16_t q, struct rte_mbuf **m,
	    uint16_t n)
{
	if (p->is_ethdev)
		return rte_eth_tx_burst(p->ethdev, q, m, n);
	if (unlikely(p->cut)) {
		/* A cut emulated cable: the frames leave and are lost. */
		rte_pktmbuf_free_bulk(m, n);
		return n;
	}
	if (p->tx_spread != NULL)
		return dcn_port_tx_spread(p, m, n);
	return (uint16_t)rte_ring_enqueue_burst(p->tx_ring[0], (void **)m, n, NULL);
}

/** Send up to n frames (the ether format) on queue q. @return frames
 * taken; the caller keeps the rest, as they were. */
static inline uint16_t
dcn_port_tx(const struct dcn_port *p, uint16_t q, struct rte_mbuf **m,
	    uint16_t n)
{
	uint16_t sent;

	if (p->udp == NULL)
		return dcn_port_tx_raw(p, q, m, n);
	dcn_port_udp_wrap(p->udp, m, n);
	sent = dcn_port_tx_raw(p, q, m, n);
	if (unlikely(sent < n))
		dcn_port_udp_rewind(p->udp, m + sent, (uint16_t)(n - sent));
	return sent;
}

/** The TX queue worker w uses on p (every worker has one, or they share
 * them round-robin where the port has fewer). */
static inline uint16_t
dcn_port_txq(const struct dcn_port *p, unsigned int w)
{
	return (uint16_t)(w % p->nb_txq);
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_PORT_H */
