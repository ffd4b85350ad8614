/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fc (EAL with --no-huge): credit frames round-trip; a sender starts
 * with no credit and holds exactly the grant once the peer speaks; lost
 * credit frames cost nothing, since the next carries the whole state; a
 * restarted peer (new epoch) gives a full grant back, less what it holds;
 * data frames lost on the way give their credits back once the sender
 * has paused for the repair time, and frames merely late do not; counters
 * wrap; an
 * input's internal credits in an output queue are a dynamic threshold
 * (what the queue has free), which never lets the queue hold more than
 * it admits and come back as frames leave; a node's queues hold frames
 * linear in its channels; freeing the state frees queued mbufs.
 */
#include "test_common.h"
#include "test_eal.h"
#include "dcn_fc.h"

static struct rte_mempool *mp;

static struct dcn_fc_node *
make(const char *id, unsigned int vcs)
{
	static const uint8_t kind[3] = { DCN_FC_PORT_CREDIT, DCN_FC_PORT_CREDIT,
					 DCN_FC_PORT_HOST };
	static const char *const names[3] = { "xp", "xm", "host" };
	struct dcn_fc_conf conf = { .in_queue = 100, .out_queue = 32,
				    .reserve_pct = 20, .n_vcs = vcs };
	struct dcn_fc_node *fn = dcn_fc_node_create(id, 7, 3, kind, NULL, names, &conf);

	assert_non_null(fn);
	return fn;
}

static void
test_credit_frame(void **state)
{
	struct dcn_fc_credit a = { .epoch = 0xdeadbeef, .grant = 409,
				   .sent_epoch = 77, .flags = DCN_FC_CREDIT_REPAIRS,
				   .n_vcs = 2, .freed = { 1, 0xfffffffe },
				   .arrived = { 3, 0xffffffff }, .sent = { 5, 6 } }, b;
	uint8_t buf[DCN_FC_CREDIT_LEN(DCN_FC_MAX_VCS)];
	unsigned int vc;

	(void)state;
	memset(&b, 0, sizeof(b));
	dcn_fc_write_credit(buf, &a);
	dcn_fc_read_credit(buf, DCN_FC_CREDIT_LEN(2), &b);
	assert_memory_equal(&a, &b, sizeof(a));
	/* big-endian on the wire */
	assert_int_equal(buf[0], 0xde);
	assert_int_equal(buf[7], 409 & 0xff);
	assert_int_equal(buf[11], 77);
	assert_int_equal(buf[15], DCN_FC_CREDIT_REPAIRS);
	/* freed of every VC, then arrived of every VC, then sent */
	assert_int_equal(buf[19], 1);
	assert_int_equal(buf[27], 3);
	assert_int_equal(buf[35], 5);
	/* Every VC the header carries; the length says how many came. */
	a.n_vcs = DCN_FC_MAX_VCS;
	for (vc = 0; vc < DCN_FC_MAX_VCS; vc++) {
		a.freed[vc] = 1000 + vc;
		a.arrived[vc] = 2000 + vc;
		a.sent[vc] = 3000 + vc;
	}
	dcn_fc_write_credit(buf, &a);
	dcn_fc_read_credit(buf, sizeof(buf), &b);
	assert_memory_equal(&a, &b, sizeof(a));
	/* The VCs that came, and nothing beyond them: a reader looks at
	 * n_vcs entries, and clearing the rest would cost every credit
	 * frame a pass over all DCN_FC_MAX_VCS. */
	a.n_vcs = 5;
	dcn_fc_write_credit(buf, &a);
	b.freed[5] = b.arrived[5] = b.sent[5] = 0xabcd;
	dcn_fc_read_credit(buf, DCN_FC_CREDIT_LEN(5) + 3, &b);
	assert_int_equal(b.n_vcs, 5);
	assert_int_equal(b.freed[4], 1004);
	assert_int_equal(b.arrived[4], 2004);
	assert_int_equal(b.sent[4], 3004);
	assert_int_equal(b.freed[5], 0xabcd);
	assert_int_equal(b.arrived[5], 0xabcd);
	assert_int_equal(b.sent[5], 0xabcd);
	/* Too short for one VC: nothing is read. */
	dcn_fc_read_credit(buf, DCN_FC_CREDIT_MIN_LEN - 1, &b);
	assert_int_equal(b.n_vcs, 0);
}

/* The announcing worker's one-pass credit payload against the model
 * (dcn_fc_credit_state, then dcn_fc_write_credit), byte for byte, on
 * every link of nodes of one and of two lanes, over random counters,
 * peers known and not, with and without repairs; and every lane's freed
 * count noted as announced. */
static void
test_announce_credit_model(void **state)
{
	static const uint8_t kind[3] = { DCN_FC_PORT_CREDIT, DCN_FC_PORT_CREDIT,
					 DCN_FC_PORT_HOST };
	unsigned int lanes, round, link, vc, k;

	(void)state;
	srand(43);
	for (lanes = 1; lanes <= 2; lanes++) {
		struct dcn_fc_conf conf = { .in_queue = 100, .out_queue = 32,
					    .reserve_pct = 20, .n_vcs = 4,
					    .n_lanes = lanes };
		struct dcn_fc_node *fn = dcn_fc_node_create(lanes == 1 ? "t-ann1" : "t-ann2",
							    7, 3, kind, NULL, NULL, &conf);

		assert_non_null(fn);
		for (round = 0; round < 200; round++) {
			for (k = 0; k < lanes * fn->n_chans; k++) {
				struct dcn_fc_chan *c = &fn->chan[k];

				c->freed = (uint32_t)rand() * 7u;
				c->arrived = c->freed + (uint32_t)(rand() % 50);
				c->sent = (uint32_t)rand() * 13u;
				c->base = (uint32_t)rand();
				c->peer_known = (uint8_t)(rand() & 1);
				c->peer_epoch = (uint32_t)rand();
				c->repairs = (uint8_t)(rand() & 1);
			}
			for (link = 0; link < fn->n_links; link++) {
				uint8_t want[DCN_FC_CREDIT_LEN(DCN_FC_MAX_VCS)];
				uint8_t got[DCN_FC_CREDIT_LEN(DCN_FC_MAX_VCS)];
				struct dcn_fc_credit cr;
				uint32_t len = DCN_FC_CREDIT_LEN(fn->n_vcs);

				memset(want, 0xa5, sizeof(want));
				memset(got, 0xa5, sizeof(got));
				dcn_fc_credit_state(fn, (uint16_t)link, &cr);
				dcn_fc_write_credit(want, &cr);
				dcn_fc_announce_credit(fn, (uint16_t)link, got);
				/* Nothing written past the payload either. */
				assert_memory_equal(got, want, sizeof(got));
				assert_true(len < sizeof(got));
				for (vc = 0; vc < fn->n_vcs; vc++)
					for (k = 0; k < lanes; k++) {
						const struct dcn_fc_chan *c =
							dcn_fc_lane(fn, link * fn->n_vcs + vc, k);

						assert_int_equal(c->announced, c->freed);
					}
			}
		}
		dcn_fc_node_free(fn);
	}
}

