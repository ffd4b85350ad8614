/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry commands about one node: ports, neighbours, routes, its table,
 * flow control, links. Run under telemetry.c's lock (tel_util.h).
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_telemetry

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "events.h"
#include "stats.h"
#include "tel_node.h"
#include "tel_util.h"

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
	/* the device's byte counts, polled once a second */
	TEL_TRY(rte_tel_data_add_dict_u64(e, "rx_bytes",
		__atomic_load_n(&p->rx_bytes, __ATOMIC_RELAXED)));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "tx_bytes",
		__atomic_load_n(&p->tx_bytes, __ATOMIC_RELAXED)));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "tx_drop", ps.tx_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "in_drop", ps.in_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "down_drop", ps.down_drop));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "nbr_drop", ps.nbr_drop));
	/* sent into the kernel's interface and dropped there (a kernel
	 * port whose cable was down) */
	TEL_TRY(rte_tel_data_add_dict_u64(e, "kernel_tx_dropped",
		__atomic_load_n(&p->kernel_tx_dropped, __ATOMIC_RELAXED)));
	/* received by the NIC (or kernel) and missed: its ring was full */
	TEL_TRY(rte_tel_data_add_dict_u64(e, "rx_missed",
		__atomic_load_n(&p->rx_missed, __ATOMIC_RELAXED)));
	if (p->is_host)
		TEL_TRY(rte_tel_data_add_dict_u64(e, "arp_replies", p->arp_replies));
	/* encap = udp: frames to the fabric's UDP port refused as they
	 * came in, by reason (dcn_port_udp.h), and fabric frames in the
	 * other wire format */
	if (p->dp.udp != NULL) {
		unsigned int r;

		for (r = 0; r < DCN_UDP_REFUSE_MAX; r++)
			TEL_TRY(rte_tel_data_add_dict_u64(e,
				dcn_udp_refusal_name((enum dcn_udp_refusal)r),
				dcn_port_udp_refused(p->dp.udp, (enum dcn_udp_refusal)r)));
	}
	TEL_TRY(rte_tel_data_add_dict_u64(e, "forwarded_out",
					  dcnfwd_node_out_frames(d, ni, l)));
	return 0;
}

int
dcnfwd_tel_ports(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	int ni = dcnfwd_tel_node_param(d, params);
	uint16_t l;

	if (ni < 0)
		return dcnfwd_tel_no_node(t, params);
	rte_tel_data_start_dict(t);
	for (l = 0; l < d->node[ni].n_ports; l++) {
		struct rte_tel_data *e = rte_tel_data_alloc();

		if (e == NULL)
			return -1;
		if (port_entry(d, (uint32_t)ni, l, e) != 0) {
			rte_tel_data_free(e);
			return -1;
		}
		TEL_TRY(dcnfwd_tel_add_container(t, d->port[d->node[ni].port[l]].name, e));
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
	TEL_TRY(rte_tel_data_add_dict_u64(e, "hello_mac_refused",
					  p->hello_mac_refused));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "peer_mac_changes", p->peer_mac_changes));
	/* With a fabric key: hellos and announcements refused here. */
	TEL_TRY(rte_tel_data_add_dict_u64(e, "auth_missing",
					  p->auth_refused[DCN_AUTH_MISSING]));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "auth_bad_tag",
					  p->auth_refused[DCN_AUTH_BAD_TAG]));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "auth_replayed",
					  p->auth_refused[DCN_AUTH_REPLAYED]));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "hello_unproven", p->hello_unproven));
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

int
dcnfwd_tel_neighbours(const struct dcnfwd *d, const char *params,
		  struct rte_tel_data *t)
{
	int ni = dcnfwd_tel_node_param(d, params);
	const struct dcnfwd_node *n;
	unsigned int l;

