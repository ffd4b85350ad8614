/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry under /dcn/ (DPDK's dpdk-telemetry.py, or tools/dcn-telemetry):
 * the commands are in dcnfwd_tel_cmds at the end of this file. A NODE
 * parameter (a fabric address or the paper's notation) defaults to the
 * first node, the only one outside emulation; one that names no node,
 * or a malformed address, is answered {"error": "..."}.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "dcnfwd.h"

/*
 * Telemetry handlers run on DPDK's telemetry threads (one per client),
 * beside the workers and the control thread. They read only what lives
 * as long as the process (between dcnfwd_telemetry_open and _close,
 * under tel_lock) and take a node's table under RCU, as workers do: the
 * control thread frees a replaced table only once every registered
 * reader has been quiescent since.
 */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static int tel_live;

void
dcnfwd_telemetry_open(struct dcnfwd *d)
{
	pthread_mutex_lock(&tel_lock);
	rte_rcu_qsbr_thread_register(d->rcu, d->n_workers);
	tel_live = 1;
	pthread_mutex_unlock(&tel_lock);
}

void
dcnfwd_telemetry_close(struct dcnfwd *d)
{
	pthread_mutex_lock(&tel_lock);
	if (tel_live)
		rte_rcu_qsbr_thread_unregister(d->rcu, d->n_workers);
	tel_live = 0;
	pthread_mutex_unlock(&tel_lock);
}

/*
 * A dict key from a name. DPDK 22.11 takes letters, digits and '_' in
 * keys (and '/'), and refuses the whole entry otherwise: every run of
 * other characters becomes one '_', and none leads or trails
 * ("(0,0):3" is "0_0_3").
 */
const char *
dcnfwd_tel_key(const char *name, char *buf, size_t len)
{
	size_t i = 0;
	int gap = 0;

	for (; *name != '\0' && i + 1 < len; name++) {
		char c = *name;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_') {
			if (gap && i > 0 && i + 2 < len)
				buf[i++] = '_';
			gap = 0;
			buf[i++] = c;
		} else {
			gap = 1;
		}
	}
	if (i == 0)
		buf[i++] = '_';
	buf[i] = '\0';
	return buf;
}

/* Every rte_tel_data_* call is checked: an entry DPDK refuses makes the
 * handler answer an error, not a reply that silently lacks it. */
#define TEL_TRY(expr) do { if ((expr) < 0) return -1; } while (0)

/* Add container e under key name, or free it. */
static int
tel_add_container(struct rte_tel_data *t, const char *name,
		  struct rte_tel_data *e)
{
	char key[RTE_TEL_MAX_STRING_LEN];

	if (rte_tel_data_add_dict_container(t, dcnfwd_tel_key(name, key, sizeof(key)),
					    e, 0) < 0) {
		rte_tel_data_free(e);
		return -1;
	}
	return 0;
}

/* An invalid parameter is answered, so a client sees why. */
__attribute__((format(printf, 2, 3)))
static int
tel_error(struct rte_tel_data *t, const char *fmt, ...)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_string(t, "error", msg));
	return 0;
}

static int
find_node(const struct dcnfwd *d, const char *s, size_t len)
{
	char buf[64];
	int64_t v;

	if (len == 0)
		return d->n_nodes ? 0 : -1;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = dcn_topo_parse_vertex(d->t, buf, NULL, 0);
	if (v < 0 || d->node_of_vertex[v] == UINT32_MAX)
		return -1;
	return (int)d->node_of_vertex[v];
}

/* The node a command's whole parameter names (none: the first). */
static int
node_param(const struct dcnfwd *d, const char *params)
{
	return find_node(d, params, params != NULL ? strlen(params) : 0);
}

static int
no_node(struct rte_tel_data *t, const char *params)
{
	return tel_error(t, "no node '%.64s' here: give a node this process "
			 "runs, in the paper's notation or as its address", params);
}

/*
 * Run handler h for a command under tel_lock, once the process is up and
 * until it goes down; a node parameter that names no node is answered
 * as an error.
 */
typedef int (*tel_fn)(const struct dcnfwd *d, const char *params,
		      struct rte_tel_data *t);

