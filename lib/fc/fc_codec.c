/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The credit frame's payload, written and read (its layout:
 * dcn_fc_credit in dcn_fc.h and README.md, "Credit frames").
 */
#include <string.h>

#include "dcn_fabric.h"
#include "dcn_fc.h"

void
dcn_fc_write_credit(uint8_t *p, const struct dcn_fc_credit *c)
{
	uint32_t n = RTE_MIN(c->n_vcs, (uint32_t)DCN_FC_MAX_VCS), vc;

	dcn_fabric_put32(p, c->epoch);
	dcn_fabric_put32(p + 4, c->grant);
	dcn_fabric_put32(p + 8, c->sent_epoch);
	dcn_fabric_put32(p + 12, c->flags);
	p += 16;
	for (vc = 0; vc < n; vc++) {
		dcn_fabric_put32(p + 4 * vc, c->freed[vc]);
		dcn_fabric_put32(p + 4 * (n + vc), c->arrived[vc]);
		dcn_fabric_put32(p + 4 * (2 * n + vc), c->sent[vc]);
	}
}

void
dcn_fc_read_credit(const uint8_t *p, uint32_t len, struct dcn_fc_credit *c)
{
	uint32_t n, vc;

	/* The arrays' first n_vcs entries only, as dcn_fc_credit_state. */
	if (len < DCN_FC_CREDIT_MIN_LEN) {
		memset(c, 0, offsetof(struct dcn_fc_credit, freed));
		return;
	}
	c->epoch = dcn_fabric_get32(p);
	c->grant = dcn_fabric_get32(p + 4);
	c->sent_epoch = dcn_fabric_get32(p + 8);
	c->flags = dcn_fabric_get32(p + 12);
	/* As many VCs as the three arrays have room for; a sender keeping
	 * more than DCN_FC_MAX_VCS cannot be (the fabric header's VC field). */
	n = RTE_MIN((len - 16) / 12, (uint32_t)DCN_FC_MAX_VCS);
	c->n_vcs = n;
	p += 16;
	for (vc = 0; vc < n; vc++) {
		c->freed[vc] = dcn_fabric_get32(p + 4 * vc);
		c->arrived[vc] = dcn_fabric_get32(p + 4 * (n + vc));
		c->sent[vc] = dcn_fabric_get32(p + 4 * (2 * n + vc));
	}
}