	if (ni < 0)
		return dcnfwd_tel_no_node(t, params);
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
		TEL_TRY(dcnfwd_tel_add_container(t, p->name, e));
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
	dcn_route_state_init(f->tab.r, n->vertex, dst, &st);
	k = dcn_rtable_lookup(f->tab.tb, addr, &st, scratch, &h);
	if (rte_tel_data_add_dict_u64(t, "table_generation", f->tab.gen) < 0 ||
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

int
dcnfwd_tel_route(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	const char *sp, *addr_s;
	uint32_t addr;
	int64_t dst;
	int ni;

	if (params == NULL || params[0] == '\0')
		return dcnfwd_tel_error(t, "give [NODE ]ADDRESS, e.g. /dcn/route,10.0.0.7");
	sp = strchr(params, ' ');
	ni = dcnfwd_tel_find_node(d, params, sp ? (size_t)(sp - params) : 0);
	addr_s = sp ? sp + 1 : params;
	if (ni < 0)
		return dcnfwd_tel_no_node(t, params);
	if (dcn_topo_parse_addr(addr_s, &addr) != 0)
		return dcnfwd_tel_error(t, "'%.64s' is not an IPv4 address", addr_s);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_string(t, "node", d->node[ni].name));
	dst = dcn_topo_vertex_of(d->t, addr);
	if (dst < 0) {
		TEL_TRY(rte_tel_data_add_dict_string(t, "result", "not in the fabric"));
		return 0;
	}
	return route_hops(d, ni, addr, (uint32_t)dst, t);
}

int
dcnfwd_tel_table(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	static const char *const form[] = { "flat", "class", "digit" };
	int ni = dcnfwd_tel_node_param(d, params);
	const struct dcnfwd_fib *f;
	enum dcn_rtable_form fm;
	uint64_t bytes, sets;
	uint32_t gen;
	const char *algo;

	if (ni < 0)
		return dcnfwd_tel_no_node(t, params);
	rte_rcu_qsbr_thread_online(d->rcu, d->n_workers);
	f = __atomic_load_n(&d->node[ni].fib, __ATOMIC_ACQUIRE);
	fm = dcn_rtable_form(f->tab.tb);
	bytes = dcn_rtable_bytes(f->tab.tb);
	sets = dcn_rtable_sets(f->tab.tb);
	gen = f->tab.gen;
	algo = dcn_route_algo_name(dcn_router_algo(f->tab.r));
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

/* A channel's counters, read once: the reply and its size bound come
 * from the same values. */
struct fc_field {
	const char *key;
	uint64_t val;
};

#define FC_MAX_FIELDS 32

static unsigned int
fc_fields(const struct dcn_fc_node *fn, unsigned int c, struct fc_field *f)
{
	const struct dcn_fc_chan *ch = &fn->chan[c];
	unsigned int port = fn->link_port[c / fn->n_vcs], n = 0;
	uint32_t held = 0, k;

	for (k = 0; k < fn->n_lanes; k++)
		held += __atomic_load_n(&dcn_fc_lane(fn, c, k)->held_n, __ATOMIC_RELAXED);
	f[n++] = (struct fc_field){ "vc", c % fn->n_vcs };
	/* the input side: every lane's (an RX queue's) */
	f[n++] = (struct fc_field){ "in_depth", dcn_fc_chan_in_depth(fn, c) };
	f[n++] = (struct fc_field){ "in_held", held };
	f[n++] = (struct fc_field){ "in_cap", ch->in_cap };
	/* the output side: every sender's queue */
	f[n++] = (struct fc_field){ "out_depth", dcn_fc_chan_out_depth(fn, c) };
	f[n++] = (struct fc_field){ "out_cap", ch->out_cap };
	f[n++] = (struct fc_field){ "freed", dcn_fc_chan_freed(fn, c) };
	f[n++] = (struct fc_field){ "sent", ch->sent };
	f[n++] = (struct fc_field){ "senders", fn->senders[port] };
	if (!dcn_fc_kind_credited(fn->kind[port]))
		return n;
	f[n++] = (struct fc_field){ "credits", dcn_fc_credits(ch) };
	f[n++] = (struct fc_field){ "peer_grant", ch->peer_grant };
	/* the credits with nothing in flight on the link: the peer's
	 * grant less the other VCs' own shares */
	f[n++] = (struct fc_field){ "window", dcn_fc_alone(ch->peer_grant, fn->n_vcs) };
	f[n++] = (struct fc_field){ "grant", ch->grant };
	f[n++] = (struct fc_field){ "stalls", dcn_fc_chan_stalls(fn, c) };
	f[n++] = (struct fc_field){ "peer_restarts", ch->epoch_changes };
	/* Frames lost on the way (a switch or a kernel queue dropped them),
	 * their credits back: sent here and taken back by this sender, or
	 * sent by the peer and freed here for it. */
	f[n++] = (struct fc_field){ "lost", ch->lost };
	f[n++] = (struct fc_field){ "lost_in", ch->lost_in };
	f[n++] = (struct fc_field){ "late", ch->late };
	/* sent to a peer that was killed, lost with it (lib/fc/dcn_fc.h) */
	f[n++] = (struct fc_field){ "lost_restart", ch->lost_restart };
	if (c % fn->n_vcs != 0)
		return n;
	/* credit frames are per link: its VC 0 channel holds them */
	f[n++] = (struct fc_field){ "credit_rx", ch->credit_rx };
	f[n++] = (struct fc_field){ "credit_tx", ch->credit_tx };
	f[n++] = (struct fc_field){ "credit_lost", ch->credit_lost };
	f[n++] = (struct fc_field){ "credit_clamped", ch->credit_clamped };
	f[n++] = (struct fc_field){ "credit_unsigned", ch->credit_unsigned };
	f[n++] = (struct fc_field){ "credit_bad_tag", ch->credit_bad_tag };
	f[n++] = (struct fc_field){ "credit_replayed", ch->credit_replayed };
	f[n++] = (struct fc_field){ "credit_unproven", ch->credit_unproven };
	/* refused whatever the key: fewer VCs than this node keeps, or
	 * behind a switch port from no neighbour it knows */
	f[n++] = (struct fc_field){ "credit_few_vcs", ch->credit_few_vcs };
	f[n++] = (struct fc_field){ "credit_unknown", ch->credit_unknown };
	return n;
}

static const char *
fc_kind_name(uint8_t kind)
{
	return kind == DCN_FC_PORT_CREDIT ? "credit" :
	       kind == DCN_FC_PORT_SWITCH ? "switch" :
	       kind == DCN_FC_PORT_HOST ? "host" : "no_credit";
}

/* "key":"value", */
static size_t
json_pair_len(const char *key, const char *val)
{
	return strlen(key) + strlen(val) + 6;
}

/* At most the bytes channel c's entry, keyed name, takes in the JSON
 * reply: names are plain (nothing to escape), each number as written. */
static size_t
fc_entry_bound(const char *name, const char *port, const char *nbr,
	       const char *kind, const struct fc_field *f, unsigned int n)
{
	char digits[24];
	size_t b = strlen(name) + 6 + json_pair_len("port", port) +
		   json_pair_len("kind", kind) +
		   (nbr != NULL ? json_pair_len("neighbour", nbr) : 0);
	unsigned int i;

	for (i = 0; i < n; i++)
		b += strlen(f[i].key) + 4 +
		     (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, f[i].val);
	return b;
}

static int
fc_entry(const char *port, const char *nbr, const char *kind,
	 const struct fc_field *f, unsigned int n, struct rte_tel_data *e)
{
	unsigned int i;

	rte_tel_data_start_dict(e);
	TEL_TRY(rte_tel_data_add_dict_string(e, "port", port));
	/* behind a switch: the neighbour whose link this is */
	if (nbr != NULL)
		TEL_TRY(rte_tel_data_add_dict_string(e, "neighbour", nbr));
	TEL_TRY(rte_tel_data_add_dict_string(e, "kind", kind));
	for (i = 0; i < n; i++)
		TEL_TRY(rte_tel_data_add_dict_u64(e, f[i].key, f[i].val));
	return 0;
}

/*
 * DPDK's telemetry writes a reply into one buffer (16 KiB in 22.11) and
 * leaves out, silently, whatever does not fit: a NovaCube relay of six
 * ports and 16 VCs has 96 channels, some 25 KiB. So a node's channels
 * come in pages that fit, each but the last ending with "next": the
 * parameters that ask for the rest ("/dcn/fc,NODE FIRST"). Our clients
 * (dcn-telemetry, dcn-exporter, dcn-fabric) follow it.
 */
#define FC_REPLY_BUDGET (16384 - 512)

int
dcnfwd_tel_fc(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	const char *sp = params != NULL ? strchr(params, ' ') : NULL;
	int ni = dcnfwd_tel_find_node(d, params, sp != NULL ? (size_t)(sp - params) :
				      params != NULL ? strlen(params) : 0);
	const struct dcn_fc_node *fn;
	unsigned long first = 0;
	unsigned int c, entries = 0;
	size_t used = 32;

	if (ni < 0)
		return dcnfwd_tel_no_node(t, params);
	fn = d->node[ni].fc;
	if (fn == NULL)
		return dcnfwd_tel_error(t, "flow control is off");
	if (sp != NULL) {
		char *end;

		first = strtoul(sp + 1, &end, 10);
		if (end == sp + 1 || *end != '\0' || first >= fn->n_chans)
			return dcnfwd_tel_error(t, "'%.64s' is no channel of %u: give "
						"NODE [FIRST]", sp + 1, fn->n_chans);
	}
	rte_tel_data_start_dict(t);
	for (c = (unsigned int)first; c < fn->n_chans; c++) {
		struct fc_field f[FC_MAX_FIELDS];
		unsigned int link = c / fn->n_vcs, n = fc_fields(fn, c, f);
		const char *port = fn->port_name[fn->link_port[link]];
		const char *nbr = dcn_fc_link_neighbour(fn, (uint16_t)link);
		const char *kind = fc_kind_name(fn->kind[fn->link_port[link]]);
		char key[RTE_TEL_MAX_STRING_LEN], name[48];
		struct rte_tel_data *e;
		size_t b;

		snprintf(name, sizeof(name), "%s_vc%u",
			 dcnfwd_tel_key(fn->link_name[link], key, sizeof(key)),
			 c % fn->n_vcs);
		b = fc_entry_bound(name, port, nbr, kind, f, n);
		if (entries > 0 && (used + b > FC_REPLY_BUDGET ||
				    entries + 2 > RTE_TEL_MAX_DICT_ENTRIES)) {
			char next[96];

			snprintf(next, sizeof(next), "%s %u", d->node[ni].name, c);
			return rte_tel_data_add_dict_string(t, "next", next);
		}
		e = rte_tel_data_alloc();
		if (e == NULL)
			return -1;
		if (fc_entry(port, nbr, kind, f, n, e) != 0) {
			rte_tel_data_free(e);
			return -1;
		}
		TEL_TRY(dcnfwd_tel_add_container(t, name, e));
		used += b;
		entries++;
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
	/* the PMD's link events by interrupt (else its link is polled) */
	TEL_TRY(rte_tel_data_add_dict_u64(e, "carrier_interrupt", p->lsc_intr));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "carrier", k->carrier));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "ms_in_state", (us - k->since) / 1000));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "downs", k->downs));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "flaps", k->flaps));
	TEL_TRY(rte_tel_data_add_dict_u64(e, "holddown_ms", k->holddown / 1000));
	return 0;
}