/* A peer announcing fewer VCs than the node keeps is refused, counted,
 * and gives no credit; one with as many gives each VC its own. */
static void
test_credit_vcs(void **state)
{
	struct dcn_fc_conf conf = { .in_queue = 100, .out_queue = 32,
				    .reserve_pct = 20, .n_vcs = 10 };
	static const uint8_t kind[2] = { DCN_FC_PORT_CREDIT, DCN_FC_PORT_HOST };
	struct dcn_fc_node *fn = dcn_fc_node_create("t-vcs", 1, 2, kind, NULL, NULL, &conf);
	struct dcn_fc_credit cr = { .epoch = 7, .grant = 80, .n_vcs = 2,
				    .freed = { 0 }, .arrived = { 0 } };
	unsigned int vc, pooled;

	(void)state;
	assert_non_null(fn);
	assert_int_equal(fn->n_chans, 20);
	/* VCs above the node's share its last */
	assert_ptr_equal(dcn_fc_chan(fn, 0, 15), dcn_fc_chan(fn, 0, 9));
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_chan(fn, 0, 0)->credit_few_vcs, 1);
	assert_int_equal(dcn_fc_credits(dcn_fc_chan(fn, 0, 0)), 0);
	cr.n_vcs = 10;
	for (vc = 0; vc < 10; vc++)
		cr.freed[vc] = cr.arrived[vc] = vc;
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	/* The link's grant of 80: each VC alone may send all of it but
	 * the other nine's own 2 each. */
	for (vc = 0, pooled = 0; vc < 10; vc++) {
		struct dcn_fc_chan *c = dcn_fc_chan(fn, 0, vc);

		/* Less what the VCs before took from the pool (past their
		 * own 2). */
		assert_int_equal(dcn_fc_credits(c), 80 - 9 * 2 - pooled);
		assert_int_equal(dcn_fc_take(c, vc + 1), vc + 1);
		dcn_fc_sent(c, vc + 1);
		pooled += vc + 1 > 2 ? vc + 1 - 2 : 0;
	}
	for (vc = 0; vc < 10; vc++)   /* vc + 1 more freed each */
		cr.freed[vc] = cr.arrived[vc] = 2 * vc + 1;
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	for (vc = 0; vc < 10; vc++)
		assert_int_equal(dcn_fc_credits(dcn_fc_chan(fn, 0, vc)), 80 - 9 * 2);
	dcn_fc_node_free(fn);
}

static void
test_layout(void **state)
{
	struct dcn_fc_node *fn = make("t-layout", 2);
	struct dcn_fc_chan *c = dcn_fc_chan(fn, 1, 1);

	(void)state;
	assert_ptr_equal(dcn_fc_node_lookup("t-layout"), fn);
	assert_int_equal(fn->n_chans, 6);
	assert_int_equal(c->in_cap, 100);
	assert_int_equal(c->grant, 80);       /* 20% reserve */
	/* The queue admits 32 whatever the node's inputs, and has room for
	 * a burst staged by each other worker (3 ports, one lane: 3 at
	 * most). */
	assert_int_equal(c->out_admit, 32);
	assert_int_equal(c->out_cap, 32 + 2 * 64);
	assert_true(rte_ring_get_capacity(c->out_q) >= c->out_cap);
	assert_true(rte_ring_get_capacity(c->in_q) >= c->in_cap);
	assert_string_equal(fn->port_name[2], "host");
	/* one VC: both VCs of a frame land in channel 0 */
	dcn_fc_node_free(fn);
	fn = make("t-layout1", 1);
	assert_ptr_equal(dcn_fc_chan(fn, 1, 1), &fn->chan[1]);
	dcn_fc_node_free(fn);
	assert_null(dcn_fc_node_lookup("t-layout"));
}

/* What the peer of link 0 says: freed and arrived of VC 0 (VC 1 idle). */
static void
peer_says(struct dcn_fc_credit *cr, uint32_t freed, uint32_t arrived)
{
	cr->freed[0] = freed;
	cr->arrived[0] = arrived;
}

