/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_PORT_UDP_H
#define DCN_PORT_UDP_H

/**
 * @file
 * A fabric port of a fabric whose wire format is encap = udp
 * (dcn_fabric_udp.h): the outer IPv4/UDP headers come off as frames are
 * received and go on as they are sent, so that everything between sees
 * the ether format. The outer destination is the relay the frame's
 * destination MAC belongs to, learnt from its hellos (the control thread
 * calls dcn_port_udp_learn); a MAC not learnt, or a broadcast one, gets
 * 255.255.255.255.
 *
 * A frame unwrapped here keeps the source port it came with, in an mbuf
 * field its wrap on the way out takes again (a flag says it is there):
 * transit does not hash its flow again, and keeps its entropy. Every PMD
 * writes a received mbuf's flags, and dcnfwd's own mbufs come reset from
 * the pool, so the flag is never a former frame's.
 *
 * Not for Diamond: its data frames are the hosts' own IPv4 packets, which
 * a NIC hashes already, and a host's datagram to the fabric's UDP port
 * must never be taken for a control frame there.
 *
 * The outer headers are checked here, whatever the port checked: most
 * ports (AF_XDP, memif, af_packet) check nothing and set no checksum
 * flag. A frame to the fabric's port is refused, counted by reason, when
 * it is malformed, its IPv4 checksum is wrong, its TTL is not the one
 * every relay sends (a cable or a switch is one hop: nothing on the way
 * decrements it, so another TTL was routed or made up), it is for another
 * relay (neither this node's address nor broadcast), or it comes from
 * another source than the cable's peer (once a hello named it). A frame
 * in the other wire format (the fabric EtherType, unwrapped) is refused
 * too: one fabric, one format (DCN_UDP_REFUSE_ETHER_FORMAT, shown as
 * encap_mismatch).
 */

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "dcn_fabric_udp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Relays one port can address (a power of two). */
#define DCN_PORT_UDP_PEERS 256
/** RX queues counted apart (each has one poller). */
#define DCN_PORT_UDP_QUEUES 16

/** The mbuf field and flag of a received source port
 * (dcn_port_udp_init registers them). */
extern int dcn_port_udp_sport_off;
extern uint64_t dcn_port_udp_sport_flag;

#define DCN_PORT_UDP_SPORT(m) \
	RTE_MBUF_DYNFIELD((m), dcn_port_udp_sport_off, uint16_t *)

/** Register the mbuf field and flag (once; init does). @return 0, or
 * -1 with rte_errno set. */
int dcn_port_udp_register(void);

/** Why a received frame to the fabric's port was refused. */
enum dcn_udp_refusal {
	DCN_UDP_REFUSE_MALFORMED = 0, /**< dcn_fabric_udp_check's */
	DCN_UDP_REFUSE_CHECKSUM,      /**< outer IPv4 header checksum */
	DCN_UDP_REFUSE_TTL,           /**< not DCN_UDP_OUTER_TTL */
	DCN_UDP_REFUSE_DESTINATION,   /**< for another relay */
	DCN_UDP_REFUSE_SOURCE,        /**< not the cable's peer */
	DCN_UDP_REFUSE_ETHER_FORMAT,  /**< a fabric frame not wrapped */
	DCN_UDP_REFUSE_MAX,
};

/** @return the telemetry name of a refusal ("encap_bad_checksum"). */
static inline const char *
dcn_udp_refusal_name(enum dcn_udp_refusal r)
{
	static const char *const names[DCN_UDP_REFUSE_MAX] = {
		"encap_malformed", "encap_bad_checksum", "encap_bad_ttl",
		"encap_not_for_us", "encap_wrong_source", "encap_mismatch",
	};

	return (unsigned int)r < DCN_UDP_REFUSE_MAX ? names[r] : "?";
}

struct dcn_port_udp_peer {
	uint64_t mac;   /**< the first 6 bytes; 0: a free slot */
	uint64_t word;  /**< address << 32 | dcn_fabric_udp_hop_sum */
};

