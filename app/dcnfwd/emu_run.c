/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running an emulated fabric: wait for the hellos to teach every node its
 * neighbours, then either trace every ordered pair of hosts alone (--pairs:
 * where each flow went, port by port, for comparison with dcn-topo route)
 * or let every host send stamped traffic and report delivery, loss,
 * reordering and latency (and, with --unplug, what a pulled cable cost).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_emu

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "control.h"
#include "ctl_io.h"
#include "emu_hosts.h"
#include "emu_run.h"
#include "emu_unplug.h"
#include "report.h"
#include "stats.h"

static int
wait_ready(struct dcnfwd *d)
{
	uint64_t start = rte_rdtsc(), limit = start + 10 * d->tsc_hz;

	while (!dcnfwd_quitting(d)) {
		dcnfwd_control_tick(d);
		if (dcnfwd_neighbours_ready(d)) {
			if (!d->json)
				printf("dcnfwd: every node knows its neighbours after "
				       "%.1f ms\n", (double)(rte_rdtsc() - start) *
				       1e3 / (double)d->tsc_hz);
			return 0;
		}
		if (rte_rdtsc() > limit) {
			DCNFWD_LOG(CRIT, "neighbours not all learnt in 10 s\n");
			return -1;
		}
		rte_delay_us_sleep(200);
	}
	return -1;
}

/* Frames each node forwarded out of each of its ports, all workers. */
static void
snapshot(const struct dcnfwd *d, uint64_t *out)
{
	unsigned int i, l;

	for (i = 0; i < d->n_nodes; i++)
		for (l = 0; l < DCN_FWD_MAX_PORTS; l++)
			out[i * DCN_FWD_MAX_PORTS + l] =
				dcnfwd_node_out_frames(d, i, (uint16_t)l);
}

static void
settle(struct dcnfwd *d, double ms)
{
	uint64_t until = rte_rdtsc() + (uint64_t)(ms * (double)d->tsc_hz / 1e3);

	while (rte_rdtsc() < until) {
		dcnfwd_control_tick(d);
		rte_delay_us_sleep(100);
	}
}

static int
pairs_check(struct dcnfwd *d, unsigned int k, unsigned int size)
{
	size_t cells = (size_t)d->n_nodes * DCN_FWD_MAX_PORTS;
	uint64_t *before = calloc(cells, sizeof(uint64_t));
	uint64_t *after = calloc(cells, sizeof(uint64_t));
	uint64_t *rx0 = calloc(d->n_hosts, sizeof(uint64_t));
	unsigned int s, t, bad = 0, pairs = 0;
	struct rte_mbuf *m[64];
	int ret = -1;

	if (before == NULL || after == NULL || rx0 == NULL || k > 64)
		goto out;
	for (s = 0; s < d->n_hosts; s++) {
		for (t = 0; t < d->n_hosts; t++) {
			struct dcn_gen_conf gc;
			char sn[DCN_TOPO_NAME_LEN], tn[DCN_TOPO_NAME_LEN];
			uint64_t limit, got, stray = 0;
			unsigned int i, l, first = 1;

			if (s == t || dcnfwd_quitting(d))
				continue;
			memset(&gc, 0, sizeof(gc));
			gc.src_addr = d->host[s].addr;
			gc.frame_len = (uint16_t)size;
			gc.src_mac = d->port[d->host[s].port].mac;
			memset(&gc.dst_mac, 0xff, sizeof(gc.dst_mac));
			snapshot(d, before);
			for (i = 0; i < d->n_hosts; i++)
				rx0[i] = dcnfwd_emu_host_rx(d, i);
			if (rte_pktmbuf_alloc_bulk(d->mp, m, k) != 0)
				goto out;
			for (i = 0; i < k; i++)
				dcn_gen_write(&gc, m[i], d->host[t].addr,
					      (uint16_t)(4000 + t), i, rte_rdtsc());
			dcnfwd_inject(d, d->host[s].port, m, k);
			limit = rte_rdtsc() + d->tsc_hz;
			while (dcnfwd_emu_host_rx(d, t) - rx0[t] < k && rte_rdtsc() < limit) {
				dcnfwd_control_tick(d);
				rte_delay_us_sleep(50);
			}
			/* A little longer, for strays and duplicates. */
			settle(d, 2);
			snapshot(d, after);
			got = dcnfwd_emu_host_rx(d, t) - rx0[t];
			for (i = 0; i < d->n_hosts; i++)
				if (i != t)
					stray += dcnfwd_emu_host_rx(d, i) - rx0[i];
			dcn_topo_format_vertex(d->t, d->host[s].vertex, sn, sizeof(sn));
			dcn_topo_format_vertex(d->t, d->host[t].vertex, tn, sizeof(tn));
			printf("{\"src\": \"%s\", \"dst\": \"%s\", \"sent\": %u, "
			       "\"received\": %lu, \"stray\": %lu, \"hops\": [", sn, tn,
			       k, (unsigned long)got, (unsigned long)stray);
			for (i = 0; i < d->n_nodes; i++) {
				const struct dcnfwd_node *n = &d->node[i];

				for (l = 0; l < n->n_ports; l++) {
					size_t c = (size_t)i * DCN_FWD_MAX_PORTS + l;
					const struct dcnfwd_port *p = &d->port[n->port[l]];

					if (after[c] == before[c] || p->fabric_port < 0)
						continue;
					printf("%s{\"node\": \"%s\", \"port\": %d, "
					       "\"frames\": %lu}", first ? "" : ", ",
					       n->name, p->fabric_port,
					       (unsigned long)(after[c] - before[c]));
					first = 0;
				}
			}
			printf("]}\n");
			pairs++;
			if (got != k || stray != 0)
				bad++;
		}
	}
	fflush(stdout);
	DCNFWD_LOG(NOTICE, "%u pairs traced, %u with loss or strays\n",
		pairs, bad);
	ret = bad ? 1 : 0;
out:
	free(before);
	free(after);
	free(rx0);
	return ret;
}