static int
tel_run(tel_fn h, const char *params, struct rte_tel_data *t)
{
	int ret;

	pthread_mutex_lock(&tel_lock);
	if (!tel_live)
		ret = tel_error(t, "dcnfwd is starting or stopping");
	else
		ret = h(&dcnfwd_g, params, t);
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

#define TEL_CMD(name) \
static int name##_do(const struct dcnfwd *d, const char *params, \
		     struct rte_tel_data *t); \
static int \
name(const char *cmd, const char *params, struct rte_tel_data *t) \
{ \
	(void)cmd; \
	return tel_run(name##_do, params, t); \
}

TEL_CMD(tel_stats)
static int
tel_stats_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	struct dcn_fwd_stats all;
	struct rte_tel_data *drops;
	uint64_t tx = 0, rx = 0, tx_drop = 0, refused = 0, hellos = 0;
	uint64_t ctl_drop = 0, sw_fwd = 0, sw_flood = 0, sleeps = 0;
	struct dcnfwd_loop_totals lt;
	struct dcnfwd_drops dr;
	unsigned int i, r;

	(void)params;
	dcnfwd_node_totals(d, DCNFWD_ALL_NODES, &all);
	for (i = 0; i < d->n_workers; i++) {
		const struct dcnfwd_worker *w = &d->worker[i];

		ctl_drop += w->ctl_drop;
		sw_fwd += w->sw_forwarded;
		sw_flood += w->sw_flooded;
		sleeps += w->idle_sleeps;
	}
	dcnfwd_loop_totals(d, &lt);
	for (i = 0; i < d->n_ports; i++) {
		struct dcnfwd_port_stats ps;

		dcnfwd_port_totals(d, i, &ps);
		rx += ps.rx;
		tx += ps.tx;
		tx_drop += ps.tx_drop;
		refused += d->port[i].hello_refused;
		hellos += d->port[i].hello_rx;
	}
	dcnfwd_drop_totals(d, &dr);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_string(t, "topology", dcn_topo_spec(d->t)));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "nodes", d->n_nodes));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "ports", d->n_ports));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "port_rx", rx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "port_tx", tx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "port_tx_drop", tx_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "fwd_rx", all.rx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "encap", all.encap));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "transit", all.transit));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "decap", all.decap));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "control", all.control));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "hello_rx", hellos));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "hello_refused", refused));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "control_ring_drop", ctl_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "flow_control", (uint64_t)d->fc_on));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "fabric_drops", dr.fabric));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "ingress_drops", dr.ingress));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "credit_frames_tx", dr.credit_tx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "credit_frames_lost", dr.credit_lost));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "credit_stalls", dr.stalls));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_loops", lt.loops));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_busy_loops", lt.busy_loops));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_busy_cycles", lt.busy_tsc));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "worker_idle_sleeps", sleeps));
	if (d->n_switches) {
		TEL_TRY(rte_tel_data_add_dict_u64(t, "emulated_switch_forwarded", sw_fwd));
		TEL_TRY(rte_tel_data_add_dict_u64(t, "emulated_switch_flooded", sw_flood));
	}
	drops = rte_tel_data_alloc();
	if (drops == NULL)
		return -1;
	rte_tel_data_start_dict(drops);
	for (r = 1; r < DCN_DROP_MAX; r++)
		if (rte_tel_data_add_dict_u64(drops, dcn_drop_name(r), all.drop[r]) < 0) {
			rte_tel_data_free(drops);
			return -1;
		}
	return tel_add_container(t, "drop", drops);
}

static int
port_entry(const struct dcnfwd *d, uint32_t ni, uint16_t l, struct rte_tel_data *e)
{
	const struct dcnfwd_port *p = &d->port[d->node[ni].port[l]];
	struct dcnfwd_port_stats ps;

	dcnfwd_port_totals(d, d->node[ni].port[l], &ps);
	rte_tel_data_start_dict(e);
	TEL_TRY(rte_tel_data_add_dict_string(e, "name", p->name));
	TEL_TRY(rte_tel_data_add_dict_int(e, "fabric_port", p->fabric_port));
	TEL_TRY(rte_tel_data_add_dict_string(e, "kind", p->is_host ? "host" : "fabric"));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "rx", ps.rx));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "tx", ps.tx));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "tx_drop", ps.tx_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "in_drop", ps.in_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "down_drop", ps.down_drop));
	if (p->is_host)
		TEL_TRY(rte_tel_data_add_dict_u64(e, "arp_replies", p->arp_replies));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "forwarded_out",
					  dcnfwd_node_out_frames(d, ni, l)));
	return 0;
}

