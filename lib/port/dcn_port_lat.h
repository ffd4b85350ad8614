/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_PORT_LAT_H
#define DCN_PORT_LAT_H

/**
 * @file
 * How long frames stay in a relay: from the poll that took them off a
 * port to the send that hands them to one (routing, flow control's
 * queues, waiting for credits), sampled. A worker stamps one frame of a
 * received burst at most every so often (dcn_port_lat_stamp: a dynamic
 * mbuf field and flag), and whichever worker sends it records the time
 * it stayed in its own histogram and clears the flag (dcn_port_lat_note),
 * so that a burst costs one test on receive and a frame a load and an or
 * on send (about 5 instructions: doc/benchmarking.md), and no worker
 * writes another's counters. A frame dropped on the way is not sampled:
 * the histogram is of frames passed on.
 */

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Buckets: bucket k counts stays under 2^(k + DCN_PORT_LAT_MIN_LOG2)
 * ns (the first, everything under 256 ns); the last, the rest. */
#define DCN_PORT_LAT_BUCKETS 24
#define DCN_PORT_LAT_MIN_LOG2 8

/** One worker's histogram (its own; read by others a word at a time). */
struct dcn_port_lat {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t bucket[DCN_PORT_LAT_BUCKETS];
};

/** The stamp's field offset and flag (0: not registered, no stamps),
 * and ns per TSC cycle << 32. */
extern int dcn_port_lat_off;
extern uint64_t dcn_port_lat_flag;
extern uint64_t dcn_port_lat_ns_q32;

/** Register the stamp's field and flag (once a process, before the
 * workers start). @return 0, or a negative errno: no stamps then. */
int dcn_port_lat_init(uint64_t tsc_hz);

/** The upper bound of bucket k in ns (UINT64_MAX: the last). */
uint64_t dcn_port_lat_bucket_ns(unsigned int k);

/** Stamp m: received at TSC now. */
static inline void
dcn_port_lat_stamp(struct rte_mbuf *m, uint64_t now)
{
	if (dcn_port_lat_flag == 0)
		return;
	*RTE_MBUF_DYNFIELD(m, dcn_port_lat_off, uint64_t *) = now;
	m->ol_flags |= dcn_port_lat_flag;
}

/** Record a stay of tsc cycles in h. A stay below 0 (stamped on a core
 * whose TSC runs a little ahead of the sender's) counts as 0; a long
 * one is converted in two halves, so that neither the sum nor the
 * bucket overflows. */
static inline void
dcn_port_lat_add(struct dcn_port_lat *h, uint64_t tsc)
{
	uint64_t t = (int64_t)tsc < 0 ? 0 : tsc;
	uint64_t ns = (t >> 32) * dcn_port_lat_ns_q32 +
		      (((t & UINT32_MAX) * dcn_port_lat_ns_q32) >> 32);
	unsigned int k = ns >> DCN_PORT_LAT_MIN_LOG2 ?
		(unsigned int)(63 - __builtin_clzll(ns)) + 1 - DCN_PORT_LAT_MIN_LOG2 : 0;

	h->count++;
	h->sum_ns += ns;
	h->bucket[k < DCN_PORT_LAT_BUCKETS ? k : DCN_PORT_LAT_BUCKETS - 1]++;
}

/** The stamped ones of frames m[0..n) about to be sent recorded in h,
 * their stamps taken off (the device never sees the flag). */
void dcn_port_lat_note_slow(struct dcn_port_lat *h, struct rte_mbuf **m,
			    uint16_t n);

/** Frames m[0..n) about to be sent: each stamped one recorded in h. A
 * burst without one (almost all) costs a load and an or a frame, four
 * at a time. */
static inline void
dcn_port_lat_note(struct dcn_port_lat *h, struct rte_mbuf **m, uint16_t n)
{
	uint64_t any = 0;
	uint16_t i = 0;

	for (; i + 4 <= n; i += 4)
		any |= m[i]->ol_flags | m[i + 1]->ol_flags |
		       m[i + 2]->ol_flags | m[i + 3]->ol_flags;
	for (; i < n; i++)
		any |= m[i]->ol_flags;
	if (unlikely(any & dcn_port_lat_flag))
		dcn_port_lat_note_slow(h, m, n);
}

#ifdef __cplusplus
}
#endif

#endif /* DCN_PORT_LAT_H */
