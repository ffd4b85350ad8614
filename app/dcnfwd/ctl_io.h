/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_CTL_IO_H
#define DCNFWD_CTL_IO_H

/* Frames the control thread sends (hellos, announcements, ARP): built
 * here, and handed to the worker that sends the port's control frames. */

#include "dcnfwd.h"

/* A frame out of port p: len bytes (60 at least), zeroed, with its
 * Ethernet header (dst NULL: broadcast); NULL if the pool is dry. */
struct rte_mbuf *dcnfwd_ctl_frame(struct dcnfwd *d, const struct dcnfwd_port *p,
				  const struct rte_ether_addr *dst,
				  uint16_t ethertype, uint32_t len);
/* Queue n frames for port port. @return frames taken (the rest freed). */
int dcnfwd_inject(struct dcnfwd *d, uint32_t port, struct rte_mbuf **m,
		  unsigned int n);

#endif /* DCNFWD_CTL_IO_H */
