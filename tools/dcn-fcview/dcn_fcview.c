/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-fcview: a running dcnfwd's flow-control queues and credits, read
 * live from its shared memory as a DPDK secondary process.
 *
 *   dcn-fcview --file-prefix PREFIX [EAL options] -- [--interval SEC]
 *              [--count N] [--json]
 *
 * The primary must run on hugepages whose files another process can map:
 * not --no-huge, --in-memory or --huge-unlink (the error names which).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_version.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include "dcn_fc.h"

#define MAX_NODES 4096

static struct dcn_fc_node *nodes[MAX_NODES];
static unsigned int n_nodes;

static void
collect(const struct rte_memzone *mz, void *arg)
{
	(void)arg;
	if (strncmp(mz->name, DCN_FC_MZ_PREFIX, strlen(DCN_FC_MZ_PREFIX)) == 0 &&
	    n_nodes < MAX_NODES)
		nodes[n_nodes++] = mz->addr;
}

/* The --file-prefix among EAL's arguments ("rte" when none is given). */
static const char *
file_prefix(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--file-prefix=", 14) == 0)
			return argv[i] + 14;
		if (strcmp(argv[i], "--file-prefix") == 0 && i + 1 < argc)
			return argv[i + 1];
	}
	return "rte";
}

/*
 * Why a secondary could not attach, when the cause can be seen from
 * outside: no process of that prefix, or a primary whose memory has no
 * files to map (--no-huge, --in-memory, --huge-unlink). Reads the
 * primary's command line from /proc. @return a sentence, or NULL.
 */
