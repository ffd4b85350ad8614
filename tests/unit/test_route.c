/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/route: the papers' worked examples and properties that can fail:
 * every pair reached, no node visited twice, routes no shorter than BFS,
 * RRect's parallel paths disjoint, compiled tables equal to the router.
 */
#include <errno.h>

#include "dcn_metrics.h"
#include "test_common.h"

#define MAX_WALK 256

static void
test_router_invalid(void **state)
{
	struct dcn_topo *nc = topo_or_fail("novacube:k=8,n=2");
	struct dcn_topo *rr = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_topo *tt = topo_or_fail("totoro:N=4,n=4,K=3");
	struct dcn_router *r;
	char err[DCN_TOPO_ERR_LEN];

	(void)state;
	errno = 0;
	assert_null(dcn_router_create(nc, DCN_ALGO_FAR, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, "does not apply"));
	assert_null(dcn_router_create(nc, (enum dcn_route_algo)99, err,
				      sizeof(err)));
	/* TRA needs every link level in each Totoro_0. */
	assert_null(dcn_router_create(tt, DCN_ALGO_DEFAULT, err, sizeof(err)));
	assert_non_null(strstr(err, "multiple of 2^K"));
	assert_int_equal(dcn_route_algo_parse("nope"), -1);
	assert_int_equal(dcn_route_algo_parse("pora"), DCN_ALGO_PORA);
	/* A switch has no table. */
	r = router_or_fail(rr, DCN_ALGO_DEFAULT);
	errno = 0;
	assert_null(dcn_rtable_compile(r, dcn_topo_servers(rr)));
	assert_int_equal(errno, EINVAL);
	assert_null(dcn_rtable_compile(r, dcn_topo_vertices(rr) + 5));
	dcn_router_free(r);
	/* DOR also runs on NovaCube. */
	r = router_or_fail(nc, DCN_ALGO_DOR);
	dcn_router_free(r);
	dcn_topo_free(nc);
	dcn_topo_free(rr);
	dcn_topo_free(tt);
}

/* Fig. 4: S=(0,0), D=(2,3) in an 8x8 NovaCube. */
static void
test_pora_worked_example(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=8,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_PORA);
	struct dcn_hop hops[DCN_ROUTE_MAX_HOPS];
	double p[DCN_ROUTE_MAX_HOPS], sum = 0;
	uint32_t s = vertex_or_fail(t, "(0,0)"), d = vertex_or_fail(t, "(2,3)");
	unsigned int n, i;

	(void)state;
	n = dcn_pora_source_probs(r, s, d, hops, p);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++) {
		char name[16];

		sum += p[i];
		dcn_topo_format_vertex(t, hops[i].next, name, sizeof(name));
		if (strcmp(name, "(1,0)") == 0 || strcmp(name, "(0,1)") == 0)
			assert_near(p[i], 0.2143, 0.00005);
		else if (strcmp(name, "(7,0)") == 0 || strcmp(name, "(0,7)") == 0)
			assert_near(p[i], 0.09524, 0.000005);
		else if (strcmp(name, "(4,4)") == 0)
			assert_near(p[i], 0.3810, 0.00005);
		else
			fail_msg("unexpected candidate %s", name);
		/* The stored weight carries the same probability. */
		assert_near(hops[i].weight / (double)DCN_ROUTE_WEIGHT_ONE, p[i],
			    0.0001);
	}
	assert_near(sum, 1.0, 1e-9);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* Walk every pair several times: delivered, no node twice, never shorter
 * than BFS (and exactly BFS when must_be_shortest). */
static void
check_walks(const char *spec, enum dcn_route_algo algo, unsigned int draws,
	    int must_be_shortest, uint32_t max_sources)
{
	struct dcn_topo *t = topo_or_fail(spec);
	struct dcn_router *r = router_or_fail(t, algo);
	uint32_t ns = dcn_topo_servers(t), s, d, path[MAX_WALK];
	uint16_t *dist = malloc(dcn_topo_vertices(t) * sizeof(*dist));
	uint8_t *seen = calloc(dcn_topo_vertices(t), 1);
	uint64_t rng = 7;
	uint32_t step = max_sources && ns > max_sources ? ns / max_sources : 1;

	assert_non_null(dist);
	assert_non_null(seen);
	for (s = 0; s < ns; s += step) {
		assert_int_equal(dcn_metrics_bfs(t, s, dist), 0);
		for (d = 0; d < ns; d++) {
			unsigned int k;

			if (d == s)
				continue;
			for (k = 0; k < draws; k++) {
				struct dcn_path_len len;
				int h = dcn_route_walk(r, s, d, &rng, path, MAX_WALK,
						       &len);
				int i;

				if (h < 0)
					fail_msg("%s: no route #%u -> #%u", spec, s, d);
				assert_int_equal(path[h], d);
				for (i = 0; i <= h; i++) {
					if (seen[path[i]])
						fail_msg("%s: #%u -> #%u visits #%u twice",
							 spec, s, d, path[i]);
					seen[path[i]] = 1;
				}
				for (i = 0; i <= h; i++)
					seen[path[i]] = 0;
				if (len.links < dist[d])
					fail_msg("%s: route #%u -> #%u has %u links, BFS %u",
						 spec, s, d, len.links, dist[d]);
				if (must_be_shortest && len.links != dist[d])
					fail_msg("%s: route #%u -> #%u has %u links, shortest %u",
						 spec, s, d, len.links, dist[d]);
			}
		}
	}
	free(dist);
	free(seen);
	dcn_router_free(r);
	dcn_topo_free(t);
}

