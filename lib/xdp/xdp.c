/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcn_xdp.h"

static const char *const counter_names[] = {
#define DCN_XDP_NAME_(n, s) s,
	DCN_XDP_COUNTERS(DCN_XDP_NAME_)
#undef DCN_XDP_NAME_
};

const char *
dcn_xdp_counter_name(unsigned int i)
{
	return i < DCN_XDP_NB_COUNTERS ? counter_names[i] : "?";
}

static void
reset(struct dcn_xdp_port *x, int ifindex)
{
	memset(x, 0, sizeof(*x));
	x->ifindex = ifindex;
	x->prog_fd = x->stats_fd = x->cfg_fd = -1;
}

/* Take the program's own maps by name from its map ids. */
static int
take_maps(struct dcn_xdp_port *x)
{
	struct bpf_prog_info pi;
	uint32_t ids[8], len = sizeof(pi), i;

	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = 8;
	pi.map_ids = (uint64_t)(uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(x->prog_fd, &pi, &len) != 0)
		return -errno;
	if (strcmp(pi.name, DCN_XDP_PROG_NAME) != 0)
		return -EPROTO;
	x->prog_id = pi.id;
	for (i = 0; i < pi.nr_map_ids && i < 8; i++) {
		struct bpf_map_info mi;
		uint32_t mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0 &&
		    strcmp(mi.name, "dcn_xdp_stats") == 0 && x->stats_fd < 0)
			x->stats_fd = fd;
		else if (strcmp(mi.name, "dcn_xdp_cfg") == 0 && x->cfg_fd < 0)
			x->cfg_fd = fd;
		else
			close(fd);
	}
	return x->stats_fd >= 0 && x->cfg_fd >= 0 ? 0 : -EPROTO;
}

int
dcn_xdp_find(struct dcn_xdp_port *x, int ifindex)
{
	uint32_t id = 0;
	int ret;

	reset(x, ifindex);
	if (bpf_xdp_query_id(ifindex, 0, &id) != 0 || id == 0)
		return -ENOENT;
	x->prog_fd = bpf_prog_get_fd_by_id(id);
	if (x->prog_fd < 0)
		return -errno;
	ret = take_maps(x);
	if (ret < 0)
		dcn_xdp_close(x);
	return ret;
}

int
dcn_xdp_load_file(struct dcn_xdp_port *x, const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	int ret;

	reset(x, 0);
	if (obj == NULL)
		return -errno;
	ret = bpf_object__load(obj);
	prog = bpf_object__find_program_by_name(obj, DCN_XDP_PROG_NAME);
	if (ret == 0 && prog == NULL)
		ret = -ENOENT;
	if (ret == 0) {
		/* Our own descriptors: the object can go, the program stays
		 * while they are open. */
		x->prog_fd = dup(bpf_program__fd(prog));
		ret = x->prog_fd < 0 ? -errno : take_maps(x);
	}
	bpf_object__close(obj);
	if (ret < 0)
		dcn_xdp_close(x);
	return ret;
}

int
dcn_xdp_configure(const struct dcn_xdp_port *x, uint16_t ethertype,
		  uint32_t flags, uint32_t ipv4_net, unsigned int prefix_len)
{
	uint32_t mask = prefix_len == 0 ? 0 :
			prefix_len >= 32 ? UINT32_MAX : ~(UINT32_MAX >> prefix_len);
	struct dcn_xdp_cfg cfg = { .ethertype = ethertype, .flags = flags,
				   .ipv4_net = htonl(ipv4_net & mask),
				   .ipv4_mask = htonl(mask) };
	uint32_t key = 0;

	return bpf_map_update_elem(x->cfg_fd, &key, &cfg, BPF_ANY) == 0 ? 0 : -errno;
}

int
dcn_xdp_read(const struct dcn_xdp_port *x, uint64_t *counters)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;
	uint32_t i;
	int c;

	if (ncpu <= 0)
		return -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	for (i = 0; i < DCN_XDP_NB_COUNTERS; i++) {
		counters[i] = 0;
		if (bpf_map_lookup_elem(x->stats_fd, &i, v) != 0) {
			free(v);
			return -errno;
		}
		for (c = 0; c < ncpu; c++)
			counters[i] += v[c];
	}
	free(v);
	return 0;
}

int
dcn_xdp_detach(struct dcn_xdp_port *x)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = x->prog_fd);
	uint32_t id = 0;

	if (x->ifindex <= 0 || x->prog_fd < 0)
		return 0;
	if (bpf_xdp_query_id(x->ifindex, 0, &id) != 0 || id != x->prog_id)
		return 0;
	/* XDP_FLAGS_REPLACE: only if it is still ours at the moment of it. */
	if (bpf_xdp_detach(x->ifindex, XDP_FLAGS_REPLACE, &opts) != 0)
		return -errno;
	return 1;
}

void
dcn_xdp_close(struct dcn_xdp_port *x)
{
	if (x->prog_fd >= 0)
		close(x->prog_fd);
	if (x->stats_fd >= 0)
		close(x->stats_fd);
	if (x->cfg_fd >= 0)
		close(x->cfg_fd);
	reset(x, x->ifindex);
}
