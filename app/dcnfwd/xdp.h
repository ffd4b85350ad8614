/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_XDP_H
#define DCNFWD_XDP_H

/* dcnfwd's XDP program on net_af_xdp ports (lib/xdp); a PMD's kernel
 * interface is dcn_port_devargs_ifindex's (lib/port). */

#include <rte_telemetry.h>

#include "dcnfwd.h"
#include "dcn_port_kernel.h"   /* dcn_port_devargs_ifindex */

/* The devargs to open dev with: dcnfwd's XDP program added to a
 * net_af_xdp device that names none (buf holds them). */
const char *dcnfwd_xdp_devargs(const struct dcnfwd *d, const char *dev,
			       char *buf, size_t len);
/* Before a net_af_xdp device opens with an XDP program (devargs as
 * dcnfwd_xdp_devargs made them): take over the stale program of a dcnfwd
 * that died on its interface, refuse (with the reason on stderr, naming
 * file and port) when another program or a live dcnfwd holds it. 0: the
 * hook is free for the PMD; negative errno otherwise. */
int dcnfwd_xdp_claim(const char *file, const char *port, const char *devargs);
/* Is dev (devargs) a net_af_xdp port? */
int dcnfwd_is_af_xdp(const char *dev);
/* For --help: the XDP program dcnfwd loads by default, where it is. */
void dcnfwd_xdp_default_help(FILE *f);
void dcnfwd_xdp_port_start(struct dcnfwd *d, struct dcnfwd_port *p,
			   const char *dev);
void dcnfwd_xdp_port_stop(struct dcnfwd_port *p);
/* After the workers stopped: a net_af_xdp port frees the mbufs of the
 * frames it sent last, so the exit check counts only real leaks. */
void dcnfwd_xdp_reap_tx(const struct dcnfwd *d, const struct dcnfwd_port *p);
void dcnfwd_xdp_print(const struct dcnfwd *d, FILE *f);
/* Port p's XDP verdict counters into dict e; -ENOENT: it has none. */
int dcnfwd_xdp_tel_port(const struct dcnfwd_port *p, struct rte_tel_data *e);

#endif /* DCNFWD_XDP_H */
