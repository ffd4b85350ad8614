/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry under /dcn/ (DPDK's dpdk-telemetry.py, or tools/dcn-telemetry):
 * the commands are in dcnfwd_tel_cmds at the end of this file. A NODE
 * parameter (a fabric address or the paper's notation) defaults to the
 * first node, the only one outside emulation; one that names no node,
 * or a malformed address, is answered {"error": "..."}.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_telemetry

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "events.h"
#include "impair.h"
#include "stats.h"
#include "telemetry.h"
#include "trace.h"
#include "tel_node.h"
#include "tel_util.h"
#include "xdp.h"

/*
 * Telemetry handlers run on DPDK's telemetry threads (one per client),
 * beside the workers and the control thread. They read only what lives
 * as long as the process (between dcnfwd_telemetry_open and _close,
 * under tel_lock) and take a node's table under RCU, as workers do: the
 * control thread frees a replaced table only once every registered
 * reader has been quiescent since.
 */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dcnfwd *tel_d;   /* NULL: not answering */

void
dcnfwd_telemetry_open(struct dcnfwd *d)
{
	pthread_mutex_lock(&tel_lock);
	rte_rcu_qsbr_thread_register(d->rcu, d->n_workers);
	tel_d = d;
	pthread_mutex_unlock(&tel_lock);
}

void
dcnfwd_telemetry_close(struct dcnfwd *d)
{
	pthread_mutex_lock(&tel_lock);
	if (tel_d != NULL)
		rte_rcu_qsbr_thread_unregister(d->rcu, d->n_workers);
	tel_d = NULL;
	pthread_mutex_unlock(&tel_lock);
}

void
dcnfwd_telemetry_mark(const struct dcnfwd *d)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" DCNFWD_RELAY_FILE,
		 rte_eal_get_runtime_dir());
	f = fopen(path, "w");
	if (f == NULL) {
		DCNFWD_LOG(WARNING, "%s: %s (dcn-exporter --all will not report "
			   "this relay once it stops answering)\n", path, strerror(errno));
		return;
	}
	/* Names are the topology's (digits, brackets, commas): no quoting. */
	fprintf(f, "{\"node\": \"%s\", \"topology\": \"%s\", \"pid\": %d}\n",
		d->n_nodes == 1 ? d->node[0].name : "", dcn_topo_spec(d->t),
		(int)getpid());
	fclose(f);
}

/* A command's handler. */
typedef int (*tel_fn)(const struct dcnfwd *d, const char *params,
		      struct rte_tel_data *t);

/*
 * Run handler h for a command under tel_lock, once the process is up and
 * until it goes down.
 */
