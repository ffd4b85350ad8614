/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/topo: spec parsing, the papers' constructions and their sizes,
 * cabling consistency and the address plans.
 */
#include <errno.h>

#include "test_common.h"

static void
expect_bad_spec(const char *spec, int err_no, const char *phrase)
{
	char err[DCN_TOPO_ERR_LEN] = "";
	struct dcn_topo *t;

	errno = 0;
	t = dcn_topo_create(spec, err, sizeof(err));
	if (t != NULL) {
		dcn_topo_free(t);
		fail_msg("spec '%s' was accepted", spec ? spec : "(null)");
	}
	assert_int_equal(errno, err_no);
	if (phrase != NULL && strstr(err, phrase) == NULL)
		fail_msg("spec '%s': message '%s' lacks '%s'", spec, err, phrase);
}

static void
test_spec_invalid(void **state)
{
	(void)state;
	expect_bad_spec(NULL, EINVAL, "no topology");
	expect_bad_spec("novacube", EINVAL, "expected <topology>");
	expect_bad_spec("hypercube:k=2", EINVAL, "unknown topology 'hypercube'");
	expect_bad_spec("novacube:k=8", EINVAL, "missing parameter 'n'");
	expect_bad_spec("novacube:k=8,n=2,m=1", EINVAL, "unknown parameter 'm'");
	expect_bad_spec("novacube:k=8,k=9,n=2", EINVAL, "given twice");
	expect_bad_spec("novacube:k=eight,n=2", EINVAL, "whole number");
	expect_bad_spec("novacube:k=8,n=2,", EINVAL, "trailing comma");
	expect_bad_spec("novacube:k=33,n=2", ERANGE, "k=33 out of range");
	expect_bad_spec("novacube:k=8,n=7", ERANGE, "n=7 out of range");
	expect_bad_spec("novacube:k=2,n=2", ERANGE, "k=2");
	expect_bad_spec("diamond:k=6", EINVAL, "multiple of 4");
	expect_bad_spec("diamond:k=256", ERANGE, "out of range");
	expect_bad_spec("rrect:n=1,m=1,k=1", ERANGE, "out of range");
	expect_bad_spec("rrect:n=64,m=1,k=4", ERANGE, "address bits");
	expect_bad_spec("lascada:n=5,k=2", EINVAL, "must be even");
	expect_bad_spec("lascada:n=8,k=4", ERANGE, "address bits");
	expect_bad_spec("totoro:N=16,n=16", EINVAL, "missing parameter 'K'");
	expect_bad_spec("totoro:N=2,n=3,K=2", EINVAL, "not a multiple of 2^2");
}

struct size_case {
	const char *spec;
	uint64_t servers, switches, links;
};

static void
check_sizes(const struct size_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct dcn_topo *t = topo_or_fail(c[i].spec);

		if (dcn_topo_servers(t) != c[i].servers ||
		    dcn_topo_switches(t) != c[i].switches ||
		    dcn_topo_links(t) != c[i].links)
			fail_msg("%s: %u servers, %u switches, %llu links; expected %llu, %llu, %llu",
				 c[i].spec, dcn_topo_servers(t),
				 dcn_topo_switches(t),
				 (unsigned long long)dcn_topo_links(t),
				 (unsigned long long)c[i].servers,
				 (unsigned long long)c[i].switches,
				 (unsigned long long)c[i].links);
		dcn_topo_free(t);
	}
}

