/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration loader. The file is first checked line by line for syntax
 * (so a stray line is reported with its number), then read with
 * rte_cfgfile; every value is checked, and errors locate their key by
 * scanning the text again, since rte_cfgfile keeps no line numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "dcn_conf.h"
#include "dcn_fabric.h"

#define MAX_SECTIONS (DCN_CONF_MAX_PORTS + DCN_CONF_MAX_WORKERS + 8)
#define MAX_ENTRIES 32

struct ctx {
	const char *file;
	char *text;
	struct rte_cfgfile *cfg;
	char *err;
	size_t errlen;
};

static const char *const fabric_keys[] = { "topology", "node", "role",
	"ethertype", "hello_interval_ms", "hello_miss", "holddown_ms", "algo", "draw",
	"partial", NULL };
static const char *const port_keys[] = { "dev", "fabric_port", "host", "rxq",
	"txq", "hellos", "credits", NULL };
static const char *const worker_keys[] = { "lcore", "rx", NULL };
static const char *const queue_keys[] = { "burst", "rx_desc", "tx_desc",
	"mbufs", "backoff", "route_cache", NULL };
static const char *const fc_keys[] = { "enabled", "vcs", "input_queue",
	"output_queue", "reserve_percent", "credit_batch", "credit_refresh_us",
	NULL };

const char *
dcn_conf_role_name(enum dcn_node_role r)
{
	static const char *const names[] = { "relay", "edge", "core" };

	return r <= DCN_NODE_CORE ? names[r] : "?";
}

/* Trimmed copy of a line into buf. */
static void
trim(const char *s, size_t n, char *buf, size_t len)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/*
 * Line of key in section (key NULL: the section header). @return 0 when
 * not found; a missing key falls back to its section's header.
 */
