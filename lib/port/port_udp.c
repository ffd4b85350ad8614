/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * encap = udp: the mbuf field and flag that carry a received frame's UDP
 * source port to its wrap on the way out (dcn_port_udp.h).
 */
#include <rte_mbuf_dyn.h>

#include "dcn_port_udp.h"

int dcn_port_udp_sport_off = -1;
uint64_t dcn_port_udp_sport_flag;

int
dcn_port_udp_register(void)
{
	static const struct rte_mbuf_dynfield field = {
		.name = "dcn_udp_sport",
		.size = sizeof(uint16_t),
		.align = __alignof__(uint16_t),
	};
	static const struct rte_mbuf_dynflag flag = { .name = "dcn_udp_sport" };
	int bit;

	if (dcn_port_udp_sport_flag != 0)
		return 0;
	dcn_port_udp_sport_off = rte_mbuf_dynfield_register(&field);
	bit = dcn_port_udp_sport_off < 0 ? -1 : rte_mbuf_dynflag_register(&flag);
	if (bit < 0)
		return -1;
	dcn_port_udp_sport_flag = 1ull << bit;
	return 0;
}
