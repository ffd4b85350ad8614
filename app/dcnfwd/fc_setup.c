/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow control of every node: which ports carry credits, the queues in
 * the node's memzone (a lane per RX queue of its busiest port), and the
 * data path its workers share (lib/fc).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_fc

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "setup.h"

/*
 * input_queue = 0. A relay's credit window must cover a fast port's round
 * trip: at 256 slots (204 granted, a credit frame each 51) the sender
 * waits on credits in flight and both ends send credit frames of one
 * frame each, and transit carried 0.85x l3fwd on memif against 0.91x at
 * 1024 slots with a credit frame each 204 (doc/benchmarking.md, "Flow
 * control at speed"). Its cost is mbufs, held only under backpressure.
 * Behind an L2 switch the grants are frames the switch's buffer must
 * hold (lib/fc/README.md, "Sizing against the switch's buffer"), and an
 * emulation holds every node's queues in one process: 256 there.
 */
#define IN_QUEUE_CABLES 1024u
#define IN_QUEUE_SWITCHES 256u

unsigned int
dcnfwd_fc_in_queue(unsigned int input_queue, int emulated, int behind_switch)
{
	if (input_queue != 0)
		return input_queue;
	return emulated || behind_switch ? IN_QUEUE_SWITCHES : IN_QUEUE_CABLES;
}

/* The node's credit batch, for a port's whole input queue of in_queue
 * slots (each link of a switch port cuts it further to its own grant:
 * dcn_fc_link_batch in dcn_fc_dp_init). */
unsigned int
dcnfwd_fc_credit_batch(unsigned int credit_batch, unsigned int in_queue,
		       unsigned int reserve_pct)
{
	return dcn_fc_link_batch(credit_batch, dcn_fc_link_grant(in_queue, reserve_pct));
}

/*
 * How much of what a relay may hold at once a pool of mbufs covers: its
 * flow-control queues full (queues: dcn_fc_frames_max, every lane's input
 * side and every sender's output queue, as when every link backs up at
 * once), its ports' descriptors and the lcores' pool caches (other). A
 * pool short of it can run dry under wide backpressure, and a port then
 * drops frames for want of buffers, the loss flow control is there to
 * prevent. The full figure has every channel backed up at once, which
 * a fabric's routes never do, so a short pool is told as a share, for
 * the operator to weigh, not as a fault. Written into buf. @return 1
 * when short.
 */
static int
mbufs_cover(char *buf, size_t len, uint64_t mbufs, uint64_t queues, uint64_t other)
{
	uint64_t need = queues + other;

	if (mbufs >= need) {
		snprintf(buf, len, "mbufs: %lu, enough for flow control's queues "
			 "full (%lu frames) and the descriptors and pool caches (%lu)",
			 (unsigned long)mbufs, (unsigned long)queues,
			 (unsigned long)other);
		return 0;
	}
	snprintf(buf, len, "mbufs: %lu, %.1f%% of the %lu that flow control's "
		 "queues full (%lu frames: every link backed up at once), the "
		 "descriptors and pool caches can hold; past them, ports drop "
		 "frames for want of buffers", (unsigned long)mbufs,
		 100.0 * (double)mbufs / (double)need, (unsigned long)need,
		 (unsigned long)queues);
	return 1;
}

/* Workers that may stage frames for a node's output queues: all of
 * them (an emulation's workers share its nodes). The workers are made
 * after the queues: their number is the planned one. */
static unsigned int
stagers(unsigned int workers)
{
	return workers == 0 ? 1 : RTE_MIN(workers, (unsigned int)DCN_FC_MAX_WORKERS);
}

