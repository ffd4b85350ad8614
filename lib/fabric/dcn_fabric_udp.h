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
#include <string.h>

#include "dcn_fabric.h"

#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

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
/** Where an encapsulated frame's UDP source port is. */
#define DCN_UDP_SPORT_OFF (DCN_ETHER_HDR_LEN + DCN_IPV4_MIN_HDR)
#define DCN_UDP_DEFAULT_PORT 34997
/** Source ports taken for entropy: 49152 + 14 bits. */
#define DCN_UDP_SPORT_BASE 49152u
#define DCN_UDP_SPORT_MASK 0x3fffu
#define DCN_UDP_OUTER_TTL 64
#define DCN_IPPROTO_UDP 17
#define DCN_IPPROTO_TCP 6
#define DCN_IPPROTO_SCTP 132

/*
 * Fields read and written whole (one load or store, not byte by byte):
 * these run on every frame of a port, both ways. Values in network order
 * as they sit in the frame; dcn_fabric_net16/32 turn host order into it.
 */
static inline uint16_t
dcn_fabric_net16(uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16(v);
#else
	return v;
#endif
}

static inline uint32_t
dcn_fabric_net32(uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32(v);
#else
	return v;
#endif
}

static inline uint16_t
dcn_fabric_load16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
dcn_fabric_load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
dcn_fabric_store16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void
dcn_fabric_store32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Is IPv4 header ip a fragment's (more fragments, or an offset)? */
static inline int
dcn_fabric_ipv4_fragment(const uint8_t *ip)
{
	return (dcn_fabric_load16(ip + 6) & dcn_fabric_net16(0x3fff)) != 0;
}

/* Is protocol proto one whose first 4 bytes are ports? */
static inline int
dcn_fabric_has_ports(uint8_t proto)
{
	return proto == DCN_IPPROTO_TCP || proto == DCN_IPPROTO_UDP ||
	       proto == DCN_IPPROTO_SCTP;
}

/* The entropy's mix: two odd multipliers and a fold, so that every input
 * bit reaches the 14 bits kept (a RETA reads a hash's low bits). */
static inline uint16_t
dcn_fabric_udp_mix(uint64_t a, uint64_t b)
{
	uint32_t x;

	a = a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full;
	x = (uint32_t)(a >> 32) ^ (uint32_t)a;
	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 17;
	return (uint16_t)(DCN_UDP_SPORT_BASE | (x & DCN_UDP_SPORT_MASK));
}

/**
 * The entropy of a flow from its IPv4 header (without options, the
 * caller saw room for ports after it): addresses, protocol, and TCP, UDP
 * or SCTP ports unless a fragment. What dcn_fabric_udp_sport gives a
 * data frame carrying it, so a host-facing NIC can spread plain IPv4
 * frames as the fabric's will be. @return DCN_UDP_SPORT_BASE + 14 bits.
 */
static inline uint16_t
dcn_fabric_udp_ipv4_entropy(const uint8_t *ip)
{
	uint64_t a;
	uint32_t ports = 0;

	memcpy(&a, ip + 12, sizeof(a));
	if (dcn_fabric_has_ports(ip[9]) && !dcn_fabric_ipv4_fragment(ip))
		memcpy(&ports, ip + DCN_IPV4_MIN_HDR, sizeof(ports));
	return dcn_fabric_udp_mix(a, (uint64_t)ports << 8 | ip[9]);
}

/* dcn_fabric_udp_sport beyond its usual frame: IPv4 options, a short
 * frame, a control frame. */
static inline uint16_t
dcn_fabric_udp_sport_other(const uint8_t *f, uint32_t len)
{
	const uint8_t *h = f + DCN_ETHER_HDR_LEN, *ip = h + DCN_FABRIC_HDR_LEN;
	uint32_t l4 = DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_IPV4_MIN_HDR;
	uint64_t a = 0, b = 0;
	uint32_t ports = 0;

	if (len >= l4 && (h[0] & 0x0f) == DCN_FT_DATA && (ip[0] >> 4) == 4) {
		l4 += (ip[0] & 0x0fu) * 4u - DCN_IPV4_MIN_HDR;
		if (dcn_fabric_has_ports(ip[9]) && !dcn_fabric_ipv4_fragment(ip) &&
		    len >= l4 + 4)
			memcpy(&ports, f + l4, sizeof(ports));
		memcpy(&a, ip + 12, sizeof(a));
		b = (uint64_t)ports << 8 | ip[9];
	} else if (len >= DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN) {
		memcpy(&a, h + 8, sizeof(a));
		b = h[0];
	}
	return dcn_fabric_udp_mix(a, b);
}

