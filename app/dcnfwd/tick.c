/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control tick, every millisecond or so on the control thread: the
 * links and neighbours aged by their hellos, failure announcements aged
 * and sent, tables compiled again where a node's knowledge changed, and
 * old tables freed once no worker can hold them. A tick that comes late
 * (this thread or a worker not scheduled) is nobody's silence.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_link

#include "events.h"
#include "failover.h"
#include "fib.h"
#include "links.h"
#include "lsa.h"
#include "nbrs.h"
#include "setup.h"
#include "tick.h"

/* This thread could neither send nor take hellos for us microseconds,
 * up to now. */
static void
observer_away(struct dcnfwd *d, uint64_t us, uint64_t now)
{
	unsigned int i, l;

	for (i = 0; i < d->n_ports; i++)
		if (dcnfwd_port_is_fabric(&d->port[i]))
			dcn_link_observer_away(&d->port[i].link, us, now);
	for (i = 0; i < d->n_nodes; i++)
		for (l = 0; d->node[i].nbr_link != NULL && l <= d->node[i].nbrs.mask; l++)
			dcn_link_observer_away(&d->node[i].nbr_link[l], us,
					       now);
}

void
dcnfwd_tick(struct dcnfwd *d, uint64_t now)
{
	uint64_t us = dcnfwd_us_of_tsc(d, now);
	unsigned int i;
	int away = 0;

	if (d->rcu == NULL)
		return;
	/* The observer is this thread, which sends and takes hellos, and the
	 * workers, which carry them. Ticks come every millisecond or so: a
	 * longer gap is this thread away (compiling tables, or not
	 * scheduled); a worker that has not looped for longer than its
	 * longest idle sleep (twice, and a millisecond) was not scheduled
	 * either. Either way the gap is nobody's silence. */
	for (i = 0; i < d->n_workers; i++) {
		struct dcnfwd_worker *w = &d->worker[i];
		uint64_t loops = __atomic_load_n(&w->loops, __ATOMIC_RELAXED);

		if (loops != w->loops_seen) {
			w->loops_seen = loops;
			w->loops_seen_us = us;
		} else if (us - w->loops_seen_us > 2ull * d->idle_sleep_us + 1000) {
			away = 1;
		}
	}
	if (us - d->last_tick_us > d->lconf.hello_us || away)
		observer_away(d, us - d->last_tick_us, us);
	d->last_tick_us = us;
	dcnfwd_links_tick(d, now, us);
	dcnfwd_nbrs_tick(d, us);
	for (i = 0; i < d->n_nodes; i++) {
		struct dcnfwd_node *n = &d->node[i];

		dcnfwd_lsa_age(d, n, now);
		if (n->dirty) {
			n->dirty = 0;
			if (dcnfwd_failover_rebuild(d, i) != 0)
				n->dirty = 1; /* try again next tick */
		}
		if (d->lsa_hops > 0 &&
		    (n->lsa_due || (n->lsa_refresh_tsc && now >= n->lsa_refresh_tsc)))
			dcnfwd_lsa_originate(d, n, now);
	}
	dcnfwd_fib_reclaim(d);
}
