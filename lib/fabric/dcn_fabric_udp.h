/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_FABRIC_UDP_H
#define DCN_FABRIC_UDP_H

/**
 * @file
 * The fabric's second wire format, encap = udp: the fabric header inside
 * IPv4/UDP, so that a NIC's RSS spreads fabric frames over its receive
 * queues (a NIC hashes only headers it parses; the fabric EtherType lands
 * every frame in queue 0).
 *
 *   Ethernet (type 0x0800) | IPv4 (20) | UDP (8) | fabric header | payload
 *
 * - IPv4: no options, DF set, TTL 64, identification 0; the source is
 *   the sending relay's fabric address, the destination the receiving
 *   relay's (the two ends of the hop; 255.255.255.255 for a broadcast
 *   hello or a MAC not learnt yet).
 * - UDP: destination port the fabric's (conf [fabric] udp_port, default
 *   34997, the EtherType's number); checksum 0, as IPv4 allows and VXLAN
 *   (RFC 7348 §5) does: the Ethernet FCS covers the frame on every hop.
 *   The source port is the entropy RSS and ECMP hash on: a hash of the
 *   inner flow, taken in 49152..65535 (RFC 7348 §5), the same on every hop
 *   of a flow, so a flow stays on one receive queue (its order kept).
 *
 * Inside a node the frame is the ether format: the outer headers are
 * taken off as a frame is received and put back as it is sent, by the
 * port (dcn_port.h), so that classification, routing, flow control,
 * hellos and credits see one format. Why at the port: one place for both
 * directions, and no offset varies on the forwarding path.
 *
 * All functions work on plain byte buffers and never read past the
 * length they are given.
 */

#include <stdint.h>

#include "dcn_fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The fabric's wire formats (conf [fabric] encap). */
enum dcn_encap {
	DCN_ENCAP_ETHER = 0, /**< EtherType 0x88B5 (default) */
	DCN_ENCAP_UDP = 1,   /**< inside IPv4/UDP */
};

/** Outer IPv4 and UDP headers. */
#define DCN_UDP_ENCAP_LEN 28
#define DCN_UDP_DEFAULT_PORT 34997
/** Source ports taken for entropy: 49152 + 14 bits. */
#define DCN_UDP_SPORT_BASE 49152u
#define DCN_UDP_SPORT_MASK 0x3fffu
#define DCN_UDP_OUTER_TTL 64
#define DCN_IPPROTO_UDP 17
#define DCN_IPPROTO_TCP 6
#define DCN_IPPROTO_SCTP 132

/**
 * The entropy of an ether-format fabric frame (Ethernet | fabric header
 * | ...): for a data frame, a hash of its inner IPv4 flow (addresses,
 * protocol, and TCP, UDP or SCTP ports unless a fragment); for a control
 * frame, of its fabric source, destination and type. @return the UDP
 * source port, DCN_UDP_SPORT_BASE + 14 bits.
 */
static inline uint16_t
dcn_fabric_udp_sport(const uint8_t *f, uint32_t len)
{
	const uint8_t *h = f + DCN_ETHER_HDR_LEN, *ip = h + DCN_FABRIC_HDR_LEN;
	uint64_t a, b;
	uint32_t x;

	if (len >= DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_IPV4_MIN_HDR &&
	    (h[0] & 0x0f) == DCN_FT_DATA && (ip[0] >> 4) == 4) {
		uint32_t ihl = (ip[0] & 0x0fu) * 4u, ports = 0;
		uint32_t l4 = DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + ihl;

		/* Ports only of a first fragment's flow would split a
		 * fragmented datagram from its tail: none for fragments. */
		if ((ip[9] == DCN_IPPROTO_TCP || ip[9] == DCN_IPPROTO_UDP ||
		     ip[9] == DCN_IPPROTO_SCTP) &&
		    (dcn_fabric_get16(ip + 6) & 0x3fffu) == 0 && len >= l4 + 4)
			ports = dcn_fabric_get32(f + l4);
		a = (uint64_t)dcn_fabric_get32(ip + 12) << 32 | dcn_fabric_get32(ip + 16);
		b = (uint64_t)ports << 8 | ip[9];
	} else if (len >= DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN) {
		a = (uint64_t)dcn_fabric_get32(h + 8) << 32 | dcn_fabric_get32(h + 12);
		b = h[0];
	} else {
		a = 0;
		b = 0;
	}
	/* Two odd multipliers and a fold: every input bit reaches the 14
	 * bits kept (a RETA reads a hash's low bits). */
	a = a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full;
	x = (uint32_t)(a >> 32) ^ (uint32_t)a;
	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 17;
	return (uint16_t)(DCN_UDP_SPORT_BASE | (x & DCN_UDP_SPORT_MASK));
}