TEL_CMD(tel_ports)
static int
tel_ports_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	int ni = node_param(d, params);
	uint16_t l;

	if (ni < 0)
		return no_node(t, params);
	rte_tel_data_start_dict(t);
	for (l = 0; l < d->node[ni].n_ports; l++) {
		struct rte_tel_data *e = rte_tel_data_alloc();

		if (e == NULL)
			return -1;
		if (port_entry(d, (uint32_t)ni, l, e) != 0) {
			rte_tel_data_free(e);
			return -1;
		}
		TEL_TRY(tel_add_container(t, d->port[d->node[ni].port[l]].name, e));
	}
	return 0;
}

static int
neighbour_entry(const struct dcnfwd *d, uint32_t ni, const struct dcnfwd_port *p,
		struct rte_tel_data *e)
{
	const struct dcnfwd_node *n = &d->node[ni];
	char name[DCN_TOPO_NAME_LEN] = "-", key[RTE_TEL_MAX_STRING_LEN];
	uint64_t now = rte_rdtsc();
	unsigned int k;

	if (p->peer_vertex != UINT32_MAX)
		dcn_topo_format_vertex(d->t, p->peer_vertex, name, sizeof(name));
	rte_tel_data_start_dict(e);
	TEL_TRY(rte_tel_data_add_dict_string(e, "last_hello_from", name));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "hello_rx", p->hello_rx));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "hello_refused", p->hello_refused));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "ms_since_hello",
					  p->peer_seen_tsc ? (now - p->peer_seen_tsc) *
						  1000 / d->tsc_hz : UINT64_MAX));
	/* Behind a switch port: data frames sent to each next hop. */
	for (k = 0; n->nbrs.slot != NULL && k <= n->nbrs.mask; k++) {
		const struct dcn_fwd_nbr *nb = &n->nbrs.slot[k];
		char nm[DCN_TOPO_NAME_LEN + 8], vn[DCN_TOPO_NAME_LEN];

		if (nb->vertex == DCN_FWD_NBR_EMPTY || nb->fabric_port != p->fabric_port)
			continue;
		dcn_topo_format_vertex(d->t, nb->vertex, vn, sizeof(vn));
		snprintf(nm, sizeof(nm), "to_%s", vn);
		TEL_TRY(rte_tel_data_add_dict_u64(e, dcnfwd_tel_key(nm, key, sizeof(key)),
						  dcnfwd_node_nbr_frames(d, ni, k)));
	}
	return 0;
}

TEL_CMD(tel_neighbours)
static int
tel_neighbours_do(const struct dcnfwd *d, const char *params,
		  struct rte_tel_data *t)
{
	int ni = node_param(d, params);
	const struct dcnfwd_node *n;
	unsigned int l;

	if (ni < 0)
		return no_node(t, params);
	n = &d->node[ni];
	rte_tel_data_start_dict(t);
	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];
		struct rte_tel_data *e;

		if (!dcnfwd_port_is_fabric(p))
			continue;
		e = rte_tel_data_alloc();
		if (e == NULL)
			return -1;
		if (neighbour_entry(d, (uint32_t)ni, p, e) != 0) {
			rte_tel_data_free(e);
			return -1;
		}
		TEL_TRY(tel_add_container(t, p->name, e));
	}
	return 0;
}

/* The next hops node ni's table in force gives for addr, read under RCU:
 * the control thread may replace the table meanwhile, and frees the old
 * one only after this reader has gone offline. */
static int
route_hops(const struct dcnfwd *d, int ni, uint32_t addr, uint32_t dst,
	   struct rte_tel_data *t)
{
	const struct dcnfwd_node *n = &d->node[ni];
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	const struct dcnfwd_fib *f;
	const struct dcn_hop *h;
	struct dcn_route_state st;
	unsigned int k, i;
	int ret = 0;

