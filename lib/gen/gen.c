/* SPDX-License-Identifier: BSD-3-Clause */
/* Stamped test traffic: generator and sink (see dcn_gen.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_fabric.h"
#include "dcn_gen.h"
#include "dcn_route.h"

/* The stamp, right after the UDP header. */
#define STAMP_SEQ 0
#define STAMP_TSC 4
#define STAMP_LEN 12

int
dcn_gen_init(struct dcn_gen *g, const struct dcn_gen_conf *c, uint64_t tsc_hz)
{
	memset(g, 0, sizeof(*g));
	if (c->n_dst == 0 || c->frame_len < DCN_GEN_MIN_FRAME ||
	    c->frame_len > DCN_GEN_MAX_FRAME - 4 || c->rate_pps < 0)
		return -EINVAL;
	g->conf = *c;
	if (c->pick != NULL) {
		unsigned int i;

		if (c->n_pick == 0)
			return -EINVAL;
		for (i = 0; i < c->n_pick; i++)
			if (c->pick[i] >= c->n_dst)
				return -EINVAL;
	}
	g->dst = malloc(c->n_dst * sizeof(*g->dst));
	g->seq = calloc(c->n_dst, sizeof(*g->seq));
	if (c->pick != NULL)
		g->pick = malloc(c->n_pick * sizeof(*g->pick));
	if (g->dst == NULL || g->seq == NULL || (c->pick != NULL && g->pick == NULL)) {
		dcn_gen_fini(g);
		return -ENOMEM;
	}
	memcpy(g->dst, c->dst, c->n_dst * sizeof(*g->dst));
	g->conf.dst = g->dst;
	g->n_pick = c->n_dst;
	if (c->pick != NULL) {
		memcpy(g->pick, c->pick, c->n_pick * sizeof(*g->pick));
		g->n_pick = c->n_pick;
	}
	g->conf.pick = g->pick;
	g->rng = c->seed ? c->seed : (uint64_t)c->src_addr * 2654435761u + 1;
	g->tsc_hz = tsc_hz;
	return 0;
}

void
dcn_gen_fini(struct dcn_gen *g)
{
	free(g->dst);
	free(g->seq);
	free(g->pick);
	g->dst = NULL;
	g->seq = NULL;
	g->pick = NULL;
}

unsigned int
dcn_gen_due(struct dcn_gen *g, uint64_t now, unsigned int max)
{
	uint64_t allowed = UINT64_MAX;

	if (g->conf.count && g->sent >= g->conf.count)
		return 0;
	if (g->conf.count)
		allowed = g->conf.count - g->sent;
	if (g->conf.rate_pps > 0) {
		uint64_t total;

		if (g->start_tsc == 0)
			g->start_tsc = now;
		/* Frames due since the start, so rounding never drifts. */
		total = (uint64_t)((double)(now - g->start_tsc) * g->conf.rate_pps /
				   (double)g->tsc_hz) + 1;
		allowed = RTE_MIN(allowed, total > g->sent ? total - g->sent : 0);
	}
	return (unsigned int)RTE_MIN(allowed, (uint64_t)max);
}

void
dcn_gen_write(const struct dcn_gen_conf *c, struct rte_mbuf *m, uint32_t dst,
	      uint16_t flow, uint32_t seq, uint64_t now)
{
	uint16_t len = c->frame_len;
	uint8_t *p;
	uint16_t ck;

	rte_pktmbuf_reset(m);
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL)
		return; /* the pool's buffers are too small: caller's check */
	memcpy(p, &c->dst_mac, 6);
	memcpy(p + 6, &c->src_mac, 6);
	dcn_fabric_put16(p + 12, DCN_ETHERTYPE_IPV4);
	p += 14;
	p[0] = 0x45;
	p[1] = 0;
	dcn_fabric_put16(p + 2, (uint16_t)(len - 14));
	dcn_fabric_put32(p + 4, 0x00004000); /* id 0, DF */
	p[8] = 64;
	p[9] = 17;
	dcn_fabric_put16(p + 10, 0);
	dcn_fabric_put32(p + 12, c->src_addr);
	dcn_fabric_put32(p + 16, dst);
	ck = dcn_ipv4_cksum(p, 5);
	dcn_fabric_put16(p + 10, ck);
	p += 20;
	dcn_fabric_put16(p, flow);
	dcn_fabric_put16(p + 2, DCN_GEN_UDP_PORT);
	dcn_fabric_put16(p + 4, (uint16_t)(len - 34));
	dcn_fabric_put16(p + 6, 0);
	p += 8;
	memcpy(p + STAMP_SEQ, &seq, 4);
	memcpy(p + STAMP_TSC, &now, 8);
	memset(p + STAMP_LEN, 0, RTE_MIN((unsigned int)len - DCN_GEN_HDRS - STAMP_LEN, 16u));
}

