/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_PORT_NUMA_H
#define DCN_PORT_NUMA_H

/**
 * @file
 * Where a port's memory goes on a server of several NUMA nodes (sockets).
 *
 * A NIC sits on one socket: its DMA, the mbufs it fills and the rings a
 * worker reads them from belong there. The rule, as DPDK's own examples
 * (l3fwd) place memory: a pool of mbufs per socket that has ports, each
 * port's queues and the memory of the node they serve on the port's
 * socket (a device that says none, -1, takes the main lcore's); a worker
 * that polls a port of another socket works, every frame crossing the
 * interconnect twice, and is warned about. The sysfs readers take the
 * root of the tree to read ("/sys" on a server), so that a test can give
 * a made-up one.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most sockets told apart (DPDK's RTE_MAX_NUMA_NODES is 8 on x86). */
#define DCN_NUMA_MAX 8

/** @return the socket whose memory serves a port of socket port_socket
 * (-1: unknown, the main lcore's main_socket). */
static inline int
dcn_numa_home(int port_socket, int main_socket)
{
	return port_socket >= 0 && port_socket < DCN_NUMA_MAX ? port_socket :
								main_socket;
}

/**
 * The sockets that need a pool: main_socket first (control frames and
 * what has no port), then each port's home in order of first use.
 * @param port_socket  n_ports entries, -1 for unknown
 * @param out          DCN_NUMA_MAX entries
 * @return how many sockets, 1..DCN_NUMA_MAX
 */
unsigned int dcn_numa_pools(const int *port_socket, unsigned int n_ports,
			    int main_socket, int *out);

/**
 * The socket a node's memory (its flow-control queues, rings) goes on:
 * the home of most of its ports (ties: the lower socket).
 */
int dcn_numa_node_home(const int *port_socket, unsigned int n_ports,
		       int main_socket);

/**
 * The NUMA node of a device named by its devargs: a PCI address
 * ("0000:3b:00.0", its first word) from SYSFS/bus/pci/devices/ADDR/numa_node,
 * an interface ("iface=NAME", net_af_xdp, net_af_packet) from
 * SYSFS/class/net/NAME/device/numa_node.
 * @return the node, or -1 (a virtual device, or the kernel does not say)
 */
int dcn_numa_of_dev(const char *sysfs, const char *devargs);

/** The NUMA node of CPU (lcore) cpu, from SYSFS/devices/system/cpu/cpuN/nodeK.
 * @return the node, or -1 */
int dcn_numa_of_cpu(const char *sysfs, unsigned int cpu);

#ifdef __cplusplus
}
#endif

#endif /* DCN_PORT_NUMA_H */
