/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-gen: a DPDK traffic generator and sink for dcnfwd. It sends stamped
 * IPv4/UDP frames, as a host would, out of one port, and checks what comes
 * back on another (or the same): rate, loss, reordering, latency.
 *
 *   dcn-gen [EAL options] -- --tx DEV --rx DEV --src ADDR --dst ADDR[,...]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_version.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "dcn_fabric.h"
#include "dcn_port_kernel.h"
#include "dcn_port_rss.h"
#include "dcn_port_udp.h"
#include "dcn_gen.h"
#include "dcn_route.h"
#include "dcn_topo.h"
#include "search.h"

#define MAX_DST 4096
#define BURST 32

#define SEARCH_FRAMES 256

static volatile int quit;
/* Signals taken: the first ends sending (receiving lingers, so that the
 * frames in flight are not counted lost), a second ends the run. */
static volatile sig_atomic_t signals;

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: dcn-gen [EAL options] -- [options]\n"
		"\n"
		"Sends stamped IPv4/UDP frames (sequence number and TSC in the payload)\n"
		"and reports what a sink port receives: rate, loss, reordering and\n"
		"latency percentiles. Sender and sink may be the same process (two\n"
		"ports) or two processes.\n"
		"\n"
		"  --tx DEV          port to send on (DPDK device name or devargs)\n"
		"  --rx DEV          port to receive on (may equal --tx)\n"
		"  --src ADDR        source IPv4 address (the sending node's address)\n"
		"  --dst LIST        destination addresses, comma separated\n"
		"  --pattern P       uniform (random from the list, default), list\n"
		"                    (round robin), permutation (the first only)\n"
		"  --rate PPS        frames per second (default 10000; 0: as fast as\n"
		"                    the port takes them)\n"
		"  --count N         stop sending after N frames\n"
		"  --size BYTES      frame size without FCS, 60..1514 (default 60)\n"
		"  --dst-mac MAC     destination MAC (default broadcast)\n"
		"  --duration SEC    send for SEC seconds (default 5)\n"
		"  --linger SEC      keep the ports open after sending stops (default\n"
		"                    1): receiving goes on, and a peer still takes\n"
		"                    what the last bursts left in a shared ring\n"
		"                    (SIGINT or SIGTERM stops sending at once; a\n"
		"                    second one ends the run)\n"
		"  --hold            after the report, keep the ports open and idle\n"
		"                    until a signal: a memif peer then leaves while\n"
		"                    nothing here polls its rings (doc/failover.md)\n"
		"  --link-wait SEC   wait for links to come up first (default 10)\n"
		"  --fabric SPEC     send fabric data frames instead, as the first\n"
		"                    relay (--src) would put them on its cable to the\n"
		"                    next hop: transit traffic for a relay\n"
		"  --encap ether|udp the fabric's wire format (fabric frames,\n"
		"                    credits): udp puts them in IPv4/UDP from --src\n"
		"                    to the fabric's port (default ether)\n"
		"  --udp-port N      encap udp: that port (default 34997)\n"
		"  --txq N           send on N queues of --tx, each frame on the one\n"
		"                    dcnfwd's RSS setup would give it (a memif peer\n"
		"                    then sees its queues filled as by a NIC's RSS)\n"
		"  --json            report as JSON\n"
		"  --version         the release, and the DPDK it runs on\n"
		"\n"
		"Zero-loss search (RFC 2544 throughput) of what is between --tx and\n"
		"--rx: a trial at full load, then bisection on the offered rate;\n"
		"a trial passes when every frame offered comes back. Frames are\n"
		"built once and sent by reference (not on ring ports).\n"
		"  --search          run the search instead; --rate is its ceiling\n"
		"                    (0: as fast as the generator goes)\n"
		"  --trial SEC       seconds per trial (default 1)\n"
		"  --resolution PCT  stop when the bounds are this close (default 1)\n"
		"  --max-trials N    at most N trials (default 16)\n"
		"  --credits         answer a dcnfwd's NovaCube credits on --rx, as\n"
		"                    the next relay would (flow control on)\n"
		"  --credit-batch N  with --credits: a credit frame after N frames\n"
		"                    (default 204, a dcnfwd's on a cable at its\n"
		"                    defaults: 256, cut to a quarter of its grant)\n"
		"  --obey-credits    send fabric frames only while the device's\n"
		"                    credit frames on --tx leave room on their VC,\n"
		"                    as the relay before it would (nothing before\n"
		"                    the first; held frames count as refused)\n");
}

