/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_H
#define DCNFWD_H

/*
 * dcnfwd's process: nodes (one for a real appliance; every node of a small
 * instance in emulation), their ports, the workers that poll them, and the
 * control thread on the main lcore. This header is the model only: the
 * structures every layer reads. Each .c file has its own header for what
 * it does; they call downward only:
 *
 *   main.c, options.c          the command line, launch, the run
 *   check_config.c             --check-config
 *   hugepages.c                before EAL: waiting for pages, their figures
 *   emu_run.c, emu_unplug.c    an emulated fabric's run (--emulate)
 *   emu_fabric.c               building the emulated fabric: ring cables,
 *                              L2 switches, hosts
 *   emu_hosts.c                the emulated hosts' senders and sinks
 *   telemetry.c, report.c      read-only views
 *   control.c                  the control thread: hellos, ARP, its tick
 *   hello_auth.c               hellos under a fabric key: echoes, freshness
 *   tick.c                     the control tick: what ages, what is due
 *   failover.c                 link states to tables
 *   lsa.c, links.c, nbrs.c     announcements; carrier and link events;
 *                              neighbours behind switch ports
 *   worker.c                   the worker loop (lib/fwd, lib/fc)
 *   setup.c, pools.c, xdp.c    ports, queues, nodes, workers; mbuf pools
 *   fib.c                      a node's table published (RCU), retired
 *   stats.c, events.c, ctl_io.c  counters, the event ring, control frames
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "dcn_auth.h"
#include "dcn_conf.h"
#include "dcn_fc.h"
#include "dcn_port_rss.h"
#include "dcn_fc_dp.h"
#include "dcn_fwd.h"
#include "dcn_gen.h"
#include "dcn_link.h"
#include "dcn_port_numa.h"
#include "dcn_port.h"
#include "dcn_route.h"
#include "dcn_topo.h"
#include "log.h"
#ifdef DCN_HAVE_XDP
#include "dcn_xdp.h"
#endif


#define DCNFWD_MAX_WORKERS 16
#define DCNFWD_MAX_BURST DCN_FC_BURST_MAX
#define DCNFWD_MAX_SW_MACS 256
/* An idle worker polls on this long before its first sleep: about what
 * a thousand empty polls of a NIC or memif port take, so a short gap
 * between bursts costs no wake-up. */
#define DCNFWD_IDLE_SPIN_US 50

enum dcnfwd_owner {
	OWNER_NODE = 0, /* a port of a routing node */
	OWNER_SWITCH,   /* a port of an emulated L2 switch */
	OWNER_HOST,     /* an emulated host's NIC (generator and sink) */
};

/* The MAC a neighbour's hellos come from, and when it last spoke
 * (control thread only). */
struct dcnfwd_mac_guard {
	uint64_t mac;            /* in its first 6 bytes; 0: none yet */
	uint64_t seen_tsc;
	/* with a fabric key: its incarnation as proven, and what it last
	 * said, echoed in our hellos (lib/auth) */
	struct dcn_auth_peer auth;
	uint32_t heard_addr;     /* its fabric address, for the echo */
};

enum dcnfwd_carrier_src {
	CARRIER_NONE = 0,   /* nothing reports carrier: hellos only */
	CARRIER_ETHDEV,     /* PMD link status (events, or polled) */
	CARRIER_NETLINK,    /* kernel interface (af_xdp, af_packet, tap) */
	CARRIER_EMULATED,   /* emulated cable */
};

