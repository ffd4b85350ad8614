/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_REPORT_H
#define DCNFWD_REPORT_H

/* What dcnfwd prints: live figures each interval, final counters. */

#include "dcnfwd.h"

/* The figures at one moment, for the next line's rates. */
struct dcnfwd_live {
	uint64_t tsc;
	uint64_t rx, tx, encap, decap, transit, drops;
};
void dcnfwd_live_sample(const struct dcnfwd *d, struct dcnfwd_live *l);
/* One line of rates since prev (prev becomes now). */
void dcnfwd_live_print(const struct dcnfwd *d, struct dcnfwd_live *prev,
		       double elapsed);
/* Final counters (nothing with --json). */
void dcnfwd_final_report(const struct dcnfwd *d);

#endif /* DCNFWD_REPORT_H */
