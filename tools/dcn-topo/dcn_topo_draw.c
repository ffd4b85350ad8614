/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-topo: a fabric described: its plan (info), its cables one per line
 * (cables) and a Graphviz picture (dot).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_topo_cmd.h"

int
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

/* Every vertex and every cable with its two ports, for scripts that build
 * a fabric (tools/dcn-fabric): "vertex V NAME ROLE ROUTER ADDR" lines, then
 * "cable V PORT W PORT" lines, each cable once. */
int
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

int
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
