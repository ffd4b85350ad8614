/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link liveness (a small state machine per link) and the database of
 * failure announcements (see dcn_link.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_fabric.h"
#include "dcn_link.h"

void
dcn_link_conf_defaults(struct dcn_link_conf *c)
{
	if (c->hello_us == 0)
		c->hello_us = 3000;
	if (c->miss == 0)
		c->miss = 3;
	if (c->holddown_us == 0)
		c->holddown_us = 100000;
	if (c->holddown_max_us == 0)
		c->holddown_max_us = 5000000;
	if (c->holddown_max_us < c->holddown_us)
		c->holddown_max_us = c->holddown_us;
	if (c->flap_window_us == 0)
		c->flap_window_us = 10 * c->holddown_us;
}

void
dcn_link_init(struct dcn_link *l, const struct dcn_link_conf *c, uint64_t now)
{
	memset(l, 0, sizeof(*l));
	l->state = DCN_LINK_UNKNOWN;
	l->carrier = 1;
	l->last_hello = now;
	l->since = now;
	l->holddown = c->holddown_us;
}

/* Leave routing: count, and grow the hold-down of a link that flaps. */
static enum dcn_link_event
go_down(struct dcn_link *l, const struct dcn_link_conf *c, uint8_t cause,
	uint64_t now)
{
	int was_usable = dcn_link_usable(l);

	if (l->state == DCN_LINK_DOWN)
		return DCN_LINK_EV_NONE;
	l->state = DCN_LINK_DOWN;
	l->since = now;
	l->cause = cause;
	if (!was_usable)
		return DCN_LINK_EV_NONE; /* it was still held down */
	l->downs++;
	if (l->last_up != 0 && now - l->last_up < c->flap_window_us) {
		l->flaps++;
		l->holddown = l->holddown * 2 > c->holddown_max_us ?
				      c->holddown_max_us : l->holddown * 2;
	} else {
		l->holddown = c->holddown_us;
	}
	return DCN_LINK_EV_DOWN;
}

static enum dcn_link_event
go_up(struct dcn_link *l, uint64_t now)
{
	l->state = DCN_LINK_UP;
	l->since = now;
	l->last_up = now;
	l->was_up = 1;
	l->ups++;
	return DCN_LINK_EV_UP;
}

enum dcn_link_event
dcn_link_carrier(struct dcn_link *l, const struct dcn_link_conf *c, int up,
		 uint64_t now)
{
	l->carrier = (uint8_t)!!up;
	if (!up)
		return go_down(l, c, DCN_LINK_CAUSE_CARRIER, now);
	/* Carrier back: the neighbour still has to say hello. Silence is
	 * counted from now, not from before the cable was pulled. */
	if (l->state == DCN_LINK_DOWN)
		l->last_hello = now;
	return DCN_LINK_EV_NONE;
}

enum dcn_link_event
dcn_link_hello(struct dcn_link *l, const struct dcn_link_conf *c, uint64_t now)
{
	(void)c;
	l->last_hello = now;
	if (!l->carrier)
		return DCN_LINK_EV_NONE; /* a stale frame from before the loss */
	switch (l->state) {
	case DCN_LINK_UNKNOWN:
		l->state = DCN_LINK_UP;
		l->since = now;
		l->last_up = now;
		l->was_up = 1;
		return DCN_LINK_EV_NONE; /* it was routed as up already */
	case DCN_LINK_DOWN:
		/* A link that never worked needs no hold-down: it is not
		 * flapping, it is starting. */
		if (!l->was_up)
			return go_up(l, now);
		l->state = DCN_LINK_HOLD;
		l->since = now;
		l->hold_until = now + l->holddown;
		return DCN_LINK_EV_NONE;
	default:
		return DCN_LINK_EV_NONE;
	}
}

void
dcn_link_alive(struct dcn_link *l, uint64_t now)
{
	if (l->state == DCN_LINK_UP && l->carrier)
		l->last_hello = now;
}

void
dcn_link_observer_away(struct dcn_link *l, uint64_t us, uint64_t now)
{
	l->last_hello = l->last_hello + us < now ? l->last_hello + us : now;
}

enum dcn_link_event
dcn_link_tick(struct dcn_link *l, const struct dcn_link_conf *c, uint64_t now)
{
	return dcn_link_tick_read(l, c, now, now);
}

enum dcn_link_event
dcn_link_tick_read(struct dcn_link *l, const struct dcn_link_conf *c,
		   uint64_t now, uint64_t read)
{
	uint64_t dead = c->hello_us * c->miss;
	uint64_t until = read < now ? read : now;
	/* A hello stamped later than what was read is no silence (and must
	 * not wrap round to a huge one). */
	uint64_t quiet = until > l->last_hello ? until - l->last_hello : 0;

	switch (l->state) {
	case DCN_LINK_UNKNOWN:
	case DCN_LINK_UP:
		if (quiet > dead)
			return go_down(l, c, DCN_LINK_CAUSE_HELLO_MISS, now);
		return DCN_LINK_EV_NONE;
	case DCN_LINK_HOLD:
		if (quiet > dead)
			return go_down(l, c, DCN_LINK_CAUSE_HELLO_MISS, now);
		if ((int64_t)(now - l->hold_until) >= 0)
			return go_up(l, now);
		return DCN_LINK_EV_NONE;
	default:
		return DCN_LINK_EV_NONE;
	}
}

const char *
dcn_link_state_name(enum dcn_link_state s)
{
	static const char *const names[] = { "unknown", "up", "down", "hold" };

	return (unsigned int)s < 4 ? names[s] : "?";
}

const char *
dcn_link_cause_name(enum dcn_link_cause c)
{
	static const char *const names[] = { "none", "carrier", "hello_miss" };

	return (unsigned int)c < 3 ? names[c] : "?";
}

int
dcn_link_lsa_write(uint8_t *p, size_t room, const struct dcn_link_lsa *a)
{
	unsigned int i;

	if (a->n > DCN_LINK_LSA_MAX || room < DCN_LINK_LSA_LEN(a->n))
		return -1;
	dcn_fabric_put32(p, a->origin);
	dcn_fabric_put32(p + 4, a->epoch);
	dcn_fabric_put32(p + 8, a->seq);
	p[DCN_LINK_LSA_HOPS_OFF] = a->hops;
	p[13] = a->n;
	p[14] = p[15] = 0;
	for (i = 0; i < a->n; i++) {
		uint8_t *e = p + 16 + 8 * i;

		dcn_fabric_put32(e, a->link[i].addr);
		dcn_fabric_put16(e + 4, a->link[i].port);
		e[6] = e[7] = 0;
	}
	return (int)DCN_LINK_LSA_LEN(a->n);
}

int
dcn_link_lsa_read(const uint8_t *p, size_t len, struct dcn_link_lsa *a)
{
	unsigned int i;

	if (len < DCN_LINK_LSA_LEN(0))
		return -1;
	a->origin = dcn_fabric_get32(p);
	a->epoch = dcn_fabric_get32(p + 4);
	a->seq = dcn_fabric_get32(p + 8);
	a->hops = p[DCN_LINK_LSA_HOPS_OFF];
	a->n = p[13];
	if (a->n > DCN_LINK_LSA_MAX || len < DCN_LINK_LSA_LEN(a->n))
		return -1;
	for (i = 0; i < a->n; i++) {
		const uint8_t *e = p + 16 + 8 * i;

		a->link[i].addr = dcn_fabric_get32(e);
		a->link[i].port = dcn_fabric_get16(e + 4);
	}
	return 0;
}

/* Incarnations of an origin an ordered database remembers. */
#define DB_SEEN 8

/* The newest sequence taken from one incarnation of an origin. */
struct db_seen {
	uint32_t epoch, seq;
};

struct db_entry {
	uint32_t epoch, seq;
	uint64_t heard_us;
	uint8_t valid, n;
	uint8_t heard;            /* epoch and seq hold the newest ever taken */
	uint8_t seen_next;        /* the slot a new incarnation takes */
	struct db_seen seen[DB_SEEN]; /* ordered: epoch 0, none */
	uint32_t vertex[DCN_LINK_LSA_MAX];
	uint16_t port[DCN_LINK_LSA_MAX];
};

struct dcn_link_db {
	uint32_t n_vertices;
	uint32_t origins;
	int ordered;              /* dcn_link_db_ordered */
	struct db_entry e[];
};

struct dcn_link_db *
dcn_link_db_create(uint32_t n_vertices)
{
	struct dcn_link_db *db = calloc(1, sizeof(*db) +
					(size_t)n_vertices * sizeof(struct db_entry));

	if (db == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	db->n_vertices = n_vertices;
	return db;
}

void
dcn_link_db_free(struct dcn_link_db *db)
{
	free(db);
}

/* An ordered database's slot of incarnation epoch of e, or -1. */
static int
db_seen_of(const struct db_entry *e, uint32_t epoch)
{
	int i;

	for (i = 0; i < DB_SEEN; i++)
		if (e->seen[i].epoch == epoch && epoch != 0)
			return i;
	return -1;
}

/* Is (epoch, seq) no newer than what e took of that incarnation (a copy
 * of what it holds aside: the flood's own echo)? */
static int
db_heard_before(const struct db_entry *e, uint32_t epoch, uint32_t seq)
{
	int i = db_seen_of(e, epoch);

	if (e->valid && e->epoch == epoch)
		return 0;
	return i >= 0 && (int32_t)(seq - e->seen[i].seq) <= 0;
}

int
dcn_link_db_accept(struct dcn_link_db *db, uint32_t origin, uint32_t epoch,
		   uint32_t seq, unsigned int n, const uint32_t *vertex,
		   const uint16_t *port, uint64_t now_us)
{
	struct db_entry *e;
	int changed = 1;

	if (origin >= db->n_vertices || n > DCN_LINK_LSA_MAX)
		return -1;
	e = &db->e[origin];
	/* Signed words are the origin's own: within an incarnation its
	 * numbers only grow, so one no newer than what was taken of that
	 * incarnation (held, forgotten by ageing, or replaced by another's)
	 * is a recording. Incarnations are random (lib/auth), told apart,
	 * never ordered: a recording of one not remembered is taken once,
	 * until the origin's next words take its place again. */
	if (db->ordered && db_heard_before(e, epoch, seq))
		return -2;
	/* Same incarnation: only a later sequence number is news (serial
	 * arithmetic, so the counter may wrap). A new epoch is a restarted
	 * origin, whose numbering starts over. */
	if (e->valid && e->epoch == epoch && (int32_t)(seq - e->seq) <= 0)
		return 0;
	if (db->ordered) {
		int i = db_seen_of(e, epoch);

		if (i < 0) {
			i = e->seen_next;
			e->seen_next = (uint8_t)((e->seen_next + 1) % DB_SEEN);
		}
		e->seen[i] = (struct db_seen){ epoch, seq };
	}
	if (!e->valid)
		db->origins++;
	else if (e->n == n && !memcmp(e->vertex, vertex, n * sizeof(*vertex)) &&
		 !memcmp(e->port, port, n * sizeof(*port)))
		changed = 0;
	e->valid = 1;
	e->heard = 1;
	e->heard_us = now_us;
	e->epoch = epoch;
	e->seq = seq;
	e->n = (uint8_t)n;
	memcpy(e->vertex, vertex, n * sizeof(*vertex));
	memcpy(e->port, port, n * sizeof(*port));
	return changed ? 1 : 2;
}

void
dcn_link_db_ordered(struct dcn_link_db *db)
{
	db->ordered = 1;
}

int
dcn_link_db_replayed(const struct dcn_link_db *db, uint32_t origin,
		     uint32_t epoch, uint32_t seq)
{
	if (!db->ordered || origin >= db->n_vertices)
		return 0;
	/* A copy of what is held is the flood's own echo; once forgotten,
	 * no copy can still be on its way (ageing takes seconds, a flood
	 * milliseconds). */
	return db_heard_before(&db->e[origin], epoch, seq);
}

unsigned int
dcn_link_db_age(struct dcn_link_db *db, uint64_t now_us, uint64_t max_age_us)
{
	unsigned int gone = 0;
	uint32_t o;

	for (o = 0; o < db->n_vertices; o++) {
		struct db_entry *e = &db->e[o];

		/* An entry taken after now_us was read (the caller's tick
		 * began before its frames were taken) is young, not aged by a
		 * negative age wrapping round. */
		if (!e->valid || e->heard_us >= now_us ||
		    now_us - e->heard_us <= max_age_us)
			continue;
		gone += e->n > 0;
		e->valid = 0;
		e->n = 0;
		db->origins--;
	}
	return gone;
}

void
dcn_link_db_foreach(const struct dcn_link_db *db,
		    void (*fn)(uint32_t vertex, uint16_t port, void *arg),
		    void *arg)
{
	uint32_t o;
	unsigned int i;

	for (o = 0; o < db->n_vertices; o++) {
		const struct db_entry *e = &db->e[o];

		for (i = 0; e->valid && i < e->n; i++)
			fn(e->vertex[i], e->port[i], arg);
	}
}

uint32_t
dcn_link_db_origins(const struct dcn_link_db *db)
{
	return db->origins;
}