static void
test_external_credits(void **state)
{
	/* One VC: the link's grant is all its own (the pool's sharing
	 * among VCs: test_pool_*). */
	struct dcn_fc_node *fn = make("t-ext", 1);
	struct dcn_fc_chan *c0 = dcn_fc_chan(fn, 0, 0), *c1 = dcn_fc_chan(fn, 0, 1);
	struct dcn_fc_credit cr = { .epoch = 11, .grant = 80, .n_vcs = 2,
				    .freed = { 0, 0 }, .arrived = { 0, 0 } };

	(void)state;
	/* Nothing may be sent before the peer has said how much room it has. */
	assert_int_equal(dcn_fc_credits(c0), 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	assert_int_equal(dcn_fc_credits(c1), 80);
	dcn_fc_sent(c0, 80);
	assert_int_equal(dcn_fc_credits(c0), 0);
	/* The peer frees 30, then 50: the first frame is lost; the second
	 * alone restores the full grant. */
	peer_says(&cr, 80, 80);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	assert_int_equal(dcn_fc_credits(c1), 80);
	/* A stale or repeated frame changes nothing. */
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	/* The peer restarts with frames of ours still counted against us. */
	dcn_fc_sent(c0, 50);
	assert_int_equal(dcn_fc_credits(c0), 30);
	cr.epoch = 12;
	peer_says(&cr, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	assert_int_equal(c0->epoch_changes, 1);
	/* The cable is pulled with 20 frames on it: the peer never frees
	 * them. When the link comes back (link_gen moves on), the next
	 * credit frame starts over; before that the 20 stay counted. */
	dcn_fc_sent(c0, 20);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 60);
	__atomic_store_n(&fn->link_gen[0], 1, __ATOMIC_RELEASE);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	assert_int_equal(dcn_fc_credits(c1), 80);
	dcn_fc_sent(c0, 5);
	dcn_fc_credit_rx(fn, 0, &cr, 0);  /* once only: then counted as usual */
	assert_int_equal(dcn_fc_credits(c0), 75);
	/* A restart while the peer still holds 12 of ours (arrived, not
	 * freed): those keep their slots. */
	__atomic_store_n(&fn->link_gen[0], 2, __ATOMIC_RELEASE);
	peer_says(&cr, 0, 12);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 68);
	/* A peer restarts while 10 of ours are on the way to it: its first
	 * word counts none of them, so they are written off; when they
	 * arrive and its next word counts them, they hold its room again
	 * (not credit on top of the full grant). */
	dcn_fc_sent(c0, 10);
	cr.epoch = 13;
	peer_says(&cr, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	peer_says(&cr, 0, 10);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 70);
	assert_int_equal(c0->late, 10);
	peer_says(&cr, 10, 10);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	/* The same behind a peer that repairs lost frames itself. */
	dcn_fc_sent(c0, 4);
	cr.epoch = 14;
	cr.flags = DCN_FC_CREDIT_REPAIRS;
	peer_says(&cr, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	peer_says(&cr, 4, 4);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	assert_int_equal(c0->late, 14);
	cr.flags = 0;
	/* A grant beyond an input queue (100 here), or a freed count
	 * beyond what was sent, gives no more than the queue: counted. */
	cr.epoch = 15;
	cr.grant = 1u << 30;
	peer_says(&cr, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 100);
	assert_int_equal(c0->credit_clamped, 1);
	cr.grant = 80;
	peer_says(&cr, 1u << 30, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 100);
	assert_int_equal(c0->credit_clamped, 2);
	peer_says(&cr, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	assert_int_equal(c0->credit_clamped, 2);
	/* Port 1 never heard from its peer. */
	assert_int_equal(dcn_fc_credits(dcn_fc_chan(fn, 1, 0)), 0);
	assert_int_equal(c0->credit_rx, 16);
	assert_int_equal(c0->lost, 0);
	dcn_fc_node_free(fn);
}

/*
 * A peer restarts (kill -9): the frames its last incarnation held, and
 * those on the way that its next did not count, are lost with it, and
 * counted as lost_restart; any that arrive after all (its next counts
 * them later) are taken back. A link that comes back writes off too, but
 * counts nothing: those frames are counted where they were dropped; and
 * frames that arrive late to its new base were never written off at a
 * restart, so they take nothing back from what one wrote off.
 */
static void
test_restart_write_off_counted(void **state)
{
	struct dcn_fc_node *fn = make("t-rst", 1);
	struct dcn_fc_chan *c0 = dcn_fc_chan(fn, 0, 0);
	struct dcn_fc_credit cr = { .epoch = 1, .grant = 80, .n_vcs = 2 };

	(void)state;
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	dcn_fc_sent(c0, 30);
	/* 25 arrived, 10 of them gone on: 15 in its queue, 5 on the way. */
	peer_says(&cr, 10, 25);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 60);
	/* Killed; its next incarnation has had 3 of the 5 so far. */
	cr.epoch = 2;
	peer_says(&cr, 0, 3);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(c0->lost_restart, 30 - 10 - 3);
	assert_int_equal(dcn_fc_credits(c0), 77);
	/* The other 2 come: not lost after all. */
	peer_says(&cr, 0, 5);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(c0->lost_restart, 15);
	assert_int_equal(c0->late, 2);
	assert_int_equal(dcn_fc_credits(c0), 75);
	/* A frame more arrives than were ever written off (never taken
	 * below what the restart counted). */
	peer_says(&cr, 5, 5);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	/* The link goes down and comes back with 7 sent and not counted:
	 * written off, not counted here. */
	dcn_fc_sent(c0, 7);
	__atomic_store_n(&fn->link_gen[0], 1, __ATOMIC_RELEASE);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c0), 80);
	assert_int_equal(c0->lost_restart, 15);
	/* A restart with nothing outstanding loses nothing. */
	cr.epoch = 3;
	peer_says(&cr, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(c0->lost_restart, 15);
	assert_int_equal(c0->epoch_changes, 3);
	/* Killed again with 4 on the way: written off. */
	dcn_fc_sent(c0, 4);
	cr.epoch = 4;
	peer_says(&cr, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(c0->lost_restart, 19);
	/* 2 more sent; then its link comes back (a peer that does not
	 * repair by sent counts: a new base), none of the 6 arrived yet. */
	dcn_fc_sent(c0, 2);
	__atomic_store_n(&fn->link_gen[0], 2, __ATOMIC_RELEASE);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(c0->lost_restart, 19);
	/* The 2 sent after the restart come: late to the new base, and
	 * never written off at the restart, so they take nothing back. */
	peer_says(&cr, 2, 2);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(c0->lost_restart, 19);
	assert_int_equal(dcn_fc_credits(c0), 80);
	dcn_fc_node_free(fn);
}

/*
 * Data frames lost on the way (a switch dropped them) never reach the
 * peer's arrived count. Once the sender has sent nothing more on the
 * channel for repair_tsc, what is still missing was lost: its credits
 * come back. Frames that arrive within that time are not lost; a channel
 * that keeps sending is left alone until it pauses.
 */
static void
test_lost_frames(void **state)
{
	struct dcn_fc_node *fn = make("t-lost", 1);
	struct dcn_fc_chan *c = dcn_fc_chan(fn, 0, 0);
	struct dcn_fc_credit cr = { .epoch = 21, .grant = 80, .n_vcs = 2,
				    .freed = { 0, 0 }, .arrived = { 0, 0 } };
	const uint64_t hold = fn->repair_tsc, t0 = 1000 * hold;

	(void)state;
	/* the default: half a second */
	assert_int_equal(hold, rte_get_tsc_hz() / 1000 * 500);
	dcn_fc_credit_rx(fn, 0, &cr, t0);
	/* 10 sent, 7 arrived: 3 missing, not yet known lost */
	dcn_fc_sent(c, 10);
	peer_says(&cr, 7, 7);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 1);
	assert_int_equal(dcn_fc_credits(c), 77);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + hold / 2);
	assert_int_equal(dcn_fc_credits(c), 77);
	/* One more sent: the wait starts over from it. */
	dcn_fc_sent(c, 1);
	peer_says(&cr, 8, 8);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + hold + 2);
	assert_int_equal(dcn_fc_credits(c), 77);
	assert_int_equal(c->lost, 0);
	/* Nothing more sent for the repair time: the 3 were lost. */
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 2 * hold + 10);
	assert_int_equal(dcn_fc_credits(c), 80);
	assert_int_equal(c->lost, 3);
	/* Counted as usual afterwards. */
	dcn_fc_sent(c, 5);
	peer_says(&cr, 13, 13);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 2 * hold + 20);
	assert_int_equal(dcn_fc_credits(c), 80);
	/* Frames late, not lost: 4 on the way for a while, then arrived. */
	dcn_fc_sent(c, 4);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 2 * hold + 30);
	assert_int_equal(dcn_fc_credits(c), 76);
	peer_says(&cr, 17, 17);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 4 * hold);
	assert_int_equal(dcn_fc_credits(c), 80);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 6 * hold);
	assert_int_equal(dcn_fc_credits(c), 80);
	assert_int_equal(c->lost, 3);
	/* Frames queued at the peer (arrived, not freed) are not missing. */
	dcn_fc_sent(c, 6);
	peer_says(&cr, 17, 23);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 7 * hold);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 9 * hold);
	assert_int_equal(dcn_fc_credits(c), 74);
	assert_int_equal(c->lost, 3);
	/* A channel whose whole grant was lost is repaired all the same. */
	peer_says(&cr, 23, 23);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 10 * hold);
	dcn_fc_sent(c, 80);
	assert_int_equal(dcn_fc_credits(c), 0);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 11 * hold);
	assert_int_equal(dcn_fc_credits(c), 0);
	dcn_fc_credit_rx(fn, 0, &cr, t0 + 12 * hold + 10);
	assert_int_equal(dcn_fc_credits(c), 80);
	assert_int_equal(c->lost, 83);
	dcn_fc_node_free(fn);
}

