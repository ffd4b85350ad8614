/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fwd on real mbufs (EAL with --no-huge, no ports): a host packet is
 * encapsulated at the first relay, passed on in transit and decapsulated
 * at the last; Diamond routes plain IPv4; PORA draws per packet; a frame
 * on a detour goes to its proxy; a host's ARP goes to the control thread;
 * every bad frame is dropped under its reason and the mempool gets all
 * mbufs back.
 */
#include "test_common.h"
#include "test_eal.h"
#include "dcn_fwd.h"


/* The data path's clock as a test sets it (dcn_fwd_set_clock). */
static uint64_t test_clock_now;

static uint64_t
test_clock(void)
{
	return test_clock_now;
}

static struct rte_mempool *mp;
static const struct rte_ether_addr mac0 = { { 2, 0, 0, 0, 0, 1 } };

/* Ethernet | IPv4/UDP to dst, 60 bytes. */
static struct rte_mbuf *
host_packet(uint32_t dst, uint16_t sport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, 60);
	memset(p, 0, 60);
	p[12] = 0x08;
	p[14] = 0x45;
	p[17] = 46;          /* total length 46 */
	p[22] = 64;
	p[23] = 17;
	p[26] = 10; p[29] = 9;
	p[30] = (uint8_t)(dst >> 24); p[31] = (uint8_t)(dst >> 16);
	p[32] = (uint8_t)(dst >> 8); p[33] = (uint8_t)dst;
	p[34] = (uint8_t)(sport >> 8); p[35] = (uint8_t)sport;
	{
		uint16_t c = dcn_ipv4_cksum(p + 14, 5);

		p[24] = (uint8_t)(c >> 8);
		p[25] = (uint8_t)c;
	}
	return m;
}

/* The node's switch neighbours, all learnt with MAC mac0 (every test
 * port has mac0, so each node accepts what the previous one sent). */
static struct dcn_fwd_nbrs nbrs;

/* setup_ctx gives each context this route cache: small, so entries are
 * also evicted and refilled. */
#define TEST_CACHE_ENTRIES 64
static struct dcn_fwd_cache_entry test_cache[TEST_CACHE_ENTRIES];

static void
setup_ctx(struct dcn_fwd_ctx *c, const struct dcn_router *r,
	  const struct dcn_rtable *tb, int per_packet)
{
	const struct dcn_topo *t = dcn_router_topo(r);
	struct dcn_adj a[16];
	unsigned int n, i;

	assert_int_equal(dcn_fwd_init(c, r, tb, DCN_FABRIC_ETHERTYPE, per_packet), 0);
	n = dcn_topo_adj(t, dcn_rtable_node(tb), a);
	for (i = 0; i < n; i++)
		assert_int_equal(dcn_fwd_add_port(c, a[i].port, 0, &mac0), (int)i);
	assert_int_equal(dcn_fwd_add_port(c, -1, 1, &mac0), (int)n);
	dcn_fwd_nbrs_free(&nbrs);
	assert_int_equal(dcn_fwd_nbrs_init(&nbrs, t, dcn_rtable_node(tb)), 0);
	for (i = 0; i <= nbrs.mask; i++)
		if (nbrs.slot[i].vertex != DCN_FWD_NBR_EMPTY)
			dcn_fwd_nbr_set_mac(&nbrs.slot[i], &mac0);
	dcn_fwd_set_nbrs(c, &nbrs);
	assert_int_equal(dcn_fwd_set_cache(c, test_cache, TEST_CACHE_ENTRIES), 0);
}

/* The server behind topology port port of cur, on a route to dst. */
static uint32_t
next_on_port(const struct dcn_router *r, uint32_t cur, uint32_t dst, int port)
{
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	unsigned int n, i;

	dcn_route_state_init(r, cur, dst, &st);
	n = dcn_route_candidates(r, cur, dst, &st, h);
	for (i = 0; i < n; i++)
		if (h[i].port == port)
			return h[i].next;
	fail_msg("no candidate on port %d", port);
	return 0;
}

/* RRect(4,2,1): 00 -> 37 over two relays. */
static void
test_encap_transit_decap(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	uint32_t s00 = vertex_or_fail(t, "00"), s37 = vertex_or_fail(t, "37");
	struct dcn_rtable *tb00 = dcn_rtable_compile(r, s00);
	struct dcn_rtable *tbx = NULL;
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	struct rte_mbuf *m[1];
	uint16_t out[1];
	struct dcn_frame_info fi;
	uint8_t *p;
	unsigned int base = rte_mempool_in_use_count(mp);

	(void)state;
	setup_ctx(c, r, tb00, 0);
	c->nbr_frames = calloc(nbrs.mask + 1, sizeof(uint64_t));
	m[0] = host_packet(dcn_topo_addr(t, s37), 1234);
	assert_int_equal(dcn_fwd_burst(c, 2, m, 1, out), 1);
	assert_true(out[0] < 2);
	assert_int_equal(c->st.encap, 1);
	/* Counted against the one neighbour it went to, behind that port. */
	{
		uint32_t next = next_on_port(r, s00, s37, c->port[out[0]].fabric_port);
		const struct dcn_fwd_nbr *e = dcn_fwd_nbr_find(&nbrs, next,
			(uint16_t)c->port[out[0]].fabric_port);
		uint64_t total = 0;

		assert_non_null(e);
		assert_int_equal(c->nbr_frames[e - nbrs.slot], 1);
		for (unsigned int i = 0; i <= nbrs.mask; i++)
			total += c->nbr_frames[i];
		assert_int_equal(total, 1);
	}
	free(c->nbr_frames);
	c->nbr_frames = NULL;
	p = rte_pktmbuf_mtod(m[0], uint8_t *);
	assert_int_equal(rte_pktmbuf_data_len(m[0]), 14 + 20 + 46);
	assert_int_equal(dcn_fabric_classify(p, rte_pktmbuf_data_len(m[0]), 0,
					     DCN_FABRIC_ETHERTYPE, &fi),
			 DCN_FC_FABRIC_DATA);
	assert_int_equal(fi.hdr.src, dcn_topo_addr(t, s00));
	assert_int_equal(fi.hdr.dst, dcn_topo_addr(t, s37));
	assert_int_equal(fi.hdr.len, 46);
	assert_int_equal(fi.ip_dst, dcn_topo_addr(t, s37));
	assert_memory_equal(p + 6, &mac0, 6);

	/* Follow the frame: the neighbour on the output port forwards it
	 * with its own table, until the last relay decapsulates. */
	{
		uint32_t cur = s00;
		uint8_t ttl = fi.hdr.ttl;
		int hops = 0;

		while (c->st.decap == 0) {
			cur = next_on_port(r, cur, s37, c->port[out[0]].fabric_port);
			assert_true(++hops <= 2);
			dcn_rtable_free(tbx);
			tbx = dcn_rtable_compile(r, cur);
			setup_ctx(c, r, tbx, 0);
			assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), 1);
			if (c->st.transit == 1) {
				/* Transit: TTL went down by one. */
				dcn_fabric_classify(rte_pktmbuf_mtod(m[0], uint8_t *),
						    rte_pktmbuf_data_len(m[0]), 0,
						    DCN_FABRIC_ETHERTYPE, &fi);
				assert_int_equal(fi.hdr.ttl, ttl - 1);
			}
		}
		assert_int_equal(cur, s37);
		assert_int_equal(hops, 2);
		assert_int_equal(out[0], c->host_port);
		p = rte_pktmbuf_mtod(m[0], uint8_t *);
		assert_int_equal(rte_pktmbuf_data_len(m[0]), 14 + 46);
		assert_int_equal(p[12] << 8 | p[13], 0x0800);
		assert_int_equal(p[14], 0x45);
		assert_int_equal(p[30] << 24 | p[31] << 16 | p[32] << 8 | p[33],
				 (int)dcn_topo_addr(t, s37));
	}
	rte_pktmbuf_free(m[0]);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tbx);
	dcn_rtable_free(tb00);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

static struct rte_mbuf *
raw(const uint8_t *bytes, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), bytes, len);
	return m;
}

