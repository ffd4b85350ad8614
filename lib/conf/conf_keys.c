/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration keys: one table for the file parser, the command-line
 * overrides, --help and the generated reference (doc/configuration.md),
 * so that the four cannot disagree. A key's value is checked here by its
 * type and range; checks that need the topology or other keys are the
 * loader's (conf.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_conf.h"
#include "dcn_fabric.h"

#define NODE(f) DCN_CONF_S_NODE, offsetof(struct dcn_conf, f), \
	sizeof(((struct dcn_conf *)0)->f)
#define PORT(f) DCN_CONF_S_PORT, offsetof(struct dcn_conf_port, f), \
	sizeof(((struct dcn_conf_port *)0)->f)
#define WORKER(f) DCN_CONF_S_WORKER, offsetof(struct dcn_conf_worker, f), \
	sizeof(((struct dcn_conf_worker *)0)->f)
#define SPECIAL DCN_CONF_S_SPECIAL, 0, 0

const struct dcn_conf_key dcn_conf_keys[] = {
	{ "fabric", "topology", DCN_CONF_TEXT, DCN_CONF_F_REQUIRED, 0, 0,
	  "SPEC", NULL, SPECIAL, NULL,
	  "the topology spec string, e.g. rrect:n=4,m=2,k=1 (dcn-topo --help); "
	  "a trailing ,prefix=NET/LEN places the addresses in that network "
	  "(NovaCube's own plan is public space: give it one)" },
	{ "fabric", "node", DCN_CONF_TEXT, DCN_CONF_F_REQUIRED, 0, 0,
	  "NODE", NULL, SPECIAL, NULL,
	  "this node, in the paper's notation or as its fabric address" },
	{ "fabric", "role", DCN_CONF_ENUM, 0, 0, 0, "relay|edge|core", NULL,
	  SPECIAL, NULL,
	  "what the node is; checked against the topology (Diamond: edge or "
	  "core; elsewhere relay)" },
	{ "fabric", "ethertype", DCN_CONF_UINT, 0, 0x0600, 0xffff, "N",
	  "0x88b5", NODE(ethertype), NULL,
	  "EtherType of fabric frames; not IPv4's, ARP's, IPv6's or VLAN's" },
	{ "fabric", "encap", DCN_CONF_ENUM, 0, 0, 0, "ether|udp", "ether",
	  NODE(encap), "encap",
	  "wire format between relays, the same on every node: ether (the "
	  "fabric EtherType) or udp (the fabric header in IPv4/UDP, whose "
	  "source port carries the flow's hash, so a NIC's RSS spreads fabric "
	  "frames over its receive queues; 28 bytes more a frame). Diamond's "
	  "frames are plain IPv4 already and stay as they are" },
	{ "fabric", "udp_port", DCN_CONF_UINT, 0, 1, 0xffff, "N", "34997",
	  NODE(udp_port), "udp-port",
	  "encap = udp: the UDP destination port of fabric frames" },
	{ "fabric", "hello_interval_ms", DCN_CONF_UINT, 0, 1, 10000, "MS", "3",
	  NODE(hello_interval_ms), "hello-ms",
	  "hellos out of every fabric port this often" },
	{ "fabric", "hello_miss", DCN_CONF_UINT, 0, 1, 100, "N", "3",
	  NODE(hello_miss), "hello-miss",
	  "intervals of silence before a neighbour is taken for dead" },
	{ "fabric", "holddown_ms", DCN_CONF_UINT, 0, 1, 600000, "MS", "100",
	  NODE(holddown_ms), "holddown-ms",
	  "a link that comes back waits this long (doubled while it flaps)" },
	{ "fabric", "algo", DCN_CONF_TEXT, 0, 0, 0, "NAME", "default", SPECIAL,
	  "algo", "routing algorithm (dcn-topo --help lists them)" },
	{ "fabric", "draw", DCN_CONF_ENUM, 0, 0, 0, "flow|packet", "flow",
	  NODE(draw_per_packet), "draw",
	  "next hop by flow hash (a flow keeps its path) or drawn per packet" },
	{ "fabric", "key_file", DCN_CONF_TEXT, 0, 0, 255, "PATH", NULL, SPECIAL,
	  NULL, "the fabric key: a file of 64 hex digits, the same on every node "
	  "(relative: to this file's folder), readable by its owner alone "
	  "(mode 0600, as ssh wants a private key: a mode that lets others "
	  "read or change it is refused, as is a key of one byte repeated); hellos, announcements and credit "
	  "frames are then signed, and unsigned or replayed ones refused. "
	  "Unset: control frames are trusted as they come (doc/failover.md)" },
	{ "fabric", "partial", DCN_CONF_BOOL, 0, 0, 0, "yes|no", "no",
	  NODE(partial), NULL,
	  "yes: not every cabled port of the node needs a [port.NAME]" },

	{ "port", "dev", DCN_CONF_TEXT, DCN_CONF_F_REQUIRED, 0,
	  DCN_CONF_DEV_LEN - 1, "DEVARGS", NULL, PORT(dev), NULL,
	  "DPDK device or devargs: a NIC's PCI address, net_af_xdp0,iface=eth1, "
	  "net_memif0,socket=/run/x.sock, net_tap0, net_ring0, net_null0" },
	{ "port", "fabric_port", DCN_CONF_UINT, 0, 0, 0xffff, "N", NULL,
	  SPECIAL, NULL,
	  "the node's port number in the topology (dcn-topo route shows them); "
	  "a Diamond edge switch's server port is a host port with a number" },
	{ "port", "host", DCN_CONF_BOOL, 0, 0, 0, "yes|no", "no", PORT(host),
	  NULL, "plain IPv4 in and out: a host, or a Diamond server" },
	{ "port", "rxq", DCN_CONF_UINT, 0, 1, DCN_CONF_MAX_QUEUES, "N", "1",
	  PORT(rxq), NULL, "receive queues, each polled by one worker" },
	{ "port", "txq", DCN_CONF_UINT, 0, 1, DCN_CONF_MAX_QUEUES, "N", "1",
	  PORT(txq), NULL, "send queues (at least one per worker is made)" },
	{ "port", "hellos", DCN_CONF_BOOL, 0, 0, 0, "yes|no", "yes", PORT(hellos),
	  NULL, "no: the peer is a tester (pktgen): no hellos either way, the "
	  "link is up while its carrier is" },
	{ "port", "credits", DCN_CONF_BOOL, 0, 0, 0, "yes|no", "yes",
	  PORT(credits), NULL,
	  "no: the peer sends no credit frames: queues without external credits" },

	{ "worker", "lcore", DCN_CONF_UINT, DCN_CONF_F_REQUIRED, 0, 1023, "N",
	  NULL, WORKER(lcore), NULL,
	  "the EAL lcore it runs on (in -l, not the main lcore)" },
	{ "worker", "rx", DCN_CONF_TEXT, DCN_CONF_F_REQUIRED, 0, 0,
	  "PORT:QUEUE, ...", NULL, SPECIAL, NULL,
	  "the receive queues it polls; every queue of every port once" },

	{ "queues", "burst", DCN_CONF_UINT, 0, 1, 64, "N", "64", NODE(burst),
	  "burst", "frames a receive or send takes at most" },
	{ "queues", "rx_desc", DCN_CONF_UINT, 0, 64, 16384, "N", "1024",
	  NODE(rx_desc), NULL, "receive descriptors per queue" },
	{ "queues", "tx_desc", DCN_CONF_UINT, 0, 64, 16384, "N", "1024",
	  NODE(tx_desc), NULL, "send descriptors per queue" },
	{ "queues", "mbufs", DCN_CONF_UINT, 0, 1023, 1u << 24, "N", "8191",
	  NODE(mbufs), NULL,
	  "mbufs in the pool (cover the descriptors and the flow-control queues)" },
	{ "queues", "backoff", DCN_CONF_BOOL, 0, 0, 0, "yes|no", "yes",
	  NODE(backoff), "backoff",
	  "idle workers pause, then sleep; no: they spin (benchmarks)" },
	{ "queues", "idle_sleep_us", DCN_CONF_UINT, 0, 1, 10000, "US", "100",
	  NODE(idle_sleep_us), "idle-sleep-us",
	  "an idle worker's longest sleep: longer spares the CPU where many "
	  "relays share few cores, shorter holds a burst after a pause in a "
	  "small RX ring" },
	{ "queues", "route_cache", DCN_CONF_UINT, DCN_CONF_F_POW2, 0, 1u << 16,
	  "N", "1024", NODE(route_cache), "route-cache",
	  "routing decisions cached per worker and node, a power of two; 0: none "
	  "(--emulate: 256)" },

	{ "flow_control", "enabled", DCN_CONF_BOOL, 0, 0, 0, "yes|no", "yes",
	  NODE(fc_enabled), "flow-control",
	  "credits and input/output queues (NovaCube §6)" },
	{ "flow_control", "vcs", DCN_CONF_UINT, 0, 0, DCN_CONF_MAX_VCS, "N", "0",
	  NODE(fc_vcs), "vcs",
	  "virtual channels per link, at most the routing's VC rule needs; "
	  "0: as many as it needs (fewer can deadlock: dcn-topo cdg --vcs N)" },
	{ "flow_control", "input_queue", DCN_CONF_UINT, DCN_CONF_F_AUTO, 16, 1u << 16,
	  "N", "0", NODE(fc_in_queue), "in-queue",
	  "input queue slots per port, which its VCs share, and a switch port's "
	  "neighbours; 0: 1024 on cables (a window wide enough for a fast port), 256 "
	  "behind L2 switches (whose buffers must hold the grants) and with "
	  "--emulate" },
	{ "flow_control", "output_queue", DCN_CONF_UINT, 0, 16, 1u << 18, "N",
	  "512", NODE(fc_out_queue), "out-queue",
	  "frames an output queue (a channel's) admits; an input may hold what "
	  "it has free" },
	{ "flow_control", "reserve_percent", DCN_CONF_UINT, 0, 1, 90, "PCT", "20",
	  NODE(fc_reserve_pct), "reserve",
	  "input slots kept back for credits in flight" },
	{ "flow_control", "credit_batch", DCN_CONF_UINT, 0, 1, 1024, "N", "256",
	  NODE(fc_credit_batch), NULL,
	  "announce credits after this many frames freed (at most a quarter of "
	  "the grant is used)" },
	{ "flow_control", "credit_refresh_us", DCN_CONF_UINT, 0, 10, 1000000,
	  "US", "1000", NODE(fc_credit_refresh_us), NULL,
	  "and announce them again this often while they change (a lost credit "
	  "frame is repaired)" },
	{ "flow_control", "credit_repair_ms", DCN_CONF_UINT, 0, 10, 60000,
	  "MS", "500", NODE(fc_credit_repair_ms), NULL,
	  "data frames a neighbour has not received this long after the last "
	  "one sent on a (link, VC) were lost on the way: their credits come "
	  "back; longer than any frame takes to cross, switch buffers "
	  "included" },
	{ "flow_control", "senders", DCN_CONF_UINT, 0, 0, DCN_CONF_MAX_QUEUES, "N", "0",
	  NODE(fc_senders), "port-senders",
	  "workers that send on a port of several RX queues, each its own "
	  "frames on its own TX queue under a share of the peer's credits: 0 "
	  "one a lane (every worker that polls a lane, as many as the lanes); "
	  "1 the port's owner alone, the others' frames through its queue" },
	{ NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, NULL, NULL },
};

