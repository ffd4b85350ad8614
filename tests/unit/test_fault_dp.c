/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault routing: the relays' data path against the model.
 *
 * For a failure, each relay's table is compiled from what it would know
 * (its own links seen down, and the announcements that reach it: those
 * of relays within dcn_route_lsa_hops over live links, relayed and kept
 * by relays that want them, dcn_route_lsa_wants) by
 * dcn_router_for_failures, as the control thread does. Every ordered
 * pair of hosts is then walked frame by frame through the relays' own
 * forwarding step (lib/fwd on mbufs): a relay's frame goes out of the
 * port its step chose, to the relay at the other end of that cable, or,
 * on a switch, to the relay whose MAC it was sent to. The model is
 * lib/route's walk with every failure known, every branch of it: a pair
 * must be delivered by the data path exactly when every branch of the
 * model delivers it (either way when the branches disagree), by a route
 * no longer than the model's longest.
 *
 * Each relay forwards as production does: with a route cache of
 * production's size, after 1,023 publications of its table (the same
 * table each time, as a freed table's address may be reused), and each
 * pair is walked again through twins of the relays without a cache:
 * both walks must cross the same relays with the same proxies.
 *
 * Failures: every single cable between routing vertices (and their L2
 * switches), every single relay, and a seeded sample of two at once, on
 * the sizes the integration tests emulate and one larger of each
 * topology. A Diamond server's own cable is its host's, not the fabric's:
 * no relay's routing changes with it, so it is not among them.
 */
#include <inttypes.h>

#include "test_common.h"
#include "test_eal.h"
#include "dcn_fwd.h"

static struct rte_mempool *mp;

#define MAX_DEG 64
#define MAX_WALK 96          /* relay hops before a walk counts as a loop */
#define CACHE_ENTRIES 1024   /* dcnfwd's default route_cache */
/* Publications of each relay's table: over a thousand, and 2^10 - 1, so
 * that a count that leaked into the cache key beside the proxy address
 * would set every bit the proxies of these plans (a /22 at most) differ
 * in, and make them share entries. */
#define SWAPS 1023

/* The MAC of vertex v's port p; the host port is p = 0xff. */
static struct rte_ether_addr
port_mac(uint32_t v, uint16_t p)
{
	struct rte_ether_addr m = { { 0x02, (uint8_t)(v >> 16), (uint8_t)(v >> 8),
				      (uint8_t)v, (uint8_t)(p >> 8), (uint8_t)p } };
	return m;
}

