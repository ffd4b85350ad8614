/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /dcn/impair: a slow, late or lossy cable into a port, as tc's netem and
 * tbf would make it on a kernel whose qdiscs the port's frames meet (the
 * fabric's net_af_xdp ports meet none). dcn-fabric's cables take it
 * (--delay, --jitter, --loss, --rate). Runs under telemetry.c's lock.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_telemetry

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impair.h"
#include "log.h"
#include "tel_util.h"

uint64_t
dcnfwd_impair_dropped(const struct dcnfwd_port *p)
{
	const struct dcn_port_impair *im =
		__atomic_load_n(&p->dp.impair, __ATOMIC_ACQUIRE);
	struct dcn_port_impair_totals t;

	if (im == NULL)
		return 0;
	dcn_port_impair_totals(im, &t);
	return t.lost + t.overflow;
}

static int
impair_entry(const struct dcnfwd_port *p, struct rte_tel_data *e)
{
	const struct dcn_port_impair *im = p->dp.impair;
	struct dcn_port_impair_totals t;

	dcn_port_impair_totals(im, &t);
	rte_tel_data_start_dict(e);
	TEL_TRY(rte_tel_data_add_dict_u64(e, "delay_us", im->conf.delay_us));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "jitter_us", im->conf.jitter_us));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "loss_ppm", im->conf.loss_ppm));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "rate_kbps", im->conf.rate_kbps));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "on_cable", t.on_cable));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "passed", t.passed));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "lost", t.lost));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "overflow", t.overflow));
	return 0;
}

/* Port p takes c, its impairment made on first use (and kept, settings
 * and all, for the process's life: a poller may hold it). */
static int
impair_port(const struct dcnfwd *d, struct dcnfwd_port *p,
	    const struct dcn_port_impair_conf *c)
{
	struct dcn_port_impair *im = p->dp.impair;

	if (im == NULL) {
		if (!dcn_port_impair_active(c))
			return 0;
		im = dcn_port_impair_create(p->dp.nb_rxq,
					    p->socket < 0 ? SOCKET_ID_ANY : p->socket,
					    d->tsc_hz);
		if (im == NULL)
			return -ENOMEM;
	}
	if (dcn_port_impair_set(im, c) != 0)
		return -EINVAL;
	if (p->dp.impair == NULL)
		__atomic_store_n(&p->dp.impair, im, __ATOMIC_RELEASE);
	DCNFWD_LOG(NOTICE, "port %s: cable delay %lu us, jitter %lu us, loss %lu ppm, "
		   "rate %lu kbit/s\n", p->name, (unsigned long)c->delay_us,
		   (unsigned long)c->jitter_us, (unsigned long)c->loss_ppm,
		   (unsigned long)c->rate_kbps);
	return 0;
}

/* Whether port p is the one "which" names: its name, or a node's fabric
 * port by number, or any node's fabric port for "all". */
static int
port_named(const struct dcnfwd_port *p, const char *which)
{
	char *end;
	long fp;

	if (strcmp(which, p->name) == 0)
		return 1;
	if (!dcnfwd_port_is_fabric(p))
		return 0;
	if (strcmp(which, "all") == 0)
		return 1;
	fp = strtol(which, &end, 10);
	return *which != '\0' && *end == '\0' && fp == p->fabric_port;
}

int
dcnfwd_tel_impair(const struct dcnfwd *d, const char *params,
		  struct rte_tel_data *t)
{
	struct dcn_port_impair_conf c;
	char which[96], err[160];
	const char *rest;
	unsigned int i, named = 0, impaired = 0;
	size_t len;

	if (params != NULL && *params != '\0') {
		len = strcspn(params, " ");
		if (len >= sizeof(which))
			return dcnfwd_tel_error(t, "no port '%.64s'", params);
		memcpy(which, params, len);
		which[len] = '\0';
		rest = params + len;
		if (strcmp(rest, " off") == 0 || *rest == '\0')
			memset(&c, 0, sizeof(c));
		else if (dcn_port_impair_parse(rest, &c, err, sizeof(err)) != 0)
			return dcnfwd_tel_error(t, "%s", err);
		for (i = 0; i < d->n_ports; i++) {
			struct dcnfwd_port *p = &d->port[i];

			if (p->owner != OWNER_NODE || !port_named(p, which))
				continue;
			if (impair_port(d, p, &c) != 0)
				return dcnfwd_tel_error(t, "port %s: no memory for its "
							"cable", p->name);
			named++;
		}
		if (named == 0)
			return dcnfwd_tel_error(t, "no port '%.64s' here: a port's "
						"name, a fabric port's number, or all",
						which);
	}
	rte_tel_data_start_dict(t);
	for (i = 0; i < d->n_ports; i++) {
		const struct dcnfwd_port *p = &d->port[i];
		struct rte_tel_data *e;

		if (p->dp.impair == NULL)
			continue;
		e = rte_tel_data_alloc();
		if (e == NULL || impair_entry(p, e) != 0) {
			rte_tel_data_free(e);
			return -1;
		}
		TEL_TRY(dcnfwd_tel_add_container(t, p->name, e));
		impaired++;
	}
	return rte_tel_data_add_dict_u64(t, "impaired_ports", impaired) < 0 ? -1 : 0;
}
