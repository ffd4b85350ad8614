/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/link: the link state machine (carrier, hello silence, hold-down and
 * its growth under flapping) and the announcement database (newest wins,
 * duplicates and stale copies refused, restarted origins accepted).
 */
#include "test_common.h"
#include "dcn_link.h"

static struct dcn_link_conf
conf(void)
{
	struct dcn_link_conf c = { .hello_us = 1000, .miss = 3,
				   .holddown_us = 50000,
				   .holddown_max_us = 400000 };

	dcn_link_conf_defaults(&c);
	return c;
}

static void
test_defaults(void **state)
{
	struct dcn_link_conf c = { 0 };

	(void)state;
	dcn_link_conf_defaults(&c);
	/* Detection by silence within 10 ms by default. */
	assert_true(c.hello_us * c.miss < 10000);
	assert_true(c.holddown_max_us >= c.holddown_us);
}

static void
test_start_and_silence(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;

	(void)state;
	dcn_link_init(&l, &c, 1000);
	assert_true(dcn_link_usable(&l));
	/* First hello: up without a hold-down and without an event. */
	assert_int_equal(dcn_link_hello(&l, &c, 1500), DCN_LINK_EV_NONE);
	assert_int_equal(l.state, DCN_LINK_UP);
	/* Silence of exactly miss intervals is still up; one us more is not. */
	assert_int_equal(dcn_link_tick(&l, &c, 1500 + 3000), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick(&l, &c, 1500 + 3001), DCN_LINK_EV_DOWN);
	assert_int_equal(l.cause, DCN_LINK_CAUSE_HELLO_MISS);
	assert_false(dcn_link_usable(&l));
	/* Only one event for one failure. */
	assert_int_equal(dcn_link_tick(&l, &c, 9000), DCN_LINK_EV_NONE);
	assert_int_equal(l.downs, 1);
}

/* A reader behind on the port's queue (read long ago) does not blame the
 * neighbour: silence counts up to the last time the queue was emptied,
 * and counts again in full once the reader keeps up. */
static void
test_late_reader_blames_nobody(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;

	(void)state;
	dcn_link_init(&l, &c, 0);
	assert_int_equal(dcn_link_hello(&l, &c, 1000), DCN_LINK_EV_NONE);
	/* 20 ms without a hello, but the queue was last emptied at 2 ms:
	 * what came after may be waiting in it. */
	assert_int_equal(dcn_link_tick_read(&l, &c, 21000, 2000), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick_read(&l, &c, 30000, 4000), DCN_LINK_EV_NONE);
	assert_int_equal(l.state, DCN_LINK_UP);
	/* The reader catches up: the hello it finds keeps the link. */
	assert_int_equal(dcn_link_hello(&l, &c, 30500), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick_read(&l, &c, 31000, 31000), DCN_LINK_EV_NONE);
	/* Emptied again and again with nothing from the neighbour: down,
	 * after the same silence as dcn_link_tick's. */
	assert_int_equal(dcn_link_tick_read(&l, &c, 33600, 33500), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick_read(&l, &c, 33600, 33501), DCN_LINK_EV_DOWN);
	assert_int_equal(l.cause, DCN_LINK_CAUSE_HELLO_MISS);
	/* A read time after now counts as now. */
	dcn_link_init(&l, &c, 0);
	assert_int_equal(dcn_link_hello(&l, &c, 1000), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick_read(&l, &c, 4000, 9000), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick_read(&l, &c, 4001, 9000), DCN_LINK_EV_DOWN);
}

static void
test_traffic_keeps_alive(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;

	(void)state;
	dcn_link_init(&l, &c, 0);
	/* Before a hello confirmed the neighbour, traffic proves nothing. */
	dcn_link_alive(&l, 2500);
	assert_int_equal(dcn_link_tick(&l, &c, 3001), DCN_LINK_EV_DOWN);
	dcn_link_hello(&l, &c, 4000);
	assert_int_equal(l.state, DCN_LINK_UP);
	/* Confirmed: frames keep it up while hellos are late. */
	dcn_link_alive(&l, 6000);
	assert_int_equal(dcn_link_tick(&l, &c, 8500), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick(&l, &c, 9001), DCN_LINK_EV_DOWN);
	/* And never brings a down link back. */
	dcn_link_alive(&l, 9500);
	assert_int_equal(l.state, DCN_LINK_DOWN);
}

