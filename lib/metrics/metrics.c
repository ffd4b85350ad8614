/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path figures of a fabric: by BFS over the graph (live or with failures),
 * and as its routing takes them, walked or, for randomly drawn routes,
 * taken exactly (metrics_exact.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_priv.h"

#define UNREACHED 0xffff

enum dcn_unit
dcn_metrics_paper_unit(enum dcn_topo_kind kind)
{
	switch (kind) {
	case DCN_TOPO_DIAMOND: return DCN_UNIT_SWITCHES;  /* Table I */
	case DCN_TOPO_TOTORO: return DCN_UNIT_LINKS;      /* Table 3, M_u */
	default: return DCN_UNIT_SERVER_HOPS;              /* hops */
	}
}

const char *
dcn_metrics_unit_name(enum dcn_unit u)
{
	static const char *const names[] = { "links", "server_hops",
					     "switches" };

	return u <= DCN_UNIT_SWITCHES ? names[u] : "?";
}

void
dcn_metrics_from_links(enum dcn_topo_kind kind, uint32_t links,
		       struct dcn_path_len *len)
{
	len->links = links;
	switch (kind) {
	case DCN_TOPO_NOVACUBE:
	case DCN_TOPO_TORUS:
		len->server_hops = links;
		len->switches = 0;
		break;
	case DCN_TOPO_DIAMOND:
		/* server - edge ... edge - server: no server relays. */
		len->server_hops = links ? 1 : 0;
		len->switches = links ? links - 1 : 0;
		break;
	default:
		/* Server-centric: every hop crosses one switch. */
		len->server_hops = links / 2;
		len->switches = links / 2;
		break;
	}
}

int
dcn_metrics_bfs(const struct dcn_topo *t, uint32_t src, uint16_t *dist)
{
	return dcn_metrics_bfs_live(t, NULL, src, dist);
}

int
dcn_metrics_bfs_live(const struct dcn_topo *t, const struct dcn_failset *f,
		     uint32_t src, uint16_t *dist)
{
	uint32_t nv = dcn_topo_vertices(t), head = 0, tail = 0, i;
	struct dcn_adj *adj;
	uint32_t *queue;

	queue = malloc((size_t)nv * sizeof(*queue));
	adj = malloc(dcn_topo_max_degree(t) * sizeof(*adj));
	if (queue == NULL || adj == NULL) {
		free(queue);
		free(adj);
		return -ENOMEM;
	}
	for (i = 0; i < nv; i++)
		dist[i] = UNREACHED;
	if (f != NULL && dcn_topo_failset_vertex_down(f, src)) {
		free(queue);
		free(adj);
		return 0;
	}
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t v = queue[head++];
		unsigned int n = f != NULL ? dcn_topo_failset_adj(f, v, adj)
					   : dcn_topo_adj(t, v, adj), a;

		for (a = 0; a < n; a++) {
			if (dist[adj[a].peer] != UNREACHED)
				continue;
			dist[adj[a].peer] = (uint16_t)(dist[v] + 1);
			queue[tail++] = adj[a].peer;
		}
	}
	free(queue);
	free(adj);
	return 0;
}

int
dcn_metrics_parts(const struct dcn_topo *t, const struct dcn_failset *f,
		  struct dcn_metrics_parts *out)
{
	uint32_t nv = dcn_topo_vertices(t), v, best = 0;
	uint16_t *dist = malloc((size_t)nv * sizeof(*dist));
	uint8_t *seen = calloc(nv, 1);
	double live = 0, same = 0;
	int ret = 0;

	if (dist == NULL || seen == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	/* One search per connected part, started at a server none reached. */
	for (v = 0; v < nv; v++) {
		uint32_t w, servers = 0;

		if (dcn_topo_role(t, v) != DCN_ROLE_SERVER ||
		    (f != NULL && dcn_topo_failset_vertex_down(f, v)))
			continue;
		live++;
		if (seen[v])
			continue;
		ret = dcn_metrics_bfs_live(t, f, v, dist);
		if (ret < 0)
			goto out;
		for (w = 0; w < nv; w++)
			if (dist[w] != UNREACHED) {
				seen[w] = 1;
				servers += dcn_topo_role(t, w) == DCN_ROLE_SERVER;
			}
		if (servers > best)
			best = servers;
		same += (double)servers * (servers - 1);
	}
	out->lost_servers = live ? (live - best) / live : 0;
	out->disconnected_pairs = live > 1 ? 1 - same / (live * (live - 1)) : 0;
out:
	free(dist);
	free(seen);
	return ret;
}

static void
acc_add(struct dcn_path_stats *s, struct acc *a, const struct dcn_path_len *l,
	enum dcn_unit unit, double weight)
{
	uint32_t v[3] = { l->links, l->server_hops, l->switches };
	unsigned int u;

