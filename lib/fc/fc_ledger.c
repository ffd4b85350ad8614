/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ledger: a node's input and output counts kept in a file mapped
 * shared, so that a kill -9 leaves them behind for the next incarnation:
 * the dead one's last word, and what it had queued for output (dcn_fc.h,
 * dcn_fc_ledger_attach).
 *
 * The data path writes a channel's slot where it writes the channel's
 * count, a plain store a burst (a mapped file's page is memory like any
 * other: no call, no flush; the kernel keeps the page when the process
 * dies). Nothing is synced to disk: a machine that loses power loses its
 * neighbours' counts as well. The runtime directory is normally a tmpfs
 * (/run/dpdk, or $XDG_RUNTIME_DIR/dpdk), whose pages are never written
 * back, so a store never faults; in a directory on a disk, writeback
 * would write-protect the page now and then, and the next store would
 * enter the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcn_fc_dp.h"

#define LEDGER_MAGIC "dcnfcld3"

/* The file: this head, each worker's output counts, a slot per lane per
 * channel ([lane * n_chans + chan], as the node's channels), then each
 * channel's output count (struct ledger_tail). */
struct ledger_head {
	char magic[8];
	uint32_t epoch;        /* the incarnation that keeps it */
	uint32_t vertex;       /* the node's */
	uint16_t n_links;
	uint16_t n_vcs;
	uint16_t n_lanes;
	uint16_t n_workers;    /* DCN_FC_MAX_WORKERS */
	struct dcn_fc_keep_out out[DCN_FC_MAX_WORKERS];
	struct dcn_fc_keep slot[];
};

/* What the dead incarnation left of one channel. */
struct ledger_chan {
	struct dcn_fc_keep last;   /* its input counts, its lanes summed */
	struct dcn_fc_keep_tx tx;  /* its output count */
};

struct dcn_fc_ledger {
	struct ledger_head *head;
	size_t size;
	uint32_t last_epoch;   /* the dead incarnation's; 0: no word */
	uint32_t lost_queued;  /* what it had queued for output */
	uint32_t in_doubt;     /* what it was handing on when killed */
	struct dcn_fc_dp *dp;  /* whose out_keep points here */
	/* Of in_doubt, per port: the frames not settled yet, and whether a
	 * peer spoke from another epoch (the rest then stays in doubt);
	 * the links whose peers have spoken since the start. */
	uint32_t doubt[DCN_FC_MAX_PORTS];
	uint8_t doubt_stuck[DCN_FC_MAX_PORTS];
	uint8_t spoke[DCN_FC_MAX_LINKS];
	uint8_t pending[DCN_FC_MAX_LINKS];
	struct ledger_chan ch[]; /* [chan] */
};

/* The output counts after the slots. */
static struct dcn_fc_keep_tx *
ledger_tail(struct ledger_head *h, unsigned int lanes, unsigned int chans)
{
	return (struct dcn_fc_keep_tx *)&h->slot[lanes * chans];
}

static size_t
ledger_size(unsigned int lanes, unsigned int chans)
{
	return sizeof(struct ledger_head) + (size_t)lanes * chans * sizeof(struct dcn_fc_keep) +
	       (size_t)chans * sizeof(struct dcn_fc_keep_tx);
}

/* What the file at fd says the last incarnation left, into lg: its
 * epoch, and its counts where it kept fn's links and VCs. @return links
 * with a word. */
