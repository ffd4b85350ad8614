/* SPDX-License-Identifier: BSD-3-Clause */
/* A slow, late or lossy cable on a port's receive side (dcn_port_impair.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_random.h>

#include "dcn_port_impair.h"

#define DEPTH_MASK (DCN_PORT_IMPAIR_DEPTH - 1)
#define MAX_DELAY_US 10000000ull  /* 10 s: beyond, a cable is cut */
#define MIN_RATE_KBPS 8ull

_Static_assert((DCN_PORT_IMPAIR_DEPTH & DEPTH_MASK) == 0,
	       "DCN_PORT_IMPAIR_DEPTH is a power of two");

struct dcn_port_impair *
dcn_port_impair_create(uint16_t nb_q, int socket, uint64_t tsc_hz)
{
	struct dcn_port_impair *im;
	uint16_t q;

	if (nb_q == 0 || tsc_hz == 0)
		return NULL;
	im = rte_zmalloc_socket("dcn_port_impair",
				sizeof(*im) + nb_q * sizeof(im->q[0]),
				RTE_CACHE_LINE_SIZE, socket);
	if (im == NULL)
		return NULL;
	im->nb_q = nb_q;
	im->tsc_hz = tsc_hz;
	for (q = 0; q < nb_q; q++)
		im->q[q].rng = rte_rand() | 1;
	return im;
}

void
dcn_port_impair_free(struct dcn_port_impair *im)
{
	uint16_t q;

	if (im == NULL)
		return;
	for (q = 0; q < im->nb_q; q++) {
		struct dcn_port_impair_q *s = &im->q[q];

		for (; s->head != s->tail; s->head++)
			rte_pktmbuf_free(s->m[s->head & DEPTH_MASK]);
	}
	rte_free(im);
}

int
dcn_port_impair_active(const struct dcn_port_impair_conf *c)
{
	return c->delay_us || c->jitter_us || c->loss_ppm || c->rate_kbps;
}

/* The settings' ranges, for parse and set alike: 0, or -EINVAL with the
 * reason in err (NULL: not said). */
static int
conf_check(const struct dcn_port_impair_conf *c, char *err, size_t errlen)
{
	if (c->loss_ppm > 1000000)
		snprintf(err, errlen, "loss_ppm: %" PRIu64 " is over 1000000", c->loss_ppm);
	else if (c->delay_us > MAX_DELAY_US)
		snprintf(err, errlen, "delay_us: %" PRIu64 " is over 10 s", c->delay_us);
	else if (c->jitter_us > c->delay_us)
		snprintf(err, errlen, "jitter_us: %" PRIu64 " is over delay_us (%" PRIu64
			 "): a frame would leave before it came", c->jitter_us,
			 c->delay_us);
	else if (c->rate_kbps != 0 && c->rate_kbps < MIN_RATE_KBPS)
		snprintf(err, errlen, "rate_kbps: %" PRIu64 " is under %llu",
			 c->rate_kbps, MIN_RATE_KBPS);
	else
		return 0;
	return -EINVAL;
}

int
dcn_port_impair_set(struct dcn_port_impair *im, const struct dcn_port_impair_conf *c)
{
	uint64_t byte_q16 = 0;

	if (conf_check(c, NULL, 0) != 0)
		return -EINVAL;
	if (c->rate_kbps)
		byte_q16 = (uint64_t)((double)im->tsc_hz * 8.0 * 65536.0 /
				      ((double)c->rate_kbps * 1000.0));
	__atomic_store_n(&im->delay_tsc, c->delay_us * im->tsc_hz / 1000000,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&im->jitter_tsc, c->jitter_us * im->tsc_hz / 1000000,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&im->byte_tsc_q16, byte_q16, __ATOMIC_RELAXED);
	__atomic_store_n(&im->loss_ppm, (uint32_t)c->loss_ppm, __ATOMIC_RELAXED);
	im->conf = *c;
	return 0;
}

