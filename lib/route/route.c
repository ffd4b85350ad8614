/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router life cycle, candidate choice and route walks, common to all
 * algorithms.
 */
#include <errno.h>
#include <stdarg.h>
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

void
route_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

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
 * "Virtual channels"). NovaCube and the torus keep the paper's dateline
 * (§5.3) in pairs of VCs, one pair per break of dimension order
 * (nc_vc_advance): PORA takes three pairs without failures; n + 3 pairs
 * cover the detours of failures in the configurations dcn-topo cdg was
 * run on (tests/cli/cdg.py). Every other routing numbers a
 * frame's hops between routing vertices: its h-th travels on VC h-1, so
 * every wait is for a higher VC and the channel dependency graph has no
 * cycle while routes are no longer than the VCs (dcn-topo cdg checks it).
 * The count is the longest route each paper's routing takes, failures
 * included: RRect k+1 hops, one more for an indirect parallel path
 * (Alg. 2); Totoro 2K+1 server hops, two more for TFR's way out and back,
 * two more from K = 2 for a TRA hop towards a crossing found dead;
 * LaScaDa its MaxLifeTime (16 when none is given); FAR 4 switch-to-switch
 * hops, one more for a detour round a failed cable.
 */
static void
route_vc_rule(struct dcn_router *r)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	unsigned int v;

	switch (dcn_topo_kind(r->t)) {
	case DCN_TOPO_NOVACUBE:
	case DCN_TOPO_TORUS:
		v = 2 * (p->n + 3);
		/* PORA's detours round failures (route_pora.c) take one VC
		 * a hop above where they begin: every VC the header has. */
		if (r->algo == DCN_ALGO_PORA)
			v = DCN_ROUTE_MAX_VCS;
		r->rule_wants = (uint16_t)v;
		r->vcs = (uint8_t)(v < DCN_ROUTE_MAX_VCS ? v : DCN_ROUTE_MAX_VCS);
		r->rule_vcs = r->vcs;
		r->vc_hops = 0;
		route_vc_limit(r);
		return;
	case DCN_TOPO_RRECT:
		v = p->k + 2;
		break;
	case DCN_TOPO_TOTORO:
		/* From K = 2 a relay can take a TRA hop towards a crossing
		 * beyond what it knows (its broadcast domain) that a relay
		 * further on finds dead: the way there and back costs two
		 * more (Totoro(4,4,2): 8 hops, (8,2,3): 11, every single
		 * failure; tests/cli/cdg.py). */
		v = 2 * p->K + 3 + (p->K >= 2 ? 2 : 0);
		break;
	case DCN_TOPO_LASCADA:
		v = r->conf.max_life ? r->conf.max_life : DCN_ROUTE_MAX_VCS;
		break;
	default:
		/* FAR: 4 switch hops fault-free; its detours round failures
		 * go over live switch hops (route_far.c), which under random
		 * failures of up to 30% of the links took at most 9 on
		 * Diamond k=4 and 7 on k=8 (tests/cli/cdg.py). */
		v = 12;
		break;
	}
	r->rule_wants = (uint16_t)v;
	r->vcs = (uint8_t)(v < DCN_ROUTE_MAX_VCS ? v : DCN_ROUTE_MAX_VCS);
	r->rule_vcs = r->vcs;
	r->vc_hops = 1;
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

struct route_live {
	uint8_t *dist;   /* [target row][vertex] */
	uint32_t *row;   /* vertex -> row + 1, 0: none yet */
	uint32_t rows, cap;
};

void
route_live_bfs(const struct dcn_router *r, uint32_t v, uint8_t *dist,
	       uint32_t *queue)
{
	uint32_t nv = dcn_topo_vertices(r->t), head = 0, tail = 0;
	struct dcn_adj a[256];

	memset(dist, 0xff, nv);
	if (!rt_up(r, v) || dcn_topo_max_degree(r->t) > 256)
		return;
	dist[v] = 0;
	queue[tail++] = v;
	while (head < tail) {
		uint32_t x = queue[head++];
		unsigned int n, i;

		if (dist[x] >= 0xfe)
			continue;
		n = r->fail != NULL ? dcn_topo_failset_adj(r->fail, x, a) :
				      dcn_topo_adj(r->t, x, a);
		for (i = 0; i < n; i++)
			if (dist[a[i].peer] == 0xff) {
				dist[a[i].peer] = (uint8_t)(dist[x] + 1);
				queue[tail++] = a[i].peer;
			}
	}
}

/* Targets kept at once: beyond, rows are built again (a walk asks about
 * one destination at a time). */
