/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric header: 20 bytes, network order.
 *
 *   0  version (4 bits) | type (4 bits)
 *   1  flags: bit 0 VC, bit 1 jumped, bits 2-3 PORA phase
 *   2  TTL
 *   3  PORA quadrant bits
 *   4  RRect path
 *   5  last regular dimension (PORA/DOR VC rule)
 *   6  payload length (16 bits)
 *   8  source fabric address
 *  12  destination fabric address
 *  16  proxy fabric address (0: none)
 *
 * Following an Ethernet header, the inner IPv4 header keeps the 2-mod-4
 * alignment it has in a plain frame.
 */
#include <string.h>

#include "dcn_fabric.h"

static const char *const drop_names[DCN_DROP_MAX] = {
	[DCN_DROP_NONE] = "none",
#define DCN_DROP_NAME(id, name, desc) [DCN_DROP_##id] = name,
	DCN_DROP_REASONS(DCN_DROP_NAME)
#undef DCN_DROP_NAME
};

static const char *const drop_descs[DCN_DROP_MAX] = {
	[DCN_DROP_NONE] = "not dropped",
#define DCN_DROP_DESC(id, name, desc) [DCN_DROP_##id] = desc,
	DCN_DROP_REASONS(DCN_DROP_DESC)
#undef DCN_DROP_DESC
};

const char *
dcn_drop_name(enum dcn_drop_reason r)
{
	return r < DCN_DROP_MAX ? drop_names[r] : "?";
}

const char *
dcn_drop_desc(enum dcn_drop_reason r)
{
	return r < DCN_DROP_MAX ? drop_descs[r] : "?";
}

void
dcn_fabric_read_hdr(const uint8_t *p, struct dcn_fabric_hdr *h)
{
	h->version = p[0] >> 4;
	h->type = p[0] & 0x0f;
	h->vc = (uint8_t)dcn_fabric_vc_of(p[1]);
	h->jumped = (p[1] >> 1) & 1;
	h->bounced = (p[1] & DCN_FABRIC_BOUNCED) != 0;
	h->phase = (p[1] >> 2) & 3;
	h->ttl = p[2];
	h->quadrant = p[3];
	h->path = p[4];
	h->last_dim = p[5];
	h->len = dcn_fabric_get16(p + 6);
	h->src = dcn_fabric_get32(p + 8);
	h->dst = dcn_fabric_get32(p + 12);
	h->proxy = dcn_fabric_get32(p + 16);
}

void
dcn_fabric_write_hdr(uint8_t *p, const struct dcn_fabric_hdr *h)
{
	p[0] = (uint8_t)(h->version << 4 | (h->type & 0x0f));
	p[1] = (uint8_t)((h->vc & 1) | (h->jumped & 1) << 1 | (h->phase & 3) << 2 |
			 ((h->vc >> 1) & 7) << 4 | (h->bounced ? DCN_FABRIC_BOUNCED : 0));
	p[2] = h->ttl;
	p[3] = h->quadrant;
	p[4] = h->path;
	p[5] = h->last_dim;
	dcn_fabric_put16(p + 6, h->len);
	dcn_fabric_put32(p + 8, h->src);
	dcn_fabric_put32(p + 12, h->dst);
	dcn_fabric_put32(p + 16, h->proxy);
}

/* An IPv4 header at ip with avail bytes: sane? Fills info. */
static int
check_ipv4(const uint8_t *ip, uint32_t avail, struct dcn_frame_info *fi)
{
	uint32_t total = dcn_fabric_ipv4_len(ip, avail);

	if (total == 0)
		return -1;
	fi->l3_len = (uint16_t)total;
	fi->ip_src = dcn_fabric_get32(ip + 12);
	fi->ip_dst = dcn_fabric_get32(ip + 16);
	return 0;
}

static enum dcn_frame_class
drop(struct dcn_frame_info *fi, enum dcn_drop_reason r)
{
	fi->cls = DCN_FC_DROP;
	fi->reason = r;
	return DCN_FC_DROP;
}

