/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_H
#define DCNFWD_H

/*
 * dcnfwd's process: nodes (one for a real appliance; every node of a small
 * instance in emulation), their ports, the workers that poll them, and the
 * control thread on the main lcore.
 *
 * A port is a DPDK ethdev (any PMD) or, in emulation, a pair of rte_rings
 * standing for a cable: the emulated fabric needs hundreds of ports and an
 * ethdev per port would run into RTE_MAX_ETHPORTS. Both kinds look the same
 * to a worker (port_rx / port_tx below).
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include "dcn_conf.h"
#include "dcn_fc.h"
#include "dcn_fwd.h"
#include "dcn_gen.h"
#include "dcn_link.h"
#include "dcn_route.h"
#include "dcn_topo.h"
#ifdef DCN_HAVE_XDP
#include "dcn_xdp.h"
#endif

extern int dcnfwd_logtype;
#define DCNFWD_LOG(level, ...) \
	rte_log(RTE_LOG_##level, dcnfwd_logtype, "dcnfwd: " __VA_ARGS__)

#define DCNFWD_MAX_WORKERS 16
#define DCNFWD_MAX_BURST 64
#define DCNFWD_MAX_SW_MACS 256
#define DCNFWD_CREDIT_REPEATS 3

enum dcnfwd_owner {
	OWNER_NODE = 0, /* a port of a routing node */
	OWNER_SWITCH,   /* a port of an emulated L2 switch */
	OWNER_HOST,     /* an emulated host's NIC (generator and sink) */
};

struct dcnfwd_port {
	char name[96];
	enum dcnfwd_owner owner;
	uint32_t owner_idx;      /* node, switch or host index */
	uint16_t local;          /* port index within its owner */
	int16_t fabric_port;     /* the owner's topology port, -1: host port */
	uint8_t is_host;         /* plain IPv4 (host, or Diamond server port) */
	uint8_t no_hellos;       /* faces a tester: carrier alone says up */
	uint8_t no_credits;      /* faces a tester: no external credits */
	uint8_t is_ethdev;
	uint16_t ethdev;
	uint16_t nb_rxq, nb_txq;
	struct rte_ring *rx_ring, *tx_ring;   /* ring ports */
	struct rte_ring *ctl_tx;              /* frames from the control thread */
	struct rte_ether_addr mac;
	/* hello state of a fabric port (control thread only) */
	uint64_t hello_rx, hello_refused;
	uint32_t peer_vertex;    /* last accepted neighbour, UINT32_MAX: none */
	uint64_t peer_seen_tsc;
	/* flow control: the worker that serves this port's queues */
	uint32_t fc_owner;       /* worker index, UINT32_MAX: none */
	/* when that worker last announced credits */
	uint64_t credit_tsc;
	unsigned int credit_repeats; /* same state announced again */
	/* emulated cable with a rate (--link-rate): the receiving end takes a
	 * frame per rl_per TSC cycles; rl_next is the link's virtual clock.
	 * Only the port's one poller touches them. */
	uint64_t rl_per;
	uint64_t rl_next;
	/* failover (control thread, but link_down and cut, which workers read) */
	struct dcn_link link;
	uint8_t carrier_src;     /* enum dcnfwd_carrier_src */
	volatile uint8_t link_down; /* the owner flushes its output queues */
	volatile uint8_t cut;    /* emulated cable cut: frames vanish */
	volatile uint8_t lsc_pending; /* the PMD raised a link event */
	int ifindex;             /* kernel interface behind the PMD, 0: none */
	int32_t cable_peer;      /* emulation: the other end, -1: none */
	uint64_t rx_seen;        /* rx counter at the last liveness check */
	/* net_af_xdp: dcnfwd's XDP program on the interface (control only) */
	uint8_t has_xdp;
	uint64_t arp_replies;    /* host port: answered for fabric addresses */
	uint8_t host_mac_known;  /* host port: the host's MAC was learnt */
#ifdef DCN_HAVE_XDP
	struct dcn_xdp_port xdp;
#endif
};

enum dcnfwd_carrier_src {
	CARRIER_NONE = 0,   /* nothing reports carrier: hellos only */
	CARRIER_ETHDEV,     /* PMD link status (events, or polled) */
	CARRIER_NETLINK,    /* kernel interface (af_xdp, af_packet, tap) */
	CARRIER_EMULATED,   /* emulated cable */
};