static void
mac_decode(const uint8_t *b, uint32_t *v, uint16_t *p)
{
	*v = (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	*p = (uint16_t)(b[4] << 8 | b[5]);
}

struct relay {
	uint32_t v;
	unsigned int deg;            /* fabric ports, local 0..deg-1 */
	struct dcn_adj adj[MAX_DEG]; /* their cables */
	uint16_t host;               /* local index of the (first) host port */
	uint16_t n_ports;            /* fabric ports, then host ports */
	uint32_t host_of[MAX_DEG];   /* Diamond: the server on each host port */
	struct dcn_failset *fs;      /* what it knows; NULL: nothing */
	struct dcn_router *r;        /* its own, or the fabric's */
	struct dcn_rtable *tb;
	struct dcn_fwd_ctx *c;       /* with a route cache, as production */
	struct dcn_fwd_ctx *plain;   /* its twin without one */
	void *cache;
	struct dcn_fwd_nbrs nbrs;
};

struct fabric {
	struct dcn_topo *t;
	struct dcn_route_conf conf;
	struct dcn_router *r0;       /* nothing failed: the model's */
	struct dcn_router *quiet;    /* a relay's that knows nothing down */
	uint32_t ns, nv, nr;
	int32_t *ridx;               /* vertex -> relay, -1 */
	struct relay *rl;
	uint32_t *hosts, nh;         /* the servers that send and receive */
	int32_t *host_relay;         /* host -> the relay it hangs off */
	int diamond;
};

/* Is v a fabric neighbour of a relay: a relay, or an L2 switch? */
static int
fabric_vertex(const struct fabric *f, uint32_t v)
{
	return dcn_topo_is_router(f->t, v) || v >= f->ns;
}

static void
fabric_open(struct fabric *f, const char *spec)
{
	char err[DCN_TOPO_ERR_LEN];
	uint32_t v;

	memset(f, 0, sizeof(*f));
	f->t = topo_or_fail(spec);
	f->conf.algo = DCN_ALGO_DEFAULT;
	f->r0 = dcn_router_create_conf(f->t, &f->conf, err, sizeof(err));
	if (f->r0 == NULL && dcn_topo_kind(f->t) == DCN_TOPO_TOTORO) {
		/* N below 2^K has no TRA: the model is TFR, as the relays'
		 * router is with nothing failed (dcn_router_for_failures). */
		f->conf.algo = DCN_ALGO_TFR;
		f->r0 = dcn_router_create_conf(f->t, &f->conf, err, sizeof(err));
	}
	if (f->r0 == NULL)
		fail_msg("%s: %s", spec, err);
	f->conf.algo = dcn_router_algo(f->r0);
	f->quiet = dcn_router_for_failures(f->t, &f->conf, NULL, err, sizeof(err));
	if (f->quiet == NULL)
		fail_msg("%s: %s", spec, err);
	f->ns = dcn_topo_servers(f->t);
	f->nv = dcn_topo_vertices(f->t);
	f->diamond = dcn_topo_kind(f->t) == DCN_TOPO_DIAMOND;
	f->ridx = malloc(f->nv * sizeof(*f->ridx));
	f->rl = calloc(f->nv, sizeof(*f->rl));
	f->hosts = malloc(f->ns * sizeof(*f->hosts));
	f->host_relay = malloc(f->ns * sizeof(*f->host_relay));
	assert_non_null(f->ridx);
	assert_non_null(f->rl);
	for (v = 0; v < f->nv; v++) {
		struct dcn_adj a[MAX_DEG];
		struct relay *x;
		unsigned int n, i;

		f->ridx[v] = -1;
		if (!dcn_topo_is_router(f->t, v))
			continue;
		f->ridx[v] = (int32_t)f->nr;
		x = &f->rl[f->nr++];
		x->v = v;
		n = dcn_topo_adj(f->t, v, a);
		assert_true(n <= MAX_DEG);
		for (i = 0; i < n; i++)
			if (fabric_vertex(f, a[i].peer))
				x->adj[x->deg++] = a[i];
	}
	for (v = 0; v < f->ns; v++) {
		struct dcn_adj a[MAX_DEG];
		uint32_t k;

		if (dcn_topo_is_router(f->t, v)) {
			f->host_relay[f->nh] = f->ridx[v];
		} else {
			/* A Diamond server: its edge switch. FAR routes by
			 * the destination's (pod, position) and the source
			 * edge's tables: one server an edge covers them all. */
			assert_int_equal(dcn_topo_adj(f->t, v, a), 1);
			for (k = 0; k < f->nh && f->host_relay[k] != f->ridx[a[0].peer]; k++)
				;
			if (k < f->nh)
				continue;
			f->host_relay[f->nh] = f->ridx[a[0].peer];
		}
		f->hosts[f->nh++] = v;
	}
}

static void
fabric_close(struct fabric *f)
{
	dcn_router_free(f->r0);
	dcn_router_free(f->quiet);
	dcn_topo_free(f->t);
	free(f->ridx);
	free(f->rl);
	free(f->hosts);
	free(f->host_relay);
}

/* --- what each relay knows of a failure --- */

/* Is the cable at port of v up in the failure F (both ends alive)? */
static int
cable_up(const struct dcn_failset *F, uint32_t v, const struct dcn_adj *a)
{
	return !dcn_topo_failset_link_down(F, v, a->port, a->peer);
}

/* z's port on switch sw, or -1. */
static int
port_on(const struct fabric *f, uint32_t z, uint32_t sw)
{
	struct dcn_adj a[MAX_DEG];
	unsigned int n = dcn_topo_adj(f->t, z, a), i;

	for (i = 0; i < n; i++)
		if (a[i].peer == sw)
			return a[i].port;
	return -1;
}

/* Can relay z hear relay y behind the same switch sw (both cables up,
 * both alive, the switch alive)? */
static int
hears_on_switch(const struct fabric *f, const struct dcn_failset *F, uint32_t y,
		uint32_t z, uint32_t sw)
{
	int py = port_on(f, y, sw), pz = port_on(f, z, sw);

	return py >= 0 && pz >= 0 &&
	       !dcn_topo_failset_link_down(F, y, (uint16_t)py, sw) &&
	       !dcn_topo_failset_link_down(F, z, (uint16_t)pz, sw);
}

/* The links relay y sees down, as it announces them (lsa.c,
 * dcnfwd_own_down): its own ports, and the neighbours it no longer hears
 * behind its switches, but for those behind a port of its own that is
 * down. */
static void
own_down(const struct fabric *f, const struct dcn_failset *F, uint32_t ri,
	 struct dcn_failset *out)
{
	const struct relay *y = &f->rl[ri];
	struct dcn_adj b[MAX_DEG];
	unsigned int i, j, n;

	for (i = 0; i < y->deg; i++) {
		const struct dcn_adj *a = &y->adj[i];

		if (!cable_up(F, y->v, a)) {
			assert_int_equal(dcn_topo_failset_add_link(out, y->v, a->port), 0);
			continue;
		}
		if (dcn_topo_is_router(f->t, a->peer))
			continue;
		/* Behind a switch: each neighbour heard, or not. */
		n = dcn_topo_adj(f->t, a->peer, b);
		for (j = 0; j < n; j++)
			if (b[j].peer != y->v && dcn_topo_is_router(f->t, b[j].peer) &&
			    !hears_on_switch(f, F, y->v, b[j].peer, a->peer))
				assert_int_equal(dcn_topo_failset_add_link(
					out, b[j].peer, b[j].peer_port), 0);
	}
}

/* Relays y reaches in one hop (a cable, or a switch it shares), alive. */
static unsigned int
live_neighbours(const struct fabric *f, const struct dcn_failset *F, uint32_t ri,
		uint32_t *out)
{
	const struct relay *y = &f->rl[ri];
	struct dcn_adj b[MAX_DEG];
	unsigned int i, j, n, k = 0;

	for (i = 0; i < y->deg; i++) {
		const struct dcn_adj *a = &y->adj[i];

		if (!cable_up(F, y->v, a))
			continue;
		if (dcn_topo_is_router(f->t, a->peer)) {
			out[k++] = (uint32_t)f->ridx[a->peer];
			continue;
		}
		n = dcn_topo_adj(f->t, a->peer, b);
		for (j = 0; j < n; j++)
			if (b[j].peer != y->v && dcn_topo_is_router(f->t, b[j].peer) &&
			    hears_on_switch(f, F, y->v, b[j].peer, a->peer))
				out[k++] = (uint32_t)f->ridx[b[j].peer];
	}
	return k;
}

static void
add_all(struct dcn_failset *to, const struct dcn_failset *from);

/*
 * Each live relay's knowledge: its own view, and the announcement of
 * every relay whose flood reaches it: over live relay-to-relay hops, at
 * most dcn_route_lsa_hops of them (one at least: a flood always leaves
 * its origin), passed on only by relays that want it, kept by those
 * that want it. An announcement listing a link the receiver itself sees
 * up is refused whole (lsa.c, seen_up).
 */
static void
knowledge(struct fabric *f, const struct dcn_failset *F)
{
	unsigned int hops = dcn_route_lsa_hops(f->quiet);
	struct dcn_failset **own = calloc(f->nr, sizeof(*own));
	uint32_t *dist = malloc(f->nr * sizeof(*dist));
	uint32_t *queue = malloc(f->nr * sizeof(*queue));
	uint32_t nb[4 * MAX_DEG * 8], i, o;

	assert_non_null(own);
	if (hops == 0)
		hops = 1;
	for (i = 0; i < f->nr; i++) {
		f->rl[i].fs = NULL;
		if (dcn_topo_failset_vertex_down(F, f->rl[i].v))
			continue;
		own[i] = dcn_topo_failset_create(f->t);
		own_down(f, F, i, own[i]);
	}
	for (i = 0; i < f->nr; i++)
		if (own[i] != NULL) {
			f->rl[i].fs = dcn_topo_failset_create(f->t);
			add_all(f->rl[i].fs, own[i]);
		}
	for (o = 0; o < f->nr; o++) {
		uint32_t head = 0, tail = 0;

		if (own[o] == NULL || dcn_topo_failset_empty(own[o]))
			continue;
		for (i = 0; i < f->nr; i++)
			dist[i] = UINT32_MAX;
		dist[o] = 0;
		queue[tail++] = o;
		while (head < tail) {
			uint32_t y = queue[head++], k, m;

			/* The origin floods; others pass on what they want. */
			if (dist[y] >= hops ||
			    (y != o && !dcn_route_lsa_wants(f->quiet, f->rl[y].v, f->rl[o].v)))
				continue;
			m = live_neighbours(f, F, y, nb);
			for (k = 0; k < m; k++) {
				uint32_t z = nb[k];

				if (dist[z] != UINT32_MAX)
					continue;
				dist[z] = dist[y] + 1;
				queue[tail++] = z;
			}
		}
		for (i = 0; i < f->nr; i++) {
			if (i == o || dist[i] == UINT32_MAX || own[i] == NULL ||
			    !dcn_route_lsa_wants(f->quiet, f->rl[i].v, f->rl[o].v))
				continue;
			/* Refused whole when it contradicts i's own view: a
			 * link it lists that i sees up (i's cables, or a
			 * neighbour i still hears). */
			{
				struct dcn_failset *ob = own[o];
				int contradicted = 0;
				struct relay *x = &f->rl[i];
				unsigned int p, j, n;
				struct dcn_adj b[MAX_DEG];

				for (p = 0; p < x->deg && !contradicted; p++) {
					const struct dcn_adj *a = &x->adj[p];

					if (dcn_topo_failset_link_down(ob, x->v, a->port, a->peer) &&
					    !dcn_topo_failset_link_down(own[i], x->v, a->port, a->peer))
						contradicted = 1;
					if (dcn_topo_is_router(f->t, a->peer) || contradicted)
						continue;
					n = dcn_topo_adj(f->t, a->peer, b);
					for (j = 0; j < n && !contradicted; j++)
						if (b[j].peer != x->v &&
						    dcn_topo_is_router(f->t, b[j].peer) &&
						    dcn_topo_failset_link_down(ob, b[j].peer,
									   b[j].peer_port, a->peer) &&
						    hears_on_switch(f, F, x->v, b[j].peer, a->peer))
							contradicted = 1;
				}
				if (!contradicted)
					add_all(x->fs, ob);
			}
		}
	}
	for (i = 0; i < f->nr; i++)
		dcn_topo_failset_free(own[i]);
	free(own);
	free(dist);
	free(queue);
}

struct copy_arg {
	struct dcn_failset *to;
};

static void
copy_link(uint32_t v, uint16_t port, void *arg)
{
	struct copy_arg *c = arg;

	assert_int_equal(dcn_topo_failset_add_link(c->to, v, port), 0);
}

static void
add_all(struct dcn_failset *to, const struct dcn_failset *from)
{
	struct copy_arg c = { to };
	uint32_t v, n = dcn_topo_vertices(dcn_topo_failset_topo(from));

	dcn_topo_failset_foreach_link(from, copy_link, &c);
	for (v = 0; v < n; v++)
		if (dcn_topo_failset_vertex_down(from, v))
			dcn_topo_failset_add_vertex(to, v);
}

/* --- each relay's table and forwarding context --- */

/* A forwarding context of relay x on its table, its ports (their links
 * as the failure F leaves them) and, in Diamond, its servers' ports. */
static struct dcn_fwd_ctx *
relay_ctx(const struct fabric *f, const struct dcn_failset *F, struct relay *x)
{
	struct dcn_fwd_ctx *c = calloc(1, sizeof(*c));
	unsigned int p;

	assert_non_null(c);
	assert_int_equal(dcn_fwd_init(c, x->r, x->tb, DCN_FABRIC_ETHERTYPE, 0), 0);
	/* As with flow control: a frame that bounces twice is held. In a
	 * settled fabric none is (dp_walk counts one as a loop). */
	c->park = 1;
	for (p = 0; p < x->deg; p++) {
		struct rte_ether_addr m = port_mac(x->v, x->adj[p].port);

		assert_int_equal(dcn_fwd_add_port(c, x->adj[p].port, 0, &m), (int)p);
		if (dcn_topo_is_router(f->t, x->adj[p].peer)) {
			struct rte_ether_addr pm = port_mac(x->adj[p].peer,
							    x->adj[p].peer_port);

			dcn_fwd_set_peer_mac(c, (uint16_t)p, &pm);
		}
		/* Its own cable down, or the relay at its end dead:
		 * the port's link is down. */
		if (!cable_up(F, x->v, &x->adj[p]))
			dcn_fwd_set_port_down(c, (uint16_t)p, 1);
	}

	if (f->diamond) {
		/* An edge switch's servers, each on a host port of its own
		 * cable (conf/diamond-edge.ini). */
		struct dcn_adj a[MAX_DEG];
		unsigned int n = dcn_topo_adj(f->t, x->v, a), k;

		x->host = (uint16_t)x->deg;
		x->n_ports = (uint16_t)x->deg;
		for (k = 0; k < n; k++) {
			struct rte_ether_addr hm = port_mac(x->v, a[k].port);

			if (fabric_vertex(f, a[k].peer))
				continue;
			x->host_of[x->n_ports - x->deg] = a[k].peer;
			assert_int_equal(dcn_fwd_add_port(c, a[k].port, 1, &hm), x->n_ports);
			x->n_ports++;
		}
	} else {
		struct rte_ether_addr hm = port_mac(x->v, 0xff);

		x->host = (uint16_t)dcn_fwd_add_port(c, -1, 1, &hm);
		x->n_ports = (uint16_t)(x->host + 1);
	}
	return c;
}

static void
relays_build(struct fabric *f, const struct dcn_failset *F)
{
	char err[DCN_TOPO_ERR_LEN];
	uint32_t i;

	knowledge(f, F);
	for (i = 0; i < f->nr; i++) {
		struct relay *x = &f->rl[i];
		struct dcn_fwd_table pub;
		unsigned int s;
		uint32_t g;

		x->r = NULL;
		x->tb = NULL;
		x->c = NULL;
		x->plain = NULL;
		x->cache = NULL;
		if (x->fs == NULL)
			continue;          /* dead */
		if (dcn_topo_failset_empty(x->fs)) {
			x->r = f->quiet;
		} else {
			x->r = dcn_router_for_failures(f->t, &f->conf, x->fs, err,
						       sizeof(err));
			if (x->r == NULL)
				fail_msg("%s: relay #%u: %s", dcn_topo_spec(f->t), x->v, err);
		}
		x->tb = dcn_rtable_compile(x->r, x->v);
		assert_non_null(x->tb);
		x->c = relay_ctx(f, F, x);
		x->plain = relay_ctx(f, F, x);
		memset(&x->nbrs, 0, sizeof(x->nbrs));
		assert_int_equal(dcn_fwd_nbrs_init(&x->nbrs, f->t, x->v), 0);
		for (s = 0; x->nbrs.slot != NULL && s <= x->nbrs.mask; s++) {
			struct dcn_fwd_nbr *e = &x->nbrs.slot[s];
			int64_t sw;
			int zp;

			if (e->vertex == DCN_FWD_NBR_EMPTY)
				continue;
			sw = dcn_topo_port_peer(f->t, x->v, e->fabric_port);
			zp = port_on(f, e->vertex, (uint32_t)sw);
			if (hears_on_switch(f, F, x->v, e->vertex, (uint32_t)sw)) {
				struct rte_ether_addr zm = port_mac(e->vertex, (uint16_t)zp);

				dcn_fwd_nbr_set_mac(e, &zm);
			} else {
				e->down = 1;
			}
		}
		if (x->nbrs.slot != NULL) {
			dcn_fwd_set_nbrs(x->c, &x->nbrs);
			dcn_fwd_set_nbrs(x->plain, &x->nbrs);
		}
		/* The production context: a cache, and its table published
		 * SWAPS times over, the generation stepped each time. */
		x->cache = malloc(dcn_fwd_cache_bytes(CACHE_ENTRIES));
		assert_non_null(x->cache);
		assert_int_equal(dcn_fwd_set_cache(x->c, x->cache, CACHE_ENTRIES), 0);
		pub = (struct dcn_fwd_table){ x->r, x->tb, 0 };
		for (g = 1; g <= SWAPS; g++) {
			pub.gen = g;
			dcn_fwd_refresh(x->c, &pub);
		}
		/* Long since: the fabric has settled, no news is fresh. */
		x->c->news_tsc = 0;
		x->plain->news_tsc = 0;
	}
}

static void
relays_free(struct fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->nr; i++) {
		struct relay *x = &f->rl[i];

		if (x->r != NULL && x->r != f->quiet)
			dcn_router_free(x->r);
		dcn_rtable_free(x->tb);
		free(x->c);
		free(x->plain);
		free(x->cache);
		dcn_fwd_nbrs_free(&x->nbrs);
		dcn_topo_failset_free(x->fs);
		x->r = NULL;
		x->tb = NULL;
		x->c = NULL;
		x->plain = NULL;
		x->cache = NULL;
		x->fs = NULL;
	}
}

