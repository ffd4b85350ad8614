/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-topo: the figures of a fabric: stats (sizes, path lengths, the
 * routed figures), cdg (the channel dependency graph of its VC rule) and
 * sweep (unreachable pairs and lengths as failures grow).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcn_metrics.h"
#include "dcn_topo_cmd.h"

/* Set for Diamond: its routes cross no server between the ends, so a
 * server-hop count says nothing (null, "-"). */
static int no_server_hops;

static void
json_len(const char *key, const double *v, int last)
{
	char sh[32];

	if (no_server_hops)
		snprintf(sh, sizeof(sh), "null");
	else
		snprintf(sh, sizeof(sh), "%.6g", v[1]);
	printf("  \"%s\": {\"links\": %.6g, \"server_hops\": %s, \"switches\": %.6g}%s\n",
	       key, v[0], sh, v[2], last ? "" : ",");
}

/* One row of the text table: links, server hops, switches. */
static void
text_len(const char *label, const double *v, int integer)
{
	char sh[16];

	if (no_server_hops)
		snprintf(sh, sizeof(sh), "-");
	else
		snprintf(sh, sizeof(sh), integer ? "%.0f" : "%.4f", v[1]);
	if (integer)
		printf("%-22s %10.0f %12s %10.0f\n", label, v[0], sh, v[2]);
	else
		printf("%-22s %10.4f %12s %10.4f\n", label, v[0], sh, v[2]);
}

static void
text_max(const char *label, const uint32_t *v)
{
	double d[3] = { v[0], v[1], v[2] };

	text_len(label, d, 1);
}

static void
json_max(const char *key, const uint32_t *v, int last)
{
	double d[3] = { v[0], v[1], v[2] };

	json_len(key, d, last);
}

static void
json_hist(const char *key, const struct dcn_path_stats *s, int last)
{
	unsigned int i, top = 0;

	for (i = 0; i < DCN_METRICS_HIST; i++)
		if (s->hist[i] > 0)
			top = i;
	printf("  \"%s\": [", key);
	for (i = 0; i <= top; i++)
		printf("%s%.10g", i ? ", " : "", s->hist[i]);
	printf("]%s\n", last ? "" : ",");
}

static void
text_hist(const char *title, const struct dcn_path_stats *s, const char *unit)
{
	double total = 0;
	unsigned int i;

	for (i = 0; i < DCN_METRICS_HIST; i++)
		total += s->hist[i];
	if (total <= 0)
		return;
	printf("%s (%s):\n", title, unit);
	for (i = 0; i < DCN_METRICS_HIST; i++)
		if (s->hist[i] > 0)
			printf("  %3u  %12.10g  %6.2f%%\n", i, s->hist[i],
			       100.0 * s->hist[i] / total);
}