/* A node's routing: router, the failures it knows, and its table.
 * Published by RCU: workers read node->fib at each burst. */
struct dcnfwd_fib {
	struct dcn_router *r;
	struct dcn_failset *fs;       /* NULL: nothing known down */
	struct dcn_rtable *tb;
	uint32_t gen;
	uint8_t own_router;           /* r is this fib's (else d->r) */
	uint64_t rcu_token;           /* retired: free once workers passed it */
	struct dcnfwd_fib *next;      /* on the retired list */
};

/* A failover event, for telemetry and the benchmarks. */
struct dcnfwd_event {
	uint64_t tsc;
	uint64_t wall_us;             /* CLOCK_REALTIME */
	uint32_t node;
	int16_t local;                /* local port, -1: none */
	uint32_t vertex;              /* neighbour concerned, UINT32_MAX */
	uint8_t kind;                 /* enum dcnfwd_event_kind */
	uint8_t cause;                /* enum dcn_link_cause */
	uint32_t gen;                 /* table generation (TABLE events) */
};

enum dcnfwd_event_kind {
	EV_LINK_DOWN = 0, EV_LINK_UP, EV_NBR_DOWN, EV_NBR_UP,
	EV_TABLE, EV_LSA_IN, EV_CUT, EV_REPLUG,
};

#define DCNFWD_EVENTS 1024

enum dcnfwd_unplug_mode { UNPLUG_CARRIER = 0, UNPLUG_SILENT, UNPLUG_KILL };

struct dcnfwd_node {
	uint32_t vertex;
	uint32_t addr;
	char name[DCN_TOPO_NAME_LEN];
	struct dcn_rtable *tb;
	struct dcn_fwd_nbrs nbrs;
	uint16_t n_ports;
	uint32_t port[DCN_FWD_MAX_PORTS]; /* local index -> global port */
	struct rte_ether_addr mac[DCN_FWD_MAX_PORTS];
	int host_local;                  /* local index of the host port, -1 */
	uint32_t hello_seq;
	struct dcn_fc_node *fc;          /* flow control; NULL: off */
	/* failover */
	struct dcnfwd_fib *fib;          /* current routing (RCU) */
	struct dcn_link *nbr_link;       /* per nbrs slot: neighbour liveness */
	uint16_t *nbr_vport;             /* per nbrs slot: its port on the switch */
	uint64_t *nbr_mac;               /* per nbrs slot: MAC of its last hello */
	struct dcn_link_db *lsdb;        /* others' announcements */
	uint32_t lsa_seq;
	uint8_t dirty;                   /* knowledge changed: recompile */
	uint8_t lsa_due;                 /* own state changed: announce */
	uint8_t lsa_tail;                /* refreshes left after recovery */
	uint64_t lsa_refresh_tsc;
	uint64_t lsa_tx, lsa_rx, lsa_relayed, lsa_dup, lsa_refused;
	uint32_t n_down;                 /* links this node believes down */
};

/* An emulated learning L2 switch. */
struct dcnfwd_switch {
	uint32_t vertex;
	uint16_t n_ports;
	uint32_t *port;          /* local -> global port */
	uint32_t n_macs;
	uint64_t mac[DCNFWD_MAX_SW_MACS]; /* learnt MAC (6 bytes) ... */
	uint16_t mac_port[DCNFWD_MAX_SW_MACS]; /* ... and its local port */
};

/* An emulated host: a generator and a sink on one port. */
struct dcnfwd_host {
	uint32_t vertex;         /* the server it stands for */
	uint32_t addr;
	uint32_t port;           /* global port */
	struct dcn_gen gen;
	int gen_on;              /* worker sends while set */
	int gen_ready;           /* gen set up: this host sends */
	struct dcn_gen_sink sink;
};

struct dcnfwd_port_stats {
	uint64_t rx, tx, tx_drop;
	uint64_t in_drop;        /* input queue full (flow control on) */
	uint64_t down_drop;      /* queued for a link that went down */
};

/* Flow-control output channels a worker may stage frames for, per node. */
#define DCNFWD_FC_CHANS (DCN_FWD_MAX_PORTS * DCN_FC_MAX_VCS)

struct dcnfwd_txbuf {
	uint16_t n;
	uint16_t listed;         /* on the worker's dirty list */
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
};

struct dcnfwd_rxq {
	uint32_t port;
	uint16_t queue;
};

