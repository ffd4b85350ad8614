/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry under /dcn/ (dpdk-telemetry.py, or tools/dcn-telemetry):
 *   /dcn/stats                 totals and drops by reason
 *   /dcn/ports,NODE            one node's ports: counters and neighbour
 *   /dcn/neighbours,NODE       what the hellos taught
 *   /dcn/route,[NODE ]ADDR     the table's next hops for an address
 *   /dcn/table,NODE            the compiled table's form and size
 *   /dcn/fc,NODE               flow control: each (port, VC) queue depth
 *                              and credits
 * NODE (a fabric address or the paper's notation) defaults to the first
 * node, the only one outside emulation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "dcnfwd.h"

/* Telemetry keys take letters, digits, '_', '-' and '.' only. */
static const char *
key_of(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < len; i++) {
		char c = name[i];

		buf[i] = (char)((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				(c >= '0' && c <= '9') || c == '-' || c == '.' ?
					c : '_');
	}
	buf[i] = '\0';
	return buf;
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
tel_stats(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	struct dcn_fwd_stats all;
	struct rte_tel_data *drops = rte_tel_data_alloc();
	uint64_t tx = 0, rx = 0, tx_drop = 0, refused = 0, hellos = 0;
	uint64_t ctl_drop = 0, sw_fwd = 0, sw_flood = 0, sleeps = 0;
	struct dcnfwd_loop_totals lt;
	unsigned int i, r;

	(void)cmd;
	(void)params;
	if (drops == NULL)
		return -1;
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
	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_string(t, "topology", dcn_topo_spec(d->t));
	rte_tel_data_add_dict_u64(t, "nodes", d->n_nodes);
	rte_tel_data_add_dict_u64(t, "ports", d->n_ports);
	rte_tel_data_add_dict_u64(t, "port_rx", rx);
	rte_tel_data_add_dict_u64(t, "port_tx", tx);
	rte_tel_data_add_dict_u64(t, "port_tx_drop", tx_drop);
	rte_tel_data_add_dict_u64(t, "fwd_rx", all.rx);
	rte_tel_data_add_dict_u64(t, "encap", all.encap);
	rte_tel_data_add_dict_u64(t, "transit", all.transit);
	rte_tel_data_add_dict_u64(t, "decap", all.decap);
	rte_tel_data_add_dict_u64(t, "control", all.control);
	rte_tel_data_add_dict_u64(t, "hello_rx", hellos);
	rte_tel_data_add_dict_u64(t, "hello_refused", refused);
	rte_tel_data_add_dict_u64(t, "control_ring_drop", ctl_drop);
	{
		struct dcnfwd_drops dr;

		dcnfwd_drop_totals(d, &dr);
		rte_tel_data_add_dict_u64(t, "flow_control", (uint64_t)d->fc_on);
		rte_tel_data_add_dict_u64(t, "fabric_drops", dr.fabric);
		rte_tel_data_add_dict_u64(t, "ingress_drops", dr.ingress);
		rte_tel_data_add_dict_u64(t, "credit_frames_tx", dr.credit_tx);
		rte_tel_data_add_dict_u64(t, "credit_frames_lost", dr.credit_lost);
		rte_tel_data_add_dict_u64(t, "credit_stalls", dr.stalls);
	}
	rte_tel_data_add_dict_u64(t, "worker_loops", lt.loops);
	rte_tel_data_add_dict_u64(t, "worker_busy_loops", lt.busy_loops);
	rte_tel_data_add_dict_u64(t, "worker_busy_cycles", lt.busy_tsc);
	rte_tel_data_add_dict_u64(t, "worker_idle_sleeps", sleeps);
	if (d->n_switches) {
		rte_tel_data_add_dict_u64(t, "emulated_switch_forwarded", sw_fwd);
		rte_tel_data_add_dict_u64(t, "emulated_switch_flooded", sw_flood);
	}
	rte_tel_data_start_dict(drops);
	for (r = 1; r < DCN_DROP_MAX; r++)
		rte_tel_data_add_dict_u64(drops, dcn_drop_name(r), all.drop[r]);
	rte_tel_data_add_dict_container(t, "drop", drops, 0);
	return 0;
}

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	int ni = node_param(d, params);
	const struct dcnfwd_node *n;
	unsigned int l;

	(void)cmd;
	if (ni < 0)
		return -1;
	n = &d->node[ni];
	rte_tel_data_start_dict(t);
	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];
		struct rte_tel_data *e = rte_tel_data_alloc();
		struct dcnfwd_port_stats ps;
		char key[RTE_TEL_MAX_STRING_LEN];

		if (e == NULL)
			return -1;
		dcnfwd_port_totals(d, n->port[l], &ps);
		rte_tel_data_start_dict(e);
		rte_tel_data_add_dict_int(e, "fabric_port", p->fabric_port);
		rte_tel_data_add_dict_string(e, "kind", p->is_host ? "host" : "fabric");
		rte_tel_data_add_dict_u64(e, "rx", ps.rx);
		rte_tel_data_add_dict_u64(e, "tx", ps.tx);
		rte_tel_data_add_dict_u64(e, "tx_drop", ps.tx_drop);
		rte_tel_data_add_dict_u64(e, "in_drop", ps.in_drop);
		if (p->is_host)
			rte_tel_data_add_dict_u64(e, "arp_replies", p->arp_replies);
		rte_tel_data_add_dict_u64(e, "forwarded_out",
					  dcnfwd_node_out_frames(d, (uint32_t)ni, (uint16_t)l));
		rte_tel_data_add_dict_container(t, key_of(p->name, key, sizeof(key)),
						e, 0);
	}
	return 0;
}