static int
tel_run(tel_fn h, const char *params, struct rte_tel_data *t)
{
	int ret;

	pthread_mutex_lock(&tel_lock);
	if (tel_d == NULL)
		ret = dcnfwd_tel_error(t, "dcnfwd is starting or stopping");
	else
		ret = h(tel_d, params, t);
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

/* A command's entry point: its handler dcnfwd_NAME under tel_run. */
#define TEL_CMD(name) \
static int \
name(const char *cmd, const char *params, struct rte_tel_data *t) \
{ \
	(void)cmd; \
	return tel_run(dcnfwd_##name, params, t); \
}

static const char *const loss_classes[] = {
	[DCNFWD_LOSS_FABRIC] = "fabric", [DCNFWD_LOSS_INGRESS] = "ingress",
	[DCNFWD_LOSS_CONTROL] = "control", [DCNFWD_LOSS_REPAIRED] = "repaired",
	[DCNFWD_LOSS_RESTART] = "restart",
};

/* The ledger of loss (stats.h), every reason: "loss" (counts) and
 * "loss_class" (where each is lost: fabric, ingress, ...). */
static int
add_losses(struct rte_tel_data *t, const struct dcnfwd_drops *dr)
{
	struct rte_tel_data *n = rte_tel_data_alloc(), *c = rte_tel_data_alloc();
	unsigned int r;

	if (n == NULL || c == NULL)
		goto fail;
	rte_tel_data_start_dict(n);
	rte_tel_data_start_dict(c);
	for (r = 0; r < DCNFWD_LOSS_MAX; r++)
		if (rte_tel_data_add_dict_u64(n, dcnfwd_loss_name(r), dr->loss[r]) < 0 ||
		    rte_tel_data_add_dict_string(c, dcnfwd_loss_name(r),
						 loss_classes[dcnfwd_loss_class(r)]) < 0)
			goto fail;
	if (dcnfwd_tel_add_container(t, "loss", n) != 0) {
		rte_tel_data_free(c);
		return -1;
	}
	return dcnfwd_tel_add_container(t, "loss_class", c);
fail:
	rte_tel_data_free(n);
	rte_tel_data_free(c);
	return -1;
}

static int
dcnfwd_tel_stats(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	struct dcn_fwd_stats all;
	struct rte_tel_data *drops;
	uint64_t tx = 0, rx = 0, tx_drop = 0, refused = 0, hellos = 0;
	uint64_t ctl_drop = 0, sw_fwd = 0, sw_flood = 0, sleeps = 0, sleep_us = 0;
	uint64_t auth_refused = 0, silence_heard = 0;
	uint64_t kernel_drop = 0, missed = 0;
	struct dcnfwd_loop_totals lt;
	struct dcnfwd_drops dr;
	unsigned int i, r, k;

	(void)params;
	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &all);
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];

		ctl_drop += w->ctl_drop;
		sw_fwd += w->sw_forwarded;
		sw_flood += w->sw_flooded;
		sleeps += w->idle_sleeps;
		sleep_us += w->idle_sleep_us;
	}
	dcnfwd_loop_totals(d, &lt);
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port_stats ps;

		dcnfwd_port_totals(d, i, &ps);
		rx += ps.rx;
		tx += ps.tx;
		tx_drop += ps.tx_drop;
		refused += d->port[i].hello_refused;
		hellos += d->port[i].hello_rx;
		silence_heard += d->port[i].silence_heard;
		for (k = 0; k <= DCN_AUTH_REPLAYED; k++)
			auth_refused += d->port[i].auth_refused[k];
		kernel_drop += __atomic_load_n(&d->port[i].kernel_tx_dropped,
					       __ATOMIC_RELAXED);
		missed += __atomic_load_n(&d->port[i].rx_missed, __ATOMIC_RELAXED);
	}
	dcnfwd_drop_totals(d, &dr);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_string(t, "topology", dcn_topo_spec(d->t)));
	TEL_TRY(rte_tel_data_add_dict_string(t, "version", DCN_VERSION));
	TEL_TRY(rte_tel_data_add_dict_string(t, "dpdk", rte_version()));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "nodes", d->n_nodes));
	/* A relay of one node (a configuration file): its name, which the
	 * exporter puts on every sample (a rack's servers told apart). */
	if (d->n_nodes == 1)
		TEL_TRY(rte_tel_data_add_dict_string(t, "node", d->node[0].name));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "ports", d->n_ports));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "port_rx", rx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "port_tx", tx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "port_tx_drop", tx_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "fwd_rx", all.rx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "encap", all.encap));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "transit", all.transit));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "decap", all.decap));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "control", all.control));
	/* Sent back where they came from; held as bouncing between relays
	 * whose tables disagree (lib/fwd/README.md, "Bounces"). */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "bounced", all.bounced));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "parked", all.parked));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "hello_rx", hellos));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "hello_refused", refused));
	/* A fabric key is in force, and what it refused (hellos and
	 * announcements; credit frames per link in /dcn/fc). */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "fabric_key", d->auth != NULL));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "auth_refused", auth_refused));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "control_ring_drop", ctl_drop));
	/* control frames this relay could not send: no control mbuf, a
	 * port's control ring full, or refused by the port */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "control_unsent", dcnfwd_control_unsent(d)));
	/* hellos not made: the port's last was still waiting to go */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "hellos_held", d->hellos_held));
	/* links taken down for silence whose neighbour's frames came
	 * within a silence's time after: hellos late, not missing */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "silence_heard", silence_heard));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "flow_control", (uint64_t)d->fc_on));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "fabric_drops", dr.fabric));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "ingress_drops", dr.loss[DCNFWD_LOSS_HOST_IN]));
	/* Frames of any kind the kernel dropped after dcnfwd sent them into
	 * a kernel-backed port (net_af_xdp, net_af_packet, net_tap): data
	 * among them is also in lost_repaired, by its receiver. */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "kernel_tx_dropped", kernel_drop));
	/* Frames the ports' PMDs missed on receive (rings full). */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "rx_missed", missed));
	/* Data frames lost on the way over credited links, their credits
	 * taken back (each once, by its receiver or its sender). */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "lost_repaired", dr.loss[DCNFWD_LOSS_LOST_REPAIRED]));
	/* Data frames sent to a neighbour that was killed and lost with it
	 * (counted when its next incarnation first speaks; an upper bound
	 * by what it forwarded in its last credit interval). */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "lost_to_restart", dr.loss[DCNFWD_LOSS_LOST_TO_RESTART]));
	/* of those, frames a killed incarnation was handing to a port
	 * (its ledger): that its peer counted as arrived, so not lost;
	 * and that no peer has settled yet, some of which may have left */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "restart_doubt_left", dr.restart_doubt_left));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "restart_in_doubt", dr.restart_in_doubt));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "credit_frames_tx", dr.credit_tx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "credit_frames_lost", dr.credit_lost));
	/* refused whatever the key (by reason and link in /dcn/fc) */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "credit_frames_refused", dr.credit_refused));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "credit_stalls", dr.stalls));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_loops", lt.loops));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_busy_loops", lt.busy_loops));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_busy_cycles", lt.busy_tsc));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_idle_sleeps", sleeps));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_idle_sleep_us", sleep_us));
	if (d->n_switches) {
		TEL_TRY(rte_tel_data_add_dict_u64(t, "emulated_switch_forwarded", sw_fwd));
		TEL_TRY(rte_tel_data_add_dict_u64(t, "emulated_switch_flooded", sw_flood));
	}
	if (add_losses(t, &dr) != 0)
		return -1;
	drops = rte_tel_data_alloc();
	if (drops == NULL)
		return -1;
	rte_tel_data_start_dict(drops);
	for (r = 1; r < DCN_DROP_MAX; r++)
		if (rte_tel_data_add_dict_u64(drops, dcn_drop_name(r), all.drop[r]) < 0) {
			rte_tel_data_free(drops);
			return -1;
		}
	return dcnfwd_tel_add_container(t, "drop", drops);
}