/* Sizes the papers state: their formulas and tables. */
static void
test_sizes(void **state)
{
	static const struct size_case cases[] = {
		/* NovaCube eq. (11): (n + 1/2) k^n for even k, n k^n +
		 * (k-1)^n / 2 for odd k. §4.2.6's 4096-node 3D fabric has
		 * 14336 links; its 2D one (k=64) is beyond the 5-bit
		 * coordinates of §7.2, so k=32 stands in: 2.5 * 1024. */
		{ "novacube:k=32,n=2", 1024, 0, 2560 },
		{ "novacube:k=16,n=3", 4096, 0, 14336 },
		{ "novacube:k=9,n=2", 81, 0, 2 * 81 + 32 },
		{ "novacube:k=5,n=3", 125, 0, 3 * 125 + 32 },
		{ "torus:k=8,n=2", 64, 0, 128 },
		/* Diamond: k^3/4 servers, k^2 + k^2/4 switches; 48-port:
		 * 27,648 servers and 2,880 switches (§I, §IV-D). */
		{ "diamond:k=48", 27648, 2880, 3ull * 48 * 48 * 48 / 4 },
		{ "diamond:k=4", 16, 20, 48 },
		/* RRect Table 2: m n^(k+1) servers, (k+1) n^k switches. */
		{ "rrect:n=4,m=12,k=2", 768, 48, 768 * 3 },
		{ "rrect:n=6,m=8,k=2", 1728, 108, 1728 * 3 },
		{ "rrect:n=8,m=6,k=2", 3072, 192, 3072 * 3 },
		{ "rrect:n=12,m=4,k=2", 6912, 432, 6912 * 3 },
		{ "rrect:n=16,m=3,k=2", 12288, 768, 12288 * 3 },
		{ "rrect:n=24,m=2,k=2", 27648, 1728, 27648 * 3 },
		{ "rrect:n=48,m=1,k=2", 110592, 6912, 110592 * 3 },
		{ "rrect:n=6,m=2,k=3", 2592, 864, 2592 * 4 },
		{ "bcube:n=8,k=4", 32768, 5 * 4096, 32768 * 5 },
		/* LaScaDa Table V: n^(3k-2)/2^(k-1) nodes, k of them links,
		 * k n^(3(k-1))/2^(k-1) switches; Fig. 6: 128 nodes on 32 + 32
		 * switches; Fig. 7 (n=2,k=3): 16 layer-3 switches. */
		{ "lascada:n=4,k=2", 128, 64, 256 },
		{ "lascada:n=4,k=3", 4096, 3 * 1024, 3 * 4096 },
		{ "lascada:n=4,k=4", 131072, 4 * 32768, 4 * 131072 },
		{ "lascada:n=6,k=3", 69984, 3 * 11664, 3 * 69984 },
		{ "lascada:n=8,k=2", 2048, 512, 4096 },
		{ "lascada:n=8,k=3", 524288, 3 * 65536, 3 * 524288 },
		{ "lascada:n=16,k=2", 32768, 4096, 65536 },
		{ "lascada:n=2,k=3", 32, 48, 96 },
		/* Totoro Table 2: N n^u servers; n^K intra-switches and
		 * N n^(K-1) / 2^u level-u switches; half the servers have a
		 * level-1 link, a quarter level 2, ... */
		{ "totoro:N=16,n=16,K=2", 4096, 256 + 128 + 64,
		  4096 + 2048 + 1024 },
		{ "totoro:N=24,n=24,K=2", 13824, 576 + 288 + 144,
		  13824 + 6912 + 3456 },
		{ "totoro:N=32,n=32,K=2", 32768, 1024 + 512 + 256,
		  32768 + 16384 + 8192 },
		{ "totoro:N=16,n=16,K=3", 65536, 4096 + 2048 + 1024 + 512,
		  65536 + 32768 + 16384 + 8192 },
		{ "totoro:N=24,n=24,K=3", 331776, 13824 + 6912 + 3456 + 1728,
		  331776 + 165888 + 82944 + 41472 },
		{ "totoro:N=32,n=32,K=3", 1048576,
		  32768 + 16384 + 8192 + 4096,
		  1048576 + 524288 + 262144 + 131072 },
		{ "totoro:N=4,n=4,K=1", 16, 4 + 2, 16 + 8 },
	};

	(void)state;
	check_sizes(cases, sizeof(cases) / sizeof(cases[0]));
}