const struct dcn_conf_key *
dcn_conf_key_find(const char *section, const char *key)
{
	const struct dcn_conf_key *k;
	size_t sl = strcspn(section, ".");

	for (k = dcn_conf_keys; k->key != NULL; k++)
		if (strlen(k->section) == sl && strncmp(k->section, section, sl) == 0 &&
		    strcmp(k->key, key) == 0)
			return k;
	return NULL;
}

const struct dcn_conf_key *
dcn_conf_key_by_option(const char *option)
{
	const struct dcn_conf_key *k;

	for (k = dcn_conf_keys; k->key != NULL; k++)
		if (k->option != NULL && strcmp(k->option, option) == 0)
			return k;
	return NULL;
}

/* An unsigned decimal number, or hexadecimal after 0x: a leading 0 is
 * not octal ("010" is ten), and signs, spaces, "nan" are refused. */
static int
parse_uint(const char *v, unsigned long *n)
{
	const char *d = v;
	int base = 10;
	char *end;

	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		d = v + 2;
	}
	if (*d < '0' || *d > '9') {
		if (base != 16 || !((*d >= 'a' && *d <= 'f') || (*d >= 'A' && *d <= 'F')))
			return -1;
	}
	errno = 0;
	*n = strtoul(d, &end, base);
	return errno != 0 || end == d || *end != '\0' ? -1 : 0;
}

