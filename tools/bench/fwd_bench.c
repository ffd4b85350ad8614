/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fwd-bench: the cost of the forwarding step alone, without ports: CPU
 * cycles and ns per frame of dcn_fwd_burst on one relay's transit,
 * ingress (encapsulating) and egress (decapsulating) frames, against a
 * scalar IPv4 step of the kind l3fwd runs per frame (LPM lookup, RFC 1812
 * TTL and checksum, Ethernet rewrite) on plain IPv4 frames, in the same
 * run. What the zero-loss bench measures with memif ports adds the ports'
 * receive and send to this.
 *
 * Frames are copied into the mbufs before each burst, as a port's receive
 * would leave them (in cache); only the step is timed. The relay is the
 * zero-loss bench's: NovaCube k=8, n=2, node (1,0), DOR, frames from
 * (0,0), a 256-entry route cache. Figures only: nothing is asserted but
 * that every frame is forwarded (a dropped frame fails the run).
 */
#include <ftw.h>
#include <sched.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dcn_fwd.h"
#include "dcn_gen.h"
#include "dcn_route.h"
#include "dcn_topo.h"

#define SPEC "novacube:k=8,n=2"
#define DUT_NODE "(1,0)"
#define PREV_NODE "(0,0)"
#define CACHE_ENTRIES 256
#define MAX_TEMPLATES 256
#define MAX_FRAME 128
#define PEER_ROUTES 64

struct templates {
	unsigned int n;
	uint16_t in;                       /* the DUT's local input port */
	uint16_t len[MAX_TEMPLATES];
	uint8_t byte[MAX_TEMPLATES][MAX_FRAME];
};

struct bench {
	struct rte_mempool *mp;
	const struct dcn_topo *t;
	const struct dcn_router *r;
	uint32_t prev, dut;
	struct dcn_fwd_ctx *cprev, *cdut;
	struct templates transit, ingress, egress, peer;
	struct rte_lpm *lpm;
	uint64_t peer_eth[2][2];           /* per port: dst MAC, src MAC */
	unsigned int burst, rounds, bursts;
};

static const struct rte_ether_addr bench_mac = { { 2, 0, 0, 0xdc, 0x4e, 1 } };

static void
die(const char *what)
{
	fprintf(stderr, "fwd-bench: %s\n", what);
	exit(1);
}

static struct dcn_fwd_ctx *
make_ctx(struct bench *b, uint32_t node)
{
	struct dcn_rtable *tb = dcn_rtable_compile(b->r, node);
	struct dcn_fwd_ctx *c = rte_zmalloc("fwd-bench-ctx", sizeof(*c), RTE_CACHE_LINE_SIZE);
	uint32_t entries = CACHE_ENTRIES;
	void *cache = rte_zmalloc("fwd-bench-cache", dcn_fwd_cache_bytes(entries),
				  RTE_CACHE_LINE_SIZE);
	struct dcn_adj a[16];
	unsigned int n, i;

	if (tb == NULL || c == NULL || cache == NULL)
		die("no memory for a context");
	if (dcn_fwd_init(c, b->r, tb, DCN_FABRIC_ETHERTYPE, 0) != 0)
		die("dcn_fwd_init failed");
	n = dcn_topo_adj(b->t, node, a);
	for (i = 0; i < n; i++) {
		if (dcn_fwd_add_port(c, a[i].port, 0, &bench_mac) != (int)i)
			die("dcn_fwd_add_port failed");
		dcn_fwd_set_peer_mac(c, (uint16_t)i, &bench_mac);
	}
	if (dcn_fwd_add_port(c, -1, 1, &bench_mac) != (int)n)
		die("dcn_fwd_add_port (host) failed");
	dcn_fwd_set_peer_mac(c, (uint16_t)n, &bench_mac);
	if (dcn_fwd_set_cache(c, cache, entries) != 0)
		die("dcn_fwd_set_cache failed");
	return c;
}

/* The DUT's local port whose cable leads to vertex v. */
static int
local_towards(const struct bench *b, const struct dcn_fwd_ctx *c, uint32_t node,
	      uint32_t v)
{
	unsigned int i;

	for (i = 0; i < c->n_ports; i++)
		if (!c->port[i].host &&
		    dcn_topo_port_peer(b->t, node, (unsigned int)c->port[i].fabric_port) ==
			    (int64_t)v)
			return (int)i;
	return -1;
}

