/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCNFWD_TRACE_H
#define DCNFWD_TRACE_H

/* Following a flow's frames hop by hop (lib/fwd's dcn_fwd_trace): asked
 * for by --trace or /dcn/trace, armed by each worker between loops,
 * read by telemetry and the exit report. */

#include "dcnfwd.h"

/* Records each worker keeps. */
#define DCNFWD_TRACE_RECS 2048

/* The workers' traces, and --trace armed. @return 0, -ENOMEM, or
 * -EINVAL (--trace names no flow of this fabric: said). */
int dcnfwd_trace_setup(struct dcnfwd *d);
void dcnfwd_trace_teardown(struct dcnfwd *d);
/* "SRC DST [N]" (nodes by any name, or host addresses), "off", into a
 * request. @return 0, or -1 with err filled. */
int dcnfwd_trace_parse(const struct dcnfwd *d, const char *s,
		       struct dcnfwd_trace_req *r, char *err, size_t len);
/* Ask for r: every worker re-arms at its next loop. */
void dcnfwd_trace_ask(const struct dcnfwd *d, const struct dcnfwd_trace_req *r);
/* Worker w, between loops: arm its trace when the request moved. */
void dcnfwd_trace_take(struct dcnfwd_worker *w);
struct rte_tel_data;
/* Hop h into telemetry dict t (the line's fields). @return 0, or -1. */
int dcnfwd_trace_dict(const struct dcnfwd *d, const struct dcn_fwd_trace_rec *h,
		      struct rte_tel_data *t);
/* The hops so far at exit: lines, or a JSON line with --json. */
void dcnfwd_trace_report(const struct dcnfwd *d);

#endif /* DCNFWD_TRACE_H */