static int
tel_neighbours(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	int ni = node_param(d, params);
	const struct dcnfwd_node *n;
	uint64_t now = rte_rdtsc();
	unsigned int l, k;

	(void)cmd;
	if (ni < 0)
		return -1;
	n = &d->node[ni];
	rte_tel_data_start_dict(t);
	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];
		struct rte_tel_data *e;
		char name[DCN_TOPO_NAME_LEN] = "-", key[RTE_TEL_MAX_STRING_LEN];

		if (!dcnfwd_port_is_fabric(p))
			continue;
		e = rte_tel_data_alloc();
		if (e == NULL)
			return -1;
		if (p->peer_vertex != UINT32_MAX)
			dcn_topo_format_vertex(d->t, p->peer_vertex, name, sizeof(name));
		rte_tel_data_start_dict(e);
		rte_tel_data_add_dict_string(e, "last_hello_from", name);
		rte_tel_data_add_dict_u64(e, "hello_rx", p->hello_rx);
		rte_tel_data_add_dict_u64(e, "hello_refused", p->hello_refused);
		rte_tel_data_add_dict_u64(e, "ms_since_hello",
					  p->peer_seen_tsc ? (now - p->peer_seen_tsc) *
						  1000 / d->tsc_hz : UINT64_MAX);
		/* Behind a switch port: data frames sent to each next hop. */
		for (k = 0; n->nbrs.slot != NULL && k <= n->nbrs.mask; k++) {
			const struct dcn_fwd_nbr *nb = &n->nbrs.slot[k];
			char nm[DCN_TOPO_NAME_LEN + 8], vn[DCN_TOPO_NAME_LEN];

			if (nb->vertex == DCN_FWD_NBR_EMPTY ||
			    nb->fabric_port != p->fabric_port)
				continue;
			dcn_topo_format_vertex(d->t, nb->vertex, vn, sizeof(vn));
			snprintf(nm, sizeof(nm), "to_%s", vn);
			rte_tel_data_add_dict_u64(e, key_of(nm, key, sizeof(key)),
						  dcnfwd_node_nbr_frames(d, (uint32_t)ni, k));
		}
		rte_tel_data_add_dict_container(t, key_of(p->name, key, sizeof(key)),
						e, 0);
	}
	return 0;
}