	for (u = 0; u < 3; u++) {
		a->sum[u] += weight * v[u];
		if (v[u] > s->max[u])
			s->max[u] = v[u];
	}
	a->sumsq += weight * (double)v[unit] * v[unit];
	a->src_sum += weight * v[unit];
	a->src_cnt += weight;
	if (v[unit] < DCN_METRICS_HIST)
		s->hist[v[unit]] += 1;
}

/* The pairs of one source are in. */
static void
acc_source_end(struct acc *a)
{
	double m;

	if (a->src_cnt <= 0)
		return;
	m = a->src_sum / a->src_cnt;
	a->means += m;
	a->means_sq += m * m;
	a->n_means++;
	a->src_sum = a->src_cnt = 0;
}

static void
acc_finish(struct dcn_path_stats *s, const struct acc *a, double count,
	   enum dcn_unit unit)
{
	unsigned int u;
	double var;

	if (count <= 0)
		return;
	for (u = 0; u < 3; u++)
		s->mean[u] = a->sum[u] / count;
	var = a->sumsq / count - s->mean[unit] * s->mean[unit];
	s->sd = var > 0 ? sqrt(var) : 0;
	s->se = s->sd / sqrt(count);
}

/* Sources drawn at random: the error of the mean is that of the mean of
 * their means (their pairs move together). */
static void
acc_finish_sampled(struct dcn_path_stats *s, const struct acc *a)
{
	double n = a->n_means, mm, var;

	if (n < 2) {
		s->se = 0;
		return;
	}
	mm = a->means / n;
	var = (a->means_sq / n - mm * mm) * n / (n - 1);
	s->se = var > 0 ? sqrt(var / n) : 0;
}

/* Representative sources exact by symmetry, or 0 if none known. */
static uint32_t
symmetric_sources(const struct dcn_topo *t, uint32_t *src)
{
	const struct dcn_topo_params *p = dcn_topo_params(t);
	uint32_t i;

	switch (dcn_topo_kind(t)) {
	case DCN_TOPO_NOVACUBE:
		if (p->k % 2 != 0)
			return 0;
		/* FALLTHROUGH */
	case DCN_TOPO_TORUS:
	case DCN_TOPO_RRECT:
	case DCN_TOPO_DIAMOND:
		src[0] = 0;
		return 1;
	case DCN_TOPO_LASCADA:
		/* Shifting any C_l (l >= 2) is an automorphism of LaScaDa and of
		 * its routing; the nodes of one cluster cover every class. */
		for (i = 0; i < p->n; i++)
			src[i] = i;
		return p->n;
	default:
		return 0;
	}
}

static uint32_t
pick_sources(const struct dcn_topo *t, const struct dcn_metrics_opts *o,
	     int failures, uint32_t *src, int *exact)
{
	uint32_t ns = dcn_topo_servers(t), want, i, cnt;
	uint64_t rng = o->seed ? o->seed : 1;

	*exact = 0;
	if (o->sample == 0) {
		cnt = failures ? 0 : symmetric_sources(t, src);
		if (cnt != 0) {
			*exact = 1;
			return cnt;
		}
		if (ns <= 2048) {
			for (i = 0; i < ns; i++)
				src[i] = i;
			*exact = 1;
			return ns;
		}
		want = 64;
	} else {
		want = o->sample;
	}
	if (want >= ns) {
		for (i = 0; i < ns; i++)
			src[i] = i;
		*exact = 1;
		return ns;
	}
	/* Floyd's sampling without repetition. */
	{
		uint8_t *taken = calloc(ns, 1);

		if (taken == NULL)
			return 0;
		cnt = 0;
		for (i = ns - want; i < ns; i++) {
			uint32_t r = (uint32_t)(dcn_rand(&rng) % (i + 1));

			if (taken[r])
				r = i;
			taken[r] = 1;
			src[cnt++] = r;
		}
		free(taken);
	}
	return cnt;
}

/*
 * Address pairs from a whose source or destination has failed: served
 * when whoever answers for a reaches whoever answers for b (routes
 * between two live servers are counted with the routed walks).
 */
static void
served_from(const struct dcn_router *r, uint32_t a, unsigned int draws,
	    uint64_t *rng, struct dcn_metrics *m)
{
	uint32_t ns = dcn_topo_servers(dcn_router_topo(r)), b;
	uint32_t sa = dcn_route_resolve(r, a);
	int a_live = dcn_route_server_up(r, a);

	for (b = 0; b < ns; b++) {
		unsigned int d;

		if (b == a || !dcn_route_is_address(r, b))
			continue;
		m->address_pairs += draws;
		if (a_live && dcn_route_server_up(r, b))
			continue;   /* walked with the live pairs */
		if (sa == DCN_ROUTE_NONE)
			continue;
		for (d = 0; d < draws; d++)
			m->served += dcn_route_walk(r, sa, b, rng, NULL, 256,
						   NULL) >= 0;
	}
}

static int
same_pod(const struct dcn_topo *t, uint32_t a, uint32_t b)
{
	unsigned int ia, ja, xa, ib, jb, xb;

	dcn_topo_dm_decode(t, a, &ia, &ja, &xa);
	dcn_topo_dm_decode(t, b, &ib, &jb, &xb);
	return ia == ib;
}

/* Routed figures of every pair from the sources, exactly (ex != NULL)
 * or by walking draws walks a pair. @return 0, or -1 when the exact
 * chain outgrew its memo (the figures are then partial: walk instead). */
static int
routed_pass(const struct dcn_router *r, const uint32_t *src, uint32_t nsrc,
	    int sources_exact, unsigned int draws, uint64_t seed,
	    struct ex_memo *ex, struct dcn_metrics *m)
{
	const struct dcn_topo *t = dcn_router_topo(r);
	uint32_t ns = dcn_topo_servers(t), s;
	struct acc ar, ari, aro;
	double nr = 0, nri = 0, nro = 0;
	uint64_t rng = seed ? seed : 1;
	int diamond = dcn_topo_kind(t) == DCN_TOPO_DIAMOND;