static void
on_signal(int s)
{
	(void)s;
	quit = 1;
	signals = signals + 1;
}

/* The ports this run set up and started (--tx, --rx). */
static uint16_t started[2];
static uint16_t n_started;

static int
open_port(const char *dev, struct rte_mempool *mp, uint16_t nq, uint16_t *pid)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	const char *comma = strchr(dev, ',');
	size_t len = comma ? (size_t)(comma - dev) : strlen(dev);
	struct rte_eth_conf ec;
	uint16_t q;
	int ret;

	if (len >= sizeof(name))
		return -ENAMETOOLONG;
	memcpy(name, dev, len);
	name[len] = '\0';
	if (rte_eth_dev_get_port_by_name(name, pid) == 0) {
		for (q = 0; q < n_started; q++)
			if (started[q] == *pid)
				return 0; /* set up already (--rx equal to --tx) */
		/* Made by EAL (--vdev, -a) and not set up yet: set it up. */
	} else {
		ret = rte_dev_probe(dev);
		if (ret == 0)
			ret = rte_eth_dev_get_port_by_name(name, pid);
		if (ret != 0)
			return ret;
	}
	memset(&ec, 0, sizeof(ec));
	ret = rte_eth_dev_configure(*pid, nq, nq, &ec);
	for (q = 0; q < nq && ret == 0; q++)
		ret = rte_eth_rx_queue_setup(*pid, q, 1024,
					     rte_eth_dev_socket_id(*pid), NULL, mp);
	for (q = 0; q < nq && ret == 0; q++)
		ret = rte_eth_tx_queue_setup(*pid, q, 1024,
					     rte_eth_dev_socket_id(*pid), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(*pid);
	if (ret == 0) {
		rte_eth_promiscuous_enable(*pid);
		started[n_started++] = *pid;
	}
	return ret;
}

/*
 * --txq: each frame to the TX queue a NIC programmed as dcnfwd programs
 * it (lib/port/dcn_port_rss.h) would receive it on, so that the device
 * on the other end of a memif (which does not hash) sees its RX queues
 * filled as RSS would fill them; a flow keeps its queue, and its order.
 * Frames a queue does not take are freed. @return frames sent.
 */
static struct {
	uint16_t n;
	uint8_t key[40];
	uint16_t reta[DCN_PORT_RSS_RETA_DEFAULT];
} spread;

static unsigned int
tx_spread(uint16_t port, struct rte_mbuf **m, unsigned int n)
{
	struct rte_mbuf *byq[16][BURST];
	unsigned int cnt[16] = { 0 }, q, i, sent = 0;

	for (i = 0; i < n; i++) {
		q = dcn_port_rss_queue(rte_pktmbuf_mtod(m[i], const uint8_t *),
				       rte_pktmbuf_data_len(m[i]), spread.key,
				       spread.reta, DCN_PORT_RSS_RETA_DEFAULT);
		byq[q][cnt[q]++] = m[i];
	}
	for (q = 0; q < spread.n; q++) {
		uint16_t k;

		if (cnt[q] == 0)
			continue;
		k = rte_eth_tx_burst(port, (uint16_t)q, byq[q], (uint16_t)cnt[q]);
		if (k < cnt[q])
			rte_pktmbuf_free_bulk(&byq[q][k], cnt[q] - k);
		sent += k;
	}
	return sent;
}

/*
 * Turn host frames into fabric data frames as the source relay sends them:
 * its first hop taken (the first candidate), the header carrying the
 * state after it. Frames whose destination has no route are dropped here.
 * @return frames kept, in order.
 */
