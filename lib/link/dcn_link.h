/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_LINK_H
#define DCN_LINK_H

/**
 * @file
 * Link liveness and failure announcements, for a node's control thread.
 *
 * A fabric port's link is up while its carrier is up and hellos from the
 * expected neighbour keep arriving. It goes down at once on a carrier loss
 * and after `miss` hello intervals of silence (a dead neighbour behind a
 * live cable). It comes back only after hellos from the right neighbour
 * have kept arriving for a hold-down; a link that fails again soon after
 * coming back doubles its hold-down (up to a ceiling), so a flapping cable
 * stays out of the tables instead of pulling them back and forth.
 *
 * Announcements (link-state frames) carry the whole set of links their
 * origin believes down, with the origin's incarnation (epoch) and a
 * sequence number: the newest one replaces what came before, a lost or
 * reordered one is repaired by the next, and a duplicate is recognised and
 * not flooded again. Times are in microseconds of any monotonic clock.
 * Nothing here allocates after dcn_link_db_create(), takes a lock or logs.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Link states. UNKNOWN (no hello yet, the grace after start) routes as up. */
enum dcn_link_state {
	DCN_LINK_UNKNOWN = 0,
	DCN_LINK_UP,
	DCN_LINK_DOWN,
	DCN_LINK_HOLD,     /**< hellos are back, hold-down running */
};

/** Why a link went down. */
enum dcn_link_cause {
	DCN_LINK_CAUSE_NONE = 0,
	DCN_LINK_CAUSE_CARRIER,     /**< the port lost its carrier */
	DCN_LINK_CAUSE_HELLO_MISS,  /**< the neighbour went silent */
};

/** What a call changed for routing. */
enum dcn_link_event {
	DCN_LINK_EV_NONE = 0,
	DCN_LINK_EV_DOWN,  /**< stop using the link */
	DCN_LINK_EV_UP,    /**< use the link again */
};

/** Timers; zero fields take the defaults. */
struct dcn_link_conf {
	uint64_t hello_us;        /**< hello interval; default 3000 */
	unsigned int miss;        /**< intervals of silence; default 3 */
	uint64_t holddown_us;     /**< first hold-down; default 100000 */
	uint64_t holddown_max_us; /**< ceiling; default 5000000 */
	uint64_t flap_window_us;  /**< a failure this soon after coming back
				   *   is a flap; default 10 x holddown */
};

/** One link's state (one port, or one neighbour behind a switch port). */
struct dcn_link {
	uint8_t state;            /**< enum dcn_link_state */
	uint8_t cause;            /**< enum dcn_link_cause of the last down */
	uint8_t carrier;          /**< last carrier seen: 1 up, 0 down */
	uint8_t was_up;           /**< has been up since start */
	uint64_t last_hello;
	uint64_t since;           /**< last state change */
	uint64_t hold_until;
	uint64_t holddown;        /**< hold-down the next recovery waits */
	uint64_t last_up;
	uint64_t downs, ups, flaps;
};

/** Fill defaults into c. */
void dcn_link_conf_defaults(struct dcn_link_conf *c);

/** Start a link in UNKNOWN at time now (hellos are due from now). */
void dcn_link_init(struct dcn_link *l, const struct dcn_link_conf *c,
		   uint64_t now);

/** The port's carrier is up (1) or down (0). */
enum dcn_link_event dcn_link_carrier(struct dcn_link *l,
				     const struct dcn_link_conf *c, int up,
				     uint64_t now);

/** A hello from the expected neighbour arrived. */
enum dcn_link_event dcn_link_hello(struct dcn_link *l,
				   const struct dcn_link_conf *c, uint64_t now);

/**
 * Traffic from the port proves the neighbour alive as a hello would, once
 * the link has been confirmed by a hello (a busy cable may delay hellos);
 * it never brings a link back.
 */
void dcn_link_alive(struct dcn_link *l, uint64_t now);

/**
 * The observer itself was away for us microseconds (its thread busy
 * compiling tables, or not scheduled): it could neither send hellos nor
 * take them, so that time does not count as the neighbour's silence.
 * now is when it came back: a hello is never placed after it.
 */
void dcn_link_observer_away(struct dcn_link *l, uint64_t us, uint64_t now);

/** Timers: silence, and the end of a hold-down. Call at least once per
 * hello interval. */
enum dcn_link_event dcn_link_tick(struct dcn_link *l,
				  const struct dcn_link_conf *c, uint64_t now);

/**
 * dcn_link_tick, for an observer that reads the port's frames some time
 * after they arrive: read is when it last emptied the port's receive
 * queue. Silence counts only up to then: a hello still waiting in the
 * queue, behind frames a busy reader has not reached, is not missing.
 * (A dead neighbour leaves its port's queue empty, so the reader keeps
 * up with it and its silence counts.)
 */
