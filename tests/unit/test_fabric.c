/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fabric: the header round-trips, every malformed frame is dropped
 * under its own reason, hosts cannot inject fabric frames, TTL and
 * checksum arithmetic.
 */
#include "test_common.h"
#include "dcn_fabric.h"

#define ET DCN_FABRIC_ETHERTYPE

/* Build Ethernet | fabric header | IPv4(20) | payload in buf. */
static uint32_t
make_data(uint8_t *buf, uint8_t ttl, uint8_t version, uint16_t ip_total)
{
	struct dcn_fabric_hdr h = { .version = version, .type = DCN_FT_DATA,
				    .ttl = ttl, .len = ip_total,
				    .src = 0x0a000001, .dst = 0x0a000002 };
	uint8_t *ip = buf + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;

	memset(buf, 0, 256);
	buf[12] = ET >> 8;
	buf[13] = ET & 0xff;
	dcn_fabric_write_hdr(buf + DCN_ETHER_HDR_LEN, &h);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(ip_total >> 8);
	ip[3] = (uint8_t)ip_total;
	ip[8] = 64;
	ip[9] = 17;
	ip[16] = 10; ip[19] = 2;
	return DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + ip_total;
}

static uint32_t
make_host(uint8_t *buf, uint16_t ethertype, uint16_t ip_total)
{
	memset(buf, 0, 256);
	buf[12] = (uint8_t)(ethertype >> 8);
	buf[13] = (uint8_t)ethertype;
	buf[14] = 0x45;
	buf[16] = (uint8_t)(ip_total >> 8);
	buf[17] = (uint8_t)ip_total;
	buf[22] = 64;
	buf[30] = 10; buf[33] = 7;
	return DCN_ETHER_HDR_LEN + ip_total;
}

static void
expect_drop(const uint8_t *f, uint32_t len, int host, enum dcn_drop_reason r)
{
	struct dcn_frame_info fi;

	if (dcn_fabric_classify(f, len, host, ET, &fi) != DCN_FC_DROP || fi.reason != r)
		fail_msg("expected drop %s, got class %d reason %s", dcn_drop_name(r),
			 fi.cls, dcn_drop_name(fi.reason));
}

static void
test_bad_frames(void **state)
{
	uint8_t f[256] = { 0 };
	uint32_t len;

	(void)state;
	/* Runts: no Ethernet header, no fabric header. */
	expect_drop(f, 10, 0, DCN_DROP_RUNT);
	len = make_data(f, 5, DCN_FABRIC_VERSION, 40);
	expect_drop(f, DCN_ETHER_HDR_LEN + 10, 0, DCN_DROP_RUNT);
	/* Bad version, bad type, length beyond the frame. */
	make_data(f, 5, 2, 40);
	expect_drop(f, len, 0, DCN_DROP_BAD_VERSION);
	make_data(f, 5, DCN_FABRIC_VERSION, 40);
	f[DCN_ETHER_HDR_LEN] = (uint8_t)(DCN_FABRIC_VERSION << 4 | 9);
	expect_drop(f, len, 0, DCN_DROP_BAD_TYPE);
	make_data(f, 5, DCN_FABRIC_VERSION, 40);
	expect_drop(f, len - 1, 0, DCN_DROP_BAD_LENGTH);
	/* TTL 0. */
	make_data(f, 0, DCN_FABRIC_VERSION, 40);
	expect_drop(f, len, 0, DCN_DROP_TTL_EXPIRED);
	/* Inner IPv4 broken: version, header length, total length. */
	make_data(f, 5, DCN_FABRIC_VERSION, 40);
	f[DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN] = 0x65;
	expect_drop(f, len, 0, DCN_DROP_BAD_IPV4);
	make_data(f, 5, DCN_FABRIC_VERSION, 40);
	f[DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN] = 0x44;
	expect_drop(f, len, 0, DCN_DROP_BAD_IPV4);
	make_data(f, 5, DCN_FABRIC_VERSION, 40);
	f[DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + 3] = 41;
	expect_drop(f, len, 0, DCN_DROP_BAD_IPV4);
	/* Unknown EtherType on a fabric port. */
	len = make_host(f, 0x86dd, 40);
	expect_drop(f, len, 0, DCN_DROP_UNKNOWN_ETHERTYPE);
	/* Hosts never inject fabric frames: data or control. */
	len = make_data(f, 5, DCN_FABRIC_VERSION, 40);
	expect_drop(f, len, 1, DCN_DROP_FABRIC_ON_HOST);
	f[DCN_ETHER_HDR_LEN] = (uint8_t)(DCN_FABRIC_VERSION << 4 | DCN_FT_HELLO);
	expect_drop(f, len, 1, DCN_DROP_FABRIC_ON_HOST);
	/* Host IPv4 too short, TTL 0. */
	len = make_host(f, DCN_ETHERTYPE_IPV4, 40);
	expect_drop(f, len - 1, 1, DCN_DROP_BAD_IPV4);
	f[22] = 0;
	expect_drop(f, len, 1, DCN_DROP_TTL_EXPIRED);
	/* A hello shorter than its payload. */
	len = make_data(f, 5, DCN_FABRIC_VERSION, 8);
	f[DCN_ETHER_HDR_LEN] = (uint8_t)(DCN_FABRIC_VERSION << 4 | DCN_FT_HELLO);
	expect_drop(f, len, 0, DCN_DROP_BAD_LENGTH);
	/* Every reason has a name and a description. */
	for (len = 1; len < DCN_DROP_MAX; len++) {
		assert_true(strlen(dcn_drop_name(len)) > 0);
		assert_true(strlen(dcn_drop_desc(len)) > 0);
	}
}