	rte_rcu_qsbr_thread_online(d->rcu, d->n_workers);
	f = __atomic_load_n(&n->fib, __ATOMIC_ACQUIRE);
	dcn_route_state_init(f->r, n->vertex, dst, &st);
	k = dcn_rtable_lookup(f->tb, addr, &st, scratch, &h);
	if (rte_tel_data_add_dict_u64(t, "table_generation", f->gen) < 0 ||
	    rte_tel_data_add_dict_u64(t, "candidates", k) < 0)
		ret = -1;
	for (i = 0; ret == 0 && i < k && i < 64; i++) {
		char key[16], val[96], nm[DCN_TOPO_NAME_LEN];

		dcn_topo_format_vertex(d->t, h[i].next, nm, sizeof(nm));
		snprintf(key, sizeof(key), "hop%u", i);
		snprintf(val, sizeof(val), "port %u to %s weight %u", h[i].port,
			 nm, h[i].weight);
		if (rte_tel_data_add_dict_string(t, key, val) < 0)
			ret = -1;
	}
	rte_rcu_qsbr_thread_offline(d->rcu, d->n_workers);
	return ret;
}

TEL_CMD(tel_route)
static int
tel_route_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	const char *sp, *addr_s;
	uint32_t addr;
	int64_t dst;
	int ni;

	if (params == NULL || params[0] == '\0')
		return tel_error(t, "give [NODE ]ADDRESS, e.g. /dcn/route,10.0.0.7");
	sp = strchr(params, ' ');
	ni = find_node(d, params, sp ? (size_t)(sp - params) : 0);
	addr_s = sp ? sp + 1 : params;
	if (ni < 0)
		return no_node(t, params);
	if (dcn_topo_parse_addr(addr_s, &addr) != 0)
		return tel_error(t, "'%.64s' is not an IPv4 address", addr_s);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_string(t, "node", d->node[ni].name));
	dst = dcn_topo_vertex_of(d->t, addr);
	if (dst < 0) {
		TEL_TRY(rte_tel_data_add_dict_string(t, "result", "not in the fabric"));
		return 0;
	}
	return route_hops(d, ni, addr, (uint32_t)dst, t);
}

TEL_CMD(tel_table)
static int
tel_table_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	static const char *const form[] = { "flat", "class", "digit" };
	int ni = node_param(d, params);
	const struct dcnfwd_fib *f;
	enum dcn_rtable_form fm;
	uint64_t bytes, sets;
	uint32_t gen;
	const char *algo;

	if (ni < 0)
		return no_node(t, params);
	rte_rcu_qsbr_thread_online(d->rcu, d->n_workers);
	f = __atomic_load_n(&d->node[ni].fib, __ATOMIC_ACQUIRE);
	fm = dcn_rtable_form(f->tb);
	bytes = dcn_rtable_bytes(f->tb);
	sets = dcn_rtable_sets(f->tb);
	gen = f->gen;
	algo = dcn_route_algo_name(dcn_router_algo(f->r));
	rte_rcu_qsbr_thread_offline(d->rcu, d->n_workers);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_string(t, "node", d->node[ni].name));
	TEL_TRY(rte_tel_data_add_dict_string(t, "algo", algo));
	TEL_TRY(rte_tel_data_add_dict_string(t, "form",
					     (unsigned int)fm < 3 ? form[fm] : "?"));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "bytes", bytes));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "candidate_sets", sets));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "table_generation", gen));
	return 0;
}

static int
fc_entry(const struct dcn_fc_node *fn, unsigned int c, struct rte_tel_data *e)
{
	const struct dcn_fc_chan *ch = &fn->chan[c];
	unsigned int port = c / fn->n_vcs;

	rte_tel_data_start_dict(e);
	TEL_TRY(rte_tel_data_add_dict_string(e, "port", fn->port_name[port]));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "vc", c % fn->n_vcs));
	TEL_TRY(rte_tel_data_add_dict_string(e, "kind",
		fn->kind[port] == DCN_FC_PORT_CREDIT ? "credit" :
		fn->kind[port] == DCN_FC_PORT_HOST ? "host" : "no_credit"));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "in_depth", dcn_fc_in_depth(ch)));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "in_held", ch->held_n));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "in_cap", ch->in_cap));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "out_depth", rte_ring_count(ch->out_q)));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "out_cap", ch->out_cap));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "freed", ch->freed));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "sent", ch->sent));
	if (fn->kind[port] != DCN_FC_PORT_CREDIT)
		return 0;
	TEL_TRY(rte_tel_data_add_dict_u64(e, "credits", dcn_fc_credits(ch)));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "peer_grant", ch->peer_grant));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "grant", ch->grant));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "stalls", ch->stalls));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "peer_restarts", ch->epoch_changes));
	if (c % fn->n_vcs == 0) {
		TEL_TRY(rte_tel_data_add_dict_u64(e, "credit_rx", ch->credit_rx));
		TEL_TRY(rte_tel_data_add_dict_u64(e, "credit_tx", ch->credit_tx));
		TEL_TRY(rte_tel_data_add_dict_u64(e, "credit_lost", ch->credit_lost));
	}
	return 0;
}

