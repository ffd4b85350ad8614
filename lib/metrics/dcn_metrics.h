/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_METRICS_H
#define DCN_METRICS_H

/**
 * @file
 * Path measures of a fabric: shortest paths by breadth-first search over
 * the cabled graph, and the routes a router actually takes, walked hop by
 * hop. Each path is measured three ways (struct dcn_path_len): links,
 * server hops and switches; each paper counts one of them
 * (dcn_metrics_paper_unit()).
 */

#include <stdint.h>

#include "dcn_route.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Units a path length is counted in. */
enum dcn_unit {
	DCN_UNIT_LINKS = 0,
	DCN_UNIT_SERVER_HOPS,
	DCN_UNIT_SWITCHES,
};

#define DCN_METRICS_HIST 64

/** Aggregate over server pairs. */
struct dcn_path_stats {
	uint64_t pairs;        /**< ordered pairs measured */
	uint64_t unreachable;  /**< pairs without a path or route */
	double mean[3];        /**< by enum dcn_unit */
	uint32_t max[3];       /**< by enum dcn_unit */
	double sd;             /**< standard deviation, paper unit */
	double se;             /**< standard error of the mean, paper unit:
				*   0 when the figures are exact */
	/** Pairs by length, paper unit: whole counts, or expectations where
	 * routes are drawn and computed exactly. */
	double hist[DCN_METRICS_HIST];
};

/** What to compute. */
struct dcn_metrics_opts {
	uint32_t sample;  /**< source servers; 0: exact when cheap (see below) */
	uint64_t seed;    /**< sampling and per-hop draws */
	unsigned int draws; /**< walks per pair for random routing; 0: auto */
	int bfs;          /**< compute shortest paths */
	int routed;       /**< walk the router's routes */
};

/** Results. */
struct dcn_metrics {
	uint32_t servers;
	uint32_t switches;
	uint64_t links;
	uint32_t sources;      /**< source servers used */
	/** 1 when every figure is exact: the sources cover every pair class,
	 * and routes drawn at random (PORA) are taken as the expectation over
	 * every draw (computed, not walked), which is done where nothing has
	 * failed; else the figures are sampled and come with se. */
	int exact;
	enum dcn_unit unit;    /**< the paper's unit */
	struct dcn_path_stats bfs;
	struct dcn_path_stats routed;
	/** Pairs of addresses (every server; in RRect standby mode, the
	 * working ones), counted as routed walks are, and how many of them
	 * are served: delivered from whoever answers for the source to
	 * whoever answers for the destination (a failed server's mirror or
	 * woken standby, in RRect's redundancy modes). */
	uint64_t address_pairs;
	uint64_t served;
	/** Diamond only: same-pod and other-pod pairs (Table I). */
	struct dcn_path_stats bfs_intra, bfs_inter, routed_intra, routed_inter;
};

/** @return the unit the topology's paper counts path lengths in. */
enum dcn_unit dcn_metrics_paper_unit(enum dcn_topo_kind kind);
/** @return "links", "server_hops" or "switches". */
const char *dcn_metrics_unit_name(enum dcn_unit u);

/**
 * Compute path statistics.
 *
 * Sources: with sample == 0, a set that is exact by symmetry where the
 * fabric has one and nothing has failed (one server of NovaCube with even
 * k, the torus, RRect and Diamond; the n servers of one LaScaDa cluster),
 * else every server up to 2048 servers, else 64 random ones. With
 * sample > 0, that many random sources (without repetition).
 *
 * With the router's failure set, shortest paths are searched over the
 * surviving graph and routes walked with the router's fault-tolerant
 * rules; only pairs of servers that both survive are counted.
 *
 * @return 0, or -ENOMEM.
 */
int dcn_metrics_compute(const struct dcn_router *r,
			const struct dcn_metrics_opts *o,
			struct dcn_metrics *out);

/**
 * Breadth-first search from server src over the cabled graph.
 * @param dist  one entry per vertex, receives links from src (0xffff:
 *              unreachable)
 * @return 0, or -ENOMEM.
 */
int dcn_metrics_bfs(const struct dcn_topo *t, uint32_t src, uint16_t *dist);

/** The same over the cables and vertices that survive f (f may be NULL). */
int dcn_metrics_bfs_live(const struct dcn_topo *t,
			 const struct dcn_failset *f, uint32_t src,
			 uint16_t *dist);

/** How the servers that survive a failure set hang together. */
struct dcn_metrics_parts {
	/** RRect's "lost servers" (§6, Fig. 9): the share of them cut off
	 * from the rest, i.e. outside the connected part of the surviving
	 * graph that holds the most servers. A share of servers, not of
	 * pairs: one isolated server makes 2/N of the ordered pairs
	 * unreachable but 1/N of the servers lost. */
	double lost_servers;
	/** The share of their ordered pairs in different parts: what
	 * shortest paths (Totoro's SP, which "always finds a path if it
	 * exists") fail, over every pair, no sampling. */
	double disconnected_pairs;
};

/**
 * The connected parts of the graph that survives f (f may be NULL).
 * @return 0, or -ENOMEM.
 */
int dcn_metrics_parts(const struct dcn_topo *t, const struct dcn_failset *f,
		      struct dcn_metrics_parts *out);

/** Convert a shortest-path length in links into the three units. */
void dcn_metrics_from_links(enum dcn_topo_kind kind, uint32_t links,
			    struct dcn_path_len *len);

#ifdef __cplusplus
}
#endif

#endif /* DCN_METRICS_H */