struct dcnfwd_port {
	struct dcn_port dp;      /* how the data path sends and receives */
	char name[96];
	char dev[DCN_CONF_DEV_LEN]; /* ethdev: its devargs as configured */
	enum dcnfwd_owner owner;
	uint32_t owner_idx;      /* node, switch or host index */
	uint16_t local;          /* port index within its owner */
	int16_t fabric_port;     /* the owner's topology port, -1: host port */
	uint8_t is_host;         /* plain IPv4 (host, or Diamond server port) */
	uint8_t no_hellos;       /* faces a tester: carrier alone says up */
	uint8_t no_credits;      /* faces a tester: no external credits */
	struct rte_ring *ctl_tx; /* frames from the control thread */
	uint32_t ctl_worker;     /* the worker that drains ctl_tx */
	struct rte_ether_addr mac;
	/* hello state of a fabric port (control thread only) */
	uint64_t hello_rx, hello_refused;
	uint32_t peer_vertex;    /* last accepted neighbour, UINT32_MAX: none */
	uint64_t peer_seen_tsc;
	struct dcnfwd_mac_guard peer_guard; /* a cable's neighbour */
	uint64_t hello_mac_refused; /* hellos from another MAC than a live
				     * neighbour's */
	uint64_t peer_mac_changes;  /* a neighbour's MAC taken anew */
	/* with a fabric key: hellos and announcements refused, by
	 * enum dcn_auth_result (control thread; replays: hellos only,
	 * announcements' are the node's lsa_replayed) */
	uint64_t auth_refused[DCN_AUTH_REPLAYED + 1];
	/* with a fabric key: hellos of a neighbour's new incarnation that
	 * did not yet echo one of our latest (a restart's first, or a
	 * recording), and when we last answered one with a hello at once */
	uint64_t hello_unproven;
	uint64_t unproven_answered_tsc;
	/* flow control: the worker that serves this port's queues */
	uint32_t fc_owner;       /* worker index, UINT32_MAX: none */
	/* failover (control thread; dp.link_down and dp.cut are read by
	 * workers) */
	struct dcn_link link;
	uint8_t carrier_src;     /* enum dcnfwd_carrier_src */
	volatile uint8_t lsc_pending; /* the PMD raised a link event */
	uint8_t lsc_intr;        /* its PMD raises them (intr_conf.lsc) */
	int ifindex;             /* kernel interface behind the PMD, 0: none */
	/* frames the kernel dropped on their way out of that interface
	 * since dcnfwd started (control thread; read by telemetry) */
	uint64_t kernel_tx_base, kernel_tx_dropped;
	uint8_t kernel_tx_known;
	/* frames the PMD missed on receive (imissed) since dcnfwd started,
	 * and for net_af_packet those its sockets dropped, which that PMD
	 * does not report (packet_missed: their running total) */
	uint8_t missed_known;
	uint8_t is_af_packet;
	/* its NUMA node (-1: the device does not say), and the pool its
	 * RX queues fill from: its node's (dcn_port_numa.h) */
	int socket;
	struct rte_mempool *rx_mp;
	uint64_t missed_base, packet_missed, rx_missed;
	/* bytes the device received and sent (its own count, control frames
	 * and all; 0 where a PMD keeps none), as of the last poll */
	uint64_t rx_bytes, tx_bytes;
	int32_t cable_peer;      /* emulation: the other end, -1: none */
	/* emulation with lanes: how its NIC spreads frames over its RX
	 * queues (the senders into it point here) */
	struct dcn_port_spread rx_spread;
	uint16_t rx_reta[DCN_PORT_RSS_RETA_DEFAULT];
	uint64_t rx_seen;        /* rx counter at the last liveness check */
	uint8_t mismatch_said;   /* encap_mismatch logged (udp) */
	/* control thread: when every queue of the port was last emptied by
	 * its poller (us; 0: not yet), taken before the control ring is
	 * read; its link went down for silence and no frame has come since
	 * (one that comes within a silence's time counts in silence_heard:
	 * hellos late, not missing) */
	uint64_t read_us;
	uint8_t silence_unheard;
	uint64_t silence_heard;
	/* net_af_xdp: dcnfwd's XDP program on the interface (control only) */
	uint8_t has_xdp;
	/* net_af_xdp: mbufs its fill ring took at start; the PMD keeps them
	 * at close (22.11 frees its umem without giving them back), so the
	 * exit check does not count them as leaked. */
	unsigned int pmd_kept_mbufs;
	uint64_t arp_replies;    /* host port: answered for fabric addresses */
	uint8_t host_mac_known;  /* host port: the host's MAC was learnt */
#ifdef DCN_HAVE_XDP
	struct dcn_xdp_port xdp;
#endif
};

/* A node's routing: router, the failures it knows, and its table.
 * Published by RCU (fib.c): workers read node->fib at each loop. */
