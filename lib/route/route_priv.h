/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_ROUTE_PRIV_H
#define DCN_ROUTE_PRIV_H

#include <stdio.h>

#include "dcn_route.h"

struct dcn_rtable;

/* One table per algorithm, bound once when the router is created (as
 * l3fwd binds its lookup mode): nothing on the lookup path switches on the
 * topology. */
struct route_ops {
	enum dcn_topo_kind kind;
	enum dcn_pick_mode pick;
	int (*init)(struct dcn_router *r, char *err, size_t len);
	void (*fini)(struct dcn_router *r);
	void (*state_init)(const struct dcn_router *r, uint32_t src,
			   uint32_t dst, struct dcn_route_state *st);
	unsigned int (*candidates)(const struct dcn_router *r, uint32_t cur,
				   uint32_t dst,
				   const struct dcn_route_state *st,
				   struct dcn_hop *out);
	void (*advance)(const struct dcn_router *r, uint32_t cur,
			const struct dcn_hop *h, struct dcn_route_state *st);
	/* Compile a table of a form other than FLAT; NULL: FLAT. */
	int (*compile)(struct dcn_rtable *tb);
	/* FLAT form, where decisions depend on a few bits of the state
	 * besides the destination (and proxy): the number of classes of
	 * state, a state's class, and a state of a class to compile from.
	 * 0: one class. */
	unsigned int state_classes;
	unsigned int (*state_class)(const struct dcn_route_state *st);
	void (*class_state)(unsigned int cls, struct dcn_route_state *st);
	/* FLAT form, where the router's detours go to a proxy by a rule
	 * of their own (LaScaDa's Alg. 4: over live shortest paths): fill
	 * tb->proxy_set_of, the hops toward each server as a proxy. NULL:
	 * a packet goes to its proxy as to a destination. */
	int (*compile_proxies)(struct dcn_rtable *tb, void *dedup);
	/* Lookup of the DIGIT form: candidates for destination vertex dst,
	 * whose address is addr. */
	unsigned int (*digit_lookup)(const struct dcn_rtable *tb, uint32_t dst,
				     uint32_t addr,
				     const struct dcn_route_state *st,
				     struct dcn_hop *out);
	/* The VCs the routing needs (the longest route it takes, failures
	 * included); *by_hops 0 where its advance sets the VC itself. */
	unsigned int (*vc_rule)(const struct dcn_router *r, int *by_hops);
	/* How far a relay's failure announcements travel, in relays (0: not
	 * at all; NULL: the whole fabric, 255), and who keeps one of origin
	 * (NULL: every relay). */
	unsigned int (*lsa_hops)(const struct dcn_router *r);
	int (*lsa_wants)(const struct dcn_router *r, uint32_t node,
			 uint32_t origin);
};

/* LaScaDa: distances in the 2-layer sub-fabric of two coordinates. */
struct route_lascada {
	uint8_t *dist2;   /* [d][a][b]: (0,a) -> (d,b), R * n * n entries */
};

/* NovaCube: eq. (12) numerators, 2^30 / d^2. */
#define NC_INV_MAX 256

/* FAR: the negative routing table of every edge switch. */
/* A BRT entry with its next hop resolved: the vertex and the port of
 * the switch that leads to it (-1: none). */
struct far_brt_hop {
	struct dcn_far_entry e;
	uint32_t nh;
	int32_t port;
};

struct route_far {
	uint32_t *off;            /* per edge switch, into nrt */
	uint32_t *cnt;
	struct dcn_far_entry *nrt;
	uint32_t n, cap;
	/* With failures: every switch's BRT, resolved (switch v - servers
	 * has entries brt_off[i] .. brt_off[i + 1]); NULL: built per
	 * lookup (a fabric too large to keep them). */
	uint32_t *brt_off;
	struct far_brt_hop *brt;
	/* With failures: live switch hops from each switch to each edge
	 * switch, a row per edge filled on its first use (0xff:
	 * unreachable); NULL where the fabric is too large to keep them
	 * (a search per lookup then). */
	uint8_t *dist;
	uint8_t *dist_done;
};

struct dcn_router {
	const struct dcn_topo *t;
	enum dcn_route_algo algo;
	const struct route_ops *ops;
	uint8_t vcs;        /* virtual channels of the VC rule, at most
			     * conf.vcs */
	uint8_t rule_vcs;   /* the rule's own; a route past them is spent */
	uint16_t rule_wants; /* the rule's count before the header's 16 */
	uint8_t vc_hops;    /* VC rule by hop count (else the algorithm's) */
	const struct dcn_failset *fail; /* NULL when nothing has failed */
	struct dcn_route_conf conf;
	/* With failures: live hops from each vertex to targets asked for,
	 * a row per target filled on first use (route_live_dist). */
	struct route_live *live;
	union {
		struct route_lascada ls;
		uint32_t nc_inv[NC_INV_MAX];
		struct route_far far;
	} u;
};

