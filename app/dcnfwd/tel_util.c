/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the telemetry handlers share: valid keys, checked containers,
 * error answers, node parameters.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_telemetry

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tel_util.h"

/*
 * A dict key from a name. DPDK 22.11 takes letters, digits and '_' in
 * keys (and '/'), and refuses the whole entry otherwise: every run of
 * other characters becomes one '_', and none leads or trails
 * ("(0,0):3" is "0_0_3").
 */
const char *
dcnfwd_tel_key(const char *name, char *buf, size_t len)
{
	size_t i = 0;
	int gap = 0;

	for (; *name != '\0' && i + 1 < len; name++) {
		char c = *name;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_') {
			if (gap && i > 0 && i + 2 < len)
				buf[i++] = '_';
			gap = 0;
			buf[i++] = c;
		} else {
			gap = 1;
		}
	}
	if (i == 0)
		buf[i++] = '_';
	buf[i] = '\0';
	return buf;
}

int
dcnfwd_tel_add_container(struct rte_tel_data *t, const char *name,
		  struct rte_tel_data *e)
{
	char key[RTE_TEL_MAX_STRING_LEN];

	if (rte_tel_data_add_dict_container(t, dcnfwd_tel_key(name, key, sizeof(key)),
					    e, 0) < 0) {
		rte_tel_data_free(e);
		return -1;
	}
	return 0;
}

int
dcnfwd_tel_error(struct rte_tel_data *t, const char *fmt, ...)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	char *c;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The message may echo a client's parameter: printable ASCII only.
	 * DPDK 22.11's JSON writer escapes a byte >= 0x80 wrongly (it takes
	 * the char as signed), which would make the reply invalid JSON. */
	for (c = msg; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_string(t, "error", msg));
	return 0;
}

int
dcnfwd_tel_find_node(const struct dcnfwd *d, const char *s, size_t len)
{
	char buf[64];
	int64_t v;

	if (len == 0)
		return d->n_nodes ? 0 : -1;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = dcn_topo_parse_vertex(d->t, buf, NULL, 0);
	if (v < 0 || d->node_of_vertex[v] == UINT32_MAX)
		return -1;
	return (int)d->node_of_vertex[v];
}

int
dcnfwd_tel_node_param(const struct dcnfwd *d, const char *params)
{
	return dcnfwd_tel_find_node(d, params, params != NULL ? strlen(params) : 0);
}

int
dcnfwd_tel_no_node(struct rte_tel_data *t, const char *params)
{
	return dcnfwd_tel_error(t, "no node '%.64s' here: give a node this process "
			 "runs, in the paper's notation or as its address", params);
}

