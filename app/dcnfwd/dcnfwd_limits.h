/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_LIMITS_TYPES_H
#define DCNFWD_LIMITS_TYPES_H

/*
 * dcnfwd's limits, and the libraries every part of it builds on.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "dcn_auth.h"
#include "dcn_conf.h"
#include "dcn_fc.h"
#include "dcn_port_rss.h"
#include "dcn_fc_dp.h"
#include "dcn_fwd.h"
#include "dcn_gen.h"
#include "dcn_link.h"
#include "dcn_port_numa.h"
#include "dcn_port.h"
#include "dcn_route.h"
#include "dcn_topo.h"
#include "log.h"
#ifdef DCN_HAVE_XDP
#include "dcn_xdp.h"
#endif

#define DCNFWD_MAX_WORKERS 16
#define DCNFWD_MAX_BURST DCN_FC_BURST_MAX
#define DCNFWD_MAX_SW_MACS 256
/* An idle worker polls on this long before its first sleep: about what
 * a thousand empty polls of a NIC or memif port take, so a short gap
 * between bursts costs no wake-up. */
#define DCNFWD_IDLE_SPIN_US 50
/* A worker stamps a received frame at most this often (us), and in at
 * most one burst of this many, for the histogram of how long frames stay
 * (lib/port/dcn_port_lat.h): at most about 16,000 samples a second a
 * worker, a test a burst. */
#define DCNFWD_LAT_GAP_US 64
#define DCNFWD_LAT_GAP_BURSTS 16

#endif /* DCNFWD_LIMITS_TYPES_H */
