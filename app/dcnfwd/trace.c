/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Following a flow's frames hop by hop, as VPP's trace does: a request
 * (the flow, how many of its frames) that each worker takes between
 * loops, arming its own lib/fwd trace over the nodes it serves; every
 * hop of those frames written by the step, with flow control's queue
 * and credits where it runs; read by /dcn/trace and the exit report.
 * In an emulation every node of the fabric writes, so a frame is
 * followed from its first relay to its last.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_worker

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "trace.h"

int
dcnfwd_trace_setup(struct dcnfwd *d)
{
	unsigned int i;

	d->trace = rte_zmalloc("dcnfwd_trace", sizeof(*d->trace), 0);
	if (d->trace == NULL)
		return -ENOMEM;
	for (i = 0; i < d->n_workers; i++) {
		struct dcnfwd_worker *w = &d->worker[i];

		w->trace.rec = rte_zmalloc_socket("dcnfwd_trace_rec",
						  DCNFWD_TRACE_RECS * sizeof(*w->trace.rec),
						  0, (int)rte_lcore_to_socket_id(w->lcore));
		if (w->trace.rec == NULL)
			return -ENOMEM;
		w->trace.cap = DCNFWD_TRACE_RECS;
	}
	if (d->trace_spec != NULL) {
		struct dcnfwd_trace_req r;
		char err[160];

		if (dcnfwd_trace_parse(d, d->trace_spec, &r, err, sizeof(err)) != 0) {
			DCNFWD_LOG(CRIT, "--trace '%s': %s\n", d->trace_spec, err);
			return -EINVAL;
		}
		dcnfwd_trace_ask(d, &r);
	}
	return 0;
}

void
dcnfwd_trace_teardown(struct dcnfwd *d)
{
	unsigned int i;

	for (i = 0; i < d->n_workers; i++) {
		rte_free(d->worker[i].trace.rec);
		d->worker[i].trace.rec = NULL;
	}
	rte_free(d->trace);
	d->trace = NULL;
}

/* A host address from a node's name (any of dcn-topo's forms) or a
 * dotted quad. */
static int
host_addr(const struct dcnfwd *d, const char *s, uint32_t *addr)
{
	int64_t v = dcn_topo_parse_vertex(d->t, s, NULL, 0);
	unsigned int a, b, c, e;
	char tail;

	if (v >= 0 && (uint32_t)v < dcn_topo_servers(d->t)) {
		*addr = dcn_topo_addr(d->t, (uint32_t)v);
		return 0;
	}
	if (sscanf(s, "%u.%u.%u.%u%c", &a, &b, &c, &e, &tail) == 4 &&
	    a < 256 && b < 256 && c < 256 && e < 256) {
		*addr = a << 24 | b << 16 | c << 8 | e;
		return 0;
	}
	return -1;
}

int
dcnfwd_trace_parse(const struct dcnfwd *d, const char *s,
		   struct dcnfwd_trace_req *r, char *err, size_t len)
{
	char src[64], dst[64];
	unsigned int n = 4;
	int k;

	memset(r, 0, sizeof(*r));
	if (strcmp(s, "off") == 0)
		return 0;
	k = sscanf(s, "%63s %63s %u", src, dst, &n);
	if (k < 2) {
		snprintf(err, len, "give 'SRC DST [FRAMES]' (servers by name or "
			 "address), or 'off'");
		return -1;
	}
	if (host_addr(d, src, &r->src) != 0 || host_addr(d, dst, &r->dst) != 0) {
		snprintf(err, len, "'%s' is not a server of %s",
			 host_addr(d, src, &r->src) != 0 ? src : dst, dcn_topo_spec(d->t));
		return -1;
	}
	if (n == 0 || n > DCN_FWD_TRACE_FRAMES) {
		snprintf(err, len, "FRAMES is 1..%u", DCN_FWD_TRACE_FRAMES);
		return -1;
	}
	r->frames = n;
	return 0;
}

void
dcnfwd_trace_ask(const struct dcnfwd *d, const struct dcnfwd_trace_req *r)
{
	struct dcnfwd_trace_req *t = d->trace;

	t->src = r->src;
	t->dst = r->dst;
	t->frames = r->frames;
	__atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
}

void
dcnfwd_trace_take(struct dcnfwd_worker *w)
{
	const struct dcnfwd_trace_req *r = w->d->trace;
	uint32_t gen = __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE);
	unsigned int i;

	__atomic_store_n(&w->trace.n, 0, __ATOMIC_RELEASE);
	dcn_fwd_trace_arm(&w->trace, r->src, r->dst, r->frames);
	w->trace.fc_note = w->d->fc_on ? dcn_fc_trace_note : NULL;
	for (i = 0; i < w->n_served; i++) {
		struct dcnfwd_wnode *wn = w->node[w->served[i]];

		wn->fwd->trace_fc = &wn->fc;
		wn->fwd->trace = r->frames != 0 ? &w->trace : NULL;
	}
	w->trace_gen = gen;
}

/* The name of local port local of the node at vertex v. */
static const char *
port_name(const struct dcnfwd *d, uint32_t v, uint16_t local)
{
	uint32_t ni = d->node_of_vertex[v];

	if (ni == UINT32_MAX || local >= d->node[ni].n_ports)
		return "-";
	return d->port[d->node[ni].port[local]].name;
}

/* A hop's fields as text: its node, ports, candidates, proxies. */
struct hop_text {
	char frame[12], node[DCN_TOPO_NAME_LEN], cands[160], px_in[24], px_out[24];
	const char *in, *out, *why;
	long queued, credits;
};

