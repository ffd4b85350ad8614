/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration loader. The file is first checked line by line for syntax
 * (so a stray line is reported with its number), then read with
 * rte_cfgfile; every value is checked, and errors locate their key by
 * scanning the text again, since rte_cfgfile keeps no line numbers
 * (conf_text.c). Keys and their checks are conf_keys.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cfgfile.h>

#include "dcn_auth.h"
#include "conf_priv.h"
#include "dcn_fabric.h"

#define MAX_SECTIONS (DCN_CONF_MAX_PORTS + DCN_CONF_MAX_WORKERS + 8)
#define MAX_ENTRIES 32

const char *
dcn_conf_role_name(enum dcn_node_role r)
{
	static const char *const names[] = { "relay", "edge", "core" };

	return r <= DCN_NODE_CORE ? names[r] : "?";
}

/* Every key of section is one of the table's for it, given once. */
static int
check_keys(const struct conf_ctx *x, const char *section)
{
	struct rte_cfgfile_entry e[MAX_ENTRIES];
	int n, i, j;

	n = rte_cfgfile_section_num_entries(x->cfg, section);
	if (n > MAX_ENTRIES)
		return conf_fail(x, section, NULL, "more than %d keys", MAX_ENTRIES);
	n = rte_cfgfile_section_entries(x->cfg, section, e, MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		if (dcn_conf_key_find(section, e[i].name) == NULL)
			return conf_fail(x, section, e[i].name, "unknown key");
		for (j = 0; j < i; j++)
			if (strcmp(e[i].name, e[j].name) == 0)
				return conf_fail(x, section, e[i].name, "given twice");
	}
	return 0;
}

static const char *
get(const struct conf_ctx *x, const char *section, const char *key)
{
	return rte_cfgfile_get_entry(x->cfg, section, key);
}

/* Key key of section, by the table: checked and stored into base (its
 * scope's struct); its default stays when the file does not give it. */
static int
get_key(const struct conf_ctx *x, const char *section, const char *key, void *base)
{
	const struct dcn_conf_key *k = dcn_conf_key_find(section, key);
	const char *v = get(x, section, key);
	char why[160];
	uint32_t n;

	if (k == NULL)
		return conf_fail(x, section, key, "not a key (a bug)");
	if (v == NULL)
		return k->flags & DCN_CONF_F_REQUIRED ?
			       conf_fail(x, section, key, "missing") : 0;
	if (dcn_conf_parse_value(k, v, &n, why, sizeof(why)) != 0)
		return conf_fail(x, section, key, "%s", why);
	dcn_conf_store(k, base, v, n);
	return 0;
}

/* Every plain key of a section ([queues], [flow_control]). */
static int
get_section(const struct conf_ctx *x, const char *section, void *base)
{
	const struct dcn_conf_key *k;
	int ret;

	for (k = dcn_conf_keys; k->key != NULL; k++) {
		if (strcmp(k->section, section) != 0 || k->scope == DCN_CONF_S_SPECIAL)
			continue;
		ret = get_key(x, section, k->key, base);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * The fabric key: read from its own file, so the configuration can be
 * shown and shared without it. A relative path is taken from the
 * configuration file's folder (a service's working directory is /).
 */
static int
load_key(const struct conf_ctx *x, struct dcn_conf *c)
{
	const char *v = get(x, "fabric", "key_file");
	char path[sizeof(c->key_file)], why[DCN_CONF_ERR_LEN / 2];
	const char *slash;

	c->keyed = 0;
	c->key_file[0] = '\0';
	if (v == NULL || v[0] == '\0')
		return 0;
	slash = strrchr(x->file, '/');
	if (v[0] != '/' && slash != NULL) {
		if (snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - x->file),
			     x->file, v) >= (int)sizeof(path))
			return conf_fail(x, "fabric", "key_file", "path too long");
	} else if (snprintf(path, sizeof(path), "%s", v) >= (int)sizeof(path)) {
		return conf_fail(x, "fabric", "key_file", "path too long");
	}
	if (dcn_auth_read_key_file(path, c->key, why, sizeof(why)) != 0)
		return conf_fail(x, "fabric", "key_file", "%s", why);
	snprintf(c->key_file, sizeof(c->key_file), "%s", path);
	c->keyed = 1;
	return 0;
}