/* --- a frame walked through the relays --- */

/* Ethernet | IPv4/UDP from src to dst, 60 bytes. */
static struct rte_mbuf *
host_packet(uint32_t src, uint32_t dst, uint16_t sport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;
	uint16_t c;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, 60);
	memset(p, 0, 60);
	p[12] = 0x08;
	p[14] = 0x45;
	p[17] = 46;
	p[22] = 64;
	p[23] = 17;
	dcn_fabric_put32(p + 26, src);
	dcn_fabric_put32(p + 30, dst);
	p[34] = (uint8_t)(sport >> 8);
	p[35] = (uint8_t)sport;
	c = dcn_ipv4_cksum(p + 14, 5);
	p[24] = (uint8_t)(c >> 8);
	p[25] = (uint8_t)c;
	return m;
}

struct dp_result {
	int delivered;
	unsigned int links;          /* cables crossed */
	enum dcn_drop_reason why;    /* when not delivered */
	uint32_t at;                 /* vertex where it ended */
	uint64_t path;               /* hash of each relay, port and proxy */
};

/* The reason a relay's step just dropped a frame for. */
static enum dcn_drop_reason
dropped_for(const struct dcn_fwd_stats *before, const struct dcn_fwd_stats *after)
{
	unsigned int r;

	for (r = 1; r < DCN_DROP_MAX; r++)
		if (after->drop[r] != before->drop[r])
			return (enum dcn_drop_reason)r;
	return DCN_DROP_NONE;
}

