/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcn-gen --search: an RFC 2544 throughput search (section 26.1) against
 * the device between the tx and the rx port. Each trial offers a fixed
 * rate for a fixed time; a trial passes when every frame offered comes
 * back, and the rate is searched by bisection, each trial's frames told
 * from the last trial's stragglers by a tag.
 *
 * The generator must outrun the device, so nothing is written per frame:
 * a set of frames is built once and sent again and again, each send
 * taking one more reference (ports that copy, such as memif, af_xdp,
 * af_packet, pcap and NICs, release it when done; a ring port passes the
 * pointer itself and must not be used). The sink reads the tag in each
 * frame's last four bytes, which every forwarder under test leaves alone
 * (l3fwd and testpmd rewrite the front; dcnfwd adds or takes off the
 * fabric header in front).
 *
 * On a backpressured port (memif) a full ring makes tx_burst take fewer
 * frames: a frame the device did not take in time is a lost frame, as a
 * NIC would have dropped it at the device's RX.
 *
 * A trial offers a constant rate (RFC 2544). When the generator's own
 * core was taken away for a while (a shared machine), it does not make up
 * for the lost time with a burst at its full speed, which no constant-rate
 * source sends and which would fail a device for the generator's pause:
 * it skips the frames it missed and goes on at the rate. Skipped frames
 * are not offered. A trial whose generator could not keep up, offering
 * (skipped frames aside) less than 98% of its rate, ends the search as
 * generator-bound.
 *
 * With credits on, the sink plays a relay's input queue for a dcnfwd
 * that sends under NovaCube credits: it announces what it freed, per VC,
 * after every credit batch, as dcnfwd itself does.
 *
 * With obey, the sender plays the relay before the device: it sends a
 * fabric frame only while the device's credit frames (on the port we
 * send on) leave room on the frame's VC, as dcnfwd would, so that a
 * device under flow control is measured on what it forwards, not on
 * frames it reads only to drop at a full input queue. Nothing is sent
 * before the first credit frame; a frame held back for credits is
 * refused (the device's backpressure).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dcn_fabric.h"
#include "dcn_fc.h"
#include "search.h"

#define SEARCH_BURST 32
#define SINK_BURSTS 4
#define TAG_BASE 0x7e570000u
#define CREDIT_GRANT 4096
/* A loop that took longer than this many microseconds: the generator was
 * not running, not just slow; what fell due meanwhile is skipped. */
#define PACE_SKIP_US 20

/* What the device grants us, per VC, in its own count of arrivals. */
struct tx_credit {
	int known;              /* a credit frame came */
	uint32_t epoch;
	uint32_t limit[DCN_FC_MAX_VCS];   /* freed + grant */
	uint32_t sent[DCN_FC_MAX_VCS];    /* as the device counts arrivals */
};

struct sink {
	uint32_t tag;
	uint64_t rx;            /* frames of this trial */
	uint64_t other;         /* anything else (stragglers, hellos) */
	uint32_t freed[DCN_FC_MAX_VCS];
	uint32_t announced[DCN_FC_MAX_VCS];
	uint64_t announce_tsc;
	struct tx_credit tx;
};

/* A credit frame from the device on the port we send on. A new epoch
 * (its first frame, or a restart) starts our count at what it says
 * arrived: nothing of ours is in flight then. */
static void
take_tx_credit(struct tx_credit *c, const uint8_t *p, uint32_t len)
{
	struct dcn_fc_credit cr;
	unsigned int vc;

	if (len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + DCN_FC_CREDIT_MIN_LEN)
		return;
	dcn_fc_read_credit(p + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN,
			   len - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN, &cr);
	if (!c->known || cr.epoch != c->epoch) {
		memset(c->sent, 0, sizeof(c->sent));
		for (vc = 0; vc < cr.n_vcs; vc++)
			c->sent[vc] = cr.arrived[vc];
		c->epoch = cr.epoch;
		c->known = 1;
	}
	memset(c->limit, 0, sizeof(c->limit));
	for (vc = 0; vc < cr.n_vcs; vc++)
		c->limit[vc] = cr.freed[vc] + cr.grant;
	/* VCs it keeps no queue for: none granted (limit = sent) */
	for (; vc < DCN_FC_MAX_VCS; vc++)
		c->limit[vc] = c->sent[vc];
}

/* The frame after frame i, the list sent round and round. */
static inline unsigned int
frame_after(const struct gen_search *s, unsigned int i)
{
	return i + 1 == s->n_frames ? 0 : i + 1;
}

/* How many of the n frames from next on the device has credits for
 * (stopping at the first it has none for: frames keep their order). */
static unsigned int
tx_allowed(const struct gen_search *s, const struct tx_credit *c,
	   unsigned int next, unsigned int n)
{
	uint32_t want[DCN_FC_MAX_VCS] = { 0 };
	unsigned int i;

	if (!c->known)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned int vc = s->vc[next];

		if ((int32_t)(c->limit[vc] - c->sent[vc] - want[vc]) <= 0)
			break;
		want[vc]++;
		next = frame_after(s, next);
	}
	return i;
}