static void
add(struct templates *tp, const void *frame, uint16_t len)
{
	if (tp->n == MAX_TEMPLATES || len > MAX_FRAME)
		return;
	tp->len[tp->n] = len;
	memcpy(tp->byte[tp->n++], frame, len);
}

static void
keep(struct templates *tp, const struct rte_mbuf *m)
{
	add(tp, rte_pktmbuf_mtod(m, const void *), rte_pktmbuf_data_len(m));
}

/*
 * Frames the bench feeds: every server's address as a destination, sent
 * by (0,0)'s host and encapsulated there; those (0,0) sends to (1,0) are
 * transit frames for it when (1,0) passes them on, egress frames when it
 * takes them off for its host. Ingress frames are (1,0)'s host's own
 * packets to everyone else.
 */
static void
make_frames(struct bench *b)
{
	struct dcn_gen_conf gc = { .frame_len = DCN_GEN_MIN_FRAME, .src_mac = bench_mac,
				   .dst_mac = bench_mac };
	uint16_t prev_host = (uint16_t)(b->cprev->n_ports - 1);
	uint16_t dut_host = (uint16_t)(b->cdut->n_ports - 1);
	int towards_dut = local_towards(b, b->cprev, b->prev, b->dut);
	int from_prev = local_towards(b, b->cdut, b->dut, b->prev);
	uint32_t v, nv = dcn_topo_vertices(b->t);
	uint8_t arrived[MAX_FRAME];
	struct rte_mbuf *m;
	uint16_t out, len;

	if (towards_dut < 0 || from_prev < 0)
		die(PREV_NODE " and " DUT_NODE " are not neighbours");
	b->transit.in = b->egress.in = (uint16_t)from_prev;
	b->ingress.in = dut_host;
	for (v = 0; v < nv; v++) {
		uint32_t dst = dcn_topo_addr(b->t, v);

		if (dst == 0 || !dcn_topo_is_router(b->t, v))
			continue;
		m = rte_pktmbuf_alloc(b->mp);
		if (m == NULL)
			die("mempool empty");
		if (v != b->dut) {
			gc.src_addr = dcn_topo_addr(b->t, b->dut);
			dcn_gen_write(&gc, m, dst, (uint16_t)(1000 + v), 0, 0);
			keep(&b->ingress, m);
		}
		gc.src_addr = dcn_topo_addr(b->t, b->prev);
		dcn_gen_write(&gc, m, dst, (uint16_t)(1000 + v), 0, 0);
		if (dcn_fwd_burst(b->cprev, prev_host, &m, 1, &out) != 1)
			die(PREV_NODE " dropped its own host's packet");
		if (out != towards_dut) {
			rte_pktmbuf_free(m);
			continue;
		}
		/* As it arrives at (1,0); its path is what (1,0) does with it. */
		len = rte_pktmbuf_data_len(m);
		if (len > MAX_FRAME)
			die("a frame too long for the bench");
		memcpy(arrived, rte_pktmbuf_mtod(m, const void *), len);
		if (dcn_fwd_burst(b->cdut, (uint16_t)from_prev, &m, 1, &out) != 1)
			die(DUT_NODE " dropped a frame from " PREV_NODE);
		add(out == dut_host ? &b->egress : &b->transit, arrived, len);
		rte_pktmbuf_free(m);
	}
	if (b->transit.n == 0 || b->egress.n == 0 || b->ingress.n == 0)
		die("no frames for one of the paths");
}

