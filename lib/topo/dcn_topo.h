/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_TOPO_H
#define DCN_TOPO_H

/**
 * @file
 * Topology model of the five fabrics dcnfwd can be a node of.
 *
 * A topology is built from one spec string (see dcn_topo_create()) with the
 * construction algorithm of its paper. It is a graph of vertices: servers
 * first, numbered [0, n_servers), then switches, numbered
 * [n_servers, n_servers + n_switches). Every vertex has numbered ports; a
 * port is a cable to exactly one other vertex. In NovaCube servers are cabled
 * to servers; in the other fabrics every cable has a switch at one end.
 *
 * Every server (and in Diamond every switch) has a 32-bit fabric address
 * that is also its IPv4 address, host byte order here. The address plan of
 * each topology is documented in lib/topo/README.md.
 *
 * Nothing here allocates after dcn_topo_create(); neighbour and address
 * functions are pure arithmetic on the vertex number, so a million-server
 * fabric costs a few hundred bytes.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Topology families. */
enum dcn_topo_kind {
	DCN_TOPO_NOVACUBE = 0, /**< k-ary n-cube plus jump-over links */
	DCN_TOPO_TORUS,        /**< plain k-ary n-cube, for comparison */
	DCN_TOPO_DIAMOND,      /**< Diamond(k) switch fabric */
	DCN_TOPO_RRECT,        /**< RRect(n,m,k); BCube(n,k) is m = 1 */
	DCN_TOPO_LASCADA,      /**< LaScaDa(n,k) */
	DCN_TOPO_TOTORO,       /**< Totoro(N,n,K) */
	DCN_TOPO_KIND_MAX,
};

/** Role of a vertex. */
enum dcn_vertex_role {
	DCN_ROLE_SERVER = 0,
	DCN_ROLE_SWITCH,      /**< L2 crossbar of a server-centric fabric */
	DCN_ROLE_EDGE,        /**< Diamond edge switch (L3) */
	DCN_ROLE_CORE,        /**< Diamond core switch (L3) */
};

/** Largest number of ports of any server (NovaCube n=6: 13). */
#define DCN_TOPO_MAX_SERVER_PORTS 16
/** Largest node-address tuple (NovaCube coordinates, RRect digits, ...). */
#define DCN_TOPO_MAX_DIGITS 8
/** Size of a buffer for dcn_topo_format_vertex(). */
#define DCN_TOPO_NAME_LEN 64
/** Size of an error message buffer. */
#define DCN_TOPO_ERR_LEN 160

/** One end of a cable: the vertex at the far end and its port there. */
struct dcn_adj {
	uint32_t peer;      /**< vertex at the other end */
	uint16_t port;      /**< port number on this vertex */
	uint16_t peer_port; /**< port number on the peer */
};

/** Topology parameters, as given in the spec string. */
struct dcn_topo_params {
	unsigned int k; /**< NovaCube/torus radix; Diamond k; RRect/LaScaDa k */
	unsigned int n; /**< dimensions; RRect/LaScaDa/Totoro n */
	unsigned int m; /**< RRect m */
	unsigned int N; /**< Totoro N */
	unsigned int K; /**< Totoro K */
};

struct dcn_topo;

/**
 * Build a topology from a spec string.
 *
 * Forms: "novacube:k=8,n=2", "torus:k=8,n=2", "diamond:k=8",
 * "rrect:n=4,m=2,k=1", "bcube:n=8,k=4" (RRect with m=1),
 * "lascada:n=4,k=2", "totoro:N=16,n=16,K=2". Any of them may end in
 * ",prefix=NET/LEN" to place the addresses in that network.
 *
 * @param spec  the spec string
 * @param err   buffer for a one-line reason on failure (may be NULL)
 * @param errlen size of err
 * @return the topology, or NULL with errno EINVAL (bad spec),
 *         ERANGE (parameter out of range or instance too large for the
 *         32-bit address plan) or ENOMEM.
 */
struct dcn_topo *dcn_topo_create(const char *spec, char *err, size_t errlen);

/** Free a topology; NULL is ignored. */
void dcn_topo_free(struct dcn_topo *t);

/** @return the topology's kind. */
enum dcn_topo_kind dcn_topo_kind(const struct dcn_topo *t);
/** @return its parameters. */
const struct dcn_topo_params *dcn_topo_params(const struct dcn_topo *t);
/** @return the canonical spec string ("rrect:n=4,m=2,k=1"). */
const char *dcn_topo_spec(const struct dcn_topo *t);
/** @return short family name ("rrect"). */
const char *dcn_topo_kind_name(enum dcn_topo_kind kind);

