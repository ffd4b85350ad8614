/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Diamond(k), diamond-far.md §III-A and §III-B.
 *
 * k pods of k edge switches E_ij (pod i, position j, both 1-based). In a
 * pod, positions 1..k/2 form the upper line and k/2+1..k the lower line
 * (the paper's "k^2 edge switches" per line is a typo for k/2: a pod has k).
 * Each edge switch has k ports: k/2 to every edge switch of the opposite
 * line of its pod, k/4 to core switches, k/4 to servers. Core switch C_ij
 * (i in 1..k, j in 1..k/4) joins the edge switches at position i of every
 * pod, one port per pod. Servers 10.i.j.x, x in 2..k/4+1, hang off E_ij.
 *
 * Addresses: edge 10.i.j.1, core 10.0.i.j, server 10.i.j.x; so k <= 252.
 *
 * Vertices: servers ((i-1)k + (j-1)) k/4 + (x-2); then k^2 edges
 * (i-1)k + (j-1); then k^2/4 cores (i-1) k/4 + (j-1).
 * Edge ports: 0..k/2-1 opposite-line edges in position order, k/2..k/2+k/4-1
 * cores C_j1..C_j(k/4), then servers x = 2.. . Core ports: p -> pod p+1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topo_priv.h"

#define DM_MAX_K 252

static int
dm_init(struct dcn_topo *t, char *err, size_t len)
{
	struct topo_diamond *dm = &t->u.dm;
	unsigned int k = t->p.k;

	if (k == 0 || k % 4 != 0) {
		topo_err(err, len, "diamond: k=%u must be a multiple of 4", k);
		return -EINVAL;
	}
	if (k > DM_MAX_K) {
		topo_err(err, len,
			 "diamond: k=%u out of range (4..%d: pods and positions are address octets)",
			 k, DM_MAX_K);
		return -ERANGE;
	}
	/* The paper's plan is octets: pod, position, host. A prefix moves
	 * the first octet and must leave the other three whole. */
	if (t->net_len > 8) {
		topo_err(err, len,
			 "diamond: prefix /%u too long: the plan's pod, position and host are the low three octets (/8 or shorter)",
			 t->net_len);
		return -ERANGE;
	}
	dm->k = k;
	dm->q = k / 4;
	t->n_servers = k * k * dm->q;
	dm->edge_base = t->n_servers;
	dm->core_base = dm->edge_base + k * k;
	t->n_switches = k * k + k * dm->q;
	t->n_links = 3ull * k * k * k / 4;
	t->max_degree = k;
	snprintf(t->spec, sizeof(t->spec), "diamond:k=%u", k);
	return 0;
}

void
dcn_topo_dm_decode(const struct dcn_topo *t, uint32_t v, unsigned int *i,
		   unsigned int *j, unsigned int *x)
{
	const struct topo_diamond *dm = &t->u.dm;

	if (v < dm->edge_base) {
		*x = v % dm->q + 2;
		v /= dm->q;
		*j = v % dm->k + 1;
		*i = v / dm->k + 1;
	} else if (v < dm->core_base) {
		v -= dm->edge_base;
		*x = 1;
		*j = v % dm->k + 1;
		*i = v / dm->k + 1;
	} else {
		v -= dm->core_base;
		*x = 0;
		*j = v % dm->q + 1;
		*i = v / dm->q + 1;
	}
}

uint32_t
dcn_topo_dm_edge(const struct dcn_topo *t, unsigned int i, unsigned int j)
{
	return t->u.dm.edge_base + (i - 1) * t->u.dm.k + (j - 1);
}

uint32_t
dcn_topo_dm_core(const struct dcn_topo *t, unsigned int i, unsigned int j)
{
	return t->u.dm.core_base + (i - 1) * t->u.dm.q + (j - 1);
}

uint32_t
dcn_topo_dm_server(const struct dcn_topo *t, unsigned int i, unsigned int j,
		   unsigned int x)
{
	return ((i - 1) * t->u.dm.k + (j - 1)) * t->u.dm.q + (x - 2);
}

/* First position of the line opposite to position j. */
static unsigned int
dm_opp_base(const struct topo_diamond *dm, unsigned int j)
{
	return j <= dm->k / 2 ? dm->k / 2 + 1 : 1;
}

/* First position of j's own line. */
static unsigned int
dm_line_base(const struct topo_diamond *dm, unsigned int j)
{
	return j <= dm->k / 2 ? 1 : dm->k / 2 + 1;
}

static unsigned int
dm_adj(const struct dcn_topo *t, uint32_t v, struct dcn_adj *out)
{
	const struct topo_diamond *dm = &t->u.dm;
	unsigned int i, j, x, p, cnt = 0;
	unsigned int half = dm->k / 2;

	dcn_topo_dm_decode(t, v, &i, &j, &x);
	if (x >= 2) {
		out[0] = (struct dcn_adj){ dcn_topo_dm_edge(t, i, j), 0,
					   (uint16_t)(half + dm->q + x - 2) };
		return 1;
	}
	if (x == 1) {
		unsigned int ob = dm_opp_base(dm, j);

		for (p = 0; p < half; p++)
			out[cnt++] = (struct dcn_adj){
				dcn_topo_dm_edge(t, i, ob + p), (uint16_t)p,
				(uint16_t)(j - dm_line_base(dm, j)) };
		for (p = 0; p < dm->q; p++)
			out[cnt++] = (struct dcn_adj){
				dcn_topo_dm_core(t, j, p + 1),
				(uint16_t)(half + p), (uint16_t)(i - 1) };
		for (p = 0; p < dm->q; p++)
			out[cnt++] = (struct dcn_adj){
				dcn_topo_dm_server(t, i, j, p + 2),
				(uint16_t)(half + dm->q + p), 0 };
		return cnt;
	}
	/* Core C_ij: port p to E_(p+1) i. */
	for (p = 0; p < dm->k; p++)
		out[cnt++] = (struct dcn_adj){ dcn_topo_dm_edge(t, p + 1, i),
					       (uint16_t)p,
					       (uint16_t)(half + j - 1) };
	return cnt;
}

static unsigned int
dm_ports(const struct dcn_topo *t, uint32_t v)
{
	return v < t->u.dm.edge_base ? 1 : t->u.dm.k;
}

static enum dcn_vertex_role
dm_role(const struct dcn_topo *t, uint32_t v)
{
	if (v < t->u.dm.edge_base)
		return DCN_ROLE_SERVER;
	return v < t->u.dm.core_base ? DCN_ROLE_EDGE : DCN_ROLE_CORE;
}

static uint32_t
dm_addr(const struct dcn_topo *t, uint32_t v)
{
	unsigned int i, j, x;

	dcn_topo_dm_decode(t, v, &i, &j, &x);
	if (x == 0)
		return t->net | i << 8 | j;
	return t->net | i << 16 | j << 8 | x;
}

static int64_t
dm_vertex_of(const struct dcn_topo *t, uint32_t addr)
{
	const struct topo_diamond *dm = &t->u.dm;
	unsigned int i = (addr >> 16) & 0xff, j = (addr >> 8) & 0xff;
	unsigned int x = addr & 0xff;

	if (!topo_in_net(t, addr) || topo_host_part(t, addr) >> 24 != 0)
		return -1;
	if (i == 0) {
		if (j < 1 || j > dm->k || x < 1 || x > dm->q)
			return -1;
		return dcn_topo_dm_core(t, j, x);
	}
	if (i > dm->k || j < 1 || j > dm->k || x < 1 || x > dm->q + 1)
		return -1;
	if (x == 1)
		return dcn_topo_dm_edge(t, i, j);
	return dcn_topo_dm_server(t, i, j, x);
}

static int64_t
dm_parse(const struct dcn_topo *t, const char *s, char *err, size_t len)
{
	const struct topo_diamond *dm = &t->u.dm;
	unsigned int i, j;
	char kind, tail;

	kind = s[0];
	if ((kind == 'E' || kind == 'C') &&
	    (sscanf(s + 1, "%u.%u%c", &i, &j, &tail) == 2 ||
	     (strlen(s) == 3 && sscanf(s + 1, "%1u%1u%c", &i, &j, &tail) == 2))) {
		if (kind == 'E' && i >= 1 && i <= dm->k && j >= 1 && j <= dm->k)
			return dcn_topo_dm_edge(t, i, j);
		if (kind == 'C' && i >= 1 && i <= dm->k && j >= 1 && j <= dm->q)
			return dcn_topo_dm_core(t, i, j);
		topo_err(err, len, "node '%s': not a switch of %s", s, t->spec);
		return -1;
	}
	topo_err(err, len,
		 "node '%s': expected E<i>.<j>, C<i>.<j> or a 10.x.x.x address",
		 s);
	return -1;
}

static char *
dm_format(const struct dcn_topo *t, uint32_t v, char *buf, size_t len)
{
	unsigned int i, j, x;

	dcn_topo_dm_decode(t, v, &i, &j, &x);
	if (x == 0)
		snprintf(buf, len, "C%u.%u", i, j);
	else if (x == 1)
		snprintf(buf, len, "E%u.%u", i, j);
	else
		snprintf(buf, len, "10.%u.%u.%u", i, j, x);
	return buf;
}

const struct topo_ops topo_diamond_ops = {
	.init = dm_init,
	.adj = dm_adj,
	.ports = dm_ports,
	.role = dm_role,
	.addr = dm_addr,
	.vertex_of = dm_vertex_of,
	.parse = dm_parse,
	.format = dm_format,
};
