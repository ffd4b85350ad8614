/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_EMU_UNPLUG_H
#define DCNFWD_EMU_UNPLUG_H

/*
 * Pulling a cable, or killing a node, while an emulated fabric's traffic
 * runs (--unplug): when, what (a named cable or node, or the busiest), how
 * (carrier event, silently, or every cable of a node), and what it cost.
 * The outage is the frames lost over the link's rate before the cut: how
 * long the traffic that crossed it was lost for.
 */

#include "dcnfwd.h"

struct dcnfwd_unplug {
	int armed;             /* a cable is chosen or will be */
	int64_t port;          /* global port of the cable's near end; -1 */
	int64_t kill_node;     /* kill mode: the node, -1 */
	int cut;
	unsigned int cycles;   /* cuts done */
	uint64_t start_tsc, cut_tsc, mend_tsc;
	uint64_t *base;        /* out frames per node port at the start */
	uint64_t *encap_base;  /* frames each node's own hosts sent into the
				* fabric, at the start */
	double link_pps;
	uint64_t at_mend;      /* frames over it when mended */
	uint64_t sent_mid, rx_mid, sent_mend, rx_mend;
	uint64_t sent_tail, rx_tail;  /* at the start of the last second */
	uint64_t ev_from;      /* first event of this cut */
	double next_flip;      /* flaps: seconds */
};

/* Choose what --unplug names. @return 0, or -1 (not in this fabric). */
int dcnfwd_unplug_prepare(struct dcnfwd *d, struct dcnfwd_unplug *u);
/* Traffic starts: counters from here. */
void dcnfwd_unplug_start(struct dcnfwd *d, struct dcnfwd_unplug *u);
/* Advance the plan at elapsed seconds el (hosts sent, received). */
void dcnfwd_unplug_step(struct dcnfwd *d, struct dcnfwd_unplug *u, double el,
			uint64_t sent, uint64_t rx);
/* What the events say about the first cut. */
void dcnfwd_unplug_report(struct dcnfwd *d, struct dcnfwd_unplug *u,
			  uint64_t sent, uint64_t rx, uint64_t lost);

#endif /* DCNFWD_EMU_UNPLUG_H */
