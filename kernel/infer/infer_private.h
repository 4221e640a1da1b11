/*
 * infer_private.h - helpers shared by the files of kernel/infer/; not
 * installed, not exported (slo__ prefix).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_INFER_PRIVATE_H
#define SLO_INFER_PRIVATE_H

#include <stddef.h>

#include "slo_infer.h"

/*
 * slo_ig_plan, also saying which workload an SLO_ERR_INFEASIBLE names:
 * *failed is the index of the workload that no GPU type can serve (the one
 * err->text names), or SIZE_MAX when the call succeeded or failed for any
 * other reason (invalid input, memory, an igniter plan the model says
 * misses an SLO). Used by slo_infer_solve to tell a proven infeasibility
 * from an unproven one.
 */
int slo__ig_plan_detail(const struct slo_ig_profile *profiles, size_t n_types,
                        const struct slo_ig_workload *workloads, size_t n, int policy,
                        struct slo_ig_plan *plan, size_t *failed, slo_error_t *err);

/*
 * Physical ranges of the fitted coefficients (issue 15), shared by the fits
 * (slo_ig_fit_hardware, slo_ig_fit_model) and the reader of the
 * "coefficients" form, so a fit's own output always reads back: clock slope
 * in [-1e6, 0] MHz/W, sched_alpha_ms in [0, 1e3], sched_beta_ms in [-1e3,
 * 1e3]; k finite, kp in [0, 1e4] W per req/s, bp in [-idlepower, maxGPUpower]
 * W, kc in [0, 1e4] % per req/s, bc in [-100, 100] %, alpha_cache in [0, 1]
 * per %. path names the section in the text ("hardware.coefficients",
 * "alexnet (fitted)"). Returns SLO_OK or SLO_ERR_INVALID ("PATH.KEY: expected
 * a number in [lo, hi] UNIT, found V", source p->source).
 */
int slo__ig_check_hardware_coefficients(const struct slo_ig_profile *p, const char *path,
                                        slo_error_t *err);
int slo__ig_check_model_coefficients(const struct slo_ig_profile *p,
                                     const struct slo_ig_model *m, const char *path,
                                     slo_error_t *err);

#endif
