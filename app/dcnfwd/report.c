/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What dcnfwd prints while it runs and when it stops.
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "report.h"
#include "stats.h"
#include "xdp.h"

/* Live figures: one line per interval. */

void
dcnfwd_live_sample(const struct dcnfwd *d, struct dcnfwd_live *l)
{
	struct dcn_fwd_stats s;
	unsigned int i, r;

	memset(l, 0, sizeof(*l));
	l->tsc = rte_rdtsc();
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port_stats ps;

		if (d->port[i].owner != OWNER_NODE)
			continue;
		dcnfwd_port_totals(d, i, &ps);
		l->rx += ps.rx;
		l->tx += ps.tx;
		l->drops += ps.tx_drop + ps.in_drop;
	}
	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &s);
	l->encap = s.encap;
	l->decap = s.decap;
	l->transit = s.transit;
	for (r = 1; r < DCN_DROP_MAX; r++)
		l->drops += s.drop[r];
}

void
dcnfwd_live_print(const struct dcnfwd *d, struct dcnfwd_live *prev,
		  double elapsed)
{
	struct dcnfwd_live now;
	double dt;

	dcnfwd_live_sample(d, &now);
	dt = (double)(now.tsc - prev->tsc) / (double)d->tsc_hz;
	if (dt <= 0)
		return;
	printf("%7.1fs  rx %8.3f Mpps  tx %8.3f Mpps  encap %9lu  transit %9lu  "
	       "decap %9lu  drops %lu\n", elapsed,
	       (double)(now.rx - prev->rx) / dt / 1e6,
	       (double)(now.tx - prev->tx) / dt / 1e6, (unsigned long)now.encap,
	       (unsigned long)now.transit, (unsigned long)now.decap,
	       (unsigned long)now.drops);
	fflush(stdout);
	*prev = now;
}

/* Flow control: the data frames worker w sent on each port (a port's
 * owner, or another sender of it: lib/fc/README.md); an emulated
 * fabric's many ports in a sum. */
static void
report_worker_sends(const struct dcnfwd *d, unsigned int w)
{
	const char *sep = ":";
	uint64_t total = 0;
	unsigned int i, ports = 0;

	printf("  worker %u sent", w);
	for (i = 0; i < d->n_ports; i++) {
		const struct dcn_fc_port_stats *f = dcnfwd_worker_fc_port(d, w, i);

		if (f == NULL || f->tx == 0)
			continue;
		total += f->tx;
		ports++;
		if (d->emulate == NULL)
			printf("%s %s %lu", sep, d->port[i].name, (unsigned long)f->tx);
		sep = ",";
	}
	if (d->emulate != NULL)
		printf(" %lu on %u ports\n", (unsigned long)total, ports);
	else
		printf("%s\n", *sep == ':' ? " nothing" : "");
}

