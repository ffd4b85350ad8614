/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * encap = udp on real mbufs: the outer headers a port puts on and takes
 * off (dcn_port_udp.h), what is dropped and counted, and where a NIC
 * programmed as dcnfwd programs it (dcn_port_rss.h) puts the frames:
 * DPDK's software Toeplitz hash (rte_softrss) over the fields a NIC
 * hashes, through dcnfwd's RETA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_thash.h>

#include "dcn_fabric.h"
#include "dcn_fabric_udp.h"
#include "dcn_port.h"
#include "dcn_port_rss.h"
#include "test_eal.h"

static struct rte_mempool *mp;

#define SELF 0x0a000105u
#define PEER 0x0a000203u
#define UDP_PORT 34997

static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 2, 3 };
static const uint8_t self_mac[6] = { 0x02, 0, 0, 0, 1, 5 };

/* A fabric data frame of the ether format: a host's IPv4/UDP packet of
 * flow (src, dst, sport, dport), len bytes in all. */
static void
fabric_frame(uint8_t *f, uint32_t len, uint32_t src, uint32_t dst,
	     uint16_t sport, uint16_t dport)
{
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_DATA, .ttl = 16,
				    .src = src, .dst = dst };
	uint8_t *ip = f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;
	uint32_t i, l3 = len - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN;

	memcpy(f, peer_mac, 6);
	memcpy(f + 6, self_mac, 6);
	dcn_fabric_put16(f + 12, DCN_FABRIC_ETHERTYPE);
	h.len = (uint16_t)l3;
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	memset(ip, 0, l3);
	ip[0] = 0x45;
	dcn_fabric_put16(ip + 2, (uint16_t)l3);
	ip[8] = 64;
	ip[9] = DCN_IPPROTO_UDP;
	dcn_fabric_put32(ip + 12, src);
	dcn_fabric_put32(ip + 16, dst);
	dcn_fabric_put16(ip + 20, sport);
	dcn_fabric_put16(ip + 22, dport);
	for (i = 28; i < l3; i++)
		ip[i] = (uint8_t)i;
}

static struct rte_mbuf *
mbuf_of(const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	return m;
}

/* u: this relay's switch port; pu: its peer's, which takes what u sends
 * (an outer destination is checked: the peer's address) */
static struct dcn_port_udp u, pu;

static void
setup_udp(void)
{
	assert_int_equal(dcn_port_udp_init(&u, DCN_FABRIC_ETHERTYPE, UDP_PORT, SELF,
					   0), 0);
	assert_int_equal(dcn_port_udp_learn(&u, peer_mac, PEER), 0);
	assert_int_equal(dcn_port_udp_init(&pu, DCN_FABRIC_ETHERTYPE, UDP_PORT, PEER,
					   0), 0);
	assert_int_equal(dcn_port_udp_learn(&pu, self_mac, SELF), 0);
}

static uint64_t
refused_all(const struct dcn_port_udp *p)
{
	uint64_t s = 0;
	unsigned int r;

	for (r = 0; r < DCN_UDP_REFUSE_MAX; r++)
		s += dcn_port_udp_refused(p, (enum dcn_udp_refusal)r);
	return s;
}

/* Wrapped: the outer headers as dcn_fabric_udp.h says; unwrapped: the
 * frame as it was, byte for byte. */
