/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-topo: look at a fabric before cabling it. Sizes, path lengths,
 * routes, parallel paths, compiled tables and Graphviz pictures of the
 * five topologies, from the same spec strings dcnfwd uses.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcn_metrics.h"
#include "dcn_route.h"
#include "dcn_topo.h"

#define EXIT_USAGE 2

#define MAX_FAIL_OPTS 4

struct fail_opt {
	enum dcn_fail_kind kind;
	const char *arg;   /* ratio, "a:b:step" range, or a list of names */
};

struct opts {
	int json;
	uint32_t sample;
	uint64_t seed;
	int algo;
	int no_routed;
	int no_bfs;
	int all;
	uint32_t limit;
	unsigned int draws;
	unsigned int repeat;
	struct fail_opt fail[MAX_FAIL_OPTS];
	unsigned int n_fail;
	struct dcn_route_conf conf;  /* options beyond the algorithm */
};

static const char *const fail_names[] = { "links", "servers", "switches",
					  "racks" };

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: dcn-topo [options] COMMAND SPEC [ARGS]\n"
		"\n"
		"Commands:\n"
		"  info  SPEC            sizes, address plan, construction tables\n"
		"  stats SPEC            servers, switches, links, diameter, APL by BFS,\n"
		"                        routed APL and longest route, histogram\n"
		"  route SPEC SRC DST    the route hop by hop, with ports\n"
		"  paths SPEC SRC DST    RRect's k+1 parallel paths (Alg. 2)\n"
		"  table SPEC NODE       NODE's compiled table (FAR: its BRT)\n"
		"  dot   SPEC            Graphviz picture of a small fabric\n"
		"  cables SPEC           every vertex (name, role, address) and every\n"
		"                        cable with its ports, one per line\n"
		"  sweep SPEC            CSV of unreachable pairs and path lengths as a\n"
		"                        failure ratio runs over a range (--fail-X A:B:STEP)\n"
		"  cdg   SPEC            the channel dependency graph of the routing with\n"
		"                        its VC rule: acyclic (exit 0), or a cycle (exit 1)\n"
		"\n"
		"SPEC: novacube:k=8,n=2  torus:k=8,n=2  diamond:k=8  rrect:n=4,m=2,k=1\n"
		"      bcube:n=8,k=4  lascada:n=4,k=2  totoro:N=16,n=16,K=2\n"
		"      any + ,prefix=NET/LEN: the addresses in that network\n"
		"      (novacube:k=8,n=2,prefix=10.0.0.0/8; info shows the plan's)\n"
		"Nodes: a fabric address (10.1.1.2) or the paper's notation: NovaCube\n"
		"      (1,2); Diamond E1.1, C1.1; RRect 037 or 0,3,7; LaScaDa (2,3)\n"
		"      1-based; Totoro [0,1,2]; any vertex as #N.\n"
		"\n"
		"Options:\n"
		"  --json         machine-readable output with stable field names\n"
		"  --algo NAME    routing: pora, dor, far, rrect, row, tra (default: the\n"
		"                 paper's own for the topology); pora-literal is PORA\n"
		"                 without its two corrections, for comparison\n"
		"  --sample N     stats over N random source servers\n"
		"  --seed S       seed for sampling and random routing draws (default 1)\n"
		"  --draws N      walks per pair for random routing (PORA default 16)\n"
		"  --no-routed    stats: skip routed paths\n"
		"  --no-bfs       stats: skip shortest paths\n"
		"  --all          route: every hop any packet may take (each\n"
		"                 candidate, each state), not one drawn path\n"
		"  --limit N      table: print at most N destinations (default all)\n"
		"\n"
		"Failures (stats, route, table, sweep):\n"
		"  --fail-links X     X: a ratio (0.08, 8%%) drawn at random with --seed,\n"
		"  --fail-servers X   a range A:B:STEP (sweep), or a list of names\n"
		"  --fail-switches X  separated by ';' (links: NAME:PORT or NAME~NAME)\n"
		"  --fail-racks X     racks: Totoro_0, RRect base, LaScaDa cluster,\n"
		"                     Diamond edge switch, each with its servers\n"
		"  --repeat R         sweep: average R draws per ratio (default 1)\n"
		"  --max-life N       LaScaDa MaxLifeTime in hops (Alg. 4)\n"
		"  --bc-level N       Totoro broadcast-domain level (default: least allowed)\n"
		"  --ttl N            initial TTL (default 64)\n"
		"  --rrect-mode M     RRect redundancy: mirror, standby (§5)\n"
		"  --alpha N          RRect standby: working servers have a_0 < alpha n\n"
		"  --vcs N            virtual channels, at most the routing's (cdg)\n"
		"  -h, --help     this text\n"
		"  --version      the release\n");
}

