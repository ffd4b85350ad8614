/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn_xdp_claim: what dcnfwd does with an interface's XDP hook before its
 * net_af_xdp port starts. On a veth of a network namespace of this test's
 * own (gone with the process): nothing attached; dcnfwd's program left by
 * a dcnfwd that died (taken over: detached); the same program with a live
 * AF_XDP socket in its map (refused, the queue named; taken over once the
 * socket closes); another program (refused, named, left attached).
 * Needs root (namespaces, BPF): exits 77 otherwise.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcn_xdp.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static int ifindex;

static uint32_t
attached(void)
{
	uint32_t id = 0;

	assert_int_equal(bpf_xdp_query_id(ifindex, 0, &id), 0);
	return id;
}

/* dcnfwd's program attached to the veth; *x keeps its descriptors (a
 * live dcnfwd) until dcn_xdp_close (a dead one). */
static void
attach_ours(struct dcn_xdp_port *x)
{
	assert_int_equal(dcn_xdp_load_file(x, DCN_XDP_OBJ_BUILD), 0);
	assert_int_equal(bpf_xdp_attach(ifindex, x->prog_fd, 0, NULL), 0);
	assert_int_not_equal(attached(), 0);
}

static int
claim(char *owner, uint32_t *id, unsigned int *queue)
{
	return dcn_xdp_claim(ifindex, DCN_XDP_PROG_NAME, owner, 32, id, queue);
}

static void
test_nothing_attached(void **state)
{
	char owner[32];
	unsigned int queue = 99;
	uint32_t id = 1;

	(void)state;
	assert_int_equal(claim(owner, &id, &queue), 0);
	assert_int_equal(id, 0);
}

static void
test_stale_program_taken_over(void **state)
{
	struct dcn_xdp_port x;
	char owner[32];
	unsigned int queue = 99;
	uint32_t id, before;

	(void)state;
	attach_ours(&x);
	before = attached();
	dcn_xdp_close(&x);   /* its dcnfwd is gone: only the hook holds it */
	assert_int_equal(claim(owner, &id, &queue), 1);
	assert_int_equal(id, before);
	assert_string_equal(owner, DCN_XDP_PROG_NAME);
	assert_int_equal(attached(), 0);
}

/* An AF_XDP socket bound to queue 0 of the veth, as the PMD binds one. */
static int
xsk_bound(void **umem)
{
	struct xdp_umem_reg reg = { .len = 4 * 4096, .chunk_size = 4096 };
	struct sockaddr_xdp sa = { .sxdp_family = AF_XDP,
				   .sxdp_ifindex = (uint32_t)ifindex,
				   .sxdp_queue_id = 0, .sxdp_flags = XDP_COPY };
	int ring = 4, fd = socket(AF_XDP, SOCK_RAW, 0);

	assert_true(fd >= 0);
	*umem = mmap(NULL, reg.len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(*umem != MAP_FAILED);
	reg.addr = (uint64_t)(uintptr_t)*umem;
	assert_int_equal(setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)), 0);
	assert_int_equal(setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &ring,
				    sizeof(ring)), 0);
	assert_int_equal(setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring,
				    sizeof(ring)), 0);
	assert_int_equal(setsockopt(fd, SOL_XDP, XDP_RX_RING, &ring, sizeof(ring)), 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static int
xsks_map_of(const struct dcn_xdp_port *x)
{
	struct bpf_prog_info pi;
	uint32_t ids[8], len = sizeof(pi), i;

	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = 8;
	pi.map_ids = (uint64_t)(uintptr_t)ids;
	assert_int_equal(bpf_obj_get_info_by_fd(x->prog_fd, &pi, &len), 0);
	for (i = 0; i < pi.nr_map_ids; i++) {
		struct bpf_map_info mi;
		uint32_t mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		memset(&mi, 0, sizeof(mi));
		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0 &&
		    mi.type == BPF_MAP_TYPE_XSKMAP)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	fail_msg("no XSKMAP in dcnfwd's program");
	return -1;
}

static void
test_live_socket_refused(void **state)
{
	struct dcn_xdp_port x;
	char owner[32];
	unsigned int queue = 99;
	uint32_t id, q0 = 0, before;
	void *umem;
	int map, xsk;

	(void)state;
	attach_ours(&x);
	before = attached();
	map = xsks_map_of(&x);
	xsk = xsk_bound(&umem);
	assert_int_equal(bpf_map_update_elem(map, &q0, &xsk, BPF_ANY), 0);
	dcn_xdp_close(&x);   /* the socket keeps it live, not our fds */
	assert_int_equal(claim(owner, &id, &queue), -EADDRINUSE);
	assert_int_equal(queue, 0);
	assert_int_equal(id, before);
	assert_int_equal(attached(), before);   /* left alone */
	/* The socket closes (its dcnfwd died): the kernel takes it out of
	 * the map, and the program is stale now. */
	close(xsk);
	munmap(umem, 4 * 4096);
	assert_int_equal(claim(owner, &id, &queue), 1);
	assert_int_equal(attached(), 0);
	close(map);
}

static void
test_foreign_program_refused(void **state)
{
	/* r0 = XDP_PASS; exit */
	const struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char owner[32];
	unsigned int queue = 99;
	uint32_t id, before;
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "someone_else", "GPL", pass,
			       2, NULL);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(bpf_xdp_attach(ifindex, fd, 0, NULL), 0);
	before = attached();
	close(fd);
	assert_int_equal(claim(owner, &id, &queue), -EBUSY);
	assert_string_equal(owner, "someone_else");
	assert_int_equal(id, before);
	assert_int_equal(attached(), before);   /* left alone */
	assert_int_equal(bpf_xdp_detach(ifindex, 0, NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_attached),
		cmocka_unit_test(test_stale_program_taken_over),
		cmocka_unit_test(test_live_socket_refused),
		cmocka_unit_test(test_foreign_program_refused),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: network namespaces and BPF need root\n");
		return 77;
	}
	if (unshare(CLONE_NEWNET) != 0) {
		fprintf(stderr, "SKIP: no network namespace: %s\n", strerror(errno));
		return 77;
	}
	if (system("ip link add xc0 type veth peer name xc1 && "
		   "ip link set xc0 up && ip link set xc1 up") != 0) {
		fprintf(stderr, "SKIP: cannot make a veth pair here\n");
		return 77;
	}
	ifindex = (int)if_nametoindex("xc0");
	if (ifindex == 0) {
		fprintf(stderr, "SKIP: veth xc0 not found\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
