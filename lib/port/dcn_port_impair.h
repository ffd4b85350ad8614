/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_PORT_IMPAIR_H
#define DCN_PORT_IMPAIR_H

/**
 * @file
 * A slow, late or lossy cable in the lab: what tc's netem and tbf do to a
 * veth, done on a port's receive side, for ports whose frames never meet
 * a qdisc (net_af_xdp and net_af_packet send around them) and for
 * kernels without sch_netem.
 *
 * The cable into a port: each frame that arrives is lost at random
 * (loss), else serialised at the cable's rate (rate: its bits take
 * len * 8 / rate after the frame before it is through), then delayed
 * (delay, plus or minus up to jitter, uniform) and handed to the poller
 * when its time comes. A cable keeps its order: a frame never leaves
 * before the one ahead of it, however the jitter falls (netem reorders;
 * a cable does not, and a reordered credit frame would test nothing).
 * A queue of the port holds at most DCN_PORT_IMPAIR_DEPTH frames on the
 * cable: more are dropped at the cable's entry (tbf's limit), counted
 * apart (overflow). A cable whose sender is credit-controlled never
 * holds more than its credits.
 *
 * The settings are the control thread's (dcn_port_impair_set, at any
 * time: each word is read on its own by the poller, so a change may be
 * seen a word at a time, for one burst); each queue's line and counters
 * are its poller's alone.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Frames one RX queue's cable holds in flight (a power of two). */
#define DCN_PORT_IMPAIR_DEPTH 4096

/** What a cable does to its frames; all zero: nothing. */
struct dcn_port_impair_conf {
	uint64_t delay_us;   /**< added to every frame */
	uint64_t jitter_us;  /**< the delay moves by up to this, either way */
	uint64_t loss_ppm;   /**< frames lost, parts per million */
	uint64_t rate_kbps;  /**< the cable's rate; 0: no limit */
};

/** One RX queue's cable: the frames on it, and its counters. */
struct dcn_port_impair_q {
	struct rte_mbuf *m[DCN_PORT_IMPAIR_DEPTH];
	uint64_t due[DCN_PORT_IMPAIR_DEPTH]; /**< TSC it leaves the cable */
	uint32_t head, tail;  /**< free-running: tail - head on the cable */
	uint64_t wire_free;   /**< TSC the cable's last frame is through */
	uint64_t last_due;    /**< the last frame's due: none leaves before */
	uint64_t rng;         /**< xorshift64 state */
	uint64_t passed;      /**< frames handed to the poller */
	uint64_t lost;        /**< lost at random (loss) */
	uint64_t overflow;    /**< dropped: the cable held DEPTH frames */
} __rte_cache_aligned;

struct dcn_port_impair {
	/* The settings, in TSC terms (control thread; read relaxed). */
	uint64_t delay_tsc, jitter_tsc;
	uint64_t byte_tsc_q16;  /**< TSC a byte takes, << 16; 0: no limit */
	uint32_t loss_ppm;
	uint64_t tsc_hz;
	struct dcn_port_impair_conf conf; /**< as set, for reports */
	uint16_t nb_q;
	struct dcn_port_impair_q q[];
};

/** An impairment for a port of nb_q RX queues (rte_zmalloc'd on socket;
 * nothing set yet), or NULL. */
struct dcn_port_impair *dcn_port_impair_create(uint16_t nb_q, int socket,
					       uint64_t tsc_hz);
/** Give the frames still on its cables back to their pools, then free. */
void dcn_port_impair_free(struct dcn_port_impair *im);
/** Set what the cable does (control thread). @return 0, or -EINVAL for a
 * setting out of range (loss over 100%, jitter over delay, a delay over
 * 10 s, a rate under 8 kbit/s). */
int dcn_port_impair_set(struct dcn_port_impair *im,
			const struct dcn_port_impair_conf *c);
/** Parse "delay_us=N jitter_us=N loss_ppm=N rate_kbps=N" (any of them,
 * any order; the rest 0) into c. @return 0, or -EINVAL with err said. */
int dcn_port_impair_parse(const char *s, struct dcn_port_impair_conf *c,
			  char *err, size_t errlen);
/** Whether c impairs anything. */
int dcn_port_impair_active(const struct dcn_port_impair_conf *c);

/**
 * The receive side of queue q's cable: the n frames m[0..n) just received
 * go onto it (or are lost); the frames whose time has come, oldest first
 * and at most room, come off it into m. now: the TSC.
 * @return frames in m.
 */
uint16_t dcn_port_impair_rx(struct dcn_port_impair *im, uint16_t q,
			    struct rte_mbuf **m, uint16_t n, uint16_t room,
			    uint64_t now);

/** A port's counters, all its queues. */
struct dcn_port_impair_totals {
	uint64_t passed, lost, overflow;
	uint64_t on_cable;   /**< frames on its cables now */
};
/** im's counters summed (any thread: each word read on its own). */
void dcn_port_impair_totals(const struct dcn_port_impair *im,
			    struct dcn_port_impair_totals *t);

/** Frames on queue q's cable now (its poller, or a reader who takes an
 * instant's figure). */
static inline uint32_t
dcn_port_impair_held(const struct dcn_port_impair *im, uint16_t q)
{
	return __atomic_load_n(&im->q[q].tail, __ATOMIC_RELAXED) -
	       __atomic_load_n(&im->q[q].head, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_PORT_IMPAIR_H */
