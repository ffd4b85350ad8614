/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_ROUTE_H
#define DCN_ROUTE_H

/**
 * @file
 * Fault-free routing of the five papers, hop by hop, and the per-node
 * compiled tables the data path looks up.
 *
 * A router answers: at vertex cur, for destination server dst, with the
 * routing state the packet carries, which next hops may be taken? Each
 * candidate carries a weight (PORA's eq. 12 probability) or a priority
 * (FAR's entry type). The choice among candidates is the caller's: by
 * flow hash (a flow keeps its path) or by a per-packet draw, through
 * dcn_route_pick().
 *
 * A compiled table (struct dcn_rtable) is one node's immutable answer for
 * every destination, built from a router; its lookup allocates nothing
 * and takes no lock. See README.md beside this file for each algorithm's
 * reading of its paper.
 */

#include <stddef.h>
#include <stdint.h>

#include "dcn_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most candidates any router returns for one lookup. */
#define DCN_ROUTE_MAX_HOPS 64
/** "No vertex" marker (no proxy, no switch on a direct cable). */
#define DCN_ROUTE_NONE UINT32_MAX
/** Weight scale: weights of one candidate set add up to this. */
#define DCN_ROUTE_WEIGHT_ONE 65535u

/** Routing algorithms. */
enum dcn_route_algo {
	DCN_ALGO_DEFAULT = 0, /**< the paper's own for the topology */
	DCN_ALGO_PORA,        /**< NovaCube: PORA (§5) */
	DCN_ALGO_DOR,         /**< torus or NovaCube: dimension order */
	DCN_ALGO_FAR,         /**< Diamond: BRT minus NRT (§IV) */
	DCN_ALGO_RRECT,       /**< RRect: digit correction (Alg. 1) */
	DCN_ALGO_ROW,         /**< LaScaDa: row-based (§V-A, Alg. 3) */
	DCN_ALGO_TRA,         /**< Totoro: TRA (Alg. 2) */
	DCN_ALGO_PORA_LITERAL, /**< PORA without the corrections README.md
				* explains; revisits nodes, for comparison */
	DCN_ALGO_TFR,         /**< Totoro: fault-tolerant routing (Alg. 3) */
	DCN_ALGO_FAR_LITERAL, /**< FAR with the opposite-core NRT rule read
				* as printed: its 10.0.0.0/8 applies to the
				* switch's own pod too (route_far.c) */
	DCN_ALGO_TFR_LITERAL, /**< TFR as printed (Alg. 3), for comparison */
	DCN_ALGO_MAX,
};

/** How a candidate set is meant to be used. */
enum dcn_pick_mode {
	DCN_PICK_EQUAL = 0,   /**< any candidate; spread by hash */
	DCN_PICK_WEIGHTED,    /**< probability = weight / DCN_ROUTE_WEIGHT_ONE */
	DCN_PICK_PRIORITY,    /**< lowest weight value wins; ties by hash */
};

/** One next-hop candidate. */
struct dcn_hop {
	uint32_t next;   /**< next routing vertex (or the destination) */
	uint32_t via;    /**< switch crossed, DCN_ROUTE_NONE for a cable */
	uint16_t port;   /**< port of the current vertex */
	uint16_t weight; /**< probability or priority, see dcn_pick_mode */
};

/** PORA phases (§5.1). */
enum dcn_pora_phase {
	DCN_PORA_SOURCE = 0,  /**< step 1 at the source: all neighbours */
	DCN_PORA_JUMPED,      /**< step 1 again after the jump: no jump back */
	DCN_PORA_QUADRANT,    /**< step 2: DOR and jumps inside the quadrant */
	DCN_PORA_DETOUR,      /**< no live hop was left in the quadrant: over
			       *   live shortest paths (this project's
			       *   extension, route_pora.c) */
};

/** TFR (Totoro), in phase: Alg. 3 has taken the packet over (TRA's route
 * was broken where a relay could see it); TRA's hops are not tried again
 * on its way. */
#define DCN_TFR_ALG3 1
/** TFR: on its way to a server cut off from its Totoro_0 whose link level
 * L is bcLevel + 2 or more (or, N below 2^K, to one whose Totoro_0 is cut
 * off from its broadcast domain), by way of another Totoro_(L-1) and the
 * level-L link of that server (or of its Totoro_0's highest-level one):
 * route_tfr.c, "the way around". */