/** A port's encapsulation state. */
struct dcn_port_udp {
	uint16_t ethertype_net; /**< the fabric's, network order: written
				 *   back as frames are unwrapped */
	uint16_t dport;      /**< the fabric's UDP port */
	uint32_t self;       /**< this node's fabric address: outer source */
	uint32_t self_net;   /**< the same, network order: an outer
			      *   destination taken */
	uint64_t bcast_word; /**< the word for 255.255.255.255 */
	/** A cable's port: its one peer's word (0 until a hello names it),
	 * taken without a look in the table. */
	uint8_t cable;
	uint64_t cable_word;
	struct dcn_fabric_udp_tmpl tmpl; /**< the outer headers' fixed part */
	/** Written by the control thread a slot at a time: word first, then
	 * the MAC that makes it visible; a slot once taken keeps its MAC. */
	struct dcn_port_udp_peer peer[DCN_PORT_UDP_PEERS];
	/** Refused (dropped) by reason, per RX queue (each has one poller). */
	uint64_t refused[DCN_PORT_UDP_QUEUES][DCN_UDP_REFUSE_MAX];
};

/** Frames of port u refused for reason r, all queues. */
static inline uint64_t
dcn_port_udp_refused(const struct dcn_port_udp *u, enum dcn_udp_refusal r)
{
	uint64_t s = 0;
	unsigned int q;

	for (q = 0; q < DCN_PORT_UDP_QUEUES; q++)
		s += __atomic_load_n(&u->refused[q][r], __ATOMIC_RELAXED);
	return s;
}

static inline uint64_t
dcn_port_udp_word(uint32_t self, uint32_t addr)
{
	return (uint64_t)addr << 32 | dcn_fabric_udp_hop_sum(self, addr);
}

/** Set up u for a node of fabric address self; cable: the port has one
 * peer (not on an L2 switch). @return 0, or -1 (no mbuf field left). */
static inline int
dcn_port_udp_init(struct dcn_port_udp *u, uint16_t ethertype, uint16_t dport,
		  uint32_t self, int cable)
{
	memset(u, 0, sizeof(*u));
	u->cable = (uint8_t)(cable != 0);
	u->ethertype_net = dcn_fabric_net16(ethertype);
	u->dport = dport;
	u->self = self;
	u->self_net = dcn_fabric_net32(self);
	u->bcast_word = dcn_port_udp_word(self, UINT32_MAX);
	dcn_fabric_udp_template(&u->tmpl, self, dport);
	return dcn_port_udp_register();
}

/* A MAC's first slot: its last two bytes (which tell a switch's
 * stations apart), a shift and a mask. */
static inline uint32_t
dcn_port_udp_slot(uint64_t mac)
{
	return (uint32_t)(mac >> 32 ^ mac >> 40) & (DCN_PORT_UDP_PEERS - 1);
}

/** The 6 bytes at p as dcn_port_udp_peer.mac holds them. */
static inline uint64_t
dcn_port_udp_mac(const uint8_t *p)
{
	uint64_t v = 0;

	memcpy(&v, p, 6);
	return v;
}

/**
 * The relay behind mac has fabric address addr (control thread).
 * @return 0, or -1 when the table is full (its frames then go to
 * 255.255.255.255).
 */