TEL_CMD(tel_fc)
static int
tel_fc_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	int ni = node_param(d, params);
	const struct dcn_fc_node *fn;
	unsigned int c;

	if (ni < 0)
		return no_node(t, params);
	fn = d->node[ni].fc;
	if (fn == NULL)
		return tel_error(t, "flow control is off");
	rte_tel_data_start_dict(t);
	for (c = 0; c < fn->n_chans; c++) {
		struct rte_tel_data *e = rte_tel_data_alloc();
		char key[RTE_TEL_MAX_STRING_LEN], name[48];

		if (e == NULL)
			return -1;
		if (fc_entry(fn, c, e) != 0) {
			rte_tel_data_free(e);
			return -1;
		}
		snprintf(name, sizeof(name), "%s_vc%u",
			 dcnfwd_tel_key(fn->port_name[c / fn->n_vcs], key, sizeof(key)),
			 c % fn->n_vcs);
		TEL_TRY(tel_add_container(t, name, e));
	}
	return 0;
}

static int
link_entry(const struct dcnfwd_port *p, uint64_t us, struct rte_tel_data *e)
{
	static const char *const src[] = { "hellos_only", "ethdev", "rtnetlink",
					   "emulated" };
	const struct dcn_link *k = &p->link;

	rte_tel_data_start_dict(e);
	TEL_TRY(rte_tel_data_add_dict_string(e, "state", dcn_link_state_name(k->state)));
	TEL_TRY(rte_tel_data_add_dict_string(e, "last_cause",
					     dcn_link_cause_name(k->cause)));
	TEL_TRY(rte_tel_data_add_dict_string(e, "carrier_from", src[p->carrier_src & 3]));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "carrier", k->carrier));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "ms_in_state", (us - k->since) / 1000));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "downs", k->downs));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "flaps", k->flaps));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "holddown_ms", k->holddown / 1000));
	return 0;
}

/* Link states of a node's fabric ports, and of the neighbours behind
 * its switch ports; the table generation in force. */
TEL_CMD(tel_links)
static int
tel_links_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	int ni = node_param(d, params);
	const struct dcnfwd_node *n;
	uint64_t us = dcnfwd_us_of_tsc(d, rte_rdtsc());
	unsigned int l;
	uint32_t gen;

	if (ni < 0)
		return no_node(t, params);
	n = &d->node[ni];
	rte_rcu_qsbr_thread_online(d->rcu, d->n_workers);
	gen = __atomic_load_n(&n->fib, __ATOMIC_ACQUIRE)->gen;
	rte_rcu_qsbr_thread_offline(d->rcu, d->n_workers);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_u64(t, "table_generation", gen));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "links_known_down", n->n_down));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_tx", n->lsa_tx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_rx", n->lsa_rx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_relayed", n->lsa_relayed));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_duplicate", n->lsa_dup));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_refused", n->lsa_refused));
	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];
		struct rte_tel_data *e;

		if (!dcnfwd_port_is_fabric(p))
			continue;
		e = rte_tel_data_alloc();
		if (e == NULL)
			return -1;
		if (link_entry(p, us, e) != 0) {
			rte_tel_data_free(e);
			return -1;
		}
		TEL_TRY(tel_add_container(t, p->name, e));
	}
	return 0;
}

