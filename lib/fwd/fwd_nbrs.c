/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbours behind a node's switch ports (dcn_fwd_nbrs), made from
 * the topology; their MACs are learnt from hellos.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dcn_fwd.h"

int
dcn_fwd_nbrs_init(struct dcn_fwd_nbrs *nb, const struct dcn_topo *t,
		  uint32_t node)
{
	unsigned int deg = dcn_topo_max_degree(t);
	struct dcn_adj *a = calloc(deg, sizeof(*a)), *b = calloc(deg, sizeof(*b));
	unsigned int na, nb_, i, j, total = 0;
	uint32_t size = 4;

	memset(nb, 0, sizeof(*nb));
	if (a == NULL || b == NULL)
		goto nomem;
	na = dcn_topo_adj(t, node, a);
	for (i = 0; i < na; i++)
		if (dcn_topo_role(t, a[i].peer) == DCN_ROLE_SWITCH)
			total += dcn_topo_adj(t, a[i].peer, b);
	while (size < 2 * total)
		size <<= 1;
	nb->slot = malloc(size * sizeof(*nb->slot));
	if (nb->slot == NULL)
		goto nomem;
	nb->mask = size - 1;
	for (i = 0; i < size; i++)
		nb->slot[i] = (struct dcn_fwd_nbr){ .vertex = DCN_FWD_NBR_EMPTY };
	for (i = 0; i < na; i++) {
		if (dcn_topo_role(t, a[i].peer) != DCN_ROLE_SWITCH)
			continue;
		nb_ = dcn_topo_adj(t, a[i].peer, b);
		for (j = 0; j < nb_; j++) {
			uint32_t v = b[j].peer, k;

			if (v == node || dcn_fwd_nbr_find(nb, v, a[i].port) != NULL)
				continue;
			k = ((v * 0x9e3779b1u) ^ (a[i].port * 0x85ebca6bu)) & nb->mask;
			while (nb->slot[k].vertex != DCN_FWD_NBR_EMPTY)
				k = (k + 1) & nb->mask;
			nb->slot[k].vertex = v;
			nb->slot[k].fabric_port = a[i].port;
			nb->count++;
		}
	}
	free(a);
	free(b);
	return 0;
nomem:
	free(a);
	free(b);
	return -ENOMEM;
}

void
dcn_fwd_nbrs_free(struct dcn_fwd_nbrs *nb)
{
	free(nb->slot);
	memset(nb, 0, sizeof(*nb));
}
