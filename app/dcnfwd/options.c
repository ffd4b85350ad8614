/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd's command line. Two tables drive it: the run options below, and
 * the configuration keys (lib/conf's dcn_conf_keys), any of which may name
 * an option that overrides the file. getopt's table, --help and the checks
 * come from them, so an option cannot be parsed one way and documented
 * another.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_fabric.h"
#include "options.h"
#include "setup.h"
#include "telemetry.h"
#include "xdp.h"

enum run_opt {
	O_CONFIG = 1000, O_CHECK, O_REFERENCE, O_EMULATE, O_STATS, O_DURATION,
	O_JSON, O_XDP_PROG, O_NO_BACKOFF, O_CREDIT_DROP, O_RATE, O_SIZE,
	O_PATTERN, O_SENDERS, O_LINK_RATE, O_SWITCH_BUFFER, O_WIRE_LOSS, O_UNPLUG, O_UNPLUG_MODE, O_UNPLUG_AT,
	O_REPLUG_AT, O_FLAPS, O_PAIRS, O_LANES, O_TRACE, O_HELP, O_VERSION,
	O_KEY = 2000,  /* + the index of a configuration key */
};

struct run_opt_def {
	const char *name;
	int id;
	const char *arg;     /* NULL: takes none */
	const char *group;   /* where --help lists it */
	const char *help;
};

static const struct run_opt_def run_opts[] = {
	{ "config", O_CONFIG, "FILE", "run",
	  "the node, its ports and workers (see conf/ and doc/configuration.md)" },
	{ "emulate", O_EMULATE, "SPEC", "run",
	  "every node of SPEC in this process: cables are rings, L2 switches and "
	  "hosts are emulated, each host sends stamped traffic" },
	{ "check-config", O_CHECK, "FILE", "run",
	  "load and check FILE as a start would, print a summary, exit (no EAL)" },
	{ "config-reference", O_REFERENCE, NULL, "run",
	  "print every configuration key as Markdown (doc/configuration.md)" },
	{ "stats", O_STATS, "SEC", "run",
	  "print live figures every SEC seconds (0: off; default 1)" },
	{ "duration", O_DURATION, "SEC", "run",
	  "stop after SEC seconds (default: until Ctrl-C; --emulate: 10)" },
	{ "json", O_JSON, NULL, "run", "final report as JSON" },
	{ "trace", O_TRACE, "'SRC DST [N]'", "run",
	  "follow the next N (default 4, at most 64) frames from server SRC "
	  "to DST hop by hop: classification, candidates and pick, VC, "
	  "proxy, queue and credits, the port each left by or why it was "
	  "dropped; printed at exit (/dcn/trace while it runs)" },
	{ "xdp-prog", O_XDP_PROG, "PATH|none", "run",
	  "XDP program for net_af_xdp ports whose devargs name none (default "
	  "dcnfwd's, which leaves all but fabric frames to the kernel; none: the "
	  "PMD's, which takes everything)" },
	{ "no-backoff", O_NO_BACKOFF, NULL, "run", "the same as --backoff no" },
	{ "credit-drop", O_CREDIT_DROP, "PCT", "testing",
	  "throw away PCT% of the credit frames a node sends" },
	{ "rate", O_RATE, "PPS", "emulation",
	  "frames per second each host sends (default 1000)" },
	{ "size", O_SIZE, "BYTES", "emulation",
	  "frame size without FCS, 60..1514 (default 60)" },
	{ "pattern", O_PATTERN, "P", "emulation",
	  "uniform (default), permutation, all-to-one" },
	{ "senders", O_SENDERS, "N", "emulation",
	  "only N hosts send (all-to-one: hosts 1..N send to host 0)" },
	{ "link-rate", O_LINK_RATE, "PPS", "emulation",
	  "every emulated cable carries at most PPS frames/s (default: as fast "
	  "as the rings go)" },
	{ "switch-buffer", O_SWITCH_BUFFER, "FRAMES", "emulation",
	  "egress buffer of each emulated L2 switch port, 16..65536 (default "
	  "4096): what it cannot hold is dropped and counted, as on a real "
	  "switch" },
	{ "lanes", O_LANES, "N", "emulation",
	  "every node port has N RX queues, spread by flow as a NIC's RSS "
	  "spreads them (encap = udp), each a lane routed by its own worker "
	  "and sent by it (flow control: several senders a port); 1..16, "
	  "default 1; not with --link-rate or --wire-loss" },
	{ "wire-loss", O_WIRE_LOSS, "PCT", "emulation",
	  "every cable between nodes and switches loses PCT% of the frames it "
	  "carries, at random (testing: flow control takes the credits of lost "
	  "frames back)" },
	{ "unplug", O_UNPLUG, "WHAT", "emulation",
	  "pull a cable during the run: NODE:PORT (a node's topology port) or "
	  "busiest (the cable that carried most so far); reports the outage" },
	{ "unplug-mode", O_UNPLUG_MODE, "MODE", "emulation",
	  "carrier (both ends see the link go, as a PMD event; default), silent "
	  "(frames vanish, carrier stays: hellos find it), kill (the node WHAT "
	  "names, or the busiest transit node, goes silent)" },
	{ "unplug-at", O_UNPLUG_AT, "SEC", "emulation",
	  "when (default: a third of --duration)" },
	{ "replug-at", O_REPLUG_AT, "SEC", "emulation",
	  "when it comes back (default: two thirds; 0: never)" },
	{ "flaps", O_FLAPS, "N", "emulation",
	  "pull and mend it N times instead (soak), from --unplug-at to 7 s "
	  "before the end" },
	{ "pairs", O_PAIRS, "N", "emulation",
	  "instead of traffic: for every ordered pair of hosts, send N (1..64) "
	  "frames of one flow alone and print (JSON lines) where they went" },
	{ "help", O_HELP, NULL, "run", "this text" },
	{ "version", O_VERSION, NULL, "run", "the release, and the DPDK it runs on" },
	{ NULL, 0, NULL, NULL, NULL },
};

static void
print_group(FILE *f, const char *group)
{
	const struct run_opt_def *o;

	for (o = run_opts; o->name != NULL; o++) {
		char left[40];

		if (strcmp(o->group, group) != 0)
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-22s %s\n", left, o->help);
	}
}

void
dcnfwd_usage(FILE *f)
{
	const struct dcnfwd_tel_cmd *c;

	fprintf(f,
		"Usage: dcnfwd [EAL options] -- --config FILE [options]\n"
		"       dcnfwd [EAL options] -- --emulate SPEC [options]\n"
		"       dcnfwd --check-config FILE | --config-reference | --help\n"
		"\n"
		"A node of a NovaCube, Diamond, RRect, LaScaDa or Totoro fabric on\n"
		"DPDK ports: frames from host ports are carried in the fabric header to\n"
		"the node of their destination address, by the topology's routing.\n"
		"\n");
	print_group(f, "run");
	fprintf(f, "\nEmulation traffic (--emulate):\n");
	print_group(f, "emulation");
	fprintf(f, "\nTesting:\n");
	print_group(f, "testing");
	fprintf(f, "\n");
	dcn_conf_help(f);
	fprintf(f,
		"\nEAL: give at least two lcores (-l 0-1); the main lcore runs the\n"
		"control thread (hellos, telemetry, figures), the others are workers.\n"
		"Without hugepages add --no-huge -m 1024; without NICs to probe,\n"
		"--no-pci. Each process needs its own --file-prefix.\n"
		"\nTelemetry (dpdk-telemetry.py -f PREFIX, or tools/dcn-telemetry):\n");
	for (c = dcnfwd_tel_cmds; c->name != NULL; c++) {
		char left[40];

		snprintf(left, sizeof(left), "%s%s%s", c->name, c->params[0] ? "," : "",
			 c->params);
		fprintf(f, "  %-22s %s\n", left, c->help);
	}
	dcnfwd_xdp_default_help(f);
	fprintf(f,
		"For Prometheus: tools/dcn-exporter -p PREFIX (HTTP /metrics).\n"
		"\nCapture: dpdk-dumpcap --file-prefix=PREFIX -i PORT -w FILE while dcnfwd\n"
		"runs on hugepages; tools/wireshark/dcnfwd.lua dissects the frames.\n");
}

/* A finite number in [lo, hi]: "nan" and "inf" are not. */
static int
parse_double(const char *s, const char *opt, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(*v) || *v < lo || *v > hi) {
		DCNFWD_LOG(CRIT, "--%s: '%s' is not a number in %g..%g\n",
			opt, s, lo, hi);
		return -1;
	}
	return 0;
}