#define DCN_TFR_AROUND_OUT 2
/** TFR: from such a server (or Totoro_0) into its own Totoro_(L-1), by way
 * of another Totoro_(L-1) and a level-L link other than its own. */
#define DCN_TFR_AROUND_IN 3

/**
 * The routing state a packet carries in its fabric header: what
 * hop-by-hop routing cannot recompute from (node, destination).
 */
struct dcn_route_state {
	uint32_t src;      /**< source server */
	uint32_t dst;      /**< destination server */
	uint32_t proxy;    /**< temporary destination, DCN_ROUTE_NONE */
	uint8_t phase;     /**< enum dcn_pora_phase; TFR: 0 or
			    *   DCN_TFR_ALG3, DCN_TFR_AROUND_OUT,
			    *   DCN_TFR_AROUND_IN */
	uint8_t quadrant;  /**< bit i set: dimension i travels downwards */
	uint8_t vc;        /**< virtual channel of the hop last taken
			    *   (dcn_route_vcs); DCN_VC_NONE before the
			    *   first hop between routing vertices */
	uint8_t last_dim;  /**< dimension of the last regular hop, 0xff none */
	uint8_t jumped;    /**< set once a jump-over link was taken (PORA),
			    *   or TFR's way out and back (Totoro) */
	uint8_t ttl;       /**< hops left */
	uint8_t path;      /**< RRect: parallel path in use, DCN_PATH_ANY
			    *   for shortest-path ECMP, DCN_PATH_NONE when
			    *   no path survives */
};

#define DCN_VC_NONE 0xff
/**
 * The VC of a route that has used up its rule's VCs: longer than any
 * route the routing takes (README.md, "Virtual channels"), so on a loop
 * that tables which do not agree yet closed. The frame is dropped
 * (too_long): kept on the last VC, two relays bouncing frames at each
 * other could hold each other's queues full for good.
 */
#define DCN_VC_SPENT 0xfe
/** Virtual channels a route state can name. */
#define DCN_ROUTE_MAX_VCS 16

#define DCN_PATH_ANY 0xff
#define DCN_PATH_NONE 0xfe

struct dcn_router;

/** RRect redundancy (§5): who answers for a failed server. */
enum dcn_rrect_mode {
	DCN_RRECT_NONE = 0,   /**< nobody: a failed server is unreachable */
	DCN_RRECT_MIRROR,     /**< active-active: the next live member of its
			       *   sub-group */
	DCN_RRECT_STANDBY,    /**< active-passive: servers with a_0 >= alpha n
			       *   sleep until one takes over a failed working
			       *   server of its sub-group (1+1: m=2, alpha=1) */
};

/** How a router is set up. Zeroed fields take the defaults. */
struct dcn_route_conf {
	enum dcn_route_algo algo;      /**< DCN_ALGO_DEFAULT: the paper's own;
					*   its fault-tolerant one when fail
					*   is not empty (Totoro: TFR) */
	const struct dcn_failset *fail; /**< failures the nodes know of */
	unsigned int bc_level;         /**< Totoro broadcast-domain level;
					*   default: the paper's least */
	unsigned int max_life;         /**< LaScaDa MaxLifeTime in hops;
					*   0: no limit */
	unsigned int ttl;              /**< initial TTL; default 64 */
	enum dcn_rrect_mode rrect_mode;
	unsigned int rrect_alpha;      /**< standby: working a_0 < alpha n;
					*   default m - 1 */
	unsigned int vcs;              /**< virtual channels, at most the VC
					*   rule's (1: merged, to show what
					*   they prevent); 0: the rule's */
	int graph_only;                /**< the router serves graph figures
					*   (shortest paths) and routes nothing:
					*   an algorithm's own conditions are not
					*   checked (Totoro's TRA needs N a
					*   multiple of 2^K) */
};

/**
 * Create a router from a configuration.
 *
 * @return the router, or NULL with errno EINVAL (the algorithm or an
 *         option does not fit the topology; err says which) or ENOMEM.
 */
struct dcn_router *dcn_router_create_conf(const struct dcn_topo *t,
					  const struct dcn_route_conf *conf,
					  char *err, size_t errlen);

