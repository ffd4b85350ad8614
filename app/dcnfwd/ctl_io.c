/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's frames out: each port has a ring (ctl_tx) that
 * the worker sending its control frames drains, so the control thread
 * never calls a PMD's send.
 */
#define DCNFWD_LOGTYPE dcnfwd_logtype_ctl

#include <string.h>

#include "ctl_io.h"
#include "dcn_fabric.h"

int
dcnfwd_inject(struct dcnfwd *d, uint32_t port, struct rte_mbuf **m,
	      unsigned int n)
{
	unsigned int q = rte_ring_enqueue_burst(d->port[port].ctl_tx, (void **)m,
						n, NULL);

	/* After the frames are on the ring: the worker that sees the count
	 * move finds them there. */
	if (q != 0 && d->worker != NULL)
		__atomic_fetch_add(&d->worker[d->port[port].ctl_worker].ctl_posted, q,
				   __ATOMIC_RELEASE);
	if (q < n) {
		d->ctl_ring_full += n - q;
		rte_pktmbuf_free_bulk(&m[q], n - q);
	}
	return (int)q;
}

struct rte_mbuf *
dcnfwd_ctl_frame(struct dcnfwd *d, const struct dcnfwd_port *p,
		 const struct rte_ether_addr *dst, uint16_t ethertype, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->ctl_mp);
	uint8_t *f;

	if (len < 60)
		len = 60;   /* the Ethernet minimum without FCS */
	if (m == NULL) {
		d->ctl_no_mbuf++;
		return NULL;
	}
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, len);
	if (dst != NULL)
		memcpy(f, dst, 6);
	else
		memset(f, 0xff, 6);
	memcpy(f + 6, &p->mac, 6);
	dcn_fabric_put16(f + 12, ethertype);
	return m;
}

uint32_t
dcnfwd_ctl_len(const struct dcnfwd *d, uint32_t payload_len)
{
	return DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + payload_len +
	       (d->auth != NULL ? DCN_AUTH_TRAILER_LEN : 0);
}

void
dcnfwd_auth_refuse(struct dcnfwd_port *p, enum dcn_auth_result r,
		   const char *what)
{
	uint64_t total = 0, k;
	unsigned int i;

	p->auth_refused[r]++;
	for (i = 0; i <= DCN_AUTH_REPLAYED; i++)
		total += p->auth_refused[i];
	/* The first and then every power of two: a forger is seen at once
	 * without filling the log. */
	k = total;
	if ((k & (k - 1)) == 0)
		DCNFWD_LOG(WARNING, "port %s: %s refused: %s (%lu refused so far)\n",
			   p->name, what, dcn_auth_result_name(r), (unsigned long)total);
}

int
dcnfwd_auth_check(struct dcnfwd *d, struct dcnfwd_port *p, const uint8_t *f,
		  uint32_t len, const struct dcn_auth_span *span, uint32_t *epoch,
		  uint32_t *seq)
{
	enum dcn_auth_result r;

	if (d->auth == NULL)
		return 1;
	r = dcn_auth_check(d->auth, f, len,
			   dcn_fabric_get16(f + DCN_ETHER_HDR_LEN + 6), span, epoch, seq);
	if (r == DCN_AUTH_OK)
		return 1;
	dcnfwd_auth_refuse(p, r, (f[DCN_ETHER_HDR_LEN] & 0x0f) == DCN_FT_HELLO ?
			   "hello" : "announcement");
	return 0;
}