/* A whole number in [lo, hi]. */
static int
parse_count(const char *s, const char *opt, double lo, double hi,
	    unsigned int *out)
{
	double v;

	if (parse_double(s, opt, lo, hi, &v) != 0)
		return -1;
	if (v != (double)(unsigned int)v) {
		DCNFWD_LOG(CRIT, "--%s: '%s' is not a whole number\n", opt, s);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int
one_of(const char *v, const char *opt, const char *const *words)
{
	unsigned int i;

	for (i = 0; words[i] != NULL; i++)
		if (strcmp(v, words[i]) == 0)
			return (int)i;
	{
		char list[256];
		size_t at = 0;

		list[0] = '\0';
		for (i = 0; words[i] != NULL && at < sizeof(list); i++)
			at += (size_t)snprintf(list + at, sizeof(list) - at, " %s",
					       words[i]);
		DCNFWD_LOG(CRIT, "--%s: '%s' is not one of:%s\n", opt, v, list);
	}
	return -1;
}

static int
run_option(struct dcnfwd_options *o, struct dcnfwd *d, int id, const char *name,
	   const char *v)
{
	static const char *const patterns[] = { "uniform", "permutation",
						"all-to-one", NULL };
	static const char *const modes[] = { "carrier", "silent", "kill", NULL };
	struct dcnfwd_emu_opts *e = &d->emu;
	int k;

	switch (id) {
	case O_CONFIG: d->conf_file = v; return 0;
	case O_EMULATE: d->emulate = v; return 0;
	case O_CHECK: o->check = v; return 0;
	case O_REFERENCE: o->reference = 1; return 0;
	case O_JSON: d->json = 1; return 0;
	case O_TRACE: d->trace_spec = v; return 0;
	case O_XDP_PROG: d->xdp_prog = v; return 0;
	case O_HELP: o->help = 1; return 0;
	case O_VERSION: o->version = 1; return 0;
	case O_NO_BACKOFF:
		o->ovr[o->n_ovr].key = dcn_conf_key_by_option("backoff");
		o->ovr[o->n_ovr++].value = "no";
		return 0;
	case O_STATS:
		return parse_double(v, name, 0, 86400, &d->stats_interval);
	case O_DURATION:
		o->duration_set = 1;
		return parse_double(v, name, 0, 1e9, &d->duration);
	case O_CREDIT_DROP:
		return parse_double(v, name, 0, 100, &d->credit_drop);
	case O_RATE: return parse_double(v, name, 0, 1e9, &e->rate);
	case O_SIZE: return parse_count(v, name, DCN_GEN_MIN_FRAME, 1514, &e->size);
	case O_PATTERN:
		if (one_of(v, name, patterns) < 0)
			return -1;
		e->pattern = v;
		return 0;
	case O_SENDERS: return parse_count(v, name, 1, 1e6, &e->senders);
	case O_LINK_RATE: return parse_double(v, name, 0, 1e9, &e->link_rate);
	case O_SWITCH_BUFFER:
		return parse_count(v, name, 16, 65536, &e->switch_buffer);
	case O_WIRE_LOSS: return parse_double(v, name, 0, 100, &e->wire_loss);
	case O_LANES: return parse_count(v, name, 1, DCN_PORT_RING_QUEUES, &e->lanes);
	case O_UNPLUG: e->unplug = v; return 0;
	case O_UNPLUG_MODE:
		k = one_of(v, name, modes);
		if (k < 0)
			return -1;
		e->unplug_mode = k;
		return 0;
	case O_UNPLUG_AT: return parse_double(v, name, 0, 1e6, &e->unplug_at);
	case O_REPLUG_AT:
		e->replug_set = 1;
		return parse_double(v, name, 0, 1e6, &e->replug_at);
	case O_FLAPS: return parse_count(v, name, 1, 1e6, &e->flaps);
	case O_PAIRS: return parse_count(v, name, 1, 64, &e->pairs);
	}
	return -1;
}

int
dcnfwd_options_parse(struct dcnfwd_options *o, struct dcnfwd *d, int argc,
		     char **argv)
{
	struct option lopts[128];
	const struct dcn_conf_key *k;
	unsigned int n = 0, i;
	int c, idx;

	memset(o, 0, sizeof(*o));
	d->stats_interval = 1;
	d->emu.rate = 1000;
	d->emu.size = 60;
	for (i = 0; run_opts[i].name != NULL; i++)
		lopts[n++] = (struct option){ run_opts[i].name,
			run_opts[i].arg ? required_argument : no_argument, NULL,
			run_opts[i].id };
	for (k = dcn_conf_keys, i = 0; k->key != NULL; k++, i++)
		if (k->option != NULL && n + 1 < RTE_DIM(lopts))
			lopts[n++] = (struct option){ k->option, required_argument,
						      NULL, O_KEY + (int)i };
	lopts[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, &idx)) != -1) {
		if (c == 'h') {
			o->help = 1;
		} else if (c >= O_KEY) {
			if (o->n_ovr == RTE_DIM(o->ovr))
				return -1;
			o->ovr[o->n_ovr].key = &dcn_conf_keys[c - O_KEY];
			o->ovr[o->n_ovr++].value = optarg;
		} else if (c >= O_CONFIG && c < O_KEY) {
			if (run_option(o, d, c, lopts[idx].name, optarg) != 0)
				return -1;
		} else {
			DCNFWD_LOG(CRIT, "see --help\n");
			return -1;
		}
	}
	if (optind < argc) {
		DCNFWD_LOG(CRIT, "unexpected argument '%s' (EAL options go "
			"before --)\n", argv[optind]);
		return -1;
	}
	if (o->help || o->version || o->check != NULL || o->reference)
		return 0;
	if ((d->conf_file == NULL) == (d->emulate == NULL)) {
		DCNFWD_LOG(CRIT, "give --config FILE or --emulate SPEC "
			"(--help)\n");
		return -1;
	}
	return 0;
}

