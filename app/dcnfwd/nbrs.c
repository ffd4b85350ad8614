/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The liveness of the neighbours behind a node's switch ports (its own
 * ports' is links.c's): each neighbour's hellos age it as lib/link ages a
 * link, and a neighbour that goes down or comes back takes its MAC from
 * the workers, or gives it back, and makes the node's table due again.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_link

#include <string.h>

#include "events.h"
#include "links.h"
#include "nbrs.h"
#include "setup.h"

/* What lib/link made of neighbour slot of node ni: down, its MAC taken
 * from the workers; up, its credits restarted and its MAC given back;
 * either way the node's table and announcements are due. */
static void
nbr_event(struct dcnfwd *d, uint32_t ni, uint32_t slot, enum dcn_link_event ev)
{
	struct dcnfwd_node *n = &d->node[ni];
	struct dcn_fwd_nbr *e = &n->nbrs.slot[slot];

	if (ev == DCN_LINK_EV_NONE)
		return;
	if (ev == DCN_LINK_EV_DOWN) {
		/* Down first, then no MAC: a worker that sees no MAC knows
		 * why, and picks another candidate. */
		__atomic_store_n(&e->down, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&e->mac, 0, __ATOMIC_RELEASE);
	} else if (n->nbr_mac[slot] != 0) {
		/* Back up: credits start over with its next credit frame
		 * (what it sent while down was lost), then the MAC of its
		 * last hello, then not down. */
		int link = n->fcdp != NULL ? dcn_fc_dp_nbr_link(n->fcdp, e) : -1;

		if (link >= 0)
			dcn_fc_link_restart(n->fc, (uint16_t)link);
		__atomic_store_n(&e->mac, n->nbr_mac[slot], __ATOMIC_RELEASE);
		__atomic_store_n(&e->down, 0, __ATOMIC_RELEASE);
	}
	n->dirty = 1;
	n->lsa_due = 1;
	dcnfwd_event(d, ev == DCN_LINK_EV_DOWN ? EV_NBR_DOWN : EV_NBR_UP, ni, -1,
		     e->vertex, n->nbr_link[slot].cause, 0);
}

void
dcnfwd_nbr_hello(struct dcnfwd *d, struct dcnfwd_port *p, uint32_t v,
		 uint16_t vport, const struct rte_ether_addr *mac,
		 uint64_t now)
{
	struct dcnfwd_node *n = &d->node[p->owner_idx];
	uint64_t us = dcnfwd_us_of_tsc(d, now);

	dcnfwd_port_event(d, p, dcn_link_hello(&p->link, &d->lconf, us));
	if (n->nbr_link != NULL) {
		struct dcn_fwd_nbr *e = dcn_fwd_nbr_find(&n->nbrs, v,
							 (uint16_t)p->fabric_port);

		if (e != NULL) {
			uint32_t slot = (uint32_t)(e - n->nbrs.slot);

			n->nbr_vport[slot] = vport;
			n->nbr_mac[slot] = 0;
			memcpy(&n->nbr_mac[slot], mac, RTE_ETHER_ADDR_LEN);
			nbr_event(d, p->owner_idx, slot,
				  dcn_link_hello(&n->nbr_link[slot], &d->lconf, us));
		}
	}
}

/* May the neighbour in this slot be used (its MAC handed to workers)? */
int
dcnfwd_nbr_usable(const struct dcnfwd_node *n, uint32_t slot)
{
	return n->nbr_link == NULL || dcn_link_usable(&n->nbr_link[slot]);
}

/* When the switch port that reaches neighbour slot of node n was last
 * read to empty (us), or now where no port is found. */
static uint64_t
nbr_read_us(const struct dcnfwd *d, const struct dcnfwd_node *n, uint32_t slot,
	    uint64_t now)
{
	uint16_t fp = n->nbrs.slot[slot].fabric_port;
	unsigned int l;

	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];

		if (dcnfwd_port_is_fabric(p) && p->fabric_port == fp)
			return p->read_us;
	}
	return now;
}

/* Each neighbour behind a switch port aged by its hellos (its port read
 * to empty when last looked at, so that frames not yet read are no
 * silence). */
void
dcnfwd_nbrs_tick(struct dcnfwd *d, uint64_t us)
{
	unsigned int i, l;

	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		for (l = 0; n->nbr_link != NULL && l <= n->nbrs.mask; l++)
			if (n->nbrs.slot[l].vertex != DCN_FWD_NBR_EMPTY)
				nbr_event(d, i, l,
					  dcn_link_tick_read(&n->nbr_link[l], &d->lconf,
							     us, nbr_read_us(d, n, l, us)));
	}
}
