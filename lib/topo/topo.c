/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Spec-string parsing and the family-independent API. The families live in
 * topo_<family>.c behind struct topo_ops.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_priv.h"

static const struct {
	const char *name;
	enum dcn_topo_kind kind;
	const struct topo_ops *ops;
	const char *keys; /* keys the family requires, in canonical order */
} families[] = {
	{ "novacube", DCN_TOPO_NOVACUBE, &topo_novacube_ops, "k,n" },
	{ "torus", DCN_TOPO_TORUS, &topo_novacube_ops, "k,n" },
	{ "diamond", DCN_TOPO_DIAMOND, &topo_diamond_ops, "k" },
	{ "rrect", DCN_TOPO_RRECT, &topo_rrect_ops, "n,m,k" },
	{ "bcube", DCN_TOPO_RRECT, &topo_rrect_ops, "n,k" },
	{ "lascada", DCN_TOPO_LASCADA, &topo_lascada_ops, "n,k" },
	{ "totoro", DCN_TOPO_TOTORO, &topo_totoro_ops, "N,n,K" },
};


static int
key_allowed(const char *keys, const char *key, size_t keylen)
{
	const char *p = keys;

	while (*p) {
		size_t l = strcspn(p, ",");

		if (l == keylen && strncmp(p, key, l) == 0)
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

static unsigned int *
param_slot(struct dcn_topo_params *p, const char *key, size_t keylen)
{
	if (keylen != 1)
		return NULL;
	switch (key[0]) {
	case 'k': return &p->k;
	case 'n': return &p->n;
	case 'm': return &p->m;
	case 'N': return &p->N;
	case 'K': return &p->K;
	default: return NULL;
	}
}

/* "A.B.C.D/L" up to the next comma: the plan's network. */
static int
parse_prefix(struct dcn_topo *t, const char *spec, const char *s, char *err,
	     size_t errlen)
{
	size_t l = strcspn(s, ",");
	char buf[24], *slash, *end;
	unsigned long len;
	uint32_t net;

	if (l >= sizeof(buf))
		goto bad;
	memcpy(buf, s, l);
	buf[l] = '\0';
	slash = strchr(buf, '/');
	if (slash == NULL || !isdigit((unsigned char)slash[1]))
		goto bad;
	*slash = '\0';
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno != 0 || *end != '\0' || dcn_topo_parse_addr(buf, &net) < 0)
		goto bad;
	if (len < 1 || len > 30) {
		topo_err(err, errlen,
			 "spec '%s': prefix length /%lu out of range (/1 .. /30)",
			 spec, len);
		return -1;
	}
	if ((net & (UINT32_MAX >> len)) != 0) {
		char a[16];

		topo_err(err, errlen,
			 "spec '%s': prefix %s/%lu has host bits set (the network is %s/%lu)",
			 spec, buf, len,
			 dcn_topo_format_addr(net & ~(UINT32_MAX >> len), a,
					      sizeof(a)),
			 len);
		return -1;
	}
	t->net = net;
	t->net_len = (unsigned int)len;
	t->prefix_given = 1;
	return 0;
bad:
	topo_err(err, errlen,
		 "spec '%s': prefix needs a network like 10.0.0.0/8 at '%.*s'",
		 spec, (int)l, s);
	return -1;
}

/* The shortest prefix holding every address (L2 switches have none). */
static void
covering_scan(const struct dcn_topo *t, uint32_t *net, unsigned int *len)
{
	uint32_t v, lo = UINT32_MAX, hi = 0;
	unsigned int l = 32;

	for (v = 0; v < dcn_topo_vertices(t); v++) {
		uint32_t a = t->ops->addr(t, v);

		if (a == 0 && v >= t->n_servers)
			continue; /* an L2 switch */
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	while (l > 0 && (uint64_t)lo >> (32 - l) != (uint64_t)hi >> (32 - l))
		l--;
	*net = (uint32_t)((uint64_t)lo >> (32 - l) << (32 - l));
	*len = l;
}

/* What an address means besides a host, where dcnfwd (0.0.0.0: none) or
 * the kernel gives it a meaning of its own; NULL: nothing. */
static const char *
addr_special(uint32_t a)
{
	switch (a >> 24) {
	case 0:
		return "0.0.0.0/8, read as no address";
	case 127:
		return "127.0.0.0/8, loopback";
	default:
		break;
	}
	if (a >> 28 == 0xe)
		return "224.0.0.0/4, multicast";
	if (a >> 28 == 0xf)
		return "240.0.0.0/4, reserved and broadcast";
	return NULL;
}

/* The first addressed vertex of t whose address has a special meaning:
 * its error, naming the key that placed it. @return 0, or -EINVAL. */
static int
check_special(const struct dcn_topo *t, const char *spec, char *err, size_t errlen)
{
	uint32_t v;

	for (v = 0; v < dcn_topo_vertices(t); v++) {
		uint32_t a = t->ops->addr(t, v);
		const char *why;
		char name[64], as[16];

		if (a == 0 && v >= t->n_servers)
			continue; /* an L2 switch */
		why = addr_special(a);
		if (why == NULL)
			continue;
		dcn_topo_format_vertex(t, v, name, sizeof(name));
		topo_err(err, errlen,
			 "spec '%s': prefix puts %s at %s, in %s",
			 spec, name, dcn_topo_format_addr(a, as, sizeof(as)), why);
		return -EINVAL;
	}
	return 0;
}

struct dcn_topo *
dcn_topo_create(const char *spec, char *err, size_t errlen)
{
	struct dcn_topo *t;
	const char *colon, *p;
	unsigned int seen = 0;
	size_t fam;
	int ret;

	if (spec == NULL) {
		topo_err(err, errlen, "no topology spec");
		errno = EINVAL;
		return NULL;
	}
	colon = strchr(spec, ':');
	if (colon == NULL) {
		topo_err(err, errlen,
			 "spec '%s': expected <topology>:<key>=<value>,...",
			 spec);
		errno = EINVAL;
		return NULL;
	}
	for (fam = 0; fam < sizeof(families) / sizeof(families[0]); fam++)
		if (strlen(families[fam].name) == (size_t)(colon - spec) &&
		    strncmp(families[fam].name, spec, colon - spec) == 0)
			break;
	if (fam == sizeof(families) / sizeof(families[0])) {
		topo_err(err, errlen,
			 "spec '%s': unknown topology '%.*s' (novacube, torus, diamond, rrect, bcube, lascada, totoro)",
			 spec, (int)(colon - spec), spec);
		errno = EINVAL;
		return NULL;
	}

	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	t->kind = families[fam].kind;
	t->ops = families[fam].ops;

	p = colon + 1;
	while (*p) {
		size_t keylen = strcspn(p, "=,");
		unsigned int *slot;
		unsigned long v;
		char *end;
		unsigned int bit;

		if (p[keylen] != '=' || keylen == 0) {
			topo_err(err, errlen, "spec '%s': expected key=value at '%s'",
				 spec, p);
			goto einval;
		}
		if (keylen == 6 && strncmp(p, "prefix", 6) == 0) {
			if (t->prefix_given) {
				topo_err(err, errlen,
					 "spec '%s': parameter 'prefix' given twice",
					 spec);
				goto einval;
			}
			p += keylen + 1;
			if (parse_prefix(t, spec, p, err, errlen) < 0)
				goto einval;
			p += strcspn(p, ",");
			if (*p == ',' && *++p == '\0') {
				topo_err(err, errlen, "spec '%s': trailing comma", spec);
				goto einval;
			}
			continue;
		}
		slot = param_slot(&t->p, p, keylen);
		if (slot == NULL || !key_allowed(families[fam].keys, p, keylen)) {
			topo_err(err, errlen,
				 "spec '%s': unknown parameter '%.*s' for %s (takes %s, prefix)",
				 spec, (int)keylen, p, families[fam].name,
				 families[fam].keys);
			goto einval;
		}
		bit = 1u << (slot - &t->p.k);
		if (seen & bit) {
			topo_err(err, errlen, "spec '%s': parameter '%.*s' given twice",
				 spec, (int)keylen, p);
			goto einval;
		}
		seen |= bit;
		errno = 0;
		if (!isdigit((unsigned char)p[keylen + 1]))
			v = ULONG_MAX;
		else
			v = strtoul(p + keylen + 1, &end, 10);
		if (v == ULONG_MAX || errno != 0 || v > 1000000 ||
		    (*end != ',' && *end != '\0')) {
			topo_err(err, errlen,
				 "spec '%s': parameter '%.*s' needs a whole number",
				 spec, (int)keylen, p);
			goto einval;
		}
		*slot = (unsigned int)v;
		p = end;
		if (*p == ',' && *++p == '\0') {
			topo_err(err, errlen, "spec '%s': trailing comma", spec);
			goto einval;
		}
	}
	/* Every required key must be present. */
	for (p = families[fam].keys; *p;) {
		size_t l = strcspn(p, ",");
		unsigned int *slot = param_slot(&t->p, p, l);

		if (!(seen & (1u << (slot - &t->p.k)))) {
			topo_err(err, errlen, "spec '%s': missing parameter '%.*s'",
				 spec, (int)l, p);
			goto einval;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	if (strcmp(families[fam].name, "bcube") == 0)
		t->p.m = 1; /* BCube(n,k) = RRect(n,1,k) */

	if (!t->prefix_given) {
		t->net = TOPO_NET10;
		t->net_len = TOPO_NET10_LEN;
	}
	ret = t->ops->init(t, err, errlen);
	if (ret < 0) {
		free(t);
		errno = -ret;
		return NULL;
	}
	if (check_special(t, spec, err, errlen) < 0) {
		dcn_topo_free(t);
		errno = EINVAL;
		return NULL;
	}
	covering_scan(t, &t->cover_net, &t->cover_len);
	/* The canonical spec names a prefix that moves the plan; 10/8 is
	 * every plan's default but NovaCube's, so it goes unsaid there. */
	if (t->prefix_given && !(t->kind != DCN_TOPO_NOVACUBE &&
				 t->kind != DCN_TOPO_TORUS &&
				 t->net == TOPO_NET10 &&
				 t->net_len == TOPO_NET10_LEN)) {
		size_t l = strlen(t->spec);
		char a[16];

		snprintf(t->spec + l, sizeof(t->spec) - l, ",prefix=%s/%u",
			 dcn_topo_format_addr(t->net, a, sizeof(a)), t->net_len);
	}
	return t;

einval:
	free(t);
	errno = EINVAL;
	return NULL;
}

void
dcn_topo_free(struct dcn_topo *t)
{
	if (t == NULL)
		return;
	if (t->ops->fini != NULL)
		t->ops->fini(t);
	free(t);
}

enum dcn_topo_kind
dcn_topo_kind(const struct dcn_topo *t)
{
	return t->kind;
}

const struct dcn_topo_params *
dcn_topo_params(const struct dcn_topo *t)
{
	return &t->p;
}

const char *
dcn_topo_spec(const struct dcn_topo *t)
{
	return t->spec;
}


uint32_t
dcn_topo_servers(const struct dcn_topo *t)
{
	return t->n_servers;
}

uint32_t
dcn_topo_switches(const struct dcn_topo *t)
{
	return t->n_switches;
}

uint32_t
dcn_topo_vertices(const struct dcn_topo *t)
{
	return t->n_servers + t->n_switches;
}

uint64_t
dcn_topo_links(const struct dcn_topo *t)
{
	return t->n_links;
}

unsigned int
dcn_topo_max_degree(const struct dcn_topo *t)
{
	return t->max_degree;
}

enum dcn_vertex_role
dcn_topo_role(const struct dcn_topo *t, uint32_t v)
{
	return t->ops->role(t, v);
}

int
dcn_topo_is_router(const struct dcn_topo *t, uint32_t v)
{
	enum dcn_vertex_role r = t->ops->role(t, v);

	if (t->kind == DCN_TOPO_DIAMOND)
		return r == DCN_ROLE_EDGE || r == DCN_ROLE_CORE;
	return r == DCN_ROLE_SERVER;
}

unsigned int
dcn_topo_adj(const struct dcn_topo *t, uint32_t v, struct dcn_adj *out)
{
	return t->ops->adj(t, v, out);
}

int64_t
dcn_topo_port_peer(const struct dcn_topo *t, uint32_t v, unsigned int port)
{
	struct dcn_adj stack[256], *a = stack;
	unsigned int deg = dcn_topo_max_degree(t), n, i;
	int64_t peer = -1;

	/* Only a switch with more ports than that needs the heap. */
	if (deg > sizeof(stack) / sizeof(stack[0])) {
		a = malloc(deg * sizeof(*a));
		if (a == NULL)
			return -1;
	}
	n = dcn_topo_adj(t, v, a);
	for (i = 0; i < n; i++)
		if (a[i].port == port) {
			peer = a[i].peer;
			break;
		}
	if (a != stack)
		free(a);
	return peer;
}

unsigned int
dcn_topo_ports(const struct dcn_topo *t, uint32_t v)
{
	return t->ops->ports(t, v);
}

uint32_t
dcn_topo_addr(const struct dcn_topo *t, uint32_t v)
{
	return t->ops->addr(t, v);
}

int64_t
dcn_topo_vertex_of(const struct dcn_topo *t, uint32_t addr)
{
	return t->ops->vertex_of(t, addr);
}

void
dcn_topo_prefix(const struct dcn_topo *t, uint32_t *net, unsigned int *len)
{
	*net = t->net;
	*len = t->net_len;
}

void
dcn_topo_covering(const struct dcn_topo *t, uint32_t *net, unsigned int *len)
{
	*net = t->cover_net;
	*len = t->cover_len;
}

/* Private space: RFC 1918's three networks and RFC 6598's shared space. */
int
dcn_topo_prefix_private(uint32_t net, unsigned int len)
{
	static const struct {
		uint32_t net;
		unsigned int len;
	} priv[] = {
		{ 10u << 24, 8 },
		{ 172u << 24 | 16u << 16, 12 },
		{ 192u << 24 | 168u << 16, 16 },
		{ 100u << 24 | 64u << 16, 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(priv) / sizeof(priv[0]); i++)
		if (len >= priv[i].len &&
		    net >> (32 - priv[i].len) == priv[i].net >> (32 - priv[i].len))
			return 1;
	return 0;
}

int
dcn_topo_addr_layout(const struct dcn_topo *t, unsigned int *bits0,
		     unsigned int *bitsi)
{
	switch (t->kind) {
	case DCN_TOPO_RRECT:
		*bits0 = t->u.rr.bits0;
		*bitsi = t->u.rr.bitsn;
		return 0;
	case DCN_TOPO_LASCADA:
		*bits0 = t->u.ls.bits1;
		*bitsi = t->u.ls.bitsR;
		return 0;
	case DCN_TOPO_TOTORO:
		*bits0 = t->u.tt.bitsN;
		*bitsi = t->u.tt.bitsn;
		return 0;
	default:
		return -1;
	}
}

char *
dcn_topo_format_addr(uint32_t addr, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 0xff,
		 (addr >> 8) & 0xff, addr & 0xff);
	return buf;
}

int
dcn_topo_parse_addr(const char *s, uint32_t *addr)
{
	unsigned int b[4];
	char tail;

	if (sscanf(s, "%u.%u.%u.%u%c", &b[0], &b[1], &b[2], &b[3], &tail) != 4)
		return -1;
	if (b[0] > 255 || b[1] > 255 || b[2] > 255 || b[3] > 255)
		return -1;
	*addr = b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
	return 0;
}

int64_t
dcn_topo_parse_vertex(const struct dcn_topo *t, const char *s, char *err,
		      size_t errlen)
{
	uint32_t addr;
	int64_t v;

	if (s == NULL || *s == '\0') {
		topo_err(err, errlen, "empty node name");
		return -1;
	}
	if (s[0] == '#') {
		char *end;
		unsigned long long n;

		errno = 0;
		n = strtoull(s + 1, &end, 10);
		if (errno != 0 || end == s + 1 || *end != '\0' ||
		    n >= dcn_topo_vertices(t)) {
			topo_err(err, errlen, "node '%s': no such vertex (0..%u)",
				 s, dcn_topo_vertices(t) - 1);
			return -1;
		}
		return (int64_t)n;
	}
	if (strchr(s, '.') != NULL && dcn_topo_parse_addr(s, &addr) == 0) {
		v = t->ops->vertex_of(t, addr);
		if (v < 0)
			topo_err(err, errlen, "node '%s': address not in %s", s,
				 t->spec);
		return v;
	}
	return t->ops->parse(t, s, err, errlen);
}

char *
dcn_topo_format_vertex(const struct dcn_topo *t, uint32_t v, char *buf,
		       size_t len)
{
	if (v >= dcn_topo_vertices(t)) {
		snprintf(buf, len, "#%" PRIu32 "?", v);
		return buf;
	}
	return t->ops->format(t, v, buf, len);
}