/* What a credit frame leaves in a channel, and its node's counts. */
static void
assert_chan_same(const struct dcn_fc_chan *a, const struct dcn_fc_chan *b)
{
	assert_int_equal(a->sent, b->sent);
	assert_int_equal(a->limit, b->limit);
	assert_int_equal(a->base, b->base);
	assert_int_equal(a->peer_epoch, b->peer_epoch);
	assert_int_equal(a->peer_grant, b->peer_grant);
	assert_int_equal(a->peer_known, b->peer_known);
	assert_int_equal(a->peer_freed, b->peer_freed);
	assert_int_equal(a->keep_tx->base, b->keep_tx->base);
	assert_int_equal(a->keep_tx->peer_epoch, b->keep_tx->peer_epoch);
	assert_int_equal(a->link_gen_seen, b->link_gen_seen);
	assert_int_equal(a->probe_sent, b->probe_sent);
	assert_int_equal(a->probe_tsc, b->probe_tsc);
	assert_int_equal(a->lost, b->lost);
	assert_int_equal(a->late, b->late);
	assert_int_equal(a->lost_restart, b->lost_restart);
	assert_int_equal(a->restart_pending, b->restart_pending);
	assert_int_equal(a->epoch_changes, b->epoch_changes);
	assert_int_equal(a->credit_clamped, b->credit_clamped);
	assert_int_equal(a->credit_rx, b->credit_rx);
}

/*
 * A credit frame passes over a VC nothing has moved on since the last
 * word that left it settled (dcn_fc_credit_rx). Checked against the full
 * step over a random run of a peer's life: node a takes every word as
 * the data path does; node b takes each with every channel's settled
 * mark cleared first, so it works every VC out in full. Frames sent,
 * arrived, freed, lost on the way; words repeated, lost, late; restarts,
 * links come back, grants beyond the queue, the repair flag, the clock.
 * After every word the two agree on every channel.
 */
static void
test_repeated_word_model(void **state)
{
	struct dcn_fc_node *na = make("t-rwa", 4), *nb = make("t-rwb", 4);
	const uint64_t hold = na->repair_tsc;
	struct dcn_fc_credit cr = { .epoch = 1, .grant = 80, .n_vcs = 4 };
	uint32_t on_way[4] = { 0 }, held[4] = { 0 }, step, vc, settled = 0;
	uint64_t now = 1000 * hold, seed = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (step = 0; step < 40000; step++) {
		uint32_t r, k;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		r = (uint32_t)(seed >> 32);
		/* Mostly VC 0: the others stay idle for long runs. */
		vc = r % 16 < 12 ? 0 : r % 4;
		switch (r >> 8 & 15) {
		case 0: case 1: case 2: { /* send what the credits allow */
			int32_t room = dcn_fc_credits(dcn_fc_chan(na, 0, vc));

			k = room > 0 ? (r >> 12) % ((uint32_t)room + 1) : 0;
			dcn_fc_sent(dcn_fc_chan(na, 0, vc), k);
			dcn_fc_sent(dcn_fc_chan(nb, 0, vc), k);
			on_way[vc] += k;
			break;
		}
		case 3: case 4: /* some arrive; now and then one is lost */
			k = on_way[vc] != 0 ? (r >> 12) % (on_way[vc] + 1) : 0;
			on_way[vc] -= k;
			if ((r >> 24) % 8 == 0 && k != 0)
				k--;
			cr.arrived[vc] += k;
			held[vc] += k;
			break;
		case 5: case 6: /* the peer frees */
			k = held[vc] != 0 ? (r >> 12) % (held[vc] + 1) : 0;
			held[vc] -= k;
			cr.freed[vc] += k;
			break;
		case 7: /* the peer restarts: what it held is gone */
			if ((r >> 12) % 16 == 0) {
				cr.epoch++;
				memset(cr.freed, 0, sizeof(cr.freed));
				memset(cr.arrived, 0, sizeof(cr.arrived));
				memset(held, 0, sizeof(held));
			}
			break;
		case 8: /* the link comes back */
			if ((r >> 12) % 16 == 0) {
				__atomic_fetch_add(&na->link_gen[0], 1, __ATOMIC_RELEASE);
				__atomic_fetch_add(&nb->link_gen[0], 1, __ATOMIC_RELEASE);
			}
			break;
		case 9: /* another grant, now and then beyond a queue */
			cr.grant = (r >> 12) % 4 == 0 ? 1u << 20 : 40 + (r >> 12) % 60;
			break;
		case 10:
			cr.flags ^= (r >> 12) % 8 == 0 ? DCN_FC_CREDIT_REPAIRS : 0;
			break;
		case 11: /* time for a repair */
			now += (r >> 12) % 2 ? hold / 3 : hold + 1;
			break;
		default: /* a word, most often the same as the last */
			for (k = 0; k < nb->n_lanes * nb->n_chans; k++)
				nb->chan[k].word_settled = 0;
			dcn_fc_credit_rx(na, 0, &cr, now);
			dcn_fc_credit_rx(nb, 0, &cr, now);
			for (k = 0; k < na->n_vcs; k++) {
				assert_chan_same(dcn_fc_chan(na, 0, k), dcn_fc_chan(nb, 0, k));
				settled += dcn_fc_chan(na, 0, k)->word_settled;
			}
			break;
		}
	}
	/* The pass-over is live: most words found channels settled. */
	assert_true(settled > 10000);
	dcn_fc_node_free(na);
	dcn_fc_node_free(nb);
}

