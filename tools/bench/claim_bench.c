/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * claim-bench: what sharing a port's credits between senders costs a
 * burst (lib/fc/README.md, "Several senders a port"). Three ways of
 * taking the peer's credits for a burst of 32 frames, in short
 * interleaved rounds (A B C A B C ...), each round a million bursts:
 *
 *   one sender    the credits read, sent stored (a port's only sender)
 *   claim, alone  dcn_fc_claim by one thread: a compare-and-swap that
 *                 nothing contends
 *   claim, two    two threads on two CPUs claiming the same channel's
 *                 credits at once, every burst: the line moves between
 *                 the cores each time (the worst case, both senders of a
 *                 link busy all the time)
 *
 * Prints each one's ns a burst and a frame (medians over the rounds,
 * with the spread) and the contended claim's ratio to one sender.
 * Times are measured, never asserted: the machines are shared.
 *
 *   claim-bench [ROUNDS]   (default 11)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_fc.h"

#include "bench_cpu.h"
#include "bench_time.h"

#define BURST 32
#define BURSTS 1000000
#define MAX_ROUNDS 101

static struct dcn_fc_chan chan;
static int cpu[2];

/* Credits for every burst of a round, and to spare. */
static void
chan_reset(void)
{
	memset(&chan, 0, sizeof(chan));
	chan.limit = 2u * BURSTS * BURST + 1;
	/* a channel of no node: its sent count kept in itself, as a
	 * node's is without a ledger */
	chan.keep_tx = &chan.keep_tx_here;
}

/* A port's only sender: the count read, then stored. */
static uint64_t
one_sender(void)
{
	uint64_t got = 0;
	unsigned int i;

	for (i = 0; i < BURSTS; i++) {
		uint32_t n = RTE_MIN(dcn_fc_credits(&chan), (uint32_t)BURST);

		dcn_fc_sent(&chan, n);
		got += n;
	}
	return got;
}

static void *
claimer(void *arg)
{
	uint64_t *got = arg;
	unsigned int i;

	bench_pin(cpu[got == NULL ? 0 : 1]);
	for (i = 0; i < BURSTS; i++) {
		uint32_t n = dcn_fc_claim(&chan, BURST);

		if (got != NULL)
			*got += n;
	}
	return NULL;
}

/* One round of way w: ns a burst (per thread). */
static double
round_ns(int w)
{
	uint64_t got = 0;
	pthread_t th;
	double t0, t;

	chan_reset();
	bench_pin(cpu[0]);
	t0 = bench_now_ns();
	if (w == 0) {
		got = one_sender();
	} else if (w == 1) {
		claimer(&got);
	} else {
		if (pthread_create(&th, NULL, claimer, NULL) != 0)
			return -1;
		claimer(&got);
		pthread_join(th, NULL);
	}
	t = bench_now_ns() - t0;
	if (got == 0 || chan.sent > chan.limit)
		return -1;
	return t / BURSTS;
}

int
main(int argc, char **argv)
{
	static const char *const name[3] = { "one sender", "claim, alone", "claim, two" };
	double ns[3][MAX_ROUNDS], ratio[MAX_ROUNDS], med[3], x;
	int rounds = argc > 1 ? atoi(argv[1]) : 11, r, w, n;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "claim-bench: ROUNDS: 1..%d\n", MAX_ROUNDS);
		return 2;
	}
	n = bench_cpus(cpu, 2);
	if (n < 2)
		cpu[1] = cpu[0];
	printf("claim-bench: bursts of %d, %d rounds of %d bursts, CPUs %d and %d%s\n",
	       BURST, rounds, BURSTS, cpu[0], cpu[1],
	       n < 2 ? " (one CPU: the two claimers take turns)" : "");
	for (r = 0; r < rounds; r++) {
		for (w = 0; w < 3; w++) {
			int k = (r + w) % 3;

			ns[k][r] = round_ns(k);
			if (ns[k][r] < 0) {
				fprintf(stderr, "claim-bench: %s: credits overdrawn or none "
					"taken\n", name[k]);
				return 1;
			}
		}
		ratio[r] = ns[2][r] / ns[0][r];
	}
	for (w = 0; w < 3; w++) {
		med[w] = bench_median(ns[w], rounds);
		printf("%-14s %7.1f ns a burst [%.1f-%.1f], %6.2f ns a frame\n", name[w],
		       med[w], ns[w][0], ns[w][rounds - 1], med[w] / BURST);
	}
	/* sorted first: its spread is read after */
	x = bench_median(ratio, rounds);
	printf("claim, two against one sender: %.2fx a burst [%.2f-%.2f], %.2f ns more "
	       "a frame\n", x, ratio[0], ratio[rounds - 1], (med[2] - med[0]) / BURST);
	return 0;
}