/** @return number of servers. */
uint32_t dcn_topo_servers(const struct dcn_topo *t);
/** @return number of switches. */
uint32_t dcn_topo_switches(const struct dcn_topo *t);
/** @return number of vertices (servers + switches). */
uint32_t dcn_topo_vertices(const struct dcn_topo *t);
/** @return number of cables. */
uint64_t dcn_topo_links(const struct dcn_topo *t);
/** @return the largest port count of any vertex. */
unsigned int dcn_topo_max_degree(const struct dcn_topo *t);

/** @return the role of vertex v. */
enum dcn_vertex_role dcn_topo_role(const struct dcn_topo *t, uint32_t v);

/**
 * Does this vertex run the fabric's routing? Servers in server-centric
 * fabrics and NovaCube, edge and core switches in Diamond.
 */
int dcn_topo_is_router(const struct dcn_topo *t, uint32_t v);

/**
 * Cables of vertex v.
 *
 * @param out  array of at least dcn_topo_max_degree() entries
 * @return number of cables written, in port order; ports that are not
 *         cabled (a NovaCube odd-k node without a jump link, a Totoro server
 *         without an inter-switch link) are left out.
 */
unsigned int dcn_topo_adj(const struct dcn_topo *t, uint32_t v,
			  struct dcn_adj *out);

/**
 * The vertex at the other end of port `port` of vertex v.
 * @return the peer, or -1 when the port is not cabled (or no memory).
 */
int64_t dcn_topo_port_peer(const struct dcn_topo *t, uint32_t v,
			   unsigned int port);

/**
 * Number of ports of vertex v, cabled or not (its NIC or switch size).
 */
unsigned int dcn_topo_ports(const struct dcn_topo *t, uint32_t v);

/**
 * The fabric address of vertex v.
 * @return the address, or 0 when v has none (an L2 switch).
 */
uint32_t dcn_topo_addr(const struct dcn_topo *t, uint32_t v);

/**
 * The network of the address plan: every fabric address is in net/len.
 * The default is 10.0.0.0/8, and for NovaCube and the torus the paper's
 * own plan (128.0.0.0/2; 192.0.0.0/2 with six dimensions), which is
 * public space. prefix=NET/LEN in the spec moves any plan (README.md).
 */
void dcn_topo_prefix(const struct dcn_topo *t, uint32_t *net,
		     unsigned int *len);

/**
 * The longest prefix that covers every address of the fabric: the route
 * a server's own traffic takes into it. O(vertices).
 */
void dcn_topo_covering(const struct dcn_topo *t, uint32_t *net,
		       unsigned int *len);

/**
 * Is net/len inside private address space: 10/8, 172.16/12, 192.168/16
 * (RFC 1918) or the shared 100.64/10 (RFC 6598)?
 */
int dcn_topo_prefix_private(uint32_t net, unsigned int len);

/**
 * The vertex with fabric address addr.
 * @return vertex number, or -1 when the address is not in the fabric.
 */
int64_t dcn_topo_vertex_of(const struct dcn_topo *t, uint32_t addr);

/**
 * Parse a vertex name: a dotted fabric address ("10.1.1.2"), "#<vertex>",
 * or the paper's notation: NovaCube "(c1,c2)"; Diamond "E1.1", "C1.1" or
 * "E11" when both numbers are single digits; RRect "a_k,...,a_0" or the
 * digit string "037"; LaScaDa "(C_k,...,C_1)" 1-based; Totoro
 * "[a_K,...,a_0]".
 *
 * @return vertex number, or -1 with a reason in err.
 */
int64_t dcn_topo_parse_vertex(const struct dcn_topo *t, const char *s,
			      char *err, size_t errlen);

/**
 * Write vertex v in the paper's notation.
 * @return buf
 */
char *dcn_topo_format_vertex(const struct dcn_topo *t, uint32_t v, char *buf,
			     size_t len);

/**
 * Bit layout of the packed-digit address plans (RRect, LaScaDa, Totoro):
 * digit 0 in the low bits0 bits, each higher digit in bitsi bits above.
 * @return 0, or -1 for a family with another plan.
 */
int dcn_topo_addr_layout(const struct dcn_topo *t, unsigned int *bits0,
			 unsigned int *bitsi);