static unsigned int
line_of(const struct ctx *x, const char *section, const char *key)
{
	const char *p = x->text;
	char cur[CFG_NAME_LEN] = "", buf[512];
	unsigned int ln = 0, sec_line = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");

		ln++;
		trim(p, n, buf, sizeof(buf));
		if (buf[0] == '[') {
			char *close = strchr(buf, ']');

			if (close != NULL) {
				*close = '\0';
				trim(buf + 1, strlen(buf + 1), cur, sizeof(cur));
				if (strcmp(cur, section) == 0 && sec_line == 0) {
					sec_line = ln;
					if (key == NULL)
						return ln;
				}
			}
		} else if (key != NULL && strcmp(cur, section) == 0) {
			size_t kl = strlen(key);

			if (strncmp(buf, key, kl) == 0 &&
			    (buf[kl] == '=' || isspace((unsigned char)buf[kl])))
				return ln;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return sec_line;
}

__attribute__((format(printf, 4, 5)))
static int
fail(const struct ctx *x, const char *section, const char *key,
     const char *fmt, ...)
{
	char msg[DCN_CONF_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s:%u: [%s]%s%s: %s", x->file,
		 line_of(x, section, key), section, key ? " " : "",
		 key ? key : "", msg);
	return -EINVAL;
}

/* Syntax: blank, comment, [section] or key = value, line by line. */
static int
check_syntax(struct ctx *x)
{
	const char *p = x->text;
	char buf[512];
	unsigned int ln = 0;
	int in_section = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");

		ln++;
		trim(p, n, buf, sizeof(buf));
		if (buf[0] == '\0' || buf[0] == ';' || buf[0] == '#') {
			/* nothing */
		} else if (buf[0] == '[') {
			if (strchr(buf, ']') == NULL || strchr(buf, ']') == buf + 1) {
				snprintf(x->err, x->errlen, "%s:%u: bad section header '%s'",
					 x->file, ln, buf);
				return -EINVAL;
			}
			in_section = 1;
		} else if (strchr(buf, '=') == NULL || buf[0] == '=') {
			snprintf(x->err, x->errlen, "%s:%u: expected key = value, got '%s'",
				 x->file, ln, buf);
			return -EINVAL;
		} else if (!in_section) {
			snprintf(x->err, x->errlen, "%s:%u: key outside any [section]",
				 x->file, ln);
			return -EINVAL;
		}
		if (n >= CFG_VALUE_LEN + CFG_NAME_LEN) {
			snprintf(x->err, x->errlen, "%s:%u: line too long", x->file, ln);
			return -EINVAL;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return 0;
}

static int
check_keys(const struct ctx *x, const char *section, const char *const *allowed)
{
	struct rte_cfgfile_entry e[MAX_ENTRIES];
	int n, i, j;

	n = rte_cfgfile_section_num_entries(x->cfg, section);
	if (n > MAX_ENTRIES)
		return fail(x, section, NULL, "more than %d keys", MAX_ENTRIES);
	n = rte_cfgfile_section_entries(x->cfg, section, e, MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		for (j = 0; allowed[j] != NULL; j++)
			if (strcmp(e[i].name, allowed[j]) == 0)
				break;
		if (allowed[j] == NULL)
			return fail(x, section, e[i].name, "unknown key");
		for (j = 0; j < i; j++)
			if (strcmp(e[i].name, e[j].name) == 0)
				return fail(x, section, e[i].name, "given twice");
	}
	return 0;
}

static const char *
get(const struct ctx *x, const char *section, const char *key)
{
	return rte_cfgfile_get_entry(x->cfg, section, key);
}

/* An unsigned number (decimal or 0x hex) within [min, max], or def. */
static int
get_uint(const struct ctx *x, const char *section, const char *key,
	 unsigned long min, unsigned long max, unsigned long def,
	 unsigned int *out)
{
	const char *v = get(x, section, key);
	unsigned long n;
	char *end;

	if (v == NULL) {
		*out = (unsigned int)def;
		return 0;
	}
	errno = 0;
	n = strtoul(v, &end, 0);
	if (errno != 0 || end == v || *end != '\0' || v[0] == '-')
		return fail(x, section, key, "'%s' is not a number", v);
	if (n < min || n > max)
		return fail(x, section, key, "%lu out of range %lu..%lu", n, min,
			    max);
	*out = (unsigned int)n;
	return 0;
}

static int
get_bool(const struct ctx *x, const char *section, const char *key, int def,
	 int *out)
{
	const char *v = get(x, section, key);

	if (v == NULL)
		*out = def;
	else if (strcmp(v, "yes") == 0 || strcmp(v, "on") == 0 ||
		 strcmp(v, "1") == 0)
		*out = 1;
	else if (strcmp(v, "no") == 0 || strcmp(v, "off") == 0 ||
		 strcmp(v, "0") == 0)
		*out = 0;
	else
		return fail(x, section, key, "'%s' is not yes or no", v);
	return 0;
}

static int
load_fabric(const struct ctx *x, struct dcn_conf *c, struct dcn_topo **topo)
{
	char err[DCN_TOPO_ERR_LEN];
	const char *v;
	unsigned int u;
	int64_t node;
	int ret;

	if (!rte_cfgfile_has_section(x->cfg, "fabric"))
		return fail(x, "fabric", NULL, "missing section");
	ret = check_keys(x, "fabric", fabric_keys);
	if (ret < 0)
		return ret;
	v = get(x, "fabric", "topology");
	if (v == NULL)
		return fail(x, "fabric", "topology", "missing");
	*topo = dcn_topo_create(v, err, sizeof(err));
	if (*topo == NULL)
		return fail(x, "fabric", "topology", "%s", err);
	snprintf(c->spec, sizeof(c->spec), "%s", dcn_topo_spec(*topo));
	v = get(x, "fabric", "node");
	if (v == NULL)
		return fail(x, "fabric", "node", "missing");
	node = dcn_topo_parse_vertex(*topo, v, err, sizeof(err));
	if (node < 0)
		return fail(x, "fabric", "node", "%s", err);
	if (!dcn_topo_is_router(*topo, (uint32_t)node))
		return fail(x, "fabric", "node", "'%s' does not route in %s", v,
			    c->spec);
	c->node = (uint32_t)node;
	switch (dcn_topo_role(*topo, c->node)) {
	case DCN_ROLE_EDGE: c->role = DCN_NODE_EDGE; break;
	case DCN_ROLE_CORE: c->role = DCN_NODE_CORE; break;
	default: c->role = DCN_NODE_RELAY; break;
	}
	v = get(x, "fabric", "role");
	if (v != NULL && strcmp(v, dcn_conf_role_name(c->role)) != 0)
		return fail(x, "fabric", "role",
			    "'%s' does not match the node: it is a %s", v,
			    dcn_conf_role_name(c->role));
	ret = get_uint(x, "fabric", "ethertype", 0x0600, 0xffff,
		       DCN_FABRIC_ETHERTYPE, &u);
	if (ret < 0)
		return ret;
	if (u == 0x0800 || u == 0x0806 || u == 0x86dd || u == 0x8100)
		return fail(x, "fabric", "ethertype",
			    "0x%04x belongs to IPv4, ARP, IPv6 or VLAN", u);
	c->ethertype = (uint16_t)u;
	ret = get_uint(x, "fabric", "hello_interval_ms", 1, 10000, 3,
		       &c->hello_interval_ms);
	if (ret == 0)
		ret = get_uint(x, "fabric", "hello_miss", 1, 100, 3,
			       &c->hello_miss);
	if (ret == 0)
		ret = get_uint(x, "fabric", "holddown_ms", 1, 600000, 100,
			       &c->holddown_ms);
	if (ret == 0)
		ret = get_bool(x, "fabric", "partial", 0, &c->partial);
	if (ret < 0)
		return ret;
	v = get(x, "fabric", "algo");
	c->algo = DCN_ALGO_DEFAULT;
	if (v != NULL) {
		int a = dcn_route_algo_parse(v);
		struct dcn_router *r;

		if (a < 0)
			return fail(x, "fabric", "algo", "unknown algorithm '%s'", v);
		r = dcn_router_create(*topo, (enum dcn_route_algo)a, err,
				      sizeof(err));
		if (r == NULL)
			return fail(x, "fabric", "algo", "%s", err);
		dcn_router_free(r);
		c->algo = (enum dcn_route_algo)a;
	}
	v = get(x, "fabric", "draw");
	if (v == NULL || strcmp(v, "flow") == 0)
		c->draw_per_packet = 0;
	else if (strcmp(v, "packet") == 0)
		c->draw_per_packet = 1;
	else
		return fail(x, "fabric", "draw", "'%s' is not flow or packet", v);
	return 0;
}

static int
load_port(const struct ctx *x, const struct dcn_topo *t, struct dcn_conf *c,
	  const char *section)
{
	struct dcn_conf_port *p = &c->port[c->n_ports];
	const char *v;
	unsigned int u;
	int ret;

	if (c->n_ports == DCN_CONF_MAX_PORTS)
		return fail(x, section, NULL, "more than %d ports",
			    DCN_CONF_MAX_PORTS);
	ret = check_keys(x, section, port_keys);
	if (ret < 0)
		return ret;
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", section + 5);
	if (p->name[0] == '\0')
		return fail(x, section, NULL, "a port needs a name: [port.NAME]");
	v = get(x, section, "dev");
	if (v == NULL || v[0] == '\0')
		return fail(x, section, "dev", "missing");
	snprintf(p->dev, sizeof(p->dev), "%s", v);
	ret = get_bool(x, section, "host", 0, &p->host);
	if (ret == 0)
		ret = get_bool(x, section, "hellos", 1, &p->hellos);
	if (ret == 0)
		ret = get_bool(x, section, "credits", 1, &p->credits);
	if (ret == 0)
		ret = get_uint(x, section, "rxq", 1, DCN_CONF_MAX_QUEUES, 1, &u);
	if (ret < 0)
		return ret;
	p->rxq = (uint16_t)u;
	ret = get_uint(x, section, "txq", 1, DCN_CONF_MAX_QUEUES, 1, &u);
	if (ret < 0)
		return ret;
	p->txq = (uint16_t)u;
	p->fabric_port = -1;
	if (get(x, section, "fabric_port") != NULL) {
		struct dcn_adj a[256];
		unsigned int n, i;

		ret = get_uint(x, section, "fabric_port", 0, 0xffff, 0, &u);
		if (ret < 0)
			return ret;
		n = dcn_topo_adj(t, c->node, a);
		for (i = 0; i < n; i++)
			if (a[i].port == u)
				break;
		if (i == n)
			return fail(x, section, "fabric_port",
				    "node has no cabled port %u (ports 0..%u)", u,
				    dcn_topo_ports(t, c->node) - 1);
		for (i = 0; i < c->n_ports; i++)
			if (c->port[i].fabric_port == (int)u)
				return fail(x, section, "fabric_port",
					    "port %u is also [port.%s]", u,
					    c->port[i].name);
		/* In Diamond the ports facing servers carry plain IPv4. */
		if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND) {
			int server = 0;

			for (i = 0; i < n; i++)
				if (a[i].port == u)
					server = dcn_topo_role(t, a[i].peer) ==
						 DCN_ROLE_SERVER;
			if (server != p->host)
				return fail(x, section, "host", server ?
					    "port %u faces a server: host = yes" :
					    "port %u faces a switch: not a host port",
					    u);
		} else if (p->host) {
			return fail(x, section, "host",
				    "a host port has no fabric_port");
		}
		p->fabric_port = (int)u;
	} else if (!p->host) {
		return fail(x, section, "fabric_port",
			    "missing: give the node's port number, or host = yes");
	} else if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND) {
		return fail(x, section, "fabric_port",
			    "Diamond host ports are the edge switch's server ports: give its number");
	}
	if ((!p->hellos || !p->credits) && (p->fabric_port < 0 || p->host))
		return fail(x, section, p->hellos ? "credits" : "hellos",
			    "a host port has neither hellos nor credits");
	c->n_ports++;
	return 0;
}

