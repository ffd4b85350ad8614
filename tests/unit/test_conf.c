/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/conf: a valid file loads; every kind of mistake is refused with the
 * file, the line and the key named.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"
#include "dcn_conf.h"

static char path[64];

/* RRect(4,2,1) server 00: level-0 switch on port 0, level-1 on port 1. */
static const char good[] =
	"; relay 00 of rrect:n=4,m=2,k=1\n"
	"[fabric]\n"
	"topology = rrect:n=4,m=2,k=1\n"
	"node = 00\n"
	"role = relay\n"
	"hello_interval_ms = 20\n"
	"\n"
	"[port.l0]\n"
	"dev = net_ring0\n"
	"fabric_port = 0\n"
	"[port.l1]\n"
	"dev = net_ring1\n"
	"fabric_port = 1\n"
	"rxq = 2\n"
	"[port.host]\n"
	"dev = net_tap0,iface=dcn0\n"
	"host = yes\n"
	"[worker.a]\n"
	"lcore = 1\n"
	"rx = l0:0, l1:0\n"
	"[worker.b]\n"
	"lcore = 2\n"
	"rx = l1:1, host:0\n"
	"[queues]\n"
	"burst = 16\n"
	"backoff = no\n"
	"[flow_control]\n"
	"vcs = 2\n"
	"reserve_percent = 25\n";

static int
write_file(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/dcn-conf-test-%d.ini", (int)getpid());
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

/* Replace the first occurrence of what in good with with. */
static void
expect_error(const char *what, const char *with, unsigned int line,
	     const char *key, const char *phrase)
{
	char text[4096], err[DCN_CONF_ERR_LEN], where[128];
	const char *p = strstr(good, what);
	struct dcn_conf c;
	struct dcn_topo *t;

	if (p == NULL)
		fail_msg("test bug: '%s' not in the file", what);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - good), good, with,
		 p + strlen(what));
	assert_int_equal(write_file(text), 0);
	assert_int_equal(dcn_conf_load(path, &c, &t, err, sizeof(err)), -EINVAL);
	assert_null(t);
	snprintf(where, sizeof(where), "%s:%u:", path, line);
	if (strncmp(err, where, strlen(where)) != 0)
		fail_msg("'%s' does not start with '%s'", err, where);
	if (key != NULL && strstr(err, key) == NULL)
		fail_msg("'%s' does not name key '%s'", err, key);
	if (strstr(err, phrase) == NULL)
		fail_msg("'%s' does not say '%s'", err, phrase);
	/* nothing that would drive a terminal, whatever the file holds */
	for (p = err; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			fail_msg("'%s' has byte 0x%02x", err, (unsigned char)*p);
	unlink(path);
}

