/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The routers: which algorithm (route_ops, the one dispatch), a router's
 * life cycle, its VC count, candidate choice and route walks. Uses the
 * algorithms' tables and the leaves (route_common.c, route_redundancy.c);
 * none of them uses it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_priv.h"

static const struct {
	const char *name;
	const struct route_ops *ops;
} algos[DCN_ALGO_MAX] = {
	[DCN_ALGO_PORA] = { "pora", &route_pora_ops },
	[DCN_ALGO_DOR] = { "dor", &route_dor_ops },
	[DCN_ALGO_FAR] = { "far", &route_far_ops },
	[DCN_ALGO_RRECT] = { "rrect", &route_rrect_ops },
	[DCN_ALGO_ROW] = { "row", &route_row_ops },
	[DCN_ALGO_TRA] = { "tra", &route_tra_ops },
	/* The literal readings share their algorithm's table; the router's
	 * algo tells the corrections apart. */
	[DCN_ALGO_PORA_LITERAL] = { "pora-literal", &route_pora_ops },
	[DCN_ALGO_TFR] = { "tfr", &route_tfr_ops },
	[DCN_ALGO_FAR_LITERAL] = { "far-literal", &route_far_ops },
	[DCN_ALGO_TFR_LITERAL] = { "tfr-literal", &route_tfr_ops },
};

const char *
dcn_route_algo_name(enum dcn_route_algo algo)
{
	if (algo == DCN_ALGO_DEFAULT)
		return "default";
	return algo < DCN_ALGO_MAX ? algos[algo].name : "?";
}

int
dcn_route_algo_parse(const char *name)
{
	int a;

	if (strcmp(name, "default") == 0)
		return DCN_ALGO_DEFAULT;
	for (a = 1; a < DCN_ALGO_MAX; a++)
		if (strcmp(name, algos[a].name) == 0)
			return a;
	return -1;
}

static enum dcn_route_algo
default_algo(enum dcn_topo_kind kind)
{
	switch (kind) {
	case DCN_TOPO_NOVACUBE: return DCN_ALGO_PORA;
	case DCN_TOPO_TORUS: return DCN_ALGO_DOR;
	case DCN_TOPO_DIAMOND: return DCN_ALGO_FAR;
	case DCN_TOPO_RRECT: return DCN_ALGO_RRECT;
	case DCN_TOPO_LASCADA: return DCN_ALGO_ROW;
	case DCN_TOPO_TOTORO: return DCN_ALGO_TRA;
	default: return DCN_ALGO_DEFAULT;
	}
}

/* The VCs asked for, at most the rule's. */
static void
route_vc_limit(struct dcn_router *r)
{
	if (r->conf.vcs != 0 && r->conf.vcs < r->vcs)
		r->vcs = (uint8_t)r->conf.vcs;
}

/*
 * Virtual channels, so that credit waits cannot close a cycle (README.md,
 * "Virtual channels"): each algorithm's rule (route_ops.vc_rule) gives
 * the count, at most the header's 16, and whether a frame's h-th hop
 * between routing vertices travels on VC h-1 (every wait then for a
 * higher VC: no cycle while routes are no longer than the VCs, which
 * dcn-topo cdg checks) or by the algorithm's own advance.
 */
static void
route_vc_rule(struct dcn_router *r)
{
	int by_hops = 1;
	unsigned int v = r->ops->vc_rule(r, &by_hops);

	r->rule_wants = (uint16_t)v;
	r->vcs = (uint8_t)(v < DCN_ROUTE_MAX_VCS ? v : DCN_ROUTE_MAX_VCS);
	r->rule_vcs = r->vcs;
	r->vc_hops = (uint8_t)by_hops;
	route_vc_limit(r);
}

unsigned int
dcn_route_vcs(const struct dcn_router *r)
{
	return r->vcs;
}

unsigned int
dcn_route_rule_wants(const struct dcn_router *r)
{
	return r->rule_wants;
}

unsigned int
dcn_route_rule_vcs(const struct dcn_router *r)
{
	return r->rule_vcs;
}

int
dcn_route_vc_by_hops(const struct dcn_router *r)
{
	return r->vc_hops;
}

