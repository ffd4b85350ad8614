/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-mtu-shim.so (tools/pktgen/mtu_shim.c), preloaded by meson: on a
 * memif port, which has no MTU setting in DPDK 22.11, an MTU within the
 * port's frame limit is taken as set and one outside it is refused;
 * other answers of rte_eth_dev_set_mtu pass through. Without the shim
 * the first check fails (memif answers ENOTSUP).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "test_eal.h"

static uint16_t memif_port;

static void
test_mtu_within_limit_taken(void **state)
{
	(void)state;
	assert_int_equal(rte_eth_dev_set_mtu(memif_port, 1500), 0);
	assert_int_equal(rte_eth_dev_set_mtu(memif_port, RTE_ETHER_MIN_MTU), 0);
}

static void
test_mtu_outside_limit_refused(void **state)
{
	struct rte_eth_dev_info info;

	(void)state;
	assert_int_equal(rte_eth_dev_info_get(memif_port, &info), 0);
	/* Beyond the frames the port takes, and below Ethernet's minimum. */
	assert_int_equal(rte_eth_dev_set_mtu(memif_port,
					     (uint16_t)(info.max_rx_pktlen - RTE_ETHER_HDR_LEN + 1)),
			 -EINVAL);
	assert_int_equal(rte_eth_dev_set_mtu(memif_port, RTE_ETHER_MIN_MTU - 1), -EINVAL);
}

static void
test_other_answers_pass_through(void **state)
{
	(void)state;
	assert_int_equal(rte_eth_dev_set_mtu(RTE_MAX_ETHPORTS - 1, 1500), -ENODEV);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtu_within_limit_taken),
		cmocka_unit_test(test_mtu_outside_limit_refused),
		cmocka_unit_test(test_other_answers_pass_through),
	};
	char prefix[64], vdev[128], sock[64];
	char *eal[] = { argv[0], "--no-huge", "-m", "64", "--no-pci", prefix, "--vdev",
			vdev, "--log-level=4", NULL };
	int ret;

	(void)argc;
	snprintf(sock, sizeof(sock), "/tmp/dcn-test-mtu-%d.sock", (int)getpid());
	snprintf(prefix, sizeof(prefix), "--file-prefix=dcn-test-mtu-%d", (int)getpid());
	snprintf(vdev, sizeof(vdev), "net_memif0,role=server,socket=%s", sock);
	snprintf(test_eal_rundir, sizeof(test_eal_rundir), "/var/run/dpdk/dcn-test-mtu-%d",
		 (int)getpid());
	if (rte_eal_init(9, eal) < 0) {
		printf("SKIP: EAL did not start\n");
		return 77;
	}
	if (rte_eth_dev_get_port_by_name("net_memif0", &memif_port) != 0) {
		printf("SKIP: no memif port (DPDK without net_memif?)\n");
		rte_eal_cleanup();
		test_eal_rm_rundir();
		return 77;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eth_dev_close(memif_port);
	rte_eal_cleanup();
	test_eal_rm_rundir();
	unlink(sock);
	return ret;
}