static void
test_wrap_unwrap(void **state)
{
	uint8_t f[200], *o;
	struct rte_mbuf *m;
	unsigned int avail = rte_mempool_avail_count(mp);

	(void)state;
	setup_udp();
	fabric_frame(f, sizeof(f), 0x0a000101, 0x0a000404, 1234, 80);
	m = mbuf_of(f, sizeof(f));
	dcn_port_udp_wrap(&u, &m, 1);
	assert_int_equal(rte_pktmbuf_data_len(m), sizeof(f) + DCN_UDP_ENCAP_LEN);
	assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(f) + DCN_UDP_ENCAP_LEN);
	o = rte_pktmbuf_mtod(m, uint8_t *);
	assert_memory_equal(o, f, 12);                     /* MACs kept */
	assert_int_equal(dcn_fabric_get16(o + 12), 0x0800);
	assert_int_equal(o[14], 0x45);
	assert_int_equal(dcn_fabric_get16(o + 16), sizeof(f) - 14 + 28);
	assert_int_equal(dcn_fabric_get16(o + 20), 0x4000);   /* DF */
	assert_int_equal(o[22], DCN_UDP_OUTER_TTL);
	assert_int_equal(o[23], DCN_IPPROTO_UDP);
	assert_int_equal(dcn_ipv4_cksum(o + 14, 5), dcn_fabric_get16(o + 24));
	assert_int_equal(dcn_fabric_get32(o + 26), SELF);
	assert_int_equal(dcn_fabric_get32(o + 30), PEER);
	assert_true(dcn_fabric_get16(o + 34) >= DCN_UDP_SPORT_BASE);
	assert_int_equal(dcn_fabric_get16(o + 34), dcn_fabric_udp_sport(f, sizeof(f)));
	assert_int_equal(dcn_fabric_get16(o + 36), UDP_PORT);
	assert_int_equal(dcn_fabric_get16(o + 38), sizeof(f) - 14 + 8);
	assert_int_equal(dcn_fabric_get16(o + 40), 0);
	assert_memory_equal(o + 42, f + 14, sizeof(f) - 14);
	assert_int_equal(dcn_fabric_udp_check(o, sizeof(f) + 28, UDP_PORT),
			 DCN_UDP_FABRIC);
	assert_int_equal(dcn_port_udp_unwrap(&pu, 0, &m, 1), 1);
	assert_int_equal(refused_all(&pu), 0);
	assert_int_equal(rte_pktmbuf_data_len(m), sizeof(f));
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), f, sizeof(f));
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_avail_count(mp), avail);
}

/* A MAC not learnt, or a broadcast one (hellos), goes to 255.255.255.255;
 * the rewind of frames a port did not take gives the ether format back. */
static void
test_unknown_mac_and_rewind(void **state)
{
	uint8_t f[80], *o;
	struct rte_mbuf *m[2];

	(void)state;
	setup_udp();
	fabric_frame(f, sizeof(f), 1, 2, 3, 4);
	f[5] = 0x77;		/* nobody's */
	m[0] = mbuf_of(f, sizeof(f));
	memset(f, 0xff, 6);	/* broadcast */
	m[1] = mbuf_of(f, sizeof(f));
	dcn_port_udp_wrap(&u, m, 2);
	o = rte_pktmbuf_mtod(m[0], uint8_t *);
	assert_int_equal(dcn_fabric_get32(o + 30), UINT32_MAX);
	assert_int_equal(dcn_ipv4_cksum(o + 14, 5), dcn_fabric_get16(o + 24));
	o = rte_pktmbuf_mtod(m[1], uint8_t *);
	assert_int_equal(dcn_fabric_get32(o + 30), UINT32_MAX);
	dcn_port_udp_rewind(&u, m, 2);
	assert_int_equal(rte_pktmbuf_data_len(m[1]), sizeof(f));
	assert_memory_equal(rte_pktmbuf_mtod(m[1], uint8_t *), f, sizeof(f));
	assert_int_equal(dcn_fabric_get16(rte_pktmbuf_mtod(m[0], uint8_t *) + 12),
			 DCN_FABRIC_ETHERTYPE);
	rte_pktmbuf_free_bulk(m, 2);
}

/* Received: what is not ours stays as it is, what is ours but broken is
 * dropped and counted, no mbuf lost either way. */