static struct dcn_topo *
load_topo(const char *spec)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_topo *t = dcn_topo_create(spec, err, sizeof(err));

	if (t == NULL)
		fprintf(stderr, "dcn-topo: %s\n", err);
	return t;
}

static struct dcn_router *
load_router(const struct dcn_topo *t, const struct opts *o,
	    const struct dcn_failset *f)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_route_conf conf = o->conf;
	struct dcn_router *r;

	conf.algo = o->algo;
	conf.fail = f;
	conf.graph_only = o->no_routed;
	r = dcn_router_create_conf(t, &conf, err, sizeof(err));
	if (r == NULL)
		fprintf(stderr, "dcn-topo: %s\n", err);
	return r;
}

/* A ratio "0.08" or "8%": 0 with *ratio set; -1 when it is not one (a
 * ratio has a point or a percent sign, so "01" stays a node name). */
static int
parse_ratio(const char *s, double *ratio)
{
	char *end;
	double v;

	if (strpbrk(s, ".%") == NULL)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	/* written so that NaN fails too */
	if (*end != '\0' || !(v >= 0 && v <= 1))
		return -1;
	*ratio = v;
	return 0;
}

/*
 * Build the failure set of the options, with ratio override for the one
 * being swept (sweep_idx, or -1). @return 0 with *out (NULL when nothing
 * fails), or EXIT_USAGE.
 */
static int
build_failset(const struct dcn_topo *t, const struct opts *o, int sweep_idx,
	      double sweep_ratio, uint64_t seed, struct dcn_failset **out)
{
	struct dcn_failset *f;
	unsigned int i;

	*out = NULL;
	if (o->n_fail == 0)
		return 0;
	f = dcn_topo_failset_create(t);
	if (f == NULL) {
		fprintf(stderr, "dcn-topo: out of memory\n");
		return 1;
	}
	for (i = 0; i < o->n_fail; i++) {
		const struct fail_opt *fo = &o->fail[i];
		char err[DCN_TOPO_ERR_LEN];
		double ratio;
		int64_t ret;

		if ((int)i == sweep_idx || parse_ratio(fo->arg, &ratio) == 0) {
			if ((int)i == sweep_idx)
				ratio = sweep_ratio;
			ret = dcn_topo_failset_random(f, fo->kind, ratio,
						      seed + 1000003 * i);
			if (ret < 0) {
				fprintf(stderr, "dcn-topo: --fail-%s %s: %s has none to fail\n",
					fail_names[fo->kind], fo->arg,
					dcn_topo_spec(t));
				dcn_topo_failset_free(f);
				return EXIT_USAGE;
			}
			continue;
		}
		if (strchr(fo->arg, ':') != NULL && sweep_idx < 0 &&
		    strchr(fo->arg, '~') == NULL &&
		    strspn(fo->arg, "0123456789.:%") == strlen(fo->arg)) {
			fprintf(stderr, "dcn-topo: --fail-%s %s: a range is for sweep\n",
				fail_names[fo->kind], fo->arg);
			dcn_topo_failset_free(f);
			return EXIT_USAGE;
		}
		if (dcn_topo_failset_parse(f, fo->kind, fo->arg, err,
					   sizeof(err)) < 0) {
			fprintf(stderr, "dcn-topo: --fail-%s: %s\n",
				fail_names[fo->kind], err);
			dcn_topo_failset_free(f);
			return EXIT_USAGE;
		}
	}
	*out = f;
	return 0;
}