static int
load_worker(const struct ctx *x, struct dcn_conf *c, const char *section,
	    uint8_t polled[][DCN_CONF_MAX_QUEUES])
{
	struct dcn_conf_worker *w = &c->worker[c->n_workers];
	char list[CFG_VALUE_LEN], *item, *save = NULL;
	const char *v;
	unsigned int i;
	int ret;

	if (c->n_workers == DCN_CONF_MAX_WORKERS)
		return fail(x, section, NULL, "more than %d workers",
			    DCN_CONF_MAX_WORKERS);
	ret = check_keys(x, section, worker_keys);
	if (ret < 0)
		return ret;
	memset(w, 0, sizeof(*w));
	if (get(x, section, "lcore") == NULL)
		return fail(x, section, "lcore", "missing");
	ret = get_uint(x, section, "lcore", 0, 1023, 0, &w->lcore);
	if (ret < 0)
		return ret;
	for (i = 0; i < c->n_workers; i++)
		if (c->worker[i].lcore == w->lcore)
			return fail(x, section, "lcore",
				    "lcore %u already runs another worker", w->lcore);
	v = get(x, section, "rx");
	if (v == NULL)
		return fail(x, section, "rx", "missing: list PORT:QUEUE, ...");
	snprintf(list, sizeof(list), "%s", v);
	for (item = strtok_r(list, ", \t", &save); item != NULL;
	     item = strtok_r(NULL, ", \t", &save)) {
		char *colon = strchr(item, ':'), *end;
		unsigned long q;
		unsigned int p;

		if (colon == NULL)
			return fail(x, section, "rx", "'%s' is not PORT:QUEUE", item);
		*colon = '\0';
		for (p = 0; p < c->n_ports; p++)
			if (strcmp(c->port[p].name, item) == 0)
				break;
		if (p == c->n_ports)
			return fail(x, section, "rx", "no [port.%s]", item);
		q = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end != '\0' || q >= c->port[p].rxq)
			return fail(x, section, "rx",
				    "port %s has rx queues 0..%u, not '%s'", item,
				    c->port[p].rxq - 1, colon + 1);
		if (polled[p][q])
			return fail(x, section, "rx",
				    "%s:%lu is polled by another worker", item, q);
		polled[p][q] = 1;
		w->rx[w->n_rx].port = (uint16_t)p;
		w->rx[w->n_rx++].queue = (uint16_t)q;
	}
	c->n_workers++;
	return 0;
}

