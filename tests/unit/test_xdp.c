/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd's XDP program, run by the kernel on crafted frames
 * (BPF_PROG_TEST_RUN): which frames it steers to dcnfwd, which it leaves to
 * the kernel, and the counter each verdict lands in. No socket is in its
 * map here, so a frame for dcnfwd comes back XDP_PASS under
 * pass_no_socket; the redirect itself is shown by the fabric tests on veth.
 * Needs root (loading BPF): exits 77 otherwise.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "dcn_xdp.h"

static struct dcn_xdp_port prog;

static uint32_t ipv4_dst;   /* of the IPv4 frames run() makes */
static uint8_t ipv4_proto;  /* and their protocol, 0: none */
static uint16_t udp_dport;  /* and UDP's destination port */

static int
run(uint16_t ethertype, unsigned int len)
{
	uint8_t frame[128];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
		    .data_size_in = len, .repeat = 1);

	memset(frame, 0, sizeof(frame));
	memset(frame, 0xff, 6);
	frame[6] = 0x02;
	frame[12] = (uint8_t)(ethertype >> 8);
	frame[13] = (uint8_t)ethertype;
	if (ethertype == 0x0800) {
		frame[14] = 0x45;
		frame[30] = (uint8_t)(ipv4_dst >> 24);
		frame[31] = (uint8_t)(ipv4_dst >> 16);
		frame[32] = (uint8_t)(ipv4_dst >> 8);
		frame[33] = (uint8_t)ipv4_dst;
		frame[23] = ipv4_proto;
		frame[36] = (uint8_t)(udp_dport >> 8);
		frame[37] = (uint8_t)udp_dport;
	}
	assert_int_equal(bpf_prog_test_run_opts(prog.prog_fd, &o), 0);
	return (int)o.retval;
}

/* Counter deltas around one frame. */
static void
expect(uint16_t ethertype, unsigned int len, unsigned int counter)
{
	uint64_t before[DCN_XDP_NB_COUNTERS], after[DCN_XDP_NB_COUNTERS];
	unsigned int i;

	assert_int_equal(dcn_xdp_read(&prog, before), 0);
	assert_int_equal(run(ethertype, len), XDP_PASS);
	assert_int_equal(dcn_xdp_read(&prog, after), 0);
	for (i = 0; i < DCN_XDP_NB_COUNTERS; i++)
		if (after[i] - before[i] != (i == counter))
			fail_msg("ethertype %#x: %s moved by %llu", ethertype,
				 dcn_xdp_counter_name(i),
				 (unsigned long long)(after[i] - before[i]));
}

static void
test_default_fabric_only(void **state)
{
	(void)state;
	assert_int_equal(dcn_xdp_configure(&prog, 0, 0, 0, 0, 0), 0);
	expect(0x88B5, 64, DCN_XDP_PASS_NO_SOCKET);    /* for dcnfwd */
	expect(0x0800, 64, DCN_XDP_PASS_KERNEL);       /* the kernel's IPv4 */
	expect(0x0806, 64, DCN_XDP_PASS_KERNEL);       /* ARP */
	expect(0x86DD, 64, DCN_XDP_PASS_KERNEL);       /* IPv6 */
}

static void
test_ipv4_port(void **state)
{
	(void)state;
	/* The fabric is 10.0.0.0/13 (Diamond k=4's plan). */
	assert_int_equal(dcn_xdp_configure(&prog, 0, DCN_XDP_CFG_IPV4,
					   0x0a000000, 13, 0), 0);
	ipv4_dst = 0x0a040202;          /* 10.4.2.2: a server of the fabric */
	expect(0x0800, 64, DCN_XDP_PASS_NO_SOCKET);
	ipv4_dst = 0x0a080001;          /* 10.8.0.1: just outside */
	expect(0x0800, 64, DCN_XDP_PASS_KERNEL);
	ipv4_dst = 0xc0a80002;          /* 192.168.0.2: management */
	expect(0x0800, 64, DCN_XDP_PASS_KERNEL);
	expect(0x88B5, 64, DCN_XDP_PASS_NO_SOCKET);
	/* ARP stays the kernel's even on a dcnfwd IPv4 port. */
	expect(0x0806, 64, DCN_XDP_PASS_KERNEL);
	/* Prefix length 0: every IPv4 destination. */
	assert_int_equal(dcn_xdp_configure(&prog, 0, DCN_XDP_CFG_IPV4, 0, 0, 0), 0);
	expect(0x0800, 64, DCN_XDP_PASS_NO_SOCKET);
}

static void
test_ipv4_short(void **state)
{
	(void)state;
	/* An IPv4 EtherType with no room for its header is not followed. */
	assert_int_equal(dcn_xdp_configure(&prog, 0, DCN_XDP_CFG_IPV4,
					   0x0a000000, 8, 0), 0);
	ipv4_dst = 0;
	expect(0x0800, 20, DCN_XDP_PASS_KERNEL);
}

static void
test_other_ethertype(void **state)
{
	(void)state;
	assert_int_equal(dcn_xdp_configure(&prog, 0x88B6, 0, 0, 0, 0), 0);
	expect(0x88B6, 64, DCN_XDP_PASS_NO_SOCKET);
	expect(0x88B5, 64, DCN_XDP_PASS_KERNEL);
}

static void
test_bare_header(void **state)
{
	(void)state;
	/* Exactly an Ethernet header is enough to decide. */
	assert_int_equal(dcn_xdp_configure(&prog, 0, 0, 0, 0, 0), 0);
	expect(0x88B5, 14, DCN_XDP_PASS_NO_SOCKET);
}

static void
test_udp_fabric(void **state)
{
	(void)state;
	/* encap = udp: IPv4/UDP to the fabric's port is a fabric frame. */
	assert_int_equal(dcn_xdp_configure(&prog, 0, DCN_XDP_CFG_UDP, 0, 0,
					   34997), 0);
	ipv4_dst = 0xc0a80002;
	ipv4_proto = 17;
	udp_dport = 34997;
	expect(0x0800, 64, DCN_XDP_PASS_NO_SOCKET);
	expect(0x0800, 41, DCN_XDP_PASS_KERNEL);	/* no room for UDP */
	udp_dport = 53;                                 /* the kernel's DNS */
	expect(0x0800, 64, DCN_XDP_PASS_KERNEL);
	udp_dport = 34997;
	ipv4_proto = 6;                                 /* TCP to that port */
	expect(0x0800, 64, DCN_XDP_PASS_KERNEL);
	ipv4_proto = 17;
	expect(0x88B5, 64, DCN_XDP_PASS_NO_SOCKET);     /* ether still taken */
	/* Without the flag (a host port) the same datagram is the kernel's. */
	assert_int_equal(dcn_xdp_configure(&prog, 0, 0, 0, 0, 34997), 0);
	expect(0x0800, 64, DCN_XDP_PASS_KERNEL);
	ipv4_proto = 0;
	udp_dport = 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_fabric_only),
		cmocka_unit_test(test_ipv4_port),
		cmocka_unit_test(test_ipv4_short),
		cmocka_unit_test(test_other_ethertype),
		cmocka_unit_test(test_bare_header),
		cmocka_unit_test(test_udp_fabric),
	};
	int ret;

	if (geteuid() != 0) {
		printf("SKIP: loading a BPF program needs root\n");
		return 77;
	}
	ret = dcn_xdp_load_file(&prog, DCN_XDP_OBJ_BUILD);
	if (ret < 0) {
		printf("FAIL: cannot load %s: %s\n", DCN_XDP_OBJ_BUILD, strerror(-ret));
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	dcn_xdp_close(&prog);
	return ret;
}