enum dcn_frame_class
dcn_fabric_classify(const uint8_t *frame, uint32_t len, int host_port,
		    uint16_t ethertype, struct dcn_frame_info *fi)
{
	const uint8_t *p;
	uint16_t et;

	memset(fi, 0, sizeof(*fi));
	if (len < DCN_ETHER_HDR_LEN)
		return drop(fi, DCN_DROP_RUNT);
	et = dcn_fabric_get16(frame + 12);
	if (et == ethertype) {
		if (host_port)
			return drop(fi, DCN_DROP_FABRIC_ON_HOST);
		if (len < DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN)
			return drop(fi, DCN_DROP_RUNT);
		p = frame + DCN_ETHER_HDR_LEN;
		dcn_fabric_read_hdr(p, &fi->hdr);
		if (fi->hdr.version != DCN_FABRIC_VERSION)
			return drop(fi, DCN_DROP_BAD_VERSION);
		if (fi->hdr.type == 0 || fi->hdr.type >= DCN_FT_MAX)
			return drop(fi, DCN_DROP_BAD_TYPE);
		/* The payload must fit; Ethernet padding may follow it. */
		if (fi->hdr.len > len - DCN_ETHER_HDR_LEN - DCN_FABRIC_HDR_LEN)
			return drop(fi, DCN_DROP_BAD_LENGTH);
		if (fi->hdr.type != DCN_FT_DATA) {
			if (fi->hdr.type == DCN_FT_HELLO && fi->hdr.len < DCN_HELLO_LEN)
				return drop(fi, DCN_DROP_BAD_LENGTH);
			fi->cls = DCN_FC_FABRIC_CONTROL;
			return fi->cls;
		}
		if (fi->hdr.ttl == 0)
			return drop(fi, DCN_DROP_TTL_EXPIRED);
		fi->l3_off = DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN;
		if (check_ipv4(frame + fi->l3_off, fi->hdr.len, fi) < 0)
			return drop(fi, DCN_DROP_BAD_IPV4);
		fi->cls = DCN_FC_FABRIC_DATA;
		return fi->cls;
	}
	if (!host_port)
		return drop(fi, DCN_DROP_UNKNOWN_ETHERTYPE);
	if (et != DCN_ETHERTYPE_IPV4) {
		fi->cls = DCN_FC_OTHER;
		return fi->cls;
	}
	fi->l3_off = DCN_ETHER_HDR_LEN;
	if (check_ipv4(frame + fi->l3_off, len - DCN_ETHER_HDR_LEN, fi) < 0)
		return drop(fi, DCN_DROP_BAD_IPV4);
	if (frame[fi->l3_off + 8] == 0)
		return drop(fi, DCN_DROP_TTL_EXPIRED);
	fi->cls = DCN_FC_HOST_IPV4;
	return fi->cls;
}

int
dcn_fabric_hdr_from_state(const struct dcn_topo *t,
			  const struct dcn_route_state *st,
			  struct dcn_fabric_hdr *h)
{
	h->version = DCN_FABRIC_VERSION;
	h->vc = st->vc;
	h->jumped = st->jumped;
	h->bounced = 0;
	h->phase = st->phase;
	h->ttl = st->ttl;
	h->quadrant = st->quadrant;
	h->path = st->path;
	h->last_dim = st->last_dim;
	h->src = dcn_topo_addr(t, st->src);
	h->dst = dcn_topo_addr(t, st->dst);
	h->proxy = st->proxy == DCN_ROUTE_NONE ? 0 : dcn_topo_addr(t, st->proxy);
	return h->src && h->dst && (st->proxy == DCN_ROUTE_NONE || h->proxy) ? 0 : -1;
}

static int64_t
server_of(const struct dcn_topo *t, uint32_t addr)
{
	int64_t v = dcn_topo_vertex_of(t, addr);

	return v >= 0 && (uint32_t)v < dcn_topo_servers(t) ? v : -1;
}

