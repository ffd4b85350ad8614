/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failure sets. Failed vertices are a byte per vertex; failed cables an
 * open-addressing set keyed by (vertex, port), both ends stored, so a
 * lookup is one probe sequence and an empty set costs nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo_priv.h"

struct dcn_failset {
	const struct dcn_topo *t;
	uint8_t *vdown;
	uint64_t *keys;     /* key + 1, 0 = empty */
	uint32_t cap, used; /* slots, cable ends stored */
	uint64_t n_links;
	uint32_t n_servers, n_switches;
};

static inline uint64_t
link_key(uint32_t v, uint16_t port)
{
	return ((uint64_t)v << 16 | port) + 1;
}

static inline uint32_t
key_slot(uint64_t key, uint32_t cap)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(key >> 32) & (cap - 1);
}

struct dcn_failset *
dcn_topo_failset_create(const struct dcn_topo *t)
{
	struct dcn_failset *f = calloc(1, sizeof(*f));

	if (f == NULL)
		goto enomem;
	f->t = t;
	f->vdown = calloc(dcn_topo_vertices(t), 1);
	f->cap = 64;
	f->keys = calloc(f->cap, sizeof(*f->keys));
	if (f->vdown == NULL || f->keys == NULL) {
		dcn_topo_failset_free(f);
		goto enomem;
	}
	return f;
enomem:
	errno = ENOMEM;
	return NULL;
}

void
dcn_topo_failset_free(struct dcn_failset *f)
{
	if (f == NULL)
		return;
	free(f->vdown);
	free(f->keys);
	free(f);
}

const struct dcn_topo *
dcn_topo_failset_topo(const struct dcn_failset *f)
{
	return f->t;
}

static int
set_has(const struct dcn_failset *f, uint64_t key)
{
	uint32_t j;

	for (j = key_slot(key, f->cap); f->keys[j] != 0; j = (j + 1) & (f->cap - 1))
		if (f->keys[j] == key)
			return 1;
	return 0;
}

static int
set_add(struct dcn_failset *f, uint64_t key)
{
	uint32_t j;

	if ((f->used + 1) * 2 > f->cap) {
		uint32_t ncap = f->cap * 2, i;
		uint64_t *nk = calloc(ncap, sizeof(*nk));

		if (nk == NULL)
			return -ENOMEM;
		for (i = 0; i < f->cap; i++) {
			if (f->keys[i] == 0)
				continue;
			for (j = key_slot(f->keys[i], ncap); nk[j] != 0;
			     j = (j + 1) & (ncap - 1))
				;
			nk[j] = f->keys[i];
		}
		free(f->keys);
		f->keys = nk;
		f->cap = ncap;
	}
	for (j = key_slot(key, f->cap); f->keys[j] != 0; j = (j + 1) & (f->cap - 1))
		if (f->keys[j] == key)
			return 0;
	f->keys[j] = key;
	f->used++;
	return 1;
}

int
dcn_topo_failset_add_link(struct dcn_failset *f, uint32_t v, uint16_t port)
{
	struct dcn_adj a[256];
	unsigned int n, i;
	int r1, r2;

	if (v >= dcn_topo_vertices(f->t) || dcn_topo_max_degree(f->t) > 256)
		return -EINVAL;
	n = dcn_topo_adj(f->t, v, a);
	for (i = 0; i < n; i++)
		if (a[i].port == port)
			break;
	if (i == n)
		return -EINVAL;
	r1 = set_add(f, link_key(v, port));
	if (r1 < 0)
		return r1;
	r2 = set_add(f, link_key(a[i].peer, a[i].peer_port));
	if (r2 < 0)
		return r2;
	if (r1 > 0)
		f->n_links++;
	return 0;
}

int
dcn_topo_failset_add_vertex(struct dcn_failset *f, uint32_t v)
{
	if (v >= dcn_topo_vertices(f->t))
		return -EINVAL;
	if (f->vdown[v])
		return 0;
	f->vdown[v] = 1;
	if (v < dcn_topo_servers(f->t))
		f->n_servers++;
	else
		f->n_switches++;
	return 0;
}

/* The switch a rack hangs off: port 0 of every server-centric server,
 * the edge switch of a Diamond server. */
