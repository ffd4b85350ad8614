/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's frames out: each port has a ring (ctl_tx) that
 * the worker sending its control frames drains, so the control thread
 * never calls a PMD's send.
 */
#include <string.h>

#include "ctl_io.h"
#include "dcn_fabric.h"

int
dcnfwd_inject(struct dcnfwd *d, uint32_t port, struct rte_mbuf **m,
	      unsigned int n)
{
	unsigned int q = rte_ring_enqueue_burst(d->port[port].ctl_tx, (void **)m,
						n, NULL);

	if (q < n)
		rte_pktmbuf_free_bulk(&m[q], n - q);
	return (int)q;
}

struct rte_mbuf *
dcnfwd_ctl_frame(struct dcnfwd *d, const struct dcnfwd_port *p,
		 const struct rte_ether_addr *dst, uint16_t ethertype, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->mp);
	uint8_t *f;

	if (len < 60)
		len = 60;   /* the Ethernet minimum without FCS */
	if (m == NULL)
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, len);
	if (dst != NULL)
		memcpy(f, dst, 6);
	else
		memset(f, 0xff, 6);
	memcpy(f + 6, &p->mac, 6);
	dcn_fabric_put16(f + 12, ethertype);
	return m;
}