/* A fabric data frame of 80 bytes into f (128), to mac0, carrying a host
 * packet from src to dst (named vertices of t); *h gets its addresses
 * and is written once the caller has set the rest. */
static void
fabric_frame(uint8_t *f, const struct dcn_topo *t, const char *src,
	     const char *dst, struct dcn_fabric_hdr *h)
{
	struct rte_mbuf *good = host_packet(dcn_topo_addr(t, vertex_or_fail(t, dst)), 1);

	memset(f, 0, 128);
	memcpy(f, &mac0, 6);
	memcpy(f + 34, rte_pktmbuf_mtod_offset(good, uint8_t *, 14), 46);
	rte_pktmbuf_free(good);
	f[12] = 0x88;
	f[13] = 0xb5;
	h->src = dcn_topo_addr(t, vertex_or_fail(t, src));
	h->dst = dcn_topo_addr(t, vertex_or_fail(t, dst));
}

/* Bad frames: each counted under its reason; no mbuf lost. */
static void
test_bad_frames_dropped(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_rtable *tb = dcn_rtable_compile(r, vertex_or_fail(t, "07"));
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	struct rte_mbuf *m[8];
	uint16_t out[8];
	uint8_t f[128];
	struct dcn_fabric_hdr h = { .version = 1, .type = DCN_FT_DATA, .ttl = 9,
				    .len = 46 };
	unsigned int base = rte_mempool_in_use_count(mp);

	(void)state;
	setup_ctx(c, r, tb, 0);
	fabric_frame(f, t, "00", "37", &h);
	m[0] = raw(f, 10);                         /* runt */
	dcn_fabric_write_hdr(f + 14, &h);
	f[14] = 0x21;                              /* version 2 */
	m[1] = raw(f, 80);
	dcn_fabric_write_hdr(f + 14, &h);
	f[16] = 1;                                 /* TTL 1: expires here */
	m[2] = raw(f, 80);
	dcn_fabric_write_hdr(f + 14, &h);
	f[26] = 11;                                /* destination 11.x */
	m[3] = raw(f, 80);
	dcn_fabric_write_hdr(f + 14, &h);
	m[4] = raw(f, 80);                         /* fabric data on host port */
	f[14] = 0x13;                              /* a hello */
	m[6] = raw(f, 80);                         /* fabric control on host port */
	f[12] = 0x86;
	f[13] = 0xdd;
	m[5] = raw(f, 80);                         /* IPv6 on a fabric port */
	assert_int_equal(dcn_fwd_burst(c, 0, m, 4, out), 0);
	assert_int_equal(dcn_fwd_burst(c, 2, &m[4], 1, out), 0);
	assert_int_equal(dcn_fwd_burst(c, 2, &m[6], 1, out), 0);
	assert_int_equal(dcn_fwd_burst(c, 1, &m[5], 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_RUNT], 1);
	assert_int_equal(c->st.drop[DCN_DROP_BAD_VERSION], 1);
	assert_int_equal(c->st.drop[DCN_DROP_TTL_EXPIRED], 1);
	assert_int_equal(c->st.drop[DCN_DROP_NOT_IN_FABRIC], 1);
	assert_int_equal(c->st.drop[DCN_DROP_FABRIC_ON_HOST], 2);
	assert_int_equal(c->st.control, 0);
	assert_int_equal(c->st.drop[DCN_DROP_UNKNOWN_ETHERTYPE], 1);
	/* A host packet for an address outside the fabric. */
	m[0] = host_packet(0x0b000001, 1);
	assert_int_equal(dcn_fwd_burst(c, 2, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_NOT_IN_FABRIC], 2);
	/* A data frame unicast to another station on the switch. */
	f[12] = 0x88;
	f[13] = 0xb5;
	dcn_fabric_write_hdr(f + 14, &h);
	f[5] = 0x77;
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_NOT_OUR_MAC], 1);
	/* The same frame to us, but the next hop's MAC is not learnt. */
	f[5] = mac0.addr_bytes[5];
	m[0] = raw(f, 80);
	for (unsigned int i = 0; i <= nbrs.mask; i++)
		nbrs.slot[i].mac = 0;
	assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_NO_NEIGHBOUR], 1);
	assert_int_equal(c->st.rx, 10);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* encap = ether: a fabric port's frame in IPv4/UDP to the fabric's UDP
 * port is a neighbour in the other wire format: dropped as
 * encap_mismatch and counted by input port (not a sign of life). Other
 * UDP there stays an unknown EtherType; on the host port it is the
 * host's packet; with no port set, nothing is told apart. */