/* Link states of a node's fabric ports, and of the neighbours behind
 * its switch ports; the table generation in force. */
int
dcnfwd_tel_links(const struct dcnfwd *d, const char *params, struct rte_tel_data *t)
{
	int ni = dcnfwd_tel_node_param(d, params);
	const struct dcnfwd_node *n;
	uint64_t us = dcnfwd_us_of_tsc(d, rte_rdtsc());
	unsigned int l;
	uint32_t gen;

	if (ni < 0)
		return dcnfwd_tel_no_node(t, params);
	n = &d->node[ni];
	rte_rcu_qsbr_thread_online(d->rcu, d->n_workers);
	gen = __atomic_load_n(&n->fib, __ATOMIC_ACQUIRE)->tab.gen;
	rte_rcu_qsbr_thread_offline(d->rcu, d->n_workers);
	rte_tel_data_start_dict(t);
	TEL_TRY(rte_tel_data_add_dict_u64(t, "table_generation", gen));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "links_known_down", n->n_down));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_tx", n->lsa_tx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_rx", n->lsa_rx));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_relayed", n->lsa_relayed));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_duplicate", n->lsa_dup));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_refused", n->lsa_refused));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_contradicted",
					  n->lsa_contradicted));
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_aged", n->lsa_aged));
	/* With a fabric key: signed ones heard before (a recording, or an
	 * honest copy that came after its news was forgotten). */
	TEL_TRY(rte_tel_data_add_dict_u64(t, "announcements_replayed", n->lsa_replayed));
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
		TEL_TRY(dcnfwd_tel_add_container(t, p->name, e));
	}
	return 0;
}