static void
test_good_frames(void **state)
{
	struct dcn_frame_info fi;
	uint8_t f[256];
	uint32_t len;

	(void)state;
	len = make_data(f, 5, DCN_FABRIC_VERSION, 40);
	/* Ethernet padding after the payload is fine. */
	assert_int_equal(dcn_fabric_classify(f, len + 6, 0, ET, &fi),
			 DCN_FC_FABRIC_DATA);
	assert_int_equal(fi.hdr.ttl, 5);
	assert_int_equal(fi.l3_off, 34);
	assert_int_equal(fi.l3_len, 40);
	assert_int_equal(fi.ip_dst, 0x0a000002);
	f[DCN_ETHER_HDR_LEN] = (uint8_t)(DCN_FABRIC_VERSION << 4 | DCN_FT_CREDIT);
	assert_int_equal(dcn_fabric_classify(f, len, 0, ET, &fi),
			 DCN_FC_FABRIC_CONTROL);
	/* Another EtherType configured: 0x88B5 is then foreign. */
	assert_int_equal(dcn_fabric_classify(f, len, 0, 0x88b6, &fi), DCN_FC_DROP);
	len = make_host(f, DCN_ETHERTYPE_IPV4, 60);
	assert_int_equal(dcn_fabric_classify(f, len, 1, ET, &fi), DCN_FC_HOST_IPV4);
	assert_int_equal(fi.ip_dst, 0x0a000007);
	assert_int_equal(fi.l3_off, 14);
	len = make_host(f, 0x0806, 28);
	assert_int_equal(dcn_fabric_classify(f, len, 1, ET, &fi), DCN_FC_OTHER);
}

static void
test_header_round_trip(void **state)
{
	struct dcn_fabric_hdr a, b;
	struct dcn_hello h = { 0x0a000102, 3, 10, 0xdeadbeef, 77 }, h2;
	uint8_t buf[DCN_FABRIC_HDR_LEN + DCN_HELLO_LEN];

	(void)state;
	/* Zeroed first: the struct has padding the comparison sees. */
	memset(&a, 0, sizeof(a));
	memset(&b, 0xaa, sizeof(b));
	a.version = DCN_FABRIC_VERSION;
	a.type = DCN_FT_DATA;
	a.vc = 1;
	a.jumped = 1;
	a.phase = 2;
	a.ttl = 63;
	a.quadrant = 0x15;
	a.path = 3;
	a.last_dim = 1;
	a.len = 1500;
	a.src = 0x0a010203;
	a.dst = 0x80402004;
	a.proxy = 0x0a0000ff;
	dcn_fabric_write_hdr(buf, &a);
	memset(&b, 0, sizeof(b));
	dcn_fabric_read_hdr(buf, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(buf[0], 0x11);
	assert_int_equal(buf[8], 0x0a); /* network order */
	dcn_fabric_write_hello(buf, &h);
	dcn_fabric_read_hello(buf, &h2);
	assert_memory_equal(&h, &h2, sizeof(h));
	assert_int_equal(dcn_fabric_topo_hash("rrect:n=4,m=2,k=1"),
			 dcn_fabric_topo_hash("rrect:n=4,m=2,k=1"));
	assert_int_not_equal(dcn_fabric_topo_hash("rrect:n=4,m=2,k=1"),
			     dcn_fabric_topo_hash("rrect:n=4,m=2,k=2"));
}

/* The routing state crosses the wire intact. */
static void
test_state_round_trip(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=8,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_PORA);
	struct dcn_route_state a, b;
	struct dcn_fabric_hdr h;

	(void)state;
	dcn_route_state_init(r, 3, 42, &a);
	a.phase = DCN_PORA_QUADRANT;
	a.quadrant = 2;
	a.vc = 1;
	a.last_dim = 1;
	a.proxy = 9;
	assert_int_equal(dcn_fabric_hdr_from_state(t, &a, &h), 0);
	assert_int_equal(h.dst, dcn_topo_addr(t, 42));
	assert_int_equal(dcn_fabric_state_from_hdr(t, &h, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	/* Not in this fabric. */
	h.dst = 0x0a000002;
	assert_int_equal(dcn_fabric_state_from_hdr(t, &h, &b), -1);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* RFC 1624's incremental update equals a full recomputation. */
static void
test_ttl_checksum(void **state)
{
	uint8_t ip[20] = { 0x45, 0, 0, 60, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0,
			   10, 1, 1, 2, 10, 4, 3, 2 };
	unsigned int i;

	(void)state;
	{
		uint16_t c = dcn_ipv4_cksum(ip, 5);

		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
	}
	for (i = 64; i > 1; i--) {
		uint8_t ttl = dcn_ipv4_dec_ttl(ip);

		assert_int_equal(ttl, i - 1);
		assert_int_equal(ip[10] << 8 | ip[11], dcn_ipv4_cksum(ip, 5));
	}
}

/* Routing state from a header is untrusted: a path index beyond the
 * k+1 parallel paths gets no route (found by fuzz_frame). */
static void
test_untrusted_state(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=3,m=2,k=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_RRECT);
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	unsigned int p;

	(void)state;
	for (p = 0; p < 256; p++) {
		dcn_route_state_init(r, 0, 37, &st);
		st.path = (uint8_t)p;
		if (p <= 2)
			assert_true(dcn_route_candidates(r, 0, 37, &st, h) >= 1);
		else if (p != DCN_PATH_ANY)
			assert_int_equal(dcn_route_candidates(r, 0, 37, &st, h), 0);
	}
	dcn_router_free(r);
	dcn_topo_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_frames),
		cmocka_unit_test(test_good_frames),
		cmocka_unit_test(test_header_round_trip),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_ttl_checksum),
		cmocka_unit_test(test_untrusted_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
