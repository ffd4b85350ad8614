/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator (lib/gen): the frames it builds, checked field by field
 * against what they must be; a frame is picked, then put (built)
 * or skipped (counted as sent and lost at the first NIC, not built). A
 * share of a host's destinations sends only to them. What the sink makes
 * of a skipped frame: a gap (lost), never a reordering.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dcn_gen.h"
#include "test_eal.h"

static struct rte_mempool *mp;

static const uint32_t dst[5] = { 0x0a000002, 0x0a000003, 0x0a000004, 0x0a000005,
				 0x0a000006 };

static void
conf_of(struct dcn_gen_conf *c, enum dcn_gen_pattern pattern)
{
	memset(c, 0, sizeof(*c));
	c->src_addr = 0x0a000001;
	c->dst = dst;
	c->n_dst = RTE_DIM(dst);
	c->pattern = pattern;
	c->frame_len = 60;
	c->flow_base = 1024;
	c->seed = 7;
}

/* The destination and sequence number a built frame carries. */
static void
read_frame(const struct rte_mbuf *m, uint32_t *to, uint16_t *flow, uint32_t *seq)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	*to = (uint32_t)f[30] << 24 | (uint32_t)f[31] << 16 | (uint32_t)f[32] << 8 | f[33];
	*flow = (uint16_t)(f[34] << 8 | f[35]);
	memcpy(seq, f + 42, sizeof(*seq));
}

/* The IPv4 header checksum of a 20-byte header at p, as RFC 791 says:
 * the ones' complement of the ones' complement sum of its words. */
static uint16_t
ipv4_sum(const uint8_t *p)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * What dcn_gen_build makes, checked against what a frame must be, not
 * against the generator's own steps: each of 640 frames is conf's length,
 * IPv4/UDP from the source to one of the destinations with a checksum
 * that sums to 0, its UDP source port the destination's flow, its
 * sequence number the next of that flow from 0; the uniform pattern
 * reaches every destination, each near its fifth; the list pattern takes
 * them in turn. Every frame is counted as sent.
 */
static void
test_build_frames(void **state)
{
	static const enum dcn_gen_pattern pat[2] = { DCN_GEN_UNIFORM, DCN_GEN_LIST };
	unsigned int p, i, seen[RTE_DIM(dst)];
	struct rte_mbuf *m[640];

	(void)state;
	for (p = 0; p < 2; p++) {
		struct dcn_gen g;
		struct dcn_gen_conf c;

		conf_of(&c, pat[p]);
		assert_int_equal(dcn_gen_init(&g, &c, 1000000000), 0);
		assert_int_equal(rte_pktmbuf_alloc_bulk(mp, m, RTE_DIM(m)), 0);
		assert_int_equal(dcn_gen_build(&g, m, RTE_DIM(m), 5), RTE_DIM(m));
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < RTE_DIM(m); i++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint32_t to, seq, from;
			uint16_t flow;
			unsigned int d;

			assert_int_equal(rte_pktmbuf_data_len(m[i]), c.frame_len);
			assert_int_equal(f[12] << 8 | f[13], 0x0800);
			assert_int_equal(f[14], 0x45);
			assert_int_equal(f[23], 17);
			assert_int_equal(f[16] << 8 | f[17], c.frame_len - 14);
			assert_int_equal(ipv4_sum(f + 14), 0);
			from = (uint32_t)f[26] << 24 | (uint32_t)f[27] << 16 |
			       (uint32_t)f[28] << 8 | f[29];
			assert_int_equal(from, c.src_addr);
			read_frame(m[i], &to, &flow, &seq);
			for (d = 0; d < RTE_DIM(dst) && dst[d] != to; d++)
				;
			assert_true(d < RTE_DIM(dst));
			if (pat[p] == DCN_GEN_LIST)
				assert_int_equal(d, i % RTE_DIM(dst));
			assert_int_equal(flow, c.flow_base + d);
			assert_int_equal(seq, seen[d]);
			seen[d]++;
		}
		for (i = 0; i < RTE_DIM(dst); i++)
			assert_true(seen[i] > RTE_DIM(m) / RTE_DIM(dst) / 2);
		assert_int_equal(g.sent, RTE_DIM(m));
		rte_pktmbuf_free_bulk(m, RTE_DIM(m));
		dcn_gen_fini(&g);
	}
}