int
dcn_conf_parse_value(const struct dcn_conf_key *k, const char *v,
		     uint32_t *out, char *why, size_t len)
{
	unsigned long n;

	switch (k->type) {
	case DCN_CONF_UINT:
		if (parse_uint(v, &n) != 0) {
			snprintf(why, len, "'%.64s' is not a number", v);
			return -EINVAL;
		}
		if ((n < k->min || n > k->max) && !(n == 0 && (k->flags & DCN_CONF_F_AUTO))) {
			snprintf(why, len, "%lu out of range %s%u..%u", n,
				 k->flags & DCN_CONF_F_AUTO ? "0, " : "", k->min, k->max);
			return -EINVAL;
		}
		if ((k->flags & DCN_CONF_F_POW2) && (n & (n - 1)) != 0) {
			snprintf(why, len, "%lu is not a power of two", n);
			return -EINVAL;
		}
		*out = (uint32_t)n;
		return 0;
	case DCN_CONF_BOOL:
		if (!strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1")) {
			*out = 1;
		} else if (!strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0")) {
			*out = 0;
		} else {
			snprintf(why, len, "'%.64s' is not yes or no", v);
			return -EINVAL;
		}
		return 0;
	case DCN_CONF_ENUM: {
		const char *p = k->values;
		uint32_t i = 0;
		size_t vl = strlen(v);

		for (;;) {
			size_t l = strcspn(p, "|");

			if (l == vl && strncmp(p, v, l) == 0) {
				*out = i;
				return 0;
			}
			if (p[l] == '\0')
				break;
			p += l + 1;
			i++;
		}
		snprintf(why, len, "'%.64s' is not %s", v, k->values);
		return -EINVAL;
	}
	case DCN_CONF_TEXT:
		if (k->max != 0 && strlen(v) > k->max) {
			snprintf(why, len, "longer than %u characters", k->max);
			return -EINVAL;
		}
		if (v[0] == '\0') {
			snprintf(why, len, "empty");
			return -EINVAL;
		}
		*out = 0;
		return 0;
	}
	snprintf(why, len, "unknown type");
	return -EINVAL;
}

