/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-sim's relays' flow control: lib/fc's node and data path, as a
 * relay's start makes them, driven as a relay's worker drives them (a
 * pass at each frame and each refresh), on the simulated clock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sim_priv.h"

/* The simulated clock in the TSC units lib/fc counts time in, from a
 * machine up for a while (SIM_TSC_UP_S): a relay's first look finds
 * every refresh long due, as on a server, and announces its credits at
 * once; from a TSC of 0 the first would wait a refresh interval. */
#define SIM_TSC_UP_S 1000u

static uint64_t
sim_tsc(const struct sim_fabric *f, uint64_t now_ps)
{
	return f->tsc_hz * SIM_TSC_UP_S +
	       (uint64_t)((unsigned __int128)now_ps * f->tsc_hz / 1000000000000ull);
}

/* The data path's clock (dcn_fwd_set_clock): the simulated time of the
 * event being handled, set at each entry below. One simulation a
 * process. */
static uint64_t sim_now_tsc;

static uint64_t
sim_clock(void)
{
	return sim_now_tsc;
}

void
sim_at(const struct sim_fabric *f, uint64_t now_ps)
{
	sim_now_tsc = sim_tsc(f, now_ps);
}

void
sim_clock_start(const struct sim_fabric *f)
{
	sim_at(f, 0);
	dcn_fwd_set_clock(sim_clock);
}

void
sim_clock_stop(void)
{
	dcn_fwd_set_clock(NULL);
}

/* Relay v's local ports as lib/fc sees them (the fwd context's order:
 * its topology ports, then its server's host port): each one's kind,
 * its links (behind a switch, its neighbours in nb) and topology port.
 * @return the ports. */
uint16_t
sim_relay_shape(const struct dcn_topo *t, uint32_t v, const struct dcn_fwd_nbrs *nb,
	    uint8_t *kind, uint16_t *links, int16_t *fport)
{
	uint16_t l, n = (uint16_t)dcn_topo_ports(t, v);

	for (l = 0; l < n; l++) {
		fport[l] = (int16_t)l;
		kind[l] = (uint8_t)dcn_fc_topo_port_kind(t, v, l, sim_faces_host(t, v, l), 0);
		links[l] = kind[l] == DCN_FC_PORT_SWITCH ?
				   (uint16_t)dcn_fwd_nbrs_on_port(nb, l) : 1;
		if (links[l] == 0) {
			kind[l] = DCN_FC_PORT_NOCREDIT;
			links[l] = 1;
		}
	}
	if (dcn_topo_role(t, v) == DCN_ROLE_SERVER) {
		fport[n] = -1;
		kind[n] = DCN_FC_PORT_HOST;
		links[n++] = 1;
	}
	return n;
}

void
sim_relay_fc_conf(struct dcn_fc_conf *fcc, const struct sim_fc_conf *fc, unsigned int vcs)
{
	memset(fcc, 0, sizeof(*fcc));
	fcc->in_queue = fc->in_queue;
	fcc->out_queue = fc->out_queue;
	fcc->reserve_pct = fc->reserve_pct;
	fcc->n_vcs = vcs;
	fcc->n_lanes = 1;
	fcc->stagers = 1;
}

/* Relay v's flow control, as a relay's start makes it (app/dcnfwd's
 * fc_setup.c): a node of its ports' kinds, a data path whose one worker
 * owns every port, and ports that are TX rings the wire drains and
 * nothing to receive from (frames are handed to the step). */