/* The relays' contexts a walk takes: production's (a route cache), or
 * their twins without one. */
static struct dcn_fwd_ctx *
walk_ctx(const struct relay *x, int plain)
{
	return plain ? x->plain : x->c;
}

/* trace, when given, gets the relays the frame went through, each with
 * the proxy its header carried out of there. */
static struct dp_result
dp_walk(const struct fabric *f, uint32_t hs, uint32_t hd, uint16_t sport,
	int plain, char *trace, size_t trace_len)
{
	struct dp_result res = { 0, 0, DCN_DROP_NONE, 0, 0 };
	uint32_t src = f->hosts[hs], dst = f->hosts[hd];
	const struct relay *x = &f->rl[f->host_relay[hs]];
	struct rte_mbuf *m;
	uint16_t in, out;
	unsigned int hops;

	if (x->c == NULL) {
		res.why = DCN_DROP_LINK_DOWN;
		res.at = x->v;
		return res;
	}
	m = host_packet(dcn_topo_addr(f->t, src), dcn_topo_addr(f->t, dst), sport);
	in = x->host;
	if (f->diamond)
		while (x->host_of[in - x->deg] != src)
			in++;
	res.links = f->diamond ? 1 : 0;   /* the server's own cable */
	for (hops = 0; hops < MAX_WALK; hops++) {
		struct dcn_fwd_ctx *c = walk_ctx(x, plain);
		struct dcn_fwd_stats st0 = c->st;
		const struct dcn_adj *a;
		const uint8_t *hdr;

		if (dcn_fwd_burst(c, in, &m, 1, &out) == 0) {
			res.why = dropped_for(&st0, &c->st);
			res.at = x->v;
			return res;
		}
		if (out == DCN_FWD_PARK) {
			/* Held as bouncing between relays whose tables
			 * disagree, while they agree: a loop the model would
			 * not take, counted as one. */
			rte_pktmbuf_free(m);
			res.why = DCN_DROP_LOOP;
			res.at = x->v;
			return res;
		}
		hdr = rte_pktmbuf_mtod(m, const uint8_t *);
		res.path = (res.path ^ ((uint64_t)x->v << 16 | out)) * 0x100000001b3ull;
		if (!f->diamond && out < x->host)
			res.path = (res.path ^ dcn_fabric_get32(hdr + 30)) * 0x100000001b3ull;
		if (trace != NULL) {
			char name[64], px[24] = "";
			size_t used = strlen(trace);
			const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

			if (!f->diamond && out < x->host && dcn_fabric_get32(p + 30) != 0)
				dcn_topo_format_addr(dcn_fabric_get32(p + 30), px, sizeof(px));
			dcn_topo_format_vertex(f->t, x->v, name, sizeof(name));
			snprintf(trace + used, trace_len - used, "%s%s%s%s", used ? " " : "",
				 name, px[0] ? " proxy " : "", px);
		}
		if (out >= x->host) {
			rte_pktmbuf_free(m);
			res.at = x->v;
			/* Out to its host: the right relay (Diamond: the
			 * right server's cable, one link more). */
			res.delivered = f->diamond ? x->host_of[out - x->deg] == dst :
				(uint32_t)f->host_relay[hd] == (uint32_t)(x - f->rl);
			if (f->diamond)
				res.links++;
			return res;
		}
		a = &x->adj[out];
		if (dcn_topo_is_router(f->t, a->peer)) {
			const struct relay *y = &f->rl[f->ridx[a->peer]];
			unsigned int k;

			res.links++;
			for (k = 0; k < y->deg && y->adj[k].port != a->peer_port; k++)
				;
			x = y;
			in = (uint16_t)k;
		} else {
			/* A switch delivers by destination MAC. */
			const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
			uint32_t z;
			uint16_t zp;
			unsigned int k;

			mac_decode(p, &z, &zp);
			res.links += 2;
			if (z >= f->nv || f->ridx[z] < 0 || port_on(f, z, a->peer) != zp) {
				res.why = DCN_DROP_NO_NEIGHBOUR;
				res.at = x->v;
				rte_pktmbuf_free(m);
				return res;
			}
			x = &f->rl[f->ridx[z]];
			for (k = 0; k < x->deg && x->adj[k].port != zp; k++)
				;
			in = (uint16_t)k;
		}
		if (x->c == NULL) {
			res.why = DCN_DROP_LINK_DOWN;   /* sent to a dead relay */
			res.at = x->v;
			rte_pktmbuf_free(m);
			return res;
		}
	}
	rte_pktmbuf_free(m);
	res.why = DCN_DROP_TOO_LONG;
	res.at = x->v;
	return res;
}

