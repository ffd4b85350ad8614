/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route-bench: for one node of a fabric of about a million servers, the
 * compile time and size of its routing table and the cost of a lookup.
 *
 * Prints one line per topology (text, or CSV with --csv). Times are
 * measured, never asserted: the machines are shared.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcn_route.h"
#include "dcn_topo.h"

#define LOOKUPS (1u << 22)

static const char *const default_specs[] = {
	"novacube:k=32,n=4",     /* 1,048,576 servers */
	"diamond:k=160",         /* 1,024,000 servers */
	"rrect:n=16,m=16,k=3",   /* 1,048,576 servers */
	"bcube:n=32,k=3",        /* 1,048,576 servers */
	"lascada:n=8,k=3",       /*   524,288 servers (next: 2.5M) */
	"totoro:N=32,n=32,K=3",  /* 1,048,576 servers */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
bench(const char *spec, int csv, uint64_t seed)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_topo *t;
	struct dcn_router *r;
	struct dcn_rtable *tb;
	struct dcn_route_state st;
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	uint32_t *addr, node, i, ns;
	uint64_t rng = seed, sink = 0, found = 0;
	double t0, t_router, t_compile, t_lookup;
	const char *form;

	t = dcn_topo_create(spec, err, sizeof(err));
	if (t == NULL) {
		fprintf(stderr, "route-bench: %s\n", err);
		return -1;
	}
	t0 = now_s();
	r = dcn_router_create(t, DCN_ALGO_DEFAULT, err, sizeof(err));
	if (r == NULL) {
		fprintf(stderr, "route-bench: %s\n", err);
		dcn_topo_free(t);
		return -1;
	}
	t_router = now_s() - t0;
	ns = dcn_topo_servers(t);
	/* A routing node in the middle of the fabric. */
	for (node = dcn_topo_vertices(t) / 2; !dcn_topo_is_router(t, node);)
		node = (node + 1) % dcn_topo_vertices(t);
	t0 = now_s();
	tb = dcn_rtable_compile(r, node);
	t_compile = now_s() - t0;
	if (tb == NULL) {
		fprintf(stderr, "route-bench: %s: compile: %s\n", spec,
			strerror(errno));
		dcn_router_free(r);
		dcn_topo_free(t);
		return -1;
	}
	addr = malloc(LOOKUPS * sizeof(*addr));
	if (addr == NULL) {
		dcn_rtable_free(tb);
		dcn_router_free(r);
		dcn_topo_free(t);
		return -1;
	}
	for (i = 0; i < LOOKUPS; i++)
		addr[i] = dcn_topo_addr(t, (uint32_t)(dcn_rand(&rng) % ns));
	dcn_route_state_init(r, node, 0, &st);
	t0 = now_s();
	for (i = 0; i < LOOKUPS; i++) {
		const struct dcn_hop *h;
		unsigned int n = dcn_rtable_lookup(tb, addr[i], &st, scratch, &h);

		if (n != 0) {
			sink += h[0].port;
			found++;
		}
	}
	t_lookup = now_s() - t0;
	switch (dcn_rtable_form(tb)) {
	case DCN_RTABLE_FLAT: form = "flat"; break;
	case DCN_RTABLE_CLASS: form = "class"; break;
	default: form = "digit"; break;
	}
	if (csv)
		printf("%s,%u,%s,%.3f,%.3f,%zu,%u,%.1f,%" PRIu64 "\n", spec, ns,
		       form, t_router * 1e3, t_compile * 1e3,
		       dcn_rtable_bytes(tb), dcn_rtable_sets(tb),
		       t_lookup * 1e9 / LOOKUPS, found);
	else
		printf("%-24s %9u  %-5s  router %8.1f ms  compile %8.1f ms  %10zu bytes  %5u sets  %6.1f ns/lookup\n",
		       spec, ns, form, t_router * 1e3, t_compile * 1e3,
		       dcn_rtable_bytes(tb), dcn_rtable_sets(tb),
		       t_lookup * 1e9 / LOOKUPS);
	if (found == 0 || sink == UINT64_MAX)
		fprintf(stderr, "route-bench: %s: no lookup found a route\n", spec);
	free(addr);
	dcn_rtable_free(tb);
	dcn_router_free(r);
	dcn_topo_free(t);
	return found == 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int csv = 0, c, ret = 0, i;

	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			csv = 1;
			break;
		case 'h':
			printf("Usage: route-bench [--csv] [SPEC...]\n"
			       "Compile time, bytes and lookup cost of one node's routing table\n"
			       "for each SPEC (default: a ~1M-server instance of each topology).\n");
			return 0;
		default:
			return 2;
		}
	}
	if (csv)
		printf("spec,servers,form,router_ms,compile_ms,bytes,sets,ns_per_lookup,routed_lookups\n");
	if (optind == argc) {
		for (i = 0; i < (int)(sizeof(default_specs) / sizeof(default_specs[0])); i++)
			ret |= bench(default_specs[i], csv, 42) < 0;
	} else {
		for (i = optind; i < argc; i++)
			ret |= bench(argv[i], csv, 42) < 0;
	}
	return ret;
}