static int
load_all(struct ctx *x, struct dcn_conf *c, struct dcn_topo **topo)
{
	static uint8_t polled[DCN_CONF_MAX_PORTS][DCN_CONF_MAX_QUEUES];
	char *names[MAX_SECTIONS];
	int n, i, ret;
	unsigned int p, q;

	memset(polled, 0, sizeof(polled));
	ret = load_fabric(x, c, topo);
	if (ret < 0)
		return ret;
	n = rte_cfgfile_num_sections(x->cfg, NULL, 0);
	if (n > MAX_SECTIONS)
		return fail(x, "fabric", NULL, "more than %d sections", MAX_SECTIONS);
	for (i = 0; i < n; i++) {
		names[i] = malloc(CFG_NAME_LEN);
		if (names[i] == NULL) {
			while (i-- > 0)
				free(names[i]);
			return -ENOMEM;
		}
	}
	rte_cfgfile_sections(x->cfg, names, n);
	/* Ports first, in file order: workers name them. */
	for (i = 0; i < n && ret == 0; i++) {
		if (strncmp(names[i], "port.", 5) == 0)
			ret = load_port(x, *topo, c, names[i]);
		else if (strcmp(names[i], "fabric") != 0 &&
			 strcmp(names[i], "queues") != 0 &&
			 strcmp(names[i], "flow_control") != 0 &&
			 strncmp(names[i], "worker.", 7) != 0)
			ret = fail(x, names[i], NULL,
				   "unknown section (fabric, port.NAME, worker.NAME, queues, flow_control)");
	}
	for (i = 0; i < n && ret == 0; i++)
		if (strncmp(names[i], "worker.", 7) == 0)
			ret = load_worker(x, c, names[i], polled);
	for (i = 0; i < n; i++)
		free(names[i]);
	if (ret < 0)
		return ret;
	if (c->n_ports == 0)
		return fail(x, "fabric", NULL, "no [port.NAME] section");
	if (c->n_workers == 0)
		return fail(x, "fabric", NULL, "no [worker.NAME] section");
	for (p = 0; p < c->n_ports; p++)
		for (q = 0; q < c->port[p].rxq; q++)
			if (!polled[p][q]) {
				char sec[DCN_CONF_NAME_LEN + 8];

				snprintf(sec, sizeof(sec), "port.%s", c->port[p].name);
				return fail(x, sec, "rxq",
					    "queue %u is polled by no worker", q);
			}
	if (!c->partial) {
		struct dcn_adj a[256];
		unsigned int na = dcn_topo_adj(*topo, c->node, a), j;

		for (j = 0; j < na; j++) {
			for (p = 0; p < c->n_ports; p++)
				if (c->port[p].fabric_port == a[j].port)
					break;
			if (p == c->n_ports) {
				char name[DCN_TOPO_NAME_LEN];

				dcn_topo_format_vertex(*topo, a[j].peer, name,
						       sizeof(name));
				return fail(x, "fabric", "partial",
					    "no port configured for fabric port %u (to %s); set partial = yes to run without it",
					    a[j].port, name);
			}
		}
	}
	if (rte_cfgfile_has_section(x->cfg, "queues")) {
		ret = check_keys(x, "queues", queue_keys);
		if (ret < 0)
			return ret;
	}
	ret = get_uint(x, "queues", "burst", 1, 64, 64, &c->burst);
	if (ret == 0)
		ret = get_uint(x, "queues", "rx_desc", 64, 16384, 1024, &c->rx_desc);
	if (ret == 0)
		ret = get_uint(x, "queues", "tx_desc", 64, 16384, 1024, &c->tx_desc);
	if (ret == 0)
		ret = get_uint(x, "queues", "mbufs", 1023, 1u << 24, 8191, &c->mbufs);
	if (ret == 0)
		ret = get_bool(x, "queues", "backoff", 1, &c->backoff);
	if (ret == 0)
		ret = get_uint(x, "queues", "route_cache", 0, 1u << 16, 1024,
			       &c->route_cache);
	if (ret == 0 && (c->route_cache & (c->route_cache - 1)) != 0)
		ret = fail(x, "queues", "route_cache", "%u is not a power of two",
			   c->route_cache);
	if (ret == 0 && rte_cfgfile_has_section(x->cfg, "flow_control"))
		ret = check_keys(x, "flow_control", fc_keys);
	if (ret == 0)
		ret = get_bool(x, "flow_control", "enabled", 1, &c->fc_enabled);
	if (ret == 0)
		ret = get_uint(x, "flow_control", "vcs", 1, 2, 2, &c->fc_vcs);
	if (ret == 0)
		ret = get_uint(x, "flow_control", "input_queue", 16, 1u << 16, 256,
			       &c->fc_in_queue);
	if (ret == 0)
		ret = get_uint(x, "flow_control", "output_queue", 16, 1u << 18, 512,
			       &c->fc_out_queue);
	if (ret == 0)
		ret = get_uint(x, "flow_control", "reserve_percent", 1, 90, 20,
			       &c->fc_reserve_pct);
	if (ret == 0)
		ret = get_uint(x, "flow_control", "credit_batch", 1, 1024, 32,
			       &c->fc_credit_batch);
	if (ret == 0)
		ret = get_uint(x, "flow_control", "credit_refresh_us", 10, 1000000,
			       1000, &c->fc_credit_refresh_us);
	if (ret == 0 && c->fc_credit_batch >= c->fc_in_queue * (100 - c->fc_reserve_pct) / 100)
		ret = fail(x, "flow_control", "credit_batch",
			   "%u is not below the credits granted (%u)",
			   c->fc_credit_batch,
			   c->fc_in_queue * (100 - c->fc_reserve_pct) / 100);
	return ret;
}

