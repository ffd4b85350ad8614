/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What dcnfwd and its XDP program share: map layouts and counter indices.
 * Included by both the BPF program and user space, so plain types only.
 */
#ifndef DCN_XDP_ABI_H
#define DCN_XDP_ABI_H

#define DCN_XDP_MAX_QUEUES 64
#define DCN_XDP_DEFAULT_ETHERTYPE 0x88B5

/* dcn_xdp_cfg.flags */
#define DCN_XDP_CFG_IPV4 0x1u   /* IPv4 goes to dcnfwd too */
#define DCN_XDP_CFG_UDP 0x2u    /* encap = udp: IPv4/UDP to udp_port is a
				 * fabric frame */

struct dcn_xdp_cfg {
	__u16 ethertype;   /* the fabric's, 0: DCN_XDP_DEFAULT_ETHERTYPE */
	__u16 udp_port;    /* DCN_XDP_CFG_UDP: network order */
	__u32 flags;
	/* DCN_XDP_CFG_IPV4: only IPv4 to (dst & ipv4_mask) == ipv4_net, the
	 * fabric's addresses; the rest is the kernel's. Network order. */
	__u32 ipv4_net;
	__u32 ipv4_mask;
};

/* One counter per verdict, indices of dcn_xdp_stats. */
#define DCN_XDP_COUNTERS(_)                                                    \
	_(TO_DCNFWD_FABRIC, "to_dcnfwd_fabric")                                \
	_(TO_DCNFWD_UDP, "to_dcnfwd_udp")                                      \
	_(TO_DCNFWD_IPV4, "to_dcnfwd_ipv4")                                    \
	_(PASS_KERNEL, "pass_kernel")                                          \
	_(PASS_NO_SOCKET, "pass_no_socket")                                    \
	_(PASS_SHORT, "pass_short")

#define DCN_XDP_ENUM_(n, s) DCN_XDP_##n,
enum { DCN_XDP_COUNTERS(DCN_XDP_ENUM_) DCN_XDP_NB_COUNTERS };
#undef DCN_XDP_ENUM_

#endif
