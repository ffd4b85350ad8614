/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_HELLO_AUTH_H
#define DCNFWD_HELLO_AUTH_H

/* Hellos under a fabric key: a neighbour's new incarnation is proven
 * fresh by its echo of our own latest hello (lib/auth/README.md). */

#include "dcnfwd.h"

/* The echoes of the neighbours heard behind port p of node n (its
 * cable's, or those behind its switch), at most DCN_HELLO_ECHO_MAX.
 * @return how many (0 without a fabric key). */
unsigned int dcnfwd_hello_echoes(const struct dcnfwd *d, const struct dcnfwd_node *n,
				 const struct dcnfwd_port *p, struct dcn_hello_echo *e);

/* Is hello f on port p (a good tag; epoch, seq from its trailer; h its
 * payload) from the neighbour guard g keeps fresh? A new incarnation
 * taken tells flow control its credit frames may be taken.
 * @return 1 fresh; 0 a replay (counted); -1 a new incarnation not yet
 * proven (counted): answer it with a hello. */
int dcnfwd_hello_fresh(struct dcnfwd *d, struct dcnfwd_node *n, struct dcnfwd_port *p,
		       struct dcnfwd_mac_guard *g, const uint8_t *f,
		       const struct dcn_hello *h, uint32_t epoch, uint32_t seq);

#endif /* DCNFWD_HELLO_AUTH_H */