/* The n frames from first on were sent. */
static void
tx_sent(const struct gen_search *s, struct tx_credit *c, unsigned int first,
	unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		c->sent[s->vc[first]]++;
		first = frame_after(s, first);
	}
}

static void
write_tag(struct rte_mbuf *const *f, unsigned int n, uint32_t tag)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint8_t *p = rte_pktmbuf_mtod(f[i], uint8_t *);

		memcpy(p + rte_pktmbuf_data_len(f[i]) - 4, &tag, 4);
	}
}

static void
send_credits(const struct gen_search *s, struct sink *k, uint64_t now)
{
	/* Every VC the header can carry: a device keeps at most as many. */
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_CREDIT,
				    .len = DCN_FC_CREDIT_LEN(DCN_FC_MAX_VCS) };
	struct dcn_fc_credit cr = { .epoch = s->epoch, .grant = CREDIT_GRANT,
				    .n_vcs = DCN_FC_MAX_VCS };
	uint16_t flen = DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN +
			DCN_FC_CREDIT_LEN(DCN_FC_MAX_VCS);
	struct rte_mbuf *m = rte_pktmbuf_alloc(s->mp);
	unsigned int vc;
	uint8_t *f;

	if (m == NULL)
		return;
	f = (uint8_t *)rte_pktmbuf_append(m, flen);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(f, 0, flen);
	memset(f, 0xff, RTE_ETHER_ADDR_LEN);
	memcpy(f + RTE_ETHER_ADDR_LEN, &s->rx_mac, RTE_ETHER_ADDR_LEN);
	dcn_fabric_put16(f + 12, s->ethertype);
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	/* The sink frees what it takes at once: all that arrived is freed. */
	for (vc = 0; vc < DCN_FC_MAX_VCS; vc++)
		cr.freed[vc] = cr.arrived[vc] = k->freed[vc];
	dcn_fc_write_credit(f + DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN, &cr);
	if (s->udp != NULL)
		dcn_port_udp_wrap(s->udp, &m, 1);
	if (rte_eth_tx_burst(s->rxp, 0, &m, 1) == 1) {
		memcpy(k->announced, k->freed, sizeof(k->announced));
		k->announce_tsc = now;
	} else {
		rte_pktmbuf_free(m);
	}
}

/* Frames one sink pass takes: what one burst of the sender and its
 * credits need, and more: a sink that only keeps pace never works off a
 * backlog, and its full ring would hold the device back. */
static uint16_t
sink_take(const struct gen_search *s, struct rte_mbuf **m)
{
	uint16_t n = 0, got;

	do {
		got = rte_eth_rx_burst(s->rxp, 0, m + n, SEARCH_BURST);
		n += got;
	} while (got == SEARCH_BURST && n < SINK_BURSTS * SEARCH_BURST);
	return s->udp != NULL ? dcn_port_udp_unwrap(s->udp, 0, m, n) : n;
}

static void
sink_rx(const struct gen_search *s, struct sink *k, uint64_t now)
{
	struct rte_mbuf *m[SINK_BURSTS * SEARCH_BURST];
	uint16_t n = sink_take(s, m), i;
	unsigned int vc;
	int due = 0;

	for (i = 0; i < n; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(m[i]), tag;

		if (len < DCN_ETHER_HDR_LEN + 4) {
			k->other++;
			continue;
		}
		memcpy(&tag, p + len - 4, 4);
		if (tag == k->tag)
			k->rx++;
		else
			k->other++;
		if (s->credits && dcn_fabric_get16(p + 12) == s->ethertype &&
		    (p[14] & 0x0f) == DCN_FT_DATA)
			k->freed[dcn_fabric_vc_of(p[15])]++;
	}
	if (n)
		rte_pktmbuf_free_bulk(m, n);
	/* What the device sends back on the port we send on (its credits
	 * for our frames, which we do not need) must not fill that ring:
	 * a device whose frames find no room spends its time retrying. */
	if (s->txp != s->rxp) {
		uint16_t back = rte_eth_rx_burst(s->txp, 0, m, SEARCH_BURST);

		if (s->udp != NULL)
			back = dcn_port_udp_unwrap(s->udp, 0, m, back);

		for (i = 0; s->obey && i < back; i++) {
			const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m[i]);

			if (len >= DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN &&
			    dcn_fabric_get16(p + 12) == s->ethertype &&
			    (p[14] & 0x0f) == DCN_FT_CREDIT)
				take_tx_credit(&k->tx, p, len);
		}
		if (back)
			rte_pktmbuf_free_bulk(m, back);
	}
	if (!s->credits)
		return;
	/* As a dcnfwd with that credit_batch: after a batch; else every
	 * refresh interval (1 ms), changed or not (the first word, and
	 * repair of a lost one). */
	for (vc = 0; vc < DCN_FC_MAX_VCS; vc++)
		due |= k->freed[vc] - k->announced[vc] >= s->credit_batch;
	if (due || now - k->announce_tsc > s->hz / 1000)
		send_credits(s, k, now);
}

