/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hellos under a fabric key (hello_auth.h): the echoes a hello carries,
 * and whether a neighbour's hello is fresh (lib/auth's
 * dcn_auth_peer_take), which also tells flow control which incarnation
 * of the neighbour may send credit frames.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_ctl

#include "ctl_io.h"
#include "hello_auth.h"

/* A hello's echo of the neighbour guard g keeps (with a fabric key):
 * @return 1 written at out, 0 nothing heard from it yet. */
static int
echo_of(const struct dcnfwd_mac_guard *g, struct dcn_hello_echo *out)
{
	if (g->auth.heard_epoch == 0)
		return 0;
	*out = (struct dcn_hello_echo){ g->heard_addr, g->auth.heard_epoch,
					 g->auth.heard_seq };
	return 1;
}

/* With a fabric key: the echoes of the neighbours heard behind port p
 * (its cable's, or those behind its switch). @return how many. */
unsigned int
dcnfwd_hello_echoes(const struct dcnfwd *d, const struct dcnfwd_node *n,
		    const struct dcnfwd_port *p, struct dcn_hello_echo *e)
{
	unsigned int k = 0, s;

	if (d->auth == NULL)
		return 0;
	if (n->nbr_guard == NULL || n->nbrs.slot == NULL)
		return echo_of(&p->peer_guard, e);
	for (s = 0; s <= n->nbrs.mask && k < DCN_HELLO_ECHO_MAX; s++)
		if (n->nbrs.slot[s].vertex != DCN_FWD_NBR_EMPTY &&
		    n->nbrs.slot[s].fabric_port == p->fabric_port)
			k += (unsigned int)echo_of(&n->nbr_guard[s], &e[k]);
	/* None behind a switch of this port: a cable of a node that also
	 * has switch ports, whose one neighbour the port's guard keeps. */
	return k ? k : (unsigned int)echo_of(&p->peer_guard, e);
}

/* Hellos a neighbour's echo may lag ours by: one in flight, one it has
 * not yet answered, the miss time's worth lost, and some. */
#define DCNFWD_ECHO_WINDOW 8

/* The flow-control links that neighbour guard g of node n speaks for
 * take credit frames of incarnation epoch from now on. */
static void
credit_epoch(struct dcnfwd_node *n, const struct dcnfwd_port *p,
	     const struct dcnfwd_mac_guard *g, uint32_t epoch)
{
	uint16_t l, k;

	if (n->fcdp == NULL)
		return;
	if (g == &p->peer_guard) {
		l = n->fc->port_link[p->local];
		for (k = 0; k < n->fc->port_links[p->local]; k++)
			dcn_fc_dp_set_peer_epoch(n->fcdp, (uint16_t)(l + k), epoch);
		return;
	}
	{
		int link = dcn_fc_dp_nbr_link(n->fcdp,
					      &n->nbrs.slot[g - n->nbr_guard]);

		if (link >= 0)
			dcn_fc_dp_set_peer_epoch(n->fcdp, (uint16_t)link, epoch);
	}
}

int
dcnfwd_hello_fresh(struct dcnfwd *d, struct dcnfwd_node *n, struct dcnfwd_port *p,
		   struct dcnfwd_mac_guard *g, const uint8_t *f,
		   const struct dcn_hello *h, uint32_t epoch, uint32_t seq)
{
	const uint8_t *pl = f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;
	struct dcn_hello_echo e = { 0, 0, 0 };
	struct dcn_auth_hello ah = { epoch, seq, 0, 0 };
	uint32_t was = g->auth.taken.known ? g->auth.taken.epoch : 0;

	if (dcn_fabric_hello_echo_find(pl, dcn_fabric_get16(f + DCN_ETHER_HDR_LEN + 6),
				       n->addr, &e) == 1) {
		ah.echo_epoch = e.epoch;
		ah.echo_seq = e.seq;
	}
	g->heard_addr = h->addr;
	switch (dcn_auth_peer_take(&g->auth, &ah, d->epoch, n->hello_seq,
				   DCNFWD_ECHO_WINDOW)) {
	case DCN_AUTH_PEER_TAKEN:
		if (g->auth.taken.epoch != was)
			credit_epoch(n, p, g, epoch);
		return 1;
	case DCN_AUTH_PEER_REPLAYED:
		dcnfwd_auth_refuse(p, DCN_AUTH_REPLAYED, "hello");
		return 0;
	default:
		p->hello_unproven++;
		return -1;
	}
}
