/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_OPTIONS_H
#define DCNFWD_OPTIONS_H

/* The command line after EAL's "--": run options, and overrides of
 * configuration keys (applied over the file, or over the defaults when
 * emulating). */

#include "dcnfwd.h"

struct dcnfwd_options {
	const char *check;          /* --check-config FILE */
	int reference;              /* --config-reference */
	int help;
	int version;                /* --version */
	int duration_set;
	unsigned int n_ovr;
	struct {
		const struct dcn_conf_key *key;
		const char *value;
	} ovr[64];                  /* overrides, in order */
};

void dcnfwd_usage(FILE *f);
/* @return 0, or -1 (told on stderr). */
int dcnfwd_options_parse(struct dcnfwd_options *o, struct dcnfwd *d, int argc,
			 char **argv);
/* The overrides over d->conf (loaded, or defaults), and what the process
 * takes from it. @return 0, or -1 (told on stderr). */
int dcnfwd_options_apply(struct dcnfwd_options *o, struct dcnfwd *d);
/* --check-config: what a start would check of the file. @return the exit
 * status. */
int dcnfwd_check_config(const char *file);
struct dcn_topo;
/* "addresses in NET/LEN (private), route R/L", and the warning for
 * public space. @return 1 when the plan is in private space. */
int dcnfwd_plan_line(const struct dcn_topo *t, char *buf, size_t len);

#endif /* DCNFWD_OPTIONS_H */
