/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Announcements: a node floods what it sees down (FAR, RRect and LaScaDa
 * to all, Totoro inside its broadcast domain, NovaCube nobody:
 * dcn_route_lsa_hops), sends it again while it lists a failure,
 * and relays what it hears while hops are left. What a node hears goes
 * into its link-state database; a change makes it recompile its table
 * (failover.c).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_link

#include <string.h>

#include "ctl_io.h"
#include "events.h"
#include "lsa.h"

/* Own announcements are sent again this often while they list a failure,
 * in case a copy was lost, and a few times after the last one clears. */
#define LSA_REFRESH_MS 500
#define LSA_TAIL 3
/* What no origin repeated for this long is forgotten (dcn_link_db_age):
 * four refreshes, so a lost copy or two does not age out a real
 * failure, while a forged or stale announcement lasts no longer. */
#define LSA_MAX_AGE_MS (4 * LSA_REFRESH_MS)

/* Does this node's own view say link (x, port) is up? Its own port, or
 * a neighbour's port toward it (a cable's other end, or a neighbour's
 * port on a switch they share) while that neighbour's hellos arrive.
 * Nobody knows those better: an announcement saying otherwise is
 * refused whole (a partial failure seen only by its origin is then
 * ignored here; the origin still routes around it). */
static int
seen_up(const struct dcnfwd *d, const struct dcnfwd_node *n, uint32_t x,
	uint16_t port)
{
	struct dcn_adj a[DCN_FWD_MAX_FABRIC_PORTS];
	unsigned int l, k, deg;

	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];

		if (!dcnfwd_port_is_fabric(p))
			continue;
		if (x == n->vertex && p->fabric_port == port)
			return dcn_link_usable(&p->link);
	}
	if (x == n->vertex)
		return 0;
	deg = dcn_topo_adj(d->t, n->vertex, a);
	for (k = 0; k < deg; k++) {
		if (a[k].peer != x || a[k].peer_port != port)
			continue;
		for (l = 0; l < n->n_ports; l++) {
			const struct dcnfwd_port *p = &d->port[n->port[l]];

			if (dcnfwd_port_is_fabric(p) && p->fabric_port == a[k].port)
				return dcn_link_usable(&p->link);
		}
	}
	for (l = 0; n->nbr_link != NULL && l <= n->nbrs.mask; l++)
		if (n->nbrs.slot[l].vertex == x && n->nbr_vport[l] == port)
			return dcn_link_usable(&n->nbr_link[l]);
	return 0;
}

/* Is node n's own fabric port fp down? */
static int
own_port_down(const struct dcnfwd *d, const struct dcnfwd_node *n, uint16_t fp)
{
	unsigned int l;

	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];

		if (dcnfwd_port_is_fabric(p) && p->fabric_port == fp)
			return !dcn_link_usable(&p->link);
	}
	return 0;
}

unsigned int
dcnfwd_own_down(const struct dcnfwd *d, const struct dcnfwd_node *n, uint32_t *v,
		uint16_t *port, unsigned int max)
{
	unsigned int k = 0, l;

	for (l = 0; l < n->n_ports && k < max; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];

		if (dcnfwd_port_is_fabric(p) && !dcn_link_usable(&p->link)) {
			v[k] = n->vertex;
			port[k++] = (uint16_t)p->fabric_port;
		}
	}
	/* A neighbour behind a switch it no longer hears; but not behind a
	 * port of its own that is down: the neighbours there are as well
	 * as ever, only this node is cut off, and its port says so. Named
	 * down too, they were believed by every relay that does not share
	 * the switch, whose routes then avoided live links. */
	for (l = 0; n->nbr_link != NULL && l <= n->nbrs.mask && k < max; l++)
		if (n->nbrs.slot[l].vertex != DCN_FWD_NBR_EMPTY &&
		    !dcn_link_usable(&n->nbr_link[l]) &&
		    !own_port_down(d, n, n->nbrs.slot[l].fabric_port)) {
			v[k] = n->nbrs.slot[l].vertex;
			port[k++] = n->nbr_vport[l];
		}
	return k;
}