static unsigned int
encapsulate(const struct dcn_router *r, struct rte_mbuf **m, unsigned int n)
{
	const struct dcn_topo *t = dcn_router_topo(r);
	unsigned int i, keep = 0;

	for (i = 0; i < n; i++) {
		struct dcn_hop hops[DCN_ROUTE_MAX_HOPS];
		struct dcn_route_state st;
		struct dcn_fabric_hdr h;
		uint8_t *p = rte_pktmbuf_mtod(m[i], uint8_t *), eth[12];
		uint32_t src = (uint32_t)p[26] << 24 | p[27] << 16 | p[28] << 8 | p[29];
		uint32_t dst = (uint32_t)p[30] << 24 | p[31] << 16 | p[32] << 8 | p[33];
		uint16_t l3 = (uint16_t)(rte_pktmbuf_data_len(m[i]) - 14);
		int64_t vs = dcn_topo_vertex_of(t, src), vd = dcn_topo_vertex_of(t, dst);
		unsigned int nh;

		if (vs < 0 || vd < 0 || vs == vd) {
			rte_pktmbuf_free(m[i]);
			continue;
		}
		dcn_route_state_init(r, (uint32_t)vs, (uint32_t)vd, &st);
		nh = dcn_route_candidates(r, (uint32_t)vs, (uint32_t)vd, &st, hops);
		if (nh == 0) {
			rte_pktmbuf_free(m[i]);
			continue;
		}
		dcn_route_advance(r, (uint32_t)vs, &hops[0], &st);
		if (dcn_fabric_hdr_from_state(t, &st, &h) != 0) {
			rte_pktmbuf_free(m[i]);
			continue;
		}
		h.type = DCN_FT_DATA;
		h.len = l3;
		memcpy(eth, p, 12);
		p = (uint8_t *)rte_pktmbuf_prepend(m[i], DCN_FABRIC_HDR_LEN);
		if (p == NULL) {
			rte_pktmbuf_free(m[i]);
			continue;
		}
		memcpy(p, eth, 12);
		p[12] = DCN_FABRIC_ETHERTYPE >> 8;
		p[13] = DCN_FABRIC_ETHERTYPE & 0xff;
		dcn_fabric_write_hdr(p + 14, &h);
		m[keep++] = m[i];
	}
	return keep;
}

static void
close_ports(uint16_t txp, uint16_t rxp)
{
	rte_eth_dev_stop(txp);
	rte_eth_dev_close(txp);
	if (rxp != txp) {
		rte_eth_dev_stop(rxp);
		rte_eth_dev_close(rxp);
	}
}