int
cmd_stats(const char *spec, const struct opts *o)
{
	struct dcn_metrics_opts mo = { o->sample, o->seed, o->draws, !o->no_bfs,
				       !o->no_routed };
	struct dcn_topo *t = load_topo(spec);
	struct dcn_failset *f = NULL;
	struct dcn_router *r = NULL;
	struct dcn_metrics m;
	const char *unit;
	int ret;

	if (t == NULL)
		return EXIT_USAGE;
	ret = build_failset(t, o, -1, 0, o->seed, &f);
	if (ret != 0)
		goto out;
	ret = 1;
	r = load_router(t, o, f);
	if (r == NULL)
		goto out;
	if (dcn_metrics_compute(r, &mo, &m) < 0) {
		fprintf(stderr, "dcn-topo: out of memory\n");
		goto out;
	}
	no_server_hops = dcn_topo_kind(t) == DCN_TOPO_DIAMOND;
	unit = dcn_metrics_unit_name(m.unit);
	if (o->json) {
		double d[3];

		printf("{\n  \"spec\": \"%s\",\n  \"algo\": \"%s\",\n",
		       dcn_topo_spec(t),
		       dcn_route_algo_name(dcn_router_algo(r)));
		printf("  \"servers\": %u,\n  \"switches\": %u,\n  \"links\": %" PRIu64 ",\n",
		       m.servers, m.switches, m.links);
		printf("  \"sources\": %u,\n  \"exact\": %s,\n  \"paper_unit\": \"%s\",\n",
		       m.sources, m.exact ? "true" : "false", unit);
		if (f != NULL) {
			uint64_t fl;
			uint32_t fs, fw;

			dcn_topo_failset_counts(f, &fl, &fs, &fw);
			printf("  \"failed\": {\"links\": %" PRIu64 ", \"servers\": %u, \"switches\": %u},\n",
			       fl, fs, fw);
		}
		printf("  \"pairs\": {\"routed\": %" PRIu64 ", \"shortest\": %" PRIu64 "},\n",
		       m.routed.pairs, m.bfs.pairs);
		if (mo.bfs) {
			json_max("diameter", m.bfs.max, 0);
			json_len("apl", m.bfs.mean, 0);
			printf("  \"apl_sd\": %.6g,\n", m.bfs.sd);
			printf("  \"apl_se\": %.6g,\n", m.bfs.se);
			json_hist("histogram", &m.bfs, 0);
			if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND) {
				json_len("apl_intra_pod", m.bfs_intra.mean, 0);
				json_len("apl_inter_pod", m.bfs_inter.mean, 0);
			}
		}
		if (mo.routed) {
			json_len("routed_apl", m.routed.mean, 0);
			json_max("routed_max", m.routed.max, 0);
			printf("  \"routed_sd\": %.6g,\n", m.routed.sd);
			printf("  \"routed_apl_se\": %.6g,\n", m.routed.se);
			json_hist("routed_histogram", &m.routed, 0);
			if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND) {
				json_len("routed_apl_intra_pod", m.routed_intra.mean, 0);
				json_len("routed_apl_inter_pod", m.routed_inter.mean, 0);
			}
		}
		d[0] = m.bfs.pairs ? (double)m.bfs.unreachable / m.bfs.pairs : 0;
		d[1] = m.routed.pairs ?
			       (double)m.routed.unreachable / m.routed.pairs : 0;
		if (mo.routed)
			printf("  \"served\": {\"address_pairs\": %" PRIu64
			       ", \"served\": %" PRIu64 ", \"share\": %.6g},\n",
			       m.address_pairs, m.served, m.address_pairs ?
			       (double)m.served / m.address_pairs : 0);
		printf("  \"unreachable\": {\"routed\": %.6g, \"shortest\": %.6g}\n}\n",
		       d[1], d[0]);
	} else {
		printf("topology   %s (routing %s)\n", dcn_topo_spec(t),
		       dcn_route_algo_name(dcn_router_algo(r)));
		printf("servers    %u\nswitches   %u\nlinks      %" PRIu64 "\n",
		       m.servers, m.switches, m.links);
		printf("sources    %u%s\n", m.sources,
		       m.exact ? " (exact)" : " (sampled)");
		printf("%-22s %10s %12s %10s\n", "", "links", "server_hops",
		       "switches");
		if (mo.bfs) {
			text_max("diameter (BFS)", m.bfs.max);
			text_len("APL (BFS)", m.bfs.mean, 0);
		}
		if (mo.routed) {
			text_max("longest route", m.routed.max);
			text_len("routed APL", m.routed.mean, 0);
		}
		if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND && mo.bfs) {
			text_len("APL intra-pod", m.bfs_intra.mean, 0);
			text_len("APL inter-pod", m.bfs_inter.mean, 0);
		}
		printf("paper unit %s\n", unit);
		if (!m.exact)
			printf("standard error of the mean (paper unit): APL %.4f, "
			       "routed APL %.4f\n", m.bfs.se, m.routed.se);
		if (mo.bfs)
			text_hist("shortest path lengths", &m.bfs, unit);
		if (mo.routed)
			text_hist("routed path lengths", &m.routed, unit);
		if (mo.routed && f != NULL)
			printf("address pairs served: %" PRIu64 " of %" PRIu64
			       " (%.4f)\n", m.served, m.address_pairs,
			       m.address_pairs ? (double)m.served / m.address_pairs : 0);
		if (f != NULL || m.routed.unreachable || m.bfs.unreachable)
			printf("unreachable pairs: routed %" PRIu64 " of %" PRIu64 " (%.4f), shortest %" PRIu64 " of %" PRIu64 " (%.4f)\n",
			       m.routed.unreachable, m.routed.pairs,
			       m.routed.pairs ? (double)m.routed.unreachable / m.routed.pairs : 0,
			       m.bfs.unreachable, m.bfs.pairs,
			       m.bfs.pairs ? (double)m.bfs.unreachable / m.bfs.pairs : 0);
	}
	ret = 0;