static void
test_pora_walks(void **state)
{
	(void)state;
	check_walks("novacube:k=8,n=2", DCN_ALGO_PORA, 8, 0, 0);
	check_walks("novacube:k=5,n=2", DCN_ALGO_PORA, 8, 0, 0);
	check_walks("novacube:k=4,n=3", DCN_ALGO_PORA, 4, 0, 0);
	check_walks("novacube:k=7,n=3", DCN_ALGO_PORA, 2, 0, 40);
	check_walks("novacube:k=8,n=1", DCN_ALGO_PORA, 16, 0, 0);
	check_walks("novacube:k=6,n=4", DCN_ALGO_PORA, 1, 0, 30);
}

/* Read literally, PORA may leave (0,0) for (0,2) along x, where the
 * destination does not differ: the quadrant then runs round the x ring
 * and back through the source. The corrected rule never does. */
static void
test_pora_literal_revisits(void **state)
{
	struct dcn_topo *t = topo_or_fail("novacube:k=8,n=2");
	struct dcn_router *lit = router_or_fail(t, DCN_ALGO_PORA_LITERAL);
	struct dcn_router *fix = router_or_fail(t, DCN_ALGO_PORA);
	uint32_t s = vertex_or_fail(t, "(0,0)"), d = vertex_or_fail(t, "(0,2)");
	uint32_t path[MAX_WALK];
	uint64_t rng = 5;
	unsigned int i, revisits = 0;

	(void)state;
	for (i = 0; i < 2000; i++) {
		int h = dcn_route_walk(lit, s, d, &rng, path, MAX_WALK, NULL), j;

		assert_true(h > 0);
		for (j = 1; j <= h; j++)
			revisits += path[j] == s;
	}
	assert_true(revisits > 0);
	for (i = 0; i < 2000; i++) {
		int h = dcn_route_walk(fix, s, d, &rng, path, MAX_WALK, NULL), j;

		assert_true(h > 0);
		for (j = 1; j <= h; j++)
			assert_int_not_equal(path[j], s);
	}
	dcn_router_free(lit);
	dcn_router_free(fix);
	dcn_topo_free(t);
}

/* DOR on a torus takes shortest paths; VCs switch at the dateline. */
/* Router of spec with at most vcs VCs (0: the rule's), the channel
 * dependency graph's result. */
static struct dcn_cdg_result
cdg_of(const char *spec, unsigned int vcs)
{
	struct dcn_topo *t = topo_or_fail(spec);
	struct dcn_route_conf conf = { .algo = DCN_ALGO_DEFAULT, .vcs = vcs };
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_router *r = dcn_router_create_conf(t, &conf, err, sizeof(err));
	struct dcn_cdg_result res;

	assert_non_null(r);
	assert_int_equal(dcn_route_cdg(r, 0, 1, &res), 0);
	dcn_router_free(r);
	dcn_topo_free(t);
	return res;
}

/*
 * The channel dependency graph check finds the cycle a ring with one VC
 * has (every hop waits for the next, round the ring), and none with the
 * dateline's two; PORA's first hop out of dimension order closes a
 * cycle on the paper's two VCs, which the VC pair per break of order
 * takes away.
 */
static const char *const hop_specs[] = {
	"diamond:k=4", "rrect:n=4,m=2,k=1", "lascada:n=2,k=2",
	"totoro:N=4,n=4,K=1",
};

static void
test_cdg(void **state)
{
	struct dcn_cdg_result res;
	unsigned int i;

	(void)state;
	res = cdg_of("torus:k=4,n=1", 1);
	assert_int_equal(res.vcs, 1);
	assert_true(res.cycle_len >= 2);
	/* The cycle printed is one: each channel ends where the next starts,
	 * and the last where the first starts. */
	for (i = 0; i < res.cycle_len; i++)
		assert_int_equal(res.cycle[i].to,
				 res.cycle[(i + 1) % res.cycle_len].from);
	res = cdg_of("torus:k=4,n=1", 0);
	assert_int_equal(res.cycle_len, 0);
	assert_int_equal(res.vcs_used, 2);
	res = cdg_of("novacube:k=4,n=2", 2);
	assert_true(res.cycle_len >= 2);
	res = cdg_of("novacube:k=4,n=2", 0);
	assert_int_equal(res.cycle_len, 0);
	assert_int_equal(res.vcs_used, 6);
	/* Every other fabric closes a cycle on one VC too (routes run both
	 * ways through the same relays); hop-count VCs take it away. */
	for (i = 0; i < sizeof(hop_specs) / sizeof(hop_specs[0]); i++) {
		res = cdg_of(hop_specs[i], 1);
		assert_true(res.cycle_len >= 2);
		res = cdg_of(hop_specs[i], 0);
		assert_int_equal(res.cycle_len, 0);
		assert_true(res.routes > 0);
		assert_true(res.vcs_used <= res.vcs);
	}
}