/**
 * The entropy of an ether-format fabric frame (Ethernet | fabric header
 * | ...): for a data frame, a hash of its inner IPv4 flow (addresses,
 * protocol, and TCP, UDP or SCTP ports unless a fragment: ports only of
 * a first fragment would split a datagram from its tail); for a control
 * frame, of its fabric source, destination and type. The bytes as
 * loaded: the same flow gives the same words on every hop. @return the
 * UDP source port, DCN_UDP_SPORT_BASE + 14 bits.
 */
static inline uint16_t
dcn_fabric_udp_sport(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;

	/* The usual frame, in few steps: data, IPv4 without options, room
	 * for ports. */
	if (unlikely(len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_IPV4_MIN_HDR + 4 ||
		     ip[0] != 0x45 || (f[DCN_ETHER_HDR_LEN] & 0x0f) != DCN_FT_DATA))
		return dcn_fabric_udp_sport_other(f, len);
	return dcn_fabric_udp_ipv4_entropy(ip);
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
 * The outer headers of a port, their fields that never change: written
 * once (dcn_fabric_udp_template), copied onto each frame whole.
 */
struct dcn_fabric_udp_tmpl {
	uint8_t b[DCN_UDP_ENCAP_LEN];
};

/** Fill t for frames from fabric address src to UDP port dport. */
static inline void
dcn_fabric_udp_template(struct dcn_fabric_udp_tmpl *t, uint32_t src, uint16_t dport)
{
	uint8_t *ip = t->b;

	memset(t, 0, sizeof(*t));
	ip[0] = 0x45;
	dcn_fabric_put32(ip + 4, 0x00004000u);	/* id 0, DF */
	ip[8] = DCN_UDP_OUTER_TTL;
	ip[9] = DCN_IPPROTO_UDP;
	dcn_fabric_put32(ip + 12, src);
	dcn_fabric_put16(ip + 22, dport);
}

/**
 * Write the outer IPv4 and UDP headers at ip (DCN_UDP_ENCAP_LEN bytes),
 * in front of inner_len bytes (fabric header and payload): the template
 * t (source, port), then the destination dst and what each frame has of
 * its own.
 * @param hop_sum    dcn_fabric_udp_hop_sum(src, dst)
 * @param sport_net  the source port, in network order
 */
static inline void
dcn_fabric_udp_write(uint8_t *ip, const struct dcn_fabric_udp_tmpl *t,
		     uint32_t dst, uint32_t hop_sum, uint16_t sport_net,
		     uint32_t inner_len)
{
	uint32_t total = inner_len + DCN_UDP_ENCAP_LEN;
	uint32_t sum = hop_sum + total;

	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	memcpy(ip, t->b, DCN_UDP_ENCAP_LEN);
	dcn_fabric_store16(ip + 2, dcn_fabric_net16((uint16_t)total));
	dcn_fabric_store16(ip + 10, dcn_fabric_net16((uint16_t)~sum));
	dcn_fabric_store32(ip + 16, dcn_fabric_net32(dst));
	dcn_fabric_store16(ip + 20, sport_net);
	dcn_fabric_store16(ip + 24, dcn_fabric_net16((uint16_t)(inner_len + 8)));
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
	    dcn_fabric_load16(f + 12) != dcn_fabric_net16(DCN_ETHERTYPE_IPV4) ||
	    ip[9] != DCN_IPPROTO_UDP)
		return DCN_UDP_NOT_OURS;
	if (unlikely(ip[0] != 0x45)) {
		/* Options: the ports are further in; ours never has them. */
		uint32_t ihl = (ip[0] & 0x0fu) * 4u;

		if ((ip[0] >> 4) == 4 && ihl >= DCN_IPV4_MIN_HDR &&
		    len >= DCN_ETHER_HDR_LEN + ihl + 4 &&
		    dcn_fabric_get16(ip + ihl + 2) == dport)
			return DCN_UDP_MALFORMED;
		return DCN_UDP_NOT_OURS;
	}
	if (dcn_fabric_load16(ip + 22) != dcn_fabric_net16(dport))
		return DCN_UDP_NOT_OURS;
	total = dcn_fabric_net16(dcn_fabric_load16(ip + 2));
	if (dcn_fabric_ipv4_fragment(ip) ||
	    total < DCN_UDP_ENCAP_LEN + DCN_FABRIC_HDR_LEN ||
	    total > len - DCN_ETHER_HDR_LEN ||
	    dcn_fabric_net16(dcn_fabric_load16(ip + 24)) != total - DCN_IPV4_MIN_HDR)
		return DCN_UDP_MALFORMED;
	return DCN_UDP_FABRIC;
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_FABRIC_UDP_H */