struct dcn_router *
dcn_router_create_conf(const struct dcn_topo *t,
		       const struct dcn_route_conf *conf, char *err,
		       size_t errlen)
{
	enum dcn_topo_kind kind = dcn_topo_kind(t);
	enum dcn_route_algo algo = conf->algo;
	const struct dcn_topo_params *p = dcn_topo_params(t);
	struct dcn_router *r;
	int ret;

	if (algo == DCN_ALGO_DEFAULT) {
		algo = default_algo(kind);
		if (kind == DCN_TOPO_TOTORO && conf->fail != NULL &&
		    !dcn_topo_failset_empty(conf->fail))
			algo = DCN_ALGO_TFR;
	}
	if (algo <= DCN_ALGO_DEFAULT || algo >= DCN_ALGO_MAX) {
		route_err(err, errlen, "unknown routing algorithm");
		errno = EINVAL;
		return NULL;
	}
	/* DOR runs on NovaCube too (ignoring its jump links). */
	if (algos[algo].ops->kind != kind &&
	    !(algo == DCN_ALGO_DOR && kind == DCN_TOPO_NOVACUBE)) {
		route_err(err, errlen, "%s routing does not apply to %s",
			  algos[algo].name, dcn_topo_kind_name(kind));
		errno = EINVAL;
		return NULL;
	}
	if (conf->fail != NULL && dcn_topo_failset_topo(conf->fail) != t) {
		route_err(err, errlen, "failure set is of another topology");
		errno = EINVAL;
		return NULL;
	}
	/* TRA has no rule for failures (§3.1): its routes would cross dead
	 * cables as if nothing had happened. */
	if (algo == DCN_ALGO_TRA && conf->fail != NULL &&
	    !dcn_topo_failset_empty(conf->fail) && !conf->graph_only) {
		route_err(err, errlen, "tra has no rule for failures (Totoro §3.1): "
			  "give tfr, its fault-tolerant routing (§3.2, Alg. 3), "
			  "which the default routing takes when something failed");
		errno = EINVAL;
		return NULL;
	}
	if (conf->rrect_mode != DCN_RRECT_NONE &&
	    (kind != DCN_TOPO_RRECT || p->m < 2 ||
	     (conf->rrect_mode == DCN_RRECT_STANDBY && conf->rrect_alpha >= p->m))) {
		route_err(err, errlen,
			  "redundancy needs RRect with m >= 2 (and alpha < m for standby)");
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	r->t = t;
	r->algo = algo;
	r->ops = algos[algo].ops;
	r->conf = *conf;
	r->conf.algo = algo;
	if (r->conf.ttl == 0)
		r->conf.ttl = 64;
	if (r->conf.rrect_mode == DCN_RRECT_STANDBY && r->conf.rrect_alpha == 0)
		r->conf.rrect_alpha = p->m - 1;
	if (conf->fail != NULL && !dcn_topo_failset_empty(conf->fail))
		r->fail = conf->fail;
	route_vc_rule(r);
	if (r->ops->init != NULL && !conf->graph_only) {
		ret = r->ops->init(r, err, errlen);
		if (ret < 0) {
			free(r);
			errno = -ret;
			return NULL;
		}
	}
	return r;
}

struct dcn_router *
dcn_router_for_failures(const struct dcn_topo *t,
			const struct dcn_route_conf *base,
			struct dcn_failset *fs, char *err, size_t errlen)
{
	struct dcn_route_conf rc = *base;

	if (fs != NULL)
		dcn_topo_failset_add_isolated(fs);
	rc.fail = fs;
	if (rc.algo == DCN_ALGO_DEFAULT)
		rc.algo = default_algo(dcn_topo_kind(t));
	/* Even with nothing known down: a frame that a relay which knows a
	 * failure put on Alg. 3, or on its way out and back, must go on by
	 * Alg. 3 at one that does not. Sent on by TRA, whose equal-length
	 * hops include the way back, it returned to where it was detoured
	 * from (test_fault_dp, totoro:N=4,n=4,K=2). TFR takes TRA's hops for
	 * every other frame. */
	if (rc.algo == DCN_ALGO_TRA)
		rc.algo = DCN_ALGO_TFR;
	return dcn_router_create_conf(t, &rc, err, errlen);
}

struct dcn_router *
dcn_router_create(const struct dcn_topo *t, enum dcn_route_algo algo,
		  char *err, size_t errlen)
{
	struct dcn_route_conf conf = { .algo = algo };

	return dcn_router_create_conf(t, &conf, err, errlen);
}

void
dcn_router_free(struct dcn_router *r)
{
	if (r == NULL)
		return;
	if (r->ops->fini != NULL)
		r->ops->fini(r);
	route_live_free(r);
	free(r);
}

const struct dcn_failset *
dcn_router_failset(const struct dcn_router *r)
{
	return r->conf.fail;
}

const struct dcn_route_conf *
dcn_router_conf(const struct dcn_router *r)
{
	return &r->conf;
}

const struct dcn_topo *
dcn_router_topo(const struct dcn_router *r)
{
	return r->t;
}

enum dcn_route_algo
dcn_router_algo(const struct dcn_router *r)
{
	return r->algo;
}

enum dcn_pick_mode
dcn_router_pick_mode(const struct dcn_router *r)
{
	return r->ops->pick;
}

unsigned int
dcn_route_candidates(const struct dcn_router *r, uint32_t cur, uint32_t dst,
		     const struct dcn_route_state *st, struct dcn_hop *out)
{
	if (cur == dst)
		return 0;
	return r->ops->candidates(r, cur, dst, st, out);
}

void
dcn_route_advance(const struct dcn_router *r, uint32_t cur,
		  const struct dcn_hop *h, struct dcn_route_state *st)
{
	/* A packet at its proxy has reached it, whatever the algorithm: an
	 * algorithm with no advance of its own (TRA) would send it on with
	 * the field still set, and the next relay, which goes to the proxy
	 * first, back here. */
	if (st->proxy == cur)
		st->proxy = DCN_ROUTE_NONE;
	if (r->ops->advance != NULL)
		r->ops->advance(r, cur, h, st);
	if (st->vc == DCN_VC_SPENT) {
		/* stays spent */
	} else if (r->vc_hops && dcn_topo_is_router(r->t, cur) &&
		   dcn_topo_is_router(r->t, h->next)) {
		unsigned int v = st->vc == DCN_VC_NONE ? 0 : st->vc + 1u;

		/* Fewer VCs asked for (conf.vcs) merge the last ones: the
		 * header then no longer counts hops past them. */
		st->vc = v >= r->rule_vcs ? DCN_VC_SPENT :
			 v < r->vcs ? (uint8_t)v : (uint8_t)(r->vcs - 1);
	} else if (st->vc != DCN_VC_NONE && st->vc >= r->vcs) {
		st->vc = (uint8_t)(r->vcs - 1);
	}
	if (st->ttl > 0)
		st->ttl--;
}

unsigned int
dcn_route_pick(enum dcn_pick_mode mode, const struct dcn_hop *hops,
	       unsigned int n, uint32_t draw)
{
	unsigned int i, best, cnt;
	uint32_t acc, target;

	if (n <= 1)
		return 0;
	switch (mode) {
	case DCN_PICK_WEIGHTED:
		/* Scale the draw onto the weight sum, so rounding of the
		 * stored weights never leaves a gap at the top. */
		for (i = 0, acc = 0; i < n; i++)
			acc += hops[i].weight;
		if (acc == 0)
			return draw % n;
		target = (uint32_t)(((uint64_t)draw * acc) >> 32);
		for (i = 0, acc = 0; i < n; i++) {
			acc += hops[i].weight;
			if (target < acc)
				return i;
		}
		return n - 1;
	case DCN_PICK_PRIORITY:
		best = hops[0].weight;
		for (i = 1; i < n; i++)
			if (hops[i].weight < best)
				best = hops[i].weight;
		for (i = 0, cnt = 0; i < n; i++)
			cnt += hops[i].weight == best;
		target = draw % cnt;
		for (i = 0; i < n; i++)
			if (hops[i].weight == best && target-- == 0)
				return i;
		return 0;
	case DCN_PICK_EQUAL:
	default:
		return draw % n;
	}
}

void
dcn_route_hop_len(const struct dcn_topo *t, const struct dcn_hop *h,
		  struct dcn_path_len *acc)
{
	if (h->via != DCN_ROUTE_NONE) {
		acc->links += 2;
		acc->switches += 1;
		acc->server_hops += 1;
		return;
	}
	acc->links += 1;
	if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND) {
		/* Server to server through switches counts once. */
		if (dcn_topo_role(t, h->next) == DCN_ROLE_SERVER)
			acc->server_hops += 1;
		else
			acc->switches += 1;
		return;
	}
	acc->server_hops += 1;
}

