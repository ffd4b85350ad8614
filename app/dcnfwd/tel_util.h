/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_TEL_UTIL_H
#define DCNFWD_TEL_UTIL_H

/* What the telemetry handlers share. Every handler runs under
 * telemetry.c's lock, while the process is built. */

#include <rte_telemetry.h>

#include "dcnfwd.h"

/* A telemetry dict key from a name: DPDK takes [A-Za-z0-9_] only. */
const char *dcnfwd_tel_key(const char *name, char *buf, size_t len);
/* Every rte_tel_data_* call is checked: an entry DPDK refuses makes the
 * handler answer an error, not a reply that silently lacks it. */
#define TEL_TRY(expr) do { if ((expr) < 0) return -1; } while (0)

/* Add container e under key name (made a valid key), or free it. */
int dcnfwd_tel_add_container(struct rte_tel_data *t, const char *name,
			     struct rte_tel_data *e);
/* Answer {"error": ...}: an invalid parameter, so a client sees why. */
__attribute__((format(printf, 2, 3)))
int dcnfwd_tel_error(struct rte_tel_data *t, const char *fmt, ...);
/* The node the first len characters of s name (len 0: the first), -1. */
int dcnfwd_tel_find_node(const struct dcnfwd *d, const char *s, size_t len);
/* The node a command's whole parameter names (none: the first), -1. */
int dcnfwd_tel_node_param(const struct dcnfwd *d, const char *params);
/* Answer that params names no node. */
int dcnfwd_tel_no_node(struct rte_tel_data *t, const char *params);

#endif /* DCNFWD_TEL_UTIL_H */
