/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-topo: what every command loads from its arguments: the fabric, its
 * router, the failures the options ask for, a vertex by name.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_topo_cmd.h"

const char *const fail_names[] = { "links", "servers", "switches",
					  "racks" };

struct dcn_topo *
load_topo(const char *spec)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_topo *t = dcn_topo_create(spec, err, sizeof(err));

	if (t == NULL)
		fprintf(stderr, "dcn-topo: %s\n", err);
	return t;
}

struct dcn_router *
load_router(const struct dcn_topo *t, const struct opts *o,
	    const struct dcn_failset *f)
{
	char err[DCN_TOPO_ERR_LEN];
	struct dcn_route_conf conf = o->conf;
	struct dcn_router *r;

	conf.algo = o->algo;
	conf.fail = f;
	conf.graph_only = o->no_routed;
	r = dcn_router_create_conf(t, &conf, err, sizeof(err));
	if (r == NULL)
		fprintf(stderr, "dcn-topo: %s\n", err);
	return r;
}

/* A ratio "0.08" or "8%": 0 with *ratio set; -1 when it is not one (a
 * ratio has a point or a percent sign, so "01" stays a node name). */
static int
parse_ratio(const char *s, double *ratio)
{
	char *end;
	double v;

	if (strpbrk(s, ".%") == NULL)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	/* written so that NaN fails too */
	if (*end != '\0' || !(v >= 0 && v <= 1))
		return -1;
	*ratio = v;
	return 0;
}

/*
 * Build the failure set of the options, with ratio override for the one
 * being swept (sweep_idx, or -1). @return 0 with *out (NULL when nothing
 * fails), or EXIT_USAGE.
 */
int
build_failset(const struct dcn_topo *t, const struct opts *o, int sweep_idx,
	      double sweep_ratio, uint64_t seed, struct dcn_failset **out)
{
	struct dcn_failset *f;
	unsigned int i;

	*out = NULL;
	if (o->n_fail == 0)
		return 0;
	f = dcn_topo_failset_create(t);
	if (f == NULL) {
		fprintf(stderr, "dcn-topo: out of memory\n");
		return 1;
	}
	for (i = 0; i < o->n_fail; i++) {
		const struct fail_opt *fo = &o->fail[i];
		char err[DCN_TOPO_ERR_LEN];
		double ratio;
		int64_t ret;

		if ((int)i == sweep_idx || parse_ratio(fo->arg, &ratio) == 0) {
			if ((int)i == sweep_idx)
				ratio = sweep_ratio;
			ret = dcn_topo_failset_random(f, fo->kind, ratio,
						      seed + 1000003 * i);
			if (ret < 0) {
				fprintf(stderr, "dcn-topo: --fail-%s %s: %s has none to fail\n",
					fail_names[fo->kind], fo->arg,
					dcn_topo_spec(t));
				dcn_topo_failset_free(f);
				return EXIT_USAGE;
			}
			continue;
		}
		if (strchr(fo->arg, ':') != NULL && sweep_idx < 0 &&
		    strchr(fo->arg, '~') == NULL &&
		    strspn(fo->arg, "0123456789.:%") == strlen(fo->arg)) {
			fprintf(stderr, "dcn-topo: --fail-%s %s: a range is for sweep\n",
				fail_names[fo->kind], fo->arg);
			dcn_topo_failset_free(f);
			return EXIT_USAGE;
		}
		if (dcn_topo_failset_parse(f, fo->kind, fo->arg, err,
					   sizeof(err)) < 0) {
			fprintf(stderr, "dcn-topo: --fail-%s: %s\n",
				fail_names[fo->kind], err);
			dcn_topo_failset_free(f);
			return EXIT_USAGE;
		}
	}
	*out = f;
	return 0;
}

int
load_vertex(const struct dcn_topo *t, const char *s, uint32_t *v)
{
	char err[DCN_TOPO_ERR_LEN];
	int64_t x = dcn_topo_parse_vertex(t, s, err, sizeof(err));

	if (x < 0) {
		fprintf(stderr, "dcn-topo: %s\n", err);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}