static void
test_observer_away(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;

	(void)state;
	dcn_link_init(&l, &c, 0);
	dcn_link_hello(&l, &c, 1000);
	/* 20 ms away from 2000: the silence that counts is 1 ms before and
	 * what follows the return. */
	dcn_link_observer_away(&l, 20000, 22000);
	assert_int_equal(dcn_link_tick(&l, &c, 22000), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick(&l, &c, 24000), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick(&l, &c, 24001), DCN_LINK_EV_DOWN);
	/* A hello taken just on return is not pushed past the return: the
	 * link stays up for the next ticks. */
	dcn_link_init(&l, &c, 0);
	dcn_link_hello(&l, &c, 30000);
	dcn_link_observer_away(&l, 20000, 30000);
	assert_int_equal(l.last_hello, 30000);
	assert_int_equal(dcn_link_tick(&l, &c, 30500), DCN_LINK_EV_NONE);
	assert_int_equal(l.state, DCN_LINK_UP);
}

static void
test_never_seen_goes_down_then_up_at_once(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;

	(void)state;
	dcn_link_init(&l, &c, 0);
	assert_int_equal(dcn_link_tick(&l, &c, 3001), DCN_LINK_EV_DOWN);
	/* A neighbour that starts late is not a flap: no hold-down. */
	assert_int_equal(dcn_link_hello(&l, &c, 20000), DCN_LINK_EV_UP);
	assert_int_equal(l.state, DCN_LINK_UP);
}

static void
test_carrier_and_holddown(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;
	uint64_t t = 0;

	(void)state;
	dcn_link_init(&l, &c, t);
	dcn_link_hello(&l, &c, t);
	/* Long after coming up, a carrier loss: down at once. */
	t = 10000000;
	dcn_link_hello(&l, &c, t - 500);
	assert_int_equal(dcn_link_carrier(&l, &c, 0, t), DCN_LINK_EV_DOWN);
	assert_int_equal(l.cause, DCN_LINK_CAUSE_CARRIER);
	/* A late hello with the carrier down changes nothing. */
	assert_int_equal(dcn_link_hello(&l, &c, t + 10), DCN_LINK_EV_NONE);
	assert_int_equal(l.state, DCN_LINK_DOWN);
	/* Carrier back, no hello: still down, and silence counts from now. */
	assert_int_equal(dcn_link_carrier(&l, &c, 1, t + 1000), DCN_LINK_EV_NONE);
	assert_int_equal(dcn_link_tick(&l, &c, t + 3500), DCN_LINK_EV_NONE);
	assert_int_equal(l.state, DCN_LINK_DOWN);
	/* Hellos: hold-down of the base length, then up. */
	assert_int_equal(dcn_link_hello(&l, &c, t + 4000), DCN_LINK_EV_NONE);
	assert_int_equal(l.state, DCN_LINK_HOLD);
	assert_false(dcn_link_usable(&l));
	for (uint64_t u = t + 5000; u < t + 4000 + c.holddown_us; u += 1000) {
		dcn_link_hello(&l, &c, u);
		assert_int_equal(dcn_link_tick(&l, &c, u), DCN_LINK_EV_NONE);
	}
	assert_int_equal(dcn_link_tick(&l, &c, t + 4000 + c.holddown_us),
			 DCN_LINK_EV_UP);
	assert_true(dcn_link_usable(&l));
}

static void
test_silence_during_holddown(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;

	(void)state;
	dcn_link_init(&l, &c, 0);
	dcn_link_hello(&l, &c, 0);
	dcn_link_carrier(&l, &c, 0, 5000000);
	dcn_link_carrier(&l, &c, 1, 5001000);
	dcn_link_hello(&l, &c, 5002000);
	assert_int_equal(l.state, DCN_LINK_HOLD);
	/* The neighbour stops again: back to down, with no event (it was
	 * never back in the tables). */
	assert_int_equal(dcn_link_tick(&l, &c, 5002000 + 3001), DCN_LINK_EV_NONE);
	assert_int_equal(l.state, DCN_LINK_DOWN);
	assert_int_equal(l.downs, 1);
}