/* --search: build the frames once, search, report. */
static int
run_search(struct gen_search *gs, struct dcn_gen *gen,
	   const struct dcn_router *router, struct rte_mempool *mp,
	   uint16_t txp, uint16_t rxp, double linger, int json)
{
	static struct rte_mbuf *frames[SEARCH_FRAMES];
	static uint8_t vc[SEARCH_FRAMES];
	struct gen_search_result r;
	unsigned int n = SEARCH_FRAMES, i;

	if (rte_pktmbuf_alloc_bulk(mp, frames, n) != 0) {
		fprintf(stderr, "dcn-gen: out of mbufs\n");
		return 1;
	}
	dcn_gen_build(gen, frames, n, rte_rdtsc());
	if (router != NULL)
		n = encapsulate(router, frames, n);
	for (i = 0; i < n; i++)
		vc[i] = router == NULL ? 0 :
			dcn_fabric_vc_of(rte_pktmbuf_mtod(frames[i], const uint8_t *)
					 [DCN_ETHER_HDR_LEN + 1]);
	if (gs->udp != NULL)
		dcn_port_udp_wrap(gs->udp, frames, (uint16_t)n);
	if (n == 0) {
		fprintf(stderr, "dcn-gen: no destination has a route from --src\n");
		return 2;
	}
	gs->txp = txp;
	gs->rxp = rxp;
	rte_eth_macaddr_get(rxp, &gs->rx_mac);
	gs->mp = mp;
	gs->frames = frames;
	gs->vc = vc;
	gs->n_frames = n;
	gs->hz = rte_get_tsc_hz();
	gs->max_pps = gen->conf.rate_pps;
	/* Long enough for a deep queue to drain, short enough to search. */
	if (gs->linger_s < 0)
		gs->linger_s = linger < 0.2 ? linger : 0.2;
	gs->epoch = (uint32_t)rte_rdtsc() | 1;
	gs->quit = &quit;
	gen_search_run(gs, &r);
	if (json) {
		printf("{\"frame_len\": %u, \"zero_loss_pps\": %.0f, "
		       "\"full_load_pps\": %.0f, \"generator_bound\": %s, "
		       "\"trial_s\": %g, \"trials\": [",
		       gen->conf.frame_len + (router ? DCN_FABRIC_HDR_LEN : 0) +
			       (router && gs->udp ? DCN_UDP_ENCAP_LEN : 0),
		       r.zero_loss_pps, r.full_load_pps,
		       r.generator_bound ? "true" : "false", gs->trial_s);
		for (i = 0; i < r.n_trials; i++)
			printf("%s{\"rate_pps\": %.0f, \"offered\": %lu, "
			       "\"received\": %lu, \"refused\": %lu, "
			       "\"skipped\": %lu, \"skips\": %lu, \"held\": %lu, "
			       "\"passed\": %s}", i ? ", " : "",
			       r.trial[i].rate_pps, (unsigned long)r.trial[i].offered,
			       (unsigned long)r.trial[i].received,
			       (unsigned long)r.trial[i].refused,
			       (unsigned long)r.trial[i].skipped,
			       (unsigned long)r.trial[i].skips,
			       (unsigned long)r.trial[i].held,
			       r.trial[i].passed ? "true" : "false");
		printf("]}\n");
	} else {
		for (i = 0; i < r.n_trials; i++)
			printf("trial %2u: %10.0f pps offered %lu received %lu %s\n",
			       i, r.trial[i].rate_pps, (unsigned long)r.trial[i].offered,
			       (unsigned long)r.trial[i].received,
			       r.trial[i].passed ? "pass" : "loss");
		printf("zero-loss throughput %.4f Mpps (%.4f Mpps at full "
		       "load)%s\n", r.zero_loss_pps / 1e6, r.full_load_pps / 1e6,
		       r.generator_bound ? "; the generator was the limit" : "");
	}
	rte_pktmbuf_free_bulk(frames, n);
	close_ports(txp, rxp);
	dcn_gen_fini(gen);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return 0;
}

static int
link_up(uint16_t pid)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(pid, &l) == 0 && l.link_status;
}