/* --- the model: every branch of lib/route's walk --- */

struct model_result {
	int all;                /* every branch delivers */
	int any;                /* some branch does */
	unsigned int longest;   /* links, over delivering branches */
};

/* Explored (vertex, state) of the pair under way, with what is left. */
struct memo_entry {
	uint32_t v;
	struct dcn_route_state st;
	struct model_result left;
	uint32_t gen;           /* the pair it was explored for */
};

#define MEMO_SLOTS 4096

struct model {
	const struct fabric *f;
	const struct dcn_router *r;
	uint32_t target;
	struct memo_entry *memo;
	uint32_t gen;
};

static uint32_t
memo_hash(uint32_t v, const struct dcn_route_state *st)
{
	const uint8_t *b = (const uint8_t *)st;
	uint32_t h = v * 2654435761u;
	size_t i;

	for (i = 0; i < sizeof(*st); i++)
		h = (h ^ b[i]) * 16777619u;
	return h & (MEMO_SLOTS - 1);
}

static struct model_result
explore(struct model *mo, uint32_t cur, const struct dcn_route_state *st,
	unsigned int depth)
{
	struct model_result res = { 1, 0, 0 }, sub;
	struct dcn_hop h[DCN_ROUTE_MAX_HOPS];
	uint32_t slot = memo_hash(cur, st), probe;
	unsigned int n, i;

	if (cur == mo->target)
		return (struct model_result){ 1, 1, 0 };
	for (probe = 0; probe < 8; probe++) {
		struct memo_entry *e = &mo->memo[(slot + probe) & (MEMO_SLOTS - 1)];

		if (e->gen != mo->gen)
			break;
		if (e->v == cur && memcmp(&e->st, st, sizeof(*st)) == 0)
			return e->left;
	}
	if (depth >= MAX_WALK || st->ttl == 0)
		return (struct model_result){ 0, 0, 0 };
	n = dcn_route_candidates(mo->r, cur, mo->target, st, h);
	if (n == 0)
		res.all = 0;
	for (i = 0; i < n; i++) {
		struct dcn_route_state next = *st;
		struct dcn_path_len acc = { 0, 0, 0 };

		dcn_route_advance(mo->r, cur, &h[i], &next);
		if (next.vc == DCN_VC_SPENT) {
			res.all = 0;
			continue;
		}
		dcn_route_hop_len(mo->f->t, &h[i], &acc);
		sub = explore(mo, h[i].next, &next, depth + 1);
		res.all &= sub.all;
		if (sub.any) {
			res.any = 1;
			if (sub.longest + acc.links > res.longest)
				res.longest = sub.longest + acc.links;
		}
	}
	for (probe = 0; probe < 8; probe++) {
		struct memo_entry *e = &mo->memo[(slot + probe) & (MEMO_SLOTS - 1)];

		if (e->gen == mo->gen)
			continue;
		e->gen = mo->gen;
		e->v = cur;
		e->st = *st;
		e->left = res;
		break;
	}
	return res;
}