static void
test_unwrap_malformed(void **state)
{
	uint8_t f[120], g[200];
	struct rte_mbuf *m[6];
	unsigned int avail = rte_mempool_avail_count(mp), i;
	uint64_t bad = 0;

	(void)state;
	setup_udp();
	fabric_frame(f, sizeof(f), 1, 2, 3, 4);
	for (i = 0; i < 6; i++)
		m[i] = mbuf_of(f, sizeof(f));
	dcn_port_udp_wrap(&u, m, 6);
	memcpy(g, rte_pktmbuf_mtod(m[0], uint8_t *), sizeof(f) + 28);
	/* 1: a fragment; 2: a UDP length that disagrees; 3: a total length
	 * beyond the frame; 4: another UDP port (not ours: kept as is);
	 * 5: IPv4 options to our port. */
	rte_pktmbuf_mtod(m[1], uint8_t *)[20] |= 0x20;
	rte_pktmbuf_mtod(m[2], uint8_t *)[39] ^= 1;
	dcn_fabric_put16(rte_pktmbuf_mtod(m[3], uint8_t *) + 16, 1400);
	dcn_fabric_put16(rte_pktmbuf_mtod(m[4], uint8_t *) + 36, 53);
	rte_pktmbuf_mtod(m[5], uint8_t *)[14] = 0x46;
	dcn_fabric_put16(rte_pktmbuf_mtod(m[5], uint8_t *) + 40, UDP_PORT);
	assert_int_equal(dcn_port_udp_unwrap(&pu, 3, m, 6), 2);
	for (i = 0; i < DCN_PORT_UDP_QUEUES; i++)
		bad += pu.refused[i][DCN_UDP_REFUSE_MALFORMED];
	assert_int_equal(pu.refused[3][DCN_UDP_REFUSE_MALFORMED], 4);
	assert_int_equal(bad, 4);
	assert_int_equal(refused_all(&pu), 4);
	assert_int_equal(rte_pktmbuf_data_len(m[0]), sizeof(f));
	assert_memory_equal(rte_pktmbuf_mtod(m[0], uint8_t *), f, sizeof(f));
	assert_int_equal(rte_pktmbuf_data_len(m[1]), sizeof(f) + 28);
	assert_int_equal(dcn_fabric_get16(rte_pktmbuf_mtod(m[1], uint8_t *) + 36), 53);
	rte_pktmbuf_free_bulk(m, 2);
	assert_int_equal(rte_mempool_avail_count(mp), avail);
	/* Cut short: to our port, so malformed; shorter than the outer
	 * headers: not looked at (a runt, classification's to drop). */
	assert_int_equal(dcn_fabric_udp_check(g, 14 + 28 + 19, UDP_PORT),
			 DCN_UDP_MALFORMED);
	assert_int_equal(dcn_fabric_udp_check(g, 14 + 27, UDP_PORT),
			 DCN_UDP_NOT_OURS);
}

/* Transit: a frame unwrapped here goes out with the source port it came
 * with (its flow's entropy, not hashed again); one that was not (a host's
 * packet encapsulated here) gets the hash of its flow. */
static void
test_transit_keeps_sport(void **state)
{
	uint8_t f[100];
	struct rte_mbuf *m;

	(void)state;
	setup_udp();
	fabric_frame(f, sizeof(f), 0x0a000101, 0x0a000404, 1234, 80);
	m = mbuf_of(f, sizeof(f));
	dcn_port_udp_wrap(&u, &m, 1);
	assert_int_equal(dcn_fabric_get16(rte_pktmbuf_mtod(m, uint8_t *) + 34),
			 dcn_fabric_udp_sport(f, sizeof(f)));
	/* As the previous relay sent it: another source port (the UDP
	 * checksum is 0, none; the IPv4 header's does not cover it). */
	dcn_fabric_put16(rte_pktmbuf_mtod(m, uint8_t *) + 34, 50001);
	assert_int_equal(dcn_port_udp_unwrap(&pu, 0, &m, 1), 1);
	assert_true(m->ol_flags & dcn_port_udp_sport_flag);
	dcn_port_udp_wrap(&u, &m, 1);
	assert_int_equal(dcn_fabric_get16(rte_pktmbuf_mtod(m, uint8_t *) + 34), 50001);
	rte_pktmbuf_free(m);
	/* A fresh mbuf from the pool has no flag: hashed. */
	m = mbuf_of(f, sizeof(f));
	assert_false(m->ol_flags & dcn_port_udp_sport_flag);
	rte_pktmbuf_free(m);
}

/* The outer headers as a relay of this fabric sends them, or refused and
 * counted by reason: checksum (in software, unless the port says it
 * checked), TTL, destination (this relay or broadcast), source (a
 * cable's peer, once a hello named it), and a fabric frame that came
 * unwrapped (the other wire format). Nothing refused is kept, no mbuf
 * is lost. */