	memset(&ar, 0, sizeof(ar));
	memset(&ari, 0, sizeof(ari));
	memset(&aro, 0, sizeof(aro));
	for (s = 0; s < nsrc; s++) {
		uint32_t a = src[s], b;

		if (dcn_route_is_address(r, a))
			served_from(r, a, draws, &rng, m);
		if (!dcn_route_server_up(r, a))
			continue;
		for (b = 0; b < ns; b++) {
			struct dcn_path_len len;
			unsigned int d;

			if (b == a || !dcn_route_server_up(r, b))
				continue;
			if (ex != NULL) {
				uint64_t before = m->routed.unreachable;

				if (ex_pair(ex, a, b, &m->routed, &ar, &nr) < 0)
					return -1;
				m->served += m->routed.unreachable == before &&
					     dcn_route_is_address(r, a) &&
					     dcn_route_is_address(r, b);
				continue;
			}
			for (d = 0; d < draws; d++) {
				int hops;

				m->routed.pairs++;
				hops = dcn_route_walk(r, a, b, &rng, NULL, 256, &len);
				if (hops < 0) {
					m->routed.unreachable++;
					continue;
				}
				m->served += dcn_route_is_address(r, a) &&
					     dcn_route_is_address(r, b);
				acc_add(&m->routed, &ar, &len, m->unit, 1);
				nr++;
				if (diamond && same_pod(t, a, b)) {
					acc_add(&m->routed_intra, &ari, &len, m->unit, 1);
					nri++;
				} else if (diamond) {
					acc_add(&m->routed_inter, &aro, &len, m->unit, 1);
					nro++;
				}
			}
		}
		acc_source_end(&ar);
		acc_source_end(&ari);
		acc_source_end(&aro);
	}
	acc_finish(&m->routed, &ar, nr, m->unit);
	acc_finish(&m->routed_intra, &ari, nri, m->unit);
	acc_finish(&m->routed_inter, &aro, nro, m->unit);
	if (!sources_exact) {
		acc_finish_sampled(&m->routed, &ar);
		acc_finish_sampled(&m->routed_intra, &ari);
		acc_finish_sampled(&m->routed_inter, &aro);
	}
	m->routed_intra.pairs = (uint64_t)nri;
	m->routed_inter.pairs = (uint64_t)nro;
	if (ex != NULL)
		m->routed.se = 0;
	return 0;
}

int
dcn_metrics_compute(const struct dcn_router *r,
		    const struct dcn_metrics_opts *o, struct dcn_metrics *m)
{
	const struct dcn_topo *t = dcn_router_topo(r);
	const struct dcn_failset *f = dcn_router_failset(r);
	enum dcn_topo_kind kind = dcn_topo_kind(t);
	uint32_t ns = dcn_topo_servers(t), *src, s;
	struct acc ab;
	struct acc abi, abo;
	double nb = 0, nbi = 0, nbo = 0;
	uint16_t *dist = NULL;
	unsigned int draws = o->draws;
	int diamond = kind == DCN_TOPO_DIAMOND, sources_exact;
	int weighted = dcn_router_pick_mode(r) == DCN_PICK_WEIGHTED;

	memset(m, 0, sizeof(*m));
	memset(&ab, 0, sizeof(ab));
	memset(&abi, 0, sizeof(abi));
	memset(&abo, 0, sizeof(abo));
	m->servers = ns;
	m->switches = dcn_topo_switches(t);
	m->links = dcn_topo_links(t);
	m->unit = dcn_metrics_paper_unit(kind);
	if (draws == 0)
		draws = weighted ? 16 : 1;

	src = malloc((size_t)ns * sizeof(*src));
	if (src == NULL)
		return -ENOMEM;
	if (f != NULL && dcn_topo_failset_empty(f))
		f = NULL;
	m->sources = pick_sources(t, o, f != NULL, src, &sources_exact);
	m->exact = sources_exact;
	if (o->bfs) {
		dist = malloc((size_t)dcn_topo_vertices(t) * sizeof(*dist));
		if (dist == NULL) {
			free(src);
			return -ENOMEM;
		}
	}
	for (s = 0; o->bfs && s < m->sources; s++) {
		uint32_t a = src[s], b;

		if (!dcn_route_server_up(r, a))
			continue;
		if (dcn_metrics_bfs_live(t, f, a, dist) < 0) {
			free(dist);
			free(src);
			return -ENOMEM;
		}
		for (b = 0; b < ns; b++) {
			struct dcn_path_len len;

			if (b == a || !dcn_route_server_up(r, b))
				continue;
			m->bfs.pairs++;
			if (dist[b] == UNREACHED) {
				m->bfs.unreachable++;
				continue;
			}
			dcn_metrics_from_links(kind, dist[b], &len);
			acc_add(&m->bfs, &ab, &len, m->unit, 1);
			nb++;
			if (diamond && same_pod(t, a, b)) {
				acc_add(&m->bfs_intra, &abi, &len, m->unit, 1);
				nbi++;
			} else if (diamond) {
				acc_add(&m->bfs_inter, &abo, &len, m->unit, 1);
				nbo++;
			}
		}
		acc_source_end(&ab);
		acc_source_end(&abi);
		acc_source_end(&abo);
	}
	acc_finish(&m->bfs, &ab, nb, m->unit);
	acc_finish(&m->bfs_intra, &abi, nbi, m->unit);
	acc_finish(&m->bfs_inter, &abo, nbo, m->unit);
	m->bfs_intra.pairs = (uint64_t)nbi;
	m->bfs_inter.pairs = (uint64_t)nbo;
	if (sources_exact) {
		m->bfs.se = 0;
		m->bfs_intra.se = 0;
		m->bfs_inter.se = 0;
	} else {
		acc_finish_sampled(&m->bfs, &ab);
		acc_finish_sampled(&m->bfs_intra, &abi);
		acc_finish_sampled(&m->bfs_inter, &abo);
	}
	if (o->routed) {
		struct ex_memo ex = { r, m->unit, NULL, 0, 0 };
		int done = -1;

		/* Drawn routes exactly where the sources are exact and
		 * nothing failed (a failure can make a PORA walk drop, a
		 * share the counts here would round). */
		if (weighted && sources_exact && f == NULL) {
			if (ex_memo_init(&ex) == 0)
				done = routed_pass(r, src, m->sources, 1, 1,
						   o->seed, &ex, m);
			ex_memo_fini(&ex);
		}
		if (done != 0) {
			memset(&m->routed, 0, sizeof(m->routed));
			memset(&m->routed_intra, 0, sizeof(m->routed_intra));
			memset(&m->routed_inter, 0, sizeof(m->routed_inter));
			m->address_pairs = m->served = 0;
			routed_pass(r, src, m->sources, sources_exact, draws,
				    o->seed, NULL, m);
			/* Drawn routes walked are a sample. */
			m->exact &= !weighted;
		}
		/* Every pair measured, each route exactly: no sampling
		 * error, whatever the spread of the routes' lengths. */
		if (m->exact)
			m->routed.se = m->routed_intra.se = m->routed_inter.se = 0;
	}
	free(dist);
	free(src);
	return 0;
}
