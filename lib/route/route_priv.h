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
	/* Lookup of the DIGIT form: candidates for destination vertex dst,
	 * whose address is addr. */
	unsigned int (*digit_lookup)(const struct dcn_rtable *tb, uint32_t dst,
				     uint32_t addr,
				     const struct dcn_route_state *st,
				     struct dcn_hop *out);
};

/* LaScaDa: distances in the 2-layer sub-fabric of two coordinates. */
struct route_lascada {
	uint8_t *dist2;   /* [d][a][b]: (0,a) -> (d,b), R * n * n entries */
};

/* NovaCube: eq. (12) numerators, 2^30 / d^2. */
#define NC_INV_MAX 256

struct dcn_router {
	const struct dcn_topo *t;
	enum dcn_route_algo algo;
	const struct route_ops *ops;
	union {
		struct route_lascada ls;
		uint32_t nc_inv[NC_INV_MAX];
	} u;
};

struct dcn_rtable {
	enum dcn_rtable_form form;
	const struct dcn_router *r;
	uint32_t node;
	/* FLAT: set id per destination server; CLASS: per class. */
	uint16_t *set_of;
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
	/* CLASS form (Diamond): k, to index by pod and position. */
	unsigned int class_k;
};

#define RT_NO_SET 0xffffu

extern const struct route_ops route_pora_ops;
extern const struct route_ops route_pora_literal_ops;
extern const struct route_ops route_dor_ops;
extern const struct route_ops route_far_ops;
extern const struct route_ops route_rrect_ops;
extern const struct route_ops route_row_ops;
extern const struct route_ops route_tra_ops;

__attribute__((format(printf, 3, 4)))
void route_err(char *err, size_t len, const char *fmt, ...);

/* Find cur's port whose cable leads to vertex peer; -1 if none. */
int route_port_to(const struct dcn_topo *t, uint32_t cur, uint32_t peer);

/*
 * Build the hop from server cur to server next across a shared switch
 * (server-centric fabrics), or over a direct cable. @return 0, or -1 when
 * they are not neighbours.
 */
int route_make_hop(const struct dcn_topo *t, uint32_t cur, uint32_t next,
		   struct dcn_hop *h);

/* Add a set of candidates to a table under construction. @return set id. */
int rtable_add_set(struct dcn_rtable *tb, void *dedup,
		   const struct dcn_hop *hops, unsigned int n);
void *rtable_dedup_create(void);
void rtable_dedup_free(void *d);

#endif /* DCN_ROUTE_PRIV_H */
