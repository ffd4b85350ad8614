/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_FABRIC_H
#define DCN_FABRIC_H

/**
 * @file
 * The fabric wire format and frame classification.
 *
 * Between relays a frame is Ethernet | fabric header | payload, with its
 * own EtherType (default 0x88B5, IEEE local experimental). The header
 * carries what hop-by-hop routing cannot recompute: version, frame type,
 * virtual channel, TTL, PORA phase, quadrant and jump flag, RRect path,
 * the bounce flag, and the source, destination and proxy fabric
 * addresses. A data frame's
 * payload is the host's IPv4 packet; control frames (credit, hello,
 * link state) carry their own payloads.
 *
 * All functions work on plain byte buffers (an mbuf's data, a fuzzer's
 * input) and never read past the length they are given.
 */

#include <stddef.h>
#include <stdint.h>

#include "dcn_route.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DCN_FABRIC_ETHERTYPE 0x88B5
#define DCN_FABRIC_VERSION 1
#define DCN_ETHER_HDR_LEN 14
#define DCN_FABRIC_HDR_LEN 20
#define DCN_ETHERTYPE_IPV4 0x0800
#define DCN_ETHERTYPE_ARP 0x0806
#define DCN_IPV4_MIN_HDR 20

/*
 * Fields on the wire are big-endian. Frames are byte arrays with no
 * alignment promise, so fields are read and written byte by byte.
 */
static inline uint16_t
dcn_fabric_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
dcn_fabric_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void
dcn_fabric_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
dcn_fabric_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/**
 * An IPv4 header at ip with avail bytes behind it: version 4, a header
 * length of at least 20 bytes, and a total length that covers the header
 * and fits in avail. @return the total length, or 0 when it is not sane.
 * (dcn_fabric_classify's check, also for callers that read frames
 * directly.)
 */
static inline uint32_t
dcn_fabric_ipv4_len(const uint8_t *ip, uint32_t avail)
{
	uint32_t ihl, total;

	if (avail < DCN_IPV4_MIN_HDR)
		return 0;
	total = dcn_fabric_get16(ip + 2);
	/* The usual header, version 4 without options, in fewer steps (it
	 * is on every frame's path). */
	if (ip[0] == 0x45)
		return total >= DCN_IPV4_MIN_HDR && total <= avail ? total : 0;
	if ((ip[0] >> 4) != 4)
		return 0;
	ihl = (ip[0] & 0x0fu) * 4u;
	return ihl >= DCN_IPV4_MIN_HDR && total >= ihl && total <= avail ? total : 0;
}

/** Virtual channels the header can carry. */
#define DCN_FABRIC_MAX_VCS 16

/** The VC of a fabric header's byte 1. */
static inline unsigned int
dcn_fabric_vc_of(uint8_t b1)
{
	return (b1 & 1u) | ((b1 >> 4) & 7u) << 1;
}

/** Byte 1's bounce flag: the relay that sent the frame got it from the
 * neighbour it sent it to (dcn_fabric_hdr.bounced). */
#define DCN_FABRIC_BOUNCED 0x80u

/** Fabric frame types. */
enum dcn_frame_type {
	DCN_FT_DATA = 1,      /**< a host's IPv4 packet in transit */
	DCN_FT_CREDIT = 2,    /**< credits for an input queue */
	DCN_FT_HELLO = 3,     /**< neighbour discovery and heartbeat */
	DCN_FT_LINKSTATE = 4, /**< failure announcement */
	DCN_FT_MAX,
};

/**
 * Why a frame is dropped. One X-macro gives the enum, the names shown in
 * telemetry and the descriptions.
 */