static void
test_dor(void **state)
{
	struct dcn_topo *t = topo_or_fail("torus:k=8,n=2");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	uint32_t cur = vertex_or_fail(t, "(6,0)"), dst = vertex_or_fail(t, "(1,2)");
	unsigned int vc_seen[2] = { 0, 0 };

	(void)state;
	check_walks("torus:k=8,n=2", DCN_ALGO_DOR, 1, 1, 0);
	check_walks("torus:k=5,n=3", DCN_ALGO_DOR, 1, 1, 0);
	/* (6,0) -> (1,2): +x over the 7 -> 0 wraparound, then +y. */
	dcn_route_state_init(r, cur, dst, &st);
	while (cur != dst) {
		unsigned int n = dcn_route_candidates(r, cur, dst, &st, h);
		uint8_t c[2];

		assert_int_equal(n, 1);
		dcn_topo_nc_coords(t, cur, c);
		dcn_route_advance(r, cur, &h[0], &st);
		vc_seen[st.vc]++;
		if (c[0] == 7 && h[0].port == 0)
			assert_int_equal(st.vc, 1); /* crossed the dateline */
		if (h[0].port / 2 == 1)
			assert_int_equal(st.vc, 0); /* new dimension */
		cur = h[0].next;
	}
	assert_int_equal(vc_seen[1], 2); /* 7->0 and 0->1 in x */
	dcn_router_free(r);
	dcn_topo_free(t);
}

/*
 * A route past its rule's VCs is spent (DCN_VC_SPENT) rather than kept on
 * the last VC, where two relays bouncing frames at each other (tables
 * that disagree for a moment) could hold each other's queues full for
 * good: by hop count, one hop beyond the last VC; by NovaCube's dateline,
 * one break of order beyond the last class. Fewer VCs asked for merge
 * the last ones instead, as before.
 */
static void
test_vcs_spent(void **state)
{
	struct dcn_topo *t = topo_or_fail("totoro:N=4,n=4,K=1");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_route_conf conf = { .algo = DCN_ALGO_DEFAULT, .vcs = 3 };
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_router *r3 = dcn_router_create_conf(t, &conf, err, sizeof(err));
	uint32_t a = vertex_or_fail(t, "[0,2]"), b = vertex_or_fail(t, "[2,2]");
	struct dcn_hop ab = { .next = b, .via = 21, .port = 1, .weight = 1 };
	struct dcn_hop ba = { .next = a, .via = 21, .port = 1, .weight = 1 };
	struct dcn_route_state st;
	unsigned int hops;

	(void)state;
	assert_non_null(r3);
	assert_int_equal(dcn_route_rule_vcs(r), 5);   /* 2K + 3 */
	assert_int_equal(dcn_route_vcs(r3), 3);
	assert_int_equal(dcn_route_rule_vcs(r3), 5);
	/* [0,2] and [2,2] bouncing a frame for [1,1]: VC 0 .. 4, then spent. */
	dcn_route_state_init(r, a, vertex_or_fail(t, "[1,1]"), &st);
	for (hops = 0; hops < 5; hops++) {
		dcn_route_advance(r, hops % 2 ? b : a, hops % 2 ? &ba : &ab, &st);
		assert_int_equal(st.vc, hops);
	}
	dcn_route_advance(r, b, &ba, &st);
	assert_int_equal(st.vc, DCN_VC_SPENT);
	dcn_route_advance(r, a, &ab, &st);
	assert_int_equal(st.vc, DCN_VC_SPENT);
	/* Three VCs asked for: the last takes every later hop. */
	dcn_route_state_init(r3, a, vertex_or_fail(t, "[1,1]"), &st);
	for (hops = 0; hops < 8; hops++) {
		dcn_route_advance(r3, hops % 2 ? b : a, hops % 2 ? &ba : &ab, &st);
		assert_int_equal(st.vc, hops < 3 ? hops : 2);
	}
	dcn_router_free(r3);
	dcn_router_free(r);
	dcn_topo_free(t);

	/* DOR on a 2D torus: n + 3 = 5 classes of two VCs. Bouncing along
	 * x, each turn back is a break of order: a new class, until the
	 * fifth turn finds none left. */
	t = topo_or_fail("torus:k=8,n=2");
	r = router_or_fail(t, DCN_ALGO_DOR);
	a = vertex_or_fail(t, "(3,3)");
	b = vertex_or_fail(t, "(4,3)");
	ab = (struct dcn_hop){ .next = b, .via = DCN_ROUTE_NONE, .port = 0, .weight = 1 };
	ba = (struct dcn_hop){ .next = a, .via = DCN_ROUTE_NONE, .port = 1, .weight = 1 };
	assert_int_equal(dcn_route_rule_vcs(r), 10);
	dcn_route_state_init(r, a, vertex_or_fail(t, "(6,6)"), &st);
	for (hops = 0; hops < 5; hops++) {
		dcn_route_advance(r, hops % 2 ? b : a, hops % 2 ? &ba : &ab, &st);
		assert_int_equal(st.vc, 2 * hops);     /* class = turns so far */
	}
	dcn_route_advance(r, b, &ba, &st);
	assert_int_equal(st.vc, DCN_VC_SPENT);
	dcn_router_free(r);
	dcn_topo_free(t);
}