/*
 * A credit frame carries what its sender sent, counted as this node
 * counts arrivals, and comes behind those frames: what is neither queued
 * nor freed here was lost on the way, and is freed as if it had come, so
 * the peer gets the credits back at once. Counts of another epoch of
 * this node, or behind what already came, change nothing. A sender whose
 * peer repairs so leaves its own repair (and the start over when the
 * link comes back) to it.
 */
static void
test_sent_counts(void **state)
{
	struct dcn_fc_node *fn = make("t-sent", 2);
	struct dcn_fc_chan *c = dcn_fc_chan(fn, 0, 0);
	struct dcn_fc_credit cr = { .epoch = 31, .grant = 80, .n_vcs = 2,
				    .sent_epoch = fn->epoch };
	struct dcn_fc_credit mine;
	struct rte_mbuf *q[3];
	unsigned int i;

	(void)state;
	/* 7 frames of the peer's freed, 3 in the input queue: 10 arrived
	 * (the receive step counts them so) */
	c->freed = 7;
	c->arrived = 10;
	for (i = 0; i < 3; i++) {
		q[i] = rte_pktmbuf_alloc(mp);
		assert_non_null(q[i]);
	}
	assert_int_equal(rte_ring_enqueue_bulk(c->in_q, (void **)q, 3, NULL), 3);
	assert_int_equal(c->repairs, 0);
	cr.sent[0] = 12;            /* 2 never came */
	dcn_fc_credit_sent(fn, 0, &cr);
	assert_int_equal(c->freed, 9);
	assert_int_equal(c->lost_in, 2);
	assert_int_equal(c->repairs, 1);
	assert_int_equal(dcn_fc_chan(fn, 0, 1)->lost_in, 0);
	dcn_fc_credit_sent(fn, 0, &cr);     /* the same count again */
	cr.sent[0] = 11;                    /* an older one */
	dcn_fc_credit_sent(fn, 0, &cr);
	cr.sent_epoch = fn->epoch + 2;      /* counted for another epoch */
	cr.sent[0] = 40;
	dcn_fc_credit_sent(fn, 0, &cr);
	assert_int_equal(c->freed, 9);
	assert_int_equal(c->lost_in, 2);
	dcn_fc_credit_state(fn, 0, &mine);
	assert_int_equal(mine.flags, DCN_FC_CREDIT_REPAIRS);
	assert_int_equal(mine.freed[0], 9);
	assert_int_equal(mine.arrived[0], 12);
	/* What this node sends: none before the peer spoke, then counted
	 * from the peer's arrived. */
	assert_int_equal(mine.sent_epoch, 0);
	cr.sent_epoch = fn->epoch;
	cr.arrived[0] = cr.freed[0] = 100;
	c->sent = 500;
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	dcn_fc_sent(c, 5);
	dcn_fc_credit_state(fn, 0, &mine);
	assert_int_equal(mine.sent_epoch, 31);
	assert_int_equal(mine.sent[0], 105);
	/* The peer repairs: 5 missing for long stay its to repair; the link
	 * coming back does not start the count over. */
	cr.flags = DCN_FC_CREDIT_REPAIRS;
	dcn_fc_credit_rx(fn, 0, &cr, 1);
	dcn_fc_credit_rx(fn, 0, &cr, 10 * fn->repair_tsc);
	assert_int_equal(c->lost, 0);
	/* (VC 0 alone may send 70 of the link's 80: VC 1 keeps 10.) */
	assert_int_equal(dcn_fc_credits(c), 65);
	__atomic_store_n(&fn->link_gen[0], 1, __ATOMIC_RELEASE);
	dcn_fc_credit_rx(fn, 0, &cr, 11 * fn->repair_tsc);
	assert_int_equal(dcn_fc_credits(c), 65);
	assert_int_equal(c->epoch_changes, 0);
	/* It does: its freed count rises by the 5. */
	cr.arrived[0] = cr.freed[0] = 105;
	dcn_fc_credit_rx(fn, 0, &cr, 12 * fn->repair_tsc);
	assert_int_equal(dcn_fc_credits(c), 70);
	dcn_fc_node_free(fn);
}