enum dcn_link_event dcn_link_tick_read(struct dcn_link *l,
				       const struct dcn_link_conf *c,
				       uint64_t now, uint64_t read);

/** Does routing use the link? */
static inline int
dcn_link_usable(const struct dcn_link *l)
{
	return l->state == DCN_LINK_UP || l->state == DCN_LINK_UNKNOWN;
}

/** @return "up", "down", "hold" or "unknown". */
const char *dcn_link_state_name(enum dcn_link_state s);
/** @return "carrier", "hello_miss" or "none". */
const char *dcn_link_cause_name(enum dcn_link_cause c);

/*
 * Link-state announcements.
 */

/** Most links one announcement lists. */
#define DCN_LINK_LSA_MAX 64
/** Payload bytes of an announcement listing n links. */
#define DCN_LINK_LSA_LEN(n) (16u + 8u * (n))
/** Where an announcement's hop count is in its payload: the one byte
 * relays change (signatures leave it out). */
#define DCN_LINK_LSA_HOPS_OFF 12

/** A link named by one end: the vertex's fabric address and its port. */
struct dcn_link_id {
	uint32_t addr;
	uint16_t port;
};

/** An announcement: every link its origin believes down. */
struct dcn_link_lsa {
	uint32_t origin;          /**< fabric address of the origin */
	uint32_t epoch;           /**< the origin's incarnation */
	uint32_t seq;             /**< grows with each new state */
	uint8_t hops;             /**< relays left (0: not passed on) */
	uint8_t n;                /**< links listed */
	struct dcn_link_id link[DCN_LINK_LSA_MAX];
};

/** Write a's payload at p (room bytes). @return bytes, or -1: no room. */
int dcn_link_lsa_write(uint8_t *p, size_t room, const struct dcn_link_lsa *a);
/** Read a payload of len bytes. @return 0, or -1: malformed. */
int dcn_link_lsa_read(const uint8_t *p, size_t len, struct dcn_link_lsa *a);

/** What a node knows of the others' announcements, by origin vertex. */
struct dcn_link_db;

/** @return a database for origins 0..n_vertices-1, or NULL (ENOMEM). */
struct dcn_link_db *dcn_link_db_create(uint32_t n_vertices);
void dcn_link_db_free(struct dcn_link_db *db);

/**
 * Take an announcement from origin vertex; its links are given as
 * (vertex, port), resolved by the caller.
 * @return 1 when it is new and changes what is known (pass it on, and
 *         route again), 2 when it is new but lists what was known (a
 *         refresh: pass it on), 0 when it is a duplicate or older than
 *         what is held,
 *         -1 when origin is out of range, -2 when the database is
 *         ordered and it is a replay (dcn_link_db_replayed).
 * @param now_us     when, for dcn_link_db_age
 */
int dcn_link_db_accept(struct dcn_link_db *db, uint32_t origin,
		       uint32_t epoch, uint32_t seq, unsigned int n,
		       const uint32_t *vertex, const uint16_t *port,
		       uint64_t now_us);

/**
 * Announcements are signed (dcn_auth.h), so their numbers are the
 * origin's own: remember, for each of an origin's last incarnations, the
 * newest sequence taken, even once its links are forgotten by ageing or
 * another incarnation took their place, and refuse what is no newer.
 * Without this a recording of an announcement would be taken again each
 * time the original ages out. Incarnations are random and never ordered,
 * so neither a clock nor a long uptime can make a live origin's words
 * look old. (Unsigned, that memory would let one forged high sequence
 * number silence an origin for good: ageing forgets all.)
 */
void dcn_link_db_ordered(struct dcn_link_db *db);

/**
 * In an ordered database: is (epoch, seq) from origin a recording? A
 * sequence no newer than the newest taken of that incarnation, but for
 * one still held (a flood's duplicate, not counted as a replay).
 * @return 1 replayed, 0 not (or the database is not ordered).
 */
int dcn_link_db_replayed(const struct dcn_link_db *db, uint32_t origin,
			 uint32_t epoch, uint32_t seq);

/**
 * Forget what origins announced more than max_age_us ago and did not
 * announce again: an origin repeats an announcement while it lists a
 * failure, so a real one stays, and one nobody repeats (lost, stale, or
 * forged) goes by itself. A forgotten origin's next announcement is
 * taken whatever its numbers.
 * @return the origins forgotten that listed links (route again if > 0)
 */
unsigned int dcn_link_db_age(struct dcn_link_db *db, uint64_t now_us,
			     uint64_t max_age_us);

/** Call fn for every link some origin holds down. */
void dcn_link_db_foreach(const struct dcn_link_db *db,
			 void (*fn)(uint32_t vertex, uint16_t port, void *arg),
			 void *arg);

/** Number of origins with an entry. */
uint32_t dcn_link_db_origins(const struct dcn_link_db *db);

#ifdef __cplusplus
}
#endif

#endif /* DCN_LINK_H */