unsigned int
dcn_gen_pick(struct dcn_gen *g)
{
	unsigned int i;

	switch (g->conf.pattern) {
	case DCN_GEN_UNIFORM:
		i = (unsigned int)(((dcn_rand(&g->rng) >> 32) * g->n_pick) >> 32);
		break;
	case DCN_GEN_PERMUTATION:
		i = 0;
		break;
	default:
		i = g->next;
		g->next = g->next + 1 == g->n_pick ? 0 : g->next + 1;
		break;
	}
	return g->pick != NULL ? g->pick[i] : i;
}

/* A frame picked for d counted as sent, built or skipped alike: its
 * sequence number. */
static inline uint32_t
spend(struct dcn_gen *g, unsigned int d)
{
	g->sent++;
	g->bytes += g->conf.frame_len;
	return g->seq[d]++;
}

void
dcn_gen_put(struct dcn_gen *g, struct rte_mbuf *m, unsigned int d, uint64_t now)
{
	dcn_gen_write(&g->conf, m, g->dst[d], dcn_gen_flow_of(&g->conf, d), spend(g, d),
		      now);
}

void
dcn_gen_skip(struct dcn_gen *g, unsigned int d)
{
	spend(g, d);
}

unsigned int
dcn_gen_build(struct dcn_gen *g, struct rte_mbuf **m, unsigned int n,
	      uint64_t now)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		dcn_gen_put(g, m[i], dcn_gen_pick(g), now);
	return n;
}

int
dcn_gen_sink_init(struct dcn_gen_sink *s, unsigned int max_flows)
{
	uint32_t size = 16;

	memset(s, 0, sizeof(*s));
	while (size < 2 * max_flows)
		size <<= 1;
	s->flow = calloc(size, sizeof(*s->flow));
	if (s->flow == NULL)
		return -ENOMEM;
	s->mask = size - 1;
	return 0;
}

void
dcn_gen_sink_fini(struct dcn_gen_sink *s)
{
	free(s->flow);
	s->flow = NULL;
}

static inline uint32_t
flow_slot(uint32_t src, uint16_t flow, uint32_t mask)
{
	return ((src * 0x9e3779b1u) ^ (flow * 0x85ebca6bu)) & mask;
}

/* The flow's slot, added when new; NULL when the table is half full. */
static struct dcn_gen_flow *
flow_get(struct dcn_gen_sink *s, uint32_t src, uint16_t flow)
{
	uint32_t i = flow_slot(src, flow, s->mask), probes;

	for (probes = 0; probes <= s->mask; probes++, i = (i + 1) & s->mask) {
		struct dcn_gen_flow *f = &s->flow[i];

		if (f->src == src && f->flow == flow)
			return f;
		if (f->src == 0) {
			if (2 * (s->n_flows + 1) > s->mask + 1)
				return NULL;
			f->src = src;
			f->flow = flow;
			s->n_flows++;
			return f;
		}
	}
	return NULL;
}

static inline unsigned int
lat_bucket(uint64_t c)
{
	unsigned int msb;

	if (c < 8)
		return (unsigned int)c;
	msb = 63u - (unsigned int)__builtin_clzll(c);
	return msb * 8 + (unsigned int)((c >> (msb - 3)) & 7);
}

static inline uint64_t
lat_value(unsigned int b)
{
	if (b < 8)
		return b;
	return (uint64_t)(8 + b % 8) << (b / 8 - 3);
}