/* The last failover events, oldest first, with wall-clock times. */
static int
event_lines(const struct dcnfwd *d, uint64_t first, uint64_t end,
	    struct rte_tel_data *a)
{
	uint64_t k;

	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (k = first; k < end; k++) {
		const struct dcnfwd_event *e = &d->ev[k % DCNFWD_EVENTS];
		char line[RTE_TEL_MAX_STRING_LEN], who[DCN_TOPO_NAME_LEN] = "-";
		const char *node = e->node < d->n_nodes ? d->node[e->node].name : "-";
		const char *port = e->node < d->n_nodes && e->local >= 0 ?
			d->port[d->node[e->node].port[e->local]].name : "-";

		if (e->vertex != UINT32_MAX)
			dcn_topo_format_vertex(d->t, e->vertex, who, sizeof(who));
		/* Truncated at the line's end if names are long. */
		snprintf(line, sizeof(line), "%lu.%06lu %s node=%.24s port=%.24s "
			 "peer=%.24s cause=%s gen=%u", (unsigned long)(e->wall_us / 1000000),
			 (unsigned long)(e->wall_us % 1000000),
			 dcnfwd_event_name(e->kind), node, port, who,
			 dcn_link_cause_name(e->cause), e->gen);
		TEL_TRY(rte_tel_data_add_array_string(a, line));
	}
	return 0;
}

