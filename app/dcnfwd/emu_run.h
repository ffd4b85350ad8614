/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_EMU_RUN_H
#define DCNFWD_EMU_RUN_H

#include "dcnfwd.h"

/* Run an emulated fabric with d->emu's options (workers launched).
 * @return the process's exit status. */
int dcnfwd_emu_run(struct dcnfwd *d);

#endif /* DCNFWD_EMU_RUN_H */
