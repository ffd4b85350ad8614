/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_LSA_H
#define DCNFWD_LSA_H

/* Failure announcements, spread as each paper says (lib/route decides how
 * far; lib/link keeps what a node has heard). */

#include "dcnfwd.h"

/* The links node n itself sees down: its ports, and the neighbours gone
 * silent behind its switch ports. @return how many (at most max). */
unsigned int dcnfwd_own_down(const struct dcnfwd *d, const struct dcnfwd_node *n,
			     uint32_t *v, uint16_t *port, unsigned int max);
/* Announce node n's own state out of every fabric port. */
void dcnfwd_lsa_originate(struct dcnfwd *d, struct dcnfwd_node *n, uint64_t now);
/* An announcement frame f of len bytes received on port pi. */
void dcnfwd_lsa_rx(struct dcnfwd *d, uint32_t pi, const uint8_t *f, uint32_t len);
/* Forget announcements their origins stopped repeating (control tick). */
void dcnfwd_lsa_age(struct dcnfwd *d, struct dcnfwd_node *n, uint64_t now);

#endif /* DCNFWD_LSA_H */
