/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd's XDP program for net_af_xdp ports: the fabric's own frames
 * (data, credit, hello, link state: one EtherType) go to the port's AF_XDP
 * socket, everything else to the kernel, so the NIC keeps carrying SSH,
 * ARP and the server's own IP traffic. A port that carries IPv4 for
 * dcnfwd too (a host port, or a Diamond switch, whose fabric is plain
 * IPv4) sets DCN_XDP_CFG_IPV4 in its configuration map, with the prefix of
 * the fabric's addresses: IPv4 to the fabric is dcnfwd's, the rest (the
 * server's management network) stays the kernel's. A fabric of
 * encap = udp sets DCN_XDP_CFG_UDP on its fabric ports: its frames are
 * IPv4/UDP to the fabric's port.
 *
 * The net_af_xdp PMD loads it (devarg xdp_prog=) and fills "xsks_map" with
 * its sockets; dcnfwd finds the two other maps through the interface's
 * attached program, writes the configuration and reads the counters.
 * Built by meson with clang's BPF target; see dcn_xdp.h for the layouts.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "dcn_xdp_abi.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, DCN_XDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DCN_XDP_NB_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} dcn_xdp_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dcn_xdp_cfg);
} dcn_xdp_cfg SEC(".maps");

static __always_inline void
count(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&dcn_xdp_stats, &what);

	if (c != NULL)
		*c += 1;   /* per-CPU slot: no atomic needed */
}

/* encap = udp: IPv4/UDP to the fabric's port (no options, the only
 * header the encapsulation sends; dcnfwd checks the rest). */
static __always_inline int
fabric_udp(const void *l3, const void *end, __u16 port)
{
	const struct iphdr *ip = l3;
	const struct udphdr *udp = (const void *)(ip + 1);

	if ((const void *)(udp + 1) > end)
		return 0;
	return ip->version == 4 && ip->ihl == 5 && ip->protocol == IPPROTO_UDP &&
	       udp->dest == port;
}

/* An IPv4 header whose destination is one of the fabric's addresses. */
static __always_inline int
to_fabric(const void *l3, const void *end, __u32 net, __u32 mask)
{
	const struct iphdr *ip = l3;

	if ((const void *)(ip + 1) > end)
		return 0;
	return (ip->daddr & mask) == net;
}

SEC("xdp")
int
dcn_xdp_steer(struct xdp_md *ctx)
{
	const void *data = (const void *)(long)ctx->data;
	const void *end = (const void *)(long)ctx->data_end;
	const struct ethhdr *eth = data;
	__u32 key = 0, queue = ctx->rx_queue_index;
	const struct dcn_xdp_cfg *cfg = bpf_map_lookup_elem(&dcn_xdp_cfg, &key);
	__u16 fabric = DCN_XDP_DEFAULT_ETHERTYPE, type;
	__u32 flags = 0, net = 0, mask = 0, what;
	__u16 udp_port = 0;

	if (cfg != NULL) {
		if (cfg->ethertype != 0)
			fabric = cfg->ethertype;
		flags = cfg->flags;
		net = cfg->ipv4_net;
		mask = cfg->ipv4_mask;
		udp_port = cfg->udp_port;
	}
	if ((const void *)(eth + 1) > end) {
		count(DCN_XDP_PASS_SHORT);
		return XDP_PASS;
	}
	type = bpf_ntohs(eth->h_proto);
	if (type == fabric)
		what = DCN_XDP_TO_DCNFWD_FABRIC;
	else if (type == ETH_P_IP && (flags & DCN_XDP_CFG_UDP) &&
		 fabric_udp(eth + 1, end, udp_port))
		what = DCN_XDP_TO_DCNFWD_UDP;
	else if (type == ETH_P_IP && (flags & DCN_XDP_CFG_IPV4) &&
		 to_fabric(eth + 1, end, net, mask))
		what = DCN_XDP_TO_DCNFWD_IPV4;
	else {
		count(DCN_XDP_PASS_KERNEL);
		return XDP_PASS;
	}
	/* No socket on this queue (dcnfwd not started, or gone): the kernel
	 * gets it rather than a silent drop, and the counter says so. */
	if (bpf_map_lookup_elem(&xsks_map, &queue) == NULL) {
		count(DCN_XDP_PASS_NO_SOCKET);
		return XDP_PASS;
	}
	count(what);
	return bpf_redirect_map(&xsks_map, queue, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