/**
 * The router a relay routes by once it knows the failures in fs (its own
 * and those announced to it): base's configuration with fs as its
 * failures, after the relays every one of whose cables fs has down are
 * taken as failed (dcn_topo_failset_add_isolated); TRA, which has no
 * rule for failures, gives way to TFR (Totoro §3.2), even with nothing
 * known down: TFR routes a fresh frame as TRA does, and goes on with one
 * that another relay put on Alg. 3. What the control thread compiles a
 * relay's table from, and what the tests hold its tables to.
 *
 * @param fs  the relay's known failures, or NULL for none; must outlive
 *            the router, and is changed (isolated relays added)
 * @return the router, or NULL with errno and err as
 *         dcn_router_create_conf.
 */
struct dcn_router *dcn_router_for_failures(const struct dcn_topo *t,
					   const struct dcn_route_conf *base,
					   struct dcn_failset *fs, char *err,
					   size_t errlen);

/**
 * Create a router for a topology.
 *
 * @param t     the topology (must outlive the router)
 * @param algo  DCN_ALGO_DEFAULT for the paper's algorithm, or one that
 *              fits the topology (DOR on NovaCube or torus)
 * @param err   reason on failure
 * @return the router, or NULL with errno EINVAL (algorithm does not fit
 *         the topology) or ENOMEM.
 */
struct dcn_router *dcn_router_create(const struct dcn_topo *t,
				     enum dcn_route_algo algo, char *err,
				     size_t errlen);

/**
 * The address that answers for server v: v itself, or the RRect mirror or
 * standby that took it over.
 * @return the server, or DCN_ROUTE_NONE when v is down and nobody answers.
 */
uint32_t dcn_route_resolve(const struct dcn_router *r, uint32_t v);

/** Is server v an address of its own: any server, but in RRect standby
 * mode only a working one (a standby answers for one when it wakes)? */
int dcn_route_is_address(const struct dcn_router *r, uint32_t v);

/** Is server v serving (up, and not a sleeping standby)? */
int dcn_route_server_up(const struct dcn_router *r, uint32_t v);

/**
 * Virtual channels this routing's VC rule uses: pairs for NovaCube's
 * dateline, else one per hop between routing vertices of its longest
 * route (the h-th hop on VC h-1; a longer route is spent), at most the
 * configured vcs (whose last VC then takes the rest).
 */
unsigned int dcn_route_vcs(const struct dcn_router *r);

/** The VCs of the routing's own rule, before a configured limit: a route
 * that needs more is spent (DCN_VC_SPENT). */
unsigned int dcn_route_rule_vcs(const struct dcn_router *r);
/** The VCs the rule would take if the header carried more than
 * DCN_ROUTE_MAX_VCS (NovaCube n=6's dateline: 18); above
 * dcn_route_rule_vcs() the rule is capped, and cdg shows what that gives. */
unsigned int dcn_route_rule_wants(const struct dcn_router *r);
/** Is the VC rule the hop count (1), or the algorithm's dateline (0)? */
int dcn_route_vc_by_hops(const struct dcn_router *r);

#define DCN_CDG_CYCLE_MAX 64

/** What the channel dependency graph of a routing holds. */
struct dcn_cdg_result {
	uint32_t sources;      /**< source servers explored */
	uint64_t routes;       /**< route branches delivered */
	uint64_t spent;        /**< route branches longer than the rule's VCs
				*   (DCN_VC_SPENT): dropped */
	uint32_t channels;     /**< (sender, receiver, VC) channels used */
	uint64_t deps;         /**< dependencies between channels */
	uint32_t longest;      /**< longest route, hops between routing vertices */
	uint32_t vcs;          /**< VCs of the rule */
	uint32_t vcs_used;     /**< VCs some route takes */
	uint32_t cycle_len;    /**< 0: no cycle */
	struct {
		uint32_t from, to;
		uint8_t vc;
	} cycle[DCN_CDG_CYCLE_MAX]; /**< a cycle's channels, when there is one */
};

/**
 * Build the channel dependency graph of router r with its VC rule and
 * look for a cycle: every branch of every route from the sources (each
 * server one with probability sample / servers, 0: every server), with
 * r's failures if it has any. With
 * credits on every hop, no cycle means no deadlock.
 * @return 0 with res filled, or -ENOMEM.
 */
int dcn_route_cdg(const struct dcn_router *r, uint32_t sample, uint64_t seed,
		  struct dcn_cdg_result *res);

