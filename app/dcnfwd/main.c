/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd: one node of a data-center fabric on DPDK ports, or (--emulate)
 * every node of a small fabric in one process, fed by built-in hosts.
 *
 *   dcnfwd [EAL options] -- --config FILE [overrides]
 *   dcnfwd [EAL options] -- --emulate SPEC [traffic options]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include <rte_memzone.h>

#include "dcnfwd.h"

volatile int dcnfwd_quit;
struct dcnfwd dcnfwd_g;
int dcnfwd_logtype;

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: dcnfwd [EAL options] -- --config FILE [options]\n"
		"       dcnfwd [EAL options] -- --emulate SPEC [options]\n"
		"       dcnfwd --check-config FILE\n"
		"\n"
		"A node of a NovaCube, Diamond, RRect, LaScaDa or Totoro fabric on\n"
		"DPDK ports: frames from host ports are carried in the fabric header to\n"
		"the node of their destination address, by the topology's routing.\n"
		"\n"
		"  --config FILE       the node, its ports and workers (see conf/)\n"
		"  --check-config FILE load and check FILE, print a summary, exit\n"
		"                      (no EAL needed)\n"
		"  --emulate SPEC      every node of SPEC in this process: cables are\n"
		"                      rings, L2 switches and hosts are emulated, and\n"
		"                      each host sends stamped traffic (see dcn-gen)\n"
		"\n"
		"Overrides and run control:\n"
		"  --algo NAME         routing algorithm (dcn-topo --algo)\n"
		"  --draw flow|packet  next hop by flow hash (default) or per packet\n"
		"  --burst N           rx/tx burst, 1..64 (default from config, or 64)\n"
		"  --no-backoff        idle workers spin (benchmarks)\n"
		"  --route-cache N     routing decisions cached per worker and node,\n"
		"                      a power of two (0: route every frame from the\n"
		"                      table; default from config, or 1024; --emulate:\n"
		"                      256)\n"
		"  --hello-ms N        hello interval (default 3)\n"
		"  --hello-miss N      intervals of silence before a neighbour is\n"
		"                      down (default 3)\n"
		"  --holddown-ms N     a link that comes back waits this long (doubled\n"
		"                      while it flaps; default 100)\n"
		"  --stats SEC         print live figures every SEC seconds (0: off;\n"
		"                      default 1)\n"
		"  --duration SEC      stop after SEC seconds (default: until Ctrl-C;\n"
		"                      --emulate: 10)\n"
		"  --json              final report as JSON\n"
		"  --xdp-prog PATH|none  XDP program for net_af_xdp ports whose\n"
		"                      devargs name none (default: dcnfwd's own, which\n"
		"                      leaves all but fabric frames to the kernel;\n"
		"                      none: the PMD's, which takes everything)\n"
		"\n"
		"Flow control (NovaCube §6; [flow_control] in the config):\n"
		"  --flow-control on|off  credits and input/output queues (default on)\n"
		"  --vcs 1|2           virtual channels per link (default 2)\n"
		"  --in-queue N        input queue slots per (port, VC) (default 256)\n"
		"  --out-queue N       output queue slots per (port, VC) (default 512)\n"
		"  --reserve PCT       input slots kept back for credits in flight (20)\n"
		"  --credit-drop PCT   throw away PCT%% of credit frames (testing)\n"
		"\n"
		"Emulation traffic (--emulate):\n"
		"  --rate PPS          frames per second each host sends (default 1000)\n"
		"  --size BYTES        frame size without FCS, 60..1514 (default 60)\n"
		"  --pattern P         uniform (default), permutation, all-to-one\n"
		"  --senders N         only N hosts send (all-to-one: hosts 1..N send\n"
		"                      to host 0)\n"
		"  --link-rate PPS     every emulated cable carries at most PPS frames/s\n"
		"                      (default: as fast as the rings go)\n"
		"  --unplug WHAT       pull a cable during the run: NODE:PORT (a node's\n"
		"                      topology port) or 'busiest' (the cable that\n"
		"                      carried most in the first phase); reports the\n"
		"                      outage and where the traffic went\n"
		"  --unplug-mode M     carrier (both ends see the link go, as a PMD\n"
		"                      event; default), silent (frames vanish, carrier\n"
		"                      stays: hellos find it), kill (the node WHAT\n"
		"                      names, or the busiest transit node, goes silent)\n"
		"  --unplug-at SEC     when (default: a third of --duration)\n"
		"  --replug-at SEC     when it comes back (default: two thirds; 0:\n"
		"                      never)\n"
		"  --flaps N           pull and mend it N times instead (soak), from\n"
		"                      --unplug-at to 7 s before the end\n"
		"  --pairs N           instead of traffic: for every ordered pair of\n"
		"                      hosts, send N (1..64) frames of one flow alone and print\n"
		"                      (JSON lines) where they went, port by port\n"
		"\n"
		"EAL: give at least two lcores (-l 0-1); the main lcore runs the\n"
		"control thread (hellos, telemetry, figures), the others are workers.\n"
		"Without hugepages add --no-huge -m 1024. Each process needs its own\n"
		"--file-prefix. Telemetry: /dcn/stats, /dcn/ports, /dcn/neighbours,\n"
		"/dcn/route, /dcn/table, /dcn/fc. Queues and credits live: dcn-fcview.\n");
}

