/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --check-config: what a start would check of a configuration file,
 * without starting (no EAL), and the address plan's line that a start
 * prints too.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "setup.h"

/*
 * Where the ports' memory goes, and workers that poll a port of another
 * NUMA node than their lcore's (dcn_port_numa.h), as sysfs says
 * (DCNFWD_SYSFS names another tree, for a test's made-up server).
 */
static void
check_numa(const struct dcn_conf *c)
{
	const char *sysfs = getenv("DCNFWD_SYSFS") ? getenv("DCNFWD_SYSFS") : "/sys";
	int sock[DCN_CONF_MAX_PORTS], pools[DCN_NUMA_MAX];
	int main_node = dcn_numa_of_cpu(sysfs, 0);
	unsigned int i, k, n;

	for (i = 0; i < c->n_ports; i++)
		sock[i] = dcn_numa_of_dev(sysfs, c->port[i].dev);
	n = dcn_numa_pools(sock, c->n_ports, main_node < 0 ? 0 : main_node, pools);
	if (n > 1) {
		printf("  ports on %u NUMA nodes: a pool of mbufs on each (", n);
		for (k = 0; k < n; k++)
			printf("%s%d", k ? ", " : "", pools[k]);
		printf(")\n");
	}
	for (i = 0; i < c->n_workers; i++) {
		int ls = dcn_numa_of_cpu(sysfs, c->worker[i].lcore);

		for (k = 0; k < c->worker[i].n_rx; k++) {
			int ps = sock[c->worker[i].rx[k].port];

			if (ls >= 0 && ps >= 0 && ls != ps && c->worker[i].rx[k].queue == 0)
				printf("  warning: the worker on lcore %u (NUMA node "
				       "%d) polls port %s, of node %d: its frames "
				       "cross between sockets; give it an lcore of "
				       "node %d\n", c->worker[i].lcore, ls,
				       c->port[c->worker[i].rx[k].port].name, ps, ps);
		}
	}
}

int
dcnfwd_plan_line(const struct dcn_topo *t, char *buf, size_t len)
{
	uint32_t net, route;
	unsigned int net_len, route_len;
	char a[16], b[16];
	int priv;

	dcn_topo_prefix(t, &net, &net_len);
	dcn_topo_covering(t, &route, &route_len);
	priv = dcn_topo_prefix_private(net, net_len);
	snprintf(buf, len, "addresses in %s/%u (%s), route %s/%u%s",
		 dcn_topo_format_addr(net, a, sizeof(a)), net_len,
		 priv ? "private" : "public space",
		 dcn_topo_format_addr(route, b, sizeof(b)), route_len,
		 priv ? "" : ": a server's route into the fabric takes public "
			     "addresses with it; prefix= in topology moves them");
	return priv;
}

/* Who sends on a port with flow control (setup.c, give_senders): with
 * lanes, up to a worker a lane, each under a share of the peer's
 * credits; else the port's owner. */
static void
check_senders(const struct dcn_conf *c)
{
	unsigned int i, lanes = 1, most;

	if (!c->fc_enabled)
		return;
	for (i = 0; i < c->n_ports; i++)
		lanes = RTE_MAX(lanes, c->port[i].rxq);
	most = RTE_MIN(lanes, c->n_workers);
	if (c->fc_senders)
		most = RTE_MIN(most, c->fc_senders);
	if (most > 1)
		printf("  flow control: up to %u senders a port (a worker a lane, "
		       "each sending what it routes under a share of the peer's "
		       "credits)\n", most);
	else
		printf("  flow control: one sender a port, its owner%s\n",
		       lanes > 1 && c->fc_senders == 1 ? " ([flow_control] senders = 1)" : "");
}

int
dcnfwd_check_config(const char *file)
{
	struct dcn_conf c;
	struct dcn_topo *t = NULL;
	struct dcn_route_conf rc = { 0 };
	struct dcn_router *r;
	char err[DCN_CONF_ERR_LEN], name[DCN_TOPO_NAME_LEN];
	unsigned int i, vcs;

	if (dcn_conf_load(file, &c, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	/* What a start would refuse beyond the file's own checks. */
	if (dcn_topo_max_degree(t) > DCN_FWD_MAX_FABRIC_PORTS) {
		fprintf(stderr, "%s: %s: a vertex has more than %u ports\n", file,
			dcn_topo_spec(t), DCN_FWD_MAX_FABRIC_PORTS);
		dcn_topo_free(t);
		return 1;
	}
	rc.algo = c.algo;
	rc.vcs = c.fc_vcs;
	r = dcn_router_create_conf(t, &rc, err, sizeof(err));
	if (r == NULL) {
		fprintf(stderr, "%s: routing %s: %s\n", file, dcn_topo_spec(t), err);
		dcn_topo_free(t);
		return 1;
	}
	vcs = dcn_route_vcs(r);
	dcn_router_free(r);
	dcn_topo_format_vertex(t, c.node, name, sizeof(name));
	printf("%s: %s, node %s (%s), %u ports, %u workers\n", file, c.spec, name,
	       dcn_conf_role_name(c.role), c.n_ports, c.n_workers);
	if (c.keyed)
		printf("  fabric key from %s: control frames signed, unsigned "
		       "ones refused\n", c.key_file);
	else
		printf("  no fabric key: control frames taken as they come\n");
	{
		char plan[192];

		printf("  %s%s\n", dcnfwd_plan_line(t, plan, sizeof(plan)) ?
		       "" : "warning: ", plan);
	}
	for (i = 0; i < c.n_ports; i++)
		printf("  port %-10s %-6s fabric_port %-3d %s\n", c.port[i].name,
		       c.port[i].host ? "host" : "fabric", c.port[i].fabric_port,
		       c.port[i].dev);
	if (c.fc_enabled)
		dcnfwd_fc_check_line(&c, t, vcs);
	check_senders(&c);
	check_numa(&c);
	dcn_topo_free(t);
	return 0;
}