void
dcnfwd_fc_check_line(const struct dcn_conf *c, const struct dcn_topo *t,
		     unsigned int vcs)
{
	struct dcn_fc_conf fcc = { .out_queue = c->fc_out_queue,
				   .reserve_pct = c->fc_reserve_pct, .n_vcs = vcs,
				   .n_lanes = 1, .stagers = stagers(c->n_workers) };
	uint8_t kind[DCN_CONF_MAX_PORTS];
	uint16_t links[DCN_CONF_MAX_PORTS];
	struct dcn_fwd_nbrs nbrs;
	unsigned int i, in_queue, grant, batch;
	uint64_t other = 0, queues;
	int behind_switch = 0, have_nbrs;
	char verdict[320];

	have_nbrs = dcn_fwd_nbrs_init(&nbrs, t, c->node) == 0;
	/* A switch port with no relay behind it is not credited at start
	 * (no links): the file alone cannot tell, so it counts here. */
	for (i = 0; i < c->n_ports; i++) {
		kind[i] = (uint8_t)dcn_fc_topo_port_kind(t, c->node, c->port[i].fabric_port,
					     c->port[i].host, !c->port[i].credits);
		links[i] = 1;
		if (kind[i] == DCN_FC_PORT_SWITCH && have_nbrs)
			links[i] = (uint16_t)RTE_MAX(1u, dcn_fwd_nbrs_on_port(
				&nbrs, (uint16_t)c->port[i].fabric_port));
		behind_switch |= kind[i] == DCN_FC_PORT_SWITCH;
		fcc.n_lanes = RTE_MAX(fcc.n_lanes, (unsigned int)c->port[i].rxq);
		other += (uint64_t)c->port[i].rxq * c->rx_desc +
			 (uint64_t)c->port[i].txq * c->tx_desc;
	}
	if (have_nbrs)
		dcn_fwd_nbrs_free(&nbrs);
	in_queue = dcnfwd_fc_in_queue(c->fc_in_queue, 0, behind_switch);
	grant = dcn_fc_link_grant(in_queue, c->fc_reserve_pct);
	batch = dcnfwd_fc_credit_batch(c->fc_credit_batch, in_queue, c->fc_reserve_pct);
	printf("  flow control: input queues of %u slots a port%s, %u "
	       "granted over its links and VCs, a credit frame each %u freed\n", in_queue,
	       c->fc_in_queue ? "" : behind_switch ? " (behind L2 switches)" :
	       " (on cables)", grant, batch);
	/* A switch port's queue is shared by its links: each grants its
	 * share, and frees its own batch of it. */
	for (i = 0; i < c->n_ports; i++) {
		unsigned int g;

		if (kind[i] != DCN_FC_PORT_SWITCH || links[i] < 2)
			continue;
		g = dcn_fc_link_grant(dcn_fc_link_in_cap(in_queue, links[i]),
				      c->fc_reserve_pct);
		printf("  flow control: port %s behind a switch, %u links: each "
		       "granted %u, a credit frame each %u freed\n", c->port[i].name,
		       links[i], g, dcn_fc_link_batch(batch, g));
	}
	fcc.in_queue = in_queue;
	queues = dcn_fc_frames_max(&fcc, (uint16_t)c->n_ports, kind, links);
	/* each lcore's cache, the workers' and the main one's */
	other += (uint64_t)(c->n_workers + 1) * dcnfwd_pool_cache(c->mbufs);
	mbufs_cover(verdict, sizeof(verdict), c->mbufs, queues, other);
	printf("  %s\n", verdict);
}

/* At start: the same for the nodes' queues (queues, dcn_fc_frames_max
 * of each) and the process's pools, ports and lcores, logged when the
 * pools are short. */
static void
mbufs_check(const struct dcnfwd *d, uint64_t queues)
{
	uint64_t mbufs = 0, other = 0;
	unsigned int i;
	char verdict[320];

	/* The main pool (of no NUMA node with --no-huge), and each node's
	 * but the main one's, which is the main pool itself. */
	for (i = 0; i <= DCN_NUMA_MAX; i++) {
		const struct rte_mempool *mp = i == 0 ? d->mp : d->mp_socket[i - 1];

		if (mp == NULL || (i > 0 && mp == d->mp))
			continue;
		mbufs += mp->size;
		other += (uint64_t)mp->cache_size * rte_lcore_count();
	}
	for (i = 0; i < d->n_ports; i++)
		if (d->port[i].dp.is_ethdev)
			other += (uint64_t)d->port[i].dp.nb_rxq * d->conf.rx_desc +
				 (uint64_t)d->port[i].dp.nb_txq * d->conf.tx_desc;
	if (mbufs != 0 && mbufs_cover(verdict, sizeof(verdict), mbufs, queues, other))
		DCNFWD_LOG(NOTICE, "%s\n", verdict);
}