static int
parse_num(const char *s, const char *opt, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || *v < lo || *v > hi) {
		fprintf(stderr, "dcn-gen: %s: '%s' is not a number in %g..%g\n", opt,
			s, lo, hi);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "tx", required_argument, NULL, 't' },
		{ "rx", required_argument, NULL, 'r' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'R' },
		{ "count", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 'S' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'D' },
		{ "linger", required_argument, NULL, 'L' },
		{ "link-wait", required_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'j' },
		{ "hold", no_argument, NULL, 'H' },
		{ "fabric", required_argument, NULL, 'F' },
		{ "encap", required_argument, NULL, 'e' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "txq", required_argument, NULL, 'q' },
		{ "search", no_argument, NULL, 'Q' },
		{ "trial", required_argument, NULL, 'T' },
		{ "resolution", required_argument, NULL, 'E' },
		{ "max-trials", required_argument, NULL, 'N' },
		{ "credits", no_argument, NULL, 'C' },
		{ "obey-credits", no_argument, NULL, 'O' },
		{ "credit-batch", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static uint32_t dst[MAX_DST];
	const char *tx_dev = NULL, *rx_dev = NULL;
	struct dcn_gen_conf gc;
	struct dcn_gen gen;
	struct dcn_gen_sink sink;
	const struct dcn_gen_sink *sinks[1] = { &sink };
	struct dcn_gen_report rep;
	struct rte_mempool *mp;
	struct rte_mbuf *m[BURST];
	double duration = 5, linger = 1, link_wait = 10, v;
	uint16_t txp = 0, rxp = 0;
	uint64_t hz, start, stop_tx, stop_all, tx_fail = 0, rx_missed = 0;
	struct rte_eth_stats rx_stats0, rx_stats;
	int rx_ifindex;
	const char *fabric_spec = NULL;
	int encap_udp = 0;
	unsigned long txq = 1;
	char *opt_end;
	unsigned long udp_port = DCN_UDP_DEFAULT_PORT;
	static struct dcn_port_udp udp;
	struct dcn_topo *topo = NULL;
	struct dcn_router *router = NULL;
	int json = 0, search = 0, hold = 0, c, ret, i;
	struct gen_search gs;
	char *tok, *save;

	memset(&gc, 0, sizeof(gc));
	memset(&gs, 0, sizeof(gs));
	gs.trial_s = 1;
	gs.linger_s = -1;
	gs.resolution = 0.01;
	gs.max_trials = 16;
	gs.credit_batch = 204;
	gs.ethertype = DCN_FABRIC_ETHERTYPE;
	gc.frame_len = 60;
	gc.rate_pps = 10000;
	gc.flow_base = 1024;
	memset(&gc.dst_mac, 0xff, sizeof(gc.dst_mac));
	/* --help before any "--" is ours: EAL would print its own list. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		}
	/* --version anywhere, without starting EAL. */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--version") == 0) {
			printf("dcn-gen %s (%s)\n", DCN_VERSION, rte_version());
			return 0;
		}
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dcn-gen: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tx_dev = optarg;
			break;
		case 'r':
			rx_dev = optarg;
			break;
		case 's':
			if (dcn_topo_parse_addr(optarg, &gc.src_addr) != 0) {
				fprintf(stderr, "dcn-gen: --src: bad address '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			for (tok = strtok_r(optarg, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				if (gc.n_dst == MAX_DST ||
				    dcn_topo_parse_addr(tok, &dst[gc.n_dst]) != 0) {
					fprintf(stderr, "dcn-gen: --dst: bad address '%s'\n",
						tok);
					return 2;
				}
				gc.n_dst++;
			}
			break;
		case 'p':
			if (!strcmp(optarg, "uniform"))
				gc.pattern = DCN_GEN_UNIFORM;
			else if (!strcmp(optarg, "list"))
				gc.pattern = DCN_GEN_LIST;
			else if (!strcmp(optarg, "permutation"))
				gc.pattern = DCN_GEN_PERMUTATION;
			else {
				fprintf(stderr, "dcn-gen: --pattern: uniform, list or "
					"permutation\n");
				return 2;
			}
			break;
		case 'R':
			if (parse_num(optarg, "--rate", 0, 1e9, &gc.rate_pps))
				return 2;
			break;
		case 'c':
			if (parse_num(optarg, "--count", 1, 1e15, &v))
				return 2;
			gc.count = (uint64_t)v;
			break;
		case 'S':
			if (parse_num(optarg, "--size", DCN_GEN_MIN_FRAME, 1514, &v))
				return 2;
			gc.frame_len = (uint16_t)v;
			break;
		case 'm':
			if (rte_ether_unformat_addr(optarg, &gc.dst_mac) != 0) {
				fprintf(stderr, "dcn-gen: --dst-mac: bad MAC '%s'\n", optarg);
				return 2;
			}
			break;
		case 'D':
			if (parse_num(optarg, "--duration", 0, 1e9, &duration))
				return 2;
			break;
		case 'L':
			if (parse_num(optarg, "--linger", 0, 3600, &linger))
				return 2;
			break;
		case 'W':
			if (parse_num(optarg, "--link-wait", 0, 3600, &link_wait))
				return 2;
			break;
		case 'j':
			json = 1;
			break;
		case 'H':
			hold = 1;
			break;
		case 'e':
			if (strcmp(optarg, "udp") != 0 && strcmp(optarg, "ether") != 0) {
				fprintf(stderr, "dcn-gen: --encap: ether or udp\n");
				return 2;
			}
			encap_udp = strcmp(optarg, "udp") == 0;
			break;
		case 'q':
			txq = strtoul(optarg, &opt_end, 0);
			if (*opt_end != '\0' || txq == 0 || txq > 16) {
				fprintf(stderr, "dcn-gen: --txq: 1..16\n");
				return 2;
			}
			break;
		case 'u':
			udp_port = strtoul(optarg, &opt_end, 0);
			if (*opt_end != '\0' || udp_port == 0 || udp_port > 0xffff) {
				fprintf(stderr, "dcn-gen: --udp-port: 1..65535\n");
				return 2;
			}
			break;
		case 'F':
			fabric_spec = optarg;
			break;
		case 'Q':
			search = 1;
			break;
		case 'T':
			if (parse_num(optarg, "--trial", 0.01, 3600, &gs.trial_s))
				return 2;
			break;
		case 'E':
			if (parse_num(optarg, "--resolution", 0.01, 50, &v))
				return 2;
			gs.resolution = v / 100;
			break;
		case 'N':
			if (parse_num(optarg, "--max-trials", 1, GEN_SEARCH_MAX_TRIALS, &v))
				return 2;
			gs.max_trials = (unsigned int)v;
			break;
		case 'C':
			gs.credits = 1;
			break;
		case 'O':
			gs.obey = 1;
			break;
		case 'B':
			if (parse_num(optarg, "--credit-batch", 1, 4096, &v))
				return 2;
			gs.credit_batch = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (tx_dev == NULL && rx_dev == NULL) {
		fprintf(stderr, "dcn-gen: give --tx and/or --rx (--help)\n");
		return 2;
	}
	if ((gs.credits || gs.obey) && !search) {
		fprintf(stderr, "dcn-gen: --credits and --obey-credits go with --search\n");
		return 2;
	}
	if (gs.obey && fabric_spec == NULL) {
		fprintf(stderr, "dcn-gen: --obey-credits needs --fabric (credits are "
			"for fabric frames)\n");
		return 2;
	}
	if (search && (tx_dev == NULL || rx_dev == NULL)) {
		fprintf(stderr, "dcn-gen: --search needs --tx and --rx\n");
		return 2;
	}
	if (tx_dev != NULL && (gc.n_dst == 0 || gc.src_addr == 0)) {
		fprintf(stderr, "dcn-gen: sending needs --src and --dst\n");
		return 2;
	}
	if (fabric_spec != NULL) {
		struct dcn_route_conf rc;
		char err[256];

		memset(&rc, 0, sizeof(rc));
		topo = dcn_topo_create(fabric_spec, err, sizeof(err));
		router = topo ? dcn_router_create_conf(topo, &rc, err, sizeof(err))
			      : NULL;
		if (router == NULL) {
			fprintf(stderr, "dcn-gen: --fabric %s: %s\n", fabric_spec, err);
			return 2;
		}
		if (dcn_topo_vertex_of(topo, gc.src_addr) < 0) {
			fprintf(stderr, "dcn-gen: --src is not a node of %s\n",
				fabric_spec);
			return 2;
		}
	}
	if (txq > 1) {
		spread.n = (uint16_t)txq;
		dcn_port_rss_key(spread.key, sizeof(spread.key));
		dcn_port_rss_reta(spread.reta, DCN_PORT_RSS_RETA_DEFAULT, spread.n);
	}
	if (encap_udp) {
		/* The generator speaks for --src, the relay it stands in for;
		 * whom it sends to it does not learn (255.255.255.255). */
		if (dcn_port_udp_init(&udp, DCN_FABRIC_ETHERTYPE, (uint16_t)udp_port,
				      gc.src_addr, 0) != 0) {
			fprintf(stderr, "dcn-gen: --encap udp: no mbuf field left\n");
			return 1;
		}
		gs.udp = &udp;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	hz = rte_get_tsc_hz();
	mp = rte_pktmbuf_pool_create("gen_mbufs", 8191, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (mp == NULL || dcn_gen_sink_init(&sink, 65536) != 0) {
		fprintf(stderr, "dcn-gen: out of memory (EAL -m?)\n");
		return 1;
	}
	if ((tx_dev && (ret = open_port(tx_dev, mp, (uint16_t)txq, &txp)) != 0) ||
	    (rx_dev && (ret = open_port(rx_dev, mp, 1, &rxp)) != 0)) {
		fprintf(stderr, "dcn-gen: cannot open port: %s\n", strerror(-ret));
		return 1;
	}
	start = rte_rdtsc();
	while (!quit && rte_rdtsc() - start < (uint64_t)(link_wait * (double)hz) &&
	       !((!tx_dev || link_up(txp)) && (!rx_dev || link_up(rxp))))
		rte_delay_ms(10);
	if (tx_dev != NULL) {
		struct rte_ether_addr mac;

		rte_eth_macaddr_get(txp, &mac);
		gc.src_mac = mac;
		gc.dst = dst;
		if (dcn_gen_init(&gen, &gc, hz) != 0) {
			fprintf(stderr, "dcn-gen: bad generator settings\n");
			return 2;
		}
	}
	if (search)
		return run_search(&gs, &gen, router, mp, txp, rxp, linger, json);
	/* What the receiving port missed (its ring or socket full: a
	 * generator not scheduled in time), counted from here: the PMD's
	 * imissed, and for net_af_packet (which reports none) its sockets'
	 * own drops, read apart so that they are not taken for loss in
	 * the fabric. */
	if (rx_dev != NULL && rte_eth_stats_get(rxp, &rx_stats0) != 0)
		memset(&rx_stats0, 0, sizeof(rx_stats0));
	rx_ifindex = rx_dev != NULL && strncmp(rx_dev, "net_af_packet", 13) == 0 ?
		     dcn_port_devargs_ifindex(rx_dev) : 0;
	if (rx_ifindex > 0)
		(void)dcn_port_packet_rx_drops(rx_ifindex);
	start = rte_rdtsc();
	stop_tx = start + (uint64_t)(duration * (double)hz);
	stop_all = stop_tx + (uint64_t)(linger * (double)hz);
	while (signals < 2) {
		uint64_t now = rte_rdtsc();

		/* Sending ends early at a signal, or when a sender alone has
		 * sent its count; the linger runs from then. */
		if (stop_tx > now &&
		    (signals == 1 || (tx_dev != NULL && rx_dev == NULL && gc.count &&
				      gen.sent >= gc.count))) {
			stop_tx = now;
			stop_all = now + (uint64_t)(linger * (double)hz);
		}

		if (tx_dev != NULL && now < stop_tx) {
			unsigned int n = dcn_gen_due(&gen, now, BURST);

			if (n && rte_pktmbuf_alloc_bulk(mp, m, n) == 0) {
				uint16_t sent;

				dcn_gen_build(&gen, m, n, now);
				if (router != NULL) {
					unsigned int k = encapsulate(router, m, n);

					gen.sent -= n - k;
					n = k;
				}
				if (encap_udp)
					dcn_port_udp_wrap(&udp, m, (uint16_t)n);
				if (txq > 1) {
					sent = (uint16_t)tx_spread(txp, m, n);
					tx_fail += n - sent;
					gen.sent -= n - sent;
					n = sent;
				}
				sent = txq > 1 ? (uint16_t)n :
					rte_eth_tx_burst(txp, 0, m, (uint16_t)n);
				if (sent < n) {
					/* Not sent: not counted as sent. */
					tx_fail += n - sent;
					gen.sent -= n - sent;
					rte_pktmbuf_free_bulk(&m[sent], n - sent);
				}
			}
		}
		if (rx_dev != NULL) {
			uint16_t n = rte_eth_rx_burst(rxp, 0, m, BURST);

			if (encap_udp && n)
				n = dcn_port_udp_unwrap(&udp, 0, m, n);

			if (n) {
				dcn_gen_sink_rx(&sink, m, n, now);
				rte_pktmbuf_free_bulk(m, n);
			}
		}
		if (now >= stop_all)
			break;
		/* A sender alone keeps its port open for the linger: what
		 * the last bursts left in a shared ring (memif) is still the
		 * peer's to take, and a port closed under it loses it. It
		 * sleeps meanwhile, leaving the CPU to that peer. */
		if (rx_dev == NULL && now >= stop_tx)
			rte_delay_us_sleep(1000);
	}
	dcn_gen_sink_report(sinks, 1, hz, &rep);
	if (rx_dev != NULL && rte_eth_stats_get(rxp, &rx_stats) == 0 &&
	    rx_stats.imissed >= rx_stats0.imissed)
		rx_missed = rx_stats.imissed - rx_stats0.imissed;
	if (rx_ifindex > 0)
		rx_missed += dcn_port_packet_rx_drops(rx_ifindex);
	if (json) {
		printf("{\"sent\": %lu, \"tx_fail\": %lu, \"received\": %lu, "
		       "\"rx_missed\": %lu, "
		       "\"foreign\": %lu, \"lost\": %ld, \"seq_gaps\": %lu, "
		       "\"reordered\": %lu, \"flows\": %u, \"sources\": %u, "
		       "\"untracked\": %lu, "
		       "\"rx_mpps\": %.4f, "
		       "\"latency_us\": {\"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, "
		       "\"p999\": %.1f, \"max\": %.1f}}\n",
		       (unsigned long)(tx_dev ? gen.sent : 0), (unsigned long)tx_fail,
		       (unsigned long)(rep.rx - rep.foreign),
		       (unsigned long)rx_missed,
		       (unsigned long)rep.foreign,
		       tx_dev && rx_dev ? (long)gen.sent - (long)(rep.rx - rep.foreign)
					: (long)rep.lost,
		       (unsigned long)rep.lost, (unsigned long)rep.reordered,
		       rep.flows, rep.sources, (unsigned long)rep.untracked,
		       rep.seconds > 0 ? (double)rep.rx / rep.seconds / 1e6 : 0.0,
		       rep.p50_us, rep.p90_us, rep.p99_us, rep.p999_us, rep.max_us);
	} else {
		if (tx_dev)
			printf("sent %lu frames (%lu not taken by the port)\n",
			       (unsigned long)gen.sent, (unsigned long)tx_fail);
		if (rx_dev)
			printf("received %lu stamped frames (%lu others; %lu missed "
			       "by the port) in %.2f s, "
			       "%.4f Mpps; %lu missing in sequence, %lu reordered, %u "
			       "flows\nlatency us: p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f "
			       "max %.1f\n", (unsigned long)(rep.rx - rep.foreign),
			       (unsigned long)rep.foreign, (unsigned long)rx_missed,
			       rep.seconds,
			       rep.seconds > 0 ? (double)rep.rx / rep.seconds / 1e6 : 0,
			       (unsigned long)rep.lost, (unsigned long)rep.reordered,
			       rep.flows, rep.p50_us, rep.p90_us, rep.p99_us,
			       rep.p999_us, rep.max_us);
	}
	if (hold) {
		/* The report is out; the ports stay open and unpolled until the
		 * next signal, so that a memif peer that stops first closes its
		 * end under nothing that reads the shared rings. */
		sig_atomic_t seen = signals;

		fflush(stdout);
		while (signals == seen)
			rte_delay_us_sleep(10000);
	}
	if (tx_dev != NULL)
		dcn_gen_fini(&gen);
	dcn_router_free(router);
	dcn_topo_free(topo);
	dcn_gen_sink_fini(&sink);
	if (tx_dev) {
		rte_eth_dev_stop(txp);
		rte_eth_dev_close(txp);
	}
	if (rx_dev && (!tx_dev || rxp != txp)) {
		rte_eth_dev_stop(rxp);
		rte_eth_dev_close(rxp);
	}
	rte_mempool_free(mp);
	rte_eal_cleanup();
	/* A port that took nothing in the whole run: no traffic was made. */
	if (tx_dev != NULL && gen.sent == 0 && tx_fail > 0) {
		fprintf(stderr, "dcn-gen: %s took none of the %lu frames offered "
			"(its link never came up?)\n", tx_dev, (unsigned long)tx_fail);
		return 1;
	}
	return 0;
}
