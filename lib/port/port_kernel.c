/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive drops of a process's AF_PACKET sockets (dcn_port_kernel.h).
 */
#include <dirent.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#include "dcn_port_kernel.h"

uint64_t
dcn_port_packet_rx_drops(int ifindex)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	uint64_t drops = 0;

	if (dir == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		struct sockaddr_ll sll;
		struct tpacket_stats_v3 st;
		socklen_t len = sizeof(sll), st_len = sizeof(st);
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end != '\0' || end == de->d_name || fd == dirfd(dir))
			continue;
		/* Not a socket, or not a packet socket of this interface:
		 * getsockname says so. */
		if (getsockname((int)fd, (struct sockaddr *)&sll, &len) != 0 ||
		    len < offsetof(struct sockaddr_ll, sll_addr) ||
		    sll.sll_family != AF_PACKET ||
		    sll.sll_ifindex != ifindex)
			continue;
		if (getsockopt((int)fd, SOL_PACKET, PACKET_STATISTICS, &st,
			       &st_len) == 0)
			drops += st.tp_drops;
	}
	closedir(dir);
	return drops;
}

int64_t
dcn_port_sysfs_read(const char *path)
{
	FILE *f = fopen(path, "re");
	long long v;
	int ok;

	if (f == NULL)
		return -1;
	ok = fscanf(f, "%lld", &v) == 1;
	fclose(f);
	return ok && v >= 0 ? (int64_t)v : -1;
}

int
dcn_port_devargs_ifindex(const char *devargs)
{
	const char *s = strstr(devargs, "iface=");
	char name[IF_NAMESIZE];
	size_t k = 0;

	if (s == NULL)
		return 0;
	for (s += 6; *s && *s != ',' && k + 1 < sizeof(name); s++)
		name[k++] = *s;
	name[k] = '\0';
	return (int)if_nametoindex(name);
}
