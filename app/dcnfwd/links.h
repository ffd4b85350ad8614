/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_LINKS_H
#define DCNFWD_LINKS_H

/*
 * A fabric port's link: its carrier, from the PMD (link events, or polled)
 * or the kernel interface behind it (rtnetlink), its liveness from frames
 * in, and the events that take it down or up (lib/link decides; here the
 * workers and the node learn of it).
 */

#include "dcnfwd.h"

/* Carrier sources of every port; the first reading of the kernel's. */
void dcnfwd_links_setup(struct dcnfwd *d, uint64_t us);
void dcnfwd_links_teardown(struct dcnfwd *d);
/* Read carrier changes, count frames in as signs of life, and age every
 * fabric port's link (the control tick). */
void dcnfwd_links_tick(struct dcnfwd *d, uint64_t now, uint64_t us);
/* When each port's queues were last emptied (dcn_link_tick_read): taken
 * before the control ring is read, so the hellos read by then are
 * handled before silence is judged. */
void dcnfwd_links_read_times(struct dcnfwd *d);
/* Port p's carrier is up (1) or down (0). */
void dcnfwd_carrier(struct dcnfwd *d, struct dcnfwd_port *p, int up,
		    uint64_t us);
/* What lib/link decided of port p: tell the workers and the node. */
void dcnfwd_port_event(struct dcnfwd *d, struct dcnfwd_port *p,
		       enum dcn_link_event ev);
/* Read the kernel's drop counters now (at exit, for the final figures). */
void dcnfwd_kernel_drops_final(struct dcnfwd *d);
/* Sleep up to timeout_us, or until the kernel reports a link change. */
void dcnfwd_control_wait(struct dcnfwd *d, unsigned int timeout_us);

#endif /* DCNFWD_LINKS_H */