/* The peer: 64 routes 198.18.i.0/24 to port i % 2; frames to each. */
static void
make_peer(struct bench *b)
{
	struct rte_lpm_config lc = { .max_rules = 1024, .number_tbl8s = 256 };
	struct dcn_gen_conf gc = { .frame_len = DCN_GEN_MIN_FRAME, .src_mac = bench_mac,
				   .dst_mac = bench_mac, .src_addr = 0xc6120001 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(b->mp);
	unsigned int i;

	b->lpm = rte_lpm_create("fwd-bench-lpm", (int)rte_socket_id(), &lc);
	if (b->lpm == NULL || m == NULL)
		die("no LPM table");
	for (i = 0; i < PEER_ROUTES; i++) {
		if (rte_lpm_add(b->lpm, 0xc6120000u | i << 8, 24, i % 2) != 0)
			die("rte_lpm_add failed");
		dcn_gen_write(&gc, m, 0xc6120001u | i << 8, (uint16_t)(1000 + i), 0, 0);
		keep(&b->peer, m);
	}
	rte_pktmbuf_free(m);
	for (i = 0; i < 2; i++) {
		b->peer_eth[i][0] = 0x0200000000c6ull + i;
		memcpy(&b->peer_eth[i][1], &bench_mac, 6);
	}
}

/*
 * The peer's step on one frame, as l3fwd takes it: the IPv4 type, the
 * LPM lookup (a miss goes to port 0), TTL and checksum, the Ethernet
 * header rewritten. @return the output port.
 */
static inline uint16_t
peer_step(const struct bench *b, struct rte_mbuf *m)
{
	uint8_t *e = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = e + 14;
	uint32_t dst, hop = 0;
	uint16_t ck;

	if ((e[12] << 8 | e[13]) != 0x0800 || (ip[0] & 0xf0) != 0x40)
		return UINT16_MAX;
	memcpy(&dst, ip + 16, 4);
	if (rte_lpm_lookup(b->lpm, rte_be_to_cpu_32(dst), &hop) != 0)
		hop = 0;
	ip[8]--;
	memcpy(&ck, ip + 10, 2);
	ck++;
	memcpy(ip + 10, &ck, 2);
	memcpy(e, &b->peer_eth[hop][0], 6);
	memcpy(e + 6, &b->peer_eth[hop][1], 6);
	return (uint16_t)hop;
}

/* Copy frames from tp into m, in turn, as a port's receive would. */
static void
fill(struct rte_mbuf **m, unsigned int n, const struct templates *tp,
     unsigned int *next)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int k = (*next)++ % tp->n;

		m[i]->data_off = RTE_PKTMBUF_HEADROOM;
		m[i]->data_len = m[i]->pkt_len = tp->len[k];
		memcpy(rte_pktmbuf_mtod(m[i], void *), tp->byte[k], tp->len[k]);
	}
}

/* @return the best round's TSC cycles per frame (peer: the LPM step);
 * *misses: route-cache misses over all rounds. */