struct dcnfwd_fib {
	struct dcn_fwd_table tab;     /* router, table, generation */
	struct dcn_failset *fs;       /* NULL: nothing known down */
	uint8_t own_router;           /* tab.r is this fib's (else d->r) */
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

struct dcnfwd_node {
	uint32_t vertex;
	uint32_t addr;
	char name[DCN_TOPO_NAME_LEN];
	struct dcn_fwd_nbrs nbrs;
	uint16_t n_ports;
	uint32_t port[DCN_FWD_MAX_PORTS]; /* local index -> global port */
	struct rte_ether_addr mac[DCN_FWD_MAX_PORTS];
	int host_local;                  /* local index of the host port, -1 */
	uint32_t hello_seq;
	struct dcn_fc_node *fc;          /* flow-control state; NULL: off */
	struct dcn_fc_dp *fcdp;          /* its data path */
	/* failover */
	struct dcnfwd_fib *fib;          /* current routing (RCU) */
	struct dcn_link *nbr_link;       /* per nbrs slot: neighbour liveness */
	uint16_t *nbr_vport;             /* per nbrs slot: its port on the switch */
	uint64_t *nbr_mac;               /* per nbrs slot: MAC of its last hello */
	struct dcnfwd_mac_guard *nbr_guard; /* per nbrs slot */
	struct dcn_link_db *lsdb;        /* others' announcements */
	uint32_t lsa_seq;
	uint8_t dirty;                   /* knowledge changed: recompile */
	uint8_t mismatch_said;           /* encap_mismatch logged (ether) */
	uint8_t lsa_due;                 /* own state changed: announce */
	uint8_t lsa_tail;                /* refreshes left after recovery */
	uint64_t lsa_refresh_tsc;
	uint64_t lsa_tx, lsa_rx, lsa_relayed, lsa_dup, lsa_refused;
	uint64_t lsa_contradicted;       /* refused: own hellos say otherwise */
	uint64_t lsa_aged;               /* forgotten, not repeated in time */
	uint64_t lsa_replayed;           /* fabric key: signed, heard before */
	uint64_t lsa_age_tsc;            /* next ageing walk */
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

/* A share of an emulated host's sending: the flows its node's NIC
 * spreads to the RX queues one worker polls, sent by that worker. */
struct dcnfwd_host_gen {
	struct dcn_gen gen;
	int ready;               /* set up: it has flows to send */
} __rte_cache_aligned;

/* What one RX queue of an emulated host's NIC received. */
struct dcnfwd_host_sink {
	struct dcn_gen_sink sink;
} __rte_cache_aligned;

/*
 * An emulated host on one port. It sends from every worker that polls
 * a queue its frames land in, each worker the flows of its own queues,
 * and receives on each RX queue of its NIC (one, or --lanes), so that
 * with a lane a worker a flow stays on one core from its sender to its
 * sink (emu_fabric.c, emu_spread), as on servers that pin queue q to one
 * core: the emulation's hosts cost its workers no core-to-core traffic
 * that the relays they stand beside would not have.
 */
struct dcnfwd_host {
	uint32_t vertex;         /* the server it stands for */
	uint32_t addr;
	uint32_t port;           /* global port */
	struct dcnfwd_host_gen *gen; /* one a worker */
	uint8_t *queue_of;       /* by destination: the RX queue of its
				  * node's NIC its frames land in */
	int gen_on;              /* workers send while set */
	int gen_ready;           /* some share set up: this host sends */
	struct dcnfwd_host_sink *sink; /* one an RX queue of its port */
	unsigned int n_sinks;
};

struct dcnfwd_port_stats {
	uint64_t rx, tx, tx_drop;
	uint64_t ctl_tx_drop;    /* the control thread's frames the port
				  * refused: not frames of the fabric */
	uint64_t in_drop;        /* input queue full (flow control on) */
	uint64_t down_drop;      /* queued for a link that went down */
	uint64_t nbr_drop;       /* data from or to no neighbour behind a
				  * switch port (flow control on) */
};

struct dcnfwd_txbuf {
	uint16_t n;
	uint16_t listed;         /* on the worker's dirty list */
	struct rte_mbuf *m[DCNFWD_MAX_BURST];
};

struct dcnfwd_worker;

/* What a worker does with a burst from RX queue queue of port pi. */
typedef void (*dcnfwd_rx_fn)(struct dcnfwd_worker *w, uint32_t pi, uint16_t queue,
			     struct rte_mbuf **m, uint16_t n, uint64_t now);

struct dcnfwd_rxq {
	uint32_t port;
	uint16_t queue;
	dcnfwd_rx_fn rx;
	/* Flow control on a host port: this queue's input channel. No more
	 * is read than it has room for (worker.c). */
	const struct dcn_fc_chan *host_in;
};

/* A worker's share of one node: its forwarding context (its table
 * refreshed every loop), and its binding to the node's flow control. */
struct dcnfwd_wnode {
	struct dcn_fwd_ctx *fwd;
	struct dcn_fc_wnode fc;          /* fc.dp NULL: flow control off */
} __rte_cache_aligned;

struct dcnfwd_worker {
	struct dcnfwd *d;
	unsigned int lcore;
	unsigned int idx;
	unsigned int n_rx;
	struct dcnfwd_rxq *rx;
	/* per rx[] entry: when this worker last emptied that queue (TSC;
	 * 0: not yet), after handing on what it read. Silence on a port
	 * counts only up to then (dcn_link_tick_read). */
	uint64_t *rx_read_tsc;
	struct dcnfwd_wnode **node;       /* per node; NULL: not served */
	uint32_t *served;                 /* nodes it serves */
	unsigned int n_served;
	struct dcnfwd_port_stats *pst;    /* per global port */
	struct dcnfwd_txbuf *txb;         /* per global port */
	uint32_t *ctl_ports;              /* ports whose ctl_tx it drains */
	unsigned int n_ctl_ports;
	uint64_t ctl_drained;             /* ctl_posted when it last drained */
	uint8_t ctl_more;                 /* a ring had more than a burst */
	uint32_t *dirty;                  /* ports with frames in txb */
	unsigned int n_dirty;
	/* flow control: node ports whose output queues and credits this
	 * worker serves (it also sends their control frames), and the
	 * lanes (a node port's RX queue) whose input queues it routes */
	uint32_t *fc_ports;
	unsigned int n_fc_ports;
	/* node ports it sends its own routed frames on, not their owner */
	uint32_t *fc_sends;
	unsigned int n_fc_sends;
	struct dcnfwd_fc_lane {
		uint32_t port;
		uint16_t lane;
	} *fc_lanes;
	unsigned int n_fc_lanes;
	/* the same, as the loop reads them (built when set-up is done): the
	 * lanes, then the ports, then the sends, each with its node's
	 * context and the flag its step looks at first, so that a pass over
	 * idle ports costs a load or two each */
	struct dcnfwd_fc_slot {
		struct dcn_fc_wnode *x;
		const uint32_t *waiting;           /* route or send flag */
		const struct dcn_fc_dp_port *port; /* ports: announce look */
		uint16_t local, lane;
	} *fc_slot;
	struct dcn_fc_worker fcw;
	/* once a loop, after the bursts (emulation: hosts that send) */
	unsigned int (*tick)(struct dcnfwd_worker *w, uint64_t now);
	uint32_t *hosts;                  /* emulated hosts it sends for */
	unsigned int n_hosts;
	uint64_t sw_forwarded, sw_flooded;
	/* an emulated switch's frames lost inside it: runts, and flood
	 * copies no mbuf was left for */
	uint64_t sw_dropped;
	uint64_t ctl_drop;                /* control ring full */
	uint64_t fc_stray;                /* data frame off flow control: a bug */
	uint64_t idle_sleeps;
	uint64_t idle_sleep_us;           /* the sleeps' lengths asked, summed */
	uint64_t loops;
	uint64_t busy_loops;              /* loops that moved frames */
	uint64_t busy_tsc;                /* TSC cycles those took */
	/* control thread: loops at its last tick (a worker that stops looping
	 * was not scheduled, and its ports' silence is not the neighbours').
	 * A line of its own: written every tick, it must not take from the
	 * worker the line of the counters it writes every loop. */
	uint64_t loops_seen __rte_cache_aligned;
	uint64_t loops_seen_us;           /* when loops_seen last moved */
	/* control thread: frames it has put on the ctl_tx of ports this
	 * worker drains (a line of its own: the worker reads it every loop
	 * instead of polling each ring) */
	uint64_t ctl_posted __rte_cache_aligned;
} __rte_cache_aligned;

/* Emulation's run options (--emulate). */
enum dcnfwd_unplug_mode { UNPLUG_CARRIER = 0, UNPLUG_SILENT, UNPLUG_KILL };

struct dcnfwd_emu_opts {
	double rate;                  /* frames a second per host */
	unsigned int size;            /* frame bytes */
	const char *pattern;          /* uniform, permutation, all-to-one */
	unsigned int pairs;           /* trace pairs instead of traffic */
	unsigned int senders;         /* hosts that send; 0: all */
	double link_rate;             /* emulated cables, frames/s; 0: any */
	unsigned int switch_buffer;   /* an emulated switch port's egress
				       * buffer, frames */
	double wire_loss;             /* % of frames lost on fabric cables */
	unsigned int lanes;           /* RX queues of every node port */
	const char *unplug;           /* what to pull */
	int unplug_mode;              /* enum dcnfwd_unplug_mode */
	double unplug_at, replug_at;
	int replug_set;
	unsigned int flaps;
};

struct dcnfwd {
	/* run options */
	const char *conf_file;
	const char *emulate;
	int json;
	double duration;
	double stats_interval;
	const char *xdp_prog;               /* net_af_xdp: NULL default, "none" */
	double credit_drop;                 /* testing: % of credit frames lost */
	struct dcnfwd_emu_opts emu;
	/* the configuration, file and overrides (defaults when emulating) */
	struct dcn_conf conf;
	/* what was built */
	struct dcn_topo *t;
	struct dcn_router *r;
	struct dcn_route_conf rconf;
	unsigned int burst;
	unsigned int route_cache;           /* entries per context, 0: none */
	uint16_t ethertype;
	int per_packet;
	int backoff;
	unsigned int hello_interval_ms;
	uint32_t topo_hash;
	struct rte_mempool *mp;
	/* control frames' own (hellos, announcements, ARP, credits): data
	 * frames held in queues cannot starve them */
	struct rte_mempool *ctl_mp;
	/* the ports' pools by NUMA node (mp among them: the main lcore's) */
	struct rte_mempool *mp_socket[DCN_NUMA_MAX];
	uint64_t ctl_no_mbuf;               /* control frames not made */
	uint64_t ctl_ring_full;             /* not handed to a port's ctl_tx */
	uint64_t hellos_held;               /* not made: the last still queued */
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
	uint64_t idle_spin_tsc;             /* DCNFWD_IDLE_SPIN_US */
	unsigned int idle_sleep_us;         /* an idle worker's longest sleep */
	volatile int quit;                  /* set by a signal or the run */
	/* flow control */
	int fc_on;
	unsigned int fc_senders;          /* senders a port at most; 0: lanes */
	struct dcn_fc_conf fcc;
	unsigned int credit_batch;          /* announce after this many freed */
	uint64_t credit_refresh_tsc;        /* and at least this often */
	/* failover */
	struct dcn_link_conf lconf;
	unsigned int lsa_hops;              /* from the paper's routing */
	uint32_t epoch;                     /* this process's incarnation */
	struct dcn_auth *auth;              /* the fabric key; NULL: none */
	struct rte_rcu_qsbr *rcu;
	struct rte_rcu_qsbr_dq *fib_dq;     /* replaced tables (fib.c) */
	int nl_fd;                          /* rtnetlink, -1: none */
	uint64_t next_carrier_poll;
	uint64_t next_kernel_poll;          /* tsc: kernel drop counters */
	uint64_t last_tick_us;              /* the control thread's last tick */
	uint64_t next_hello;                /* tsc: the next round of hellos */
	struct dcnfwd_event ev[DCNFWD_EVENTS];
	uint64_t n_ev;
	unsigned int mbufs_leaked;          /* in use when the pool was freed,
					     * less what PMDs keep by design */
	unsigned int mbufs_pmd_kept;        /* what net_af_xdp ports kept */
	uint64_t next_arp_probe;            /* tsc: host ports' MAC probes */
	unsigned int arp_probes;            /* rounds of them so far */
};

/* A routing node's port on a fabric cable or switch: it says hello, has
 * a link state, and takes control frames. */
static inline int
dcnfwd_port_is_fabric(const struct dcnfwd_port *p)
{
	return p->owner == OWNER_NODE && p->fabric_port >= 0 && !p->is_host;
}

static inline int
dcnfwd_quitting(const struct dcnfwd *d)
{
	return __atomic_load_n(&d->quit, __ATOMIC_RELAXED);
}

#endif /* DCNFWD_H */
