/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd: one node of a data-center fabric on DPDK ports, or (--emulate)
 * every node of a small fabric in one process, fed by built-in hosts.
 *
 *   dcnfwd [EAL options] -- --config FILE [overrides]
 *   dcnfwd [EAL options] -- --emulate SPEC [traffic options]
 *
 * Here: EAL, building the process in order, launching the workers, the
 * control thread's run, and the orderly stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_memzone.h>
#include <rte_pdump.h>
#include <rte_version.h>

#include "control.h"
#include "emu_fabric.h"
#include "emu_run.h"
#include "hugepages.h"
#include "ethdev.h"
#include "failover.h"
#include "links.h"
#include "options.h"
#include "report.h"
#include "setup.h"
#include "telemetry.h"
#include "trace.h"
#include "worker.h"

static struct dcnfwd dcnfwd_g;

static void
on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&dcnfwd_g.quit, 1, __ATOMIC_RELAXED);
}

/*
 * EAL's arguments, and one more unless the user set the level himself:
 * telemetry's level at error. DPDK 22.11's telemetry says at warning level
 * that it opened no legacy socket, at every start, which nobody needs in a
 * relay's journal. @return a copy (freed at exit), or NULL.
 */
static char **eal_args_copy;

static void
eal_args_free(void)
{
	free(eal_args_copy);
}

static char **
eal_args_quiet(int *argc, char **argv)
{
	static char quiet[] = "--log-level=lib.telemetry:error";
	char **out = calloc((size_t)*argc + 2, sizeof(*out));
	int i, set = 0;

	if (out == NULL)
		return NULL;
	eal_args_copy = out;
	atexit(eal_args_free);
	for (i = 0; i < *argc; i++) {
		out[i] = argv[i];
		set |= strncmp(argv[i], "--log-level=lib.telemetry", 25) == 0;
	}
	if (!set)
		out[(*argc)++] = quiet;
	out[*argc] = NULL;
	return out;
}

/* The --file-prefix EAL is given (its default "rte"). */
static const char *
eal_prefix(int argc, char **argv)
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

/* The process holding the lock on the runtime directory's config of the
 * prefix (a primary that runs), or 0. EAL stops on that lock without an
 * errno. */
static pid_t
eal_primary_holder(const char *prefix)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/dpdk/%s/config",
		 getuid() == 0 || xdg == NULL ? "/var/run" : xdg, prefix);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &lk) != 0 || lk.l_type == F_UNLCK)
		lk.l_pid = 0;
	close(fd);
	return lk.l_pid;
}

/* What usually stops EAL, told from its arguments and error. */
static const char *
eal_hint(int argc, char **argv, int err)
{
	int i, no_huge = dcnfwd_eal_has_arg(argc, argv, "--no-huge"), prefix = 0;

	for (i = 1; i < argc; i++)
		prefix |= strncmp(argv[i], "--file-prefix", 13) == 0;
	if (!no_huge && (err == EACCES || err == ENOMEM))
		return dcnfwd_hugepages_hint(argc, argv);
	if (err == EALREADY || (!prefix && err == EBUSY))
		return " (another DPDK process uses this runtime directory: give "
		       "each its own --file-prefix)";
	if (err == EACCES || err == EPERM)
		return " (DPDK needs root, or the capabilities to map memory and "
		       "open its runtime directory)";
	return "";
}

static void
count_memzone(const struct rte_memzone *mz, void *arg)
{
	/* Ours (rings, pools, flow-control state) all carry "dcn"; DPDK
	 * keeps a few of its own for the life of the process. */
	if (strstr(mz->name, "dcn") != NULL)
		(*(unsigned int *)arg)++;
}