/* The NUMA node a node's queues go on: where most of its ports are
 * (dcn_port_numa.h). */
static int
node_socket(const struct dcnfwd *d, const struct dcnfwd_node *n)
{
	int sock[DCN_FWD_MAX_PORTS];
	unsigned int l;

	for (l = 0; l < n->n_ports; l++)
		sock[l] = d->port[n->port[l]].socket;
	return dcn_numa_node_home(sock, n->n_ports, (int)rte_socket_id());
}

/*
 * A relay's input counts kept in its runtime directory, which outlives a
 * kill -9 (EAL keeps it; "dcn-fabric down" and the unit's clean-up remove
 * it): its next start speaks the dead one's last word first, so that the
 * neighbours count exactly what was lost with it (lib/fc/README.md, "A
 * peer killed, counted"). Emulated nodes die together: none there. Without
 * the file the relay runs as before, its neighbours' count a bound.
 */
static void
keep_ledger(struct dcnfwd_node *n)
{
	char path[PATH_MAX];
	int words;

	snprintf(path, sizeof(path), "%s/fc-ledger.%u", rte_eal_get_runtime_dir(),
		 n->vertex);
	words = dcn_fc_ledger_attach(n->fcdp, path);
	if (words < 0)
		DCNFWD_LOG(WARNING, "node %s: %s: %s: frames lost at a kill are "
			   "counted to a bound\n", n->name, path, strerror(-words));
	else if (words > 0 || n->fc->lost_queued_at_restart > 0 ||
		 n->fc->in_doubt_at_restart > 0)
		DCNFWD_LOG(NOTICE, "node %s: the last incarnation's counts found "
			   "(%s): its last word goes first on %d links; %lu frames it "
			   "had queued for output were lost with it; %lu it was "
			   "sending when killed are counted lost until their ports' peers "
			   "say which arrived\n",
			   n->name, path, words,
			   (unsigned long)n->fc->lost_queued_at_restart,
			   (unsigned long)n->fc->in_doubt_at_restart);
}

/* Flow-control queues of every node, in memzones "dcn_fc.<node index>",
 * and the data path the node's workers share. */
