/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_TEST_EAL_H
#define DCN_TEST_EAL_H

/*
 * EAL for unit tests on mbufs: --no-huge, no devices, a file prefix of
 * the test's own, a small mempool; the runtime directory is removed at
 * the end. Start returns 77 (skip) when EAL or the pool cannot be had.
 */
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

static char test_eal_rundir[96];

static inline int
test_eal_rm_entry(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the runtime directory test_eal_rundir names (after EAL). */
static inline void
test_eal_rm_rundir(void)
{
	nftw(test_eal_rundir, test_eal_rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static inline void
test_eal_stop(struct rte_mempool *mp)
{
	rte_mempool_free(mp);
	rte_eal_cleanup();
	test_eal_rm_rundir();
}

/* @return 0 with *mp set, or 77 (skip). */
static inline int
test_eal_start(char *argv0, const char *name, unsigned int mbufs,
	       struct rte_mempool **mp)
{
	char prefix[48];
	char *eal[] = { argv0, "--no-huge", "-m", "128", "--no-pci", prefix,
			"--log-level=4", NULL };

	snprintf(prefix, sizeof(prefix), "--file-prefix=dcn-test-%s-%d", name,
		 (int)getpid());
	snprintf(test_eal_rundir, sizeof(test_eal_rundir),
		 "/var/run/dpdk/dcn-test-%s-%d", name, (int)getpid());
	if (rte_eal_init(7, eal) < 0) {
		printf("SKIP: EAL did not start (no --no-huge memory?)\n");
		return 77;
	}
	*mp = rte_pktmbuf_pool_create(name, mbufs, 0, 0,
				      RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (*mp == NULL) {
		printf("SKIP: no mempool\n");
		test_eal_stop(NULL);
		return 77;
	}
	return 0;
}

#endif /* DCN_TEST_EAL_H */