int
dcn_conf_load(const char *file, struct dcn_conf *c, struct dcn_topo **topo,
	      char *err, size_t errlen)
{
	struct ctx x = { file, NULL, NULL, err, errlen };
	FILE *f;
	long size;
	int ret;

	memset(c, 0, sizeof(*c));
	*topo = NULL;
	snprintf(c->file, sizeof(c->file), "%s", file);
	f = fopen(file, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -ENOENT;
	}
	if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 ||
	    size > (1 << 20) || fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		snprintf(err, errlen, "%s: not a readable file under 1 MiB", file);
		return -EINVAL;
	}
	x.text = calloc(1, (size_t)size + 1);
	if (x.text == NULL) {
		fclose(f);
		return -ENOMEM;
	}
	if (fread(x.text, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(x.text);
		snprintf(err, errlen, "%s: read error", file);
		return -EINVAL;
	}
	fclose(f);
	if (memchr(x.text, '\0', (size_t)size) != NULL) {
		free(x.text);
		snprintf(err, errlen, "%s: not a text file", file);
		return -EINVAL;
	}
	ret = check_syntax(&x);
	if (ret == 0) {
		x.cfg = rte_cfgfile_load(file, 0);
		if (x.cfg == NULL) {
			snprintf(err, errlen, "%s: cannot parse", file);
			ret = -EINVAL;
		}
	}
	if (ret == 0)
		ret = load_all(&x, c, topo);
	if (x.cfg != NULL)
		rte_cfgfile_close(x.cfg);
	free(x.text);
	if (ret < 0) {
		dcn_topo_free(*topo);
		*topo = NULL;
	}
	return ret;
}
