/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How long frames stay in a relay (dcn_port_lat.h), on real mbufs: a
 * stamped frame is recorded once, in the bucket of its stay, and its
 * stamp taken off before the device sees it; frames without a stamp cost
 * nothing and count nothing; each bucket's bound is where the next
 * starts, the first takes every short stay and the last every long one,
 * summed exactly whatever its length; a stamp from a clock a little
 * ahead counts as no stay at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dcn_port_lat.h"
#include "test_eal.h"

#define HZ 1000000000ull  /* as if the TSC ran at 1 GHz: a cycle a ns */

static struct rte_mempool *mp;

/* The bucket a stay of ns falls in, by its bounds. */
static unsigned int
bucket_of(uint64_t ns)
{
	unsigned int k;

	for (k = 0; k + 1 < DCN_PORT_LAT_BUCKETS; k++)
		if (ns < dcn_port_lat_bucket_ns(k))
			return k;
	return DCN_PORT_LAT_BUCKETS - 1;
}

static void
test_buckets(void **state)
{
	static const uint64_t stays[] = { 0, 1, 255, 256, 257, 511, 512, 1000,
					  65535, 65536, 1000000, 1ull << 30,
					  (1ull << 31) - 1, 1ull << 31, 1ull << 32,
					  (1ull << 40) + 12345, 1ull << 62 };
	struct dcn_port_lat h;
	unsigned int i, k;

	(void)state;
	for (k = 0; k + 2 < DCN_PORT_LAT_BUCKETS; k++)
		assert_true(dcn_port_lat_bucket_ns(k + 1) == 2 * dcn_port_lat_bucket_ns(k));
	assert_int_equal(dcn_port_lat_bucket_ns(0), 1u << DCN_PORT_LAT_MIN_LOG2);
	assert_true(dcn_port_lat_bucket_ns(DCN_PORT_LAT_BUCKETS - 1) == UINT64_MAX);
	for (i = 0; i < RTE_DIM(stays); i++) {
		memset(&h, 0, sizeof(h));
		dcn_port_lat_add(&h, stays[i]);
		assert_int_equal(h.count, 1);
		for (k = 0; k < DCN_PORT_LAT_BUCKETS; k++)
			assert_int_equal(h.bucket[k], k == bucket_of(stays[i]));
		/* exact at 1 GHz, however long (an hour, a century) */
		assert_true(h.sum_ns == stays[i]);
	}
	/* A stamp a little ahead of the sender's clock (another core's
	 * TSC): a stay of 0, not of 584 years. */
	memset(&h, 0, sizeof(h));
	dcn_port_lat_add(&h, (uint64_t)-1000);
	assert_int_equal(h.count, 1);
	assert_int_equal(h.bucket[0], 1);
	assert_true(h.sum_ns == 0);
}

/* A burst of 32, two stamped: those two recorded (stays of 1 ms and 3 us
 * and what the test took), their flags gone; again, nothing more. */
static void
test_note(void **state)
{
	struct rte_mbuf *m[32];
	struct dcn_port_lat h;
	uint64_t now, late, seen = 0;
	unsigned int i, k;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, m, 32), 0);
	now = rte_rdtsc();
	dcn_port_lat_stamp(m[3], now - 1000000);
	dcn_port_lat_stamp(m[30], now - 3000);
	assert_true(m[3]->ol_flags & dcn_port_lat_flag);
	dcn_port_lat_note(&h, m, 32);
	late = rte_rdtsc() - now;
	assert_int_equal(h.count, 2);
	/* in the buckets of their stays, however long the note took */
	for (k = 0; k < DCN_PORT_LAT_BUCKETS; k++)
		seen += h.bucket[k] * ((k >= bucket_of(1000000) &&
					k <= bucket_of(1000000 + late)) +
				       2 * (k >= bucket_of(3000) &&
					    k <= bucket_of(3000 + late)));
	assert_int_equal(seen, 3);
	assert_true(h.sum_ns >= 1003000 && h.sum_ns <= 1003000 + 2 * late);
	for (i = 0; i < 32; i++)
		assert_false(m[i]->ol_flags & dcn_port_lat_flag);
	dcn_port_lat_note(&h, m, 32);
	assert_int_equal(h.count, 2);
	rte_pktmbuf_free_bulk(m, 32);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_note),
	};
	int ret;

	(void)argc;
	ret = test_eal_start(argv[0], "lat", 255, &mp);
	if (ret != 0)
		return ret;
	assert_int_equal(dcn_port_lat_init(HZ), 0);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	test_eal_stop(mp);
	return ret;
}