/* Credit links whose sender holds the whole grant again: nothing in
 * flight, no credit lost for good; of the others, how many wait for the
 * repair of frames lost on the way (repairing, may be NULL). */
static unsigned int
full_credit_links(const struct dcnfwd *d, unsigned int *links,
		  unsigned int *repairing)
{
	unsigned int i, c, full = 0, rep = 0;

	*links = 0;
	for (i = 0; i < d->n_nodes; i++) {
		struct dcn_fc_node *fn = d->node[i].fc;

		for (c = 0; fn != NULL && c < fn->n_chans; c++) {
			const struct dcn_fc_chan *ch = &fn->chan[c];

			if (!dcn_fc_kind_credited(fn->kind[fn->link_port[c / fn->n_vcs]]))
				continue;
			(*links)++;
			if (ch->peer_known &&
			    dcn_fc_credits(ch) == dcn_fc_alone(ch->peer_grant, fn->n_vcs))
				full++;
			else if (ch->probe_tsc != 0)
				rep++;
		}
	}
	if (repairing != NULL)
		*repairing = rep;
	return full;
}

/* Whether the fabric's frames cross its cables in IPv4/UDP (encap = udp
 * took effect: not in Diamond). */
static int
wrapping(const struct dcnfwd *d)
{
	unsigned int i;

	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].dp.udp != NULL)
			return 1;
	return 0;
}

/* Frames still in flow-control queues: behind credits that frames lost
 * in a switch took with them, until those are repaired. */
static uint64_t
queued_frames(const struct dcnfwd *d)
{
	uint64_t n = 0;
	unsigned int i, c;

	for (i = 0; i < d->n_nodes; i++) {
		const struct dcn_fc_node *fn = d->node[i].fc;

		for (c = 0; fn != NULL && c < fn->n_chans; c++)
			n += dcn_fc_chan_in_depth(fn, c) + dcn_fc_chan_out_depth(fn, c);
	}
	return n;
}

/* Lanes and senders: each node port's RX queues, the ports sent on by
 * several workers, and the data frames each worker sent (flow control). */
static void
print_senders(const struct dcnfwd *d)
{
	unsigned int i, w, shared = 0;

	for (i = 0; i < d->n_nodes; i++) {
		const struct dcn_fc_node *fn = d->node[i].fc;

		for (w = 0; fn != NULL && w < fn->n_ports; w++)
			shared += fn->senders[w] > 1;
	}
	printf("\"lanes\": %u, \"ports_with_several_senders\": %u, \"worker_sent\": [",
	       d->emu.lanes ? d->emu.lanes : 1, shared);
	for (w = 0; w < d->n_workers; w++) {
		uint64_t n = 0;

		for (i = 0; i < d->n_ports; i++) {
			const struct dcn_fc_port_stats *f = dcnfwd_worker_fc_port(d, w, i);

			if (f != NULL)
				n += f->tx;
		}
		printf("%s%lu", w ? ", " : "", (unsigned long)n);
	}
	/* Passes of each worker's loop (tools/bench/idle_pass.py: what a
	 * pass costs when most find nothing). */
	printf("], \"worker_loops\": [");
	for (w = 0; w < d->n_workers; w++)
		printf("%s%lu", w ? ", " : "", (unsigned long)d->worker[w].loops);
	printf("], ");
}