struct dcnfwd_worker {
	unsigned int lcore;
	unsigned int idx;
	unsigned int n_rx;
	struct dcnfwd_rxq *rx;
	struct dcn_fwd_ctx **ctx;          /* per node; NULL: not served */
	struct dcnfwd_port_stats *pst;     /* per global port */
	struct dcnfwd_txbuf *txb;          /* per global port */
	uint32_t *hosts;                   /* hosts whose port it polls */
	unsigned int n_hosts;
	uint32_t *ctl_ports;               /* ports whose ctl_tx it drains */
	unsigned int n_ctl_ports;
	uint32_t *dirty;                   /* ports with frames in txb */
	unsigned int n_dirty;
	/* flow control: node ports whose queues this worker serves (it
	 * also sends their control frames) */
	uint32_t *fc_ports;
	unsigned int n_fc_ports;
	struct rte_mbuf *(*stage)[DCNFWD_MAX_BURST]; /* per output channel */
	uint16_t (*stage_src)[DCNFWD_MAX_BURST]; /* their input channels */
	uint16_t *stage_n;
	uint64_t fc_overflow;              /* output queue refused: a bug */
	uint64_t sw_forwarded, sw_flooded;
	uint64_t ctl_drop;                 /* control ring full */
	uint64_t idle_sleeps;
	uint64_t loops;
	uint64_t busy_loops;                /* loops that moved frames */
	uint64_t busy_tsc;                  /* TSC cycles those took */
	/* control thread: loops at its last tick (a worker that stops looping
	 * was not scheduled, and its ports' silence is not the neighbours') */
	uint64_t loops_seen;
} __rte_cache_aligned;

struct dcnfwd {
	/* options */
	const char *conf_file;
	const char *emulate;
	int json;
	double duration;
	double stats_interval;
	int backoff;
	unsigned int burst;
	unsigned int route_cache;  /* entries per forwarding context, 0: none */
	/* what was built */
	struct dcn_conf conf;
	struct dcn_topo *t;
	struct dcn_router *r;
	struct dcn_route_conf rconf;
	uint16_t ethertype;
	int per_packet;
	unsigned int hello_interval_ms;
	uint32_t topo_hash;
	struct rte_mempool *mp;
	unsigned int n_nodes, n_switches, n_hosts, n_ports, max_ports;
	struct dcnfwd_node *node;
	uint32_t *node_of_vertex;           /* vertex -> node index or UINT32_MAX */
	struct dcnfwd_switch *sw;
	struct dcnfwd_host *host;
	struct dcnfwd_port *port;
	unsigned int n_workers;
	struct dcnfwd_worker *worker;
	struct rte_ring *ctl_rx;            /* control frames from workers */
	uint64_t tsc_hz;
	uint64_t drain_tsc;
	/* flow control */
	int fc_on;
	struct dcn_fc_conf fcc;
	unsigned int credit_batch;          /* announce after this many freed */
	uint64_t credit_refresh_tsc;        /* and at least this often */
	uint32_t credit_drop_ppm;           /* test: credit frames thrown away */
	double link_rate;                   /* emulated cables, frames/s; 0: any */
	unsigned int senders;               /* emulation: hosts that send; 0: all */
	/* failover */
	const char *unplug;                 /* emulation: what to pull */
	int unplug_mode;                    /* enum dcnfwd_unplug_mode */
	double unplug_at, replug_at;
	int replug_set;
	unsigned int flaps;
	struct dcn_link_conf lconf;
	unsigned int lsa_hops;              /* from the paper's routing */
	uint32_t epoch;                     /* this process's incarnation */
	struct rte_rcu_qsbr *rcu;
	struct dcnfwd_fib *retired;
	int nl_fd;                          /* rtnetlink, -1: none */
	uint64_t next_carrier_poll;
	uint64_t last_tick_us;              /* the control thread's last tick */
	struct dcnfwd_event ev[DCNFWD_EVENTS];
	uint64_t n_ev;
	unsigned int mbufs_leaked;          /* in use when the pool was freed */
	const char *xdp_prog;               /* net_af_xdp: NULL default, "none" */
	uint64_t next_arp_probe;            /* tsc: host ports' MAC probes */
	unsigned int arp_probes;            /* rounds of them so far */
};

extern volatile int dcnfwd_quit;
extern struct dcnfwd dcnfwd_g;

