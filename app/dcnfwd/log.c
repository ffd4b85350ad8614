/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcnfwd's log types (log.h), registered before main: an --log-level
 * option names them whatever the order, and a line logged before EAL is
 * up (an option refused) goes to stderr at its type's level.
 */
#include "log.h"

RTE_LOG_REGISTER(dcnfwd_logtype, dcnfwd, INFO);
RTE_LOG_REGISTER(dcnfwd_logtype_port, dcnfwd.port, INFO);
RTE_LOG_REGISTER(dcnfwd_logtype_fc, dcnfwd.fc, INFO);
RTE_LOG_REGISTER(dcnfwd_logtype_link, dcnfwd.link, INFO);
RTE_LOG_REGISTER(dcnfwd_logtype_ctl, dcnfwd.ctl, INFO);
RTE_LOG_REGISTER(dcnfwd_logtype_worker, dcnfwd.worker, INFO);
RTE_LOG_REGISTER(dcnfwd_logtype_emu, dcnfwd.emu, INFO);
RTE_LOG_REGISTER(dcnfwd_logtype_telemetry, dcnfwd.telemetry, INFO);