/* Bring a down link back: hellos through its hold-down. @return when. */
static uint64_t
recover(struct dcn_link *l, const struct dcn_link_conf *c, uint64_t t)
{
	dcn_link_carrier(l, c, 1, t);
	for (;; t += 1000) {
		dcn_link_hello(l, c, t);
		if (dcn_link_tick(l, c, t) == DCN_LINK_EV_UP)
			return t;
		assert_true(t < 100000000);
	}
}

static void
test_flapping_grows_holddown(void **state)
{
	struct dcn_link_conf c = conf();
	struct dcn_link l;
	uint64_t t = 1000000, up, prev_hold = 0;
	int i;

	(void)state;
	dcn_link_init(&l, &c, 0);
	dcn_link_hello(&l, &c, 0);
	dcn_link_carrier(&l, &c, 0, t);
	/* Each failure right after coming back doubles the wait, to the
	 * ceiling. */
	for (i = 0; i < 6; i++) {
		uint64_t start = t + 1000;

		up = recover(&l, &c, start);
		if (i > 0)
			assert_true(up - start >= prev_hold);
		prev_hold = up - start;
		t = up + 1000;
		assert_int_equal(dcn_link_carrier(&l, &c, 0, t), DCN_LINK_EV_DOWN);
	}
	assert_int_equal(l.flaps, 6);
	assert_int_equal(l.holddown, c.holddown_max_us);
	/* Stable for longer than the flap window: back to the base. */
	up = recover(&l, &c, t + 1000);
	dcn_link_hello(&l, &c, up + c.flap_window_us);
	assert_int_equal(dcn_link_carrier(&l, &c, 0, up + c.flap_window_us + 1),
			 DCN_LINK_EV_DOWN);
	assert_int_equal(l.holddown, c.holddown_us);
}

static void
test_lsa_round_trip(void **state)
{
	struct dcn_link_lsa a = { .origin = 0x0a000102, .epoch = 77, .seq = 5,
				  .hops = 9, .n = 2 }, b;
	uint8_t buf[DCN_LINK_LSA_LEN(DCN_LINK_LSA_MAX)];
	int len;

	(void)state;
	a.link[0] = (struct dcn_link_id){ 0x0a000102, 3 };
	a.link[1] = (struct dcn_link_id){ 0x0a000203, 300 };
	len = dcn_link_lsa_write(buf, sizeof(buf), &a);
	assert_int_equal(len, DCN_LINK_LSA_LEN(2));
	assert_int_equal(dcn_link_lsa_read(buf, (size_t)len, &b), 0);
	assert_int_equal(b.origin, a.origin);
	assert_int_equal(b.epoch, 77);
	assert_int_equal(b.seq, 5);
	assert_int_equal(b.hops, 9);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.link[1].addr, 0x0a000203);
	assert_int_equal(b.link[1].port, 300);
	/* Truncated or overlong lists are refused. */
	assert_int_equal(dcn_link_lsa_read(buf, (size_t)len - 1, &b), -1);
	assert_int_equal(dcn_link_lsa_read(buf, 15, &b), -1);
	buf[13] = DCN_LINK_LSA_MAX + 1;
	assert_int_equal(dcn_link_lsa_read(buf, sizeof(buf), &b), -1);
	assert_int_equal(dcn_link_lsa_write(buf, DCN_LINK_LSA_LEN(1), &a), -1);
}

struct collect {
	unsigned int n;
	uint32_t v[8];
	uint16_t p[8];
};

static void
collect(uint32_t v, uint16_t p, void *arg)
{
	struct collect *c = arg;

	if (c->n < 8) {
		c->v[c->n] = v;
		c->p[c->n] = p;
	}
	c->n++;
}

