/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_TOPO_PRIV_H
#define DCN_TOPO_PRIV_H

#include <stdio.h>

#include "dcn_topo.h"

/* The default network of every plan but NovaCube's own (README.md). */
#define TOPO_NET10 (10u << 24)
#define TOPO_NET10_LEN 8

/* One table per family: the common API dispatches through it once per
 * call, so no switch on the kind is spread over the library. */
struct topo_ops {
	int (*init)(struct dcn_topo *t, char *err, size_t len);
	void (*fini)(struct dcn_topo *t);
	unsigned int (*adj)(const struct dcn_topo *t, uint32_t v,
			    struct dcn_adj *out);
	unsigned int (*ports)(const struct dcn_topo *t, uint32_t v);
	enum dcn_vertex_role (*role)(const struct dcn_topo *t, uint32_t v);
	uint32_t (*addr)(const struct dcn_topo *t, uint32_t v);
	int64_t (*vertex_of)(const struct dcn_topo *t, uint32_t addr);
	int64_t (*parse)(const struct dcn_topo *t, const char *s, char *err,
			 size_t len);
	char *(*format)(const struct dcn_topo *t, uint32_t v, char *buf,
			size_t len);
};

struct topo_novacube {
	unsigned int k;      /* radix */
	unsigned int n;      /* dimensions */
	unsigned int jk;     /* radix of the sub-torus with jumps, 0: none */
	uint32_t pow[8];     /* k^i */
	unsigned int bits;   /* bits(k-1): a field of the prefix= plan */
};

struct topo_diamond {
	unsigned int k;
	unsigned int q;      /* k/4: cores per group, servers per edge */
	uint32_t edge_base;  /* first edge-switch vertex */
	uint32_t core_base;  /* first core-switch vertex */
};

struct topo_rrect {
	unsigned int n, m, k;
	uint32_t mn;
	uint32_t pow_n[DCN_TOPO_MAX_DIGITS + 1];
	uint32_t sw_per_level; /* n^k */
	unsigned int bits0, bitsn; /* address bits of a_0 and of a_i */
};

struct topo_lascada {
	unsigned int n, k;
	uint32_t R;          /* clusters per layer, n^3/2 */
	uint32_t powR[DCN_TOPO_MAX_DIGITS + 1];
	uint32_t sw_per_layer; /* R^(k-1) */
	uint32_t *l1;        /* n entries, 1-based switch numbers */
	uint8_t *omega;      /* R flags */
	uint32_t n_omega;
	unsigned int bits1, bitsR;
};

struct topo_totoro {
	unsigned int N, n, K;
	uint32_t pow_n[DCN_TOPO_MAX_DIGITS + 1];
	uint32_t sw_base[DCN_TOPO_MAX_DIGITS + 1]; /* first switch of level u */
	unsigned int bitsN, bitsn;
};

struct dcn_topo {
	enum dcn_topo_kind kind;
	const struct topo_ops *ops;
	struct dcn_topo_params p;
	char spec[80];
	/* The address plan's network: every address is net | a host part of
	 * the low 32 - net_len bits. prefix_given: prefix= was in the spec,
	 * which moves NovaCube off its paper plan onto packed fields. */
	uint32_t net;
	unsigned int net_len;
	/* The shortest prefix holding every address: a scan of all the
	 * vertices, done once at creation (dcn_topo_covering). */
	uint32_t cover_net;
	unsigned int cover_len;
	uint8_t prefix_given;
	uint32_t n_servers;
	uint32_t n_switches;
	uint64_t n_links;
	unsigned int max_degree;
	union {
		struct topo_novacube nc;
		struct topo_diamond dm;
		struct topo_rrect rr;
		struct topo_lascada ls;
		struct topo_totoro tt;
	} u;
};

extern const struct topo_ops topo_novacube_ops;
extern const struct topo_ops topo_diamond_ops;
extern const struct topo_ops topo_rrect_ops;
extern const struct topo_ops topo_lascada_ops;
extern const struct topo_ops topo_totoro_ops;

/* Helpers shared by the families. */
__attribute__((format(printf, 3, 4)))
void topo_err(char *err, size_t len, const char *fmt, ...);
unsigned int topo_bits_for(uint32_t max_value);
/* Parse "a,b,c" (optionally wrapped in (), []) into at most max values.
 * @return count, or -1 on a malformed list. */
int topo_parse_list(const char *s, uint32_t *vals, int max);
/* Multiply with overflow check against limit. @return 0 or -1. */
int topo_mul_limit(uint64_t *acc, uint64_t f, uint64_t limit);
/* Bits of the host part of an address. */
static inline unsigned int
topo_host_bits(const struct dcn_topo *t)
{
	return 32 - t->net_len;
}
/* Is addr inside the plan's network? */
static inline int
topo_in_net(const struct dcn_topo *t, uint32_t addr)
{
	return t->net_len == 0 || (addr >> (32 - t->net_len)) ==
					  (t->net >> (32 - t->net_len));
}
/* The host part of addr. */
static inline uint32_t
topo_host_part(const struct dcn_topo *t, uint32_t addr)
{
	return t->net_len == 0 ? addr :
				 addr & (UINT32_MAX >> t->net_len);
}

#endif /* DCN_TOPO_PRIV_H */
