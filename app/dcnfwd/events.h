/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_EVENTS_H
#define DCNFWD_EVENTS_H

/* The failover event ring (telemetry's /dcn/events, the benchmarks), and
 * the control thread's clock. */

#include "dcnfwd.h"

/* Record an event (control thread). */
void dcnfwd_event(struct dcnfwd *d, enum dcnfwd_event_kind kind, uint32_t node,
		  int local, uint32_t vertex, uint8_t cause, uint32_t gen);
const char *dcnfwd_event_name(enum dcnfwd_event_kind k);
/* Microseconds of a TSC value (lib/link's clock). */
uint64_t dcnfwd_us_of_tsc(const struct dcnfwd *d, uint64_t tsc);

#endif /* DCNFWD_EVENTS_H */