static int
load_fabric(const struct conf_ctx *x, struct dcn_conf *c, struct dcn_topo **topo)
{
	char err[DCN_TOPO_ERR_LEN];
	const char *v;
	unsigned int u;
	int64_t node;
	int ret;

	if (!rte_cfgfile_has_section(x->cfg, "fabric"))
		return conf_fail(x, "fabric", NULL, "missing section");
	ret = check_keys(x, "fabric");
	if (ret < 0)
		return ret;
	v = get(x, "fabric", "topology");
	if (v == NULL)
		return conf_fail(x, "fabric", "topology", "missing");
	*topo = dcn_topo_create(v, err, sizeof(err));
	if (*topo == NULL)
		return conf_fail(x, "fabric", "topology", "%s", err);
	snprintf(c->spec, sizeof(c->spec), "%s", dcn_topo_spec(*topo));
	v = get(x, "fabric", "node");
	if (v == NULL)
		return conf_fail(x, "fabric", "node", "missing");
	node = dcn_topo_parse_vertex(*topo, v, err, sizeof(err));
	if (node < 0)
		return conf_fail(x, "fabric", "node", "%s", err);
	if (!dcn_topo_is_router(*topo, (uint32_t)node))
		return conf_fail(x, "fabric", "node", "'%s' does not route in %s", v,
			    c->spec);
	c->node = (uint32_t)node;
	switch (dcn_topo_role(*topo, c->node)) {
	case DCN_ROLE_EDGE: c->role = DCN_NODE_EDGE; break;
	case DCN_ROLE_CORE: c->role = DCN_NODE_CORE; break;
	default: c->role = DCN_NODE_RELAY; break;
	}
	v = get(x, "fabric", "role");
	if (v != NULL && strcmp(v, dcn_conf_role_name(c->role)) != 0)
		return conf_fail(x, "fabric", "role",
			    "'%s' does not match the node: it is a %s", v,
			    dcn_conf_role_name(c->role));
	ret = get_key(x, "fabric", "ethertype", c);
	if (ret < 0)
		return ret;
	u = c->ethertype;
	if (u == 0x0800 || u == 0x0806 || u == 0x86dd || u == 0x8100)
		return conf_fail(x, "fabric", "ethertype",
			    "0x%04x belongs to IPv4, ARP, IPv6 or VLAN", u);
	ret = get_key(x, "fabric", "hello_interval_ms", c);
	if (ret == 0)
		ret = get_key(x, "fabric", "hello_miss", c);
	if (ret == 0)
		ret = get_key(x, "fabric", "holddown_ms", c);
	if (ret == 0)
		ret = get_key(x, "fabric", "partial", c);
	if (ret == 0)
		ret = get_key(x, "fabric", "draw", c);
	if (ret == 0)
		ret = get_key(x, "fabric", "encap", c);
	if (ret == 0)
		ret = get_key(x, "fabric", "udp_port", c);
	if (ret < 0)
		return ret;
	v = get(x, "fabric", "algo");
	c->algo = DCN_ALGO_DEFAULT;
	if (v != NULL) {
		int a = dcn_route_algo_parse(v);
		struct dcn_router *r;

		if (a < 0)
			return conf_fail(x, "fabric", "algo", "unknown algorithm '%s'", v);
		r = dcn_router_create(*topo, (enum dcn_route_algo)a, err,
				      sizeof(err));
		if (r == NULL)
			return conf_fail(x, "fabric", "algo", "%s", err);
		dcn_router_free(r);
		c->algo = (enum dcn_route_algo)a;
	}
	return load_key(x, c);
}

