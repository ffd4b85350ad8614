/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hugepages before EAL: a relay started again at once (a unit's
 * Restart=, dcn-fabric start) may find the pages of the process it
 * replaces not yet given back (AF_XDP keeps them until its sockets are
 * torn down). It waits for them, bounded and saying so, rather than
 * failing; and when EAL fails for want of memory, the error says how
 * many pages are free and how many were asked.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcn_port_kernel.h"
#include "hugepages.h"
#include "log.h"

#define SYS_HUGEPAGES "/sys/kernel/mm/hugepages"
/* How long a start waits, by default; DCNFWD_HUGEPAGE_WAIT_MS sets it. */
#define WAIT_MS_DEFAULT 10000u

int
dcnfwd_eal_has_arg(int argc, char **argv, const char *name)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

/* The value of EAL option name (a separate word, or after '='), or NULL. */
static const char *
arg_value(int argc, char **argv, const char *name)
{
	size_t len = strlen(name);
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], name) == 0)
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (strncmp(argv[i], name, len) == 0 && argv[i][len] == '=')
			return argv[i] + len + 1;
	}
	return NULL;
}

unsigned int
dcnfwd_eal_mem_mb(int argc, char **argv)
{
	const char *v = arg_value(argc, argv, "-m");
	unsigned long sum = 0;
	int i;

	if (v != NULL)
		return (unsigned int)strtoul(v, NULL, 10);
	for (i = 1; i < argc; i++)	/* -m1024 */
		if (strncmp(argv[i], "-m", 2) == 0 && argv[i][2] >= '0' &&
		    argv[i][2] <= '9')
			return (unsigned int)strtoul(argv[i] + 2, NULL, 10);
	v = arg_value(argc, argv, "--socket-mem");
	while (v != NULL && *v != '\0') {	/* "512,512": every socket's */
		char *end;

		sum += strtoul(v, &end, 10);
		v = *end == ',' ? end + 1 : NULL;
	}
	return (unsigned int)sum;
}

/* Pages of one size (SYS_HUGEPAGES/dir), as its file what counts them. */
static uint64_t
pages(const char *dir, const char *what)
{
	char path[512];
	int64_t v;

	snprintf(path, sizeof(path), SYS_HUGEPAGES "/%s/%s", dir, what);
	v = dcn_port_sysfs_read(path);
	return v > 0 ? (uint64_t)v : 0;
}

int
dcnfwd_hugepages_mb(uint64_t *free_mb, uint64_t *total_mb)
{
	DIR *dir = opendir(SYS_HUGEPAGES);
	struct dirent *e;

	*free_mb = *total_mb = 0;
	if (dir == NULL)
		return -1;
	while ((e = readdir(dir)) != NULL) {
		unsigned long kb;

		if (sscanf(e->d_name, "hugepages-%lukB", &kb) != 1)
			continue;
		*total_mb += pages(e->d_name, "nr_hugepages") * kb / 1024;
		*free_mb += pages(e->d_name, "free_hugepages") * kb / 1024;
	}
	closedir(dir);
	return 0;
}

void
dcnfwd_hugepages_wait(int argc, char **argv)
{
	unsigned int want = dcnfwd_eal_mem_mb(argc, argv), waited = 0, limit;
	const char *env = getenv("DCNFWD_HUGEPAGE_WAIT_MS");
	struct timespec step = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
	uint64_t free_mb, total_mb;

	/* Without hugepages, or with no amount asked (EAL then takes pages
	 * as it goes), there is nothing to wait for. */
	if (want == 0 || dcnfwd_eal_has_arg(argc, argv, "--no-huge"))
		return;
	limit = env != NULL ? (unsigned int)strtoul(env, NULL, 10) : WAIT_MS_DEFAULT;
	if (dcnfwd_hugepages_mb(&free_mb, &total_mb) != 0 || total_mb < want)
		return;	/* never enough: EAL says so, with the figures */
	while (free_mb < want && waited < limit) {
		if (waited == 0)
			DCNFWD_LOG(NOTICE, "waiting up to %u ms for %u MB of "
				"free hugepages (%lu MB free of %lu MB reserved: a "
				"process that just ended may still be giving its "
				"pages back)\n", limit, want, (unsigned long)free_mb,
				(unsigned long)total_mb);
		nanosleep(&step, NULL);
		waited += 100;
		dcnfwd_hugepages_mb(&free_mb, &total_mb);
	}
	if (waited > 0)
		DCNFWD_LOG(NOTICE, "%lu MB of hugepages free after %u ms%s\n",
			(unsigned long)free_mb, waited,
			free_mb < want ? ": starting anyway" : "");
}

const char *
dcnfwd_hugepages_hint(int argc, char **argv)
{
	static char buf[320];
	uint64_t free_mb, total_mb;
	unsigned int want = dcnfwd_eal_mem_mb(argc, argv);

	if (dcnfwd_hugepages_mb(&free_mb, &total_mb) != 0 || total_mb == 0)
		return " (no hugepages reserved: reserve some, e.g. echo 1024 > "
		       "/proc/sys/vm/nr_hugepages, or run without them: "
		       "--no-huge -m 1024)";
	snprintf(buf, sizeof(buf), " (hugepages: %lu MB free of %lu MB "
		 "reserved%s%.0u%s: stop what holds them, reserve more in "
		 "/proc/sys/vm/nr_hugepages, or run without them: --no-huge)",
		 (unsigned long)free_mb, (unsigned long)total_mb,
		 want ? ", -m asked " : "", want, want ? " MB" : "");
	return buf;
}
