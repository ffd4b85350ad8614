/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_EMU_FABRIC_H
#define DCNFWD_EMU_FABRIC_H

/*
 * An emulated fabric (--emulate SPEC): every routing node of a small
 * instance in this process, its cables as pairs of rings (lib/port), its
 * L2 switches as learning switches, and a host behind every server, which
 * sends stamped traffic (lib/gen) from the workers that poll its node's
 * port (emu_hosts.h). Built from the appliance's own parts (setup.h); the
 * switches and hosts are RX handlers and a per-loop tick of the workers.
 */

#include "dcnfwd.h"

/* An emulated switch port's egress buffer, frames, unless set: enough
 * for what the default grants let a relay's neighbours have in flight
 * toward it in the fabrics' tested sizes (588 frames in RRect(4,2,1),
 * 1,020 in Totoro(4,4,1), 3,264 in LaScaDa(2,2) with its 16 VCs;
 * lib/fc/README.md). */
#define DCNFWD_EMU_SWITCH_BUFFER 4096
/* Frames an emulated cable holds each way ("on the wire"). */
#define DCNFWD_EMU_WIRE_FRAMES 1024

static inline unsigned int
dcnfwd_emu_switch_buffer(const struct dcnfwd *d)
{
	return d->emu.switch_buffer ? d->emu.switch_buffer : DCNFWD_EMU_SWITCH_BUFFER;
}

/* Nodes, switches, hosts, ports, cables and the mempool of spec. */
int dcnfwd_emu_build(struct dcnfwd *d, const char *spec);
/* Workers on every EAL worker lcore, each owner's ports on one worker. */
int dcnfwd_emu_workers(struct dcnfwd *d);
/* Cut (1) or mend (0) the cable at port pi; with carrier set, both ends
 * see it as a PMD would, else only the frames stop. */
void dcnfwd_emu_cut(struct dcnfwd *d, uint32_t pi, int cut, int carrier);
/* What the build added beyond setup.h's parts. */
void dcnfwd_emu_teardown(struct dcnfwd *d);

#endif /* DCNFWD_EMU_FABRIC_H */
