/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running an emulated fabric: wait for the hellos to teach every node its
 * neighbours, then either trace every ordered pair of hosts alone (--pairs:
 * where each flow went, port by port, for comparison with dcn-topo route)
 * or let every host send stamped traffic and report delivery, loss,
 * reordering and latency.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dcnfwd.h"

static int
wait_ready(struct dcnfwd *d, uint64_t *next_hello)
{
	uint64_t start = rte_rdtsc(), limit = start + 10 * d->tsc_hz;

	while (!__atomic_load_n(&dcnfwd_quit, __ATOMIC_RELAXED)) {
		dcnfwd_control_tick(d, next_hello);
		if (dcnfwd_neighbours_ready(d)) {
			if (!d->json)
				printf("dcnfwd: every node knows its neighbours after "
				       "%.1f ms\n", (double)(rte_rdtsc() - start) *
				       1e3 / (double)d->tsc_hz);
			return 0;
		}
		if (rte_rdtsc() > limit) {
			fprintf(stderr, "dcnfwd: neighbours not all learnt in 10 s\n");
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

static uint64_t
sink_rx(const struct dcnfwd *d, uint32_t h)
{
	return __atomic_load_n(&d->host[h].sink.rx, __ATOMIC_RELAXED);
}

static void
settle(struct dcnfwd *d, uint64_t *next_hello, double ms)
{
	uint64_t until = rte_rdtsc() + (uint64_t)(ms * (double)d->tsc_hz / 1e3);

	while (rte_rdtsc() < until) {
		dcnfwd_control_tick(d, next_hello);
		rte_delay_us_sleep(100);
	}
}

static int
pairs_check(struct dcnfwd *d, unsigned int k, unsigned int size,
	    uint64_t *next_hello)
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

			if (s == t || __atomic_load_n(&dcnfwd_quit, __ATOMIC_RELAXED))
				continue;
			memset(&gc, 0, sizeof(gc));
			gc.src_addr = d->host[s].addr;
			gc.frame_len = (uint16_t)size;
			gc.src_mac = d->port[d->host[s].port].mac;
			memset(&gc.dst_mac, 0xff, sizeof(gc.dst_mac));
			snapshot(d, before);
			for (i = 0; i < d->n_hosts; i++)
				rx0[i] = sink_rx(d, i);
			if (rte_pktmbuf_alloc_bulk(d->mp, m, k) != 0)
				goto out;
			for (i = 0; i < k; i++)
				dcn_gen_write(&gc, m[i], d->host[t].addr,
					      (uint16_t)(4000 + t), i, rte_rdtsc());
			dcnfwd_inject(d, d->host[s].port, m, k);
			limit = rte_rdtsc() + d->tsc_hz;
			while (sink_rx(d, t) - rx0[t] < k && rte_rdtsc() < limit) {
				dcnfwd_control_tick(d, next_hello);
				rte_delay_us_sleep(50);
			}
			/* A little longer, for strays and duplicates. */
			settle(d, next_hello, 2);
			snapshot(d, after);
			got = sink_rx(d, t) - rx0[t];
			for (i = 0; i < d->n_hosts; i++)
				if (i != t)
					stray += sink_rx(d, i) - rx0[i];
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
	fprintf(stderr, "dcnfwd: %u pairs traced, %u with loss or strays\n",
		pairs, bad);
	ret = bad ? 1 : 0;
out:
	free(before);
	free(after);
	free(rx0);
	return ret;
}

/* Credit links whose sender holds the whole grant again: nothing in
 * flight, no credit lost for good. */
static unsigned int
full_credit_links(const struct dcnfwd *d, unsigned int *links)
{
	unsigned int i, c, full = 0;

	*links = 0;
	for (i = 0; i < d->n_nodes; i++) {
		struct dcn_fc_node *fn = d->node[i].fc;

		for (c = 0; fn != NULL && c < fn->n_chans; c++) {
			const struct dcn_fc_chan *ch = &fn->chan[c];

			if (fn->kind[c / fn->n_vcs] != DCN_FC_PORT_CREDIT)
				continue;
			(*links)++;
			if (ch->peer_known && dcn_fc_credits(ch) == ch->peer_grant)
				full++;
		}
	}
	return full;
}

/*
 * Pulling a cable while traffic runs (--unplug). The outage is the
 * frames lost over the link's rate before the cut: how long the traffic
 * that crossed it was lost for.
 */
struct unplug {
	int armed;             /* a cable is chosen or will be */
	int64_t port;          /* global port of the cable's near end; -1 */
	int64_t kill_node;     /* kill mode: the node, -1 */
	int cut;
	unsigned int cycles;   /* cuts done */
	uint64_t start_tsc, cut_tsc, mend_tsc;
	uint64_t *base;        /* out frames per node port at the start */
	double link_pps;
	uint64_t at_mend;      /* frames over it when mended */
	uint64_t sent_mid, rx_mid, sent_mend, rx_mend;
	uint64_t sent_tail, rx_tail;  /* at the start of the last second */
	uint64_t ev_from;      /* first event of this cut */
	double next_flip;      /* flaps: seconds */
};

static uint64_t
node_port_frames(const struct dcnfwd *d, uint32_t pi)
{
	const struct dcnfwd_port *p = &d->port[pi];

	return dcnfwd_node_out_frames(d, p->owner_idx, p->local);
}

/* A node port on a cable (not a host's). */
static int
cable_port(const struct dcnfwd *d, uint32_t pi)
{
	const struct dcnfwd_port *p = &d->port[pi];

	return dcnfwd_port_is_fabric(p) &&
	       p->cable_peer >= 0;
}

/* Does a host attached to node ni send or receive? */
static int
node_has_active_host(const struct dcnfwd *d, uint32_t ni)
{
	unsigned int h;

	for (h = 0; h < d->n_hosts; h++) {
		const struct dcnfwd_port *hp = &d->port[d->host[h].port];
		const struct dcnfwd_port *np = hp->cable_peer >= 0 ?
					       &d->port[hp->cable_peer] : NULL;

		if (np != NULL && np->owner == OWNER_NODE && np->owner_idx == ni &&
		    (d->host[h].gen_ready || d->host[h].sink.rx))
			return 1;
	}
	return 0;
}

static int
unplug_prepare(struct dcnfwd *d, struct unplug *u)
{
	const char *w = d->unplug;
	unsigned int i;

	memset(u, 0, sizeof(*u));
	u->port = -1;
	u->kill_node = -1;
	if (w == NULL)
		return 0;
	u->armed = 1;
	u->base = calloc(d->n_ports, sizeof(uint64_t));
	if (u->base == NULL)
		return -1;
	if (!d->replug_set)
		d->replug_at = d->duration * 2 / 3;
	if (d->unplug_at <= 0)
		d->unplug_at = d->duration / 3;
	if (strcmp(w, "busiest") != 0) {
		char name[64];
		const char *colon = strrchr(w, ':');
		size_t len = colon != NULL && d->unplug_mode != UNPLUG_KILL ?
			     (size_t)(colon - w) : strlen(w);
		int64_t v;
		uint32_t ni;

		if (len >= sizeof(name))
			goto bad;
		memcpy(name, w, len);
		name[len] = '\0';
		v = dcn_topo_parse_vertex(d->t, name, NULL, 0);
		if (v < 0 || (ni = d->node_of_vertex[v]) == UINT32_MAX)
			goto bad;
		if (d->unplug_mode == UNPLUG_KILL) {
			u->kill_node = ni;
			return 0;
		}
		for (i = 0; i < d->n_ports; i++)
			if (cable_port(d, i) && d->port[i].owner_idx == ni &&
			    d->port[i].fabric_port == atoi(colon + 1))
				u->port = i;
		if (u->port < 0)
			goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "dcnfwd: --unplug: '%s' is not %s of this fabric\n", w,
		d->unplug_mode == UNPLUG_KILL ? "a node" : "NODE:PORT of a cable");
	return -1;
}

static void
unplug_start(struct dcnfwd *d, struct unplug *u)
{
	unsigned int i;

	u->start_tsc = rte_rdtsc();
	for (i = 0; u->armed && i < d->n_ports; i++)
		if (cable_port(d, i))
			u->base[i] = node_port_frames(d, i);
}

static void
set_cut(struct dcnfwd *d, struct unplug *u, int cut)
{
	unsigned int i;

	if (u->kill_node >= 0) {
		/* A dead node: every cable of it goes silent, both ways. */
		for (i = 0; i < d->n_ports; i++)
			if (cable_port(d, i) && d->port[i].owner_idx == u->kill_node)
				dcnfwd_emu_cut(d, i, cut, 0);
	} else {
		dcnfwd_emu_cut(d, (uint32_t)u->port, cut,
			       d->unplug_mode == UNPLUG_CARRIER);
	}
	u->cut = cut;
}

/* Frames out of port pi, since base (NULL: since the start). */
static uint64_t
frames_since(const struct dcnfwd *d, uint32_t pi, const uint64_t *base)
{
	return node_port_frames(d, pi) - (base != NULL ? base[pi] : 0);
}

/* Frames over what was pulled: both directions of the cable, or every
 * cable of the killed node. */
static uint64_t
unplug_frames(const struct dcnfwd *d, const struct unplug *u,
	      const uint64_t *base)
{
	unsigned int i;
	uint64_t s = 0;

	if (u->kill_node < 0) {
		const struct dcnfwd_port *p = &d->port[u->port];

		return frames_since(d, (uint32_t)u->port, base) +
		       (cable_port(d, (uint32_t)p->cable_peer) ?
				frames_since(d, (uint32_t)p->cable_peer, base) : 0);
	}
	for (i = 0; i < d->n_ports; i++)
		if (cable_port(d, i) && d->port[i].owner_idx == u->kill_node)
			s += frames_since(d, i, base);
	return s;
}

/* Choose what to pull (the busiest cable or transit node since the
 * start), and pull it. */
static void
unplug_cut(struct dcnfwd *d, struct unplug *u)
{
	uint64_t best = 0, now = rte_rdtsc();
	unsigned int i;

	if (u->port < 0 && u->kill_node < 0) {
		uint64_t *per_node = calloc(d->n_nodes, sizeof(uint64_t));

		for (i = 0; i < d->n_ports; i++) {
			uint64_t f;

			if (!cable_port(d, i))
				continue;
			f = frames_since(d, i, u->base);
			if (per_node != NULL)
				per_node[d->port[i].owner_idx] += f;
			if (d->unplug_mode != UNPLUG_KILL && f > best) {
				best = f;
				u->port = i;
			}
		}
		for (i = 0; d->unplug_mode == UNPLUG_KILL && per_node != NULL &&
			    i < d->n_nodes; i++)
			if (per_node[i] > best && !node_has_active_host(d, i)) {
				best = per_node[i];
				u->kill_node = i;
			}
		free(per_node);
		if (u->port < 0 && u->kill_node < 0) {
			fprintf(stderr, "dcnfwd: --unplug busiest: %s\n",
				d->unplug_mode == UNPLUG_KILL ?
				"no node without a sending or receiving host "
				"carried traffic" : "no cable carried traffic");
			u->armed = 0;
			return;
		}
	}
	if (u->cycles == 0) {
		u->link_pps = (double)unplug_frames(d, u, u->base) *
			      (double)d->tsc_hz / (double)(now - u->start_tsc);
		u->ev_from = d->n_ev;
		u->cut_tsc = rte_rdtsc();
	}
	set_cut(d, u, 1);
	u->cycles++;
}

static void
unplug_mend(struct dcnfwd *d, struct unplug *u, uint64_t sent, uint64_t rx)
{
	set_cut(d, u, 0);
	if (u->cycles == 1) {
		u->mend_tsc = rte_rdtsc();
		u->at_mend = unplug_frames(d, u, NULL);
		u->sent_mend = sent;
		u->rx_mend = rx;
	}
}

/* Advance the plan at elapsed time el. */
static void
unplug_step(struct dcnfwd *d, struct unplug *u, double el, uint64_t sent,
	    uint64_t rx)
{
	if (!u->armed)
		return;
	if (u->sent_tail == 0 && el >= d->duration - 1) {
		u->sent_tail = sent;
		u->rx_tail = rx;
	}
	if (d->flaps) {
		/* Cycles from unplug_at to 7 s before the end (the longest
		 * hold-down, 5 s, has run out by the last second): half cut,
		 * half mended, the last one mended. */
		double span = d->duration - 7 - d->unplug_at;
		double half = span / (2.0 * d->flaps);

		if (u->next_flip == 0)
			u->next_flip = d->unplug_at;
		if (el < u->next_flip || (!u->cut && u->cycles >= d->flaps))
			return;
		if (u->cut)
			unplug_mend(d, u, sent, rx);
		else
			unplug_cut(d, u);
		u->next_flip += half;
		return;
	}
	if (!u->cut && u->cycles == 0 && el >= d->unplug_at)
		unplug_cut(d, u);
	else if (u->cut && u->cycles == 1 && u->mend_tsc == 0 &&
		 u->sent_mid == 0 && el >= d->unplug_at + (d->replug_at - d->unplug_at) / 2) {
		/* Half-way through the cut: delivery since is "another path". */
		u->sent_mid = sent;
		u->rx_mid = rx;
	} else if (u->cut && d->replug_at > d->unplug_at && el >= d->replug_at)
		unplug_mend(d, u, sent, rx);
}

static double
ms_since(const struct dcnfwd *d, uint64_t from, uint64_t to)
{
	return (double)(to - from) * 1e3 / (double)d->tsc_hz;
}

/* What the events say about the first cut: detection, convergence,
 * recovery, in ms from the cut (or the mend). */
static void
unplug_report(struct dcnfwd *d, struct unplug *u, uint64_t sent, uint64_t rx,
	      uint64_t lost)
{
	double detect = -1, converge = -1, restore = -1, outage;
	uint64_t k, tables = 0, after_mend = 0;
	char what[96];

	if (!u->armed || u->cycles == 0)
		return;
	for (k = u->ev_from; k < d->n_ev && k < u->ev_from + DCNFWD_EVENTS; k++) {
		const struct dcnfwd_event *e = &d->ev[k % DCNFWD_EVENTS];
		int down = e->kind == EV_LINK_DOWN || e->kind == EV_NBR_DOWN;
		int up = e->kind == EV_LINK_UP || e->kind == EV_NBR_UP;

		if (e->tsc < u->cut_tsc && u->cycles == 1)
			continue;
		if (down && detect < 0 && (u->mend_tsc == 0 || e->tsc < u->mend_tsc))
			detect = ms_since(d, u->cut_tsc, e->tsc);
		if (e->kind == EV_TABLE && (u->mend_tsc == 0 || e->tsc < u->mend_tsc)) {
			converge = ms_since(d, u->cut_tsc, e->tsc);
			tables++;
		}
		if (up && u->mend_tsc && e->tsc >= u->mend_tsc && restore < 0)
			restore = ms_since(d, u->mend_tsc, e->tsc);
	}
	if (u->mend_tsc)
		after_mend = unplug_frames(d, u, NULL) - u->at_mend;
	outage = u->link_pps > 0 ? (double)lost * 1e3 / u->link_pps : 0;
	if (u->kill_node >= 0)
		snprintf(what, sizeof(what), "node %s", d->node[u->kill_node].name);
	else
		snprintf(what, sizeof(what), "%s:%d", d->node[d->port[u->port].owner_idx].name,
			 d->port[u->port].fabric_port);
	if (d->json) {
		printf("{\"failover\": {\"what\": \"%s\", \"mode\": \"%s\", "
		       "\"cycles\": %u, \"link_pps_before\": %.0f, "
		       "\"lost\": %lu, \"outage_ms\": %.3f, \"detect_ms\": %.3f, "
		       "\"converge_ms\": %.3f, \"tables_built\": %lu, "
		       "\"restore_ms\": %.3f, \"during_cut_delivered\": %.4f, "
		       "\"after_mend_delivered\": %.4f, "
		       "\"frames_over_it_after_mend\": %lu, "
		       "\"last_second_delivered\": %.4f}}\n",
		       what, d->unplug_mode == UNPLUG_CARRIER ? "carrier" :
		       d->unplug_mode == UNPLUG_SILENT ? "silent" : "kill",
		       u->cycles, u->link_pps, (unsigned long)lost, outage, detect,
		       converge, (unsigned long)tables, restore,
		       u->sent_mid && u->sent_mend > u->sent_mid ?
			       (double)(u->rx_mend - u->rx_mid) /
				       (double)(u->sent_mend - u->sent_mid) : -1.0,
		       u->mend_tsc && sent > u->sent_mend ?
			       (double)(rx - u->rx_mend) / (double)(sent - u->sent_mend) :
			       -1.0,
		       (unsigned long)after_mend,
		       u->sent_tail && sent > u->sent_tail ?
			       (double)(rx - u->rx_tail) / (double)(sent - u->sent_tail) :
			       -1.0);
	} else {
		printf("\nfailover: %s pulled (%s), %u time%s; it carried %.0f frames/s\n"
		       "  detected after %.3f ms, tables converged after %.3f ms "
		       "(%lu built)\n  lost %lu frames: outage %.3f ms\n",
		       what, d->unplug_mode == UNPLUG_CARRIER ? "carrier" :
		       d->unplug_mode == UNPLUG_SILENT ? "silent" : "kill",
		       u->cycles, u->cycles == 1 ? "" : "s", u->link_pps, detect,
		       converge, (unsigned long)tables, (unsigned long)lost, outage);
		if (u->mend_tsc)
			printf("  mended: back in use after %.3f ms, %lu frames over it "
			       "since\n", restore, (unsigned long)after_mend);
	}
}

static int
traffic(struct dcnfwd *d, double rate, unsigned int size, const char *pattern,
	uint64_t *next_hello)
{
	unsigned int n = d->n_hosts, i, j;
	uint32_t *dst = calloc(n, sizeof(uint32_t));
	const struct dcn_gen_sink **sinks = calloc(n, sizeof(*sinks));
	uint64_t start, next_stats, sent = 0, rx = 0, last_rx = UINT64_MAX;
	struct dcn_gen_report rep;
	struct dcnfwd_drops dr;
	struct dcn_fwd_stats fs;
	struct live prev = { 0 };
	unsigned int pairs = 0, links = 0, full;
	struct unplug u = { .port = -1, .kill_node = -1 };
	double elapsed;
	int ret = -1;

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

		if (d->senders && (one ? i == 0 || i > d->senders : i >= d->senders))
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
		if (dcn_gen_init(&h->gen, &gc, d->tsc_hz) != 0)
			goto out;
		h->gen_ready = 1;
	}
	for (i = 0; i < n; i++)
		sinks[i] = &d->host[i].sink;
	for (i = 0; i < n; i++)
		if (d->host[i].gen_ready)
			__atomic_store_n(&d->host[i].gen_on, 1, __ATOMIC_RELEASE);
	if (unplug_prepare(d, &u) != 0)
		goto out;
	start = rte_rdtsc();
	unplug_start(d, &u);
	if (!d->json)
		dcnfwd_live_print(d, &prev, 0);
	next_stats = start + (uint64_t)(d->stats_interval * (double)d->tsc_hz);
	while (!__atomic_load_n(&dcnfwd_quit, __ATOMIC_RELAXED)) {
		uint64_t now = rte_rdtsc();
		double el = (double)(now - start) / (double)d->tsc_hz;

		dcnfwd_control_tick(d, next_hello);
		if (u.armed) {
			uint64_t s = 0, r = 0;

			for (i = 0; i < n; i++) {
				s += d->host[i].gen.sent;
				r += sink_rx(d, i);
			}
			unplug_step(d, &u, el, s, r);
		}
		if (d->stats_interval > 0 && now >= next_stats) {
			uint64_t s = 0, r = 0;

			for (i = 0; i < n; i++) {
				s += d->host[i].gen.sent;
				r += sink_rx(d, i);
			}
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
	/* Let what is in flight arrive: until nothing new for 100 ms. */
	for (j = 0; j < 40; j++) {
		settle(d, next_hello, 100);
		for (rx = 0, i = 0; i < n; i++)
			rx += sink_rx(d, i);
		if (rx == last_rx)
			break;
		last_rx = rx;
	}
	/* Credits come home too: a state whose last repeats were all lost
	 * is sent again on the slow refresh (100 intervals). */
	for (j = 0; d->fc_on && j < 50; j++) {
		if (full_credit_links(d, &links) == links)
			break;
		settle(d, next_hello, 10);
	}
	for (i = 0; i < n; i++)
		sent += d->host[i].gen.sent;
	dcn_gen_sink_report(sinks, n, d->tsc_hz, &rep);
	dcnfwd_drop_totals(d, &dr);
	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &fs);
	full = full_credit_links(d, &links);
	pairs = rep.flows;
	unplug_report(d, &u, sent, rep.rx, sent - rep.rx);
	if (d->json) {
		printf("{\"topology\": \"%s\", \"hosts\": %u, \"pattern\": \"%s\", "
		       "\"rate_pps_per_host\": %.0f, \"frame_bytes\": %u, "
		       "\"seconds\": %.3f, \"workers\": %u, \"flow_control\": %s, "
		       "\"forwarded\": %lu, "
		       "\"sent\": %lu, \"received\": %lu, \"lost\": %ld, "
		       "\"reordered\": %lu, \"foreign\": %lu, \"pairs_delivered\": %u, "
		       "\"fabric_drops\": %lu, \"ingress_drops\": %lu, "
		       "\"credit_frames\": %lu, \"credit_frames_lost\": %lu, "
		       "\"links_at_full_credit\": %u, \"credit_links\": %u, "
		       "\"latency_us\": {\"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, "
		       "\"p999\": %.1f, \"max\": %.1f}, \"received_per_host\": [",
		       dcn_topo_spec(d->t), n, pattern ? pattern : "uniform", rate,
		       size, elapsed, d->n_workers, d->fc_on ? "true" : "false",
		       (unsigned long)(fs.encap + fs.transit + fs.decap), (unsigned long)sent,
		       (unsigned long)rep.rx, (long)(sent - rep.rx),
		       (unsigned long)rep.reordered, (unsigned long)rep.foreign, pairs,
		       (unsigned long)dr.fabric, (unsigned long)dr.ingress,
		       (unsigned long)dr.credit_tx, (unsigned long)dr.credit_lost,
		       full, links, rep.p50_us, rep.p90_us,
		       rep.p99_us, rep.p999_us, rep.max_us);
		for (i = 0; i < n; i++)
			printf("%s%lu", i ? ", " : "", (unsigned long)sink_rx(d, i));
		printf("]}\n");
	} else {
		printf("\n%u hosts sent %lu frames, received %lu, lost %ld, "
		       "reordered %lu; %u source-destination pairs delivered\n"
		       "latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  "
		       "max %.1f\n", n, (unsigned long)sent, (unsigned long)rep.rx,
		       (long)(sent - rep.rx), (unsigned long)rep.reordered, pairs,
		       rep.p50_us, rep.p90_us, rep.p99_us, rep.p999_us, rep.max_us);
		printf("drops inside the fabric %lu, at ingress %lu; flow control %s",
		       (unsigned long)dr.fabric, (unsigned long)dr.ingress,
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
	free(dst);
	free(sinks);
	return ret;
}

int
dcnfwd_emulate_run(struct dcnfwd *d, unsigned int pairs, double rate,
		   unsigned int size, const char *pattern)
{
	uint64_t next_hello = 0;

	if (wait_ready(d, &next_hello) != 0)
		return 1;
	if (pairs)
		return pairs_check(d, pairs, size, &next_hello);
	return traffic(d, rate, size, pattern, &next_hello) == 0 ? 0 : 1;
}
