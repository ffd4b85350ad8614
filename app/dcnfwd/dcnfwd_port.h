/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_PORT_TYPES_H
#define DCNFWD_PORT_TYPES_H

/*
 * A port of the process: a relay's, an emulated switch's or an emulated
 * host's NIC, its link and its counters.
 */

#include "dcnfwd_limits.h"

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

struct dcnfwd_port_stats {
	uint64_t rx, tx, tx_drop;
	uint64_t ctl_tx_drop;    /* the control thread's frames the port
				  * refused: not frames of the fabric */
	uint64_t in_drop;        /* input queue full (flow control on) */
	uint64_t down_drop;      /* queued for a link that went down */
	uint64_t nbr_drop;       /* data from or to no neighbour behind a
				  * switch port (flow control on) */
};

/* A routing node's port on a fabric cable or switch: it says hello, has
 * a link state, and takes control frames. */
static inline int
dcnfwd_port_is_fabric(const struct dcnfwd_port *p)
{
	return p->owner == OWNER_NODE && p->fabric_port >= 0 && !p->is_host;
}

#endif /* DCNFWD_PORT_TYPES_H */