static int
dcnfwd_tel_events(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	uint64_t end = __atomic_load_n(&d->n_ev, __ATOMIC_ACQUIRE);
	uint64_t first = end > 64 ? end - 64 : 0;
	struct rte_tel_data *a = rte_tel_data_alloc();

	(void)params;
	if (a == NULL)
		return -1;
	rte_tel_data_start_dict(t);
	if (rte_tel_data_add_dict_u64(t, "total", end) < 0 ||
	    event_lines(d, first, end, a) != 0) {
		rte_tel_data_free(a);
		return -1;
	}
	return dcnfwd_tel_add_container(t, "last", a);
}

/* How long frames stay in this process's nodes (dcn_port_lat.h): the
 * samples, their sum, and each bucket's count keyed by its upper bound
 * in ns ("inf": the last). */
static int
dcnfwd_tel_latency(const struct dcnfwd *d, const char *params,
		   struct rte_tel_data *t)
{
	struct rte_tel_data *b = rte_tel_data_alloc();
	struct dcn_port_lat h;
	unsigned int k;

	(void)params;
	if (b == NULL)
		return -1;
	dcnfwd_lat_totals(d, &h);
	rte_tel_data_start_dict(b);
	for (k = 0; k < DCN_PORT_LAT_BUCKETS; k++) {
		uint64_t le = dcn_port_lat_bucket_ns(k);
		char key[24];

		if (le == UINT64_MAX)
			snprintf(key, sizeof(key), "inf");
		else
			snprintf(key, sizeof(key), "%lu", (unsigned long)le);
		if (rte_tel_data_add_dict_u64(b, key, h.bucket[k]) < 0) {
			rte_tel_data_free(b);
			return -1;
		}
	}
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_u64(t, "samples", h.count));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "sum_ns", h.sum_ns));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "sample_gap_us", DCNFWD_LAT_GAP_US));
	return dcnfwd_tel_add_container(t, "le_ns", b);
}

/* Each net_af_xdp port's XDP verdict counters. */
static int
dcnfwd_tel_xdp(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	unsigned int i, n = 0;

	(void)params;
	rte_tel_data_start_dict(t);
	for (i = 0; i < d->n_ports; i++)
		n += d->port[i].has_xdp;
	TEL_TRY(rte_tel_data_add_dict_u64(t, "ports_with_xdp", n));
	for (i = 0; i < d->n_ports; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();
		int ret;

		if (e == NULL)
			return -1;
		ret = dcnfwd_xdp_tel_port(&d->port[i], e);
		if (ret != 0) {
			rte_tel_data_free(e);
			if (ret == -ENOENT)
				continue;
			return -1;
		}
		TEL_TRY(dcnfwd_tel_add_container(t, d->port[i].name, e));
	}
	return 0;
}

/* /dcn/trace: the hops traced so far, keyed by their order ("0", "1",
 * ...: telemetry nests one container deep); with "SRC DST [N]" a new
 * trace asked for, with "off" none. */
