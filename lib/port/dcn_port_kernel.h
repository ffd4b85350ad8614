/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_PORT_KERNEL_H
#define DCN_PORT_KERNEL_H

/**
 * @file
 * What a kernel-backed port's sockets lost before the PMD read them.
 *
 * DPDK 22.11's net_af_packet reports no imissed: a frame the kernel
 * could not put into the socket's receive ring (the ring full while the
 * poller was busy) is counted only in that socket's PACKET_STATISTICS,
 * which the PMD never reads. This reads them, for a control thread,
 * never for a worker: it walks the process's descriptors.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Frames dropped on receive by this process's AF_PACKET sockets bound to
 * interface ifindex (every queue's socket of a net_af_packet port), since
 * the last call. Reading resets the kernel's counts: one caller a
 * process, which keeps the running total.
 *
 * @return the frames dropped since the last call, 0 when there is no
 *   such socket.
 */
uint64_t dcn_port_packet_rx_drops(int ifindex);

/**
 * The interface a kernel-backed device names in its devargs ("iface=",
 * as net_af_xdp and net_af_packet take it).
 * @return its ifindex, 0 when there is no such argument or interface.
 */
int dcn_port_devargs_ifindex(const char *devargs);

/**
 * The number a sysfs file holds (a counter, a NUMA node, a page count).
 * @return it, or -1 when the file cannot be read or holds no number (a
 *   file that holds -1, as numa_node may, reads the same: "none").
 */
int64_t dcn_port_sysfs_read(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* DCN_PORT_KERNEL_H */