int
dcn_topo_failset_add_rack(struct dcn_failset *f, uint32_t server)
{
	struct dcn_adj a[DCN_TOPO_MAX_SERVER_PORTS], *m;
	unsigned int n, i;
	uint32_t sw;

	if (server >= dcn_topo_servers(f->t) ||
	    f->t->kind == DCN_TOPO_NOVACUBE || f->t->kind == DCN_TOPO_TORUS)
		return -EINVAL;
	dcn_topo_adj(f->t, server, a);
	sw = a[0].peer;
	m = malloc(dcn_topo_max_degree(f->t) * sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	n = dcn_topo_adj(f->t, sw, m);
	dcn_topo_failset_add_vertex(f, sw);
	for (i = 0; i < n; i++)
		if (m[i].peer < dcn_topo_servers(f->t))
			dcn_topo_failset_add_vertex(f, m[i].peer);
	free(m);
	return 0;
}

void
dcn_topo_failset_foreach_link(const struct dcn_failset *f,
			      void (*fn)(uint32_t v, uint16_t port, void *arg),
			      void *arg)
{
	struct dcn_adj a[256];
	uint32_t i;

	for (i = 0; i < f->cap; i++) {
		uint64_t key = f->keys[i];
		uint32_t v;
		uint16_t port;
		unsigned int n, j;

		if (key == 0)
			continue;
		v = (uint32_t)((key - 1) >> 16);
		port = (uint16_t)((key - 1) & 0xffff);
		n = dcn_topo_adj(f->t, v, a);
		for (j = 0; j < n; j++)
			if (a[j].port == port && a[j].peer > v)
				fn(v, port, arg);
	}
}

int
dcn_topo_failset_vertex_down(const struct dcn_failset *f, uint32_t v)
{
	return f->vdown[v];
}

int
dcn_topo_failset_link_down(const struct dcn_failset *f, uint32_t v,
			   uint16_t port, uint32_t peer)
{
	if (f->vdown[v] || f->vdown[peer])
		return 1;
	return f->used != 0 && set_has(f, link_key(v, port));
}

unsigned int
dcn_topo_failset_add_isolated(struct dcn_failset *f)
{
	const struct dcn_topo *t = f->t;
	uint32_t v, n = dcn_topo_servers(t);
	struct dcn_adj a[256];
	unsigned int added = 0;

	if (dcn_topo_max_degree(t) > 256)
		return 0;
	for (v = 0; v < n; v++)
		if (!f->vdown[v] && dcn_topo_is_router(t, v) &&
		    dcn_topo_adj(t, v, a) > 0 && dcn_topo_failset_adj(f, v, a) == 0 &&
		    dcn_topo_failset_add_vertex(f, v) == 0)
			added++;
	return added;
}

int
dcn_topo_failset_empty(const struct dcn_failset *f)
{
	return f->used == 0 && f->n_servers == 0 && f->n_switches == 0;
}

void
dcn_topo_failset_counts(const struct dcn_failset *f, uint64_t *links,
			uint32_t *servers, uint32_t *switches)
{
	*links = f->n_links;
	*servers = f->n_servers;
	*switches = f->n_switches;
}

unsigned int
dcn_topo_failset_adj(const struct dcn_failset *f, uint32_t v,
		     struct dcn_adj *out)
{
	unsigned int n, i, m = 0;

	if (f->vdown[v])
		return 0;
	n = dcn_topo_adj(f->t, v, out);
	for (i = 0; i < n; i++)
		if (!dcn_topo_failset_link_down(f, v, out[i].port, out[i].peer))
			out[m++] = out[i];
	return m;
}

/*
 * Choose m of total items without repetition (Floyd); chosen[i] set.
 */
static int
choose(uint64_t total, uint64_t m, uint64_t seed, uint8_t *chosen)
{
	uint64_t i, rng = seed ? seed : 1;

	for (i = total - m; i < total; i++) {
		uint64_t r;

		rng += 0x9e3779b97f4a7c15ull;
		r = rng;
		r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ull;
		r = (r ^ (r >> 27)) * 0x94d049bb133111ebull;
		r = (r ^ (r >> 31)) % (i + 1);
		if (chosen[r])
			r = i;
		chosen[r] = 1;
	}
	return 0;
}

/* Racks are numbered by their base switch. */
static uint32_t
rack_count(const struct dcn_topo *t)
{
	switch (t->kind) {
	case DCN_TOPO_DIAMOND: return t->p.k * t->p.k;
	case DCN_TOPO_RRECT: return t->u.rr.sw_per_level;
	case DCN_TOPO_LASCADA: return t->u.ls.sw_per_layer;
	case DCN_TOPO_TOTORO: return t->u.tt.pow_n[t->u.tt.K];
	default: return 0;
	}
}

static uint32_t
rack_server(const struct dcn_topo *t, uint32_t rack)
{
	switch (t->kind) {
	case DCN_TOPO_DIAMOND: return rack * t->u.dm.q;
	case DCN_TOPO_RRECT: return rack * t->u.rr.mn;
	case DCN_TOPO_LASCADA: return rack * t->u.ls.n;
	default: return rack * t->u.tt.N;
	}
}

int64_t
dcn_topo_failset_random(struct dcn_failset *f, enum dcn_fail_kind kind,
			double ratio, uint64_t seed)
{
	const struct dcn_topo *t = f->t;
	uint64_t total, m, i;
	uint8_t *chosen;
	int ret = 0;

	if (!(ratio >= 0 && ratio <= 1))
		return -EINVAL;
	switch (kind) {
	case DCN_FAIL_LINKS: total = t->n_links; break;
	case DCN_FAIL_SERVERS: total = t->n_servers; break;
	case DCN_FAIL_SWITCHES: total = t->n_switches; break;
	case DCN_FAIL_RACKS: total = rack_count(t); break;
	default: return -EINVAL;
	}
	if (total == 0)
		return ratio == 0 ? 0 : -EINVAL;
	m = (uint64_t)llround(ratio * (double)total);
	chosen = calloc(total, 1);
	if (chosen == NULL)
		return -ENOMEM;
	choose(total, m, seed, chosen);
	if (kind == DCN_FAIL_LINKS) {
		/* Cables in canonical order: by lower end, then port. */
		struct dcn_adj *a = malloc(t->max_degree * sizeof(*a));
		uint64_t idx = 0;
		uint32_t v;

		if (a == NULL) {
			free(chosen);
			return -ENOMEM;
		}
		for (v = 0; v < dcn_topo_vertices(t) && ret >= 0; v++) {
			unsigned int n = dcn_topo_adj(t, v, a), j;

			for (j = 0; j < n && ret >= 0; j++) {
				if (a[j].peer < v)
					continue;
				if (chosen[idx++])
					ret = dcn_topo_failset_add_link(f, v, a[j].port);
			}
		}
		free(a);
	} else {
		for (i = 0; i < total && ret >= 0; i++) {
			if (!chosen[i])
				continue;
			if (kind == DCN_FAIL_SERVERS)
				ret = dcn_topo_failset_add_vertex(f, (uint32_t)i);
			else if (kind == DCN_FAIL_SWITCHES)
				ret = dcn_topo_failset_add_vertex(f,
					t->n_servers + (uint32_t)i);
			else
				ret = dcn_topo_failset_add_rack(f,
					rack_server(t, (uint32_t)i));
		}
	}
	free(chosen);
	return ret < 0 ? ret : (int64_t)m;
}

static int
add_named_link(struct dcn_failset *f, char *item, char *err, size_t len)
{
	const struct dcn_topo *t = f->t;
	char *sep = strrchr(item, '~'), *colon;
	int64_t a, b;

	if (sep != NULL) {
		struct dcn_adj *adj;
		unsigned int n, i;
		int ret = -1;

		*sep = '\0';
		a = dcn_topo_parse_vertex(t, item, err, len);
		b = a < 0 ? -1 : dcn_topo_parse_vertex(t, sep + 1, err, len);
		if (b < 0)
			return -1;
		adj = malloc(t->max_degree * sizeof(*adj));
		if (adj == NULL)
			return -1;
		n = dcn_topo_adj(t, (uint32_t)a, adj);
		for (i = 0; i < n; i++)
			if (adj[i].peer == (uint32_t)b)
				ret = dcn_topo_failset_add_link(f, (uint32_t)a,
								adj[i].port);
		free(adj);
		if (ret < 0)
			topo_err(err, len, "link '%s~%s': not neighbours", item,
				 sep + 1);
		return ret < 0 ? -1 : 0;
	}
	colon = strrchr(item, ':');
	if (colon != NULL) {
		char *end;
		unsigned long port;

		*colon = '\0';
		a = dcn_topo_parse_vertex(t, item, err, len);
		if (a < 0)
			return -1;
		port = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end != '\0' || port > 0xffff ||
		    dcn_topo_failset_add_link(f, (uint32_t)a, (uint16_t)port) < 0) {
			topo_err(err, len, "link '%s:%s': no cable on that port", item,
				 colon + 1);
			return -1;
		}
		return 0;
	}
	topo_err(err, len, "link '%s': expected NAME:PORT or NAME~NAME", item);
	return -1;
}