/* A routing node's port on a fabric cable or switch: it says hello, has
 * a link state, and takes control frames. */
static inline int
dcnfwd_port_is_fabric(const struct dcnfwd_port *p)
{
	return p->owner == OWNER_NODE && p->fabric_port >= 0 && !p->is_host;
}

/* ring or ethdev receive */
static inline uint16_t
port_rx(struct dcnfwd_port *p, uint16_t q, struct rte_mbuf **m, uint16_t n,
	uint64_t now)
{
	if (p->is_ethdev)
		return rte_eth_rx_burst(p->ethdev, q, m, n);
	if (p->rl_per) {
		/* A cable of limited rate: what the clock allows, in bursts
		 * of up to n after an idle spell. */
		uint64_t floor = now - (uint64_t)n * p->rl_per;
		uint64_t t = (int64_t)(p->rl_next - floor) > 0 ? p->rl_next : floor;
		uint64_t allow = (int64_t)(now - t) > 0 ? (now - t) / p->rl_per : 0;

		if (allow < n)
			n = (uint16_t)allow;
		if (n == 0)
			return 0;
		n = (uint16_t)rte_ring_dequeue_burst(p->rx_ring, (void **)m, n, NULL);
		p->rl_next = t + n * p->rl_per;
		return n;
	}
	return (uint16_t)rte_ring_dequeue_burst(p->rx_ring, (void **)m, n, NULL);
}

static inline uint16_t
port_tx(const struct dcnfwd_port *p, uint16_t q, struct rte_mbuf **m,
	uint16_t n)
{
	if (p->is_ethdev)
		return rte_eth_tx_burst(p->ethdev, q, m, n);
	if (unlikely(p->cut)) {
		/* A cut emulated cable: the frames leave and are lost. */
		rte_pktmbuf_free_bulk(m, n);
		return n;
	}
	return (uint16_t)rte_ring_enqueue_burst(p->tx_ring, (void **)m, n, NULL);
}

/* setup.c */
int dcnfwd_setup_from_conf(struct dcnfwd *d);
int dcnfwd_setup_fc(struct dcnfwd *d);
int dcnfwd_setup_emulation(struct dcnfwd *d, const char *spec);
int dcnfwd_setup_workers(struct dcnfwd *d);
void dcnfwd_teardown(struct dcnfwd *d);

/* worker.c */
int dcnfwd_worker_main(void *arg);
void dcnfwd_port_totals(const struct dcnfwd *d, uint32_t port,
			struct dcnfwd_port_stats *s);
/* Worker loops of all workers: all of them, those that moved frames, and
 * the TSC cycles those took. */
struct dcnfwd_loop_totals {
	uint64_t loops, busy_loops, busy_tsc;
};
void dcnfwd_loop_totals(const struct dcnfwd *d, struct dcnfwd_loop_totals *s);
/* node: one node, or DCNFWD_ALL_NODES for the sum of all */
#define DCNFWD_ALL_NODES UINT32_MAX
void dcnfwd_node_totals(const struct dcnfwd *d, uint32_t node,
			struct dcn_fwd_stats *s);
/* Data frames a node sent out of local port local, all workers. */
uint64_t dcnfwd_node_out_frames(const struct dcnfwd *d, uint32_t node,
				uint16_t local);
/* Data frames a node sent to neighbour-table slot slot, all workers. */
uint64_t dcnfwd_node_nbr_frames(const struct dcnfwd *d, uint32_t node,
				uint32_t slot);

/* Drops by where they happened. */
struct dcnfwd_drops {
	uint64_t fabric;      /* inside the fabric: ports, queues, reasons */
	uint64_t ingress;     /* host traffic refused on its way in */
	uint64_t control;     /* control frames the control ring refused */
	uint64_t credit_tx, credit_lost, stalls;
};
void dcnfwd_drop_totals(const struct dcnfwd *d, struct dcnfwd_drops *dr);

/* control.c */
void dcnfwd_control_poll(struct dcnfwd *d, uint64_t now);
void dcnfwd_send_hellos(struct dcnfwd *d);
void dcnfwd_host_arp_probe(struct dcnfwd *d, uint64_t now);
int dcnfwd_neighbours_ready(const struct dcnfwd *d);
/* A control-thread frame out of port p: len bytes (60 at least), zeroed,
 * with its Ethernet header (dst NULL: broadcast); NULL if the pool is dry. */
