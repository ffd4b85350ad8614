/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * encap = udp: each fabric port of a node gets the state its outer
 * IPv4/UDP headers need (lib/port/dcn_port_udp.h); the port puts them on
 * and takes them off, and the hellos it hears tell it whom a MAC is.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_port

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "dcn_fabric_udp.h"
#include "setup.h"

int
dcnfwd_setup_encap(struct dcnfwd *d)
{
	unsigned int i;

	if (d->conf.encap != DCN_ENCAP_UDP)
		return 0;
	/* Diamond's frames between switches are plain IPv4 already. */
	if (dcn_topo_kind(d->t) == DCN_TOPO_DIAMOND) {
		DCNFWD_LOG(NOTICE, "encap = udp: Diamond's frames are plain IPv4 "
			   "already (a NIC hashes them); its control frames keep "
			   "the fabric EtherType\n");
		return 0;
	}
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port *p = &d->port[i];
		struct dcn_port_udp *u;
		int64_t peer;

		if (!dcnfwd_port_is_fabric(p))
			continue;
		u = rte_zmalloc("dcn_udp", sizeof(*u), RTE_CACHE_LINE_SIZE);
		if (u == NULL)
			return -ENOMEM;
		/* A cable reaches one relay (the peer of its topology port);
		 * a switch port, every relay on its switch. */
		peer = dcn_topo_port_peer(d->t, d->node[p->owner_idx].vertex,
					  (unsigned int)p->fabric_port);
		p->dp.udp = u;
		if (dcn_port_udp_init(u, d->ethertype, (uint16_t)d->conf.udp_port,
				      d->node[p->owner_idx].addr,
				      peer >= 0 && dcn_topo_is_router(d->t, (uint32_t)peer)) != 0) {
			DCNFWD_LOG(CRIT, "encap = udp: no mbuf field left for "
				"the source port (%s)\n", rte_strerror(rte_errno));
			return -ENOSPC;
		}
	}
	return 0;
}

void
dcnfwd_encap_free(struct dcnfwd_port *p)
{
	rte_free(p->dp.udp);
	p->dp.udp = NULL;
}
