/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_TEL_NODE_H
#define DCNFWD_TEL_NODE_H

/* Telemetry handlers about one node (telemetry.c registers them). */

#include <rte_telemetry.h>

#include "dcnfwd.h"

int dcnfwd_tel_ports(const struct dcnfwd *d, const char *params,
		     struct rte_tel_data *t);
int dcnfwd_tel_neighbours(const struct dcnfwd *d, const char *params,
			  struct rte_tel_data *t);
int dcnfwd_tel_route(const struct dcnfwd *d, const char *params,
		     struct rte_tel_data *t);
int dcnfwd_tel_table(const struct dcnfwd *d, const char *params,
		     struct rte_tel_data *t);
int dcnfwd_tel_fc(const struct dcnfwd *d, const char *params,
		  struct rte_tel_data *t);
int dcnfwd_tel_links(const struct dcnfwd *d, const char *params,
		     struct rte_tel_data *t);

#endif /* DCNFWD_TEL_NODE_H */
