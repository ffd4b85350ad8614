/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NovaCube (and the plain torus it is built on), novacube-pora.md §4.1.
 *
 * Server v has coordinates c[0..n-1], v = sum c[i] k^i; c[0] is the paper's
 * first dimension. Ports: 2i is +1 in dimension i, 2i+1 is -1 in dimension
 * i, 2n is the jump-over link.
 *
 * Jump-over links (§4.1.1, §4.1.2): for even k every node is joined to its
 * farthest node (c_i + k/2) mod k. For odd k the paper builds the (k-1)-ary
 * NovaCube on the nodes whose coordinates are all below k-1 and leaves the
 * k-th node of each dimension without a jump link; so a node with a
 * coordinate equal to k-1 has none, the others pair with
 * (c_i + (k-1)/2) mod (k-1). This gives the (k-1)^n / 2 jump links of
 * eq. (11).
 *
 * Address (§7.2, Table 1): bits 31-30 are the dimension flag, then six 5-bit
 * coordinate fields, c[0] in bits 29-25 down to c[5] in bits 4-0. Flag 11
 * means six dimensions; flag 10 means fewer, and the top three bits of the
 * unused sixth field (bits 4-2) hold the dimension count n. Coordinates are
 * 0-based, so k is at most 32.
 *
 * That plan is public IPv4 space (a route to it on a server takes a
 * sixteenth of the Internet with it). prefix= in the spec places the
 * servers in an operator's network instead, keeping the paper's layout of
 * one field per dimension, c[0] highest, but each field only bits(k-1)
 * wide and no flag or dimension count (the spec says both): c[n-1] in the
 * low bits. So k=8, n=2 takes 6 bits and (1,2) is net | 0.0.0.10.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "topo_priv.h"

#define NC_MAX_DIM 6
#define NC_MAX_K 32

static int
nc_init(struct dcn_topo *t, char *err, size_t len)
{
	struct topo_novacube *nc = &t->u.nc;
	uint64_t servers = 1;
	unsigned int i;

	nc->k = t->p.k;
	nc->n = t->p.n;
	if (nc->n < 1 || nc->n > NC_MAX_DIM) {
		topo_err(err, len, "%s: n=%u out of range (1..%d dimensions)",
			 dcn_topo_kind_name(t->kind), nc->n, NC_MAX_DIM);
		return -ERANGE;
	}
	if (nc->k < 3 || nc->k > NC_MAX_K) {
		topo_err(err, len,
			 "%s: k=%u out of range (3..%d; the address has 5 bits per coordinate)",
			 dcn_topo_kind_name(t->kind), nc->k, NC_MAX_K);
		return -ERANGE;
	}
	for (i = 0; i <= nc->n; i++) {
		nc->pow[i] = (uint32_t)servers;
		if (i < nc->n)
			servers *= nc->k;
	}
	if (t->kind == DCN_TOPO_TORUS)
		nc->jk = 0;
	else
		nc->jk = nc->k % 2 == 0 ? nc->k : nc->k - 1;
	t->n_servers = (uint32_t)servers;
	t->n_switches = 0;
	t->n_links = (uint64_t)nc->n * servers;
	if (nc->jk != 0) {
		uint64_t sub = 1;

		for (i = 0; i < nc->n; i++)
			sub *= nc->jk;
		t->n_links += sub / 2;
	}
	t->max_degree = 2 * nc->n + (nc->jk != 0);
	nc->bits = topo_bits_for(nc->k - 1);
	if (!t->prefix_given) {
		t->net = (nc->n == NC_MAX_DIM ? 3u : 2u) << 30;
		t->net_len = 2;
	} else if (nc->n * nc->bits > topo_host_bits(t)) {
		topo_err(err, len,
			 "%s: k=%u,n=%u needs %u address bits, the plan's prefix leaves %u",
			 dcn_topo_kind_name(t->kind), nc->k, nc->n,
			 nc->n * nc->bits, topo_host_bits(t));
		return -ERANGE;
	}
	snprintf(t->spec, sizeof(t->spec), "%s:k=%u,n=%u",
		 dcn_topo_kind_name(t->kind), nc->k, nc->n);
	return 0;
}

void
dcn_topo_nc_coords(const struct dcn_topo *t, uint32_t v, uint8_t *c)
{
	const struct topo_novacube *nc = &t->u.nc;
	unsigned int i;

	for (i = 0; i < nc->n; i++) {
		c[i] = (uint8_t)(v % nc->k);
		v /= nc->k;
	}
}

uint32_t
dcn_topo_nc_vertex(const struct dcn_topo *t, const uint8_t *c)
{
	const struct topo_novacube *nc = &t->u.nc;
	uint32_t v = 0;
	unsigned int i;

	for (i = nc->n; i-- > 0;)
		v = v * nc->k + c[i];
	return v;
}

int64_t
dcn_topo_nc_jump(const struct dcn_topo *t, uint32_t v)
{
	const struct topo_novacube *nc = &t->u.nc;
	uint8_t c[NC_MAX_DIM];
	unsigned int i;

	if (nc->jk == 0)
		return -1;
	dcn_topo_nc_coords(t, v, c);
	for (i = 0; i < nc->n; i++) {
		if (c[i] >= nc->jk)
			return -1;
		c[i] = (uint8_t)((c[i] + nc->jk / 2) % nc->jk);
	}
	return dcn_topo_nc_vertex(t, c);
}

