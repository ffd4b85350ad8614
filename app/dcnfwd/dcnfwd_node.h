/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_NODE_TYPES_H
#define DCNFWD_NODE_TYPES_H

/*
 * A routing node of the process (a relay, or in an emulation each of the
 * fabric's), its published table and its failover events; an emulated
 * L2 switch.
 */

#include "dcnfwd_port.h"

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

#endif /* DCNFWD_NODE_TYPES_H */
