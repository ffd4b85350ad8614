/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-topo's commands and what they share: the options, the loading of
 * a fabric and its failures (dcn_topo_load.c), and one entry a command
 * group (dcn_topo_stats.c, dcn_topo_route.c, dcn_topo_draw.c).
 */
#ifndef DCN_TOPO_CMD_H
#define DCN_TOPO_CMD_H

#include <stdint.h>

#include "dcn_route.h"
#include "dcn_topo.h"

#define EXIT_USAGE 2

#define MAX_FAIL_OPTS 4

struct fail_opt {
	enum dcn_fail_kind kind;
	const char *arg;   /* ratio, "a:b:step" range, or a list of names */
};

struct opts {
	int json;
	uint32_t sample;
	uint64_t seed;
	int algo;
	int no_routed;
	int no_bfs;
	int all;
	uint32_t limit;
	unsigned int draws;
	unsigned int repeat;
	struct fail_opt fail[MAX_FAIL_OPTS];
	unsigned int n_fail;
	struct dcn_route_conf conf;  /* options beyond the algorithm */
};

/* The failure kinds' names in the options (--fail-links ...). */
extern const char *const fail_names[];

/* dcn_topo_load.c: the fabric of spec (NULL: the error printed); its
 * router under the options and failures f; the failures the options ask
 * for (with sweep_idx >= 0, that option's ratio replaced by sweep_ratio),
 * 0 or EXIT_USAGE; a vertex by any of its names, 0 or -1. */
struct dcn_topo *load_topo(const char *spec);
struct dcn_router *load_router(const struct dcn_topo *t, const struct opts *o,
			       const struct dcn_failset *f);
int build_failset(const struct dcn_topo *t, const struct opts *o, int sweep_idx,
		  double sweep_ratio, uint64_t seed, struct dcn_failset **out);
int load_vertex(const struct dcn_topo *t, const char *s, uint32_t *v);

/* The commands: each prints its answer and returns the exit status. */
int cmd_stats(const char *spec, const struct opts *o);      /* dcn_topo_stats.c */
int cmd_cdg(const char *spec, const struct opts *o);
int cmd_sweep(const char *spec, const struct opts *o);
int cmd_route(const char *spec, const char *src_s, const char *dst_s,
	      const struct opts *o);                         /* dcn_topo_route.c */
int cmd_paths(const char *spec, const char *src_s, const char *dst_s,
	      const struct opts *o);
int cmd_table(const char *spec, const char *node_s, const struct opts *o);
int cmd_info(const char *spec, const struct opts *o);       /* dcn_topo_draw.c */
int cmd_cables(const char *spec);
int cmd_dot(const char *spec);

#endif /* DCN_TOPO_CMD_H */