/* An announcement is its origin's word, passed on by relays from their
 * own MACs: the tag binds no MAC, and reads the hop count, which each
 * relay lowers, as 0. */
static const struct dcn_auth_span lsa_span = { .bind_macs = 0,
						  .zero_at = DCN_LINK_LSA_HOPS_OFF };

/* An announcement out of port p. With a fabric key it carries its
 * origin's trailer: signed here when this node is the origin (trailer
 * NULL), copied from the copy it came in when relayed. */
static struct rte_mbuf *
lsa_frame(struct dcnfwd *d, const struct dcnfwd_port *p,
	  const struct dcn_link_lsa *a, const uint8_t *trailer)
{
	struct dcn_fabric_hdr h = {
		.version = DCN_FABRIC_VERSION,
		.type = DCN_FT_LINKSTATE,
		.ttl = 1,
		.len = (uint16_t)DCN_LINK_LSA_LEN(a->n),
		.src = a->origin,
	};
	struct rte_mbuf *m = dcnfwd_ctl_frame(d, p, NULL, d->ethertype,
					      dcnfwd_ctl_len(d, DCN_LINK_LSA_LEN(a->n)));
	uint8_t *f;

	if (m == NULL)
		return NULL;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	dcn_link_lsa_write(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			   DCN_LINK_LSA_LEN(a->n), a);
	if (d->auth == NULL)
		return m;
	if (trailer != NULL)
		memcpy(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + h.len, trailer,
		       DCN_AUTH_TRAILER_LEN);
	else
		dcn_auth_sign(d->auth, f, h.len, &lsa_span, a->epoch, a->seq);
	return m;
}

/* Out of every fabric port of node n but the one it came in on. */
static unsigned int
lsa_flood(struct dcnfwd *d, struct dcnfwd_node *n, const struct dcn_link_lsa *a,
	  const uint8_t *trailer, int except_local)
{
	unsigned int l, sent = 0;

	for (l = 0; l < n->n_ports; l++) {
		struct dcnfwd_port *p = &d->port[n->port[l]];
		struct rte_mbuf *m;

		if (!dcnfwd_port_is_fabric(p) || (int)l == except_local)
			continue;
		m = lsa_frame(d, p, a, trailer);
		if (m != NULL && dcnfwd_inject(d, n->port[l], &m, 1) == 1)
			sent++;
	}
	return sent;
}

void
dcnfwd_lsa_originate(struct dcnfwd *d, struct dcnfwd_node *n, uint64_t now)
{
	struct dcn_link_lsa a;
	uint32_t v[DCN_LINK_LSA_MAX];
	uint16_t port[DCN_LINK_LSA_MAX];
	unsigned int k;

	memset(&a, 0, sizeof(a));
	a.origin = n->addr;
	a.epoch = d->epoch;
	a.seq = ++n->lsa_seq;
	a.hops = (uint8_t)d->lsa_hops;
	a.n = (uint8_t)dcnfwd_own_down(d, n, v, port, DCN_LINK_LSA_MAX);
	for (k = 0; k < a.n; k++) {
		a.link[k].addr = dcn_topo_addr(d->t, v[k]);
		a.link[k].port = port[k];
	}
	n->lsa_tx += lsa_flood(d, n, &a, NULL, -1);
	n->lsa_due = 0;
	if (a.n > 0)
		n->lsa_tail = LSA_TAIL;
	else if (n->lsa_tail > 0)
		n->lsa_tail--;
	n->lsa_refresh_tsc = a.n > 0 || n->lsa_tail > 0 ?
			     now + LSA_REFRESH_MS * d->tsc_hz / 1000 : 0;
}

