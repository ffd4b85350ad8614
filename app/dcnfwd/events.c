/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd's log type (DCNFWD_LOG, registered by main), and failover
 * events: a ring of the last DCNFWD_EVENTS, each with its TSC and
 * wall-clock time. One writer (the control thread); readers take n_ev
 * with acquire and read what is below it.
 */
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "events.h"


static const char *const event_names[] = {
	[EV_LINK_DOWN] = "link_down",
	[EV_LINK_UP] = "link_up", [EV_NBR_DOWN] = "neighbour_down",
	[EV_NBR_UP] = "neighbour_up", [EV_TABLE] = "table",
	[EV_LSA_IN] = "announcement", [EV_CUT] = "cable_cut",
	[EV_REPLUG] = "cable_mended",
};

const char *
dcnfwd_event_name(enum dcnfwd_event_kind k)
{
	return (unsigned int)k < RTE_DIM(event_names) ? event_names[k] : "?";
}

uint64_t
dcnfwd_us_of_tsc(const struct dcnfwd *d, uint64_t tsc)
{
	return tsc / (d->tsc_hz / 1000000);
}

void
dcnfwd_event(struct dcnfwd *d, enum dcnfwd_event_kind kind, uint32_t node,
	     int local, uint32_t vertex, uint8_t cause, uint32_t gen)
{
	struct dcnfwd_event *e = &d->ev[d->n_ev % DCNFWD_EVENTS];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	e->tsc = rte_rdtsc();
	e->wall_us = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	e->node = node;
	e->local = (int16_t)local;
	e->vertex = vertex;
	e->kind = (uint8_t)kind;
	e->cause = cause;
	e->gen = gen;
	__atomic_store_n(&d->n_ev, d->n_ev + 1, __ATOMIC_RELEASE);
}