static void
test_encap_mismatch(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=4,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_rtable *tb = dcn_rtable_compile(r, 0);
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	struct rte_mbuf *m[4];
	uint16_t out[4], host;
	uint8_t f[128];
	unsigned int base = rte_mempool_in_use_count(mp);

	(void)state;
	setup_ctx(c, r, tb, 0);
	host = (uint16_t)(c->n_ports - 1);
	c->udp_port = 34997;
	/* A fabric frame wrapped as a udp relay sends it: 100 bytes, IPv4
	 * total 86, UDP length 66, room for the fabric header. */
	memset(f, 0, sizeof(f));
	m[0] = host_packet(dcn_topo_addr(t, 5), 1);
	memcpy(f, rte_pktmbuf_mtod(m[0], uint8_t *), 60);
	rte_pktmbuf_free(m[0]);
	f[17] = 86;
	f[36] = 34997 >> 8;
	f[37] = 34997 & 0xff;
	f[39] = 66;
	m[0] = raw(f, 100);
	m[2] = raw(f, 100);
	f[37] ^= 1;                                /* another UDP port */
	m[1] = raw(f, 100);
	f[37] ^= 1;
	assert_int_equal(dcn_fwd_burst(c, 1, m, 2, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_ENCAP_MISMATCH], 1);
	assert_int_equal(c->st.drop[DCN_DROP_UNKNOWN_ETHERTYPE], 1);
	assert_int_equal(c->in_mismatch[1], 1);
	assert_int_equal(c->in_mismatch[0], 0);
	/* On the host port: the host's own datagram, carried. */
	assert_int_equal(dcn_fwd_burst(c, host, &m[2], 1, out), 1);
	rte_pktmbuf_free(m[2]);
	assert_string_equal(dcn_drop_name(DCN_DROP_ENCAP_MISMATCH), "encap_mismatch");
	/* No UDP port set (encap = udp's nodes, Diamond): not looked at. */
	c->udp_port = 0;
	m[0] = raw(f, 100);
	assert_int_equal(dcn_fwd_burst(c, 1, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_ENCAP_MISMATCH], 1);
	assert_int_equal(c->st.drop[DCN_DROP_UNKNOWN_ETHERTYPE], 2);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* Diamond E11 routes 10.1.1.2 -> 10.4.3.2 to C11 as IPv4, TTL - 1; from
 * C11 itself, that would be a loop. */
static void
test_diamond_router(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	uint32_t e11 = vertex_or_fail(t, "E11");
	struct dcn_rtable *tb = dcn_rtable_compile(r, e11);
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	struct rte_mbuf *m[1];
	uint16_t out[1];
	uint8_t *p;
	unsigned int i;

	(void)state;
	assert_int_equal(dcn_fwd_init(c, r, tb, DCN_FABRIC_ETHERTYPE, 0), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(dcn_fwd_add_port(c, (int)i, i == 3, &mac0), (int)i);
	m[0] = host_packet(0x0a040302, 7);
	assert_int_equal(dcn_fwd_burst(c, 3, m, 1, out), 1);
	assert_int_equal(out[0], 2); /* E11's port 2 faces C11 */
	p = rte_pktmbuf_mtod(m[0], uint8_t *);
	assert_int_equal(p[12] << 8 | p[13], 0x0800);
	assert_int_equal(p[22], 63);
	assert_int_equal(p[24] << 8 | p[25], dcn_ipv4_cksum(p + 14, 5));
	rte_pktmbuf_free(m[0]);
	/* A server's packet starts at DCN_FWD_ROUTER_TTL whatever its TTL,
	 * so that switches read its VC from the TTL (hop 1: VC 0), its
	 * checksum right; a TTL of 1 is still expired where it enters. */
	m[0] = host_packet(0x0a040302, 7);
	p = rte_pktmbuf_mtod(m[0], uint8_t *);
	dcn_ipv4_set_ttl(p + 14, 200);
	assert_int_equal(p[24] << 8 | p[25], dcn_ipv4_cksum(p + 14, 5));
	assert_int_equal(dcn_fwd_burst(c, 3, m, 1, out), 1);
	assert_int_equal(p[22], DCN_FWD_ROUTER_TTL - 1);
	assert_int_equal(dcn_fwd_router_vc(p[22]), 0);
	assert_int_equal(p[24] << 8 | p[25], dcn_ipv4_cksum(p + 14, 5));
	rte_pktmbuf_free(m[0]);
	m[0] = host_packet(0x0a040302, 7);
	p = rte_pktmbuf_mtod(m[0], uint8_t *);
	dcn_ipv4_set_ttl(p + 14, 1);
	assert_int_equal(dcn_fwd_burst(c, 3, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_TTL_EXPIRED], 1);
	/* To its own server: out of the server port. A packet from a
	 * switch is one hop older: from VC 1 (TTL 62) to 61. */
	m[0] = host_packet(0x0a010102, 7);
	p = rte_pktmbuf_mtod(m[0], uint8_t *);
	dcn_ipv4_set_ttl(p + 14, 62);
	assert_int_equal(dcn_fwd_router_vc(p[22]), 1);
	assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), 1);
	assert_int_equal(out[0], 3);
	assert_int_equal(p[22], 61);
	assert_int_equal(p[24] << 8 | p[25], dcn_ipv4_cksum(p + 14, 5));
	rte_pktmbuf_free(m[0]);
	/* No TTL an edge switch set: VC 0. */
	assert_int_equal(dcn_fwd_router_vc(64), 0);
	assert_int_equal(dcn_fwd_router_vc(255), 0);
	/* The same inter-pod packet coming in from C11 would go straight
	 * back to it (tables that disagree while a failure's news spreads):
	 * a loop, dropped and counted, its mbuf freed. */
	{
		unsigned int base = rte_mempool_in_use_count(mp);

		m[0] = host_packet(0x0a040302, 7);
		assert_int_equal(dcn_fwd_burst(c, 2, m, 1, out), 0);
		assert_int_equal(c->st.drop[DCN_DROP_LOOP], 1);
		assert_int_equal(rte_mempool_in_use_count(mp), base);
	}
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/*
 * A frame whose next hop would take it past its route's VCs is on a loop
 * (tables that disagree while news of a failure spreads): dropped as
 * too_long, not kept on the last VC where two relays could hold each
 * other's queues full for good. Totoro(4,4,1) has 5 VCs: at [0,2], a
 * frame for [1,1] that came on VC 3 leaves on VC 4, one on VC 4 is
 * dropped. A Diamond switch reads the hops from the TTL: 12 VCs between
 * switches, the edge switch's own server still reached past them.
 */
static void
test_too_long_dropped(void **state)
{
	struct dcn_topo *t = topo_or_fail("totoro:N=4,n=4,K=1");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_rtable *tb = dcn_rtable_compile(r, vertex_or_fail(t, "[0,2]"));
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	struct dcn_fabric_hdr h = { .version = 1, .type = DCN_FT_DATA, .ttl = 9,
				    .len = 46 };
	struct dcn_frame_info fi;
	struct rte_mbuf *m[1];
	uint16_t out[1];
	uint8_t f[128], *p;
	unsigned int base = rte_mempool_in_use_count(mp), vc;

	(void)state;
	setup_ctx(c, r, tb, 0);
	fabric_frame(f, t, "[0,0]", "[1,1]", &h);
	for (vc = 3; vc <= 4; vc++) {
		h.vc = (uint8_t)vc;
		dcn_fabric_write_hdr(f + 14, &h);
		m[0] = raw(f, 80);
		assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), vc == 3);
		if (vc != 3)
			continue;          /* dropped, and freed by the step */
		assert_int_equal(out[0], 1);   /* to [1,2] behind switch (1-1) */
		p = rte_pktmbuf_mtod(m[0], uint8_t *);
		assert_int_equal(dcn_fabric_classify(p, rte_pktmbuf_data_len(m[0]), 0,
						     DCN_FABRIC_ETHERTYPE, &fi),
				 DCN_FC_FABRIC_DATA);
		assert_int_equal(fi.hdr.vc, 4);
		rte_pktmbuf_free(m[0]);
	}
	assert_int_equal(c->st.transit, 1);
	assert_int_equal(c->st.drop[DCN_DROP_TOO_LONG], 1);
	/* The same again, the decision now from the route cache. */
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_TOO_LONG], 2);
	/* Without a route cache. */
	dcn_fwd_set_cache(c, NULL, 0);
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_TOO_LONG], 3);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	dcn_router_free(r);
	dcn_topo_free(t);

	/* Diamond E11: from C11 (port 2) to 10.1.2.2 goes on to E14 (port
	 * 1). Arriving with TTL 53 it had 11 hops between switches and
	 * leaves on VC 11; with TTL 52, VC 12: dropped. To its own server
	 * (port 3) it goes whatever its hops. */
	t = topo_or_fail("diamond:k=4");
	r = router_or_fail(t, DCN_ALGO_DEFAULT);
	tb = dcn_rtable_compile(r, vertex_or_fail(t, "E11"));
	assert_int_equal(dcn_fwd_init(c, r, tb, DCN_FABRIC_ETHERTYPE, 0), 0);
	for (vc = 0; vc < 4; vc++)
		assert_int_equal(dcn_fwd_add_port(c, (int)vc, vc == 3, &mac0), (int)vc);
	m[0] = host_packet(0x0a010202, 7);
	p = rte_pktmbuf_mtod(m[0], uint8_t *);
	dcn_ipv4_set_ttl(p + 14, 53);
	assert_int_equal(dcn_fwd_burst(c, 2, m, 1, out), 1);
	assert_int_equal(out[0], 1);
	assert_int_equal(dcn_fwd_router_vc(p[22]), 11);
	rte_pktmbuf_free(m[0]);
	m[0] = host_packet(0x0a010202, 7);
	dcn_ipv4_set_ttl(rte_pktmbuf_mtod_offset(m[0], uint8_t *, 14), 52);
	assert_int_equal(dcn_fwd_burst(c, 2, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_TOO_LONG], 1);
	m[0] = host_packet(0x0a010102, 7);
	dcn_ipv4_set_ttl(rte_pktmbuf_mtod_offset(m[0], uint8_t *, 14), 50);
	assert_int_equal(dcn_fwd_burst(c, 2, m, 1, out), 1);
	assert_int_equal(out[0], 3);
	rte_pktmbuf_free(m[0]);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* Send n host packets to dst in on port 5 (the host port of a 2D
 * NovaCube node), one flow each when flows is set, else all one flow;
 * count them by output port in cnt. */
static void
count_outputs(struct dcn_fwd_ctx *c, uint32_t dst, unsigned int n, int flows,
	      unsigned int *cnt)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m[1] = { host_packet(dst, flows ? (uint16_t)i : 5) };
		uint16_t out[1];

		assert_int_equal(dcn_fwd_burst(c, 5, m, 1, out), 1);
		cnt[out[0]]++;
		rte_pktmbuf_free(m[0]);
	}
}

