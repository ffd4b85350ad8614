/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unplug plan of an emulated run (emu_unplug.h).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_emu

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "emu_fabric.h"
#include "emu_hosts.h"
#include "emu_unplug.h"
#include "stats.h"


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
		    (d->host[h].gen_ready || dcnfwd_emu_host_rx(d, h)))
			return 1;
	}
	return 0;
}

int
dcnfwd_unplug_prepare(struct dcnfwd *d, struct dcnfwd_unplug *u)
{
	const char *w = d->emu.unplug;
	unsigned int i;

	memset(u, 0, sizeof(*u));
	u->port = -1;
	u->kill_node = -1;
	if (w == NULL)
		return 0;
	u->armed = 1;
	u->base = calloc(d->n_ports, sizeof(uint64_t));
	u->encap_base = calloc(d->n_nodes, sizeof(uint64_t));
	if (u->base == NULL || u->encap_base == NULL)
		return -1;
	if (!d->emu.replug_set)
		d->emu.replug_at = d->duration * 2 / 3;
	if (d->emu.unplug_at <= 0)
		d->emu.unplug_at = d->duration / 3;
	if (strcmp(w, "busiest") != 0) {
		char name[64];
		const char *colon = strrchr(w, ':');
		size_t len = colon != NULL && d->emu.unplug_mode != UNPLUG_KILL ?
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
		if (d->emu.unplug_mode == UNPLUG_KILL) {
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
	DCNFWD_LOG(CRIT, "--unplug: '%s' is not %s of this fabric\n", w,
		d->emu.unplug_mode == UNPLUG_KILL ? "a node" : "NODE:PORT of a cable");
	return -1;
}

/* Frames node ni's own hosts sent into the fabric so far. */
static uint64_t
node_encap(const struct dcnfwd *d, uint32_t ni)
{
	struct dcn_fwd_stats s;

	dcnfwd_node_totals(d, ni, &s);
	return s.encap;
}

/* Frames to or from the killed node's own hosts that did not arrive:
 * no routing can save those. */
static uint64_t
own_hosts_lost(const struct dcnfwd *d, const struct dcnfwd_unplug *u)
{
	uint64_t n = 0;
	uint32_t h;

	for (h = 0; u->kill_node >= 0 && h < d->n_hosts; h++) {
		const struct dcnfwd_port *hp = &d->port[d->host[h].port];
		const struct dcnfwd_port *np = hp->cable_peer >= 0 ?
					       &d->port[hp->cable_peer] : NULL;

		if (np != NULL && np->owner == OWNER_NODE &&
		    np->owner_idx == (uint32_t)u->kill_node)
			n += dcnfwd_emu_host_lost(d, h);
	}
	return n;
}

void
dcnfwd_unplug_start(struct dcnfwd *d, struct dcnfwd_unplug *u)
{
	unsigned int i;

	u->start_tsc = rte_rdtsc();
	for (i = 0; u->armed && i < d->n_ports; i++)
		if (cable_port(d, i))
			u->base[i] = node_port_frames(d, i);
	for (i = 0; u->armed && i < d->n_nodes; i++)
		u->encap_base[i] = node_encap(d, i);
}

static void
set_cut(struct dcnfwd *d, struct dcnfwd_unplug *u, int cut)
{
	unsigned int i;

	if (u->kill_node >= 0) {
		uint32_t gone = cut ? dcn_topo_addr(d->t, d->node[u->kill_node].vertex) : 0;
		unsigned int w, n;

		/* A dead node: every cable of it goes silent, both ways. */
		for (i = 0; i < d->n_ports; i++)
			if (cable_port(d, i) && d->port[i].owner_idx == u->kill_node)
				dcnfwd_emu_cut(d, i, cut, 0);
		/* Its frames still on their way end somewhere: counted apart
		 * where they end as loops (lib/fwd: gone_dst). */
		for (w = 0; w < d->n_workers; w++)
			for (n = 0; n < d->n_nodes; n++)
				if (d->worker[w].node[n] != NULL)
					__atomic_store_n(&d->worker[w].node[n]->fwd->gone_dst, gone,
							 __ATOMIC_RELAXED);
	} else {
		dcnfwd_emu_cut(d, (uint32_t)u->port, cut,
			       d->emu.unplug_mode == UNPLUG_CARRIER);
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
unplug_frames(const struct dcnfwd *d, const struct dcnfwd_unplug *u,
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
unplug_cut(struct dcnfwd *d, struct dcnfwd_unplug *u)
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
			if (d->emu.unplug_mode != UNPLUG_KILL && f > best) {
				best = f;
				u->port = i;
			}
		}
		for (i = 0; d->emu.unplug_mode == UNPLUG_KILL && per_node != NULL &&
			    i < d->n_nodes; i++)
			if (per_node[i] > best && !node_has_active_host(d, i)) {
				best = per_node[i];
				u->kill_node = i;
			}
		free(per_node);
		if (u->port < 0 && u->kill_node < 0) {
			DCNFWD_LOG(CRIT, "--unplug busiest: %s\n",
				d->emu.unplug_mode == UNPLUG_KILL ?
				"no node without a sending or receiving host "
				"carried traffic" : "no cable carried traffic");
			u->armed = 0;
			return;
		}
	}
	if (u->cycles == 0) {
		uint64_t over = unplug_frames(d, u, u->base);

		/* A killed node: the frames it passed on between others
		 * (its cables' less its own hosts'), which routing can save. */
		if (u->kill_node >= 0)
			over -= RTE_MIN(over, node_encap(d, (uint32_t)u->kill_node) -
						      u->encap_base[u->kill_node]);
		u->link_pps = (double)over * (double)d->tsc_hz / (double)(now - u->start_tsc);
		u->ev_from = d->n_ev;
		u->cut_tsc = rte_rdtsc();
	}
	set_cut(d, u, 1);
	u->cycles++;
}

static void
unplug_mend(struct dcnfwd *d, struct dcnfwd_unplug *u, uint64_t sent, uint64_t rx)
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
void
dcnfwd_unplug_step(struct dcnfwd *d, struct dcnfwd_unplug *u, double el,
		   uint64_t sent, uint64_t rx)
{
	if (!u->armed)
		return;
	if (u->sent_tail == 0 && el >= d->duration - 1) {
		u->sent_tail = sent;
		u->rx_tail = rx;
	}
	if (d->emu.flaps) {
		/* Cycles from unplug_at to 7 s before the end (the longest
		 * hold-down, 5 s, has run out by the last second): half cut,
		 * half mended, the last one mended. */
		double span = d->duration - 7 - d->emu.unplug_at;
		double half = span / (2.0 * d->emu.flaps);

		if (u->next_flip == 0)
			u->next_flip = d->emu.unplug_at;
		if (el < u->next_flip || (!u->cut && u->cycles >= d->emu.flaps))
			return;
		if (u->cut)
			unplug_mend(d, u, sent, rx);
		else
			unplug_cut(d, u);
		u->next_flip += half;
		return;
	}
	if (!u->cut && u->cycles == 0 && el >= d->emu.unplug_at)
		unplug_cut(d, u);
	else if (u->cut && u->cycles == 1 && u->mend_tsc == 0 &&
		 u->sent_mid == 0 && el >= d->emu.unplug_at + (d->emu.replug_at - d->emu.unplug_at) / 2) {
		/* Half-way through the cut: delivery since is "another path". */
		u->sent_mid = sent;
		u->rx_mid = rx;
	} else if (u->cut && d->emu.replug_at > d->emu.unplug_at && el >= d->emu.replug_at)
		unplug_mend(d, u, sent, rx);
}

static double
ms_since(const struct dcnfwd *d, uint64_t from, uint64_t to)
{
	return (double)(to - from) * 1e3 / (double)d->tsc_hz;
}

/* What the events say about the first cut: detection, convergence,
 * recovery, in ms from the cut (or the mend). */
void
dcnfwd_unplug_report(struct dcnfwd *d, struct dcnfwd_unplug *u, uint64_t sent,
		     uint64_t rx, uint64_t lost)
{
	double detect = -1, converge = -1, restore = -1, outage;
	uint64_t k, tables = 0, after_mend = 0, own;
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
	/* A killed node: what its own hosts sent or were sent is lost
	 * whatever the fabric does; the outage is the rest. */
	own = own_hosts_lost(d, u);
	lost -= RTE_MIN(lost, own);
	outage = u->link_pps > 0 ? (double)lost * 1e3 / u->link_pps : 0;
	if (u->kill_node >= 0)
		snprintf(what, sizeof(what), "node %s", d->node[u->kill_node].name);
	else
		snprintf(what, sizeof(what), "%s:%d", d->node[d->port[u->port].owner_idx].name,
			 d->port[u->port].fabric_port);
	if (d->json) {
		printf("{\"failover\": {\"what\": \"%s\", \"mode\": \"%s\", "
		       "\"cycles\": %u, \"link_pps_before\": %.0f, "
		       "\"lost\": %lu, \"lost_own_hosts\": %lu, "
		       "\"outage_ms\": %.3f, \"detect_ms\": %.3f, "
		       "\"converge_ms\": %.3f, \"tables_built\": %lu, "
		       "\"restore_ms\": %.3f, \"during_cut_delivered\": %.4f, "
		       "\"after_mend_delivered\": %.4f, "
		       "\"frames_over_it_after_mend\": %lu, "
		       "\"last_second_delivered\": %.4f}}\n",
		       what, d->emu.unplug_mode == UNPLUG_CARRIER ? "carrier" :
		       d->emu.unplug_mode == UNPLUG_SILENT ? "silent" : "kill",
		       u->cycles, u->link_pps, (unsigned long)lost, (unsigned long)own,
		       outage, detect, converge, (unsigned long)tables, restore,
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
		       what, d->emu.unplug_mode == UNPLUG_CARRIER ? "carrier" :
		       d->emu.unplug_mode == UNPLUG_SILENT ? "silent" : "kill",
		       u->cycles, u->cycles == 1 ? "" : "s", u->link_pps, detect,
		       converge, (unsigned long)tables, (unsigned long)lost, outage);
		if (own)
			printf("  and %lu frames to or from its own hosts\n",
			       (unsigned long)own);
		if (u->mend_tsc)
			printf("  mended: back in use after %.3f ms, %lu frames over it "
			       "since\n", restore, (unsigned long)after_mend);
	}
}

