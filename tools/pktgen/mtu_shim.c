/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-mtu-shim.so: loaded with LD_PRELOAD into a DPDK program that stops
 * when a port refuses an MTU. pktgen 23.03 sets one on every port at
 * start and exits on failure, and DPDK 22.11's memif has no MTU setting
 * at all (ENOTSUP): its frame size is bounded by its buffers instead.
 *
 * rte_eth_dev_set_mtu answers as DPDK's does, but for ENOTSUP: then an
 * MTU that the port's own limits admit (dev_info: min_mtu or Ethernet's
 * 68, max_mtu, and max_rx_pktlen with the Ethernet header) is taken as
 * set, since the port already carries such frames, and one outside them
 * gets EINVAL, as a port with an MTU setting would answer. Nothing else
 * changes. Works with a program linked to DPDK's shared libraries
 * (pktgen's meson build is), whose calls go through the dynamic linker.
 *
 *   LD_PRELOAD=build/tools/pktgen/dcn-mtu-shim.so pktgen ...
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include <rte_ethdev.h>

typedef int (*set_mtu_fn)(uint16_t port_id, uint16_t mtu);

int
rte_eth_dev_set_mtu(uint16_t port_id, uint16_t mtu)
{
	static set_mtu_fn real;
	struct rte_eth_dev_info info;
	int ret;

	if (real == NULL) {
		real = (set_mtu_fn)dlsym(RTLD_NEXT, "rte_eth_dev_set_mtu");
		if (real == NULL)
			return -ENOSYS;
	}
	ret = real(port_id, mtu);
	if (ret != -ENOTSUP || rte_eth_dev_info_get(port_id, &info) != 0)
		return ret;
	/* memif reports no minimum: Ethernet's applies. */
	if (mtu < RTE_MAX(info.min_mtu, RTE_ETHER_MIN_MTU) || mtu > info.max_mtu ||
	    (uint32_t)mtu + RTE_ETHER_HDR_LEN > info.max_rx_pktlen)
		return -EINVAL;
	fprintf(stderr, "dcn-mtu-shim: port %u (%s) has no MTU setting; MTU %u is "
		"within its frame limit of %u bytes: taken as set\n", port_id,
		info.driver_name, mtu, info.max_rx_pktlen);
	return 0;
}