/* PORA draws per packet: eq. (12)'s shares at the source of Fig. 4. */
static void
test_pora_per_packet(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=8,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_PORA);
	struct dcn_rtable *tb = dcn_rtable_compile(r, vertex_or_fail(t, "(0,0)"));
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	unsigned int cnt[5] = { 0 };
	const unsigned int total = 20000;

	(void)state;
	setup_ctx(c, r, tb, 1);
	count_outputs(c, dcn_topo_addr(t, vertex_or_fail(t, "(2,3)")), total, 0, cnt);
	/* Ports: 0 +x, 1 -x, 2 +y, 3 -y, 4 jump. */
	assert_near(cnt[0] / (double)total, 0.2143, 0.015);
	assert_near(cnt[2] / (double)total, 0.2143, 0.015);
	assert_near(cnt[1] / (double)total, 0.0952, 0.015);
	assert_near(cnt[3] / (double)total, 0.0952, 0.015);
	assert_near(cnt[4] / (double)total, 0.3810, 0.015);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/*
 * A port marked down: its flows move to the other candidates at once, by
 * the same rule, before any table is recompiled; with every candidate
 * down the frame is dropped as link_down; marked up, they come back.
 */
static void
test_port_down_alternates(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=8,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_PORA);
	struct dcn_rtable *tb = dcn_rtable_compile(r, vertex_or_fail(t, "(0,0)"));
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	uint32_t dst = dcn_topo_addr(t, vertex_or_fail(t, "(2,3)"));
	unsigned int cnt[6] = { 0 }, base = rte_mempool_in_use_count(mp);
	uint16_t p;

	(void)state;
	setup_ctx(c, r, tb, 0);
	/* Flow by flow (source port), with port 4 (the jump) down. */
	dcn_fwd_set_port_down(c, 4, 1);
	count_outputs(c, dst, 2000, 1, cnt);
	assert_int_equal(cnt[4], 0);
	for (p = 0; p < 4; p++)
		assert_true(cnt[p] > 0);
	/* Every candidate down: dropped under its reason, mbuf freed. */
	for (p = 0; p < 5; p++)
		dcn_fwd_set_port_down(c, p, 1);
	{
		struct rte_mbuf *m[1] = { host_packet(dst, 1) };
		uint16_t out[1];

		assert_int_equal(dcn_fwd_burst(c, 5, m, 1, out), 0);
		assert_int_equal(c->st.drop[DCN_DROP_LINK_DOWN], 1);
	}
	/* Back up: the jump carries flows again. */
	for (p = 0; p < 5; p++)
		dcn_fwd_set_port_down(c, p, 0);
	memset(cnt, 0, sizeof(cnt));
	count_outputs(c, dst, 2000, 1, cnt);
	assert_true(cnt[4] > 0);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* A fabric data frame from src to dst, on a detour by vertex proxy
 * (DCN_ROUTE_NONE: none). */
static struct rte_mbuf *
fabric_packet(const struct dcn_topo *t, uint32_t src, uint32_t dst,
	      uint32_t proxy)
{
	struct rte_mbuf *m = host_packet(dcn_topo_addr(t, dst), 7);
	struct dcn_fabric_hdr h = {
		.version = DCN_FABRIC_VERSION, .type = DCN_FT_DATA, .ttl = 20,
		.path = DCN_PATH_ANY, .last_dim = 0xff, .len = 46,
		.src = dcn_topo_addr(t, src), .dst = dcn_topo_addr(t, dst),
		.proxy = proxy == DCN_ROUTE_NONE ? 0 : dcn_topo_addr(t, proxy),
	};
	uint8_t *p;

	rte_pktmbuf_trim(m, 60 - 14 - 46);
	assert_non_null(rte_pktmbuf_prepend(m, DCN_FABRIC_HDR_LEN));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(p, &mac0, 6);
	memset(p + 6, 0, 6);
	p[12] = (uint8_t)(DCN_FABRIC_ETHERTYPE >> 8);
	p[13] = (uint8_t)DCN_FABRIC_ETHERTYPE;
	dcn_fabric_write_hdr(p + DCN_ETHER_HDR_LEN, &h);
	return m;
}

/* ARP from a host port goes to the control thread (which answers for
 * fabric addresses); on a fabric port it is not the fabric's and is
 * dropped under its reason. */