static void
test_wrap(void **state)
{
	struct dcn_fc_node *fn = make("t-wrap", 1);
	struct dcn_fc_chan *c = dcn_fc_chan(fn, 0, 0);
	struct dcn_fc_credit cr = { .epoch = 5, .grant = 80, .n_vcs = 2,
				    .freed = { 0xffffffe0u, 0 }, .arrived = { 0xffffffe0u, 0 } };

	(void)state;
	c->sent = 0xffffffd0u;
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c), 80);
	dcn_fc_sent(c, 70);     /* sent wraps past zero */
	assert_int_equal(dcn_fc_credits(c), 10);
	cr.freed[0] += 67;      /* and so do freed and arrived: 3 lost */
	cr.arrived[0] += 67;
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	assert_int_equal(dcn_fc_credits(c), 77);
	dcn_fc_credit_rx(fn, 0, &cr, 2 * fn->repair_tsc);
	assert_int_equal(dcn_fc_credits(c), 80);
	assert_int_equal(c->lost, 3);
	/* a sender ahead of its limit has no credit, not 4 billion */
	dcn_fc_sent(c, 85);
	assert_int_equal(dcn_fc_credits(c), 0);
	dcn_fc_node_free(fn);
}

/* Frames in output queue out, queued by input in_idx (as its pass does:
 * credits taken, then queued), or sent (returned, then taken off). */
static void
ic_queue(struct dcn_fc_chan *out, struct dcn_fc_chan *in, uint32_t in_idx,
	 uint32_t out_idx, int n)
{
	void *p = (void *)(uintptr_t)0x1000;

	for (; n > 0; n--) {
		in->ic_taken[out_idx]++;
		assert_int_equal(rte_ring_enqueue(out->out_q, p), 0);
	}
	for (; n < 0; n++) {
		out->ic_returned[in_idx]++;
		assert_int_equal(rte_ring_dequeue(out->out_q, &p), 0);
	}
}

static void
test_internal_credits(void **state)
{
	struct dcn_fc_node *fn = make("t-int", 2);
	uint32_t a = 0, b = 1, out_idx = 3, admit;
	struct dcn_fc_chan *ia = &fn->chan[a], *ib = &fn->chan[b], *out = &fn->chan[out_idx];

	(void)state;
	admit = out->out_admit;
	assert_int_equal(admit, 32);
	/* An empty queue: an input may take half (each frame it takes
	 * is one slot fewer free). */
	assert_int_equal(dcn_fc_ic_room(out, out, ia, a, out_idx, 0), 16);
	/* a holds 10 of it: 22 free; a may hold 6 more (16 of 32), b 11. */
	ic_queue(out, ia, a, out_idx, 10);
	assert_int_equal(dcn_fc_ic_room(out, out, ia, a, out_idx, 0), 6);
	assert_int_equal(dcn_fc_ic_room(out, out, ib, b, out_idx, 0), 11);
	/* Frames staged, not yet queued, count as the queue's. */
	ia->ic_taken[out_idx] += 5;
	assert_int_equal(dcn_fc_ic_room(out, out, ia, a, out_idx, 5), 1);
	assert_int_equal(dcn_fc_ic_room(out, out, ib, b, out_idx, 5), 9);
	ia->ic_taken[out_idx] -= 5;
	/* A lone input stops at half the queue. */
	ic_queue(out, ia, a, out_idx, 6);
	assert_int_equal(dcn_fc_ic_room(out, out, ia, a, out_idx, 0), 0);
	/* Two take turns: each stops at a third. */
	while (dcn_fc_ic_room(out, out, ib, b, out_idx, 0) != 0)
		ic_queue(out, ib, b, out_idx, 1);
	assert_int_equal(rte_ring_count(out->out_q), 16 + 8);
	ic_queue(out, ia, a, out_idx, -6);
	while (dcn_fc_ic_room(out, out, ia, a, out_idx, 0) != 0 ||
	       dcn_fc_ic_room(out, out, ib, b, out_idx, 0) != 0) {
		if (dcn_fc_ic_room(out, out, ia, a, out_idx, 0) != 0)
			ic_queue(out, ia, a, out_idx, 1);
		if (dcn_fc_ic_room(out, out, ib, b, out_idx, 0) != 0)
			ic_queue(out, ib, b, out_idx, 1);
	}
	/* About a third each (from where they started: a 10, b 8). */
	assert_in_range(ia->ic_taken[out_idx] - out->ic_returned[a], admit / 3 - 2,
			admit / 3 + 2);
	assert_in_range(ib->ic_taken[out_idx] - out->ic_returned[b], admit / 3 - 2,
			admit / 3 + 2);
	/* Frames that leave give their input room back. */
	ic_queue(out, ib, b, out_idx, -3);
	assert_true(dcn_fc_ic_room(out, out, ib, b, out_idx, 0) != 0);
	ic_queue(out, ia, a, out_idx, -(int)rte_ring_count(out->out_q));
	dcn_fc_node_free(fn);
}

/* The dynamic threshold against its model, the queue's size: the node's
 * six inputs, each staging as a worker would (a burst of at most 16
 * here), admitted at random as far as their room goes, frames sent at
 * random, 20,000 steps. A worker's frames and the queue never exceed
 * what it admits; with the others' staged bursts, never the queue's
 * slots; an input with nothing there has room while the queue has
 * any. */
#define STAGE_B 16

static void
test_internal_credits_bound(void **state)
{
	struct dcn_fc_node *fn = make("t-intb", 2);
	uint32_t out_idx = 2, in_of[4096], head = 0, tail = 0, step, i, all;
	struct dcn_fc_chan *out = &fn->chan[out_idx];
	uint32_t staged[6] = { 0 };
	void *p = (void *)(uintptr_t)0x1000;

	(void)state;
	srand(67);
	for (step = 0; step < 20000; step++) {
		uint32_t in_idx = (uint32_t)rand() % fn->n_chans;
		struct dcn_fc_chan *in = &fn->chan[in_idx];
		uint32_t room = dcn_fc_ic_room(out, out, in, in_idx, out_idx, staged[in_idx]);
		uint32_t used = in->ic_taken[out_idx] - out->ic_returned[in_idx];
		uint32_t k = RTE_MIN((uint32_t)rand() % 8, room);

		assert_true(room == 0 || rte_ring_count(out->out_q) + staged[in_idx] +
						  2 * room - 1 <= out->out_admit);
		if (used == 0 && rte_ring_count(out->out_q) + staged[in_idx] < out->out_admit)
			assert_true(room != 0);
		k = RTE_MIN(k, STAGE_B - staged[in_idx]);
		in->ic_taken[out_idx] += k;
		staged[in_idx] += k;
		if ((rand() & 1) || staged[in_idx] == STAGE_B) {
			for (i = 0; i < staged[in_idx]; i++) {
				assert_int_equal(rte_ring_enqueue(out->out_q, p), 0);
				in_of[tail++ % 4096] = in_idx;
			}
			staged[in_idx] = 0;
		}
		for (all = rte_ring_count(out->out_q), i = 0; i < 6; i++)
			all += staged[i];
		assert_true(all <= out->out_admit + 5 * STAGE_B);
		for (k = (uint32_t)rand() % 6; k > 0 && head != tail; k--) {
			assert_int_equal(rte_ring_dequeue(out->out_q, &p), 0);
			out->ic_returned[in_of[head++ % 4096]]++;
		}
	}
	while (head != tail) {
		assert_int_equal(rte_ring_dequeue(out->out_q, &p), 0);
		head++;
	}
	dcn_fc_node_free(fn);
}

