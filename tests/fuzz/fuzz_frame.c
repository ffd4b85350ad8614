/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: a frame as a fabric port and a host port would see it,
 * then, for data frames and host IPv4, the routing-state decoding and the
 * compiled-table lookup behind them, in each of the five fabrics. The
 * first input byte picks the fabric.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dcn_fabric.h"

#define FABRICS 5

static const char *const specs[FABRICS] = {
	"novacube:k=5,n=2", "diamond:k=4", "rrect:n=3,m=2,k=2",
	"lascada:n=4,k=2", "totoro:N=8,n=4,K=2",
};

static struct fab {
	struct dcn_topo *t;
	struct dcn_router *r;
	struct dcn_rtable *tb;
} fabs[FABRICS];

static void
setup(void)
{
	unsigned int i;

	for (i = 0; i < FABRICS; i++) {
		uint32_t node = 0;

		fabs[i].t = dcn_topo_create(specs[i], NULL, 0);
		if (fabs[i].t == NULL)
			abort();
		fabs[i].r = dcn_router_create(fabs[i].t, DCN_ALGO_DEFAULT, NULL, 0);
		while (!dcn_topo_is_router(fabs[i].t, node))
			node++;
		fabs[i].tb = dcn_rtable_compile(fabs[i].r, node);
		if (fabs[i].r == NULL || fabs[i].tb == NULL)
			abort();
	}
}

static void
lookup(const struct fab *f, uint32_t dst, const struct dcn_route_state *st)
{
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	const struct dcn_hop *h;
	unsigned int n, i, node = dcn_rtable_node(f->tb);

	n = dcn_rtable_lookup(f->tb, dst, st, scratch, &h);
	if (n > DCN_ROUTE_MAX_HOPS)
		abort();
	for (i = 0; i < n; i++)
		if (h[i].next >= dcn_topo_vertices(f->t) ||
		    h[i].port >= dcn_topo_ports(f->t, node))
			abort();
	if (n != 0)
		(void)dcn_route_pick(dcn_router_pick_mode(f->r), h, n, dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct dcn_frame_info fi;
	struct dcn_route_state st;
	const struct fab *f;
	int host;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 1)
		return 0;
	f = &fabs[data[0] % FABRICS];
	data++;
	size--;
	for (host = 0; host < 2; host++) {
		dcn_fabric_classify(data, (uint32_t)size, host,
				    DCN_FABRIC_ETHERTYPE, &fi);
		if (fi.cls == DCN_FC_DROP &&
		    (fi.reason == DCN_DROP_NONE || fi.reason >= DCN_DROP_MAX))
			abort();
		if (fi.cls == DCN_FC_FABRIC_DATA) {
			if (fi.l3_off + (uint32_t)fi.l3_len > size)
				abort();
			if (dcn_fabric_state_from_hdr(f->t, &fi.hdr, &st) == 0)
				lookup(f, fi.hdr.dst, &st);
		} else if (fi.cls == DCN_FC_HOST_IPV4) {
			if (fi.l3_off + (uint32_t)fi.l3_len > size)
				abort();
			dcn_route_state_init(f->r, dcn_rtable_node(f->tb) %
					     dcn_topo_servers(f->t), 0, &st);
			lookup(f, fi.ip_dst, &st);
		}
	}
	return 0;
}
