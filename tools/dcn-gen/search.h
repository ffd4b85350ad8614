/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_GEN_SEARCH_H
#define DCN_GEN_SEARCH_H

/* dcn-gen --search: RFC 2544 zero-loss throughput (search.c). */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dcn_port_udp.h"

#define GEN_SEARCH_MAX_TRIALS 32

struct gen_search {
	uint16_t txp, rxp;
	struct rte_ether_addr rx_mac;  /* source of the credit frames */
	struct rte_mempool *mp;      /* for credit frames */
	struct rte_mbuf **frames;    /* built once, sent by reference */
	const uint8_t *vc;           /* each frame's VC, read as it was built
				      * (before a UDP wrap moved its header):
				      * the credit check reads no frame */
	unsigned int n_frames;
	uint64_t hz;
	double trial_s, linger_s;
	double max_pps;              /* upper bound; 0: as fast as it goes */
	double resolution;           /* stop when hi - lo <= this x hi */
	unsigned int max_trials;
	int credits;                 /* return NovaCube credits on rxp */
	unsigned int credit_batch;   /* ... after this many frames freed */
	int obey;                    /* send only what the device's credit
				      * frames on txp allow (fabric frames) */
	uint16_t ethertype;
	/* encap = udp: fabric frames in IPv4/UDP on both ports; NULL: the
	 * fabric EtherType. The frames were wrapped when built. */
	struct dcn_port_udp *udp;
	uint32_t epoch;
	volatile int *quit;
};

struct gen_trial {
	double rate_pps;             /* asked (full load: achieved) */
	double offered_pps;          /* what the generator managed */
	uint64_t offered, received, refused;
	uint64_t skipped;            /* not offered: the generator was away */
	uint64_t held;               /* not sent for want of credits (with
				      * obey; counted in refused) */
	uint64_t skips;              /* times it was */
	int passed;
};

struct gen_search_result {
	double zero_loss_pps;
	double full_load_pps;        /* carried when offered all we have */
	int generator_bound;         /* the generator, not the device, set
				      * the result: a lower bound */
	unsigned int n_trials;
	struct gen_trial trial[GEN_SEARCH_MAX_TRIALS];
};

void gen_search_run(const struct gen_search *s, struct gen_search_result *r);

#endif /* DCN_GEN_SEARCH_H */