/*
 * What the data path drops, the model's walk drops too: LaScaDa with no
 * MaxLifeTime takes 16 VCs, and at 24% of lascada:n=4,k=2's links failed
 * some detours need more (dcn-topo cdg counts them too_long). No walk is
 * delivered in more hops than the VCs, and those routes count as lost,
 * so `stats` and `sweep` do not report as delivered what relays drop.
 */
static void
test_walk_drops_spent(void **state)
{
	struct dcn_topo *t = topo_or_fail("lascada:n=4,k=2");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_route_conf conf = { .algo = DCN_ALGO_DEFAULT, .fail = f };
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_router *r;
	uint32_t ns = dcn_topo_servers(t), s, d, path[64];
	unsigned int longest = 0, cut = 0;
	uint16_t *dist = malloc(dcn_topo_vertices(t) * sizeof(*dist));

	(void)state;
	assert_non_null(dist);
	assert_true(dcn_topo_failset_random(f, DCN_FAIL_LINKS, 0.24, 1) > 0);
	r = dcn_router_create_conf(t, &conf, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(dcn_route_vcs(r), 16);
	for (s = 0; s < ns; s++) {
		assert_int_equal(dcn_metrics_bfs_live(t, f, s, dist), 0);
		for (d = 0; d < ns; d++) {
			int n;

			if (d == s || dist[d] == 0xffff)
				continue;
			n = dcn_route_walk(r, s, d, NULL, path, 64, NULL);
			if (n < 0)
				cut++;
			else if ((unsigned int)n > longest)
				longest = (unsigned int)n;
		}
	}
	assert_true(longest <= 16);
	assert_true(cut > 0);
	free(dist);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

struct far_row {
	const char *dest, *mask, *next;
};

static void
check_brt(const struct dcn_topo *t, const char *sw,
	  const struct far_row *rows, unsigned int nrows)
{
	struct dcn_far_entry e[64];
	unsigned int n = dcn_far_brt(t, vertex_or_fail(t, sw), e), i, j;
	char a[20], m[20], h[20];

	assert_int_equal(n, nrows);
	for (i = 0; i < nrows; i++) {
		int found = 0;

		for (j = 0; j < n; j++) {
			dcn_topo_format_addr(e[j].dest, a, sizeof(a));
			dcn_topo_format_addr(e[j].mask, m, sizeof(m));
			dcn_topo_format_addr(e[j].next_hop, h, sizeof(h));
			if (strcmp(a, rows[i].dest) == 0 &&
			    strcmp(m, rows[i].mask) == 0 &&
			    strcmp(h, rows[i].next) == 0)
				found = 1;
		}
		if (!found)
			fail_msg("%s: BRT lacks %s/%s -> %s", sw, rows[i].dest,
				 rows[i].mask, rows[i].next);
	}
}

/* §IV-A: the BRT of E11 and of C11 at k=4, entry for entry. */
static void
test_far_brt_paper(void **state)
{
	static const struct far_row e11[] = {
		{ "10.1.3.0", "255.255.255.0", "10.1.3.1" },
		{ "10.1.4.0", "255.255.255.0", "10.1.4.1" },
		{ "10.1.0.0", "255.255.0.0", "10.1.3.1" },
		{ "10.1.0.0", "255.255.0.0", "10.1.4.1" },
		{ "10.0.0.0", "255.0.0.0", "10.0.1.1" },
		{ "10.0.0.0", "255.0.0.0", "10.1.3.1" },
		{ "10.0.0.0", "255.0.0.0", "10.1.4.1" },
		{ "10.0.3.0", "255.0.255.0", "10.1.3.1" },
		{ "10.0.4.0", "255.0.255.0", "10.1.4.1" },
	};
	static const struct far_row c11[] = {
		{ "10.1.0.0", "255.255.0.0", "10.1.1.1" },
		{ "10.2.0.0", "255.255.0.0", "10.2.1.1" },
		{ "10.3.0.0", "255.255.0.0", "10.3.1.1" },
		{ "10.4.0.0", "255.255.0.0", "10.4.1.1" },
	};
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_topo *big = topo_or_fail("diamond:k=48");
	struct dcn_far_entry e[3 * 256];

	(void)state;
	check_brt(t, "E11", e11, 9);
	check_brt(t, "C11", c11, 4);
	/* Table II: 108 entries for an edge switch, 48 for a core one. */
	assert_int_equal(dcn_far_brt(big, vertex_or_fail(big, "E7.30"), e), 108);
	assert_int_equal(dcn_far_brt(big, vertex_or_fail(big, "C30.12"), e), 48);
	assert_int_equal(dcn_far_brt(big, vertex_or_fail(big, "10.7.30.2"), e), 0);
	dcn_topo_free(t);
	dcn_topo_free(big);
}

/* §IV-C without failures: 10.1.1.1 forwarding to 10.4.3.2 has candidates
 * C11 (type 1), E13 (type 3) and E14 (type 2), and takes type 1. */
static void
test_far_priorities(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	uint32_t e11 = vertex_or_fail(t, "E11"), d = vertex_or_fail(t, "10.4.3.2");
	unsigned int n, i, draw;

	(void)state;
	dcn_route_state_init(r, e11, d, &st);
	n = dcn_route_candidates(r, e11, d, &st, h);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		uint32_t a = dcn_topo_addr(t, h[i].next);

		if (a == 0x0a000101)
			assert_int_equal(h[i].weight, 0);
		else if (a == 0x0a010301)
			assert_int_equal(h[i].weight, 1);
		else if (a == 0x0a010401)
			assert_int_equal(h[i].weight, 2);
		else
			fail_msg("unexpected next hop %08x", a);
	}
	assert_int_equal(dcn_router_pick_mode(r), DCN_PICK_PRIORITY);
	for (draw = 0; draw < 16; draw++)
		assert_int_equal(dcn_topo_addr(t, h[dcn_route_pick(DCN_PICK_PRIORITY,
								   h, n, draw)].next),
				 0x0a000101);
	dcn_router_free(r);
	dcn_topo_free(t);
}

static void
test_far_walks(void **state)
{
	(void)state;
	/* FAR's priorities keep every route shortest. */
	check_walks("diamond:k=4", DCN_ALGO_FAR, 4, 1, 0);
	check_walks("diamond:k=8", DCN_ALGO_FAR, 2, 1, 0);
	check_walks("diamond:k=12", DCN_ALGO_FAR, 1, 1, 50);
}

static void
expect_path(const struct dcn_topo *t, const uint32_t *path, unsigned int len,
	    const char *const *names, unsigned int nn)
{
	unsigned int i;

	if (len != nn)
		fail_msg("path has %u nodes, expected %u", len, nn);
	for (i = 0; i < nn; i++) {
		char got[DCN_TOPO_NAME_LEN];

		dcn_topo_format_vertex(t, path[i], got, sizeof(got));
		if (path[i] != vertex_or_fail(t, names[i]))
			fail_msg("node %u is %s, expected %s", i, got, names[i]);
	}
}

/* §3.3: RRect(4,2,1) 00 -> 37 by two permutations and two formats; Alg. 2
 * in RRect(4,2,2) 000 -> 025. */
static void
test_rrect_paper_examples(void **state)
{
	static const char *const p1[] = { "00", "07", "37" };
	static const char *const p2[] = { "00", "30", "37" };
	static const char *const p3[] = { "00", "03", "37" };
	static const char *const p4[] = { "00", "34", "37" };
	static const char *const q0[] = { "000", "005", "025" };
	static const char *const q1[] = { "000", "020", "025" };
	static const char *const q2[] = { "000", "100", "120", "125", "025" };
	static const unsigned int low_first[] = { 0, 1 }, high_first[] = { 1, 0 };
	static uint32_t paths[8][DCN_ROUTE_MAX_PATH];
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_topo *t2 = topo_or_fail("rrect:n=4,m=2,k=2");
	uint32_t path[DCN_ROUTE_MAX_PATH], s = vertex_or_fail(t, "00");
	uint32_t d = vertex_or_fail(t, "37");
	unsigned int lens[8], n;

	(void)state;
	n = dcn_rrect_route(t, s, d, low_first, -1, path);
	expect_path(t, path, n, p1, 3);
	n = dcn_rrect_route(t, s, d, high_first, -1, path);
	expect_path(t, path, n, p2, 3);
	/* 37 written as 73: the offset rides on digit 1. */
	n = dcn_rrect_route(t, s, d, low_first, 1, path);
	expect_path(t, path, n, p3, 3);
	n = dcn_rrect_route(t, s, d, high_first, 1, path);
	expect_path(t, path, n, p4, 3);

	n = dcn_rrect_para_paths(t2, vertex_or_fail(t2, "000"),
				 vertex_or_fail(t2, "025"), 0, paths, lens);
	assert_int_equal(n, 3);
	expect_path(t2, paths[0], lens[0], q0, 3);
	expect_path(t2, paths[1], lens[1], q1, 3);
	expect_path(t2, paths[2], lens[2], q2, 5);
	dcn_topo_free(t);
	dcn_topo_free(t2);
}

/* The switch two servers share, or -1. */
static int64_t
shared_switch(const struct dcn_topo *t, uint32_t a, uint32_t b)
{
	struct dcn_adj x[DCN_TOPO_MAX_DIGITS], y[DCN_TOPO_MAX_DIGITS];
	unsigned int n = dcn_topo_adj(t, a, x), m = dcn_topo_adj(t, b, y), i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			if (x[i].peer == y[j].peer)
				return x[i].peer;
	return -1;
}

/* Theorem 3: k+1 paths, no intermediate server or switch in common. */
static void
check_parallel(const char *spec, uint32_t pairs)
{
	static uint32_t paths[DCN_TOPO_MAX_DIGITS][DCN_ROUTE_MAX_PATH];
	struct dcn_topo *t = topo_or_fail(spec);
	uint32_t ns = dcn_topo_servers(t), *owner, p;
	uint64_t rng = 3;
	unsigned int k1 = dcn_topo_params(t)->k + 1;

	owner = calloc(dcn_topo_vertices(t), sizeof(*owner));
	assert_non_null(owner);
	for (p = 0; p < pairs; p++) {
		uint32_t s = (uint32_t)(dcn_rand(&rng) % ns);
		uint32_t d = (uint32_t)(dcn_rand(&rng) % ns);
		unsigned int lens[DCN_TOPO_MAX_DIGITS], n, i, j;
		uint16_t ds[DCN_TOPO_MAX_DIGITS], dd[DCN_TOPO_MAX_DIGITS];
		unsigned int same = 1;

		dcn_topo_rr_digits(t, s, ds);
		dcn_topo_rr_digits(t, d, dd);
		for (i = 1; i < k1; i++)
			same &= ds[i] == dd[i];
		same &= ds[0] % dcn_topo_params(t)->n == dd[0] % dcn_topo_params(t)->n;
		if (s == d || same)
			continue; /* mirrors share every switch: one hop each */
		n = dcn_rrect_para_paths(t, s, d, p, paths, lens);
		assert_int_equal(n, k1);
		for (i = 0; i < n; i++) {
			assert_int_equal(paths[i][0], s);
			assert_int_equal(paths[i][lens[i] - 1], d);
			for (j = 0; j + 1 < lens[i]; j++) {
				int64_t sw = shared_switch(t, paths[i][j],
							   paths[i][j + 1]);

				if (sw < 0)
					fail_msg("%s: path %u hop %u not adjacent", spec,
						 i, j);
				if (owner[sw] != 0 && owner[sw] != i + 1)
					fail_msg("%s: paths %u and %u share a switch",
						 spec, owner[sw] - 1, i);
				owner[sw] = i + 1;
				if (j > 0) {
					if (owner[paths[i][j]] != 0)
						fail_msg("%s: paths %u and %u share a server",
							 spec, owner[paths[i][j]] - 1, i);
					owner[paths[i][j]] = i + 1;
				}
			}
		}
		for (i = 0; i < n; i++)
			for (j = 0; j + 1 < lens[i]; j++) {
				owner[shared_switch(t, paths[i][j], paths[i][j + 1])] = 0;
				owner[paths[i][j]] = 0;
			}
	}
	free(owner);
	dcn_topo_free(t);
}

static void
test_rrect_parallel_disjoint(void **state)
{
	(void)state;
	check_parallel("rrect:n=4,m=2,k=1", 2000);
	check_parallel("rrect:n=4,m=2,k=2", 2000);
	check_parallel("rrect:n=3,m=3,k=3", 2000);
	check_parallel("rrect:n=5,m=1,k=3", 2000);
	check_parallel("rrect:n=8,m=2,k=4", 500);
}

static void
test_rrect_walks(void **state)
{
	(void)state;
	check_walks("rrect:n=4,m=2,k=1", DCN_ALGO_RRECT, 4, 1, 0);
	check_walks("rrect:n=3,m=2,k=2", DCN_ALGO_RRECT, 2, 1, 0);
	check_walks("bcube:n=4,k=3", DCN_ALGO_RRECT, 1, 1, 32);
}

static void
test_lascada_walks(void **state)
{
	(void)state;
	/* k = 2: row-based routing is the shortest path. */
	check_walks("lascada:n=4,k=2", DCN_ALGO_ROW, 2, 1, 0);
	check_walks("lascada:n=6,k=2", DCN_ALGO_ROW, 1, 1, 40);
	check_walks("lascada:n=2,k=3", DCN_ALGO_ROW, 2, 0, 0);
	check_walks("lascada:n=4,k=3", DCN_ALGO_ROW, 1, 0, 16);
}

/* Row-based: once C_l is corrected it is never changed again. */
static void
test_lascada_row_order(void **state)
{
	struct dcn_topo *t = topo_or_fail("lascada:n=4,k=3");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_ROW);
	uint32_t path[MAX_WALK], s, d, ns = dcn_topo_servers(t);
	uint64_t rng = 11;

	(void)state;
	for (s = 0; s < ns; s += 97) {
		for (d = 0; d < ns; d += 13) {
			int h = dcn_route_walk(r, s, d, &rng, path, MAX_WALK, NULL);
			uint32_t c[3], dc[3], done = 0;
			int i;

			if (s == d)
				continue;
			assert_true(h > 0);
			dcn_topo_ls_coords(t, d, dc);
			for (i = 0; i <= h; i++) {
				dcn_topo_ls_coords(t, path[i], c);
				if (done >= 1 && c[2] != dc[2])
					fail_msg("C_3 undone after being corrected");
				if (done >= 2 && c[1] != dc[1])
					fail_msg("C_2 undone after being corrected");
				if (c[2] == dc[2] && done < 1)
					done = 1;
				if (done == 1 && c[1] == dc[1])
					done = 2;
			}
		}
	}
	dcn_router_free(r);
	dcn_topo_free(t);
}