/* One trial at rate pps (0: as fast as the port takes frames). */
static void
trial(const struct gen_search *s, struct sink *k, double pps, uint32_t number,
      struct gen_trial *t)
{
	uint64_t hz = s->hz, start, stop_tx, stop, now;
	uint64_t sent = 0, refused = 0, skipped = 0, skips = 0, held = 0, last;
	uint64_t away = hz / 1000000 * PACE_SKIP_US;
	unsigned int next = 0;

	k->tag = TAG_BASE ^ number;
	k->rx = 0;
	k->other = 0;
	write_tag(s->frames, s->n_frames, k->tag);
	start = rte_rdtsc();
	last = start;
	stop_tx = start + (uint64_t)(s->trial_s * (double)hz);
	stop = stop_tx + (uint64_t)(s->linger_s * (double)hz);
	while ((now = rte_rdtsc()) < stop && !*s->quit) {
		if (now < stop_tx) {
			struct rte_mbuf *m[SEARCH_BURST];
			uint64_t due = SEARCH_BURST;
			uint16_t took, i;

			if (pps > 0) {
				uint64_t total = (uint64_t)((double)(now - start) *
							    pps / (double)hz) + 1;

				if (now - last > away) {
					/* What fell due while away is not
					 * offered. */
					uint64_t gap = (uint64_t)((double)(now - last) *
								  pps / (double)hz);

					skipped += gap;
					skips++;
				}
				due = total > sent + refused + skipped ?
					      total - sent - refused - skipped : 0;
				due = RTE_MIN(due, (uint64_t)SEARCH_BURST);
			}
			/* With obey: the frames the device has credits for;
			 * the rest of due is refused, as a full ring would. */
			uint64_t go = s->obey ? tx_allowed(s, &k->tx, next, (unsigned int)due) : due;
			unsigned int at = next;

			/* Only what may go is handed to the port: a held
			 * frame costs no reference taken and given back. */
			for (i = 0; i < go; i++) {
				m[i] = s->frames[at];
				at = frame_after(s, at);
				rte_mbuf_refcnt_update(m[i], 1);
			}
			took = go ? rte_eth_tx_burst(s->txp, 0, m, (uint16_t)go) : 0;
			for (i = took; i < go; i++)
				rte_mbuf_refcnt_update(m[i], -1);
			if (s->obey)
				tx_sent(s, &k->tx, next, took);
			/* Frames due and not sent are passed over, as a
			 * full ring drops them. */
			next = (unsigned int)((next + due) % s->n_frames);
			held += due - go;
			sent += took;
			/* Even at full load: a frame the device had no room
			 * for is one a NIC would have dropped. */
			refused += due - took;
		}
		sink_rx(s, k, now);
		last = now;
	}
	/* At full load a refusal only says the device was the limit. */
	t->offered = pps > 0 ? sent + refused : sent;
	t->rate_pps = pps > 0 ? pps : (double)sent / s->trial_s;
	t->received = k->rx;
	t->refused = refused;
	t->skipped = skipped;
	t->skips = skips;
	t->held = held;
	t->passed = k->rx >= t->offered && refused == 0;
	t->offered_pps = (double)t->offered / s->trial_s;
}

void
gen_search_run(const struct gen_search *s, struct gen_search_result *r)
{
	struct sink k;
	double lo = 0, hi, rate;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	memset(&k, 0, sizeof(k));
	/* Full load first: what the device carries when offered all the
	 * generator has; it bounds the search from above. */
	trial(s, &k, s->max_pps, 0, &r->trial[0]);
	r->n_trials = 1;
	r->full_load_pps = (double)r->trial[0].received / s->trial_s;
	if (r->trial[0].passed) {
		/* The device took all the generator could give. */
		r->zero_loss_pps = r->trial[0].rate_pps;
		r->generator_bound = s->max_pps == 0;
		return;
	}
	/* No more gets in than under full load. */
	hi = r->trial[0].rate_pps;
	/* Then bisection, first at the rate carried under full load. */
	rate = RTE_MIN(r->full_load_pps, hi);
	for (i = 1; i < s->max_trials && i < GEN_SEARCH_MAX_TRIALS && !*s->quit; i++) {
		struct gen_trial *t = &r->trial[i];

		trial(s, &k, rate, i, t);
		r->n_trials = i + 1;
		if (t->passed &&
		    (double)(t->offered + t->skipped) / s->trial_s < 0.98 * rate) {
			/* It could not offer the rate: no rate above is
			 * within the generator's reach. (Frames skipped
			 * while it was away say nothing of its speed.) */
			r->generator_bound = 1;
			lo = t->offered_pps;
			break;
		}
		if (t->passed)
			lo = rate;
		else
			hi = rate;
		if (hi - lo <= s->resolution * hi)
			break;
		rate = (lo + hi) / 2;
	}
	r->zero_loss_pps = lo;
}
