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

/* Control frame bytes with room for a fabric key's trailer when there
 * is one: Ethernet, fabric header, payload_len, trailer. */
uint32_t dcnfwd_ctl_len(const struct dcnfwd *d, uint32_t payload_len);
/*
 * With a fabric key, check the tag of a control frame taken on port p
 * (header's len as payload_len). A refusal is counted on the port by its
 * reason and logged now and then. @return 1: good (epoch and seq are the
 * trailer's), 0: refused.
 */
int dcnfwd_auth_check(struct dcnfwd *d, struct dcnfwd_port *p, const uint8_t *f,
		      uint32_t len, const struct dcn_auth_span *span,
		      uint32_t *epoch, uint32_t *seq);
/* Count and log a refused replay on port p. */
void dcnfwd_auth_refuse(struct dcnfwd_port *p, enum dcn_auth_result r,
			const char *what);

#endif /* DCNFWD_CTL_IO_H */