static double
run(struct bench *b, const struct templates *tp, int peer, uint64_t *misses)
{
	uint64_t miss0 = b->cdut->cache_miss;
	struct rte_mbuf *m[64];
	uint16_t out[64];
	unsigned int r, i, k, next = 0;
	double best = 0;

	if (rte_pktmbuf_alloc_bulk(b->mp, m, b->burst) != 0)
		die("mempool empty");
	for (r = 0; r < b->rounds; r++) {
		uint64_t cycles = 0, frames = 0;

		for (i = 0; i < b->bursts; i++) {
			uint64_t t0;
			uint16_t kept;

			fill(m, b->burst, tp, &next);
			t0 = rte_rdtsc_precise();
			if (peer) {
				for (k = 0; k < b->burst; k++)
					out[k] = peer_step(b, m[k]);
				kept = (uint16_t)b->burst;
			} else {
				/* As a worker without flow control. */
				dcn_fwd_prefetch(m, (uint16_t)b->burst);
				kept = dcn_fwd_burst(b->cdut, tp->in, m, (uint16_t)b->burst, out);
			}
			cycles += rte_rdtsc_precise() - t0;
			if (kept != b->burst)
				die("a frame was dropped: the bench's frames or relay are wrong");
			for (k = 0; k < b->burst; k++)
				if (out[k] >= b->cdut->n_ports && !(peer && out[k] < 2))
					die("a frame went nowhere");
			frames += b->burst;
		}
		if (r == 0 || (double)cycles / frames < best)
			best = (double)cycles / frames;
	}
	rte_pktmbuf_free_bulk(m, b->burst);
	*misses = b->cdut->cache_miss - miss0;
	return best;
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: fwd-bench [--burst N] [--rounds N] [--bursts N] [--path P] [--csv]\n"
		"  The forwarding step's cost per frame on " SPEC " relay " DUT_NODE
		",\n  against a scalar LPM step as l3fwd takes it, same run.\n"
		"  --burst N    frames per call, 1..64 (default 32)\n"
		"  --rounds N   rounds, the best is kept (default 5)\n"
		"  --bursts N   bursts a round (default 100000)\n"
		"  --csv        one CSV line per path\n"
		"  --path P     only transit, ingress or egress (and lpm-step)\n"
		"  EAL: runs with --no-huge on the CPU it starts on, its own file prefix.\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "burst", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "bursts", required_argument, NULL, 'n' },
		{ "csv", no_argument, NULL, 'c' },
		{ "path", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench b = { .burst = 32, .rounds = 5, .bursts = 100000 };
	char err[DCN_TOPO_ERR_LEN], prefix[64], lcore[16], rundir[96];
	char *eal[] = { argv[0], "--no-huge", "-m", "256", "--no-pci", "-l", lcore,
			prefix, "--log-level=4", NULL };
	struct {
		const char *name;
		const struct templates *tp;
		int peer;
		double cyc;
		uint64_t misses;
	} path[] = {
		{ "transit", &b.transit, 0, 0, 0 },
		{ "ingress", &b.ingress, 0, 0, 0 },
		{ "egress", &b.egress, 0, 0, 0 },
		{ "lpm-step", &b.peer, 1, 0, 0 },
	};
	struct dcn_topo *t;
	struct dcn_router *r;
	int64_t v;
	const char *only = NULL;
	int c, csv = 0, cpu = sched_getcpu();
	unsigned int i;
	double hz;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			b.burst = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			b.rounds = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			b.bursts = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			csv = 1;
			break;
		case 'p':
			only = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (only != NULL && strcmp(only, "transit") != 0 && strcmp(only, "ingress") != 0 &&
	    strcmp(only, "egress") != 0) {
		fprintf(stderr, "fwd-bench: --path: transit, ingress or egress, not '%s'\n", only);
		return 2;
	}
	if (b.burst < 1 || b.burst > 64 || b.rounds < 1 || b.bursts < 1) {
		usage(stderr);
		return 2;
	}
	snprintf(lcore, sizeof(lcore), "%d", cpu < 0 ? 0 : cpu);
	snprintf(prefix, sizeof(prefix), "--file-prefix=dcn-fwd-bench-%d", (int)getpid());
	snprintf(rundir, sizeof(rundir), "/var/run/dpdk/dcn-fwd-bench-%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0) {
		printf("SKIP: EAL did not start\n");
		return 77;
	}
	b.mp = rte_pktmbuf_pool_create("fwd-bench", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (b.mp == NULL)
		die("no mempool");
	t = dcn_topo_create(SPEC, err, sizeof(err));
	if (t == NULL)
		die(err);
	r = dcn_router_create(t, (enum dcn_route_algo)dcn_route_algo_parse("dor"), err,
			      sizeof(err));
	if (r == NULL)
		die(err);
	b.t = t;
	b.r = r;
	v = dcn_topo_parse_vertex(t, PREV_NODE, err, sizeof(err));
	if (v < 0)
		die(err);
	b.prev = (uint32_t)v;
	v = dcn_topo_parse_vertex(t, DUT_NODE, err, sizeof(err));
	if (v < 0)
		die(err);
	b.dut = (uint32_t)v;
	b.cprev = make_ctx(&b, b.prev);
	b.cdut = make_ctx(&b, b.dut);
	make_frames(&b);
	make_peer(&b);
	hz = (double)rte_get_tsc_hz();
	for (i = 0; i < RTE_DIM(path); i++)
		if (only == NULL || strcmp(only, path[i].name) == 0 || path[i].peer)
			path[i].cyc = run(&b, path[i].tp, path[i].peer, &path[i].misses);
	if (csv)
		printf("path,destinations,burst,cycles_per_frame,ns_per_frame,"
		       "ratio_to_lpm_step,route_cache_misses\n");
	else
		printf("fwd-bench: " SPEC " relay " DUT_NODE ", DOR, route cache %u entries, "
		       "burst %u, best of %u rounds of %u bursts, TSC %.2f GHz\n"
		       "%-9s %6s %14s %10s %12s %8s\n", CACHE_ENTRIES, b.burst, b.rounds,
		       b.bursts, hz / 1e9, "path", "dests", "cycles/frame", "ns/frame",
		       "x lpm-step", "misses");
	for (i = 0; i < RTE_DIM(path); i++) {
		double ns = path[i].cyc * 1e9 / hz;
		double ratio = path[i].cyc / path[RTE_DIM(path) - 1].cyc;

		if (path[i].cyc == 0)
			continue;

		if (csv)
			printf("%s,%u,%u,%.1f,%.2f,%.2f,%" PRIu64 "\n", path[i].name,
			       path[i].tp->n, b.burst, path[i].cyc, ns, ratio, path[i].misses);
		else
			printf("%-9s %6u %14.1f %10.2f %12.2f %8" PRIu64 "\n", path[i].name,
			       path[i].tp->n, path[i].cyc, ns, ratio, path[i].misses);
	}
	rte_lpm_free(b.lpm);
	rte_mempool_free(b.mp);
	rte_eal_cleanup();
	/* The runtime directory of our own prefix. */
	nftw(rundir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}