static int
read_last(int fd, const struct dcn_fc_node *fn, struct dcn_fc_ledger *lg)
{
	struct ledger_head h;
	struct stat sb;
	struct dcn_fc_keep *old;
	unsigned int chans = fn->n_chans, i, k, words = 0;
	uint32_t queued = 0, left = 0;
	size_t size;

	if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof(h) ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, LEDGER_MAGIC, sizeof(h.magic)) != 0 || h.vertex != fn->vertex ||
	    h.n_links != fn->n_links || h.n_vcs != fn->n_vcs || h.n_lanes == 0 ||
	    h.n_workers != DCN_FC_MAX_WORKERS ||
	    h.n_lanes > DCN_FC_MAX_LANES || h.epoch == 0 || h.epoch == fn->epoch)
		return 0;
	size = ledger_size(h.n_lanes, chans);
	if ((size_t)sb.st_size != size)
		return 0;
	old = malloc(size - sizeof(h));
	if (old == NULL)
		return 0;
	if (pread(fd, old, size - sizeof(h), sizeof(h)) != (ssize_t)(size - sizeof(h))) {
		free(old);
		return 0;
	}
	for (i = 0; i < chans; i++) {
		for (k = 0; k < h.n_lanes; k++) {
			lg->ch[i].last.arrived += old[k * chans + i].arrived;
			lg->ch[i].last.freed += old[k * chans + i].freed;
		}
		lg->ch[i].tx = ((const struct dcn_fc_keep_tx *)&old[h.n_lanes * chans])[i];
	}
	free(old);
	for (k = 0; k < DCN_FC_MAX_WORKERS; k++) {
		const struct dcn_fc_keep_out *o = &h.out[k];

		/* Queued for output and never taken off: freed from the
		 * inputs (so in no neighbour's count), lost with it. */
		queued += o->queued;
		left += o->left;
		/* A pass cut short: what went on is freed, though its
		 * input's count was not yet written. */
		if (o->pass_out != 0 &&
		    o->pass_out <= DCN_FC_HELD_SLOTS(fn->chan[0].in_cap) &&
		    o->pass_chan < (uint32_t)h.n_lanes * chans)
			lg->ch[o->pass_chan % chans].last.freed += o->pass_out;
		/* Frames being put on an output queue died with it (no
		 * neighbour counts them: their input's write-off does);
		 * frames handed to a port may have left. */
		if (o->sending <= DCN_FC_BURST_MAX && o->sending_to != 0 &&
		    o->sending_to <= fn->n_ports) {
			lg->in_doubt += o->sending;
			lg->doubt[o->sending_to - 1] += o->sending;
		}
	}
	/* No more than the queues hold: a file written otherwise says
	 * nothing. */
	if ((int32_t)(queued - left) > 0 &&
	    queued - left <= (uint64_t)fn->chan[0].out_cap * chans * fn->n_lanes)
		lg->lost_queued = queued - left;
	/* A link it never took a frame on has nothing to say: a word would
	 * only tell the neighbour of an epoch it may never have heard. */
	for (i = 0; i < fn->n_links; i++) {
		for (k = 0; k < fn->n_vcs; k++)
			if (lg->ch[i * fn->n_vcs + k].last.arrived != 0)
				break;
		lg->pending[i] = k < fn->n_vcs;
		words += lg->pending[i];
	}
	lg->last_epoch = h.epoch;
	return (int)words;
}

int
dcn_fc_ledger_attach(struct dcn_fc_dp *dp, const char *path)
{
	struct dcn_fc_node *fn = dp->fn;
	unsigned int chans = fn->n_chans, slots = fn->n_lanes * chans, i;
	size_t size = ledger_size(fn->n_lanes, chans);
	struct dcn_fc_ledger *lg;
	struct ledger_head *h;
	struct dcn_fc_keep_tx *tx;
	int fd, words, err;

	if (fn->ledger != NULL)
		return -EEXIST;
	lg = calloc(1, sizeof(*lg) + chans * sizeof(struct ledger_chan));
	if (lg == NULL)
		return -ENOMEM;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		err = -errno;
		free(lg);
		return err;
	}
	words = read_last(fd, fn, lg);
	if (ftruncate(fd, (off_t)size) != 0) {
		err = -errno;
		close(fd);
		free(lg);
		return err;
	}
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = h == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err != 0) {
		free(lg);
		return err;
	}
	/* This incarnation's counts from now on; a kill during the reset
	 * leaves a head that names no epoch, which is not read. */
	h->epoch = 0;
	memcpy(h->out, dp->out_keep, sizeof(h->out));
	for (i = 0; i < slots; i++) {
		h->slot[i].arrived = fn->chan[i].arrived;
		h->slot[i].freed = fn->chan[i].freed;
		fn->chan[i].keep = &h->slot[i];
	}
	tx = ledger_tail(h, fn->n_lanes, chans);
	for (i = 0; i < chans; i++) {
		struct dcn_fc_chan *c = &fn->chan[i];

		tx[i] = (struct dcn_fc_keep_tx){ .sent = c->sent, .base = c->base,
						 .peer_epoch = c->peer_epoch };
		c->keep_tx = &tx[i];
	}
	dp->out_keep = h->out;
	memcpy(h->magic, LEDGER_MAGIC, sizeof(h->magic));
	h->vertex = fn->vertex;
	h->n_links = fn->n_links;
	h->n_vcs = fn->n_vcs;
	h->n_lanes = fn->n_lanes;
	h->n_workers = DCN_FC_MAX_WORKERS;
	__atomic_store_n(&h->epoch, fn->epoch, __ATOMIC_RELEASE);
	lg->head = h;
	lg->size = size;
	lg->dp = dp;
	fn->ledger = lg;
	fn->lost_queued_at_restart += lg->lost_queued;
	fn->in_doubt_at_restart += lg->in_doubt;
	return words;
}