/**
 * The ones'-complement sum of an outer IPv4 header's words that do not
 * change from frame to frame on a hop (all but the total length and the
 * checksum), not folded: kept per peer so that a frame's checksum costs
 * an add and a fold.
 */
static inline uint32_t
dcn_fabric_udp_hop_sum(uint32_t src, uint32_t dst)
{
	return 0x4500u + 0x4000u + (DCN_UDP_OUTER_TTL << 8 | DCN_IPPROTO_UDP) +
	       (src >> 16) + (src & 0xffffu) + (dst >> 16) + (dst & 0xffffu);
}

/**
 * Write the outer IPv4 and UDP headers at ip (DCN_UDP_ENCAP_LEN bytes),
 * in front of inner_len bytes (fabric header and payload).
 * @param hop_sum  dcn_fabric_udp_hop_sum(src, dst)
 */
static inline void
dcn_fabric_udp_write(uint8_t *ip, uint32_t src, uint32_t dst, uint32_t hop_sum,
		     uint16_t sport, uint16_t dport, uint32_t inner_len)
{
	uint32_t total = inner_len + DCN_UDP_ENCAP_LEN;
	uint32_t sum = hop_sum + total;

	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	ip[0] = 0x45;
	ip[1] = 0;
	dcn_fabric_put16(ip + 2, (uint16_t)total);
	dcn_fabric_put32(ip + 4, 0x00004000u);	/* id 0, DF */
	ip[8] = DCN_UDP_OUTER_TTL;
	ip[9] = DCN_IPPROTO_UDP;
	dcn_fabric_put16(ip + 10, (uint16_t)~sum);
	dcn_fabric_put32(ip + 12, src);
	dcn_fabric_put32(ip + 16, dst);
	dcn_fabric_put16(ip + 20, sport);
	dcn_fabric_put16(ip + 22, dport);
	dcn_fabric_put16(ip + 24, (uint16_t)(inner_len + 8));
	dcn_fabric_put16(ip + 26, 0);
}

/** What dcn_fabric_udp_check finds. */
enum dcn_udp_verdict {
	DCN_UDP_NOT_OURS = 0, /**< not IPv4/UDP to the fabric's port: left as is */
	DCN_UDP_FABRIC = 1,   /**< a well-formed encapsulated fabric frame */
	DCN_UDP_MALFORMED = -1, /**< to the fabric's port, but broken: drop */
};

/**
 * Is frame f (Ethernet first, len bytes) a fabric frame in IPv4/UDP to
 * port dport? Well-formed means: IPv4 without options (the encapsulation
 * never sends any), not a fragment, a total length within the frame and
 * a UDP length that agrees with it, room for a fabric header. A fragment
 * or options to the fabric's port are malformed: no relay sends them.
 */
static inline enum dcn_udp_verdict
dcn_fabric_udp_check(const uint8_t *f, uint32_t len, uint16_t dport)
{
	const uint8_t *ip = f + DCN_ETHER_HDR_LEN;
	uint32_t total;

	if (len < DCN_ETHER_HDR_LEN + DCN_UDP_ENCAP_LEN ||
	    f[12] != 0x08 || f[13] != 0x00 || (ip[0] >> 4) != 4 ||
	    ip[9] != DCN_IPPROTO_UDP)
		return DCN_UDP_NOT_OURS;
	if (ip[0] != 0x45) {
		/* Options: the ports are further in; ours never has them. */
		uint32_t ihl = (ip[0] & 0x0fu) * 4u;

		if (ihl >= DCN_IPV4_MIN_HDR && len >= DCN_ETHER_HDR_LEN + ihl + 4 &&
		    dcn_fabric_get16(ip + ihl + 2) == dport)
			return DCN_UDP_MALFORMED;
		return DCN_UDP_NOT_OURS;
	}
	if (dcn_fabric_get16(ip + 22) != dport)
		return DCN_UDP_NOT_OURS;
	total = dcn_fabric_get16(ip + 2);
	if ((dcn_fabric_get16(ip + 6) & 0x3fffu) != 0 ||
	    total < DCN_UDP_ENCAP_LEN + DCN_FABRIC_HDR_LEN ||
	    total > len - DCN_ETHER_HDR_LEN ||
	    dcn_fabric_get16(ip + 24) != total - DCN_IPV4_MIN_HDR)
		return DCN_UDP_MALFORMED;
	return DCN_UDP_FABRIC;
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_FABRIC_UDP_H */