static int
load_vertex(const struct dcn_topo *t, const char *s, uint32_t *v)
{
	char err[DCN_TOPO_ERR_LEN];
	int64_t x = dcn_topo_parse_vertex(t, s, err, sizeof(err));

	if (x < 0) {
		fprintf(stderr, "dcn-topo: %s\n", err);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

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

static int
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
static int
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

static int
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

static int
cmd_info(const char *spec, const struct opts *o)
{
	struct dcn_topo *t = load_topo(spec);
	char a0[20], a1[20], pn[20], rn[20];
	uint32_t last, net, route;
	unsigned int net_len, route_len;
	int priv;

	if (t == NULL)
		return EXIT_USAGE;
	last = dcn_topo_servers(t) - 1;
	dcn_topo_format_addr(dcn_topo_addr(t, 0), a0, sizeof(a0));
	dcn_topo_format_addr(dcn_topo_addr(t, last), a1, sizeof(a1));
	dcn_topo_prefix(t, &net, &net_len);
	dcn_topo_covering(t, &route, &route_len);
	dcn_topo_format_addr(net, pn, sizeof(pn));
	dcn_topo_format_addr(route, rn, sizeof(rn));
	priv = dcn_topo_prefix_private(net, net_len);
	if (o->json) {
		printf("{\n  \"spec\": \"%s\",\n  \"servers\": %u,\n  \"switches\": %u,\n  \"links\": %" PRIu64 ",\n  \"max_degree\": %u,\n  \"first_address\": \"%s\",\n  \"last_address\": \"%s\",\n  \"prefix\": \"%s/%u\",\n  \"prefix_private\": %s,\n  \"route\": \"%s/%u\"",
		       dcn_topo_spec(t), dcn_topo_servers(t),
		       dcn_topo_switches(t), dcn_topo_links(t),
		       dcn_topo_max_degree(t), a0, a1, pn, net_len,
		       priv ? "true" : "false", rn, route_len);
	} else {
		printf("topology   %s\nservers    %u\nswitches   %u\nlinks      %" PRIu64 "\nmax ports  %u\naddresses  %s .. %s\nprefix     %s/%u (%s)\nroute      %s/%u (covers every address: a server's route into the fabric)\n",
		       dcn_topo_spec(t), dcn_topo_servers(t),
		       dcn_topo_switches(t), dcn_topo_links(t),
		       dcn_topo_max_degree(t), a0, a1, pn, net_len,
		       priv ? "private space" :
			      "public space: prefix= in the spec moves it",
		       rn, route_len);
	}
	if (dcn_topo_kind(t) == DCN_TOPO_LASCADA) {
		const uint32_t *l1 = dcn_topo_ls_l1(t);
		unsigned int n = dcn_topo_params(t)->n, i;
		uint32_t R = dcn_topo_ls_rows(t), d;
		int first = 1;

		printf(o->json ? ",\n  \"l1\": [" : "L1 (LCM)   ");
		for (i = 0; i < n; i++)
			printf(o->json ? "%s%u" : "%s%u", i ? (o->json ? ", " : " ") : "",
			       l1[i]);
		printf(o->json ? "],\n  \"omega\": [" : "\nOmega      ");
		for (d = 1; d < R; d++) {
			if (!dcn_topo_ls_in_omega(t, d))
				continue;
			printf("%s%u", first ? "" : (o->json ? ", " : " "), d);
			first = 0;
		}
		printf(o->json ? "]" : "\n");
	}
	if (o->json)
		printf("\n}\n");
	dcn_topo_free(t);
	return 0;
}

static void
print_hop(const struct dcn_topo *t, uint32_t from, const struct dcn_hop *h,
	  int json, int first)
{
	char a[DCN_TOPO_NAME_LEN], b[DCN_TOPO_NAME_LEN], s[DCN_TOPO_NAME_LEN];

	dcn_topo_format_vertex(t, from, a, sizeof(a));
	dcn_topo_format_vertex(t, h->next, b, sizeof(b));
	if (h->via != DCN_ROUTE_NONE)
		dcn_topo_format_vertex(t, h->via, s, sizeof(s));
	if (json) {
		printf("%s    {\"from\": \"%s\", \"port\": %u, \"via\": %s%s%s, \"to\": \"%s\"}",
		       first ? "" : ",\n", a, h->port,
		       h->via != DCN_ROUTE_NONE ? "\"" : "",
		       h->via != DCN_ROUTE_NONE ? s : "null",
		       h->via != DCN_ROUTE_NONE ? "\"" : "", b);
	} else if (h->via != DCN_ROUTE_NONE) {
		printf("  %-16s port %-3u -> switch %-14s -> %s\n", a, h->port,
		       s, b);
	} else {
		printf("  %-16s port %-3u -> %s\n", a, h->port, b);
	}
}

#define MIN_U(a, b) ((a) < (b) ? (a) : (b))

/* Every hop a packet from src to dst may take: the candidates of each
 * reachable (vertex, state), each printed once. */
struct hop_set {
	uint32_t from[4096];
	struct dcn_hop hop[4096];
	unsigned int n;
	unsigned long expansions;
	int dead_end;
};

static void
explore(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	struct dcn_route_state *st, unsigned int depth, struct hop_set *hs)
{
	struct dcn_hop hops[DCN_ROUTE_MAX_HOPS];
	unsigned int n, i, k;

	if (cur == dst)
		return;
	n = st->ttl && depth < 64 ? dcn_route_candidates(r, cur, dst, st, hops) : 0;
	if (n == 0 || ++hs->expansions > 2000000) {
		hs->dead_end = 1;
		return;
	}
	/* Only what dcn_route_pick can return: FAR's best priority, and
	 * PORA's candidates of non-zero weight. */
	if (dcn_router_pick_mode(r) == DCN_PICK_PRIORITY) {
		unsigned int best = hops[0].weight, m = 0;

		for (i = 1; i < n; i++)
			best = MIN_U(best, hops[i].weight);
		for (i = 0; i < n; i++)
			if (hops[i].weight == best)
				hops[m++] = hops[i];
		n = m;
	} else if (dcn_router_pick_mode(r) == DCN_PICK_WEIGHTED) {
		unsigned int m = 0, sum = 0;

		for (i = 0; i < n; i++)
			sum += hops[i].weight;
		for (i = 0; i < n && sum > 0; i++)
			if (hops[i].weight > 0)
				hops[m++] = hops[i];
		n = sum > 0 ? m : n;
	}
	for (i = 0; i < n; i++) {
		struct dcn_route_state next = *st;

		for (k = 0; k < hs->n; k++)
			if (hs->from[k] == cur && hs->hop[k].port == hops[i].port &&
			    hs->hop[k].next == hops[i].next)
				break;
		if (k == hs->n && hs->n < 4096) {
			hs->from[hs->n] = cur;
			hs->hop[hs->n++] = hops[i];
		}
		dcn_route_advance(r, cur, &hops[i], &next);
		explore(r, hops[i].next, dst, &next, depth + 1, hs);
	}
}

static int
route_all(const struct dcn_router *r, uint32_t src, uint32_t dst,
	  struct dcn_route_state *st, int json)
{
	const struct dcn_topo *t = dcn_router_topo(r);
	struct hop_set *hs = calloc(1, sizeof(*hs));
	unsigned int i;

	if (hs == NULL)
		return 1;
	explore(r, src, dst, st, 0, hs);
	if (json)
		printf("{\n  \"spec\": \"%s\",\n  \"algo\": \"%s\",\n  \"hops\": [\n",
		       dcn_topo_spec(t), dcn_route_algo_name(dcn_router_algo(r)));
	for (i = 0; i < hs->n; i++)
		print_hop(t, hs->from[i], &hs->hop[i], json, i == 0);
	if (json)
		printf("\n  ],\n  \"complete\": %s\n}\n",
		       hs->dead_end ? "false" : "true");
	else if (hs->dead_end)
		printf("some walks found no route\n");
	i = (unsigned int)hs->dead_end;
	free(hs);
	return i ? 1 : 0;
}

static int
cmd_route(const char *spec, const char *src_s, const char *dst_s,
	  const struct opts *o)
{
	struct dcn_hop hops[DCN_ROUTE_MAX_HOPS];
	struct dcn_topo *t = load_topo(spec);
	struct dcn_route_state st;
	struct dcn_path_len len = { 0, 0, 0 };
	struct dcn_router *r = NULL;
	struct dcn_failset *f = NULL;
	uint32_t src, dst, cur;
	uint64_t rng = o->seed ? o->seed : 1;
	unsigned int nh = 0;
	int ret = EXIT_USAGE;

	if (t == NULL)
		return EXIT_USAGE;
	if (build_failset(t, o, -1, 0, o->seed, &f) != 0)
		goto out;
	if (load_vertex(t, src_s, &src) < 0 || load_vertex(t, dst_s, &dst) < 0)
		goto out;
	if (dcn_topo_role(t, src) != DCN_ROLE_SERVER ||
	    dcn_topo_role(t, dst) != DCN_ROLE_SERVER) {
		fprintf(stderr, "dcn-topo: route takes two servers\n");
		goto out;
	}
	ret = 1;
	r = load_router(t, o, f);
	if (r == NULL)
		goto out;
	if (!dcn_route_server_up(r, src)) {
		fprintf(stderr, "dcn-topo: source %s is down\n", src_s);
		goto out;
	}
	if (dcn_route_resolve(r, dst) != dst) {
		uint32_t to = dcn_route_resolve(r, dst);
		char name[DCN_TOPO_NAME_LEN];

		if (to == DCN_ROUTE_NONE) {
			fprintf(stderr, "dcn-topo: destination %s is down\n", dst_s);
			goto out;
		}
		dcn_topo_format_vertex(t, to, name, sizeof(name));
		if (!o->json)
			printf("%s is down; %s answers for it\n", dst_s, name);
		dst = to;
	}
	dcn_route_state_init(r, src, dst, &st);
	if (o->all) {
		ret = route_all(r, src, dst, &st, o->json);
		goto out;
	}
	if (o->json)
		printf("{\n  \"spec\": \"%s\",\n  \"algo\": \"%s\",\n  \"hops\": [\n",
		       dcn_topo_spec(t), dcn_route_algo_name(dcn_router_algo(r)));
	else
		printf("route %s -> %s in %s (%s)\n", src_s, dst_s,
		       dcn_topo_spec(t), dcn_route_algo_name(dcn_router_algo(r)));
	for (cur = src; cur != dst && nh < 255; nh++) {
		unsigned int n = st.ttl ? dcn_route_candidates(r, cur, dst, &st, hops)
					: 0;
		unsigned int i;

		if (n == 0) {
			char name[DCN_TOPO_NAME_LEN];

			dcn_topo_format_vertex(t, cur, name, sizeof(name));
			fprintf(stderr, "dcn-topo: no route at hop %u (%s)\n", nh, name);
			goto out;
		}
		i = dcn_route_pick(dcn_router_pick_mode(r), hops, n,
				   (uint32_t)(dcn_rand(&rng) >> 32));
		print_hop(t, cur, &hops[i], o->json, nh == 0);
		dcn_route_advance(r, cur, &hops[i], &st);
		dcn_route_hop_len(t, &hops[i], &len);
		cur = hops[i].next;
	}
	if (o->json)
		printf("\n  ],\n  \"length\": {\"links\": %u, \"server_hops\": %u, \"switches\": %u}\n}\n",
		       len.links, len.server_hops, len.switches);
	else
		printf("length: %u links, %u server hops, %u switches\n",
		       len.links, len.server_hops, len.switches);
	ret = cur == dst ? 0 : 1;
out:
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
	return ret;
}

static int
cmd_paths(const char *spec, const char *src_s, const char *dst_s,
	  const struct opts *o)
{
	static uint32_t paths[DCN_TOPO_MAX_DIGITS][DCN_ROUTE_MAX_PATH];
	unsigned int lens[DCN_TOPO_MAX_DIGITS], np, i, j;
	struct dcn_topo *t = load_topo(spec);
	char name[DCN_TOPO_NAME_LEN];
	uint32_t src, dst;
	int ret = EXIT_USAGE;

	if (t == NULL)
		return EXIT_USAGE;
	if (dcn_topo_kind(t) != DCN_TOPO_RRECT) {
		fprintf(stderr, "dcn-topo: paths is RRect's Alg. 2; %s is not RRect\n",
			dcn_topo_spec(t));
		goto out;
	}
	if (load_vertex(t, src_s, &src) < 0 || load_vertex(t, dst_s, &dst) < 0)
		goto out;
	if (src >= dcn_topo_servers(t) || dst >= dcn_topo_servers(t) ||
	    src == dst) {
		fprintf(stderr, "dcn-topo: paths takes two different servers\n");
		goto out;
	}
	np = dcn_rrect_para_paths(t, src, dst, o->seed == 1 ? 0 : o->seed,
				  paths, lens);
	if (o->json)
		printf("{\n  \"spec\": \"%s\",\n  \"paths\": [\n", dcn_topo_spec(t));
	for (i = 0; i < np; i++) {
		printf(o->json ? "    [" : "  ");
		for (j = 0; j < lens[i]; j++) {
			dcn_topo_format_vertex(t, paths[i][j], name, sizeof(name));
			if (o->json)
				printf("%s\"%s\"", j ? ", " : "", name);
			else
				printf("%s%s", j ? " -> " : "", name);
		}
		if (o->json)
			printf("]%s\n", i + 1 < np ? "," : "");
		else
			printf("   (%u hops)\n", lens[i] - 1);
	}
	if (o->json)
		printf("  ]\n}\n");
	ret = 0;
out:
	dcn_topo_free(t);
	return ret;
}

/* Is the cable from switch sw to the BRT next hop at address nh down
 * under f? Such an entry is removed from the BRT in force (§IV-B). */
static int
far_next_hop_down(const struct dcn_topo *t, const struct dcn_failset *f,
		  uint32_t sw, uint32_t nh)
{
	struct dcn_adj adj[256];
	int64_t peer = dcn_topo_vertex_of(t, nh);
	unsigned int n, i;

	if (f == NULL || peer < 0 || dcn_topo_max_degree(t) > 256)
		return 0;
	n = dcn_topo_adj(t, sw, adj);
	for (i = 0; i < n; i++)
		if (adj[i].peer == (uint32_t)peer)
			return dcn_topo_failset_link_down(f, sw, adj[i].port,
							  adj[i].peer);
	return 0;
}

static int
cmd_table(const char *spec, const char *node_s, const struct opts *o)
{
	struct dcn_topo *t = load_topo(spec);
	struct dcn_router *r = NULL;
	struct dcn_rtable *tb = NULL;
	struct dcn_failset *f = NULL;
	uint32_t node, d, shown = 0;
	int ret = EXIT_USAGE;

	if (t == NULL)
		return EXIT_USAGE;
	if (build_failset(t, o, -1, 0, o->seed, &f) != 0)
		goto out;
	if (load_vertex(t, node_s, &node) < 0)
		goto out;
	if (!dcn_topo_is_router(t, node)) {
		fprintf(stderr, "dcn-topo: %s does not route in %s\n", node_s,
			dcn_topo_spec(t));
		goto out;
	}
	ret = 1;
	r = load_router(t, o, f);
	if (r == NULL)
		goto out;
	if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND) {
		struct dcn_far_entry brt[3 * 256], *nrt;
		unsigned int n = dcn_far_brt(t, node, brt), i, nn;
		char a[20], m[20], h[20];

		nn = dcn_far_nrt(r, node, NULL, 0);
		nrt = calloc(nn + 1, sizeof(*nrt));
		if (nrt == NULL)
			goto out;
		dcn_far_nrt(r, node, nrt, nn);

		if (o->json)
			printf("{\n  \"spec\": \"%s\",\n  \"node\": \"%s\",\n  \"brt\": [\n",
			       dcn_topo_spec(t), node_s);
		else
			printf("BRT of %s (%u entries%s)\n"
			       "Destination/Mask\t\tNext Hop\tType\n", node_s, n,
			       f != NULL ? "; those whose next hop's cable is "
			       "down are removed, §IV-B" : "");
		for (i = 0; i < n; i++) {
			int down = far_next_hop_down(t, f, node, brt[i].next_hop);

			dcn_topo_format_addr(brt[i].dest, a, sizeof(a));
			dcn_topo_format_addr(brt[i].mask, m, sizeof(m));
			dcn_topo_format_addr(brt[i].next_hop, h, sizeof(h));
			if (o->json)
				printf("    {\"dest\": \"%s\", \"mask\": \"%s\", \"next_hop\": \"%s\", \"type\": %u, \"prefix\": %u, \"removed\": %s}%s\n",
				       a, m, h, brt[i].type, brt[i].prefix,
				       down ? "true" : "false", i + 1 < n ? "," : "");
			else
				printf("%s/%s\t%s\t%u%s\n", a, m, h, brt[i].type,
				       down ? "\tremoved: cable down" : "");
		}
		if (o->json)
			printf("  ],\n  \"nrt\": [\n");
		else
			printf("NRT of %s (%u entries)\n%s", node_s, nn,
			       nn ? "Destination/Mask\t\tNext Hop\n" : "");
		for (i = 0; i < nn; i++) {
			dcn_topo_format_addr(nrt[i].dest, a, sizeof(a));
			dcn_topo_format_addr(nrt[i].mask, m, sizeof(m));
			dcn_topo_format_addr(nrt[i].next_hop, h, sizeof(h));
			if (o->json)
				printf("    {\"dest\": \"%s\", \"mask\": \"%s\", \"next_hop\": \"%s\"}%s\n",
				       a, m, h, i + 1 < nn ? "," : "");
			else
				printf("%s/%s\t%s\n", a, m, h);
		}
		if (o->json)
			printf("  ]\n}\n");
		free(nrt);
		ret = 0;
		goto out;
	}
	tb = dcn_rtable_compile(r, node);
	if (tb == NULL) {
		fprintf(stderr, "dcn-topo: cannot compile: %s\n", strerror(errno));
		goto out;
	}
	if (o->json)
		printf("{\n  \"spec\": \"%s\",\n  \"node\": \"%s\",\n  \"form\": \"%s\",\n  \"bytes\": %zu,\n  \"sets\": %u,\n  \"entries\": [\n",
		       dcn_topo_spec(t), node_s,
		       dcn_rtable_form(tb) == DCN_RTABLE_FLAT ? "flat" : "digit",
		       dcn_rtable_bytes(tb), dcn_rtable_sets(tb));
	else
		printf("table of %s: %s form, %zu bytes, %u candidate sets\n",
		       node_s,
		       dcn_rtable_form(tb) == DCN_RTABLE_FLAT ? "flat" : "digit",
		       dcn_rtable_bytes(tb), dcn_rtable_sets(tb));
	for (d = 0; d < dcn_topo_servers(t); d++) {
		struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
		const struct dcn_hop *hops;
		struct dcn_route_state st;
		char dn[DCN_TOPO_NAME_LEN], nn[DCN_TOPO_NAME_LEN], ad[20];
		unsigned int n, i;

		if (d == node)
			continue;
		if (o->limit && shown >= o->limit)
			break;
		dcn_route_state_init(r, node, d, &st);
		n = dcn_rtable_lookup(tb, dcn_topo_addr(t, d), &st, scratch,
				      &hops);
		dcn_topo_format_vertex(t, d, dn, sizeof(dn));
		dcn_topo_format_addr(dcn_topo_addr(t, d), ad, sizeof(ad));
		if (o->json)
			printf("%s    {\"dest\": \"%s\", \"addr\": \"%s\", \"hops\": [",
			       shown ? ",\n" : "", dn, ad);
		else
			printf("%-16s %-15s", dn, ad);
		for (i = 0; i < n; i++) {
			dcn_topo_format_vertex(t, hops[i].next, nn, sizeof(nn));
			if (o->json)
				printf("%s{\"port\": %u, \"next\": \"%s\", \"weight\": %u}",
				       i ? ", " : "", hops[i].port, nn,
				       hops[i].weight);
			else
				printf(" port %u->%s(w%u)", hops[i].port, nn,
				       hops[i].weight);
		}
		printf(o->json ? "]}" : "\n");
		shown++;
	}
	if (o->json)
		printf("\n  ]\n}\n");
	ret = 0;
out:
	dcn_rtable_free(tb);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
	return ret;
}

/* Every vertex and every cable with its two ports, for scripts that build
 * a fabric (tools/dcn-fabric): "vertex V NAME ROLE ROUTER ADDR" lines, then
 * "cable V PORT W PORT" lines, each cable once. */
static int
cmd_cables(const char *spec)
{
	static const char *const roles[] = { "server", "switch", "edge", "core" };
	struct dcn_topo *t = load_topo(spec);
	struct dcn_adj *adj;
	uint32_t v;

	if (t == NULL)
		return EXIT_USAGE;
	adj = malloc(dcn_topo_max_degree(t) * sizeof(*adj));
	if (adj == NULL) {
		dcn_topo_free(t);
		return 1;
	}
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		char name[DCN_TOPO_NAME_LEN], addr[DCN_TOPO_NAME_LEN] = "-";
		unsigned int role = (unsigned int)dcn_topo_role(t, v);

		dcn_topo_format_vertex(t, v, name, sizeof(name));
		if (role != DCN_ROLE_SWITCH)
			dcn_topo_format_addr(dcn_topo_addr(t, v), addr, sizeof(addr));
		printf("vertex %u %s %s %d %s\n", v, name,
		       role < 4 ? roles[role] : "?", dcn_topo_is_router(t, v), addr);
	}
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		unsigned int n = dcn_topo_adj(t, v, adj), i;

		for (i = 0; i < n; i++)
			if (adj[i].peer > v)
				printf("cable %u %u %u %u\n", v, adj[i].port,
				       adj[i].peer, adj[i].peer_port);
	}
	free(adj);
	dcn_topo_free(t);
	return 0;
}

