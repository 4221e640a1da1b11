/*
 * prophet_private.h - helpers shared by the runtime's two halves
 * (prophet_plan.c, prophet_runtime.c); not installed, not exported
 * (libsloprophet exports ^slo_prophet_ only).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_PROPHET_PRIVATE_H
#define SLO_PROPHET_PRIVATE_H

#include "slo_core.h"

/* Fill err (if not NULL) and return code; source may be NULL. The
 * runtime's own (libslo's slo__fail is private to libslo). */
int prophet_fail(slo_error_t *err, int code, const char *source, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5), visibility("hidden")))
#endif
    ;

#endif
