/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tables published by RCU (fib.h). A publication always takes the next
 * generation: a new table may be allocated where a freed one was, so its
 * address says nothing, and lib/fwd steps the route cache's generation
 * for each one it takes.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_link

#include <errno.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "events.h"
#include "fib.h"

void
dcnfwd_fib_free(struct dcnfwd_fib *f)
{
	if (f == NULL)
		return;
	dcn_rtable_free(f->tab.tb);
	if (f->own_router)
		dcn_router_free(f->tab.r);
	dcn_topo_failset_free(f->fs);
	free(f);
}

/* The defer queue's release of a retired table (e: the pointer kept). */
static void
fib_release(void *arg, void *e, unsigned int n)
{
	struct dcnfwd_fib **f = e;
	unsigned int i;

	(void)arg;
	for (i = 0; i < n; i++)
		dcnfwd_fib_free(f[i]);
}

int
dcnfwd_fib_setup(struct dcnfwd *d)
{
	/* Readers: the workers, and telemetry (thread id n_workers). */
	size_t sz = rte_rcu_qsbr_get_memsize(d->n_workers + 1);
	struct rte_rcu_qsbr_dq_parameters dq = {
		.name = "dcn_fib",
		.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE,   /* the control thread's */
		/* A node retires at most one table a tick, and the tick
		 * reclaims: room for many ticks of every node. */
		.size = 64 * (d->n_nodes > 4 ? d->n_nodes : 4),
		.esize = sizeof(struct dcnfwd_fib *),
		.trigger_reclaim_limit = 0,
		.max_reclaim_size = 64,
		.free_fn = fib_release,
	};

	d->rcu = rte_zmalloc("dcn_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (d->rcu == NULL || rte_rcu_qsbr_init(d->rcu, d->n_workers + 1) != 0)
		return -ENOMEM;
	dq.v = d->rcu;
	d->fib_dq = rte_rcu_qsbr_dq_create(&dq);
	return d->fib_dq != NULL ? 0 : -rte_errno;
}

void
dcnfwd_fib_teardown(struct dcnfwd *d)
{
	if (d->fib_dq != NULL) {
		/* Readers have stopped (or are offline): every grace
		 * period is over, and the queue frees what it holds. */
		rte_rcu_qsbr_synchronize(d->rcu, RTE_QSBR_THRID_INVALID);
		if (rte_rcu_qsbr_dq_delete(d->fib_dq) != 0)
			DCNFWD_LOG(ERR, "retired tables still read at exit\n");
		d->fib_dq = NULL;
	}
	rte_free(d->rcu);
	d->rcu = NULL;
}

void
dcnfwd_fib_reclaim(struct dcnfwd *d)
{
	if (d->fib_dq != NULL)
		rte_rcu_qsbr_dq_reclaim(d->fib_dq, UINT32_MAX, NULL, NULL, NULL);
}

/* Vertex's table of router r (its own when own_router, with the failures
 * fs, both then the fib's) as generation gen; NULL (r and fs freed as
 * they would be with it) when memory is short. */
static struct dcnfwd_fib *
fib_make(struct dcn_router *r, int own_router, struct dcn_failset *fs,
	 uint32_t vertex, uint32_t gen)
{
	struct dcnfwd_fib *f = calloc(1, sizeof(*f));

	if (f == NULL) {
		if (own_router)
			dcn_router_free(r);
		dcn_topo_failset_free(fs);
		return NULL;
	}
	f->tab.r = r;
	f->tab.gen = gen;
	f->own_router = (uint8_t)own_router;
	f->fs = fs;
	f->tab.tb = dcn_rtable_compile(r, vertex);
	if (f->tab.tb == NULL) {
		dcnfwd_fib_free(f);
		return NULL;
	}
	return f;
}

int
dcnfwd_fib_first(struct dcnfwd *d, struct dcnfwd_node *n)
{
	n->fib = fib_make(d->r, 0, NULL, n->vertex, 1);
	return n->fib != NULL ? 0 : -ENOMEM;
}

int
dcnfwd_fib_publish(struct dcnfwd *d, uint32_t ni, struct dcn_router *r,
		   int own_router, struct dcn_failset *fs)
{
	struct dcnfwd_node *n = &d->node[ni];
	struct dcnfwd_fib *old = n->fib, *f;

	/* Never 0, which no worker's context reads as a table. */
	f = fib_make(r, own_router, fs, n->vertex,
		     old->tab.gen + 1 != 0 ? old->tab.gen + 1 : 1);
	if (f == NULL)
		return -ENOMEM;
	__atomic_store_n(&n->fib, f, __ATOMIC_RELEASE);
	if (rte_rcu_qsbr_dq_enqueue(d->fib_dq, &old) != 0) {
		/* Full even after a reclaim: readers that have not passed
		 * a quiescent point for hundreds of tables. Wait for them
		 * rather than keep this one forever. */
		rte_rcu_qsbr_synchronize(d->rcu, RTE_QSBR_THRID_INVALID);
		dcnfwd_fib_free(old);
	}
	dcnfwd_event(d, EV_TABLE, ni, -1, UINT32_MAX, 0, f->tab.gen);
	DCNFWD_LOG(DEBUG, "node %s: table %u published, %u failures known\n",
		   n->name, f->tab.gen, n->n_down);
	return 0;
}