/* memo is reused pair after pair: an entry counts for the pair whose
 * generation it carries (gen, never 0). */
static struct model_result
model_walk(const struct fabric *f, const struct dcn_router *r, uint32_t src,
	   uint32_t dst, struct memo_entry *memo, uint32_t gen)
{
	struct model mo = { f, r, dcn_route_resolve(r, dst), memo, gen };
	struct dcn_route_state st;

	if (mo.target == DCN_ROUTE_NONE || !dcn_route_server_up(r, src))
		return (struct model_result){ 0, 0, 0 };
	dcn_route_state_init(r, src, dst, &st);
	return explore(&mo, src, &st, 0);
}

/* --- one failure, every pair --- */

struct tally {
	uint64_t scenarios, pairs, delivered, undelivered, mismatched;
	uint64_t cache_unlike;  /* walks the route cache changed */
	char first[1024];
	char first_cache[1024];
};

static void
check_failure(struct fabric *f, const struct dcn_failset *F, const char *what,
	      struct tally *ty)
{
	struct dcn_failset *Fm = dcn_topo_failset_create(f->t);
	struct dcn_router *rm;
	struct memo_entry *memo = calloc(MEMO_SLOTS, sizeof(*memo));
	char err[DCN_TOPO_ERR_LEN];
	uint32_t s, d;
	unsigned int base = rte_mempool_in_use_count(mp);