static int
tel_route(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	struct dcn_hop scratch[DCN_ROUTE_MAX_HOPS];
	const struct dcn_hop *h;
	struct dcn_route_state st;
	const char *sp, *addr_s;
	int ni;
	uint32_t addr;
	int64_t dst;
	unsigned int n, i;

	(void)cmd;
	if (params == NULL)
		return -1;
	sp = strchr(params, ' ');
	ni = find_node(d, params, sp ? (size_t)(sp - params) : 0);
	addr_s = sp ? sp + 1 : params;
	if (ni < 0 || dcn_topo_parse_addr(addr_s, &addr) != 0)
		return -1;
	dst = dcn_topo_vertex_of(d->t, addr);
	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_string(t, "node", d->node[ni].name);
	if (dst < 0) {
		rte_tel_data_add_dict_string(t, "result", "not in the fabric");
		return 0;
	}
	dcn_route_state_init(d->r, d->node[ni].vertex, (uint32_t)dst, &st);
	n = dcn_rtable_lookup(d->node[ni].tb, addr, &st, scratch, &h);
	rte_tel_data_add_dict_u64(t, "candidates", n);
	for (i = 0; i < n && i < 64; i++) {
		char key[16], val[96], nm[DCN_TOPO_NAME_LEN];

		dcn_topo_format_vertex(d->t, h[i].next, nm, sizeof(nm));
		snprintf(key, sizeof(key), "hop%u", i);
		snprintf(val, sizeof(val), "port %u to %s weight %u", h[i].port,
			 nm, h[i].weight);
		rte_tel_data_add_dict_string(t, key, val);
	}
	return 0;
}

static int
tel_table(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	int ni = node_param(d, params);
	static const char *const form[] = { "flat", "class", "digit" };
	enum dcn_rtable_form f;

	(void)cmd;
	if (ni < 0)
		return -1;
	f = dcn_rtable_form(d->node[ni].tb);
	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_string(t, "node", d->node[ni].name);
	rte_tel_data_add_dict_string(t, "algo",
				     dcn_route_algo_name(dcn_router_algo(d->r)));
	rte_tel_data_add_dict_string(t, "form", (unsigned int)f < 3 ? form[f] : "?");
	rte_tel_data_add_dict_u64(t, "bytes", dcn_rtable_bytes(d->node[ni].tb));
	rte_tel_data_add_dict_u64(t, "candidate_sets", dcn_rtable_sets(d->node[ni].tb));
	return 0;
}

static int
tel_fc(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	int ni = node_param(d, params);
	struct dcn_fc_node *fn;
	unsigned int c;

	(void)cmd;
	if (ni < 0 || d->node[ni].fc == NULL)
		return -1;
	fn = d->node[ni].fc;
	rte_tel_data_start_dict(t);
	for (c = 0; c < fn->n_chans; c++) {
		const struct dcn_fc_chan *ch = &fn->chan[c];
		unsigned int port = c / fn->n_vcs;
		struct rte_tel_data *e = rte_tel_data_alloc();
		char key[64], k2[48];

		if (e == NULL)
			return -1;
		rte_tel_data_start_dict(e);
		rte_tel_data_add_dict_string(e, "kind",
			fn->kind[port] == DCN_FC_PORT_CREDIT ? "credit" :
			fn->kind[port] == DCN_FC_PORT_HOST ? "host" : "no-credit");
		rte_tel_data_add_dict_u64(e, "in_depth", dcn_fc_in_depth(ch));
		rte_tel_data_add_dict_u64(e, "in_held", ch->held_n);
		rte_tel_data_add_dict_u64(e, "in_cap", ch->in_cap);
		rte_tel_data_add_dict_u64(e, "out_depth", rte_ring_count(ch->out_q));
		rte_tel_data_add_dict_u64(e, "out_cap", ch->out_cap);
		rte_tel_data_add_dict_u64(e, "freed", ch->freed);
		rte_tel_data_add_dict_u64(e, "sent", ch->sent);
		if (fn->kind[port] == DCN_FC_PORT_CREDIT) {
			rte_tel_data_add_dict_u64(e, "credits", dcn_fc_credits(ch));
			rte_tel_data_add_dict_u64(e, "peer_grant", ch->peer_grant);
			rte_tel_data_add_dict_u64(e, "grant", ch->grant);
			rte_tel_data_add_dict_u64(e, "stalls", ch->stalls);
			rte_tel_data_add_dict_u64(e, "peer_restarts", ch->epoch_changes);
			if (c % fn->n_vcs == 0) {
				rte_tel_data_add_dict_u64(e, "credit_rx", ch->credit_rx);
				rte_tel_data_add_dict_u64(e, "credit_tx", ch->credit_tx);
				rte_tel_data_add_dict_u64(e, "credit_lost", ch->credit_lost);
			}
		}
		snprintf(key, sizeof(key), "%s.vc%u",
			 key_of(fn->port_name[port], k2, sizeof(k2)), c % fn->n_vcs);
		rte_tel_data_add_dict_container(t, key, e, 0);
	}
	return 0;
}