static const char *
attach_failure(const char *prefix, char *buf, size_t len)
{
	static const char *const unshared[] = {
		"--no-huge", "--in-memory", "--huge-unlink",
	};
	char path[300], cmd[8192];
	size_t plen = strlen(prefix);
	const char *cause = NULL;
	int found = 0;
	struct dirent *e;
	DIR *proc;

	snprintf(path, sizeof(path), "/var/run/dpdk/%s", prefix);
	if (access(path, F_OK) != 0) {
		snprintf(buf, len, "no DPDK process runs with --file-prefix %s "
			 "(no /var/run/dpdk/%s)", prefix, prefix);
		return buf;
	}
	proc = opendir("/proc");
	if (proc == NULL)
		return NULL;
	/* The last match: a wrapper (timeout, ip netns exec) has the same
	 * arguments and a lower PID than the process it runs. */
	while ((e = readdir(proc)) != NULL) {
		unsigned long k = strtoul(e->d_name, NULL, 10);
		FILE *f;
		size_t n, i;
		int ours = 0, j;

		if (k == 0 || (pid_t)k == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/cmdline", k);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		n = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
		cmd[n] = '\0';
		/* Arguments are NUL-separated: look at each. */
		for (i = 0; i < n; i += strlen(cmd + i) + 1) {
			const char *a = cmd + i;

			if ((strncmp(a, "--file-prefix=", 14) == 0 &&
			     strcmp(a + 14, prefix) == 0) ||
			    (strcmp(a, "--file-prefix") == 0 && i + 14 < n &&
			     strncmp(a + 14, prefix, plen + 1) == 0))
				ours = 1;
		}
		if (!ours)
			continue;
		found = 1;
		cause = NULL;
		for (i = 0; i < n && cause == NULL; i += strlen(cmd + i) + 1)
			for (j = 0; j < (int)(sizeof(unshared) / sizeof(unshared[0])); j++)
				if (strcmp(cmd + i, unshared[j]) == 0) {
					snprintf(buf, len, "the process with "
						 "--file-prefix %s (PID %lu) runs "
						 "with %s: its memory has no "
						 "files another process can map",
						 prefix, k, unshared[j]);
					cause = buf;
				}
	}
	closedir(proc);
	if (!found) {
		snprintf(buf, len, "no running process has --file-prefix %s "
			 "(/var/run/dpdk/%s is left from one that ended)", prefix,
			 prefix);
		cause = buf;
	}
	return cause;
}

static const char *
kind_name(uint8_t k)
{
	return k == DCN_FC_PORT_CREDIT ? "credit" : k == DCN_FC_PORT_SWITCH ? "switch" :
	       k == DCN_FC_PORT_HOST ? "host" : "no-credit";
}

static void
print_text(void)
{
	unsigned int i, c;

	for (i = 0; i < n_nodes; i++) {
		struct dcn_fc_node *fn = nodes[i];

		printf("node %s: %u ports, %u links, %u VCs\n", fn->name, fn->n_ports,
		       fn->n_links, fn->n_vcs);
		printf("  %-20s %2s %-6s %11s %5s %11s %11s %10s %10s %8s\n", "link",
		       "vc", "kind", "in/cap", "held", "out/cap", "credits",
		       "freed", "sent", "stalls");
		for (c = 0; c < fn->n_chans; c++) {
			const struct dcn_fc_chan *ch = &fn->chan[c];
			unsigned int link = c / fn->n_vcs, port = fn->link_port[link];
			char in[24], out[24], cr[24];

			snprintf(in, sizeof(in), "%u/%u", dcn_fc_chan_in_depth(fn, c),
				 ch->in_cap);
			snprintf(out, sizeof(out), "%u/%u", rte_ring_count(ch->out_q),
				 ch->out_cap);
			if (dcn_fc_kind_credited(fn->kind[port]))
				snprintf(cr, sizeof(cr), "%u/%u", dcn_fc_credits(ch),
					 dcn_fc_alone(ch->peer_grant, fn->n_vcs));
			else
				snprintf(cr, sizeof(cr), "-");
			printf("  %-20s %2u %-6s %11s %5u %11s %11s %10u %10u %8lu\n",
			       fn->link_name[link], c % fn->n_vcs, kind_name(fn->kind[port]),
			       in, ch->held_n, out, cr, dcn_fc_chan_freed(fn, c), ch->sent,
			       (unsigned long)ch->stalls);
		}
	}
}

static void
print_json(void)
{
	unsigned int i, c;

	printf("{\"nodes\": [");
	for (i = 0; i < n_nodes; i++) {
		struct dcn_fc_node *fn = nodes[i];

		printf("%s{\"node\": \"%s\", \"vcs\": %u, \"channels\": [", i ? ", " : "",
		       fn->name, fn->n_vcs);
		for (c = 0; c < fn->n_chans; c++) {
			const struct dcn_fc_chan *ch = &fn->chan[c];
			unsigned int link = c / fn->n_vcs, port = fn->link_port[link];
			const char *nbr = dcn_fc_link_neighbour(fn, (uint16_t)link);

			printf("%s{\"port\": \"%s\", \"neighbour\": \"%s\", "
			       "\"vc\": %u, \"kind\": \"%s\", "
			       "\"in_depth\": %u, \"in_cap\": %u, \"out_depth\": %u, "
			       "\"out_cap\": %u, \"out_admit\": %u, \"credits\": %u, "
			       "\"peer_grant\": %u, "
			       "\"window\": %u, \"freed\": %u, \"sent\": %u, \"stalls\": %lu}",
			       c ? ", " : "", fn->port_name[port], nbr ? nbr : "",
			       c % fn->n_vcs,
			       kind_name(fn->kind[port]), dcn_fc_chan_in_depth(fn, c), ch->in_cap,
			       rte_ring_count(ch->out_q), ch->out_cap, ch->out_admit,
			       dcn_fc_kind_credited(fn->kind[port]) ? dcn_fc_credits(ch) : 0,
			       ch->peer_grant, dcn_fc_alone(ch->peer_grant, fn->n_vcs),
			       dcn_fc_chan_freed(fn, c), ch->sent, (unsigned long)ch->stalls);
		}
		printf("]}");
	}
	printf("]}\n");
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: dcn-fcview --file-prefix PREFIX [EAL options] -- [options]\n"
		"\n"
		"Prints each (port, VC) input and output queue depth and credit count\n"
		"of a running dcnfwd, read from its shared memory as a secondary\n"
		"process (the dcnfwd must run on hugepages, not --no-huge).\n"
		"\n"
		"  --interval SEC   print again every SEC seconds (default 1)\n"
		"  --count N        print N times, then exit (default 1; 0: forever)\n"
		"  --json           one JSON object per print\n"
		"  --version        the release, and the DPDK it runs on\n");
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *eal[64];
	double interval = 1;
	long count = 1, k;
	char why[512];
	const char *cause;
	int json = 0, neal = 0, i, c, sep = argc, has_proc = 0, has_pci = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			sep = i;
			break;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("dcn-fcview %s (%s)\n", DCN_VERSION, rte_version());
			return 0;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strncmp(argv[i], "--proc-type", 11))
			has_proc = 1;
		if (!strcmp(argv[i], "--no-pci") || !strncmp(argv[i], "-a", 2) ||
		    !strncmp(argv[i], "-b", 2) || !strncmp(argv[i], "--allow", 7) ||
		    !strncmp(argv[i], "--block", 7))
			has_pci = 1;
	}
	if (sep > 60) {
		fprintf(stderr, "dcn-fcview: too many EAL options\n");
		return 2;
	}
	eal[neal++] = argv[0];
	for (i = 1; i < sep; i++)
		eal[neal++] = argv[i];
	/* It only ever reads another process's memory. */
	if (!has_proc)
		eal[neal++] = (char *)(uintptr_t)"--proc-type=secondary";
	/* Nor any device: a secondary that probes PCI attaches to ports the
	 * primary may not have (one started with --no-pci has no ethdev
	 * shared data, and EAL panics). */
	if (!has_pci)
		eal[neal++] = (char *)(uintptr_t)"--no-pci";
	eal[neal++] = (char *)(uintptr_t)"--log-level=lib.eal:error";
	eal[neal] = NULL;
	if (sep < argc) {
		argc -= sep;
		argv += sep;
		optind = 1;
		while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
			char *end;

			switch (c) {
			case 'i':
				interval = strtod(optarg, &end);
				if (*end || interval <= 0) {
					fprintf(stderr, "dcn-fcview: --interval: a number "
						"of seconds above 0\n");
					return 2;
				}
				break;
			case 'c':
				count = strtol(optarg, &end, 10);
				if (*end || count < 0) {
					fprintf(stderr, "dcn-fcview: --count: 0 or more\n");
					return 2;
				}
				break;
			case 'j':
				json = 1;
				break;
			case 'h':
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
			}
		}
	}
	/* Seen before EAL runs: a secondary's EAL makes the run directory
	 * it looks for, and says little when the primary shares nothing. */
	cause = attach_failure(file_prefix(neal, eal), why, sizeof(why));
	if (cause != NULL) {
		fprintf(stderr, "dcn-fcview: cannot attach: %s\n", cause);
		return 1;
	}
	if (rte_eal_init(neal, eal) < 0) {
		fprintf(stderr, "dcn-fcview: cannot attach to the dcnfwd with "
			"--file-prefix %s: %s\n", file_prefix(neal, eal),
			rte_strerror(rte_errno));
		return 1;
	}
	rte_memzone_walk(collect, NULL);
	if (n_nodes == 0) {
		fprintf(stderr, "dcn-fcview: no flow-control queues in this "
			"process (flow control off?)\n");
		rte_eal_cleanup();
		return 1;
	}
	for (k = 0; count == 0 || k < count; k++) {
		if (k)
			usleep((useconds_t)(interval * 1e6));
		if (json)
			print_json();
		else
			print_text();
		fflush(stdout);
	}
	rte_eal_cleanup();
	return 0;
}
