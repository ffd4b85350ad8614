/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_GEN_H
#define DCN_GEN_H

/**
 * @file
 * Test traffic: a generator that builds stamped IPv4/UDP frames as a host
 * would send them, and a sink that checks them (loss, reordering, latency).
 * Used by tools/dcn-gen on any DPDK port and by dcnfwd's built-in hosts.
 *
 * A stamped frame is Ethernet | IPv4 | UDP | stamp, at least 60 bytes (a
 * 64-byte frame with its FCS). The UDP destination port marks it; the UDP
 * source port is the flow; the stamp holds the flow's sequence number and
 * the sender's TSC (sender and sink share a clock: one machine).
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCN_GEN_UDP_PORT 0xdc4e
#define DCN_GEN_MIN_FRAME 60
#define DCN_GEN_MAX_FRAME 1518
#define DCN_GEN_HDRS (14 + 20 + 8)

/** How sources pick destinations. */
enum dcn_gen_pattern {
	DCN_GEN_UNIFORM = 0, /**< each frame to a random destination */
	DCN_GEN_PERMUTATION, /**< one fixed destination (caller picks it) */
	DCN_GEN_LIST,        /**< round robin over the list */
};

struct dcn_gen_conf {
	uint32_t src_addr;          /**< IPv4 source (the sender's node) */
	const uint32_t *dst;        /**< destination addresses */
	unsigned int n_dst;
	enum dcn_gen_pattern pattern;
	uint16_t frame_len;         /**< without FCS, 60..1514 */
	double rate_pps;            /**< 0: as fast as asked */
	uint64_t count;             /**< frames to send, 0: no limit */
	struct rte_ether_addr src_mac, dst_mac;
	uint16_t flow_base;         /**< UDP source port of destination 0 */
	uint64_t seed;
	/** The destinations (indices into dst) this generator sends to, a
	 * share of a host's flows sent from one core; NULL: all. */
	const uint32_t *pick;
	unsigned int n_pick;
};

/** A generator (one sending host). */
struct dcn_gen {
	struct dcn_gen_conf conf;
	uint32_t *dst;              /**< copy of the list */
	uint32_t *pick;             /**< copy of the share, NULL: all */
	unsigned int n_pick;        /**< destinations it picks among */
	uint32_t *seq;              /**< next sequence number per destination */
	uint64_t rng;
	unsigned int next;          /**< round robin position */
	uint64_t sent;
	uint64_t bytes;
	uint64_t tsc_hz;
	uint64_t start_tsc;         /**< 0 until the first call */
	uint64_t credit_frames;     /**< frames the rate allows so far */
};

/** Set up g (copies the lists). @return 0, -EINVAL or -ENOMEM. */
int dcn_gen_init(struct dcn_gen *g, const struct dcn_gen_conf *c,
		 uint64_t tsc_hz);
void dcn_gen_fini(struct dcn_gen *g);

/** @return how many frames may be sent at now (rate and count), at most max. */
unsigned int dcn_gen_due(struct dcn_gen *g, uint64_t now, unsigned int max);

/**
 * Write n frames into freshly allocated mbufs, stamped with now: n picks,
 * each put. @return n.
 */
unsigned int dcn_gen_build(struct dcn_gen *g, struct rte_mbuf **m,
			   unsigned int n, uint64_t now);

/** The destination (index into the list) of the next frame, by the
 * pattern; a pick is then put or skipped. */
unsigned int dcn_gen_pick(struct dcn_gen *g);

/** The flow (UDP source port) of frames to destination index d: what a
 * receiving NIC spreads them by. */
static inline uint16_t
dcn_gen_flow_of(const struct dcn_gen_conf *c, unsigned int d)
{
	return (uint16_t)(c->flow_base + (d & 0x3fff));
}

/** Write the frame picked for destination index d into m, stamped now. */
void dcn_gen_put(struct dcn_gen *g, struct rte_mbuf *m, unsigned int d,
		 uint64_t now);

/**
 * Count the frame picked for d as sent, without building it: a frame
 * the first NIC on its way would drop at once (a full RX queue). Its
 * sequence number is spent, as the dropped frame's would be, so the sink
 * sees a gap, never a reordering.
 */
void dcn_gen_skip(struct dcn_gen *g, unsigned int d);

/** Write one frame to dst on flow with sequence seq (no state change). */
void dcn_gen_write(const struct dcn_gen_conf *c, struct rte_mbuf *m,
		   uint32_t dst, uint16_t flow, uint32_t seq, uint64_t now);

/** Per-flow state at a sink. */
struct dcn_gen_flow {
	uint32_t src;       /**< key: source address; 0: a free slot */
	uint16_t flow;      /**< key: UDP source port */
	uint16_t reserved;
	uint32_t next_seq;  /**< one past the highest seen */
	uint32_t reordered; /**< arrived below next_seq */
	uint64_t rx;
};

#define DCN_GEN_LAT_BUCKETS (64 * 8)

/** A sink: what one receiving host saw. */
struct dcn_gen_sink {
	uint32_t mask;
	uint32_t n_flows;
	uint32_t overflow;          /**< frames of flows that found no slot */
	struct dcn_gen_flow *flow;
	uint64_t rx, bytes;
	uint64_t foreign;           /**< frames without a stamp */
	uint64_t reordered;
	uint64_t first_tsc, last_tsc;
	uint64_t lat[DCN_GEN_LAT_BUCKETS]; /**< latency histogram, TSC cycles */
	uint64_t lat_max;
};

/** Set up a sink for up to max_flows flows. @return 0 or -ENOMEM. */
int dcn_gen_sink_init(struct dcn_gen_sink *s, unsigned int max_flows);
void dcn_gen_sink_fini(struct dcn_gen_sink *s);

/** Account n received frames (Ethernet | IPv4 | UDP); does not free them. */
void dcn_gen_sink_rx(struct dcn_gen_sink *s, struct rte_mbuf *const *m,
		     unsigned int n, uint64_t now);

/** Sources a report tells apart (more are counted once each time
 *  they are seen past this many). */
#define DCN_GEN_MAX_SOURCES 1024

/** Summary of a sink. */
struct dcn_gen_report {
	uint64_t rx, bytes, foreign, reordered;
	uint64_t lost;          /**< sequence gaps: sent before the last seen */
	uint64_t untracked;     /**< stamped frames of flows beyond the table:
				 *   counted, but not in lost or reordered */
	uint32_t flows;
	uint32_t sources;       /**< distinct source addresses heard */
	uint32_t source[DCN_GEN_MAX_SOURCES]; /**< the first of them */
	double seconds;         /**< first to last frame */
	double p50_us, p90_us, p99_us, p999_us, max_us;
};

/** Sum sinks (n of them) into one report. */
void dcn_gen_sink_report(const struct dcn_gen_sink *const *s, unsigned int n,
			 uint64_t tsc_hz, struct dcn_gen_report *r);

#ifdef __cplusplus
}
#endif

#endif /* DCN_GEN_H */
