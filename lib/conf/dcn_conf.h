/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_CONF_H
#define DCN_CONF_H

/**
 * @file
 * dcnfwd configuration: an INI file read with DPDK's rte_cfgfile, checked
 * against the node's place in its topology. Every error names the file,
 * the line and the key (FILE:LINE: [section] key: reason).
 *
 *   [fabric]
 *   topology = rrect:n=4,m=2,k=1   ; the spec string
 *   node = 00                      ; this node, paper notation or address
 *   role = relay                   ; relay, or edge/core in Diamond
 *   ethertype = 0x88B5             ; fabric EtherType
 *   encap = ether                  ; wire format: ether, or udp (RSS)
 *   udp_port = 34997               ; encap = udp: its destination port
 *   hello_interval_ms = 3          ; hellos on every fabric port
 *   hello_miss = 3                 ; silent intervals: neighbour down
 *   holddown_ms = 100              ; a link back waits (doubled if it flaps)
 *   algo = default                 ; routing algorithm (dcn-topo --algo)
 *   draw = flow                    ; flow (hash) or packet (random)
 *   partial = no                   ; yes: not every cabled port configured
 *   key_file = fabric.key          ; sign and check control frames
 *
 *   [port.up0]                     ; one section a port, any name
 *   dev = net_memif0,socket=/tmp/a.sock   ; DPDK device or devargs
 *   fabric_port = 0                ; the node's port number in the topology
 *   rxq = 1                        ; queues
 *   txq = 1
 *   hellos = yes                   ; no: the peer is a tester (pktgen):
 *                                  ; none sent or expected, the link is
 *                                  ; up while its carrier is
 *   credits = yes                  ; no: the peer returns no credits
 *
 *   [port.host]
 *   dev = net_tap0,iface=dcn0
 *   host = yes                     ; plain IPv4 in and out
 *
 *   [worker.0]                     ; one section a worker lcore
 *   lcore = 1
 *   rx = up0:0, host:0             ; the port queues it polls
 *
 *   [queues]
 *   burst = 64                     ; frames a receive or send takes at most
 *   rx_desc = 1024
 *   tx_desc = 1024
 *   mbufs = 8191
 *   backoff = yes                  ; idle workers pause, then sleep
 *   idle_sleep_us = 100            ; for as long as this at most
 *   route_cache = 1024             ; decisions cached per worker, 0: none
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dcn_route.h"
#include "dcn_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DCN_CONF_MAX_PORTS 32
#define DCN_CONF_MAX_WORKERS 32
#define DCN_CONF_MAX_QUEUES 16
#define DCN_CONF_NAME_LEN 32
#define DCN_CONF_DEV_LEN 256
#define DCN_CONF_ERR_LEN 512
#define DCN_CONF_MAX_VCS 16

/** What the node is. */
enum dcn_node_role {
	DCN_NODE_RELAY = 0, /**< a server of a server-centric fabric or NovaCube */
	DCN_NODE_EDGE,      /**< a Diamond edge switch */
	DCN_NODE_CORE,      /**< a Diamond core switch */
};

/** One port. */
struct dcn_conf_port {
	char name[DCN_CONF_NAME_LEN];
	char dev[DCN_CONF_DEV_LEN];
	int host;          /**< plain IPv4: a host, or a Diamond server */
	int fabric_port;   /**< the node's port number, -1: none */
	int hellos;        /**< 0: the peer is a traffic generator: no
			    *   hellos either way (they would count as its
			    *   traffic), the link judged by its carrier */
	int credits;       /**< 0: the peer sends no credit frames: queues
			    *   without external credits on this port */
	uint16_t rxq, txq;
};

/** A (port, queue) a worker polls. */
struct dcn_conf_rxq {
	uint16_t port;     /**< index into dcn_conf.port */
	uint16_t queue;
};

/** One worker lcore. */
struct dcn_conf_worker {
	unsigned int lcore;
	unsigned int n_rx;
	struct dcn_conf_rxq rx[DCN_CONF_MAX_PORTS * DCN_CONF_MAX_QUEUES];
};

/** A loaded, checked configuration. */
struct dcn_conf {
	char file[256];
	char spec[128];            /**< canonical topology spec */
	uint32_t node;             /**< the node's vertex */
	enum dcn_node_role role;
	uint16_t ethertype;
	int encap;                 /**< enum dcn_encap */
	unsigned int udp_port;
	unsigned int hello_interval_ms;
	unsigned int hello_miss;
	unsigned int holddown_ms;
	enum dcn_route_algo algo;
	int draw_per_packet;
	int partial;
	int keyed;                 /**< a fabric key was read */
	char key_file[256];        /**< from there */
	uint8_t key[32];           /**< DCN_AUTH_KEY_LEN bytes */
	unsigned int burst, rx_desc, tx_desc, mbufs;
	int backoff;
	unsigned int idle_sleep_us; /**< an idle worker's longest sleep */
	unsigned int route_cache;  /**< entries (a power of two), 0: none */
	unsigned int n_ports;
	struct dcn_conf_port port[DCN_CONF_MAX_PORTS];
	unsigned int n_workers;
	struct dcn_conf_worker worker[DCN_CONF_MAX_WORKERS];
	/* [flow_control] */
	int fc_enabled;
	unsigned int fc_vcs;
	unsigned int fc_in_queue, fc_out_queue;
	unsigned int fc_reserve_pct;
	unsigned int fc_credit_batch;
	unsigned int fc_credit_refresh_us;
	unsigned int fc_credit_repair_ms;
	unsigned int fc_senders;   /**< senders a port at most; 0: a lane's */
};