/* fabric_drops by where and why (the reasons that counted one or more),
 * control frames not sent, links taken down (a unplug's included), and
 * of those down for silence, the ones heard soon after */
static void
print_drops_by_reason(const struct dcnfwd *d, const struct dcnfwd_drops *dr)
{
	const char *sep = "";
	uint64_t silence_heard = 0, downs = 0;
	unsigned int r, l;

	for (r = 0; r < d->n_ports; r++) {
		silence_heard += d->port[r].silence_heard;
		downs += d->port[r].link.downs;
	}
	for (r = 0; r < d->n_nodes; r++)
		for (l = 0; d->node[r].nbr_link != NULL && l <= d->node[r].nbrs.mask; l++)
			downs += d->node[r].nbr_link[l].downs;
#define ONE(name, v) do {						\
		if ((v) != 0) {						\
			printf("%s\"%s\": %lu", sep, name, (unsigned long)(v)); \
			sep = ", ";					\
		}							\
	} while (0)
	/* fabric_drops, to the frame: the step's reasons and the
	 * ledger's FABRIC ones */
	printf("\"fabric_drops_by_reason\": {");
	for (r = 1; r < DCN_DROP_MAX; r++)
		ONE(dcn_drop_name((enum dcn_drop_reason)r), dr->by_reason[r]);
	for (r = 0; r < DCNFWD_LOSS_MAX; r++)
		if (dcnfwd_loss_class(r) == DCNFWD_LOSS_FABRIC)
			ONE(dcnfwd_loss_name(r), dr->loss[r]);
#undef ONE
	printf("}, ");
	/* the whole ledger, every reason, zeros too */
	printf("\"losses\": {");
	for (r = 0; r < DCNFWD_LOSS_MAX; r++)
		printf("%s\"%s\": %lu", r ? ", " : "", dcnfwd_loss_name(r),
		       (unsigned long)dr->loss[r]);
	printf("}, ");
	printf("\"control_unsent\": %lu, \"link_downs\": %lu, "
	       "\"silence_heard\": %lu, ",
	       (unsigned long)dcnfwd_control_unsent(d),
	       (unsigned long)downs, (unsigned long)silence_heard);
}

