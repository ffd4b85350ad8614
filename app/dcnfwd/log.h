/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_LOG_H
#define DCNFWD_LOG_H

/*
 * dcnfwd's log types, one a component, each its own level from the EAL
 * option --log-level (--log-level=dcnfwd.fc:debug, or dcnfwd.*:debug for
 * every one). A file logs under its component's type by defining
 * DCNFWD_LOGTYPE before its first include; the rest log as "dcnfwd".
 * Lines go where EAL sends its own: stderr, and syslog (the journal,
 * with --syslog's facility) once EAL is up. A refusal that ends the
 * process (a bad option, a port that cannot start) is CRIT, as
 * rte_exit's own line is: --log-level=3 still shows why it stopped.
 */

#include <rte_log.h>

extern int dcnfwd_logtype;           /* dcnfwd: start, options, set-up */
extern int dcnfwd_logtype_port;      /* dcnfwd.port: ethdev, AF_XDP, encap */
extern int dcnfwd_logtype_fc;        /* dcnfwd.fc: flow control */
extern int dcnfwd_logtype_link;      /* dcnfwd.link: links, neighbours,
				      * announcements, tables */
extern int dcnfwd_logtype_ctl;       /* dcnfwd.ctl: the control thread */
extern int dcnfwd_logtype_worker;    /* dcnfwd.worker: the workers */
extern int dcnfwd_logtype_emu;       /* dcnfwd.emu: the emulated fabric */
extern int dcnfwd_logtype_telemetry; /* dcnfwd.telemetry */

#ifndef DCNFWD_LOGTYPE
#define DCNFWD_LOGTYPE dcnfwd_logtype
#endif

#define DCNFWD_LOG(level, ...) \
	rte_log(RTE_LOG_##level, DCNFWD_LOGTYPE, "dcnfwd: " __VA_ARGS__)

#endif /* DCNFWD_LOG_H */