out:
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
	return ret;
}

/*
 * The channel dependency graph of the routing with its VC rule, with the
 * failures given (the paper's fault routing then), from every source or
 * a sample. Exit 0 when it has no cycle, 1 with a cycle printed.
 */
int
cmd_cdg(const char *spec, const struct opts *o)
{
	struct dcn_topo *t = load_topo(spec);
	struct dcn_failset *f = NULL;
	struct dcn_router *r = NULL;
	struct dcn_cdg_result res;
	unsigned int i;
	int ret;

	if (t == NULL)
		return EXIT_USAGE;
	ret = build_failset(t, o, -1, 0, o->seed, &f);
	if (ret != 0)
		goto out;
	ret = 2;
	r = load_router(t, o, f);
	if (r == NULL)
		goto out;
	/* Say so when the VCs are not what was asked, or not what the rule
	 * asks: the check then runs on fewer. */
	if (o->conf.vcs > dcn_route_rule_vcs(r))
		fprintf(stderr, "dcn-topo: --vcs %u: the VC rule of %s takes %u; "
			"checking with %u\n", o->conf.vcs,
			dcn_route_algo_name(dcn_router_algo(r)),
			dcn_route_rule_vcs(r), dcn_route_vcs(r));
	if (dcn_route_rule_wants(r) > dcn_route_rule_vcs(r))
		fprintf(stderr, "dcn-topo: the VC rule of %s asks %u VCs, the "
			"fabric header carries %u: capped, a route that needs "
			"more is dropped (too_long, counted below)\n",
			dcn_route_algo_name(dcn_router_algo(r)),
			dcn_route_rule_wants(r), dcn_route_rule_vcs(r));
	if (dcn_route_cdg(r, o->sample, o->seed, &res) < 0) {
		fprintf(stderr, "dcn-topo: out of memory\n");
		goto out;
	}
	if (o->json) {
		printf("{\"spec\": \"%s\", \"algo\": \"%s\", \"vc_rule\": \"%s\", "
		       "\"vcs\": %u, \"vcs_used\": %u, \"sources\": %u, "
		       "\"routes\": %" PRIu64 ", \"too_long\": %" PRIu64 ", "
		       "\"channels\": %u, "
		       "\"dependencies\": %" PRIu64 ", \"longest_route\": %u, "
		       "\"acyclic\": %s, \"cycle\": [", dcn_topo_spec(t),
		       dcn_route_algo_name(dcn_router_algo(r)),
		       dcn_route_vc_by_hops(r) ? "hops" : "dateline", res.vcs,
		       res.vcs_used, res.sources, res.routes, res.spent, res.channels,
		       res.deps, res.longest, res.cycle_len ? "false" : "true");
	} else {
		printf("%s (%s): VC rule %s, %u VCs (%u used); %u sources, %" PRIu64
		       " route branches, longest %u hops between routing vertices\n"
		       "%u channels, %" PRIu64 " dependencies: %s\n",
		       dcn_topo_spec(t), dcn_route_algo_name(dcn_router_algo(r)),
		       dcn_route_vc_by_hops(r) ? "by hop count" : "NovaCube's dateline",
		       res.vcs, res.vcs_used, res.sources, res.routes, res.longest,
		       res.channels, res.deps,
		       res.cycle_len ? "a cycle" : "acyclic");
		if (res.spent)
			printf("%" PRIu64 " route branches longer than the VCs allow: "
			       "dropped as too_long\n", res.spent);
	}
	for (i = 0; i < res.cycle_len && i < DCN_CDG_CYCLE_MAX; i++) {
		char a[DCN_TOPO_NAME_LEN], b[DCN_TOPO_NAME_LEN];

		dcn_topo_format_vertex(t, res.cycle[i].from, a, sizeof(a));
		dcn_topo_format_vertex(t, res.cycle[i].to, b, sizeof(b));
		if (o->json)
			printf("%s{\"from\": \"%s\", \"to\": \"%s\", \"vc\": %u}",
			       i ? ", " : "", a, b, res.cycle[i].vc);
		else
			printf("  %s -> %s on VC %u%s\n", a, b, res.cycle[i].vc,
			       i + 1 == res.cycle_len ? ", waiting for the first" : "");
	}
	if (o->json)
		printf("]}\n");
	ret = res.cycle_len ? 1 : 0;
out:
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
	return ret;
}