struct rte_mbuf *dcnfwd_ctl_frame(struct dcnfwd *d, const struct dcnfwd_port *p,
				  const struct rte_ether_addr *dst,
				  uint16_t ethertype, uint32_t len);
int dcnfwd_inject(struct dcnfwd *d, uint32_t port, struct rte_mbuf **m,
		  unsigned int n);

/* failover.c */
int dcnfwd_failover_setup(struct dcnfwd *d);
void dcnfwd_failover_teardown(struct dcnfwd *d);
void dcnfwd_failover_tick(struct dcnfwd *d, uint64_t now);
void dcnfwd_failover_hello(struct dcnfwd *d, struct dcnfwd_port *p,
			   uint32_t v, uint16_t vport,
			   const struct rte_ether_addr *mac, uint64_t now);
int dcnfwd_nbr_usable(const struct dcnfwd_node *n, uint32_t slot);
void dcnfwd_failover_lsa_rx(struct dcnfwd *d, uint32_t pi, const uint8_t *f,
			    uint32_t len);
/* Emulation: cut (1) or mend (0) the cable at port pi; with carrier set,
 * both ends see it as a PMD would, else only the frames stop. */
void dcnfwd_emu_cut(struct dcnfwd *d, uint32_t pi, int cut, int carrier);
/* Wait for a link event or timeout_us (the control loop's sleep). */
void dcnfwd_control_wait(struct dcnfwd *d, unsigned int timeout_us);
const char *dcnfwd_event_name(enum dcnfwd_event_kind k);
uint64_t dcnfwd_us_of_tsc(const struct dcnfwd *d, uint64_t tsc);

/* Worker: the node's current table in its context, taken afresh every
 * burst. Comparing pointers to skip the stores would be wrong: a new
 * table may be allocated where a freed one was, and the context would
 * keep the freed router. */
static inline struct dcn_fwd_ctx *
dcnfwd_node_ctx(struct dcn_fwd_ctx *c, const struct dcnfwd_node *n)
{
	const struct dcnfwd_fib *f = __atomic_load_n(&n->fib, __ATOMIC_ACQUIRE);

	dcn_fwd_set_table(c, f->r, f->tb);
	return c;
}

/* telemetry.c */
struct dcnfwd_tel_cmd {
	const char *name;
	int (*fn)(const char *cmd, const char *params, struct rte_tel_data *t);
	const char *params;       /* what the parameter is, "" for none */
	const char *help;
};
/* Every /dcn/ command, NULL-terminated. */
extern const struct dcnfwd_tel_cmd dcnfwd_tel_cmds[];
void dcnfwd_telemetry_register(void);
/* Answer commands from now on (the process is built), until _close
 * (before it is torn down); until then they answer an error. */
void dcnfwd_telemetry_open(struct dcnfwd *d);
void dcnfwd_telemetry_close(struct dcnfwd *d);
/* A telemetry dict key from a name: DPDK takes [A-Za-z0-9_] only. */
const char *dcnfwd_tel_key(const char *name, char *buf, size_t len);

/* xdp.c: dcnfwd's XDP program on net_af_xdp ports */
int dcnfwd_kernel_ifindex(const char *devargs);
const char *dcnfwd_xdp_devargs(const struct dcnfwd *d, const char *dev,
			       char *buf, size_t len);
void dcnfwd_xdp_port_start(struct dcnfwd *d, struct dcnfwd_port *p,
			   const char *dev);
void dcnfwd_xdp_port_stop(struct dcnfwd_port *p);
void dcnfwd_xdp_print(const struct dcnfwd *d, FILE *f);
/* Port p's XDP verdict counters into dict e; -ENOENT: it has none. */
int dcnfwd_xdp_tel_port(const struct dcnfwd_port *p, struct rte_tel_data *e);

/* emulate.c */
int dcnfwd_emulate_run(struct dcnfwd *d, unsigned int pairs, double rate,
		       unsigned int size, const char *pattern);

/* main.c */
struct live {
	uint64_t tsc;
	uint64_t rx, tx, encap, decap, transit, drops;
};
void dcnfwd_control_tick(struct dcnfwd *d, uint64_t *next_hello);
void dcnfwd_live_print(const struct dcnfwd *d, struct live *prev,
		       double elapsed);

#endif /* DCNFWD_H */