static int
traffic(struct dcnfwd *d, double rate, unsigned int size, const char *pattern)
{
	unsigned int n = d->n_hosts, i, j;
	uint32_t *dst = calloc(n, sizeof(uint32_t));
	unsigned int n_sinks = 0;
	const struct dcn_gen_sink **sinks;
	uint64_t start, next_stats, sent = 0, rx = 0, last_rx = UINT64_MAX;
	struct dcn_gen_report rep;
	struct dcnfwd_drops dr;
	struct dcn_fwd_stats fs;
	struct dcnfwd_live prev = { 0 };
	unsigned int pairs = 0, links = 0, full;
	struct dcnfwd_unplug u = { .port = -1, .kill_node = -1 };
	double elapsed, offered = 0;
	int ret = -1;

	for (i = 0; i < n; i++)
		n_sinks += d->host[i].n_sinks;
	sinks = calloc(n_sinks ? n_sinks : 1, sizeof(*sinks));
	if (dst == NULL || sinks == NULL || n < 2)
		goto out;
	for (i = 0; i < n; i++) {
		struct dcnfwd_host *h = &d->host[i];
		struct dcn_gen_conf gc;
		unsigned int nd = 0;

		memset(&gc, 0, sizeof(gc));
		/* all-to-one with --senders N: hosts 1..N send to host 0;
		 * otherwise the first N hosts send. */
		int one = pattern != NULL && !strcmp(pattern, "all-to-one");

		if (d->emu.senders && (one ? i == 0 || i > d->emu.senders : i >= d->emu.senders))
			continue;
		if (pattern == NULL || !strcmp(pattern, "uniform")) {
			for (j = 0; j < n; j++)
				if (j != i)
					dst[nd++] = d->host[j].addr;
			gc.pattern = DCN_GEN_UNIFORM;
		} else if (!strcmp(pattern, "permutation")) {
			dst[nd++] = d->host[(i + n / 2) % n].addr;
			gc.pattern = DCN_GEN_PERMUTATION;
		} else {
			dst[nd++] = d->host[i == 0 ? 1 : 0].addr;
			gc.pattern = DCN_GEN_PERMUTATION;
		}
		gc.src_addr = h->addr;
		gc.dst = dst;
		gc.n_dst = nd;
		gc.frame_len = (uint16_t)size;
		gc.rate_pps = rate;
		gc.src_mac = d->port[h->port].mac;
		memset(&gc.dst_mac, 0xff, sizeof(gc.dst_mac));
		gc.flow_base = 1024;
		gc.seed = i + 1;
		if (dcnfwd_emu_host_send_setup(d, i, &gc) != 0)
			goto out;
	}
	for (i = 0, j = 0; i < n; i++) {
		unsigned int q;

		for (q = 0; q < d->host[i].n_sinks; q++)
			sinks[j++] = &d->host[i].sink[q].sink;
	}
	for (i = 0; i < n; i++)
		if (d->host[i].gen_ready)
			__atomic_store_n(&d->host[i].gen_on, 1, __ATOMIC_RELEASE);
	if (dcnfwd_unplug_prepare(d, &u) != 0)
		goto out;
	start = rte_rdtsc();
	dcnfwd_unplug_start(d, &u);
	if (!d->json)
		dcnfwd_live_print(d, &prev, 0);
	next_stats = start + (uint64_t)(d->stats_interval * (double)d->tsc_hz);
	while (!dcnfwd_quitting(d)) {
		uint64_t now = rte_rdtsc();
		double el = (double)(now - start) / (double)d->tsc_hz;

		dcnfwd_control_tick(d);
		if (u.armed) {
			uint64_t s, r;

			dcnfwd_emu_hosts_totals(d, &s, &r);
			dcnfwd_unplug_step(d, &u, el, s, r);
		}
		if (d->stats_interval > 0 && now >= next_stats) {
			uint64_t s, r;

			dcnfwd_emu_hosts_totals(d, &s, &r);
			if (d->json) {
				/* progress lines: a test can watch delivery go on */
				printf("{\"t\": %.2f, \"sent\": %lu, \"received\": %lu}\n",
				       el, (unsigned long)s, (unsigned long)r);
				fflush(stdout);
			} else {
				dcnfwd_live_print(d, &prev, el);
				printf("          hosts sent %lu received %lu in flight or "
				       "lost %ld\n", (unsigned long)s, (unsigned long)r,
				       (long)(s - r));
			}
			next_stats = now + (uint64_t)(d->stats_interval *
						      (double)d->tsc_hz);
		}
		if (d->duration > 0 && el >= d->duration)
			break;
		rte_delay_us_sleep(u.armed ? 200 : 1000);
	}
	elapsed = (double)(rte_rdtsc() - start) / (double)d->tsc_hz;
	for (i = 0; i < n; i++)
		__atomic_store_n(&d->host[i].gen_on, 0, __ATOMIC_RELEASE);
	/* Let what is in flight arrive: until nothing new for 100 ms, and
	 * with flow control nothing left queued (frames behind credits that
	 * a switch's drops took wait for their repair). */
	for (j = 0; j < 40 + d->fcc.repair_ms / 50; j++) {
		settle(d, 100);
		for (rx = 0, i = 0; i < n; i++)
			rx += dcnfwd_emu_host_rx(d, i);
		if (rx == last_rx && (!d->fc_on || queued_frames(d) == 0))
			break;
		last_rx = rx;
	}
	/* Credits come home too: a state whose last repeats were all lost
	 * is sent again on the slow refresh (100 intervals); credits of
	 * frames lost on the way after the repair time, which a link still
	 * waiting for one gets. */
	for (j = 0; d->fc_on && j < 100 + 2 * d->fcc.repair_ms / 10; j++) {
		unsigned int repairing;

		if (full_credit_links(d, &links, &repairing) == links ||
		    (j >= 50 && repairing == 0))
			break;
		settle(d, 10);
	}
	for (i = 0; i < n; i++) {
		sent += dcnfwd_emu_host_sent(d, i);
		offered += d->host[i].gen_ready ? rate * elapsed : 0;
	}
	dcn_gen_sink_report(sinks, n_sinks, d->tsc_hz, &rep);
	dcnfwd_drop_totals(d, &dr);
	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &fs);
	full = full_credit_links(d, &links, NULL);
	pairs = rep.flows;
	dcnfwd_unplug_report(d, &u, sent, rep.rx, sent - rep.rx);
	if (d->json) {
		printf("{\"topology\": \"%s\", \"hosts\": %u, \"pattern\": \"%s\", "
		       "\"rate_pps_per_host\": %.0f, \"frame_bytes\": %u, "
		       "\"seconds\": %.3f, \"workers\": %u, \"flow_control\": %s, "
		       "\"encap\": \"%s\", "
		       "\"forwarded\": %lu, \"bounced\": %lu, \"parked\": %lu, "
		       "\"too_long_to_killed\": %lu, "
		       "\"sent\": %lu, \"received\": %lu, \"lost\": %ld, "
		       "\"reordered\": %lu, \"foreign\": %lu, \"pairs_delivered\": %u, "
		       "\"fabric_drops\": %lu, \"switch_drops\": %lu, "
		       "\"wire_drops\": %lu, "
		       "\"ingress_drops\": %lu, \"ingress_drops_read\": %lu, "
		       "\"queued_at_end\": %lu, "
		       "\"credit_frames\": %lu, \"credit_frames_lost\": %lu, "
		       "\"lost_repaired\": %lu, "
		       "\"links_at_full_credit\": %u, \"credit_links\": %u, "
		       "\"latency_us\": {\"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, "
		       "\"p999\": %.1f, \"max\": %.1f}, ",
		       dcn_topo_spec(d->t), n, pattern ? pattern : "uniform", rate,
		       size, elapsed, d->n_workers, d->fc_on ? "true" : "false",
		       wrapping(d) ? "udp" : "ether",
		       (unsigned long)(fs.encap + fs.transit + fs.decap),
		       (unsigned long)fs.bounced, (unsigned long)fs.parked,
		       (unsigned long)fs.too_long_gone, (unsigned long)sent,
		       (unsigned long)rep.rx, (long)(sent - rep.rx),
		       (unsigned long)rep.reordered, (unsigned long)rep.foreign, pairs,
		       (unsigned long)dr.fabric, (unsigned long)dr.loss[DCNFWD_LOSS_SWITCH],
		       (unsigned long)dr.loss[DCNFWD_LOSS_WIRE],
		       (unsigned long)dr.loss[DCNFWD_LOSS_HOST_IN],
		       (unsigned long)dr.ingress_read, (unsigned long)queued_frames(d),
		       (unsigned long)dr.credit_tx, (unsigned long)dr.credit_lost,
		       (unsigned long)dr.loss[DCNFWD_LOSS_LOST_REPAIRED], full, links,
		       rep.p50_us,
		       rep.p90_us, rep.p99_us, rep.p999_us, rep.max_us);
		print_drops_by_reason(d, &dr);
		print_senders(d);
		printf("\"received_per_host\": [");
		for (i = 0; i < n; i++)
			printf("%s%lu", i ? ", " : "", (unsigned long)dcnfwd_emu_host_rx(d, i));
		printf("]}\n");
	} else {
		printf("\n%u hosts sent %lu frames, received %lu, lost %ld, "
		       "reordered %lu; %u source-destination pairs delivered\n"
		       "latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  "
		       "max %.1f\n", n, (unsigned long)sent, (unsigned long)rep.rx,
		       (long)(sent - rep.rx), (unsigned long)rep.reordered, pairs,
		       rep.p50_us, rep.p90_us, rep.p99_us, rep.p999_us, rep.max_us);
		/* Hosts share the workers' cores: on a small machine they
		 * offer less than asked, and the figures are for that. */
		if ((double)sent < 0.9 * offered)
			printf("warning: the hosts sent %lu of the %.0f frames "
			       "--rate asks in %.1f s (%.0f %%): the cores could "
			       "not keep up; the figures are for what was sent\n",
			       (unsigned long)sent, offered, elapsed,
			       100.0 * (double)sent / offered);
		printf("drops inside the fabric %lu (%lu in L2 switches), at ingress "
		       "%lu; flow control %s", (unsigned long)dr.fabric,
		       (unsigned long)dr.loss[DCNFWD_LOSS_SWITCH],
		       (unsigned long)dr.loss[DCNFWD_LOSS_HOST_IN],
		       d->fc_on ? "on" : "off");
		if (d->fc_on)
			printf(", %lu credit frames, %u of %u links at full credit",
			       (unsigned long)dr.credit_tx, full, links);
		printf("\n");
	}
	fflush(stdout);
	ret = 0;
out:
	free(u.base);
	free(u.encap_base);
	free(dst);
	free(sinks);
	return ret;
}

int
dcnfwd_emu_run(struct dcnfwd *d)
{
	const struct dcnfwd_emu_opts *o = &d->emu;

	if (wait_ready(d) != 0)
		return 1;
	if (o->pairs)
		return pairs_check(d, o->pairs, o->size);
	return traffic(d, o->rate, o->size, o->pattern) == 0 ? 0 : 1;
}
