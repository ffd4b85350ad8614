/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a port's memory goes on a two-socket server (dcn_port_numa.h),
 * on a made-up sysfs: CPUs 0-1 on node 0 and 2-3 on node 1, a NIC of two
 * functions on each node, one behind a kernel interface; a virtual
 * device of no node. The rule: a pool per node that has ports (the main
 * lcore's first), a port's queues on its node, a node's memory where
 * most of its ports are, an unknown node taken as the main lcore's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "dcn_port_numa.h"

static char root[] = "/tmp/dcn-numa-XXXXXX";

static void
put(const char *rel, const char *text)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	if (text == NULL) {	/* a directory */
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(root) == NULL)
		return -1;
	put("devices/system/cpu/cpu0/node0", NULL);
	put("devices/system/cpu/cpu1/node0", NULL);
	put("devices/system/cpu/cpu2/node1", NULL);
	put("devices/system/cpu/cpu3/node1", NULL);
	put("bus/pci/devices/0000:3b:00.0/numa_node", "0\n");
	put("bus/pci/devices/0000:3b:00.1/numa_node", "0\n");
	put("bus/pci/devices/0000:af:00.0/numa_node", "1\n");
	put("bus/pci/devices/0000:af:00.1/numa_node", "1\n");
	put("bus/pci/devices/0000:5e:00.0/numa_node", "-1\n");
	put("class/net/eth5/device/numa_node", "1\n");
	return 0;
}

static int
teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_sysfs(void **state)
{
	(void)state;
	assert_int_equal(dcn_numa_of_cpu(root, 1), 0);
	assert_int_equal(dcn_numa_of_cpu(root, 3), 1);
	assert_int_equal(dcn_numa_of_cpu(root, 9), -1);
	assert_int_equal(dcn_numa_of_dev(root, "0000:3b:00.1"), 0);
	assert_int_equal(dcn_numa_of_dev(root, "0000:af:00.0,rxq_pkt_fill=1"), 1);
	/* A kernel interface's NIC (net_af_xdp, net_af_packet). */
	assert_int_equal(dcn_numa_of_dev(root, "net_af_xdp0,iface=eth5,start_queue=0"), 1);
	/* No node: a BIOS that does not say, a virtual device, a name that
	 * is not an interface's, a path in disguise. */
	assert_int_equal(dcn_numa_of_dev(root, "0000:5e:00.0"), -1);
	assert_int_equal(dcn_numa_of_dev(root, "net_memif0,role=server"), -1);
	assert_int_equal(dcn_numa_of_dev(root, "net_af_xdp0,iface=eth9"), -1);
	assert_int_equal(dcn_numa_of_dev(root, "net_af_xdp0,iface=../../x"), -1);
	assert_int_equal(dcn_numa_of_dev(root, "0000:3b:00"), -1);
}

static void
test_placement(void **state)
{
	/* A relay whose main lcore is on node 0: two ports of the node-0 NIC,
	 * two of node 1's, a memif of no node. */
	const int port[5] = { 0, 0, 1, 1, -1 };
	const int all_far[3] = { 1, 1, -1 };
	int pools[DCN_NUMA_MAX];

	(void)state;
	assert_int_equal(dcn_numa_home(1, 0), 1);
	assert_int_equal(dcn_numa_home(-1, 0), 0);
	assert_int_equal(dcn_numa_home(DCN_NUMA_MAX, 1), 1);
	/* A pool on each node with ports, the main lcore's first. */
	assert_int_equal(dcn_numa_pools(port, 5, 0, pools), 2);
	assert_int_equal(pools[0], 0);
	assert_int_equal(pools[1], 1);
	/* The main lcore on node 1, every port there: one pool. */
	assert_int_equal(dcn_numa_pools(all_far, 3, 1, pools), 1);
	assert_int_equal(pools[0], 1);
	/* The main lcore on node 0, the ports on node 1: node 1's pool
	 * for the ports, node 0's for control frames. */
	assert_int_equal(dcn_numa_pools(all_far, 3, 0, pools), 2);
	assert_int_equal(pools[1], 1);
	/* A node's memory where most of its ports are (ties: the lower). */
	assert_int_equal(dcn_numa_node_home(port, 5, 0), 0);
	assert_int_equal(dcn_numa_node_home(all_far, 3, 0), 1);
	assert_int_equal(dcn_numa_node_home(port, 4, 0), 0);
	assert_int_equal(dcn_numa_node_home(port + 2, 2, 0), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs),
		cmocka_unit_test(test_placement),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