#define LIVE_ROWS_MAX 4096

unsigned int
route_live_dist(const struct dcn_router *r, uint32_t v, uint32_t target)
{
	struct dcn_router *w = (struct dcn_router *)r;
	uint32_t nv = dcn_topo_vertices(r->t), *queue, row;
	struct route_live *L = w->live;

	if (L == NULL) {
		L = calloc(1, sizeof(*L));
		if (L == NULL)
			return 0xff;
		L->row = calloc(nv, sizeof(*L->row));
		L->cap = (uint32_t)(((size_t)64 << 20) / nv);   /* 64 MB at most */
		if (L->cap > LIVE_ROWS_MAX)
			L->cap = LIVE_ROWS_MAX;
		if (L->cap == 0)
			L->cap = 1;
		L->dist = malloc((size_t)L->cap * nv);
		if (L->row == NULL || L->dist == NULL) {
			free(L->row);
			free(L->dist);
			free(L);
			return 0xff;
		}
		w->live = L;
	}
	if (L->row[target] != 0)
		return L->dist[(size_t)(L->row[target] - 1) * nv + v];
	if (L->rows == L->cap) {
		/* Full: start over. */
		memset(L->row, 0, nv * sizeof(*L->row));
		L->rows = 0;
	}
	queue = malloc(nv * sizeof(*queue));
	if (queue == NULL)
		return 0xff;
	row = L->rows++;
	route_live_bfs(r, target, L->dist + (size_t)row * nv, queue);
	free(queue);
	L->row[target] = row + 1;
	return L->dist[(size_t)row * nv + v];
}

void
dcn_router_free(struct dcn_router *r)
{
	if (r == NULL)
		return;
	if (r->ops->fini != NULL)
		r->ops->fini(r);
	if (r->live != NULL) {
		free(r->live->dist);
		free(r->live->row);
		free(r->live);
	}
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

void
dcn_route_state_init(const struct dcn_router *r, uint32_t src, uint32_t dst,
		     struct dcn_route_state *st)
{
	memset(st, 0, sizeof(*st));
	st->src = src;
	st->dst = dst;
	st->proxy = DCN_ROUTE_NONE;
	st->phase = DCN_PORA_SOURCE;
	st->last_dim = 0xff;
	st->path = DCN_PATH_ANY;
	st->ttl = (uint8_t)(r->conf.ttl > 255 ? 255 : r->conf.ttl);
	if (r->vc_hops)
		st->vc = DCN_VC_NONE;
	if (r->ops->state_init != NULL)
		r->ops->state_init(r, src, dst, st);
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
	/* A packet at its proxy has reached it, whatever the algorithm: a
	 * relay that knows no failure routes by TRA, which has no advance of
	 * its own, and sent on with the field still set the packet came back
	 * here from the next relay, which goes to the proxy first. */
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

/* RRect redundancy: sub-group members of v are a_0 = c n + g, c in [0,m). */
static uint32_t
rrect_member(const struct dcn_router *r, uint32_t v, unsigned int c)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	uint32_t mn = p->m * p->n, a0 = v % mn;

	return v - a0 + c * p->n + a0 % p->n;
}

/* Standby c_s of v's sub-group is awake when fewer live standbys come
 * before it than working members have failed. @return 1 if awake. */
static int
rrect_standby_awake(const struct dcn_router *r, uint32_t s)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	unsigned int alpha = r->conf.rrect_alpha, c, failed = 0, before = 0;
	unsigned int cs = s % (p->m * p->n) / p->n;

	for (c = 0; c < alpha; c++)
		failed += !rt_up(r, rrect_member(r, s, c));
	for (c = alpha; c < cs; c++)
		before += rt_up(r, rrect_member(r, s, c));
	return before < failed;
}

int
dcn_route_is_address(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p;

	if (r->conf.rrect_mode != DCN_RRECT_STANDBY)
		return 1;
	p = dcn_topo_params(r->t);
	return v % (p->m * p->n) / p->n < r->conf.rrect_alpha;
}

int
dcn_route_server_up(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p;

	if (!rt_up(r, v))
		return 0;
	if (r->conf.rrect_mode != DCN_RRECT_STANDBY)
		return 1;
	p = dcn_topo_params(r->t);
	if (v % (p->m * p->n) / p->n < r->conf.rrect_alpha)
		return 1;
	return rrect_standby_awake(r, v);
}