	assert_non_null(memo);
	add_all(Fm, F);
	rm = dcn_topo_failset_empty(Fm) ? f->r0 :
	     dcn_router_for_failures(f->t, &f->conf, Fm, err, sizeof(err));
	if (rm == NULL)
		fail_msg("%s: %s: %s", dcn_topo_spec(f->t), what, err);
	relays_build(f, F);
	ty->scenarios++;
	for (s = 0; s < f->nh; s++) {
		for (d = 0; d < f->nh; d++) {
			struct model_result mr;
			struct dp_result dr, pr;
			int bad;

			if (s == d)
				continue;
			mr = model_walk(f, rm, f->hosts[s], f->hosts[d], memo,
					(uint32_t)(s * f->nh + d + 1));
			dr = dp_walk(f, s, d, (uint16_t)(1000 + s * 7 + d), 0, NULL, 0);
			pr = dp_walk(f, s, d, (uint16_t)(1000 + s * 7 + d), 1, NULL, 0);
			if ((dr.delivered != pr.delivered || dr.links != pr.links ||
			     dr.why != pr.why || dr.at != pr.at || dr.path != pr.path) &&
			    ty->cache_unlike++ == 0) {
				char sn[64], dn[64], t1[256] = "", t2[256] = "";

				dcn_topo_format_vertex(f->t, f->hosts[s], sn, sizeof(sn));
				dcn_topo_format_vertex(f->t, f->hosts[d], dn, sizeof(dn));
				dp_walk(f, s, d, (uint16_t)(1000 + s * 7 + d), 0, t1, sizeof(t1));
				dp_walk(f, s, d, (uint16_t)(1000 + s * 7 + d), 1, t2, sizeof(t2));
				snprintf(ty->first_cache, sizeof(ty->first_cache),
					 "%s, %s: %s -> %s: with the route cache: %s; "
					 "without: %s", dcn_topo_spec(f->t), what, sn, dn, t1, t2);
			}
			ty->pairs++;
			if (dr.delivered)
				ty->delivered++;
			else
				ty->undelivered++;
			bad = (mr.all && !dr.delivered) || (!mr.any && dr.delivered) ||
			      (dr.delivered && mr.any && dr.links > mr.longest);
			if (bad && ty->mismatched++ == 0) {
				char sn[64], dn[64], an[64], trace[256] = "";
				size_t len;

				dcn_topo_format_vertex(f->t, f->hosts[s], sn, sizeof(sn));
				dcn_topo_format_vertex(f->t, f->hosts[d], dn, sizeof(dn));
				dcn_topo_format_vertex(f->t, dr.at, an, sizeof(an));
				snprintf(ty->first, sizeof(ty->first),
					 "%s, %s: %s -> %s: model %s (longest %u links), "
					 "data path %s (%u links, %s at %s)",
					 dcn_topo_spec(f->t), what, sn, dn,
					 mr.all ? "delivers" : mr.any ? "delivers on some branches" :
					 "drops", mr.longest,
					 dr.delivered ? "delivers" : "drops", dr.links,
					 dr.delivered ? "out" : dcn_drop_name(dr.why), an);
				dp_walk(f, s, d, (uint16_t)(1000 + s * 7 + d), 0, trace,
					sizeof(trace));
				len = strlen(ty->first);
				snprintf(ty->first + len, sizeof(ty->first) - len,
					 "; its relays: %s", trace);
			}
		}
	}
	relays_free(f);
	if (rm != f->r0)
		dcn_router_free(rm);
	dcn_topo_failset_free(Fm);
	free(memo);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
}

