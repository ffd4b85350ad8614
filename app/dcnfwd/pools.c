/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process's mbuf pools: the data pool of the main lcore's NUMA node,
 * one more for each node with ports (dcn_port_numa.h), and the control
 * frames' own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "setup.h"
#include "xdp.h"

/*
 * Control frames in flight: a hello an interval out of every port, the
 * credit frames of its links, announcements passing through, each
 * waiting up to a worker's loop in a ring (tens of ms in a large
 * emulation, where one worker steps hundreds of nodes): 16 a port is
 * room for several loops of all of them. Their buffers
 * hold the longest control frame (an announcement listing
 * DCN_LINK_LSA_MAX links, signed and wrapped), not a data frame.
 */
#define CTL_MBUFS_PER_PORT 16u
#define CTL_MBUFS_MIN 2047u
#define CTL_MBUF_ROOM 768u

int
dcnfwd_make_ctl_pool(struct dcnfwd *d)
{
	unsigned int n = RTE_MAX(CTL_MBUFS_MIN, CTL_MBUFS_PER_PORT * d->n_ports), i;

	/* net_af_xdp sends an mbuf of another pool than its umem's by
	 * copying it into one of its own, and DPDK 22.11 loses frames now
	 * and then in a burst that mixes the two (a keyed RRect fabric in
	 * namespaces lost a ping in 3 runs of 6 so, none in 4 with one
	 * pool): with such a port, control frames come from the data pool. */
	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].dp.is_ethdev && dcnfwd_is_af_xdp(d->port[i].dev)) {
			d->ctl_mp = d->mp;
			return 0;
		}

	RTE_BUILD_BUG_ON(CTL_MBUF_ROOM < DCN_ETHER_HDR_LEN + 48 + DCN_FABRIC_HDR_LEN +
			 DCN_LINK_LSA_LEN(DCN_LINK_LSA_MAX) + DCN_AUTH_TRAILER_LEN);
	d->ctl_mp = rte_pktmbuf_pool_create("dcn_ctl_mbufs", n, 32, 0,
					    RTE_PKTMBUF_HEADROOM + CTL_MBUF_ROOM,
					    (int)rte_socket_id());
	if (d->ctl_mp == NULL) {
		DCNFWD_LOG(CRIT, "cannot create a pool of %u control "
			"mbufs: %s (give EAL more memory, e.g. -m 1024)\n", n,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* The largest per-lcore cache: a worker whose queues grow and shrink
 * takes back the mbufs it just freed (warm), instead of going to the
 * pool's ring, which hands out the coldest. */
unsigned int
dcnfwd_pool_cache(unsigned int mbufs)
{
	return RTE_MIN((unsigned int)RTE_MEMPOOL_CACHE_MAX_SIZE, mbufs / 4);
}

/* A pool of data mbufs on NUMA node socket. */
static struct rte_mempool *
data_pool(const char *name, unsigned int mbufs, int socket)
{
	return rte_pktmbuf_pool_create(name, mbufs, dcnfwd_pool_cache(mbufs), 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, socket);
}

int
dcnfwd_make_mempool(struct dcnfwd *d, unsigned int mbufs)
{
	d->mp = data_pool("dcn_mbufs", mbufs, (int)rte_socket_id());
	if (d->mp == NULL) {
		DCNFWD_LOG(CRIT, "cannot create a pool of %u mbufs: %s "
			"(give EAL more memory, e.g. -m 1024)\n", mbufs,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	if (rte_socket_id() < DCN_NUMA_MAX)
		d->mp_socket[rte_socket_id()] = d->mp;
	return 0;
}

struct rte_mempool *
dcnfwd_port_pool(struct dcnfwd *d, int socket, unsigned int mbufs)
{
	int home = dcn_numa_home(socket, (int)rte_socket_id());
	char name[RTE_MEMPOOL_NAMESIZE];

	if (home < 0 || home >= DCN_NUMA_MAX)
		return d->mp;
	if (d->mp_socket[home] != NULL)
		return d->mp_socket[home];
	/* A port of another socket than the main lcore's: a pool of its
	 * own there, as large as the main one (DPDK's l3fwd makes one per
	 * socket in use the same way). */
	snprintf(name, sizeof(name), "dcn_mbufs_s%d", home);
	d->mp_socket[home] = data_pool(name, mbufs, home);
	if (d->mp_socket[home] == NULL)
		DCNFWD_LOG(CRIT, "cannot create a pool of %u mbufs on NUMA "
			"node %d, where a port is: %s (give EAL memory there: "
			"--socket-mem)\n", mbufs, home, rte_strerror(rte_errno));
	return d->mp_socket[home];
}