static void
test_unwrap_refusals(void **state)
{
	static const struct {
		int field;      /* byte offset in the wrapped frame, -1: none */
		uint8_t value;  /* xor'ed into it */
		int fix_cksum;  /* recompute the IPv4 checksum after */
		uint64_t flags; /* the port's checksum flag */
		int cable;      /* taken on a cable's port that knows PEER */
		int refused;    /* enum dcn_udp_refusal, DCN_UDP_REFUSE_MAX: kept */
	} c[] = {
		{ -1, 0, 0, 0, 0, DCN_UDP_REFUSE_MAX },
		{ 24, 0x01, 0, 0, 0, DCN_UDP_REFUSE_CHECKSUM },
		{ 26, 0x10, 0, 0, 0, DCN_UDP_REFUSE_CHECKSUM },     /* source, no fix */
		{ 24, 0x01, 0, RTE_MBUF_F_RX_IP_CKSUM_GOOD, 0, DCN_UDP_REFUSE_MAX },
		{ -1, 0, 0, RTE_MBUF_F_RX_IP_CKSUM_BAD, 0, DCN_UDP_REFUSE_CHECKSUM },
		{ 22, 64 ^ 63, 1, 0, 0, DCN_UDP_REFUSE_TTL },
		{ 22, 64 ^ 1, 1, 0, 0, DCN_UDP_REFUSE_TTL },
		{ 22, 64 ^ 0, 1, 0, 0, DCN_UDP_REFUSE_TTL },
		{ 33, 0x01, 1, 0, 0, DCN_UDP_REFUSE_DESTINATION },
		{ 29, 0x01, 1, 0, 0, DCN_UDP_REFUSE_MAX },   /* switch: any source */
		{ 29, 0x01, 1, 0, 1, DCN_UDP_REFUSE_SOURCE },
		{ -1, 0, 0, 0, 1, DCN_UDP_REFUSE_MAX },
	};
	struct dcn_port_udp cab;
	unsigned int avail = rte_mempool_avail_count(mp), i;
	uint8_t f[100];

	(void)state;
	setup_udp();
	assert_int_equal(dcn_port_udp_init(&cab, DCN_FABRIC_ETHERTYPE, UDP_PORT, PEER,
					   1), 0);
	assert_int_equal(dcn_port_udp_learn(&cab, self_mac, SELF), 0);
	fabric_frame(f, sizeof(f), 0x0a000101, 0x0a000404, 1234, 80);
	for (i = 0; i < RTE_DIM(c); i++) {
		struct dcn_port_udp *to = c[i].cable ? &cab : &pu;
		struct rte_mbuf *m = mbuf_of(f, sizeof(f));
		uint64_t before[DCN_UDP_REFUSE_MAX];
		uint8_t *o;
		unsigned int r;

		for (r = 0; r < DCN_UDP_REFUSE_MAX; r++)
			before[r] = dcn_port_udp_refused(to, (enum dcn_udp_refusal)r);
		dcn_port_udp_wrap(&u, &m, 1);
		o = rte_pktmbuf_mtod(m, uint8_t *);
		if (c[i].field >= 0)
			o[c[i].field] ^= c[i].value;
		if (c[i].fix_cksum)
			dcn_fabric_put16(o + 24, dcn_ipv4_cksum(o + 14, 5));
		m->ol_flags |= c[i].flags;
		assert_int_equal(dcn_port_udp_unwrap(to, 1, &m, 1),
				 c[i].refused == DCN_UDP_REFUSE_MAX);
		for (r = 0; r < DCN_UDP_REFUSE_MAX; r++)
			assert_int_equal(dcn_port_udp_refused(to, (enum dcn_udp_refusal)r) -
					 before[r], r == (unsigned int)c[i].refused);
		if (c[i].refused == DCN_UDP_REFUSE_MAX) {
			assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), f, sizeof(f));
			rte_pktmbuf_free(m);
		}
	}
	/* Broadcast (hellos; a MAC not learnt) is for every relay. */
	{
		struct rte_mbuf *m = mbuf_of(f, sizeof(f));

		memset(rte_pktmbuf_mtod(m, uint8_t *), 0xff, 6);
		dcn_port_udp_wrap(&u, &m, 1);
		assert_int_equal(dcn_fabric_get32(rte_pktmbuf_mtod(m, uint8_t *) + 30),
				 UINT32_MAX);
		assert_int_equal(dcn_port_udp_unwrap(&pu, 0, &m, 1), 1);
		rte_pktmbuf_free(m);
	}
	/* The other wire format: a fabric frame as it is, on a udp port. */
	{
		struct rte_mbuf *m[2] = { mbuf_of(f, sizeof(f)), mbuf_of(f, sizeof(f)) };
		uint64_t mm = dcn_port_udp_refused(&pu, DCN_UDP_REFUSE_ETHER_FORMAT);

		dcn_port_udp_wrap(&u, &m[1], 1);
		assert_int_equal(dcn_port_udp_unwrap(&pu, 2, m, 2), 1);
		assert_int_equal(dcn_port_udp_refused(&pu, DCN_UDP_REFUSE_ETHER_FORMAT),
				 mm + 1);
		assert_memory_equal(rte_pktmbuf_mtod(m[0], uint8_t *), f, sizeof(f));
		rte_pktmbuf_free(m[0]);
	}
	assert_string_equal(dcn_udp_refusal_name(DCN_UDP_REFUSE_ETHER_FORMAT),
			    "encap_mismatch");
	assert_int_equal(rte_mempool_avail_count(mp), avail);
}