static int
dcnfwd_tel_trace(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	struct dcnfwd_trace_req r;
	char err[160], src[24], dst[24], key[12];
	unsigned int i, k, shown = 0;

	if (params != NULL && params[0] != '\0') {
		if (dcnfwd_trace_parse(d, params, &r, err, sizeof(err)) != 0)
			return dcnfwd_tel_error(t, "%s", err);
		dcnfwd_trace_ask(d, &r);
	}
	rte_tel_data_start_dict(t);
	dcn_topo_format_addr(d->trace->src, src, sizeof(src));
	dcn_topo_format_addr(d->trace->dst, dst, sizeof(dst));
	TEL_TRY(rte_tel_data_add_dict_string(t, "src", src));
	TEL_TRY(rte_tel_data_add_dict_string(t, "dst", dst));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "frames", d->trace->frames));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "request", d->trace->gen));
	/* The first hops, as many as a reply holds. */
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];
		uint32_t n = w->trace_gen == d->trace->gen ?
			     __atomic_load_n(&w->trace.n, __ATOMIC_ACQUIRE) : 0;

		for (k = 0; k < n && shown < 32; k++) {
			struct rte_tel_data *h = rte_tel_data_alloc();

			if (h == NULL || dcnfwd_trace_dict(d, &w->trace.rec[k], h) != 0) {
				rte_tel_data_free(h);
				return -1;
			}
			snprintf(key, sizeof(key), "%u", shown++);
			TEL_TRY(dcnfwd_tel_add_container(t, key, h));
		}
	}
	TEL_TRY(rte_tel_data_add_dict_u64(t, "hops", shown));
	return 0;
}

TEL_CMD(tel_trace)
TEL_CMD(tel_ports)
TEL_CMD(tel_neighbours)
TEL_CMD(tel_route)
TEL_CMD(tel_table)
TEL_CMD(tel_fc)
TEL_CMD(tel_links)

TEL_CMD(tel_stats)
TEL_CMD(tel_events)
TEL_CMD(tel_xdp)
TEL_CMD(tel_impair)
TEL_CMD(tel_latency)

/* The commands, for registration and for --help. */
const struct dcnfwd_tel_cmd dcnfwd_tel_cmds[] = {
	{ "/dcn/stats", tel_stats, "",
	  "totals: port rx/tx, encapsulated, transit, decapsulated, control, "
	  "hellos, drops by reason" },
	{ "/dcn/ports", tel_ports, "NODE",
	  "each port: rx, tx, tx_drop, in_drop (input queue full), "
	  "down_drop, nbr_drop, data forwarded out of it" },
	{ "/dcn/neighbours", tel_neighbours, "NODE",
	  "the neighbour each port's hellos come from; behind a switch "
	  "port, data frames sent to each next hop" },
	{ "/dcn/route", tel_route, "[NODE ]ADDR",
	  "the next hops of the table in force for an address" },
	{ "/dcn/table", tel_table, "NODE",
	  "the table in force: algorithm, form, bytes, generation" },
	{ "/dcn/fc", tel_fc, "NODE",
	  "flow control per (port, VC): queue depths, credits, credit frames" },
	{ "/dcn/links", tel_links, "NODE",
	  "link states, announcements, table generation" },
	{ "/dcn/events", tel_events, "",
	  "failover events: their total, and the last 64 with wall-clock times" },
	{ "/dcn/trace", tel_trace, "[SRC DST [N]|off]",
	  "the hops of a traced flow's frames so far; with SRC DST, follow "
	  "the next N (4) frames from server SRC to DST instead" },
	{ "/dcn/xdp", tel_xdp, "",
	  "XDP verdicts of each net_af_xdp port: to dcnfwd, to the kernel" },
	{ "/dcn/latency", tel_latency, "",
	  "how long frames stay in the relay, from the poll that took them to "
	  "the send that passed them on, sampled: a histogram in ns" },
	{ "/dcn/impair", tel_impair, "[PORT|all [delay_us=N] [jitter_us=N] "
	  "[loss_ppm=N] [rate_kbps=N]|off]",
	  "lab: a slow, late or lossy cable into a port (name, fabric port "
	  "number, all); each impaired port's settings and counters" },
	{ NULL, NULL, NULL, NULL },
};

void
dcnfwd_telemetry_register(void)
{
	const struct dcnfwd_tel_cmd *c;

	for (c = dcnfwd_tel_cmds; c->name != NULL; c++)
		if (rte_telemetry_register_cmd(c->name, c->fn, c->help) != 0)
			DCNFWD_LOG(ERR, "telemetry refused %s (a help of %zu "
				   "characters: at most %d)\n", c->name,
				   strlen(c->help), RTE_TEL_MAX_STRING_LEN - 1);
}