void
dcnfwd_final_report(const struct dcnfwd *d)
{
	unsigned int i, r, w;
	struct dcn_fwd_stats all;
	struct dcnfwd_drops dr;
	struct dcnfwd_loop_totals lt;

	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &all);
	if (d->json)
		return;
	printf("\nfinal counters\n");
	if (d->n_nodes == 1) {
		printf("  %-16s %12s %12s %10s %10s\n", "port", "rx", "tx", "tx_drop",
		       "in_drop");
		for (i = 0; i < d->n_ports; i++) {
			struct dcnfwd_port_stats ps;

			dcnfwd_port_totals(d, i, &ps);
			printf("  %-16s %12lu %12lu %10lu %10lu\n", d->port[i].name,
			       (unsigned long)ps.rx, (unsigned long)ps.tx,
			       (unsigned long)ps.tx_drop, (unsigned long)ps.in_drop);
			if (ps.down_drop)
				printf("  %s: %lu queued frames dropped while its link "
				       "was down\n", d->port[i].name,
				       (unsigned long)ps.down_drop);
			if (ps.nbr_drop)
				printf("  %s: %lu data frames from or to no neighbour "
				       "behind its switch\n", d->port[i].name,
				       (unsigned long)ps.nbr_drop);
			if (d->port[i].rx_missed)
				printf("  %s: %lu frames missed on receive (its "
				       "ring full)\n", d->port[i].name,
				       (unsigned long)d->port[i].rx_missed);
			if (d->port[i].kernel_tx_dropped)
				printf("  %s: %lu frames dropped by the kernel after "
				       "they were sent (its cable down)\n",
				       d->port[i].name,
				       (unsigned long)d->port[i].kernel_tx_dropped);
		}
		dcnfwd_xdp_print(d, stdout);
	}
	/* encap = udp: frames refused as they came in (never counted in rx) */
	for (i = 0; i < d->n_ports; i++) {
		const struct dcn_port_udp *u = d->port[i].dp.udp;
		unsigned int k, any = 0;

		for (k = 0; u != NULL && k < DCN_UDP_REFUSE_MAX; k++) {
			uint64_t v = dcn_port_udp_refused(u, (enum dcn_udp_refusal)k);

			if (v == 0)
				continue;
			if (any++ == 0)
				printf("  port %s refused as they came in (encap = "
				       "udp):", d->port[i].name);
			printf("%s %s %lu", any > 1 ? "," : "",
			       dcn_udp_refusal_name((enum dcn_udp_refusal)k),
			       (unsigned long)v);
		}
		if (any)
			printf("\n");
	}
	printf("  frames in %lu: encapsulated %lu, transit %lu, decapsulated %lu, "
	       "control %lu\n", (unsigned long)all.rx, (unsigned long)all.encap,
	       (unsigned long)all.transit, (unsigned long)all.decap,
	       (unsigned long)all.control);
	if (all.bounced)
		printf("  sent back where they came from %lu, held while tables "
		       "disagreed %lu\n", (unsigned long)all.bounced,
		       (unsigned long)all.parked);
	dcnfwd_loop_totals(d, &lt);
	/* What a frame costs a worker: cycles of the loops that had work
	 * (memif or NIC calls included, idle polling not). */
	printf("  worker loops %lu, %lu with work: %.1f frames in and %.0f TSC "
	       "cycles per frame in those\n", (unsigned long)lt.loops,
	       (unsigned long)lt.busy_loops,
	       lt.busy_loops ? (double)all.rx / (double)lt.busy_loops : 0.0,
	       all.rx ? (double)lt.busy_tsc / (double)all.rx : 0.0);
	/* Several workers: what each forwarded (its share of the RX
	 * queues, routed to completion). */
	for (w = 0; d->n_workers > 1 && w < d->n_workers; w++) {
		uint64_t enc = 0, tr = 0, dec = 0;
		unsigned int ni;

		for (ni = 0; ni < d->n_nodes; ni++) {
			const struct dcnfwd_wnode *wn = d->worker[w].node[ni];

			if (wn == NULL)
				continue;
			enc += wn->fwd->st.encap;
			tr += wn->fwd->st.transit;
			dec += wn->fwd->st.decap;
		}
		printf("  worker %u forwarded %lu: encapsulated %lu, transit %lu, "
		       "decapsulated %lu\n", w, (unsigned long)(enc + tr + dec),
		       (unsigned long)enc, (unsigned long)tr, (unsigned long)dec);
		if (d->fc_on)
			report_worker_sends(d, w);
	}
	for (r = 1; r < DCN_DROP_MAX; r++)
		if (all.drop[r])
			printf("  dropped %-18s %lu  (%s)\n", dcn_drop_name(r),
			       (unsigned long)all.drop[r], dcn_drop_desc(r));
	dcnfwd_drop_totals(d, &dr);
	if (d->fc_on)
		printf("  flow control: credit frames sent %lu (lost %lu), refused "
		       "%lu (fewer VCs or an unknown sender: credit_few_vcs, "
		       "credit_unknown in /dcn/fc), sends stalled for credits %lu; "
		       "of the frames lost with a neighbour that was killed, "
		       "being sent at the kill: %lu arrived after all, %lu in doubt\n",
		       (unsigned long)dr.credit_tx, (unsigned long)dr.credit_lost,
		       (unsigned long)dr.credit_refused, (unsigned long)dr.stalls,
		       (unsigned long)dr.restart_doubt_left,
		       (unsigned long)dr.restart_in_doubt);
	/* The ledger, every reason (stats.h, DCNFWD_LOSSES). */
	printf("  losses beside the step's drops (inside the fabric %lu in all):",
	       (unsigned long)dr.fabric);
	for (r = 0; r < DCNFWD_LOSS_MAX; r++)
		printf("%s %s %lu", r ? "," : "", dcnfwd_loss_name(r),
		       (unsigned long)dr.loss[r]);
	printf("\n");
}

