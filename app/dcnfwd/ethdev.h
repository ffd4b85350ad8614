/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_ETHDEV_H
#define DCNFWD_ETHDEV_H

#include "dcnfwd.h"

/* The one node of a configuration file (d->conf), on its ethdevs. */
int dcnfwd_setup_from_conf(struct dcnfwd *d);
/* After the workers stopped: a pause before memif ports close (why: in
 * ethdev.c). */
void dcnfwd_memif_settle(const struct dcnfwd *d);

#endif /* DCNFWD_ETHDEV_H */