#define DCN_DROP_REASONS(_)                                                  \
	_(RUNT, "runt", "shorter than its headers")                           \
	_(UNKNOWN_ETHERTYPE, "unknown_ethertype", "EtherType not handled")    \
	_(BAD_VERSION, "bad_version", "fabric header version unknown")        \
	_(BAD_TYPE, "bad_type", "fabric frame type unknown")                  \
	_(BAD_LENGTH, "bad_length", "fabric length beyond the frame")         \
	_(BAD_IPV4, "bad_ipv4", "malformed IPv4 packet")                      \
	_(TTL_EXPIRED, "ttl_expired", "TTL reached 0")                        \
	_(NOT_IN_FABRIC, "not_in_fabric", "destination outside the fabric")   \
	_(FABRIC_ON_HOST, "fabric_on_host", "fabric frame on a host port")    \
	_(NO_ROUTE, "no_route", "no next hop for the destination")            \
	_(NO_NEIGHBOUR, "no_neighbour", "next hop's MAC not learnt yet")     \
	_(NOT_OUR_MAC, "not_our_mac", "unicast to another station")          \
	_(LINK_DOWN, "link_down", "every next hop's link is down")          \
	_(LOOP, "loop", "would go back out of the port it came in on")       \
	_(TOO_LONG, "too_long", "route longer than its VCs allow (a loop)")   \
	_(ENCAP_MISMATCH, "encap_mismatch",                                   \
	  "fabric frame in the other wire format (IPv4/UDP to the fabric's port)")

enum dcn_drop_reason {
	DCN_DROP_NONE = 0,
#define DCN_DROP_ENUM(id, name, desc) DCN_DROP_##id,
	DCN_DROP_REASONS(DCN_DROP_ENUM)
#undef DCN_DROP_ENUM
	DCN_DROP_MAX,
};

/** @return the telemetry name of a drop reason ("ttl_expired"). */
const char *dcn_drop_name(enum dcn_drop_reason r);
/** @return a one-line description of a drop reason. */
const char *dcn_drop_desc(enum dcn_drop_reason r);

/** What a frame is. */
enum dcn_frame_class {
	DCN_FC_DROP = 0,       /**< malformed or not allowed: see reason */
	DCN_FC_FABRIC_DATA,    /**< fabric data frame, to route */
	DCN_FC_FABRIC_CONTROL, /**< credit, hello or link state */
	DCN_FC_HOST_IPV4,      /**< plain IPv4 from a host port, to encapsulate */
	DCN_FC_OTHER,          /**< anything else on a host port (ARP, IPv6) */
};

/** The fabric header, host order. */
struct dcn_fabric_hdr {
	uint8_t version;
	uint8_t type;      /**< enum dcn_frame_type */
	uint8_t vc;        /**< virtual channel, 0..15: bit 0 of byte 1 and
			    *   bits 4-6 (bit 0 alone was the first format's
			    *   two VCs, which it still reads the same) */
	uint8_t jumped;    /**< PORA: a jump-over link was taken */
	/** The last hop went back to the neighbour the frame came from
	 * (byte 1, bit 7): a relay that would send it back again holds it
	 * until its tables change (lib/fwd/README.md, "Bounces"). Not
	 * routing state: no route depends on it. */
	uint8_t bounced;
	uint8_t phase;     /**< PORA: enum dcn_pora_phase */
	uint8_t ttl;
	uint8_t quadrant;  /**< PORA quadrant bits */
	uint8_t path;      /**< RRect parallel path */
	uint8_t last_dim;  /**< dimension of the last regular hop */
	uint16_t len;      /**< payload bytes after the header */
	uint32_t src;      /**< fabric address of the source */
	uint32_t dst;      /**< fabric address of the destination */
	uint32_t proxy;    /**< fabric address of the proxy, 0: none */
};

/** Classification of one frame. */
struct dcn_frame_info {
	enum dcn_frame_class cls;
	enum dcn_drop_reason reason; /**< when cls is DCN_FC_DROP */
	struct dcn_fabric_hdr hdr;   /**< fabric frames */
	uint16_t l3_off;             /**< IPv4 header (data and host frames) */
	uint16_t l3_len;             /**< IPv4 total length */
	uint32_t ip_dst;             /**< IPv4 destination, host order */
	uint32_t ip_src;
};

/**
 * Classify a frame.
 *
 * @param frame      the frame, Ethernet header first
 * @param len        its length in bytes
 * @param host_port  1 on a host port, 0 on a fabric port
 * @param ethertype  the fabric EtherType in use
 * @return info->cls.
 *
 * On a fabric port: fabric frames are checked (length, version, type, a
 * data frame's TTL and inner IPv4 header); anything else is dropped as
 * UNKNOWN_ETHERTYPE. On a host port: IPv4 is checked and handed over,
 * fabric frames are dropped (FABRIC_ON_HOST: hosts never inject fabric
 * control or data), the rest is OTHER.
 */