/*
 * One pool a link, against its model: a cable of 4 VCs granted 80, the
 * sender taking credits on random VCs (the port taking all or part),
 * the peer freeing random parts of what it holds, 20,000 steps. What
 * the peer holds for the link never exceeds the grant; a VC holding
 * less than its own share can always send (the VCs' deadlock freedom);
 * once the peer has freed all, each VC alone may send the grant less
 * the others' own shares again: no slot lost or made. The sent counts
 * start just short of their wrap, and pass it.
 */
/* A node of one cable of four VCs (100 slots, 80 granted) and a host
 * port, for the pool's tests. */
static struct dcn_fc_node *
pool_node(const char *id)
{
	static const uint8_t kind[2] = { DCN_FC_PORT_CREDIT, DCN_FC_PORT_HOST };
	struct dcn_fc_conf conf = { .in_queue = 100, .out_queue = 32, .reserve_pct = 20,
				    .n_vcs = 4 };

	return dcn_fc_node_create(id, 1, 2, kind, NULL, NULL, &conf);
}

static void
test_pool_model(void **state)
{
	struct dcn_fc_node *fn = pool_node("t-pool");
	struct dcn_fc_credit cr = { .epoch = 5, .grant = 80, .n_vcs = 4 };
	const uint32_t own = dcn_fc_private(80, 4), alone = 80 - 3 * own;
	uint32_t sent[4] = { 0 }, step, vc, held;

	(void)state;
	assert_non_null(fn);
	assert_int_equal(own, 5);
	assert_int_equal(dcn_fc_shared(80, 4), 60);
	assert_int_equal(dcn_fc_link_bound(80, 4), 80);
	for (vc = 0; vc < 4; vc++)
		dcn_fc_chan(fn, 0, vc)->sent = 0xffffff00u - 37 * vc;
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	srand(71);
	for (step = 0; step < 20000; step++) {
		struct dcn_fc_chan *c;
		uint32_t want, may, took;

		vc = (uint32_t)rand() % 4;
		c = dcn_fc_chan(fn, 0, vc);
		if (rand() % 3 != 0) {
			want = 1 + (uint32_t)rand() % 40;
			may = dcn_fc_take(c, want);
			if (sent[vc] - cr.freed[vc] < own)
				assert_true(may != 0);
			took = rand() % 4 == 0 ? (uint32_t)rand() % (may + 1) : may;
			dcn_fc_sent(c, took);
			sent[vc] += took;
			cr.arrived[vc] = sent[vc];
		} else {
			cr.freed[vc] += (uint32_t)rand() % (sent[vc] - cr.freed[vc] + 1);
			dcn_fc_credit_rx(fn, 0, &cr, step);
		}
		for (held = 0, vc = 0; vc < 4; vc++)
			held += sent[vc] - cr.freed[vc];
		assert_true(held <= 80);
	}
	for (vc = 0; vc < 4; vc++)
		cr.freed[vc] = sent[vc];
	dcn_fc_credit_rx(fn, 0, &cr, step);
	for (vc = 0; vc < 4; vc++) {
		assert_true(sent[vc] > 0x100 + 37 * vc);  /* past the wrap */
		assert_int_equal(dcn_fc_credits(dcn_fc_chan(fn, 0, vc)), alone);
	}
	/* and taken: one VC alone gets it all, the rest their own. */
	assert_int_equal(dcn_fc_take(dcn_fc_chan(fn, 0, 2), 200), alone);
	dcn_fc_sent(dcn_fc_chan(fn, 0, 2), alone);
	assert_int_equal(dcn_fc_credits(dcn_fc_chan(fn, 0, 0)), own);
	assert_int_equal(dcn_fc_take(dcn_fc_chan(fn, 0, 1), 200), own);
	dcn_fc_node_free(fn);
}

/*
 * A lane's poller applies a credit frame on its own core while the
 * port's one sender takes credits: the sender's first look (its own room
 * short of the burst) is stale by the time it asks the pool, and the
 * second look, after settling, finds the limit risen past the burst. It
 * may send the burst, not the burst plus the pool: that was more frames
 * than it held (a read past the burst's array) and than the peer had
 * room for (its input queue overflowed).
 */
static void
test_take_pool_limit_rose(void **state)
{
	struct dcn_fc_node *fn = pool_node("t-rose");
	struct dcn_fc_credit cr = { .epoch = 5, .grant = 80, .n_vcs = 4 };
	struct dcn_fc_chan *c;
	uint32_t n, own = dcn_fc_private(80, 4), pool = dcn_fc_shared(80, 4);

	(void)state;
	assert_non_null(fn);
	c = dcn_fc_chan(fn, 0, 0);
	dcn_fc_credit_rx(fn, 0, &cr, 0);
	/* VC 0 sends its own share and the whole pool */
	assert_int_equal(dcn_fc_take(c, own + pool), own + pool);
	dcn_fc_sent(c, own + pool);
	assert_int_equal(dcn_fc_own_room(c, (union dcn_fc_sent_tok){ .u = c->sent_tok }), 0);
	/* the sender's first look: no room; then the peer frees it all */
	cr.arrived[0] = cr.freed[0] = own + pool;
	dcn_fc_credit_rx(fn, 0, &cr, 1);
	n = own - 1;
	assert_int_equal(dcn_fc_take_pool(c, n, 0), n);
	assert_int_equal(c->tok, 0);
	assert_int_equal(c->shared_held, 0);
	/* past its own share the pool lends the rest, and no more */
	assert_int_equal(dcn_fc_take(c, own + 3), own + 3);
	assert_int_equal(c->shared_held, 3);
	dcn_fc_node_free(fn);
}