static void
test_host_arp_to_control(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_rtable *tb = dcn_rtable_compile(r, vertex_or_fail(t, "07"));
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	unsigned int base = rte_mempool_in_use_count(mp);
	uint8_t f[60];
	struct rte_mbuf *m[1];
	uint16_t out[1];

	(void)state;
	setup_ctx(c, r, tb, 0);
	memset(f, 0, sizeof(f));
	memset(f, 0xff, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	/* host port: the last one setup_ctx added */
	m[0] = raw(f, sizeof(f));
	assert_int_equal(dcn_fwd_burst(c, (uint16_t)(c->n_ports - 1), m, 1, out), 1);
	assert_int_equal(out[0], DCN_FWD_CONTROL);
	rte_pktmbuf_free(m[0]);
	m[0] = raw(f, sizeof(f));
	assert_int_equal(dcn_fwd_burst(c, 0, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_UNKNOWN_ETHERTYPE], 1);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_fwd_nbrs_free(&nbrs);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/*
 * LaScaDa with (2,2) dead: from (1,1) to (3,1), (2,1) finds row-based
 * routing failed and sends the frame back through (1,2) with (1,1) as its
 * proxy. At (1,2) the frame must go on to the proxy; the table's entry
 * for the destination alone points back at (2,1), a loop until the TTL.
 */
static void
test_detour_goes_to_proxy(void **state)
{
	struct dcn_topo *t = topo_or_fail("lascada:n=2,k=2");
	struct dcn_failset *fs = dcn_topo_failset_create(t);
	struct dcn_route_conf rc = { .fail = fs };
	struct dcn_router *r;
	struct dcn_rtable *tb;
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	uint32_t a = vertex_or_fail(t, "(1,1)"), b = vertex_or_fail(t, "(1,2)");
	uint32_t dst = vertex_or_fail(t, "(3,1)");
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	struct dcn_adj adj[4];
	unsigned int base = rte_mempool_in_use_count(mp), n, i, to_a = 99, fresh = 99;
	struct rte_mbuf *m[2];
	uint16_t out[2];

	(void)state;
	assert_int_equal(dcn_topo_failset_add_vertex(fs, vertex_or_fail(t, "(2,2)")), 0);
	r = dcn_router_create_conf(t, &rc, NULL, 0);
	assert_non_null(r);
	tb = dcn_rtable_compile(r, b);
	assert_non_null(tb);
	setup_ctx(c, r, tb, 0);
	/* The local port to the proxy, and the one the table gives for the
	 * destination with no detour. */
	n = dcn_topo_adj(t, b, adj);
	for (i = 0; i < n; i++) {
		struct dcn_adj sw[8];
		unsigned int k, ns = dcn_topo_adj(t, adj[i].peer, sw);

		for (k = 0; k < ns; k++)
			if (sw[k].peer == a)
				to_a = i;
	}
	dcn_route_state_init(r, b, dst, &st);
	assert_true(dcn_route_candidates(r, b, dst, &st, h) >= 1);
	for (i = 0; i < n; i++)
		if (adj[i].port == h[0].port)
			fresh = i;
	assert_true(to_a < n && fresh < n);
	assert_int_not_equal(to_a, fresh);   /* else the test shows nothing */
	m[0] = fabric_packet(t, a, dst, a);  /* on the detour */
	m[1] = fabric_packet(t, a, dst, DCN_ROUTE_NONE);
	assert_int_equal(dcn_fwd_burst(c, 0, m, 2, out), 2);
	assert_int_equal(out[0], to_a);
	assert_int_equal(out[1], fresh);
	rte_pktmbuf_free_bulk(m, 2);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_failset_free(fs);
	dcn_topo_free(t);
}

/* Forward m (a copy goes to each) through both contexts; both must keep
 * it or both drop it, and what is kept must leave by the same port with
 * the same bytes. */
static void
same_both_ways(struct dcn_fwd_ctx *cached, struct dcn_fwd_ctx *plain,
	       uint16_t in, struct rte_mbuf *m)
{
	struct rte_mbuf *a[1] = { m }, *b[1] = { rte_pktmbuf_copy(m, mp, 0, UINT32_MAX) };
	uint16_t oa[1], ob[1], ka, kb;

	assert_non_null(b[0]);
	ka = dcn_fwd_burst(cached, in, a, 1, oa);
	kb = dcn_fwd_burst(plain, in, b, 1, ob);
	assert_int_equal(ka, kb);
	if (ka == 0)
		return;
	assert_int_equal(oa[0], ob[0]);
	assert_int_equal(rte_pktmbuf_data_len(a[0]), rte_pktmbuf_data_len(b[0]));
	assert_memory_equal(rte_pktmbuf_mtod(a[0], void *), rte_pktmbuf_mtod(b[0], void *),
			    rte_pktmbuf_data_len(a[0]));
	rte_pktmbuf_free(a[0]);
	rte_pktmbuf_free(b[0]);
}

/*
 * The route cache decides as the table does, in every topology: host
 * packets to every server and fabric frames from several sources (with
 * two TTLs), each twice (the second from the cache), through a relay with
 * a cache of 16
 * entries (so entries are also evicted) and one without. PORA draws per
 * packet, so the draws must stay in step too.
 */
static void
test_route_cache_matches_table(void **state)
{
	static const struct {
		const char *spec;
		enum dcn_route_algo algo;
		int per_packet;
	} cases[] = {
		{ "novacube:k=8,n=2", DCN_ALGO_PORA, 1 },
		{ "novacube:k=8,n=2", DCN_ALGO_DOR, 0 },
		{ "diamond:k=4", DCN_ALGO_DEFAULT, 0 },
		{ "rrect:n=4,m=2,k=1", DCN_ALGO_DEFAULT, 0 },
		{ "lascada:n=2,k=3", DCN_ALGO_DEFAULT, 0 },
		{ "totoro:N=4,n=4,K=1", DCN_ALGO_DEFAULT, 0 },
	};
	static struct dcn_fwd_cache_entry small[16];
	unsigned int base = rte_mempool_in_use_count(mp), k;

	(void)state;
	for (k = 0; k < RTE_DIM(cases); k++) {
		struct dcn_topo *t = topo_or_fail(cases[k].spec);
		struct dcn_router *r = router_or_fail(t, cases[k].algo);
		uint32_t ns = dcn_topo_servers(t), nv = dcn_topo_vertices(t), v;
		uint32_t routers[4096], nr = 0, pick;

		for (v = 0; v < nv && nr < RTE_DIM(routers); v++)
			if (dcn_topo_is_router(t, v))
				routers[nr++] = v;
		assert_true(nr >= 3);
		/* The first, a middle and the last routing vertex. */
		for (pick = 0; pick < 3; pick++) {
			struct dcn_rtable *tb;
			struct dcn_fwd_ctx *cc = calloc(1, sizeof(*cc));
			struct dcn_fwd_ctx *pc = calloc(1, sizeof(*pc));
			uint32_t d, src, frames = 0;
			uint16_t hp;
			int rep;

			v = routers[pick * (nr - 1) / 2];
			tb = dcn_rtable_compile(r, v);
			assert_non_null(tb);
			setup_ctx(pc, r, tb, cases[k].per_packet);
			assert_int_equal(dcn_fwd_set_cache(pc, NULL, 0), 0);
			setup_ctx(cc, r, tb, cases[k].per_packet);
			assert_int_equal(dcn_fwd_set_cache(cc, small, RTE_DIM(small)), 0);
			hp = (uint16_t)(cc->n_ports - 1);
			for (rep = 0; rep < 2; rep++) {
				for (d = 0; d < ns; d++) {
					uint16_t sport;

					for (sport = 1; sport <= 3; sport++, frames++)
						same_both_ways(cc, pc, hp,
							       host_packet(dcn_topo_addr(t, d), sport));
					for (src = 0; src < ns; src += ns / 6 + 1, frames++) {
						struct rte_mbuf *f;

						if (src == d)
							continue;
						/* Another TTL the second time: a
						 * decision of its own. */
						f = fabric_packet(t, src, d, DCN_ROUTE_NONE);
						rte_pktmbuf_mtod(f, uint8_t *)[16] =
							(uint8_t)(rep ? 9 : 20);
						same_both_ways(cc, pc, 0, f);
					}
				}
			}
			/* Counted alike, and the cache did the work the
			 * second time round. */
			assert_memory_equal(&cc->st, &pc->st, sizeof(cc->st));
			assert_memory_equal(cc->out_frames, pc->out_frames,
					    sizeof(cc->out_frames));
			assert_true(cc->st.encap + cc->st.transit + cc->st.decap > 0);
			assert_true(cc->cache_miss > 0);
			assert_true(cc->cache_miss < frames);
			assert_int_equal(pc->cache_miss, 0);
			dcn_rtable_free(tb);
			free(cc);
			free(pc);
		}
		dcn_router_free(r);
		dcn_topo_free(t);
	}
	assert_int_equal(rte_mempool_in_use_count(mp), base);
}

/* The benches' relay: (1,0) of NovaCube k=8, n=2 under DOR, its table,
 * and a context from setup_ctx. */
struct relay_fix {
	struct dcn_topo *t;
	struct dcn_router *r;
	struct dcn_rtable *tb;
	struct dcn_fwd_ctx *c;
	uint32_t node;
};

static void
relay_open(struct relay_fix *f)
{
	f->t = topo_or_fail("novacube:k=8,n=2");
	f->r = router_or_fail(f->t, DCN_ALGO_DOR);
	f->node = vertex_or_fail(f->t, "(1,0)");
	f->tb = dcn_rtable_compile(f->r, f->node);
	assert_non_null(f->tb);
	f->c = calloc(1, sizeof(*f->c));
	assert_non_null(f->c);
	setup_ctx(f->c, f->r, f->tb, 0);
}

static void
relay_close(struct relay_fix *f)
{
	dcn_rtable_free(f->tb);
	free(f->c);
	dcn_router_free(f->r);
	dcn_topo_free(f->t);
}

/*
 * A set of destinations a quarter of the cache's size stays in it: once a
 * first pass has filled it, a second pass misses nothing. A key has two
 * slots; with one, a few of 16 keys in 64 slots share a slot and miss on
 * every frame.
 */
static void
test_route_cache_keeps_small_set(void **state)
{
	struct relay_fix f;
	struct dcn_fwd_ctx *c;
	unsigned int base = rte_mempool_in_use_count(mp), pass, k;
	uint32_t v, dst[TEST_CACHE_ENTRIES / 4], n = 0;
	uint64_t first = 0;

	(void)state;
	relay_open(&f);
	c = f.c;
	for (v = 0; v < dcn_topo_vertices(f.t) && n < RTE_DIM(dst); v++)
		if (v != f.node && dcn_topo_is_router(f.t, v))
			dst[n++] = dcn_topo_addr(f.t, v);
	assert_int_equal(n, RTE_DIM(dst));
	for (pass = 0; pass < 2; pass++) {
		for (k = 0; k < n; k++) {
			struct rte_mbuf *m = host_packet(dst[k], 7);
			uint16_t out;

			assert_int_equal(dcn_fwd_burst(c, (uint16_t)(c->n_ports - 1), &m, 1,
						       &out), 1);
			rte_pktmbuf_free(m);
		}
		if (pass == 0)
			first = c->cache_miss;
	}
	assert_int_equal(first, n);
	assert_int_equal(c->cache_miss, first);
	assert_int_equal(c->st.encap, 2 * n);
	relay_close(&f);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
}

/*
 * A relay's cable port decides transit frames from the cache without the
 * full step; it must vouch for no frame the full step refuses. Frames
 * that share a cached decision's key (the routing bytes of the header)
 * but are wrong elsewhere are dropped, or handed over, as a relay without
 * a cache does it, under the same reasons.
 */
static void
test_transit_fast_checks_as_classify(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=8,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DOR);
	uint32_t relay = vertex_or_fail(t, "(1,0)");
	uint32_t src = vertex_or_fail(t, "(0,0)"), dst = vertex_or_fail(t, "(5,1)");
	struct dcn_rtable *tb = dcn_rtable_compile(r, relay);
	struct dcn_fwd_ctx *cc = calloc(1, sizeof(*cc)), *pc = calloc(1, sizeof(*pc));
	unsigned int base = rte_mempool_in_use_count(mp), k;
	uint64_t miss;

	(void)state;
	assert_non_null(tb);
	setup_ctx(pc, r, tb, 0);
	assert_int_equal(dcn_fwd_set_cache(pc, NULL, 0), 0);
	setup_ctx(cc, r, tb, 0);
	/* Port 0 is a cable: the fast path's port. */
	assert_false(cc->port[0].shared);
	assert_false(cc->port[0].host);
	/* A good frame fills the entry; the same again is a hit. */
	same_both_ways(cc, pc, 0, fabric_packet(t, src, dst, DCN_ROUTE_NONE));
	miss = cc->cache_miss;
	same_both_ways(cc, pc, 0, fabric_packet(t, src, dst, DCN_ROUTE_NONE));
	assert_int_equal(cc->cache_miss, miss);
	assert_int_equal(cc->st.transit, 2);
	for (k = 0; k < 12; k++) {
		struct rte_mbuf *m = fabric_packet(t, src, dst, DCN_ROUTE_NONE);
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

		switch (k) {
		case 0: p[14] = 0x21; break;          /* version 2 */
		case 1: p[14] = 0x13; break;          /* a hello: control */
		case 2: p[21] = 200; break;           /* payload longer than the frame */
		case 3: p[34] = 0x65; break;          /* inner IPv6 */
		case 4: p[34] = 0x44; break;          /* inner IHL 16 bytes */
		case 5: p[37] = 47; break;            /* IPv4 longer than the payload */
		case 6: p[13] ^= 1; break;            /* another EtherType */
		case 7: p[20] = 0; p[21] = 19; break; /* payload shorter than IPv4 */
		case 8: rte_pktmbuf_trim(m, 30); break; /* cut short */
		/* TTL 0: a key never cached (the full step drops it), so
		 * the cache needs no test of its own. */
		case 9: p[16] = 0; break;
		case 10: p[34] = 0x46; break;         /* options: the full step's */
		case 11: rte_pktmbuf_trim(m, 10); break; /* no room for IPv4 */
		}
		same_both_ways(cc, pc, 0, m);
	}
	/* Dropped under the same reasons, control handed over alike. */
	assert_memory_equal(&cc->st, &pc->st, sizeof(cc->st));
	assert_int_equal(cc->st.transit, 3);
	assert_int_equal(cc->st.control, 1);
	assert_int_equal(cc->st.drop[DCN_DROP_BAD_VERSION], 1);
	assert_int_equal(cc->st.drop[DCN_DROP_TTL_EXPIRED], 1);
	assert_int_equal(cc->st.drop[DCN_DROP_BAD_LENGTH], 3);
	assert_int_equal(cc->st.drop[DCN_DROP_BAD_IPV4], 4);
	assert_int_equal(cc->st.drop[DCN_DROP_UNKNOWN_ETHERTYPE], 1);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	free(cc);
	free(pc);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* A host packet to dst through c's host port (5), forwarded: its port. */
static uint16_t
host_out(struct dcn_fwd_ctx *c, uint32_t dst)
{
	struct rte_mbuf *m[1] = { host_packet(dst, 9) };
	uint16_t out[1];

	assert_int_equal(dcn_fwd_burst(c, 5, m, 1, out), 1);
	rte_pktmbuf_free(m[0]);
	return out[0];
}

/*
 * A cached decision lasts as long as its table: the same publication
 * again keeps the cache (the worker refreshes every loop), a recompiled
 * one (the cable the flow took has failed) empties it, so does the first
 * table published again under a new generation (a table allocated where
 * a freed one was), a port marked down is seen at once by a cached
 * decision, and the generation's wrap empties the cache.
 */
static void
test_route_cache_follows_table(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=8,n=2");
	struct dcn_failset *fs = dcn_topo_failset_create(t);
	struct dcn_route_conf rc = { .algo = DCN_ALGO_PORA, .fail = fs };
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_PORA), *r2;
	uint32_t s00 = vertex_or_fail(t, "(0,0)");
	uint32_t dst = dcn_topo_addr(t, vertex_or_fail(t, "(2,3)"));
	struct dcn_rtable *tb = dcn_rtable_compile(r, s00), *tb2;
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	unsigned int base = rte_mempool_in_use_count(mp);
	struct dcn_fwd_table pub = { r, tb, 1 }, pub2;
	struct rte_mbuf *m[1];
	uint16_t out[1], first, p;
	uint64_t miss, g0;
	uint32_t gen;

	(void)state;
	setup_ctx(c, r, tb, 0);
	dcn_fwd_refresh(c, &pub);
	first = host_out(c, dst);
	assert_true(first < 5);
	miss = c->cache_miss;
	dcn_fwd_refresh(c, &pub);
	assert_int_equal(host_out(c, dst), first);
	assert_int_equal(c->cache_miss, miss);  /* a hit */
	/* The flow's cable fails: the new table goes round it. */
	assert_int_equal(dcn_topo_failset_add_link(fs, s00,
						   (uint16_t)c->port[first].fabric_port), 0);
	r2 = dcn_router_create_conf(t, &rc, NULL, 0);
	assert_non_null(r2);
	tb2 = dcn_rtable_compile(r2, s00);
	assert_non_null(tb2);
	pub2 = (struct dcn_fwd_table){ r2, tb2, 2 };
	dcn_fwd_refresh(c, &pub2);
	assert_int_not_equal(host_out(c, dst), first);
	assert_int_equal(c->cache_miss, miss + 1);
	/* The first table again, as generation 3: routed afresh. */
	pub.gen = 3;
	dcn_fwd_refresh(c, &pub);
	assert_int_equal(host_out(c, dst), first);
	assert_int_equal(c->cache_miss, miss + 2);
	/* Its port marked down: the cached decision takes another
	 * candidate; all down, it drops. */
	dcn_fwd_set_port_down(c, first, 1);
	assert_int_not_equal(host_out(c, dst), first);
	for (p = 0; p < 5; p++)
		dcn_fwd_set_port_down(c, p, 1);
	m[0] = host_packet(dst, 9);
	assert_int_equal(dcn_fwd_burst(c, 5, m, 1, out), 0);
	assert_int_equal(c->st.drop[DCN_DROP_LINK_DOWN], 1);
	/* The generation's wrap: a decision cached 2^32 generations back
	 * must not read as current. The first table's decision at
	 * generation g0; the count compressed to the last generation
	 * before the wrap (no other way to spend 2^32 publications in a
	 * test); the second table published until the count is back at
	 * g0: the frame follows the second table. */
	for (p = 0; p < 5; p++)
		dcn_fwd_set_port_down(c, p, 0);
	pub.gen = 4;
	dcn_fwd_refresh(c, &pub);
	g0 = c->cache_gen;
	assert_int_equal(host_out(c, dst), first);
	c->cache_gen = 0 - DCN_FWD_GEN_STEP;
	for (gen = 5; c->cache_gen != g0; gen++) {
		assert_true(gen < 64);
		pub2.gen = gen;
		dcn_fwd_refresh(c, &pub2);
	}
	assert_int_not_equal(host_out(c, dst), first);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb2);
	dcn_rtable_free(tb);
	dcn_router_free(r2);
	dcn_router_free(r);
	dcn_topo_failset_free(fs);
	free(c);
	dcn_topo_free(t);
}