uint32_t
route_rrect_identity(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p;
	unsigned int alpha = r->conf.rrect_alpha, cv, c, rank = 0;

	if (r->conf.rrect_mode != DCN_RRECT_STANDBY || !rt_up(r, v))
		return v;
	p = dcn_topo_params(r->t);
	cv = v % (p->m * p->n) / p->n;
	if (cv < alpha || !rrect_standby_awake(r, v))
		return v;
	/* The rank-th live standby takes over the rank-th failed working
	 * member (dcn_route_resolve): the inverse. */
	for (c = alpha; c < cv; c++)
		rank += rt_up(r, rrect_member(r, v, c));
	for (c = 0; c < alpha; c++)
		if (!rt_up(r, rrect_member(r, v, c)) && rank-- == 0)
			return rrect_member(r, v, c);
	return v;
}

uint32_t
dcn_route_resolve(const struct dcn_router *r, uint32_t v)
{
	const struct dcn_topo_params *p = dcn_topo_params(r->t);
	unsigned int c0, i, failed = 0, alpha = r->conf.rrect_alpha;

	if (rt_up(r, v))
		return dcn_route_server_up(r, v) ? v : DCN_ROUTE_NONE;
	switch (r->conf.rrect_mode) {
	case DCN_RRECT_MIRROR:
		/* The next live member of the sub-group answers. */
		c0 = v % (p->m * p->n) / p->n;
		for (i = 1; i < p->m; i++) {
			uint32_t w = rrect_member(r, v, (c0 + i) % p->m);

			if (rt_up(r, w))
				return w;
		}
		return DCN_ROUTE_NONE;
	case DCN_RRECT_STANDBY:
		/* The i-th failed working member is taken over by the i-th
		 * live standby. */
		c0 = v % (p->m * p->n) / p->n;
		if (c0 >= alpha)
			return DCN_ROUTE_NONE;
		for (i = 0; i < c0; i++)
			failed += !rt_up(r, rrect_member(r, v, i));
		for (i = alpha; i < p->m; i++) {
			uint32_t w = rrect_member(r, v, i);

			if (!rt_up(r, w))
				continue;
			if (failed-- == 0)
				return w;
		}
		/* No standby awake for it: with alpha > 1 the working members
		 * of a sub-group are mirrors to each other, and "a mirror of
		 * the failed server can do the failover" (§5, last
		 * paragraph): the next live one stands in. A standby comes
		 * first, as the paper would under load. */
		for (i = 1; i < alpha; i++) {
			uint32_t w = rrect_member(r, v, (c0 + i) % alpha);

			if (rt_up(r, w))
				return w;
		}
		return DCN_ROUTE_NONE;
	default:
		return DCN_ROUTE_NONE;
	}
}

int
route_port_to(const struct dcn_topo *t, uint32_t cur, uint32_t peer)
{
	struct dcn_adj adj[256];
	unsigned int n, i;

	if (dcn_topo_max_degree(t) > 256)
		return -1;
	n = dcn_topo_adj(t, cur, adj);
	for (i = 0; i < n; i++)
		if (adj[i].peer == peer)
			return adj[i].port;
	return -1;
}

/*
 * How far failure news travels, per paper (README.md, "Failures"):
 * FAR broadcasts every link failure to all switches (§IV-B); RRect
 * announces failed servers to all (§5); Totoro shares link states inside
 * the broadcast domain (§3.2); PORA repairs at the node that sees the
 * failure (a source cannot know of a failure further on, §5); LaScaDa's
 * detour (Alg. 4) looks for a new source among the live servers around
 * the stuck one, its cluster first and then the neighbouring clusters, so
 * news goes two relays out.
 */
/*
 * LaScaDa floods the fabric as RRect and FAR do: Alg. 4's search for a
 * new source reaches as far as the hops a packet has left, and the route
 * to that proxy is a live shortest path, so a relay routes as the model
 * does only knowing every failure within MaxLifeTime of it (in practice,
 * the fabric's). Two relays out, detours looped between relays that
 * disagreed for as long as a failure lasted (tests/unit/test_fault_dp.c).
 */
unsigned int
dcn_route_lsa_hops(const struct dcn_router *r)
{
	switch (r->algo) {
	case DCN_ALGO_PORA_LITERAL:
	case DCN_ALGO_DOR:
		return 0;
	default:
		return 255;
	}
}

int
dcn_route_lsa_wants(const struct dcn_router *r, uint32_t node, uint32_t origin)
{
	switch (r->algo) {
	case DCN_ALGO_PORA_LITERAL:
	case DCN_ALGO_DOR:
		return node == origin;
	case DCN_ALGO_TRA:
	case DCN_ALGO_TFR:
	case DCN_ALGO_TFR_LITERAL:
		return route_tt_lsa_wants(r, node, origin);
	default:
		return 1;
	}
}
