/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_TELEMETRY_H
#define DCNFWD_TELEMETRY_H

/* Telemetry commands under /dcn/ (doc/telemetry.md). */

#include <rte_telemetry.h>

#include "dcnfwd.h"

struct dcnfwd_tel_cmd {
	const char *name;
	int (*fn)(const char *cmd, const char *params, struct rte_tel_data *t);
	const char *params;       /* what the parameter is, "" for none */
	const char *help;
};
/* Every /dcn/ command, NULL-terminated. */
extern const struct dcnfwd_tel_cmd dcnfwd_tel_cmds[];
void dcnfwd_telemetry_register(void);
/* Answer commands about d from now on (the process is built), until
 * _close (before it is torn down); until then they answer an error. */
void dcnfwd_telemetry_open(struct dcnfwd *d);
void dcnfwd_telemetry_close(struct dcnfwd *d);
/* Leave DCNFWD_RELAY_FILE in the process's runtime directory, naming its
 * node: there after the process is gone (killed or stopped), it tells
 * dcn-exporter --all that a relay of that node no longer answers. */
void dcnfwd_telemetry_mark(const struct dcnfwd *d);
#define DCNFWD_RELAY_FILE "dcnfwd.relay"

#endif /* DCNFWD_TELEMETRY_H */