int
dcn_port_impair_parse(const char *s, struct dcn_port_impair_conf *c, char *err,
		      size_t errlen)
{
	static const char *const keys[] = { "delay_us", "jitter_us", "loss_ppm",
					    "rate_kbps" };
	const char *p = s;

	memset(c, 0, sizeof(*c));
	while (*p != '\0') {
		char word[64], *eq, *end;
		unsigned long long v;
		size_t len = strcspn(p, " \t,");
		unsigned int k;

		if (len == 0) {
			p++;
			continue;
		}
		if (len >= sizeof(word)) {
			snprintf(err, errlen, "'%.20s...': too long", p);
			return -EINVAL;
		}
		memcpy(word, p, len);
		word[len] = '\0';
		p += len;
		eq = strchr(word, '=');
		if (eq == NULL) {
			snprintf(err, errlen, "'%s': not KEY=VALUE (delay_us, "
				 "jitter_us, loss_ppm, rate_kbps)", word);
			return -EINVAL;
		}
		*eq++ = '\0';
		errno = 0;
		v = strtoull(eq, &end, 10);
		if (*eq == '\0' || *eq == '-' || *end != '\0' || errno != 0) {
			snprintf(err, errlen, "%s: '%s' is not a whole number", word, eq);
			return -EINVAL;
		}
		for (k = 0; k < RTE_DIM(keys); k++)
			if (strcmp(word, keys[k]) == 0)
				break;
		switch (k) {
		case 0: c->delay_us = v; break;
		case 1: c->jitter_us = v; break;
		case 2: c->loss_ppm = v; break;
		case 3: c->rate_kbps = v; break;
		default:
			snprintf(err, errlen, "'%s': no such setting (delay_us, "
				 "jitter_us, loss_ppm, rate_kbps)", word);
			return -EINVAL;
		}
	}
	return conf_check(c, err, errlen);
}

void
dcn_port_impair_totals(const struct dcn_port_impair *im,
		       struct dcn_port_impair_totals *t)
{
	uint16_t q;

	memset(t, 0, sizeof(*t));
	for (q = 0; q < im->nb_q; q++) {
		t->passed += __atomic_load_n(&im->q[q].passed, __ATOMIC_RELAXED);
		t->lost += __atomic_load_n(&im->q[q].lost, __ATOMIC_RELAXED);
		t->overflow += __atomic_load_n(&im->q[q].overflow, __ATOMIC_RELAXED);
		t->on_cable += dcn_port_impair_held(im, q);
	}
}

static inline uint64_t
xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

uint16_t
dcn_port_impair_rx(struct dcn_port_impair *im, uint16_t q, struct rte_mbuf **m,
		   uint16_t n, uint16_t room, uint64_t now)
{
	struct dcn_port_impair_q *s = &im->q[q];
	uint64_t delay = __atomic_load_n(&im->delay_tsc, __ATOMIC_RELAXED);
	uint64_t jitter = __atomic_load_n(&im->jitter_tsc, __ATOMIC_RELAXED);
	uint64_t byte_q16 = __atomic_load_n(&im->byte_tsc_q16, __ATOMIC_RELAXED);
	uint32_t loss = __atomic_load_n(&im->loss_ppm, __ATOMIC_RELAXED);
	uint32_t head = s->head, tail = s->tail;
	uint16_t i, out = 0;

	for (i = 0; i < n; i++) {
		uint64_t t = now;

		if (loss != 0 && xorshift64(&s->rng) % 1000000 < loss) {
			rte_pktmbuf_free(m[i]);
			s->lost++;
			continue;
		}
		if (tail - head == DCN_PORT_IMPAIR_DEPTH) {
			rte_pktmbuf_free(m[i]);
			s->overflow++;
			continue;
		}
		if (byte_q16 != 0) {
			/* Its bits go on once the frame ahead is through. */
			if ((int64_t)(s->wire_free - t) > 0)
				t = s->wire_free;
			t += (rte_pktmbuf_pkt_len(m[i]) * byte_q16) >> 16;
			s->wire_free = t;
		}
		t += delay;
		if (jitter != 0)
			t = t - jitter + xorshift64(&s->rng) % (2 * jitter + 1);
		if ((int64_t)(s->last_due - t) > 0)
			t = s->last_due;
		s->last_due = t;
		s->m[tail & DEPTH_MASK] = m[i];
		s->due[tail & DEPTH_MASK] = t;
		tail++;
	}
	while (head != tail && out < room &&
	       (int64_t)(now - s->due[head & DEPTH_MASK]) >= 0)
		m[out++] = s->m[head++ & DEPTH_MASK];
	s->passed += out;
	__atomic_store_n(&s->tail, tail, __ATOMIC_RELAXED);
	__atomic_store_n(&s->head, head, __ATOMIC_RELAXED);
	return out;
}