static void
hop_text(const struct dcnfwd *d, const struct dcn_fwd_trace_rec *h, struct hop_text *x)
{
	size_t at = 0;
	unsigned int k;

	snprintf(x->frame, sizeof(x->frame), "%08x", h->frame);
	dcn_topo_format_vertex(d->t, h->node, x->node, sizeof(x->node));
	snprintf(x->cands, sizeof(x->cands), "-");
	for (k = 0; k < h->n_cand && at < sizeof(x->cands); k++) {
		char nx[DCN_TOPO_NAME_LEN];

		dcn_topo_format_vertex(d->t, h->cand_next[k], nx, sizeof(nx));
		at += (size_t)snprintf(x->cands + at, sizeof(x->cands) - at, "%s%u:%s",
				       k ? "," : "", h->cand_port[k], nx);
	}
	snprintf(x->px_in, sizeof(x->px_in), "-");
	snprintf(x->px_out, sizeof(x->px_out), "-");
	if (h->proxy_in != 0)
		dcn_topo_format_addr(h->proxy_in, x->px_in, sizeof(x->px_in));
	if (h->proxy_out != 0)
		dcn_topo_format_addr(h->proxy_out, x->px_out, sizeof(x->px_out));
	x->in = port_name(d, h->node, h->in);
	x->out = h->out == DCN_FWD_TRACE_DROPPED ? "dropped" :
		 h->out == DCN_FWD_PARK ? "held" : port_name(d, h->node, h->out);
	x->why = h->out == DCN_FWD_TRACE_DROPPED ? dcn_drop_name(h->why) : "-";
	x->queued = h->queued == UINT32_MAX ? -1L : (long)h->queued;
	x->credits = h->queued == UINT32_MAX || h->credits == UINT32_MAX ? -1L :
									 (long)h->credits;
}

/* Hop h as one line: "frame=KEY node=NAME in=PORT ...". */
static void
trace_line(const struct dcnfwd *d, const struct dcn_fwd_trace_rec *h, char *buf,
	   size_t len)
{
	struct hop_text x;

	hop_text(d, h, &x);
	snprintf(buf, len, "frame=%s node=%s in=%s class=%s ttl=%u vc=%d>%d "
		 "proxy=%s>%s bounced=%u>%u cands=%s pick=%d out=%s why=%s "
		 "queued=%ld credits=%ld", x.frame, x.node, x.in,
		 h->cls == DCN_FC_FABRIC_DATA ? "fabric" : "host", h->ttl_in,
		 h->vc_in == 0xff ? -1 : h->vc_in, h->vc_out == 0xff ? -1 : h->vc_out,
		 x.px_in, x.px_out, h->bounced_in, h->bounced_out, x.cands,
		 h->pick == 0xff ? -1 : h->pick, x.out, x.why, x.queued, x.credits);
}

int
dcnfwd_trace_dict(const struct dcnfwd *d, const struct dcn_fwd_trace_rec *h,
		  struct rte_tel_data *t)
{
	struct hop_text x;

	hop_text(d, h, &x);
	rte_tel_data_start_dict(t);
	return rte_tel_data_add_dict_string(t, "frame", x.frame) < 0 ||
	       rte_tel_data_add_dict_string(t, "node", x.node) < 0 ||
	       rte_tel_data_add_dict_string(t, "in", x.in) < 0 ||
	       rte_tel_data_add_dict_string(t, "class", h->cls == DCN_FC_FABRIC_DATA ?
						"fabric" : "host") < 0 ||
	       rte_tel_data_add_dict_int(t, "ttl", h->ttl_in) < 0 ||
	       rte_tel_data_add_dict_int(t, "vc_in", h->vc_in == 0xff ? -1 : h->vc_in) < 0 ||
	       rte_tel_data_add_dict_int(t, "vc_out", h->vc_out == 0xff ? -1 : h->vc_out) < 0 ||
	       rte_tel_data_add_dict_string(t, "proxy_in", x.px_in) < 0 ||
	       rte_tel_data_add_dict_string(t, "proxy_out", x.px_out) < 0 ||
	       rte_tel_data_add_dict_int(t, "bounced_in", h->bounced_in) < 0 ||
	       rte_tel_data_add_dict_int(t, "bounced_out", h->bounced_out) < 0 ||
	       rte_tel_data_add_dict_string(t, "candidates", x.cands) < 0 ||
	       rte_tel_data_add_dict_int(t, "pick", h->pick == 0xff ? -1 : h->pick) < 0 ||
	       rte_tel_data_add_dict_string(t, "out", x.out) < 0 ||
	       rte_tel_data_add_dict_string(t, "why", x.why) < 0 ||
	       rte_tel_data_add_dict_int(t, "queued", (int)x.queued) < 0 ||
	       rte_tel_data_add_dict_int(t, "credits", (int)x.credits) < 0 ? -1 : 0;
}

void
dcnfwd_trace_report(const struct dcnfwd *d)
{
	char src[24], dst[24], line[512];
	unsigned int i, k, any = 0;

	if (d->trace == NULL || d->trace->frames == 0)
		return;
	dcn_topo_format_addr(d->trace->src, src, sizeof(src));
	dcn_topo_format_addr(d->trace->dst, dst, sizeof(dst));
	if (d->json)
		printf("{\"trace\": {\"src\": \"%s\", \"dst\": \"%s\", \"hops\": [", src, dst);
	else
		printf("trace of %s > %s:\n", src, dst);
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];
		uint32_t n = __atomic_load_n(&w->trace.n, __ATOMIC_ACQUIRE);

		for (k = 0; k < n; k++) {
			trace_line(d, &w->trace.rec[k], line, sizeof(line));
			if (d->json)
				printf("%s\"%s\"", any++ ? ", " : "", line);
			else
				printf("  %s\n", line);
		}
	}
	if (d->json)
		printf("]}}\n");
}