static int
load_port(const struct conf_ctx *x, const struct dcn_topo *t, struct dcn_conf *c,
	  const char *section)
{
	struct dcn_conf_port *p = &c->port[c->n_ports];
	unsigned int u;
	int ret;

	if (c->n_ports == DCN_CONF_MAX_PORTS)
		return conf_fail(x, section, NULL, "more than %d ports",
			    DCN_CONF_MAX_PORTS);
	ret = check_keys(x, section);
	if (ret < 0)
		return ret;
	memset(p, 0, sizeof(*p));
	dcn_conf_scope_defaults(DCN_CONF_S_PORT, p);
	if (strlen(section + 5) >= sizeof(p->name))
		return conf_fail(x, section, NULL, "a port name has at most %zu characters",
			    sizeof(p->name) - 1);
	snprintf(p->name, sizeof(p->name), "%s", section + 5);
	if (p->name[0] == '\0')
		return conf_fail(x, section, NULL, "a port needs a name: [port.NAME]");
	ret = get_key(x, section, "dev", p);
	if (ret == 0)
		ret = get_key(x, section, "host", p);
	if (ret == 0)
		ret = get_key(x, section, "hellos", p);
	if (ret == 0)
		ret = get_key(x, section, "credits", p);
	if (ret == 0)
		ret = get_key(x, section, "rxq", p);
	if (ret == 0)
		ret = get_key(x, section, "txq", p);
	if (ret < 0)
		return ret;
	p->fabric_port = -1;
	if (get(x, section, "fabric_port") != NULL) {
		struct dcn_adj a[256];
		unsigned int n, i;

		const struct dcn_conf_key *k = dcn_conf_key_find(section,
								  "fabric_port");
		char why[160];

		if (dcn_conf_parse_value(k, get(x, section, "fabric_port"), &u, why,
					 sizeof(why)) != 0)
			return conf_fail(x, section, "fabric_port", "%s", why);
		n = dcn_topo_adj(t, c->node, a);
		for (i = 0; i < n; i++)
			if (a[i].port == u)
				break;
		if (i == n)
			return conf_fail(x, section, "fabric_port",
				    "node has no cabled port %u (ports 0..%u)", u,
				    dcn_topo_ports(t, c->node) - 1);
		for (i = 0; i < c->n_ports; i++)
			if (c->port[i].fabric_port == (int)u)
				return conf_fail(x, section, "fabric_port",
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
				return conf_fail(x, section, "host", server ?
					    "port %u faces a server: host = yes" :
					    "port %u faces a switch: not a host port",
					    u);
		} else if (p->host) {
			return conf_fail(x, section, "host",
				    "a host port has no fabric_port");
		}
		p->fabric_port = (int)u;
	} else if (!p->host) {
		return conf_fail(x, section, "fabric_port",
			    "missing: give the node's port number, or host = yes");
	} else if (dcn_topo_kind(t) == DCN_TOPO_DIAMOND) {
		return conf_fail(x, section, "fabric_port",
			    "Diamond host ports are the edge switch's server ports: give its number");
	}
	if ((!p->hellos || !p->credits) && (p->fabric_port < 0 || p->host))
		return conf_fail(x, section, p->hellos ? "credits" : "hellos",
			    "a host port has neither hellos nor credits");
	c->n_ports++;
	return 0;
}

static int
load_worker(const struct conf_ctx *x, struct dcn_conf *c, const char *section,
	    uint8_t polled[][DCN_CONF_MAX_QUEUES])
{
	struct dcn_conf_worker *w = &c->worker[c->n_workers];
	char list[CFG_VALUE_LEN], *item, *save = NULL;
	const char *v;
	unsigned int i;
	int ret;

	if (c->n_workers == DCN_CONF_MAX_WORKERS)
		return conf_fail(x, section, NULL, "more than %d workers",
			    DCN_CONF_MAX_WORKERS);
	ret = check_keys(x, section);
	if (ret < 0)
		return ret;
	memset(w, 0, sizeof(*w));
	dcn_conf_scope_defaults(DCN_CONF_S_WORKER, w);
	ret = get_key(x, section, "lcore", w);
	if (ret < 0)
		return ret;
	for (i = 0; i < c->n_workers; i++)
		if (c->worker[i].lcore == w->lcore)
			return conf_fail(x, section, "lcore",
				    "lcore %u already runs another worker", w->lcore);
	v = get(x, section, "rx");
	if (v == NULL)
		return conf_fail(x, section, "rx", "missing: list PORT:QUEUE, ...");
	snprintf(list, sizeof(list), "%s", v);
	for (item = strtok_r(list, ", \t", &save); item != NULL;
	     item = strtok_r(NULL, ", \t", &save)) {
		char *colon = strchr(item, ':'), *end;
		unsigned long q;
		unsigned int p;

		if (colon == NULL)
			return conf_fail(x, section, "rx", "'%s' is not PORT:QUEUE", item);
		*colon = '\0';
		for (p = 0; p < c->n_ports; p++)
			if (strcmp(c->port[p].name, item) == 0)
				break;
		if (p == c->n_ports)
			return conf_fail(x, section, "rx", "no [port.%s]", item);
		q = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end != '\0' || q >= c->port[p].rxq)
			return conf_fail(x, section, "rx",
				    "port %s has rx queues 0..%u, not '%s'", item,
				    c->port[p].rxq - 1, colon + 1);
		if (polled[p][q])
			return conf_fail(x, section, "rx",
				    "%s:%lu is polled by another worker", item, q);
		polled[p][q] = 1;
		w->rx[w->n_rx].port = (uint16_t)p;
		w->rx[w->n_rx++].queue = (uint16_t)q;
	}
	c->n_workers++;
	return 0;
}

