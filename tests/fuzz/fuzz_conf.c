/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the configuration loader on arbitrary file contents.
 * It must either load a configuration whose every port and queue is
 * consistent, or refuse with a located error; never crash or leak.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcn_conf.h"

static char path[64];

/* The file each input is written to goes when the fuzzer ends. */
__attribute__((destructor)) static void
remove_file(void)
{
	if (path[0] != '\0')
		unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DCN_CONF_ERR_LEN];
	struct dcn_topo *t;
	static struct dcn_conf c;
	unsigned int w, i;
	FILE *f;

	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/dcn-fuzz-conf-%d.ini",
			 (int)getpid());
	f = fopen(path, "w");
	if (f == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (dcn_conf_load(path, &c, &t, err, sizeof(err)) == 0) {
		if (t == NULL || c.n_ports == 0 || c.n_workers == 0)
			abort();
		for (w = 0; w < c.n_workers; w++)
			for (i = 0; i < c.worker[w].n_rx; i++)
				if (c.worker[w].rx[i].port >= c.n_ports ||
				    c.worker[w].rx[i].queue >=
					    c.port[c.worker[w].rx[i].port].rxq)
					abort();
		dcn_topo_free(t);
	} else if (t != NULL || strchr(err, ':') == NULL) {
		abort();
	}
	return 0;
}