/**
 * How many relays a node's failure announcements travel for this
 * router's paper; 0: nodes repair locally and nobody else uses the news.
 */
unsigned int dcn_route_lsa_hops(const struct dcn_router *r);

/**
 * Does node use the link states that origin announces (and so take and
 * pass on its announcements)?
 */
int dcn_route_lsa_wants(const struct dcn_router *r, uint32_t node,
			uint32_t origin);

/** Free a router; NULL is ignored. */
void dcn_router_free(struct dcn_router *r);

/** @return the failure set the router was given (NULL: none). */
const struct dcn_failset *dcn_router_failset(const struct dcn_router *r);
/** @return the configuration in force (defaults filled in). */
const struct dcn_route_conf *dcn_router_conf(const struct dcn_router *r);

/** @return the router's topology. */
const struct dcn_topo *dcn_router_topo(const struct dcn_router *r);
/** @return the algorithm in use (never DCN_ALGO_DEFAULT). */
enum dcn_route_algo dcn_router_algo(const struct dcn_router *r);
/** @return the algorithm's name ("pora"). */
const char *dcn_route_algo_name(enum dcn_route_algo algo);
/** Parse an algorithm name. @return the algorithm, or -1. */
int dcn_route_algo_parse(const char *name);
/** @return how candidate sets of this router are picked from. */
enum dcn_pick_mode dcn_router_pick_mode(const struct dcn_router *r);

/** Fill the state a packet starts with at source server src. */
void dcn_route_state_init(const struct dcn_router *r, uint32_t src,
			  uint32_t dst, struct dcn_route_state *st);

/**
 * Next-hop candidates at cur for destination server dst.
 *
 * @param out  at least DCN_ROUTE_MAX_HOPS entries
 * @return number of candidates; 0 when cur == dst or no route exists.
 */
unsigned int dcn_route_candidates(const struct dcn_router *r, uint32_t cur,
				  uint32_t dst,
				  const struct dcn_route_state *st,
				  struct dcn_hop *out);

/** Update the packet state for taking hop h from cur. */
void dcn_route_advance(const struct dcn_router *r, uint32_t cur,
		       const struct dcn_hop *h, struct dcn_route_state *st);

/**
 * Choose one candidate.
 *
 * @param mode  from dcn_router_pick_mode()
 * @param draw  a flow hash (same flow, same path) or a per-packet random
 *              number; only its low 32 bits are used
 * @return index into hops; n must be at least 1.
 */
unsigned int dcn_route_pick(enum dcn_pick_mode mode,
			    const struct dcn_hop *hops, unsigned int n,
			    uint32_t draw);

/** Path measures of one route or an average of many. */
struct dcn_path_len {
	uint32_t links;       /**< cables traversed */
	uint32_t server_hops; /**< server to server (a switch counts once) */
	uint32_t switches;    /**< switches traversed */
};

/**
 * Walk the route from server src to server dst hop by hop.
 *
 * @param rng    state of the generator for per-hop draws (PORA); NULL
 *               takes the first candidate (hash 0)
 * @param path   if not NULL, receives the vertices visited, src first
 * @param maxlen entries available in path, and the hop limit
 * @param len    if not NULL, receives the path measures
 * @return number of hops, or -1 when no route was found or the walk did
 *         not end within maxlen hops.
 */
int dcn_route_walk(const struct dcn_router *r, uint32_t src, uint32_t dst,
		   uint64_t *rng, uint32_t *path, unsigned int maxlen,
		   struct dcn_path_len *len);

/** Measures of one hop taken (a cable, or a switch crossing). */
void dcn_route_hop_len(const struct dcn_topo *t, const struct dcn_hop *h,
		       struct dcn_path_len *acc);

/** A small fast generator (splitmix64) for draws and sampling. */
static inline uint64_t
dcn_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Paper-specific entry points, used by dcn-topo and the tests.
 */

/**
 * PORA eq. (12): probabilities of the candidates at a source, as doubles.
 * @return number of candidates (as dcn_route_candidates at the source).
 */
unsigned int dcn_pora_source_probs(const struct dcn_router *r, uint32_t src,
				   uint32_t dst, struct dcn_hop *hops,
				   double *prob);

