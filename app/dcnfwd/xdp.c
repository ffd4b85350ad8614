/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_af_xdp ports with dcnfwd's XDP program (lib/xdp): the PMD loads it
 * (devarg xdp_prog=, added here unless the devargs name a program of their
 * own), dcnfwd then configures it for the port's role, reads its counters
 * for telemetry and the final report, and at exit detaches it if it is
 * still attached and still the one found (the PMD of DPDK 22.11 removes
 * it when the port closes; another PMD version might not).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_port

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <net/if.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "stats.h"
#include "xdp.h"

#ifdef DCN_HAVE_XDP
/* Is this dcnfwd the build tree's (not an installed copy)? */
static int
running_from_build(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t root = strlen(DCN_BUILD_ROOT);

	if (n <= 0)
		return 0;
	exe[n] = '\0';
	return strncmp(exe, DCN_BUILD_ROOT, root) == 0 && exe[root] == '/';
}

/* dcnfwd's XDP program: an installed dcnfwd's is the installed one,
 * never the build tree's (which may be gone, or another version). */
static const char *
default_prog(void)
{
	if (running_from_build() && access(DCN_XDP_OBJ_BUILD, R_OK) == 0)
		return DCN_XDP_OBJ_BUILD;
	if (access(DCN_XDP_OBJ_INSTALL, R_OK) == 0)
		return DCN_XDP_OBJ_INSTALL;
	return NULL;
}
#endif

void
dcnfwd_xdp_default_help(FILE *f)
{
#ifdef DCN_HAVE_XDP
	const char *p = default_prog();

	fprintf(f, "XDP program of net_af_xdp ports (--xdp-prog): %s%s\n",
		p != NULL ? p : DCN_XDP_OBJ_INSTALL, p != NULL ? "" : " (not there)");
#else
	fprintf(f, "XDP program of net_af_xdp ports: none (built without libbpf)\n");
#endif
}

int
dcnfwd_is_af_xdp(const char *dev)
{
	return strncmp(dev, "net_af_xdp", 10) == 0;
}

const char *
dcnfwd_xdp_devargs(const struct dcnfwd *d, const char *dev, char *buf,
		   size_t len)
{
	const char *prog = d->xdp_prog;

	if (!dcnfwd_is_af_xdp(dev) || strstr(dev, "xdp_prog=") != NULL)
		return dev;
	if (prog != NULL && strcmp(prog, "none") == 0)
		return dev;
#ifdef DCN_HAVE_XDP
	if (prog == NULL)
		prog = default_prog();
#endif
	if (prog == NULL)
		return dev;
	if ((size_t)snprintf(buf, len, "%s,xdp_prog=%s", dev, prog) >= len)
		return dev;
	return buf;
}

#ifdef DCN_HAVE_XDP
/* The interface name of "iface=NAME" in devargs, for messages. */
static void
iface_name(const char *devargs, char *buf, size_t len)
{
	const char *s = strstr(devargs, "iface=");

	snprintf(buf, len, "%.*s", s ? (int)strcspn(s + 6, ",") : 1,
		 s ? s + 6 : "?");
}

int
dcnfwd_xdp_claim(const char *file, const char *port, const char *devargs)
{
	int ifindex = dcn_port_devargs_ifindex(devargs), ret;
	char owner[32], ifname[IF_NAMESIZE + 1];
	unsigned int queue = 0;
	uint32_t id = 0;

	/* Only where the PMD will attach a program (xdp_prog=): without one
	 * it uses libxdp's, which shares the hook by its own rules. */
	if (!dcnfwd_is_af_xdp(devargs) || strstr(devargs, "xdp_prog=") == NULL ||
	    ifindex <= 0)
		return 0;
	iface_name(devargs, ifname, sizeof(ifname));
	ret = dcn_xdp_claim(ifindex, DCN_XDP_PROG_NAME, owner, sizeof(owner),
			    &id, &queue);
	switch (ret) {
	case 0:
		return 0;
	case 1:
		DCNFWD_LOG(NOTICE, "port %s: took over interface %s from the XDP "
			   "program %u (%s) of a dcnfwd that is gone (no AF_XDP "
			   "socket was left on it)\n", port, ifname, id, owner);
		return 0;
	case -EBUSY:
		DCNFWD_LOG(CRIT, "%s: [port.%s]: interface %s has XDP "
			"program '%s' (id %u) attached, which is not dcnfwd's: "
			"detach it (ip link set dev %s xdp off) if nothing needs it, "
			"or give dcnfwd another interface\n", file, port, ifname,
			owner, id, ifname);
		return ret;
	case -EADDRINUSE:
		DCNFWD_LOG(CRIT, "%s: [port.%s]: interface %s is in use by "
			"a running dcnfwd: its XDP program %s (id %u) has a live "
			"AF_XDP socket on queue %u; stop that one first\n", file,
			port, ifname, owner, id, queue);
		return ret;
	default:
		DCNFWD_LOG(CRIT, "%s: [port.%s]: cannot check interface "
			"%s's XDP program: %s\n", file, port, ifname,
			strerror(-ret));
		return ret;
	}
}