/* A relay from a configuration file: the control thread until the end. */
static int
run_node(struct dcnfwd *d)
{
	uint64_t start = rte_rdtsc(), next_stats;
	struct dcnfwd_live prev;
	/* The control thread's tick: a quarter of the hello interval, so a
	 * hello is taken at most that late (a neighbour is judged dead after
	 * several intervals of silence), within 1 to 5 ms; a relay that says
	 * hello rarely wakes rarely. */
	unsigned int tick_us = d->hello_interval_ms * 250u;

	tick_us = tick_us < 1000 ? 1000 : tick_us > 5000 ? 5000 : tick_us;

	printf("dcnfwd: node %s of %s up: %u ports, %u workers\n", d->node[0].name,
	       dcn_topo_spec(d->t), d->n_ports, d->n_workers);
	{
		char plan[192];

		if (!dcnfwd_plan_line(d->t, plan, sizeof(plan)))
			DCNFWD_LOG(WARNING, "%s\n", plan);
	}
	fflush(stdout);
	dcnfwd_live_sample(d, &prev);
	next_stats = start + (uint64_t)(d->stats_interval * (double)d->tsc_hz);
	while (!dcnfwd_quitting(d)) {
		uint64_t now = rte_rdtsc();
		double elapsed = (double)(now - start) / (double)d->tsc_hz;

		dcnfwd_control_tick(d);
		if (d->stats_interval > 0 && now >= next_stats) {
			dcnfwd_live_print(d, &prev, elapsed);
			next_stats = now + (uint64_t)(d->stats_interval *
						      (double)d->tsc_hz);
		}
		if (d->duration > 0 && elapsed >= d->duration)
			break;
		dcnfwd_control_wait(d, tick_us);
	}
	return 0;
}

/* Nodes, ports, queues, workers, failover: in the order setup.h gives. */
static int
build(struct dcnfwd *d)
{
	int ret;

	ret = d->conf_file != NULL ? dcnfwd_setup_from_conf(d) :
				     dcnfwd_emu_build(d, d->emulate);
	if (ret == 0)
		ret = dcnfwd_make_ctl_pool(d);
	if (ret == 0)
		ret = dcnfwd_setup_encap(d);
	if (ret == 0)
		ret = dcnfwd_setup_fc(d);
	if (ret == 0)
		ret = d->conf_file != NULL ?
			      dcnfwd_workers_create(d, d->conf.n_workers) :
			      dcnfwd_emu_workers(d);
	if (ret == 0 && d->conf_file != NULL)
		ret = dcnfwd_workers_from_conf(d);
	if (ret == 0)
		ret = dcnfwd_workers_finish(d);
	if (ret == 0)
		ret = dcnfwd_failover_setup(d);
	return ret;
}

static void
teardown(struct dcnfwd *d)
{
	dcnfwd_trace_teardown(d);
	dcnfwd_failover_teardown(d);
	dcnfwd_emu_teardown(d);
	dcnfwd_teardown(d);
}

