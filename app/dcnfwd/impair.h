/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_IMPAIR_H
#define DCNFWD_IMPAIR_H

/* Slow, late and lossy cables in the lab (lib/port's dcn_port_impair.h),
 * set on a running relay by /dcn/impair (doc/telemetry.md). */

#include <rte_telemetry.h>

#include "dcnfwd.h"

/* /dcn/impair: the impaired ports; /dcn/impair,PORT SETTINGS: set them. */
int dcnfwd_tel_impair(const struct dcnfwd *d, const char *params,
		      struct rte_tel_data *t);
/* Frames port p's cable lost or had no room for, all its queues. */
uint64_t dcnfwd_impair_dropped(const struct dcnfwd_port *p);

#endif /* DCNFWD_IMPAIR_H */