/* Link states of a node's fabric ports, and of the neighbours behind
 * its switch ports; the table generation in force. */
static int
tel_links(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	int ni = node_param(d, params);
	const struct dcnfwd_node *n;
	uint64_t us = dcnfwd_us_of_tsc(d, rte_rdtsc());
	unsigned int l;

	(void)cmd;
	if (ni < 0)
		return -1;
	n = &d->node[ni];
	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_u64(t, "table_generation",
				  n->fib != NULL ? n->fib->gen : 0);
	rte_tel_data_add_dict_u64(t, "links_known_down", n->n_down);
	rte_tel_data_add_dict_u64(t, "announcements_tx", n->lsa_tx);
	rte_tel_data_add_dict_u64(t, "announcements_rx", n->lsa_rx);
	rte_tel_data_add_dict_u64(t, "announcements_relayed", n->lsa_relayed);
	rte_tel_data_add_dict_u64(t, "announcements_duplicate", n->lsa_dup);
	rte_tel_data_add_dict_u64(t, "announcements_refused", n->lsa_refused);
	for (l = 0; l < n->n_ports; l++) {
		const struct dcnfwd_port *p = &d->port[n->port[l]];
		const struct dcn_link *k = &p->link;
		struct rte_tel_data *e;
		char key[RTE_TEL_MAX_STRING_LEN];
		static const char *const src[] = { "hellos only", "ethdev",
						   "rtnetlink", "emulated" };

		if (!dcnfwd_port_is_fabric(p))
			continue;
		e = rte_tel_data_alloc();
		if (e == NULL)
			return -1;
		rte_tel_data_start_dict(e);
		rte_tel_data_add_dict_string(e, "state", dcn_link_state_name(k->state));
		rte_tel_data_add_dict_string(e, "last_cause",
					     dcn_link_cause_name(k->cause));
		rte_tel_data_add_dict_string(e, "carrier_from", src[p->carrier_src & 3]);
		rte_tel_data_add_dict_u64(e, "carrier", k->carrier);
		rte_tel_data_add_dict_u64(e, "ms_in_state", (us - k->since) / 1000);
		rte_tel_data_add_dict_u64(e, "downs", k->downs);
		rte_tel_data_add_dict_u64(e, "flaps", k->flaps);
		rte_tel_data_add_dict_u64(e, "holddown_ms", k->holddown / 1000);
		rte_tel_data_add_dict_container(t, key_of(p->name, key, sizeof(key)),
						e, 0);
	}
	return 0;
}

/* The last failover events, oldest first, with wall-clock times. */
static int
tel_events(const char *cmd, const char *params, struct rte_tel_data *t)
{
	const struct dcnfwd *d = &dcnfwd_g;
	uint64_t end = __atomic_load_n(&d->n_ev, __ATOMIC_ACQUIRE), k;
	uint64_t first = end > 64 ? end - 64 : 0;

	(void)cmd;
	(void)params;
	rte_tel_data_start_array(t, RTE_TEL_STRING_VAL);
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
		rte_tel_data_add_array_string(t, line);
	}
	return 0;
}

void
dcnfwd_telemetry_register(void)
{
	rte_telemetry_register_cmd("/dcn/links", tel_links,
		"Link states, announcements, table generation. Parameter: node");
	rte_telemetry_register_cmd("/dcn/events", tel_events,
		"The last 64 failover events with times. No parameters");
	rte_telemetry_register_cmd("/dcn/fc", tel_fc,
		"Flow control: queue depths and credits per (port, VC). Parameter: node");
	rte_telemetry_register_cmd("/dcn/stats", tel_stats,
		"dcnfwd totals and drops by reason. No parameters");
	rte_telemetry_register_cmd("/dcn/ports", tel_ports,
		"A node's ports and counters. Parameter: node (default the first)");
	rte_telemetry_register_cmd("/dcn/neighbours", tel_neighbours,
		"Neighbours learnt from hellos. Parameter: node");
	rte_telemetry_register_cmd("/dcn/route", tel_route,
		"Next hops for an address. Parameters: [node ]address");
	rte_telemetry_register_cmd("/dcn/table", tel_table,
		"The compiled table's form and size. Parameter: node");
}