/* Every single cable (between relays, or a relay and its switch), every
 * single relay, and `doubles` seeded pairs of either. */
static void
check_fabric(const char *spec, unsigned int doubles, struct tally *ty)
{
	struct fabric f;
	uint32_t (*items)[2];
	uint32_t n = 0, i, v;
	uint64_t rng = 0x5eed;
	char what[96];

	fabric_open(&f, spec);
	items = malloc((size_t)(f.nv * MAX_DEG + f.nv) * sizeof(*items));
	assert_non_null(items);
	for (v = 0; v < f.nv; v++) {
		struct dcn_adj a[MAX_DEG];
		unsigned int k, m;

		if (!dcn_topo_is_router(f.t, v))
			continue;
		items[n][0] = v;            /* the relay */
		items[n++][1] = UINT32_MAX;
		m = dcn_topo_adj(f.t, v, a);
		for (k = 0; k < m; k++)
			/* Each cable once: from its relay end with the lower
			 * number, or its one relay end. */
			if (fabric_vertex(&f, a[k].peer) &&
			    (!dcn_topo_is_router(f.t, a[k].peer) || a[k].peer > v)) {
				items[n][0] = v;
				items[n++][1] = a[k].port;
			}
	}
	{
		struct dcn_failset *F = dcn_topo_failset_create(f.t);

		check_failure(&f, F, "nothing failed", ty);
		dcn_topo_failset_free(F);
	}
	for (i = 0; i < n + doubles; i++) {
		struct dcn_failset *F = dcn_topo_failset_create(f.t);
		uint32_t pick[2], k, cnt = i < n ? 1 : 2;
		size_t len = 0;

		pick[0] = i < n ? i : (uint32_t)(dcn_rand(&rng) >> 32) % n;
		pick[1] = (uint32_t)(dcn_rand(&rng) >> 32) % n;
		for (k = 0; k < cnt; k++) {
			char name[64];

			dcn_topo_format_vertex(f.t, items[pick[k]][0], name, sizeof(name));
			if (items[pick[k]][1] == UINT32_MAX) {
				dcn_topo_failset_add_vertex(F, items[pick[k]][0]);
				len += (size_t)snprintf(what + len, sizeof(what) - len,
							"%s%s down", k ? " and " : "", name);
			} else {
				assert_int_equal(dcn_topo_failset_add_link(F, items[pick[k]][0],
									   (uint16_t)items[pick[k]][1]), 0);
				len += (size_t)snprintf(what + len, sizeof(what) - len,
							"%s%s:%u cut", k ? " and " : "", name,
							items[pick[k]][1]);
			}
		}
		check_failure(&f, F, what, ty);
		dcn_topo_failset_free(F);
	}
	free(items);
	fabric_close(&f);
}

static void
run_specs(const char *const *specs, unsigned int n, unsigned int doubles)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct tally ty;

		memset(&ty, 0, sizeof(ty));
		check_fabric(specs[i], doubles, &ty);
		printf("%-22s %4" PRIu64 " failures, %8" PRIu64 " pairs walked: %8"
		       PRIu64 " delivered, %6" PRIu64 " not, %" PRIu64 " unlike the model, %"
		       PRIu64 " unlike without the cache\n",
		       specs[i], ty.scenarios, ty.pairs, ty.delivered, ty.undelivered,
		       ty.mismatched, ty.cache_unlike);
		if (ty.cache_unlike)
			fail_msg("%" PRIu64 " walks changed by the route cache; the first: %s",
				 ty.cache_unlike, ty.first_cache);
		if (ty.mismatched)
			fail_msg("%" PRIu64 " pairs unlike the model; the first: %s",
				 ty.mismatched, ty.first);
	}
}

/* The sizes the integration tests emulate. */
static void
test_emulated_sizes(void **state)
{
	static const char *const specs[] = {
		"novacube:k=4,n=2", "diamond:k=4", "rrect:n=2,m=2,k=1",
		"lascada:n=2,k=2", "totoro:N=4,n=4,K=1",
	};

	(void)state;
	run_specs(specs, RTE_DIM(specs), 40);
}

/* Any fabrics named on the command line (test_fault_dp SPEC...), with
 * 20 doubles each: the suite's larger ones (tests/meson.build), or a run
 * of one's own. */
static const char *const *argv_specs;
static unsigned int argv_n;

static void
test_named(void **state)
{
	(void)state;
	run_specs(argv_specs, argv_n, 20);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_emulated_sizes),
	};
	const struct CMUnitTest named[] = {
		cmocka_unit_test(test_named),
	};
	int ret;

	ret = test_eal_start(argv[0], "fault-dp", 1024, &mp);
	if (ret != 0)
		return ret;
	if (argc > 1) {
		argv_specs = (const char *const *)argv + 1;
		argv_n = (unsigned int)argc - 1;
		ret = cmocka_run_group_tests(named, NULL, NULL);
	} else {
		ret = cmocka_run_group_tests(tests, NULL, NULL);
	}
	test_eal_stop(mp);
	return ret;
}