struct app_opts {
	const char *check;
	const char *algo;
	const char *draw;
	unsigned int burst;
	int no_backoff;
	long route_cache;     /* -1: from config */
	unsigned int hello_ms;
	double stats;
	double duration;
	int duration_set;
	double rate;
	unsigned int size;
	const char *pattern;
	unsigned int pairs;
	int fc;               /* -1: from config (or on) */
	unsigned int vcs, in_queue, out_queue, reserve;
	double credit_drop;
	double link_rate;
	unsigned int senders;
	unsigned int hello_miss, holddown_ms;
};

static struct app_opts ao = { .stats = 1, .rate = 1000, .size = 60, .fc = -1,
			       .route_cache = -1 };

static int
parse_double(const char *s, const char *opt, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || end == s || *v < lo || *v > hi) {
		fprintf(stderr, "dcnfwd: %s: '%s' is not a number in %g..%g\n",
			opt, s, lo, hi);
		return -1;
	}
	return 0;
}

static int
parse_app_args(struct dcnfwd *d, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'C' },
		{ "emulate", required_argument, NULL, 'e' },
		{ "algo", required_argument, NULL, 'a' },
		{ "draw", required_argument, NULL, 'D' },
		{ "burst", required_argument, NULL, 'b' },
		{ "no-backoff", no_argument, NULL, 'B' },
		{ "route-cache", required_argument, NULL, 'K' },
		{ "hello-ms", required_argument, NULL, 'H' },
		{ "stats", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "rate", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 'S' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "pairs", required_argument, NULL, 'P' },
		{ "flow-control", required_argument, NULL, 'F' },
		{ "vcs", required_argument, NULL, 'V' },
		{ "in-queue", required_argument, NULL, 'I' },
		{ "out-queue", required_argument, NULL, 'O' },
		{ "reserve", required_argument, NULL, 'R' },
		{ "credit-drop", required_argument, NULL, 'X' },
		{ "link-rate", required_argument, NULL, 'L' },
		{ "senders", required_argument, NULL, 'N' },
		{ "hello-miss", required_argument, NULL, 'M' },
		{ "holddown-ms", required_argument, NULL, 'T' },
		{ "unplug", required_argument, NULL, 'U' },
		{ "unplug-mode", required_argument, NULL, 'u' },
		{ "unplug-at", required_argument, NULL, 'x' },
		{ "replug-at", required_argument, NULL, 'y' },
		{ "flaps", required_argument, NULL, 'f' },
		{ "xdp-prog", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d->conf_file = optarg;
			break;
		case 'C':
			ao.check = optarg;
			break;
		case 'e':
			d->emulate = optarg;
			break;
		case 'a':
			ao.algo = optarg;
			break;
		case 'D':
			if (strcmp(optarg, "flow") && strcmp(optarg, "packet")) {
				fprintf(stderr, "dcnfwd: --draw: flow or packet\n");
				return -1;
			}
			ao.draw = optarg;
			break;
		case 'b':
			if (parse_double(optarg, "--burst", 1, DCNFWD_MAX_BURST, &v))
				return -1;
			ao.burst = (unsigned int)v;
			break;
		case 'B':
			ao.no_backoff = 1;
			break;
		case 'K':
			if (parse_double(optarg, "--route-cache", 0, 1u << 16, &v))
				return -1;
			ao.route_cache = (long)v;
			if (ao.route_cache & (ao.route_cache - 1)) {
				fprintf(stderr, "dcnfwd: --route-cache: %ld is not a "
					"power of two\n", ao.route_cache);
				return -1;
			}
			break;
		case 'H':
			if (parse_double(optarg, "--hello-ms", 1, 60000, &v))
				return -1;
			ao.hello_ms = (unsigned int)v;
			break;
		case 's':
			if (parse_double(optarg, "--stats", 0, 86400, &ao.stats))
				return -1;
			break;
		case 't':
			if (parse_double(optarg, "--duration", 0, 1e9, &ao.duration))
				return -1;
			ao.duration_set = 1;
			break;
		case 'j':
			d->json = 1;
			break;
		case 'r':
			if (parse_double(optarg, "--rate", 0, 1e9, &ao.rate))
				return -1;
			break;
		case 'S':
			if (parse_double(optarg, "--size", DCN_GEN_MIN_FRAME, 1514, &v))
				return -1;
			ao.size = (unsigned int)v;
			break;
		case 'p':
			if (strcmp(optarg, "uniform") && strcmp(optarg, "permutation") &&
			    strcmp(optarg, "all-to-one")) {
				fprintf(stderr, "dcnfwd: --pattern: uniform, permutation "
					"or all-to-one\n");
				return -1;
			}
			ao.pattern = optarg;
			break;
		case 'P':
			if (parse_double(optarg, "--pairs", 1, 64, &v))
				return -1;
			ao.pairs = (unsigned int)v;
			break;
		case 'F':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "dcnfwd: --flow-control: on or off\n");
				return -1;
			}
			ao.fc = !strcmp(optarg, "on");
			break;
		case 'V':
			if (parse_double(optarg, "--vcs", 1, 2, &v))
				return -1;
			ao.vcs = (unsigned int)v;
			break;
		case 'I':
			if (parse_double(optarg, "--in-queue", 16, 1 << 16, &v))
				return -1;
			ao.in_queue = (unsigned int)v;
			break;
		case 'O':
			if (parse_double(optarg, "--out-queue", 16, 1 << 18, &v))
				return -1;
			ao.out_queue = (unsigned int)v;
			break;
		case 'R':
			if (parse_double(optarg, "--reserve", 1, 90, &v))
				return -1;
			ao.reserve = (unsigned int)v;
			break;
		case 'X':
			if (parse_double(optarg, "--credit-drop", 0, 100, &ao.credit_drop))
				return -1;
			break;
		case 'L':
			if (parse_double(optarg, "--link-rate", 0, 1e9, &ao.link_rate))
				return -1;
			break;
		case 'N':
			if (parse_double(optarg, "--senders", 1, 1e6, &v))
				return -1;
			ao.senders = (unsigned int)v;
			break;
		case 'M':
			if (parse_double(optarg, "--hello-miss", 1, 100, &v))
				return -1;
			ao.hello_miss = (unsigned int)v;
			break;
		case 'T':
			if (parse_double(optarg, "--holddown-ms", 1, 600000, &v))
				return -1;
			ao.holddown_ms = (unsigned int)v;
			break;
		case 'U':
			d->unplug = optarg;
			break;
		case 'u':
			if (strcmp(optarg, "carrier") && strcmp(optarg, "silent") &&
			    strcmp(optarg, "kill")) {
				fprintf(stderr, "dcnfwd: --unplug-mode: carrier, silent "
					"or kill\n");
				return -1;
			}
			d->unplug_mode = !strcmp(optarg, "carrier") ? UNPLUG_CARRIER :
					 !strcmp(optarg, "silent") ? UNPLUG_SILENT :
								     UNPLUG_KILL;
			break;
		case 'x':
			if (parse_double(optarg, "--unplug-at", 0, 1e6, &d->unplug_at))
				return -1;
			break;
		case 'y':
			if (parse_double(optarg, "--replug-at", 0, 1e6, &d->replug_at))
				return -1;
			d->replug_set = 1;
			break;
		case 'f':
			if (parse_double(optarg, "--flaps", 1, 1e6, &v))
				return -1;
			d->flaps = (unsigned int)v;
			break;
		case 'Z':
			d->xdp_prog = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dcnfwd: unexpected argument '%s' (EAL options go "
			"before --)\n", argv[optind]);
		return -1;
	}
	if (ao.check == NULL && (d->conf_file == NULL) == (d->emulate == NULL)) {
		fprintf(stderr, "dcnfwd: give --config FILE or --emulate SPEC "
			"(--help)\n");
		return -1;
	}
	return 0;
}