#include "dcn_topo.h"

/* Live hops from v to target over the cables up (the router's failures),
 * through every vertex; 0xff: not reached. A cache the router fills as it
 * is asked (one thread at a time: the control thread, or a tool). */
unsigned int route_live_dist(const struct dcn_router *r, uint32_t v,
			     uint32_t target);
/* Breadth-first from v over live cables: dist[u] in hops (0xff beyond
 * 254 or not reached); queue has room for every vertex. */
void route_live_bfs(const struct dcn_router *r, uint32_t v, uint8_t *dist,
		    uint32_t *queue);

static inline int
rt_up(const struct dcn_router *r, uint32_t v)
{
	return r->fail == NULL || !dcn_topo_failset_vertex_down(r->fail, v);
}

/*
 * Is hop h from cur usable: its next vertex, the cable(s) and the switch
 * crossed all up? Across a switch, both servers use the same port number
 * (a server's port l is its level-l switch in every server-centric fabric).
 */
static inline int
rt_hop_up(const struct dcn_router *r, uint32_t cur, const struct dcn_hop *h)
{
	const struct dcn_failset *f = r->fail;

	if (f == NULL)
		return 1;
	if (dcn_topo_failset_vertex_down(f, h->next))
		return 0;
	if (h->via == DCN_ROUTE_NONE)
		return !dcn_topo_failset_link_down(f, cur, h->port, h->next);
	return !dcn_topo_failset_link_down(f, cur, h->port, h->via) &&
	       !dcn_topo_failset_link_down(f, h->next, h->port, h->via);
}

/* Keep the usable hops, in order. @return how many. */
static inline unsigned int
rt_filter_up(const struct dcn_router *r, uint32_t cur, struct dcn_hop *h,
	     unsigned int n)
{
	unsigned int i, m = 0;

	if (r->fail == NULL)
		return n;
	for (i = 0; i < n; i++)
		if (rt_hop_up(r, cur, &h[i]))
			h[m++] = h[i];
	return m;
}

struct dcn_rtable {
	enum dcn_rtable_form form;
	const struct dcn_router *r;
	uint32_t node;
	/* FLAT: set id per destination server (and state class: class c's
	 * sets from c times the servers); CLASS: per class. */
	uint16_t *set_of;
	/* FLAT, with compile_proxies: set id per server as a proxy. */
	uint16_t *proxy_set_of;
	uint32_t n_index;
	uint32_t n_sets;
	uint32_t *set_off;
	uint8_t *set_cnt;
	struct dcn_hop *pool;
	uint32_t pool_len;
	/* DIGIT form: per-node constants the algorithm keeps. */
	void *priv;
	size_t priv_bytes;
	void (*priv_free)(void *priv); /* NULL: free() */
	/* CLASS form (Diamond): k, to index by pod and position, and the
	 * first octet every address has (10 unless prefix= moved it). */
	unsigned int class_k;
	uint32_t class_octet;
};

#define RT_NO_SET 0xffffu

extern const struct route_ops route_pora_ops;
extern const struct route_ops route_dor_ops;
extern const struct route_ops route_far_ops;
extern const struct route_ops route_rrect_ops;
extern const struct route_ops route_row_ops;
extern const struct route_ops route_tra_ops;
extern const struct route_ops route_tfr_ops;

__attribute__((format(printf, 3, 4)))
void route_err(char *err, size_t len, const char *fmt, ...);

/* RRect standby: the failed working server a woken standby v stands for;
 * v itself otherwise. */
uint32_t route_rrect_identity(const struct dcn_router *r, uint32_t v);

/* Find cur's port whose cable leads to vertex peer; -1 if none. */
int route_port_to(const struct dcn_topo *t, uint32_t cur, uint32_t peer);
/* Free the live distances route_live_dist kept. */
void route_live_free(struct dcn_router *r);


/* Add a set of candidates to a table under construction. @return set id. */
int rtable_add_set(struct dcn_rtable *tb, void *dedup,
		   const struct dcn_hop *hops, unsigned int n);
void *rtable_dedup_create(void);
void rtable_dedup_free(void *d);
/* An index of n set ids, each RT_NO_SET; NULL without memory. */
uint16_t *rtable_index_alloc(uint32_t n);
/* For each destination y < n_dst but skip, the hops of nb[0..n_nb)
 * whose distance to y (dist[i * stride + y], 0xff: unreached) is least,
 * as one set into index[y]: the shortest-path sets of a detour or a way
 * to a proxy. n_nb at most DCN_ROUTE_MAX_HOPS. @return 0, or a negative
 * errno. */
int rtable_nearest_sets(struct dcn_rtable *tb, void *dedup,
			const struct dcn_hop *nb, unsigned int n_nb,
			const uint8_t *dist, size_t stride, uint32_t n_dst,
			uint32_t skip, uint16_t *index);

#endif /* DCN_ROUTE_PRIV_H */
