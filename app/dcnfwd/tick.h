/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_TICK_H
#define DCNFWD_TICK_H

#include "dcnfwd.h"

/* Links and neighbours aged, tables rebuilt, announcements sent, old
 * tables freed (the control tick, tick.c). */
void dcnfwd_tick(struct dcnfwd *d, uint64_t now);

#endif /* DCNFWD_TICK_H */