static int
check_config(const char *file)
{
	struct dcn_conf c;
	struct dcn_topo *t = NULL;
	char err[DCN_CONF_ERR_LEN], name[DCN_TOPO_NAME_LEN];
	unsigned int i;

	if (dcn_conf_load(file, &c, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	dcn_topo_format_vertex(t, c.node, name, sizeof(name));
	printf("%s: %s, node %s (%s), %u ports, %u workers\n", file, c.spec, name,
	       dcn_conf_role_name(c.role), c.n_ports, c.n_workers);
	for (i = 0; i < c.n_ports; i++)
		printf("  port %-10s %-6s fabric_port %-3d %s\n", c.port[i].name,
		       c.port[i].host ? "host" : "fabric", c.port[i].fabric_port,
		       c.port[i].dev);
	dcn_topo_free(t);
	return 0;
}

/* What usually stops EAL, told from its arguments and error. */
static const char *
eal_hint(int argc, char **argv, int err)
{
	int i, no_huge = 0, prefix = 0;

	for (i = 1; i < argc; i++) {
		no_huge |= strcmp(argv[i], "--no-huge") == 0;
		prefix |= strncmp(argv[i], "--file-prefix", 13) == 0;
	}
	if (!no_huge && (err == EACCES || err == ENOMEM))
		return " (no hugepages? reserve some, e.g. echo 1024 > "
		       "/proc/sys/vm/nr_hugepages, or run without them: "
		       "--no-huge -m 1024)";
	if (err == EALREADY || (!prefix && err == EBUSY))
		return " (another DPDK process uses this runtime directory: give "
		       "each its own --file-prefix)";
	if (err == EACCES || err == EPERM)
		return " (DPDK needs root, or the capabilities to map memory and "
		       "open its runtime directory)";
	return "";
}

static unsigned int memzones_at_start;

static void
count_memzone(const struct rte_memzone *mz, void *arg)
{
	/* Ours (rings, pools, flow-control state) all carry "dcn"; DPDK
	 * keeps a few of its own for the life of the process. */
	if (strstr(mz->name, "dcn") != NULL)
		(*(unsigned int *)arg)++;
}

static void
on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&dcnfwd_quit, 1, __ATOMIC_RELAXED);
}