static void
test_db(void **state)
{
	struct dcn_link_db *db = dcn_link_db_create(10);
	uint32_t v[2] = { 4, 5 };
	uint16_t p[2] = { 1, 2 };
	struct collect c = { 0 };

	(void)state;
	assert_non_null(db);
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 1, 2, v, p, 0), 1);
	/* The same copy again, flooded back by a neighbour: refused. */
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 1, 2, v, p, 0), 0);
	/* A refresh: new, but the same links. */
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 2, 2, v, p, 0), 2);
	/* Newer: replaces (one link left down). */
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 3, 1, v, p, 0), 1);
	/* Older, arriving late: refused, the newer state stays. */
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 1, 2, v, p, 0), 0);
	dcn_link_db_foreach(db, collect, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.v[0], 4);
	assert_int_equal(c.p[0], 1);
	/* Sequence numbers wrap. */
	assert_int_equal(dcn_link_db_accept(db, 7, 1, UINT32_MAX, 0, v, p, 0), 1);
	assert_int_equal(dcn_link_db_accept(db, 7, 1, 0, 2, v, p, 0), 1);
	/* A restarted origin starts its numbering over: accepted. */
	assert_int_equal(dcn_link_db_accept(db, 3, 101, 1, 0, v, p, 0), 1);
	c.n = 0;
	dcn_link_db_foreach(db, collect, &c);
	assert_int_equal(c.n, 2); /* origin 7's two links */
	assert_int_equal(dcn_link_db_origins(db), 2);
	assert_int_equal(dcn_link_db_accept(db, 10, 1, 1, 0, v, p, 0), -1);
	dcn_link_db_free(db);
}

/*
 * An announcement nobody repeats ages out; one its origin repeats (every
 * LSA_REFRESH_MS while it lists a failure) stays. A forged one, with a
 * sequence number far ahead, goes too, and the origin's real numbers are
 * taken again after it.
 */
static void
test_db_age(void **state)
{
	struct dcn_link_db *db = dcn_link_db_create(10);
	uint32_t v[1] = { 4 };
	uint16_t p[1] = { 1 };
	struct collect c = { 0 };

	(void)state;
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 1, 1, v, p, 0), 1);
	assert_int_equal(dcn_link_db_accept(db, 5, 200, 1u << 30, 1, v, p, 0), 1);
	assert_int_equal(dcn_link_db_age(db, 1500, 2000), 0);
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 2, 1, v, p, 1500), 2);
	/* 5 said it once, at 0: gone at 2001; 3 repeated at 1500: stays. */
	assert_int_equal(dcn_link_db_age(db, 2001, 2000), 1);
	assert_int_equal(dcn_link_db_origins(db), 1);
	dcn_link_db_foreach(db, collect, &c);
	assert_int_equal(c.n, 1);
	/* 5's own numbering is news again. */
	assert_int_equal(dcn_link_db_accept(db, 5, 200, 7, 0, v, p, 2100), 1);
	/* Both go at 4200; only 3 listed a link, so only its going changes
	 * routes. */
	assert_int_equal(dcn_link_db_age(db, 4200, 2000), 1);
	assert_int_equal(dcn_link_db_origins(db), 0);
	dcn_link_db_free(db);
}

/*
 * The control thread reads its clock at the start of a tick, takes the
 * tick's frames (each stamped when taken), then ages the database with
 * the tick's time: an entry stamped after it is young. It was aged at
 * once, its age a negative number wrapped round, and a failure that its
 * origin kept announcing was forgotten until the next refresh (a Diamond
 * edge switch then sent a share of its traffic to a core that had no
 * route on, for up to 500 ms at a time).
 */
static void
test_db_age_taken_in_tick(void **state)
{
	struct dcn_link_db *db = dcn_link_db_create(10);
	uint32_t v[1] = { 4 };
	uint16_t p[1] = { 1 };

	(void)state;
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 1, 1, v, p, 5000), 1);
	assert_int_equal(dcn_link_db_age(db, 4990, 2000), 0);
	assert_int_equal(dcn_link_db_age(db, 5000, 2000), 0);
	assert_int_equal(dcn_link_db_origins(db), 1);
	assert_int_equal(dcn_link_db_age(db, 7001, 2000), 1);
	assert_int_equal(dcn_link_db_origins(db), 0);
	dcn_link_db_free(db);
}