void
dcn_conf_store(const struct dcn_conf_key *k, void *base, const char *text,
	       uint32_t v)
{
	uint8_t *p = (uint8_t *)base + k->off;

	if (k->scope == DCN_CONF_S_SPECIAL)
		return;
	if (k->type == DCN_CONF_TEXT) {
		snprintf((char *)p, k->size, "%s", text);
		return;
	}
	switch (k->size) {
	case 1: *p = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: memcpy(p, &v, 4); break;
	default: break;
	}
}

/* Apply the defaults of every key of one scope to base. */
void
dcn_conf_scope_defaults(int scope, void *base)
{
	const struct dcn_conf_key *k;
	char why[64];

	for (k = dcn_conf_keys; k->key != NULL; k++) {
		uint32_t v;

		if (k->scope != scope || k->def == NULL)
			continue;
		if (dcn_conf_parse_value(k, k->def, &v, why, sizeof(why)) == 0)
			dcn_conf_store(k, base, k->def, v);
	}
}

void
dcn_conf_defaults(struct dcn_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->algo = DCN_ALGO_DEFAULT;
	dcn_conf_scope_defaults(DCN_CONF_S_NODE, c);
}

int
dcn_conf_override(struct dcn_conf *c, const struct dcn_conf_key *k,
		  const char *value, char *err, size_t errlen)
{
	char why[160];
	uint32_t v;

	if (k->scope != DCN_CONF_S_NODE && strcmp(k->key, "algo") != 0) {
		snprintf(err, errlen, "--%s: [%s] %s cannot be set here",
			 k->option ? k->option : k->key, k->section, k->key);
		return -EINVAL;
	}
	if (strcmp(k->key, "algo") == 0) {
		int a = dcn_route_algo_parse(value);

		if (a < 0) {
			snprintf(err, errlen, "--%s: unknown algorithm '%.64s'",
				 k->option, value);
			return -EINVAL;
		}
		c->algo = (enum dcn_route_algo)a;
		return 0;
	}
	if (dcn_conf_parse_value(k, value, &v, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "--%s: %s", k->option ? k->option : k->key, why);
		return -EINVAL;
	}
	dcn_conf_store(k, c, value, v);
	return 0;
}

