/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd's side of its XDP program (dcn_xdp_prog.c): find the program the
 * net_af_xdp PMD attached to an interface, configure it, read its
 * per-verdict counters, and detach it when dcnfwd is done with the port.
 * Control thread only: every call is a bpf() syscall.
 */
#ifndef DCN_XDP_H
#define DCN_XDP_H

#include <stdint.h>
#include <linux/types.h>

#include "dcn_xdp_abi.h"

/* The program's name as the kernel shows it (bpftool, ip link). */
#define DCN_XDP_PROG_NAME "dcn_xdp_steer"

struct dcn_xdp_port {
	int ifindex;
	uint32_t prog_id;   /* 0: none found */
	int prog_fd, stats_fd, cfg_fd;
};

/*
 * Find dcnfwd's program on ifindex (any attach mode).
 * @return 0; -ENOENT: no program attached; -EPROTO: another program is
 * attached (left alone); other negative errno on a bpf() failure.
 */
int dcn_xdp_find(struct dcn_xdp_port *x, int ifindex);

/* Load the object file without attaching it (tests: BPF_PROG_TEST_RUN). */
int dcn_xdp_load_file(struct dcn_xdp_port *x, const char *path);

/* Write the program's configuration: fabric EtherType, DCN_XDP_CFG_*, the
 * fabric's IPv4 prefix (host order; prefix_len 0: every address) and, with
 * DCN_XDP_CFG_UDP, the fabric's UDP port. */
int dcn_xdp_configure(const struct dcn_xdp_port *x, uint16_t ethertype,
		      uint32_t flags, uint32_t ipv4_net, unsigned int prefix_len,
		      uint16_t udp_port);

/* Counters summed over CPUs, DCN_XDP_NB_COUNTERS of them. */
int dcn_xdp_read(const struct dcn_xdp_port *x, uint64_t *counters);

/* Detach from the interface if the attached program is still the one
 * found; 1: detached, 0: something else is there now (left alone). */
int dcn_xdp_detach(struct dcn_xdp_port *x);

void dcn_xdp_close(struct dcn_xdp_port *x);

/*
 * Before a net_af_xdp port starts on ifindex: make its XDP hook free for
 * the PMD, which attaches its program only where none is. A program named
 * prog_name (dcnfwd's own) that no live AF_XDP socket uses is what a
 * dcnfwd that died left behind: it is detached (XDP_FLAGS_REPLACE, so only
 * if it is still that program at that moment). Anything else is left
 * alone and reported through owner (the program's name) and *prog_id.
 * Whether a socket is live is asked of the program itself (see xdp.c).
 * @return 0: nothing attached; 1: a stale program was taken over;
 * -EBUSY: another program holds the hook; -EADDRINUSE: prog_name is
 * attached and a live AF_XDP socket is bound to queue *busy_queue (another
 * dcnfwd runs on the interface); other negative errno on a syscall error.
 */
int dcn_xdp_claim(int ifindex, const char *prog_name, char *owner,
		  size_t owner_len, uint32_t *prog_id, unsigned int *busy_queue);

const char *dcn_xdp_counter_name(unsigned int i);

#endif