/*
 * Detour frames after many table swaps: LaScaDa with (2,2) dead, at
 * (1,2), frames to every server on a detour by every relay (and on
 * none), through a relay with a cache and one without, after each of
 * 1,000 publications of the same table (its address reused, as a freed
 * table's may be). The generation never reaches the proxy address the
 * key holds beside it: two proxies never share an entry.
 */
static void
test_route_cache_proxies_after_swaps(void **state)
{
	struct dcn_topo *t = topo_or_fail("lascada:n=2,k=2");
	struct dcn_failset *fs = dcn_topo_failset_create(t);
	struct dcn_route_conf rc = { .fail = fs };
	struct dcn_fwd_ctx *cc = calloc(1, sizeof(*cc)), *pc = calloc(1, sizeof(*pc));
	uint32_t ns = dcn_topo_servers(t), nv = dcn_topo_vertices(t), d, p;
	unsigned int base = rte_mempool_in_use_count(mp);
	struct dcn_fwd_table pub;
	struct dcn_router *r;
	struct dcn_rtable *tb;
	uint32_t gen;

	(void)state;
	assert_int_equal(dcn_topo_failset_add_vertex(fs, vertex_or_fail(t, "(2,2)")), 0);
	r = dcn_router_create_conf(t, &rc, NULL, 0);
	assert_non_null(r);
	tb = dcn_rtable_compile(r, vertex_or_fail(t, "(1,2)"));
	assert_non_null(tb);
	setup_ctx(pc, r, tb, 0);
	assert_int_equal(dcn_fwd_set_cache(pc, NULL, 0), 0);
	setup_ctx(cc, r, tb, 0);
	pub = (struct dcn_fwd_table){ r, tb, 0 };
	for (gen = 1; gen <= 1000; gen++) {
		pub.gen = gen;
		dcn_fwd_refresh(cc, &pub);
		for (d = 0; d < ns; d++)
			for (p = 0; p <= nv; p++)
				if (p == nv || dcn_topo_is_router(t, p))
					same_both_ways(cc, pc, 0,
						       fabric_packet(t, 0, d, p == nv ?
								     DCN_ROUTE_NONE : p));
	}
	assert_true(cc->cache_miss > 0);
	assert_memory_equal(&cc->st, &pc->st, sizeof(cc->st));
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	dcn_router_free(r);
	dcn_topo_failset_free(fs);
	free(cc);
	free(pc);
	dcn_topo_free(t);
}