/* §2.1's example: [0,1] -> [1,1] goes through [0,0] (or [0,2]). */
static void
test_tra_example(void **state)
{
	struct dcn_topo *t = topo_or_fail("totoro:N=4,n=4,K=1");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_TRA);
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	uint32_t s = vertex_or_fail(t, "[0,1]"), d = vertex_or_fail(t, "[1,1]");
	uint32_t path[8];
	struct dcn_path_len len;
	unsigned int n;

	(void)state;
	dcn_route_state_init(r, s, d, &st);
	n = dcn_route_candidates(r, s, d, &st, h);
	assert_int_equal(n, 2);
	assert_int_equal(h[0].next, vertex_or_fail(t, "[0,0]"));
	assert_int_equal(h[1].next, vertex_or_fail(t, "[0,2]"));
	assert_int_equal(dcn_route_walk(r, s, d, NULL, path, 8, &len), 3);
	assert_int_equal(path[2], vertex_or_fail(t, "[1,0]"));
	assert_int_equal(len.links, 6);
	dcn_router_free(r);
	dcn_topo_free(t);
}

static void
test_tra_walks(void **state)
{
	(void)state;
	check_walks("totoro:N=4,n=4,K=1", DCN_ALGO_TRA, 2, 0, 0);
	check_walks("totoro:N=8,n=4,K=2", DCN_ALGO_TRA, 2, 0, 0);
	check_walks("totoro:N=8,n=2,K=3", DCN_ALGO_TRA, 2, 0, 0);
	check_walks("totoro:N=16,n=4,K=3", DCN_ALGO_TRA, 1, 0, 64);
}