/* Ratios one sweep runs at most. */
#define SWEEP_MAX_RATIOS 1000u

enum sweep_col {
	SWEEP_R_UNREACH, SWEEP_S_UNREACH, SWEEP_R_APL, SWEEP_S_APL,
	SWEEP_R_MAX, SWEEP_S_MAX, SWEEP_LOST, SWEEP_DISCONNECTED, SWEEP_COLS
};

/* Standard error of the mean of n draws from their sum and sum of
 * squares; 0 for one draw (use --repeat for a spread). */
static double
sweep_se(double sum, double sq, unsigned int n)
{
	double mean = sum / n, var;

	if (n < 2)
		return 0;
	var = (sq - n * mean * mean) / (n - 1);
	return var > 0 ? sqrt(var / n) : 0;
}

int
cmd_sweep(const char *spec, const struct opts *o)
{
	struct dcn_metrics_opts mo = { o->sample, o->seed, o->draws, !o->no_bfs,
				       !o->no_routed };
	struct dcn_topo *t = load_topo(spec);
	double a, b, step, x;
	int idx = -1, ret = EXIT_USAGE;
	unsigned int i;
	char spec_field[64];

	if (t == NULL)
		return EXIT_USAGE;
	for (i = 0; i < o->n_fail; i++)
		if (sscanf(o->fail[i].arg, "%lf:%lf:%lf", &a, &b, &step) == 3) {
			idx = (int)i;
			break;
		}
	/* written so that NaN and infinities fail too */
	if (idx < 0 || !(step > 0 && step <= 1 && a >= 0 && b <= 1 && a <= b)) {
		fprintf(stderr,
			"dcn-topo: sweep needs one --fail-KIND A:B:STEP with 0 <= A <= B <= 1\n");
		goto out;
	}
	/* A step so small that the sweep would never end (each ratio is a
	 * whole fabric's routing) is a typing slip. */
	if ((b - a) / step + 1 > SWEEP_MAX_RATIOS) {
		fprintf(stderr,
			"dcn-topo: sweep --fail-%s %s: %.0f ratios, more than %u: give a larger STEP\n",
			fail_names[o->fail[idx].kind], o->fail[idx].arg, (b - a) / step + 1,
			SWEEP_MAX_RATIOS);
		goto out;
	}
	/* The spec's commas become spaces: one CSV field. */
	snprintf(spec_field, sizeof(spec_field), "%s", dcn_topo_spec(t));
	for (i = 0; spec_field[i]; i++)
		if (spec_field[i] == ',')
			spec_field[i] = ' ';
	printf("spec,algo,kind,max_life,ratio,repeat,pairs,routed_unreachable,shortest_unreachable,routed_apl,shortest_apl,routed_max,shortest_max,unit,"
	       "routed_unreachable_se,shortest_unreachable_se,routed_apl_se,shortest_apl_se,lost_servers,lost_servers_se,disconnected_pairs,disconnected_pairs_se\n");
	for (x = a; x <= b + 1e-9; x += step) {
		/* per metric over the draws: sum, and sum of squares for the
		 * standard error of the mean (the draws are independent) */
		double sum[SWEEP_COLS] = { 0 }, sq[SWEEP_COLS] = { 0 };
		uint64_t pairs = 0;
		unsigned int rep, nrep = o->repeat ? o->repeat : 1, c;
		const char *algo = "?", *unit = "?";

		for (rep = 0; rep < nrep; rep++) {
			struct dcn_failset *f = NULL;
			struct dcn_router *r;
			struct dcn_metrics m;
			struct dcn_metrics_parts parts;
			uint64_t seed = o->seed + 7919 * rep;
			double v[SWEEP_COLS];

			ret = build_failset(t, o, idx, x, seed, &f);
			if (ret != 0)
				goto out;
			ret = 1;
			r = load_router(t, o, f);
			if (r == NULL) {
				dcn_topo_failset_free(f);
				goto out;
			}
			mo.seed = seed;
			if (dcn_metrics_parts(t, f, &parts) < 0 ||
			    dcn_metrics_compute(r, &mo, &m) < 0) {
				dcn_router_free(r);
				dcn_topo_failset_free(f);
				goto out;
			}
			algo = dcn_route_algo_name(dcn_router_algo(r));
			unit = dcn_metrics_unit_name(m.unit);
			pairs += m.bfs.pairs;
			v[SWEEP_R_UNREACH] = m.routed.pairs ?
				(double)m.routed.unreachable / m.routed.pairs : 0;
			v[SWEEP_S_UNREACH] = m.bfs.pairs ?
				(double)m.bfs.unreachable / m.bfs.pairs : 0;
			v[SWEEP_R_APL] = m.routed.mean[m.unit];
			v[SWEEP_S_APL] = m.bfs.mean[m.unit];
			v[SWEEP_R_MAX] = m.routed.max[m.unit];
			v[SWEEP_S_MAX] = m.bfs.max[m.unit];
			v[SWEEP_LOST] = parts.lost_servers;
			v[SWEEP_DISCONNECTED] = parts.disconnected_pairs;
			for (c = 0; c < SWEEP_COLS; c++) {
				sum[c] += v[c];
				sq[c] += v[c] * v[c];
			}
			dcn_router_free(r);
			dcn_topo_failset_free(f);
		}
		printf("%s,%s,%s,%u,%.4f,%u,%" PRIu64 ",%.6f,%.6f,%.6f,%.6f,%.2f,%.2f,%s,"
		       "%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n",
		       spec_field, algo, fail_names[o->fail[idx].kind],
		       o->conf.max_life, x, nrep, pairs,
		       sum[SWEEP_R_UNREACH] / nrep, sum[SWEEP_S_UNREACH] / nrep,
		       sum[SWEEP_R_APL] / nrep, sum[SWEEP_S_APL] / nrep,
		       sum[SWEEP_R_MAX] / nrep, sum[SWEEP_S_MAX] / nrep, unit,
		       sweep_se(sum[SWEEP_R_UNREACH], sq[SWEEP_R_UNREACH], nrep),
		       sweep_se(sum[SWEEP_S_UNREACH], sq[SWEEP_S_UNREACH], nrep),
		       sweep_se(sum[SWEEP_R_APL], sq[SWEEP_R_APL], nrep),
		       sweep_se(sum[SWEEP_S_APL], sq[SWEEP_S_APL], nrep),
		       sum[SWEEP_LOST] / nrep,
		       sweep_se(sum[SWEEP_LOST], sq[SWEEP_LOST], nrep),
		       sum[SWEEP_DISCONNECTED] / nrep,
		       sweep_se(sum[SWEEP_DISCONNECTED], sq[SWEEP_DISCONNECTED], nrep));
		fflush(stdout);
	}
	ret = 0;
out:
	dcn_topo_free(t);
	return ret;
}