static inline int
dcn_port_udp_learn(struct dcn_port_udp *u, const uint8_t *mac, uint32_t addr)
{
	uint64_t v = dcn_port_udp_mac(mac), w = dcn_port_udp_word(u->self, addr);
	uint32_t i = dcn_port_udp_slot(v), k;

	if (v == 0)
		return -1;
	if (u->cable && __atomic_load_n(&u->cable_word, __ATOMIC_RELAXED) != w)
		__atomic_store_n(&u->cable_word, w, __ATOMIC_RELEASE);
	for (k = 0; k < DCN_PORT_UDP_PEERS; k++, i = (i + 1) & (DCN_PORT_UDP_PEERS - 1)) {
		struct dcn_port_udp_peer *e = &u->peer[i];
		uint64_t have = __atomic_load_n(&e->mac, __ATOMIC_RELAXED);

		if (have == v) {
			if (__atomic_load_n(&e->word, __ATOMIC_RELAXED) != w)
				__atomic_store_n(&e->word, w, __ATOMIC_RELEASE);
			return 0;
		}
		if (have == 0) {
			__atomic_store_n(&e->word, w, __ATOMIC_RELAXED);
			__atomic_store_n(&e->mac, v, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return -1;
}

/** The outer destination's word for a frame to mac (6 bytes at p). */
static inline uint64_t
dcn_port_udp_lookup(const struct dcn_port_udp *u, const uint8_t *p)
{
	uint64_t v;
	uint32_t i, k;

	if (p[0] & 1)	/* broadcast, multicast */
		return u->bcast_word;
	if (u->cable) {
		uint64_t w = __atomic_load_n(&u->cable_word, __ATOMIC_ACQUIRE);

		return w != 0 ? w : u->bcast_word;
	}
	v = dcn_port_udp_mac(p);
	i = dcn_port_udp_slot(v);
	for (k = 0; k < DCN_PORT_UDP_PEERS; k++, i = (i + 1) & (DCN_PORT_UDP_PEERS - 1)) {
		const struct dcn_port_udp_peer *e = &u->peer[i];
		uint64_t have = __atomic_load_n(&e->mac, __ATOMIC_ACQUIRE);

		if (have == v)
			return __atomic_load_n(&e->word, __ATOMIC_RELAXED);
		if (have == 0)
			break;
	}
	return u->bcast_word;
}

/* Take the outer headers off frame b (at f, checked): its MACs move up
 * to the fabric header, the fabric EtherType between. rte_pktmbuf_adj
 * less its check: the frame is longer than the outer headers. */
static inline void
dcn_port_udp_strip(const struct dcn_port_udp *u, struct rte_mbuf *b, uint8_t *f)
{
	uint8_t *e = f + DCN_UDP_ENCAP_LEN;

	memcpy(e, f, 12);
	dcn_fabric_store16(e + 12, u->ethertype_net);
	b->data_off = (uint16_t)(b->data_off + DCN_UDP_ENCAP_LEN);
	b->data_len = (uint16_t)(b->data_len - DCN_UDP_ENCAP_LEN);
	b->pkt_len -= DCN_UDP_ENCAP_LEN;
}

/* Is the IPv4 header at ip (no options) intact? Its ten words, the
 * checksum among them, sum to 0xffff. */
static inline int
dcn_port_udp_cksum_ok(const uint8_t *ip)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < DCN_IPV4_MIN_HDR; i += 2)
		sum += dcn_fabric_load16(ip + i);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The outer headers of a well-formed frame to the fabric's port (at f),
 * as a relay of this fabric sends them? @return DCN_UDP_REFUSE_MAX when
 * they are, else the reason. */
static inline enum dcn_udp_refusal
dcn_port_udp_outer(const struct dcn_port_udp *u, const struct rte_mbuf *b,
		   const uint8_t *f)
{
	const uint8_t *ip = f + DCN_ETHER_HDR_LEN;
	uint64_t ck = b->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	uint32_t dst = dcn_fabric_load32(ip + 16);

	if (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD ||
	    (ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD && !dcn_port_udp_cksum_ok(ip)))
		return DCN_UDP_REFUSE_CHECKSUM;
	if (ip[8] != DCN_UDP_OUTER_TTL)
		return DCN_UDP_REFUSE_TTL;
	if (dst != u->self_net && dst != UINT32_MAX)
		return DCN_UDP_REFUSE_DESTINATION;
	if (u->cable) {
		uint64_t w = __atomic_load_n(&u->cable_word, __ATOMIC_RELAXED);

		if (w != 0 && dcn_fabric_get32(ip + 12) != (uint32_t)(w >> 32))
			return DCN_UDP_REFUSE_SOURCE;
	}
	return DCN_UDP_REFUSE_MAX;
}

/**
 * Frames received on RX queue q: each encapsulated fabric frame becomes
 * the ether format (its MACs kept); one refused (above) is dropped and
 * counted by reason; anything else is left as it is. @return frames
 * kept, in order.
 */
static inline uint16_t
dcn_port_udp_unwrap(struct dcn_port_udp *u, uint16_t q, struct rte_mbuf **m,
		    uint16_t n)
{
	uint64_t *refused = u->refused[q & (DCN_PORT_UDP_QUEUES - 1)];
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *b = m[i];
		uint8_t *f = rte_pktmbuf_mtod(b, uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(b);
		enum dcn_udp_verdict v = dcn_fabric_udp_check(f, len, u->dport);
		enum dcn_udp_refusal r;

		if (likely(v == DCN_UDP_FABRIC)) {
			r = dcn_port_udp_outer(u, b, f);
			if (unlikely(r != DCN_UDP_REFUSE_MAX))
				goto refuse;
			/* The flow's entropy, for the way out. */
			*DCN_PORT_UDP_SPORT(b) = dcn_fabric_load16(f + DCN_UDP_SPORT_OFF);
			b->ol_flags |= dcn_port_udp_sport_flag;
			dcn_port_udp_strip(u, b, f);
		} else if (v != DCN_UDP_NOT_OURS) {
			r = DCN_UDP_REFUSE_MALFORMED;
			goto refuse;
		} else if (len >= DCN_ETHER_HDR_LEN &&
			   dcn_fabric_load16(f + 12) == u->ethertype_net) {
			r = DCN_UDP_REFUSE_ETHER_FORMAT;
			goto refuse;
		}
		m[k++] = b;
		continue;
refuse:
		refused[r]++;
		rte_pktmbuf_free(b);
	}
	return k;
}

/**
 * Frames about to be sent: each fabric frame (the fabric EtherType) gets
 * its outer IPv4/UDP headers; anything else goes as it is. A frame
 * without the headroom (never one of dcnfwd's mbufs) goes unwrapped.
 */
static inline void
dcn_port_udp_wrap(const struct dcn_port_udp *u, struct rte_mbuf **m, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *b = m[i];
		uint8_t *f = rte_pktmbuf_mtod(b, uint8_t *), *o;
		uint32_t len = rte_pktmbuf_data_len(b);
		uint64_t w;
		uint16_t sport_net;

		if (unlikely(len < DCN_ETHER_HDR_LEN ||
			     dcn_fabric_load16(f + 12) != u->ethertype_net ||
			     b->data_off < DCN_UDP_ENCAP_LEN))
			continue;
		sport_net = (b->ol_flags & dcn_port_udp_sport_flag) ?
				    *DCN_PORT_UDP_SPORT(b) :
				    dcn_fabric_net16(dcn_fabric_udp_sport(f, len));
		w = dcn_port_udp_lookup(u, f);
		/* rte_pktmbuf_prepend less its check (above). */
		b->data_off = (uint16_t)(b->data_off - DCN_UDP_ENCAP_LEN);
		b->data_len = (uint16_t)(b->data_len + DCN_UDP_ENCAP_LEN);
		b->pkt_len += DCN_UDP_ENCAP_LEN;
		o = f - DCN_UDP_ENCAP_LEN;
		memcpy(o, f, 12);
		dcn_fabric_store16(o + 12, dcn_fabric_net16(DCN_ETHERTYPE_IPV4));
		dcn_fabric_udp_write(o + DCN_ETHER_HDR_LEN, &u->tmpl, (uint32_t)(w >> 32),
				     (uint32_t)w, sport_net, len - DCN_ETHER_HDR_LEN);
	}
}

/** Frames wrapped but not sent (the port took fewer): back to the ether
 * format, as the caller keeps them to send again. */
static inline void
dcn_port_udp_rewind(const struct dcn_port_udp *u, struct rte_mbuf **m, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		uint8_t *f = rte_pktmbuf_mtod(m[i], uint8_t *);

		if (dcn_fabric_udp_check(f, rte_pktmbuf_data_len(m[i]), u->dport) ==
		    DCN_UDP_FABRIC)
			dcn_port_udp_strip(u, m[i], f);
	}
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_PORT_UDP_H */
