/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_CONTROL_H
#define DCNFWD_CONTROL_H

/* The control thread, on the main lcore: hellos out and in, ARP on host
 * ports, control frames from the workers, and failover's tick. */

#include "dcnfwd.h"

/* One pass of the control thread: hellos when due, control frames in,
 * ARP probes, failover. */
void dcnfwd_control_tick(struct dcnfwd *d);
/* Control frames the workers handed over (also after they stopped). */
void dcnfwd_control_poll(struct dcnfwd *d, uint64_t now);
/* Has every node learnt every neighbour's MAC? */
int dcnfwd_neighbours_ready(const struct dcnfwd *d);

#endif /* DCNFWD_CONTROL_H */
