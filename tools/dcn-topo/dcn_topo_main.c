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

#include "dcn_topo_cmd.h"

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