void
dcn_fc_ledger_detach(struct dcn_fc_node *fn)
{
	struct dcn_fc_ledger *lg = fn->ledger;
	unsigned int i;

	if (lg == NULL)
		return;
	for (i = 0; i < fn->n_lanes * fn->n_chans; i++)
		fn->chan[i].keep = &fn->chan[i].keep_here;
	for (i = 0; i < fn->n_chans; i++)
		fn->chan[i].keep_tx = &fn->chan[i].keep_tx_here;
	memcpy(lg->dp->out_here, lg->head->out, sizeof(lg->dp->out_here));
	lg->dp->out_keep = lg->dp->out_here;
	munmap(lg->head, lg->size);
	free(lg);
	fn->ledger = NULL;
}

int
dcn_fc_ledger_word(const struct dcn_fc_node *fn, uint16_t link,
		   struct dcn_fc_credit *cr)
{
	const struct dcn_fc_ledger *lg = fn->ledger;
	unsigned int vc;

	if (lg == NULL || link >= fn->n_links || !lg->pending[link])
		return 0;
	memset(cr, 0, sizeof(*cr));
	cr->epoch = lg->last_epoch;
	cr->grant = fn->chan[link * fn->n_vcs].grant;
	/* The dead one repairs nothing: the neighbour is not to take back
	 * credits by time on its word; its next incarnation's first word
	 * settles the count. */
	cr->flags = DCN_FC_CREDIT_REPAIRS;
	cr->n_vcs = fn->n_vcs;
	for (vc = 0; vc < fn->n_vcs; vc++) {
		cr->freed[vc] = lg->ch[link * fn->n_vcs + vc].last.freed;
		cr->arrived[vc] = lg->ch[link * fn->n_vcs + vc].last.arrived;
	}
	return 1;
}

void
dcn_fc_ledger_word_sent(struct dcn_fc_node *fn, uint16_t link)
{
	if (fn->ledger != NULL && link < fn->n_links)
		fn->ledger->pending[link] = 0;
}

/* Have the peers of every link of port p spoken? */
static int
port_spoke(const struct dcn_fc_node *fn, const struct dcn_fc_ledger *lg, uint16_t p)
{
	unsigned int l;

	for (l = fn->port_link[p]; l < (unsigned int)fn->port_link[p] + fn->port_links[p]; l++)
		if (!lg->spoke[l])
			return 0;
	return 1;
}

void
dcn_fc_ledger_settle(struct dcn_fc_node *fn, uint16_t link, const struct dcn_fc_credit *cr)
{
	struct dcn_fc_ledger *lg = fn->ledger;
	uint32_t left_all = 0;
	unsigned int vc;
	uint16_t p;

	if (lg == NULL || link >= fn->n_links || lg->spoke[link])
		return;
	lg->spoke[link] = 1;
	p = fn->link_port[link];
	if (lg->doubt[p] == 0)
		return;
	for (vc = 0; vc < fn->n_vcs && vc < cr->n_vcs; vc++) {
		const struct dcn_fc_keep_tx *t = &lg->ch[link * fn->n_vcs + vc].tx;
		uint32_t left;

		/* A channel the dead one never had a word on sent nothing. */
		if (t->peer_epoch == 0)
			continue;
		/* The peer restarted since: its count starts over, and
		 * says nothing of the dead one's frames. */
		if (cr->epoch != t->peer_epoch) {
			lg->doubt_stuck[p] = 1;
			continue;
		}
		/* Arrived beyond what the dead one had counted sent: frames
		 * of the send it died in (no more than it was sending; fewer
		 * than none: frames lost on the way before, repaired by no
		 * word since). */
		left = cr->arrived[vc] - (t->sent - t->base);
		if ((int32_t)left > 0)
			left_all += RTE_MIN(left, lg->doubt[p] - left_all);
	}
	if (cr->n_vcs < fn->n_vcs)
		lg->doubt_stuck[p] = 1;
	lg->doubt[p] -= left_all;
	__atomic_fetch_add(&fn->in_doubt_left, left_all, __ATOMIC_RELAXED);
	if (!lg->doubt_stuck[p] && port_spoke(fn, lg, p)) {
		__atomic_fetch_add(&fn->in_doubt_lost, lg->doubt[p], __ATOMIC_RELAXED);
		lg->doubt[p] = 0;
	}
}