int
dcn_topo_failset_parse(struct dcn_failset *f, enum dcn_fail_kind kind,
		       const char *list, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL, *item;
	int count = 0;

	if (copy == NULL) {
		topo_err(err, errlen, "out of memory");
		return -1;
	}
	for (item = strtok_r(copy, "; \t", &save); item != NULL;
	     item = strtok_r(NULL, "; \t", &save)) {
		int64_t v;
		int ret;

		if (kind == DCN_FAIL_LINKS) {
			if (add_named_link(f, item, err, errlen) < 0)
				goto fail;
			count++;
			continue;
		}
		v = dcn_topo_parse_vertex(f->t, item, err, errlen);
		if (v < 0)
			goto fail;
		if (kind == DCN_FAIL_SERVERS &&
		    dcn_topo_role(f->t, (uint32_t)v) != DCN_ROLE_SERVER) {
			topo_err(err, errlen, "'%s' is not a server", item);
			goto fail;
		}
		if (kind == DCN_FAIL_SWITCHES &&
		    dcn_topo_role(f->t, (uint32_t)v) == DCN_ROLE_SERVER) {
			topo_err(err, errlen, "'%s' is not a switch", item);
			goto fail;
		}
		if (kind == DCN_FAIL_RACKS)
			ret = dcn_topo_failset_add_rack(f, (uint32_t)v);
		else
			ret = dcn_topo_failset_add_vertex(f, (uint32_t)v);
		if (ret < 0) {
			topo_err(err, errlen, "'%s': cannot fail that", item);
			goto fail;
		}
		count++;
	}
	free(copy);
	return count;
fail:
	free(copy);
	return -1;
}