void
dcnfwd_lsa_age(struct dcnfwd *d, struct dcnfwd_node *n, uint64_t now)
{
	unsigned int gone;

	/* A walk over every origin: ten times a second is plenty. */
	if (now < n->lsa_age_tsc)
		return;
	n->lsa_age_tsc = now + d->tsc_hz / 10;
	gone = dcn_link_db_age(n->lsdb, dcnfwd_us_of_tsc(d, now),
			       LSA_MAX_AGE_MS * 1000ull);
	if (gone > 0) {
		n->lsa_aged += gone;
		n->dirty = 1;
	}
}

void
dcnfwd_lsa_rx(struct dcnfwd *d, uint32_t pi, const uint8_t *f, uint32_t len)
{
	struct dcnfwd_port *p = &d->port[pi];
	struct dcnfwd_node *n;
	struct dcn_link_lsa a;
	uint32_t v[DCN_LINK_LSA_MAX];
	uint16_t port[DCN_LINK_LSA_MAX];
	unsigned int k, nv = 0;
	uint32_t epoch, seq, plen;
	const uint8_t *trailer = NULL;
	int64_t origin;
	int ret;

	/* Announcements are taken from fabric ports only, never from a
	 * host port. */
	if (!dcnfwd_port_is_fabric(p))
		return;
	n = &d->node[p->owner_idx];
	if (len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN ||
	    dcn_link_lsa_read(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			      len - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN, &a) != 0) {
		n->lsa_refused++;
		return;
	}
	if (d->auth != NULL) {
		if (!dcnfwd_auth_check(d, p, f, len, &lsa_span, &epoch, &seq))
			return;
		/* The numbers that order announcements are the signed
		 * payload's; a trailer that names others was not written
		 * by a dcnfwd. */
		if (epoch != a.epoch || seq != a.seq) {
			dcnfwd_auth_refuse(p, DCN_AUTH_BAD_TAG, "announcement");
			return;
		}
		plen = dcn_fabric_get16(f + DCN_ETHER_HDR_LEN + 6);
		trailer = f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + plen;
	}
	origin = dcn_topo_vertex_of(d->t, a.origin);
	if (origin < 0 || !dcn_topo_is_router(d->t, (uint32_t)origin) ||
	    (uint32_t)origin == n->vertex) {
		if ((uint32_t)origin != n->vertex)
			n->lsa_refused++;
		return;
	}
	if (!dcn_route_lsa_wants(d->r, n->vertex, (uint32_t)origin)) {
		n->lsa_refused++;
		return;
	}
	/* Signed words heard before are a recording, whatever they say:
	 * refused as such before they are weighed. Not logged: an honest
	 * copy can be as old (one that waited in the ring of a relay still
	 * starting, and was flooded on once it ran). */
	if (d->auth != NULL &&
	    dcn_link_db_replayed(n->lsdb, (uint32_t)origin, a.epoch, a.seq)) {
		n->lsa_replayed++;
		return;
	}
	for (k = 0; k < a.n; k++) {
		int64_t x = dcn_topo_vertex_of(d->t, a.link[k].addr);

		if (x < 0)
			continue;
		if (seen_up(d, n, (uint32_t)x, a.link[k].port)) {
			n->lsa_contradicted++;
			return;
		}
		v[nv] = (uint32_t)x;
		port[nv++] = a.link[k].port;
	}
	ret = dcn_link_db_accept(n->lsdb, (uint32_t)origin, a.epoch, a.seq, nv,
				 v, port, dcnfwd_us_of_tsc(d, rte_rdtsc()));
	if (ret == -2) {
		n->lsa_replayed++;
		return;
	}
	if (ret <= 0) {
		n->lsa_dup++;
		return;
	}
	n->lsa_rx++;
	if (ret == 1) {
		n->dirty = 1;
		dcnfwd_event(d, EV_LSA_IN, p->owner_idx, p->local, (uint32_t)origin,
			     0, 0);
	}
	if (a.hops > 1) {
		a.hops--;
		n->lsa_relayed += lsa_flood(d, n, &a, trailer, p->local);
	}
}