/**
 * RRectRouting (Alg. 1): the path that corrects digits in the order of
 * permutation perm (perm[0] first; a permutation of 0..k), carrying the
 * sub-group index on digit idx (-1: the algorithm's own choice).
 * @return number of vertices written to path (src first).
 */
unsigned int dcn_rrect_route(const struct dcn_topo *t, uint32_t src,
			     uint32_t dst, const unsigned int *perm, int idx,
			     uint32_t *path);

/**
 * RRectParaPaths (Alg. 2, 3): k+1 parallel paths. The value IndirRouting
 * draws at random is the smallest digit value different from both ends
 * unless seed is non-zero.
 *
 * @param paths   (k+1) rows of DCN_ROUTE_MAX_PATH vertices
 * @param lens    receives each path's vertex count
 * @return number of paths (k+1).
 */
#define DCN_ROUTE_MAX_PATH 32
unsigned int dcn_rrect_para_paths(const struct dcn_topo *t, uint32_t src,
				  uint32_t dst, uint64_t seed,
				  uint32_t paths[][DCN_ROUTE_MAX_PATH],
				  unsigned int *lens);

/** One FAR routing-table entry, as the paper prints it. */
struct dcn_far_entry {
	uint32_t dest;     /**< destination, host order */
	uint32_t mask;     /**< mask, host order (255.0.255.0 allowed) */
	uint32_t next_hop; /**< next hop address */
	uint8_t type;      /**< BRT: 0 intra-pod, 1..3 the paper's types;
			    *   NRT: DCN_FAR_INTERPOD when the entry avoids
			    *   the next hop for other pods only */
	uint8_t prefix;    /**< prefix length FAR uses: 24, 16 or 8 */
};

/**
 * FAR basic routing table of a Diamond switch (§IV-A): 9k/4 entries for
 * an edge switch, k for a core switch.
 * @param out   at least 3k entries
 * @return number of entries.
 */
unsigned int dcn_far_brt(const struct dcn_topo *t, uint32_t sw,
			 struct dcn_far_entry *out);

#define DCN_FAR_INTERPOD 1

/** FAR negative routing table of an edge switch (§IV-B), into out (at
 * most max entries). @return the number of entries it has. */
unsigned int dcn_far_nrt(const struct dcn_router *r, uint32_t sw,
			 struct dcn_far_entry *out, unsigned int max);


/*
 * Compiled tables.
 */

/** Table forms. */
enum dcn_rtable_form {
	DCN_RTABLE_FLAT = 0, /**< one candidate set per destination server */
	DCN_RTABLE_CLASS,    /**< one set per destination class (FAR /24) */
	DCN_RTABLE_DIGIT,    /**< computed from the address digits */
};

struct dcn_rtable;

/**
 * Compile node's table.
 *
 * @param r     the router (only read while compiling)
 * @param node  a routing vertex
 * @return the table, or NULL with errno EINVAL (not a routing vertex) or
 *         ENOMEM.
 */
struct dcn_rtable *dcn_rtable_compile(const struct dcn_router *r,
				      uint32_t node);

/** Free a table; NULL is ignored. */
void dcn_rtable_free(struct dcn_rtable *tb);

/**
 * Look up the candidates for destination address dst_addr, or for the
 * state's proxy first when the packet is on a detour.
 *
 * @param st      the packet's routing state
 * @param scratch room for DCN_ROUTE_MAX_HOPS candidates, used by the
 *                computed forms
 * @param hops    receives a pointer to the candidates (into the table or
 *                into scratch)
 * @return number of candidates; 0 when the address is not a server of the
 *         fabric, is this node, or has no route.
 */
unsigned int dcn_rtable_lookup(const struct dcn_rtable *tb, uint32_t dst_addr,
			       const struct dcn_route_state *st,
			       struct dcn_hop *scratch,
			       const struct dcn_hop **hops);

/** @return the table's form. */
enum dcn_rtable_form dcn_rtable_form(const struct dcn_rtable *tb);
/** @return bytes the table holds (structure and arrays). */
size_t dcn_rtable_bytes(const struct dcn_rtable *tb);
/** @return number of distinct candidate sets stored (0 for DIGIT). */
uint32_t dcn_rtable_sets(const struct dcn_rtable *tb);
/** @return the node the table is for. */
uint32_t dcn_rtable_node(const struct dcn_rtable *tb);

#ifdef __cplusplus
}
#endif

#endif /* DCN_ROUTE_H */