/* Live figures: one line per interval. */

static void
live_sample(const struct dcnfwd *d, struct live *l)
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
dcnfwd_live_print(const struct dcnfwd *d, struct live *prev, double elapsed)
{
	struct live now;
	double dt;

	live_sample(d, &now);
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

void
dcnfwd_control_tick(struct dcnfwd *d, uint64_t *next_hello)
{
	uint64_t now = rte_rdtsc();

	if (now >= *next_hello) {
		dcnfwd_send_hellos(d);
		*next_hello = now + d->hello_interval_ms * d->tsc_hz / 1000;
	}
	dcnfwd_control_poll(d, now);
	dcnfwd_host_arp_probe(d, now);
	dcnfwd_failover_tick(d, now);
}

static void
final_report(const struct dcnfwd *d)
{
	unsigned int i, r;
	struct dcn_fwd_stats all;
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
		}
		dcnfwd_xdp_print(d, stdout);
	}
	printf("  frames in %lu: encapsulated %lu, transit %lu, decapsulated %lu, "
	       "control %lu\n", (unsigned long)all.rx, (unsigned long)all.encap,
	       (unsigned long)all.transit, (unsigned long)all.decap,
	       (unsigned long)all.control);
	dcnfwd_loop_totals(d, &lt);
	/* What a frame costs a worker: cycles of the loops that had work
	 * (memif or NIC calls included, idle polling not). */
	printf("  worker loops %lu, %lu with work: %.1f frames in and %.0f TSC "
	       "cycles per frame in those\n", (unsigned long)lt.loops,
	       (unsigned long)lt.busy_loops,
	       lt.busy_loops ? (double)all.rx / (double)lt.busy_loops : 0.0,
	       all.rx ? (double)lt.busy_tsc / (double)all.rx : 0.0);
	for (r = 1; r < DCN_DROP_MAX; r++)
		if (all.drop[r])
			printf("  dropped %-18s %lu  (%s)\n", dcn_drop_name(r),
			       (unsigned long)all.drop[r], dcn_drop_desc(r));
	if (d->fc_on) {
		struct dcnfwd_drops dr;

		dcnfwd_drop_totals(d, &dr);
		printf("  flow control: credit frames sent %lu (lost %lu), sends "
		       "stalled for credits %lu\n", (unsigned long)dr.credit_tx,
		       (unsigned long)dr.credit_lost, (unsigned long)dr.stalls);
		printf("  drops in all: inside the node %lu, at its host ports' "
		       "input %lu, control frames %lu\n", (unsigned long)dr.fabric,
		       (unsigned long)dr.ingress, (unsigned long)dr.control);
	}
}