/** Format a host-order IPv4 address as dotted quad. */
char *dcn_topo_format_addr(uint32_t addr, char *buf, size_t len);
/** Parse a dotted quad. @return 0, or -1 if not one. */
int dcn_topo_parse_addr(const char *s, uint32_t *addr);

/*
 * Coordinate access, per family. The digits are what the paper calls the
 * node's address; digit 0 is the least significant.
 */

/**
 * NovaCube/torus: coordinates c[0..n-1] of server v (c[0] is dimension 1).
 */
void dcn_topo_nc_coords(const struct dcn_topo *t, uint32_t v, uint8_t *c);
/** NovaCube/torus: server at coordinates c. */
uint32_t dcn_topo_nc_vertex(const struct dcn_topo *t, const uint8_t *c);
/**
 * NovaCube/torus: where the coordinates sit in a server's address:
 * c[i] = (addr >> shift[i]) & *mask. The paper's plan has 5-bit fields
 * from bit 25 down; a prefix= plan bits(k-1)-bit fields, c[n-1] lowest.
 */
void dcn_topo_nc_addr_fields(const struct dcn_topo *t, uint8_t *shift,
			     uint32_t *mask);
/**
 * NovaCube: jump-over partner of server v.
 * @return vertex, or -1 when v has none (odd k, a coordinate equal to k-1).
 */
int64_t dcn_topo_nc_jump(const struct dcn_topo *t, uint32_t v);

/**
 * RRect: digits of server v: d[0] = a_0 in [0, mn), d[i] = a_i in [0, n).
 */
void dcn_topo_rr_digits(const struct dcn_topo *t, uint32_t v, uint16_t *d);
/** RRect: server with digits d. */
uint32_t dcn_topo_rr_vertex(const struct dcn_topo *t, const uint16_t *d);

/**
 * LaScaDa: coordinates of server v, 0-based: c[0] = C_1 - 1 in [0, n),
 * c[l-1] = C_l - 1 in [0, n^3/2) for l >= 2.
 */
void dcn_topo_ls_coords(const struct dcn_topo *t, uint32_t v, uint32_t *c);
/** LaScaDa: server with 0-based coordinates c. */
uint32_t dcn_topo_ls_vertex(const struct dcn_topo *t, const uint32_t *c);
/** LaScaDa: number of clusters per layer, R = n^3/2. */
uint32_t dcn_topo_ls_rows(const struct dcn_topo *t);
/**
 * LaScaDa: first row L_1 of the connection matrix, 1-based switch
 * numbers as in the paper (Alg. 1). @return n entries.
 */
const uint32_t *dcn_topo_ls_l1(const struct dcn_topo *t);
/**
 * LaScaDa: is distance d (mod R) in Omega, the linked-cluster distances?
 */
int dcn_topo_ls_in_omega(const struct dcn_topo *t, uint32_t d);
/** LaScaDa: |Omega|. */
uint32_t dcn_topo_ls_omega_size(const struct dcn_topo *t);
/**
 * LaScaDa: internal switch (1-based, as in matrix L) that node C_1 = col+1
 * of cluster C = row+1 connects to: L(row+1, col+1).
 */
uint32_t dcn_topo_ls_L(const struct dcn_topo *t, uint32_t row, uint32_t col);

/**
 * Totoro: tuple of server v: a[0] = a_0 in [0, N), a[i] = a_i in [0, n).
 */
void dcn_topo_tt_tuple(const struct dcn_topo *t, uint32_t v, uint32_t *a);
/** Totoro: server with tuple a. */
uint32_t dcn_topo_tt_vertex(const struct dcn_topo *t, const uint32_t *a);
/**
 * Totoro: level of the outgoing inter-switch link of server tid
 * (Alg. 1 line 10). @return 1..K, or 0 when it has none.
 */
unsigned int dcn_topo_tt_link_level(const struct dcn_topo *t, uint32_t tid);
/**
 * Totoro: the server across the level-u inter-switch from server m, in
 * child partition child of m's Totoro_u (child = the a_u digit wanted).
 */
uint32_t dcn_topo_tt_across(const struct dcn_topo *t, uint32_t m,
			    unsigned int u, uint32_t child);

/**
 * Diamond: decode a vertex. For a server: pod i, position j (1-based) and
 * x in [2, k/4+1]. For an edge switch: i, j, x = 1. For a core switch:
 * i (core group, 1..k), j (1..k/4), x = 0.
 */
void dcn_topo_dm_decode(const struct dcn_topo *t, uint32_t v, unsigned int *i,
			unsigned int *j, unsigned int *x);