int
dcnfwd_setup_fc(struct dcnfwd *d)
{
	uint64_t queues = 0;
	unsigned int i, l;

	if (!d->fc_on)
		return 0;
	if (dcn_fc_mbuf_register() != 0) {
		DCNFWD_LOG(CRIT, "cannot register the mbuf field of flow "
			"control: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];
		uint8_t kind[DCN_FWD_MAX_PORTS];
		uint16_t links[DCN_FWD_MAX_PORTS];
		int16_t fport[DCN_FWD_MAX_PORTS];
		const char *names[DCN_FWD_MAX_PORTS];
		struct dcn_fc_conf fcc = d->fcc;
		int behind_switch = 0;
		char id[16];

		fcc.stagers = stagers(dcnfwd_workers_planned(d));

		/* A lane for each RX queue of its busiest port. */
		fcc.n_lanes = 1;
		for (l = 0; l < n->n_ports; l++) {
			const struct dcnfwd_port *p = &d->port[n->port[l]];

			fcc.n_lanes = RTE_MAX(fcc.n_lanes, (unsigned int)p->dp.nb_rxq);
			kind[l] = (uint8_t)dcn_fc_topo_port_kind(d->t, n->vertex, p->fabric_port,
						     p->is_host, p->no_credits);
			fport[l] = (int16_t)p->fabric_port;
			links[l] = kind[l] == DCN_FC_PORT_SWITCH ?
					   (uint16_t)dcn_fwd_nbrs_on_port(&n->nbrs,
									  (uint16_t)p->fabric_port) :
					   1;
			names[l] = p->name;
			if (links[l] == 0) {
				kind[l] = DCN_FC_PORT_NOCREDIT;
				links[l] = 1;
			}
			behind_switch |= kind[l] == DCN_FC_PORT_SWITCH;
		}
		fcc.in_queue = dcnfwd_fc_in_queue(d->fcc.in_queue, d->emulate != NULL,
						  behind_switch);
		/* dcn_fc_node_create refuses it too, without naming the port. */
		for (l = 0; l < n->n_ports; l++)
			if (fcc.in_queue / links[l] < 2) {
				DCNFWD_LOG(CRIT, "node %s port %s: %u neighbours "
					"behind its switch share an input queue of %u "
					"frames: each needs 2 at least (raise "
					"input_queue, --in-queue)\n",
					n->name, names[l], links[l], fcc.in_queue);
				return -EINVAL;
			}
		fcc.socket1 = (unsigned int)node_socket(d, n) + 1;
		queues += dcn_fc_frames_max(&fcc, n->n_ports, kind, links);
		snprintf(id, sizeof(id), "%u", i);
		n->fc = dcn_fc_node_create(id, n->vertex, n->n_ports, kind, links,
					   names, &fcc);
		if (n->fc == NULL) {
			DCNFWD_LOG(CRIT, "node %s: cannot make its flow-control "
				"queues: %s%s\n", n->name, rte_strerror(rte_errno),
				rte_errno == ENOSPC ? " (too many links times VCs: at most "
				RTE_STR(DCN_FC_MAX_LINKS) " links and "
				RTE_STR(DCN_FC_MAX_CHANS) " channels a node)" :
				rte_errno == ENOMEM ? " (every node of the fabric takes "
				"its own: give EAL more memory, -m, or lower input_queue "
				"and output_queue)" :
				rte_errno == EMFILE ? " (a memzone each node: more nodes "
				"than DPDK's RTE_MAX_MEMZONE allows)" : "");
			return rte_errno == ENOSPC ? -EINVAL : -ENOMEM;
		}
		snprintf(n->fc->name, sizeof(n->fc->name), "%s", n->name);
		n->fcdp = rte_zmalloc("dcn_fc_dp", sizeof(*n->fcdp), RTE_CACHE_LINE_SIZE);
		if (n->fcdp == NULL ||
		    dcn_fc_dp_init(n->fcdp, n->fc, d->ctl_mp, d->ethertype, d->burst,
				   dcnfwd_fc_credit_batch(d->credit_batch, fcc.in_queue,
							  fcc.reserve_pct),
				   d->credit_refresh_tsc) != 0)
			return -ENOMEM;
		if (dcn_fc_dp_bind_nbrs(n->fcdp, &n->nbrs, d->t, fport) != 0) {
			DCNFWD_LOG(CRIT, "node %s: its switch ports' neighbours "
				"do not match its flow-control links\n", n->name);
			return -EINVAL;
		}
		DCNFWD_LOG(DEBUG, "node %s: flow control: %u channels (%u VCs), "
			   "input queues of %u frames, output queues of %u\n",
			   n->name, n->fc->n_chans, n->fc->n_vcs, fcc.in_queue,
			   n->fc->chan[0].out_admit);
		n->fcdp->credit_drop_ppm = (uint32_t)(d->credit_drop * 10000);
		n->fcdp->auth = d->auth;
		n->fcdp->auth_epoch = d->epoch;
		if (d->conf_file != NULL)
			keep_ledger(n);
	}
	/* An emulation's one pool is sized for all its nodes (emu_fabric.c). */
	if (d->emulate == NULL)
		mbufs_check(d, queues);
	return 0;
}