enum dcn_frame_class dcn_fabric_classify(const uint8_t *frame, uint32_t len,
					 int host_port, uint16_t ethertype,
					 struct dcn_frame_info *info);

/** Read the fabric header at p (DCN_FABRIC_HDR_LEN bytes). */
void dcn_fabric_read_hdr(const uint8_t *p, struct dcn_fabric_hdr *h);
/** Write the fabric header at p (DCN_FABRIC_HDR_LEN bytes). */
void dcn_fabric_write_hdr(uint8_t *p, const struct dcn_fabric_hdr *h);

/**
 * Fill a header's routing fields from a packet's routing state.
 * @return 0, or -1 when a vertex of the state has no address.
 */
int dcn_fabric_hdr_from_state(const struct dcn_topo *t,
			      const struct dcn_route_state *st,
			      struct dcn_fabric_hdr *h);

/**
 * The routing state a header carries.
 * @return 0, or -1 when its source, destination or proxy is not a server
 *         of the fabric.
 */
int dcn_fabric_state_from_hdr(const struct dcn_topo *t,
			      const struct dcn_fabric_hdr *h,
			      struct dcn_route_state *st);

/** Hello payload: who sends, from which port, in which fabric. */
struct dcn_hello {
	uint32_t addr;      /**< sender's fabric address */
	uint16_t port;      /**< sender's port number in the topology */
	uint16_t interval;  /**< sender's hello interval, ms */
	uint32_t topo_hash; /**< dcn_fabric_topo_hash() of the spec */
	uint32_t seq;       /**< increases with every hello */
};

#define DCN_HELLO_LEN 16

/** Read a hello payload (DCN_HELLO_LEN bytes). */
void dcn_fabric_read_hello(const uint8_t *p, struct dcn_hello *h);
/** Write a hello payload (DCN_HELLO_LEN bytes). */
void dcn_fabric_write_hello(uint8_t *p, const struct dcn_hello *h);

/**
 * With a fabric key, a hello's fixed payload is followed by an echo for
 * each neighbour its sender hears behind that port (one on a cable): the
 * last (epoch, sequence) heard from it, which lets the neighbour tell a
 * hello written now from a recording (lib/auth, dcn_auth_peer_take).
 */
struct dcn_hello_echo {
	uint32_t addr;      /**< the neighbour echoed */
	uint32_t epoch;     /**< its incarnation, as last heard */
	uint32_t seq;       /**< the sequence of its hello last heard */
};

#define DCN_HELLO_ECHO_LEN 12
/** Echoes a hello carries at most. */
#define DCN_HELLO_ECHO_MAX 64

/** Write echo e at p (DCN_HELLO_ECHO_LEN bytes). */
void dcn_fabric_write_hello_echo(uint8_t *p, const struct dcn_hello_echo *e);

/**
 * The echo for addr in a hello payload of len bytes (the header's len).
 * @return 1 found (*e filled), 0 none, -1 a length that is not the fixed
 *         payload and whole echoes (at most DCN_HELLO_ECHO_MAX).
 */
int dcn_fabric_hello_echo_find(const uint8_t *p, uint32_t len, uint32_t addr,
			       struct dcn_hello_echo *e);

/** FNV-1a hash of a canonical topology spec: both ends of a cable must
 * agree on the fabric. */
uint32_t dcn_fabric_topo_hash(const char *spec);

/**
 * Decrement an IPv4 header's TTL and update its checksum incrementally
 * (RFC 1624).
 * @return the new TTL.
 */
uint8_t dcn_ipv4_dec_ttl(uint8_t *ip);
/** Set the TTL of IPv4 header ip, its checksum updated (RFC 1624).
 * @return the new TTL. */
uint8_t dcn_ipv4_set_ttl(uint8_t *ip, uint8_t ttl);

/** Full IPv4 header checksum of ihl 32-bit words, in the header's
 * byte order, for checking. */
uint16_t dcn_ipv4_cksum(const uint8_t *ip, unsigned int ihl);

#ifdef __cplusplus
}
#endif

#endif /* DCN_FABRIC_H */
