/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RRect(n,m,k), rrect.md §3.2; BCube(n,k) is RRect(n,1,k).
 *
 * Server address a_k ... a_1 a_0 with a_i in [0,n) and a_0 in [0,mn).
 * Write a_0 = c*n + g: g in [0,n) is the low digit, c in [0,m) picks the
 * member of the server's sub-group (§5). The alternate formats of §3.2 move
 * c*n from a_0 onto digit i: a_k..[a_i + c*n]..[g]. Eq. (2) then says:
 *   - the level-0 switch a_k..a_1 joins the mn servers that share
 *     a_k..a_1 (the RRect(n,m,0) base, an mn-port switch);
 *   - a level-i switch (i >= 1) joins the mn servers that share every
 *     digit but a_i and c, and have the same g: in the alternate format
 *     they differ only in digit i, which runs over [0, mn).
 * So (k+1) n^k switches of mn ports, m n^(k+1) servers, as the paper has.
 *
 * Vertices: server a_0 + mn * (a_1 + n a_2 + ...); switch of level l with
 * index idx is n_servers + l n^k + idx, where idx is a_k..a_1 for level 0
 * and (a_k..a_(l+1) a_(l-1)..a_1 g) for level l >= 1.
 * Server port l goes to its level-l switch. A level-0 switch port is a_0;
 * a level-l switch port is a_l + c*n, the alternate-format digit.
 *
 * Address: the plan's network (10/8 unless prefix= moves it) + packed
 * digits, a_0 in the low bits0 bits, then each a_i in bitsn bits, a_1
 * lowest (README.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topo_priv.h"

static int
rr_init(struct dcn_topo *t, char *err, size_t len)
{
	struct topo_rrect *rr = &t->u.rr;
	uint64_t servers, sw;
	unsigned int i;

	rr->n = t->p.n;
	rr->m = t->p.m;
	rr->k = t->p.k;
	if (rr->n < 2 || rr->m < 1 || rr->k + 1 > DCN_TOPO_MAX_DIGITS) {
		topo_err(err, len,
			 "rrect: n=%u,m=%u,k=%u out of range (n >= 2, m >= 1, k <= %d)",
			 rr->n, rr->m, rr->k, DCN_TOPO_MAX_DIGITS - 1);
		return -ERANGE;
	}
	rr->mn = rr->m * rr->n;
	rr->bits0 = topo_bits_for(rr->mn - 1);
	rr->bitsn = topo_bits_for(rr->n - 1);
	if (rr->mn > 65536 || rr->bits0 + rr->k * rr->bitsn > topo_host_bits(t)) {
		topo_err(err, len,
			 "rrect: n=%u,m=%u,k=%u needs %u address bits, the plan's prefix leaves %u",
			 rr->n, rr->m, rr->k, rr->bits0 + rr->k * rr->bitsn,
			 topo_host_bits(t));
		return -ERANGE;
	}
	for (i = 0; i <= rr->k; i++)
		rr->pow_n[i] = i == 0 ? 1 : rr->pow_n[i - 1] * rr->n;
	rr->sw_per_level = rr->pow_n[rr->k];
	servers = (uint64_t)rr->mn * rr->pow_n[rr->k];
	sw = (uint64_t)(rr->k + 1) * rr->sw_per_level;
	t->n_servers = (uint32_t)servers;
	t->n_switches = (uint32_t)sw;
	t->n_links = servers * (rr->k + 1);
	t->max_degree = rr->mn > rr->k + 1 ? rr->mn : rr->k + 1;
	if (t->p.m == 1)
		snprintf(t->spec, sizeof(t->spec), "rrect:n=%u,m=1,k=%u", rr->n,
			 rr->k);
	else
		snprintf(t->spec, sizeof(t->spec), "rrect:n=%u,m=%u,k=%u", rr->n,
			 rr->m, rr->k);
	return 0;
}

void
dcn_topo_rr_digits(const struct dcn_topo *t, uint32_t v, uint16_t *d)
{
	const struct topo_rrect *rr = &t->u.rr;
	unsigned int i;

	d[0] = (uint16_t)(v % rr->mn);
	v /= rr->mn;
	for (i = 1; i <= rr->k; i++) {
		d[i] = (uint16_t)(v % rr->n);
		v /= rr->n;
	}
}

uint32_t
dcn_topo_rr_vertex(const struct dcn_topo *t, const uint16_t *d)
{
	const struct topo_rrect *rr = &t->u.rr;
	uint32_t hi = 0;
	unsigned int i;

	for (i = rr->k; i >= 1; i--)
		hi = hi * rr->n + d[i];
	return hi * rr->mn + d[0];
}

/* Index within its level of the level-l switch of server digits d. */
static uint32_t
rr_switch_index(const struct topo_rrect *rr, const uint16_t *d, unsigned int l)
{
	uint32_t idx = 0;
	unsigned int i;

	if (l == 0) {
		for (i = rr->k; i >= 1; i--)
			idx = idx * rr->n + d[i];
		return idx;
	}
	for (i = rr->k; i >= 1; i--)
		if (i != l)
			idx = idx * rr->n + d[i];
	return idx * rr->n + d[0] % rr->n;
}

static unsigned int
rr_adj(const struct dcn_topo *t, uint32_t v, struct dcn_adj *out)
{
	const struct topo_rrect *rr = &t->u.rr;
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	unsigned int l, p;

	if (v < t->n_servers) {
		dcn_topo_rr_digits(t, v, d);
		for (l = 0; l <= rr->k; l++) {
			uint32_t sw = t->n_servers + l * rr->sw_per_level +
				      rr_switch_index(rr, d, l);
			uint16_t pp = l == 0 ? d[0]
					     : (uint16_t)(d[l] + d[0] / rr->n *
								     rr->n);

			out[l] = (struct dcn_adj){ sw, (uint16_t)l, pp };
		}
		return rr->k + 1;
	}
	/* A switch: rebuild the member servers from its index. */
	v -= t->n_servers;
	l = v / rr->sw_per_level;
	v %= rr->sw_per_level;
	if (l == 0) {
		for (p = 0; p < rr->mn; p++)
			out[p] = (struct dcn_adj){ v * rr->mn + p, (uint16_t)p, 0 };
		return rr->mn;
	}
	{
		uint32_t g = v % rr->n, rest = v / rr->n;
		unsigned int i;

		for (i = 1; i <= rr->k; i++) {
			if (i == l)
				continue;
			d[i] = (uint16_t)(rest % rr->n);
			rest /= rr->n;
		}
		for (p = 0; p < rr->mn; p++) {
			d[l] = (uint16_t)(p % rr->n);
			d[0] = (uint16_t)(p / rr->n * rr->n + g);
			out[p] = (struct dcn_adj){ dcn_topo_rr_vertex(t, d),
						   (uint16_t)p, (uint16_t)l };
		}
	}
	return rr->mn;
}

static unsigned int
rr_ports(const struct dcn_topo *t, uint32_t v)
{
	return v < t->n_servers ? t->u.rr.k + 1 : t->u.rr.mn;
}

static enum dcn_vertex_role
rr_role(const struct dcn_topo *t, uint32_t v)
{
	return v < t->n_servers ? DCN_ROLE_SERVER : DCN_ROLE_SWITCH;
}

static uint32_t
rr_addr(const struct dcn_topo *t, uint32_t v)
{
	const struct topo_rrect *rr = &t->u.rr;
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	uint32_t a = 0;
	unsigned int i;

	if (v >= t->n_servers)
		return 0;
	dcn_topo_rr_digits(t, v, d);
	for (i = rr->k; i >= 1; i--)
		a = a << rr->bitsn | d[i];
	return t->net | a << rr->bits0 | d[0];
}

static int64_t
rr_vertex_of(const struct dcn_topo *t, uint32_t addr)
{
	const struct topo_rrect *rr = &t->u.rr;
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	unsigned int i;

	if (!topo_in_net(t, addr))
		return -1;
	addr = topo_host_part(t, addr);
	d[0] = addr & ((1u << rr->bits0) - 1);
	if (d[0] >= rr->mn)
		return -1;
	addr >>= rr->bits0;
	for (i = 1; i <= rr->k; i++) {
		d[i] = addr & ((1u << rr->bitsn) - 1);
		if (d[i] >= rr->n)
			return -1;
		addr >>= rr->bitsn;
	}
	if (addr != 0)
		return -1;
	return dcn_topo_rr_vertex(t, d);
}

static int64_t
rr_parse(const struct dcn_topo *t, const char *s, char *err, size_t len)
{
	const struct topo_rrect *rr = &t->u.rr;
	uint32_t vals[DCN_TOPO_MAX_DIGITS];
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	int cnt, i;

	if (strchr(s, ',') == NULL && strlen(s) == rr->k + 1u &&
	    strspn(s, "0123456789") == rr->k + 1u) {
		/* Digit string as the paper writes it: "037" is a_2 a_1 a_0. */
		for (i = 0; i <= (int)rr->k; i++)
			vals[i] = (uint32_t)(s[i] - '0');
		cnt = (int)rr->k + 1;
	} else {
		cnt = topo_parse_list(s, vals, DCN_TOPO_MAX_DIGITS);
	}
	if (cnt != (int)rr->k + 1) {
		topo_err(err, len,
			 "node '%s': expected %u digits a_%u..a_0 like %s", s,
			 rr->k + 1, rr->k, rr->k == 1 ? "37 or 3,7" : "0,2,5");
		return -1;
	}
	/* vals[0] is a_k; store reversed. Either address format is accepted:
	 * a digit at or above n carries the sub-group index c. */
	{
		uint32_t c = 0;
		int with_c = 0;

		for (i = 0; i < cnt; i++) {
			unsigned int pos = (unsigned int)(cnt - 1 - i);
			uint32_t val = vals[i];
			uint32_t lim = pos == 0 ? rr->mn : rr->n;

			if (pos != 0 && val >= rr->n && val < rr->mn && !with_c) {
				c = val / rr->n;
				val %= rr->n;
				with_c = 1;
			} else if (val >= lim) {
				topo_err(err, len, "node '%s': digit %u out of range", s,
					 vals[i]);
				return -1;
			}
			d[pos] = (uint16_t)val;
		}
		if (with_c) {
			if (d[0] >= rr->n) {
				topo_err(err, len,
					 "node '%s': two digits carry the sub-group index",
					 s);
				return -1;
			}
			d[0] = (uint16_t)(d[0] + c * rr->n);
		}
	}
	return dcn_topo_rr_vertex(t, d);
}

static char *
rr_format(const struct dcn_topo *t, uint32_t v, char *buf, size_t len)
{
	const struct topo_rrect *rr = &t->u.rr;
	uint16_t d[DCN_TOPO_MAX_DIGITS];
	size_t off = 0;
	unsigned int i;
	int compact = rr->mn <= 10;

	if (v >= t->n_servers) {
		uint32_t s = v - t->n_servers;

		snprintf(buf, len, "sw%u.%u", s / rr->sw_per_level,
			 s % rr->sw_per_level);
		return buf;
	}
	dcn_topo_rr_digits(t, v, d);
	for (i = rr->k + 1; i-- > 0 && off < len;)
		off += snprintf(buf + off, len - off, "%s%u",
				compact || i == rr->k ? "" : ",", d[i]);
	return buf;
}

const struct topo_ops topo_rrect_ops = {
	.init = rr_init,
	.adj = rr_adj,
	.ports = rr_ports,
	.role = rr_role,
	.addr = rr_addr,
	.vertex_of = rr_vertex_of,
	.parse = rr_parse,
	.format = rr_format,
};