static int
cmd_dot(const char *spec)
{
	struct dcn_topo *t = load_topo(spec);
	struct dcn_adj *adj;
	uint32_t v;

	if (t == NULL)
		return EXIT_USAGE;
	if (dcn_topo_vertices(t) > 2000) {
		fprintf(stderr, "dcn-topo: dot draws up to 2000 vertices; %s has %u\n",
			dcn_topo_spec(t), dcn_topo_vertices(t));
		dcn_topo_free(t);
		return EXIT_USAGE;
	}
	adj = malloc(dcn_topo_max_degree(t) * sizeof(*adj));
	if (adj == NULL) {
		dcn_topo_free(t);
		return 1;
	}
	printf("graph \"%s\" {\n  node [fontsize=9];\n", dcn_topo_spec(t));
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		char name[DCN_TOPO_NAME_LEN];
		int sw = dcn_topo_role(t, v) != DCN_ROLE_SERVER;

		dcn_topo_format_vertex(t, v, name, sizeof(name));
		printf("  v%u [label=\"%s\", shape=%s];\n", v, name,
		       sw ? "box" : "ellipse");
	}
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		unsigned int n = dcn_topo_adj(t, v, adj), i;

		for (i = 0; i < n; i++)
			if (adj[i].peer > v)
				printf("  v%u -- v%u;\n", v, adj[i].peer);
	}
	printf("}\n");
	free(adj);
	dcn_topo_free(t);
	return 0;
}