int
dcn_fabric_state_from_hdr(const struct dcn_topo *t,
			  const struct dcn_fabric_hdr *h,
			  struct dcn_route_state *st)
{
	int64_t s = server_of(t, h->src), d = server_of(t, h->dst), p = -1;

	if (s < 0 || d < 0)
		return -1;
	if (h->proxy != 0) {
		p = server_of(t, h->proxy);
		if (p < 0)
			return -1;
	}
	memset(st, 0, sizeof(*st));
	st->src = (uint32_t)s;
	st->dst = (uint32_t)d;
	st->proxy = p < 0 ? DCN_ROUTE_NONE : (uint32_t)p;
	st->phase = h->phase;
	st->quadrant = h->quadrant;
	st->vc = h->vc;
	st->last_dim = h->last_dim;
	st->jumped = h->jumped;
	st->ttl = h->ttl;
	st->path = h->path;
	return 0;
}

void
dcn_fabric_read_hello(const uint8_t *p, struct dcn_hello *h)
{
	h->addr = dcn_fabric_get32(p);
	h->port = dcn_fabric_get16(p + 4);
	h->interval = dcn_fabric_get16(p + 6);
	h->topo_hash = dcn_fabric_get32(p + 8);
	h->seq = dcn_fabric_get32(p + 12);
}

void
dcn_fabric_write_hello(uint8_t *p, const struct dcn_hello *h)
{
	dcn_fabric_put32(p, h->addr);
	dcn_fabric_put16(p + 4, h->port);
	dcn_fabric_put16(p + 6, h->interval);
	dcn_fabric_put32(p + 8, h->topo_hash);
	dcn_fabric_put32(p + 12, h->seq);
}

void
dcn_fabric_write_hello_echo(uint8_t *p, const struct dcn_hello_echo *e)
{
	dcn_fabric_put32(p, e->addr);
	dcn_fabric_put32(p + 4, e->epoch);
	dcn_fabric_put32(p + 8, e->seq);
}

int
dcn_fabric_hello_echo_find(const uint8_t *p, uint32_t len, uint32_t addr,
			   struct dcn_hello_echo *e)
{
	uint32_t n, i;

	if (len < DCN_HELLO_LEN || (len - DCN_HELLO_LEN) % DCN_HELLO_ECHO_LEN != 0)
		return -1;
	n = (len - DCN_HELLO_LEN) / DCN_HELLO_ECHO_LEN;
	if (n > DCN_HELLO_ECHO_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		const uint8_t *q = p + DCN_HELLO_LEN + i * DCN_HELLO_ECHO_LEN;

		if (dcn_fabric_get32(q) != addr)
			continue;
		e->addr = addr;
		e->epoch = dcn_fabric_get32(q + 4);
		e->seq = dcn_fabric_get32(q + 8);
		return 1;
	}
	return 0;
}

uint32_t
dcn_fabric_topo_hash(const char *spec)
{
	uint32_t h = 2166136261u;

	while (*spec)
		h = (h ^ (uint8_t)*spec++) * 16777619u;
	return h;
}

uint16_t
dcn_ipv4_cksum(const uint8_t *ip, unsigned int ihl)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < ihl * 4; i += 2)
		if (i != 10)
			sum += dcn_fabric_get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint8_t
dcn_ipv4_dec_ttl(uint8_t *ip)
{
	return dcn_ipv4_set_ttl(ip, (uint8_t)(ip[8] - 1));
}

uint8_t
dcn_ipv4_set_ttl(uint8_t *ip, uint8_t ttl)
{
	/* RFC 1624 eq. 3: HC' = ~(~HC + ~m + m'), m the TTL/protocol word. */
	uint16_t old_word = dcn_fabric_get16(ip + 8), new_word;
	uint32_t sum;

	ip[8] = ttl;
	new_word = dcn_fabric_get16(ip + 8);
	sum = (uint16_t)~dcn_fabric_get16(ip + 10);
	sum += (uint16_t)~old_word;
	sum += new_word;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	dcn_fabric_put16(ip + 10, (uint16_t)~sum);
	return ip[8];
}