/* A cable's port addresses its one peer, learnt from its hellos, whatever
 * the MAC (until the hello, and for broadcast: 255.255.255.255). */
static void
test_cable_peer(void **state)
{
	static const uint8_t other[6] = { 0x02, 9, 9, 9, 9, 9 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct dcn_port_udp c;

	(void)state;
	assert_int_equal(dcn_port_udp_init(&c, DCN_FABRIC_ETHERTYPE, UDP_PORT, SELF,
					   1), 0);
	assert_int_equal(dcn_port_udp_lookup(&c, other) >> 32, UINT32_MAX);
	assert_int_equal(dcn_port_udp_learn(&c, peer_mac, PEER), 0);
	assert_int_equal(dcn_port_udp_lookup(&c, peer_mac) >> 32, PEER);
	assert_int_equal(dcn_port_udp_lookup(&c, other) >> 32, PEER);
	assert_int_equal(dcn_port_udp_lookup(&c, bcast) >> 32, UINT32_MAX);
	/* A switch port tells its relays apart by MAC. */
	assert_int_equal(dcn_port_udp_lookup(&u, other) >> 32, UINT32_MAX);
	assert_int_equal(dcn_port_udp_lookup(&u, peer_mac) >> 32, PEER);
}

/* A frame that is not the fabric's (ARP, or plain IPv4) goes out as it is. */
static void
test_wrap_leaves_others(void **state)
{
	uint8_t f[64];
	struct rte_mbuf *m;

	(void)state;
	setup_udp();
	memset(f, 0, sizeof(f));
	memcpy(f, peer_mac, 6);
	dcn_fabric_put16(f + 12, 0x0806);
	m = mbuf_of(f, sizeof(f));
	dcn_port_udp_wrap(&u, &m, 1);
	assert_int_equal(rte_pktmbuf_data_len(m), sizeof(f));
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), f, sizeof(f));
	rte_pktmbuf_free(m);
}

/* The entropy: a flow has one source port, on every hop (it depends on
 * the inner packet only, not on the fabric header's TTL or VC); a
 * fragment's is its datagram's addresses' (no ports); a control frame's
 * is its fabric source and destination's. */
static void
test_sport(void **state)
{
	uint8_t f[100], g[100];
	uint16_t a;

	(void)state;
	fabric_frame(f, sizeof(f), 0x0a000101, 0x0a000404, 1234, 80);
	a = dcn_fabric_udp_sport(f, sizeof(f));
	memcpy(g, f, sizeof(f));
	g[DCN_ETHER_HDR_LEN + 1] = 0x21;	/* another VC */
	g[DCN_ETHER_HDR_LEN + 2] = 3;		/* TTL */
	assert_int_equal(dcn_fabric_udp_sport(g, sizeof(g)), a);
	fabric_frame(g, sizeof(g), 0x0a000101, 0x0a000404, 1235, 80);
	assert_int_not_equal(dcn_fabric_udp_sport(g, sizeof(g)), a);
	/* Fragments of one datagram, first and later: one port. */
	fabric_frame(f, sizeof(f), 7, 8, 1, 2);
	f[DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + 6] = 0x20;	/* MF */
	fabric_frame(g, sizeof(g), 7, 8, 9, 9);
	g[DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + 7] = 0x10;	/* offset */
	assert_int_equal(dcn_fabric_udp_sport(f, sizeof(f)),
			 dcn_fabric_udp_sport(g, sizeof(g)));
	/* Short frames are read no further than given. */
	assert_true(dcn_fabric_udp_sport(f, 10) >= DCN_UDP_SPORT_BASE);
}