/* A share picks its destinations alone, uniformly or in turn, and its
 * frames keep the flow (UDP source port) each has in the whole list. */
static void
test_share_picks_its_own(void **state)
{
	static const uint32_t share[2] = { 1, 4 };
	static const enum dcn_gen_pattern pat[2] = { DCN_GEN_UNIFORM, DCN_GEN_LIST };
	unsigned int p, i, seen[RTE_DIM(dst)];

	(void)state;
	for (p = 0; p < 2; p++) {
		struct dcn_gen g;
		struct dcn_gen_conf c;
		struct rte_mbuf *m[100];

		conf_of(&c, pat[p]);
		c.pick = share;
		c.n_pick = RTE_DIM(share);
		assert_int_equal(dcn_gen_init(&g, &c, 1000000000), 0);
		assert_int_equal(rte_pktmbuf_alloc_bulk(mp, m, 100), 0);
		dcn_gen_build(&g, m, 100, 0);
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < 100; i++) {
			uint32_t to, seq;
			uint16_t flow;
			unsigned int d;

			read_frame(m[i], &to, &flow, &seq);
			for (d = 0; d < RTE_DIM(dst) && dst[d] != to; d++)
				;
			assert_true(d == 1 || d == 4);
			assert_int_equal(flow, dcn_gen_flow_of(&c, d));
			assert_int_equal(seq, seen[d]);
			seen[d]++;
		}
		assert_true(seen[1] > 20 && seen[4] > 20);
		rte_pktmbuf_free_bulk(m, 100);
		dcn_gen_fini(&g);
	}
	/* A share beyond the list, or empty, is refused. */
	{
		static const uint32_t bad[1] = { 5 };
		struct dcn_gen g;
		struct dcn_gen_conf c;

		conf_of(&c, DCN_GEN_UNIFORM);
		c.pick = bad;
		c.n_pick = 1;
		assert_int_equal(dcn_gen_init(&g, &c, 1000000000), -EINVAL);
		c.n_pick = 0;
		assert_int_equal(dcn_gen_init(&g, &c, 1000000000), -EINVAL);
	}
}

/* A skipped frame is sent and spends its sequence number: the sink sees
 * the next frame of its flow after a gap, counted lost, not reordered. */
static void
test_skip_is_a_gap(void **state)
{
	struct dcn_gen g;
	struct dcn_gen_conf c;
	struct dcn_gen_sink s;
	const struct dcn_gen_sink *sp = &s;
	struct dcn_gen_report r;
	struct rte_mbuf *m[10];
	unsigned int i, k = 0;

	(void)state;
	conf_of(&c, DCN_GEN_PERMUTATION);
	c.n_dst = 1;
	assert_int_equal(dcn_gen_init(&g, &c, 1000000000), 0);
	assert_int_equal(dcn_gen_sink_init(&s, 4), 0);
	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, m, 10), 0);
	for (i = 0; i < 10; i++) {
		unsigned int d = dcn_gen_pick(&g);

		if (i == 3 || i == 4)
			dcn_gen_skip(&g, d);
		else
			dcn_gen_put(&g, m[k++], d, 1);
	}
	assert_int_equal(g.sent, 10);
	assert_int_equal(g.bytes, 10 * 60);
	dcn_gen_sink_rx(&s, m, k, 2);
	dcn_gen_sink_report(&sp, 1, 1000000000, &r);
	assert_int_equal(r.rx, 8);
	assert_int_equal(r.lost, 2);
	assert_int_equal(r.reordered, 0);
	rte_pktmbuf_free_bulk(m, k);
	rte_pktmbuf_free_bulk(&m[k], 10 - k);
	dcn_gen_sink_fini(&s);
	dcn_gen_fini(&g);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_frames),
		cmocka_unit_test(test_share_picks_its_own),
		cmocka_unit_test(test_skip_is_a_gap),
	};
	int ret;

	(void)argc;
	ret = test_eal_start(argv[0], "gen", 1023, &mp);
	if (ret != 0)
		return ret;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	test_eal_stop(mp);
	return ret;
}
