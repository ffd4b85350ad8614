/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NUMA placement of a port's memory (dcn_port_numa.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_port_kernel.h"
#include "dcn_port_numa.h"

unsigned int
dcn_numa_pools(const int *port_socket, unsigned int n_ports, int main_socket,
	       int *out)
{
	unsigned int n = 0, i, k;

	out[n++] = main_socket;
	for (i = 0; i < n_ports; i++) {
		int s = dcn_numa_home(port_socket[i], main_socket);

		for (k = 0; k < n && out[k] != s; k++)
			;
		if (k == n && n < DCN_NUMA_MAX)
			out[n++] = s;
	}
	return n;
}

int
dcn_numa_node_home(const int *port_socket, unsigned int n_ports, int main_socket)
{
	unsigned int count[DCN_NUMA_MAX] = { 0 }, i;
	int best = main_socket, s;

	for (i = 0; i < n_ports; i++) {
		s = dcn_numa_home(port_socket[i], main_socket);
		if (s >= 0 && s < DCN_NUMA_MAX)
			count[s]++;
	}
	for (s = 0; s < DCN_NUMA_MAX; s++)
		if (count[s] > 0 && (best < 0 || best >= DCN_NUMA_MAX ||
				     count[s] > count[best]))
			best = s;
	return best;
}

/* Is s (up to its first ',') a PCI address, DDDD:BB:DD.F? */
static int
is_pci(const char *s)
{
	static const char shape[] = "xxxx:xx:xx.x";
	unsigned int i;

	for (i = 0; shape[i]; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
			return 0;
	return s[i] == '\0' || s[i] == ',';
}

int
dcn_numa_of_dev(const char *sysfs, const char *devargs)
{
	char path[PATH_MAX], name[64];
	const char *s;
	size_t k = 0;
	int64_t v;

	if (is_pci(devargs)) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%.12s/numa_node",
			 sysfs, devargs);
	} else {
		s = strstr(devargs, "iface=");
		if (s == NULL)
			return -1;
		for (s += 6; *s && *s != ',' && k + 1 < sizeof(name); s++)
			name[k++] = *s;
		name[k] = '\0';
		if (k == 0 || strchr(name, '/') != NULL)
			return -1;
		snprintf(path, sizeof(path), "%s/class/net/%s/device/numa_node",
			 sysfs, name);
	}
	v = dcn_port_sysfs_read(path);
	return v >= 0 && v < DCN_NUMA_MAX ? (int)v : -1;
}

int
dcn_numa_of_cpu(const char *sysfs, unsigned int cpu)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int node = -1;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u", sysfs, cpu);
	dir = opendir(path);
	if (dir == NULL)
		return -1;
	while ((e = readdir(dir)) != NULL)
		if (strncmp(e->d_name, "node", 4) == 0 && isdigit((unsigned char)e->d_name[4])) {
			node = atoi(e->d_name + 4);
			break;
		}
	closedir(dir);
	return node >= 0 && node < DCN_NUMA_MAX ? node : -1;
}
