/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_SIM_FABRIC_H
#define DCN_SIM_FABRIC_H

/*
 * The fabric dcn-sim runs, in C over the relays' own libraries: every
 * routing vertex a lib/fwd context on its lib/route compiled table (its
 * route cache on), every L2 switch a table of the relays' MACs behind
 * its ports, and every server a source and sink of IPv4 frames. Frames
 * are mbufs (EAL runs in-process, --no-huge --no-pci); dcn_sim.cc moves
 * them between vertices in simulated time and calls sim_arrive at each.
 * Nothing here reads a clock: the data path's (dcn_fwd_set_clock) is the
 * simulated time each call is given.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct sim_fabric;

/* The port a server's own frames enter and leave its relay by (not a
 * topology port). */
#define SIM_PORT_HOST 0xffffu

enum sim_kind {
	SIM_RELAY,   /* routes (a server relay, a Diamond switch) */
	SIM_SWITCH,  /* an L2 switch between relays */
	SIM_HOST,    /* a server that does not route (Diamond's, BCube's) */
};

/* Where a frame goes after a vertex has handled it. */
struct sim_out {
	uint16_t port;          /* topology port, or SIM_PORT_HOST: delivered */
	struct rte_mbuf *m;
};

/* What the simulator stamps in a frame's UDP payload and reads back. */
struct sim_stamp {
	uint64_t sent_ps;       /* simulated time it left its source */
	uint32_t flow;          /* source-destination pair's index */
	uint32_t seq;           /* of the flow */
	uint16_t hops;          /* links crossed so far */
};

/* Flow control as the relays keep it (lib/fc): the slots of a port's
 * input queue (shared by its links behind a switch), what an output
 * queue admits, the reserve, the credit batch and refresh. */
struct sim_fc_conf {
	unsigned int in_queue;
	unsigned int out_queue;
	unsigned int reserve_pct;
	unsigned int credit_batch;
	double credit_refresh_us;
	unsigned int tx_ring;      /* a port's TX descriptors (frames) */
};

/* The fabric of spec, with the cables fail_links names down from the
 * start (dcn-topo's --fail-links syntax; NULL: none) and known to every
 * relay, carrying IPv4 packets of at most mtu bytes; with flow control
 * as fc says (NULL: none, a relay's output a FIFO of the caller's). EAL
 * must be running. NULL with err set on a bad spec or no memory. */
struct sim_fabric *sim_fabric_create(const char *spec, const char *fail_links,
				     unsigned int mtu, const struct sim_fc_conf *fc,
				     char *err, size_t errlen);
void sim_fabric_free(struct sim_fabric *f);
/* Memory (MB) EAL should give the fabric sim_fabric_create makes of
 * these; 0 for a bad spec (sim_fabric_create says why). Needs no EAL. */
unsigned int sim_memory_mb(const char *spec, unsigned int mtu, const struct sim_fc_conf *fc);

const char *sim_fabric_spec(const struct sim_fabric *f);
uint32_t sim_vertices(const struct sim_fabric *f);
enum sim_kind sim_vertex_kind(const struct sim_fabric *f, uint32_t v);
unsigned int sim_vertex_ports(const struct sim_fabric *f, uint32_t v);
/* The name dcn-topo gives vertex v. */
const char *sim_vertex_name(const struct sim_fabric *f, uint32_t v);
/* The vertex at the other end of (v, port), its port in *peer_port; -1:
 * none, or the cable is down. */
int64_t sim_port_peer(const struct sim_fabric *f, uint32_t v, uint16_t port,
		      uint16_t *peer_port);

/* Servers: the traffic's ends, 0 .. sim_servers() - 1. */
uint32_t sim_servers(const struct sim_fabric *f);
uint32_t sim_server_vertex(const struct sim_fabric *f, uint32_t s);

/* A frame of len bytes on the wire (Ethernet to the end of the UDP
 * payload) from server src to server dst, its flow UDP source port sport
 * (as dcn-gen's), stamped with st; NULL: no mbuf. */
struct rte_mbuf *sim_frame(struct sim_fabric *f, uint32_t src, uint32_t dst,
			   uint16_t len, uint16_t sport, const struct sim_stamp *st);
/* The stamp of a delivered frame; 0, or -1 when it carries none. */
int sim_frame_stamp(const struct rte_mbuf *m, struct sim_stamp *st);
/* One more link crossed. */
void sim_frame_hop(struct rte_mbuf *m);
uint32_t sim_frame_len(const struct rte_mbuf *m);
/* Its bytes, as on the wire (one segment). */
const uint8_t *sim_frame_data(const struct rte_mbuf *m);
/* The vertex of name (dcn-topo's notation), or -1. */
int64_t sim_vertex_by_name(const struct sim_fabric *f, const char *name);
void sim_frame_free(struct rte_mbuf *m);

/* The most entries sim_arrive and sim_tick write. */
#define SIM_OUT_MAX 256

/* Frame m reaches vertex v on port in (SIM_PORT_HOST: from v's own
 * server) at simulated time now_ps. Where frames go next is written to
 * out: without flow control the one frame's way (a step forwards each
 * frame once); with it, the frames the relay delivered to its server,
 * while what it sends on its ports waits in their TX rings
 * (sim_port_pull). @return entries written. */
unsigned int sim_arrive(struct sim_fabric *f, uint32_t v, uint16_t in,
			struct rte_mbuf *m, uint64_t now_ps, struct sim_out *out);

/* With flow control: does relay v send from TX rings (sim_port_pull)? */
int sim_queued_relay(const struct sim_fabric *f, uint32_t v);
/* A pass of relay v's loop with no new frame (credits announced when due,
 * queues served): the frames it delivered, in out. */
unsigned int sim_tick(struct sim_fabric *f, uint32_t v, uint64_t now_ps,
		      struct sim_out *out);
/* The next frame relay v puts on the wire of port (its TX ring's head,
 * after a send step when the ring is empty), or NULL. */
struct rte_mbuf *sim_port_pull(struct sim_fabric *f, uint32_t v, uint16_t port,
			       uint64_t now_ps);
/* Frames waiting in the TX ring of relay v's port. */
unsigned int sim_port_waiting(const struct sim_fabric *f, uint32_t v, uint16_t port);
/* Flow control's counts over every relay. */
struct sim_fc_totals {
	uint64_t refused;        /* at ingress, by a full input queue (a host port's) */
	uint64_t stalls;         /* sends that found no credit */
	uint64_t credit_frames;  /* sent */
};
void sim_fc_totals(const struct sim_fabric *f, struct sim_fc_totals *tot);

/* Frames dropped by the relays' steps under reason r (lib/fabric's
 * dcn_drop_reason, 1 .. sim_drop_reasons() - 1) and its name; and by L2
 * switches for an unknown destination. */
unsigned int sim_drop_reasons(void);
uint64_t sim_drops(const struct sim_fabric *f, unsigned int r);
const char *sim_drop_name(unsigned int r);
uint64_t sim_switch_drops(const struct sim_fabric *f);

#ifdef __cplusplus
}
#endif

#endif /* DCN_SIM_FABRIC_H */