/* What a key takes, for --help and the reference. */
static void
takes(const struct dcn_conf_key *k, char *buf, size_t len)
{
	if (k->type == DCN_CONF_UINT)
		snprintf(buf, len, "%s%u..%u%s", k->flags & DCN_CONF_F_AUTO ? "0, " : "",
			 k->min, k->max,
			 k->flags & DCN_CONF_F_POW2 ? ", a power of two" : "");
	else
		snprintf(buf, len, "%s", k->values);
}

/* Text at column indent, wrapped before column 79. */
static void
wrap(FILE *f, const char *text, unsigned int col, unsigned int indent)
{
	while (*text != '\0') {
		size_t room = col < 78 ? 78 - col : 1, n = strlen(text);

		if (n > room) {
			n = room;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(text, " ");
		}
		fprintf(f, "%.*s\n", (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text != '\0')
			fprintf(f, "%*s", (int)indent, "");
		col = indent;
	}
}

void
dcn_conf_help(FILE *f)
{
	const struct dcn_conf_key *k;
	const char *sec = "";

	fprintf(f, "Configuration (FILE: [section] key = value; an option "
		"overrides the file):\n");
	for (k = dcn_conf_keys; k->key != NULL; k++) {
		char left[64], what[48], line[512];

		if (strcmp(sec, k->section) != 0) {
			sec = k->section;
			fprintf(f, "  [%s%s]\n", sec, !strcmp(sec, "port") ||
				!strcmp(sec, "worker") ? ".NAME" : "");
		}
		takes(k, what, sizeof(what));
		if (k->option != NULL)
			snprintf(left, sizeof(left), "    %s, --%s %s", k->key, k->option,
				 k->type == DCN_CONF_BOOL ? "yes|no" : k->values);
		else
			snprintf(left, sizeof(left), "    %s", k->key);
		snprintf(line, sizeof(line), "%s (%s%s%s%s)", k->help, what,
			 k->def ? "; default " : "", k->def ? k->def : "",
			 k->flags & DCN_CONF_F_REQUIRED ? "; required" : "");
		if (strlen(left) < 30) {
			fprintf(f, "%-30s ", left);
			wrap(f, line, 31, 31);
		} else {
			fprintf(f, "%s\n%31s", left, "");
			wrap(f, line, 31, 31);
		}
	}
}

/* A Markdown table cell: '|' escaped. */
static void
cell(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void
dcn_conf_reference(FILE *f)
{
	const struct dcn_conf_key *k;
	const char *sec = "";

	fprintf(f, "# Configuration reference\n\n"
		"Generated by `dcnfwd --config-reference` from the table of keys "
		"that the\nparser, `--check-config`, the command-line overrides and "
		"`--help` all\nuse (`lib/conf/conf_keys.c`); `tests/cli/conf_keys.py` "
		"checks that this\nfile is that output. A configuration file is INI: "
		"`[section]` headers,\n`key = value` lines, `;` or `#` comments. "
		"Every error names the file, the\nline and the key. The commented "
		"examples are in `conf/`.\n");
	for (k = dcn_conf_keys; k->key != NULL; k++) {
		char what[48];

		if (strcmp(sec, k->section) != 0) {
			sec = k->section;
			fprintf(f, "\n## [%s%s]\n\n| key | takes | default | "
				"option | what |\n| --- | --- | --- | --- | --- |\n",
				sec, !strcmp(sec, "port") || !strcmp(sec, "worker") ?
				".NAME" : "");
		}
		takes(k, what, sizeof(what));
		fprintf(f, "| `%s` | ", k->key);
		cell(f, what);
		fprintf(f, " | %s | %s%s%s | ", k->def ? k->def :
			k->flags & DCN_CONF_F_REQUIRED ? "required" : "none",
			k->option ? "`--" : "", k->option ? k->option : "",
			k->option ? "`" : "");
		cell(f, k->help);
		fprintf(f, " |\n");
	}
}
