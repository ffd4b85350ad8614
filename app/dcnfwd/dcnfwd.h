/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_H
#define DCNFWD_H

/*
 * dcnfwd's process: nodes (one for a real appliance; every node of a small
 * instance in emulation), their ports, the workers that poll them, and the
 * control thread on the main lcore. This header is the model only, the
 * process (struct dcnfwd) over its parts' types: dcnfwd_port.h,
 * dcnfwd_node.h, dcnfwd_worker.h, dcnfwd_emu.h, on dcnfwd_limits.h. Each
 * .c file has its own header for what it does; they call downward only:
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

#include "dcnfwd_emu.h"
#include "dcnfwd_node.h"
#include "dcnfwd_port.h"
#include "dcnfwd_worker.h"

/* A trace asked for (--trace, /dcn/trace): a flow and how many of its
 * frames; each worker arms its own when gen moves (trace.c). */
struct dcnfwd_trace_req {
	uint32_t src, dst;      /* host addresses */
	uint32_t frames;        /* 0: off */
	uint32_t gen;
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
	uint64_t lat_gap_tsc;               /* DCNFWD_LAT_GAP_US */
	uint64_t idle_spin_tsc;             /* DCNFWD_IDLE_SPIN_US */
	unsigned int idle_sleep_us;         /* an idle worker's longest sleep */
	volatile int quit;                  /* set by a signal or the run */
	/* flow control */
	struct dcnfwd_trace_req *trace; /* NULL before set-up */
	const char *trace_spec;  /* --trace, applied at set-up */
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

static inline int
dcnfwd_quitting(const struct dcnfwd *d)
{
	return __atomic_load_n(&d->quit, __ATOMIC_RELAXED);
}

#endif /* DCNFWD_H */
