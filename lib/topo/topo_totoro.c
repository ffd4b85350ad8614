/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Totoro(N,n,K), totoro.md §2 and Alg. 1.
 *
 * Server tid in [0, N n^K) has tuple [a_K, ..., a_1, a_0] with
 * a_(i+1) = (tid / (N n^i)) mod n and a_0 = tid mod N. It has an intra
 * link (port 0) to the intra-switch of its Totoro_0 and at most one inter
 * link (port 1): of level i when (tid - 2^(i-1) + 1) mod 2^i == 0
 * (Alg. 1 line 10), i.e. when tid ends in exactly i-1 one bits.
 *
 * The level-u switch of such a server is b_0 = (tid / 2^u) mod
 * (N/n (n/2)^u) within its Totoro_u (Alg. 1 line 15): it joins the servers
 * with the same offset in each of the n Totoro_(u-1) children, one per
 * child. That needs N n^(u-1) to be a multiple of 2^u for every level;
 * specs where it is not are refused. Line 14 indexes the Totoro_u by
 * tid / (N n^(j-1)); we read it as the enclosing Totoro_u, a_K..a_(u+1),
 * which is what "b_i indicates which Totoro this switch is located at"
 * says.
 *
 * Vertices: servers tid; then n^K intra-switches (index tid / N, port
 * a_0); then for u = 1..K the N n^(K-1) / 2^u level-u switches (index
 * Totoro_u number * (N n^(u-1) / 2^u) + b_0, port a_u).
 *
 * Address: the plan's network (10/8 unless prefix= moves it) +
 * a_0 in the low bitsN bits, then a_1, a_2, ... in bitsn
 * bits each (README.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topo_priv.h"

static int
tt_init(struct dcn_topo *t, char *err, size_t len)
{
	struct topo_totoro *tt = &t->u.tt;
	uint64_t servers = 1, sw;
	unsigned int u;

	tt->N = t->p.N;
	tt->n = t->p.n;
	tt->K = t->p.K;
	if (tt->N < 2 || tt->n < 2 || tt->K < 1 ||
	    tt->K + 1 > DCN_TOPO_MAX_DIGITS) {
		topo_err(err, len,
			 "totoro: N=%u,n=%u,K=%u out of range (N >= 2, n >= 2, 1 <= K <= %d)",
			 tt->N, tt->n, tt->K, DCN_TOPO_MAX_DIGITS - 1);
		return -ERANGE;
	}
	tt->bitsN = topo_bits_for(tt->N - 1);
	tt->bitsn = topo_bits_for(tt->n - 1);
	if (tt->bitsN + tt->K * tt->bitsn > topo_host_bits(t)) {
		topo_err(err, len,
			 "totoro: N=%u,n=%u,K=%u needs %u address bits, the plan's prefix leaves %u",
			 tt->N, tt->n, tt->K, tt->bitsN + tt->K * tt->bitsn,
			 topo_host_bits(t));
		return -ERANGE;
	}
	for (u = 0; u <= tt->K; u++)
		tt->pow_n[u] = u == 0 ? 1 : tt->pow_n[u - 1] * tt->n;
	servers = (uint64_t)tt->N * tt->pow_n[tt->K];
	for (u = 1; u <= tt->K; u++) {
		uint64_t child = (uint64_t)tt->N * tt->pow_n[u - 1];

		if (child % (1ull << u) != 0) {
			topo_err(err, len,
				 "totoro: N n^(u-1) = %llu is not a multiple of 2^%u, so level-%u switches cannot take one server per child",
				 (unsigned long long)child, u, u);
			return -EINVAL;
		}
	}
	sw = tt->pow_n[tt->K];
	t->n_links = servers;
	for (u = 1; u <= tt->K; u++) {
		tt->sw_base[u] = (uint32_t)(servers + sw);
		sw += (uint64_t)tt->N * tt->pow_n[tt->K - 1] >> u;
		t->n_links += servers >> u;
	}
	tt->sw_base[0] = (uint32_t)servers;
	t->n_servers = (uint32_t)servers;
	t->n_switches = (uint32_t)sw;
	t->max_degree = tt->N > tt->n ? tt->N : tt->n;
	snprintf(t->spec, sizeof(t->spec), "totoro:N=%u,n=%u,K=%u", tt->N,
		 tt->n, tt->K);
	return 0;
}

void
dcn_topo_tt_tuple(const struct dcn_topo *t, uint32_t v, uint32_t *a)
{
	const struct topo_totoro *tt = &t->u.tt;
	unsigned int i;

	a[0] = v % tt->N;
	v /= tt->N;
	for (i = 1; i <= tt->K; i++) {
		a[i] = v % tt->n;
		v /= tt->n;
	}
}

uint32_t
dcn_topo_tt_vertex(const struct dcn_topo *t, const uint32_t *a)
{
	const struct topo_totoro *tt = &t->u.tt;
	uint32_t v = 0;
	unsigned int i;

	for (i = tt->K; i >= 1; i--)
		v = v * tt->n + a[i];
	return v * tt->N + a[0];
}

unsigned int
dcn_topo_tt_link_level(const struct dcn_topo *t, uint32_t tid)
{
	unsigned int k = t->u.tt.K;
	/* The bit above K stops the count: no ctz of 0 for an id of all
	 * ones. */
	unsigned int ones = (unsigned int)__builtin_ctz(~tid | (1u << k));

	return ones < k ? ones + 1 : 0;
}

uint32_t
dcn_topo_tt_across(const struct dcn_topo *t, uint32_t m, unsigned int u,
		   uint32_t child)
{
	const struct topo_totoro *tt = &t->u.tt;
	uint32_t block = tt->N * tt->pow_n[u - 1];
	uint32_t cur = (m / block) % tt->n;

	return m - cur * block + child * block;
}

/* Vertex of the level-u switch of server tid (u >= 1). */
static uint32_t
tt_switch_of(const struct topo_totoro *tt, uint32_t tid, unsigned int u)
{
	uint32_t per = (tt->N * tt->pow_n[u - 1]) >> u;
	uint32_t tu = tid / (tt->N * tt->pow_n[u]);

	return tt->sw_base[u] + tu * per + (tid >> u) % per;
}

static unsigned int
tt_adj(const struct dcn_topo *t, uint32_t v, struct dcn_adj *out)
{
	const struct topo_totoro *tt = &t->u.tt;
	unsigned int u, p;

	if (v < t->n_servers) {
		unsigned int lvl = dcn_topo_tt_link_level(t, v);

		out[0] = (struct dcn_adj){ tt->sw_base[0] + v / tt->N, 0,
					   (uint16_t)(v % tt->N) };
		/* K < DCN_TOPO_MAX_DIGITS (checked at parse): the second
		 * test never holds; it shows the compiler the level in
		 * the bounds of pow_n. */
		if (lvl == 0 || lvl >= DCN_TOPO_MAX_DIGITS)
			return 1;
		out[1] = (struct dcn_adj){
			tt_switch_of(tt, v, lvl), 1,
			(uint16_t)((v / (tt->N * tt->pow_n[lvl - 1])) % tt->n) };
		return 2;
	}
	if (v < tt->sw_base[0] + tt->pow_n[tt->K]) {
		uint32_t base = (v - tt->sw_base[0]) * tt->N;

		for (p = 0; p < tt->N; p++)
			out[p] = (struct dcn_adj){ base + p, (uint16_t)p, 0 };
		return tt->N;
	}
	/* A vertex past the level-0 switches is a switch of level 1..K. */
	u = tt->K < DCN_TOPO_MAX_DIGITS ? tt->K : DCN_TOPO_MAX_DIGITS;
	while (u > 1 && v < tt->sw_base[u])
		u--;
	{
		uint32_t per = (tt->N * tt->pow_n[u - 1]) >> u;
		uint32_t idx = v - tt->sw_base[u];
		uint32_t tu = idx / per, b0 = idx % per;
		uint32_t block = tt->N * tt->pow_n[u - 1];
		/* The b0-th level-u server of a child sits at offset
		 * b0 * 2^u + 2^(u-1) - 1 within it. */
		uint32_t off = (b0 << u) + (1u << (u - 1)) - 1;

		for (p = 0; p < tt->n; p++)
			out[p] = (struct dcn_adj){
				tu * tt->N * tt->pow_n[u] + p * block + off,
				(uint16_t)p, 1 };
	}
	return tt->n;
}

static unsigned int
tt_ports(const struct dcn_topo *t, uint32_t v)
{
	const struct topo_totoro *tt = &t->u.tt;

	if (v < t->n_servers)
		return 2;
	return v < tt->sw_base[0] + tt->pow_n[tt->K] ? tt->N : tt->n;
}

static enum dcn_vertex_role
tt_role(const struct dcn_topo *t, uint32_t v)
{
	return v < t->n_servers ? DCN_ROLE_SERVER : DCN_ROLE_SWITCH;
}

static uint32_t
tt_addr(const struct dcn_topo *t, uint32_t v)
{
	const struct topo_totoro *tt = &t->u.tt;
	uint32_t a[DCN_TOPO_MAX_DIGITS], addr = 0;
	unsigned int i;

	if (v >= t->n_servers)
		return 0;
	dcn_topo_tt_tuple(t, v, a);
	for (i = tt->K; i >= 1; i--)
		addr = addr << tt->bitsn | a[i];
	return t->net | addr << tt->bitsN | a[0];
}

static int64_t
tt_vertex_of(const struct dcn_topo *t, uint32_t addr)
{
	const struct topo_totoro *tt = &t->u.tt;
	uint32_t a[DCN_TOPO_MAX_DIGITS];
	unsigned int i;

	if (!topo_in_net(t, addr))
		return -1;
	addr = topo_host_part(t, addr);
	a[0] = addr & ((1u << tt->bitsN) - 1);
	if (a[0] >= tt->N)
		return -1;
	addr >>= tt->bitsN;
	for (i = 1; i <= tt->K; i++) {
		a[i] = addr & ((1u << tt->bitsn) - 1);
		if (a[i] >= tt->n)
			return -1;
		addr >>= tt->bitsn;
	}
	if (addr != 0)
		return -1;
	return dcn_topo_tt_vertex(t, a);
}

static int64_t
tt_parse(const struct dcn_topo *t, const char *s, char *err, size_t len)
{
	const struct topo_totoro *tt = &t->u.tt;
	uint32_t vals[DCN_TOPO_MAX_DIGITS], a[DCN_TOPO_MAX_DIGITS];
	int cnt, i;

	cnt = topo_parse_list(s, vals, DCN_TOPO_MAX_DIGITS);
	if (cnt != (int)tt->K + 1) {
		topo_err(err, len, "node '%s': expected a tuple [a_%u,...,a_0]",
			 s, tt->K);
		return -1;
	}
	for (i = 0; i < cnt; i++) {
		unsigned int pos = (unsigned int)(cnt - 1 - i);
		uint32_t lim = pos == 0 ? tt->N : tt->n;

		if (vals[i] >= lim) {
			topo_err(err, len, "node '%s': a_%u=%u is not below %u", s,
				 pos, vals[i], lim);
			return -1;
		}
		a[pos] = vals[i];
	}
	return dcn_topo_tt_vertex(t, a);
}

static char *
tt_format(const struct dcn_topo *t, uint32_t v, char *buf, size_t len)
{
	const struct topo_totoro *tt = &t->u.tt;
	uint32_t a[DCN_TOPO_MAX_DIGITS];
	size_t off = 0;
	unsigned int i;

	if (v >= t->n_servers) {
		unsigned int u;

		if (v < tt->sw_base[0] + tt->pow_n[tt->K]) {
			snprintf(buf, len, "(0-%u)", v - tt->sw_base[0]);
			return buf;
		}
		for (u = tt->K; u >= 1; u--)
			if (v >= tt->sw_base[u])
				break;
		snprintf(buf, len, "(%u-%u)", u, v - tt->sw_base[u]);
		return buf;
	}
	dcn_topo_tt_tuple(t, v, a);
	off += snprintf(buf, len, "[");
	for (i = tt->K + 1; i-- > 0 && off < len;)
		off += snprintf(buf + off, len - off, "%u%s", a[i],
				i ? "," : "]");
	return buf;
}

const struct topo_ops topo_totoro_ops = {
	.init = tt_init,
	.adj = tt_adj,
	.ports = tt_ports,
	.role = tt_role,
	.addr = tt_addr,
	.vertex_of = tt_vertex_of,
	.parse = tt_parse,
	.format = tt_format,
};