static int
apply_overrides(struct dcnfwd *d)
{
	unsigned int quarter;

	d->burst = ao.burst ? ao.burst : d->conf_file ? d->conf.burst : 64;
	if (d->burst > DCNFWD_MAX_BURST)
		d->burst = DCNFWD_MAX_BURST;
	d->backoff = ao.no_backoff ? 0 : d->conf_file ? d->conf.backoff : 1;
	/* An emulation has a context per node and worker: smaller caches. */
	d->route_cache = ao.route_cache >= 0 ? (unsigned int)ao.route_cache :
			 d->conf_file ? d->conf.route_cache : 256;
	d->ethertype = d->conf_file ? d->conf.ethertype : DCN_FABRIC_ETHERTYPE;
	d->hello_interval_ms = ao.hello_ms ? ao.hello_ms :
			       d->conf_file ? d->conf.hello_interval_ms : 3;
	d->lconf.miss = ao.hello_miss ? ao.hello_miss :
			d->conf_file ? d->conf.hello_miss : 3;
	d->lconf.holddown_us = 1000ull * (ao.holddown_ms ? ao.holddown_ms :
					  d->conf_file ? d->conf.holddown_ms : 100);
	if (d->unplug != NULL && d->emulate == NULL) {
		fprintf(stderr, "dcnfwd: --unplug is for --emulate (on real ports, "
			"pull the cable)\n");
		return -1;
	}
	d->per_packet = ao.draw ? !strcmp(ao.draw, "packet") :
			d->conf_file ? d->conf.draw_per_packet : 0;
	d->rconf.algo = d->conf_file ? d->conf.algo : DCN_ALGO_DEFAULT;
	if (ao.algo != NULL) {
		int a = dcn_route_algo_parse(ao.algo);

		if (a < 0) {
			fprintf(stderr, "dcnfwd: --algo: unknown algorithm '%s'\n",
				ao.algo);
			return -1;
		}
		d->rconf.algo = (enum dcn_route_algo)a;
	}
	d->duration = ao.duration_set ? ao.duration : d->emulate ? 10 : 0;
	d->fc_on = ao.fc >= 0 ? ao.fc : d->conf_file ? d->conf.fc_enabled : 1;
	d->fcc.n_vcs = ao.vcs ? ao.vcs : d->conf_file ? d->conf.fc_vcs : 2;
	d->fcc.in_queue = ao.in_queue ? ao.in_queue :
			  d->conf_file ? d->conf.fc_in_queue : 256;
	d->fcc.out_queue = ao.out_queue ? ao.out_queue :
			   d->conf_file ? d->conf.fc_out_queue : 512;
	d->fcc.reserve_pct = ao.reserve ? ao.reserve :
			     d->conf_file ? d->conf.fc_reserve_pct : 20;
	d->credit_batch = d->conf_file ? d->conf.fc_credit_batch : 32;
	/* A batch must fit in what the peer may send, or credits would only
	 * flow on the refresh timer. */
	quarter = d->fcc.in_queue * (100 - d->fcc.reserve_pct) / 400;
	if (quarter == 0)
		quarter = 1;
	d->credit_batch = RTE_MIN(d->credit_batch, quarter);
	d->credit_drop_ppm = (uint32_t)(ao.credit_drop * 10000);
	d->link_rate = ao.link_rate;
	d->senders = ao.senders;
	if (d->link_rate > 0 && d->emulate == NULL) {
		fprintf(stderr, "dcnfwd: --link-rate is for --emulate\n");
		return -1;
	}
	d->stats_interval = ao.stats;
	return 0;
}