int
sim_relay_fc_setup(struct sim_fabric *f, uint32_t v, char *err, size_t errlen)
{
	struct sim_vertex *x = &f->v[v];
	uint8_t kind[DCN_FWD_MAX_PORTS];
	uint16_t links[DCN_FWD_MAX_PORTS];
	int16_t fport[DCN_FWD_MAX_PORTS];
	struct dcn_fc_conf fcc;
	char id[32];
	unsigned int l;

	x->n_local = sim_relay_shape(f->t, v, &x->nbrs, kind, links, fport);
	sim_relay_fc_conf(&fcc, &f->fc, dcn_route_vcs(f->r));
	snprintf(id, sizeof(id), "sim%u", v);
	x->fn = dcn_fc_node_create(id, v, x->n_local, kind, links, NULL, &fcc);
	if (x->fn == NULL) {
		snprintf(err, errlen, "%s: its flow-control queues: %s", x->name,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	x->dp = rte_zmalloc("sim_fc_dp", sizeof(*x->dp), RTE_CACHE_LINE_SIZE);
	x->x = rte_zmalloc("sim_fc_x", sizeof(*x->x), RTE_CACHE_LINE_SIZE);
	x->port = rte_zmalloc("sim_ports", x->n_local * sizeof(*x->port), RTE_CACHE_LINE_SIZE);
	if (x->dp == NULL || x->x == NULL || x->port == NULL ||
	    dcn_fc_dp_init(x->dp, x->fn, f->ctl_mp, DCN_FABRIC_ETHERTYPE, 32,
			   dcn_fc_link_batch(f->fc.credit_batch,
					     dcn_fc_link_grant(fcc.in_queue, fcc.reserve_pct)),
			   (uint64_t)(f->fc.credit_refresh_us * (double)f->tsc_hz / 1e6)) != 0)
		goto nomem;
	for (l = 0; l < x->n_local; l++) {
		struct dcn_port *p = &x->port[l];
		char rn[RTE_RING_NAMESIZE];

		snprintf(rn, sizeof(rn), "sim%u.%u", v, l);
		p->nb_rxq = p->nb_txq = 1;
		/* From the heap, not a memzone each: a large fabric's
		 * thousands of rings would pass RTE_MAX_MEMZONE. */
		p->tx_ring[0] = rte_zmalloc(rn, (size_t)rte_ring_get_memsize_elem(
						sizeof(void *), rte_align32pow2(f->fc.tx_ring + 1)),
					    RTE_CACHE_LINE_SIZE);
		if (p->tx_ring[0] == NULL ||
		    rte_ring_init(p->tx_ring[0], rn, f->fc.tx_ring,
				  RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
			goto nomem;
		p->rx_ring[0] = p->tx_ring[0];  /* never read: frames are handed over */
		dcn_fc_dp_set_port(x->dp, (uint16_t)l, p, 0);
	}
	if (dcn_fc_dp_bind_nbrs(x->dp, &x->nbrs, f->t, fport) != 0) {
		snprintf(err, errlen, "%s: its switch ports' neighbours do not match its "
			 "flow-control links", x->name);
		return -EINVAL;
	}
	x->x->dp = x->dp;
	x->x->w = &f->w;
	x->x->fwd = x->fwd;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory for flow control", x->name);
	return -ENOMEM;
}

int
sim_fc_start(struct sim_fabric *f)
{
	char name[64];

	snprintf(name, sizeof(name), "sim_ctl_%p", (void *)f);
	f->ctl_mp = rte_pktmbuf_pool_create(name, 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					    SOCKET_ID_ANY);
	if (f->ctl_mp == NULL || dcn_fc_worker_init(&f->w, 0, DCN_FC_MAX_CHANS) != 0 ||
	    dcn_fc_mbuf_register() != 0)
		return -ENOMEM;
	return 0;
}

void
sim_fc_stop(struct sim_fabric *f)
{
	dcn_fc_worker_fini(&f->w);
	rte_mempool_free(f->ctl_mp);
}

void
sim_relay_fc_free(struct sim_vertex *x)
{
	unsigned int l;

	for (l = 0; x->port != NULL && l < x->n_local; l++)
		if (x->port[l].tx_ring[0] != NULL) {
			struct rte_mbuf *m;

			while (rte_ring_dequeue(x->port[l].tx_ring[0], (void **)&m) == 0)
				rte_pktmbuf_free(m);
			rte_free(x->port[l].tx_ring[0]);
		}
	if (x->dp != NULL)
		dcn_fc_dp_release(x->dp);
	dcn_fc_node_free(x->fn);
	rte_free(x->dp);
	rte_free(x->x);
	rte_free(x->port);
}

/* The server's frames a relay delivered: its host port's TX ring. */
static unsigned int
drain_host(struct sim_vertex *x, struct sim_out *out)
{
	struct rte_mbuf *m[SIM_OUT_MAX];
	unsigned int n, i;

	if (x->host_local == SIM_NO_HOST)
		return 0;
	n = rte_ring_dequeue_burst(x->port[x->host_local].tx_ring[0], (void **)m,
				   SIM_OUT_MAX, NULL);
	for (i = 0; i < n; i++) {
		out[i].port = SIM_PORT_HOST;
		out[i].m = m[i];
	}
	return n;
}

/* One pass of a relay worker's loop over the node's ports, as
 * app/dcnfwd/worker.c's fc_service, at the clock's time (sim_at): route
 * what waits in the input queues, send what waits in the output queues,
 * announce credits when due. */
static void
relay_pass(struct sim_vertex *x)
{
	uint64_t now = sim_now_tsc;
	uint16_t l;

	for (l = 0; l < x->n_local; l++)
		if (__atomic_load_n(dcn_fc_route_flag(x->x, l, 0), __ATOMIC_ACQUIRE))
			dcn_fc_route_waiting(x->x, l, 0);
	for (l = 0; l < x->n_local; l++) {
		dcn_fc_send(x->x, l);
		if (dcn_fc_announce_due(&x->dp->port[l], now))
			dcn_fc_announce_port(x->x, l, now);
	}
}

unsigned int
sim_relay_fc_arrive(struct sim_fabric *f, uint32_t v, uint16_t local, struct rte_mbuf *m,
		    struct sim_out *out)
{
	struct sim_vertex *x = &f->v[v];

	/* neither data nor credits (a control frame, a malformed one):
	 * the relay's control path, which the simulation has not got */
	if (dcn_fc_rx_lane(x->x, local, 0, &m, 1) != 0)
		rte_pktmbuf_free(m);
	relay_pass(x);
	return drain_host(x, out);
}

int
sim_queued_relay(const struct sim_fabric *f, uint32_t v)
{
	return f->fc_on && f->v[v].kind == SIM_RELAY;
}

unsigned int
sim_tick(struct sim_fabric *f, uint32_t v, uint64_t now_ps, struct sim_out *out)
{
	struct sim_vertex *x = &f->v[v];

	if (!sim_queued_relay(f, v))
		return 0;
	sim_at(f, now_ps);
	relay_pass(x);
	return drain_host(x, out);
}

struct rte_mbuf *
sim_port_pull(struct sim_fabric *f, uint32_t v, uint16_t port, uint64_t now_ps)
{
	struct sim_vertex *x = &f->v[v];
	struct rte_ring *r = x->port[port].tx_ring[0];
	struct rte_mbuf *m;

	if (rte_ring_dequeue(r, (void **)&m) == 0)
		return m;
	/* The NIC took its ring's last frame: the sender may give it more
	 * (a relay's worker would, on its next pass). */
	sim_at(f, now_ps);
	dcn_fc_send_waiting(x->x, port);
	return rte_ring_dequeue(r, (void **)&m) == 0 ? m : NULL;
}

unsigned int
sim_port_waiting(const struct sim_fabric *f, uint32_t v, uint16_t port)
{
	return rte_ring_count(f->v[v].port[port].tx_ring[0]);
}

void
sim_fc_totals(const struct sim_fabric *f, struct sim_fc_totals *tot)
{
	uint32_t v, c;
	uint16_t l;

	memset(tot, 0, sizeof(*tot));
	for (v = 0; v < f->n_vertices; v++) {
		const struct sim_vertex *x = &f->v[v];

		for (l = 0; x->x != NULL && l < x->n_local; l++)
			tot->refused += x->x->st[l].in_drop;
		for (c = 0; x->fn != NULL && c < x->fn->n_chans; c++) {
			tot->stalls += dcn_fc_chan_stalls(x->fn, c);
			tot->credit_frames += x->fn->chan[c].credit_tx;
		}
	}
}