void
dcnfwd_xdp_port_start(struct dcnfwd *d, struct dcnfwd_port *p, const char *dev)
{
	struct dcn_xdp_port *x = &p->xdp;
	int ifindex = dcn_port_devargs_ifindex(dev), ret;
	uint32_t flags = 0, net;
	unsigned int len;

	p->has_xdp = 0;
	if (!dcnfwd_is_af_xdp(dev) || ifindex <= 0)
		return;
	ret = dcn_xdp_find(x, ifindex);
	if (ret == -EPROTO) {
		DCNFWD_LOG(INFO, "port %s: the XDP program attached is not "
			   "dcnfwd's; no XDP counters\n", p->name);
		return;
	}
	if (ret < 0) {
		DCNFWD_LOG(INFO, "port %s: no XDP program found: %s\n", p->name,
			   strerror(-ret));
		return;
	}
	/* Host ports and Diamond's plain-IPv4 fabric take IPv4 too, that to
	 * the fabric's addresses. */
	if (p->is_host || dcn_topo_kind(d->t) == DCN_TOPO_DIAMOND)
		flags |= DCN_XDP_CFG_IPV4;
	/* encap = udp (not Diamond's, dcnfwd_setup_encap): the fabric's
	 * frames come in IPv4/UDP. With encap = ether too: a neighbour in
	 * udp is then seen, and counted (encap_mismatch), not handed to
	 * the kernel unseen. */
	if (!p->is_host && dcn_topo_kind(d->t) != DCN_TOPO_DIAMOND)
		flags |= DCN_XDP_CFG_UDP;
	dcn_topo_covering(d->t, &net, &len);
	ret = dcn_xdp_configure(x, d->ethertype, flags, net, len,
				(uint16_t)d->conf.udp_port);
	if (ret < 0) {
		DCNFWD_LOG(WARNING, "port %s: cannot configure its XDP program: "
			   "%s\n", p->name, strerror(-ret));
		dcn_xdp_close(x);
		return;
	}
	p->has_xdp = 1;
	DCNFWD_LOG(INFO, "port %s: XDP program %u steers fabric frames%s to "
		   "dcnfwd\n", p->name, x->prog_id,
		   flags & DCN_XDP_CFG_IPV4 ? " and IPv4 to the fabric" : "");
}

void
dcnfwd_xdp_port_stop(struct dcnfwd_port *p)
{
	int ret;

	if (!p->has_xdp)
		return;
	ret = dcn_xdp_detach(&p->xdp);
	if (ret < 0)
		DCNFWD_LOG(WARNING, "port %s: cannot detach its XDP program: %s\n",
			   p->name, strerror(-ret));
	else
		DCNFWD_LOG(INFO, "port %s: XDP program %u %s\n", p->name,
			   p->xdp.prog_id, ret ? "detached" : "was already gone");
	dcn_xdp_close(&p->xdp);
	p->has_xdp = 0;
}

void
dcnfwd_xdp_print(const struct dcnfwd *d, FILE *f)
{
	unsigned int i, k;

	for (i = 0; i < d->n_ports; i++) {
		const struct dcnfwd_port *p = &d->port[i];
		uint64_t c[DCN_XDP_NB_COUNTERS];

		if (!p->has_xdp || dcn_xdp_read(&p->xdp, c) != 0)
			continue;
		fprintf(f, "  xdp %-10s", p->name);
		for (k = 0; k < DCN_XDP_NB_COUNTERS; k++)
			fprintf(f, " %s %llu", dcn_xdp_counter_name(k),
				(unsigned long long)c[k]);
		fprintf(f, "\n");
	}
}

int
dcnfwd_xdp_tel_port(const struct dcnfwd_port *p, struct rte_tel_data *e)
{
	uint64_t c[DCN_XDP_NB_COUNTERS];
	unsigned int k;

	if (!p->has_xdp || dcn_xdp_read(&p->xdp, c) != 0)
		return -ENOENT;
	rte_tel_data_start_dict(e);
	if (rte_tel_data_add_dict_int(e, "prog_id", (int)p->xdp.prog_id) < 0 ||
	    rte_tel_data_add_dict_int(e, "ifindex", p->xdp.ifindex) < 0)
		return -EINVAL;
	for (k = 0; k < DCN_XDP_NB_COUNTERS; k++)
		if (rte_tel_data_add_dict_u64(e, dcn_xdp_counter_name(k), c[k]) < 0)
			return -EINVAL;
	return 0;
}
#else
int
dcnfwd_xdp_claim(const char *file, const char *port, const char *devargs)
{
	(void)file;
	(void)port;
	(void)devargs;
	return 0;
}

void
dcnfwd_xdp_port_start(struct dcnfwd *d, struct dcnfwd_port *p, const char *dev)
{
	(void)d;
	(void)dev;
	p->has_xdp = 0;
}

void
dcnfwd_xdp_port_stop(struct dcnfwd_port *p)
{
	(void)p;
}

void
dcnfwd_xdp_print(const struct dcnfwd *d, FILE *f)
{
	(void)d;
	(void)f;
}

int
dcnfwd_xdp_tel_port(const struct dcnfwd_port *p, struct rte_tel_data *e)
{
	(void)p;
	(void)e;
	return -ENOENT;
}
#endif

/*
 * net_af_xdp frees a sent mbuf only when it reaps the frame's completion,
 * at its next send: the last frames sent before exit would count as
 * leaked. Empty sends reap them (workers have stopped: the queues are
 * ours), until a pass frees nothing more.
 */
void
dcnfwd_xdp_reap_tx(const struct dcnfwd *d, const struct dcnfwd_port *p)
{
	unsigned int pass, before;
	uint16_t q;

	for (pass = 0; pass < 100; pass++) {
		before = dcnfwd_mbufs_in_use(d);
		for (q = 0; q < p->dp.nb_txq; q++)
			rte_eth_tx_burst(p->dp.ethdev, q, NULL, 0);
		if (dcnfwd_mbufs_in_use(d) == before && pass > 0)
			break;
		rte_delay_us_sleep(1000);
	}
}