/* The compiled table of a node answers as the router does. */
static void
check_table(const char *spec, uint32_t nodes)
{
	struct dcn_topo *t = topo_or_fail(spec);
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	uint32_t nv = dcn_topo_vertices(t), v, tested = 0;
	uint32_t step = nv / nodes ? nv / nodes : 1;

	for (v = 0; v < nv && tested < nodes; v += step) {
		if (!dcn_topo_is_router(t, v))
			continue;
		expect_table_matches(r, v);
		tested++;
	}
	assert_true(tested > 0);
	dcn_router_free(r);
	dcn_topo_free(t);
}

static void
test_tables_match_router(void **state)
{
	(void)state;
	check_table("novacube:k=6,n=2", 6);
	check_table("diamond:k=8", 12);
	check_table("rrect:n=4,m=2,k=2", 8);
	check_table("lascada:n=4,k=2", 8);
	check_table("lascada:n=2,k=3", 8);
	check_table("totoro:N=8,n=4,K=2", 8);
}

/* Under prefix= a fabric routes as under its default plan: the same
 * candidates at every router for every destination, single failures of
 * every cable included (FAR's tables are written in addresses), and
 * every router's compiled table, looked up by the moved addresses,
 * answers as its router does. */
static void
check_prefix_routes(const char *spec, const char *prefix, int every_failure)
{
	char moved_spec[96];
	struct dcn_topo *t, *m;
	uint32_t nv, ns, v, f, nf;
	struct dcn_adj adj[64];

	snprintf(moved_spec, sizeof(moved_spec), "%s,prefix=%s", spec, prefix);
	t = topo_or_fail(spec);
	m = topo_or_fail(moved_spec);
	nv = dcn_topo_vertices(t);
	ns = dcn_topo_servers(t);
	nf = every_failure ? nv : 1;
	for (f = 0; f < nf; f++) {
		unsigned int na = every_failure ? dcn_topo_adj(t, f, adj) : 1;
		unsigned int a;

		for (a = 0; a < na; a++) {
			struct dcn_failset *ft = dcn_topo_failset_create(t);
			struct dcn_failset *fm = dcn_topo_failset_create(m);
			struct dcn_route_conf conf = { 0 };
			struct dcn_router *rt, *rm;
			char err[DCN_TOPO_ERR_LEN];

			assert_non_null(ft);
			assert_non_null(fm);
			if (every_failure) {
				if (adj[a].peer < f)
					goto next; /* each cable once */
				assert_int_equal(dcn_topo_failset_add_link(ft, f, adj[a].port), 0);
				assert_int_equal(dcn_topo_failset_add_link(fm, f, adj[a].port), 0);
			}
			conf.algo = DCN_ALGO_DEFAULT;
			rt = dcn_router_for_failures(t, &conf, ft, err, sizeof(err));
			rm = dcn_router_for_failures(m, &conf, fm, err, sizeof(err));
			if (rt == NULL || rm == NULL)
				fail_msg("%s: %s", moved_spec, err);
			for (v = 0; v < nv; v++) {
				uint32_t d;

				if (!dcn_topo_is_router(t, v))
					continue;
				for (d = 0; d < ns; d++) {
					struct dcn_hop ht[DCN_ROUTE_MAX_HOPS];
					struct dcn_hop hm[DCN_ROUTE_MAX_HOPS];
					struct dcn_route_state st;
					unsigned int n1, n2;

					dcn_route_state_init(rt, v, d, &st);
					n1 = dcn_route_candidates(rt, v, d, &st, ht);
					dcn_route_state_init(rm, v, d, &st);
					n2 = dcn_route_candidates(rm, v, d, &st, hm);
					if (n1 != n2 ||
					    memcmp(ht, hm, n1 * sizeof(*ht)) != 0)
						fail_msg("%s: #%u to #%u routes otherwise than %s (failure %u.%u)",
							 moved_spec, v, d, spec, f, a);
				}
				if (!every_failure || v % 7 == f % 7)
					expect_table_matches(rm, v);
			}
			dcn_router_free(rt);
			dcn_router_free(rm);
next:
			dcn_topo_failset_free(ft);
			dcn_topo_failset_free(fm);
		}
	}
	dcn_topo_free(t);
	dcn_topo_free(m);
}

