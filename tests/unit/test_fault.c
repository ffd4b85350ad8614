/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failure sets and the fault-tolerant routing of each paper: the worked
 * failure examples, both readings where a literal rule was corrected, and
 * the single-failure property: every pair still connected is delivered,
 * without visiting a node twice.
 */
#include <errno.h>

#include "test_common.h"

#define RTE_DIM_(a) (sizeof(a) / sizeof((a)[0]))

#define MAX_WALK 256

static struct dcn_router *
ft_router(const struct dcn_topo *t, const struct dcn_failset *f,
	  enum dcn_route_algo algo, unsigned int max_life)
{
	struct dcn_route_conf c = { .algo = algo, .fail = f,
				    .max_life = max_life };
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_router *r = dcn_router_create_conf(t, &c, err, sizeof(err));

	if (r == NULL)
		fail_msg("%s: %s", dcn_topo_spec(t), err);
	return r;
}

static void
fail_links(struct dcn_failset *f, const char *list)
{
	char err[DCN_TOPO_ERR_LEN];

	if (dcn_topo_failset_parse(f, DCN_FAIL_LINKS, list, err, sizeof(err)) < 0)
		fail_msg("%s", err);
}

static void
count_cb(uint32_t v, uint16_t port, void *arg)
{
	(void)v;
	(void)port;
	(*(unsigned int *)arg)++;
}

static void
test_failset(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_topo *nc = topo_or_fail("novacube:k=4,n=2");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_failset *g = dcn_topo_failset_create(nc);
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_adj a[2];
	uint64_t links;
	uint32_t servers, switches;
	unsigned int cnt = 0;
	uint32_t s00 = vertex_or_fail(t, "00");

	(void)state;
	assert_true(dcn_topo_failset_empty(f));
	/* Invalid: no such port, no such vertex, racks in NovaCube. */
	assert_int_equal(dcn_topo_failset_add_link(f, s00, 7), -EINVAL);
	assert_int_equal(dcn_topo_failset_add_vertex(f, 99999), -EINVAL);
	assert_int_equal(dcn_topo_failset_add_rack(g, 0), -EINVAL);
	assert_int_equal(dcn_topo_failset_random(g, DCN_FAIL_RACKS, 0.5, 1), -EINVAL);
	assert_int_equal(dcn_topo_failset_random(f, DCN_FAIL_LINKS, 1.5, 1), -EINVAL);
	assert_int_equal(dcn_topo_failset_parse(f, DCN_FAIL_LINKS, "00:9", err,
						sizeof(err)), -1);
	assert_non_null(strstr(err, "no cable"));
	assert_int_equal(dcn_topo_failset_parse(f, DCN_FAIL_LINKS, "00~37", err,
						sizeof(err)), -1);
	assert_non_null(strstr(err, "not neighbours"));
	assert_int_equal(dcn_topo_failset_parse(f, DCN_FAIL_SERVERS, "sw0.0",
						err, sizeof(err)), -1);
	assert_true(dcn_topo_failset_empty(f));

	/* A cable is down from both ends. */
	dcn_topo_adj(t, s00, a);
	assert_int_equal(dcn_topo_failset_parse(f, DCN_FAIL_LINKS, "00:1;13:0",
						err, sizeof(err)), 2);
	assert_true(dcn_topo_failset_link_down(f, s00, 1, a[1].peer));
	assert_false(dcn_topo_failset_link_down(f, s00, 0, a[0].peer));
	assert_int_equal(dcn_topo_failset_adj(f, s00, a), 1);
	dcn_topo_failset_foreach_link(f, count_cb, &cnt);
	assert_int_equal(cnt, 2);
	/* A failed switch takes its cables down. */
	assert_int_equal(dcn_topo_failset_parse(f, DCN_FAIL_SWITCHES, "#32", err,
						sizeof(err)), 1);
	assert_int_equal(dcn_topo_failset_adj(f, s00, a), 0);
	dcn_topo_failset_counts(f, &links, &servers, &switches);
	assert_int_equal(links, 2);
	assert_int_equal(switches, 1);
	dcn_topo_failset_free(f);

	/* Random draws fail exactly round(ratio * count) distinct items. */
	f = dcn_topo_failset_create(t);
	assert_int_equal(dcn_topo_failset_random(f, DCN_FAIL_LINKS, 0.25, 7), 16);
	cnt = 0;
	dcn_topo_failset_foreach_link(f, count_cb, &cnt);
	assert_int_equal(cnt, 16);
	assert_int_equal(dcn_topo_failset_random(f, DCN_FAIL_SERVERS, 0.5, 7), 16);
	assert_int_equal(dcn_topo_failset_random(f, DCN_FAIL_RACKS, 0.25, 7), 1);
	dcn_topo_failset_counts(f, &links, &servers, &switches);
	assert_true(servers >= 16 && servers <= 24);
	dcn_topo_failset_free(f);
	dcn_topo_failset_free(g);
	dcn_topo_free(t);
	dcn_topo_free(nc);
}

/* §IV-C: C11-E41 failed; 10.1.1.1 forwards 10.4.3.2 to 10.1.3.1. As
 * printed (far-literal), E14 (type 2) stays a candidate of lower
 * priority; far leaves it out, as it brings the packet no closer to E43
 * (three switch hops from E14 as from E11), so that no route can cycle. */
static void
test_far_worked_example(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_router *r;
	struct dcn_far_entry nrt[8];
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	uint32_t e11 = vertex_or_fail(t, "E11"), d = vertex_or_fail(t, "10.4.3.2");
	unsigned int n;

	(void)state;
	fail_links(f, "C11~E41");
	r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
	assert_int_equal(dcn_far_nrt(r, e11, nrt, 8), 1);
	assert_int_equal(nrt[0].dest, 0x0a040000);
	assert_int_equal(nrt[0].mask, 0xffff0000);
	assert_int_equal(nrt[0].next_hop, 0x0a000101);
	dcn_route_state_init(r, e11, d, &st);
	n = dcn_route_candidates(r, e11, d, &st, h);
	assert_int_equal(n, 1);
	assert_int_equal(dcn_topo_addr(t, h[0].next), 0x0a010301);
	dcn_router_free(r);
	r = ft_router(t, f, DCN_ALGO_FAR_LITERAL, 0);
	n = dcn_route_candidates(r, e11, d, &st, h);
	assert_int_equal(n, 2);
	assert_int_equal(dcn_topo_addr(t, h[dcn_route_pick(DCN_PICK_PRIORITY, h, n,
							  0)].next),
			 0x0a010301);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

struct nrt_case {
	const char *link;
	unsigned int n;
	const char *dest[2], *mask[2], *next[2];
};

/* §IV-B: the NRT of E11 for each failure case the paper lists (k = 4). */
static void
test_far_nrt_cases(void **state)
{
	static const struct nrt_case cases[] = {
		/* a link in the same pod */
		{ "E12~E13", 1, { "10.1.2.0" }, { "255.255.255.0" }, { "10.1.3.1" } },
		/* a link in another pod */
		{ "E41~E43", 2, { "10.4.1.0", "10.4.3.0" },
		  { "255.255.255.0", "255.255.255.0" }, { "10.1.3.1", "10.0.1.1" } },
		/* a core link of a core E11 uses */
		{ "C11~E21", 1, { "10.2.0.0" }, { "255.255.0.0" }, { "10.0.1.1" } },
		/* a core on E11's side it does not use: nothing */
		{ "C21~E22", 0, { NULL }, { NULL }, { NULL } },
		/* opposite side, the core's cable to E11's pod */
		{ "E13~C31", 1, { "10.0.0.0" }, { "255.0.0.0" }, { "10.1.3.1" } },
		/* opposite side, the core's cable to pod 2 */
		{ "C31~E23", 1, { "10.2.0.0" }, { "255.255.0.0" }, { "10.1.3.1" } },
		/* E11's own cable: removed at lookup, no NRT entry */
		{ "E11~C11", 0, { NULL }, { NULL }, { NULL } },
	};
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	uint32_t e11 = vertex_or_fail(t, "E11");
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct dcn_failset *f = dcn_topo_failset_create(t);
		struct dcn_router *r;
		struct dcn_far_entry nrt[8];
		unsigned int n, i, j;

		fail_links(f, cases[c].link);
		r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
		n = dcn_far_nrt(r, e11, nrt, 8);
		if (n != cases[c].n)
			fail_msg("%s: NRT of E11 has %u entries, expected %u",
				 cases[c].link, n, cases[c].n);
		for (i = 0; i < cases[c].n; i++) {
			uint32_t d, m, h;
			int found = 0;

			dcn_topo_parse_addr(cases[c].dest[i], &d);
			dcn_topo_parse_addr(cases[c].mask[i], &m);
			dcn_topo_parse_addr(cases[c].next[i], &h);
			for (j = 0; j < n; j++)
				found |= nrt[j].dest == d && nrt[j].mask == m &&
					 nrt[j].next_hop == h;
			if (!found)
				fail_msg("%s: NRT of E11 lacks %s/%s -> %s",
					 cases[c].link, cases[c].dest[i],
					 cases[c].mask[i], cases[c].next[i]);
		}
		dcn_router_free(r);
		dcn_topo_failset_free(f);
	}
	dcn_topo_free(t);
}