/* Every cable is seen from both ends, on the ports each end names. */
static void
check_cabling(const char *spec)
{
	struct dcn_topo *t = topo_or_fail(spec);
	unsigned int deg = dcn_topo_max_degree(t);
	struct dcn_adj *a = malloc(deg * sizeof(*a));
	struct dcn_adj *b = malloc(deg * sizeof(*b));
	uint64_t ends = 0;
	uint32_t v;

	assert_non_null(a);
	assert_non_null(b);
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		unsigned int n = dcn_topo_adj(t, v, a), i, j;

		assert_true(n <= deg);
		assert_true(n <= dcn_topo_ports(t, v));
		for (i = 0; i < n; i++) {
			unsigned int m;
			int found = 0;

			assert_true(a[i].peer < dcn_topo_vertices(t));
			assert_true(a[i].peer != v);
			assert_true(a[i].port < dcn_topo_ports(t, v));
			if (i > 0 && a[i].port <= a[i - 1].port)
				fail_msg("%s: ports of #%u not in order", spec, v);
			m = dcn_topo_adj(t, a[i].peer, b);
			for (j = 0; j < m; j++)
				if (b[j].port == a[i].peer_port) {
					found = b[j].peer == v &&
						b[j].peer_port == a[i].port;
					break;
				}
			if (!found)
				fail_msg("%s: cable #%u port %u -> #%u port %u not seen back",
					 spec, v, a[i].port, a[i].peer,
					 a[i].peer_port);
			/* In server-centric fabrics a cable has a switch end. */
			if (dcn_topo_kind(t) != DCN_TOPO_NOVACUBE &&
			    dcn_topo_kind(t) != DCN_TOPO_TORUS &&
			    dcn_topo_role(t, v) == DCN_ROLE_SERVER)
				assert_int_not_equal(dcn_topo_role(t, a[i].peer),
						     DCN_ROLE_SERVER);
		}
		ends += n;
	}
	if (ends != 2 * dcn_topo_links(t))
		fail_msg("%s: %llu cable ends, %llu links", spec,
			 (unsigned long long)ends,
			 (unsigned long long)dcn_topo_links(t));
	free(a);
	free(b);
	dcn_topo_free(t);
}

static void
test_cabling(void **state)
{
	static const char *const specs[] = {
		"novacube:k=8,n=2", "novacube:k=5,n=3", "novacube:k=4,n=1",
		"torus:k=3,n=2", "diamond:k=4", "diamond:k=12",
		"rrect:n=4,m=2,k=1", "rrect:n=3,m=3,k=2", "bcube:n=4,k=2",
		"lascada:n=4,k=2", "lascada:n=2,k=3", "lascada:n=4,k=3",
		"totoro:N=4,n=4,K=1", "totoro:N=8,n=4,K=2",
		"totoro:N=4,n=6,K=2",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		check_cabling(specs[i]);
}

/* Addresses are one-to-one; names round-trip through the parser. */
static void
check_addresses(const char *spec)
{
	struct dcn_topo *t = topo_or_fail(spec);
	uint32_t v, ns = dcn_topo_servers(t);
	uint8_t *seen = calloc(1u << 24, 1);

	assert_non_null(seen);
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		char name[DCN_TOPO_NAME_LEN], a[20];
		uint32_t addr = dcn_topo_addr(t, v);
		int64_t back;

		if (v >= ns && addr == 0)
			continue; /* an L2 switch has no address */
		assert_int_not_equal(addr, 0);
		if (seen[addr & 0xffffff] && (addr >> 24) == 10)
			fail_msg("%s: address of #%u used twice", spec, v);
		if ((addr >> 24) == 10)
			seen[addr & 0xffffff] = 1;
		back = dcn_topo_vertex_of(t, addr);
		assert_int_equal(back, v);
		dcn_topo_format_vertex(t, v, name, sizeof(name));
		assert_int_equal(dcn_topo_parse_vertex(t, name, NULL, 0), v);
		dcn_topo_format_addr(addr, a, sizeof(a));
		assert_int_equal(dcn_topo_parse_vertex(t, a, NULL, 0), v);
	}
	/* Outside the fabric. */
	assert_int_equal(dcn_topo_vertex_of(t, 0x0b000001), -1);
	assert_int_equal(dcn_topo_vertex_of(t, 0xffffffff), -1);
	free(seen);
	dcn_topo_free(t);
}