static unsigned int
nc_adj(const struct dcn_topo *t, uint32_t v, struct dcn_adj *out)
{
	const struct topo_novacube *nc = &t->u.nc;
	unsigned int i, cnt = 0;
	int64_t j;

	for (i = 0; i < nc->n; i++) {
		uint32_t ci = (v / nc->pow[i]) % nc->k;
		uint32_t up = ci + 1 == nc->k ? v - ci * nc->pow[i]
					       : v + nc->pow[i];
		uint32_t down = ci == 0 ? v + (nc->k - 1) * nc->pow[i]
					: v - nc->pow[i];

		out[cnt++] = (struct dcn_adj){ up, 2 * i, 2 * i + 1 };
		out[cnt++] = (struct dcn_adj){ down, 2 * i + 1, 2 * i };
	}
	j = dcn_topo_nc_jump(t, v);
	if (j >= 0)
		out[cnt++] = (struct dcn_adj){ (uint32_t)j, 2 * nc->n,
					       2 * nc->n };
	return cnt;
}

static unsigned int
nc_ports(const struct dcn_topo *t, uint32_t v)
{
	(void)v;
	return t->max_degree;
}

static enum dcn_vertex_role
nc_role(const struct dcn_topo *t, uint32_t v)
{
	(void)t;
	(void)v;
	return DCN_ROLE_SERVER;
}

static uint32_t
nc_addr(const struct dcn_topo *t, uint32_t v)
{
	const struct topo_novacube *nc = &t->u.nc;
	uint8_t c[NC_MAX_DIM];
	uint32_t a;
	unsigned int i;

	dcn_topo_nc_coords(t, v, c);
	if (t->prefix_given) {
		a = 0;
		for (i = 0; i < nc->n; i++)
			a = a << nc->bits | c[i];
		return t->net | a;
	}
	a = (nc->n == NC_MAX_DIM ? 3u : 2u) << 30;
	for (i = 0; i < nc->n; i++)
		a |= (uint32_t)c[i] << (25 - 5 * i);
	if (nc->n < NC_MAX_DIM)
		a |= (uint32_t)nc->n << 2;
	return a;
}

void
dcn_topo_nc_addr_fields(const struct dcn_topo *t, uint8_t *shift,
			uint32_t *mask)
{
	const struct topo_novacube *nc = &t->u.nc;
	unsigned int i;

	for (i = 0; i < nc->n; i++)
		shift[i] = (uint8_t)(t->prefix_given ?
				     nc->bits * (nc->n - 1 - i) : 25 - 5 * i);
	*mask = t->prefix_given ? (1u << nc->bits) - 1 : 31;
}

static int64_t
nc_vertex_of(const struct dcn_topo *t, uint32_t addr)
{
	const struct topo_novacube *nc = &t->u.nc;
	uint8_t c[NC_MAX_DIM];
	unsigned int i;

	if (t->prefix_given) {
		if (!topo_in_net(t, addr))
			return -1;
		addr = topo_host_part(t, addr);
		for (i = nc->n; i-- > 0;) {
			c[i] = addr & ((1u << nc->bits) - 1);
			if (c[i] >= nc->k)
				return -1;
			addr >>= nc->bits;
		}
		if (addr != 0)
			return -1;
		return dcn_topo_nc_vertex(t, c);
	}
	if (nc->n == NC_MAX_DIM) {
		if (addr >> 30 != 3)
			return -1;
	} else {
		/* Flag 10, dimension count in bits 4-2, unused fields zero. */
		if (addr >> 30 != 2 || ((addr >> 2) & 7) != nc->n ||
		    (addr & 3) != 0)
			return -1;
		for (i = nc->n; i < NC_MAX_DIM - 1; i++)
			if (((addr >> (25 - 5 * i)) & 31) != 0)
				return -1;
	}
	for (i = 0; i < nc->n; i++) {
		c[i] = (addr >> (25 - 5 * i)) & 31;
		if (c[i] >= nc->k)
			return -1;
	}
	return dcn_topo_nc_vertex(t, c);
}

static int64_t
nc_parse(const struct dcn_topo *t, const char *s, char *err, size_t len)
{
	const struct topo_novacube *nc = &t->u.nc;
	uint32_t vals[NC_MAX_DIM];
	uint8_t c[NC_MAX_DIM];
	int cnt, i;

	cnt = topo_parse_list(s, vals, NC_MAX_DIM);
	if (cnt != (int)nc->n) {
		topo_err(err, len, "node '%s': expected %u coordinates like (1,2)",
			 s, nc->n);
		return -1;
	}
	for (i = 0; i < cnt; i++) {
		if (vals[i] >= nc->k) {
			topo_err(err, len, "node '%s': coordinate %u is not below k=%u",
				 s, vals[i], nc->k);
			return -1;
		}
		c[i] = (uint8_t)vals[i];
	}
	return dcn_topo_nc_vertex(t, c);
}

static char *
nc_format(const struct dcn_topo *t, uint32_t v, char *buf, size_t len)
{
	const struct topo_novacube *nc = &t->u.nc;
	uint8_t c[NC_MAX_DIM];
	size_t off = 0;
	unsigned int i;

	dcn_topo_nc_coords(t, v, c);
	off += snprintf(buf + off, len - off, "(");
	for (i = 0; i < nc->n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%u", i ? "," : "",
				c[i]);
	if (off < len)
		snprintf(buf + off, len - off, ")");
	return buf;
}

const struct topo_ops topo_novacube_ops = {
	.init = nc_init,
	.adj = nc_adj,
	.ports = nc_ports,
	.role = nc_role,
	.addr = nc_addr,
	.vertex_of = nc_vertex_of,
	.parse = nc_parse,
	.format = nc_format,
};