/* The reason in numbers: 10,000 flows of encap = udp frames over
 * one hop, hashed by rte_softrss with dcnfwd's key over the fields a NIC
 * hashes, land on 2, 4, 8 and 16 queues through dcnfwd's RETA within
 * 10% of even; the same flows in the ether format all land on one. */
#define FLOWS 10000

static void
test_rss_spread(void **state)
{
	static const unsigned int queues[] = { 2, 4, 8, 16 };
	uint8_t key[40], f[128];
	uint16_t reta[DCN_PORT_RSS_RETA_DEFAULT];
	unsigned int qi, i, count[16], size = DCN_PORT_RSS_RETA_DEFAULT;
	uint64_t rng = 0x2545f4914f6cdd1dull;
	struct rte_mbuf *m;

	(void)state;
	setup_udp();
	dcn_port_rss_key(key, sizeof(key));
	for (qi = 0; qi < RTE_DIM(queues); qi++) {
		unsigned int q = queues[qi], lo = UINT32_MAX, hi = 0, ether[16];

		dcn_port_rss_reta(reta, size, q);
		memset(count, 0, sizeof(count));
		memset(ether, 0, sizeof(ether));
		for (i = 0; i < FLOWS; i++) {
			uint32_t src, dst;
			uint16_t sp, dp;
			uint8_t *o;

			/* Hosts of a /16 talking to each other, any ports. */
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			src = 0x0a000000u | (uint32_t)(rng & 0xffff);
			dst = 0x0a000000u | (uint32_t)((rng >> 16) & 0xffff);
			sp = (uint16_t)(rng >> 32);
			dp = (uint16_t)(rng >> 48);
			fabric_frame(f, sizeof(f), src, dst, sp, dp);
			ether[dcn_port_rss_queue(f, sizeof(f), key, reta, size)]++;
			m = mbuf_of(f, sizeof(f));
			dcn_port_udp_wrap(&u, &m, 1);
			o = rte_pktmbuf_mtod(m, uint8_t *);
			count[dcn_port_rss_queue(o, rte_pktmbuf_data_len(m), key,
						 reta, size)]++;
			rte_pktmbuf_free(m);
		}
		for (i = 0; i < q; i++) {
			lo = RTE_MIN(lo, count[i]);
			hi = RTE_MAX(hi, count[i]);
		}
		print_message("%2u queues: %u..%u flows a queue (even: %u)\n", q,
			      lo, hi, FLOWS / q);
		assert_true(lo * 10 >= FLOWS / q * 9);
		assert_true(hi * 10 <= FLOWS / q * 11);
		assert_int_equal(ether[0], FLOWS);
	}
}

/* The emulation's NICs (dcn_port_spread): a fabric port spreads encap =
 * udp frames by their UDP source port, a host-facing one (by_flow) plain
 * IPv4 by the fabric's entropy of the flow, so every flow lands in the
 * same queue index at its host's port as on the fabric's ports: with a
 * lane a worker, on one worker end to end (app/dcnfwd/emu_fabric.c). A
 * host-facing port without by_flow spreads a host's frames by their own
 * source port, elsewhere for most flows; a frame of the fabric EtherType
 * goes to entry 0's queue. */