int
main(int argc, char **argv)
{
	struct dcnfwd *d = &dcnfwd_g;
	struct dcnfwd_options o;
	int app_argc = argc, eal_argc = argc, i, ret;
	char **app_argv = argv;
	unsigned int lcore, mz_start = 0, mz_end = 0;
	const char *prefix;
	char **eal_argv;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	if (i < argc) {
		eal_argc = i;
		app_argc = argc - i;
		app_argv = argv + i;
	} else {
		/* No "--": everything is ours (--help, --check-config). */
		eal_argc = 1;
	}
	if (app_argc <= 1 && i == argc) {
		dcnfwd_usage(stderr);
		return 2;
	}
	if (dcnfwd_options_parse(&o, d, app_argc, app_argv) != 0)
		return 2;
	if (o.help) {
		dcnfwd_usage(stdout);
		return 0;
	}
	if (o.version) {
		printf("dcnfwd %s (%s)\n", DCN_VERSION, rte_version());
		return 0;
	}
	if (o.reference) {
		dcn_conf_reference(stdout);
		return 0;
	}
	if (o.check != NULL)
		return dcnfwd_check_config(o.check);
	if (d->conf_file != NULL) {
		char err[DCN_CONF_ERR_LEN];

		if (dcn_conf_load(d->conf_file, &d->conf, &d->t, err,
				  sizeof(err)) != 0) {
			DCNFWD_LOG(CRIT, "%s\n", err);
			return 2;
		}
	}
	if (dcnfwd_options_apply(&o, d) != 0)
		return 2;
	if (i == argc) {
		DCNFWD_LOG(CRIT, "EAL options and '--' go first, e.g. "
			"dcnfwd -l 0-1 --no-huge -m 1024 -- ...\n");
		return 2;
	}
	eal_argv = eal_args_quiet(&eal_argc, argv);
	if (eal_argv == NULL)
		return 1;
	dcnfwd_hugepages_wait(eal_argc, eal_argv);
	/* Read before EAL, which reorders its arguments. */
	prefix = eal_prefix(eal_argc, eal_argv);
	ret = rte_eal_init(eal_argc, eal_argv);
	if (ret < 0) {
		pid_t holder = eal_primary_holder(prefix);

		if (holder > 0)
			DCNFWD_LOG(CRIT, "EAL init failed: another DPDK primary "
				"process (pid %d) runs with --file-prefix=%s: give each "
				"process its own --file-prefix, or stop that one\n",
				(int)holder, prefix);
		else
			DCNFWD_LOG(CRIT, "EAL init failed: %s%s\n",
				rte_errno != 0 ? rte_strerror(rte_errno) :
				"see EAL's lines above",
				eal_hint(eal_argc, eal_argv, rte_errno));
		return 1;
	}
	/* dpdk-dumpcap (a secondary process) captures any port while we
	 * run; its callbacks cost nothing until a capture starts. A process
	 * sharing no memory (--no-huge, --in-memory) has no secondaries. */
	if (rte_eal_process_type() == RTE_PROC_PRIMARY && rte_pdump_init() != 0 &&
	    rte_errno != ENOTSUP)
		DCNFWD_LOG(NOTICE, "no capture (rte_pdump_init: %s)\n",
			rte_strerror(rte_errno));
	d->tsc_hz = rte_get_tsc_hz();
	d->drain_tsc = (d->tsc_hz + 9999) / 10000; /* 100 us */
	/* How long frames stay (/dcn/latency): samples as often as
	 * DCNFWD_LAT_GAP_US and _BURSTS allow, or none when the mbuf has
	 * no room for the stamp. */
	d->lat_gap_tsc = d->tsc_hz * DCNFWD_LAT_GAP_US / 1000000;
	if (dcn_port_lat_init(d->tsc_hz) != 0)
		DCNFWD_LOG(NOTICE, "no latency samples (no dynamic mbuf field left)\n");
	d->idle_spin_tsc = d->tsc_hz * DCNFWD_IDLE_SPIN_US / 1000000;
	d->credit_refresh_tsc = d->tsc_hz / 1000000 * d->conf.fc_credit_refresh_us;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rte_memzone_walk(count_memzone, &mz_start);
	ret = build(d);
	if (ret != 0) {
		/* the step that failed may have said more above */
		DCNFWD_LOG(CRIT, "setup failed: %s%s\n",
			ret < 0 ? strerror(-ret) : "see above",
			ret == -ENOMEM ? " (give EAL more memory, -m)" : "");
		teardown(d);
		rte_eal_cleanup();
		return 1;
	}
	ret = dcnfwd_trace_setup(d);
	if (ret != 0) {
		teardown(d);
		rte_eal_cleanup();
		return ret == -EINVAL ? 2 : 1;
	}
	dcnfwd_telemetry_register();
	dcnfwd_telemetry_open(d);
	dcnfwd_telemetry_mark(d);
	for (i = 0; i < (int)d->n_workers; i++)
		rte_eal_remote_launch(dcnfwd_worker_main, &d->worker[i],
				      d->worker[i].lcore);
	ret = d->emulate != NULL ? dcnfwd_emu_run(d) : run_node(d);
	__atomic_store_n(&d->quit, 1, __ATOMIC_RELAXED);
	RTE_LCORE_FOREACH_WORKER(lcore)
		rte_eal_wait_lcore(lcore);
	/* Counted after the workers stopped: the final figures. */
	dcnfwd_control_poll(d, rte_rdtsc());
	dcnfwd_kernel_drops_final(d);
	dcnfwd_final_report(d);
	dcnfwd_trace_report(d);
	/* The figures are out before any port closes. */
	fflush(stdout);
	dcnfwd_telemetry_close(d);
	dcnfwd_memif_settle(d);
	teardown(d);
	rte_memzone_walk(count_memzone, &mz_end);
	rte_pdump_uninit();
	if (d->json && d->emulate != NULL)
		printf("{\"exit\": {\"mbufs_leaked\": %u, \"memzones_left\": %u}}\n",
		       d->mbufs_leaked, mz_end - mz_start);
	else if (d->mbufs_leaked || mz_end != mz_start)
		DCNFWD_LOG(ERR, "at exit %u mbufs were not returned and %u "
			"memzones were left\n", d->mbufs_leaked, mz_end - mz_start);
	rte_eal_cleanup();
	return ret;
}
