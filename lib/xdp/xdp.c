/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
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

/* A descriptor of the map called name among a program's maps. */
static int
find_map(const struct bpf_prog_info *pi, const char *name, int *map_fd)
{
	const uint32_t *ids = (const uint32_t *)(uintptr_t)pi->map_ids;
	uint32_t i;

	for (i = 0; i < pi->nr_map_ids && i < 8; i++) {
		struct bpf_map_info mi;
		uint32_t mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0 &&
		    strcmp(mi.name, name) == 0) {
			*map_fd = fd;
			return 0;
		}
		close(fd);
	}
	return -ENOENT;
}

/* Take the program's own maps by name from its map ids. */
static int
take_maps(struct dcn_xdp_port *x)
{
	struct bpf_prog_info pi;
	uint32_t ids[8], len = sizeof(pi);

	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = 8;
	pi.map_ids = (uint64_t)(uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(x->prog_fd, &pi, &len) != 0)
		return -errno;
	if (strcmp(pi.name, DCN_XDP_PROG_NAME) != 0)
		return -EPROTO;
	x->prog_id = pi.id;
	if (find_map(&pi, "dcn_xdp_stats", &x->stats_fd) != 0 ||
	    find_map(&pi, "dcn_xdp_cfg", &x->cfg_fd) != 0)
		return -EPROTO;
	return 0;
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
		  uint32_t flags, uint32_t ipv4_net, unsigned int prefix_len,
		  uint16_t udp_port)
{
	uint32_t mask = prefix_len == 0 ? 0 :
			prefix_len >= 32 ? UINT32_MAX : ~(UINT32_MAX >> prefix_len);
	struct dcn_xdp_cfg cfg = { .ethertype = ethertype, .flags = flags,
				   .ipv4_net = htonl(ipv4_net & mask),
				   .ipv4_mask = htonl(mask),
				   .udp_port = htons(udp_port) };
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

/* The attach mode program id is attached in, as detach must name it: a
 * program attached in generic mode on a driver with native XDP is not
 * the one a mode-less detach would look for. */
static uint32_t
mode_flags(int ifindex, uint32_t id)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q) != 0)
		return 0;
	if (q.skb_prog_id == id)
		return XDP_FLAGS_SKB_MODE;
	if (q.drv_prog_id == id)
		return XDP_FLAGS_DRV_MODE;
	if (q.hw_prog_id == id)
		return XDP_FLAGS_HW_MODE;
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
	if (bpf_xdp_detach(x->ifindex, XDP_FLAGS_REPLACE |
			   mode_flags(x->ifindex, x->prog_id), &opts) != 0)
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

/*
 * Does a live AF_XDP socket stand behind dcnfwd's program prog_fd on
 * ifindex? The program itself answers: run on a fabric frame as if it
 * came in on queue q (BPF_PROG_TEST_RUN), it redirects only where a socket
 * is in its xsks_map for q, and the kernel takes a socket out of every map
 * when it closes, so a program whose dcnfwd died redirects on no queue.
 * Nothing is bound or changed; one frame lands in the program's counters
 * (to_dcnfwd_fabric or pass_no_socket). A queue past the interface's last
 * one is refused (EINVAL), which ends the scan.
 * @return 1 with *queue set: live; 0: none; negative errno.
 */
static int
live_socket(int prog_fd, int cfg_fd, int ifindex, unsigned int *queue)
{
	struct dcn_xdp_cfg cfg;
	uint8_t frame[64];
	uint16_t ethertype = DCN_XDP_DEFAULT_ETHERTYPE;
	uint32_t key = 0, q;

	if (cfg_fd >= 0 && bpf_map_lookup_elem(cfg_fd, &key, &cfg) == 0 &&
	    cfg.ethertype != 0)
		ethertype = cfg.ethertype;
	memset(frame, 0, sizeof(frame));
	memset(frame, 0xff, 6);
	frame[6] = 0x02;
	frame[12] = (uint8_t)(ethertype >> 8);
	frame[13] = (uint8_t)ethertype;
	for (q = 0; q < DCN_XDP_MAX_QUEUES; q++) {
		struct xdp_md ctx = { .data_end = sizeof(frame),
				      .ingress_ifindex = (uint32_t)ifindex,
				      .rx_queue_index = q };
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
			    .data_size_in = sizeof(frame), .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 1);

		if (bpf_prog_test_run_opts(prog_fd, &o) != 0)
			return errno == EINVAL && q > 0 ? 0 : -errno;
		if (o.retval == XDP_REDIRECT) {
			*queue = q;
			return 1;
		}
	}
	return 0;
}

int
dcn_xdp_claim(int ifindex, const char *prog_name, char *owner,
	      size_t owner_len, uint32_t *prog_id, unsigned int *busy_queue)
{
	struct bpf_prog_info pi;
	uint32_t id = 0, len = sizeof(pi), map_ids[8];
	int fd, cfg_fd = -1, ret;

	if (owner_len > 0)
		owner[0] = '\0';
	*prog_id = 0;
	if (bpf_xdp_query_id(ifindex, 0, &id) != 0)
		return -errno;
	if (id == 0)
		return 0;
	*prog_id = id;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = 8;
	pi.map_ids = (uint64_t)(uintptr_t)map_ids;
	if (bpf_obj_get_info_by_fd(fd, &pi, &len) != 0) {
		ret = -errno;
		goto out;
	}
	snprintf(owner, owner_len, "%s", pi.name);
	if (strcmp(pi.name, prog_name) != 0) {
		ret = -EBUSY;
		goto out;
	}
	ret = find_map(&pi, "dcn_xdp_cfg", &cfg_fd);
	if (ret == 0)
		ret = live_socket(fd, cfg_fd, ifindex, busy_queue);
	if (cfg_fd >= 0)
		close(cfg_fd);
	if (ret != 0) {
		ret = ret == 1 ? -EADDRINUSE : ret;
		goto out;
	}
	{
		LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = fd);

		ret = bpf_xdp_detach(ifindex, XDP_FLAGS_REPLACE |
				     mode_flags(ifindex, id), &opts) == 0 ?
		      1 : -errno;
	}
out:
	close(fd);
	return ret;
}