/* A cached decision with one way on by a cable (a relay's common case)
 * still reads the link and the peer's MAC per frame: it drops while the
 * link is down, forwards again when it is up, and follows a new MAC, all
 * without routing again. */
static void
test_one_cable_hit_reads_link(void **state)
{
	const struct rte_ether_addr peer = { { 2, 0, 0, 0, 0, 0x42 } };
	unsigned int base = rte_mempool_in_use_count(mp), i;
	struct relay_fix f;
	struct dcn_fwd_ctx *c;
	uint64_t misses = 0;
	uint16_t out[1], way = 0;

	(void)state;
	relay_open(&f);
	c = f.c;
	/* (0,0) to (1,3): dimension order takes y here, one candidate, by
	 * another port than port 0 it comes in on (a hit answering the
	 * wrong port is seen). */
	for (i = 0; i < 6; i++) {
		struct rte_mbuf *m[1] = { fabric_packet(f.t, vertex_or_fail(f.t, "(0,0)"),
							vertex_or_fail(f.t, "(1,3)"),
							DCN_ROUTE_NONE) };
		uint16_t kept;

		if (i == 2)
			dcn_fwd_set_port_down(c, way, 1);
		if (i == 3)
			dcn_fwd_set_port_down(c, way, 0);
		if (i == 4)
			dcn_fwd_set_peer_mac(c, way, &peer);
		kept = dcn_fwd_burst(c, 0, m, 1, out);
		if (i == 0) {
			assert_int_equal(kept, 1);
			way = out[0];
			assert_int_not_equal(way, 0);
			misses = c->cache_miss;
		}
		if (i == 2) {
			assert_int_equal(kept, 0);
			assert_int_equal(c->st.drop[DCN_DROP_LINK_DOWN], 1);
			continue;
		}
		assert_int_equal(kept, 1);
		assert_int_equal(out[0], way);
		if (i >= 4)
			assert_memory_equal(rte_pktmbuf_mtod(m[0], uint8_t *), &peer, 6);
		else
			assert_memory_not_equal(rte_pktmbuf_mtod(m[0], uint8_t *), &peer, 6);
		rte_pktmbuf_free(m[0]);
	}
	assert_int_equal(c->cache_miss, misses);
	assert_int_equal(c->st.transit, 5);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	relay_close(&f);
}

/* One frame of a dcn_fwd_burst_chan model burst, of kind k: a transit
 * frame of VC 0 or 1 (to one of a few destinations), a runt with VC 1's
 * bytes past its end, a frame of VC 0 in another header version, ARP. */
static struct rte_mbuf *
chan_mix_frame(const struct relay_fix *f, unsigned int k, unsigned int d)
{
	static const char *const dsts[] = { "(1,3)", "(2,0)", "(5,0)", "(3,5)" };
	struct rte_mbuf *m = fabric_packet(f->t, vertex_or_fail(f->t, "(0,0)"),
					   vertex_or_fail(f->t, dsts[d % RTE_DIM(dsts)]),
					   DCN_ROUTE_NONE);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	switch (k) {
	case 1:
		p[DCN_ETHER_HDR_LEN + 1] |= 1;
		break;
	case 2:
		p[DCN_ETHER_HDR_LEN + 1] |= 1;
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - 12));
		break;
	case 3:
		p[DCN_ETHER_HDR_LEN] = (uint8_t)(p[DCN_ETHER_HDR_LEN] + 0x10);
		break;
	case 4:
		p[12] = 0x08;
		p[13] = 0x06;
		break;
	default:
		break;
	}
	return m;
}


/*
 * Bounces (lib/fwd/README.md): a frame whose hop goes back out of the
 * cable it came in on leaves marked bounced, from the cache as from the
 * table, while the relay's table is new (unmarked once it is old); a
 * marked frame whose hop goes back again is held
 * (DCN_FWD_PARK), untouched, when the context parks, and goes back when
 * it does not or when dcn_fwd_restep is told to send it; a marked frame
 * that goes on elsewhere leaves unmarked. Relay (0,0) of NovaCube, the
 * frame for its neighbour behind port q, arriving on q.
 */
