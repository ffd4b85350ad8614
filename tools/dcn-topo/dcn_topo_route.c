/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-topo: routes hop by hop (route, with every branch when they draw),
 * RRect's parallel paths (paths) and a node's compiled table (table).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_topo_cmd.h"

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

int
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

int
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

int
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