static int
run_node(struct dcnfwd *d)
{
	uint64_t start = rte_rdtsc(), next_hello = 0, next_stats;
	struct live prev;

	printf("dcnfwd: node %s of %s up: %u ports, %u workers\n", d->node[0].name,
	       dcn_topo_spec(d->t), d->n_ports, d->n_workers);
	fflush(stdout);
	live_sample(d, &prev);
	next_stats = start + (uint64_t)(d->stats_interval * (double)d->tsc_hz);
	while (!__atomic_load_n(&dcnfwd_quit, __ATOMIC_RELAXED)) {
		uint64_t now = rte_rdtsc();
		double elapsed = (double)(now - start) / (double)d->tsc_hz;

		dcnfwd_control_tick(d, &next_hello);
		if (d->stats_interval > 0 && now >= next_stats) {
			dcnfwd_live_print(d, &prev, elapsed);
			next_stats = now + (uint64_t)(d->stats_interval *
						      (double)d->tsc_hz);
		}
		if (d->duration > 0 && elapsed >= d->duration)
			break;
		dcnfwd_control_wait(d, 1000);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct dcnfwd *d = &dcnfwd_g;
	int app_argc = argc, eal_argc = argc, i, ret;
	char **app_argv = argv;
	unsigned int lcore;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	if (i < argc) {
		eal_argc = i;
		app_argc = argc - i;
		app_argv = argv + i;
	} else {
		/* No "--": everything is ours (--help, --check-config). */
		eal_argc = 1;
	}
	if (app_argc <= 1 && i == argc) {
		usage(stderr);
		return 2;
	}
	if (parse_app_args(d, app_argc, app_argv) != 0)
		return 2;
	if (ao.check != NULL)
		return check_config(ao.check);
	if (d->conf_file != NULL) {
		char err[DCN_CONF_ERR_LEN];

		if (dcn_conf_load(d->conf_file, &d->conf, &d->t, err,
				  sizeof(err)) != 0) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
	}
	if (apply_overrides(d) != 0)
		return 2;
	if (i == argc) {
		fprintf(stderr, "dcnfwd: EAL options and '--' go first, e.g. "
			"dcnfwd -l 0-1 --no-huge -m 1024 -- ...\n");
		return 2;
	}
	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dcnfwd: EAL init failed: %s%s\n",
			rte_strerror(rte_errno), eal_hint(eal_argc, argv, rte_errno));
		return 1;
	}
	dcnfwd_logtype = rte_log_register_type_and_pick_level("dcnfwd",
							       RTE_LOG_INFO);
	if (dcnfwd_logtype < 0)
		dcnfwd_logtype = RTE_LOGTYPE_USER1;
	d->tsc_hz = rte_get_tsc_hz();
	d->drain_tsc = (d->tsc_hz + 9999) / 10000; /* 100 us */
	d->credit_refresh_tsc = d->tsc_hz / 1000000 *
				(d->conf_file ? d->conf.fc_credit_refresh_us : 1000);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rte_memzone_walk(count_memzone, &memzones_at_start);
	if (d->conf_file != NULL)
		ret = dcnfwd_setup_from_conf(d);
	else
		ret = dcnfwd_setup_emulation(d, d->emulate);
	if (ret == 0)
		ret = dcnfwd_setup_fc(d);
	if (ret == 0)
		ret = dcnfwd_setup_workers(d);
	if (ret == 0)
		ret = dcnfwd_failover_setup(d);
	if (ret != 0) {
		dcnfwd_teardown(d);
		rte_eal_cleanup();
		return 1;
	}
	dcnfwd_telemetry_register();
	dcnfwd_telemetry_open(d);
	for (i = 0; i < (int)d->n_workers; i++)
		rte_eal_remote_launch(dcnfwd_worker_main, &d->worker[i],
				      d->worker[i].lcore);
	if (d->emulate != NULL)
		ret = dcnfwd_emulate_run(d, ao.pairs, ao.rate, ao.size, ao.pattern);
	else
		ret = run_node(d);
	__atomic_store_n(&dcnfwd_quit, 1, __ATOMIC_RELAXED);
	RTE_LCORE_FOREACH_WORKER(lcore)
		rte_eal_wait_lcore(lcore);
	/* Counted after the workers stopped: the final figures. */
	dcnfwd_control_poll(d, rte_rdtsc());
	final_report(d);
	dcnfwd_telemetry_close(d);
	dcnfwd_teardown(d);
	{
		unsigned int mz = 0;

		rte_memzone_walk(count_memzone, &mz);
		if (d->json && d->emulate != NULL)
			printf("{\"exit\": {\"mbufs_leaked\": %u, "
			       "\"memzones_left\": %u}}\n", d->mbufs_leaked,
			       mz - memzones_at_start);
		else if (d->mbufs_leaked || mz != memzones_at_start)
			fprintf(stderr, "dcnfwd: at exit %u mbufs were not returned "
				"and %u memzones were left\n", d->mbufs_leaked,
				mz - memzones_at_start);
	}
	rte_eal_cleanup();
	return ret;
}