static void
test_spread_by_flow(void **state)
{
	uint16_t reta[DCN_PORT_RSS_RETA_DEFAULT];
	struct dcn_port_spread fabric = { reta, DCN_PORT_RSS_RETA_DEFAULT, 0 };
	struct dcn_port_spread host = { reta, DCN_PORT_RSS_RETA_DEFAULT, 1 };
	unsigned int i, other = 0, flows = 1000;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	uint8_t f[100];

	(void)state;
	setup_udp();
	dcn_port_rss_reta(reta, DCN_PORT_RSS_RETA_DEFAULT, 4);
	for (i = 0; i < flows; i++) {
		struct rte_mbuf *wrapped, *bare;
		uint8_t *b;
		unsigned int q;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		fabric_frame(f, sizeof(f), 0x0a000000u | (uint32_t)(rng & 0xffff),
			     0x0a000000u | (uint32_t)((rng >> 16) & 0xffff),
			     (uint16_t)(rng >> 32), (uint16_t)(rng >> 48));
		wrapped = mbuf_of(f, sizeof(f));
		assert_int_equal(dcn_port_spread_queue(&fabric, wrapped), reta[0]);
		assert_int_equal(dcn_port_spread_queue(&host, wrapped), reta[0]);
		dcn_port_udp_wrap(&u, &wrapped, 1);
		/* The inner packet bare, as the host sent it. */
		bare = mbuf_of(f, sizeof(f));
		b = rte_pktmbuf_mtod(bare, uint8_t *);
		memmove(b + DCN_ETHER_HDR_LEN, b + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			sizeof(f) - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN);
		dcn_fabric_put16(b + 12, 0x0800);
		rte_pktmbuf_trim(bare, DCN_FABRIC_HDR_LEN);
		q = dcn_port_spread_queue(&fabric, wrapped);
		assert_int_equal(dcn_port_spread_queue(&host, bare), q);
		other += dcn_port_spread_queue(&fabric, bare) != q;
		rte_pktmbuf_free(wrapped);
		rte_pktmbuf_free(bare);
	}
	print_message("by a host frame's own source port: %u of %u flows in "
		      "another queue\n", other, flows);
	assert_true(other > flows / 2);
}

/* The model of what a NIC hashes: IPv4 with its ports, IPv4 alone for a
 * fragment or another protocol, nothing for the fabric EtherType. */
static void
test_rss_tuple(void **state)
{
	uint8_t f[100];
	uint32_t t[3];
	uint8_t key[40];
	uint16_t reta[8];

	(void)state;
	fabric_frame(f, sizeof(f), 1, 2, 3, 4);
	assert_int_equal(dcn_port_rss_tuple(f, sizeof(f), t), 0);
	/* The inner packet as a NIC would see it bare. */
	memmove(f + 14, f + 34, 66);
	dcn_fabric_put16(f + 12, 0x0800);
	assert_int_equal(dcn_port_rss_tuple(f, 80, t), 3);
	assert_int_equal(t[0], 1);
	assert_int_equal(t[1], 2);
	assert_int_equal(t[2], 3u << 16 | 4);
	f[14 + 6] = 0x20;	/* a fragment: addresses only */
	assert_int_equal(dcn_port_rss_tuple(f, 80, t), 2);
	f[14 + 6] = 0;
	f[14 + 9] = 1;		/* ICMP */
	assert_int_equal(dcn_port_rss_tuple(f, 80, t), 2);
	assert_int_equal(dcn_port_rss_tuple(f, 20, t), 0);
	/* The symmetric key: both directions of a flow hash alike. */
	dcn_port_rss_key(key, sizeof(key));
	{
		uint32_t a[3] = { 0x0a000001, 0x0a000002, 1000u << 16 | 80 };
		uint32_t b[3] = { 0x0a000002, 0x0a000001, 80u << 16 | 1000 };

		assert_int_equal(rte_softrss(a, 3, key), rte_softrss(b, 3, key));
	}
	dcn_port_rss_reta(reta, 8, 3);
	assert_int_equal(reta[0], 0);
	assert_int_equal(reta[4], 1);
	assert_int_equal(reta[5], 2);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_unwrap),
		cmocka_unit_test(test_unknown_mac_and_rewind),
		cmocka_unit_test(test_unwrap_malformed),
		cmocka_unit_test(test_unwrap_refusals),
		cmocka_unit_test(test_wrap_leaves_others),
		cmocka_unit_test(test_transit_keeps_sport),
		cmocka_unit_test(test_cable_peer),
		cmocka_unit_test(test_sport),
		cmocka_unit_test(test_rss_spread),
		cmocka_unit_test(test_rss_tuple),
		cmocka_unit_test(test_spread_by_flow),
	};
	int ret;

	(void)argc;
	ret = test_eal_start(argv[0], "encap", 1023, &mp);
	if (ret != 0)
		return ret;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	test_eal_stop(mp);
	return ret;
}
