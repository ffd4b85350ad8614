/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_SIM_PRIV_H
#define DCN_SIM_PRIV_H

/*
 * What sim_fabric.c (the fabric: relays, switches, servers), sim_fc.c
 * (the relays' flow control) and sim_frame.c (the servers' frames) share.
 */
#include <rte_ether.h>
#include <rte_mempool.h>

#include "dcn_fc.h"
#include "dcn_fc_dp.h"
#include "dcn_fwd.h"
#include "dcn_port.h"
#include "dcn_route.h"
#include "dcn_topo.h"
#include "sim_fabric.h"

/* Route cache entries a relay's context keeps: fewer than a relay's
 * 4096 (an entry is 384 bytes: 1.5 MB a node, 1.5 GB for a thousand),
 * still a cache that every step looks in first, as a relay's does. */
#define SIM_CACHE_ENTRIES 256u

/* A relay without a server of its own (a Diamond switch): no host port. */
#define SIM_NO_HOST UINT16_MAX

struct sim_vertex {
	enum sim_kind kind;
	uint16_t n_ports;
	uint16_t host_local;      /* a relay's host port, its fwd index;
				   * SIM_NO_HOST */
	/* each port's cable: the vertex at its other end (-1: none), that
	 * end's port, and whether it is down (--fail-links), looked up
	 * once: the wire asks at every frame */
	int64_t *peer;
	uint16_t *peer_port;
	uint8_t *down;
	char name[DCN_TOPO_NAME_LEN];
	struct dcn_fwd_ctx *fwd;  /* relays */
	struct dcn_rtable *tb;
	struct dcn_fwd_nbrs nbrs;
	void *cache;
	/* switches: the MAC behind each port (of the relay port there) */
	uint64_t *port_mac;
	/* flow control: the node's queues and data path, its ports (a TX
	 * ring each, drained by the simulated wire) and the one worker's
	 * binding to it */
	struct dcn_fc_node *fn;
	struct dcn_fc_dp *dp;
	struct dcn_fc_wnode *x;
	struct dcn_port *port;
	uint16_t n_local;
};

struct sim_fabric {
	struct dcn_topo *t;
	struct dcn_failset *fs;
	struct dcn_router *r;
	struct rte_mempool *mp;
	uint32_t n_vertices, n_servers;
	struct sim_vertex *v;
	uint32_t *server_vertex;
	uint64_t switch_drops;
	/* flow control (fc_on): as the relays keep it */
	int fc_on;
	struct sim_fc_conf fc;
	struct rte_mempool *ctl_mp;
	struct dcn_fc_worker w;
	uint64_t tsc_hz;
};

/* Does port of vertex v face a server that does not route (a Diamond
 * switch's port toward its server): a host port, as on a relay? */
static inline int
sim_faces_host(const struct dcn_topo *t, uint32_t v, uint16_t port)
{
	int64_t peer = dcn_topo_port_peer(t, v, port);

	return peer >= 0 && !dcn_topo_is_router(t, (uint32_t)peer) &&
	       dcn_topo_role(t, (uint32_t)peer) == DCN_ROLE_SERVER;
}

/* The MAC of (v, port): every vertex's ports their own; SIM_PORT_HOST
 * for a server's NIC. */
void sim_port_mac(struct rte_ether_addr *m, uint32_t v, uint16_t port);

/* The data path's clock: simulated time from now on (lib/fwd's
 * dcn_fwd_set_clock), at now_ps; the TSC again. */
void sim_clock_start(const struct sim_fabric *f);
void sim_at(const struct sim_fabric *f, uint64_t now_ps);
void sim_clock_stop(void);
/* Flow control's process-wide part: the credit frames' pool, the one
 * worker's scratch, the mbuf field, the clock. @return 0 or -ENOMEM. */
int sim_fc_start(struct sim_fabric *f);
void sim_fc_stop(struct sim_fabric *f);
/* Relay v's ports as lib/fc sees them (kinds, links, topology ports);
 * @return the ports. */
uint16_t sim_relay_shape(const struct dcn_topo *t, uint32_t v, const struct dcn_fwd_nbrs *nb,
			 uint8_t *kind, uint16_t *links, int16_t *fport);
void sim_relay_fc_conf(struct dcn_fc_conf *fcc, const struct sim_fc_conf *fc,
		       unsigned int vcs);
int sim_relay_fc_setup(struct sim_fabric *f, uint32_t v, char *err, size_t errlen);
void sim_relay_fc_free(struct sim_vertex *x);
/* Frame m into relay v's flow control on local port local, the clock
 * set (sim_at): the frames delivered to its server in out. */
unsigned int sim_relay_fc_arrive(struct sim_fabric *f, uint32_t v, uint16_t local,
				 struct rte_mbuf *m, struct sim_out *out);

#endif /* DCN_SIM_PRIV_H */
