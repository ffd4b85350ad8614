/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_FWD_H
#define DCN_FWD_H

/**
 * @file
 * The forwarding step of one node, on a burst of mbufs: classify, look up
 * the compiled table, pick a next hop, and rewrite the frame. A host
 * packet is encapsulated at the first relay, a fabric data frame is
 * forwarded or, at its destination, decapsulated to the host port;
 * control frames are handed back for the control thread. Drops are
 * counted per reason and their mbufs freed. No allocation, lock, syscall
 * or log on this path; counters are plain per-context integers.
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dcn_fabric.h"
#include "dcn_route.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DCN_FWD_MAX_PORTS 32
#define DCN_FWD_MAX_FABRIC_PORTS 256
/** out_port value of a control frame handed back to the caller. */
#define DCN_FWD_CONTROL 0xfffe

/** One local (DPDK) port as the forwarding step sees it. */
struct dcn_fwd_port {
	uint8_t host;                 /**< a host port: plain IPv4 */
	int16_t fabric_port;          /**< its port number in the topology */
	struct rte_ether_addr mac;    /**< its own MAC */
	/** MAC of the neighbour(s) behind it; broadcast until learnt. */
	struct rte_ether_addr peer_mac;
};

/** Counters of one context (one worker). */
struct dcn_fwd_stats {
	uint64_t rx;
	uint64_t encap;       /**< host packets sent into the fabric */
	uint64_t transit;     /**< fabric frames passed on */
	uint64_t decap;       /**< fabric frames delivered to the host */
	uint64_t control;     /**< control frames handed back */
	uint64_t drop[DCN_DROP_MAX];
};

/** A node's forwarding context; one per worker. */
struct dcn_fwd_ctx {
	const struct dcn_topo *t;
	const struct dcn_router *r;
	const struct dcn_rtable *tb;
	uint32_t node;
	uint32_t node_addr;
	uint16_t ethertype;
	int per_packet;         /**< draw per packet (PORA) instead of hash */
	int router_mode;        /**< Diamond: plain IPv4 router, no fabric header */
	uint64_t rng;
	uint16_t n_ports;
	int16_t host_port;      /**< local port delivering to the host, -1 */
	struct dcn_fwd_port port[DCN_FWD_MAX_PORTS];
	int16_t local_of[DCN_FWD_MAX_FABRIC_PORTS]; /**< topology port -> local */
	struct dcn_fwd_stats st;
};

/**
 * Set up a context. Ports are added with dcn_fwd_add_port().
 * @return 0, or -EINVAL when node is not a routing vertex of the table.
 */
int dcn_fwd_init(struct dcn_fwd_ctx *c, const struct dcn_router *r,
		 const struct dcn_rtable *tb, uint16_t ethertype, int per_packet);

/**
 * Add local port index c->n_ports.
 * @param fabric_port  its topology port number, or -1 for a host port
 * @param host         1: plain IPv4 (a host port; in Diamond, a server port)
 * @return the local index, or -EINVAL / -ENOSPC.
 */
int dcn_fwd_add_port(struct dcn_fwd_ctx *c, int fabric_port, int host,
		     const struct rte_ether_addr *mac);

/**
 * Forward a burst received on local port in.
 *
 * @param pkts      the burst; on return its first (return value) entries
 *                  are the frames to send or hand back, in order
 * @param out_port  receives each kept frame's local output port, or
 *                  DCN_FWD_CONTROL for a control frame
 * @return number of frames kept; the others were dropped (counted under
 *         their reason) and freed.
 */
uint16_t dcn_fwd_burst(struct dcn_fwd_ctx *c, uint16_t in,
		       struct rte_mbuf **pkts, uint16_t n, uint16_t *out_port);

#ifdef __cplusplus
}
#endif

#endif /* DCN_FWD_H */