static int
load_all(struct conf_ctx *x, struct dcn_conf *c, struct dcn_topo **topo)
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
		return conf_fail(x, "fabric", NULL, "more than %d sections", MAX_SECTIONS);
	for (i = 0; i < n; i++) {
		names[i] = malloc(CFG_NAME_LEN);
		if (names[i] == NULL) {
			while (i-- > 0)
				free(names[i]);
			return -ENOMEM;
		}
	}
	rte_cfgfile_sections(x->cfg, names, n);
	for (i = 0; i < n && ret == 0; i++) {
		int j;

		for (j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0) {
				snprintf(x->err, x->errlen, "%s:%u: [%s] given twice",
					 x->file, conf_section_line(x, names[i], 2), names[i]);
				ret = -EINVAL;
				break;
			}
	}
	/* Ports first, in file order: workers name them. */
	for (i = 0; i < n && ret == 0; i++) {
		if (strncmp(names[i], "port.", 5) == 0)
			ret = load_port(x, *topo, c, names[i]);
		else if (strcmp(names[i], "fabric") != 0 &&
			 strcmp(names[i], "queues") != 0 &&
			 strcmp(names[i], "flow_control") != 0 &&
			 strncmp(names[i], "worker.", 7) != 0)
			ret = conf_fail(x, names[i], NULL,
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
		return conf_fail(x, "fabric", NULL, "no [port.NAME] section");
	if (c->n_workers == 0)
		return conf_fail(x, "fabric", NULL, "no [worker.NAME] section");
	for (p = 0; p < c->n_ports; p++)
		for (q = 0; q < c->port[p].rxq; q++)
			if (!polled[p][q]) {
				char sec[DCN_CONF_NAME_LEN + 8];

				snprintf(sec, sizeof(sec), "port.%s", c->port[p].name);
				return conf_fail(x, sec, "rxq",
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
				return conf_fail(x, "fabric", "partial",
					    "no port configured for fabric port %u (to %s); set partial = yes to run without it",
					    a[j].port, name);
			}
		}
	}
	if (rte_cfgfile_has_section(x->cfg, "queues"))
		ret = check_keys(x, "queues");
	if (ret == 0 && rte_cfgfile_has_section(x->cfg, "flow_control"))
		ret = check_keys(x, "flow_control");
	if (ret == 0)
		ret = get_section(x, "queues", c);
	if (ret == 0)
		ret = get_section(x, "flow_control", c);
	/* A batch that was asked for must fit in the grant of the queue
	 * that was asked for; any batch is cut to a quarter of the grant
	 * (dcnfwd's flow-control setup), as small queues want, and so is
	 * one beside input_queue = 0, whose size each node's ports set. */
	if (ret == 0 && rte_cfgfile_has_entry(x->cfg, "flow_control", "credit_batch") &&
	    c->fc_in_queue != 0 &&
	    c->fc_credit_batch >= c->fc_in_queue * (100 - c->fc_reserve_pct) / 100)
		ret = conf_fail(x, "flow_control", "credit_batch",
			   "%u is not below the credits granted (%u)",
			   c->fc_credit_batch,
			   c->fc_in_queue * (100 - c->fc_reserve_pct) / 100);
	return ret;
}

int
dcn_conf_load(const char *file, struct dcn_conf *c, struct dcn_topo **topo,
	      char *err, size_t errlen)
{
	struct conf_ctx x = { file, NULL, NULL, err, errlen };
	struct stat sb;
	FILE *f;
	long size;
	int ret;

	dcn_conf_defaults(c);
	*topo = NULL;
	snprintf(c->file, sizeof(c->file), "%s", file);
	/* Not opened before it is known to be a file: a FIFO would block
	 * the open, and a device would never end. */
	if (stat(file, &sb) != 0) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", file);
		return -EINVAL;
	}
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
	ret = conf_check_syntax(&x);
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
		conf_printable(err);
	}
	return ret;
}