/* An unplug whose times the run cannot keep, or with --pairs (which
 * traces every pair on the fabric as it stands: it has no unplug). */
static int
emu_unplug_times_bad(const struct dcnfwd *d)
{
	double unplug = d->emu.unplug_at > 0 ? d->emu.unplug_at : d->duration / 3;

	if (d->emu.pairs) {
		DCNFWD_LOG(CRIT, "--pairs traces the fabric as it stands, with "
			"no --unplug (a failure's pairs: dcn-topo route with --fail-links)\n");
		return 1;
	}
	if (d->duration > 0 && unplug >= d->duration) {
		DCNFWD_LOG(CRIT, "--unplug-at %g is not before the end of the "
			"run (--duration %g)\n", unplug, d->duration);
		return 1;
	}
	if (d->emu.replug_set && d->emu.replug_at > 0 &&
	    (d->emu.replug_at <= unplug ||
	     (d->duration > 0 && d->emu.replug_at >= d->duration))) {
		DCNFWD_LOG(CRIT, "--replug-at %g is not between the unplug "
			"(%g s) and the end of the run (--duration %g; 0: never)\n",
			d->emu.replug_at, unplug, d->duration);
		return 1;
	}
	return 0;
}

int
dcnfwd_options_apply(struct dcnfwd_options *o, struct dcnfwd *d)
{
	char err[DCN_CONF_ERR_LEN];
	unsigned int i, route_cache_set = 0;
	struct dcn_conf *c = &d->conf;

	if (d->conf_file == NULL)
		dcn_conf_defaults(c);
	for (i = 0; i < o->n_ovr; i++) {
		if (dcn_conf_override(c, o->ovr[i].key, o->ovr[i].value, err,
				      sizeof(err)) != 0) {
			DCNFWD_LOG(CRIT, "%s\n", err);
			return -1;
		}
		route_cache_set |= !strcmp(o->ovr[i].key->key, "route_cache");
	}
	if (d->emulate != NULL && d->emu.unplug == NULL &&
	    (d->emu.flaps || d->emu.replug_set)) {
		DCNFWD_LOG(CRIT, "--flaps and --replug-at need --unplug\n");
		return -1;
	}
	if (d->emulate == NULL) {
		if (d->emu.unplug != NULL) {
			DCNFWD_LOG(CRIT, "--unplug is for --emulate (on real "
				"ports, pull the cable)\n");
			return -1;
		}
		if (d->emu.link_rate > 0) {
			DCNFWD_LOG(CRIT, "--link-rate is for --emulate\n");
			return -1;
		}
		if (d->emu.switch_buffer > 0) {
			DCNFWD_LOG(CRIT, "--switch-buffer is for --emulate\n");
			return -1;
		}
		if (d->emu.wire_loss > 0) {
			DCNFWD_LOG(CRIT, "--wire-loss is for --emulate\n");
			return -1;
		}
		if (d->emu.lanes > 1) {
			DCNFWD_LOG(CRIT, "--lanes is for --emulate (a port's "
				"lanes are its rxq)\n");
			return -1;
		}
	}
	/* A rate-limited or lossy cable keeps its clock and its count in
	 * its one poller's hands. */
	if (d->emu.lanes > 1 && (d->emu.link_rate > 0 || d->emu.wire_loss > 0)) {
		DCNFWD_LOG(CRIT, "--lanes goes with neither --link-rate nor "
			"--wire-loss\n");
		return -1;
	}
	/* The incarnation, drawn at random: with a fabric key, neighbours
	 * prove a new one fresh by their own challenge (lib/auth). */
	d->epoch = dcn_auth_epoch_new();
	if (d->epoch == 0) {
		DCNFWD_LOG(CRIT, "no random numbers for this incarnation\n");
		return -1;
	}
	if (c->keyed) {
		d->auth = dcn_auth_create(c->key);
		memset(c->key, 0, sizeof(c->key));
		if (d->auth == NULL) {
			DCNFWD_LOG(CRIT, "%s: the fabric key could not be "
				"set up (libsodium)\n", c->key_file);
			return -1;
		}
	}
	d->burst = c->burst;
	d->backoff = c->backoff;
	d->idle_sleep_us = c->idle_sleep_us;
	/* An emulation has a context per node and worker: smaller caches. */
	d->route_cache = d->emulate != NULL && !route_cache_set ? 256 : c->route_cache;
	d->ethertype = c->ethertype;
	d->hello_interval_ms = c->hello_interval_ms;
	d->lconf.miss = c->hello_miss;
	d->lconf.holddown_us = 1000ull * c->holddown_ms;
	d->per_packet = c->draw_per_packet;
	d->rconf.algo = c->algo;
	if (!o->duration_set)
		d->duration = d->emulate ? 10 : 0;
	if (d->emulate != NULL && d->emu.unplug != NULL && emu_unplug_times_bad(d))
		return -1;
	d->fc_on = c->fc_enabled;
	d->rconf.vcs = c->fc_vcs;
	/* 0: each node's own, by its ports (dcnfwd_setup_fc). */
	d->fcc.in_queue = c->fc_in_queue;
	d->fcc.out_queue = c->fc_out_queue;
	d->fcc.reserve_pct = c->fc_reserve_pct;
	d->fcc.repair_ms = c->fc_credit_repair_ms;
	d->fc_senders = c->fc_senders;
	/* An emulated cable of limited rate queues: a frame may wait on
	 * its wires and in a switch's buffer, and its credit frame as long
	 * on the way back, longer than the repair time. A late frame is not
	 * a lost one, so the repair time covers both. */
	if (d->emulate != NULL && d->emu.link_rate > 0) {
		double hop_ms = 1000.0 * (2 * DCNFWD_EMU_WIRE_FRAMES +
					  dcnfwd_emu_switch_buffer(d)) /
				d->emu.link_rate;

		d->fcc.repair_ms = RTE_MAX(d->fcc.repair_ms,
					   (unsigned int)ceil(2 * hop_ms));
	}
	/* Cut to each node's grant as its queues are made. */
	d->credit_batch = c->fc_credit_batch;
	return 0;
}