/*
 * Signed announcements (an ordered database): an origin's newest numbers
 * outlive the ageing of its links, so a recording of an announcement is
 * not taken again once the original is forgotten, nor is an earlier
 * incarnation's; a later incarnation is.
 */
static void
test_db_ordered(void **state)
{
	struct dcn_link_db *db = dcn_link_db_create(10);
	uint32_t v[1] = { 4 };
	uint16_t p[1] = { 1 };

	(void)state;
	dcn_link_db_ordered(db);
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 5, 1, v, p, 0), 1);
	assert_int_equal(dcn_link_db_age(db, 2001, 2000), 1);
	assert_int_equal(dcn_link_db_origins(db), 0);
	/* The same words again, and older ones: replays. */
	assert_true(dcn_link_db_replayed(db, 3, 100, 5));
	assert_true(dcn_link_db_replayed(db, 3, 100, 4));
	assert_false(dcn_link_db_replayed(db, 3, 100, 6));
	assert_false(dcn_link_db_replayed(db, 4, 1, 1));   /* never heard */
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 5, 1, v, p, 2100), -2);
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 4, 1, v, p, 2100), -2);
	assert_int_equal(dcn_link_db_origins(db), 0);
	/* The origin's next word, and its next life's, are. */
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 6, 0, v, p, 2200), 1);
	/* While held, its echo through the flood is a duplicate. */
	assert_false(dcn_link_db_replayed(db, 3, 100, 6));
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 6, 0, v, p, 2250), 0);
	/* Its next life: epochs are random, so one below the last is as
	 * new as one above (a clock stepped back, a jump of 2^31). */
	assert_int_equal(dcn_link_db_accept(db, 3, 99, 1, 1, v, p, 2300), 1);
	assert_int_equal(dcn_link_db_accept(db, 3, 99 + 0x80000001u, 1, 1, v, p, 2310), 2);
	/* What the ended lives said is remembered: recordings. */
	assert_true(dcn_link_db_replayed(db, 3, 100, 6));
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 6, 1, v, p, 2400), -2);
	assert_int_equal(dcn_link_db_accept(db, 3, 99, 1, 1, v, p, 2400), -2);
	/* A recording of a life the database never heard is taken once;
	 * the live origin's next word takes its place again, and the
	 * recording is refused from then on. */
	assert_int_equal(dcn_link_db_accept(db, 3, 7, 50, 0, v, p, 2500), 1);
	assert_int_equal(dcn_link_db_accept(db, 3, 99 + 0x80000001u, 2, 1, v, p, 2600), 1);
	assert_int_equal(dcn_link_db_accept(db, 3, 7, 50, 0, v, p, 2700), -2);
	assert_int_equal(dcn_link_db_accept(db, 3, 99 + 0x80000001u, 3, 1, v, p, 2800), 2);
	dcn_link_db_free(db);

	/* Unordered (no key): forgotten is forgotten, whatever it said. */
	db = dcn_link_db_create(10);
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 5, 1, v, p, 0), 1);
	assert_int_equal(dcn_link_db_age(db, 2001, 2000), 1);
	assert_int_equal(dcn_link_db_accept(db, 3, 100, 5, 1, v, p, 2100), 1);
	assert_int_equal(dcn_link_db_accept(db, 3, 99, 1, 1, v, p, 2100), 2);
	assert_false(dcn_link_db_replayed(db, 3, 1, 1));
	dcn_link_db_free(db);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_start_and_silence),
		cmocka_unit_test(test_never_seen_goes_down_then_up_at_once),
		cmocka_unit_test(test_traffic_keeps_alive),
		cmocka_unit_test(test_late_reader_blames_nobody),
		cmocka_unit_test(test_observer_away),
		cmocka_unit_test(test_carrier_and_holddown),
		cmocka_unit_test(test_silence_during_holddown),
		cmocka_unit_test(test_flapping_grows_holddown),
		cmocka_unit_test(test_lsa_round_trip),
		cmocka_unit_test(test_db),
		cmocka_unit_test(test_db_age),
		cmocka_unit_test(test_db_age_taken_in_tick),
		cmocka_unit_test(test_db_ordered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