static void
test_bounce_marked_then_parked(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=4,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	uint32_t s0 = vertex_or_fail(t, "(0,0)"), nb = vertex_or_fail(t, "(1,0)");
	struct dcn_rtable *tb = dcn_rtable_compile(r, s0);
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	struct dcn_fwd_table pub = { r, tb, 1 };
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	struct dcn_fabric_hdr fh = { .version = 1, .type = DCN_FT_DATA, .ttl = 9,
				     .len = 46 };
	unsigned int base = rte_mempool_in_use_count(mp);
	struct rte_mbuf *m[1];
	uint16_t out[1], q, o, other;
	uint64_t miss, rx;
	uint8_t f[128], before[80];

	(void)state;
	setup_ctx(c, r, tb, 0);
	dcn_fwd_refresh(c, &pub);
	dcn_route_state_init(r, s0, nb, &st);
	assert_int_equal(dcn_route_candidates(r, s0, nb, &st, h), 1);
	q = (uint16_t)c->local_of[h[0].port];
	other = q == 0 ? 1 : 0;
	fabric_frame(f, t, "(3,3)", "(1,0)", &fh);
	dcn_fabric_write_hdr(f + 14, &fh);

	/* Back where it came from: marked, by the full step and then by
	 * the fast path (a hit). */
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, q, m, 1, out), 1);
	assert_int_equal(out[0], q);
	assert_true(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	rte_pktmbuf_free(m[0]);
	miss = c->cache_miss;
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, q, m, 1, out), 1);
	assert_int_equal(c->cache_miss, miss);
	assert_int_equal(out[0], q);
	assert_true(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	rte_pktmbuf_free(m[0]);
	assert_int_equal(c->st.bounced, 2);

	/* Long after the table came: sent back, not marked (the routing's
	 * own bounce, never held). */
	c->news_tsc = 0;
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, q, m, 1, out), 1);
	assert_int_equal(out[0], q);
	assert_false(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	rte_pktmbuf_free(m[0]);
	assert_int_equal(c->st.bounced, 3);

	/* A clock the process sets (a simulation's time): the window is
	 * read from it, not the TSC. News at its 1000 is fresh at 1000 and
	 * past the window later, whatever the TSC says. */
	test_clock_now = 1000;
	dcn_fwd_set_clock(test_clock);
	dcn_fwd_set_port_down(c, other, 0);
	assert_int_equal(c->news_tsc, 1000);
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, q, m, 1, out), 1);
	assert_true(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	rte_pktmbuf_free(m[0]);
	test_clock_now = 1000 + c->news_window;
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, q, m, 1, out), 1);
	assert_false(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	rte_pktmbuf_free(m[0]);
	dcn_fwd_set_clock(NULL);
	assert_int_equal(c->st.bounced, 5);
	c->news_tsc = rte_rdtsc();

	/* Arriving elsewhere: it goes to q unmarked. */
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, other, m, 1, out), 1);
	assert_int_equal(out[0], q);
	assert_false(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	rte_pktmbuf_free(m[0]);

	/* Marked, and back again: without park it goes (and the cache now
	 * holds the marked key's decision)... */
	fh.bounced = 1;
	dcn_fabric_write_hdr(f + 14, &fh);
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, q, m, 1, out), 1);
	assert_int_equal(out[0], q);
	rte_pktmbuf_free(m[0]);
	assert_int_equal(c->st.bounced, 6);
	/* ...with park it is held, not read from that entry, untouched. */
	c->park = 1;
	m[0] = raw(f, 80);
	memcpy(before, f, sizeof(before));
	assert_int_equal(dcn_fwd_burst(c, q, m, 1, out), 1);
	assert_int_equal(out[0], DCN_FWD_PARK);
	assert_int_equal(c->st.parked, 1);
	assert_memory_equal(rte_pktmbuf_mtod(m[0], uint8_t *), before, 80);
	/* Stepped again: held again while it may be, else sent back
	 * marked; not counted as received twice. */
	rx = c->st.rx;
	assert_int_equal(dcn_fwd_restep(c, q, m[0], &o, 1), 1);
	assert_int_equal(o, DCN_FWD_PARK);
	assert_int_equal(c->st.parked, 2);
	assert_int_equal(dcn_fwd_restep(c, q, m[0], &o, 0), 1);
	assert_int_equal(o, q);
	assert_true(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	assert_int_equal(c->st.rx, rx);
	assert_int_equal(c->park_off, 0);
	rte_pktmbuf_free(m[0]);
	/* Marked, arriving elsewhere: on, unmarked, never held. */
	m[0] = raw(f, 80);
	assert_int_equal(dcn_fwd_burst(c, other, m, 1, out), 1);
	assert_int_equal(out[0], q);
	assert_false(rte_pktmbuf_mtod(m[0], uint8_t *)[15] & DCN_FABRIC_BOUNCED);
	rte_pktmbuf_free(m[0]);
	assert_int_equal(c->st.parked, 2);

	assert_int_equal(rte_mempool_in_use_count(mp), base);
	dcn_rtable_free(tb);
	free(c);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/*
 * dcn_fwd_burst_chan against its model over random bursts of mixed
 * frames: it takes the frames up to the first whose channel bytes
 * (DCN_FWD_CHAN_BYTES, 16 bytes at least) differ from frame 0's, and
 * forwards them as dcn_fwd_burst forwards copies of them (the same kept
 * frames, bytes and ports); the rest stay where they were, untouched.
 * The fast path (a route cache, VC 0 and 1 hits) and the full step
 * (misses, another version) both take part.
 */
static void
test_burst_chan_model(void **state)
{
	unsigned int base = rte_mempool_in_use_count(mp), round, i;
	struct relay_fix f;
	uint64_t seed = 0x2545f4914f6cdd1dull, rx0;

	(void)state;
	relay_open(&f);
	for (round = 0; round < 400; round++) {
		struct rte_mbuf *a[32], *b[32], *orig[32];
		uint8_t bytes[32][64];
		uint16_t out_a[32], out_b[32], n, prefix, taken, kept_a, kept_b;
		uint32_t w0;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		n = (uint16_t)(1 + seed % 32);
		for (i = 0; i < n; i++) {
			uint64_t r = seed >> (i % 48);
			/* Mostly transit of the two VCs, in runs. */
			unsigned int k = (r & 7) < 6 ? (unsigned int)(r >> 3 & 1) * (i > n / 2) :
						      2 + (unsigned int)(r >> 3 & 1) * (1 + (r >> 4 & 1));

			a[i] = orig[i] = chan_mix_frame(&f, i == 0 ? (unsigned int)(seed >> 40 & 1) : k,
							(unsigned int)(r >> 5));
			b[i] = rte_pktmbuf_copy(a[i], mp, 0, UINT32_MAX);
			assert_non_null(b[i]);
			memcpy(bytes[i], rte_pktmbuf_mtod(a[i], uint8_t *),
			       RTE_MIN(64u, rte_pktmbuf_data_len(a[i])));
		}
		memcpy(&w0, rte_pktmbuf_mtod(a[0], uint8_t *) + 12, 4);
		for (prefix = 0; prefix < n; prefix++) {
			uint32_t w;

			memcpy(&w, rte_pktmbuf_mtod(a[prefix], uint8_t *) + 12, 4);
			if (rte_pktmbuf_data_len(a[prefix]) < DCN_FWD_CHAN_MIN_LEN ||
			    ((w ^ w0) & DCN_FWD_CHAN_BYTES) != 0)
				break;
		}
		rx0 = f.c->st.rx;
		kept_a = dcn_fwd_burst_chan(f.c, 0, a, n, out_a, w0, &taken);
		assert_int_equal(taken, prefix);
		assert_int_equal(f.c->st.rx - rx0, prefix);
		kept_b = dcn_fwd_burst(f.c, 0, b, prefix, out_b);
		assert_int_equal(kept_a, kept_b);
		for (i = 0; i < kept_a; i++) {
			assert_int_equal(out_a[i], out_b[i]);
			assert_int_equal(rte_pktmbuf_data_len(a[i]), rte_pktmbuf_data_len(b[i]));
			assert_memory_equal(rte_pktmbuf_mtod(a[i], uint8_t *),
					    rte_pktmbuf_mtod(b[i], uint8_t *),
					    rte_pktmbuf_data_len(a[i]));
		}
		for (i = prefix; i < n; i++) {
			assert_ptr_equal(a[i], orig[i]);
			assert_memory_equal(rte_pktmbuf_mtod(a[i], uint8_t *), bytes[i],
					    RTE_MIN(64u, rte_pktmbuf_data_len(a[i])));
			rte_pktmbuf_free(a[i]);
			rte_pktmbuf_free(b[i]);
		}
		rte_pktmbuf_free_bulk(a, kept_a);
		rte_pktmbuf_free_bulk(b, kept_b);
	}
	/* Both paths of the step took part. */
	assert_true(f.c->st.transit > 0 && f.c->cache_miss > 0);
	assert_true(f.c->st.drop[DCN_DROP_BAD_VERSION] > 0);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	relay_close(&f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_frames_dropped),
		cmocka_unit_test(test_encap_mismatch),
		cmocka_unit_test(test_encap_transit_decap),
		cmocka_unit_test(test_diamond_router),
		cmocka_unit_test(test_too_long_dropped),
		cmocka_unit_test(test_pora_per_packet),
		cmocka_unit_test(test_port_down_alternates),
		cmocka_unit_test(test_detour_goes_to_proxy),
		cmocka_unit_test(test_host_arp_to_control),
		cmocka_unit_test(test_route_cache_matches_table),
		cmocka_unit_test(test_route_cache_follows_table),
		cmocka_unit_test(test_route_cache_keeps_small_set),
		cmocka_unit_test(test_transit_fast_checks_as_classify),
		cmocka_unit_test(test_one_cable_hit_reads_link),
		cmocka_unit_test(test_route_cache_proxies_after_swaps),
		cmocka_unit_test(test_burst_chan_model),
		cmocka_unit_test(test_bounce_marked_then_parked),
	};
	int ret;

	(void)argc;
	ret = test_eal_start(argv[0], "fwd", 4095, &mp);
	if (ret != 0)
		return ret;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	dcn_fwd_nbrs_free(&nbrs);
	test_eal_stop(mp);
	return ret;
}
