/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * auth-bench: what a fabric key costs. For each control frame dcnfwd
 * signs (a hello, credit frames of 1, 4 and 10 VCs, an announcement of 4
 * links), the nanoseconds of signing and of checking one (lib/auth:
 * keyed BLAKE2b from a state that absorbed the key once), against
 * libsodium's one-shot keyed BLAKE2b of the same bytes (the key absorbed
 * every time), in short interleaved rounds (A B A B ...): the medians,
 * and the ratio's median with its spread. A credit frame goes out every
 * credit_batch (64) data frames and is checked at the other end: its
 * cost per data frame is given too.
 *
 * Prints figures; fails only when a check fails. Times are measured,
 * never asserted: the machines are shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "dcn_auth.h"

#include "bench_time.h"

#define MAX_ROUNDS 101
#define HDRS (14 + 20)

int
main(int argc, char **argv)
{
	static const struct { const char *what; unsigned int payload; int bind; } frames[] = {
		{ "hello", 16, 1 },
		{ "credit, 1 VC", 16 + 12, 1 },
		{ "credit, 4 VCs", 16 + 48, 1 },
		{ "credit, 10 VCs", 16 + 120, 1 },
		{ "announcement, 4 links", 16 + 32, 0 },
	};
	uint8_t key[DCN_AUTH_KEY_LEN], f[512], tag[16];
	struct dcn_auth *a;
	unsigned int i, r, k;
	volatile unsigned int sink = 0;
	/* [ROUNDS [TAGS]]: fewer for a run under callgrind, whose
	 * instruction counts are the steady figure beside the times. */
	int rounds = argc > 1 ? atoi(argv[1]) : 21;
	unsigned int per_round = argc > 2 ? (unsigned int)atoi(argv[2]) : 20000;

	if (rounds < 1 || rounds > MAX_ROUNDS || per_round < 1) {
		fprintf(stderr, "usage: auth-bench [ROUNDS (1..%d) [TAGS]]\n", MAX_ROUNDS);
		return 2;
	}
	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	a = dcn_auth_create(key);
	if (a == NULL) {
		fprintf(stderr, "auth-bench: no libsodium\n");
		return 1;
	}
	printf("%-22s %9s %9s %11s %14s %22s\n", "frame", "sign ns", "check ns",
	       "one-shot ns", "sign/one-shot", "per data frame (1/32)");
	for (k = 0; k < sizeof(frames) / sizeof(frames[0]); k++) {
		struct dcn_auth_span span = { .bind_macs = frames[k].bind,
					      .zero_at = frames[k].bind ? -1 : 12 };
		unsigned int len = HDRS + frames[k].payload + DCN_AUTH_TRAILER_LEN;
		double sign[MAX_ROUNDS], check[MAX_ROUNDS], shot[MAX_ROUNDS], ratio[MAX_ROUNDS];
		double t;

		for (i = 0; i < len; i++)
			f[i] = (uint8_t)(i * 13);
		for (r = 0; r < (unsigned int)rounds; r++) {
			uint32_t e, s;

			t = bench_now_ns();
			for (i = 0; i < per_round; i++)
				dcn_auth_sign(a, f, frames[k].payload, &span, 1, i);
			sign[r] = (bench_now_ns() - t) / per_round;
			t = bench_now_ns();
			for (i = 0; i < per_round; i++)
				sink += dcn_auth_check(a, f, len, frames[k].payload,
						       &span, &e, &s);
			check[r] = (bench_now_ns() - t) / per_round;
			t = bench_now_ns();
			for (i = 0; i < per_round; i++) {
				crypto_generichash_blake2b(tag, sizeof(tag), f + 2,
							   len - 2 - 16, key, sizeof(key));
				sink += tag[0];
			}
			shot[r] = (bench_now_ns() - t) / per_round;
			ratio[r] = sign[r] / shot[r];
		}
		if (sink % 1 != 0 || dcn_auth_check(a, f, len, frames[k].payload, &span,
						    &(uint32_t){ 0 }, &(uint32_t){ 0 }) !=
					     DCN_AUTH_OK) {
			fprintf(stderr, "auth-bench: %s does not check\n", frames[k].what);
			return 1;
		}
		{
			double ms = bench_median(sign, rounds), mc = bench_median(check, rounds);
			double mo = bench_median(shot, rounds), mr;
			double lo, hi;

			mr = bench_median(ratio, rounds);   /* sorts ratio */
			lo = ratio[0];
			hi = ratio[rounds - 1];
			printf("%-22s %9.1f %9.1f %11.1f %6.2f [%.2f-%.2f] %14.1f ns\n",
			       frames[k].what, ms, mc, mo, mr, lo, hi,
			       frames[k].bind && frames[k].payload > 16 ?
				       (ms + mc) / 32 : 0.0);
		}
	}
	dcn_auth_free(a);
	return 0;
}
