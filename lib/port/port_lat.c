/* SPDX-License-Identifier: BSD-3-Clause */
/* How long frames stay in a relay, sampled (dcn_port_lat.h). */
#include <errno.h>

#include <rte_errno.h>

#include "dcn_port_lat.h"

int dcn_port_lat_off = -1;
uint64_t dcn_port_lat_flag;
uint64_t dcn_port_lat_ns_q32;

int
dcn_port_lat_init(uint64_t tsc_hz)
{
	static const struct rte_mbuf_dynfield field = {
		.name = "dcn_port_lat_stamp",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};
	static const struct rte_mbuf_dynflag flag = {
		.name = "dcn_port_lat_stamped",
	};
	int off, bit;

	if (tsc_hz == 0)
		return -EINVAL;
	off = rte_mbuf_dynfield_register(&field);
	if (off < 0)
		return -rte_errno;
	bit = rte_mbuf_dynflag_register(&flag);
	if (bit < 0)
		return -rte_errno;
	dcn_port_lat_ns_q32 = (uint64_t)(1e9 * 4294967296.0 / (double)tsc_hz);
	dcn_port_lat_off = off;
	dcn_port_lat_flag = 1ull << bit;
	return 0;
}

uint64_t
dcn_port_lat_bucket_ns(unsigned int k)
{
	return k + 1 < DCN_PORT_LAT_BUCKETS ? 1ull << (k + DCN_PORT_LAT_MIN_LOG2) :
					      UINT64_MAX;
}

void
dcn_port_lat_note_slow(struct dcn_port_lat *h, struct rte_mbuf **m, uint16_t n)
{
	const uint64_t flag = dcn_port_lat_flag;
	uint64_t now = rte_rdtsc();
	uint16_t i;

	for (i = 0; i < n; i++)
		if (m[i]->ol_flags & flag) {
			m[i]->ol_flags &= ~flag;
			dcn_port_lat_add(h, now - *RTE_MBUF_DYNFIELD(m[i], dcn_port_lat_off,
								     uint64_t *));
		}
}