/*
 * §IV-B as printed: a failed cable of the switch itself takes its routes
 * out of the BRT, so E11 to 10.1.3.x with E11-E13 down falls from the /24
 * to the /16 and goes round through E14, in both readings (far-literal
 * used to drop it).
 */
static void
test_far_attached_failure(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	enum dcn_route_algo algos[] = { DCN_ALGO_FAR, DCN_ALGO_FAR_LITERAL };
	uint32_t s = vertex_or_fail(t, "10.1.1.2"), d = vertex_or_fail(t, "10.1.3.2");
	uint32_t path[16];
	struct dcn_path_len len;
	unsigned int i;

	(void)state;
	fail_links(f, "E11~E13");
	for (i = 0; i < 2; i++) {
		struct dcn_router *r = ft_router(t, f, algos[i], 0);

		assert_int_equal(dcn_route_walk(r, s, d, NULL, path, 16, &len), 5);
		assert_int_equal(path[2], vertex_or_fail(t, "E14"));
		assert_int_equal(len.switches, 4);
		dcn_router_free(r);
	}
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/* No vertex of a walk of n hops visited twice. */
static void
assert_no_revisit(const uint32_t *path, int n)
{
	int i, j;

	for (i = 0; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			assert_true(path[i] != path[j]);
}

/*
 * No falling back to a shorter prefix: with E12-E13 and E12-E14 down, E11
 * has no applicable entry for 10.1.2.x as printed (its /16 next hops are
 * both avoided) and drops, as §IV-C says (far-literal). Falling back to
 * the inter-pod /8 sent it to C11, whose BRT sends pod 1 back to E11: it
 * bounced between them for 64 hops until the TTL ended. far takes, where
 * FAR's entries bring the packet no closer, a live switch hop that does:
 * round through another pod to C21, E12's one live cable (six switch
 * hops, the fewest); no switch twice.
 */
static void
test_far_no_fallback_loop(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	uint32_t s = vertex_or_fail(t, "10.1.1.2"), d = vertex_or_fail(t, "10.1.2.2");
	uint32_t e11 = vertex_or_fail(t, "E11"), path[128];
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	struct dcn_router *r;
	int n;

	(void)state;
	fail_links(f, "E12~E13;E12~E14");
	r = ft_router(t, f, DCN_ALGO_FAR_LITERAL, 0);
	assert_int_equal(dcn_route_walk(r, s, d, NULL, path, 128, NULL), -1);
	assert_int_equal(path[1], e11);
	dcn_route_state_init(r, e11, d, &st);
	assert_int_equal(dcn_route_candidates(r, e11, d, &st, h), 0);
	dcn_router_free(r);
	r = ft_router(t, f, DCN_ALGO_FAR, 0);
	n = dcn_route_walk(r, s, d, NULL, path, 128, NULL);
	assert_int_equal(n, 8);
	assert_int_equal(path[1], e11);
	assert_int_equal(path[n - 2], vertex_or_fail(t, "C21"));
	assert_no_revisit(path, n);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/*
 * The bounce of an edge switch that lost every cable to the opposite
 * line of its pod: E12-E13 and E12-E14 down, 10.1.2.2 to 10.1.3.2. As
 * printed, removing E12's routes through those cables leaves its
 * inter-pod /8 as the longest match for its own pod: up to C21, whose
 * BRT sends pod 1 straight back to E12 (far-literal walks E12 <-> C21
 * until the TTL ends). far goes round through another pod: C21, an
 * edge at position 2 there, across to position 3, its core C31, E13.
 */
static void
test_far_edge_cut_off_bounce(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	uint32_t s = vertex_or_fail(t, "10.1.2.2"), d = vertex_or_fail(t, "10.1.3.2");
	uint32_t path[128];
	struct dcn_router *r;
	int n;

	(void)state;
	fail_links(f, "E12~E13;E12~E14");
	r = ft_router(t, f, DCN_ALGO_FAR_LITERAL, 0);
	assert_int_equal(dcn_route_walk(r, s, d, NULL, path, 64, NULL), -1);
	assert_int_equal(path[1], vertex_or_fail(t, "E12"));
	assert_int_equal(path[2], vertex_or_fail(t, "C21"));
	assert_int_equal(path[3], vertex_or_fail(t, "E12"));
	dcn_router_free(r);
	r = ft_router(t, f, DCN_ALGO_FAR, 0);
	n = dcn_route_walk(r, s, d, NULL, path, 64, NULL);
	assert_int_equal(n, 7);
	assert_int_equal(path[2], vertex_or_fail(t, "C21"));
	assert_int_equal(path[5], vertex_or_fail(t, "C31"));
	assert_int_equal(path[6], vertex_or_fail(t, "E13"));
	assert_no_revisit(path, n);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/* Does the live fabric of f connect s and d? */
static int
live_connected(const struct dcn_failset *f, uint32_t s, uint32_t d, uint32_t *queue,
	       uint8_t *seen)
{
	const struct dcn_topo *t = dcn_topo_failset_topo(f);
	uint32_t head = 0, tail = 0, nv = dcn_topo_vertices(t);
	struct dcn_adj a[256];
	int found = 0;

	memset(seen, 0, nv);
	if (dcn_topo_failset_vertex_down(f, s))
		return 0;
	seen[s] = 1;
	queue[tail++] = s;
	while (head < tail && !found) {
		uint32_t v = queue[head++];
		unsigned int n = dcn_topo_failset_adj(f, v, a), i;

		for (i = 0; i < n; i++) {
			/* Servers carry nothing between switches in Diamond. */
			if (seen[a[i].peer] ||
			    (a[i].peer < dcn_topo_servers(t) && a[i].peer != d))
				continue;
			seen[a[i].peer] = 1;
			found |= a[i].peer == d;
			queue[tail++] = a[i].peer;
		}
	}
	return found;
}

/*
 * FAR without a bounce (far): under 5 to 30% of the links failed, four
 * seeds each, on Diamond k=4 and k=8, no walk of any pair visits a
 * switch twice, and every pair the live fabric connects is delivered.
 */
static void
test_far_random_no_revisit(void **state)
{
	static const char *const specs[] = { "diamond:k=4", "diamond:k=8" };
	uint32_t path[64], *queue;
	uint8_t *seen;
	unsigned int si, pct, seed;

	(void)state;
	for (si = 0; si < 2; si++) {
		struct dcn_topo *t = topo_or_fail(specs[si]);
		uint32_t ns = dcn_topo_servers(t), nv = dcn_topo_vertices(t), s, d;

		queue = malloc(nv * sizeof(*queue));
		seen = malloc(nv);
		for (pct = 5; pct <= 30; pct += 5) {
			for (seed = 1; seed <= 4; seed++) {
				struct dcn_failset *f = dcn_topo_failset_create(t);
				struct dcn_router *r;
				uint64_t walked = 0, delivered = 0;

				assert_true(dcn_topo_failset_random(f, DCN_FAIL_LINKS,
								    pct / 100.0, seed) > 0);
				r = ft_router(t, f, DCN_ALGO_FAR, 0);
				for (s = 0; s < ns; s++) {
					for (d = 0; d < ns; d++) {
						int n, i, j, conn;

						if (s == d)
							continue;
						n = dcn_route_walk(r, s, d, NULL, path, 64, NULL);
						conn = live_connected(f, s, d, queue, seen);
						walked++;
						if (n < 0 && conn)
							fail_msg("%s, %u%% links, seed %u: #%u -> #%u "
								 "connected, not delivered",
								 specs[si], pct, seed, s, d);
						if (n < 0)
							continue;
						delivered++;
						for (i = 0; i <= n; i++)
							for (j = i + 1; j <= n; j++)
								if (path[i] == path[j])
									fail_msg("%s, %u%% links, seed %u: "
										 "#%u -> #%u visits #%u twice",
										 specs[si], pct, seed, s, d,
										 path[i]);
					}
				}
				assert_true(walked > 0 && delivered > 0);
				dcn_router_free(r);
				dcn_topo_failset_free(f);
			}
		}
		free(queue);
		free(seen);
		dcn_topo_free(t);
	}
}

/*
 * The opposite-core rule, both readings. With E13-C31 down, C31 "can't
 * forward any inter-pod packets for E11", and the NRT avoids E13 for
 * 10.0.0.0/8. far reads it as inter-pod only: E11 still reaches its own
 * pod's 10.1.3.x over its cable to E13. far-literal applies the /8 to
 * every destination, as printed: 10.1.3.x matches it and is dropped.
 * Both avoid E13 for other pods.
 */
static void
test_far_opposite_core_rule(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	uint32_t s = vertex_or_fail(t, "10.1.1.2"), d = vertex_or_fail(t, "10.1.3.2");
	uint32_t e11 = vertex_or_fail(t, "E11"), e13 = vertex_or_fail(t, "E13");
	uint32_t far_pod = vertex_or_fail(t, "10.4.3.2"), path[16];
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	struct dcn_router *fix, *lit;
	unsigned int n, i;

	(void)state;
	fail_links(f, "E13~C31");
	fix = ft_router(t, f, DCN_ALGO_FAR, 0);
	lit = ft_router(t, f, DCN_ALGO_FAR_LITERAL, 0);
	assert_int_equal(dcn_route_walk(fix, s, d, NULL, path, 16, NULL), 3);
	assert_int_equal(path[2], e13);
	assert_int_equal(dcn_route_walk(lit, s, d, NULL, path, 16, NULL), -1);
	dcn_route_state_init(fix, e11, far_pod, &st);
	n = dcn_route_candidates(fix, e11, far_pod, &st, h);
	assert_true(n > 0);
	for (i = 0; i < n; i++)
		assert_true(h[i].next != e13);
	dcn_router_free(fix);
	dcn_router_free(lit);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/* §IV-D: 300 failures at k=48 spread over the three groups give at most
 * 5n/6 = 250 NRT entries an edge switch. One failure gives at most 2 with
 * k = 4; with k/4 cores a position, a switch at the failed cable's
 * position avoids each of its k/4 cores: at most 1 + k/4. */
static void
test_far_nrt_sizes(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=48");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_router *r;
	uint64_t rng = 3, total = 0;
	unsigned int group[3] = { 0, 0, 0 }, max = 0;
	uint32_t e, first = vertex_or_fail(t, "E1.1");

	(void)state;
	while (group[0] + group[1] + group[2] < 300) {
		uint32_t v = first + (uint32_t)(dcn_rand(&rng) % (48 * 48));
		uint16_t port = (uint16_t)(dcn_rand(&rng) % 48);
		unsigned int g = port < 24 ? 1 : port < 36 ? 2 : 0;

		if (group[g] == 100 ||
		    dcn_topo_failset_link_down(f, v, port, v) ||
		    dcn_topo_failset_add_link(f, v, port) < 0)
			continue;
		group[g]++;
	}
	r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
	for (e = first; e < first + 48 * 48; e++) {
		unsigned int n = dcn_far_nrt(r, e, NULL, 0);

		total += n;
		if (n > max)
			max = n;
	}
	assert_true(total > 0);
	assert_true(max <= 250);
	assert_true(total / (48 * 48) <= 250);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	/* One failure: at most two entries on any edge switch. */
	for (rng = 0; rng < 40; rng++) {
		uint32_t v = first + (uint32_t)(rng * 57 % (48 * 48));

		f = dcn_topo_failset_create(t);
		assert_int_equal(dcn_topo_failset_add_link(f, v, (uint16_t)(rng % 36)),
				 0);
		r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
		for (e = first; e < first + 48 * 48; e++)
			assert_true(dcn_far_nrt(r, e, NULL, 0) <= 1 + 48 / 4);
		dcn_router_free(r);
		dcn_topo_failset_free(f);
	}
	dcn_topo_free(t);
}

/*
 * Fail each cable (or every step-th) alone; every pair of live servers that
 * the surviving graph still connects must be delivered without a node
 * visited twice. PORA is random: every branch of its candidate sets is
 * explored and one delivering branch is enough ("where its rules allow").
 * @return pairs the router could not deliver although connected.
 */
static uint64_t explore_pora(const struct dcn_router *r, uint32_t cur,
			     uint32_t dst, struct dcn_route_state st,
			     uint8_t *seen, unsigned int depth);

static uint64_t revisits;

static int walk_checked(const struct dcn_router *r, uint32_t s, uint32_t d,
			uint64_t *rng, uint8_t *seen, uint32_t *path,
			const char *what);

/* Is hop h from cur a cable of the topology: cur's port h->port leads to
 * h->via (a switch) and on to h->next, or (no switch) to h->next? A
 * relay sends by the port, the model walks by the next vertex: the two
 * must name the same way. */
static int
hop_is_cabled(const struct dcn_topo *t, uint32_t cur, const struct dcn_hop *h)
{
	int64_t first = dcn_topo_port_peer(t, cur, h->port);
	unsigned int p;

	if (h->via == DCN_ROUTE_NONE)
		return first == (int64_t)h->next;
	if (first != (int64_t)h->via)
		return 0;
	for (p = 0; p < dcn_topo_ports(t, h->next); p++)
		if (dcn_topo_port_peer(t, h->next, p) == (int64_t)h->via)
			return 1;
	return 0;
}

/* Pairs that f leaves connected and the router of algo does not deliver
 * (or, explore, no branch of PORA delivers); a route that visits a server
 * twice fails the test, except LaScaDa's detours (counted). */
static uint64_t
failure_missed(struct dcn_topo *t, struct dcn_failset *f,
	       enum dcn_route_algo algo, unsigned int max_life, int explore,
	       uint16_t *dist, uint8_t *seen)
{
	const char *spec = dcn_topo_spec(t);
	uint32_t ns = dcn_topo_servers(t), s, d;
	struct dcn_router *r = ft_router(t, f, algo, max_life);
	uint64_t missed = 0, rng = 1;

	for (s = 0; s < ns; s++) {
		dcn_metrics_bfs_live(t, f, s, dist);
		for (d = 0; d < ns; d++) {
			uint32_t path[MAX_WALK];
			int h, j;

			if (d == s || dist[d] == 0xffff)
				continue;
			if (explore) {
				struct dcn_route_state st;

				dcn_route_state_init(r, s, d, &st);
				seen[s] = 1;
				missed += explore_pora(r, s, d, st, seen, 0) == 0;
				seen[s] = 0;
				continue;
			}
			/* TFR may pass a server again after its way out
			 * and back: walk_checked holds it to that. */
			if (algo == DCN_ALGO_TFR)
				h = walk_checked(r, s, d, &rng, seen, path, spec);
			else
				h = dcn_route_walk(r, s, d, NULL, path, MAX_WALK, NULL);
			if (h < 0) {
				missed++;
				continue;
			}
			if (max_life != 0 && h > (int)max_life)
				fail_msg("%s: route longer than MaxLifeTime", spec);
			for (j = 0; j <= h && algo != DCN_ALGO_TFR; j++) {
				/* Alg. 4's detours may cross a server again,
				 * within MaxLifeTime: counted. */
				if (seen[path[j]] && algo == DCN_ALGO_ROW)
					revisits++;
				else if (seen[path[j]])
					fail_msg("%s: #%u -> #%u visits #%u twice",
						 spec, s, d, path[j]);
				seen[path[j]] = 1;
			}
			for (j = 0; j <= h; j++)
				seen[path[j]] = 0;
		}
	}
	dcn_router_free(r);
	return missed;
}

/* Connected pairs lost over every step-th single cable failure, and, with
 * servers, over every single server failure too. */
static uint64_t
single_failures_of(const char *spec, enum dcn_route_algo algo,
		   unsigned int max_life, uint32_t step, int explore,
		   int servers)
{
	struct dcn_topo *t = topo_or_fail(spec);
	uint32_t nv = dcn_topo_vertices(t), v;
	uint16_t *dist = malloc(nv * sizeof(*dist));
	uint8_t *seen = calloc(nv, 1);
	struct dcn_adj *adj = malloc(dcn_topo_max_degree(t) * sizeof(*adj));
	uint64_t missed = 0, cable = 0;

	assert_non_null(dist);
	for (v = 0; v < nv; v++) {
		unsigned int n = dcn_topo_adj(t, v, adj), i;

		for (i = 0; i < n; i++) {
			struct dcn_failset *f;

			if (adj[i].peer < v || cable++ % step != 0)
				continue;
			f = dcn_topo_failset_create(t);
			assert_int_equal(dcn_topo_failset_add_link(f, v, adj[i].port), 0);
			missed += failure_missed(t, f, algo, max_life, explore,
						 dist, seen);
			dcn_topo_failset_free(f);
		}
	}
	for (v = 0; servers && v < dcn_topo_servers(t); v++) {
		struct dcn_failset *f = dcn_topo_failset_create(t);

		assert_int_equal(dcn_topo_failset_add_vertex(f, v), 0);
		missed += failure_missed(t, f, algo, max_life, explore, dist, seen);
		dcn_topo_failset_free(f);
	}
	free(adj);
	free(seen);
	free(dist);
	dcn_topo_free(t);
	return missed;
}

static uint64_t
single_failures(const char *spec, enum dcn_route_algo algo,
		unsigned int max_life, uint32_t step, int explore)
{
	return single_failures_of(spec, algo, max_life, step, explore, 0);
}

/* Branches of PORA that deliver (no revisit allowed on any branch). */
static uint64_t
explore_pora(const struct dcn_router *r, uint32_t cur, uint32_t dst,
	     struct dcn_route_state st, uint8_t *seen, unsigned int depth)
{
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	unsigned int n, i;
	uint64_t ok = 0;

	if (cur == dst)
		return 1;
	if (depth > 64)
		fail_msg("PORA branch longer than 64 hops");
	n = dcn_route_candidates(r, cur, dst, &st, h);
	for (i = 0; i < n && ok == 0; i++) {
		struct dcn_route_state next = st;

		uint8_t was, mark;

		dcn_route_advance(r, cur, &h[i], &next);
		/* A detour (pora's extension) goes over live shortest paths
		 * from where PORA got stuck: it may cross a node PORA passed
		 * (bit 0), never one of its own twice (bit 1). */
		was = seen[h[i].next];
		mark = next.phase == DCN_PORA_DETOUR ? 2 : 1;
		if (mark == 1 ? was != 0 : (was & 2) != 0)
			fail_msg("PORA branch revisits #%u", h[i].next);
		seen[h[i].next] = (uint8_t)(was | mark);
		ok += explore_pora(r, h[i].next, dst, next, seen, depth + 1);
		seen[h[i].next] = was;
	}
	return ok;
}

/*
 * Walk s -> d by hand (as dcn_route_walk does), and check that it
 * revisits a vertex only as its paper's rules allow:
 *  - FAR, RRect, PORA and DOR never (every hop brings the packet nearer,
 *    or follows one precomputed path), but pora's detour (live shortest
 *    paths from where PORA got stuck) may cross a node PORA passed;
 *  - LaScaDa (Alg. 4) where a detour began between the two visits (a new
 *    proxy, a new source): its detour may cross a server passed before;
 *  - Totoro (TFR) only after its one way out and back (the jumped bit),
 *    and then a vertex once more at most.
 * @return hops, or -1 when dropped.
 */
static int
walk_checked(const struct dcn_router *r, uint32_t s, uint32_t d, uint64_t *rng,
	     uint8_t *seen, uint32_t *path, const char *what)
{
	enum dcn_route_algo algo = dcn_router_algo(r);
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	uint32_t cur = s, proxy;
	int n = 0, ret = -1, j, pora_detour = 0;
	uint8_t jumped = 0;

	dcn_route_state_init(r, s, d, &st);
	proxy = st.proxy;
	path[0] = s;
	seen[s] = 1;
	while (n + 1 < MAX_WALK && st.ttl > 0) {
		unsigned int k, i;
		uint32_t next;
		int new_detour;

		if (cur == d) {
			ret = n;
			break;
		}
		k = dcn_route_candidates(r, cur, d, &st, h);
		if (k == 0)
			break;
		i = dcn_route_pick(dcn_router_pick_mode(r), h, k,
				   (uint32_t)(dcn_rand(rng) >> 32));
		if (!hop_is_cabled(dcn_router_topo(r), cur, &h[i]))
			fail_msg("%s: #%u -> #%u: at #%u, port %u does not lead "
				 "to #%u", what, s, d, cur, h[i].port, h[i].next);
		dcn_route_advance(r, cur, &h[i], &st);
		if (st.vc == DCN_VC_SPENT)
			break;      /* past its VCs: the data path drops it */
		next = h[i].next;
		new_detour = (algo == DCN_ALGO_ROW && st.proxy != proxy &&
			      st.proxy != DCN_ROUTE_NONE) ||
			     (algo == DCN_ALGO_PORA && st.phase == DCN_PORA_DETOUR &&
			      !pora_detour);
		pora_detour |= algo == DCN_ALGO_PORA && st.phase == DCN_PORA_DETOUR;
		if (new_detour)
			for (j = 0; j <= n; j++)
				seen[path[j]] = 0;  /* a new source: counts anew */
		if (algo == DCN_ALGO_TFR && st.jumped && !jumped) {
			jumped = 1;
			for (j = 0; j <= n; j++)
				seen[path[j]] = 1;  /* once more after the detour */
		}
		if (seen[next] >= (algo == DCN_ALGO_TFR && jumped ? 2 : 1))
			fail_msg("%s: #%u -> #%u visits #%u again after %d hops",
				 what, s, d, next, n + 1);
		seen[next]++;
		proxy = st.proxy;
		path[++n] = cur = next;
	}
	for (j = 0; j <= n; j++)
		seen[path[j]] = 0;
	return ret;
}

/*
 * No routed walk revisits a vertex more than its paper's rules allow
 * (walk_checked), at 2% and 10% link failures over three seeds, in every
 * topology. TFR's way out and back used to send a packet for a server
 * with no way in (Totoro(4,4,1): [0,1] has no level-1 link; its
 * intra-switch cable down) between [0,0] and [1,0] until the TTL ended:
 * it is now dropped at once.
 */
static void
test_walks_revisit_as_allowed(void **state)
{
	static const char *const specs[] = { "novacube:k=6,n=2", "diamond:k=8",
		"rrect:n=4,m=2,k=2", "lascada:n=4,k=2", "totoro:N=8,n=8,K=2",
		"totoro:N=4,n=4,K=1" };
	static const double ratios[] = { 0.02, 0.10 };
	uint32_t path[MAX_WALK];
	unsigned int si, ri;
	uint64_t seed;

	(void)state;
	for (si = 0; si < RTE_DIM_(specs); si++) {
		struct dcn_topo *t = topo_or_fail(specs[si]);
		uint32_t nv = dcn_topo_vertices(t), ns = dcn_topo_servers(t), a, b;
		uint8_t *seen = calloc(nv, 1);

		assert_non_null(seen);
		for (ri = 0; ri < RTE_DIM_(ratios); ri++)
			for (seed = 1; seed <= 3; seed++) {
				struct dcn_failset *f = dcn_topo_failset_create(t);
				struct dcn_router *r;
				uint64_t rng = seed;
				char what[96];

				assert_true(dcn_topo_failset_random(f, DCN_FAIL_LINKS,
								    ratios[ri], seed) >= 0);
				r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
				snprintf(what, sizeof(what), "%s, %.0f%% links, seed %lu",
					 specs[si], ratios[ri] * 100, (unsigned long)seed);
				for (a = 0; a < ns; a++)
					for (b = 0; b < ns; b++)
						if (a != b && (ns <= 300 || (a * 7 + b) % 5 == 0) &&
						    dcn_route_server_up(r, a))
							walk_checked(r, a, b, &rng, seen, path,
								     what);
				dcn_router_free(r);
				dcn_topo_failset_free(f);
			}
		free(seen);
		dcn_topo_free(t);
	}
	/* The loop the check found, by name. */
	{
		struct dcn_topo *t = topo_or_fail("totoro:N=4,n=4,K=1");
		struct dcn_failset *f = dcn_topo_failset_create(t);
		struct dcn_router *r;

		fail_links(f, "[0,1]:0");
		r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
		assert_int_equal(dcn_router_algo(r), DCN_ALGO_TFR);
		memset(path, 0xff, sizeof(path));
		assert_int_equal(dcn_route_walk(r, vertex_or_fail(t, "[0,0]"),
						vertex_or_fail(t, "[0,1]"), NULL, path,
						MAX_WALK, NULL), -1);
		assert_true(path[2] == UINT32_MAX);
		dcn_router_free(r);
		dcn_topo_failset_free(f);
		dcn_topo_free(t);
	}
}

/* Does any TRA route from v to d cross cable (cv, cport)? */
static int
tra_touches(const struct dcn_router *tra, uint32_t v, uint32_t d, uint32_t cv,
	    uint16_t cport, unsigned int depth)
{
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	unsigned int n, i;

	if (v == d || depth > 16)
		return 0;
	dcn_route_state_init(tra, v, d, &st);
	n = dcn_route_candidates(tra, v, d, &st, h);
	for (i = 0; i < n; i++)
		if (((v == cv || h[i].next == cv) && h[i].port == cport) ||
		    tra_touches(tra, h[i].next, d, cv, cport, depth + 1))
			return 1;
	return 0;
}

/*
 * TFR is TRA on every route a failure does not touch (route_tra.c: TRA's
 * hops wherever its route is live as far as a server knows): for every
 * single failed cable, every pair none of whose TRA routes crosses it is
 * routed hop for hop as TRA routes it (the same draws give the same
 * path). And a failure costs only routes it breaks: with nothing failed,
 * TFR's mean route is TRA's (Totoro(16,16,2): 7.35 links on average over
 * its pairs, where Alg. 3 alone took about 10% more).
 */
static void
test_tfr_is_tra_where_untouched(void **state)
{
	static const char *const specs[] = { "totoro:N=4,n=4,K=1",
					     "totoro:N=4,n=4,K=2" };
	unsigned int si;

	(void)state;
	for (si = 0; si < 2; si++) {
		struct dcn_topo *t = topo_or_fail(specs[si]);
		struct dcn_router *tra = router_or_fail(t, DCN_ALGO_TRA);
		uint32_t ns = dcn_topo_servers(t), v, s, d, pa[64], pb[64];
		uint64_t same = 0, touched = 0;
		struct dcn_adj a[4];

		for (v = 0; v < ns; v++) {
			unsigned int n = dcn_topo_adj(t, v, a), k;

			for (k = 0; k < n; k++) {
				struct dcn_failset *f = dcn_topo_failset_create(t);
				struct dcn_router *tfr;

				assert_int_equal(dcn_topo_failset_add_link(f, v, a[k].port), 0);
				tfr = ft_router(t, f, DCN_ALGO_TFR, 0);
				for (s = 0; s < ns; s++) {
					for (d = 0; d < ns; d++) {
						uint64_t ra = s * 131 + d, rb = ra;
						int la, lb, j;

						if (s == d)
							continue;
						if (tra_touches(tra, s, d, v, a[k].port, 0)) {
							touched++;
							continue;
						}
						la = dcn_route_walk(tra, s, d, &ra, pa, 64, NULL);
						lb = dcn_route_walk(tfr, s, d, &rb, pb, 64, NULL);
						if (la != lb)
							fail_msg("%s, #%u:%u cut: #%u -> #%u untouched, "
								 "TRA %d hops, TFR %d", specs[si], v,
								 a[k].port, s, d, la, lb);
						for (j = 0; j <= la; j++)
							assert_int_equal(pa[j], pb[j]);
						same++;
					}
				}
				dcn_router_free(tfr);
				dcn_topo_failset_free(f);
			}
		}
		assert_true(same > 0 && touched > 0);
		dcn_router_free(tra);
		dcn_topo_free(t);
	}
	{
		struct dcn_topo *t = topo_or_fail("totoro:N=16,n=16,K=2");
		struct dcn_failset *f = dcn_topo_failset_create(t);
		struct dcn_router *tra = router_or_fail(t, DCN_ALGO_TRA);
		struct dcn_router *tfr = ft_router(t, f, DCN_ALGO_TFR, 0);
		struct dcn_metrics_opts o = { 64, 1, 0, 1, 1 };
		struct dcn_metrics ma, mb;

		assert_int_equal(dcn_metrics_compute(tra, &o, &ma), 0);
		assert_int_equal(dcn_metrics_compute(tfr, &o, &mb), 0);
		assert_near(mb.routed.mean[DCN_UNIT_LINKS], ma.routed.mean[DCN_UNIT_LINKS],
			    1e-9);
		dcn_router_free(tra);
		dcn_router_free(tfr);
		dcn_topo_failset_free(f);
		dcn_topo_free(t);
	}
}

/* TRA has no rule for failures (§3.1): given some, it is refused, with
 * TFR named. */
static void
test_tra_refuses_failures(void **state)
{
	struct dcn_topo *t = topo_or_fail("totoro:N=4,n=4,K=1");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_route_conf c = { .algo = DCN_ALGO_TRA, .fail = f };
	char err[DCN_TOPO_ERR_LEN];

	(void)state;
	fail_links(f, "[0,1]:0");
	assert_null(dcn_router_create_conf(t, &c, err, sizeof(err)));
	assert_non_null(strstr(err, "tfr"));
	c.graph_only = 1;
	c.algo = DCN_ALGO_DEFAULT;
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
	/* Graph figures need no routing: a Totoro TRA cannot route. */
	t = topo_or_fail("totoro:N=6,n=6,K=2");
	c.fail = NULL;
	c.algo = DCN_ALGO_TRA;
	c.graph_only = 0;
	assert_null(dcn_router_create_conf(t, &c, err, sizeof(err)));
	c.graph_only = 1;
	{
		struct dcn_router *r = dcn_router_create_conf(t, &c, err, sizeof(err));

		assert_non_null(r);
		dcn_router_free(r);
	}
	dcn_topo_free(t);
}

static void
test_single_failures(void **state)
{
	(void)state;
	assert_int_equal(single_failures("diamond:k=4", DCN_ALGO_FAR, 0, 1, 0), 0);
	assert_int_equal(single_failures("diamond:k=8", DCN_ALGO_FAR, 0, 9, 0), 0);
	/* As printed, FAR loses pairs to single failures. */
	assert_true(single_failures("diamond:k=4", DCN_ALGO_FAR_LITERAL, 0, 1, 0) > 0);
	assert_int_equal(single_failures("rrect:n=4,m=2,k=1", DCN_ALGO_RRECT, 0, 1, 0), 0);
	assert_int_equal(single_failures("rrect:n=3,m=2,k=2", DCN_ALGO_RRECT, 0, 3, 0), 0);
	assert_int_equal(single_failures("totoro:N=4,n=4,K=1", DCN_ALGO_TFR, 0, 1, 0), 0);
	assert_int_equal(single_failures("totoro:N=8,n=4,K=2", DCN_ALGO_TFR, 0, 7, 0), 0);
	/* One server of each level a Totoro_0 (N = 2^K): a relay may take a
	 * TRA hop towards a crossing it cannot see is dead, and the way back
	 * must fit the VCs (tt_vc_rule); a server of level bcLevel + 2 or
	 * more cut off from its Totoro_0 is reached, and reaches its own
	 * Totoro_(L-1), only by the way around (route_tfr.c). Every cable
	 * and every server. */
	assert_int_equal(single_failures_of("totoro:N=4,n=4,K=2", DCN_ALGO_TFR, 0, 1, 0, 1), 0);
	assert_int_equal(single_failures_of("totoro:N=8,n=2,K=3", DCN_ALGO_TFR, 0, 1, 0, 1), 0);
	/* N below 2^K: a Totoro_0 of two servers, one of them cut off by its
	 * intra cable, cuts off the other too (tfr_cut_off); one cut off
	 * from its TBD by its level-1 cable goes around (tfr_detached,
	 * tfr_around_entry). */
	assert_int_equal(single_failures_of("totoro:N=2,n=4,K=2", DCN_ALGO_TFR, 0, 1, 0, 1), 0);
	assert_int_equal(single_failures_of("totoro:N=2,n=2,K=3", DCN_ALGO_TFR, 0, 1, 0, 1), 0);
	{
		/* Such a Totoro_0 leaves by its own high link for every
		 * destination, in its TBD or not (tfr_detached); and is
		 * entered by its highest-level server's, whoever that is
		 * (tfr_around_entry). On totoro:N=2,n=4,K=3, each a level-1
		 * cable down and a pair whose walk used to end at once. */
		static const uint32_t cases[][3] = {
			{ 2, 2, 8 }, { 10, 10, 0 }, { 2, 0, 3 }, { 10, 0, 11 },
			{ 34, 0, 40 }, { 42, 8, 32 },
		};
		struct dcn_topo *t = topo_or_fail("totoro:N=2,n=4,K=3");
		unsigned int i;

		for (i = 0; i < RTE_DIM_(cases); i++) {
			struct dcn_failset *f = dcn_topo_failset_create(t);
			struct dcn_router *r;
			uint32_t path[MAX_WALK];
			int h;

			assert_int_equal(dcn_topo_failset_add_link(f, cases[i][0], 1), 0);
			r = ft_router(t, f, DCN_ALGO_TFR, 0);
			h = dcn_route_walk(r, cases[i][1], cases[i][2], NULL, path,
					   MAX_WALK, NULL);
			if (h < 0)
				fail_msg("totoro:N=2,n=4,K=3, cable %u:1 down: #%u -> #%u "
					 "not delivered", cases[i][0], cases[i][1],
					 cases[i][2]);
			dcn_router_free(r);
			dcn_topo_failset_free(f);
		}
		dcn_topo_free(t);
	}
	/* As printed, TFR cannot leave a TBD whose intra cable failed. */
	assert_true(single_failures("totoro:N=8,n=4,K=2", DCN_ALGO_TFR_LITERAL, 0, 7, 0) > 0);
	revisits = 0;
	assert_int_equal(single_failures("lascada:n=4,k=2", DCN_ALGO_ROW, 24, 9, 0), 0);
	assert_int_equal(single_failures("lascada:n=2,k=3", DCN_ALGO_ROW, 24, 1, 0), 0);
	print_message("lascada: %llu revisits over all single failures\n",
		      (unsigned long long)revisits);
	assert_int_equal(single_failures("novacube:k=5,n=2", DCN_ALGO_PORA, 0, 1, 1), 0);
	assert_int_equal(single_failures("novacube:k=6,n=2", DCN_ALGO_PORA, 0, 1, 1), 0);
}

/* §5, Fig. 5 and 6: with 01 down, 03 still reaches 31 in two hops; its
 * mirror 05 answers for it; as a standby, 05 sleeps until then. */
static void
test_rrect_redundancy(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_failset *none = dcn_topo_failset_create(t);
	struct dcn_route_conf c = { 0 };
	struct dcn_router *r;
	uint32_t s01 = vertex_or_fail(t, "01"), s05 = vertex_or_fail(t, "05");
	uint32_t path[8], a, b;
	char err[DCN_TOPO_ERR_LEN];

	(void)state;
	assert_int_equal(dcn_topo_failset_add_vertex(f, s01), 0);
	c.fail = f;
	r = dcn_router_create_conf(t, &c, err, sizeof(err));
	assert_int_equal(dcn_route_walk(r, vertex_or_fail(t, "03"),
					vertex_or_fail(t, "31"), NULL, path, 8, NULL), 2);
	assert_int_equal(dcn_route_resolve(r, s01), DCN_ROUTE_NONE);
	dcn_router_free(r);

	c.rrect_mode = DCN_RRECT_MIRROR;
	r = dcn_router_create_conf(t, &c, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(dcn_route_resolve(r, s01), s05);
	assert_int_equal(dcn_route_walk(r, vertex_or_fail(t, "03"), s01, NULL,
					path, 8, NULL), 1);
	assert_int_equal(path[1], s05);
	dcn_router_free(r);

	/* Standby (1+1): servers with a_0 >= 4 sleep. */
	c.rrect_mode = DCN_RRECT_STANDBY;
	c.fail = none;
	r = dcn_router_create_conf(t, &c, err, sizeof(err));
	assert_non_null(r);
	assert_false(dcn_route_server_up(r, s05));
	for (a = 0; a < 32; a++)
		for (b = 0; b < 32; b++) {
			int h, j;

			if (a == b || a % 8 >= 4 || b % 8 >= 4)
				continue;
			h = dcn_route_walk(r, a, b, NULL, path, 8, NULL);
			assert_true(h > 0);
			for (j = 0; j <= h; j++)
				assert_true(path[j] % 8 < 4); /* no sleeper */
		}
	dcn_router_free(r);
	c.fail = f;
	r = dcn_router_create_conf(t, &c, err, sizeof(err));
	assert_true(dcn_route_server_up(r, s05));
	assert_int_equal(dcn_route_resolve(r, s01), s05);
	assert_false(dcn_route_server_up(r, vertex_or_fail(t, "06")));
	dcn_router_free(r);
	/* Redundancy needs m >= 2. */
	{
		struct dcn_topo *b1 = topo_or_fail("bcube:n=4,k=1");

		c.fail = NULL;
		c.rrect_mode = DCN_RRECT_MIRROR;
		assert_null(dcn_router_create_conf(b1, &c, err, sizeof(err)));
		dcn_topo_free(b1);
	}
	dcn_topo_failset_free(f);
	dcn_topo_failset_free(none);
	dcn_topo_free(t);
}

static struct dcn_router *
rr_router(const struct dcn_topo *t, const struct dcn_failset *f,
	  enum dcn_rrect_mode mode)
{
	struct dcn_route_conf c = { .fail = f, .rrect_mode = mode };
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_router *r = dcn_router_create_conf(t, &c, err, sizeof(err));

	if (r == NULL)
		fail_msg("%s", err);
	return r;
}

/*
 * §5: a failed server's mirror takes over its relaying too (Fig. 5). With
 * 01 and 33 down in RRect(4,2,1), both of 03 -> 31's parallel paths
 * ({03,33,31}, {03,01,31}) lose a relay: nothing is delivered without
 * redundancy; with mirrors (and 1+1 standby), 05 stands in for 01 and
 * {03,05,31} carries the pair in two hops.
 */
static void
test_rrect_mirror_relays(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	uint32_t s03 = vertex_or_fail(t, "03"), s31 = vertex_or_fail(t, "31");
	enum dcn_rrect_mode modes[] = { DCN_RRECT_MIRROR, DCN_RRECT_STANDBY };
	uint32_t path[8];
	struct dcn_router *r;
	unsigned int i;

	(void)state;
	assert_int_equal(dcn_topo_failset_add_vertex(f, vertex_or_fail(t, "01")), 0);
	assert_int_equal(dcn_topo_failset_add_vertex(f, vertex_or_fail(t, "33")), 0);
	r = rr_router(t, f, DCN_RRECT_NONE);
	assert_int_equal(dcn_route_walk(r, s03, s31, NULL, path, 8, NULL), -1);
	dcn_router_free(r);
	for (i = 0; i < RTE_DIM_(modes); i++) {
		r = rr_router(t, f, modes[i]);
		assert_int_equal(dcn_route_walk(r, s03, s31, NULL, path, 8, NULL), 2);
		assert_int_equal(path[1], vertex_or_fail(t, "05"));
		dcn_router_free(r);
	}
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/*
 * §5's last paragraph: with alpha > 1 the working servers of a sub-group
 * are mirrors to each other, and a failed one is taken over by a standby
 * or by a mirror. RRect(4,3,1), standby, alpha 2 (sub-group 2: 0,2 and
 * 0,6 working, 0,10 standby): with 0,6 down its standby 0,10 wakes for
 * it; with 0,10 down too, none can, and its mirror 0,2 stands in: 1,7
 * reaches 0,6's address at 0,2 (it used to be reported down).
 */
static void
test_rrect_standby_mirror_fallback(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=3,k=1");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	uint32_t s06 = vertex_or_fail(t, "0,6"), s02 = vertex_or_fail(t, "0,2");
	uint32_t s010 = vertex_or_fail(t, "0,10"), s17 = vertex_or_fail(t, "1,7");
	uint32_t path[8];
	struct dcn_router *r;
	int n;

	(void)state;
	assert_int_equal(dcn_topo_failset_add_vertex(f, s06), 0);
	r = rr_router(t, f, DCN_RRECT_STANDBY);
	assert_int_equal(dcn_route_resolve(r, s06), s010);
	dcn_router_free(r);
	assert_int_equal(dcn_topo_failset_add_vertex(f, s010), 0);
	r = rr_router(t, f, DCN_RRECT_STANDBY);
	assert_int_equal(dcn_route_resolve(r, s06), s02);
	n = dcn_route_walk(r, s17, s02, NULL, path, 8, NULL);
	assert_int_equal(n, 2);
	assert_int_equal(path[n], s02);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/*
 * §5: a woken standby "shares all the features" of the server it replaces
 * and sleeping standbys relay nothing. RRect(4,2,2), 1+1, with 001 and
 * 102 down: 005 (awake for 001) reaches 132 as 001 would, through working
 * servers and 106 (awake for 102), never a sleeper; as printed it was not
 * delivered, its paths crossing sleeping standbys.
 */
static void
test_rrect_standby_as_replaced(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=2");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	uint32_t path[16];
	struct dcn_router *r;
	int h, j;

	(void)state;
	assert_int_equal(dcn_topo_failset_add_vertex(f, vertex_or_fail(t, "001")), 0);
	assert_int_equal(dcn_topo_failset_add_vertex(f, vertex_or_fail(t, "102")), 0);
	r = rr_router(t, f, DCN_RRECT_STANDBY);
	h = dcn_route_walk(r, vertex_or_fail(t, "005"), vertex_or_fail(t, "132"),
			   NULL, path, 16, NULL);
	assert_int_equal(h, 3);
	for (j = 1; j < h; j++)
		assert_true(dcn_route_server_up(r, path[j]) &&
			    (path[j] % 8 < 4 || path[j] == vertex_or_fail(t, "106")));
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/*
 * Statistics say what each mode serves: the share of address pairs
 * delivered, a failed server's pairs counted (mirror and standby answer
 * for it; without redundancy nobody does). At 10% server failures of
 * RRect(4,2,2), over three seeds, both modes serve a larger share than no
 * redundancy and leave no live pair unrouted.
 */
static void
test_rrect_modes_served(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=2");
	struct dcn_metrics_opts o = { .routed = 1 };
	enum dcn_rrect_mode modes[] = { DCN_RRECT_MIRROR, DCN_RRECT_STANDBY };
	uint64_t seed;
	unsigned int i;

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		struct dcn_failset *f = dcn_topo_failset_create(t);
		struct dcn_metrics m0, m;
		struct dcn_router *r;
		double share0;

		assert_true(dcn_topo_failset_random(f, DCN_FAIL_SERVERS, 0.10,
						    seed) == 13);
		r = rr_router(t, f, DCN_RRECT_NONE);
		assert_int_equal(dcn_metrics_compute(r, &o, &m0), 0);
		dcn_router_free(r);
		share0 = (double)m0.served / (double)m0.address_pairs;
		assert_true(share0 < 0.9);
		for (i = 0; i < RTE_DIM_(modes); i++) {
			r = rr_router(t, f, modes[i]);
			assert_int_equal(dcn_metrics_compute(r, &o, &m), 0);
			dcn_router_free(r);
			if (!((double)m.served / (double)m.address_pairs > share0 + 0.05))
				fail_msg("seed %lu mode %u: served %lu of %lu, none "
					 "%.4f", (unsigned long)seed, modes[i],
					 (unsigned long)m.served,
					 (unsigned long)m.address_pairs, share0);
			assert_int_equal(m.routed.unreachable, 0);
		}
		dcn_topo_failset_free(f);
	}
	dcn_topo_free(t);
}

/* §3.3: with the link of P([0,2],[1,2]) down, [0,2] reaches [1,1] through
 * the proxy [1,0]. */
static void
test_tfr_example(void **state)
{
	struct dcn_topo *t = topo_or_fail("totoro:N=4,n=4,K=1");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_router *r;
	struct dcn_route_conf c = { .algo = DCN_ALGO_TFR, .bc_level = 5 };
	char err[DCN_TOPO_ERR_LEN];
	uint32_t path[16];
	int h, i, via10 = 0;

	(void)state;
	assert_null(dcn_router_create_conf(t, &c, err, sizeof(err)));
	assert_non_null(strstr(err, "bcLevel"));
	fail_links(f, "[0,2]:1");
	r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
	assert_int_equal(dcn_router_algo(r), DCN_ALGO_TFR);
	h = dcn_route_walk(r, vertex_or_fail(t, "[0,2]"), vertex_or_fail(t, "[1,1]"),
			   NULL, path, 16, NULL);
	assert_true(h > 0);
	for (i = 0; i <= h; i++)
		via10 |= path[i] == vertex_or_fail(t, "[1,0]");
	assert_true(via10);
	assert_int_equal(h, 3);
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/* Alg. 4: MaxLifeTime bounds every route; a detour through a new source
 * delivers when the row-based hop is down. */
static void
test_lascada_max_life(void **state)
{
	struct dcn_topo *t = topo_or_fail("lascada:n=4,k=2");
	struct dcn_failset *f = dcn_topo_failset_create(t);
	struct dcn_router *r;
	uint32_t path[MAX_WALK], s, d;
	uint64_t long_routes = 0, missed = 0;

	(void)state;
	dcn_topo_failset_random(f, DCN_FAIL_LINKS, 0.05, 9);
	r = ft_router(t, f, DCN_ALGO_ROW, 4);
	for (s = 0; s < 128; s += 3)
		for (d = 0; d < 128; d++) {
			int h = dcn_route_walk(r, s, d, NULL, path, MAX_WALK, NULL);

			if (s == d)
				continue;
			if (h > 4)
				long_routes++;
			missed += h < 0;
		}
	assert_int_equal(long_routes, 0);
	assert_true(missed > 0); /* 6-hop pairs cannot fit in 4 */
	dcn_router_free(r);
	dcn_topo_failset_free(f);
	dcn_topo_free(t);
}

/* With failures the compiled tables still answer as the router. */
static void
test_tables_with_failures(void **state)
{
	static const char *const specs[] = { "diamond:k=8", "rrect:n=4,m=2,k=2",
					     "novacube:k=6,n=2" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct dcn_topo *t = topo_or_fail(specs[i]);
		struct dcn_failset *f = dcn_topo_failset_create(t);
		struct dcn_router *r;
		uint32_t v, tested = 0;

		dcn_topo_failset_random(f, DCN_FAIL_LINKS, 0.1, 5);
		r = ft_router(t, f, DCN_ALGO_DEFAULT, 0);
		for (v = 0; v < dcn_topo_vertices(t) && tested < 6; v += 7) {
			if (!dcn_topo_is_router(t, v) || dcn_topo_failset_vertex_down(f, v))
				continue;
			expect_table_matches(r, v);
			tested++;
		}
		dcn_router_free(r);
		dcn_topo_failset_free(f);
		dcn_topo_free(t);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failset),
		cmocka_unit_test(test_far_worked_example),
		cmocka_unit_test(test_far_nrt_cases),
		cmocka_unit_test(test_far_attached_failure),
		cmocka_unit_test(test_far_no_fallback_loop),
		cmocka_unit_test(test_far_edge_cut_off_bounce),
		cmocka_unit_test(test_far_random_no_revisit),
		cmocka_unit_test(test_far_opposite_core_rule),
		cmocka_unit_test(test_far_nrt_sizes),
		cmocka_unit_test(test_rrect_redundancy),
		cmocka_unit_test(test_rrect_mirror_relays),
		cmocka_unit_test(test_rrect_standby_as_replaced),
		cmocka_unit_test(test_rrect_standby_mirror_fallback),
		cmocka_unit_test(test_rrect_modes_served),
		cmocka_unit_test(test_tfr_example),
		cmocka_unit_test(test_lascada_max_life),
		cmocka_unit_test(test_tables_with_failures),
		cmocka_unit_test(test_single_failures),
		cmocka_unit_test(test_walks_revisit_as_allowed),
		cmocka_unit_test(test_tra_refuses_failures),
		cmocka_unit_test(test_tfr_is_tra_where_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