int
dcn_route_walk(const struct dcn_router *r, uint32_t src, uint32_t dst,
	       uint64_t *rng, uint32_t *path, unsigned int maxlen,
	       struct dcn_path_len *len)
{
	struct dcn_hop hops[DCN_ROUTE_MAX_HOPS];
	struct dcn_route_state st;
	struct dcn_path_len acc = { 0, 0, 0 };
	uint32_t cur = src;
	unsigned int nh = 0;

	if (!dcn_route_server_up(r, src))
		return -1;
	dst = dcn_route_resolve(r, dst);
	if (dst == DCN_ROUTE_NONE)
		return -1;
	dcn_route_state_init(r, src, dst, &st);
	if (path != NULL && maxlen > 0)
		path[0] = src;
	while (cur != dst) {
		unsigned int n, i;
		uint32_t draw;

		if (nh + 1 >= maxlen || st.ttl == 0)
			return -1;
		n = r->ops->candidates(r, cur, dst, &st, hops);
		if (n == 0)
			return -1;
		draw = rng != NULL ? (uint32_t)(dcn_rand(rng) >> 32) : 0;
		i = dcn_route_pick(r->ops->pick, hops, n, draw);
		dcn_route_advance(r, cur, &hops[i], &st);
		/* Past its VCs: the data path drops it (too_long). */
		if (st.vc == DCN_VC_SPENT)
			return -1;
		dcn_route_hop_len(r->t, &hops[i], &acc);
		cur = hops[i].next;
		nh++;
		if (path != NULL)
			path[nh] = cur;
	}
	if (len != NULL)
		*len = acc;
	return (int)nh;
}

/*
 * How far failure news travels is each algorithm's to say (route_ops'
 * lsa_hops and lsa_wants, README.md "Failures"); by default every relay
 * hears every announcement.
 */
unsigned int
dcn_route_lsa_hops(const struct dcn_router *r)
{
	return r->ops->lsa_hops != NULL ? r->ops->lsa_hops(r) : 255;
}

int
dcn_route_lsa_wants(const struct dcn_router *r, uint32_t node, uint32_t origin)
{
	return r->ops->lsa_wants != NULL ? r->ops->lsa_wants(r, node, origin) : 1;
}