static void
test_conf_errors(void **state)
{
	char err[DCN_CONF_ERR_LEN];
	struct dcn_conf c;
	struct dcn_topo *t;

	(void)state;
	assert_int_equal(dcn_conf_load("/nonexistent/dcn.ini", &c, &t, err,
				       sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/dcn.ini"));
	expect_error("topology = rrect:n=4,m=2,k=1", "topology = rrect:n=4,k=1",
		     3, "topology", "missing parameter 'm'");
	expect_error("topology = rrect:n=4,m=2,k=1\n", "", 2, NULL, "missing");
	expect_error("node = 00", "node = 99", 4, "node", "out of range");
	expect_error("node = 00", "node = #33", 4, "node", "does not route");
	expect_error("role = relay", "role = core", 5, "role", "does not match");
	expect_error("hello_interval_ms = 20", "hello_interval_ms = 0", 6,
		     "hello_interval_ms", "out of range");
	expect_error("hello_interval_ms = 20", "hello_intervall_ms = 20", 6,
		     "hello_intervall_ms", "unknown key");
	expect_error("hello_interval_ms = 20", "ethertype = 0x0800", 6,
		     "ethertype", "belongs to IPv4");
	expect_error("fabric_port = 1", "fabric_port = 2", 13, "fabric_port",
		     "no cabled port 2");
	expect_error("fabric_port = 1", "fabric_port = 0", 13, "fabric_port",
		     "also [port.l0]");
	expect_error("dev = net_ring0\n", "", 8, "dev", "missing");
	expect_error("host = yes", "rxq = 1", 15, "fabric_port",
		     "give the node's port number");
	expect_error("rx = l0:0, l1:0", "rx = l0:0, l9:0", 20, "rx",
		     "no [port.l9]");
	expect_error("rx = l0:0, l1:0", "rx = l0:0, l1:2", 20, "rx",
		     "rx queues 0..1");
	expect_error("rx = l1:1, host:0", "rx = l1:0, host:0", 23, "rx",
		     "polled by another worker");
	expect_error("rx = l1:1, host:0", "rx = host:0", 14, "rxq",
		     "queue 1 is polled by no worker");
	expect_error("lcore = 2", "lcore = 1", 22, "lcore", "already runs");
	expect_error("burst = 16", "burst = 100", 25, "burst", "out of range");
	expect_error("backoff = no", "backoff = maybe", 26, "backoff",
		     "not yes or no");
	expect_error("backoff = no", "backoff = no\nroute_cache = 1000", 27,
		     "route_cache", "not a power of two");
	expect_error("backoff = no", "backoff = no\nidle_sleep_us = 0", 27,
		     "idle_sleep_us", "out of range");
	expect_error("backoff = no", "backoff = no\nidle_sleep_us = 10001", 27,
		     "idle_sleep_us", "out of range");
	expect_error("[queues]", "[queue]", 24, NULL, "unknown section");
	expect_error("burst = 16", "burst 16", 25, NULL, "expected key = value");
	/* control bytes and non-ASCII in the text echoed: shown as '?' */
	expect_error("burst = 16", "burst\x1b[2J\x07\xff 16", 25, NULL,
		     "got 'burst?[2J?? 16'");
	/* what rte_cfgfile would misread: a byte-order mark, bare CRs */
	expect_error("; relay", "\xef\xbb\xbf; relay", 1, NULL, "byte-order mark");
	expect_error("role = relay\n", "role = relay\r", 5, NULL,
		     "carriage return alone");
	expect_error("; relay", "stray = 1\n;", 1, NULL, "outside any");
	expect_error("vcs = 2", "vcs = 17", 28, "vcs", "out of range");
	expect_error("reserve_percent = 25", "reserve_percent = 95", 29,
		     "reserve_percent", "out of range");
	expect_error("vcs = 2", "credits = 2", 28, "credits", "unknown key");
	/* A credit batch must fit in what the peer may send. */
	expect_error("vcs = 2", "input_queue = 16\ncredit_batch = 12", 29,
		     "credit_batch", "not below the credits granted");
	/* 0 leaves it to the ports; below 16 is no queue. */
	expect_error("vcs = 2", "vcs = 2\ninput_queue = 8", 29, "input_queue",
		     "8 out of range 0, 16..65536");
	/* A tester's port (no hellos, no credits) is a fabric port. */
	expect_error("host = yes", "host = yes\nhellos = no", 18, "hellos",
		     "a host port has neither");
	expect_error("host = yes", "host = yes\ncredits = maybe", 18, "credits",
		     "not yes or no");
	/* A cabled port left out, unless partial. */
	expect_error("fabric_port = 1\n", "host = yes\n", 2, "partial",
		     "no port configured for fabric port 1");
}

/*
 * The fabric key: a file of its own, found beside the configuration when
 * its path is relative; a missing or malformed one is an error at the
 * key_file line, naming the file and what is wrong with it.
 */
static void
test_conf_key_file(void **state)
{
	char text[4096], err[DCN_CONF_ERR_LEN], kpath[96];
	const char *p = strstr(good, "hello_interval_ms = 20\n");
	struct dcn_conf c;
	struct dcn_topo *t;
	FILE *kf;
	unsigned int i;

	(void)state;
	snprintf(kpath, sizeof(kpath), "/tmp/dcn-conf-test-%d.key", (int)getpid());
	kf = fopen(kpath, "w");
	assert_non_null(kf);
	for (i = 0; i < 32; i++)
		fprintf(kf, "%02x", 0xa0 + i);
	fputs("\n", kf);
	fclose(kf);
	assert_int_equal(chmod(kpath, 0600), 0);
	/* Relative: beside the configuration, /tmp. */
	snprintf(text, sizeof(text), "%.*skey_file = %s\n%s", (int)(p - good), good,
		 strrchr(kpath, '/') + 1, p);
	assert_int_equal(write_file(text), 0);
	if (dcn_conf_load(path, &c, &t, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(c.keyed);
	assert_string_equal(c.key_file, kpath);
	assert_int_equal(c.key[0], 0xa0);
	assert_int_equal(c.key[31], 0xbf);
	dcn_topo_free(t);
	unlink(path);
	/* Without the key, nothing is signed. */
	assert_int_equal(write_file(good), 0);
	assert_int_equal(dcn_conf_load(path, &c, &t, err, sizeof(err)), 0);
	assert_false(c.keyed);
	dcn_topo_free(t);
	unlink(path);
	expect_error("hello_interval_ms = 20", "key_file = /nonexistent/fabric.key",
		     6, "key_file", "/nonexistent/fabric.key: No such file");
	kf = fopen(kpath, "w");
	assert_non_null(kf);
	fputs("00112233\n", kf);
	fclose(kf);
	snprintf(text, sizeof(text), "key_file = %s", kpath);
	expect_error("hello_interval_ms = 20", text, 6, "key_file",
		     "a key is 64 hex digits");
	expect_error("hello_interval_ms = 20", "key_file = /dev/zero", 6,
		     "key_file", "not a regular file");
	unlink(kpath);
}

static void
test_conf_good(void **state)
{
	char err[DCN_CONF_ERR_LEN];
	struct dcn_conf c;
	struct dcn_topo *t;

	(void)state;
	assert_int_equal(write_file(good), 0);
	if (dcn_conf_load(path, &c, &t, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(c.spec, "rrect:n=4,m=2,k=1");
	assert_int_equal(c.node, vertex_or_fail(t, "00"));
	assert_int_equal(c.role, DCN_NODE_RELAY);
	assert_int_equal(c.ethertype, 0x88b5);
	assert_int_equal(c.hello_interval_ms, 20);
	assert_int_equal(c.hello_miss, 3);
	assert_int_equal(c.n_ports, 3);
	assert_int_equal(c.port[1].fabric_port, 1);
	assert_int_equal(c.port[1].rxq, 2);
	assert_true(c.port[2].host);
	assert_int_equal(c.port[2].fabric_port, -1);
	assert_int_equal(c.n_workers, 2);
	assert_int_equal(c.worker[1].lcore, 2);
	assert_int_equal(c.worker[1].n_rx, 2);
	assert_int_equal(c.worker[1].rx[0].port, 1);
	assert_int_equal(c.worker[1].rx[0].queue, 1);
	assert_int_equal(c.burst, 16);
	assert_int_equal(c.fc_enabled, 1);
	assert_int_equal(c.fc_vcs, 2);
	assert_int_equal(c.fc_reserve_pct, 25);
	assert_int_equal(c.fc_in_queue, 0);
	assert_false(c.backoff);
	assert_int_equal(c.idle_sleep_us, 100);
	assert_int_equal(c.route_cache, 1024);
	assert_int_equal(c.rx_desc, 1024);
	/* Hellos and credits are on unless a port faces a tester. */
	assert_true(c.port[0].hellos && c.port[0].credits);
	dcn_topo_free(t);
	unlink(path);
}

/* The good file with lines put in before its line at, loaded into c. */
static void
load_with(const char *at, const char *lines, struct dcn_conf *c)
{
	char text[4096], err[DCN_CONF_ERR_LEN];
	const char *p = strstr(good, at);
	struct dcn_topo *t;

	assert_non_null(p);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - good), good, lines, p);
	assert_int_equal(write_file(text), 0);
	if (dcn_conf_load(path, c, &t, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	dcn_topo_free(t);
	unlink(path);
}

/* The default credit batch (256) is no error beside a small input queue:
 * dcnfwd cuts it to a quarter of the grant; only a batch asked for must
 * fit (test_conf_errors). */
static void
test_conf_default_batch(void **state)
{
	struct dcn_conf c;

	(void)state;
	load_with("vcs = 2", "input_queue = 16\n", &c);
	assert_int_equal(c.fc_in_queue, 16);
	assert_int_equal(c.fc_credit_batch, 256);
}

/* input_queue = 0 leaves the size to each node's ports (1024 on cables,
 * 256 behind switches: conf-examples.sh pins what --check-config says):
 * a batch asked for beside it is cut to a quarter of that grant at start,
 * not refused here. */
static void
test_conf_auto_in_queue(void **state)
{
	struct dcn_conf c;

	(void)state;
	load_with("vcs = 2", "input_queue = 0\ncredit_batch = 900\n", &c);
	assert_int_equal(c.fc_in_queue, 0);
	assert_int_equal(c.fc_credit_batch, 900);
}

/* A port facing pktgen: its link by carrier alone, no external credits. */
static void
test_conf_tester_port(void **state)
{
	struct dcn_conf c;

	(void)state;
	load_with("rxq = 2\n", "hellos = no\ncredits = no\n", &c);
	assert_int_equal(c.port[1].fabric_port, 1);
	assert_false(c.port[1].hellos);
	assert_false(c.port[1].credits);
	assert_true(c.port[0].hellos && c.port[0].credits);
}

/* Values that used to slip through: octal, repeated sections, names and
 * devargs cut short, files that are not files. */
static void
test_conf_strict(void **state)
{
	char text[4096], err[DCN_CONF_ERR_LEN], fifo[64];
	const char *p = strstr(good, "burst = 16");
	struct dcn_conf c;
	struct dcn_topo *t;
	char longname[64], longdev[400];

	(void)state;
	/* 010 is ten, not eight. */
	snprintf(text, sizeof(text), "%.*sburst = 010%s", (int)(p - good), good,
		 p + strlen("burst = 16"));
	assert_int_equal(write_file(text), 0);
	if (dcn_conf_load(path, &c, &t, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(c.burst, 10);
	dcn_topo_free(t);
	expect_error("burst = 16", "burst = 0x", 25, "burst", "not a number");
	expect_error("burst = 16", "burst = nan", 25, "burst", "not a number");
	expect_error("burst = 16", "burst = +8", 25, "burst", "not a number");
	/* A section given twice is refused at its second header. */
	expect_error("[flow_control]", "[queues]\nrx_desc = 64\n[flow_control]", 27,
		     NULL, "[queues] given twice");
	/* A port name or devargs that would be cut short. */
	memset(longname, 'a', 40);
	longname[40] = '\0';
	snprintf(text, sizeof(text), "[port.%s]", longname);
	expect_error("[port.l0]", text, 8, NULL, "at most 31 characters");
	memset(longdev, 'b', 300);
	longdev[300] = '\0';
	snprintf(text, sizeof(text), "dev = net_ring0,%s", longdev);
	expect_error("dev = net_ring0", text, 9, "dev", "value longer than 255");
	/* Not regular files: refused at once, neither read forever nor
	 * waited on. */
	assert_int_equal(dcn_conf_load("/dev/zero", &c, &t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	snprintf(fifo, sizeof(fifo), "/tmp/dcn-conf-fifo-%d", (int)getpid());
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(dcn_conf_load(fifo, &c, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(fifo);
}

/* Every key of the table has a default that its own check accepts, or
 * is required; an override goes through the same check. */
static void
test_conf_key_table(void **state)
{
	const struct dcn_conf_key *k;
	char why[160], err[DCN_CONF_ERR_LEN];
	struct dcn_conf c;
	unsigned int n = 0;
	uint32_t v;

	(void)state;
	for (k = dcn_conf_keys; k->key != NULL; k++, n++) {
		assert_non_null(dcn_conf_key_find(k->section, k->key));
		if (k->def == NULL) {
			assert_true((k->flags & DCN_CONF_F_REQUIRED) ||
				    k->scope == DCN_CONF_S_SPECIAL);
			continue;
		}
		if (k->scope != DCN_CONF_S_SPECIAL &&
		    dcn_conf_parse_value(k, k->def, &v, why, sizeof(why)) != 0)
			fail_msg("[%s] %s default %s: %s", k->section, k->key,
				 k->def, why);
	}
	assert_true(n >= 30);
	dcn_conf_defaults(&c);
	assert_int_equal(c.burst, 64);
	assert_int_equal(c.ethertype, 0x88b5);
	assert_int_equal(c.fc_in_queue, 0);
	assert_int_equal(c.backoff, 1);
	assert_int_equal(c.idle_sleep_us, 100);
	k = dcn_conf_key_by_option("idle-sleep-us");
	assert_non_null(k);
	assert_int_equal(dcn_conf_override(&c, k, "1000", err, sizeof(err)), 0);
	assert_int_equal(c.idle_sleep_us, 1000);
	k = dcn_conf_key_by_option("burst");
	assert_non_null(k);
	assert_int_equal(dcn_conf_override(&c, k, "32", err, sizeof(err)), 0);
	assert_int_equal(c.burst, 32);
	assert_int_equal(dcn_conf_override(&c, k, "65", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--burst: 65 out of range 1..64"));
	assert_int_equal(dcn_conf_override(&c, dcn_conf_key_by_option("route-cache"),
					   "1000", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "power of two"));
	assert_int_equal(dcn_conf_override(&c, dcn_conf_key_by_option("flow-control"),
					   "off", err, sizeof(err)), 0);
	assert_int_equal(c.fc_enabled, 0);
	assert_int_equal(dcn_conf_override(&c, dcn_conf_key_by_option("algo"),
					   "nosuch", err, sizeof(err)), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_errors),
		cmocka_unit_test(test_conf_good),
		cmocka_unit_test(test_conf_default_batch),
		cmocka_unit_test(test_conf_auto_in_queue),
		cmocka_unit_test(test_conf_key_file),
		cmocka_unit_test(test_conf_tester_port),
		cmocka_unit_test(test_conf_strict),
		cmocka_unit_test(test_conf_key_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