void
dcn_gen_sink_rx(struct dcn_gen_sink *s, struct rte_mbuf *const *m,
		unsigned int n, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(m[i]);
		const uint8_t *ip = p + 14, *udp;
		struct dcn_gen_flow *f;
		uint32_t seq, src;
		uint64_t tsc, lat;

		s->rx++;
		s->bytes += rte_pktmbuf_pkt_len(m[i]);
		if (s->first_tsc == 0)
			s->first_tsc = now;
		s->last_tsc = now;
		if (len < DCN_GEN_HDRS + STAMP_LEN || p[12] != 0x08 || p[13] != 0 ||
		    ip[0] != 0x45 || ip[9] != 17) {
			s->foreign++;
			continue;
		}
		udp = ip + 20;
		if (dcn_fabric_get16(udp + 2) != DCN_GEN_UDP_PORT) {
			s->foreign++;
			continue;
		}
		src = dcn_fabric_get32(ip + 12);
		memcpy(&seq, udp + 8 + STAMP_SEQ, 4);
		memcpy(&tsc, udp + 8 + STAMP_TSC, 8);
		lat = now > tsc ? now - tsc : 0;
		s->lat[lat_bucket(lat)]++;
		if (lat > s->lat_max)
			s->lat_max = lat;
		f = src != 0 ? flow_get(s, src, (uint16_t)(udp[0] << 8 | udp[1]))
			     : NULL;
		if (f == NULL) {
			s->overflow++;
			continue;
		}
		f->rx++;
		if (seq < f->next_seq) {
			f->reordered++;
			s->reordered++;
		} else {
			f->next_seq = seq + 1;
		}
	}
}

static double
percentile(const uint64_t *hist, uint64_t total, double q, double us_per_tsc)
{
	uint64_t want = (uint64_t)((double)total * q), acc = 0;
	unsigned int b;

	if (total == 0)
		return 0;
	for (b = 0; b < DCN_GEN_LAT_BUCKETS; b++) {
		acc += hist[b];
		if (acc > want)
			return (double)lat_value(b) * us_per_tsc;
	}
	return 0;
}

/* Distinct source addresses, as a report's sources counts them. */
static void
count_source(struct dcn_gen_report *r, uint32_t src)
{
	unsigned int i;

	for (i = 0; i < r->sources && i < DCN_GEN_MAX_SOURCES; i++)
		if (r->source[i] == src)
			return;
	if (r->sources < DCN_GEN_MAX_SOURCES)
		r->source[r->sources] = src;
	r->sources++;
}

void
dcn_gen_sink_report(const struct dcn_gen_sink *const *s, unsigned int n,
		    uint64_t tsc_hz, struct dcn_gen_report *r)
{
	uint64_t hist[DCN_GEN_LAT_BUCKETS];
	double us = 1e6 / (double)tsc_hz;
	uint64_t first = UINT64_MAX, last = 0, samples = 0, max = 0;
	unsigned int i, b;

	memset(r, 0, sizeof(*r));
	memset(hist, 0, sizeof(hist));
	for (i = 0; i < n; i++) {
		const struct dcn_gen_sink *k = s[i];
		uint32_t j;

		r->rx += k->rx;
		r->bytes += k->bytes;
		r->foreign += k->foreign;
		r->reordered += k->reordered;
		r->untracked += k->overflow;
		r->flows += k->n_flows;
		for (j = 0; j <= k->mask; j++) {
			if (k->flow[j].src == 0)
				continue;
			if (k->flow[j].next_seq > k->flow[j].rx)
				r->lost += k->flow[j].next_seq - k->flow[j].rx;
			count_source(r, k->flow[j].src);
		}
		for (b = 0; b < DCN_GEN_LAT_BUCKETS; b++) {
			hist[b] += k->lat[b];
			samples += k->lat[b];
		}
		if (k->rx) {
			first = RTE_MIN(first, k->first_tsc);
			last = RTE_MAX(last, k->last_tsc);
		}
		max = RTE_MAX(max, k->lat_max);
	}
	if (last > first)
		r->seconds = (double)(last - first) / (double)tsc_hz;
	r->p50_us = percentile(hist, samples, 0.50, us);
	r->p90_us = percentile(hist, samples, 0.90, us);
	r->p99_us = percentile(hist, samples, 0.99, us);
	r->p999_us = percentile(hist, samples, 0.999, us);
	r->max_us = (double)max * us;
}