static void
test_addresses(void **state)
{
	static const char *const specs[] = {
		"novacube:k=8,n=2", "novacube:k=5,n=6", "torus:k=3,n=3",
		"diamond:k=8", "rrect:n=4,m=2,k=2", "rrect:n=3,m=5,k=1",
		"lascada:n=4,k=2", "lascada:n=6,k=2", "totoro:N=8,n=4,K=2",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		check_addresses(specs[i]);
}

static void
test_bad_names(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_topo *d = topo_or_fail("diamond:k=4");
	char err[DCN_TOPO_ERR_LEN];

	(void)state;
	assert_int_equal(dcn_topo_parse_vertex(t, "", err, sizeof(err)), -1);
	assert_int_equal(dcn_topo_parse_vertex(t, "48", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(dcn_topo_parse_vertex(t, "1,2,3", err, sizeof(err)), -1);
	assert_int_equal(dcn_topo_parse_vertex(t, "#9999", err, sizeof(err)), -1);
	assert_int_equal(dcn_topo_parse_vertex(t, "10.9.9.9", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not in"));
	assert_int_equal(dcn_topo_parse_vertex(d, "E5.1", err, sizeof(err)), -1);
	assert_int_equal(dcn_topo_parse_vertex(d, "C1.2", err, sizeof(err)), -1);
	assert_int_equal(dcn_topo_parse_vertex(d, "X11", err, sizeof(err)), -1);
	/* 10.1.1.6 is beyond the k/4 servers of E11. */
	assert_int_equal(dcn_topo_parse_vertex(d, "10.1.1.4", err, sizeof(err)), -1);
	dcn_topo_free(t);
	dcn_topo_free(d);
}

/* §7.2 and Table 1: flag 10 plus the dimension count, or flag 11. */
/* prefix=: every address inside the network, one-to-one, round trips;
 * the addresses next to the network are not the fabric's. */
static void
check_prefix_plan(const char *spec, const char *canonical, uint32_t want_net,
		  unsigned int want_len)
{
	struct dcn_topo *t = topo_or_fail(spec);
	uint32_t v, net, span;
	unsigned int len;
	uint8_t *seen;

	assert_string_equal(dcn_topo_spec(t), canonical);
	dcn_topo_prefix(t, &net, &len);
	assert_int_equal(net, want_net);
	assert_int_equal(len, want_len);
	span = UINT32_MAX >> len;
	seen = calloc((size_t)span + 1, 1);
	assert_non_null(seen);
	for (v = 0; v < dcn_topo_vertices(t); v++) {
		uint32_t addr = dcn_topo_addr(t, v);

		if (v >= dcn_topo_servers(t) && addr == 0)
			continue;
		if ((addr & ~span) != net)
			fail_msg("%s: #%u has %08x, outside the prefix", spec, v,
				 addr);
		if (seen[addr & span])
			fail_msg("%s: address of #%u used twice", spec, v);
		seen[addr & span] = 1;
		assert_int_equal(dcn_topo_vertex_of(t, addr), v);
	}
	assert_int_equal(dcn_topo_vertex_of(t, net - 1), -1);
	if (net + span + 1 != 0)
		assert_int_equal(dcn_topo_vertex_of(t, net + span + 1), -1);
	free(seen);
	dcn_topo_free(t);
}

static void
test_prefix_plans(void **state)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_topo *t;
	uint32_t net;
	unsigned int len;
	size_t i;
	static const char *const bad[][2] = {
		{ "novacube:k=8,n=2,prefix=10.0.0.0/27", "needs 6 address bits" },
		{ "novacube:k=8,n=2,prefix=10.0.0.1/8", "host bits set" },
		{ "novacube:k=8,n=2,prefix=10.0.0.0", "network like" },
		{ "novacube:k=8,n=2,prefix=10.0.0.0/0", "out of range" },
		{ "novacube:k=8,n=2,prefix=10.0.0.0/31", "out of range" },
		{ "novacube:k=8,n=2,prefix=10.0.0.0/8x", "network like" },
		{ "novacube:k=8,n=2,prefix=10.0.0.0/8,prefix=10.0.0.0/8", "twice" },
		{ "diamond:k=8,prefix=172.16.0.0/12", "low three octets" },
		{ "rrect:n=4,m=2,k=1,prefix=10.0.0.0/28", "needs 5 address bits" },
		{ "totoro:N=16,n=16,K=2,prefix=192.168.0.0/21", "needs 12" },
		/* Plans that put a node where an address means more than a
		 * host: refused, each topology, each range. */
		{ "lascada:n=2,k=2,prefix=0.0.0.0/29", "puts (1,1) at 0.0.0.0, in 0.0.0.0/8" },
		{ "novacube:k=4,n=2,prefix=0.0.0.0/8", "in 0.0.0.0/8" },
		{ "diamond:k=4,prefix=0.0.0.0/8", "in 0.0.0.0/8" },
		{ "rrect:n=2,m=2,k=1,prefix=127.0.0.0/8", "in 127.0.0.0/8, loopback" },
		{ "totoro:N=4,n=4,K=1,prefix=224.0.0.0/24", "in 224.0.0.0/4, multicast" },
		{ "lascada:n=2,k=2,prefix=239.255.255.248/29", "multicast" },
		{ "rrect:n=2,m=2,k=1,prefix=255.255.255.0/24", "in 240.0.0.0/4" },
		{ "novacube:k=4,n=2,prefix=240.0.0.0/4", "reserved and broadcast" },
	};

	(void)state;
	/* The paper's NovaCube plan stays the default: public space. */
	t = topo_or_fail("novacube:k=8,n=2");
	dcn_topo_prefix(t, &net, &len);
	assert_int_equal(net, 0x80000000u);
	assert_int_equal(len, 2);
	assert_int_equal(dcn_topo_addr(t, vertex_or_fail(t, "(1,2)")),
			 0x82200008u);
	dcn_topo_free(t);
	/* Moved, its fields are bits(k-1) wide, c_1 highest: (1,2) with
	 * k=8 is net | 1 << 3 | 2. */
	t = topo_or_fail("novacube:k=8,n=2,prefix=10.77.0.0/16");
	assert_int_equal(dcn_topo_addr(t, vertex_or_fail(t, "(1,2)")),
			 0x0a4d000au);
	assert_int_equal(vertex_or_fail(t, "10.77.0.10"),
			 vertex_or_fail(t, "(1,2)"));
	assert_int_equal(dcn_topo_vertex_of(t, 0x82200008u), -1);
	dcn_topo_free(t);

	check_prefix_plan("novacube:k=8,n=2,prefix=10.77.0.0/16",
			  "novacube:k=8,n=2,prefix=10.77.0.0/16", 0x0a4d0000u, 16);
	check_prefix_plan("novacube:k=5,n=6,prefix=10.0.0.0/8",
			  "novacube:k=5,n=6,prefix=10.0.0.0/8", 0x0a000000u, 8);
	check_prefix_plan("torus:k=3,n=2,prefix=192.168.3.0/28",
			  "torus:k=3,n=2,prefix=192.168.3.0/28", 0xc0a80300u, 28);
	check_prefix_plan("diamond:k=8,prefix=172.0.0.0/8",
			  "diamond:k=8,prefix=172.0.0.0/8", 0xac000000u, 8);
	check_prefix_plan("rrect:n=4,m=2,k=2,prefix=192.168.0.0/16",
			  "rrect:n=4,m=2,k=2,prefix=192.168.0.0/16", 0xc0a80000u, 16);
	/* 10/8 is the packed plans' own: the canonical spec leaves it out,
	 * so relays that say it and relays that do not are one fabric. */
	check_prefix_plan("lascada:n=4,k=2,prefix=10.0.0.0/8", "lascada:n=4,k=2",
			  0x0a000000u, 8);
	check_prefix_plan("totoro:N=8,n=4,K=2,prefix=100.64.0.0/10",
			  "totoro:N=8,n=4,K=2,prefix=100.64.0.0/10", 0x64400000u, 10);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		t = dcn_topo_create(bad[i][0], err, sizeof(err));
		if (t != NULL)
			fail_msg("%s accepted", bad[i][0]);
		if (strstr(err, bad[i][1]) == NULL)
			fail_msg("%s: '%s' does not say '%s'", bad[i][0], err,
				 bad[i][1]);
	}

	assert_true(dcn_topo_prefix_private(0x0a000000u, 8));
	assert_true(dcn_topo_prefix_private(0x0a4d0000u, 16));
	assert_true(dcn_topo_prefix_private(0xac100000u, 12));
	assert_true(dcn_topo_prefix_private(0xc0a80100u, 24));
	assert_true(dcn_topo_prefix_private(0x64400000u, 10));
	assert_false(dcn_topo_prefix_private(0xac200000u, 16));
	assert_false(dcn_topo_prefix_private(0x80000000u, 2));
	assert_false(dcn_topo_prefix_private(0x08000000u, 6));
	assert_false(dcn_topo_prefix_private(0x64800000u, 10));
	assert_false(dcn_topo_prefix_private(0xac000000u, 8));
}

static void
test_novacube_address_plan(void **state)
{
	struct dcn_topo *t2 = topo_or_fail("novacube:k=8,n=2");
	struct dcn_topo *t6 = topo_or_fail("novacube:k=4,n=6");
	uint8_t c6[6] = { 1, 2, 3, 0, 1, 2 };

	(void)state;
	assert_int_equal(dcn_topo_addr(t2, vertex_or_fail(t2, "(1,2)")),
			 2u << 30 | 1u << 25 | 2u << 20 | 2u << 2);
	assert_int_equal(dcn_topo_addr(t6, dcn_topo_nc_vertex(t6, c6)),
			 3u << 30 | 1u << 25 | 2u << 20 | 3u << 15 | 0u << 10 |
				 1u << 5 | 2u);
	/* A 3-D address in a 2-D fabric is refused. */
	assert_int_equal(dcn_topo_vertex_of(t2, 2u << 30 | 3u << 2), -1);
	dcn_topo_free(t2);
	dcn_topo_free(t6);
}

/* §4.1: each node's jump partner is its farthest node (even k); for odd
 * k only the (k-1)-ary sub-cube is paired. */
static void
test_novacube_jumps(void **state)
{
	struct dcn_topo *e = topo_or_fail("novacube:k=6,n=3");
	struct dcn_topo *o = topo_or_fail("novacube:k=5,n=2");
	uint32_t v, with = 0;

	(void)state;
	for (v = 0; v < dcn_topo_servers(e); v++) {
		int64_t j = dcn_topo_nc_jump(e, v);
		uint8_t a[6], b[6];
		unsigned int i;

		assert_true(j >= 0);
		assert_int_equal(dcn_topo_nc_jump(e, (uint32_t)j), v);
		dcn_topo_nc_coords(e, v, a);
		dcn_topo_nc_coords(e, (uint32_t)j, b);
		for (i = 0; i < 3; i++)
			assert_int_equal((a[i] + 3) % 6, b[i]);
	}
	for (v = 0; v < dcn_topo_servers(o); v++) {
		int64_t j = dcn_topo_nc_jump(o, v);
		uint8_t a[6];

		dcn_topo_nc_coords(o, v, a);
		if (a[0] == 4 || a[1] == 4) {
			assert_int_equal(j, -1);
			continue;
		}
		assert_true(j >= 0);
		assert_int_equal(dcn_topo_nc_jump(o, (uint32_t)j), v);
		with++;
	}
	assert_int_equal(with, 16); /* (k-1)^n nodes, (k-1)^n / 2 links */
	dcn_topo_free(e);
	dcn_topo_free(o);
}

static int
has_peer(const struct dcn_topo *t, uint32_t v, uint32_t peer)
{
	struct dcn_adj a[256];
	unsigned int n = dcn_topo_adj(t, v, a), i;

	for (i = 0; i < n; i++)
		if (a[i].peer == peer)
			return 1;
	return 0;
}

/* Fig. 2: E11 reaches E13, E14, C11 and server 10.1.1.2; C11 joins the
 * edge switches at position 1 of every pod. */
static void
test_diamond_wiring(void **state)
{
	struct dcn_topo *t = topo_or_fail("diamond:k=4");
	uint32_t e11 = vertex_or_fail(t, "E11"), c11 = vertex_or_fail(t, "C1.1");

	(void)state;
	assert_int_equal(dcn_topo_addr(t, e11), 0x0a010101);
	assert_int_equal(dcn_topo_addr(t, c11), 0x0a000101);
	assert_true(has_peer(t, e11, vertex_or_fail(t, "E13")));
	assert_true(has_peer(t, e11, vertex_or_fail(t, "E14")));
	assert_false(has_peer(t, e11, vertex_or_fail(t, "E12")));
	assert_true(has_peer(t, e11, c11));
	assert_true(has_peer(t, e11, vertex_or_fail(t, "10.1.1.2")));
	assert_true(has_peer(t, c11, vertex_or_fail(t, "E41")));
	assert_false(has_peer(t, c11, vertex_or_fail(t, "E42")));
	assert_int_equal(dcn_topo_role(t, c11), DCN_ROLE_CORE);
	assert_true(dcn_topo_is_router(t, e11));
	assert_false(dcn_topo_is_router(t, vertex_or_fail(t, "10.1.1.2")));
	dcn_topo_free(t);
}

/* §3.2: the alternate format 50 is server 14; a level-1 switch joins
 * the mn servers that differ in a_1 and the sub-group index; the
 * sub-group members 01 and 05 share every switch (§5, Fig. 5). */
static void
test_rrect_structure(void **state)
{
	struct dcn_topo *t = topo_or_fail("rrect:n=4,m=2,k=1");
	struct dcn_adj a[8], s[8];
	static const char *const lvl1[] = { "00", "10", "20", "30",
					    "04", "14", "24", "34" };
	unsigned int i, n;

	(void)state;
	assert_int_equal(vertex_or_fail(t, "50"), vertex_or_fail(t, "14"));
	assert_int_equal(vertex_or_fail(t, "73"), vertex_or_fail(t, "37"));
	dcn_topo_adj(t, vertex_or_fail(t, "00"), a);
	n = dcn_topo_adj(t, a[1].peer, s);
	assert_int_equal(n, 8);
	for (i = 0; i < 8; i++)
		assert_true(has_peer(t, a[1].peer, vertex_or_fail(t, lvl1[i])));
	n = dcn_topo_adj(t, a[0].peer, s);
	for (i = 0; i < n; i++)
		assert_int_equal(s[i].peer, i); /* 00..07 */
	{
		struct dcn_adj m1[2], m5[2];

		dcn_topo_adj(t, vertex_or_fail(t, "01"), m1);
		dcn_topo_adj(t, vertex_or_fail(t, "05"), m5);
		assert_int_equal(m1[0].peer, m5[0].peer);
		assert_int_equal(m1[1].peer, m5[1].peer);
	}
	dcn_topo_free(t);
}

/* §III-D: LCM for n=4 gives L1 = (1,2,4,8) and clusters 2,3,4,5,7,8,26,
 * 27,29,30,31,32 linked to cluster 1; the rows of L are shifts. */
static void
test_lascada_lcm(void **state)
{
	static const uint32_t l1_expect[4] = { 1, 2, 4, 8 };
	static const uint32_t omega_expect[12] = { 1, 2, 3, 4, 6, 7,
						   25, 26, 28, 29, 30, 31 };
	struct dcn_topo *t = topo_or_fail("lascada:n=4,k=2");
	uint32_t d, cnt = 0, i;
	struct dcn_adj a[4];

	(void)state;
	assert_int_equal(dcn_topo_ls_rows(t), 32);
	assert_memory_equal(dcn_topo_ls_l1(t), l1_expect, sizeof(l1_expect));
	for (d = 1; d < 32; d++)
		if (dcn_topo_ls_in_omega(t, d))
			assert_int_equal(d, omega_expect[cnt++]);
	assert_int_equal(cnt, 12);
	assert_int_equal(dcn_topo_ls_omega_size(t), 12);
	/* Row 2 is row 1 plus one; row 32 wraps to switch 1. */
	assert_int_equal(dcn_topo_ls_L(t, 1, 3), 9);
	assert_int_equal(dcn_topo_ls_L(t, 31, 1), 1);
	/* Internal switch 1 joins node 1 of cluster 1 and node 2 of
	 * cluster 32: cluster 1's layer-2 switch has (32,2) on it. */
	dcn_topo_adj(t, vertex_or_fail(t, "(1,1)"), a);
	assert_true(has_peer(t, a[1].peer, vertex_or_fail(t, "(32,2)")));
	assert_true(has_peer(t, a[1].peer, vertex_or_fail(t, "(30,3)")));
	assert_true(has_peer(t, a[1].peer, vertex_or_fail(t, "(26,4)")));
	/* Every internal switch takes one node of each column. */
	for (i = 0; i < 32; i++) {
		struct dcn_adj s[4];
		uint32_t sw = dcn_topo_servers(t) + 32 + i;
		unsigned int n = dcn_topo_adj(t, sw, s), j;

		assert_int_equal(n, 4);
		for (j = 0; j < 4; j++)
			assert_int_equal(s[j].peer % 4, j);
	}
	dcn_topo_free(t);
}

/* Fig. 1 (N=4, n=4, K=1) and Alg. 1's link levels. */
static void
test_totoro_structure(void **state)
{
	struct dcn_topo *t = topo_or_fail("totoro:N=4,n=4,K=1");
	struct dcn_topo *t3 = topo_or_fail("totoro:N=16,n=4,K=3");
	struct dcn_adj a[4];
	uint32_t cnt[4] = { 0 }, v;
	unsigned int i;

	(void)state;
	dcn_topo_adj(t, vertex_or_fail(t, "[0,0]"), a);
	assert_int_equal(dcn_topo_adj(t, a[1].peer, a), 4);
	for (i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "[%u,0]", i);
		assert_int_equal(a[i].peer, vertex_or_fail(t, name));
	}
	dcn_topo_adj(t, vertex_or_fail(t, "[2,2]"), a);
	assert_true(has_peer(t, a[1].peer, vertex_or_fail(t, "[0,2]")));
	assert_int_equal(dcn_topo_adj(t, vertex_or_fail(t, "[0,1]"), a), 1);
	/* Half the servers have level-1 links, a quarter level 2, ... */
	for (v = 0; v < dcn_topo_servers(t3); v++)
		cnt[dcn_topo_tt_link_level(t3, v)]++;
	assert_int_equal(cnt[1], 512);
	assert_int_equal(cnt[2], 256);
	assert_int_equal(cnt[3], 128);
	assert_int_equal(cnt[0], 128);
	dcn_topo_free(t);
	dcn_topo_free(t3);
}

/* dcn_topo_port_peer agrees with dcn_topo_adj on every port, cabled or
 * not (a Totoro server without a higher-level link, an odd-k NovaCube
 * node without a jump link). */
static void
test_port_peer(void **state)
{
	static const char *const specs[] = { "totoro:N=4,n=4,K=1",
		"novacube:k=5,n=2", "rrect:n=2,m=2,k=1", "diamond:k=4" };
	unsigned int s, uncabled = 0;

	(void)state;
	for (s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		struct dcn_topo *t = topo_or_fail(specs[s]);
		struct dcn_adj *a = calloc(dcn_topo_max_degree(t), sizeof(*a));
		uint32_t v;

		assert_non_null(a);
		for (v = 0; v < dcn_topo_vertices(t); v++) {
			unsigned int n = dcn_topo_adj(t, v, a), port, i;

			for (port = 0; port < dcn_topo_ports(t, v); port++) {
				int64_t want = -1;

				for (i = 0; i < n; i++)
					if (a[i].port == port)
						want = a[i].peer;
				uncabled += want < 0;
				assert_int_equal(dcn_topo_port_peer(t, v, port), want);
			}
		}
		/* past the last port: nothing */
		assert_int_equal(dcn_topo_port_peer(t, 0, dcn_topo_ports(t, 0)), -1);
		free(a);
		dcn_topo_free(t);
	}
	assert_true(uncabled > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_peer),
		cmocka_unit_test(test_spec_invalid),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_cabling),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_prefix_plans),
		cmocka_unit_test(test_novacube_address_plan),
		cmocka_unit_test(test_novacube_jumps),
		cmocka_unit_test(test_diamond_wiring),
		cmocka_unit_test(test_rrect_structure),
		cmocka_unit_test(test_lascada_lcm),
		cmocka_unit_test(test_totoro_structure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