/** Diamond: edge switch E_ij. */
uint32_t dcn_topo_dm_edge(const struct dcn_topo *t, unsigned int i,
			  unsigned int j);
/** Diamond: core switch C_ij. */
uint32_t dcn_topo_dm_core(const struct dcn_topo *t, unsigned int i,
			  unsigned int j);
/** Diamond: server 10.i.j.x. */
uint32_t dcn_topo_dm_server(const struct dcn_topo *t, unsigned int i,
			    unsigned int j, unsigned int x);

/*
 * Failure sets: failed cables, servers and switches. A failed vertex takes
 * all its cables down with it.
 */

/** What a random failure draws. */
enum dcn_fail_kind {
	DCN_FAIL_LINKS = 0,
	DCN_FAIL_SERVERS,
	DCN_FAIL_SWITCHES,
	DCN_FAIL_RACKS,  /**< a rack: the servers of one base switch and it */
};

struct dcn_failset;

/** @return an empty failure set for t, or NULL with errno ENOMEM. */
struct dcn_failset *dcn_topo_failset_create(const struct dcn_topo *t);
/** Free a failure set; NULL is ignored. */
void dcn_topo_failset_free(struct dcn_failset *f);
/** @return the topology of f. */
const struct dcn_topo *dcn_topo_failset_topo(const struct dcn_failset *f);

/**
 * Fail the cable at port of vertex v (both ends).
 * @return 0, -EINVAL when v has no cable on that port, -ENOMEM.
 */
int dcn_topo_failset_add_link(struct dcn_failset *f, uint32_t v,
			      uint16_t port);
/** Fail vertex v. @return 0 or -EINVAL. */
int dcn_topo_failset_add_vertex(struct dcn_failset *f, uint32_t v);
/**
 * Fail a rack: Totoro_0, RRect(n,m,0) base, LaScaDa cluster or Diamond edge
 * switch, with its servers; given by any server of it.
 * @return 0, or -EINVAL (NovaCube has no racks).
 */
int dcn_topo_failset_add_rack(struct dcn_failset *f, uint32_t server);

/**
 * Fail round(ratio * count) distinct items of one kind, drawn uniformly.
 * @return number failed, or -EINVAL (ratio outside [0,1], or no such
 *         items in this topology) or -ENOMEM.
 */
int64_t dcn_topo_failset_random(struct dcn_failset *f, enum dcn_fail_kind kind,
				double ratio, uint64_t seed);

/**
 * Parse and add an explicit list: names separated by ';' or spaces. Links
 * are "NAME:PORT" or "NAME~NAME" (two neighbours, or a server and its
 * switch); servers, switches and racks are vertex names.
 * @return number added, or -1 with a reason in err.
 */
int dcn_topo_failset_parse(struct dcn_failset *f, enum dcn_fail_kind kind,
			   const char *list, char *err, size_t errlen);

/**
 * Call fn for every failed cable once, as (vertex, port) of its lower end
 * (cables of failed vertices are not listed; see vertex_down).
 */
void dcn_topo_failset_foreach_link(const struct dcn_failset *f,
				   void (*fn)(uint32_t v, uint16_t port,
					      void *arg),
				   void *arg);

/**
 * Fail every routing server (a relay) that has cables and none of them
 * left up: as far as routing goes it has failed, and RRect's mirror or
 * standby answers for it (§5). What a relay infers from the cables it
 * knows down.
 * @return how many were added.
 */
unsigned int dcn_topo_failset_add_isolated(struct dcn_failset *f);

/** Has vertex v failed? */
int dcn_topo_failset_vertex_down(const struct dcn_failset *f, uint32_t v);
/** Is the cable at port of v down (failed, or either end failed)? */
int dcn_topo_failset_link_down(const struct dcn_failset *f, uint32_t v,
			       uint16_t port, uint32_t peer);
/** Is anything failed? */
int dcn_topo_failset_empty(const struct dcn_failset *f);
/** Counts of failed cables, servers and switches (cables not counting
 * those of failed vertices). */
void dcn_topo_failset_counts(const struct dcn_failset *f, uint64_t *links,
			     uint32_t *servers, uint32_t *switches);
/**
 * Live cables of v: those whose cable is up and whose peer is up.
 * @return number written to out.
 */
unsigned int dcn_topo_failset_adj(const struct dcn_failset *f, uint32_t v,
				  struct dcn_adj *out);

#ifdef __cplusplus
}
#endif

#endif /* DCN_TOPO_H */