static int
parse_u32(const char *s, const char *what, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v > UINT32_MAX) {
		fprintf(stderr, "dcn-topo: %s needs a whole number, got '%s'\n",
			what, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "algo", required_argument, NULL, 'a' },
		{ "sample", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "draws", required_argument, NULL, 'd' },
		{ "no-routed", no_argument, NULL, 'R' },
		{ "vcs", required_argument, NULL, 'V' },
		{ "no-bfs", no_argument, NULL, 'B' },
		{ "all", no_argument, NULL, 'X' },
		{ "limit", required_argument, NULL, 'l' },
		{ "fail-links", required_argument, NULL, 1000 + DCN_FAIL_LINKS },
		{ "fail-servers", required_argument, NULL, 1000 + DCN_FAIL_SERVERS },
		{ "fail-switches", required_argument, NULL, 1000 + DCN_FAIL_SWITCHES },
		{ "fail-racks", required_argument, NULL, 1000 + DCN_FAIL_RACKS },
		{ "repeat", required_argument, NULL, 'r' },
		{ "max-life", required_argument, NULL, 'M' },
		{ "bc-level", required_argument, NULL, 'b' },
		{ "ttl", required_argument, NULL, 'T' },
		{ "rrect-mode", required_argument, NULL, 'm' },
		{ "alpha", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .seed = 1 };
	const char *cmd;
	uint32_t v;
	int c;

	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = 1;
			break;
		case 'a':
			o.algo = dcn_route_algo_parse(optarg);
			if (o.algo < 0) {
				fprintf(stderr, "dcn-topo: unknown algorithm '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			if (parse_u32(optarg, "--sample", &o.sample) < 0)
				return EXIT_USAGE;
			break;
		case 'S':
			if (parse_u32(optarg, "--seed", &v) < 0)
				return EXIT_USAGE;
			o.seed = v;
			break;
		case 'd':
			if (parse_u32(optarg, "--draws", &v) < 0)
				return EXIT_USAGE;
			o.draws = v;
			break;
		case 'R':
			o.no_routed = 1;
			break;
		case 'B':
			o.no_bfs = 1;
			break;
		case 'X':
			o.all = 1;
			break;
		case 'l':
			if (parse_u32(optarg, "--limit", &o.limit) < 0)
				return EXIT_USAGE;
			break;
		case 1000 + DCN_FAIL_LINKS:
		case 1000 + DCN_FAIL_SERVERS:
		case 1000 + DCN_FAIL_SWITCHES:
		case 1000 + DCN_FAIL_RACKS:
			if (o.n_fail == MAX_FAIL_OPTS) {
				fprintf(stderr, "dcn-topo: too many --fail options\n");
				return EXIT_USAGE;
			}
			o.fail[o.n_fail].kind = (enum dcn_fail_kind)(c - 1000);
			o.fail[o.n_fail++].arg = optarg;
			break;
		case 'r':
			if (parse_u32(optarg, "--repeat", &v) < 0)
				return EXIT_USAGE;
			o.repeat = v;
			break;
		case 'M':
			if (parse_u32(optarg, "--max-life", &v) < 0)
				return EXIT_USAGE;
			o.conf.max_life = v;
			break;
		case 'b':
			if (parse_u32(optarg, "--bc-level", &v) < 0)
				return EXIT_USAGE;
			o.conf.bc_level = v;
			break;
		case 'T':
			if (parse_u32(optarg, "--ttl", &v) < 0)
				return EXIT_USAGE;
			o.conf.ttl = v;
			break;
		case 'm':
			if (strcmp(optarg, "mirror") == 0)
				o.conf.rrect_mode = DCN_RRECT_MIRROR;
			else if (strcmp(optarg, "standby") == 0)
				o.conf.rrect_mode = DCN_RRECT_STANDBY;
			else {
				fprintf(stderr, "dcn-topo: --rrect-mode is mirror or standby\n");
				return EXIT_USAGE;
			}
			break;
		case 'A':
			if (parse_u32(optarg, "--alpha", &v) < 0)
				return EXIT_USAGE;
			o.conf.rrect_alpha = v;
			break;
		case 'V':
			if (parse_u32(optarg, "--vcs", &v) < 0 || v == 0) {
				fprintf(stderr, "dcn-topo: --vcs: at least 1\n");
				return EXIT_USAGE;
			}
			o.conf.vcs = v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'v':
			printf("dcn-topo %s\n", DCN_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 2 > argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "stats") == 0 && argc - optind == 2)
		return cmd_stats(argv[optind + 1], &o);
	if (strcmp(cmd, "sweep") == 0 && argc - optind == 2)
		return cmd_sweep(argv[optind + 1], &o);
	if (strcmp(cmd, "cdg") == 0 && argc - optind == 2)
		return cmd_cdg(argv[optind + 1], &o);
	if (strcmp(cmd, "info") == 0 && argc - optind == 2)
		return cmd_info(argv[optind + 1], &o);
	if (strcmp(cmd, "cables") == 0 && argc - optind == 2)
		return cmd_cables(argv[optind + 1]);
	if (strcmp(cmd, "dot") == 0 && argc - optind == 2)
		return cmd_dot(argv[optind + 1]);
	if (strcmp(cmd, "route") == 0 && argc - optind == 4)
		return cmd_route(argv[optind + 1], argv[optind + 2],
				 argv[optind + 3], &o);
	if (strcmp(cmd, "paths") == 0 && argc - optind == 4)
		return cmd_paths(argv[optind + 1], argv[optind + 2],
				 argv[optind + 3], &o);
	if (strcmp(cmd, "table") == 0 && argc - optind == 3)
		return cmd_table(argv[optind + 1], argv[optind + 2], &o);
	fprintf(stderr, "dcn-topo: unknown command or wrong arguments: %s\n",
		cmd);
	usage(stderr);
	return EXIT_USAGE;
}