/* The last failover events, oldest first, with wall-clock times. */
static int
event_lines(const struct dcnfwd *d, uint64_t first, uint64_t end,
	    struct rte_tel_data *a)
{
	uint64_t k;

	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (k = first; k < end; k++) {
		const struct dcnfwd_event *e = &d->ev[k % DCNFWD_EVENTS];
		char line[RTE_TEL_MAX_STRING_LEN], who[DCN_TOPO_NAME_LEN] = "-";
		const char *node = e->node < d->n_nodes ? d->node[e->node].name : "-";
		const char *port = e->node < d->n_nodes && e->local >= 0 ?
			d->port[d->node[e->node].port[e->local]].name : "-";

		if (e->vertex != UINT32_MAX)
			dcn_topo_format_vertex(d->t, e->vertex, who, sizeof(who));
		/* Truncated at the line's end if names are long. */
		snprintf(line, sizeof(line), "%lu.%06lu %s node=%.24s port=%.24s "
			 "peer=%.24s cause=%s gen=%u", (unsigned long)(e->wall_us / 1000000),
			 (unsigned long)(e->wall_us % 1000000),
			 dcnfwd_event_name(e->kind), node, port, who,
			 dcn_link_cause_name(e->cause), e->gen);
		TEL_TRY(rte_tel_data_add_array_string(a, line));
	}
	return 0;
}

TEL_CMD(tel_events)
static int
tel_events_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	uint64_t end = __atomic_load_n(&d->n_ev, __ATOMIC_ACQUIRE);
	uint64_t first = end > 64 ? end - 64 : 0;
	struct rte_tel_data *a = rte_tel_data_alloc();

	(void)params;
	if (a == NULL)
		return -1;
	rte_tel_data_start_dict(t);
	if (rte_tel_data_add_dict_u64(t, "total", end) < 0 ||
	    event_lines(d, first, end, a) != 0) {
		rte_tel_data_free(a);
		return -1;
	}
	return tel_add_container(t, "last", a);
}

/* Each net_af_xdp port's XDP verdict counters. */
TEL_CMD(tel_xdp)
static int
tel_xdp_do(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	unsigned int i, n = 0;

	(void)params;
	rte_tel_data_start_dict(t);
	for (i = 0; i < d->n_ports; i++)
		n += d->port[i].has_xdp;
	TEL_TRY(rte_tel_data_add_dict_u64(t, "ports_with_xdp", n));
	for (i = 0; i < d->n_ports; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();
		int ret;

		if (e == NULL)
			return -1;
		ret = dcnfwd_xdp_tel_port(&d->port[i], e);
		if (ret != 0) {
			rte_tel_data_free(e);
			if (ret == -ENOENT)
				continue;
			return -1;
		}
		TEL_TRY(tel_add_container(t, d->port[i].name, e));
	}
	return 0;
}

/* The commands, for registration and for --help. */
const struct dcnfwd_tel_cmd dcnfwd_tel_cmds[] = {
	{ "/dcn/stats", tel_stats, "",
	  "totals: port rx/tx, encapsulated, transit, decapsulated, control, "
	  "hellos, drops by reason" },
	{ "/dcn/ports", tel_ports, "NODE",
	  "each port: rx, tx, tx_drop, in_drop (input queue full), "
	  "down_drop, data forwarded out of it" },
	{ "/dcn/neighbours", tel_neighbours, "NODE",
	  "the neighbour each port's hellos come from; behind a switch "
	  "port, data frames sent to each next hop" },
	{ "/dcn/route", tel_route, "[NODE ]ADDR",
	  "the next hops of the table in force for an address" },
	{ "/dcn/table", tel_table, "NODE",
	  "the table in force: algorithm, form, bytes, generation" },
	{ "/dcn/fc", tel_fc, "NODE",
	  "flow control per (port, VC): queue depths, credits, credit frames" },
	{ "/dcn/links", tel_links, "NODE",
	  "link states, announcements, table generation" },
	{ "/dcn/events", tel_events, "",
	  "failover events: their total, and the last 64 with wall-clock times" },
	{ "/dcn/xdp", tel_xdp, "",
	  "XDP verdicts of each net_af_xdp port: to dcnfwd, to the kernel" },
	{ NULL, NULL, NULL, NULL },
};

void
dcnfwd_telemetry_register(void)
{
	const struct dcnfwd_tel_cmd *c;

	for (c = dcnfwd_tel_cmds; c->name != NULL; c++)
		rte_telemetry_register_cmd(c->name, c->fn, c->help);
}
