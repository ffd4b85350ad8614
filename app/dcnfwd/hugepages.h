/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_HUGEPAGES_H
#define DCNFWD_HUGEPAGES_H

#include <stdint.h>

/* Is name one of the EAL arguments? */
int dcnfwd_eal_has_arg(int argc, char **argv, const char *name);
/* MB the EAL arguments ask for (-m, or --socket-mem summed), 0: none. */
unsigned int dcnfwd_eal_mem_mb(int argc, char **argv);
/* Hugepages of every size, free and reserved, in MB. @return 0, -1. */
int dcnfwd_hugepages_mb(uint64_t *free_mb, uint64_t *total_mb);
/* Before EAL: wait (bounded, saying so) until the MB asked are free. */
void dcnfwd_hugepages_wait(int argc, char **argv);
/* For an EAL error for want of memory: the pages free, reserved, asked. */
const char *dcnfwd_hugepages_hint(int argc, char **argv);

#endif /* DCNFWD_HUGEPAGES_H */
