/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slow, late or lossy cable (dcn_port_impair.h) on real mbufs, through
 * dcn_port_rx on a ring port as a worker polls it, on a clock the test
 * sets: every frame leaves at the time its delay, jitter and the cable's
 * rate give (the model below, frame by frame), never before the one ahead
 * of it; losses are counted and their mbufs go home; a full cable drops at
 * its entry; a clock near its wrap changes nothing; frames still on the
 * cable at the end go back to the pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ring.h>

#include "dcn_port.h"
#include "dcn_port_impair.h"
#include "test_eal.h"

#define HZ 1000000000ull  /* a TSC of 1 GHz: a cycle is a ns */
#define US 1000ull

static struct rte_mempool *mp;

struct cable {
	struct dcn_port p;
	struct rte_ring *r;
};

static void
cable_open(struct cable *c, const char *conf)
{
	static unsigned int made;
	struct dcn_port_impair_conf ic;
	char err[128], name[32];

	memset(c, 0, sizeof(*c));
	snprintf(name, sizeof(name), "impair_test%u", made++);
	c->r = rte_ring_create(name, 8192, SOCKET_ID_ANY,
			       RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(c->r);
	c->p.nb_rxq = c->p.nb_txq = 1;
	c->p.rx_ring[0] = c->r;
	c->p.impair = dcn_port_impair_create(1, SOCKET_ID_ANY, HZ);
	assert_non_null(c->p.impair);
	assert_int_equal(dcn_port_impair_parse(conf, &ic, err, sizeof(err)), 0);
	assert_int_equal(dcn_port_impair_set(c->p.impair, &ic), 0);
}

static void
cable_close(struct cable *c)
{
	struct rte_mbuf *m;

	dcn_port_impair_free(c->p.impair);
	while (rte_ring_dequeue(c->r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(c->r);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

/* n frames of len bytes onto the cable, numbered from first in their
 * first bytes. */
static void
put_on(struct cable *c, unsigned int n, uint16_t len, uint32_t first)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

		assert_non_null(m);
		assert_non_null(rte_pktmbuf_append(m, len));
		*rte_pktmbuf_mtod(m, uint32_t *) = first + i;
		assert_int_equal(rte_ring_enqueue(c->r, m), 0);
	}
}

/* Poll at now: the frames that come off, their numbers in got[]. */
static unsigned int
take_off(struct cable *c, uint64_t now, uint32_t *got, uint16_t room)
{
	struct rte_mbuf *m[64];
	unsigned int i, n = dcn_port_rx(&c->p, 0, m, room, now);

	for (i = 0; i < n; i++) {
		got[i] = *rte_pktmbuf_mtod(m[i], uint32_t *);
		rte_pktmbuf_free(m[i]);
	}
	return n;
}

/* Settings it refuses, each with a reason. */
static void
test_parse(void **state)
{
	static const char *const bad[] = {
		"delay_us=-1", "delay_us=", "delay=5", "loss_ppm=1000001",
		"delay_us=100 jitter_us=200", "rate_kbps=7", "delay_us=10000001",
		"delay_us=5x", "junk",
	};
	struct dcn_port_impair_conf c;
	char err[128];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		err[0] = '\0';
		assert_int_equal(dcn_port_impair_parse(bad[i], &c, err, sizeof(err)),
				 -EINVAL);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(dcn_port_impair_parse(" delay_us=500,jitter_us=100 "
					       "loss_ppm=20000 rate_kbps=1000",
					       &c, err, sizeof(err)), 0);
	assert_int_equal(c.delay_us, 500);
	assert_int_equal(c.jitter_us, 100);
	assert_int_equal(c.loss_ppm, 20000);
	assert_int_equal(c.rate_kbps, 1000);
	assert_true(dcn_port_impair_active(&c));
	assert_int_equal(dcn_port_impair_parse("", &c, err, sizeof(err)), 0);
	assert_false(dcn_port_impair_active(&c));
}

/* A delay: nothing before it, everything at it, in order; the clock
 * starts a second before the TSC wraps, and the delay crosses the wrap. */
static void
test_delay_across_wrap(void **state)
{
	const uint64_t t0 = UINT64_MAX - 200 * US;
	struct cable c;
	uint32_t got[64];
	unsigned int i;

	(void)state;
	cable_open(&c, "delay_us=500");
	put_on(&c, 20, 100, 0);
	assert_int_equal(take_off(&c, t0, got, 64), 0);
	assert_int_equal(dcn_port_impair_held(c.p.impair, 0), 20);
	assert_int_equal(take_off(&c, t0 + 500 * US - 1, got, 64), 0);
	/* room: only as many as asked; the rest wait, still due */
	assert_int_equal(take_off(&c, t0 + 500 * US, got, 8), 8);
	assert_int_equal(take_off(&c, t0 + 500 * US, got + 8, 64), 12);
	for (i = 0; i < 20; i++)
		assert_int_equal(got[i], i);
	assert_int_equal(c.p.impair->q[0].passed, 20);
	cable_close(&c);
}

/* A rate: 1,000-byte frames at 8 Mbit/s take 1 ms each; the k-th of a
 * burst is through at (k + 1) ms, then the delay. Sent again after an
 * idle spell, the cable starts afresh. */
static void
test_rate(void **state)
{
	struct cable c;
	uint32_t got[64];
	uint64_t t0 = 5000 * US;
	unsigned int k;

	(void)state;
	cable_open(&c, "rate_kbps=8000 delay_us=100");
	put_on(&c, 10, 1000, 0);
	assert_int_equal(take_off(&c, t0, got, 64), 0);
	for (k = 0; k < 10; k++) {
		uint64_t due = t0 + (k + 1) * 1000 * US + 100 * US;

		assert_int_equal(take_off(&c, due - 1, got, 64), 0);
		assert_int_equal(take_off(&c, due, got, 64), 1);
		assert_int_equal(got[0], k);
	}
	t0 += 60000 * US;
	put_on(&c, 1, 1000, 10);
	assert_int_equal(take_off(&c, t0, got, 64), 0);
	assert_int_equal(take_off(&c, t0 + 1100 * US - 1, got, 64), 0);
	assert_int_equal(take_off(&c, t0 + 1100 * US, got, 64), 1);
	cable_close(&c);
}

/* Jitter: frames far apart each leave within delay +- jitter of their
 * arrival, both ends of the range met; frames close together never leave
 * before the one ahead (a cable keeps its order), whatever they draw. */
static void
test_jitter_keeps_order(void **state)
{
	const uint64_t delay = 1000 * US, jitter = 800 * US;
	uint64_t now = 1ull << 40, early = UINT64_MAX, late = 0, last = 0;
	uint32_t got[64], next = 0;
	struct cable c;
	unsigned int round, k, n;

	(void)state;
	cable_open(&c, "delay_us=1000 jitter_us=800");
	for (round = 0; round < 800; round++) {
		const struct dcn_port_impair_q *s = &c.p.impair->q[0];
		/* the first 400 rounds a frame every 2 ms, then 4 every 97 us */
		unsigned int burst = round < 400 ? 1 : 4;

		put_on(&c, burst, 64, next + dcn_port_impair_held(c.p.impair, 0));
		n = take_off(&c, now, got, 64);
		for (k = 0; k < n; k++)
			assert_int_equal(got[k], next++);
		for (k = 0; k < burst; k++) {
			uint64_t due = s->due[(s->tail - burst + k) % DCN_PORT_IMPAIR_DEPTH];
			uint64_t own = due - now;

			assert_true(due >= last);
			assert_true(own <= delay + jitter);
			if (round < 400) {
				assert_true(own >= delay - jitter);
				early = RTE_MIN(early, own);
				late = RTE_MAX(late, own);
			}
			last = due;
		}
		now += round < 400 ? 2000 * US : 97 * US;
	}
	while ((n = take_off(&c, now, got, 64)) != 0 || dcn_port_impair_held(c.p.impair, 0)) {
		for (k = 0; k < n; k++)
			assert_int_equal(got[k], next++);
		now += 100 * US;
	}
	assert_int_equal(next, 400 + 4 * 400);
	assert_true(early < delay - jitter / 2);
	assert_true(late > delay + jitter / 2);
	cable_close(&c);
}

/* Loss: about the share asked, counted, their mbufs home; all lost at
 * 100%, none at 0 (the settings changed on a live cable). */
static void
test_loss(void **state)
{
	struct cable c;
	uint32_t got[64];
	unsigned int i, passed = 0;

	(void)state;
	cable_open(&c, "loss_ppm=100000");
	for (i = 0; i < 100; i++) {
		put_on(&c, 50, 64, i * 50);
		passed += take_off(&c, i, got, 64);
	}
	assert_int_equal(passed + c.p.impair->q[0].lost, 5000);
	assert_in_range(c.p.impair->q[0].lost, 350, 650);
	{
		struct dcn_port_impair_conf ic = { .loss_ppm = 1000000 };

		assert_int_equal(dcn_port_impair_set(c.p.impair, &ic), 0);
		put_on(&c, 50, 64, 0);
		assert_int_equal(take_off(&c, 200, got, 64), 0);
		ic.loss_ppm = 0;
		assert_int_equal(dcn_port_impair_set(c.p.impair, &ic), 0);
		put_on(&c, 50, 64, 0);
		assert_int_equal(take_off(&c, 300, got, 64), 50);
	}
	cable_close(&c);
}

/* A full cable drops at its entry, counted; what it holds still comes
 * off in order; at the end, what is left on it goes home. */
static void
test_overflow_and_free(void **state)
{
	struct cable c;
	uint32_t got[64];
	unsigned int i, n;

	(void)state;
	cable_open(&c, "delay_us=1000");
	for (i = 0; i < DCN_PORT_IMPAIR_DEPTH / 64 + 2; i++) {
		put_on(&c, 64, 64, i * 64);
		assert_int_equal(take_off(&c, 10, got, 64), 0);
	}
	assert_int_equal(dcn_port_impair_held(c.p.impair, 0), DCN_PORT_IMPAIR_DEPTH);
	assert_int_equal(c.p.impair->q[0].overflow, 128);
	n = take_off(&c, 1000 * US + 10, got, 64);
	assert_int_equal(n, 64);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], i);
	/* cable_close checks every mbuf is home */
	cable_close(&c);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_delay_across_wrap),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_jitter_keeps_order),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_overflow_and_free),
	};
	int ret;

	(void)argc;
	ret = test_eal_start(argv[0], "impair", 8191, &mp);
	if (ret != 0)
		return ret;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	test_eal_stop(mp);
	return ret;
}