static void
test_free_returns_mbufs(void **state)
{
	struct dcn_fc_node *fn = make("t-free", 2);
	struct rte_mbuf *m[10];
	unsigned int avail = rte_mempool_avail_count(mp);

	(void)state;
	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, m, 10), 0);
	assert_int_equal(rte_ring_enqueue_burst(fn->chan[0].in_q, (void **)m, 4,
						NULL), 4);
	assert_int_equal(rte_ring_enqueue_burst(fn->chan[5].out_q, (void **)&m[4],
						4, NULL), 4);
	fn->chan[2].held[0] = m[8];
	fn->chan[2].held[1] = m[9];
	fn->chan[2].held_n = 2;
	assert_int_equal(dcn_fc_in_depth(&fn->chan[2]), 2);
	dcn_fc_node_free(fn);
	assert_int_equal(rte_mempool_avail_count(mp), avail);
}

static void
test_bad_conf(void **state)
{
	static const uint8_t kind[1] = { DCN_FC_PORT_CREDIT };
	struct dcn_fc_conf conf = { .n_vcs = DCN_FC_MAX_VCS + 1 };

	(void)state;
	assert_null(dcn_fc_node_create("t-bad", 0, 1, kind, NULL, NULL, &conf));
	conf.n_vcs = 2;
	conf.reserve_pct = 95;
	assert_null(dcn_fc_node_create("t-bad", 0, 1, kind, NULL, NULL, &conf));
	conf.reserve_pct = 0;
	assert_null(dcn_fc_node_create("t-bad", 0, 0, kind, NULL, NULL, &conf));
}

/*
 * The most frames a node holds, from its shape alone: a credited link
 * what its peer may send (the link's grant over every VC and lane, the
 * input queue with its reserve) and its channels' output queues; a host
 * link its one VC a lane; by hand for two cables of 2 VCs: 2 x (64 in +
 * 2 VCs x 128 out) = 640. Linear in the node's ports: twice the ports,
 * at most twice the frames, over every VC count and lanes (with the
 * workers given, as dcnfwd gives them). Never more than the queues' own
 * slots. A shape the node refuses gives 0.
 */
static void
test_frames_max(void **state)
{
	static const uint8_t kind3[3] = { DCN_FC_PORT_CREDIT, DCN_FC_PORT_SWITCH,
					  DCN_FC_PORT_HOST };
	static const uint16_t links[3] = { 1, 3, 1 };
	uint8_t kind[DCN_FC_MAX_PORTS];
	struct dcn_fc_conf conf = { .in_queue = 300, .out_queue = 1000, .n_vcs = 3,
				    .n_lanes = 2 };
	struct dcn_fc_node *fn;
	uint64_t slots = 0, one, two;
	uint32_t i, ports, vcs, lanes;

	(void)state;
	fn = dcn_fc_node_create("t-max", 1, 3, kind3, links, NULL, &conf);
	assert_non_null(fn);
	for (i = 0; i < fn->n_lanes * fn->n_chans; i++)
		slots += fn->chan[i].in_cap + fn->chan[i].out_cap;
	assert_int_equal(fn->n_links, 5);
	assert_true(dcn_fc_frames_max(&conf, 3, kind3, links) < slots);
	/* what a process of many nodes gives EAL: the memzone's size */
	assert_true(fn->mz->len >= dcn_fc_node_bytes(&conf, 3, kind3, links));
	assert_true(fn->mz->len < dcn_fc_node_bytes(&conf, 3, kind3, links) + RTE_CACHE_LINE_SIZE);
	conf.n_vcs = DCN_FC_MAX_VCS + 1;
	assert_int_equal(dcn_fc_node_bytes(&conf, 3, kind3, links), 0);
	conf.n_vcs = 3;
	dcn_fc_node_free(fn);
	conf = (struct dcn_fc_conf){ .in_queue = 64, .out_queue = 128, .n_vcs = 2,
				     .stagers = 1 };
	assert_int_equal(dcn_fc_frames_max(&conf, 2, kind3, NULL), 640);
	/* A host port: VC 0 in and out. */
	assert_int_equal(dcn_fc_frames_max(&conf, 3, kind3, NULL), 640 + 64 + 128);
	for (i = 0; i < DCN_FC_MAX_PORTS; i++)
		kind[i] = DCN_FC_PORT_CREDIT;
	for (vcs = 1; vcs <= DCN_FC_MAX_VCS; vcs++)
		for (lanes = 1; lanes <= 2; lanes++)
			for (ports = 1; 2 * ports <= 16; ports++) {
				conf = (struct dcn_fc_conf){ .in_queue = 1024, .n_vcs = vcs,
							     .n_lanes = lanes, .stagers = 2 };
				one = dcn_fc_frames_max(&conf, (uint16_t)ports, kind, NULL);
				two = dcn_fc_frames_max(&conf, (uint16_t)(2 * ports), kind, NULL);
				assert_true(one != 0);
				assert_true(two <= 2 * one);
			}
	conf.n_vcs = DCN_FC_MAX_VCS + 1;
	assert_int_equal(dcn_fc_frames_max(&conf, 2, kind3, NULL), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credit_frame),
		cmocka_unit_test(test_credit_vcs),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_external_credits),
		cmocka_unit_test(test_restart_write_off_counted),
		cmocka_unit_test(test_lost_frames),
		cmocka_unit_test(test_repeated_word_model),
		cmocka_unit_test(test_announce_credit_model),
		cmocka_unit_test(test_sent_counts),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_internal_credits),
		cmocka_unit_test(test_internal_credits_bound),
		cmocka_unit_test(test_pool_model),
		cmocka_unit_test(test_take_pool_limit_rose),
		cmocka_unit_test(test_free_returns_mbufs),
		cmocka_unit_test(test_bad_conf),
		cmocka_unit_test(test_frames_max),
	};
	int ret;

	(void)argc;
	ret = test_eal_start(argv[0], "fc", 1023, &mp);
	if (ret != 0)
		return ret;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	test_eal_stop(mp);
	return ret;
}