static void
test_prefix_plan_routes(void **state)
{
	(void)state;
	check_prefix_routes("novacube:k=6,n=2", "10.77.0.0/16", 0);
	check_prefix_routes("novacube:k=5,n=3", "192.168.0.0/16", 0);
	check_prefix_routes("diamond:k=4", "172.0.0.0/8", 1);
	check_prefix_routes("diamond:k=8", "100.0.0.0/8", 0);
	check_prefix_routes("rrect:n=4,m=2,k=1", "192.168.7.0/24", 0);
	check_prefix_routes("lascada:n=4,k=2", "172.16.0.0/12", 0);
	check_prefix_routes("totoro:N=8,n=4,K=2", "10.128.0.0/9", 0);
}

static void
test_table_forms(void **state)
{
	struct dcn_topo *t = topo_or_fail("totoro:N=8,n=4,K=2");
	struct dcn_topo *d = topo_or_fail("diamond:k=8");
	struct dcn_router *r = router_or_fail(t, DCN_ALGO_DEFAULT);
	struct dcn_router *rd = router_or_fail(d, DCN_ALGO_DEFAULT);
	struct dcn_rtable *tb = dcn_rtable_compile(r, 5);
	struct dcn_rtable *td = dcn_rtable_compile(rd, vertex_or_fail(d, "E1.1"));
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	const struct dcn_hop *h;

	(void)state;
	assert_int_equal(dcn_rtable_form(tb), DCN_RTABLE_FLAT);
	/* Few distinct candidate sets: the table is 2 bytes a destination
	 * plus those sets. */
	assert_true(dcn_rtable_sets(tb) < 64);
	assert_true(dcn_rtable_bytes(tb) < 2 * 128 + 64 * 16 * 8 + 512);
	assert_int_equal(dcn_rtable_form(td), DCN_RTABLE_CLASS);
	dcn_route_state_init(rd, 0, 0, &st);
	/* A core switch address is not a destination server. */
	assert_int_equal(dcn_rtable_lookup(td, 0x0a000101, &st, scratch, &h), 0);
	/* An attached server: one hop out of its port. */
	assert_int_equal(dcn_rtable_lookup(td, 0x0a010103, &st, scratch, &h), 1);
	assert_int_equal(h[0].port, 4 + 2 + 1);
	dcn_rtable_free(tb);
	dcn_rtable_free(td);
	dcn_router_free(r);
	dcn_router_free(rd);
	dcn_topo_free(t);
	dcn_topo_free(d);
}

