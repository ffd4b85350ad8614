/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LaScaDa(n,k), lascada.md §III.
 *
 * A cluster (1-layer LaScaDa) is n nodes on one n-port "external" switch.
 * A 2-layer LaScaDa joins R = n^3/2 clusters with R n-port "internal"
 * switches: node j of cluster i goes to internal switch L(i,j), where row
 * L_1 comes from Linked Clusters Maximization (Alg. 1) and every other row
 * is the previous one plus 1, modulo R. A k-layer LaScaDa joins R
 * (k-1)-layer ones the same way (Alg. 2): node (C_k, C_(k-1), ..., C_1) goes
 * to the layer-k switch (C_(k-1), ..., C_2, L(C_k, C_1)).
 * So a layer-l switch joins the nodes that agree on every coordinate but
 * C_l and C_1, one for each C_1; n must be even for R to be whole.
 *
 * Alg. 1 as printed sizes its vector D by n but indexes it up to R; we keep
 * R entries. A candidate switch already used by the first cluster is
 * skipped: it would give one cluster two nodes on the same switch.
 *
 * Coordinates here are 0-based: c[0] = C_1 - 1, c[l-1] = C_l - 1.
 * Vertices: server c[0] + n (c[1] + R (c[2] + ...)); switches follow, one
 * block of R^(k-1) per layer: layer 1 (external) index v / n, layer l >= 2
 * index s + R * (the other C_2..C_k, radix R) with s = L(C_l, C_1) - 1.
 * Server port l-1 goes to its layer-l switch; a switch port is C_1 - 1.
 *
 * Address: the plan's network (10/8 unless prefix= moves it) +
 * c[0] in the low bits1 bits, then c[1], c[2], ... in
 * bitsR bits each (README.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_priv.h"

#define LS_MAX_N 64

static uint32_t
mod_r(int64_t x, uint32_t r)
{
	int64_t m = x % (int64_t)r;

	return (uint32_t)(m < 0 ? m + r : m);
}

/*
 * Linked Clusters Maximization (Alg. 1). Fills l1[0..n-1] with 1-based
 * switch numbers and omega[d] = 1 for every linked-cluster distance d.
 */
static int
ls_lcm(struct topo_lascada *ls)
{
	const uint32_t R = ls->R;
	uint8_t *seen = ls->omega; /* differences of the chosen prefix */
	uint8_t *scratch;
	uint32_t have = 0;
	unsigned int i, t;

	scratch = calloc(R, 1);
	if (scratch == NULL)
		return -ENOMEM;
	ls->l1[0] = 1;
	for (i = 1; i < ls->n; i++) {
		uint32_t best_j = 0, best = 0;
		uint32_t target = (uint32_t)((i + 1) * i);
		uint32_t j;

		for (j = 1; j <= R; j++) {
			uint32_t cand = mod_r((int64_t)ls->l1[i - 1] - 1 + j, R) + 1;
			uint32_t add = 0, dup = 0;

			for (t = 0; t < i; t++)
				if (ls->l1[t] == cand)
					dup = 1;
			if (dup)
				continue;
			/* Count new distinct differences, then undo marks. */
			for (t = 0; t < i; t++) {
				uint32_t a = mod_r((int64_t)cand - ls->l1[t], R);
				uint32_t b = mod_r((int64_t)ls->l1[t] - cand, R);

				if (!seen[a] && !scratch[a]) {
					scratch[a] = 1;
					add++;
				}
				if (!seen[b] && !scratch[b]) {
					scratch[b] = 1;
					add++;
				}
			}
			for (t = 0; t < i; t++) {
				scratch[mod_r((int64_t)cand - ls->l1[t], R)] = 0;
				scratch[mod_r((int64_t)ls->l1[t] - cand, R)] = 0;
			}
			if (have + add > best) {
				best = have + add;
				best_j = j;
			}
			if (have + add == target)
				break;
		}
		if (best_j == 0) {
			free(scratch);
			return -ERANGE;
		}
		ls->l1[i] = mod_r((int64_t)ls->l1[i - 1] - 1 + best_j, R) + 1;
		for (t = 0; t < i; t++) {
			uint32_t a = mod_r((int64_t)ls->l1[i] - ls->l1[t], R);
			uint32_t b = mod_r((int64_t)ls->l1[t] - ls->l1[i], R);

			if (!seen[a]) {
				seen[a] = 1;
				have++;
			}
			if (!seen[b]) {
				seen[b] = 1;
				have++;
			}
		}
	}
	ls->n_omega = have;
	free(scratch);
	return 0;
}

static int
ls_init(struct dcn_topo *t, char *err, size_t len)
{
	struct topo_lascada *ls = &t->u.ls;
	uint64_t servers;
	unsigned int i;
	int ret;

	ls->n = t->p.n;
	ls->k = t->p.k;
	if (ls->n < 2 || ls->n % 2 != 0 || ls->n > LS_MAX_N) {
		topo_err(err, len,
			 "lascada: n=%u must be even and in 2..%d (n^3/2 clusters per layer)",
			 ls->n, LS_MAX_N);
		return ls->n % 2 != 0 ? -EINVAL : -ERANGE;
	}
	if (ls->k < 1 || ls->k > DCN_TOPO_MAX_DIGITS) {
		topo_err(err, len, "lascada: k=%u out of range (1..%d layers)",
			 ls->k, DCN_TOPO_MAX_DIGITS);
		return -ERANGE;
	}
	ls->R = ls->n * ls->n * ls->n / 2;
	ls->bits1 = topo_bits_for(ls->n - 1);
	ls->bitsR = topo_bits_for(ls->R - 1);
	if (ls->bits1 + (ls->k - 1) * ls->bitsR > topo_host_bits(t)) {
		topo_err(err, len,
			 "lascada: n=%u,k=%u needs %u address bits, the plan's prefix leaves %u",
			 ls->n, ls->k, ls->bits1 + (ls->k - 1) * ls->bitsR,
			 topo_host_bits(t));
		return -ERANGE;
	}
	for (i = 0; i < ls->k; i++)
		ls->powR[i] = i == 0 ? 1 : ls->powR[i - 1] * ls->R;
	ls->sw_per_layer = ls->powR[ls->k - 1];
	servers = (uint64_t)ls->n * ls->sw_per_layer;

	ls->l1 = calloc(ls->n, sizeof(*ls->l1));
	ls->omega = calloc(ls->R, 1);
	if (ls->l1 == NULL || ls->omega == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = ls_lcm(ls);
	if (ret < 0) {
		topo_err(err, len, "lascada: LCM found no switch for n=%u",
			 ls->n);
		goto fail;
	}
	t->n_servers = (uint32_t)servers;
	t->n_switches = ls->k * ls->sw_per_layer;
	t->n_links = servers * ls->k;
	t->max_degree = ls->n > ls->k ? ls->n : ls->k;
	snprintf(t->spec, sizeof(t->spec), "lascada:n=%u,k=%u", ls->n, ls->k);
	return 0;
fail:
	free(ls->l1);
	free(ls->omega);
	return ret;
}

static void
ls_fini(struct dcn_topo *t)
{
	free(t->u.ls.l1);
	free(t->u.ls.omega);
}

uint32_t
dcn_topo_ls_rows(const struct dcn_topo *t)
{
	return t->u.ls.R;
}

const uint32_t *
dcn_topo_ls_l1(const struct dcn_topo *t)
{
	return t->u.ls.l1;
}

int
dcn_topo_ls_in_omega(const struct dcn_topo *t, uint32_t d)
{
	return t->u.ls.omega[d % t->u.ls.R];
}

uint32_t
dcn_topo_ls_omega_size(const struct dcn_topo *t)
{
	return t->u.ls.n_omega;
}

uint32_t
dcn_topo_ls_L(const struct dcn_topo *t, uint32_t row, uint32_t col)
{
	return (t->u.ls.l1[col] - 1 + row) % t->u.ls.R + 1;
}

void
dcn_topo_ls_coords(const struct dcn_topo *t, uint32_t v, uint32_t *c)
{
	const struct topo_lascada *ls = &t->u.ls;
	unsigned int i;

	c[0] = v % ls->n;
	v /= ls->n;
	for (i = 1; i < ls->k; i++) {
		c[i] = v % ls->R;
		v /= ls->R;
	}
}

uint32_t
dcn_topo_ls_vertex(const struct dcn_topo *t, const uint32_t *c)
{
	const struct topo_lascada *ls = &t->u.ls;
	uint32_t v = 0;
	unsigned int i;

	for (i = ls->k; i-- > 1;)
		v = v * ls->R + c[i];
	return v * ls->n + c[0];
}

static unsigned int
ls_adj(const struct dcn_topo *t, uint32_t v, struct dcn_adj *out)
{
	const struct topo_lascada *ls = &t->u.ls;
	uint32_t c[DCN_TOPO_MAX_DIGITS];
	unsigned int l, i, p;

	if (v < t->n_servers) {
		dcn_topo_ls_coords(t, v, c);
		out[0] = (struct dcn_adj){ t->n_servers + v / ls->n, 0,
					   (uint16_t)c[0] };
		for (l = 2; l <= ls->k; l++) {
			uint32_t s = dcn_topo_ls_L(t, c[l - 1], c[0]) - 1;
			uint32_t other = 0;

			for (i = ls->k; i-- > 1;)
				if (i != l - 1)
					other = other * ls->R + c[i];
			out[l - 1] = (struct dcn_adj){
				t->n_servers + (l - 1) * ls->sw_per_layer +
					other * ls->R + s,
				(uint16_t)(l - 1), (uint16_t)c[0] };
		}
		return ls->k;
	}
	v -= t->n_servers;
	l = v / ls->sw_per_layer + 1;
	v %= ls->sw_per_layer;
	if (l == 1) {
		for (p = 0; p < ls->n; p++)
			out[p] = (struct dcn_adj){ v * ls->n + p, (uint16_t)p, 0 };
		return ls->n;
	}
	{
		uint32_t s = v % ls->R, other = v / ls->R;

		for (i = 1; i < ls->k; i++) {
			if (i == l - 1)
				continue;
			c[i] = other % ls->R;
			other /= ls->R;
		}
		for (p = 0; p < ls->n; p++) {
			c[0] = p;
			c[l - 1] = mod_r((int64_t)s - (ls->l1[p] - 1), ls->R);
			out[p] = (struct dcn_adj){ dcn_topo_ls_vertex(t, c),
						   (uint16_t)p,
						   (uint16_t)(l - 1) };
		}
	}
	return ls->n;
}

static unsigned int
ls_ports(const struct dcn_topo *t, uint32_t v)
{
	return v < t->n_servers ? t->u.ls.k : t->u.ls.n;
}

static enum dcn_vertex_role
ls_role(const struct dcn_topo *t, uint32_t v)
{
	return v < t->n_servers ? DCN_ROLE_SERVER : DCN_ROLE_SWITCH;
}

static uint32_t
ls_addr(const struct dcn_topo *t, uint32_t v)
{
	const struct topo_lascada *ls = &t->u.ls;
	uint32_t c[DCN_TOPO_MAX_DIGITS];
	uint32_t a = 0;
	unsigned int i;

	if (v >= t->n_servers)
		return 0;
	dcn_topo_ls_coords(t, v, c);
	for (i = ls->k; i-- > 1;)
		a = a << ls->bitsR | c[i];
	return t->net | a << ls->bits1 | c[0];
}

static int64_t
ls_vertex_of(const struct dcn_topo *t, uint32_t addr)
{
	const struct topo_lascada *ls = &t->u.ls;
	uint32_t c[DCN_TOPO_MAX_DIGITS];
	unsigned int i;

	if (!topo_in_net(t, addr))
		return -1;
	addr = topo_host_part(t, addr);
	c[0] = addr & ((1u << ls->bits1) - 1);
	if (c[0] >= ls->n)
		return -1;
	addr >>= ls->bits1;
	for (i = 1; i < ls->k; i++) {
		c[i] = addr & ((1u << ls->bitsR) - 1);
		if (c[i] >= ls->R)
			return -1;
		addr >>= ls->bitsR;
	}
	if (addr != 0)
		return -1;
	return dcn_topo_ls_vertex(t, c);
}

static int64_t
ls_parse(const struct dcn_topo *t, const char *s, char *err, size_t len)
{
	const struct topo_lascada *ls = &t->u.ls;
	uint32_t vals[DCN_TOPO_MAX_DIGITS], c[DCN_TOPO_MAX_DIGITS];
	int cnt, i;

	cnt = topo_parse_list(s, vals, DCN_TOPO_MAX_DIGITS);
	if (cnt != (int)ls->k) {
		topo_err(err, len,
			 "node '%s': expected %u coordinates (C_%u,...,C_1), 1-based",
			 s, ls->k, ls->k);
		return -1;
	}
	for (i = 0; i < cnt; i++) {
		unsigned int pos = (unsigned int)(cnt - 1 - i);
		uint32_t lim = pos == 0 ? ls->n : ls->R;

		if (vals[i] < 1 || vals[i] > lim) {
			topo_err(err, len, "node '%s': C_%u=%u out of range 1..%u", s,
				 pos + 1, vals[i], lim);
			return -1;
		}
		c[pos] = vals[i] - 1;
	}
	return dcn_topo_ls_vertex(t, c);
}

static char *
ls_format(const struct dcn_topo *t, uint32_t v, char *buf, size_t len)
{
	const struct topo_lascada *ls = &t->u.ls;
	uint32_t c[DCN_TOPO_MAX_DIGITS];
	size_t off = 0;
	unsigned int i;

	if (v >= t->n_servers) {
		uint32_t s = v - t->n_servers;

		snprintf(buf, len, "L%u.sw%u", s / ls->sw_per_layer + 1,
			 s % ls->sw_per_layer);
		return buf;
	}
	dcn_topo_ls_coords(t, v, c);
	off += snprintf(buf, len, "(");
	for (i = ls->k; i-- > 0 && off < len;)
		off += snprintf(buf + off, len - off, "%u%s", c[i] + 1,
				i ? "," : ")");
	return buf;
}

const struct topo_ops topo_lascada_ops = {
	.init = ls_init,
	.fini = ls_fini,
	.adj = ls_adj,
	.ports = ls_ports,
	.role = ls_role,
	.addr = ls_addr,
	.vertex_of = ls_vertex_of,
	.parse = ls_parse,
	.format = ls_format,
};