/** How a key's value is written. */
enum dcn_conf_type {
	DCN_CONF_UINT,   /**< decimal, or hexadecimal after 0x */
	DCN_CONF_BOOL,   /**< yes/no, on/off, 1/0 */
	DCN_CONF_ENUM,   /**< one of the words in values */
	DCN_CONF_TEXT,   /**< text */
};

/** Where a key's value is stored. */
enum dcn_conf_scope {
	DCN_CONF_S_NODE,    /**< a field of struct dcn_conf */
	DCN_CONF_S_PORT,    /**< a field of struct dcn_conf_port */
	DCN_CONF_S_WORKER,  /**< a field of struct dcn_conf_worker */
	DCN_CONF_S_SPECIAL, /**< read by its own code (topology, node, rx ...) */
};

#define DCN_CONF_F_REQUIRED 1   /**< no default: the file must give it */
#define DCN_CONF_F_POW2 2       /**< a power of two (or 0) */
#define DCN_CONF_F_AUTO 4       /**< 0 (dcnfwd chooses), or min..max */

/** One configuration key. */
struct dcn_conf_key {
	const char *section;  /**< fabric, port, worker, queues, flow_control */
	const char *key;
	enum dcn_conf_type type;
	unsigned int flags;   /**< DCN_CONF_F_* */
	uint32_t min, max;    /**< UINT: range; TEXT: max length (0: any) */
	const char *values;   /**< ENUM: "a|b"; otherwise the value's name */
	const char *def;      /**< default as written in a file; NULL: none */
	int scope;            /**< enum dcn_conf_scope */
	size_t off, size;     /**< the field in its scope's struct */
	const char *option;   /**< dcnfwd --OPTION overrides it; NULL: none */
	const char *help;
};

/** Every key, in the reference's order; ends with key NULL. */
extern const struct dcn_conf_key dcn_conf_keys[];

/** @return the key of section ("port.x" is section port), or NULL. */
const struct dcn_conf_key *dcn_conf_key_find(const char *section,
					     const char *key);
/** @return the key a command-line option overrides, or NULL. */
const struct dcn_conf_key *dcn_conf_key_by_option(const char *option);

/**
 * Check a value by its key's type and range.
 * @param out  receives a UINT's number, a BOOL's 0/1, an ENUM's index
 * @param why  the reason it is refused
 * @return 0 or -EINVAL.
 */
int dcn_conf_parse_value(const struct dcn_conf_key *k, const char *v,
			 uint32_t *out, char *why, size_t len);
/** Store a checked value into base, its scope's struct. */
void dcn_conf_store(const struct dcn_conf_key *k, void *base, const char *text,
		    uint32_t v);
/** The defaults of every key of scope, into base (its struct). */
void dcn_conf_scope_defaults(int scope, void *base);
/** A configuration with every default and no file, topology or port. */
void dcn_conf_defaults(struct dcn_conf *c);
/**
 * Override key k of c with a command-line value, checked as in a file.
 * @param err  "--OPTION: reason" on failure
 * @return 0 or -EINVAL.
 */
int dcn_conf_override(struct dcn_conf *c, const struct dcn_conf_key *k,
		      const char *value, char *err, size_t errlen);
/** Print every key for --help. */
void dcn_conf_help(FILE *f);
/** Print the configuration reference (Markdown). */
void dcn_conf_reference(FILE *f);

/**
 * Load and check a configuration file.
 *
 * @param file  the INI file
 * @param c     receives the configuration
 * @param topo  receives the topology it names (the caller frees it)
 * @param err   "FILE:LINE: [section] key: reason" on failure
 * @return 0, or -EINVAL (a wrong value or a file that does not match the
 *         node's place), -ENOENT (no such file), -ENOMEM.
 */
int dcn_conf_load(const char *file, struct dcn_conf *c, struct dcn_topo **topo,
		  char *err, size_t errlen);

/** @return "relay", "edge" or "core". */
const char *dcn_conf_role_name(enum dcn_node_role r);

#ifdef __cplusplus
}
#endif

#endif /* DCN_CONF_H */