/* Picks: weighted in proportion, priority takes the best, equal spreads. */
static void
test_pick(void **state)
{
	struct dcn_hop h[3] = {
		{ 1, DCN_ROUTE_NONE, 0, 13107 },  /* 20% */
		{ 2, DCN_ROUTE_NONE, 1, 39321 },  /* 60% */
		{ 3, DCN_ROUTE_NONE, 2, 13107 },  /* 20% */
	};
	unsigned int cnt[3] = { 0, 0, 0 }, i;
	const unsigned int draws = 100000;

	(void)state;
	for (i = 0; i < draws; i++)
		cnt[dcn_route_pick(DCN_PICK_WEIGHTED, h, 3,
				   (uint32_t)((uint64_t)i * 0x100000000ull / draws))]++;
	assert_near(cnt[0] / (double)draws, 0.2, 0.001);
	assert_near(cnt[1] / (double)draws, 0.6, 0.001);
	assert_near(cnt[2] / (double)draws, 0.2, 0.001);
	h[2].weight = 0;
	for (i = 0; i < 64; i++)
		assert_int_equal(dcn_route_pick(DCN_PICK_PRIORITY, h, 3, i), 2);
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 300; i++)
		cnt[dcn_route_pick(DCN_PICK_EQUAL, h, 3, i)]++;
	assert_int_equal(cnt[0], 100);
	assert_int_equal(cnt[1], 100);
	assert_int_equal(dcn_route_pick(DCN_PICK_EQUAL, h, 1, 12345), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_router_invalid),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_pora_worked_example),
		cmocka_unit_test(test_pora_walks),
		cmocka_unit_test(test_pora_literal_revisits),
		cmocka_unit_test(test_dor),
		cmocka_unit_test(test_vcs_spent),
		cmocka_unit_test(test_walk_drops_spent),
		cmocka_unit_test(test_cdg),
		cmocka_unit_test(test_far_brt_paper),
		cmocka_unit_test(test_far_priorities),
		cmocka_unit_test(test_far_walks),
		cmocka_unit_test(test_rrect_paper_examples),
		cmocka_unit_test(test_rrect_parallel_disjoint),
		cmocka_unit_test(test_rrect_walks),
		cmocka_unit_test(test_lascada_walks),
		cmocka_unit_test(test_lascada_row_order),
		cmocka_unit_test(test_tra_example),
		cmocka_unit_test(test_tra_walks),
		cmocka_unit_test(test_tables_match_router),
		cmocka_unit_test(test_prefix_plan_routes),
		cmocka_unit_test(test_table_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
